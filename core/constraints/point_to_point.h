// Point-to-point (paper C.2): two body points P1, P2 held together.
//   D = X_P2 - X_P1 (d = 3), D1 = v_P2 - v_P1,
//   rows: body 1 (Jl, Ja) = (-1, [r1]x), body 2 (1, -[r2]x); c = w2x(w2xr2) - w1x(w1xr1).
// Forces by virtual work: -Fc at P1, +Fc at P2 (Newton's third law).
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class PointToPoint final : public Constraint {
 public:
  PointToPoint(Anchor a, Anchor b) : m_a(a), m_b(b) {}
  int rows() const override { return 3; }
  BodyList bodies() const override { return {m_a.index, m_b.index}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool seesOnlyAxis(int b, const Vec3& e) const override { return onAxisOf(m_a, b, e) && onAxisOf(m_b, b, e); }
  bool rigidPointPair() const override { return m_a.kind != Anchor::Kind::Path && m_b.kind != Anchor::Kind::Path; }
  // a moving body's point joined to a fixed body's (a pendulum on a fixed post)
  bool fixedPin(const std::vector<BodyModel>& bodies, Anchor& point, Anchor& at) const override {
    if (m_a.kind != Anchor::Kind::Body || m_b.kind != Anchor::Kind::Body) return false;
    const bool aFixed = bodies[size_t(m_a.index)].fixed, bFixed = bodies[size_t(m_b.index)].fixed;
    if (aFixed == bFixed) return false;
    point = aFixed ? m_b : m_a;
    at = aFixed ? m_a : m_b;
    return true;
  }

 private:
  Anchor m_a, m_b;
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// Points a and b of two bodies joined.
struct PointToPointDef {
  PointRef a, b;
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const PointToPointDef&) const = default;
};

}  // namespace tether::core
