// Value and reference checks for a Scene, shared by the file reader and by compile() (the
// GUI edits Scenes directly). Throws SceneError naming the place: "bodies[3].length: must be > 0".
#pragma once

#include <string>
#include <vector>

#include "core/scene.h"

namespace tether::core {

void validateScene(const Scene& scene);

// Parameters a "set" event may change, and how many numbers each takes (1 or 3).
struct ParamSpec {
  const char* name;
  int size;
};
std::vector<ParamSpec> settableParams(ForceKind kind);
// Constraints: "tau" (1). Paths: "speed" (1, local seconds per second). Gravity: "acceleration" (3).

}  // namespace tether::core
