#include "core/dynamics.h"

#include <algorithm>

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
  pinCandidates.clear();
  pinFrames.clear();
  for (size_t j = 0; j < model.constraints.size(); ++j) {
    Anchor point, at;
    if (model.constraints[j]->fixedPin(model.bodies, point, at) && point.kind == Anchor::Kind::Body)
      pinCandidates.push_back(int(j));
  }
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

double updateAssembled(const ConstraintSystem& sys, std::vector<std::uint8_t>& assembled) {
  for (size_t j = 0; j < assembled.size(); ++j)
    if (sys.rowOffset()[j] < 0) assembled[j] = 0;
  double maxD = 0.0;
  for (int j : sys.active()) {
    const ConstraintRows& r = sys.rows()[size_t(j)];
    const double d = maxAbs(r.D, r.d);
    if (d <= kAssembledThreshold) assembled[size_t(j)] = 1;
    // (a velocity constraint's D, the integral of its error, is no position to project)
    if (assembled[size_t(j)] && !sys.assembly().nonholonomic(j)) maxD = std::max(maxD, d);
  }
  return maxD;
}

void computeKinematics(const Model& model, const Params& params, const Eigen::VectorXd& y, StepContext& ctx) {
  bodyKinematics(model, params, y, ctx.kin);
}

void computeExternalForces(const Model& model, const Params& params, const EvalContext& ectx, StepContext& ctx) {
  for (size_t i = 0; i < ctx.F.size(); ++i) {
    ctx.F[i].setZero();
    ctx.T[i].setZero();
  }
  accumulateExternalForces(model, params, ectx, ctx.F, ctx.T);
}

void evaluateForces(const Model& model, const Params& params, double t, const Eigen::VectorXd& y, StepContext& ctx,
                    StepMemory* memory) {
  ++ctx.evaluations;
  const bool cached = ctx.rowsCurrent && &y == &ctx.y && t == ctx.rowsT;
  ctx.rowsCurrent = cached;  // a hit leaves the rows as they were (refresh() between steps)
  if (!cached) computeKinematics(model, params, y, ctx);
  const EvalContext ectx{ctx.kin, model.paths, t, &params.pathClock, ctx.velocityIntegral};
  computeExternalForces(model, params, ectx, ctx);
  if (!cached) ctx.system.evaluate(model, params, ectx);

  const Settings& st = model.settings;
  Stabilization stab = stabilization(st, ctx.h, memory ? &memory->assembled : ctx.assembled);
  if (stab.velocityLevel && memory) {
    // which constraints are held (projection updates the flags at the end of each step;
    // without it, here)
    if (!st.projection) updateAssembled(ctx.system, memory->assembled);
    // the trend of w over the last step, scaled to this one; not after a step cut short by an
    // event (the next one is longer, and the trend would be amplified noise)
    const SpinTrend& trend = memory->spinTrend;
    if (trend.h > 0.0 && ctx.h <= 2.0 * trend.h && trend.dw.size() == ctx.kin.size()) {
      stab.spinTrend = &trend.dw;
      stab.spinAhead = ctx.h / trend.h;
    }
    stab.rateOffset = &memory->rateOffset;
    stab.velocityAim = &memory->velocityAim;
    stab.velocityMiss = &memory->velocityMiss;
    stab.lawSteps = &memory->lawSteps;
  }
  // The geometric stiffness takes the last step's forces; a first step has none, and its plain
  // step would kick the links of a taut chain apart (0.3 rad/s between neighbours under a 50 kg
  // lamp at 240 Hz, which the stiffness only damps over ~20 steps, as it damps the fast part of a
  // turn and no more): it solves once without the stiffness, for the forces it takes (of the
  // assembled constraints: an assembling one's first pull is no tension to stiffen against).
  if (stab.velocityLevel && memory && memory->spinTrend.h == 0.0) {
    ctx.system.formEquation(params, ctx.F, ctx.T, stab);
    ctx.system.solve(st.solver);
    recordPointPairForces(ctx.system.assembly(), ctx.system.forces(), memory->lastForce);
    std::vector<std::uint8_t> met = memory->assembled;
    updateAssembled(ctx.system, met);
    for (size_t j = 0; j < memory->lastForce.size(); ++j)
      if (!(j < met.size() && met[j])) memory->lastForce[j].setZero();
  }
  const bool stiffened = stab.velocityLevel && memory &&
                         ctx.stiffness.apply(model, ctx.system.assembly(), memory->lastForce, memory->assembled, stab.spinTrend,
                                             stab.spinAhead, ctx.h, ctx.kin, ctx.T);
  ctx.system.formEquation(params, ctx.F, ctx.T, stab);
  ctx.system.solve(st.solver);
  ctx.system.applyForces(ctx.F, ctx.T);
  ctx.system.correctHeldForArmRotation(stab, ctx.F, ctx.T);
  ctx.split = false;
  if (stab.velocityLevel && memory) {
    ctx.Fp.assign(ctx.F.size(), Vec3::Zero());
    ctx.Tp.assign(ctx.T.size(), Vec3::Zero());
    ctx.split = ctx.system.splitHeldCorrection(ctx.Fp, ctx.Tp);
  }
  if (stiffened) ctx.stiffness.release(ctx.kin, ctx.T, ctx.split ? &ctx.Tp : nullptr);
}

void evaluateDerivative(const Model& model, const Params& params, double t, const Eigen::VectorXd& y,
                        Eigen::VectorXd& dy, StepContext& ctx, StepMemory* memory) {
  evaluateForces(model, params, t, y, ctx, memory);
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
