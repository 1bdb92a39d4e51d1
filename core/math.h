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

// The inverse mass matrix of a body point at arm r from the centre of mass: an impulse f there
// changes the body's v by f / m and its w by I^-1 (r x f), so the point's velocity by
//   dv = f / m + (I^-1 (r x f)) x r = K f,   K = (1/m) 1 + [r]x^T I^-1 [r]x
// ([r]x^T = -[r]x, and a x r = -[r]x a). I^-1 and r in the same frame.
inline Mat3 pointMobility(double invMass, const Mat3& invInertia, const Vec3& r) {
  const Mat3 rx = skew(r);
  return invMass * Mat3::Identity() + rx.transpose() * invInertia * rx;
}

// The rotation matrix of the unit quaternion q / |q| for any q != 0 (w, x, y, z), written out:
// 2 / |q|^2 scales the products, so no square root is taken (a zero q gives the identity).
// rotationOfScaled takes f = 2 / |q|^2 from the caller (who may know |q| before q itself).
inline Mat3 rotationOfScaled(double qw, double qx, double qy, double qz, double f) {
  const double xx = f * qx * qx, yy = f * qy * qy, zz = f * qz * qz;
  const double xy = f * qx * qy, xz = f * qx * qz, yz = f * qy * qz;
  const double wx = f * qw * qx, wy = f * qw * qy, wz = f * qw * qz;
  Mat3 R;
  R(0, 0) = 1.0 - yy - zz; R(0, 1) = xy - wz;       R(0, 2) = xz + wy;
  R(1, 0) = xy + wz;       R(1, 1) = 1.0 - xx - zz; R(1, 2) = yz - wx;
  R(2, 0) = xz - wy;       R(2, 1) = yz + wx;       R(2, 2) = 1.0 - xx - yy;
  return R;
}
inline Mat3 rotationOf(double qw, double qx, double qy, double qz) {
  const double n2 = qw * qw + qx * qx + qy * qy + qz * qz;
  return rotationOfScaled(qw, qx, qy, qz, n2 > 0.0 ? 2.0 / n2 : 0.0);
}

// S += scale A B^T for a product known to be symmetric (A = B C with C symmetric): its six
// distinct entries, each a dot product of rows, mirrored. Written out: as loops (the inner one
// with a variable start) the compiler kept the loop counters and reloaded every entry.
inline void addSymmetricProduct(Mat3& S, double scale, const Mat3& A, const Mat3& B) {
  const double a00 = A(0, 0), a01 = A(0, 1), a02 = A(0, 2), a10 = A(1, 0), a11 = A(1, 1), a12 = A(1, 2);
  const double a20 = A(2, 0), a21 = A(2, 1), a22 = A(2, 2);
  const double b00 = B(0, 0), b01 = B(0, 1), b02 = B(0, 2), b10 = B(1, 0), b11 = B(1, 1), b12 = B(1, 2);
  const double b20 = B(2, 0), b21 = B(2, 1), b22 = B(2, 2);
  const double s01 = scale * (a00 * b10 + a01 * b11 + a02 * b12);
  const double s02 = scale * (a00 * b20 + a01 * b21 + a02 * b22);
  const double s12 = scale * (a10 * b20 + a11 * b21 + a12 * b22);
  S(0, 0) += scale * (a00 * b00 + a01 * b01 + a02 * b02);
  S(1, 1) += scale * (a10 * b10 + a11 * b11 + a12 * b12);
  S(2, 2) += scale * (a20 * b20 + a21 * b21 + a22 * b22);
  S(0, 1) += s01; S(1, 0) += s01;
  S(0, 2) += s02; S(2, 0) += s02;
  S(1, 2) += s12; S(2, 1) += s12;
}

// Products with a cross-product matrix, written out (a point's angular Jacobian is one, Ja = [a]x):
// [a]x M, whose column j is a x M_j (18 products instead of 27);
inline Mat3 skewTimes(const Vec3& a, const Mat3& M) {
  const double a0 = a.x(), a1 = a.y(), a2 = a.z();
  Mat3 X;
  for (int j = 0; j < 3; ++j) {
    const double m0 = M(0, j), m1 = M(1, j), m2 = M(2, j);
    X(0, j) = a1 * m2 - a2 * m1;
    X(1, j) = a2 * m0 - a0 * m2;
    X(2, j) = a0 * m1 - a1 * m0;
  }
  return X;
}
// X [b]x^T, whose row i is (b x X_i.)^T (X_i. the row i of X);
inline Mat3 timesSkewT(const Mat3& X, const Vec3& b) {
  const double b0 = b.x(), b1 = b.y(), b2 = b.z();
  Mat3 Y;
  for (int i = 0; i < 3; ++i) {
    const double x0 = X(i, 0), x1 = X(i, 1), x2 = X(i, 2);
    Y(i, 0) = b1 * x2 - b2 * x1;
    Y(i, 1) = b2 * x0 - b0 * x2;
    Y(i, 2) = b0 * x1 - b1 * x0;
  }
  return Y;
}
// and S += X [b]x^T when that is symmetric (X = [b]x M with M symmetric): its six distinct entries.
inline void addTimesSkewTSymmetric(Mat3& S, const Mat3& X, const Vec3& b) {
  const double b0 = b.x(), b1 = b.y(), b2 = b.z();
  const double s01 = b2 * X(0, 0) - b0 * X(0, 2), s02 = b0 * X(0, 1) - b1 * X(0, 0);
  const double s12 = b0 * X(1, 1) - b1 * X(1, 0);
  S(0, 0) += b1 * X(0, 2) - b2 * X(0, 1);
  S(1, 1) += b2 * X(1, 0) - b0 * X(1, 2);
  S(2, 2) += b0 * X(2, 1) - b1 * X(2, 0);
  S(0, 1) += s01; S(1, 0) += s01;
  S(0, 2) += s02; S(2, 0) += s02;
  S(1, 2) += s12; S(2, 1) += s12;
}

// The centripetal acceleration w x (w x r) of a point at the offset r from the centre of a
// body turning at w (the velocity-product part of its acceleration; constraint_parts.h).
inline Vec3 pointAcceleration(const Vec3& w, const Vec3& r) { return w.cross(w.cross(r)); }

// R diag(d) R^T: a body's principal inertia (or its inverse) in world axes. Symmetric: six
// entries, each sum_c R_ac d_c R_bc (written out, as addSymmetricProduct).
inline Mat3 rotateDiagonal(const Mat3& R, const Vec3& d) {
  const double r00 = R(0, 0), r01 = R(0, 1), r02 = R(0, 2), r10 = R(1, 0), r11 = R(1, 1), r12 = R(1, 2);
  const double r20 = R(2, 0), r21 = R(2, 1), r22 = R(2, 2);
  const double d0 = d.x(), d1 = d.y(), d2 = d.z();
  const double s00 = r00 * d0, s01 = r01 * d1, s02 = r02 * d2;  // row 0 of R diag(d)
  const double s10 = r10 * d0, s11 = r11 * d1, s12 = r12 * d2;  // row 1
  Mat3 out;
  out(0, 0) = s00 * r00 + s01 * r01 + s02 * r02;
  out(1, 1) = s10 * r10 + s11 * r11 + s12 * r12;
  out(2, 2) = r20 * d0 * r20 + r21 * d1 * r21 + r22 * d2 * r22;
  out(0, 1) = out(1, 0) = s00 * r10 + s01 * r11 + s02 * r12;
  out(0, 2) = out(2, 0) = s00 * r20 + s01 * r21 + s02 * r22;
  out(1, 2) = out(2, 1) = s10 * r20 + s11 * r21 + s12 * r22;
  return out;
}

// True when every entry of a long vector (a simulation's state) is finite, in a quarter of the
// instructions of Eigen's allFinite(): x * 0 is 0 for a finite x and NaN for an infinite or NaN
// one; four sums keep the additions independent.
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

// Inverse of a symmetric 3 x 3 matrix, if it is positive definite with every Cholesky pivot
// above tol. By Sylvester's criterion the pivots are m1, m2 / m1 and m3 / m2 with the leading
// principal minors m1 = a00, m2 = a00 a11 - a01^2, m3 = det a; the inverse is the adjugate over
// m3. One division and no square root: this sits on the block factorization's critical path
// (each block waits for the one before it along a chain), where Cholesky's three square roots
// and divisions in sequence cost several times more.
inline bool invertSpd(const Mat3& a, double tol, Mat3& inv) {
  const double a00 = a(0, 0), a01 = a(1, 0), a02 = a(2, 0), a11 = a(1, 1), a12 = a(2, 1), a22 = a(2, 2);
  // cofactors
  const double c00 = a11 * a22 - a12 * a12;
  const double c01 = a02 * a12 - a01 * a22;
  const double c02 = a01 * a12 - a02 * a11;
  const double c11 = a00 * a22 - a02 * a02;
  const double c12 = a01 * a02 - a00 * a12;
  const double c22 = a00 * a11 - a01 * a01;  // = m2
  const double m3 = a00 * c00 + a01 * c01 + a02 * c02;
  if (!(a00 > tol) || !(c22 > tol * a00) || !(m3 > tol * c22)) return false;
  const double s = 1.0 / m3;
  inv(0, 0) = s * c00; inv(0, 1) = s * c01; inv(0, 2) = s * c02;
  inv(1, 0) = s * c01; inv(1, 1) = s * c11; inv(1, 2) = s * c12;
  inv(2, 0) = s * c02; inv(2, 1) = s * c12; inv(2, 2) = s * c22;
  return true;
}

// A pair of unit vectors (e1, e2) that with n form an orthonormal basis; stable for any n.
inline void orthonormalBasis(const Vec3& n, Vec3& e1, Vec3& e2) {
  const Vec3 a = std::abs(n.x()) < 0.57 ? Vec3::UnitX() : (std::abs(n.y()) < 0.57 ? Vec3::UnitY() : Vec3::UnitZ());
  e1 = n.cross(a).normalized();
  e2 = n.cross(e1);
}

}  // namespace tether::core
