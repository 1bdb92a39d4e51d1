// Hinge: two bodies turn about a common axis through a common point (a door on its frame).
// It removes 5 of the 6 relative degrees of freedom: the three of a point-to-point joint at
// the hinge point (core/constraints/point_to_point.h), and two of rotation: an axis fixed in
// body A, a = R_A a_A, stays aligned with an axis fixed in body B, N = R_B n_B. What is left
// is the turn about the axis. It compiles into those two parts (a constraint has at most 3
// rows); both carry the hinge's name, tau and switching.
//
// The axis part is the orientation constraint (orientation.h) measured in body B's frame
// instead of the world's. With (e1, e2) a basis fixed in B normal to n_B (world:
// E = R_B [e1 e2], N = R_B n_B, both turning with B) and b = R_A a_A:
//   s = E^T b,  k = 2 / (1 + N . b),  D = k s = 2 tan(theta/2) u     (2 rows)
// theta the angle between the axes, u the direction of the tilt in B's plane; D = theta u near
// alignment, singular only when the axes are exactly opposite.
// Rates: in B's frame b_B = R_B^T b, and (R_B^T x)' = R_B^T (x' - w_B x x), so with the
// relative angular velocity w_r = w_A - w_B
//   b_B' = R_B^T v_r,  v_r = w_A x b - w_B x b = w_r x b
// and, as in orientation.h with v_r for b' (E^T v_r = e^T R_B^T v_r with e fixed in B):
//   D1 = k (E^T v_r - (D/2) N . v_r) = P v_r,  P = k (E^T - (D/2) N^T)   (2 x 3)
//   Ja_A = -P [b]x,  Ja_B = +P [b]x,  Jl = 0                 (v_r = -[b]x w_r)
// Second derivative: b_B'' = R_B^T (v_r' - w_B x v_r) with v_r' = alpha_r x b + w_r x (w_A x b):
//   b_B'' = R_B^T (alpha_r x b + a_r),  a_r = w_r x (w_A x b) - w_B x (w_r x b)
// and orientation.h's algebra (k' = -(k^2/2) N . v_r) gives
//   D2 = Ja_A alpha_A + Ja_B alpha_B + c,  c = k (E^T a_r - (D/2) N . a_r) - k (N . v_r) D1.
// Force: virtual work, the torques Ja_A^T Fc on A and Ja_B^T Fc = -Ja_A^T Fc on B (equal and
// opposite); their power is Fc . D1: none on any motion that keeps the axes aligned, so the
// hinge does no work (tests/core/physics_test.cpp, the door's energy).
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

// The axis part of a hinge (the point part is a PointToPoint).
class HingeAxis final : public Constraint {
 public:
  // axisA, axisB: body coordinates (normalized here); bodyB may be a fixed body
  HingeAxis(int bodyA, Vec3 axisA, int bodyB, Vec3 axisB);
  int rows() const override { return 2; }
  BodyList bodies() const override { return {m_a, m_b}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  Vec3 jointAxis(const EvalContext& ctx) const override;  // A's axis, R_A a_A
  // (held by projection like the point part: D's gradient has full rank 2 at alignment)

 private:
  int m_a, m_b;
  Vec3 m_axisA;         // A's body coordinates, unit
  Vec3 m_n, m_e1, m_e2; // B's body coordinates: the axis and a basis normal to it, e1 x e2 = n
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// Two bodies' points a and b joined, each body's axis (body coordinates) kept aligned.
struct HingeDef {
  PointRef a, b;
  Vec3 axisA = Vec3::UnitZ();  // the axis in a's body
  Vec3 axisB = Vec3::UnitZ();  // the axis in b's body
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const HingeDef&) const = default;
};

}  // namespace tether::core
