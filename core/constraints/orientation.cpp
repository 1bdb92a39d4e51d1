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

const ConstraintType& OrientationDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "orientation",
      .label = "Orientation",
      .description = "Turns a body so that an axis fixed in it points along a world direction (by a pure torque). "
                     "Click a control point (the axis runs from the centre through it), then where it should point.",
      .defaults = OrientationDef{},
      .fields = {field<&OrientationDef::body>("body", "Body", F::Kind::Body),
                 field<&OrientationDef::axis>("axis", "Body axis", F::Kind::Direction),
                 field<&OrientationDef::direction>("direction", "World direction", F::Kind::Direction)},
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& o = p.as<OrientationDef>();
        return {std::make_shared<Orientation>(r.body(o.body), o.axis, o.direction)};
      },
      .deviations = {{.unit = "rad"}},
      .secondPrompt = "Click where the axis should point (from the first point). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext&, ToolResult& out) {
        // the body axis through the clicked point (the body's z axis for its centre), to point
        // from that point toward the second click
        const Vec3 n = second.position - first.position;
        out.constraint.params =
            OrientationDef{.body = first.ref.body,
                           .axis = first.local.norm() > 1e-9 ? Vec3(first.local.normalized()) : Vec3::UnitZ(),
                           .direction = toolDirection(n)};
      },
  };
  return t;
}

}  // namespace tether::core
