#include "core/constraints/distance.h"

#include "core/constraint_parts.h"

namespace tether::core {

BodyList Distance::bodies() const {
  BodyList out;
  for (const Anchor* a : {&m_a, &m_b})
    if (a->kind == Anchor::Kind::Body) out.b[out.n++] = a->index;
  return out;
}

void Distance::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  out.clear(1, 1);
  distanceRows(anchorKinematics(m_a, ctx), anchorKinematics(m_b, ctx), m_length, out);
}

double Distance::turnRate(const EvalContext& ctx) const {
  return separationTurnRate(anchorKinematics(m_a, ctx), anchorKinematics(m_b, ctx));
}

const ConstraintType& DistanceDef::type() {
  using F = ConstraintField;
  static const ConstraintType& t = *new ConstraintType{  // never destroyed: threads may still read it at exit
      .id = "distance",
      .label = "Distance",
      .description = "Keeps two points a fixed distance apart (a massless rod between them). "
                     "Click a control point, then another point, a nail or empty space: the distance is as clicked.",
      .defaults = DistanceDef{},
      .fields = {field<&DistanceDef::a>("a", "Point A", F::Kind::AnyPoint),
                 field<&DistanceDef::b>("b", "Point B", F::Kind::AnyPoint),
                 field<&DistanceDef::length>("length", "Length", F::Kind::Length)},
      .check = [](const Scene&, const ConstraintParams& p, const std::string& where) {
        const auto& d = p.as<DistanceDef>();
        auto onBody = [](const PointRef& r) {
          return r.kind == PointRef::Kind::BodyPoint || r.kind == PointRef::Kind::BodyLocal;
        };
        if (!onBody(d.a) && !onBody(d.b)) failAt(where, "at least one of a and b must be a point on a body");
        if (onBody(d.a) && onBody(d.b)) requireTwoBodies(d.a, d.b, where);
      },
      .compile = [](const ConstraintParams& p, const ConstraintResolver& r) -> ConstraintParts {
        const auto& d = p.as<DistanceDef>();
        return {std::make_shared<Distance>(r.point(d.a), r.point(d.b), d.length)};
      },
      .secondPrompt = "Click a second control point, a nail, or empty space (makes a nail there). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        const double length = (second.position - first.position).norm();
        if (length < 1e-3) {
          out.error = "the two points coincide; a distance needs two apart.";
          return;
        }
        out.constraint.params = DistanceDef{.a = first.ref, .b = pointForClick(second, ctx, out), .length = length};
      },
  };
  return t;
}

}  // namespace tether::core
