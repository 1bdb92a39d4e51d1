#include "core/constraints/point_to_point.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToPoint::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  pointPairRows(anchorKinematics(m_a, ctx), anchorKinematics(m_b, ctx), out);
}

}  // namespace tether::core
