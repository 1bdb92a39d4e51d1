#include "render/camera.h"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <numbers>

namespace tether::render {

namespace {
constexpr double kPi = std::numbers::pi;
glm::dvec3 g(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
}  // namespace

void Camera::resize(int width, int height) {
  m_width = std::max(width, 1);
  m_height = std::max(height, 1);
}

void Camera::set(const Vec3& target, double distance, double yaw, double pitch) {
  m_target = target;
  m_distance = std::clamp(distance, 1e-3, 1e5);
  m_yaw = yaw;
  m_pitch = std::clamp(pitch, -kPi / 2 + 1e-3, kPi / 2 - 1e-3);
}

// eye = target + distance (cos p cos y, cos p sin y, sin p): yaw -pi/2 puts the eye on -y
Vec3 Camera::eye() const {
  return m_target + m_distance * Vec3(std::cos(m_pitch) * std::cos(m_yaw), std::cos(m_pitch) * std::sin(m_yaw),
                                      std::sin(m_pitch));
}
Vec3 Camera::forward() const { return (m_target - eye()).normalized(); }
Vec3 Camera::right() const { return forward().cross(Vec3::UnitZ()).normalized(); }
Vec3 Camera::up() const { return right().cross(forward()); }

void Camera::orbit(double dx, double dy) {
  const double k = 0.5 * kPi / 180.0;
  set(m_target, m_distance, m_yaw - dx * k, m_pitch + dy * k);
}

void Camera::pan(double dx, double dy) {
  const double s = pixelSize(m_target);
  m_target += (-dx * right() + dy * up()) * s;
}

void Camera::zoom(double steps) { m_distance = std::clamp(m_distance * std::pow(0.85, steps), 1e-3, 1e5); }

// The eye E = T - d f (f forward) moves to E' = P + s (E - P), s = d'/d, keeping its orientation:
// the direction from the eye to P is unchanged, so P stays on its pixel. The target, d' in front
// of E', is then T' = E' + s d f = P + s (T - P).
void Camera::zoomAt(double steps, const Vec3& fixed) {
  const double before = m_distance;
  zoom(steps);
  if (fixed.allFinite()) m_target = fixed + (m_distance / before) * (m_target - fixed);
}

// the box's bounding sphere fits the narrower field of view
void Camera::frame(const Vec3& lo, const Vec3& hi) {
  const Vec3 c = 0.5 * (lo + hi);
  const double r = std::max(0.5 * (hi - lo).norm(), 0.05);
  const double aspect = double(m_width) / m_height;
  const double half = 0.5 * kFovY * std::min(1.0, aspect);
  set(c, 1.1 * r / std::sin(half), m_yaw, m_pitch);
}

void Camera::setView(StandardView v) {
  switch (v) {
    case StandardView::Front: m_yaw = -kPi / 2; m_pitch = 0; break;
    case StandardView::Back: m_yaw = kPi / 2; m_pitch = 0; break;
    case StandardView::Left: m_yaw = kPi; m_pitch = 0; break;
    case StandardView::Right: m_yaw = 0; m_pitch = 0; break;
    case StandardView::Top: m_yaw = -kPi / 2; m_pitch = kPi / 2 - 1e-3; break;
    case StandardView::Bottom: m_yaw = -kPi / 2; m_pitch = -kPi / 2 + 1e-3; break;
    case StandardView::Iso: m_yaw = -kPi / 4; m_pitch = 0.6154797; break;  // atan(1/sqrt 2)
  }
}

glm::mat4 Camera::view() const { return glm::mat4(glm::lookAt(g(eye()), g(m_target), glm::dvec3(0, 0, 1))); }

glm::mat4 Camera::projection() const {
  return glm::mat4(glm::perspective(kFovY, double(m_width) / m_height, kNear * m_distance, kFar * m_distance));
}

Ray Camera::ray(double px, double py) const {
  // normalized device coordinates -> a direction in the camera frame
  const double ndcX = 2.0 * px / m_width - 1.0, ndcY = 1.0 - 2.0 * py / m_height;
  const double t = std::tan(0.5 * kFovY);
  const double aspect = double(m_width) / m_height;
  Ray r;
  r.origin = eye();
  r.direction = (forward() + ndcX * t * aspect * right() + ndcY * t * up()).normalized();
  return r;
}

bool Camera::project(const Vec3& w, double& px, double& py) const {
  const glm::dvec4 c = glm::dmat4(projection()) * glm::dmat4(view()) * glm::dvec4(w.x(), w.y(), w.z(), 1.0);
  if (c.w <= 1e-12) return false;
  px = (c.x / c.w + 1.0) * 0.5 * m_width;
  py = (1.0 - c.y / c.w) * 0.5 * m_height;
  return true;
}

double Camera::pixelSize(const Vec3& at) const {
  const double depth = std::max((at - eye()).dot(forward()), 1e-6);
  return 2.0 * depth * std::tan(0.5 * kFovY) / m_height;
}

Vec3 Camera::workPlaneNormal() const {
  const Vec3 f = forward();
  int axis = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(f(i)) > std::abs(f(axis))) axis = i;
  return Vec3::Unit(axis);
}

// o + t d on the plane: n . (o + t d - p) = 0  =>  t = n . (p - o) / (n . d)
bool hitPlane(const Ray& r, const Vec3& p, const Vec3& n, Vec3& out) {
  const double den = n.dot(r.direction);
  if (std::abs(den) < 1e-9) return false;
  const double t = n.dot(p - r.origin) / den;
  if (t <= 0) return false;
  out = r.origin + t * r.direction;
  return true;
}

bool Camera::hitWorkPlane(const Ray& r, Vec3& out) const { return hitPlane(r, m_target, workPlaneNormal(), out); }

double Camera::gridStep() const { return std::pow(10.0, std::floor(std::log10(std::max(m_distance * 0.15, 1e-3)))); }

bool Camera::facesVerticalWorkPlane() const {
  const Vec3 n = workPlaneNormal();
  return n.z() == 0.0 && std::abs(forward().dot(n)) > 0.99;
}

}  // namespace tether::render
