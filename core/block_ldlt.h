// Sparse LDL^T factorization of a symmetric block matrix with 3 x 3 blocks: the
// constraint-force matrix M = J W J^T, one block row per constraint (padded to 3 rows), one
// off-diagonal block per pair of constraints that share a moving body.
//
// The ordering is greedy minimum fill on the block graph. On chains and trees (acyclic
// body-constraint graphs) it eliminates leaves first, which creates no fill: factorization and
// solve are linear in the number of constraints. Closed loops get the little fill that minimum
// fill chooses. The symbolic work (ordering, fill pattern, update lists) is done once per structure
// and reused for every numeric factorization with the same structure.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "core/math.h"

namespace tether::core {

// A pivot (a block's Schur complement) against the block's own diagonal, below which the matrix
// counts as singular. A dependent row's pivot is its own diagonal less what the rows before it
// explain of it: rounding, ~1e-16 of it. Against the whole matrix's largest entry at 1e-12 (as it
// was), a pinned crank driven round its circle (its pin and its drive hold its length twice)
// passed the test on 1 step in 50 000: that step's forces were wrong (|M Fc + B| = 5 with |B| ~ 10)
// and the drive opened by 2.8e-6 m for a step. Where rows are independent the pivot stays near its
// diagonal: 1e-9 leaves room for condition numbers of 1e9 (the benchmark's chains reach 7e4).
inline constexpr double kPivotTolerance = 1e-9;

class BlockLdlt {
 public:
  // Structure: n block rows and the off-diagonal pairs (a, b), a != b, each listed once.
  void analyze(int n, const std::vector<std::pair<int, int>>& edges);
  bool analyzed() const { return m_n >= 0; }
  int size() const { return m_n; }
  int fillBlocks() const { return static_cast<int>(m_offdiag.size()) - m_inputEdges; }
  // Where block row a comes in the elimination order (0 first).
  int position(int a) const { return m_pos[size_t(a)]; }

  // Values, in the caller's numbering: set every block to zero, then add.
  void setZero();
  Mat3& diag(int a) { return m_diag[size_t(m_pos[size_t(a)])]; }
  // Adds blk to block (a, b) of input edge e (and its transpose to (b, a)).
  void addOffDiag(int e, const Mat3& blk) {
    const auto [id, transposed] = m_edgeSlot[size_t(e)];
    if (transposed) m_offdiag[size_t(id)] += blk.transpose();
    else m_offdiag[size_t(id)] += blk;
  }

  // Numeric factorization of A + lambda s I (s: the largest diagonal entry). Returns false if a
  // pivot block is not positive definite to within relTol s_k, s_k the largest diagonal entry of
  // its own block row of A (a rank-deficient or indefinite matrix); with lambda > 0 it carries on
  // regardless. keep: keep a copy of A for multiply().
  bool factorize(double relTol = kPivotTolerance, double lambda = 0.0, bool keep = true);
  // Solves A x = b in place (x holds b on entry; 3 entries per block row, caller's numbering).
  void solve(Eigen::VectorXd& x) const;
  // The same for two right-hand sides at once, in one pass over the factors (the step's solve and
  // the held constraints' position correction, VelocityLevelEquation::splitHeldCorrection: a
  // second pass of its own cost the 1 000- and 10 000-link chains ~9 % of a step).
  void solve(Eigen::VectorXd& x, Eigen::VectorXd& x2) const;
  // y = A x with the values assembled before the last factorize() (which must have kept them).
  void multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const;
  // The largest diagonal entry of A (s in factorize), as of the last factorize().
  double largestDiagonal() const { return m_scale; }

 private:
  int m_n = -1;
  int m_inputEdges = 0;
  std::vector<int> m_order;                      // elimination position -> caller's index
  std::vector<int> m_pos;                        // caller's index -> elimination position
  std::vector<std::pair<int, bool>> m_edgeSlot;  // input edge -> (block id, stored transposed)
  // lower blocks: block id -> (row position j, column position k), j > k
  std::vector<std::pair<int, int>> m_blockRC;
  std::vector<int> m_colStart;                   // per position k: its blocks are ids colStart[k] .. colStart[k+1] - 1
  // per column k, the Schur-complement updates: target block (-1 - position for a diagonal)
  // and the two source blocks (L_jk, A_lk)
  std::vector<int> m_updStart;
  std::vector<std::array<int, 3>> m_updates;

  std::vector<Mat3> m_diag, m_offdiag;           // assembled values, then factors in place
  std::vector<Mat3> m_dinv;                      // D_k^-1
  std::vector<double> m_pivotTol;                // per block: relTol times its own largest diagonal entry
  std::vector<Mat3> m_lower;                     // L_jk = A_jk D_k^-1
  std::vector<Mat3> m_assembledDiag, m_assembledOff;  // copies for multiply()
  double m_scale = 0.0;
  mutable Eigen::VectorXd m_work;                     // solve() scratch
};

}  // namespace tether::core
