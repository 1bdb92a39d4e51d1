// Gauss's principle of least constraint for unilateral (contact) and bilateral constraints, after
// Redon & Coquillart, "Gauss' least constraints principle and rigid body simulations": the two
// solvers of one problem, in motion space (a nearest-point problem, an active-set method) and in
// contact space (the linear complementarity problem, Dantzig's / Baraff's pivoting). The contact
// dynamics (issue 20) build their rows from collisions and joints and hand them to one of these.
//
// The problem, for the generalized acceleration a of a group of rigid bodies (6 per body: the
// centre of mass's acceleration, then the angular acceleration, world frame):
//
//   a_c = argmin_a  1/2 (a - a_u)^T M (a - a_u)   subject to  J_i a >= c_i  (unilateral rows)
//                                                            J_i a  = c_i  (bilateral rows)
//
// a_u is the unconstrained acceleration, M = diag(m_k 1, I_k) the kinetic metric (block diagonal,
// symmetric positive definite). The same problem in velocities resolves collisions (a -> v+,
// a_u -> v-, c from Poisson's restitution). Both solvers return a_c and the multipliers lambda
// with M (a_c - a_u) = J^T lambda (the constraint forces; lambda_i >= 0 on unilateral rows).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/math.h"

namespace tether::core::gauss {

using Vec6 = Eigen::Matrix<double, 6, 1>;

// One body's block of M: mass and world-frame inertia tensor (symmetric positive definite).
struct BodyMetric {
  double mass = 1.0;
  Mat3 inertia = Mat3::Identity();
};

// A row J_i a >= c_i (or = c_i) touching one or two bodies: J_i a = jacA . a_A + jacB . a_B.
struct Row {
  int bodyA = 0;
  Vec6 jacA = Vec6::Zero();
  int bodyB = -1;  // -1: the row touches body A only (contact with the ground or a fixed body)
  Vec6 jacB = Vec6::Zero();
  double c = 0.0;
  bool equality = false;  // a Barzel-Barr (bilateral) row
};

struct Problem {
  std::vector<BodyMetric> bodies;
  std::vector<Row> rows;
  Eigen::VectorXd unconstrained;  // a_u, 6 per body
};

struct Solution {
  bool ok = false;
  std::string error;            // why not ok: inconsistent constraints, degenerate pivots
  Eigen::VectorXd acceleration;  // a_c
  Eigen::VectorXd multipliers;   // lambda, one per row
  int iterations = 0;            // active-set changes (motion space) or pivots (contact space)
  // Motion space, not ok: the unilateral row that cannot hold together with the active rows (it
  // depends on them and none of them can leave), else -1.
  long conflictRow = -1;
};

// Motion space: the nearest-point problem. With M^-1 = Q Q^T (Q block diagonal: 1/sqrt(m) and the
// Cholesky factor of I^-1) and a = a_u + Q z, the objective is |z|^2 / 2 and the rows become
// g_i . z >= c_i - J_i a_u with g_i = Q^T J_i^T: the point of a polyhedron nearest to the origin,
// solved by the dual active-set method of Goldfarb & Idnani (bilateral rows always active) on the
// g_i themselves (an updated QR factorization of the active ones), never forming J M^-1 J^T.
// Linearly dependent rows (a box on a plane with more contacts than it has freedoms there) are
// handled: an active row that a new one makes redundant leaves the active set.
Solution solveMotionSpace(const Problem& problem, double tolerance = 1e-12);

// The bilateral rows of problems that share them, factored once: the same bodies (metric) and the
// same bilateral rows (Jacobians, in the same order among the problem's bilateral rows), their c
// and the unilateral rows free to differ, as the contact stage's compression, restitution,
// sticking and overlap problems of one group. The method above takes the bilateral rows first, in
// their order, while no unilateral row is active: what that leaves (the QR of their motion-space
// normals, which of them depend on the others) does not depend on c, and the point it reaches is
// the one nearest the origin on their plane, z = Y R^-T h_E, multipliers R^-1 R^-T h_E. So a
// solve with the factor starts there and adds the unilateral rows (and any bilateral row past
// the factored ones) as above: the same active sets, the same KKT point to rounding, without
// redoing the joints' O(n q) Gram-Schmidt steps (a chain of 11 rods on the floor: 30 joint rows
// against 3-6 contact rows, in two or three solves per substep).
class BilateralFactor {
 public:
  explicit BilateralFactor(const Problem& problem);
  bool ok() const { return m_ok; }  // false: bad shape (the solve then says what)

 private:
  friend Solution solveMotionSpace(const Problem&, const BilateralFactor&, double);
  bool m_ok = false;
  std::vector<BodyMetric> m_bodies;  // to check a problem against
  std::vector<Eigen::Matrix<double, 6, 6>> m_metric;  // per body, Q_k (Q Q^T = M^-1)
  std::vector<long> m_rows;        // the bilateral rows' indices, in order
  std::vector<Row> m_copies;       // those rows (their c unused), to check a problem against
  std::vector<long> m_active;      // those that are independent, in the order of R's columns
  std::vector<long> m_dependent;   // those that depend on the ones before them
  Eigen::MatrixXd m_y, m_r;        // Y (n x q) and R (q x q), q = m_active.size()
};
Solution solveMotionSpace(const Problem& problem, const BilateralFactor& factor, double tolerance = 1e-12);

// Contact space: the LCP  w = A lambda + b >= 0, lambda >= 0, w . lambda = 0 (w = 0 and lambda free
// on bilateral rows) with A = J M^-1 J^T and b = J a_u - c, by Dantzig's principal pivoting as
// Baraff gives it ("Fast contact force computation for nonpenetrating rigid bodies", 1994), with an
// updated Cholesky factorization of the clamped rows' block of A. A singular block (dependent
// rows) is reported, not solved: the cross-check for problems with independent rows.
Solution solveContactSpace(const Problem& problem, double tolerance = 1e-12);

// Projected Gauss-Seidel (sequential impulses; the solver of Bullet and Box2D), for groups too large
// for the active-set methods, whose dense factors grow as (6 n) q: row by row, the multiplier
// that meets row i alone with the others held,
//   lambda_i <- lambda_i + (c_i - J_i a) / (J_i M^-1 J_i^T),  clamped to >= 0 on unilateral rows,
// and a += M^-1 J_i^T (its change), sweeping until no row moves by more than tolerance (in the
// units of c, scaled by max(1, |c_i|)) or maxSweeps. Each sweep is O(rows); it converges to the same
// KKT point (the problem is strictly convex in a), linearly, slowest along long chains of
// contacts (a stack: about its height in sweeps per halving of the error). iterations: the
// sweeps taken; ok is false only for bad input. The error when it stops at maxSweeps is the
// largest violation (largestViolation), which the caller may check.
Solution solveProjectedGaussSeidel(const Problem& problem, double tolerance, int maxSweeps);

// M^-1 J^T lambda, J a and the largest violation max(c_i - J_i a) (|.| on bilateral rows): the
// pieces tests and callers check a solution with.
Eigen::VectorXd applyInverseMetricTranspose(const Problem& problem, const Eigen::VectorXd& lambda);
Eigen::VectorXd applyJacobian(const Problem& problem, const Eigen::VectorXd& a);
double largestViolation(const Problem& problem, const Eigen::VectorXd& a);

}  // namespace tether::core::gauss
