#include "core/constraints/orientation.h"

namespace tether::core {

void Orientation::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(1, 3);
  const BodyKinematics& k = ctx.bodies[static_cast<size_t>(m_body)];
  const Vec3 b = k.R * m_axis;
  // b . N - 1 == -|b - N|^2 / 2 for unit vectors; the second form keeps its relative accuracy
  // near alignment, where b . N - 1 cancels to round-off (1e-16) long before theta^2/2 does
  out.D(0) = -0.5 * (b - m_dir).squaredNorm();
  out.D1(0) = k.w.dot(b.cross(m_dir));
  out.c(0) = k.w.cross(k.w.cross(b)).dot(m_dir);
  out.point[0] = out.point[1] = k.x;
  if (k.invMass == 0.0) return;  // fixed body: nothing can turn it
  const int s = out.slot(m_body);
  out.Ja[s].row(0) = b.cross(m_dir).transpose();
  out.customForce = true;
  out.G[s].setZero();
  out.H[s].setIdentity();
}

}  // namespace tether::core
