// Scalar point-to-nail (paper footnote 3): D = |X_P - X0|, the distance from the point to the
// nail (d = 1), rather than the vector. The point is pulled to the nail along any feasible
// path instead of a straight line, so unrealizable straight-line approaches (paper Fig. 14c)
// no longer over-constrain the system. It is the distance constraint with L = 0.
#pragma once
#include "core/constraint.h"

namespace tether::core {

class ScalarPointToNail final : public Constraint {
 public:
  ScalarPointToNail(Anchor point, Vec3 nail) : m_point(point), m_nail(nail) {}
  int rows() const override { return 1; }
  BodyList bodies() const override { return {m_point.index}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool projectable() const override { return false; }

 private:
  Anchor m_point;
  Vec3 m_nail;  // world, m
};

}  // namespace tether::core
