// Point-to-nail (paper Sec. 4, Example 1): a body point P held at a fixed world point X0.
//   D = X_P - X0 (d = 3), D1 = v_P, D2 = a_P = a - [r]x alpha + w x (w x r)
//   Jl = 1, Ja = -[r]x, c = w x (w x r); force at P (G = 1, H = [r]x: torque r x F).
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class PointToNail final : public Constraint {
 public:
  PointToNail(Anchor point, Vec3 nail) : m_point(point), m_nail(nail) {}
  int rows() const override { return 3; }
  BodyList bodies() const override { return {m_point.index}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool seesOnlyAxis(int b, const Vec3& e) const override { return onAxisOf(m_point, b, e); }
  bool pinsToWorld() const override { return true; }
  bool rigidPointPair() const override { return true; }
  bool fixedPin(const std::vector<BodyModel>&, Anchor& point, Anchor& at) const override {
    point = m_point;
    at = {.kind = Anchor::Kind::World, .index = -1, .local = m_nail};
    return true;
  }

 private:
  Anchor m_point;
  Vec3 m_nail;  // world, m
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// A body point held at a nail.
struct PointToNailDef {
  PointRef point;
  std::string nail;
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const PointToNailDef&) const = default;
};

}  // namespace tether::core
