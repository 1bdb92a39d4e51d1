#include "core/constraints/distance.h"

#include "core/constraint_parts.h"

namespace tether::core {

BodyList Distance::bodies() const {
  BodyList out;
  for (const Anchor* a : {&m_a, &m_b})
    if (a->kind == Anchor::Kind::Body) out.b[out.n++] = a->index;
  return out;
}

void Distance::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(1, 1);
  distanceRows(anchorKinematics(m_a, ctx), anchorKinematics(m_b, ctx), m_length, out);
}

double Distance::turnRate(const EvalContext& ctx) const {
  return separationTurnRate(anchorKinematics(m_a, ctx), anchorKinematics(m_b, ctx));
}

}  // namespace tether::core
