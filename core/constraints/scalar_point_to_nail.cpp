#include "core/constraints/scalar_point_to_nail.h"

#include "core/constraint_parts.h"

namespace tether::core {

void ScalarPointToNail::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  AnchorKinematics nail;
  nail.p = m_nail;
  const AnchorKinematics point = anchorKinematics(m_point, ctx);
  // held, or circling the nail faster than kOrbitRate (see the header): three rows. The point's
  // velocity across the line to the nail is v - (v . d) d / |d|^2, and it circles at
  // |v_t| / |d| rad/s (compared squared: no square roots).
  const Vec3 d = point.p - m_nail;
  const double r2 = d.squaredNorm(), vr = d.dot(point.v);
  const double vt2 = r2 > 0.0 ? point.v.squaredNorm() - vr * vr / r2 : 0.0;
  if (r2 < kHoldRadius * kHoldRadius || vt2 > kOrbitRate * kOrbitRate * r2) {
    pointPairRows(nail, point, out);
    return;
  }
  out.clear(1, 1);
  distanceRows(nail, point, 0.0, out);
}

const ConstraintType& ScalarPointToNailDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "scalar_point_to_nail",
      .label = "Scalar point to nail",
      .description = "The paper's scalar form of point-to-nail: one row, |P - X|^2 = 0, held by its stabilization "
                     "alone. Click a control point, then a nail or empty space.",
      .defaults = ScalarPointToNailDef{},
      .fields = {field<&ScalarPointToNailDef::point>("point", "Point", F::Kind::BodyPoint),
                 field<&ScalarPointToNailDef::nail>("nail", "Nail", F::Kind::Nail)},
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& n = p.as<ScalarPointToNailDef>();
        return {std::make_shared<ScalarPointToNail>(r.point(n.point), r.nail(n.nail))};
      },
      .secondPrompt = "Click a nail, or empty space to make a nail there. Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        out.constraint.params = ScalarPointToNailDef{.point = first.ref, .nail = nailForClick(second, ctx, out)};
      },
  };
  return t;
}

}  // namespace tether::core
