// What to draw, apart from how (Box2D v3's b2DebugDraw is the model): the walk of a snapshot
// (render/scene_walk.h) decides what the viewport shows, each thing with its colour and size,
// and emits it through this interface as a handful of primitives; the OpenGL renderer
// (render/renderer.h) batches and draws them, and the tests record them. No GL here.
#pragma once

#include <glm/glm.hpp>
#include <string>

#include "core/snapshot.h"

namespace tether::render {

using core::Quat;
using core::Vec3;

struct Color {
  float r = 0, g = 0, b = 0, a = 1;
};

// The axis gizmo: the world axes as the camera turns them, in a square of the viewport drawn
// over the scene.
struct AxisGizmo {
  int x = 0, y = 0, size = 0;         // the square, pixels from the viewport's bottom-left corner
  glm::mat4 viewProjection{1.0f};     // world -> the square's clip space
  Color axes[3];                      // x, y, z: each a line from the origin to its unit tip
};

class DebugDraw {
 public:
  virtual ~DebugDraw() = default;

  // The colour behind everything.
  virtual void background(const Color& c) = 0;
  // A body's shape (only its shape and dimensions are read), shaded, its centre at position.
  virtual void shape(const core::BodyGeometry& body, const Vec3& position, const Quat& orientation, const Color& c) = 0;
  // A line one pixel wide, world, m.
  virtual void segment(const Vec3& a, const Vec3& b, const Color& c) = 0;
  // An arrow from `from` along vector (non-zero, finite; world, m), unshaded, a shaft and head
  // of constant screen width.
  virtual void arrow(const Vec3& from, const Vec3& vector, const Color& c) = 0;
  // A round dot of constant screen size, unshaded.
  virtual void point(const Vec3& at, double radiusPixels, const Color& c) = 0;
  // Text centred at a pixel (origin at the top-left corner, as Camera::project's).
  virtual void label(double px, double py, const std::string& text, const Color& c) = 0;
  virtual void axes(const AxisGizmo& gizmo) = 0;
  // While on, the arrows and dots emitted are drawn over everything (not hidden by the bodies
  // they point into: a contact's force arrow starts at the surface and enters the body).
  virtual void setOnTop(bool on) { (void)on; }
};

}  // namespace tether::render
