#include "core/constraints/orientation.h"

namespace tether::core {

Orientation::Orientation(int body, Vec3 axisBody, Vec3 direction)
    : m_body(body), m_axis(axisBody.normalized()), m_dir(direction.normalized()) {
  // e1: the world axis least aligned with N, made normal to it
  Eigen::Index least = 0;
  m_dir.cwiseAbs().minCoeff(&least);
  m_e1 = (Vec3::Unit(least) - m_dir[least] * m_dir).normalized();
  m_e2 = m_dir.cross(m_e1);
}

void Orientation::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(2, 2);
  const BodyKinematics& kin = ctx.bodies[static_cast<size_t>(m_body)];
  const Vec3 b = kin.R * m_axis;
  const Vec3& N = m_dir;
  // (see orientation.h) s = E^T b, k = 2 / (1 + N . b); exactly opposite (1 + N . b = 0 to
  // rounding): any tilt turns b back, take e1
  double onePlusC = 1.0 + N.dot(b);
  Eigen::Vector2d s(m_e1.dot(b), m_e2.dot(b));
  if (onePlusC < 1e-12) {
    onePlusC = 1e-12;
    if (s.norm() < 1e-12) s = Eigen::Vector2d(1e-12, 0.0);
  }
  const double k = 2.0 / onePlusC;
  const Eigen::Vector2d D = k * s;
  const Vec3 v = kin.w.cross(b);             // b'
  const Vec3 a = kin.w.cross(v);             // w x (w x b)
  const double nv = N.dot(v), na = N.dot(a);
  const Eigen::Vector2d D1 = k * (Eigen::Vector2d(m_e1.dot(v), m_e2.dot(v)) - 0.5 * D * nv);
  const Eigen::Vector2d c = k * (Eigen::Vector2d(m_e1.dot(a), m_e2.dot(a)) - 0.5 * D * na) - (k * nv) * D1;
  out.D.head<2>() = D;
  out.D1.head<2>() = D1;
  out.c.head<2>() = c;
  out.point[0] = out.point[1] = kin.x;
  if (kin.invMass == 0.0) return;  // fixed body: nothing can turn it
  const int slot = out.slot(m_body);
  // Ja = -k (E^T - (D/2) N^T) [b]x: row i is -k (e_i - (D_i/2) N)^T [b]x = k (b x (e_i - D_i/2 N))^T
  // ((x^T [b]x) y = x . (b x y) = (x x b) . y, so x^T [b]x = (x x b)^T)
  out.Ja[slot].row(0) = (-k * (m_e1 - 0.5 * D(0) * N).cross(b)).transpose();
  out.Ja[slot].row(1) = (-k * (m_e2 - 0.5 * D(1) * N).cross(b)).transpose();
}

const ConstraintType& orientationType() {
  using F = ConstraintField;
  static const ConstraintType t{
      .kind = ConstraintKind::Orientation,
      .id = "orientation",
      .label = "Orientation",
      .description = "Turns a body so that an axis fixed in it points along a world direction (by a pure torque). "
                     "Click a control point (the axis runs from the centre through it), then where it should point.",
      .fields = {{.key = "body", .label = "Body", .kind = F::Kind::Body, .name = &ConstraintDef::bodyA},
                 {.key = "axis", .label = "Body axis", .kind = F::Kind::Direction, .vector = &ConstraintDef::axis},
                 {.key = "direction", .label = "World direction", .kind = F::Kind::Direction, .vector = &ConstraintDef::direction}},
      .compile = [](const ConstraintDef& c, const ConstraintResolver& r) -> ConstraintParts {
        return {std::make_shared<Orientation>(r.body(c.bodyA), c.axis, c.direction)};
      },
      .secondPrompt = "Click where the axis should point (from the first point). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext&, ToolResult& out) {
        // the body axis through the clicked point (the body's z axis for its centre), to point
        // from that point toward the second click
        ConstraintDef& c = out.constraint;
        c.bodyA = first.ref.body;
        c.a = PointRef{};
        c.axis = first.local.norm() > 1e-9 ? Vec3(first.local.normalized()) : Vec3::UnitZ();
        const Vec3 n = second.position - first.position;
        c.direction = n.norm() > 1e-9 ? Vec3(n.normalized()) : Vec3::UnitZ();
      },
  };
  return t;
}

}  // namespace tether::core
