// The constraint-force equation M Fc + B = 0 (paper Sec. 4.3-4.4, Fig. 15): assembly from
// the active constraints' rows, solution, and application of the forces to the bodies.
//
// Solution paths (settings.solver; "auto" picks per system, and says why):
//  - block LDL^T: when every active constraint applies virtual-work forces (G = J^T), M = J W J^T
//    is symmetric positive semi-definite with one 3 x 3 block per pair of constraints sharing a
//    body (core/block_ldlt.h): linear time on chains and trees, little fill on loops;
//  - sparse least squares: when some constraint applies its own forces (the orientation
//    constraint's pure torque) M is not square; the minimum-norm solution is Fc = M^T y with
//    (M M^T) y = -B, by sparse LDL^T;
//  - dense SVD: the paper's method and the reference: least squares / minimum norm for any
//    shape and rank; auto uses it when M is singular (redundant or conflicting constraints) and
//    not too large;
//  - regularized: singular and large: (M + lambda I) (or M M^T + lambda I) with lambda = 1e-10
//    of M's scale, then two steps of iterative refinement.
#pragma once

#include <Eigen/Sparse>
#include <array>
#include <cstdint>
#include <vector>

#include "core/block_system.h"
#include "core/constraint.h"
#include "core/model.h"

namespace tether::core {

enum class SolvePath { None, BlockLdlt, SparseLeastSquares, DenseSvd, Regularized };
const char* toString(SolvePath p);

struct SolveReport {
  int rows = 0;            // sum of d over active constraints
  int cols = 0;            // sum of f
  int rank = -1;           // numerical rank of M when the path knows it (SVD; full-rank sparse paths)
  double residual = 0.0;   // |M Fc + B| (2-norm); NaN if not computed (see setResidualReported)
  double bNorm = 0.0;      // |B|
  SolvePath path = SolvePath::None;
  const char* reason = "";  // why this path
};

// Which constraints are involved in a rank deficiency, and which cannot be met together.
struct ConflictReport {
  int rank = 0;                  // of the analysed rows
  int unanalysedRows = 0;        // rows in groups larger than kRankAnalysisLimit (not analysed)
  std::vector<int> redundant;    // constraint indices whose rows are linearly dependent
  std::vector<int> conflicting;  // constraint indices whose equations are left unsatisfied
};

// How the deviation feeds back into B (see StabilizationKind).
struct Stabilization {
  StabilizationKind kind = StabilizationKind::Tau;
  double alpha = 10.0, beta = 10.0;  // Baumgarte, 1/s
  double h = 1e-3;                   // the integrator step, s
  bool velocityLevel = false;        // semi-implicit Euler: target the rate at the end of the step
  // per constraint: assembled (see projectPositions). At the velocity level an assembled
  // constraint under tau is held like the implicit method (D1* = -D/h): tau shapes how a
  // constraint assembles, holding it is the implicit method's job.
  const std::vector<std::uint8_t>* assembled = nullptr;
  double projectionTolerance = 0.0;  // m (0: no projection): the arm-rotation passes run only
                                     // where they would move a joint by 1/40 of it
  double hNominal = 0.0;             // s: the scene's step (a step may be shorter)
  // held point pairs: each body's change of w over the last step, to be scaled by spinAhead
  // (see correctHeldForArmRotation); null: none
  const std::vector<Vec3>* spinTrend = nullptr;
  double spinAhead = 0.0;
  // assembling constraints: h c / 2 of each one's last step (State::rateOffset; see
  // velocityTarget); null or NaN: taken as this step's
  const std::vector<Vec3>* rateOffset = nullptr;
};

class ConstraintSystem {
 public:
  // Relative threshold below which singular values count as zero (times the largest).
  static constexpr double kRankTolerance = 1e-10;
  // Largest system auto hands to the dense SVD when M is singular.
  static constexpr int kDenseLimit = 600;
  // conflicts(): a group of constraints joined through shared bodies is analysed by a full SVD
  // up to this many rows (1 500: about 3 s and 60 MB); larger singular groups are reported as not
  // analysed. Groups the fast paths factor are never analysed: they have full rank.
  static constexpr int kRankAnalysisLimit = 1500;

  void reset(const Model& model);

  // Stage "assemble": evaluate every active constraint and form B. For the continuous-time
  // integrators (RK4, RK45) the deviation's acceleration is prescribed:
  //   B_k = J_k [a0; alpha0] + c_k + (2 / tau_k) D1_k + D_k / tau_k^2            (tau)
  //   B_k = J_k [a0; alpha0] + c_k + 2 alpha D1_k + beta^2 D_k                    (Baumgarte)
  //   B_k = J_k [a0; alpha0] + D1_k / h + D_k / h^2                               (implicit, Hong Eqn. 11)
  // where a0 = F_E / m and alpha0 = I^-1 (T_E + L x w) are each body's acceleration without
  // constraint forces (paper Eqn. 7, with beta's gyroscopic part moved into alpha0).
  // Semi-implicit Euler (velocityLevel) prescribes the rate at the end of the step instead:
  // v' = v + h W (F_E + F_c) must give D1' = J v' + e = D1*, where D1* discretizes each
  // equation implicitly in D1 (so it needs no velocity-product term c and stays stable when
  // bodies spin fast):
  //   tau:       (D1* - D1)/h + 2/tau D1* + D/tau^2 = 0  =>  D1* = (D1 - h D/tau^2) / (1 + 2h/tau)
  //   Baumgarte: D1* = (D1 - h beta^2 D) / (1 + 2 alpha h)
  //   implicit:  D1* = -D / h                              (then B is exactly Hong's Eqn. 11)
  // and J W F_c = (D1* - D1)/h - J a0 gives B_k = J_k [a0; alpha0] + (D1_k - D1*_k) / h.
  // The rate also moves by h c over the step (the Jacobian turns with the bodies). While a
  // constraint assembles that term is kept (B_k += c_k), so D follows the tau dynamics on
  // spinning bodies too; once assembled it is held by the implicit target without c, like Hong
  // et al.'s scheme (with c, fast whipping chains diverged), and projection removes the drift;
  // a held point pair's target also includes half the step's arm-rotation term, at the end
  // velocities (see correctHeldForArmRotation), which leaves its drift third order. M is
  //   M_kj = sum_i (Jl_k^i / m_i) G_j^i + (Ja_k^i I_i^-1) H_j^i
  // and is formed by the path that solves it.
  void assemble(const Model& model, const Params& params, const EvalContext& ctx, const std::vector<Vec3>& Fext,
                const std::vector<Vec3>& Text, const Stabilization& stab);
  // assemble() in two parts: the constraint rows at a state (kinematics, D, D1, J, c), then B
  // from them and the external forces (the rows can be reused while the state is the same).
  void evaluate(const Model& model, const Params& params, const EvalContext& ctx);
  void formEquation(const Params& params, const std::vector<Vec3>& Fext, const std::vector<Vec3>& Text,
                    const Stabilization& stab);

  // Stage "solve". SequentialImpulses is a stepper, not a path: here it solves as auto.
  void solve(SolverKind kind);

  // For projection: factorize J W J^T over the active constraints with include[j] set whose
  // deviation has a usable gradient at its solution (Constraint::projectable), regularized if
  // singular; then solve (J W J^T) x = rhs (one value per row, stacked like B; rows of other
  // constraints come back 0).
  void factorMassWeighted(const Model& model, const std::vector<std::uint8_t>& include);
  void solveFactored(Eigen::VectorXd& rhsInOut);

  // Sequential impulses (Robson; Catto): one velocity-level step. On entry P and L hold the
  // momenta after the external impulse h F_E, h T_E; on exit they also hold the constraint
  // impulses, so that every active constraint's rate meets its velocity-level target D1* (see
  // assemble()). Each sweep visits the constraints in order and applies dLambda = K^T (K K^T)^-1 (D1* - J u)
  // with K = J W G (the constraint's effective inverse mass). impulses warm-starts and returns
  // the accumulated impulse per constraint; the reported forces are impulse / h.
  void sequentialImpulses(const Model& model, const Params& params, const Stabilization& stab, int sweeps,
                          std::vector<Vec3>& P, std::vector<Vec3>& L, std::vector<Vec3>& impulses);

  // Semi-implicit Euler, after solve() and applyForces(): the held point pairs' second-order
  // drift (see constraint_system.cpp). F and T are the net force and torque per body, which
  // give the velocities at the end of the step; Fc, B, F and T are corrected. Only after a
  // solve by block LDL^T (whose factorization it reuses); false if it changed nothing.
  bool correctHeldForArmRotation(const Stabilization& stab, std::vector<Vec3>& F, std::vector<Vec3>& T);
  // Passes of that correction since the last formEquation (0 when its first guess held).
  int armPasses() const { return m_armPasses; }

  // Stage "net force": F_i += G_j^i Fc_j, T_i += H_j^i Fc_j.
  void applyForces(std::vector<Vec3>& F, std::vector<Vec3>& T) const;

  // Diagnosis of the current system by SVD (allocates; for reports, not the step loop).
  ConflictReport conflicts() const;

  const SolveReport& report() const { return m_report; }
  // Whether a successful block LDL^T solve reports its residual (on by default). The step loop
  // turns it off: the residual of a stable factorization is rounding, and it costs a copy of M
  // and a product with it (~5 % of a step); reports (Simulation::refresh) turn it on.
  void setResidualReported(bool on) { m_reportResidual = on; }
  const std::vector<int>& active() const { return m_active; }             // constraint indices
  // The velocity-level step just formed: per constraint, how far its rate at the end of the step
  // will run ahead of the rate D moves with over it, h (c + g) / 2 (NaN: held or inactive; see
  // velocityTarget), into out (the State's, for the next step's targets).
  void takeRateOffsets(std::vector<Vec3>& out) { out.swap(m_nextOffset); }
  const std::vector<ConstraintRows>& rows() const { return m_rows; }      // per constraint
  const std::vector<int>& rowOffset() const { return m_rowOffset; }       // per constraint
  const Eigen::VectorXd& forces() const { return m_fc; }                  // Fc, stacked
  const Eigen::SparseMatrix<double>& matrix() const;                       // M (built on demand)
  // Force and torque a constraint applies to its slot-s body (for drawing and reports).
  void constraintForce(int constraint, int slot, Vec3& force, Vec3& torque) const;
  // An active constraint's Fc (f entries, zero-padded to 3) after a solve.
  Vec3 multiplier(int constraint) const {
    const ConstraintRows& r = m_rows[size_t(constraint)];
    if (r.f == 3) return m_fc.segment<3>(m_colOffset[size_t(constraint)]);
    return gatherRows(m_fc, m_colOffset[size_t(constraint)], r.f);
  }

 private:
  void solveDense();
  bool solveBlock(bool regularize);
  bool solveLeastSquares(bool regularize);

  const std::vector<BodyKinematics>* m_kin = nullptr;  // valid from assemble() to the next one
  std::vector<ConstraintRows> m_rows;
  std::vector<BodyList> m_bodies;            // per constraint (Constraint::bodies, asked once)
  std::vector<std::uint8_t> m_projectable;   // per constraint (Constraint::projectable)
  std::vector<int> m_active, m_rowOffset, m_colOffset;
  // per constraint: (nb + 4 d, body[0], body[1]) at its last evaluation; m_layout counts their changes
  std::vector<std::array<int, 3>> m_rowBodies;
  long m_layout = 0;
  std::vector<std::vector<std::pair<int, int>>> m_incidence;  // per body: (constraint, slot)
  bool m_symmetric = true;
  Eigen::VectorXd m_B, m_fc;
  SolveReport m_report;

  // block LDL^T paths: the force solve, and projection
  BlockSystem m_main, m_projection;
  bool m_mainFactored = false;           // m_main holds the factors of this solve's M
  bool m_reportResidual = true;
  std::vector<Vec3> m_cApplied;          // correctHeldForArmRotation: the c a target includes so far, per node
  int m_armPasses = 0;
  std::vector<int> m_heldPairs;          // the nodes it corrects
  std::vector<int> m_node;               // constraint -> position in m_active, -1 inactive
  Eigen::VectorXd m_x, m_r;              // block right-hand side / solution, 3 per node
  std::vector<int> m_chosen;             // projection: the constraints it acts on
  std::vector<Vec3> m_target;            // sequential impulses: target rate per constraint
  std::vector<Vec3> m_nextOffset;        // velocity level: h (c + g) / 2 per assembling constraint (see velocityTarget)
  std::vector<Mat33> m_kinv;             // sequential impulses: K^T (K K^T)^-1 per constraint

  // sparse and dense paths
  mutable std::vector<Eigen::Triplet<double>> m_triplets;
  mutable Eigen::SparseMatrix<double> m_M;
  mutable bool m_matrixBuilt = false;
  Eigen::MatrixXd m_dense;
};

}  // namespace tether::core
