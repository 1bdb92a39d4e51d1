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

std::vector<GuideSegment> planeGrid(const Vec3& normal, const GuideContext& g) {
  Vec3 e1, e2;
  orthonormalBasis(normal.normalized(), e1, e2);
  const double h = 0.05 * g.span;
  const Vec3& at = g.at;
  std::vector<GuideSegment> out;
  for (int k = -2; k <= 2; ++k) {
    out.push_back({at + k * 0.5 * h * e1 - h * e2, at + k * 0.5 * h * e1 + h * e2});
    out.push_back({at + k * 0.5 * h * e2 - h * e1, at + k * 0.5 * h * e2 + h * e1});
  }
  return out;
}

const ConstraintType& PointOnPlaneDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "point_on_plane",
      .label = "Point on plane",
      .description = "Keeps a body's point on a plane in space; it slides freely on it. "
                     "Click a control point, then a point of the plane (horizontal).",
      .defaults = PointOnPlaneDef{},
      .fields = {field<&PointOnPlaneDef::point>("point", "Point", F::Kind::BodyPoint),
                 field<&PointOnPlaneDef::origin>("origin", "Plane origin", F::Kind::Position),
                 field<&PointOnPlaneDef::normal>("normal", "Plane normal", F::Kind::Direction)},
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& l = p.as<PointOnPlaneDef>();
        return {std::make_shared<PointOnPlane>(r.point(l.point), l.origin, l.normal)};
      },
      // a small grid in the plane around the point (5 lines each way, 0.1 span across)
      .guides = [](const ConstraintParams& p, const GuideContext& g) {
        return planeGrid(p.as<PointOnPlaneDef>().normal, g);
      },
      .secondPrompt = "Click a point of the plane (horizontal through it). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext&, ToolResult& out) {
        out.constraint.params = PointOnPlaneDef{.point = first.ref, .origin = second.position, .normal = Vec3::UnitZ()};
      },
  };
  return t;
}

}  // namespace tether::core
