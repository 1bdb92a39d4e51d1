#include "core/constraints/point_to_nail.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToNail::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  AnchorKinematics nail;
  nail.p = m_nail;
  pointPairRows(nail, anchorKinematics(m_point, ctx), out);
}

const ConstraintType& pointToNailType() {
  using F = ConstraintField;
  static const ConstraintType t{
      .kind = ConstraintKind::PointToNail,
      .id = "point_to_nail",
      .label = "Point to nail",
      .description = "Holds a body's point at a fixed point in space (a nail): the body hangs or swings from it. "
                     "Click a control point, then a nail or empty space.",
      .fields = {{.key = "point", .label = "Point", .kind = F::Kind::BodyPoint, .point = &ConstraintDef::a},
                 {.key = "nail", .label = "Nail", .kind = F::Kind::Nail, .name = &ConstraintDef::nail}},
      .compile = [](const ConstraintDef& c, const ConstraintResolver& r) -> ConstraintParts {
        return {std::make_shared<PointToNail>(r.point(c.a), r.nail(c.nail))};
      },
      .secondPrompt = "Click a nail, or empty space to make a nail there. Esc cancels.",
      .fromClicks = [](const ConstraintClick&, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        out.constraint.nail = nailForClick(second, ctx, out);
      },
  };
  return t;
}

}  // namespace tether::core
