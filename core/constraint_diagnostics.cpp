#include "core/constraint_diagnostics.h"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>

namespace tether::core {

ConflictReport analyseConflicts(const ConstraintAssembly& a, const Eigen::VectorXd& B, const SolveReport& report) {
  const std::vector<ConstraintRows>& rowsOf = a.rows();
  const std::vector<int>& rowOffset = a.rowOffset();
  const std::vector<int>& colOffset = a.colOffset();
  ConflictReport out;
  const int rows = report.rows;
  if (rows == 0) return out;
  // A fast path that factored M (or M M^T) without help proved full row rank: no row depends on
  // the others and every equation is met. No SVD needed (3 000 pendulums: 9 000 rows).
  if (report.rank == rows && (report.path == SolvePath::BlockLdlt || report.path == SolvePath::SparseLeastSquares)) {
    out.rank = rows;
    return out;
  }
  const Eigen::SparseMatrix<double>& M = a.matrix();
  // (the system last solved: B, M and the report must be of the rows now assembled; a caller
  // in the middle of a step, Simulation::runaway, may find them from another evaluation)
  if (rows != a.rowCount() || B.size() != rows || M.rows() != rows || M.cols() != a.colCount()) return out;
  if (!B.allFinite()) return out;
  // M is block diagonal over the groups of constraints joined through shared moving bodies: the
  // rank analysis (a full SVD, cubic in the size) runs per group, so that many small
  // independent mechanisms cost linear time and memory
  std::vector<int> parent(rowsOf.size());
  for (size_t j = 0; j < parent.size(); ++j) parent[j] = int(j);
  auto root = [&](int j) {
    while (parent[size_t(j)] != j) j = parent[size_t(j)] = parent[size_t(parent[size_t(j)])];
    return j;
  };
  for (size_t i = 0; i < a.incidence().size(); ++i) {
    if (a.kinematics()[i].invMass == 0.0) continue;  // a fixed body joins nothing: its blocks of M are 0
    const auto& body = a.incidence()[i];
    for (size_t k = 1; k < body.size(); ++k) parent[size_t(root(body[k].first))] = root(body[0].first);
  }
  std::vector<std::vector<int>> groups(rowsOf.size());
  for (int j : a.active()) groups[size_t(root(j))].push_back(j);

  std::vector<int> localRow(size_t(rows), -1);
  auto add = [](std::vector<int>& v, int j) {
    if (std::find(v.begin(), v.end(), j) == v.end()) v.push_back(j);
  };
  for (const std::vector<int>& group : groups) {
    if (group.empty()) continue;
    std::vector<int> rowOwner, colIndex;  // local row -> constraint; local col -> global col
    for (int j : group) {
      for (int a = 0; a < rowsOf[size_t(j)].d; ++a) {
        localRow[size_t(rowOffset[size_t(j)] + a)] = int(rowOwner.size());
        rowOwner.push_back(j);
      }
      for (int b = 0; b < rowsOf[size_t(j)].f; ++b) colIndex.push_back(colOffset[size_t(j)] + b);
    }
    const int n = int(rowOwner.size());
    if (n > kRankAnalysisLimit) {
      out.unanalysedRows += n;
      continue;
    }
    Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n, Eigen::Index(colIndex.size()));
    Eigen::VectorXd b(n);
    for (size_t c = 0; c < colIndex.size(); ++c)
      for (Eigen::SparseMatrix<double>::InnerIterator it(M, colIndex[c]); it; ++it)
        dense(localRow[size_t(it.row())], Eigen::Index(c)) = it.value();
    for (int j : group)
      for (int a = 0; a < rowsOf[size_t(j)].d; ++a)
        b(localRow[size_t(rowOffset[size_t(j)] + a)]) = B(rowOffset[size_t(j)] + a);
    if (!dense.allFinite()) continue;
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(dense, Eigen::ComputeFullU | Eigen::ComputeFullV);
    // (a singular value below kRedundancyTolerance of the largest counts as zero here, looser than
    // the solve's threshold: a gyroscope's axle welded to its wheel by a hinge and by a point
    // pair 2.5 cm off stays near the pose closest to meeting both, where M's smallest singular
    // value hovers at 4e-10 to 9e-10 of the largest, the next at 1.6e-7; at the solve's 1e-10 the
    // run's end analysis found it neither redundant nor conflicting at some ends and both at
    // others)
    svd.setThreshold(kRedundancyTolerance);
    const int rank = static_cast<int>(svd.rank());
    out.rank += rank;
    // rows that take part in a left null vector of M are linearly dependent on others
    if (rank < n) {
      const Eigen::MatrixXd Un = svd.matrixU().rightCols(n - rank);
      for (int r = 0; r < n; ++r)
        if (Un.row(r).norm() > 1e-6) add(out.redundant, rowOwner[size_t(r)]);
    }
    // equations left unsatisfied by the least-squares solution
    const Eigen::VectorXd fc = svd.solve(-b);
    const Eigen::VectorXd res = dense * fc + b;
    const double tol = missTolerance(b);
    for (int r = 0; r < n; ++r)
      if (std::abs(res(r)) > tol) add(out.conflicting, rowOwner[size_t(r)]);
  }
  std::sort(out.redundant.begin(), out.redundant.end());
  std::sort(out.conflicting.begin(), out.conflicting.end());
  return out;
}

}  // namespace tether::core
