#include "core/constraint_system.h"

#include <limits>

namespace tether::core {

void ConstraintSystem::reset(const Model& model) {
  m_assembly.reset(model);
  m_report = {};
  m_lastSolver = nullptr;
  m_held = nullptr;
}

void ConstraintSystem::assemble(const Model& model, const Params& params, const EvalContext& ctx,
                                const std::vector<Vec3>& Fext, const std::vector<Vec3>& Text, const Stabilization& stab) {
  evaluate(model, params, ctx);
  formEquation(params, Fext, Text, stab);
}

void ConstraintSystem::evaluate(const Model& model, const Params& params, const EvalContext& ctx) {
  m_assembly.evaluate(model, params, ctx);
  m_report = {};
  m_report.rows = m_assembly.rowCount();
  m_report.cols = m_assembly.colCount();
  m_lastSolver = nullptr;
}

void ConstraintSystem::formEquation(const Params& params, const std::vector<Vec3>& Fext, const std::vector<Vec3>& Text,
                                    const Stabilization& stab) {
  if (stab.velocityLevel) m_velocity.form(m_assembly, params, Fext, Text, stab, m_B);
  else formAccelerationLevel(m_assembly, params, Fext, Text, stab, m_B);
  m_held = stab.velocityLevel ? stab.assembled : nullptr;
  m_report = {};
  m_report.rows = m_assembly.rowCount();
  m_report.cols = m_assembly.colCount();
  m_fc.setZero(m_report.cols);
  m_lastSolver = nullptr;
}

bool ConstraintSystem::run(ConstraintSolver& solver) {
  m_lastSolver = &solver;
  if (&solver == &m_dense) m_dense.setFirst(heldFirst());
  if (&solver == &m_block) m_block.setSecond(m_held ? m_velocity.heldRightHandSide() : nullptr);  // (splitHeldCorrection)
  return solver.solve(m_assembly, m_B, m_fc, m_report);
}

// At the velocity level a held constraint (met, Stabilization::held) aims at D1* = -D/h and one
// still assembling at its law's rate. Where the two kinds cannot be met together (a door on a
// hinge told by an orientation to turn where the hinge does not let it: M singular, the system
// without a solution), the least-squares solve split the miss between them: the hinge's rows took
// a rate of 4 rad/s about an axis it forbids, which the position projection took back every step
// while the velocity stayed, and the door, standing still, reported 2 m/s and +49 % of its energy
// in 10 s. A constraint that is met holds, and one that cannot assemble waits: the dense solve
// meets the held ones first (DenseSvdSolver::setFirst). Null where all are of one kind.
// The held flags are set at the end of each step (projection, updateAssembled); on a first step
// none is set yet, so a constraint met now counts too (as updateAssembled would count it): the
// door at rest, told by an orientation to lean off its met hinge, reported 0.035 m/s for its
// first step, a velocity its position never followed.
const std::vector<std::uint8_t>* ConstraintSystem::heldFirst() {
  if (!m_held) return nullptr;
  m_first.assign(m_assembly.rows().size(), 0);
  bool anyHeld = false, anyAssembling = false;
  for (int j : m_assembly.active()) {
    // (a velocity constraint is neither: with the held ones)
    const ConstraintRows& r = m_assembly.rows()[size_t(j)];
    const bool held = m_assembly.nonholonomic(j) || (size_t(j) < m_held->size() && (*m_held)[size_t(j)]) ||
                      maxAbs(r.D, r.d) <= kAssembledThreshold;
    m_first[size_t(j)] = held;
    (held ? anyHeld : anyAssembling) = true;
  }
  return anyHeld && anyAssembling ? &m_first : nullptr;
}

void ConstraintSystem::solve(SolverKind kind) {
  m_lastSolver = nullptr;
  const int rows = m_report.rows, cols = m_report.cols;
  m_report.bNorm = m_B.norm();
  if (rows == 0 || cols == 0) {
    m_report.residual = m_report.bNorm;
    m_report.rank = 0;
    return;
  }
  // a non-finite system (a diverging state) must not reach a factorization: hand NaN forces
  // on, so that the step loop sees the divergence and stops
  if (!m_B.allFinite()) {
    m_fc.setConstant(cols, std::numeric_limits<double>::quiet_NaN());
    m_report.residual = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  if (kind == SolverKind::DenseSvd) {
    m_report.reason = "the scene asks for the dense SVD";
    run(m_dense);
    return;
  }
  const bool small = rows <= kDenseLimit && kind == SolverKind::Auto;
  if (m_assembly.symmetric()) {
    if (run(m_block)) {
      m_report.reason = "every force follows virtual work (G = J^T): M = J W J^T is symmetric";
      return;
    }
    if (small) {
      m_report.reason = "M = J W J^T is singular (redundant or conflicting constraints)";
      run(m_dense);
      return;
    }
    m_report.reason = "M = J W J^T is singular and too large for the dense SVD";
    run(m_regularized);
    return;
  }
  if (run(m_leastSquares)) {
    m_report.reason = "a constraint applies its own forces (orientation: a pure torque), so M is not square";
    return;
  }
  if (small) {
    m_report.reason = "M is not square and M M^T is singular (redundant or conflicting constraints)";
    run(m_dense);
    return;
  }
  m_report.reason = "M is not square, M M^T is singular and too large for the dense SVD";
  run(m_regularized);
}

void ConstraintSystem::sequentialImpulses(const Params& params, const Stabilization& stab, int sweeps,
                                          std::vector<Vec3>& P, std::vector<Vec3>& L, std::vector<Vec3>& impulses) {
  m_impulses.step(m_assembly, params, stab, sweeps, P, L, impulses, m_fc, m_velocity.nextOffsets(), m_velocity.nextAims());
  m_report.path = SolvePath::None;
  m_report.reason = "sequential impulses";
}

void ConstraintSystem::applyForces(std::vector<Vec3>& F, std::vector<Vec3>& T) const {
  if (m_fc.size() == 0) return;
  for (int j : m_assembly.active()) {
    const ConstraintRows& r = m_assembly.rows()[size_t(j)];
    const Vec3 fc = multiplier(j);
    for (int s = 0; s < r.nb; ++s) {
      const size_t b = size_t(r.body[s]);
      if (r.customForce) {
        F[b].noalias() += r.G[s] * fc;
        T[b].noalias() += r.H[s] * fc;
      } else if (r.pointPart.has(s)) {
        // (one test for both products: through jlT/jaT, which test it each, this loop took
        // 17 % more instructions)
        r.pointPart.addForce(s, fc, F[b], T[b]);
      } else {
        F[b].noalias() += r.Jl[s].transpose() * fc;
        T[b].noalias() += r.Ja[s].transpose() * fc;
      }
    }
  }
}


void ConstraintSystem::constraintForce(int j, int s, Vec3& force, Vec3& torque) const {
  force.setZero();
  torque.setZero();
  const ConstraintRows& r = m_assembly.rows()[size_t(j)];
  if (m_assembly.colOffset()[size_t(j)] < 0 || s >= r.nb || m_fc.size() == 0) return;
  const Vec3 fc = multiplier(j);
  if (r.customForce) {
    force = r.G[s] * fc;
    torque = r.H[s] * fc;
  } else {
    force = r.jlT(s, fc);
    torque = r.jaT(s, fc);
  }
}

}  // namespace tether::core
