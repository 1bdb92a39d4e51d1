// Point-on-line: a body point stays on the world line through o with direction u.
// With (e1, e2) an orthonormal basis of the plane normal to u, E = [e1 e2]^T (2 x 3):
//   D = E (X_P - o) (d = 2: the two distances off the line), D1 = E v_P,
//   D2 = E a_P: Jl = E, Ja = -E [r]x, c = E (w x (w x r)).
// Force by virtual work: E^T Fc at P, perpendicular to the line (the point slides freely).
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class PointOnLine final : public Constraint {
 public:
  PointOnLine(Anchor point, Vec3 origin, Vec3 direction);
  int rows() const override { return 2; }
  BodyList bodies() const override { return {m_point.index}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool seesOnlyAxis(int b, const Vec3& e) const override { return onAxisOf(m_point, b, e); }
  bool pinsToWorld() const override { return true; }

 private:
  Anchor m_point;
  Vec3 m_origin;  // world, m
  Mat33 m_E;      // rows e1, e2 (third row zero)
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// A body point kept on the world line through origin along direction.
struct PointOnLineDef {
  PointRef point;
  Vec3 origin = Vec3::Zero();      // world, m
  Vec3 direction = Vec3::UnitZ();  // world
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const PointOnLineDef&) const = default;
};

}  // namespace tether::core
