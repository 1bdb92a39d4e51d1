#include "core/constraints/point_to_nail.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToNail::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  AnchorKinematics nail;
  nail.p = m_nail;
  pointPairRows(nail, anchorKinematics(m_point, ctx), out);
}

const ConstraintType& PointToNailDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "point_to_nail",
      .label = "Point to nail",
      .description = "Holds a body's point at a fixed point in space (a nail): the body hangs or swings from it. "
                     "Click a control point, then a nail or empty space.",
      .defaults = PointToNailDef{},
      .fields = {field<&PointToNailDef::point>("point", "Point", F::Kind::BodyPoint),
                 field<&PointToNailDef::nail>("nail", "Nail", F::Kind::Nail)},
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& n = p.as<PointToNailDef>();
        return {std::make_shared<PointToNail>(r.point(n.point), r.nail(n.nail))};
      },
      .secondPrompt = "Click a nail, or empty space to make a nail there. Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        out.constraint.params = PointToNailDef{.point = first.ref, .nail = nailForClick(second, ctx, out)};
      },
  };
  return t;
}

}  // namespace tether::core
