// The viewport camera: orbit about a target in a z-up world (gravity points down -z), pan, zoom,
// frame-all, standard views; view/projection matrices for OpenGL and the picking ray through a
// pixel. Pure math (GLM + Eigen), no GL calls.
#pragma once

#include <glm/glm.hpp>

#include "core/math.h"

namespace tether::render {

using core::Vec3;

struct Ray {
  Vec3 origin = Vec3::Zero();
  Vec3 direction = Vec3::UnitY();  // unit
};

// Where a ray meets the plane through p with normal n (in front of its origin), if it does.
bool hitPlane(const Ray& r, const Vec3& p, const Vec3& n, Vec3& out);

enum class StandardView { Front, Back, Left, Right, Top, Bottom, Iso };

class Camera {
 public:
  // viewport size in pixels
  void resize(int width, int height);
  int width() const { return m_width; }
  int height() const { return m_height; }

  Vec3 target() const { return m_target; }
  double distance() const { return m_distance; }
  double yaw() const { return m_yaw; }      // rad, about +z; -pi/2 looks along +y (front view)
  double pitch() const { return m_pitch; }  // rad, above the xy plane
  void set(const Vec3& target, double distance, double yaw, double pitch);

  Vec3 eye() const;
  Vec3 forward() const;  // unit, from the eye toward the target
  Vec3 right() const;    // unit, screen right
  Vec3 up() const;       // unit, screen up

  // mouse navigation, in pixels: orbit turns 0.5 degree per pixel; pan keeps the point under
  // the cursor at the target's depth under the cursor; zoom scales distance by 0.85^steps
  void orbit(double dxPixels, double dyPixels);
  void pan(double dxPixels, double dyPixels);
  void zoom(double steps);
  // zoom keeping the world point `fixed` on the same pixel (the point under the cursor: the wheel
  // zooms toward what it points at, not the middle of the view)
  void zoomAt(double steps, const Vec3& fixed);

  // fit the box [lo, hi] in view, keeping the direction
  void frame(const Vec3& lo, const Vec3& hi);
  void setView(StandardView v);

  glm::mat4 view() const;
  glm::mat4 projection() const;
  glm::mat4 viewProjection() const { return projection() * view(); }

  // ray from the eye through pixel (px, py), origin at the top-left corner
  Ray ray(double px, double py) const;
  // pixel position of a world point (x, y) and whether it is in front of the camera
  bool project(const Vec3& world, double& px, double& py) const;
  // world size of one pixel at the depth of a point
  double pixelSize(const Vec3& at) const;

  // the work plane placement tools draw on: through the target, normal to the world axis most
  // aligned with the view direction (front view: the xz plane)
  Vec3 workPlaneNormal() const;
  bool hitWorkPlane(const Ray& r, Vec3& out) const;
  // The grid's spacing: a power of ten near 0.15 of the distance (0.1 m at the default 5 m), m.
  double gridStep() const;
  // Looking straight at a vertical work plane (the front and side views, within 8 degrees): the
  // grid is drawn in it, not on the ground seen edge-on.
  bool facesVerticalWorkPlane() const;

  static constexpr double kFovY = 0.7853981633974483;  // 45 degrees
  static constexpr double kNear = 0.01, kFar = 1000.0;  // relative to distance (scaled)

 private:
  Vec3 m_target = Vec3(0, 0, 0);
  double m_distance = 5.0;
  double m_yaw = -1.5707963267948966;
  double m_pitch = 0.25;
  int m_width = 800, m_height = 600;
};

}  // namespace tether::render
