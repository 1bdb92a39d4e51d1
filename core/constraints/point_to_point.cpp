#include "core/constraints/point_to_point.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToPoint::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  pointPairRows(anchorKinematics(m_a, ctx), anchorKinematics(m_b, ctx), out);
}

const ConstraintType& pointToPointType() {
  using F = ConstraintField;
  static const ConstraintType t{
      .kind = ConstraintKind::PointToPoint,
      .id = "point_to_point",
      .label = "Point to point",
      .description = "Joins a point of one body to a point of another (a ball joint). "
                     "Click a control point, then a control point of another body.",
      .fields = {{.key = "a", .label = "Point A", .kind = F::Kind::BodyPoint, .point = &ConstraintDef::a},
                 {.key = "b", .label = "Point B", .kind = F::Kind::BodyPoint, .point = &ConstraintDef::b}},
      .check = [](const Scene&, const ConstraintDef& c, const std::string& where) { requireTwoBodies(c, where); },
      .compile = [](const ConstraintDef& c, const ConstraintResolver& r) -> ConstraintParts {
        return {std::make_shared<PointToPoint>(r.point(c.a), r.point(c.b))};
      },
      .secondPrompt = "Click a control point of another body. Esc cancels.",
      .fromClicks = [](const ConstraintClick&, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        out.constraint.b = pointForClick(second, ctx, out);
      },
  };
  return t;
}

}  // namespace tether::core
