#include "core/constraints/point_velocity.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointVelocity::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  const AnchorKinematics path = anchorKinematics(m_path, ctx), point = anchorKinematics(m_point, ctx);
  pointPairRows(path, point, out);
  out.D.setZero();  // (the assembler's: the integral of D1)
  // drawn from the point along the velocity it should have, 0.25 s of it
  out.point[0] = point.p;
  out.point[1] = point.p + 0.25 * path.v;
}

const ConstraintType& PointVelocityDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "point_velocity",
      .label = "Point velocity",
      .description = "Makes a body's point move with the velocity of a path's moving point: a velocity "
                     "(non-holonomic) constraint, so the point is not held to the path, only to its velocity. "
                     "Click a control point, then a path's moving point, or a spot to circle around.",
      .defaults = PointVelocityDef{},
      .fields = {field<&PointVelocityDef::point>("point", "Point", F::Kind::BodyPoint),
                 field<&PointVelocityDef::path>("path", "Velocity of path", F::Kind::Path)},
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& d = p.as<PointVelocityDef>();
        return {std::make_shared<PointVelocity>(r.point(d.point), r.path(d.path))};
      },
      .deviations = {DeviationPart{"m", " (integral of the velocity error)"}},
      .secondPrompt = "Click a path's moving point (the point takes its velocity), or a spot: the point circles "
                      "around it (4 s a turn). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        const std::string path = pathForClicks(first, second, ctx, out);
        if (!path.empty()) out.constraint.params = PointVelocityDef{.point = first.ref, .path = path};
      },
  };
  return t;
}

}  // namespace tether::core
