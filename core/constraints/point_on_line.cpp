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

const ConstraintType& PointOnLineDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "point_on_line",
      .label = "Point on line",
      .description = "Keeps a body's point on a straight line in space; it slides freely along it. "
                     "Click a control point, then a point of the line (it runs across the screen).",
      .defaults = PointOnLineDef{},
      .fields = {field<&PointOnLineDef::point>("point", "Point", F::Kind::BodyPoint),
                 field<&PointOnLineDef::origin>("origin", "Line origin", F::Kind::Position),
                 field<&PointOnLineDef::direction>("direction", "Line direction", F::Kind::Direction)},
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& l = p.as<PointOnLineDef>();
        return {std::make_shared<PointOnLine>(r.point(l.point), l.origin, l.direction)};
      },
      // the line, across the view
      .guides = [](const ConstraintParams& p, const GuideContext& g) -> std::vector<GuideSegment> {
        const Vec3 d = p.as<PointOnLineDef>().direction.normalized();
        return {{g.at - g.span * d, g.at + g.span * d}};
      },
      .secondPrompt = "Click a point of the line (it runs across the screen through it, on the world axis within 20 degrees of that). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        out.constraint.params = PointOnLineDef{.point = first.ref, .origin = second.position, .direction = toolDirection(ctx.screenRight)};
      },
  };
  return t;
}

}  // namespace tether::core
