// Pieces every point-based constraint (and force) shares: where a point is and how it moves.
//
// A point fixed in a body at body coordinates r_b sits at p = x + r with r = R r_b.
// Differentiating (dR/dt = [w]x R, paper Fig. 16):
//   dp/dt   = v + w x r                     = v - [r]x w
//   d2p/dt2 = a + alpha x r + w x (w x r)   = a - [r]x alpha + w x (w x r)
// so its Jacobian is (Jl, Ja) = (1, -[r]x) and its velocity-product term is w x (w x r).
// A nail is fixed (no Jacobian, no acceleration); a path point has p = X(t), dp/dt = X'(t)
// and its whole acceleration X''(t) goes into the c term.
#pragma once

#include "core/constraint.h"

namespace tether::core {

struct AnchorKinematics {
  Vec3 p = Vec3::Zero();     // position, world, m
  Vec3 v = Vec3::Zero();     // velocity, m/s
  Vec3 acc = Vec3::Zero();   // acceleration not due to the body's a and alpha, m/s^2
  int body = -1;             // -1: no moving body (nail, path, fixed body)
  Vec3 r = Vec3::Zero();     // world offset from the body's centre of mass, m
};

inline AnchorKinematics anchorKinematics(const Anchor& a, const std::vector<BodyKinematics>& bodies,
                                         const std::vector<Path>& paths, double t,
                                         const std::vector<PathClock>* clocks = nullptr) {
  AnchorKinematics k;
  switch (a.kind) {
    case Anchor::Kind::World: k.p = a.local; break;
    case Anchor::Kind::Path: {
      // sampled on the path's clock: x(tau(t)), v = s dx/dtau, acc = s^2 d2x/dtau2
      const size_t i = static_cast<size_t>(a.index);
      const double s = clocks ? (*clocks)[i].speed : 1.0;
      const PathSample p = paths[i].sample(clocks ? (*clocks)[i].local(t) : t);
      k.p = p.x;
      k.v = s * p.v;
      k.acc = s * s * p.a;
      break;
    }
    case Anchor::Kind::Body: {
      const BodyKinematics& b = bodies[static_cast<size_t>(a.index)];
      k.r = b.R * a.local;
      k.p = b.x + k.r;
      k.v = b.v + b.w.cross(k.r);
      k.acc = pointAcceleration(b.w, k.r);
      // a fixed body never moves: it contributes no Jacobian columns
      if (b.invMass > 0.0) k.body = a.index;
      break;
    }
  }
  return k;
}

inline AnchorKinematics anchorKinematics(const Anchor& a, const EvalContext& ctx) {
  return anchorKinematics(a, ctx.bodies, ctx.paths, ctx.t, ctx.clocks);
}

// Add sign * E * (Jacobian of the point's velocity) to the rows; E is d x 3 (the rows that
// project the point's motion onto the deviation).
template <typename Proj>
inline void addPointJacobian(ConstraintRows& out, const AnchorKinematics& k, const Proj& E, double sign) {
  if (k.body < 0) return;
  const int s = out.slot(k.body);
  const int d = out.d;
  out.pointPart.unit[s] = 0;
  out.Jl[s].topRows(d) += sign * E.topRows(d);
  out.Ja[s].topRows(d) -= sign * E.topRows(d) * skew(k.r);
}

// The point pair D = p2 - p1 (point-to-nail, -path and -point all reduce to it):
//   D1 = v2 - v1, D2 = (J a)_2 - (J a)_1 + acc2 - acc1.
// Sets every field of out the solver reads (no clear() needed; this is the solver's hottest
// evaluation): per body Jl = sign 1 and Ja = -sign [r]x, kept as a PointConstraintPart slot
// (sign, arm -sign r) and not written out (at 10 000 constraints the step waits on memory).
inline void pointPairRows(const AnchorKinematics& k1, const AnchorKinematics& k2, ConstraintRows& out) {
  out.d = out.f = 3;
  out.nb = 0;
  out.body[0] = out.body[1] = -1;
  out.pointPart.unit[0] = out.pointPart.unit[1] = 0;
  out.pointPart.anchorAccelerates = (k1.body < 0 && k1.acc != Vec3::Zero()) || (k2.body < 0 && k2.acc != Vec3::Zero());
  out.customForce = false;
  out.separation = false;
  out.D = k2.p - k1.p;
  out.D1 = k2.v - k1.v;
  out.c = k2.acc - k1.acc;
  out.point[0] = k1.p;
  out.point[1] = k2.p;
  if (k1.body >= 0 && k1.body == k2.body) {  // both points on one body: the blocks add up
    out.nb = 1;
    out.body[0] = k1.body;
    out.Jl[0].setZero();                     // (1 - 1)
    out.Ja[0] = skew(Vec3(k1.r - k2.r));     // -[r2]x + [r1]x
    return;
  }
  auto side = [&out](const AnchorKinematics& k, double sign) {
    if (k.body < 0) return;
    const int s = out.nb++;
    out.body[s] = k.body;
    out.pointPart.unit[s] = static_cast<signed char>(sign);
    out.pointPart.arm[s] = -sign * k.r;
  };
  side(k1, -1.0);
  side(k2, 1.0);
}

// The stretched tilt of a unit vector b away from a unit vector N, in a basis (e1, e2) of the
// plane normal to N (e1 x e2 = N), derived in core/constraints/orientation.h:
//   D = k (E^T b),  k = 2 / (1 + N . b)  (= 2 tan(theta/2) u),
//   D1 = k (E^T v - (D/2) N . v),  c = k (E^T a - (D/2) N . a) - k (N . v) D1,
// with v the rate of b relative to the frame that holds (N, e1, e2) and a the part of that
// frame-relative acceleration not due to angular accelerations (orientation: v = w x b,
// a = w x v; a hinge's axis: hinge.h). Fills the top two rows of out.D, D1 and c, and returns
// the Jacobian for a turn of the body that carries b, Ja = -k (E^T - (D/2) N^T) [b]x (rows 0
// and 1; row 2 zero). Exactly opposite (1 + N . b = 0 to rounding), any tilt turns b back:
// take e1.
inline Mat33 axisTiltRows(const Vec3& b, const Vec3& N, const Vec3& e1, const Vec3& e2, const Vec3& v, const Vec3& a,
                          ConstraintRows& out) {
  double onePlusC = 1.0 + N.dot(b);
  Eigen::Vector2d s(e1.dot(b), e2.dot(b));
  if (onePlusC < 1e-12) {
    onePlusC = 1e-12;
    if (s.norm() < 1e-12) s = Eigen::Vector2d(1e-12, 0.0);
  }
  const double k = 2.0 / onePlusC;
  const Eigen::Vector2d D = k * s;
  const double nv = N.dot(v), na = N.dot(a);
  const Eigen::Vector2d D1 = k * (Eigen::Vector2d(e1.dot(v), e2.dot(v)) - 0.5 * D * nv);
  const Eigen::Vector2d c = k * (Eigen::Vector2d(e1.dot(a), e2.dot(a)) - 0.5 * D * na) - (k * nv) * D1;
  out.D.head<2>() = D;
  out.D1.head<2>() = D1;
  out.c.head<2>() = c;
  // row i of Ja is -k (e_i - (D_i/2) N)^T [b]x = (-k (e_i - D_i/2 N) x b)^T
  // ((x^T [b]x) y = x . (b x y) = (x x b) . y, so x^T [b]x = (x x b)^T)
  Mat33 Ja = Mat33::Zero();
  Ja.row(0) = (-k * (e1 - 0.5 * D(0) * N).cross(b)).transpose();
  Ja.row(1) = (-k * (e2 - 0.5 * D(1) * N).cross(b)).transpose();
  return Ja;
}

// How the torque of a force f held fixed in the world, acting at the offset r from a body's
// centre, changes as the body turns by dtheta (r -> r + dtheta x r):
//   d(r x f) = (dtheta x r) x f = [f]x [r]x dtheta = K dtheta,   [f]x [r]x = r f^T - (f . r) 1.
// For tension along the arm (f = k r, k > 0: the force pulls the point away from the centre)
// K = -k |r|^2 (1 - n n^T), n = r / |r|: the torque turns the body back towards the pull, a
// stiffness. Returned: -K's tension part, (f . r)(1 - n n^T) when f . r > 0, else zero
// (compression and shear would soften; they are left out).
// addTensionStiffness adds scale times it to S, written out (it is symmetric: six products;
// the step's geometric stiffness sums it over every taut point of every body).
inline void addTensionStiffness(Mat33& S, double scale, const Vec3& f, const Vec3& r) {
  const double fr = f.dot(r), l2 = r.squaredNorm();
  if (!(fr > 0.0) || !(l2 > 0.0)) return;
  const double a = scale * fr, b = a / l2;
  const double r0 = r.x(), r1 = r.y(), r2 = r.z(), b0 = b * r0, b1 = b * r1;
  const double v01 = b0 * r1, v02 = b0 * r2, v12 = b1 * r2;
  S(0, 0) += a - b0 * r0;
  S(1, 1) += a - b1 * r1;
  S(2, 2) += a - b * r2 * r2;
  S(0, 1) -= v01; S(1, 0) -= v01;
  S(0, 2) -= v02; S(2, 0) -= v02;
  S(1, 2) -= v12; S(2, 1) -= v12;
}
inline Mat33 tensionStiffness(const Vec3& f, const Vec3& r) {
  Mat33 S = Mat33::Zero();
  addTensionStiffness(S, 1.0, f, r);
  return S;
}

// How fast the line between two points turns: |dn/dt| = |u - n (n . u)| / l (see distanceRows);
// 0 where the points coincide (the rows vanish there).
inline double separationTurnRate(const AnchorKinematics& k1, const AnchorKinematics& k2) {
  const Vec3 r = k2.p - k1.p, u = k2.v - k1.v;
  const double l2 = r.squaredNorm();
  if (!(l2 > 1e-24)) return 0.0;
  const double ur = u.dot(r);
  return std::sqrt(std::max(0.0, u.squaredNorm() * l2 - ur * ur)) / l2;  // |u x r| / l^2
}

// The scalar distance D = |p2 - p1| - L. With r = p2 - p1, l = |r|, n = r / l and the
// relative velocity u = v2 - v1:
//   D1 = n . u                                  (dl/dt = r . u / l)
//   dn/dt = (u - n (n . u)) / l
//   D2 = n . (du/dt) + u . dn/dt = n . (J a + acc2 - acc1) + (|u|^2 - (n . u)^2) / l
// so the rows are n^T times the point-pair rows, and c gains (|u|^2 - (n.u)^2) / l.
// At l = 0 the direction is undefined: the rows vanish (D = -L, no force can act).
inline void distanceRows(const AnchorKinematics& k1, const AnchorKinematics& k2, double length,
                         ConstraintRows& out) {
  const Vec3 r = k2.p - k1.p, u = k2.v - k1.v;
  const double l = r.norm();
  out.point[0] = k1.p;
  out.point[1] = k2.p;
  out.D(0) = l - length;
  out.separation = false;
  if (l < 1e-12) return;
  const auto still = [](const AnchorKinematics& k) { return k.body >= 0 || (k.v == Vec3::Zero() && k.acc == Vec3::Zero()); };
  out.separation = still(k1) && still(k2);
  const Vec3 n = r / l;
  const double nu = n.dot(u);
  out.D1(0) = nu;
  out.c(0) = n.dot(k2.acc - k1.acc) + (u.squaredNorm() - nu * nu) / l;
  Mat33 E = Mat33::Zero();
  E.row(0) = n.transpose();
  addPointJacobian(out, k1, E, -1.0);
  addPointJacobian(out, k2, E, 1.0);
}

// distanceRows' c for the bodies' velocities (v_s, w_s) of its slots: the same formula, with
// u = sum_s e_s (v_s + w_s x r_s) and acc2 - acc1 = sum_s e_s w_s x (w_s x r_s), e_s = +-1 the
// end the slot holds and r_s its arm (only for rows with separation set: the other ends are
// still). The held target takes it at the end velocities (correctHeldForArmRotation).
template <class Velocity>
double separationC(const ConstraintRows& r, const std::vector<BodyKinematics>& kin, const Velocity& velocity) {
  const Vec3 line = r.point[1] - r.point[0];
  const double l = line.norm();
  const Vec3 n = line / l;
  Vec3 u = Vec3::Zero(), acc = Vec3::Zero();
  for (int s = 0; s < r.nb; ++s) {
    const BodyKinematics& k = kin[size_t(r.body[s])];
    const double e = r.Jl[s].row(0).dot(n) > 0.0 ? 1.0 : -1.0;
    const Vec3 arm = r.point[e > 0.0 ? 1 : 0] - k.x;
    Vec3 v, w;
    velocity(s, v, w);
    u += e * (v + w.cross(arm));
    acc += e * w.cross(w.cross(arm));
  }
  const double nu = n.dot(u);
  return n.dot(acc) + (u.squaredNorm() - nu * nu) / l;
}

}  // namespace tether::core
