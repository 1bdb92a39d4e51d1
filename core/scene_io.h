// Scene files: versioned JSON, documented in docs/scene-format.md.
// Every malformed input raises SceneError naming the place: "bodies[3].length: must be > 0".
#pragma once

#include <stdexcept>
#include <string>

#include "core/scene.h"

namespace tether::core {

class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parse and validate a scene from JSON text. Throws SceneError.
Scene sceneFromJson(const std::string& text);
// Serialize; sceneFromJson(sceneToJson(s)) == s for every valid scene.
std::string sceneToJson(const Scene& scene);

// File helpers: loadScene throws SceneError (prefixed with the file name); saveScene writes
// to a temporary file beside the target and renames it, so a failed save never corrupts
// the existing file. Throws SceneError on I/O failure.
// Files larger than kMaxSceneBytes are refused (a 10^5-body scene is ~20 MB).
constexpr size_t kMaxSceneBytes = size_t(256) << 20;
Scene loadScene(const std::string& path);
void saveScene(const Scene& scene, const std::string& path);

// Point references in their textual form: "body.point", "nail:name", "path:name".
std::string pointRefToString(const PointRef& r);

}  // namespace tether::core
