#include "core/constraint_assembly.h"

#include <map>

namespace tether::core {

namespace {

// A point pair: three rows D = p2 - p1, every slot a point slot (PointConstraintPart).
bool pointPair(const ConstraintRows& r) { return r.d == 3 && !r.customForce && r.pointPart.whole(r.nb); }

// The world arm r (from the centre of body b) of the point that r holds on b: a = -u r.
Vec3 armOn(const ConstraintRows& r, int b) {
  for (int s = 0; s < r.nb; ++s)
    if (r.body[s] == b) return -r.pointPart.sign(s) * r.pointPart.arm[s];
  return Vec3::Zero();
}

}  // namespace

void ConstraintAssembly::reset(const Model& model) {
  const size_t nc = model.constraints.size(), nb = model.bodies.size();
  m_rows.assign(nc, ConstraintRows{});
  m_rowOffset.assign(nc, -1);
  m_colOffset.assign(nc, -1);
  m_node.assign(nc, -1);
  m_rowBodies.assign(nc, {0, -1, -1});
  ++m_layout;
  m_bodies.clear();
  m_projectable.clear();
  m_nonholonomic.clear();
  m_rigidPair.clear();
  m_anyNonholonomic = false;
  for (const auto& c : model.constraints) {
    m_bodies.push_back(c->bodies());
    m_nonholonomic.push_back(c->nonholonomic());
    m_projectable.push_back(c->projectable() && !c->nonholonomic());
    m_rigidPair.push_back(c->rigidPointPair());
    m_anyNonholonomic = m_anyNonholonomic || c->nonholonomic();
  }
  m_reduced.assign(nc, 0);
  m_pairs.clear();
  m_pairAxis.clear();
  m_active.clear();
  m_active.reserve(nc);
  m_incidence.assign(nb, {});
  m_rowCount = m_colCount = 0;
  m_matrixBuilt = false;
}

void ConstraintAssembly::evaluate(const Model& model, const Params& params, const EvalContext& ctx) {
  if (m_rows.size() != model.constraints.size()) reset(model);
  m_kin = &ctx.bodies;
  m_matrixBuilt = false;

  int rows = 0, cols = 0;
  int count = 0;          // active so far
  bool changed = false;   // the active set or the bodies of one
  m_symmetric = true;
  for (size_t j = 0; j < model.constraints.size(); ++j) {
    m_rowOffset[j] = m_colOffset[j] = -1;
    // (written out for the at most two bodies: this runs for every constraint at every evaluation)
    const BodyList& bl = m_bodies[j];
    const bool present = params.constraintEnabled[j] && (bl.n < 1 || params.bodyActive[size_t(bl.b[0])]) &&
                         (bl.n < 2 || params.bodyActive[size_t(bl.b[1])]);
    if (!present) {
      if (m_node[j] >= 0) changed = true;
      m_node[j] = -1;
      m_rows[j].form = -1;
      continue;
    }
    ConstraintRows& r = m_rows[j];
    r.keepForm = m_holdForms && r.form >= 0;
    r.tau = params.tau[j];
    model.constraints[j]->evaluate(ctx, r);
    if (m_anyNonholonomic && m_nonholonomic[j]) {
      const bool feedback = model.settings.stabilization != StabilizationKind::Implicit;
      r.D = feedback && ctx.velocityIntegral && j < ctx.velocityIntegral->size() ? (*ctx.velocityIntegral)[j] : Vec3::Zero();
    }
    if (m_node[j] != count) changed = true;
    m_node[j] = count;
    if (size_t(count) < m_active.size()) m_active[size_t(count)] = static_cast<int>(j);
    else m_active.push_back(static_cast<int>(j));
    ++count;
    m_rowOffset[j] = rows;
    m_colOffset[j] = cols;
    rows += r.d;
    cols += r.f;
    m_symmetric = m_symmetric && !r.customForce;
    // the bodies a constraint acts on may change (a distance at zero length has none), and so
    // may its rows (a scalar point-to-nail held at its nail has three)
    const std::array<int, 3> bodies{r.nb + 4 * r.d, r.body[0], r.body[1]};
    if (bodies != m_rowBodies[j]) {
      m_rowBodies[j] = bodies;
      ++m_layout;
      changed = true;
    }
  }
  if (m_active.size() != size_t(count)) changed = true;
  m_active.resize(size_t(count));
  if (changed) {
    for (auto& inc : m_incidence) inc.clear();
    for (int j : m_active) {
      const ConstraintRows& r = m_rows[size_t(j)];
      for (int s = 0; s < r.nb; ++s) m_incidence[size_t(r.body[s])].push_back({j, s});
    }
    findRedundantPairs();
  }
  if (!m_pairs.empty() && reduceRedundantPairs()) {
    // (the reduced rows are 2 where they were 3: lay the rows out again)
    rows = cols = 0;
    for (int j : m_active) {
      m_rowOffset[size_t(j)] = rows;
      m_colOffset[size_t(j)] = cols;
      rows += m_rows[size_t(j)].d;
      cols += m_rows[size_t(j)].f;
    }
  }
  m_rowCount = rows;
  m_colCount = cols;
}

const Eigen::SparseMatrix<double>& ConstraintAssembly::matrix() const {
  if (m_matrixBuilt) return m_M;
  // M, block by block through the bodies the constraints share
  m_triplets.clear();
  for (size_t i = 0; i < m_incidence.size(); ++i) {
    const BodyKinematics& k = (*m_kin)[i];
    for (const auto& [kc, ks] : m_incidence[i]) {
      const ConstraintRows& rk = m_rows[size_t(kc)];
      const Mat33 gammaK = k.invMass * rk.jlBlock(ks);
      const Mat33 lambdaK = rk.jaBlock(ks) * k.invI;
      for (const auto& [jc, js] : m_incidence[i]) {
        const ConstraintRows& rj = m_rows[size_t(jc)];
        Mat33 G, H;
        forceMap(rj, js, G, H);
        const Mat33 block = gammaK * G + lambdaK * H;
        for (int a = 0; a < rk.d; ++a)
          for (int b = 0; b < rj.f; ++b)
            m_triplets.emplace_back(m_rowOffset[size_t(kc)] + a, m_colOffset[size_t(jc)] + b, block(a, b));
      }
    }
  }
  m_M.resize(m_rowCount, m_colCount);
  m_M.setFromTriplets(m_triplets.begin(), m_triplets.end());  // duplicates are summed
  m_matrixBuilt = true;
  return m_M;
}

void ConstraintAssembly::findRedundantPairs() {
  for (const auto& [first, second] : m_pairs)
    if (m_reduced[size_t(second)]) {
      m_reduced[size_t(second)] = 0;
      ++m_layout;  // (its rows are three again)
    }
  m_pairs.clear();
  m_pairAxis.clear();
  std::map<std::pair<int, int>, int> firstOn;  // moving bodies (sorted; -1: the world) -> point pair
  for (int j : m_active) {
    const ConstraintRows& r = m_rows[size_t(j)];
    if (!m_rigidPair[size_t(j)] || !pointPair(r)) continue;
    const int a = r.body[0], b = r.nb > 1 ? r.body[1] : -1;
    const auto [it, fresh] = firstOn.try_emplace({std::min(a, b), std::max(a, b)}, j);
    if (fresh || it->second < 0) continue;
    m_pairs.push_back({it->second, j});
    m_pairAxis.push_back(-1);
    it->second = -1;  // (a third point pair on the same bodies stays as it is)
  }
}

// Two point pairs whose points are fixed in the same bodies (two point-to-point joints between
// the same two bodies: a hinge made of two corners; two nails holding one body) are rigid about
// the line between their points: each body keeps the distance between its two points, so the
// motion along that line is held twice once both are met, and M = J W J^T is singular but for
// the joints' residues. Its factorization then either fails (the SVD takes the step) or passes
// and turns the residues' difference into forces of 1e7-1e12 N (see
// BlockLdltSolver::nearlySingular): plates hinged so lost 10-30 J of 125 J in a minute, in
// jumps, and the steps on the SVD cost 40 us instead of 6.
// So while both are met (every |D_i| <= kAssembledThreshold) the second keeps only its two rows across
// the line: with e the unit vector between the two points on the first pair's first body A, and
// P = [e1; e2] (e1, e2, e orthonormal) fixed in A (e1 = e x R_A k / |.|, k the axis of A least
// along e, chosen once),
//   D' = P D.
// P turns with A: P' = -P [w_A]x, P'' = P ([w_A]x [w_A]x - [alpha_A]x), so
//   D1' = P D1 + P (D x w_A),
//   D2' = P (D2 - 2 w_A x D1 + w_A x (w_A x D) + D x alpha_A),
// that is, the rows P J plus P [D]x on A's angular velocity, and c' = P (c - 2 w_A x D1 +
// w_A x (w_A x D)). The part of D along e is left to the first joint and the bodies' rigidity
// (second order in the gap: both of the second pair's points keep their distance to the first
// pair's point; a model whose two distances differ cannot meet both joints, and deviations()
// shows the rest). Not while they assemble: P D = 0 also holds with the second point across the
// first from its place (D = 2 e |e|), where an assembly from scattered parts can end, and a
// switch of rows mid-assembly scrambles tau's memory of the last step (StepMemory::rateOffset);
// scattered corner-pair plates then blew up or stopped 0.2 m open. Returns whether any pair is
// reduced now.
bool ConstraintAssembly::reduceRedundantPairs() {
  bool any = false;
  for (size_t i = 0; i < m_pairs.size(); ++i) {
    const auto [first, second] = m_pairs[i];
    ConstraintRows& r = m_rows[size_t(second)];
    const ConstraintRows& r1 = m_rows[size_t(first)];
    const int a = r1.body[0];
    Vec3 e = armOn(r, a) - armOn(r1, a);
    const double length = e.norm();
    // (two joints at one point hold it three times: left to the SVD)
    const bool reduce = m_node[size_t(first)] >= 0 && m_node[size_t(second)] >= 0 && length > 1e-6 &&
                        maxAbs(r.D, 3) <= kAssembledThreshold && maxAbs(r1.D, 3) <= kAssembledThreshold;
    if (bool(m_reduced[size_t(second)]) != reduce) {
      m_reduced[size_t(second)] = reduce;
      ++m_layout;
    }
    if (!reduce) continue;
    any = true;
    e /= length;
    const BodyKinematics& k = (*m_kin)[size_t(a)];
    int& axis = m_pairAxis[i];
    if (axis < 0) {
      // chosen once: e is fixed in A, and a choice remade every step would flip the basis
      // between two axes equally far from e (e along a plate's edge) and scramble D'
      const Vec3 eb = k.R.transpose() * e;
      axis = 0;
      for (int i = 1; i < 3; ++i)
        if (std::abs(eb(i)) < std::abs(eb(axis)) - 1e-6) axis = i;
    }
    const Vec3 e1 = e.cross(k.R.col(axis)).normalized(), e2 = e.cross(e1);
    Mat33 P = Mat33::Zero();
    P.row(0) = e1.transpose();
    P.row(1) = e2.transpose();
    for (int s = 0; s < r.nb; ++s) {
      r.Jl[s] = r.pointPart.sign(s) * P;
      r.Ja[s] = P * skew(r.pointPart.arm[s]);
      if (r.body[s] == a) r.Ja[s] += P * skew(r.D);
    }
    r.pointPart.unit[0] = r.pointPart.unit[1] = 0;
    r.c = P * Vec3(r.c - 2.0 * k.w.cross(r.D1) + k.w.cross(k.w.cross(r.D)));
    r.D1 = P * Vec3(r.D1 + r.D.cross(k.w));
    r.D = P * r.D;
    r.d = r.f = 2;
  }
  return any;
}

}  // namespace tether::core
