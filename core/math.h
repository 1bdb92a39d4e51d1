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
  Mat3 s;
  s << 0.0, -a.z(), a.y(),
       a.z(), 0.0, -a.x(),
       -a.y(), a.x(), 0.0;
  return s;
}

// True when every component of v is finite.
template <typename Derived>
inline bool allFinite(const Eigen::MatrixBase<Derived>& v) {
  return v.allFinite();
}

// A pair of unit vectors (e1, e2) that with n form an orthonormal basis; stable for any n.
inline void orthonormalBasis(const Vec3& n, Vec3& e1, Vec3& e2) {
  const Vec3 a = std::abs(n.x()) < 0.57 ? Vec3::UnitX() : (std::abs(n.y()) < 0.57 ? Vec3::UnitY() : Vec3::UnitZ());
  e1 = n.cross(a).normalized();
  e2 = n.cross(e1);
}

}  // namespace tether::core
