#include "core/constraint_system.h"

#include <Eigen/SVD>
#include <algorithm>
#include <limits>

namespace tether::core {

namespace {

// Force map of a constraint on its slot-s body: G (3 x f) and H (3 x f).
void forceMap(const ConstraintRows& r, int s, Mat33& G, Mat33& H) {
  if (r.customForce) {
    G = r.G[s];
    H = r.H[s];
  } else {
    G = r.Jl[s].transpose();
    H = r.Ja[s].transpose();
  }
}

}  // namespace

void ConstraintSystem::reset(const Model& model) {
  const size_t nc = model.constraints.size(), nb = model.bodies.size();
  m_rows.assign(nc, ConstraintRows{});
  m_rowOffset.assign(nc, -1);
  m_colOffset.assign(nc, -1);
  m_active.clear();
  m_active.reserve(nc);
  m_incidence.assign(nb, {});
  m_a0.assign(nb, Vec3::Zero());
  m_alpha0.assign(nb, Vec3::Zero());
  m_report = {};
}

void ConstraintSystem::assemble(const Model& model, const Params& params, const EvalContext& ctx,
                                const std::vector<Vec3>& Fext, const std::vector<Vec3>& Text) {
  if (m_rows.size() != model.constraints.size()) reset(model);
  m_active.clear();
  for (auto& inc : m_incidence) inc.clear();

  // free accelerations of each body
  for (size_t i = 0; i < ctx.bodies.size(); ++i) {
    const BodyKinematics& k = ctx.bodies[i];
    m_a0[i] = k.invMass * Fext[i];
    m_alpha0[i] = k.invI * (Text[i] + k.L.cross(k.w));
  }

  // evaluate the active constraints and lay out their rows and columns
  int rows = 0, cols = 0;
  for (size_t j = 0; j < model.constraints.size(); ++j) {
    m_rowOffset[j] = m_colOffset[j] = -1;
    if (!params.constraintEnabled[j]) continue;
    const Constraint& c = *model.constraints[j];
    bool present = true;
    for (int b : c.bodies()) present = present && params.bodyActive[size_t(b)];
    if (!present) continue;
    c.evaluate(ctx, m_rows[j]);
    m_active.push_back(static_cast<int>(j));
    m_rowOffset[j] = rows;
    m_colOffset[j] = cols;
    rows += m_rows[j].d;
    cols += m_rows[j].f;
    for (int s = 0; s < m_rows[j].nb; ++s) m_incidence[size_t(m_rows[j].body[s])].push_back({int(j), s});
  }

  // B
  m_B.setZero(rows);
  for (int j : m_active) {
    const ConstraintRows& r = m_rows[size_t(j)];
    const double tau = params.tau[size_t(j)];
    Vec3 b = r.c + (2.0 / tau) * r.D1 + r.D / (tau * tau);
    for (int s = 0; s < r.nb; ++s) b += r.Jl[s] * m_a0[size_t(r.body[s])] + r.Ja[s] * m_alpha0[size_t(r.body[s])];
    m_B.segment(m_rowOffset[size_t(j)], r.d) = b.head(r.d);
  }

  // M, block by block through the bodies the constraints share
  m_triplets.clear();
  for (size_t i = 0; i < m_incidence.size(); ++i) {
    const BodyKinematics& k = ctx.bodies[i];
    for (const auto& [kc, ks] : m_incidence[i]) {
      const ConstraintRows& rk = m_rows[size_t(kc)];
      const Mat33 gammaK = k.invMass * rk.Jl[ks];
      const Mat33 lambdaK = rk.Ja[ks] * k.invI;
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
  m_M.resize(rows, cols);
  m_M.setFromTriplets(m_triplets.begin(), m_triplets.end());  // duplicates are summed
  m_report.rows = rows;
  m_report.cols = cols;
}

void ConstraintSystem::solveDenseSvd() {
  const int rows = m_report.rows, cols = m_report.cols;
  m_fc.setZero(cols);
  m_report.rank = 0;
  m_report.bNorm = m_B.norm();
  if (rows == 0 || cols == 0) {
    m_report.residual = m_report.bNorm;
    return;
  }
  m_dense = Eigen::MatrixXd(m_M);
  // a non-finite system (a diverging state) must not reach the SVD, which is undefined on
  // NaN input: hand NaN forces on, so that the step loop sees the divergence and stops
  if (!m_dense.allFinite() || !m_B.allFinite()) {
    m_fc.setConstant(cols, std::numeric_limits<double>::quiet_NaN());
    m_report.residual = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd;
  if (rows > 16 || cols > 16) {
    Eigen::BDCSVD<Eigen::MatrixXd> big(m_dense, Eigen::ComputeThinU | Eigen::ComputeThinV);
    big.setThreshold(kRankTolerance);
    m_fc = big.solve(-m_B);
    m_report.rank = static_cast<int>(big.rank());
  } else {
    svd.compute(m_dense, Eigen::ComputeThinU | Eigen::ComputeThinV);
    svd.setThreshold(kRankTolerance);
    m_fc = svd.solve(-m_B);
    m_report.rank = static_cast<int>(svd.rank());
  }
  m_report.residual = (m_M * m_fc + m_B).norm();
}

void ConstraintSystem::applyForces(std::vector<Vec3>& F, std::vector<Vec3>& T) const {
  for (int j : m_active) {
    const ConstraintRows& r = m_rows[size_t(j)];
    for (int s = 0; s < r.nb; ++s) {
      Vec3 f, t;
      constraintForce(j, s, f, t);
      F[size_t(r.body[s])] += f;
      T[size_t(r.body[s])] += t;
    }
  }
}

void ConstraintSystem::constraintForce(int j, int s, Vec3& force, Vec3& torque) const {
  force.setZero();
  torque.setZero();
  const ConstraintRows& r = m_rows[size_t(j)];
  if (m_colOffset[size_t(j)] < 0 || s >= r.nb || m_fc.size() == 0) return;
  Mat33 G, H;
  forceMap(r, s, G, H);
  Vec3 fc = Vec3::Zero();
  fc.head(r.f) = m_fc.segment(m_colOffset[size_t(j)], r.f);
  force = G * fc;
  torque = H * fc;
}

ConflictReport ConstraintSystem::conflicts() const {
  ConflictReport out;
  const int rows = m_report.rows;
  if (rows == 0) return out;
  const Eigen::MatrixXd dense(m_M);
  if (!dense.allFinite() || !m_B.allFinite()) return out;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(dense, Eigen::ComputeFullU);
  svd.setThreshold(kRankTolerance);
  const int rank = static_cast<int>(svd.rank());
  auto owner = [&](int row) {
    for (int j : m_active)
      if (row >= m_rowOffset[size_t(j)] && row < m_rowOffset[size_t(j)] + m_rows[size_t(j)].d) return j;
    return -1;
  };
  // rows that take part in a left null vector of M are linearly dependent on others
  if (rank < rows) {
    const Eigen::MatrixXd Un = svd.matrixU().rightCols(rows - rank);
    for (int r = 0; r < rows; ++r)
      if (Un.row(r).norm() > 1e-6) {
        const int j = owner(r);
        if (std::find(out.redundant.begin(), out.redundant.end(), j) == out.redundant.end()) out.redundant.push_back(j);
      }
  }
  // equations left unsatisfied by the least-squares solution
  const Eigen::VectorXd res = m_M * m_fc + m_B;
  const double tol = 1e-8 * std::max(1.0, m_B.cwiseAbs().maxCoeff());
  for (int r = 0; r < rows; ++r)
    if (std::abs(res(r)) > tol) {
      const int j = owner(r);
      if (std::find(out.conflicting.begin(), out.conflicting.end(), j) == out.conflicting.end())
        out.conflicting.push_back(j);
    }
  return out;
}

}  // namespace tether::core
