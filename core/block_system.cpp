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
  m_slots.clear();
  m_slotStart.assign(incidence.size() + 1, 0);
  for (size_t i = 0; i < incidence.size(); ++i) {
    // the body's selected (constraint, slot) entries, contiguous
    const int start = m_slotStart[i] = static_cast<int>(m_slots.size());
    for (const auto& [c, s] : incidence[i])
      if (m_nodeOf[size_t(c)] >= 0) m_slots.push_back({c, s, m_nodeOf[size_t(c)]});
    const int n = static_cast<int>(m_slots.size()) - start;
    for (int x = 0; x < n; ++x)
      for (int y = x + 1; y < n; ++y) {
        const int a = m_slots[size_t(start + x)].node, b = m_slots[size_t(start + y)].node;
        const auto key = std::minmax(a, b);
        auto [it, fresh] = edgeId.emplace(key, static_cast<int>(edges.size()));
        if (fresh) edges.push_back(key);
        // store so that (a, b) matches the edge's orientation
        const bool swap = a != key.first;
        m_pairs.push_back({int(i), swap ? y : x, swap ? x : y, it->second});
      }
  }
  m_slotStart[incidence.size()] = static_cast<int>(m_slots.size());
  m_ldlt.analyze(static_cast<int>(m_nodes.size()), edges);
}

void BlockSystem::assemble(const std::vector<ConstraintRows>& rows, const std::vector<BodyKinematics>& kin) {
  m_ldlt.setZero();
  // Body by body (one pass over the rows and kinematics; m_slots and m_pairs are grouped by
  // body): per selected (constraint, slot) on body i, X = Ja I_i^-1, used by the diagonal block
  // and by every off-diagonal block of that body. Jl = +-1 (a point's Jacobian) turns
  // Jl_a Jl_b^T / m into a multiple of the identity.
  bool padded = false;  // some constraint has fewer than 3 rows
  size_t p = 0;
  const size_t bodies = m_slotStart.empty() ? 0 : m_slotStart.size() - 1;
  for (size_t i = 0; i < bodies; ++i) {
    const int start = m_slotStart[i], n = m_slotStart[i + 1] - start;
    if (n == 0) continue;
    const BodyKinematics& k = kin[i];
    if (m_xBody.size() < size_t(n)) m_xBody.resize(size_t(n));
    for (int x = 0; x < n; ++x) {
      const Slot& sl = m_slots[size_t(start + x)];
      const ConstraintRows& r = rows[size_t(sl.constraint)];
      const int s = sl.slot;
      Mat3& X = m_xBody[size_t(x)];
      Mat3& D = m_ldlt.diag(sl.node);
      padded |= r.d < 3;
      if (r.pointPart.has(s)) {  // a point's Jacobian: Jl = u 1, Ja = [a]x
        const Vec3 a = r.pointPart.skewArm(s);
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
      const Slot& a = m_slots[size_t(start + pb.a)];
      const Slot& b = m_slots[size_t(start + pb.b)];
      const ConstraintRows& ra = rows[size_t(a.constraint)];
      const ConstraintRows& rb = rows[size_t(b.constraint)];
      const Mat3& X = m_xBody[size_t(pb.a)];
      Mat3 blk;
      if (rb.pointPart.has(b.slot)) blk = timesSkewT(X, rb.pointPart.skewArm(b.slot));
      else blk.noalias() = X * rb.Ja[b.slot].transpose();
      if (ra.pointPart.has(a.slot) && rb.pointPart.has(b.slot))
        blk.diagonal().array() += k.invMass * double(ra.pointPart.unit[a.slot] * rb.pointPart.unit[b.slot]);
      else blk.noalias() += k.invMass * ra.jlBlock(a.slot) * rb.jlBlock(b.slot).transpose();
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
