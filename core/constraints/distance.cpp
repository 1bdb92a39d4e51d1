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

const ConstraintType& distanceType() {
  using F = ConstraintField;
  static const ConstraintType t{
      .kind = ConstraintKind::Distance,
      .id = "distance",
      .label = "Distance",
      .description = "Keeps two points a fixed distance apart (a massless rod between them). "
                     "Click a control point, then another point, a nail or empty space: the distance is as clicked.",
      .fields = {{.key = "a", .label = "Point A", .kind = F::Kind::AnyPoint, .point = &ConstraintDef::a},
                 {.key = "b", .label = "Point B", .kind = F::Kind::AnyPoint, .point = &ConstraintDef::b},
                 {.key = "length", .label = "Length", .kind = F::Kind::Length, .number = &ConstraintDef::length}},
      .check = [](const Scene&, const ConstraintDef& c, const std::string& where) {
        auto onBody = [](const PointRef& p) {
          return p.kind == PointRef::Kind::BodyPoint || p.kind == PointRef::Kind::BodyLocal;
        };
        if (!onBody(c.a) && !onBody(c.b)) failAt(where, "at least one of a and b must be a point on a body");
        if (onBody(c.a) && onBody(c.b)) requireTwoBodies(c, where);
      },
      .compile = [](const ConstraintDef& c, const ConstraintResolver& r) -> ConstraintParts {
        return {std::make_shared<Distance>(r.point(c.a), r.point(c.b), c.length)};
      },
      .secondPrompt = "Click a second control point, a nail, or empty space (makes a nail there). Esc cancels.",
      .fromClicks = [](const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx, ToolResult& out) {
        out.constraint.length = (second.position - first.position).norm();
        if (out.constraint.length < 1e-3) {
          out.error = "the two points coincide; a distance needs two apart.";
          return;
        }
        out.constraint.b = pointForClick(second, ctx, out);
      },
  };
  return t;
}

}  // namespace tether::core
