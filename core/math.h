// Small math vocabulary shared by the whole core: vector types, the cross-product (skew)
// matrix, and the kinematics of a point fixed on a rigid body.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace tether::core {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;

// skew(a) * b == a.cross(b).  (The paper's Appendix B.1 prints the transpose of this
// matrix; the identity a x b is what every formula below relies on.)
inline Mat3 skew(const Vec3& a) {
  Mat3 s;  // element by element: Eigen's comma initializer costs several times more here
  s(0, 0) = 0.0;    s(0, 1) = -a.z(); s(0, 2) = a.y();
  s(1, 0) = a.z();  s(1, 1) = 0.0;    s(1, 2) = -a.x();
  s(2, 0) = -a.y(); s(2, 1) = a.x();  s(2, 2) = 0.0;
  return s;
}

// True when every component of v is finite.
template <typename Derived>
inline bool allFinite(const Eigen::MatrixBase<Derived>& v) {
  return v.allFinite();
}

// The same for a long vector (a simulation's state), in a quarter of the instructions: x * 0 is
// 0 for a finite x and NaN for an infinite or NaN one; four sums keep the additions independent.
inline bool allFiniteLong(const Eigen::VectorXd& v) {
  const double* p = v.data();
  const Eigen::Index n = v.size();
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  Eigen::Index i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += p[i] * 0.0;
    s1 += p[i + 1] * 0.0;
    s2 += p[i + 2] * 0.0;
    s3 += p[i + 3] * 0.0;
  }
  for (; i < n; ++i) s0 += p[i] * 0.0;
  return (s0 + s1) + (s2 + s3) == 0.0;
}

// A pair of unit vectors (e1, e2) that with n form an orthonormal basis; stable for any n.
inline void orthonormalBasis(const Vec3& n, Vec3& e1, Vec3& e2) {
  const Vec3 a = std::abs(n.x()) < 0.57 ? Vec3::UnitX() : (std::abs(n.y()) < 0.57 ? Vec3::UnitY() : Vec3::UnitZ());
  e1 = n.cross(a).normalized();
  e2 = n.cross(e1);
}

}  // namespace tether::core
