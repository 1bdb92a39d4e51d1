#include "core/projection.h"

#include <algorithm>
#include <cmath>

namespace tether::core {

namespace {

// The constraint rows at (t, y) (kinematics, D, D1, J): no forces, no B.
void evaluateRowsAt(const Model& model, const Params& p, double t, StepContext& c) {
  computeKinematics(model, p, c.y, c);
  c.system.evaluate(model, p, EvalContext{c.kin, model.paths, t, &p.pathClock, c.velocityIntegral});
}

// The largest |D| (rates: |D1|) over the assembled constraints but the velocity constraints
// (their D is an integral, and their rates are left to their stabilization).
double largestAssembled(const ConstraintSystem& sys, const std::vector<std::uint8_t>& assembled, bool rates) {
  double maxD = 0.0;
  for (int j : sys.active()) {
    const ConstraintRows& r = sys.rows()[size_t(j)];
    if (assembled[size_t(j)] && !sys.assembly().nonholonomic(j)) maxD = std::max(maxD, maxAbs(rates ? r.D1 : r.D, r.d));
  }
  return maxD;
}

// The right-hand side mu: D (rates: D1) of the assembled constraints, 0 for the others.
void gatherAssembled(const ConstraintSystem& sys, const std::vector<std::uint8_t>& assembled, bool rates,
                     Eigen::VectorXd& mu) {
  mu.setZero(sys.assembly().rowCount());
  for (int j : sys.active()) {
    const ConstraintRows& r = sys.rows()[size_t(j)];
    if (assembled[size_t(j)] && !sys.assembly().nonholonomic(j)) scatterRows(mu, sys.rowOffset()[size_t(j)], rates ? r.D1 : r.D, r.d);
  }
}

// J W J^T over the assembled constraints whose deviation has a usable gradient at its solution
// (Constraint::projectable), factorized by block LDL^T; regularized if singular (redundant
// constraints), which keeps corrections bounded.
void factorAssembled(StepContext& c, const std::vector<std::uint8_t>& assembled) {
  const ConstraintAssembly& a = c.system.assembly();
  c.chosen.clear();
  for (int j : a.active())
    if (assembled[size_t(j)] && a.projectable(j)) c.chosen.push_back(j);
  c.projection.select(c.chosen, a.rows(), a.incidence(), a.layout());
  if (c.chosen.empty()) return;
  c.projection.assemble(a.rows(), a.kinematics());
  if (!c.projection.factorize(0.0, false)) {
    c.projection.assemble(a.rows(), a.kinematics());
    c.projection.factorize(1e-8, false);
  }
}

// (J W J^T) x = rhs with the factors of factorAssembled, in place (one value per row, stacked
// like B; rows of constraints it left out come back 0).
void solveAssembled(StepContext& c, Eigen::VectorXd& rhs) {
  const ConstraintAssembly& a = c.system.assembly();
  const std::vector<int>& nodes = c.projection.constraints();
  Eigen::VectorXd& x = c.muNodes;
  x.setZero(3 * static_cast<Eigen::Index>(nodes.size()));
  for (size_t node = 0; node < nodes.size(); ++node) {
    const int j = nodes[node];
    x.segment(3 * Eigen::Index(node), a.rows()[size_t(j)].d) = rhs.segment(a.rowOffset()[size_t(j)], a.rows()[size_t(j)].d);
  }
  if (!nodes.empty()) c.projection.solve(x);
  rhs.setZero();
  for (size_t node = 0; node < nodes.size(); ++node) {
    const int j = nodes[node];
    rhs.segment(a.rowOffset()[size_t(j)], a.rows()[size_t(j)].d) = x.segment(3 * Eigen::Index(node), a.rows()[size_t(j)].d);
  }
}

// Per body -J^T mu into c.dLin (force part) and c.dAng (torque part).
void bodyImpulses(const ConstraintSystem& sys, const Eigen::VectorXd& mu, StepContext& c) {
  c.dLin.assign(c.kin.size(), Vec3::Zero());
  c.dAng.assign(c.kin.size(), Vec3::Zero());
  for (int j : sys.active()) {
    const ConstraintRows& r = sys.rows()[size_t(j)];
    const Vec3 m = gatherRows(mu, sys.rowOffset()[size_t(j)], r.d);
    if (m.isZero(0.0)) continue;
    for (int s = 0; s < r.nb; ++s) {
      const size_t b = size_t(r.body[s]);
      c.dLin[b] -= r.jlT(s, m);
      c.dAng[b] -= r.jaT(s, m);
    }
  }
}

// The largest assembled rate after the impulses c.dLin, c.dAng were applied to the momenta,
// predicted from the rows (they are linear in the momenta).
double largestRateAfterImpulses(const ConstraintSystem& sys,
                                const std::vector<std::uint8_t>& assembled, const StepContext& c) {
  double after = 0.0;
  for (int j : sys.active()) {
    if (!assembled[size_t(j)] || !sys.assembly().projectable(j)) continue;
    const ConstraintRows& r = sys.rows()[size_t(j)];
    Vec3 rate = r.D1;
    for (int s = 0; s < r.nb; ++s) {
      const size_t b = size_t(r.body[s]);
      rate += r.jl(s, c.kin[b].invMass * c.dLin[b]) + r.ja(s, c.kin[b].invI * c.dAng[b]);
    }
    after = std::max(after, maxAbs(rate, r.d));
  }
  return after;
}

// The momenta in c.y += (dLin, dAng).
void applyMomentumCorrection(StepContext& c) {
  for (size_t b = 0; b < c.kin.size(); ++b) {
    const Eigen::Index o = static_cast<Eigen::Index>(b) * kBodyDofs;
    c.y.segment<3>(o + 7) += c.dLin[b];
    c.y.segment<3>(o + 10) += c.dAng[b];
  }
}

// (dLin, dAng) as impulses -> as the position correction W (dLin, dAng) = (dx, dtheta).
void impulsesToDisplacements(StepContext& c) {
  for (size_t b = 0; b < c.kin.size(); ++b) {
    c.dLin[b] *= c.kin[b].invMass;
    c.dAng[b] = c.kin[b].invI * c.dAng[b];
  }
}

// Positions: c.yBefore moved by alpha (dx, dtheta), with q <- normalize(q + 1/2 (0, dtheta) q)
// = r q, r = normalize(1, dtheta/2): a rotation that differs from exp(dtheta) only at third
// order in |dtheta| (a correction is ~1e-2 rad at most), keeps Newton quadratic, and needs no
// sine or cosine.
// The angular momentum turns with the body, L <- r L: a position correction moves the body,
// not its motion relative to itself, so w and L stay the same in body axes and the kinetic
// energy 1/2 L . I^-1 L is unchanged. Leaving the world L as it was instead changes the
// body-axis L by |L| dtheta, and about a thin rod's long axis (I_axial ~ 6 (r/l)^2 of the
// transverse moment) that is a spin of |L| dtheta / I_axial: a swinging rod of radius/length
// 1/57 was spun up from round-off tenfold every 2.3 s until it blew up (issue 16).
void applyPositionCorrection(double alpha, StepContext& c) {
  const Eigen::VectorXd& yBefore = c.yBefore;
  for (size_t b = 0; b < c.kin.size(); ++b) {
    const Eigen::Index o = static_cast<Eigen::Index>(b) * kBodyDofs;
    c.y.segment<3>(o) = yBefore.segment<3>(o) + alpha * c.dLin[b];
    if (c.dAng[b].isZero(0.0)) {
      c.y.segment<4>(o + 3) = yBefore.segment<4>(o + 3);
      c.y.segment<3>(o + 10) = yBefore.segment<3>(o + 10);
      continue;
    }
    const Vec3 half = (0.5 * alpha) * c.dAng[b];
    const Quat r = Quat(1.0, half.x(), half.y(), half.z()).normalized();
    const Quat q = r * Quat(yBefore(o + 3), yBefore(o + 4), yBefore(o + 5), yBefore(o + 6));
    c.y.segment<4>(o + 3) = Eigen::Vector4d(q.w(), q.x(), q.y(), q.z());
    c.y.segment<3>(o + 10) = r * Vec3(yBefore.segment<3>(o + 10));
  }
}

// One damped Newton iteration on the positions from max |D| = maxD: the full correction, halved
// until max |D| decreases (a thin body turns a lot for a small correction, and there the
// linearization is poor). False if no step decreased it (nearly redundant constraints make
// J W J^T nearly singular): then the positions are as before.
bool positionNewtonStep(const Model& model, const Params& p, double t, StepContext& c,
                        const std::vector<std::uint8_t>& assembled, double maxD) {
  gatherAssembled(c.system, assembled, false, c.mu);
  factorAssembled(c, assembled);
  solveAssembled(c, c.mu);
  c.yBefore = c.y;
  bodyImpulses(c.system, c.mu, c);
  impulsesToDisplacements(c);
  for (double alpha = 1.0; alpha > 0.05; alpha *= 0.5) {
    applyPositionCorrection(alpha, c);
    evaluateRowsAt(model, p, t, c);  // new D (and rows) at the corrected positions
    if (largestAssembled(c.system, assembled, false) < maxD) return true;
  }
  c.y = c.yBefore;
  evaluateRowsAt(model, p, t, c);
  return false;
}

// The momenta projected so that the assembled rates vanish, du = -W J^T (J W J^T)^-1 D1, applied
// only if that decreases the largest of them (the last factorization is slightly stale, which
// is enough to spoil long, ill-conditioned chains).
bool projectRates(StepContext& c, const std::vector<std::uint8_t>& assembled) {
  const double maxRate = largestAssembled(c.system, assembled, true);
  if (!(maxRate > 0.0)) return false;
  gatherAssembled(c.system, assembled, true, c.mu);
  factorAssembled(c, assembled);
  solveAssembled(c, c.mu);
  bodyImpulses(c.system, c.mu, c);
  if (!(largestRateAfterImpulses(c.system, assembled, c) < maxRate)) return false;
  applyMomentumCorrection(c);
  return true;
}

}  // namespace

bool projectPositions(const Model& model, const Params& p, double t, StepContext& c,
                      std::vector<std::uint8_t>& assembled) {
  evaluateRowsAt(model, p, t, c);
  double maxD = updateAssembled(c.system, assembled);
  if (c.system.active().empty()) return false;
  bool changed = false;
  const double tol = model.settings.projectionTolerance;
  for (int it = 0; it < kProjectionIterations; ++it) {
    if (it > 0) maxD = largestAssembled(c.system, assembled, false);
    if (maxD <= tol || !std::isfinite(maxD)) break;
    changed = true;  // (positions were moved, even when restored)
    if (!positionNewtonStep(model, p, t, c, assembled, maxD)) break;
  }
  // A velocity-level step (Euler, sequential impulses) needs no rate projection: it holds
  // assembled constraints to the implicit target D1* = -D/h, which corrects the rates every
  // step (measured: same separations, 10 % faster).
  if (stabilization(model.settings, c.h, nullptr).velocityLevel) {
    c.rowsT = t;
    c.rowsCurrent = true;
    return changed;
  }
  return projectRates(c, assembled) || changed;
}

}  // namespace tether::core
