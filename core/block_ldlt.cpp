#include "core/block_ldlt.h"

#include <Eigen/QR>
#include <algorithm>
#include <set>
#include <tuple>

namespace tether::core {

void BlockLdlt::analyze(int n, const std::vector<std::pair<int, int>>& edges) {
  m_n = n;
  m_inputEdges = static_cast<int>(edges.size());
  // adjacency of the block graph
  std::vector<std::vector<int>> adj(static_cast<size_t>(n));
  for (const auto& [a, b] : edges) {
    adj[size_t(a)].push_back(b);
    adj[size_t(b)].push_back(a);
  }
  for (auto& v : adj) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }

  // greedy minimum fill on the elimination graph (ties: fewer neighbours, then the node whose
  // score is oldest, then lower index): each step eliminates a node whose neighbours are already
  // (nearly) a clique. The constraint graph of an acyclic mechanism is chordal, so a node that
  // adds no fill always exists and the whole factorization adds none; minimum degree alone does
  // not guarantee that. The oldest score first takes turns between the branches that are
  // ready: a chain is eliminated from both ends at once, so that consecutive columns of the
  // factorization and of the solves do not depend on each other, and the processor overlaps
  // them (each column's pivot waits for the one before it along its branch; one branch the
  // length of the chain measured 2 % slower on the 1 000-link chain).
  m_order.clear();
  m_pos.assign(size_t(n), -1);
  std::vector<std::vector<int>> elim = adj;  // the elimination graph, shrinking
  auto connected = [&](int u, int w) {
    const auto& eu = elim[size_t(u)];
    return std::binary_search(eu.begin(), eu.end(), w);
  };
  auto fillOf = [&](int k) {
    const auto& nb = elim[size_t(k)];
    size_t missing = 0;
    for (size_t x = 0; x < nb.size(); ++x)
      for (size_t y = x + 1; y < nb.size(); ++y) missing += connected(nb[x], nb[y]) ? 0 : 1;
    return missing;
  };
  using Key = std::tuple<size_t, size_t, int, int>;  // (fill, degree, step of the score, node)
  std::set<Key> queue;
  std::vector<Key> key(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) queue.insert(key[size_t(i)] = {fillOf(i), elim[size_t(i)].size(), 0, i});
  std::vector<std::vector<int>> later(static_cast<size_t>(n));
  std::vector<int> touched;
  std::vector<char> mark(static_cast<size_t>(n), 0);
  while (!queue.empty()) {
    const int k = std::get<3>(*queue.begin());
    queue.erase(queue.begin());
    m_pos[size_t(k)] = static_cast<int>(m_order.size());
    m_order.push_back(k);
    const bool simplicial = std::get<0>(key[size_t(k)]) == 0;  // its neighbours are a clique already
    const std::vector<int> nb = elim[size_t(k)];
    later[size_t(k)] = nb;
    // eliminating k joins its neighbours into a clique
    for (int u : nb) {
      auto& eu = elim[size_t(u)];
      eu.erase(std::find(eu.begin(), eu.end(), k));
      if (simplicial) continue;
      for (int w : nb)
        if (w != u && !std::binary_search(eu.begin(), eu.end(), w)) eu.insert(std::lower_bound(eu.begin(), eu.end(), w), w);
    }
    elim[size_t(k)].clear();
    // the fill scores that can change: the neighbours and their neighbours
    touched.clear();
    for (int u : nb) {
      if (!mark[size_t(u)]) { mark[size_t(u)] = 1; touched.push_back(u); }
      for (int w : elim[size_t(u)])
        if (!mark[size_t(w)]) { mark[size_t(w)] = 1; touched.push_back(w); }
    }
    for (int u : touched) {
      mark[size_t(u)] = 0;
      if (m_pos[size_t(u)] >= 0) continue;
      // a simplicial node stays simplicial: eliminating a neighbour k leaves it the neighbours
      // k had (a clique now), eliminating another node only adds edges. So its fill stays 0
      // without the quadratic count (a hub body's constraints are one big clique)
      const size_t fill = std::get<0>(key[size_t(u)]) == 0 ? 0 : fillOf(u);
      const Key fresh{fill, elim[size_t(u)].size(), static_cast<int>(m_order.size()), u};
      if (std::get<0>(fresh) == std::get<0>(key[size_t(u)]) && std::get<1>(fresh) == std::get<1>(key[size_t(u)])) continue;
      queue.erase(key[size_t(u)]);
      queue.insert(key[size_t(u)] = fresh);
    }
  }

  // lower blocks per column position k: rows j = positions of later neighbours, sorted
  m_blockRC.clear();
  m_colStart.assign(size_t(n) + 1, 0);
  std::vector<std::vector<std::pair<int, int>>> colRows(static_cast<size_t>(n));  // (row position, block id)
  for (int k = 0; k < n; ++k) {
    const int node = m_order[size_t(k)];
    std::vector<int> rows;
    for (int u : later[size_t(node)]) rows.push_back(m_pos[size_t(u)]);
    std::sort(rows.begin(), rows.end());
    m_colStart[size_t(k)] = static_cast<int>(m_blockRC.size());
    for (int j : rows) {
      const int id = static_cast<int>(m_blockRC.size());
      m_blockRC.push_back({j, k});
      colRows[size_t(k)].push_back({j, id});
    }
  }
  m_colStart[size_t(n)] = static_cast<int>(m_blockRC.size());
  // block id of (j, k), j > k positions: a binary search, as a column's rows are sorted (a
  // column of a hub's clique holds hundreds of blocks, and the update lists below look up
  // every pair of them)
  auto findBlock = [&](int j, int k) {
    const auto& col = colRows[size_t(k)];
    const auto it = std::lower_bound(col.begin(), col.end(), j, [](const std::pair<int, int>& e, int r) { return e.first < r; });
    return it != col.end() && it->first == j ? it->second : -1;
  };

  // input edges -> stored blocks
  m_edgeSlot.clear();
  for (const auto& [a, b] : edges) {
    const int pa = m_pos[size_t(a)], pb = m_pos[size_t(b)];
    // block (a, b) is stored as (row, col) = (max, min): transposed when a is the column
    m_edgeSlot.push_back(pa > pb ? std::pair{findBlock(pa, pb), false} : std::pair{findBlock(pb, pa), true});
  }

  // Schur-complement updates of column k: for rows j >= l among its blocks,
  //   A_jl -= L_jk A_lk^T   (A_jj -= L_jk A_jk^T on the diagonal)
  m_updStart.assign(size_t(n) + 1, 0);
  m_updates.clear();
  size_t total = 0;
  for (int k = 0; k < n; ++k) total += colRows[size_t(k)].size() * (colRows[size_t(k)].size() + 1) / 2;
  m_updates.reserve(total);
  for (int k = 0; k < n; ++k) {
    m_updStart[size_t(k)] = static_cast<int>(m_updates.size());
    const auto& cr = colRows[size_t(k)];
    for (size_t x = 0; x < cr.size(); ++x)
      for (size_t y = 0; y <= x; ++y) {
        const auto [j, idj] = cr[x];
        const auto [l, idl] = cr[y];
        const int target = j == l ? -1 - j : findBlock(j, l);
        m_updates.push_back({target, idj, idl});
      }
  }
  m_updStart[size_t(n)] = static_cast<int>(m_updates.size());

  m_diag.assign(size_t(n), Mat3::Zero());
  m_offdiag.assign(m_blockRC.size(), Mat3::Zero());
  m_dinv.assign(size_t(n), Mat3::Zero());
  m_lower.assign(m_blockRC.size(), Mat3::Zero());
}

void BlockLdlt::setZero() {
  for (Mat3& m : m_diag) m.setZero();
  for (Mat3& m : m_offdiag) m.setZero();
}


bool BlockLdlt::factorize(double relTol, double lambda, bool keep) {
  if (keep) {
    m_assembledDiag = m_diag;
    m_assembledOff = m_offdiag;
  }
  double scale = 0.0;
  m_pivotTol.resize(m_diag.size());
  for (size_t k = 0; k < m_diag.size(); ++k) {
    const double own = m_diag[k].diagonal().maxCoeff();
    scale = std::max(scale, own);
    m_pivotTol[k] = relTol * own;
  }
  m_scale = scale;
  if (lambda > 0.0)
    for (Mat3& d : m_diag) d.diagonal().array() += lambda * scale;
  bool ok = true;
  for (int k = 0; k < m_n; ++k) {
    if (!invertSpd(m_diag[size_t(k)], m_pivotTol[size_t(k)], m_dinv[size_t(k)])) {
      ok = false;
      if (lambda <= 0.0) break;
      m_dinv[size_t(k)] = m_diag[size_t(k)].completeOrthogonalDecomposition().pseudoInverse();
    }
    for (int id = m_colStart[size_t(k)]; id < m_colStart[size_t(k) + 1]; ++id)
      m_lower[size_t(id)].noalias() = m_offdiag[size_t(id)] * m_dinv[size_t(k)];
    for (int u = m_updStart[size_t(k)]; u < m_updStart[size_t(k) + 1]; ++u) {
      const auto& [target, idj, idl] = m_updates[size_t(u)];
      // (on the diagonal j = l: L_jk A_jk^T = A_jk D_k^-1 A_jk^T is symmetric)
      if (target < 0) addSymmetricProduct(m_diag[size_t(-1 - target)], -1.0, m_lower[size_t(idj)], m_offdiag[size_t(idl)]);
      else m_offdiag[size_t(target)].noalias() -= m_lower[size_t(idj)] * m_offdiag[size_t(idl)].transpose();
    }
  }
  return ok;
}

void BlockLdlt::solve(Eigen::VectorXd& x) const {
  // (the blocks of column k are ids colStart[k] .. colStart[k + 1] - 1: analyze() numbers them so)
  using V = Eigen::Map<Vec3>;
  Eigen::VectorXd& work = m_work;
  work.resize(3 * m_n);
  double* y = work.data();
  double* xd = x.data();
  // permute into elimination order
  for (int k = 0; k < m_n; ++k) V(y + 3 * k) = V(xd + 3 * m_order[size_t(k)]);
  // forward, L z = y (unit lower block triangular), with the diagonal D^-1 z folded in: when
  // column k is reached every update of z_k is done
  for (int k = 0; k < m_n; ++k) {
    const Vec3 z = V(y + 3 * k);
    for (int id = m_colStart[size_t(k)]; id < m_colStart[size_t(k) + 1]; ++id)
      V(y + 3 * m_blockRC[size_t(id)].first).noalias() -= m_lower[size_t(id)] * z;
    V(y + 3 * k).noalias() = m_dinv[size_t(k)] * z;
  }
  // backward, L^T x = D^-1 z, each block row written out to the caller's numbering when done
  for (int k = m_n - 1; k >= 0; --k) {
    Vec3 v = V(y + 3 * k);
    for (int id = m_colStart[size_t(k)]; id < m_colStart[size_t(k) + 1]; ++id)
      v.noalias() -= m_lower[size_t(id)].transpose() * V(y + 3 * m_blockRC[size_t(id)].first);
    V(y + 3 * k) = v;
    V(xd + 3 * m_order[size_t(k)]) = v;
  }
}

void BlockLdlt::solve(Eigen::VectorXd& x, Eigen::VectorXd& x2) const {
  // (as solve(x), with the two right-hand sides side by side: each block of L is read once)
  using V = Eigen::Map<Vec3>;
  using Two = Eigen::Matrix<double, 3, 2>;
  m_work.resize(6 * m_n);
  double* y = m_work.data();  // node k's two columns at 6 k
  const auto at = [y](int k) { return Eigen::Map<Two>(y + 6 * k); };
  for (int k = 0; k < m_n; ++k) {
    const int o = 3 * m_order[size_t(k)];
    at(k).col(0) = V(x.data() + o);
    at(k).col(1) = V(x2.data() + o);
  }
  for (int k = 0; k < m_n; ++k) {
    const Two z = at(k);
    for (int id = m_colStart[size_t(k)]; id < m_colStart[size_t(k) + 1]; ++id)
      at(m_blockRC[size_t(id)].first).noalias() -= m_lower[size_t(id)] * z;
    at(k).noalias() = m_dinv[size_t(k)] * z;
  }
  for (int k = m_n - 1; k >= 0; --k) {
    Two v = at(k);
    for (int id = m_colStart[size_t(k)]; id < m_colStart[size_t(k) + 1]; ++id)
      v.noalias() -= m_lower[size_t(id)].transpose() * at(m_blockRC[size_t(id)].first);
    at(k) = v;
    const int o = 3 * m_order[size_t(k)];
    V(x.data() + o) = v.col(0);
    V(x2.data() + o) = v.col(1);
  }
}

void BlockLdlt::multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  y.setZero(3 * m_n);
  const auto& D = m_assembledDiag;
  const auto& O = m_assembledOff;
  for (int k = 0; k < m_n; ++k) {
    const int a = m_order[size_t(k)];
    y.segment<3>(3 * a) += D[size_t(k)] * x.segment<3>(3 * a);
  }
  for (size_t id = 0; id < O.size(); ++id) {
    const int a = m_order[size_t(m_blockRC[id].first)], b = m_order[size_t(m_blockRC[id].second)];
    y.segment<3>(3 * a) += O[id] * x.segment<3>(3 * b);
    y.segment<3>(3 * b) += O[id].transpose() * x.segment<3>(3 * a);
  }
}

}  // namespace tether::core
