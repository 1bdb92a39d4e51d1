// The constraint-force equation M Fc + B = 0 (paper Sec. 4.3-4.4, Fig. 15) as the step uses it:
// one object over its stages, each in its own file:
//   constraint rows   ConstraintAssembly        core/constraint_assembly.h
//   right-hand side   formAccelerationLevel     core/right_hand_side.h
//                     VelocityLevelEquation     core/velocity_level.h (semi-implicit Euler)
//   solve             one ConstraintSolver per path, SequentialImpulses   core/constraint_solvers.h
//   apply             applyForces (here)
//   diagnostics       analyseConflicts          core/constraint_diagnostics.h
#pragma once

#include <Eigen/Sparse>
#include <vector>

#include "core/constraint_assembly.h"
#include "core/constraint_diagnostics.h"
#include "core/constraint_solvers.h"
#include "core/right_hand_side.h"
#include "core/velocity_level.h"

namespace tether::core {

class ConstraintSystem {
 public:
  // Largest system auto hands to the dense SVD when M is singular.
  static constexpr int kDenseLimit = 600;

  void reset(const Model& model);

  // Stages "constraint rows" and "right-hand side" (see evaluate and formEquation).
  void assemble(const Model& model, const Params& params, const EvalContext& ctx, const std::vector<Vec3>& Fext,
                const std::vector<Vec3>& Text, const Stabilization& stab);
  // Stage "constraint rows" at a state (kinematics, D, D1, J, c); the rows can be reused while
  // the state is the same.
  void evaluate(const Model& model, const Params& params, const EvalContext& ctx);
  // Stage "right-hand side": B from the rows and the external forces (acceleration level, or
  // the velocity level of semi-implicit Euler when stab.velocityLevel).
  void formEquation(const Params& params, const std::vector<Vec3>& Fext, const std::vector<Vec3>& Text,
                    const Stabilization& stab);

  // Stage "solve": the path for kind (auto: the fastest that applies; see constraint_solvers.h).
  // SequentialImpulses is a stepper, not a path: here it solves as auto.
  void solve(SolverKind kind);

  // Sequential impulses (SequentialImpulses::step) after evaluate(): P and L are the momenta,
  // impulses the warm start; the forces are impulse / h.
  void sequentialImpulses(const Params& params, const Stabilization& stab, int sweeps, std::vector<Vec3>& P,
                          std::vector<Vec3>& L, std::vector<Vec3>& impulses);

  // Semi-implicit Euler, after solve() and applyForces(): the held point pairs' second-order
  // drift (VelocityLevelEquation::correctHeldForArmRotation); only after a solve by block LDL^T.
  bool correctHeldForArmRotation(const Stabilization& stab, std::vector<Vec3>& F, std::vector<Vec3>& T) {
    return m_lastSolver == &m_block &&
           m_velocity.correctHeldForArmRotation(m_assembly, m_block, stab, m_B, m_fc, F, T);
  }
  int armPasses() const { return m_velocity.armPasses(); }
  // Then the held constraints' position correction as a displacement alone
  // (VelocityLevelEquation::splitHeldCorrection); only after a solve by block LDL^T.
  bool splitHeldCorrection(std::vector<Vec3>& Fp, std::vector<Vec3>& Tp) {
    return m_lastSolver == &m_block && m_velocity.splitHeldCorrection(m_assembly, m_block, m_fc, Fp, Tp);
  }

  // Stage "apply": F_i += G_j^i Fc_j, T_i += H_j^i Fc_j.
  void applyForces(std::vector<Vec3>& F, std::vector<Vec3>& T) const;

  // Diagnosis of the current system by SVD (allocates; for reports, not the step loop).
  ConflictReport conflicts() const { return analyseConflicts(m_assembly, m_B, m_report); }

  const SolveReport& report() const { return m_report; }
  // Whether a successful block LDL^T solve reports its residual (BlockLdltSolver); reports
  // (Simulation::refresh) turn it on, the step loop off.
  void setResidualReported(bool on) { m_block.setResidualReported(on); }
  const ConstraintAssembly& assembly() const { return m_assembly; }
  void holdForms(bool on) { m_assembly.holdForms(on); }  // (ConstraintAssembly::holdForms)
  const std::vector<int>& active() const { return m_assembly.active(); }
  const std::vector<ConstraintRows>& rows() const { return m_assembly.rows(); }
  const std::vector<int>& rowOffset() const { return m_assembly.rowOffset(); }
  const Eigen::VectorXd& forces() const { return m_fc; }                  // Fc, stacked
  const Eigen::VectorXd& rightHandSide() const { return m_B; }            // B, stacked
  const Eigen::SparseMatrix<double>& matrix() const { return m_assembly.matrix(); }
  // The rate offsets, velocity constraints' aims and assembling constraints' law steps of the step
  // just formed, into offsets, aims and laws (StepMemory::rateOffset, velocityAim, lawSteps; see
  // velocityTarget, velocityConstraintTarget, assemblingTarget).
  void takeRateOffsets(std::vector<Vec3>& offsets, std::vector<Vec3>& aims, std::vector<LawStep>& laws) {
    offsets.swap(m_velocity.nextOffsets());
    aims.swap(m_velocity.nextAims());
    laws.swap(m_velocity.nextLawSteps());
    m_velocity.nextLawSteps().clear();  // (only form() fills them: none after a sequential-impulses step)
  }
  // Force and torque a constraint applies to its slot-s body (for drawing and reports).
  void constraintForce(int constraint, int slot, Vec3& force, Vec3& torque) const;
  // An active constraint's Fc (f entries, zero-padded to 3) after a solve.
  Vec3 multiplier(int constraint) const { return m_assembly.multiplier(m_fc, constraint); }

 private:
  bool run(ConstraintSolver& solver);  // solve by one path into m_fc and m_report
  // the constraints the dense solve meets first (DenseSvdSolver::setFirst) in this system
  const std::vector<std::uint8_t>* heldFirst();

  ConstraintAssembly m_assembly;
  VelocityLevelEquation m_velocity;
  Eigen::VectorXd m_B, m_fc;
  SolveReport m_report;
  BlockLdltSolver m_block;
  LeastSquaresSolver m_leastSquares;
  DenseSvdSolver m_dense;
  RegularizedSolver m_regularized;
  SequentialImpulses m_impulses;
  const ConstraintSolver* m_lastSolver = nullptr;  // the path of the last solve
  // formEquation's held flags at the velocity level (Stabilization::assembled, which outlives the
  // solve that follows), else null
  const std::vector<std::uint8_t>* m_held = nullptr;
  std::vector<std::uint8_t> m_first;  // per constraint: heldFirst's scratch
};

}  // namespace tether::core
