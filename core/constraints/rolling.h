// Rolling: a sphere rolls on a plane without slipping (Hong et al. Sec. 4's non-holonomic kind).
// Two parts:
//   - holonomic: the centre stays at the radius r above the plane (a point-on-plane of the
//     centre on the plane through o + r n, core/constraints/point_on_plane.h);
//   - non-holonomic (this class): the sphere's material point touching the plane has no
//     velocity along it. That point is at r_c = -r n from the centre, so with E = [e1^T; e2^T]
//     (unit, e1 x e2 = n) the slip is
//       g = E (v + w x r_c) = E (v + r n x w) = E v + r E [n]x w     (2 rows; D1)
//     and, n and r_c being fixed in the world, dg/dt = E a + r E [n]x alpha: Jl = E,
//     Ja = r E [n]x, c = 0. Its force by virtual work is E^T lambda at the contact point
//     (G = Jl^T, H = Ja^T = -r [n]x E^T: the torque r_c x f): friction that does no work on a
//     rolling motion.
// The normal velocity is left to the holonomic part, so the two parts' rows are independent.
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class RollingContact final : public Constraint {
 public:
  RollingContact(int body, double radius, Vec3 origin, Vec3 normal);
  int rows() const override { return 2; }
  BodyList bodies() const override { return {m_body}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool nonholonomic() const override { return true; }

 private:
  int m_body;
  double m_radius;  // m
  Vec3 m_origin;    // a point of the plane, world, m
  Vec3 m_n, m_e1, m_e2;  // unit normal and tangents
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// A sphere rolling without slipping on the world plane through origin normal to normal.
struct RollingDef {
  std::string body;
  Vec3 origin = Vec3::Zero();   // world, m
  Vec3 normal = Vec3::UnitZ();  // world
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const RollingDef&) const = default;
};

}  // namespace tether::core
