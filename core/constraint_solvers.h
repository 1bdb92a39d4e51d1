// Stage "solve": M Fc = -B for the rows of a ConstraintAssembly, one class per path behind one
// interface (ConstraintSystem::solve picks the path, and says why):
//  - BlockLdltSolver: when every active constraint applies virtual-work forces (G = J^T),
//    M = J W J^T is symmetric positive semi-definite with one 3 x 3 block per pair of
//    constraints sharing a body (core/block_ldlt.h): linear time on chains and trees, little
//    fill on loops;
//  - LeastSquaresSolver: when some constraint applies its own forces (the orientation
//    constraint's pure torque) M is not square; the minimum-norm solution is Fc = M^T y with
//    (M M^T) y = -B, by sparse LDL^T;
//  - DenseSvdSolver: the paper's method and the reference: least squares / minimum norm for any
//    shape and rank (a symmetric M by its eigendecomposition, which is its SVD); auto uses it
//    when M is singular (redundant or conflicting constraints) and not too large;
//  - RegularizedSolver: singular and large: (M + lambda I) (or M M^T + lambda I) with
//    lambda = 1e-10 of M's scale, then two steps of iterative refinement.
// Sequential impulses (SequentialImpulses below) is not a solution of M Fc + B = 0 but a
// velocity-level stepper: its unknowns are impulses applied to the momenta constraint by
// constraint, sweep after sweep.
#pragma once

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/block_system.h"
#include "core/constraint_assembly.h"
#include "core/right_hand_side.h"

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

class ConstraintSolver {
 public:
  virtual ~ConstraintSolver() = default;
  // Fc (stacked by columns, sized here) with M Fc = -B (stacked by rows), or its least-squares /
  // minimum-norm solution; sets report's path, rank and residual. False when this path cannot
  // solve M as it is (singular without regularization): then Fc is not to be used.
  virtual bool solve(const ConstraintAssembly& a, const Eigen::VectorXd& B, Eigen::VectorXd& fc,
                     SolveReport& report) = 0;
};

// Relative regularization lambda of the regularized paths (times M's scale).
inline constexpr double kRegularization = 1e-10;
// Relative threshold below which singular values count as zero (times the largest).
inline constexpr double kRankTolerance = 1e-10;
// The constraint analysis's (analyseConflicts) threshold, times the largest singular value: rows
// dependent to eight digits count as redundant there, and a miss along them as a conflict.
inline constexpr double kRedundancyTolerance = 1e-8;
// A row's miss |M Fc + B| past this counts as not met (a conflict): 1e-8 of the largest |B|,
// at least 1e-8 (analyseConflicts, and DenseSvdSolver's held-first solve).
inline double missTolerance(const Eigen::VectorXd& B) { return 1e-8 * std::max(1.0, B.cwiseAbs().maxCoeff()); }
// Block LDL^T: a solution |x| larger than this times |b| / s (s: M's largest diagonal entry)
// counts as singular (BlockLdltSolver::nearlySingular).
inline constexpr double kNearSingular = 1e6;

class BlockLdltSolver final : public ConstraintSolver {
 public:
  explicit BlockLdltSolver(bool regularize = false) : m_regularize(regularize) {}
  bool solve(const ConstraintAssembly& a, const Eigen::VectorXd& B, Eigen::VectorXd& fc, SolveReport& report) override;
  // Whether a successful solve reports its residual (on by default). The step loop turns it
  // off: the residual of a stable factorization is rounding, and it costs a copy of M and a
  // product with it (~5 % of a step).
  void setResidualReported(bool on) { m_reportResidual = on; }
  // The last solve factored M without regularization: solveFactored() may reuse the factors.
  bool factored() const { return m_factored; }
  // x: 3 entries per active constraint (in active() order, padded rows 0); solved in place.
  void solveFactored(Eigen::VectorXd& x) const { m_system.solve(x); }
  // A second right-hand side (3 per node, as solveFactored's) for the next solve to solve beside
  // -B in the same pass, in place: after a solve that factored M without regularization, what
  // second() returns is M^-1 of it. Null: none.
  void setSecond(Eigen::VectorXd* x) { m_second = x; m_secondSolved = false; }
  const Eigen::VectorXd* second() const { return m_secondSolved ? m_second : nullptr; }

 private:
  // Whether x = M^-1 b is as large as only a nearly singular M makes it (see the .cpp).
  bool nearlySingular(const Eigen::VectorXd& b, const Eigen::VectorXd& x) const;
  bool m_regularize;
  bool m_reportResidual = true;
  bool m_factored = false;
  BlockSystem m_system;
  Eigen::VectorXd m_x, m_r;  // right-hand side / solution, 3 per node
  Eigen::VectorXd* m_second = nullptr;  // (setSecond)
  bool m_secondSolved = false;
};

class LeastSquaresSolver final : public ConstraintSolver {
 public:
  explicit LeastSquaresSolver(bool regularize = false) : m_regularize(regularize) {}
  bool solve(const ConstraintAssembly& a, const Eigen::VectorXd& B, Eigen::VectorXd& fc, SolveReport& report) override;

 private:
  bool m_regularize;
};

class DenseSvdSolver final : public ConstraintSolver {
 public:
  bool solve(const ConstraintAssembly& a, const Eigen::VectorXd& B, Eigen::VectorXd& fc, SolveReport& report) override;
  // Constraints met first (per constraint, nonzero: first; see ConstraintSystem::heldFirst): where
  // the least-squares solve misses a row of theirs (no Fc meets the system), Fc instead meets
  // their rows as closely as it can and, of the Fc that do, the others' as closely as they can.
  // Null: none. Kept until set again.
  void setFirst(const std::vector<std::uint8_t>* first) { m_first = first; }

 private:
  // Fc of the scaled system m_dense z = -B met in that order (setFirst); unchanged where no row is first
  void solveFirstThenRest(const ConstraintAssembly& a, const Eigen::VectorXd& B, double scale, Eigen::VectorXd& fc);

  const std::vector<std::uint8_t>* m_first = nullptr;
  double m_largest = 0.0;  // the last plain solve's largest singular value (of the scaled M)
  Eigen::MatrixXd m_dense;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> m_eigen;  // (the symmetric case)
  Eigen::VectorXd m_c;
};

class RegularizedSolver final : public ConstraintSolver {
 public:
  // block LDL^T of M + lambda I when M is symmetric, else least squares with M M^T + lambda I
  bool solve(const ConstraintAssembly& a, const Eigen::VectorXd& B, Eigen::VectorXd& fc, SolveReport& report) override {
    return a.symmetric() ? m_block.solve(a, B, fc, report) : m_leastSquares.solve(a, B, fc, report);
  }

 private:
  BlockLdltSolver m_block{true};
  LeastSquaresSolver m_leastSquares{true};
};

// Sequential impulses (Robson; Catto): one velocity-level step. On entry P and L hold the
// momenta after the external impulse h F_E, h T_E; on exit they also hold the constraint
// impulses, so that every active constraint's rate meets its velocity-level target D1* (see
// core/velocity_level.h). Each sweep visits the constraints in order and applies
// dLambda = K^T (K K^T)^-1 (D1* - J u) with K = J W G (the constraint's effective inverse mass).
// impulses warm-starts and returns the accumulated impulse per constraint; fc gets impulse / h,
// nextOffset the rate offsets for the next step (see velocityTarget), nextAim the velocity
// constraints' aims (see velocityConstraintTarget).
class SequentialImpulses {
 public:
  void step(const ConstraintAssembly& a, const Params& params, const Stabilization& stab, int sweeps,
            std::vector<Vec3>& P, std::vector<Vec3>& L, std::vector<Vec3>& impulses, Eigen::VectorXd& fc,
            std::vector<Vec3>& nextOffset, std::vector<Vec3>& nextAim);

 private:
  std::vector<Vec3> m_target;  // target rate per constraint
  std::vector<Mat33> m_kinv;   // K^T (K K^T)^-1 per constraint
};

}  // namespace tether::core
