// Point-to-path (paper C.1): a body point follows a moving point X(t).
//   D = X_P - X(t), D1 = v_P - X'(t), D2 = a_P - X''(t)
//   Jl = 1, Ja = -[r]x, c = w x (w x r) - X''(t).
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class PointToPath final : public Constraint {
 public:
  PointToPath(Anchor point, int path) : m_point(point), m_path{Anchor::Kind::Path, path, Vec3::Zero()} {}
  int rows() const override { return 3; }
  BodyList bodies() const override { return {m_point.index}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool seesOnlyAxis(int b, const Vec3& e) const override { return onAxisOf(m_point, b, e); }
  bool pinsToWorld() const override { return true; }

 private:
  Anchor m_point, m_path;
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// A body point dragged along a path.
struct PointToPathDef {
  PointRef point;
  std::string path;
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const PointToPathDef&) const = default;
};

}  // namespace tether::core
