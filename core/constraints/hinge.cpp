#include "core/constraints/hinge.h"

#include "core/constraint_parts.h"
#include "core/constraints/point_to_point.h"

namespace tether::core {

HingeAxis::HingeAxis(int bodyA, Vec3 axisA, int bodyB, Vec3 axisB)
    : m_a(bodyA), m_b(bodyB), m_axisA(axisA.normalized()), m_n(axisB.normalized()) {
  orthonormalBasis(m_n, m_e1, m_e2);  // right-handed: e1 x e2 = n
}

Vec3 HingeAxis::jointAxis(const EvalContext& ctx) const { return ctx.bodies[static_cast<size_t>(m_a)].R * m_axisA; }

void HingeAxis::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(2, 2);
  const BodyKinematics& A = ctx.bodies[static_cast<size_t>(m_a)];
  const BodyKinematics& B = ctx.bodies[static_cast<size_t>(m_b)];
  const Vec3 b = A.R * m_axisA;
  const Vec3 N = B.R * m_n, e1 = B.R * m_e1, e2 = B.R * m_e2;
  // (see hinge.h) b's motion relative to B: v_r = w_r x b, a_r = w_r x (w_A x b) - w_B x v_r
  const Vec3 wr = A.w - B.w;
  const Vec3 vr = wr.cross(b);
  const Vec3 ar = wr.cross(A.w.cross(b)) - B.w.cross(vr);
  const Mat33 JaA = axisTiltRows(b, N, e1, e2, vr, ar, out);
  out.point[0] = A.x;
  out.point[1] = B.x;
  // Ja_B = -Ja_A; a fixed body gets no columns
  if (A.invMass > 0.0) out.Ja[out.slot(m_a)] = JaA;
  if (B.invMass > 0.0) out.Ja[out.slot(m_b)] = -JaA;
}

const ConstraintType& HingeDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "hinge",
      .label = "Hinge",
      .description = "Joins two bodies at a point so that they turn only about a common axis (a door on its frame). "
                     "Click a control point on the axis, then a control point of the other body; the axis is "
                     "the work plane's normal (top view: vertical, a door; front view: horizontal, a trap door).",
      .defaults = HingeDef{},
      .fields = {field<&HingeDef::a>("a", "Point A", F::Kind::BodyPoint),
                 field<&HingeDef::b>("b", "Point B", F::Kind::BodyPoint),
                 field<&HingeDef::axisA>("axis_a", "Axis in A", F::Kind::Direction),
                 field<&HingeDef::axisB>("axis_b", "Axis in B", F::Kind::Direction)},
      .check = [](const Scene&, const ConstraintParams& p, const std::string& where) {
        const auto& h = p.as<HingeDef>();
        requireTwoBodies(h.a, h.b, where);
      },
      // A hinge's axis is a line: which way each axis points must not matter. Aligning a with -N
      // would start at the deviation's one singular point (1 + N . b = 0: the model never
      // assembles and gains energy without bound), so b's axis is taken in the sense nearer to
      // a's in the bodies' initial poses.
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& h = p.as<HingeDef>();
        const Vec3 a = r.bodyDef(h.a.body).orientation.normalized() * h.axisA;
        const Vec3 n = r.bodyDef(h.b.body).orientation.normalized() * h.axisB;
        const Vec3 axisB = a.dot(n) < 0.0 ? Vec3(-h.axisB) : h.axisB;
        return {std::make_shared<PointToPoint>(r.point(h.a), r.point(h.b)),
                std::make_shared<HingeAxis>(r.body(h.a.body), h.axisA, r.body(h.b.body), axisB)};
      },
      .deviations = {{.unit = "m", .suffix = " (point)"}, {.unit = "rad", .suffix = " (axis)"}},
      // the axis through the hinge point, as body B holds it now
      .guides = [](const ConstraintParams& p, const GuideContext& g) -> std::vector<GuideSegment> {
        const auto& h = p.as<HingeDef>();
        const Vec3 n = (g.orientation ? g.orientation(h.b.body) : Quat::Identity()) * h.axisB.normalized();
        return {{g.at - 0.08 * g.span * n, g.at + 0.08 * g.span * n}};
      },
      .secondPrompt = "Click a control point of the other body (the axis is the work plane's normal). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        if (second.kind != ConstraintClick::Kind::Point || second.ref.body == first.ref.body) {
          out.error = "a hinge joins control points of two different bodies.";
          return;
        }
        // the work plane's normal, in each body's coordinates, from the clicked poses
        out.constraint.params = HingeDef{.a = first.ref,
                                         .b = second.ref,
                                         .axisA = first.rotation.conjugate() * ctx.workPlaneNormal,
                                         .axisB = second.rotation.conjugate() * ctx.workPlaneNormal};
      },
  };
  return t;
}

}  // namespace tether::core
