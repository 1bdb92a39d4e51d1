#include "core/constraints/point_to_nail.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToNail::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  AnchorKinematics nail;
  nail.p = m_nail;
  pointPairRows(nail, anchorKinematics(m_point, ctx), out);
}

}  // namespace tether::core
