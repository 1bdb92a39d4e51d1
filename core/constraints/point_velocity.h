// Point velocity (Hong et al. Sec. 4): a velocity (non-holonomic) constraint. A body point moves
// with the velocity of a path's moving point, v_P = X'(t), without being held to the path's
// position: a line path gives a constant velocity, a circle the paper's circular drive, and a
// "set speed" event on the path scales it (0 holds the point still).
//   g = v_P - X'(t) = v + w x r - X'(t)          (D1; D is its integral, see Constraint::nonholonomic)
//   dg/dt = a + alpha x r + w x (w x r) - X''(t)
//   Jl = 1, Ja = -[r]x, c = w x (w x r) - X''(t)
// These are point-to-path's rows (core/constraints/point_to_path.h) with D1 and D2 the same; only
// D differs. For a path that is a function of time the constraint is integrable (the point
// keeps its offset from the path's point), as in the paper's experiment, which treats it as
// non-holonomic for illustration.
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class PointVelocity final : public Constraint {
 public:
  PointVelocity(Anchor point, int path) : m_point(point), m_path{Anchor::Kind::Path, path, Vec3::Zero()} {}
  int rows() const override { return 3; }
  BodyList bodies() const override { return {m_point.index}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool seesOnlyAxis(int b, const Vec3& e) const override { return onAxisOf(m_point, b, e); }
  bool nonholonomic() const override { return true; }

 private:
  Anchor m_point, m_path;
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// A body point moving with a path point's velocity.
struct PointVelocityDef {
  PointRef point;
  std::string path;
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const PointVelocityDef&) const = default;
};

}  // namespace tether::core
