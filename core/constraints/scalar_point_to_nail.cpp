#include "core/constraints/scalar_point_to_nail.h"

#include "core/constraint_parts.h"

namespace tether::core {

void ScalarPointToNail::evaluate(const EvalContext& ctx, ConstraintRows& out) const {
  AnchorKinematics nail;
  nail.p = m_nail;
  const AnchorKinematics point = anchorKinematics(m_point, ctx);
  // held, or circling the nail faster than orbitRate (see the header): three rows. The point's
  // velocity across the line to the nail is v - (v . d) d / |d|^2, and it circles at
  // |v_t| / |d| rad/s (compared squared: no square roots). The form taken last is kept while
  // the assembler asks (ConstraintRows::keepForm: through an rk4 or rk45 step's stages).
  const Vec3 d = point.p - m_nail;
  const double r2 = d.squaredNorm(), vr = d.dot(point.v);
  const double vt2 = r2 > 0.0 ? point.v.squaredNorm() - vr * vr / r2 : 0.0;
  int form = kScalar;
  if (out.keepForm) form = out.form;
  else if (r2 < kHoldRadius * kHoldRadius) form = kHeld;
  else if (const double w = orbitRate(out.tau); vt2 > w * w * r2) form = kCircling;
  out.form = static_cast<std::int8_t>(form);
  if (form == kHeld || r2 == 0.0) {
    pointPairRows(nail, point, out);
    return;
  }
  if (form == kCircling) {
    // Circling: three rows, whose law must close the distance r = |D| as the scalar row's does
    // (the two forms alternate while the point circles near orbitRate). With n = D / r and
    // D = r n, D' = r' n + r n', D'' = r'' n + 2 r' n' + r n'', and n . n' = 0, n . n'' = -|n'|^2,
    // r |n'| = |v_t|, so
    //   n . D'' = r'' - r |n'|^2 = r'' - |v_t|^2 / r.
    // The vector law D'' = -2/tau D' - D/tau^2 along n thus reads r'' = -2/tau r' - r/tau^2 +
    // |v_t|^2 / r: the circling point's centrifugal term holds r open, while the scalar row's
    // law, r'' = -2/tau r' - r/tau^2, has none. Alternating every few steps (the three rows take
    // some circling out, the scalar row's central pull puts it back), the point slid along
    // |v_t| = orbitRate r and closed at a tenth of tau's rate: a GUI-made rod released 0.9 m
    // from its nail was still 1 cm off at 15 tau. Across n the vector law reads, with w the
    // circling rate (v_t = r w t, t the unit vector across n in the plane of circling, t' = -w n):
    // t . D'' = 2 r' w + r w' = -2/tau r w, that is w' = -(2/tau + 2 r'/r) w: a point closing
    // faster than 1/tau (r'/r < -1/tau, as a point thrown at the nail does) circles faster and
    // faster, as a skater pulls in her arms; with the scalar law along n that nothing holds back
    // (a spinning rod's end 3 m from its nail, tau 0.5 s, reached 3 800 rad/s at 3 cm and blew
    // up with rk4). So the three rows aim at
    //   r'' = -2/tau r' - r/tau^2  and  w' = -2/tau w,
    //   D'' = (r'' - r w^2) n + (r w' + 2 r' w) t = -2/tau D' - D/tau^2 - n |v_t|^2 / r + 2 (r'/r) v_t,
    // whose part along n is the scalar law exactly and whose circling dies as e^(-2t/tau)
    // whatever the closing: D'' = J a + c, so c carries + D |v_t|^2 / r^2 - 2 (r'/r) v_t, with
    // r'/r = (D . D1) / r^2 and v_t = D1 - D (D . D1) / r^2.
    pointPairRows(nail, point, out);
    const double closing = vr / r2;  // r'/r
    out.c += out.D * (vt2 / r2) - 2.0 * closing * Vec3(out.D1 - closing * out.D);
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
      .description = "The paper's scalar form of point-to-nail: one row, D = |P - X|, so the point is pulled to the "
                     "nail along any path the model allows; held by three rows once within 1 mm, and pulled by three "
                     "while it circles the nail faster than 1/tau (10 rad/s at the default tau). Click a control point, then "
                     "a nail or empty space.",
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
