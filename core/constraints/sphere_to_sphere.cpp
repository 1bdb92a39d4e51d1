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

const ConstraintType& sphereToSphereType() {
  using F = ConstraintField;
  static const ConstraintType t{
      .kind = ConstraintKind::SphereToSphere,
      .id = "sphere_to_sphere",
      .label = "Sphere to sphere",
      .description = "Keeps two spheres touching; they roll and slide on each other. "
                     "Click a point of one sphere, then a point of another.",
      .fields = {{.key = "body_a", .label = "Sphere A", .kind = F::Kind::Body, .name = &ConstraintDef::bodyA},
                 {.key = "body_b", .label = "Sphere B", .kind = F::Kind::Body, .name = &ConstraintDef::bodyB}},
      .check = [](const Scene& s, const ConstraintDef& c, const std::string& where) {
        for (const auto& [name, key] : {std::pair{&c.bodyA, ".body_a"}, std::pair{&c.bodyB, ".body_b"}})
          for (const BodyDef& b : s.bodies)
            if (b.name == *name && b.shape != Shape::Sphere) failAt(where + key, "\"" + b.name + "\" is not a sphere");
        if (c.bodyA == c.bodyB) failAt(where + ".body_b", "must differ from body_a");
      },
      .compile = [](const ConstraintDef& c, const ConstraintResolver& r) -> ConstraintParts {
        return {std::make_shared<SphereToSphere>(r.body(c.bodyA), r.body(c.bodyB),
                                                 r.bodyDef(c.bodyA).radius + r.bodyDef(c.bodyB).radius)};
      },
      .firstNeedsSphere = true,
      .firstPrompt = "Click a point of a sphere.",
      .secondPrompt = "Click a point of the second sphere. Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext&, ToolResult& out) {
        if (second.kind != ConstraintClick::Kind::Point || second.shape != Shape::Sphere || first.ref.body == second.ref.body) {
          out.error = "sphere-to-sphere needs points of two different spheres.";
          return;
        }
        out.constraint.bodyA = first.ref.body;
        out.constraint.bodyB = second.ref.body;
        out.constraint.a = PointRef{};
      },
  };
  return t;
}

}  // namespace tether::core
