#include "core/constraints/orientation.h"

#include "core/constraint_parts.h"

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
  const Vec3 v = kin.w.cross(b);             // b'
  const Vec3 a = kin.w.cross(v);             // w x (w x b)
  const Mat33 Ja = axisTiltRows(b, m_dir, m_e1, m_e2, v, a, out);  // (see orientation.h)
  out.point[0] = out.point[1] = kin.x;
  if (kin.invMass == 0.0) return;  // fixed body: nothing can turn it
  out.Ja[out.slot(m_body)] = Ja;
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
