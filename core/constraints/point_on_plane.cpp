#include "core/constraints/point_on_plane.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointOnPlane::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(1, 1);
  const AnchorKinematics k = anchorKinematics(m_point, ctx);
  out.D(0) = m_n.dot(k.p - m_origin);
  out.D1(0) = m_n.dot(k.v);
  out.c(0) = m_n.dot(k.acc);
  Mat33 E = Mat33::Zero();
  E.row(0) = m_n.transpose();
  addPointJacobian(out, k, E, 1.0);
  out.point[0] = k.p;
  out.point[1] = k.p - out.D(0) * m_n;
}

}  // namespace tether::core
