// Distance (Robson): two points (on bodies, or one of them a nail or path) kept L apart.
//   D = |p2 - p1| - L (d = 1); derivation in constraint_parts.h (distanceRows):
//   D1 = n . u, c = n . (acc2 - acc1) + (|u|^2 - (n . u)^2) / |p2 - p1|.
// Force by virtual work: along n at both points (a massless rod between them).
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class Distance final : public Constraint {
 public:
  Distance(Anchor a, Anchor b, double length) : m_a(a), m_b(b), m_length(length) {}
  int rows() const override { return 1; }
  BodyList bodies() const override;
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool seesOnlyAxis(int b, const Vec3& e) const override { return onAxisOf(m_a, b, e) && onAxisOf(m_b, b, e); }
  bool rowsTurnOnTheirOwn() const override { return true; }
  double turnRate(const EvalContext& ctx) const override;

 private:
  Anchor m_a, m_b;
  double m_length;  // m
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// Two points a fixed distance apart: a and b (either may be a nail or a path's point, not both), length in m.
struct DistanceDef {
  PointRef a, b;
  double length = 1.0;  // m
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const DistanceDef&) const = default;
};

}  // namespace tether::core
