// M = J W J^T over a chosen set of constraints, in 3 x 3 blocks, factorized by BlockLdlt: the
// symmetric solve of the constraint system (all active constraints) and of projection (the
// assembled ones). The symbolic analysis is redone only when the set or its bodies change.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "core/block_ldlt.h"
#include "core/constraint.h"

namespace tether::core {

class BlockSystem {
 public:
  // Choose the constraints (indices into rows) and build M's structure for them.
  // incidence: per body, the (constraint, slot) pairs of every active constraint. layout: a
  // number that changes whenever some constraint's bodies change (ConstraintAssembly::evaluate):
  // with the same number and the same constraints the structure is known to be unchanged.
  void select(const std::vector<int>& constraints, const std::vector<ConstraintRows>& rows,
              const std::vector<std::vector<std::pair<int, int>>>& incidence, long layout);
  // M's values for the current rows and body kinematics: per body i and pair of its selected
  // constraints (a, b), Jl_a Jl_b^T / m_i + Ja_a I_i^-1 Ja_b^T; padding rows get the scale of
  // their constraint's first row.
  void assemble(const std::vector<ConstraintRows>& rows, const std::vector<BodyKinematics>& kin);
  // Factorize (see BlockLdlt::factorize); false if singular and not regularized.
  // keep: keep M's values for multiply().
  // (regularized, a pivot is at least lambda times M's largest diagonal entry, so at least lambda
  // times its own: positive definite to within a tenth of that)
  bool factorize(double lambda, bool keep = true) {
    return m_ldlt.factorize(lambda > 0.0 ? std::min(kPivotTolerance, 0.1 * lambda) : kPivotTolerance, lambda, keep);
  }
  // x: 3 per selected constraint, in selection order; solved in place.
  void solve(Eigen::VectorXd& x) const { m_ldlt.solve(x); }
  void solve(Eigen::VectorXd& x, Eigen::VectorXd& x2) const { m_ldlt.solve(x, x2); }  // (two at once)
  void multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const { m_ldlt.multiply(x, y); }

  const std::vector<int>& constraints() const { return m_nodes; }
  // The largest diagonal entry of M as assembled (kept by the last factorize).
  double largestDiagonal() const { return m_ldlt.largestDiagonal(); }

 private:
  // a selected constraint's slot on a body; listed body by body (a flat copy of the incidence
  // lists' selected entries: the assembly reads it without chasing pointers)
  struct Slot {
    int constraint, slot, node;
  };
  // a pair of selected constraints on a body: its slots a, b (counted from the body's first),
  // oriented as input edge `edge`; listed body by body
  struct PairBlock {
    int body, a, b, edge;
  };
  BlockLdlt m_ldlt;
  std::vector<int> m_nodes;      // node -> constraint
  std::vector<int> m_nodeOf;     // constraint -> node, -1 if not selected
  long m_layout = -1;            // the layout number of the analyzed structure
  std::vector<Slot> m_slots;
  std::vector<int> m_slotStart;  // per body: its first slot in m_slots (and the end)
  std::vector<PairBlock> m_pairs;
  std::vector<Mat3> m_xBody;     // assemble(): Ja I^-1 per slot of the body at hand
};

}  // namespace tether::core
