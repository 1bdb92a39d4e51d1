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
        if (second.kind == ConstraintClick::Kind::PathPoint) {
          out.constraint.params = PointToPathDef{.point = first.ref, .path = second.ref.target};
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
        out.constraint.params = PointToPathDef{.point = first.ref, .path = path.name};
        out.newPaths.push_back(path);
      },
  };
  return t;
}

}  // namespace tether::core
