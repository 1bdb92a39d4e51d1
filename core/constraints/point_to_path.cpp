#include "core/constraints/point_to_path.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToPath::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  pointPairRows(anchorKinematics(m_path, ctx), anchorKinematics(m_point, ctx), out);
}

}  // namespace tether::core
