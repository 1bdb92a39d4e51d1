#include "core/constraint_system.h"

#include <Eigen/SVD>
#include <Eigen/SparseCholesky>
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
    G = r.jlBlock(s).transpose();
    H = r.jaBlock(s).transpose();
  }
}

constexpr double kRegularization = 1e-10;

// A held point pair (point-to-point, -nail, -path between unit slots, assembled), whose target
// includes the arm-rotation term (see correctHeldForArmRotation).
bool heldPointPair(const ConstraintRows& r, int j, const std::vector<std::uint8_t>& held) {
  if (size_t(j) >= held.size() || !held[size_t(j)] || r.d != 3 || r.customForce || r.nb == 0) return false;
  return r.unit[0] && (r.nb == 1 || r.unit[1]);
}

// A held constraint's D1*: D cancelled at the given rate (see velocityTarget).
inline Vec3 heldTarget(const Vec3& D, double rate) { return D * -rate; }

// The rate D1* a velocity-level step aims for (see ConstraintSystem::assemble).
// g = J_a I^-1 (L x w): the part of a row's rate change that comes from the bodies' inertia
// turning with them (the gyroscopic term; see alpha0 in formEquation and velocityTarget).
Vec3 inertiaTurn(const ConstraintRows& r, const std::vector<BodyKinematics>& kin) {
  Vec3 g = Vec3::Zero();
  for (int s = 0; s < r.nb; ++s) {
    const BodyKinematics& k = kin[size_t(r.body[s])];
    g += r.ja(s, Vec3(k.invI * k.L.cross(k.w)));
  }
  return g;
}

Vec3 velocityTarget(const ConstraintRows& r, int j, double tau, const Stabilization& stab, const Vec3& g) {
  const double h = stab.h;
  const bool held = stab.assembled && size_t(j) < stab.assembled->size() && (*stab.assembled)[size_t(j)];
  if (held) {
    // Held: aim to cancel D within a step (D1* = -D/h, Hong et al.), over the scene's step dt
    // even when this step is shorter (a substep, an event or the end of a run between grid
    // points): -D/h of a 1e-7 m residue over a 1e-8 s step threw the links of a chain at 10 m/s.
    // All of D, the part within the projection tolerance too: left alone, that part wandered
    // freely within the band until projection snapped it back, and the snap (a move of the
    // positions alone, against the load the joint carries) added energy every time: a chain
    // yanked by a stiff spring gained 11 % in 20 s at 16 us steps (0.2 % with all of D cancelled;
    // the benchmark chains' joints close to 6e-9 m instead of 1e-7).
    // Over the step D moves by h D1' + h^2/2 c (the rows turn with the bodies; see
    // correctHeldForArmRotation): the target takes -h/2 c at the start velocities, so that the
    // step leaves D at O(h^3) instead of h^2/2 c. Without it a box rocking on a corner held by
    // point-on-plane drifted by h^2/2 c every step; projection put it back by moving the box
    // toward the plane, and the box lost 60 % of its energy in a minute.
    return heldTarget(r.D, 1.0 / std::max(h, stab.hNominal)) - (0.5 * h) * r.c;
  }
  // While a constraint assembles, its rows turn with the bodies and the bodies' inertia turns
  // too. With T = J u_end + e the rate the solve gives it at the end of the step (u_end: the new
  // velocities, w = I(q')^-1 L' at the new orientation; see alpha0 in formEquation), the bodies
  // move over the step with the midpoint rate, h g / 2 behind it (g = J_a I^-1 (L x w), the
  // row's share of the inertia's turn; see stepSemiImplicitEuler), and the rows turn by h c
  // (c = J' u): D moves by h (T - h g / 2) + h^2/2 c and its rate ends at D1(t + h) = T + h c.
  // So D moves with V = T + h (c - g) / 2, the step's mean rate, and the rate measured at the
  // end of a step runs ahead of the V the step moved with by o = h (c + g) / 2 of that step
  // (State::rateOffset). tau's law D'' = -2/tau D' - D/tau^2 is stepped on V, which moves D:
  //   V_n = V_{n-1} + h (-2/tau V_n - D_n / tau^2),   V_{n-1} = D1_n - o_{n-1},
  //   V_n = (D1_n - o_{n-1} - h D_n / tau^2) / (1 + 2h/tau),   T_n = V_n - h (c_n - g_n) / 2,
  // and D_{n+1} = D_n + h V_n to O(h^3). Under a steady c (g = 0, o_{n-1} = h c / 2) this is the
  // target T = (D1 - h D/tau^2 - (1 + h/tau) h c) / (1 + 2h/tau), whose fixed point is D = 0 (a
  // plain -h c there left D = -h tau c: 0.3 m on the whipping links of the chain between
  // towers). Under a c that turns (a point on a spinning body) the offset must be last step's:
  // with this step's, V picks up h (c_{n-1} - c_n) / 2 per step, whose sum does not cancel, and
  // D follows by ~ h |c| / (2 w): a thick rod spinning at 105 rad/s stayed 4 mm from its nail
  // (r w h at 0.02 rad per substep), never counted as assembled, and gained 14 % of its energy
  // in 5 s while tau's force pulled at the offset. Baumgarte likewise with alpha for 1/tau.
  // Held constraints use the implicit target (Hong et al.) above, which is stable for whipping
  // chains, and projection removes the rest.
  Vec3 offset = 0.5 * h * (r.c + g);
  if (stab.rateOffset && size_t(j) < stab.rateOffset->size() && !std::isnan((*stab.rateOffset)[size_t(j)].x()))
    offset = (*stab.rateOffset)[size_t(j)];
  const Vec3 rate = r.D1 - offset, ahead = 0.5 * h * (r.c - g);
  switch (stab.kind) {
    case StabilizationKind::Tau: return (rate - (h / (tau * tau)) * r.D) / (1.0 + 2.0 * h / tau) - ahead;
    case StabilizationKind::Baumgarte:
      return (rate - (h * stab.beta * stab.beta) * r.D) / (1.0 + 2.0 * h * stab.alpha) - ahead;
    case StabilizationKind::Implicit: return r.D * (-1.0 / h);
  }
  return Vec3::Zero();
}

}  // namespace

const char* toString(SolvePath p) {
  switch (p) {
    case SolvePath::None: return "none";
    case SolvePath::BlockLdlt: return "sparse block LDL^T";
    case SolvePath::SparseLeastSquares: return "sparse least squares";
    case SolvePath::DenseSvd: return "dense SVD";
    case SolvePath::Regularized: return "regularized sparse";
  }
  return "?";
}

void ConstraintSystem::reset(const Model& model) {
  const size_t nc = model.constraints.size(), nb = model.bodies.size();
  m_rows.assign(nc, ConstraintRows{});
  m_rowOffset.assign(nc, -1);
  m_colOffset.assign(nc, -1);
  m_node.assign(nc, -1);
  m_rowBodies.assign(nc, {0, -1, -1});
  ++m_layout;
  m_bodies.clear();
  m_projectable.clear();
  for (const auto& c : model.constraints) {
    m_bodies.push_back(c->bodies());
    m_projectable.push_back(c->projectable());
  }
  m_active.clear();
  m_active.reserve(nc);
  m_incidence.assign(nb, {});
  m_report = {};
  m_matrixBuilt = false;
}

void ConstraintSystem::assemble(const Model& model, const Params& params, const EvalContext& ctx,
                                const std::vector<Vec3>& Fext, const std::vector<Vec3>& Text, const Stabilization& stab) {
  evaluate(model, params, ctx);
  formEquation(params, Fext, Text, stab);
}

void ConstraintSystem::evaluate(const Model& model, const Params& params, const EvalContext& ctx) {
  if (m_rows.size() != model.constraints.size()) reset(model);
  m_kin = &ctx.bodies;
  m_matrixBuilt = false;

  // evaluate the active constraints and lay out their rows and columns; the incidence lists
  // are rebuilt only when the active set or some constraint's bodies changed
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
  m_report = {};
  m_report.rows = rows;
  m_report.cols = cols;
}

void ConstraintSystem::formEquation(const Params& params, const std::vector<Vec3>& Fext, const std::vector<Vec3>& Text,
                                    const Stabilization& stab) {
  const std::vector<BodyKinematics>& kin = *m_kin;
  // a body's free accelerations (a0, alpha0): dw/dt = I^-1 (T + L x w) (paper Eqn. 11), for
  // the velocity-level step's assembling (rate) targets too. That step updates the world-frame
  // L by h T, and the rate a constraint sees at the end of the step is w(t + h) = I(q')^-1 L'
  // at the NEW orientation:
  // I(q')^-1 = I^-1 + h [w]x I^-1 - h I^-1 [w]x + O(h^2), so w(t + h) = w + h I^-1 (T + L x w)
  // + O(h^2), gyroscopic term included. (Leaving it out, as the start orientation's
  // w' - w = h I^-1 T would have it, mispredicts every spinning body's rate by h I^-1 (L x w)
  // per step, an error that does not vanish with h: the tori of the chain between towers,
  // tumbling as they assembled, gained energy until they blew up at any dt.) (Taken where
  // needed, twice for a body between two joints: cheaper than a pass over the bodies and two
  // arrays.)
  auto a0 = [&](size_t i) { return Vec3(kin[i].invMass * Fext[i]); };
  // The held constraints' targets are targets for D at the end of the step, which the body
  // reaches turning with the midpoint rate w(q_half) = w + h I^-1 T + h/2 I^-1 (L x w) + O(h^2)
  // (see stepSemiImplicitEuler): they take half the gyroscopic term (with all of it, a thin
  // plate pinned off its long axis spun up to 1 000 rad/s).
  auto alpha0 = [&](size_t i, double gyroscopic) {
    const BodyKinematics& k = kin[i];
    return Vec3(k.invI * Vec3(Text[i] + gyroscopic * k.L.cross(k.w)));
  };
  const std::vector<std::uint8_t>* held = stab.velocityLevel ? stab.assembled : nullptr;

  m_B.resize(m_report.rows);  // (every row is written below)
  // the held point pairs, whose targets include -h/2 c (see correctHeldForArmRotation)
  m_heldPairs.clear();
  m_armPasses = 0;
  // the rate offsets for the next step (see velocityTarget), unknown (NaN) for the held
  // constraints; none at all (an empty list, no pass over every constraint) while all are held
  if (stab.velocityLevel) m_nextOffset.clear();
  m_cApplied.resize(m_active.size());
  const bool holding = stab.velocityLevel && stab.assembled;
  const double invH = 1.0 / stab.h, holdRate = 1.0 / std::max(stab.h, stab.hNominal);
  for (size_t node = 0; node < m_active.size(); ++node) {
    const int j = m_active[node];
    const ConstraintRows& r = m_rows[size_t(j)];
    Vec3 b;
    if (holding && heldPointPair(r, j, *stab.assembled)) {
      // the common case, written out: held, both slots unit (Jl = u 1, Ja = [a]x with a = -u r)
      b = (r.D1 - heldTarget(r.D, holdRate)) * invH;
      // the first guess of the fixed point: c at w moved on by its trend over the last step (or
      // at the start velocities); u c(w, r) = -c(w, a)
      Vec3 guess = Vec3::Zero();
      for (int s = 0; s < r.nb; ++s) {
        const size_t bi = size_t(r.body[s]);
        const Vec3 a = r.skewArm(s);
        b += double(r.unit[s]) * a0(bi) + a.cross(alpha0(bi, 0.5));  // J [a0; alpha0]
        const Vec3 w = stab.spinTrend ? Vec3(kin[bi].w + stab.spinAhead * (*stab.spinTrend)[bi]) : kin[bi].w;
        guess -= pointAcceleration(w, a);
      }
      b += 0.5 * guess;
      m_cApplied[node] = guess;
      m_heldPairs.push_back(int(node));
      m_B.segment<3>(m_rowOffset[size_t(j)]) = b;
      continue;
    }
    b.setZero();
    if (stab.velocityLevel) {
      const Vec3 g = inertiaTurn(r, kin);
      b = (r.D1 - velocityTarget(r, j, params.tau[size_t(j)], stab, g)) * invH;
      if (m_nextOffset.empty()) m_nextOffset.assign(m_rows.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
      m_nextOffset[size_t(j)] = 0.5 * stab.h * (r.c + g);
    } else switch (stab.kind) {
      case StabilizationKind::Tau: {
        const double tau = params.tau[size_t(j)];
        b = r.c + (2.0 / tau) * r.D1 + r.D / (tau * tau);
        break;
      }
      case StabilizationKind::Baumgarte:
        b = r.c + (2.0 * stab.alpha) * r.D1 + (stab.beta * stab.beta) * r.D;
        break;
      case StabilizationKind::Implicit:
        // Hong et al. Eqn. 11: the velocity-product terms are dropped
        b = r.D1 / stab.h + r.D / (stab.h * stab.h);
        break;
    }
    const double gyroscopic = held && size_t(j) < held->size() && (*held)[size_t(j)] ? 0.5 : 1.0;
    for (int s = 0; s < r.nb; ++s) b += r.jl(s, a0(size_t(r.body[s]))) + r.ja(s, alpha0(size_t(r.body[s]), gyroscopic));
    scatterRows(m_B, m_rowOffset[size_t(j)], b, r.d);
  }
  const int rows = m_report.rows, cols = m_report.cols;
  m_report = {};
  m_report.rows = rows;
  m_report.cols = cols;
  m_fc.setZero(cols);
}

const Eigen::SparseMatrix<double>& ConstraintSystem::matrix() const {
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
  m_M.resize(m_report.rows, m_report.cols);
  m_M.setFromTriplets(m_triplets.begin(), m_triplets.end());  // duplicates are summed
  m_matrixBuilt = true;
  return m_M;
}

void ConstraintSystem::solve(SolverKind kind) {
  m_mainFactored = false;
  const int rows = m_report.rows, cols = m_report.cols;
  m_report.bNorm = m_B.norm();
  if (rows == 0 || cols == 0) {
    m_report.residual = m_report.bNorm;
    m_report.rank = 0;
    return;
  }
  // a non-finite system (a diverging state) must not reach a factorization: hand NaN forces
  // on, so that the step loop sees the divergence and stops
  if (!m_B.allFinite()) {
    m_fc.setConstant(cols, std::numeric_limits<double>::quiet_NaN());
    m_report.residual = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  if (kind == SolverKind::DenseSvd) {
    m_report.reason = "the scene asks for the dense SVD";
    solveDense();
    return;
  }
  const bool small = rows <= kDenseLimit && kind == SolverKind::Auto;
  if (m_symmetric) {
    if (solveBlock(false)) {
      m_report.reason = "every force follows virtual work (G = J^T): M = J W J^T is symmetric";
      return;
    }
    if (small) {
      m_report.reason = "M = J W J^T is singular (redundant or conflicting constraints)";
      solveDense();
      return;
    }
    m_report.reason = "M = J W J^T is singular and too large for the dense SVD";
    solveBlock(true);
    return;
  }
  if (solveLeastSquares(false)) {
    m_report.reason = "a constraint applies its own forces (orientation: a pure torque), so M is not square";
    return;
  }
  if (small) {
    m_report.reason = "M is not square and M M^T is singular (redundant or conflicting constraints)";
    solveDense();
    return;
  }
  m_report.reason = "M is not square, M M^T is singular and too large for the dense SVD";
  solveLeastSquares(true);
}

void ConstraintSystem::solveDense() {
  m_report.path = SolvePath::DenseSvd;
  m_dense = Eigen::MatrixXd(matrix());
  if (!m_dense.allFinite()) {
    m_fc.setConstant(m_report.cols, std::numeric_limits<double>::quiet_NaN());
    m_report.residual = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  // Scaled by a power of two to largest entry 1 (exact: the same solution, the same relative
  // rank threshold): M's entries are m^-1 L^2, from 1e-36 to 1e36 within the limits of
  // validate.h, and the SVD's internal products of them must neither underflow nor overflow.
  const double peak = m_dense.cwiseAbs().maxCoeff();
  if (peak == 0.0) {
    m_fc.setZero(m_report.cols);
    m_report.rank = 0;
    m_report.residual = m_B.norm();
    return;
  }
  const double scale = std::ldexp(1.0, -std::ilogb(peak));
  m_dense *= scale;
  if (m_report.rows > 16 || m_report.cols > 16) {
    Eigen::BDCSVD<Eigen::MatrixXd> svd(m_dense, Eigen::ComputeThinU | Eigen::ComputeThinV);
    svd.setThreshold(kRankTolerance);
    m_fc = svd.solve(-m_B) * scale;
    m_report.rank = static_cast<int>(svd.rank());
  } else {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(m_dense, Eigen::ComputeThinU | Eigen::ComputeThinV);
    svd.setThreshold(kRankTolerance);
    m_fc = svd.solve(-m_B) * scale;
    m_report.rank = static_cast<int>(svd.rank());
  }
  m_report.residual = (m_M * m_fc + m_B).norm();
}

bool ConstraintSystem::solveBlock(bool regularize) {
  m_main.select(m_active, m_rows, m_incidence, m_layout);
  m_main.assemble(m_rows, *m_kin);
  const bool ok = m_main.factorize(regularize ? kRegularization : 0.0, regularize || m_reportResidual);
  if (!ok && !regularize) return false;
  m_mainFactored = ok && !regularize;
  // right-hand side -B, padded to 3 per node (B itself when every constraint has 3 rows: rows
  // are stacked in node order)
  const int n = static_cast<int>(m_active.size());
  const bool padded = m_report.rows != 3 * n;
  if (padded) {
    m_r.setZero(3 * n);
    for (int node = 0; node < n; ++node) {
      const int j = m_active[size_t(node)];
      m_r.segment(3 * node, m_rows[size_t(j)].d) = -m_B.segment(m_rowOffset[size_t(j)], m_rows[size_t(j)].d);
    }
  } else {
    m_r = -m_B;
  }
  m_x = m_r;
  m_main.solve(m_x);
  if (regularize) {
    // iterative refinement against the unregularized matrix
    Eigen::VectorXd r(3 * n), dx;
    for (int it = 0; it < 2; ++it) {
      m_main.multiply(m_x, r);
      dx = m_r - r;
      m_main.solve(dx);
      m_x += dx;
    }
  }
  m_report.path = regularize ? SolvePath::Regularized : SolvePath::BlockLdlt;
  m_report.rank = regularize ? -1 : m_report.rows;
  if (padded) {
    for (int node = 0; node < n; ++node) {
      const int j = m_active[size_t(node)];
      m_fc.segment(m_colOffset[size_t(j)], m_rows[size_t(j)].d) = m_x.segment(3 * node, m_rows[size_t(j)].d);
    }
  } else {
    m_fc = m_x;  // (f = d: columns are stacked like the rows)
  }
  // residual M Fc + B, with the assembled blocks (kept for it)
  if (!regularize && !m_reportResidual) {
    m_report.residual = std::numeric_limits<double>::quiet_NaN();
    return ok;
  }
  m_main.multiply(m_x, m_r);
  double res = 0.0;
  for (int node = 0; node < n; ++node) {
    const int j = m_active[size_t(node)];
    const int d = m_rows[size_t(j)].d;
    res += (m_r.segment(3 * node, d) + m_B.segment(m_rowOffset[size_t(j)], d)).squaredNorm();
  }
  m_report.residual = std::sqrt(res);
  return ok;
}

void ConstraintSystem::factorMassWeighted(const Model& model, const std::vector<std::uint8_t>& include) {
  std::vector<int>& chosen = m_chosen;
  chosen.clear();
  for (int j : m_active)
    if (include[size_t(j)] && model.constraints[size_t(j)]->projectable()) chosen.push_back(j);
  m_projection.select(chosen, m_rows, m_incidence, m_layout);
  if (chosen.empty()) return;
  m_projection.assemble(m_rows, *m_kin);
  if (!m_projection.factorize(0.0, false)) {
    // singular (redundant constraints): a regularized factorization keeps corrections bounded
    m_projection.assemble(m_rows, *m_kin);
    m_projection.factorize(1e-8, false);
  }
}

void ConstraintSystem::solveFactored(Eigen::VectorXd& rhs) {
  const std::vector<int>& nodes = m_projection.constraints();
  m_x.setZero(3 * static_cast<Eigen::Index>(nodes.size()));
  for (size_t node = 0; node < nodes.size(); ++node) {
    const int j = nodes[node];
    m_x.segment(3 * Eigen::Index(node), m_rows[size_t(j)].d) = rhs.segment(m_rowOffset[size_t(j)], m_rows[size_t(j)].d);
  }
  if (!nodes.empty()) m_projection.solve(m_x);
  rhs.setZero();
  for (size_t node = 0; node < nodes.size(); ++node) {
    const int j = nodes[node];
    rhs.segment(m_rowOffset[size_t(j)], m_rows[size_t(j)].d) = m_x.segment(3 * Eigen::Index(node), m_rows[size_t(j)].d);
  }
}

bool ConstraintSystem::solveLeastSquares(bool regularize) {
  // minimum-norm least squares: Fc = M^T y, (M M^T) y = -B
  const Eigen::SparseMatrix<double>& M = matrix();
  Eigen::SparseMatrix<double> A = M * M.transpose();
  double scale = 0.0;
  for (int i = 0; i < A.rows(); ++i) scale = std::max(scale, A.coeff(i, i));
  if (regularize) {
    for (int i = 0; i < A.rows(); ++i) A.coeffRef(i, i) += kRegularization * scale;
  }
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(A);
  bool ok = ldlt.info() == Eigen::Success;
  if (ok) {
    const Eigen::VectorXd d = ldlt.vectorD();
    ok = d.minCoeff() > 1e-12 * scale;
  }
  if (!ok && !regularize) return false;
  Eigen::VectorXd y = ldlt.solve(-m_B);
  if (regularize) {
    const Eigen::SparseMatrix<double> A0 = M * M.transpose();
    for (int it = 0; it < 2; ++it) y += ldlt.solve(-m_B - A0 * y);
  }
  m_fc = M.transpose() * y;
  m_report.path = regularize ? SolvePath::Regularized : SolvePath::SparseLeastSquares;
  m_report.rank = regularize ? -1 : m_report.rows;
  m_report.residual = (M * m_fc + m_B).norm();
  return ok;
}

void ConstraintSystem::sequentialImpulses(const Model& model, const Params& params, const Stabilization& stab,
                                          int sweeps, std::vector<Vec3>& P, std::vector<Vec3>& L,
                                          std::vector<Vec3>& impulses) {
  (void)model;
  const std::vector<BodyKinematics>& kin = *m_kin;
  const double h = stab.h;
  // per constraint: target rate, the explicit-time part of D1, and K = J W G with its
  // minimum-norm inverse K^T (K K^T)^-1
  std::vector<Vec3>& target = m_target;
  std::vector<Mat33>& Kinv = m_kinv;
  target.resize(m_rows.size());
  Kinv.resize(m_rows.size());
  auto rate = [&](const ConstraintRows& r) {  // J u with the current momenta
    Vec3 ju = Vec3::Zero();
    for (int s = 0; s < r.nb; ++s) {
      const size_t b = size_t(r.body[s]);
      ju += r.jl(s, kin[b].invMass * P[b]) + r.ja(s, kin[b].invI * L[b]);
    }
    return ju;
  };
  m_nextOffset.assign(m_rows.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
  for (int j : m_active) {
    const ConstraintRows& r = m_rows[size_t(j)];
    const Vec3 g = inertiaTurn(r, kin);
    const Vec3 d1 = velocityTarget(r, j, params.tau[size_t(j)], stab, g);
    m_nextOffset[size_t(j)] = 0.5 * h * (r.c + g);
    // D1 = J u + e: e is the explicit time dependence (moving paths), taken at the step start
    // and the rate the sweeps see, I^-1 L' at the start orientation, misses the turn of the
    // inertia over the step, h I^-1 (L x w) (half of it for a held constraint; see alpha0 in
    // formEquation): the target takes it off
    const bool held = stab.assembled && size_t(j) < stab.assembled->size() && (*stab.assembled)[size_t(j)];
    const double turn = held ? 0.5 * h : h;
    Vec3 ju0 = Vec3::Zero();
    for (int s = 0; s < r.nb; ++s) {
      const BodyKinematics& k = kin[size_t(r.body[s])];
      ju0 += r.jl(s, k.v) + r.ja(s, k.w);
    }
    target[size_t(j)] = d1 - (r.D1 - ju0) - turn * g;
    Mat33 K = Mat33::Zero();
    for (int s = 0; s < r.nb; ++s) {
      Mat33 G, H;
      forceMap(r, s, G, H);
      const BodyKinematics& k = kin[size_t(r.body[s])];
      K.noalias() += k.invMass * r.jlBlock(s) * G + r.jaBlock(s) * k.invI * H;
    }
    // at most 3 x 3: fixed-capacity matrices, no allocation in the step
    using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3>;
    const Small Kd = K.topLeftCorner(r.d, r.f);
    const Small KKt = Kd * Kd.transpose();
    Mat33 inv = Mat33::Zero();
    if (KKt.determinant() > 1e-300) inv.topLeftCorner(r.f, r.d) = Kd.transpose() * Small(KKt.inverse());
    Kinv[size_t(j)] = inv;
  }
  auto apply = [&](const ConstraintRows& r, const Vec3& lambda) {
    for (int s = 0; s < r.nb; ++s) {
      Mat33 G, H;
      forceMap(r, s, G, H);
      P[size_t(r.body[s])] += G * lambda;
      L[size_t(r.body[s])] += H * lambda;
    }
  };
  // warm start with last step's impulses
  for (int j : m_active) apply(m_rows[size_t(j)], impulses[size_t(j)]);
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (int j : m_active) {
      const ConstraintRows& r = m_rows[size_t(j)];
      Vec3 err = target[size_t(j)] - rate(r);
      for (int i = r.d; i < 3; ++i) err(i) = 0.0;
      const Vec3 dl = Kinv[size_t(j)] * err;
      impulses[size_t(j)] += dl;
      apply(r, dl);
    }
  for (size_t j = 0; j < impulses.size(); ++j)
    if (m_node[j] < 0) impulses[j].setZero();
  for (int j : m_active) m_fc.segment(m_colOffset[size_t(j)], m_rows[size_t(j)].f) = impulses[size_t(j)].head(m_rows[size_t(j)].f) / h;
  m_report.path = SolvePath::None;
  m_report.reason = "sequential impulses";
}

// The drift of a held point pair over a semi-implicit Euler step, to second order in h.
// A point at the offset r from its body's centre moves with the step's new velocities
// (v', w'): x' = x + h v' and R' = exp(h [w']x) R (the orientation step turns by h w' to
// first order in the change of w), so
//   p' = x' + R' r_b = p + h (v' + w' x r) + h^2/2 w' x (w' x r) + O(h^3).
// For D = p2 - p1 (unit slot signs u_s) the rows give J u' = sum_s u_s (v_s' + w_s' x r_s):
//   D' = D + h J u' + h^2/2 c(u') + O(h^3),   c(u) = sum_s u_s w_s x (w_s x r_s).
// The held target D1* = -D / h (formEquation) cancels the first two terms and leaves the
// centripetal third: a taut chain's joints open by h^2/2 w^2 |r| each step (1e-6 m on the
// swinging 1000-link chain), which projection then has to close. Targeting
//   D1* = -D / h - h/2 c(u')
// instead leaves O(h^3). The target moves by -h/2 c, so B (= (D1 - D1*)/h + J a0) by +c/2
// and, M being unchanged, Fc by dFc with M dFc = -c/2: a solve with the factorization at hand.
// c depends on the unknown u' quadratically: a fixed point. Its first guess, which formEquation
// puts into B so that the force solve itself includes it, takes each body's w' as w plus the
// change of w over the last step (State::spinTrend, scaled to this step's length; w itself on
// a first step): c(w + dw_last). Then passes, each taking u' = u + h W (F_E + F_c) (W with
// the solve's inverse inertia) from the forces so far and solving for the change of c since
// the last pass. A pass runs only if that change would move a joint by more than 1/40 of the
// projection tolerance (h^2/2 |dc|; at dt = 1/3840 the whole correction is below it). The
// threshold was a quarter of the tolerance while held targets left the part of D within the
// tolerance alone; since they cancel all of D (velocityTarget), a skipped pass's h^2/2 dc comes
// back as a rate -D/h next step, which does work against the joint's load: three light links
// yanked by a stiff spring gained 12 % of their energy in a minute at a quarter, lost 1.6 % at
// 1/40 (and 2 % with every pass; the 10 000-link chain costs +2 % at 1/40, +12 % at 1/400).
// Measured at a quarter (correction passes, 2 s): the
// benchmark's 1 000-link chain 0.24 per step (1.0 with the start velocities as the guess, 1.9
// with no guess), the 10 000-link chain 0.07 (0.22, 1.1); with the Euler integrator the
// pendulum and three-link-bar examples skip the pass on 89 % and 95 % of steps (37 % and 18 %
// with the start velocities); the benchmark's ring and tree need one and two passes per step
// whatever the guess (there the passes, not the guess, limit the fixed point: the guess only
// costs them ~3 % of a step). Extrapolating c itself did as well on the chains but not on
// spinning bodies: a body turning steadily keeps w, and its c(w', r) with the start arm r is
// then c0, while c0 itself turns with the arm. More passes measured no better: where they
// would matter (a whipping free end), the third-order drift is larger still and projection
// closes it anyway.
// Other constraints (distance, point-on-line...) are left to projection, and so is a path's
// own acceleration.
bool ConstraintSystem::correctHeldForArmRotation(const Stabilization& stab, std::vector<Vec3>& F,
                                                 std::vector<Vec3>& T) {
  if (!m_mainFactored || !stab.velocityLevel || !stab.assembled || m_heldPairs.empty()) return false;
  constexpr int kPasses = 2;
  const std::vector<BodyKinematics>& kin = *m_kin;
  const double h = stab.h;
  const int n = static_cast<int>(m_active.size());
  m_r.resize(3 * n);
  for (int pass = 0; pass < kPasses; ++pass) {
    double largest = 0.0;  // max |change of c|
    for (int node : m_heldPairs) {
      const ConstraintRows& r = m_rows[size_t(m_active[size_t(node)])];
      Vec3 c = Vec3::Zero();
      for (int s = 0; s < r.nb; ++s) {
        // w at the end of the step (taken where it is needed: a per-body array costs more in
        // memory traffic than the second product on a body shared by two joints)
        const BodyKinematics& k = kin[size_t(r.body[s])];
        const Vec3 wEnd = k.w + h * (k.invI * Vec3(T[size_t(r.body[s])] + 0.5 * k.L.cross(k.w)));  // (see alpha0)
        c -= pointAcceleration(wEnd, r.skewArm(s));  // (as formEquation)
      }
      const Vec3 dc = c - m_cApplied[size_t(node)];
      m_r.segment<3>(3 * node) = dc;
      largest = std::max(largest, dc.cwiseAbs().maxCoeff());
    }
    if (!(0.5 * h * h * largest > 0.025 * stab.projectionTolerance)) break;
    for (int node : m_heldPairs) {
      const Vec3 dc = m_r.segment<3>(3 * node);
      m_cApplied[size_t(node)] += dc;
      m_B.segment<3>(m_rowOffset[size_t(m_active[size_t(node)])]) += 0.5 * dc;
      m_r.segment<3>(3 * node) = -0.5 * dc;
    }
    // the other constraints' targets do not move
    for (int node = 0, next = 0; node < n; ++node) {
      if (size_t(next) < m_heldPairs.size() && m_heldPairs[size_t(next)] == node) ++next;
      else m_r.segment<3>(3 * node).setZero();
    }
    m_main.solve(m_r);
    for (int node = 0; node < n; ++node) {
      const int j = m_active[size_t(node)];
      const ConstraintRows& r = m_rows[size_t(j)];
      const Vec3 dfc = m_r.segment<3>(3 * node);
      // (padding rows of a d < 3 constraint solve to 0)
      if (r.d == 3) m_fc.segment<3>(m_colOffset[size_t(j)]) += dfc;
      else addRows(m_fc, m_colOffset[size_t(j)], dfc, r.d);
      for (int s = 0; s < r.nb; ++s) {
        F[size_t(r.body[s])] += r.jlT(s, dfc);
        T[size_t(r.body[s])] += r.jaT(s, dfc);
      }
    }
    ++m_armPasses;
  }
  return m_armPasses > 0;
}

void ConstraintSystem::applyForces(std::vector<Vec3>& F, std::vector<Vec3>& T) const {
  if (m_fc.size() == 0) return;
  for (int j : m_active) {
    const ConstraintRows& r = m_rows[size_t(j)];
    const Vec3 fc = multiplier(j);
    for (int s = 0; s < r.nb; ++s) {
      const size_t b = size_t(r.body[s]);
      if (r.customForce) {
        F[b].noalias() += r.G[s] * fc;
        T[b].noalias() += r.H[s] * fc;
      } else if (r.unit[s]) {  // Jl = u 1, Ja = [a]x: J^T fc = (u fc, fc x a)
        // (written out rather than through jlT/jaT, whose separate tests of unit cost this loop
        // 17 % more instructions)
        F[b] += double(r.unit[s]) * fc;
        T[b] += fc.cross(r.skewArm(s));
      } else {
        F[b].noalias() += r.Jl[s].transpose() * fc;
        T[b].noalias() += r.Ja[s].transpose() * fc;
      }
    }
  }
}


void ConstraintSystem::constraintForce(int j, int s, Vec3& force, Vec3& torque) const {
  force.setZero();
  torque.setZero();
  const ConstraintRows& r = m_rows[size_t(j)];
  if (m_colOffset[size_t(j)] < 0 || s >= r.nb || m_fc.size() == 0) return;
  const Vec3 fc = multiplier(j);
  if (r.customForce) {
    force = r.G[s] * fc;
    torque = r.H[s] * fc;
  } else {
    force = r.jlT(s, fc);
    torque = r.jaT(s, fc);
  }
}

ConflictReport ConstraintSystem::conflicts() const {
  ConflictReport out;
  const int rows = m_report.rows;
  if (rows == 0) return out;
  // A fast path that factored M (or M M^T) without help proved full row rank: no row depends on
  // the others and every equation is met. No SVD needed (3 000 pendulums: 9 000 rows).
  if (m_report.rank == rows && (m_report.path == SolvePath::BlockLdlt || m_report.path == SolvePath::SparseLeastSquares)) {
    out.rank = rows;
    return out;
  }
  const Eigen::SparseMatrix<double>& M = matrix();
  if (!m_B.allFinite()) return out;
  // M is block diagonal over the groups of constraints joined through shared moving bodies: the
  // rank analysis (a full SVD, cubic in the size) runs per group, so that many small
  // independent mechanisms cost linear time and memory
  std::vector<int> parent(m_rows.size());
  for (size_t j = 0; j < parent.size(); ++j) parent[j] = int(j);
  auto root = [&](int j) {
    while (parent[size_t(j)] != j) j = parent[size_t(j)] = parent[size_t(parent[size_t(j)])];
    return j;
  };
  for (size_t i = 0; i < m_incidence.size(); ++i) {
    if ((*m_kin)[i].invMass == 0.0) continue;  // a fixed body joins nothing: its blocks of M are 0
    const auto& body = m_incidence[i];
    for (size_t k = 1; k < body.size(); ++k) parent[size_t(root(body[k].first))] = root(body[0].first);
  }
  std::vector<std::vector<int>> groups(m_rows.size());
  for (int j : m_active) groups[size_t(root(j))].push_back(j);

  std::vector<int> localRow(size_t(rows), -1);
  auto add = [](std::vector<int>& v, int j) {
    if (std::find(v.begin(), v.end(), j) == v.end()) v.push_back(j);
  };
  for (const std::vector<int>& group : groups) {
    if (group.empty()) continue;
    std::vector<int> rowOwner, colIndex;  // local row -> constraint; local col -> global col
    for (int j : group) {
      for (int a = 0; a < m_rows[size_t(j)].d; ++a) {
        localRow[size_t(m_rowOffset[size_t(j)] + a)] = int(rowOwner.size());
        rowOwner.push_back(j);
      }
      for (int b = 0; b < m_rows[size_t(j)].f; ++b) colIndex.push_back(m_colOffset[size_t(j)] + b);
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
      for (int a = 0; a < m_rows[size_t(j)].d; ++a)
        b(localRow[size_t(m_rowOffset[size_t(j)] + a)]) = m_B(m_rowOffset[size_t(j)] + a);
    if (!dense.allFinite()) continue;
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(dense, Eigen::ComputeFullU | Eigen::ComputeFullV);
    svd.setThreshold(kRankTolerance);
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
    const double tol = 1e-8 * std::max(1.0, b.cwiseAbs().maxCoeff());
    for (int r = 0; r < n; ++r)
      if (std::abs(res(r)) > tol) add(out.conflicting, rowOwner[size_t(r)]);
  }
  std::sort(out.redundant.begin(), out.redundant.end());
  std::sort(out.conflicting.begin(), out.conflicting.end());
  return out;
}

}  // namespace tether::core
