// The constraint-force equation M Fc + B = 0 (paper Sec. 4.3-4.4, Fig. 15): assembly from
// the active constraints' rows, solution, and application of the forces to the bodies.
#pragma once

#include <Eigen/Sparse>
#include <vector>

#include "core/constraint.h"
#include "core/model.h"

namespace tether::core {

struct SolveReport {
  int rows = 0;            // sum of d over active constraints
  int cols = 0;            // sum of f
  int rank = 0;            // numerical rank of M
  double residual = 0.0;   // |M Fc + B| (2-norm)
  double bNorm = 0.0;      // |B|
};

// Which constraints are involved in a rank deficiency, and which cannot be met together.
struct ConflictReport {
  std::vector<int> redundant;    // constraint indices whose rows are linearly dependent
  std::vector<int> conflicting;  // constraint indices whose equations are left unsatisfied
};

class ConstraintSystem {
 public:
  // Relative threshold below which singular values count as zero (times the largest).
  static constexpr double kRankTolerance = 1e-10;

  void reset(const Model& model);

  // Stage "assemble": evaluate every active constraint and form M (sparse) and B.
  //   B_k = J_k [a0; alpha0] + c_k + (2 / tau_k) D1_k + D_k / tau_k^2
  // where a0 = F_E / m and alpha0 = I^-1 (T_E + L x w) are each body's acceleration without
  // constraint forces (paper Eqn. 7 with beta's gyroscopic part moved into alpha0), and
  //   M_kj = sum_i (Jl_k^i / m_i) G_j^i + (Ja_k^i I_i^-1) H_j^i.
  void assemble(const Model& model, const Params& params, const EvalContext& ctx, const std::vector<Vec3>& Fext,
                const std::vector<Vec3>& Text);

  // Stage "solve": least-squares / minimum-norm Fc by SVD (the paper's reference method).
  void solveDenseSvd();

  // Stage "net force": F_i += G_j^i Fc_j, T_i += H_j^i Fc_j.
  void applyForces(std::vector<Vec3>& F, std::vector<Vec3>& T) const;

  // Diagnosis of the current system (allocates; for reports, not the step loop).
  ConflictReport conflicts() const;

  const SolveReport& report() const { return m_report; }
  const std::vector<int>& active() const { return m_active; }             // constraint indices
  const std::vector<ConstraintRows>& rows() const { return m_rows; }      // per constraint
  const std::vector<int>& rowOffset() const { return m_rowOffset; }       // per constraint
  const std::vector<int>& colOffset() const { return m_colOffset; }
  const Eigen::VectorXd& forces() const { return m_fc; }                  // Fc, stacked
  const Eigen::SparseMatrix<double>& matrix() const { return m_M; }
  const Eigen::VectorXd& rhs() const { return m_B; }
  // Force and torque a constraint applies to its slot-s body (for drawing and reports).
  void constraintForce(int constraint, int slot, Vec3& force, Vec3& torque) const;

 private:
  std::vector<ConstraintRows> m_rows;
  std::vector<int> m_active, m_rowOffset, m_colOffset;
  std::vector<std::vector<std::pair<int, int>>> m_incidence;  // per body: (constraint, slot)
  std::vector<Eigen::Triplet<double>> m_triplets;
  Eigen::SparseMatrix<double> m_M;
  Eigen::MatrixXd m_dense;
  Eigen::VectorXd m_B, m_fc;
  std::vector<Vec3> m_a0, m_alpha0;
  SolveReport m_report;
};

}  // namespace tether::core
