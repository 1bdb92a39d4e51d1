// Orientation (paper C.3): a body-fixed unit vector b = R b_body is turned to align with a
// world unit vector N, by a pure torque.
//   D = b . N - 1 (d = 1; 0 when aligned, -2 when opposite)
//   db/dt = w x b, so D1 = (w x b) . N = w . (b x N): Jl = 0, Ja = (b x N)^T
//   d2b/dt2 = alpha x b + w x (w x b), so D2 = alpha . (b x N) + (w x (w x b)) . N,
//   c = (w x (w x b)) . N
// Force: an arbitrary torque Fc (f = 3), no force: G = 0, H = 1. The system is non-square.
// D has zero gradient at alignment (D = -theta^2/2), so the row fades as it converges; the
// minimum-norm solve handles that.
#pragma once
#include "core/constraint.h"

namespace tether::core {

class Orientation final : public Constraint {
 public:
  Orientation(int body, Vec3 axisBody, Vec3 direction)
      : m_body(body), m_axis(axisBody.normalized()), m_dir(direction.normalized()) {}
  int rows() const override { return 1; }
  int forceDofs() const override { return 3; }
  BodyList bodies() const override { return {m_body}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool projectable() const override { return false; }

 private:
  int m_body;
  Vec3 m_axis;  // body coordinates, unit
  Vec3 m_dir;   // world, unit
};

}  // namespace tether::core
