#include "core/constraints/sphere_to_sphere.h"

#include "core/constraint_parts.h"

namespace tether::core {

void SphereToSphere::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(1, 1);
  const Anchor a{Anchor::Kind::Body, m_a, Vec3::Zero()}, b{Anchor::Kind::Body, m_b, Vec3::Zero()};
  distanceRows(anchorKinematics(a, ctx), anchorKinematics(b, ctx), m_radiusSum, out);
}

double SphereToSphere::turnRate(const EvalContext& ctx) const {
  const Anchor a{Anchor::Kind::Body, m_a, Vec3::Zero()}, b{Anchor::Kind::Body, m_b, Vec3::Zero()};
  return separationTurnRate(anchorKinematics(a, ctx), anchorKinematics(b, ctx));
}

}  // namespace tether::core
