// Orientation (paper C.3): a body-fixed unit vector b = R b_body is turned to align with a
// world unit vector N, by a pure torque.
//
// The paper's deviation, the scalar b . N - 1 = -theta^2/2, has a zero gradient at alignment:
// its row fades as it converges, prescribing D'' there asks for torques of order c / theta
// (c the velocity-product term, ~|w|^2 on a swinging body), and a pendulum held by one blew up
// within 0.3 s whatever the integrator. Here the deviation is two rows, b's tilt away from N
// in a fixed basis (e1, e2) of the plane normal to N (e1 x e2 = N), stretched so that it
// grows monotonically all the way round:
//   s = E^T b (E = [e1 e2]),  k = 2 / (1 + N . b),  D = k s = 2 tan(theta/2) u
// with theta the angle between b and N and u the unit direction of b's tilt in that plane.
// Near alignment D = theta u (gradient of full rank 2: it holds both tilts like a hinge's
// axis), and it is singular only at b = -N (taken as a tilt along e1 there).
// Rates: b' = v = w x b, s' = E^T v, k' = -(k^2/2) N . v, so
//   D1 = k (E^T v - (D/2) N . v)                  (linear in w: Jl = 0,
//   Ja w = D1,  Ja = -k (E^T - (D/2) N^T) [b]x      v = w x b = -[b]x w)
// and with b'' = alpha x b + w x v and a = w x v = w x (w x b):
//   D2 = k' (E^T v - (D/2) N . v) + k (E^T b'' - (D1/2) N . v - (D/2) N . b'')
//      = Ja alpha + c,   c = k (E^T a - (D/2) N . a) - k (N . v) D1
// (k' (...) = -(k/2)(N . v) D1, and the -(D1/2) N . v term is the same again).
// Force: virtual work, the torque Ja^T Fc (H = Ja^T, f = d = 2), no force. Its power on the
// body is Fc . Ja w = Fc . D1: none on any motion that keeps D1 = 0, so an assembled orientation
// constraint does no work. (The paper's arbitrary torque, f = 3 with the minimum-norm solution
// I^-1 Ja^T y, is the torque of least magnitude but not workless: its power is not Fc . D1, and
// an undamped pendulum held by one gained ~1 J at each bottom of its swing.)
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class Orientation final : public Constraint {
 public:
  Orientation(int body, Vec3 axisBody, Vec3 direction);
  int rows() const override { return 2; }
  BodyList bodies() const override { return {m_body}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;

 private:
  int m_body;
  Vec3 m_axis;  // body coordinates, unit
  Vec3 m_dir;   // world, unit: N
  Vec3 m_e1, m_e2;  // world, unit: a basis of the plane normal to N, e1 x e2 = N
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// A body's axis (body coordinates) turned to a world direction.
struct OrientationDef {
  std::string body;
  Vec3 axis = Vec3::UnitZ();       // body coordinates
  Vec3 direction = Vec3::UnitZ();  // world
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const OrientationDef&) const = default;
};

}  // namespace tether::core
