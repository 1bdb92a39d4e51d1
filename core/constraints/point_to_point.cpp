#include "core/constraints/point_to_point.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToPoint::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  pointPairRows(anchorKinematics(m_a, ctx), anchorKinematics(m_b, ctx), out);
}

const ConstraintType& PointToPointDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "point_to_point",
      .label = "Point to point",
      .description = "Joins a point of one body to a point of another (a ball joint). "
                     "Click a control point, then a control point of another body.",
      .defaults = PointToPointDef{},
      .fields = {field<&PointToPointDef::a>("a", "Point A", F::Kind::BodyPoint),
                 field<&PointToPointDef::b>("b", "Point B", F::Kind::BodyPoint)},
      .check = [](const Scene&, const ConstraintParams& p, const std::string& where) {
        const auto& d = p.as<PointToPointDef>();
        requireTwoBodies(d.a, d.b, where);
      },
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& d = p.as<PointToPointDef>();
        return {std::make_shared<PointToPoint>(r.point(d.a), r.point(d.b))};
      },
      .secondPrompt = "Click a control point of another body. Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        out.constraint.params = PointToPointDef{.a = first.ref, .b = pointForClick(second, ctx, out)};
      },
  };
  return t;
}

}  // namespace tether::core
