#include "core/block_system.h"

#include <algorithm>
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
        m_pairs.push_back({int(i), int(swap ? y : x), int(swap ? x : y), it->second});
      }
  }
  m_ldlt.analyze(static_cast<int>(m_nodes.size()), edges);
}

void BlockSystem::assemble(const std::vector<ConstraintRows>& rows, const std::vector<BodyKinematics>& kin,
                           const std::vector<std::vector<std::pair<int, int>>>& incidence) {
  m_ldlt.setZero();
  // Body by body (one pass over the rows and kinematics; m_pairs is grouped by body): per
  // (constraint, slot) on body i, X = Ja I_i^-1, used by the diagonal block and by every
  // off-diagonal block of that body. Jl = +-1 (a point's Jacobian) turns Jl_a Jl_b^T / m into
  // a multiple of the identity.
  bool padded = false;  // some constraint has fewer than 3 rows
  size_t p = 0;
  for (size_t i = 0; i < incidence.size(); ++i) {
    const BodyKinematics& k = kin[i];
    const auto& inc = incidence[i];
    if (m_xBody.size() < inc.size()) m_xBody.resize(inc.size());
    for (size_t x = 0; x < inc.size(); ++x) {
      const auto [c, s] = inc[x];
      const int node = m_nodeOf[size_t(c)];
      if (node < 0) continue;
      const ConstraintRows& r = rows[size_t(c)];
      Mat3& X = m_xBody[x];
      Mat3& D = m_ldlt.diag(node);
      padded |= r.d < 3;
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
    for (; p < m_pairs.size() && m_pairs[p].body == int(i); ++p) {
      const PairBlock& pb = m_pairs[p];
      const auto [ca, sa] = inc[size_t(pb.a)];
      const auto [cb, sb] = inc[size_t(pb.b)];
      const ConstraintRows& ra = rows[size_t(ca)];
      const ConstraintRows& rb = rows[size_t(cb)];
      const Mat3& X = m_xBody[size_t(pb.a)];
      Mat3 blk;
      if (rb.unit[sb]) blk = timesSkewT(X, rb.skewArm(sb));
      else blk.noalias() = X * rb.Ja[sb].transpose();
      if (ra.unit[sa] && rb.unit[sb]) blk.diagonal().array() += k.invMass * double(ra.unit[sa] * rb.unit[sb]);
      else blk.noalias() += k.invMass * ra.jlBlock(sa) * rb.jlBlock(sb).transpose();
      m_ldlt.addOffDiag(pb.edge, blk);
    }
  }
  if (!padded) return;
  for (size_t n = 0; n < m_nodes.size(); ++n) {
    const int d = rows[size_t(m_nodes[n])].d;
    Mat3& D = m_ldlt.diag(static_cast<int>(n));
    const double pad = D(0, 0) > 0.0 ? D(0, 0) : 1.0;
    for (int a = d; a < 3; ++a) D(a, a) = pad;
  }
}

}  // namespace tether::core
