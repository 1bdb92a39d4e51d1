#include "core/constraints/point_to_path.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToPath::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  pointPairRows(anchorKinematics(m_path, ctx), anchorKinematics(m_point, ctx), out);
}

const ConstraintType& PointToPathDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "point_to_path",
      .label = "Point to path",
      .description = "Drags a body's point along a path that moves in time (a line, circle or spline). "
                     "Click a control point, then a path's moving point, or a spot to circle around.",
      .defaults = PointToPathDef{},
      .fields = {field<&PointToPathDef::point>("point", "Point", F::Kind::BodyPoint),
                 field<&PointToPathDef::path>("path", "Path", F::Kind::Path)},
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& d = p.as<PointToPathDef>();
        return {std::make_shared<PointToPath>(r.point(d.point), r.path(d.path))};
      },
      .secondPrompt = "Click a path's moving point, or a spot: the point circles around it (4 s a turn). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        const std::string path = pathForClicks(first, second, ctx, out);
        if (!path.empty()) out.constraint.params = PointToPathDef{.point = first.ref, .path = path};
      },
  };
  return t;
}

}  // namespace tether::core
