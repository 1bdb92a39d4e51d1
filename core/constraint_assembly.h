// The assembler of the constraint-force equation M Fc + B = 0 (paper Sec. 4.3-4.4, Fig. 15):
// stage "constraint rows" evaluates every active constraint (D, D1, J, c; core/constraint.h)
// and lays out their rows and force columns; M itself is formed by the solver that needs it
// (block by block for block LDL^T, as a sparse matrix here for the others):
//   M_kj = sum_i (Jl_k^i / m_i) G_j^i + (Ja_k^i I_i^-1) H_j^i
// over the bodies i that constraints k and j share (the incidence lists).
#pragma once

#include <Eigen/Sparse>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/constraint.h"
#include "core/model.h"

namespace tether::core {

// Force map of a constraint on its slot-s body: G (3 x f) and H (3 x f) (J^T unless the
// constraint applies its own forces).
inline void forceMap(const ConstraintRows& r, int s, Mat33& G, Mat33& H) {
  if (r.customForce) {
    G = r.G[s];
    H = r.H[s];
  } else {
    G = r.jlBlock(s).transpose();
    H = r.jaBlock(s).transpose();
  }
}

class ConstraintAssembly {
 public:
  void reset(const Model& model);

  // Stage "constraint rows": evaluate the constraints present under params (enabled, bodies
  // active) at the kinematics of ctx, and lay out rows and columns in constraint order. The
  // incidence lists are rebuilt only when the active set or some constraint's bodies change.
  // A velocity constraint's D is the integral of its error (ctx.velocityIntegral), or zero
  // under the implicit stabilization, which feeds back no integral (Constraint::nonholonomic).
  void evaluate(const Model& model, const Params& params, const EvalContext& ctx);

  const std::vector<ConstraintRows>& rows() const { return m_rows; }     // per constraint
  const std::vector<int>& active() const { return m_active; }             // constraint indices
  const std::vector<int>& rowOffset() const { return m_rowOffset; }       // per constraint, -1 inactive
  const std::vector<int>& colOffset() const { return m_colOffset; }       // per constraint, -1 inactive
  const std::vector<int>& node() const { return m_node; }                 // constraint -> position in active(), -1
  int rowCount() const { return m_rowCount; }                             // sum of d over active constraints
  int colCount() const { return m_colCount; }                             // sum of f
  bool symmetric() const { return m_symmetric; }                          // every force is J^T (virtual work)
  bool projectable(int j) const { return m_projectable[size_t(j)] != 0; }  // Constraint::projectable
  bool nonholonomic(int j) const { return m_nonholonomic[size_t(j)] != 0; }  // Constraint::nonholonomic
  bool anyNonholonomic() const { return m_anyNonholonomic; }
  // per body: the (constraint, slot) pairs of every active constraint
  const std::vector<std::vector<std::pair<int, int>>>& incidence() const { return m_incidence; }
  // changes whenever some constraint's bodies or row count change (BlockSystem::select)
  long layout() const { return m_layout; }
  // the body kinematics of the last evaluate() (valid until the next one)
  const std::vector<BodyKinematics>& kinematics() const { return *m_kin; }

  // An active constraint's Fc (f entries, zero-padded to 3) in a stacked force vector.
  Vec3 multiplier(const Eigen::VectorXd& fc, int j) const {
    const ConstraintRows& r = m_rows[size_t(j)];
    if (r.f == 3) return fc.segment<3>(m_colOffset[size_t(j)]);
    return gatherRows(fc, m_colOffset[size_t(j)], r.f);
  }
  // M as a sparse matrix (built on demand, kept until the next evaluate()).
  const Eigen::SparseMatrix<double>& matrix() const;
  // While on, each constraint takes the form of rows it took at its last evaluation
  // (ConstraintRows::form): the continuous integrators hold them through a step's stages, whose
  // derivative must be smooth for the step's error estimate (see stepRK45).
  void holdForms(bool on) { m_holdForms = on; }
  // Whether constraint j is the second of two rigid point pairs on the same bodies, evaluated
  // with two rows only (see reduceRedundantPairs).
  bool reduced(int j) const { return m_reduced[size_t(j)] != 0; }

 private:
  void findRedundantPairs();
  bool reduceRedundantPairs();

  const std::vector<BodyKinematics>* m_kin = nullptr;
  std::vector<ConstraintRows> m_rows;
  std::vector<BodyList> m_bodies;            // per constraint (Constraint::bodies, asked once)
  std::vector<std::uint8_t> m_projectable;   // per constraint (Constraint::projectable)
  std::vector<std::uint8_t> m_nonholonomic;  // per constraint (Constraint::nonholonomic)
  bool m_anyNonholonomic = false;
  std::vector<int> m_active, m_rowOffset, m_colOffset;
  std::vector<int> m_node;
  int m_rowCount = 0, m_colCount = 0;
  // per constraint: (nb + 4 d, body[0], body[1]) at its last evaluation; m_layout counts their changes
  std::vector<std::array<int, 3>> m_rowBodies;
  long m_layout = 0;
  std::vector<std::vector<std::pair<int, int>>> m_incidence;
  bool m_symmetric = true;
  bool m_holdForms = false;
  // rigid point pairs on the same bodies as an earlier one: (earlier, later); per constraint
  // whether it is a rigid point pair (Constraint::rigidPointPair) and whether its rows are
  // reduced now
  std::vector<std::pair<int, int>> m_pairs;
  std::vector<int> m_pairAxis;  // per pair: the axis k of A its basis is built on (-1: not yet)
  std::vector<std::uint8_t> m_rigidPair, m_reduced;

  mutable std::vector<Eigen::Triplet<double>> m_triplets;
  mutable Eigen::SparseMatrix<double> m_M;
  mutable bool m_matrixBuilt = false;
};

}  // namespace tether::core
