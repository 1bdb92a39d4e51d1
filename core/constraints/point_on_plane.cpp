#include "core/constraints/point_on_plane.h"

#include "core/constraint_parts.h"

namespace tether::core {

void PointOnPlane::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(1, 1);
  const AnchorKinematics k = anchorKinematics(m_point, ctx);
  out.D(0) = m_n.dot(k.p - m_origin);
  out.D1(0) = m_n.dot(k.v);
  out.c(0) = m_n.dot(k.acc);
  Mat33 E = Mat33::Zero();
  E.row(0) = m_n.transpose();
  addPointJacobian(out, k, E, 1.0);
  out.point[0] = k.p;
  out.point[1] = k.p - out.D(0) * m_n;
}

const ConstraintType& pointOnPlaneType() {
  using F = ConstraintField;
  static const ConstraintType t{
      .kind = ConstraintKind::PointOnPlane,
      .id = "point_on_plane",
      .label = "Point on plane",
      .description = "Keeps a body's point on a plane in space; it slides freely on it. "
                     "Click a control point, then a point of the plane (horizontal).",
      .fields = {{.key = "point", .label = "Point", .kind = F::Kind::BodyPoint, .point = &ConstraintDef::a},
                 {.key = "origin", .label = "Plane origin", .kind = F::Kind::Position, .vector = &ConstraintDef::origin},
                 {.key = "normal", .label = "Plane normal", .kind = F::Kind::Direction, .vector = &ConstraintDef::normal}},
      .compile = [](const ConstraintDef& c, const ConstraintResolver& r) -> ConstraintParts {
        return {std::make_shared<PointOnPlane>(r.point(c.a), c.origin, c.normal)};
      },
      // a small grid in the plane around the point (5 lines each way, 0.1 span across)
      .guides = [](const ConstraintDef& c, const GuideContext& g) -> std::vector<GuideSegment> {
        Vec3 e1, e2;
        orthonormalBasis(c.normal.normalized(), e1, e2);
        const double h = 0.05 * g.span;
        const Vec3& at = g.at;
        std::vector<GuideSegment> out;
        for (int k = -2; k <= 2; ++k) {
          out.push_back({at + k * 0.5 * h * e1 - h * e2, at + k * 0.5 * h * e1 + h * e2});
          out.push_back({at + k * 0.5 * h * e2 - h * e1, at + k * 0.5 * h * e2 + h * e1});
        }
        return out;
      },
      .secondPrompt = "Click a point of the plane (horizontal through it). Esc cancels.",
      .fromClicks = [](const ConstraintClick&, const ConstraintClick& second, const ToolContext&, ToolResult& out) {
        out.constraint.origin = second.position;
        out.constraint.normal = Vec3::UnitZ();
      },
  };
  return t;
}

}  // namespace tether::core
