#include "core/constraints/sphere_to_sphere.h"

#include "core/constraint_parts.h"

namespace tether::core {

void SphereToSphere::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(1, 1);
  const Anchor a{Anchor::Kind::Body, m_a, Vec3::Zero()}, b{Anchor::Kind::Body, m_b, Vec3::Zero()};
  distanceRows(anchorKinematics(a, ctx), anchorKinematics(b, ctx), m_radiusSum, out);
}

double SphereToSphere::turnRate(const EvalContext& ctx) const {
  const Anchor a{Anchor::Kind::Body, m_a, Vec3::Zero()}, b{Anchor::Kind::Body, m_b, Vec3::Zero()};
  return separationTurnRate(anchorKinematics(a, ctx), anchorKinematics(b, ctx));
}

const ConstraintType& SphereToSphereDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "sphere_to_sphere",
      .label = "Sphere to sphere",
      .description = "Keeps two spheres touching; they roll and slide on each other. "
                     "Click a point of one sphere, then a point of another.",
      .defaults = SphereToSphereDef{},
      .fields = {field<&SphereToSphereDef::bodyA>("body_a", "Sphere A", F::Kind::Body),
                 field<&SphereToSphereDef::bodyB>("body_b", "Sphere B", F::Kind::Body)},
      .check = [](const Scene& s, const ConstraintParams& p, const std::string& where) {
        const auto& d = p.as<SphereToSphereDef>();
        for (const auto& [name, key] : {std::pair{&d.bodyA, ".body_a"}, std::pair{&d.bodyB, ".body_b"}})
          for (const BodyDef& b : s.bodies)
            if (b.name == *name && b.shape != Shape::Sphere) failAt(where + key, "\"" + b.name + "\" is not a sphere");
        if (d.bodyA == d.bodyB) failAt(where + ".body_b", "must differ from body_a");
      },
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& d = p.as<SphereToSphereDef>();
        return {std::make_shared<SphereToSphere>(r.body(d.bodyA), r.body(d.bodyB),
                                                 r.bodyDef(d.bodyA).radius + r.bodyDef(d.bodyB).radius)};
      },
      .firstNeedsSphere = true,
      .firstPrompt = "Click a point of a sphere.",
      .secondPrompt = "Click a point of the second sphere. Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext&, ToolResult& out) {
        if (second.kind != ConstraintClick::Kind::Point || second.shape != Shape::Sphere || first.ref.body == second.ref.body) {
          out.error = "sphere-to-sphere needs points of two different spheres.";
          return;
        }
        out.constraint.params = SphereToSphereDef{.bodyA = first.ref.body, .bodyB = second.ref.body};
      },
  };
  return t;
}

}  // namespace tether::core
