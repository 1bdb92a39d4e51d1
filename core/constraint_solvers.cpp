#include "core/constraint_solvers.h"

#include <Eigen/SVD>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/velocity_level.h"

namespace tether::core {

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

// A factorization can succeed on a matrix that is singular but for rounding: two point joints on
// the same two bodies (a hinge made of two corners) constrain the motion along the line between
// their points twice, and once both are met the two rows along that line differ only by the
// joints' residues (1e-8 m over a 0.36 m plate: a relative eigenvalue of M near 1e-15, above the
// pivot test as often as below it while that was against M's largest entry; kPivotTolerance). The targets along that line differ by their residues too,
// and M^-1 turns that difference into forces as large as the near-null eigenvalue is small:
// 1e12 N on plates of 3 and 6 kg, which the step rejected and retried in substeps, keeping one
// that had gained 167 J; the next step, solved by the SVD, took that and 75 J more out (corpus
// #341, 143 J -> 68 J at once). The solution tells: with M's eigenpairs (s_i, u_i),
//   |x| = |sum_i (u_i.b / s_i) u_i| <= |b| / s_min,
// and |x| s_max / |b| (s_max >= M's largest diagonal entry s) is at most M's condition number,
// reached where b lies along the near-null direction. Over the benchmark's chain, ring and tree
// (up to 10 000 links) it stays below 7e4, over #341's steps before the trouble below 6e3
// (measured); over the rounding-singular pair it reaches 1e11 (and 1e5 where it cost 1 J). Above kNearSingular the solve counts as singular, and
// the caller takes the rank-revealing path (the dense SVD, which leaves that direction out).
bool BlockLdltSolver::nearlySingular(const Eigen::VectorXd& b, const Eigen::VectorXd& x) const {
  const double bn = b.norm();
  return bn > 0.0 && x.norm() * m_system.largestDiagonal() > kNearSingular * bn;
}

bool BlockLdltSolver::solve(const ConstraintAssembly& a, const Eigen::VectorXd& B, Eigen::VectorXd& fc,
                            SolveReport& report) {
  m_factored = false;
  const std::vector<int>& active = a.active();
  const std::vector<ConstraintRows>& rows = a.rows();
  m_system.select(active, rows, a.incidence(), a.layout());
  m_system.assemble(rows, a.kinematics());
  const bool ok = m_system.factorize(m_regularize ? kRegularization : 0.0, m_regularize || m_reportResidual);
  if (!ok && !m_regularize) return false;
  m_factored = ok && !m_regularize;
  // right-hand side -B, padded to 3 per node (B itself when every constraint has 3 rows: rows
  // are stacked in node order)
  const int n = static_cast<int>(active.size());
  const bool padded = a.rowCount() != 3 * n;
  if (padded) {
    m_r.setZero(3 * n);
    for (int node = 0; node < n; ++node) {
      const int j = active[size_t(node)];
      m_r.segment(3 * node, rows[size_t(j)].d) = -B.segment(a.rowOffset()[size_t(j)], rows[size_t(j)].d);
    }
  } else {
    m_r = -B;
  }
  m_x = m_r;
  m_secondSolved = m_factored && m_second && m_second->size() == 3 * n;
  if (m_secondSolved) m_system.solve(m_x, *m_second);
  else m_system.solve(m_x);
  if (ok && !m_regularize && nearlySingular(m_r, m_x)) {
    m_secondSolved = false;
    m_factored = false;
    return false;
  }
  if (m_regularize) {
    // iterative refinement against the unregularized matrix
    Eigen::VectorXd r(3 * n), dx;
    for (int it = 0; it < 2; ++it) {
      m_system.multiply(m_x, r);
      dx = m_r - r;
      m_system.solve(dx);
      m_x += dx;
    }
  }
  report.path = m_regularize ? SolvePath::Regularized : SolvePath::BlockLdlt;
  report.rank = m_regularize ? -1 : report.rows;
  if (padded) {
    for (int node = 0; node < n; ++node) {
      const int j = active[size_t(node)];
      fc.segment(a.colOffset()[size_t(j)], rows[size_t(j)].d) = m_x.segment(3 * node, rows[size_t(j)].d);
    }
  } else {
    fc = m_x;  // (f = d: columns are stacked like the rows)
  }
  // residual M Fc + B, with the assembled blocks (kept for it)
  if (!m_regularize && !m_reportResidual) {
    report.residual = std::numeric_limits<double>::quiet_NaN();
    return ok;
  }
  m_system.multiply(m_x, m_r);
  double res = 0.0;
  for (int node = 0; node < n; ++node) {
    const int j = active[size_t(node)];
    const int d = rows[size_t(j)].d;
    res += (m_r.segment(3 * node, d) + B.segment(a.rowOffset()[size_t(j)], d)).squaredNorm();
  }
  report.residual = std::sqrt(res);
  return ok;
}

bool LeastSquaresSolver::solve(const ConstraintAssembly& a, const Eigen::VectorXd& B, Eigen::VectorXd& fc,
                               SolveReport& report) {
  // minimum-norm least squares: Fc = M^T y, (M M^T) y = -B
  const Eigen::SparseMatrix<double>& M = a.matrix();
  Eigen::SparseMatrix<double> A = M * M.transpose();
  double scale = 0.0;
  for (int i = 0; i < A.rows(); ++i) scale = std::max(scale, A.coeff(i, i));
  if (m_regularize) {
    for (int i = 0; i < A.rows(); ++i) A.coeffRef(i, i) += kRegularization * scale;
  }
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(A);
  bool ok = ldlt.info() == Eigen::Success;
  if (ok) {
    const Eigen::VectorXd d = ldlt.vectorD();
    ok = d.minCoeff() > 1e-12 * scale;
  }
  if (!ok && !m_regularize) return false;
  Eigen::VectorXd y = ldlt.solve(-B);
  if (m_regularize) {
    const Eigen::SparseMatrix<double> A0 = M * M.transpose();
    for (int it = 0; it < 2; ++it) y += ldlt.solve(-B - A0 * y);
  }
  fc = M.transpose() * y;
  report.path = m_regularize ? SolvePath::Regularized : SolvePath::SparseLeastSquares;
  report.rank = m_regularize ? -1 : report.rows;
  report.residual = (M * fc + B).norm();
  return ok;
}

bool DenseSvdSolver::solve(const ConstraintAssembly& a, const Eigen::VectorXd& B, Eigen::VectorXd& fc,
                           SolveReport& report) {
  report.path = SolvePath::DenseSvd;
  const Eigen::SparseMatrix<double>& M = a.matrix();
  m_dense = Eigen::MatrixXd(M);
  if (!m_dense.allFinite()) {
    fc.setConstant(report.cols, std::numeric_limits<double>::quiet_NaN());
    report.residual = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  // Scaled by a power of two to largest entry 1 (exact: the same solution, the same relative
  // rank threshold): M's entries are m^-1 L^2, from 1e-36 to 1e36 within the limits of
  // validate.h, and the SVD's internal products of them must neither underflow nor overflow.
  const double peak = m_dense.cwiseAbs().maxCoeff();
  if (peak == 0.0) {
    fc.setZero(report.cols);
    report.rank = 0;
    report.residual = B.norm();
    return true;
  }
  const double scale = std::ldexp(1.0, -std::ilogb(peak));
  m_dense *= scale;
  if (a.symmetric() && report.rows == report.cols) {
    // M = J W J^T is symmetric: its eigendecomposition M = V diag(l) V^T is an SVD (singular
    // values |l_i|, left vectors sign(l_i) v_i), so the minimum-norm least-squares solution is
    //   Fc = -sum over |l_i| > tol max|l| of v_i (v_i . B) / l_i,
    // the SVD's to rounding, with the same rank threshold, at a fifth of BDCSVD's cost
    // (23 rows, a four-bar: 18 against 96 us; 96 rows: 0.69 against 2.3 ms). Only the lower
    // triangle is read: M's two triangles are assembled alike and differ at most by rounding.
    m_eigen.compute(m_dense);
    const Eigen::VectorXd& l = m_eigen.eigenvalues();
    const double largest = l.cwiseAbs().maxCoeff();
    m_largest = largest;
    m_c.noalias() = m_eigen.eigenvectors().transpose() * B;
    int rank = 0;
    for (Eigen::Index i = 0; i < l.size(); ++i) {
      if (std::abs(l(i)) > kRankTolerance * largest) {
        m_c(i) /= -l(i);
        ++rank;
      } else {
        m_c(i) = 0.0;
      }
    }
    fc.noalias() = m_eigen.eigenvectors() * m_c;
    fc *= scale;
    report.rank = rank;
  } else if (report.rows > 16 || report.cols > 16) {
    Eigen::BDCSVD<Eigen::MatrixXd> svd(m_dense, Eigen::ComputeThinU | Eigen::ComputeThinV);
    svd.setThreshold(kRankTolerance);
    m_largest = svd.singularValues()(0);
    fc = svd.solve(-B) * scale;
    report.rank = static_cast<int>(svd.rank());
  } else {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(m_dense, Eigen::ComputeThinU | Eigen::ComputeThinV);
    svd.setThreshold(kRankTolerance);
    m_largest = svd.singularValues()(0);
    fc = svd.solve(-B) * scale;
    report.rank = static_cast<int>(svd.rank());
  }
  // a conflict between constraints met first and the others (ConstraintSystem::heldFirst): the
  // least-squares Fc misses rows of the first
  if (m_first && fc.allFinite()) {
    const Eigen::VectorXd miss = M * fc + B;
    const double tol = missTolerance(B);
    bool missed = false;
    for (int j : a.active())
      if ((*m_first)[size_t(j)] && miss.segment(a.rowOffset()[size_t(j)], a.rows()[size_t(j)].d).cwiseAbs().maxCoeff() > tol)
        missed = true;
    if (missed) solveFirstThenRest(a, B, scale, fc);
  }
  report.residual = (M * fc + B).norm();
  return true;
}

// The first rows H (of the scaled M) met as closely as they can be, z1 = H^+ (-B_H), with the
// null space N of H (the Fc that do not change H's rows: V's columns past H's rank); then the
// rest A in it: z = z1 + N y, y = (A N)^+ (-(B_A + A z1)). Both stages count singular values below
// the plain solve's threshold (kRankTolerance of M's largest) as zero: against their own largest,
// a near-null mode of the rest (a welded gyroscope's) took forces that spun the axle up to 2.6e5
// rad/s in 0.02 s. (A weighted least-squares solve, the first rows weighed heavier, would put
// both in one, but it scales the rest's singular values by the weight squared against the
// threshold and drops modes the plain solve keeps.) Where every row can be met, this meets them
// all, as the plain solve.
void DenseSvdSolver::solveFirstThenRest(const ConstraintAssembly& a, const Eigen::VectorXd& B, double scale,
                                        Eigen::VectorXd& fc) {
  std::vector<int> first, rest;
  for (int j : a.active())
    for (int r = 0; r < a.rows()[size_t(j)].d; ++r) ((*m_first)[size_t(j)] ? first : rest).push_back(a.rowOffset()[size_t(j)] + r);
  if (first.empty()) return;
  const Eigen::Index cols = m_dense.cols();
  Eigen::MatrixXd H(Eigen::Index(first.size()), cols), A(Eigen::Index(rest.size()), cols);
  Eigen::VectorXd bH(H.rows()), bA(A.rows());
  for (size_t i = 0; i < first.size(); ++i) {
    H.row(Eigen::Index(i)) = m_dense.row(first[i]);
    bH(Eigen::Index(i)) = B(first[i]);
  }
  for (size_t i = 0; i < rest.size(); ++i) {
    A.row(Eigen::Index(i)) = m_dense.row(rest[i]);
    bA(Eigen::Index(i)) = B(rest[i]);
  }
  const double cut = kRankTolerance * m_largest;
  // (Eigen's threshold is relative to the matrix's own largest singular value, and its rank
  // counts that one whatever the threshold: a matrix with nothing above the cut is left out)
  auto above = [cut](const auto& svd) {
    return svd.singularValues().size() > 0 && svd.singularValues()(0) > cut;
  };
  Eigen::VectorXd z = Eigen::VectorXd::Zero(cols);
  Eigen::JacobiSVD<Eigen::MatrixXd> svdH(H, Eigen::ComputeThinU | Eigen::ComputeFullV);
  Eigen::Index rank = 0;
  if (above(svdH)) {
    svdH.setThreshold(cut / svdH.singularValues()(0));
    z = svdH.solve(-bH);
    rank = svdH.rank();
  }
  if (rank < cols && A.rows() > 0) {
    const Eigen::MatrixXd N = svdH.matrixV().rightCols(cols - rank);
    const Eigen::MatrixXd AN = A * N;
    Eigen::JacobiSVD<Eigen::MatrixXd> svdA(AN, Eigen::ComputeThinU | Eigen::ComputeThinV);
    if (above(svdA)) {
      svdA.setThreshold(cut / svdA.singularValues()(0));
      z += N * svdA.solve(-(bA + A * z));
    }
  }
  fc = z * scale;
}

void SequentialImpulses::step(const ConstraintAssembly& a, const Params& params, const Stabilization& stab,
                              int sweeps, std::vector<Vec3>& P, std::vector<Vec3>& L, std::vector<Vec3>& impulses,
                              Eigen::VectorXd& fc, std::vector<Vec3>& nextOffset,
                              std::vector<Vec3>& nextAim) {
  const std::vector<BodyKinematics>& kin = a.kinematics();
  const std::vector<ConstraintRows>& rows = a.rows();
  const double h = stab.h;
  // per constraint: target rate, the explicit-time part of D1, and K = J W G with its
  // minimum-norm inverse K^T (K K^T)^-1
  std::vector<Vec3>& target = m_target;
  std::vector<Mat33>& Kinv = m_kinv;
  target.resize(rows.size());
  Kinv.resize(rows.size());
  auto rate = [&](const ConstraintRows& r) {  // J u with the current momenta
    Vec3 ju = Vec3::Zero();
    for (int s = 0; s < r.nb; ++s) {
      const size_t b = size_t(r.body[s]);
      ju += r.jl(s, kin[b].invMass * P[b]) + r.ja(s, kin[b].invI * L[b]);
    }
    return ju;
  };
  nextOffset.assign(rows.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
  nextAim.clear();
  for (int j : a.active()) {
    const ConstraintRows& r = rows[size_t(j)];
    const Vec3 g = inertiaTurn(r, kin);
    const bool velocityRows = a.nonholonomic(j);
    const bool held = heldAtVelocityLevel(a, stab, j);
    const double tau = params.tau[size_t(j)];
    if (velocityRows && nextAim.empty()) nextAim.assign(rows.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
    const Vec3 d1 = velocityRows ? velocityConstraintTarget(r, j, tau, stab, g, nextAim) : velocityTarget(r, j, tau, stab, g, held);
    nextOffset[size_t(j)] = rateOffsetFor(r, g, h);
    // D1 = J u + e: e is the explicit time dependence (moving paths), taken at the step start
    // and the rate the sweeps see, I^-1 L' at the start orientation, misses the turn of the
    // inertia over the step, h I^-1 (L x w) (half of it for a held constraint; see
    // VelocityLevelEquation::form): the target takes it off
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
  for (int j : a.active()) apply(rows[size_t(j)], impulses[size_t(j)]);
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (int j : a.active()) {
      const ConstraintRows& r = rows[size_t(j)];
      Vec3 err = target[size_t(j)] - rate(r);
      for (int i = r.d; i < 3; ++i) err(i) = 0.0;
      const Vec3 dl = Kinv[size_t(j)] * err;
      impulses[size_t(j)] += dl;
      apply(r, dl);
    }
  for (size_t j = 0; j < impulses.size(); ++j)
    if (a.node()[j] < 0) impulses[j].setZero();
  for (int j : a.active()) fc.segment(a.colOffset()[size_t(j)], rows[size_t(j)].f) = impulses[size_t(j)].head(rows[size_t(j)].f) / h;
}

}  // namespace tether::core
