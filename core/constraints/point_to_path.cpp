#include "core/constraints/point_to_path.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointToPath::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  pointPairRows(anchorKinematics(m_path, ctx), anchorKinematics(m_point, ctx), out);
}

const ConstraintType& pointToPathType() {
  using F = ConstraintField;
  static const ConstraintType t{
      .kind = ConstraintKind::PointToPath,
      .id = "point_to_path",
      .label = "Point to path",
      .description = "Drags a body's point along a path that moves in time (a line, circle or spline). "
                     "Click a control point, then a path's moving point, or a spot to circle around.",
      .fields = {{.key = "point", .label = "Point", .kind = F::Kind::BodyPoint, .point = &ConstraintDef::a},
                 {.key = "path", .label = "Path", .kind = F::Kind::Path, .name = &ConstraintDef::path}},
      .compile = [](const ConstraintDef& c, const ConstraintResolver& r) -> ConstraintParts {
        return {std::make_shared<PointToPath>(r.point(c.a), r.path(c.path))};
      },
      .secondPrompt = "Click a path's moving point, or a spot: the point circles around it (4 s a turn). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        if (second.kind == ConstraintClick::Kind::PathPoint) {
          out.constraint.path = second.ref.target;
          return;
        }
        // a circle about the second click through the point, in the work plane, 4 s a turn
        PathDef path;
        path.name = ctx.uniqueName("path");
        path.kind = PathKind::Circle;
        path.center = second.position;
        path.normal = ctx.workPlaneNormal;
        const Vec3 d = first.position - second.position;
        const Vec3 r = d - path.normal.dot(d) * path.normal;
        if (r.norm() < 1e-3) {
          out.error = "click the circle's centre away from the point.";
          return;
        }
        path.radius = r.norm();
        path.u = r.normalized();
        path.period = 4.0;
        out.constraint.path = path.name;
        out.newPaths.push_back(path);
      },
  };
  return t;
}

}  // namespace tether::core
