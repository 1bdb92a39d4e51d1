#include "core/constraints/scalar_point_to_nail.h"

#include "core/constraint_parts.h"

namespace tether::core {

void ScalarPointToNail::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  AnchorKinematics nail;
  nail.p = m_nail;
  const AnchorKinematics point = anchorKinematics(m_point, ctx);
  // held, or circling the nail faster than kOrbitRate (see the header): three rows. The point's
  // velocity across the line to the nail is v - (v . d) d / |d|^2, and it circles at
  // |v_t| / |d| rad/s (compared squared: no square roots).
  const Vec3 d = point.p - m_nail;
  const double r2 = d.squaredNorm(), vr = d.dot(point.v);
  const double vt2 = r2 > 0.0 ? point.v.squaredNorm() - vr * vr / r2 : 0.0;
  if (r2 < kHoldRadius * kHoldRadius || vt2 > kOrbitRate * kOrbitRate * r2) {
    pointPairRows(nail, point, out);
    return;
  }
  out.clear(1, 1);
  distanceRows(nail, point, 0.0, out);
}

}  // namespace tether::core
