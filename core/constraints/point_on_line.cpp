#include "core/constraints/point_on_line.h"

#include "core/constraint_parts.h"

namespace tether::core {

PointOnLine::PointOnLine(Anchor point, Vec3 origin, Vec3 direction) : m_point(point), m_origin(origin) {
  Vec3 e1, e2;
  orthonormalBasis(direction.normalized(), e1, e2);
  m_E.setZero();
  m_E.row(0) = e1.transpose();
  m_E.row(1) = e2.transpose();
}

void PointOnLine::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(2, 2);
  const AnchorKinematics k = anchorKinematics(m_point, ctx);
  out.D = m_E * (k.p - m_origin);
  out.D1 = m_E * k.v;
  out.c = m_E * k.acc;
  addPointJacobian(out, k, m_E, 1.0);
  out.point[0] = k.p;
  out.point[1] = k.p - m_E.transpose() * out.D;  // foot of the perpendicular on the line
}

}  // namespace tether::core
