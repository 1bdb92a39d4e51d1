#include "core/dynamics.h"

#include <cstring>

#include "core/forces.h"

namespace tether::core {

Stabilization stabilization(const Settings& s, double h, const std::vector<std::uint8_t>* assembled) {
  return {s.stabilization, s.baumgarteAlpha, s.baumgarteBeta, h,
          s.integrator == IntegratorKind::SemiImplicitEuler || s.solver == SolverKind::SequentialImpulses,
          s.projection ? assembled : nullptr, s.projectionTolerance, s.dt};
}

void StepContext::reset(const Model& model) {
  const size_t nb = model.bodies.size();
  const Eigen::Index n = static_cast<Eigen::Index>(nb) * kBodyDofs;
  bodies.assign(nb, BodyState{});
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

void evaluateDerivative(const Model& model, const Params& params, double t, const Eigen::VectorXd& y,
                        Eigen::VectorXd& dy, StepContext& ctx) {
  ++ctx.evaluations;
  const size_t nb = model.bodies.size();
  const bool cached = ctx.rowsCurrent && t == ctx.rowsT && y.size() == ctx.rowsY.size() &&
                      std::memcmp(y.data(), ctx.rowsY.data(), sizeof(double) * size_t(y.size())) == 0;
  ctx.rowsCurrent = cached;  // a hit leaves the rows as they were (refresh() between steps)

  // stage: kinematics
  if (!cached) {
    unpack(y, ctx.bodies);
    bodyKinematics(model, params, ctx.bodies, ctx.kin);
  }
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
  ctx.system.formEquation(params, ctx.F, ctx.T, stabilization(st, ctx.h, ctx.assembled));
  ctx.system.solve(st.solver);
  ctx.system.applyForces(ctx.F, ctx.T);

  // stage: the derivative (paper Fig. 16; dq/dt = 1/2 w q with w as a pure quaternion)
  dy.setZero(y.size());
  for (size_t i = 0; i < nb; ++i) {
    const BodyKinematics& k = ctx.kin[i];
    if (k.invMass == 0.0) continue;  // fixed or inactive: does not move
    double* d = dy.data() + i * kBodyDofs;
    const Quat& q = ctx.bodies[i].q;
    const Quat wq = Quat(0.0, k.w.x(), k.w.y(), k.w.z()) * q;
    d[0] = k.v.x(); d[1] = k.v.y(); d[2] = k.v.z();
    d[3] = 0.5 * wq.w(); d[4] = 0.5 * wq.x(); d[5] = 0.5 * wq.y(); d[6] = 0.5 * wq.z();
    d[7] = ctx.F[i].x(); d[8] = ctx.F[i].y(); d[9] = ctx.F[i].z();
    d[10] = ctx.T[i].x(); d[11] = ctx.T[i].y(); d[12] = ctx.T[i].z();
  }
}

}  // namespace tether::core
