#include "core/constraints/rolling.h"

#include "core/constraint_parts.h"
#include "core/constraints/point_on_plane.h"

namespace tether::core {

RollingContact::RollingContact(int body, double radius, Vec3 origin, Vec3 normal)
    : m_body(body), m_radius(radius), m_origin(origin), m_n(normal.normalized()) {
  orthonormalBasis(m_n, m_e1, m_e2);
}

void RollingContact::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(2, 2);
  const BodyKinematics& b = ctx.bodies[size_t(m_body)];
  const Vec3 rc = -m_radius * m_n;             // centre -> contact point, world
  const Vec3 vc = b.v + b.w.cross(rc);         // the touching material point's velocity
  out.D1(0) = m_e1.dot(vc);
  out.D1(1) = m_e2.dot(vc);
  const Vec3 p = b.x + rc;
  out.point[0] = p;
  out.point[1] = p - m_n * m_n.dot(p - m_origin);  // its foot on the plane
  if (b.invMass == 0.0) return;                // a fixed sphere: no Jacobian columns
  const int s = out.slot(m_body);
  out.Jl[s].row(0) = m_e1.transpose();
  out.Jl[s].row(1) = m_e2.transpose();
  // E (w x rc) = E (r n x w) = r E [n]x w
  const Mat33 nx = m_radius * skew(m_n);
  out.Ja[s].row(0) = m_e1.transpose() * nx;
  out.Ja[s].row(1) = m_e2.transpose() * nx;
}

const ConstraintType& RollingDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "rolling",
      .label = "Rolling",
      .description = "A sphere rolls on a plane without slipping: its centre stays a radius above the plane and "
                     "the point touching it does not slide (a velocity, non-holonomic constraint). "
                     "Click a point of a sphere, then a point of the plane (horizontal).",
      .defaults = RollingDef{},
      .fields = {field<&RollingDef::body>("body", "Sphere", F::Kind::Body),
                 field<&RollingDef::origin>("origin", "Plane origin", F::Kind::Position),
                 field<&RollingDef::normal>("normal", "Plane normal", F::Kind::Direction)},
      .check = [](const Scene& s, const ConstraintParams& p, const std::string& where) {
        const auto& d = p.as<RollingDef>();
        for (const BodyDef& b : s.bodies)
          if (b.name == d.body && b.shape != Shape::Sphere) failAt(where + ".body", "\"" + b.name + "\" is not a sphere");
      },
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& d = p.as<RollingDef>();
        const double radius = r.bodyDef(d.body).radius;
        const Vec3 n = d.normal.normalized();
        PointRef centre;
        centre.body = d.body;
        centre.point = "center";
        return {std::make_shared<PointOnPlane>(r.point(centre), Vec3(d.origin + radius * n), n),
                std::make_shared<RollingContact>(r.body(d.body), radius, d.origin, n)};
      },
      .deviations = {DeviationPart{"m", " (height)"}, DeviationPart{"m", " (integral of the slip)"}},
      .guides = [](const ConstraintParams& p, const GuideContext& g) { return planeGrid(p.as<RollingDef>().normal, g); },
      .firstNeedsSphere = true,
      .firstPrompt = "Click a point of a sphere.",
      .secondPrompt = "Click a point of the plane it rolls on (horizontal through it). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext&, ToolResult& out) {
        out.constraint.params = RollingDef{.body = first.ref.body, .origin = second.position, .normal = Vec3::UnitZ()};
      },
  };
  return t;
}

}  // namespace tether::core
