#include "core/constraints/scalar_point_to_nail.h"

#include "core/constraint_parts.h"

namespace tether::core {

void ScalarPointToNail::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(1, 1);
  AnchorKinematics nail;
  nail.p = m_nail;
  distanceRows(nail, anchorKinematics(m_point, ctx), 0.0, out);
}

}  // namespace tether::core
