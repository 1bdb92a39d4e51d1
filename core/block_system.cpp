#include "core/block_system.h"

#include <map>

namespace tether::core {

void BlockSystem::select(const std::vector<int>& constraints, const std::vector<ConstraintRows>& rows,
                         const std::vector<std::vector<std::pair<int, int>>>& incidence, long layout) {
  // (this runs at every solve, and the structure rarely changes)
  if (m_ldlt.analyzed() && layout == m_layout && m_nodeOf.size() == rows.size() && constraints == m_nodes) return;
  for (int j : m_nodes) m_nodeOf[size_t(j)] = -1;
  m_nodeOf.resize(rows.size(), -1);
  m_nodes = constraints;
  m_layout = layout;
  for (size_t n = 0; n < m_nodes.size(); ++n) m_nodeOf[size_t(m_nodes[n])] = static_cast<int>(n);
  std::map<std::pair<int, int>, int> edgeId;
  std::vector<std::pair<int, int>> edges;
  m_pairs.clear();
  for (size_t i = 0; i < incidence.size(); ++i) {
    const auto& inc = incidence[i];
    for (size_t x = 0; x < inc.size(); ++x)
      for (size_t y = x + 1; y < inc.size(); ++y) {
        const int a = m_nodeOf[size_t(inc[x].first)], b = m_nodeOf[size_t(inc[y].first)];
        if (a < 0 || b < 0) continue;
        const auto key = std::minmax(a, b);
        auto [it, fresh] = edgeId.emplace(key, static_cast<int>(edges.size()));
        if (fresh) edges.push_back(key);
        // store so that (a, b) matches the edge's orientation
        const bool swap = a != key.first;
        m_pairs.push_back({int(i), swap ? b : a, swap ? inc[y].second : inc[x].second, swap ? a : b,
                           swap ? inc[x].second : inc[y].second, it->second});
      }
  }
  m_ldlt.analyze(static_cast<int>(m_nodes.size()), edges);
}

void BlockSystem::assemble(const std::vector<ConstraintRows>& rows, const std::vector<BodyKinematics>& kin,
                           const std::vector<std::vector<std::pair<int, int>>>& incidence) {
  m_ldlt.setZero();
  // Per (constraint, slot) on body i: X = Ja I_i^-1, used by the diagonal block and by every
  // off-diagonal block of that body. Jl = +-1 (a point's Jacobian) turns Jl_a Jl_b^T / m into
  // a multiple of the identity.
  m_x.resize(2 * rows.size());
  for (size_t i = 0; i < incidence.size(); ++i) {
    const BodyKinematics& k = kin[i];
    for (const auto& [c, s] : incidence[i]) {
      const int node = m_nodeOf[size_t(c)];
      if (node < 0) continue;
      const ConstraintRows& r = rows[size_t(c)];
      Mat3& X = m_x[2 * size_t(c) + size_t(s)];
      Mat3& D = m_ldlt.diag(node);
      if (r.unit[s]) {  // a point's Jacobian: Jl = u 1, Ja = [a]x
        const Vec3 a = r.skewArm(s);
        X = skewTimes(a, k.invI);
        addTimesSkewTSymmetric(D, X, a);  // X Ja^T = Ja I^-1 Ja^T
        D.diagonal().array() += k.invMass;
      } else {
        X.noalias() = r.Ja[s] * k.invI;
        addSymmetricProduct(D, 1.0, X, r.Ja[s]);
        D.noalias() += k.invMass * r.Jl[s] * r.Jl[s].transpose();
      }
    }
  }
  for (const PairBlock& p : m_pairs) {
    const BodyKinematics& k = kin[size_t(p.body)];
    const ConstraintRows& ra = rows[size_t(m_nodes[size_t(p.a)])];
    const ConstraintRows& rb = rows[size_t(m_nodes[size_t(p.b)])];
    const Mat3& X = m_x[2 * size_t(m_nodes[size_t(p.a)]) + size_t(p.sa)];
    Mat3 blk;
    if (rb.unit[p.sb]) blk = timesSkewT(X, rb.skewArm(p.sb));
    else blk.noalias() = X * rb.Ja[p.sb].transpose();
    if (ra.unit[p.sa] && rb.unit[p.sb]) blk.diagonal().array() += k.invMass * double(ra.unit[p.sa] * rb.unit[p.sb]);
    else blk.noalias() += k.invMass * ra.Jl[p.sa] * rb.Jl[p.sb].transpose();
    m_ldlt.addOffDiag(p.edge, blk);
  }
  for (size_t n = 0; n < m_nodes.size(); ++n) {
    const int d = rows[size_t(m_nodes[n])].d;
    Mat3& D = m_ldlt.diag(static_cast<int>(n));
    const double pad = D(0, 0) > 0.0 ? D(0, 0) : 1.0;
    for (int a = d; a < 3; ++a) D(a, a) = pad;
  }
}

}  // namespace tether::core
