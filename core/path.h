// Paths: points moving in time, with analytic first and second derivatives.
#pragma once

#include <vector>

#include "core/scene.h"

namespace tether::core {

struct PathSample {
  Vec3 x = Vec3::Zero();  // position, m
  Vec3 v = Vec3::Zero();  // dx/dt, m/s
  Vec3 a = Vec3::Zero();  // d2x/dt2, m/s^2
};

class Path {
 public:
  explicit Path(const PathDef& def);
  PathSample sample(double t) const;

 private:
  PathKind m_kind;
  Vec3 m_start, m_velocity;            // line
  Vec3 m_center, m_e1, m_e2;           // circle: orthonormal in-plane basis
  double m_radius = 0, m_omega = 0, m_phase = 0;
  std::vector<double> m_t;             // spline knots
  std::vector<Vec3> m_y, m_m;          // spline values and second derivatives at the knots
};

}  // namespace tether::core
