#include "core/constraint_assembly.h"

namespace tether::core {

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
  m_anyNonholonomic = false;
  for (const auto& c : model.constraints) {
    m_bodies.push_back(c->bodies());
    m_nonholonomic.push_back(c->nonholonomic());
    m_projectable.push_back(c->projectable() && !c->nonholonomic());
    m_anyNonholonomic = m_anyNonholonomic || c->nonholonomic();
  }
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
      continue;
    }
    ConstraintRows& r = m_rows[j];
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

}  // namespace tether::core
