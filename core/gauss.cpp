#include "core/gauss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

namespace tether::core::gauss {

namespace {

using Mat6 = Eigen::Matrix<double, 6, 6>;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string checkShape(const Problem& p) {
  const long n = 6 * long(p.bodies.size());
  if (p.unconstrained.size() != n) {
    std::ostringstream s;
    s << "the unconstrained acceleration has " << p.unconstrained.size() << " entries, not 6 per body (" << n << ")";
    return s.str();
  }
  for (std::size_t k = 0; k < p.bodies.size(); ++k)
    if (!(p.bodies[k].mass > 0.0) || p.bodies[k].inertia.llt().info() != Eigen::Success)
      return "body " + std::to_string(k) + " has no positive mass or inertia";
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const Row& r = p.rows[i];
    const int nb = int(p.bodies.size());
    if (r.bodyA < 0 || r.bodyA >= nb || r.bodyB < -1 || r.bodyB >= nb)
      return "row " + std::to_string(i) + " names a body that is not in the problem";
    if (!r.jacA.allFinite() || !r.jacB.allFinite() || !std::isfinite(r.c))
      return "row " + std::to_string(i) + " is not finite";
  }
  if (!p.unconstrained.allFinite()) return "the unconstrained acceleration is not finite";
  return {};
}

// Q with Q Q^T = M^-1 for one body: 1/sqrt(m) on the translation, and the lower Cholesky factor L
// of I^-1 (L L^T = I^-1) on the rotation. Then |Q^-1 x|^2 = x^T M x: z = Q^-1 (a - a_u) measures
// the kinetic distance in the Euclidean norm.
Mat6 metricFactor(const BodyMetric& b) {
  Mat6 q = Mat6::Zero();
  q.topLeftCorner<3, 3>() = Mat3::Identity() / std::sqrt(b.mass);
  q.bottomRightCorner<3, 3>() = Mat3(b.inertia.inverse()).llt().matrixL();
  return q;
}

double rowTimes(const Row& r, const Eigen::VectorXd& a) {
  double v = r.jacA.dot(a.segment<6>(6 * r.bodyA));
  if (r.bodyB >= 0) v += r.jacB.dot(a.segment<6>(6 * r.bodyB));
  return v;
}

// A Givens rotation G = [c s; -s c] with G (a, b)^T = (h, 0)^T, h = |(a, b)|.
struct Givens {
  double c = 1.0, s = 0.0;
  Givens(double a, double b) {
    const double h = std::hypot(a, b);
    if (h > 0.0) {
      c = a / h;
      s = b / h;
    }
  }
  // x_i, x_j <- c x_i + s x_j, -s x_i + c x_j for two rows or columns of a matrix
  template <class X, class Y>
  void apply(X&& xi, Y&& xj) const {
    for (long k = 0; k < xi.size(); ++k) {
      const double a = xi[k], b = xj[k];
      xi[k] = c * a + s * b;
      xj[k] = -s * a + c * b;
    }
  }
};

// A row of the motion-space problem: g = Q^T J_i^T, nonzero on one or two bodies only.
struct MotionRow {
  long a = 0, b = -1;  // the bodies' first entries (6 k), b = -1: one body
  Vec6 ga, gb;
  double dot(const Eigen::VectorXd& x) const {
    double v = ga.dot(x.segment<6>(a));
    if (b >= 0) v += gb.dot(x.segment<6>(b));
    return v;
  }
  double norm() const { return std::sqrt(ga.squaredNorm() + (b >= 0 ? gb.squaredNorm() : 0.0)); }
};

// N = Y R for the active rows' vectors N (n x q) in motion space: Y (n x q) with orthonormal
// columns, R (q x q) upper triangular, updated as rows join (Gram-Schmidt, orthogonalized twice)
// and leave (Givens rotations): O(n q) per change, and Y^T g costs O(q) for a row's 12 entries.
class ActiveQr {
 public:
  // (not zero-filled: R's columns are written whole as they are added, Y's before they are read)
  ActiveQr(long n, long capacity) : m_y(n, capacity), m_r(capacity, capacity) {}
  // starting from the factors Y (n x q) and R (q x q) of q rows already active
  ActiveQr(const Eigen::MatrixXd& y, const Eigen::MatrixXd& r, long capacity) : ActiveQr(y.rows(), std::max(capacity, r.cols())) {
    m_q = r.cols();
    m_y.leftCols(m_q) = y;
    m_r.setZero();
    m_r.topLeftCorner(m_q, m_q) = r;
  }
  auto y() const { return m_y.leftCols(m_q); }
  auto r() const { return m_r.topLeftCorner(m_q, m_q); }
  // Y^T g for a row
  Eigen::VectorXd project(const MotionRow& g) const {
    Eigen::VectorXd v = m_y.middleRows<6>(g.a).leftCols(m_q).transpose() * g.ga;
    if (g.b >= 0) v += m_y.middleRows<6>(g.b).leftCols(m_q).transpose() * g.gb;
    return v;
  }
  // d = (1 - Y Y^T) g, the part of g orthogonal to the active normals; v = Y^T g is corrected by
  // the second pass (classical Gram-Schmidt twice is as orthogonal as Householder)
  Eigen::VectorXd orthogonalPart(const MotionRow& g, Eigen::VectorXd& v) const {
    Eigen::VectorXd d = Eigen::VectorXd::Zero(m_y.rows());
    d.segment<6>(g.a) = g.ga;
    if (g.b >= 0) d.segment<6>(g.b) += g.gb;
    const auto y = m_y.leftCols(m_q);
    d.noalias() -= y * v;
    const Eigen::VectorXd again = y.transpose() * d;
    d.noalias() -= y * again;
    v += again;
    return d;
  }
  Eigen::VectorXd solveR(const Eigen::VectorXd& v) const {
    return m_r.topLeftCorner(m_q, m_q).triangularView<Eigen::Upper>().solve(v);
  }
  // append the row with Y^T g = v and orthogonal part d (|d| > 0)
  void add(const Eigen::VectorXd& d, const Eigen::VectorXd& v) {
    const double norm = d.norm();
    m_y.col(m_q) = d / norm;
    m_r.col(m_q).head(m_q) = v;
    m_r(m_q, m_q) = norm;
    m_r.col(m_q).tail(m_r.rows() - m_q - 1).setZero();
    ++m_q;
  }
  // drop column k: R without it is upper Hessenberg from column k on; rotate rows j, j+1 to clear
  // R(j+1, j), and Y's columns j, j+1 alike (N = Y R is kept); Y's last column then leaves
  void drop(long k) {
    for (long j = k; j + 1 < m_q; ++j) m_r.col(j).head(m_q) = m_r.col(j + 1).head(m_q);
    m_r.col(m_q - 1).setZero();
    for (long j = k; j + 1 < m_q; ++j) {
      const Givens g(m_r(j, j), m_r(j + 1, j));
      g.apply(m_r.row(j).segment(j, m_q - 1 - j), m_r.row(j + 1).segment(j, m_q - 1 - j));
      m_r(j + 1, j) = 0.0;
      g.apply(m_y.col(j), m_y.col(j + 1));
    }
    --m_q;
    m_r.row(m_q).setZero();
  }

 private:
  Eigen::MatrixXd m_y, m_r;
  long m_q = 0;
};

// A_CC = L L^T for the clamped rows of the contact-space matrix, updated as rows join and leave.
class ClampedCholesky {
 public:
  // (not zero-filled: only the lower triangle of the first q rows is read, and written first)
  explicit ClampedCholesky(long m) : m_l(m, m) {}
  long size() const { return m_q; }
  // append a row whose column of A over the clamped rows is col (and diagonal entry diag);
  // false when it depends on them (the block would be singular)
  bool add(const Eigen::VectorXd& col, double diag) {
    Eigen::VectorXd l = m_l.topLeftCorner(m_q, m_q).triangularView<Eigen::Lower>().solve(col);
    const double d2 = diag - l.squaredNorm();
    if (!(d2 > 1e-13 * std::max(diag, 1e-300))) return false;
    m_l.row(m_q).head(m_q) = l.transpose();
    m_l(m_q, m_q) = std::sqrt(d2);
    ++m_q;
    return true;
  }
  // remove row/column k: L without row k has one entry above the diagonal in each row from k on;
  // rotate columns j, j+1 (an orthogonal factor on the right keeps L L^T) to clear it
  void drop(long k) {
    for (long i = k; i + 1 < m_q; ++i) m_l.row(i).head(m_q) = m_l.row(i + 1).head(m_q);
    m_l.row(m_q - 1).setZero();
    for (long j = k; j + 1 < m_q; ++j) {
      const Givens g(m_l(j, j), m_l(j, j + 1));
      g.apply(m_l.col(j).segment(j, m_q - 1 - j), m_l.col(j + 1).segment(j, m_q - 1 - j));
      m_l(j, j + 1) = 0.0;
    }
    --m_q;
    m_l.col(m_q).setZero();
  }
  Eigen::VectorXd solve(const Eigen::VectorXd& rhs) const {
    const auto l = m_l.topLeftCorner(m_q, m_q);
    return l.transpose().triangularView<Eigen::Upper>().solve(l.triangularView<Eigen::Lower>().solve(rhs));
  }

 private:
  Eigen::MatrixXd m_l;
  long m_q = 0;
};

Solution failure(std::string why, int iterations) {
  Solution s;
  s.error = std::move(why);
  s.iterations = iterations;
  return s;
}

}  // namespace

Eigen::VectorXd applyInverseMetricTranspose(const Problem& p, const Eigen::VectorXd& lambda) {
  Eigen::VectorXd f = Eigen::VectorXd::Zero(6 * long(p.bodies.size()));  // J^T lambda
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const Row& r = p.rows[i];
    f.segment<6>(6 * r.bodyA) += lambda[long(i)] * r.jacA;
    if (r.bodyB >= 0) f.segment<6>(6 * r.bodyB) += lambda[long(i)] * r.jacB;
  }
  for (std::size_t k = 0; k < p.bodies.size(); ++k) {
    f.segment<3>(6 * long(k)) /= p.bodies[k].mass;
    f.segment<3>(6 * long(k) + 3) = p.bodies[k].inertia.llt().solve(Vec3(f.segment<3>(6 * long(k) + 3)));
  }
  return f;
}

Solution solveProjectedGaussSeidel(const Problem& p, double tolerance, int maxSweeps) {
  Solution out;
  if (std::string e = checkShape(p); !e.empty()) {
    out.error = e;
    return out;
  }
  const std::size_t nb = p.bodies.size(), nr = p.rows.size();
  std::vector<Mat3> invI(nb);
  std::vector<double> invM(nb);
  for (std::size_t k = 0; k < nb; ++k) {
    invM[k] = 1.0 / p.bodies[k].mass;
    invI[k] = p.bodies[k].inertia.inverse();
  }
  // each row's M^-1 J^T (per side) and its effective mass's inverse J M^-1 J^T
  const auto inverseMetric = [&](int b, const Vec6& j) {
    Vec6 w;
    w.head<3>() = invM[std::size_t(b)] * j.head<3>();
    w.tail<3>() = invI[std::size_t(b)] * j.tail<3>();
    return w;
  };
  std::vector<Vec6> wA(nr), wB(nr);
  std::vector<double> diag(nr);
  for (std::size_t i = 0; i < nr; ++i) {
    const Row& r = p.rows[i];
    wA[i] = inverseMetric(r.bodyA, r.jacA);
    diag[i] = r.jacA.dot(wA[i]);
    if (r.bodyB >= 0) {
      wB[i] = inverseMetric(r.bodyB, r.jacB);
      diag[i] += r.jacB.dot(wB[i]);
    }
  }
  out.acceleration = p.unconstrained;
  out.multipliers = Eigen::VectorXd::Zero(long(nr));
  Eigen::VectorXd& a = out.acceleration;
  for (out.iterations = 0; out.iterations < maxSweeps;) {
    ++out.iterations;
    double largest = 0.0;
    for (std::size_t i = 0; i < nr; ++i) {
      if (!(diag[i] > 0.0)) continue;  // a zero row: nothing it can do
      const Row& r = p.rows[i];
      const double old = out.multipliers[long(i)];
      double next = old + (r.c - rowTimes(r, a)) / diag[i];
      if (!r.equality) next = std::max(0.0, next);
      const double d = next - old;
      if (d == 0.0) continue;
      out.multipliers[long(i)] = next;
      a.segment<6>(6 * r.bodyA) += d * wA[i];
      if (r.bodyB >= 0) a.segment<6>(6 * r.bodyB) += d * wB[i];
      // the row's own rate moved by d diag: the change measured in the units of c
      largest = std::max(largest, std::abs(d) * diag[i] / std::max(1.0, std::abs(r.c)));
    }
    if (largest <= tolerance) break;
  }
  out.ok = true;
  return out;
}

Eigen::VectorXd applyJacobian(const Problem& p, const Eigen::VectorXd& a) {
  Eigen::VectorXd out(long(p.rows.size()));
  for (std::size_t i = 0; i < p.rows.size(); ++i) out[long(i)] = rowTimes(p.rows[i], a);
  return out;
}

double largestViolation(const Problem& p, const Eigen::VectorXd& a) {
  double worst = 0.0;
  for (const Row& r : p.rows) {
    const double s = rowTimes(r, a) - r.c;
    worst = std::max(worst, r.equality ? std::abs(s) : -s);
  }
  return worst;
}

namespace {

// g_i = Q^T J_i^T: a row in z = Q^-1 (a - a_u)
MotionRow motionRow(const Row& r, const std::vector<Mat6>& q) {
  MotionRow row;
  row.a = 6 * r.bodyA;
  row.ga = q[std::size_t(r.bodyA)].transpose() * r.jacA;
  if (r.bodyB >= 0) {
    row.b = 6 * r.bodyB;
    row.gb = q[std::size_t(r.bodyB)].transpose() * r.jacB;
  }
  return row;
}

// d = 0 up to round-off: g lies in the span of the active normals (|d|^2 against |g|^2)
bool dependent(double dd, double norm) { return !(dd > 1e-20 * norm * norm); }

// A BilateralFactor's start: its bilateral rows' Y and R, which of them are active and which depend
// on those.
struct FactoredStart {
  const Eigen::MatrixXd &y, &r;
  const std::vector<long>&active, &dependent;
};

// Goldfarb & Idnani's dual method ("A numerically stable dual method for solving strictly convex
// quadratic programs", 1983) for  min |z|^2 / 2  s.t.  g_i . z >= h_i (= h_i on bilateral rows),
// where the Hessian is the identity, so their J = L^-T Q is the Q of the active normals' QR:
//   - z starts at the unconstrained minimum 0, with no row active;
//   - a violated row p (bilateral ones first) is added: the primal step direction is the part d of
//     g_p orthogonal to the active normals, the multipliers move along r = R^-1 Y_1^T g_p;
//   - the full step t2 = -s_p / |d|^2 makes row p hold (s_p = g_p . z - h_p < 0); a partial step
//     t1 = min u_j / r_j over active unilateral rows with r_j > 0 is taken first when shorter, and
//     that row, whose multiplier reaches 0, leaves the active set;
//   - when g_p depends on the active rows (d = 0) only partial steps remain: if no unilateral row
//     can leave, row p conflicts with them (a bilateral row that already holds is just redundant).
// Each step keeps the multipliers of active unilateral rows >= 0 and the dual objective rising, so
// no active set repeats; it ends when no row is violated, at the KKT point: z = sum u_i g_i.
// (from `start`'s rows active where given, else from nothing active)
Solution motionSpace(const Problem& p, double tolerance, const std::vector<Mat6>& q, const FactoredStart* start) {
  const long n = 6 * long(p.bodies.size());
  const long m = long(p.rows.size());
  // g_i = Q^T J_i^T, h_i = c_i - J_i a_u: the rows in z = Q^-1 (a - a_u)
  std::vector<MotionRow> g(static_cast<std::size_t>(m));
  std::vector<double> norms(static_cast<std::size_t>(m));
  Eigen::VectorXd h(m);
  for (long i = 0; i < m; ++i) {
    const Row& r = p.rows[std::size_t(i)];
    g[std::size_t(i)] = motionRow(r, q);
    norms[std::size_t(i)] = g[std::size_t(i)].norm();
    h[i] = r.c - rowTimes(r, p.unconstrained);
  }
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  const auto slack = [&](long i) { return g[std::size_t(i)].dot(z) - h[i]; };
  double zNorm = 0.0;  // |z|, updated where z moves (the tolerance of every row's slack needs it)
  const auto slackTolerance = [&](long i) {
    return tolerance * std::max({1.0, std::abs(h[i]), norms[std::size_t(i)] * zNorm});
  };

  ActiveQr qr = start ? ActiveQr(start->y, start->r, std::min(n, m)) : ActiveQr(n, std::min(n, m));
  std::vector<long> active;    // rows, in the order of R's columns
  std::vector<double> u;       // their multipliers, in the sign of the row as added
  std::vector<double> sign(std::size_t(m), 1.0);
  std::vector<char> isActive(std::size_t(m), 0), redundant(std::size_t(m), 0);
  int iterations = 0;
  const int limit = int(10 * (m + n) + 100);
  if (start) {
    // the factored bilateral rows active, at the point nearest the origin where they hold:
    // Y^T g_i = R_i, so g_i . z = h_i for z = Y w with R^T w = h; z = sum u_i g_i = Y R u
    active = start->active;
    Eigen::VectorXd hActive(long(active.size()));
    for (std::size_t j = 0; j < active.size(); ++j) {
      hActive[long(j)] = h[active[j]];
      isActive[std::size_t(active[j])] = 1;
    }
    const Eigen::VectorXd w = qr.r().transpose().triangularView<Eigen::Lower>().solve(hActive);
    z.noalias() = qr.y() * w;
    zNorm = z.norm();
    const Eigen::VectorXd uActive = qr.solveR(w);
    u.assign(uActive.data(), uActive.data() + uActive.size());
    for (long i : start->dependent) redundant[std::size_t(i)] = 1;
    iterations = int(active.size() + start->dependent.size());
  }

  for (;;) {
    // the next row: a bilateral row not yet active and not found redundant (or violated since),
    // else the most violated unilateral row
    long pick = -1;
    for (long i = 0; i < m && pick < 0; ++i) {
      if (!p.rows[std::size_t(i)].equality || isActive[std::size_t(i)]) continue;
      if (!redundant[std::size_t(i)] || std::abs(slack(i)) > slackTolerance(i)) pick = i;
    }
    if (pick < 0) {
      double worst = 0.0;
      for (long i = 0; i < m; ++i) {
        if (p.rows[std::size_t(i)].equality || isActive[std::size_t(i)]) continue;
        const double s = slack(i);
        if (s < worst && s < -slackTolerance(i)) {
          worst = s;
          pick = i;
        }
      }
    }
    if (pick < 0) break;

    const bool bilateral = p.rows[std::size_t(pick)].equality;
    const double sigma = bilateral && slack(pick) > 0.0 ? -1.0 : 1.0;
    MotionRow gp = g[std::size_t(pick)];
    gp.ga *= sigma;
    gp.gb *= sigma;
    const double hp = sigma * h[pick];
    double up = 0.0;
    for (;;) {
      if (++iterations > limit) return failure("the active-set method did not settle (cycling on degenerate rows)", iterations);
      Eigen::VectorXd v = qr.project(gp);
      const Eigen::VectorXd d = qr.orthogonalPart(gp, v);
      const Eigen::VectorXd r = qr.solveR(v);
      double t1 = kInfinity;
      long leave = -1;
      for (long j = 0; j < long(active.size()); ++j) {
        if (p.rows[std::size_t(active[std::size_t(j)])].equality || !(r[j] > 0.0)) continue;
        const double t = u[std::size_t(j)] / r[j];
        if (t < t1) {
          t1 = t;
          leave = j;
        }
      }
      const double s = gp.dot(z) - hp;
      const double dd = d.squaredNorm();
      const double t2 = dependent(dd, norms[std::size_t(pick)]) ? kInfinity : -s / dd;
      if (t2 == kInfinity && t1 == kInfinity) {
        if (bilateral && std::abs(s) <= slackTolerance(pick)) {
          redundant[std::size_t(pick)] = 1;  // holds already, through the active rows
          break;
        }
        std::ostringstream e;
        e << "row " << pick << " cannot hold together with the active rows (they leave it " << std::abs(s)
          << " short in the kinetic metric)";
        Solution f = failure(e.str(), iterations);
        if (!bilateral) f.conflictRow = pick;
        return f;
      }
      const double t = std::min(t1, t2);
      if (t2 != kInfinity) {
        z += t * d;
        zNorm = z.norm();
      }
      for (std::size_t j = 0; j < active.size(); ++j) u[j] -= t * r[long(j)];
      up += t;
      if (t2 <= t1) {
        qr.add(d, v);
        active.push_back(pick);
        u.push_back(up);
        sign[std::size_t(pick)] = sigma;
        isActive[std::size_t(pick)] = 1;
        break;
      }
      qr.drop(leave);
      isActive[std::size_t(active[std::size_t(leave)])] = 0;
      active.erase(active.begin() + leave);
      u.erase(u.begin() + leave);
    }
  }

  Solution out;
  out.ok = true;
  out.iterations = iterations;
  out.multipliers = Eigen::VectorXd::Zero(m);
  for (std::size_t j = 0; j < active.size(); ++j)
    out.multipliers[active[j]] = sign[std::size_t(active[j])] * u[j];
  out.acceleration = p.unconstrained;
  for (std::size_t k = 0; k < p.bodies.size(); ++k) out.acceleration.segment<6>(6 * long(k)) += q[k] * z.segment<6>(6 * long(k));
  return out;
}

std::vector<Mat6> metricFactors(const Problem& p) {
  std::vector<Mat6> q(p.bodies.size());
  for (std::size_t k = 0; k < p.bodies.size(); ++k) q[k] = metricFactor(p.bodies[k]);
  return q;
}

}  // namespace

Solution solveMotionSpace(const Problem& p, double tolerance) {
  if (std::string why = checkShape(p); !why.empty()) return failure(why, 0);
  return motionSpace(p, tolerance, metricFactors(p), nullptr);
}

BilateralFactor::BilateralFactor(const Problem& p) {
  if (!checkShape(p).empty()) return;
  m_bodies = p.bodies;
  m_metric = metricFactors(p);
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    if (p.rows[i].equality) m_rows.push_back(long(i));
  // the method's first steps: each bilateral row, in order, added unless it depends on those
  // before it (its d, and so this, does not depend on c)
  const long n = 6 * long(p.bodies.size());
  ActiveQr qr(n, std::min(n, long(m_rows.size())));
  for (long i : m_rows) {
    const MotionRow g = motionRow(p.rows[std::size_t(i)], m_metric);
    Eigen::VectorXd v = qr.project(g);
    const Eigen::VectorXd d = qr.orthogonalPart(g, v);
    m_copies.push_back(p.rows[std::size_t(i)]);
    if (dependent(d.squaredNorm(), g.norm())) {
      m_dependent.push_back(i);
      continue;
    }
    qr.add(d, v);
    m_active.push_back(i);
  }
  m_y = qr.y();
  m_r = qr.r();
  m_ok = true;
}

Solution solveMotionSpace(const Problem& p, const BilateralFactor& f, double tolerance) {
  if (std::string why = checkShape(p); !why.empty()) return failure(why, 0);
  // the factor's bilateral rows must be the problem's first ones, unchanged (but for c)
  bool same = f.m_ok && f.m_bodies.size() == p.bodies.size();
  for (std::size_t b = 0; same && b < p.bodies.size(); ++b)
    same = p.bodies[b].mass == f.m_bodies[b].mass && p.bodies[b].inertia == f.m_bodies[b].inertia;
  std::size_t k = 0;
  for (std::size_t i = 0; same && i < p.rows.size() && k < f.m_rows.size(); ++i) {
    const Row& r = p.rows[i];
    if (!r.equality) continue;
    const Row& c = f.m_copies[k];
    same = f.m_rows[k++] == long(i) && r.bodyA == c.bodyA && r.bodyB == c.bodyB && r.jacA == c.jacA && r.jacB == c.jacB;
  }
  if (!same || k != f.m_rows.size())
    throw std::invalid_argument("gauss::solveMotionSpace: the factor is not of this problem's bilateral rows");
  const FactoredStart start{f.m_y, f.m_r, f.m_active, f.m_dependent};
  return motionSpace(p, tolerance, f.m_metric, &start);
}

// Baraff's form of Dantzig's algorithm: w = A f + b with f = 0, w = b at the start; each row d with
// w_d < 0 in turn is driven to w_d = 0 by raising f_d, the clamped rows C (w = 0) adjusting their
// forces to stay at w = 0 (A_CC df_C = -A_Cd df_d), the others (NC: f = 0, w >= 0) keeping theirs.
// The step stops at the first event: w_d reaches 0 (d joins C, done), a clamped force reaches 0
// (that row moves to NC), or an unclamped w reaches 0 (that row moves to C). Bilateral rows are
// driven first, in either direction, and their forces are free in sign.
Solution solveContactSpace(const Problem& p, double tolerance) {
  if (std::string why = checkShape(p); !why.empty()) return failure(why, 0);
  const long m = long(p.rows.size());
  // A = J M^-1 J^T and b = J a_u - c; M^-1 J_i^T is nonzero on row i's one or two bodies only
  std::vector<Mat3> inverseInertia(p.bodies.size());
  for (std::size_t k = 0; k < p.bodies.size(); ++k) inverseInertia[k] = p.bodies[k].inertia.inverse();
  const auto mobility = [&](int body, const Vec6& jac) {
    Vec6 out;
    out << jac.head<3>() / p.bodies[std::size_t(body)].mass, inverseInertia[std::size_t(body)] * jac.tail<3>();
    return out;
  };
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(6 * long(p.bodies.size()), m);  // M^-1 J^T
  for (long i = 0; i < m; ++i) {
    const Row& r = p.rows[std::size_t(i)];
    w.col(i).segment<6>(6 * r.bodyA) = mobility(r.bodyA, r.jacA);
    if (r.bodyB >= 0) w.col(i).segment<6>(6 * r.bodyB) += mobility(r.bodyB, r.jacB);
  }
  Eigen::MatrixXd a(m, m);
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < m; ++j) a(i, j) = rowTimes(p.rows[std::size_t(i)], w.col(j));
  a = 0.5 * (a + a.transpose());
  Eigen::VectorXd b(m);
  for (long i = 0; i < m; ++i) b[i] = rowTimes(p.rows[std::size_t(i)], p.unconstrained) - p.rows[std::size_t(i)].c;

  const double scale = std::max(1.0, a.cwiseAbs().maxCoeff());
  const double small = 1e-13 * scale;
  Eigen::VectorXd f = Eigen::VectorXd::Zero(m), wv = b;
  enum State : char { Untouched, Clamped, Free };
  std::vector<State> state(std::size_t(m), Untouched);
  std::vector<long> clamped;  // rows of C, in the order of the Cholesky factor
  ClampedCholesky chol(m);
  int iterations = 0;
  const int limit = int(20 * m + 100);

  const auto clamp = [&](long j) {
    Eigen::VectorXd col(long(clamped.size()));
    for (std::size_t k = 0; k < clamped.size(); ++k) col[long(k)] = a(clamped[k], j);
    if (!chol.add(col, a(j, j))) return false;
    clamped.push_back(j);
    state[std::size_t(j)] = Clamped;
    return true;
  };
  const auto drive = [&](long d) -> std::string {
    const bool bilateral = p.rows[std::size_t(d)].equality;
    const double sigma = bilateral && wv[d] > 0.0 ? -1.0 : 1.0;
    for (;;) {
      if (++iterations > limit) return "the pivoting did not settle (cycling on degenerate rows)";
      Eigen::VectorXd df = Eigen::VectorXd::Zero(m);
      df[d] = sigma;
      if (!clamped.empty()) {
        Eigen::VectorXd rhs(long(clamped.size()));
        for (std::size_t k = 0; k < clamped.size(); ++k) rhs[long(k)] = -sigma * a(clamped[k], d);
        const Eigen::VectorXd x = chol.solve(rhs);
        for (std::size_t k = 0; k < clamped.size(); ++k) df[clamped[k]] = x[long(k)];
      }
      const Eigen::VectorXd dw = a * df;
      double step = kInfinity;
      long event = -1;
      if (sigma * dw[d] > small) {
        step = -wv[d] / dw[d];
        event = d;
      }
      for (long i = 0; i < m; ++i) {
        if (i == d) continue;
        if (state[std::size_t(i)] == Clamped && !p.rows[std::size_t(i)].equality && df[i] < -small) {
          const double s = -f[i] / df[i];
          if (s < step) {
            step = s;
            event = i;
          }
        } else if (state[std::size_t(i)] == Free && dw[i] < -small) {
          const double s = -wv[i] / dw[i];
          if (s < step) {
            step = s;
            event = i;
          }
        }
      }
      if (event < 0) return "row " + std::to_string(d) + " cannot be brought to hold (its rows conflict)";
      step = std::max(step, 0.0);
      f += step * df;
      wv += step * dw;
      if (event == d) {
        wv[d] = 0.0;
        if (!clamp(d)) return "row " + std::to_string(d) + " depends on the clamped rows (A is singular there)";
        return {};
      }
      if (state[std::size_t(event)] == Clamped) {
        f[event] = 0.0;
        const auto at = std::find(clamped.begin(), clamped.end(), event);
        chol.drop(long(at - clamped.begin()));
        clamped.erase(at);
        state[std::size_t(event)] = Free;
      } else {
        wv[event] = 0.0;
        if (!clamp(event)) return "row " + std::to_string(event) + " depends on the clamped rows (A is singular there)";
      }
    }
  };

  for (long d = 0; d < m; ++d)
    if (p.rows[std::size_t(d)].equality)
      if (std::string why = drive(d); !why.empty()) return failure(why, iterations);
  for (;;) {
    long d = -1;
    double worst = 0.0;
    for (long i = 0; i < m; ++i)
      if (state[std::size_t(i)] == Untouched && wv[i] < -tolerance * std::max(1.0, std::abs(b[i])) && wv[i] < worst) {
        worst = wv[i];
        d = i;
      }
    if (d < 0) break;
    if (std::string why = drive(d); !why.empty()) return failure(why, iterations);
  }

  Solution out;
  out.ok = true;
  out.iterations = iterations;
  out.multipliers = f;
  out.acceleration = p.unconstrained + applyInverseMetricTranspose(p, f);
  return out;
}

}  // namespace tether::core::gauss
