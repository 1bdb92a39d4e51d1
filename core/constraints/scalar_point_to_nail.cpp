#include "core/constraints/scalar_point_to_nail.h"

#include "core/constraint_parts.h"

namespace tether::core {

void ScalarPointToNail::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  AnchorKinematics nail;
  nail.p = m_nail;
  const AnchorKinematics point = anchorKinematics(m_point, ctx);
  if ((point.p - m_nail).norm() < kHoldRadius) {
    pointPairRows(nail, point, out);  // held (see the header)
    return;
  }
  out.clear(1, 1);
  distanceRows(nail, point, 0.0, out);
}

}  // namespace tether::core
