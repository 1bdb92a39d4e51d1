#include "core/dynamics.h"

#include <algorithm>

#include "core/constraint_parts.h"
#include "core/forces.h"

namespace tether::core {

Stabilization stabilization(const Settings& s, double h, const std::vector<std::uint8_t>* assembled) {
  // Without projection an assembled constraint is still held by the implicit target (a
  // velocity-level step's discretization, not a projection), but of all its D: nothing else
  // removes the part within the projection tolerance.
  return {s.stabilization, s.baumgarteAlpha, s.baumgarteBeta, h,
          s.integrator == IntegratorKind::SemiImplicitEuler || s.solver == SolverKind::SequentialImpulses,
          assembled, s.projection ? s.projectionTolerance : 0.0, s.dt};
}

void StepContext::reset(const Model& model) {
  const size_t nb = model.bodies.size();
  const Eigen::Index n = static_cast<Eigen::Index>(nb) * kBodyDofs;
  kin.assign(nb, BodyKinematics{});
  F.assign(nb, Vec3::Zero());
  T.assign(nb, Vec3::Zero());
  system.reset(model);
  for (Eigen::VectorXd* v : {&y, &dy, &ytmp, &yerr}) v->setZero(n);
  for (auto& kk : k) kk.setZero(n);
  hNext = 0.0;
  rowsCurrent = false;
}

void pack(const std::vector<BodyState>& bodies, Eigen::VectorXd& y) {
  y.resize(static_cast<Eigen::Index>(bodies.size()) * kBodyDofs);
  for (size_t i = 0; i < bodies.size(); ++i) {
    const BodyState& b = bodies[i];
    double* p = y.data() + i * kBodyDofs;
    p[0] = b.x.x(); p[1] = b.x.y(); p[2] = b.x.z();
    p[3] = b.q.w(); p[4] = b.q.x(); p[5] = b.q.y(); p[6] = b.q.z();
    p[7] = b.P.x(); p[8] = b.P.y(); p[9] = b.P.z();
    p[10] = b.L.x(); p[11] = b.L.y(); p[12] = b.L.z();
  }
}

void unpack(const Eigen::VectorXd& y, std::vector<BodyState>& bodies) {
  for (size_t i = 0; i < bodies.size(); ++i) {
    const double* p = y.data() + i * kBodyDofs;
    BodyState& b = bodies[i];
    b.x = Vec3(p[0], p[1], p[2]);
    b.q = Quat(p[3], p[4], p[5], p[6]);
    b.P = Vec3(p[7], p[8], p[9]);
    b.L = Vec3(p[10], p[11], p[12]);
  }
}

namespace {

// Geometric stiffness of taut point-pair constraints, for the semi-implicit Euler step.
//
// A point-pair constraint pulls its point on a body with a world force f (its multiplier, or
// minus it) at the offset r from the centre; the stiffness K = -tensionStiffness(f, r) of that
// torque against turning the body is derived in constraint_parts.h.
// The Euler step takes torques at the start of the step. In a taut chain, neighbouring links
// turning opposite ways (a zigzag) oscillate at w^2 ~ 2 (f . r) / I; where h^2 w^2 > 4 the step
// is unstable (at the top of the 1000-link chain at 240 Hz, h^2 f r / I ~ 10). Projection keeps
// the joints closed, but the zigzag velocity stays, whips the links, and makes every step's
// projection slow (three Newton steps instead of one, measured).
// Backward Euler in this stiffness, S = -h^2 K >= 0 and t all torques at the start of the step
// (constraint torques included):
//   I (w' - w) = h (t + h K w')   =>   (I + S) w' = I w + h t
//   =>   w' = w + (I + S)^-1 h (t - S w / h),
// i.e. the torques plus a damping torque -S w / h, answered through the inverse inertia
// (I + S)^-1: the constraint solve uses that in place of I^-1, and the angular momentum moves by
// L' - L = I (w' - w) = h I (I + S)^-1 (t - S w / h).
// A mode's energy falls by the factor 1/(1 + h^2 w^2) per step: the zigzag (h w > 2) is gone in
// a few steps, but a pendulum's swing (for which this is the whole restoring stiffness) loses
// energy too (a 50 kg lamp on a 2 m chain of thin links: 4.4 % of its swing in 2 s). So S only
// acts where the plain step needs it: with a = tr S / tr I (h^2 w^2 of the body's own
// stiffness) it is scaled by clamp((a - 1) / 2, 0, 1): nothing below a = 1 (a 1 m chain never
// reaches it), all of it from a = 3. f is the last step's force (State::lastForce), a step late
// as in Andrews, Teichmann & Kry (2017).
bool stiffenTautLinks(const Model& model, StepContext& ctx) {
  const ConstraintSystem& sys = ctx.system;
  const std::vector<Vec3>& force = *ctx.lastForce;
  const std::vector<ConstraintRows>& rows = sys.rows();
  const double h2 = ctx.h * ctx.h, invH = 1.0 / ctx.h;
  ctx.stiffened.clear();
  ctx.stiffness.assign(ctx.kin.size(), Mat3::Zero());
  for (int j : sys.active()) {
    const ConstraintRows& r = rows[size_t(j)];
    if (size_t(j) >= force.size() || r.customForce) continue;
    // the slot's force u f at r = -u a (Constraint::skewArm) is -f at a: f . r and r r^T are the same
    for (int s = 0; s < r.nb; ++s)
      if (r.unit[s]) addTensionStiffness(ctx.stiffness[size_t(r.body[s])], h2, -force[size_t(j)], r.skewArm(s));
  }
  for (size_t i = 0; i < ctx.kin.size(); ++i) {
    BodyKinematics& k = ctx.kin[i];
    const BodyModel& bm = model.bodies[i];
    if (k.invMass == 0.0) continue;
    Mat3& S = ctx.stiffness[i];
    const double trS = S.trace();
    if (!(trS > 0.0) || !(bm.invInertia.minCoeff() > 0.0)) continue;  // (S is positive semi-definite)
    const double weight = std::clamp(0.5 * (trS / bm.inertia.sum() - 1.0), 0.0, 1.0);
    if (weight == 0.0) continue;
    if (weight < 1.0) S *= weight;
    StepContext::Stiffened& st = ctx.stiffened.emplace_back();
    st.body = int(i);
    st.plainInvI = k.invI;
    st.inertia = rotateDiagonal(k.R, bm.inertia);
    if (!invertSpd(st.inertia + S, 0.0, k.invI)) k.invI = (st.inertia + S).inverse();
    ctx.T[i].noalias() -= S * (invH * k.w);
  }
  return !ctx.stiffened.empty();
}

// After the solve: the net torque as the rate of L (I (I + S)^-1 t), and the plain I^-1 back.
void releaseTautLinks(StepContext& ctx) {
  for (const StepContext::Stiffened& st : ctx.stiffened) {
    BodyKinematics& k = ctx.kin[size_t(st.body)];
    ctx.T[size_t(st.body)] = st.inertia * (k.invI * ctx.T[size_t(st.body)]);
    k.invI = st.plainInvI;
  }
}

}  // namespace

double updateAssembled(const ConstraintSystem& sys, std::vector<std::uint8_t>& assembled) {
  for (size_t j = 0; j < assembled.size(); ++j)
    if (sys.rowOffset()[j] < 0) assembled[j] = 0;
  double maxD = 0.0;
  for (int j : sys.active()) {
    const ConstraintRows& r = sys.rows()[size_t(j)];
    const double d = maxAbs(r.D, r.d);
    if (d <= kAssembledThreshold) assembled[size_t(j)] = 1;
    if (assembled[size_t(j)]) maxD = std::max(maxD, d);
  }
  return maxD;
}

void recordPointPairForces(const ConstraintSystem& sys, std::vector<Vec3>& force) {
  std::fill(force.begin(), force.end(), Vec3::Zero());
  for (int j : sys.active()) {
    const ConstraintRows& r = sys.rows()[size_t(j)];
    if (size_t(j) >= force.size() || r.nb == 0 || !r.unit[0] || r.customForce) continue;
    force[size_t(j)] = sys.multiplier(j);  // (the slot-0 force is unit * multiplier; recorded times unit)
  }
}

void evaluateForces(const Model& model, const Params& params, double t, const Eigen::VectorXd& y, StepContext& ctx) {
  ++ctx.evaluations;
  const size_t nb = model.bodies.size();
  const bool cached = ctx.rowsCurrent && &y == &ctx.y && t == ctx.rowsT;
  ctx.rowsCurrent = cached;  // a hit leaves the rows as they were (refresh() between steps)

  // stage: kinematics
  if (!cached) bodyKinematics(model, params, y, ctx.kin);
  const EvalContext ectx{ctx.kin, model.paths, t, &params.pathClock};

  // stage: external forces
  for (size_t i = 0; i < nb; ++i) {
    ctx.F[i].setZero();
    ctx.T[i].setZero();
  }
  accumulateExternalForces(model, params, ectx, ctx.F, ctx.T);

  // stages: assemble and solve the constraint-force equation, then the net force and torque
  const Settings& st = model.settings;
  if (!cached) ctx.system.evaluate(model, params, ectx);
  Stabilization stab = stabilization(st, ctx.h, ctx.assembled);
  // stage: which constraints are held (projection updates the flags at the end of each step;
  // without it, here; only a velocity-level step reads them)
  if (!st.projection && stab.velocityLevel && ctx.assembled) updateAssembled(ctx.system, *ctx.assembled);
  // the trend of w over the last step, scaled to this one; not after a step cut short by an
  // event (the next one is longer, and the trend would be amplified noise)
  if (ctx.spinTrend && ctx.spinTrend->h > 0.0 && ctx.h <= 2.0 * ctx.spinTrend->h &&
      ctx.spinTrend->dw.size() == ctx.kin.size()) {
    stab.spinTrend = &ctx.spinTrend->dw;
    stab.spinAhead = ctx.h / ctx.spinTrend->h;
  }
  stab.rateOffset = ctx.rateOffset;
  const bool stiffened = stab.velocityLevel && ctx.lastForce && stiffenTautLinks(model, ctx);
  ctx.system.formEquation(params, ctx.F, ctx.T, stab);
  ctx.system.solve(st.solver);
  ctx.system.applyForces(ctx.F, ctx.T);
  ctx.system.correctHeldForArmRotation(stab, ctx.F, ctx.T);
  if (stiffened) releaseTautLinks(ctx);
}

void evaluateDerivative(const Model& model, const Params& params, double t, const Eigen::VectorXd& y,
                        Eigen::VectorXd& dy, StepContext& ctx) {
  evaluateForces(model, params, t, y, ctx);
  const size_t nb = model.bodies.size();
  // stage: the derivative (paper Fig. 16; dq/dt = 1/2 w q with w as a pure quaternion)
  dy.setZero(y.size());
  for (size_t i = 0; i < nb; ++i) {
    const BodyKinematics& k = ctx.kin[i];
    if (k.invMass == 0.0) continue;  // fixed or inactive: does not move
    double* d = dy.data() + i * kBodyDofs;
    const double* yi = y.data() + i * kBodyDofs;
    const Quat q(yi[3], yi[4], yi[5], yi[6]);
    const Quat wq = Quat(0.0, k.w.x(), k.w.y(), k.w.z()) * q;
    d[0] = k.v.x(); d[1] = k.v.y(); d[2] = k.v.z();
    d[3] = 0.5 * wq.w(); d[4] = 0.5 * wq.x(); d[5] = 0.5 * wq.y(); d[6] = 0.5 * wq.z();
    d[7] = ctx.F[i].x(); d[8] = ctx.F[i].y(); d[9] = ctx.F[i].z();
    d[10] = ctx.T[i].x(); d[11] = ctx.T[i].y(); d[12] = ctx.T[i].z();
  }
}

}  // namespace tether::core
