#include "core/contact.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <Eigen/Cholesky>

#include "core/constraint.h"
#include "core/forces.h"

namespace tether::core {

namespace {

using gauss::Vec6;

int root(std::vector<int>& parent, int i) {
  while (parent[std::size_t(i)] != i) {
    parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
    i = parent[std::size_t(i)];
  }
  return i;
}
void join(std::vector<int>& parent, int a, int b) {
  a = root(parent, a);
  b = root(parent, b);
  if (a != b) parent[std::size_t(std::max(a, b))] = std::min(a, b);
}

// exp of a rotation vector as a unit quaternion: (cos |t|/2, sin(|t|/2) t/|t|).
Quat rotationOf(const Vec3& theta) {
  const double a = theta.norm();
  if (!(a > 0.0)) return Quat::Identity();
  const Vec3 s = (std::sin(0.5 * a) / a) * theta;
  return Quat(std::cos(0.5 * a), s.x(), s.y(), s.z());
}

// One contact as a row of the group's problem. A point p on body k (centre x_k) moves with
// v_k + w_k x (p - x_k), so n . (relative velocity of the points at the contact's midpoint p)
//   = n . v_A + ((p - x_A) x n) . w_A - n . v_B - ((p - x_B) x n) . w_B
// (a x b . c = (b x c) . a): the row's Jacobian is (n, r_A x n) on A and -(n, r_B x n) on B; the
// same row maps a small displacement (translation, rotation vector) to the change of the gap.
struct ContactRow {
  int report = -1;             // index in m_reports
  int body[2] = {-1, -1};      // moving bodies (slot 1 -1: the other side does not move)
  Vec6 jac[2];
  double approach = 0.0;       // J u: < 0 approaching, m/s
  double restitution = 0.0;    // of the pair, applied only to an impact (see restitutes)
  double depth = 0.0;          // m
  double pull = 0.0;           // the approach's rate of change over the kick, J (u - u_0) / h (else J g), m/s^2
  bool restitutes = false;
  // leaving faster than the resting speed before this stage (the bounce of an earlier step): its
  // overlap is left for the motion to clear, as a bouncing contact's is (see contact.h)
  bool leaves = false;
  // friction: the rows of two tangent directions (t1, t2 = n x t1) per side, like jac with t for n
  Vec6 tangent[2][2];          // [side][direction]
  double friction = 0.0, staticFriction = 0.0;  // the pair's coefficients
  double rolling = 0.0;        // the pair's rolling resistance, m (the sum of its two)
  Vec3 point = Vec3::Zero(), normal = Vec3::Zero();  // the contact's midpoint and the manifold's normal (B to A)
  int manifold = -1;           // its manifold's index (one pair of bodies, or a body and a plane)
  bool near = false;           // not touching yet, apart by -depth < kNearMargin: a row of the overlap projection only
  bool atJoint = false;        // a joint's stop (Contact::atJoint)
};

Vec6 contactJacobian(const Vec3& n, const Vec3& p, const Vec3& x, double sign) {
  Vec6 j;
  j.head<3>() = sign * n;
  j.tail<3>() = sign * (p - x).cross(n);
  return j;
}

// Two unit tangents with (t1, t2, n) right-handed: t1 along the axis least aligned with n.
std::pair<Vec3, Vec3> tangents(const Vec3& n) {
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(n[i]) < std::abs(n[k])) k = i;
  const Vec3 t1 = Vec3::Unit(k).cross(n).normalized();
  return {t1, n.cross(t1)};
}

// A resting group's impulses of the last step, per contact of this one, for frictionPhase to
// start from (see ContactStage::resolve): normal and friction (normal NaN: none), and rolling
// resistance's (x NaN: none).
struct Warm {
  std::vector<double> normal;
  std::vector<Eigen::Vector2d> friction, rolling;
};

// m: how far a resting contact's point may have moved since the last step and still start from
// its forces there (a resting body creeps by nanometres a step; a contact point that jumped is a
// different contact, at another corner or edge)
constexpr double kWarmReach = 1e-4;
constexpr double kFrictionTolerance = 1e-9;  // m/s: the sweeps end when no rate changes by more
// m/s: above this slip a small group is first solved stuck (stickingStart). Not kFrictionTolerance:
// below it the sweeps stop after one, and the slip one sweep leaves still grew, to 2e-10 m/s in
// the ten-box stack's minute (with this, under 1e-12: 4 nm an hour).
constexpr double kStickingSlip = 1e-12;

// Coulomb friction, beyond the paper (it leaves friction for future work). After the exact
// frictionless solve, projected Gauss-Seidel (sequential impulses, as Box2D and Bullet) over
// three kinds of rows together, each impulse accumulated from its value so far:
//   friction: per contact a 2 x 2 block (tangents t1, t2): the impulse that stops the slip
//     v_t = J_t u, f - W^-1 v_t with W = J_t M^-1 J_t^T, if it lies in the static disc
//     |f| <= mu_s lambda_n (the contact sticks), else mu_k lambda_n against the slip (it slides;
//     the force of maximal dissipation, which the disc's radial projection is not where W is not
//     isotropic: a sliding box's corners then pulled sideways and it slid 8 % too fast). (Static
//     or sliding was once chosen by the slip at the start of this phase, sliding above 1 mm/s; but
//     that slip holds this step's own kick, g h sin theta on a slope, 3.8 mm/s at 1 ms and 0.4 rad:
//     a box with mu_k = 0.3 < tan theta = 0.42 < mu_s = 0.5 slid down as if it had no static
//     friction.) A slider stops when one step's impulse within mu_s lambda_n stops it, where
//     Coulomb's stops it at v = 0 with mu_k: at most the step's kick sooner;
//   rolling resistance, where the pair has it (mu_r, m): per contact a 2 x 2 block on the two
//     bodies' relative turn about the tangents, rows (0, t_d) on A and (0, -t_d) on B: a torque
//     in the contact's plane against the rolling, at most mu_r lambda_n (the normal force's line
//     moved mu_r ahead of the contact as the surfaces give; rolling friction as Bullet and MuJoCo
//     have it). The same law as friction's with mu_s = mu_k = mu_r: it stops the roll where that
//     takes at most mu_r lambda_n, else gives mu_r lambda_n against it. A solid ball of radius r
//     rolling on a level floor: m a = F, I a / r = -F r - tau (rolling: w = v / r), so
//     a (m r + I / r) = -tau and with tau = mu_r m g, I = 2/5 m r^2 it slows at 5/7 g mu_r / r;
//     at rest on a slope it is held while F r = tau, F = m g sin theta, tau <= mu_r m g cos theta:
//     tan theta <= mu_r / r, and steeper it rolls down at 5/7 g (sin theta - mu_r / r cos theta);
//   and the same mu_r against spinning about the normal (torsional friction: the contact patch
//     resists turning in its plane as it resists rolling over its edge; MuJoCo and Bullet give it
//     a coefficient of its own): a 1-dof block on the relative turn about n, rows (0, n) on A and
//     (0, -n) on B, its torque at most mu_r lambda_n. A ball spinning in place about the vertical
//     at w0, I = 2/5 m r^2: I dw/dt = -mu_r m g, so w falls by 5 mu_r g / (2 r^2) each second and
//     stops at t = 2 r^2 w0 / (5 mu_r g) (a helper's ball spun for ever). (As a 2 x 2 block whose
//     second direction has no row, J = 0, and W's entry 1 for its inverse: its rate and impulse
//     there stay 0, and the disc is the interval |f| <= mu_r lambda_n);
//   normals: lambda_n <- max(0, lambda_n + (c - v_n) / w), c the normal rate the exact solve gave
//     (0 resting, the bounce's speed bouncing), so friction's torque is answered by the normals
//     (a box held on a slope leans on its downhill edge and does not tip); a contact the exact
//     solve left without an impulse has c = 0: v_n >= 0 with lambda_n = 0 while it separates,
//     as in the frictionless problem (its rate there, c > 0, is how the structure would come
//     apart without friction: held at it, the card house standing by friction took 464 us per
//     step for its sweeps, 238 at c = 0);
//   joints: all of them as one block, solved exactly, last in each sweep:
//     lambda_E <- lambda_E + G^-1 (c_E - J_E u),   G = J_E M^-1 J_E^T,
//   c the rates the step gave them. Row by row, a change at one end of a chain crossed one link
//   per sweep, and the sweeps took 72 % of the run of a chain of 11 rods falling onto the floor
//   (perf; 70-340 us per substep, 22-94 with the block). As a block, whatever the sweeps leave
//   of friction and the normals, they end with every joint at its rate (a chain sliding on the
//   floor with 30 sweeps: 1.1e-8 m of joint deviation in 3 s without projection, 7.4e-7 m row by
//   row);
// each change applied as u += M^-1 J^T (change), until a sweep changes no row's rate by more
// than 1e-9 m/s (a contact that sticks then creeps by at most 3.6 um an hour) or no impulse by
// more than 1e-10 of the largest, or maxSweeps. (With the impulses' test alone a resting stack
// of ten boxes took 0 sweeps a step for its first 30 s and 83 by its 60th, as round-off broke
// its symmetry and the sweeps chased impulses that change no rate that matters. Starting from
// the last step's friction impulses alone did not help: the resting torus chain still took 250
// sweeps a step, the stack more, as the normals started from the frictionless solve's each step.
// A resting group now starts from its last step's normal and friction impulses together, warm;
// see ContactStage::resolve.) It converges to a point where each contact sticks
// or slides against its slip at the disc's edge, the normals keep their rates and the joints theirs.
// impulse (normals, then joints, as in p's rows) and u are updated; out gets each contact's
// friction impulse. Returns the number of sweeps made (0 when no contact has friction to apply).
// (out: the contacts' friction impulses to start from, if it has one per contact, else zero,
// already applied to u; warm: impulses to start from, per contact, their change applied to u
// here after the normal rows' targets are read: NaN where it has none)
int frictionPhase(const std::vector<ContactRow>& rows, const std::vector<int>& contactRows, const std::vector<int>& local,
                   const gauss::Problem& p, int maxSweeps, Eigen::VectorXd& impulse, Eigen::VectorXd& u,
                   std::vector<Eigen::Vector2d>& out, std::vector<Eigen::Vector3d>& rollingOut, const Warm* warm = nullptr) {
  const std::vector<Eigen::Vector2d> start = out.size() == contactRows.size() ? out : std::vector<Eigen::Vector2d>{};
  out.assign(contactRows.size(), Eigen::Vector2d::Zero());
  rollingOut.assign(contactRows.size(), Eigen::Vector3d::Zero());
  std::vector<Mat3> invI(p.bodies.size());
  for (std::size_t k = 0; k < p.bodies.size(); ++k) invI[k] = p.bodies[k].inertia.inverse();
  const auto inverseMetric = [&](int b, const Vec6& j) {
    Vec6 w;
    w.head<3>() = j.head<3>() / p.bodies[std::size_t(b)].mass;
    w.tail<3>() = invI[std::size_t(b)] * j.tail<3>();
    return w;
  };
  struct Block {
    int body[2] = {-1, -1};    // group-local
    Vec6 t[2][2], w[2][2];     // [side][direction]: J_t and M^-1 J_t^T
    Eigen::Matrix2d W, inverseW;
    double stick = 0.0, slide = 0.0;  // mu_s (at least mu_k) and mu_k; rolling: the pair's rolling resistance (m), both
    Eigen::Vector2d f = Eigen::Vector2d::Zero();
    std::size_t row = 0;       // its normal row in p
    enum class Kind { Friction, Rolling, Spin } kind = Kind::Friction;  // Rolling, Spin: angular rows, mu_r
  };
  using Kind = Block::Kind;
  const auto rate = [&](const Block& b) {
    Eigen::Vector2d v = Eigen::Vector2d::Zero();
    for (int s = 0; s < 2 && b.body[s] >= 0; ++s)
      for (int d = 0; d < 2; ++d) v[d] += b.t[s][d].dot(u.segment<6>(6 * b.body[s]));
    return v;
  };
  // a block's impulse set to f: its change applied to u, u += M^-1 J_t^T (f - f_before)
  const auto setImpulse = [&](Block& b, const Eigen::Vector2d& f) {
    const Eigen::Vector2d d = f - b.f;
    b.f = f;
    for (int s = 0; s < 2 && b.body[s] >= 0; ++s) u.segment<6>(6 * b.body[s]) += b.w[s][0] * d[0] + b.w[s][1] * d[1];
    return d;
  };
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < contactRows.size(); ++i) {
    const ContactRow& cr = rows[std::size_t(contactRows[i])];
    // (every contact: one the exact solve left without a normal impulse, a fourth corner of a
    // box, may take one as the normals answer friction's torque)
    for (const Kind kind : {Kind::Friction, Kind::Rolling, Kind::Spin}) {
      Block b;
      b.row = i;
      b.kind = kind;
      b.slide = kind != Kind::Friction ? cr.rolling : cr.friction;
      b.stick = kind != Kind::Friction ? cr.rolling : std::max(cr.friction, cr.staticFriction);
      if (!(b.stick > 0.0)) continue;
      Eigen::Matrix2d W = Eigen::Matrix2d::Zero();
      for (int s = 0; s < 2 && cr.body[s] >= 0; ++s) {
        b.body[s] = local[std::size_t(cr.body[s])];
        for (int d = 0; d < 2; ++d) {
          if (kind == Kind::Rolling) b.t[s][d] << Vec3::Zero(), cr.tangent[s][d].head<3>();  // the turn about t_d, +A -B
          else if (kind == Kind::Spin) b.t[s][d] << Vec3::Zero(), (d == 0 ? Vec3(cr.jac[s].head<3>()) : Vec3::Zero());  // about n
          else b.t[s][d] = cr.tangent[s][d];
          b.w[s][d] = inverseMetric(b.body[s], b.t[s][d]);
        }
        for (int d = 0; d < 2; ++d)
          for (int e = 0; e < 2; ++e) W(d, e) += b.t[s][d].dot(b.w[s][e]);
      }
      if (kind == Kind::Spin) W(1, 1) = 1.0;  // (no second row)
      b.W = W;
      b.inverseW = W.inverse();
      if (!start.empty() && kind == Kind::Friction) b.f = start[i];
      if (b.inverseW.allFinite()) blocks.push_back(b);
    }
  }
  if (blocks.empty()) return 0;

  // the normal and joint rows, to hold at the rates the exact solve left them
  struct Line {
    Vec6 wA, wB;
    double diag = 0.0, target = 0.0;
  };
  std::vector<Line> lines(p.rows.size());
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const gauss::Row& r = p.rows[i];
    Line& l = lines[i];
    l.wA = inverseMetric(r.bodyA, r.jacA);
    l.diag = r.jacA.dot(l.wA);
    l.target = r.jacA.dot(u.segment<6>(6 * r.bodyA));
    if (r.bodyB >= 0) {
      l.wB = inverseMetric(r.bodyB, r.jacB);
      l.diag += r.jacB.dot(l.wB);
      l.target += r.jacB.dot(u.segment<6>(6 * r.bodyB));
    }
    if (!r.equality && !(impulse[long(i)] > 0.0)) l.target = std::min(l.target, 0.0);
  }
  if (warm) {  // the last step's impulses, where it had this contact: their change applied to u
    for (std::size_t i = 0; i < contactRows.size(); ++i) {
      if (!std::isfinite(warm->normal[i])) continue;
      const gauss::Row& r = p.rows[i];
      const double d = std::max(0.0, warm->normal[i]) - impulse[long(i)];
      impulse[long(i)] += d;
      u.segment<6>(6 * r.bodyA) += d * lines[i].wA;
      if (r.bodyB >= 0) u.segment<6>(6 * r.bodyB) += d * lines[i].wB;
    }
    for (Block& b : blocks) {
      if (b.kind == Kind::Spin) continue;  // (it starts from none)
      const bool rolling = b.kind == Kind::Rolling;
      if (!std::isfinite(rolling ? warm->rolling[b.row].x() : warm->normal[b.row])) continue;
      Eigen::Vector2d f = rolling ? warm->rolling[b.row] : warm->friction[b.row];
      const double bound = b.stick * impulse[long(b.row)];
      if (f.norm() > bound) f *= bound / f.norm();
      setImpulse(b, f);
    }
  }
  // the joints' rows as one block, solved exactly in each sweep: lambda_E += G^-1 (c_E - J_E u),
  // G = J_E M^-1 J_E^T (regularized by 1e-12 of its mean diagonal, for joints that hold the same
  // freedom twice). G is dense: with more than kJointBlock rows (a chain of 64 links; a factor
  // of 2.4e6 flops) they are swept one by one as before (a 1 000-link chain lying on the floor
  // would factor 3 000 x 3 000 every substep).
  constexpr std::size_t kJointBlock = 192;
  std::vector<std::size_t> joints;
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    if (p.rows[i].equality && lines[i].diag > 0.0) joints.push_back(i);
  if (joints.size() > kJointBlock) joints.clear();
  Eigen::LDLT<Eigen::MatrixXd> jointBlock;
  Eigen::MatrixXd jointInverse;  // G^-1, once the sweeps go on (below)
  constexpr int kInverseAfter = 8;
  Eigen::VectorXd jointRate;
  if (!joints.empty()) {
    const long ne = long(joints.size());
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(ne, ne);
    const auto side = [&](const gauss::Row& r, int s) { return s == 0 ? std::pair{r.bodyA, &r.jacA} : std::pair{r.bodyB, &r.jacB}; };
    for (long a = 0; a < ne; ++a)
      for (long b = a; b < ne; ++b) {
        const gauss::Row &ra = p.rows[joints[std::size_t(a)]], &rb = p.rows[joints[std::size_t(b)]];
        const Line& lb = lines[joints[std::size_t(b)]];
        double g = 0.0;
        for (int s = 0; s < 2; ++s)
          for (int t = 0; t < 2; ++t) {
            const auto [bodyA, jac] = side(ra, s);
            const int bodyB = t == 0 ? rb.bodyA : rb.bodyB;
            if (bodyA >= 0 && bodyA == bodyB) g += jac->dot(t == 0 ? lb.wA : lb.wB);
          }
        G(a, b) = G(b, a) = g;
      }
    G.diagonal().array() += 1e-12 * G.diagonal().mean();
    jointBlock.compute(G);
    jointRate.resize(ne);
  }
  int swept = 0;
  for (int sweep = 0; sweep < maxSweeps; ++sweep) {
    swept = sweep + 1;
    double largest = 0.0;  // the largest change of a rate this sweep made, m/s
    double moved = 0.0, scale = 1e-14;  // the largest change of an impulse, and the largest impulse, N s
    for (Block& b : blocks) {
      const Eigen::Vector2d slip = rate(b);
      Eigen::Vector2d f = b.f - b.inverseW * slip;
      if (f.norm() > b.stick * impulse[long(b.row)]) {
        // sliding: the most dissipative force on the kinetic disc's edge, against the slip
        const double bound = b.slide * impulse[long(b.row)];
        const double speed = slip.norm();
        f = speed > 0.0 ? Eigen::Vector2d(-bound / speed * slip) : Eigen::Vector2d(f * (bound / f.norm()));
      }
      const Eigen::Vector2d d = setImpulse(b, f);
      largest = std::max(largest, (b.W * d).norm());
      moved = std::max(moved, d.norm());
      scale = std::max(scale, f.norm());
    }
    for (std::size_t i = 0; i < p.rows.size(); ++i) {
      const gauss::Row& r = p.rows[i];
      const Line& l = lines[i];
      if (!(l.diag > 0.0) || (r.equality && !joints.empty())) continue;
      double v = r.jacA.dot(u.segment<6>(6 * r.bodyA));
      if (r.bodyB >= 0) v += r.jacB.dot(u.segment<6>(6 * r.bodyB));
      double next = impulse[long(i)] + (l.target - v) / l.diag;
      if (!r.equality) next = std::max(0.0, next);
      const double d = next - impulse[long(i)];
      impulse[long(i)] = next;
      u.segment<6>(6 * r.bodyA) += d * l.wA;
      if (r.bodyB >= 0) u.segment<6>(6 * r.bodyB) += d * l.wB;
      largest = std::max(largest, std::abs(d) * l.diag);
      moved = std::max(moved, std::abs(d));
      scale = std::max(scale, std::abs(next));
    }
    if (!joints.empty()) {  // last: the sweeps end with the joints at their rates
      for (std::size_t k = 0; k < joints.size(); ++k) {
        const gauss::Row& r = p.rows[joints[k]];
        double v = r.jacA.dot(u.segment<6>(6 * r.bodyA));
        if (r.bodyB >= 0) v += r.jacB.dot(u.segment<6>(6 * r.bodyB));
        jointRate[long(k)] = lines[joints[k]].target - v;
      }
      // From the eighth sweep on (a group that sweeps on, often to 500), G^-1 itself: one
      // product a sweep instead of the factor's two triangular solves and permutation (a third of
      // a rod chain's run on the floor; the inverse costs about what ne solves do). Only where G
      // is well conditioned (its pivots within 1e8 of each other): its rounding error is cond(G)
      // times the solve's, and joints that hold one freedom twice make G singular but for the
      // regularization.
      if (sweep == kInverseAfter) {
        const Eigen::VectorXd pivots = jointBlock.vectorD().cwiseAbs();
        if (pivots.minCoeff() > 1e-8 * pivots.maxCoeff()) jointInverse = jointBlock.solve(Eigen::MatrixXd::Identity(jointRate.size(), jointRate.size()));
      }
      const Eigen::VectorXd d = jointInverse.size() > 0 ? Eigen::VectorXd(jointInverse * jointRate) : Eigen::VectorXd(jointBlock.solve(jointRate));
      for (std::size_t k = 0; k < joints.size(); ++k) {
        const std::size_t i = joints[k];
        const gauss::Row& r = p.rows[i];
        const double dk = d[long(k)];
        impulse[long(i)] += dk;
        u.segment<6>(6 * r.bodyA) += dk * lines[i].wA;
        if (r.bodyB >= 0) u.segment<6>(6 * r.bodyB) += dk * lines[i].wB;
        moved = std::max(moved, std::abs(dk));
        scale = std::max(scale, std::abs(impulse[long(i)]));
      }
      largest = std::max(largest, jointRate.lpNorm<Eigen::Infinity>());
    }
    if (largest <= kFrictionTolerance || moved <= 1e-10 * scale) break;
  }
  for (const Block& b : blocks) {
    if (b.kind == Kind::Friction) out[b.row] = b.f;
    else if (b.kind == Kind::Rolling) rollingOut[b.row].head<2>() = b.f;
    else rollingOut[b.row].z() = b.f.x();
  }
  return swept;
}

// Pairs apart by less than this are rows of the overlap projection (not of the velocity
// problem: they touch nothing, so they take no impulse and do not bounce), with the gap as the
// room the displacement has, n . d >= depth - slop (depth < 0). Without them the projection moved
// a body out of one neighbour into another it did not know about, 0.5-1 mm deep, which the next
// step pushed it back out of: in the 1 000-body pile (tests/bench/pile_bench.cpp) spheres
// squeezed between two others chattered so, and the pile kept 1-3 mm of overlap unless the step
// was cut into 2-8 substeps (which only repeated the projection more often). With them it rests
// at 0.1 mm in one step. 1 mm: the most a projection moves a body that rests (its overlap per
// step is g h^2 plus what the velocity solve leaves), well below the bodies' 1 cm.
// (Two boxes have no near pair: Bullet's box-box test reports touching boxes only.)
constexpr double kNearMargin = 1e-3;  // m

// A group's problem by the active-set method in motion space (exact: the KKT point to rounding)
// while its dense factor, (6 n) x q for n bodies and q rows, stays small; larger groups (piles) by
// projected Gauss-Seidel, whose sweeps cost O(q): 30 sweeps (friction's too) or until no row's
// rate moves by 1e-9 m/s (m for the positions). Measured on a pile of 216 spheres in a box (one
// group, about 700 rows): the active set took 186 ms per step. On the pile benchmark's 216
// spheres and capsules (tests/bench/pile_bench.cpp) 100 sweeps took 13 ms per step, 30 took 6,
// both keeping the overlap within 0.03 mm (Bullet's solver takes 10 by default).
constexpr long kExactSize = 6 * 48 * 192;
constexpr int kSweeps = 30;
bool exactSize(const gauss::Problem& p) { return 6 * long(p.bodies.size()) * long(p.rows.size()) <= kExactSize; }
// A contact's row of a group's problem: J u >= c (local: the bodies' places in the group).
gauss::Row contactRow(const ContactRow& cr, const std::vector<int>& local, double c) {
  gauss::Row row{.bodyA = local[std::size_t(cr.body[0])], .jacA = cr.jac[0], .bodyB = -1, .jacB = Vec6::Zero(), .c = c};
  if (cr.body[1] >= 0) {
    row.bodyB = local[std::size_t(cr.body[1])];
    row.jacB = cr.jac[1];
  }
  return row;
}

// (joints: the factor of the group's joint rows, shared by its problems; see gauss::BilateralFactor)
gauss::Solution solve(const gauss::Problem& p, const gauss::BilateralFactor* joints) {
  if (exactSize(p)) return joints ? gauss::solveMotionSpace(p, *joints) : gauss::solveMotionSpace(p);
  return gauss::solveProjectedGaussSeidel(p, 1e-9, kSweeps);
}

// Solves p, leaving out the contacts that cannot hold together with its joints. A contact's row
// that depends on the joints' rows (and on the contacts active with them) and that they leave
// short (gauss::Solution::conflictRow) leaves p, and the solve repeats without it (joints, the
// factor of p's joint rows if any, redone in place for the rows' new places). Returns the
// solution and the places in p, as given, of the rows left out, ascending.
// Why: a contact on a joint's line is a combination of the joint's rows -- two plates hinged at
// the edge where they touch: Bullet's points at the edge's ends lie on the hinge's axis, beyond
// the reach of its anchor -- and the joint's rates (its drift correction) can leave it short by
// 1e-4. Failing the group then left out all its contacts, the floor's too: the plates fell
// through the floor, 11-228 m in 3 s.
std::pair<gauss::Solution, std::vector<int>> solveLeavingOut(gauss::Problem& p, std::optional<gauss::BilateralFactor>& joints) {
  std::vector<int> place(p.rows.size()), out;
  std::iota(place.begin(), place.end(), 0);
  for (;;) {
    gauss::Solution s = solve(p, joints ? &*joints : nullptr);
    if (s.ok || s.conflictRow < 0) {
      std::sort(out.begin(), out.end());
      return {std::move(s), std::move(out)};
    }
    out.push_back(place[std::size_t(s.conflictRow)]);
    p.rows.erase(p.rows.begin() + s.conflictRow);
    place.erase(place.begin() + s.conflictRow);
    if (joints) joints.emplace(p);
  }
}

// A contact's slip (its rate along its two tangents) at the group's velocities u (local: the
// bodies' places in the group).
Eigen::Vector2d slipOf(const ContactRow& cr, const std::vector<int>& local, const Eigen::VectorXd& u) {
  Eigen::Vector2d v = Eigen::Vector2d::Zero();
  for (int s = 0; s < 2 && cr.body[s] >= 0; ++s)
    for (int d = 0; d < 2; ++d) v[d] += cr.tangent[s][d].dot(u.segment<6>(6 * local[std::size_t(cr.body[s])]));
  return v;
}

// Friction where every contact sticks, solved exactly, for a group small enough for the
// active-set method (exactSize), as the start of frictionPhase's sweeps.
//
// Why: the sweeps converge slowest where friction matters most, in a resting structure. In a
// stack of ten boxes each change passes up and down the stack through four corners per face, and
// the sweeps stopped (at 500 a step, or by their tolerance) with slip of up to 1e-8 m/s left.
// That slip is not noise that averages out: the stack's sideways motion grew from 1e-13 m at 5 s
// to 4e-5 m at 240 s, tenfold every 10 s, and the sweeps took 600-1 000 us a step chasing it.
// (Converged to 1e-14 m/s, it stayed below 1e-10 m; no friction, below 1e-11 m.)
//
// How: each patch -- a manifold's contacts that share a normal: a face on a face or a plane, a
// rod along a plane -- is held from slipping by three equality rows J u = 0 on the relative
// motion of its two bodies: two tangent translations at its centre and the turn about its normal
// (a lone point contact: the two translations only, a point has no torsional friction). Rows per
// contact instead (eight for a box's four corners, three of them independent) made the method's
// multipliers huge and cancelling (4e8 N s where the weight is 0.4) as rounding made them not quite
// dependent. With the contact rows (J u >= 0) and the joints' rows the group's problem is solved
// once more by the same principle -- the admissible motion nearest the unconstrained one in the
// kinetic metric -- now with every patch stuck, exact to rounding. Each patch's friction (a force F
// at its centre and a torque tau about n) is shared among its contacts by their normal impulses
// lambda_i: with c the centre of pressure (sum lambda_i p_i / Lambda) and d_i = p_i - c in the plane,
//   F_i = (lambda_i / Lambda) F + k lambda_i n x d_i,   k = tau_c / sum lambda_i |d_i|^2,
// which gives the same force (sum lambda_i d_i = 0) and the same torque about n
// (sum d_i x (n x d_i) lambda_i = n sum lambda_i |d_i|^2), tau_c being the torque about c,
// tau + n . ((centre - c) x F). Where every share lies in its static disc (|F_i| <= mu_s lambda_i),
// that is a Coulomb solution where everything sticks, found in one solve: the sweeps start from
// it and stop at their first. Where one does not (a contact slides, or the method put a patch's
// load on fewer corners than its friction needs: the card house's leaning cards), it is not used
// and the sweeps start from the frictionless result (started from it there, they ended elsewhere
// and a card slid off).
//
// Not for a group that bounces (the compression's rows are not what restitution left). Returns
// false, changing nothing, when nothing slips by more than kStickingSlip, a share lies outside its
// disc, or the stuck problem has no exact solution.
bool stickingStart(const std::vector<ContactRow>& rows, const std::vector<int>& contactRows, const std::vector<int>& local,
                   const gauss::Problem& p, const gauss::BilateralFactor* joints, Eigen::VectorXd& impulse,
                   Eigen::VectorXd& u, std::vector<Eigen::Vector2d>& friction) {
  const auto row = [&](std::size_t i) -> const ContactRow& { return rows[std::size_t(contactRows[i])]; };
  struct Patch {
    std::vector<std::size_t> contacts;  // in contactRows
    Vec3 centre = Vec3::Zero();         // the mean of their points (or its one loaded point)
    bool held = true;                   // false: let go (it separated in an earlier solve)
    bool twist = false;                 // held from turning about its normal too
  };
  std::vector<Patch> patches;
  bool slips = false;
  for (std::size_t i = 0; i < contactRows.size(); ++i) {
    const ContactRow& cr = row(i);
    if (!(std::max(cr.friction, cr.staticFriction) > 0.0)) continue;
    auto at = std::find_if(patches.begin(), patches.end(), [&](const Patch& pa) {
      const ContactRow& first = row(pa.contacts.front());
      return first.manifold == cr.manifold && first.normal.dot(cr.normal) > 1.0 - 1e-9;
    });
    if (at == patches.end()) at = patches.insert(patches.end(), Patch{});
    at->contacts.push_back(i);
    const double slip = slipOf(cr, local, u).norm();
    slips = slips || slip > kStickingSlip;
  }
  if (!slips) return false;
  for (Patch& pa : patches) {
    for (std::size_t i : pa.contacts) pa.centre += row(i).point;
    pa.centre /= double(pa.contacts.size());
    pa.twist = pa.contacts.size() > 1;
  }

  // A patch the stuck solution leaves with friction but no load separates there: it is let go.
  // One that it leaves loaded at one of its points alone while holding it from turning is a point
  // contact there, which has no torsional friction: it is held at that point without the twist
  // (this happened to 1-2 groups a step of a shaken bin of 25 bodies settling, which then swept
  // 40-80 times each). Either way the problem is solved again (at most three times after the first).
  for (int attempt = 0; attempt < 4; ++attempt) {
    gauss::Problem stick = p;
    for (const Patch& pa : patches) {
      if (!pa.held) continue;
      const ContactRow& first = row(pa.contacts.front());
      for (int d = 0; d < (pa.twist ? 3 : 2); ++d) {
        gauss::Row r{.bodyA = -1, .c = 0.0, .equality = true};
        for (int s = 0; s < 2 && first.body[s] >= 0; ++s) {
          Vec6 j;
          if (d < 2) {  // the translation along t_d at the centre: (t, (centre - x) x t), from the first contact's row
            const Vec3 t = first.tangent[s][d].head<3>();
            j.head<3>() = t;
            j.tail<3>() = first.tangent[s][d].tail<3>() + (pa.centre - first.point).cross(t);
          } else {  // the turn about the normal
            j.head<3>().setZero();
            j.tail<3>() = first.jac[s].head<3>();
          }
          (s == 0 ? r.bodyA : r.bodyB) = local[std::size_t(first.body[s])];
          (s == 0 ? r.jacA : r.jacB) = j;
        }
        stick.rows.push_back(r);
      }
    }
    if (stick.rows.size() == p.rows.size() || !exactSize(stick)) return false;
    const gauss::Solution sol = solve(stick, joints);
    if (!sol.ok) return false;

    // each held patch's friction shared among its contacts
    std::vector<Eigen::Vector2d> shares(contactRows.size(), Eigen::Vector2d::Zero());
    bool again = false;
    long at = long(p.rows.size());
    for (Patch& pa : patches) {
      if (!pa.held) continue;
      const ContactRow& first = row(pa.contacts.front());
      const bool twist = pa.twist;
      const Vec3 n = first.jac[0].head<3>();  // the normal as it acts on the first side's body
      const Vec3 force = first.tangent[0][0].head<3>() * sol.multipliers[at] + first.tangent[0][1].head<3>() * sol.multipliers[at + 1];
      double tau = twist ? sol.multipliers[at + 2] : 0.0;
      at += twist ? 3 : 2;
      double total = 0.0;
      Vec3 pressure = Vec3::Zero();
      for (std::size_t i : pa.contacts) {
        const double l = std::max(0.0, sol.multipliers[long(i)]);
        total += l;
        pressure += l * row(i).point;
      }
      if (!(total > 0.0)) {
        pa.held = false;
        again = true;
        continue;
      }
      pressure /= total;
      tau += n.dot((pa.centre - pressure).cross(force));
      const auto inPlane = [&](const Vec3& v) { return Vec3(v - n * n.dot(v)); };
      // spread: the loads' second moment about their centre. Where it is rounding's (below 1e-12
      // of the patch's extent squared, plus 1e-24 m^2: a lone contact's came out at 1e-36 m^2, not
      // 0), the patch is loaded at one point, which cannot take a torque about n. If the patch was
      // held at that point without the twist, tau is rounding's too (shared by k = tau / spread,
      // a lone contact's rounding asked 1e17 times its torque of it, and the start was refused);
      // else it is held again at that point without the twist.
      double spread = 0.0, extent = 0.0;
      for (std::size_t i : pa.contacts) {
        spread += std::max(0.0, sol.multipliers[long(i)]) * inPlane(row(i).point - pressure).squaredNorm();
        extent = std::max(extent, inPlane(row(i).point - pa.centre).squaredNorm());
      }
      const double negligible = 1e-12 * extent + 1e-24;  // m^2
      if (spread <= total * negligible) {
        spread = 0.0;
        if (twist || inPlane(pa.centre - pressure).squaredNorm() > negligible) {
          pa.twist = false;
          pa.centre = pressure;
          again = true;
          continue;
        }
      }
      const double k = spread > 0.0 ? tau / spread : 0.0;
      for (std::size_t i : pa.contacts) {
        const ContactRow& cr = row(i);
        const double l = std::max(0.0, sol.multipliers[long(i)]);
        const Vec3 f = (l / total) * force + k * l * n.cross(inPlane(cr.point - pressure));
        shares[i] = Eigen::Vector2d(f.dot(cr.tangent[0][0].head<3>()), f.dot(cr.tangent[0][1].head<3>()));
        if (shares[i].norm() > std::max(cr.friction, cr.staticFriction) * l * (1.0 + 1e-9) + 1e-15) return false;
      }
    }
    if (again) continue;
    u = sol.acceleration;
    impulse = sol.multipliers.head(long(p.rows.size()));
    friction = std::move(shares);
    return true;
  }
  return false;
}

}  // namespace

std::string ContactStage::resolve(const Model& model, const Params& params, double t, double h, Eigen::VectorXd& y,
                                  const std::vector<std::uint8_t>& assembled, std::vector<std::pair<int, int>>& passing,
                                  std::vector<RestingContact>& resting, const std::vector<BodyKinematics>* kickedFrom) {
  // the last resolve's resting contacts, by pair (see the friction sweeps' warm start below)
  std::vector<RestingContact> previous = std::move(resting);
  resting.clear();
  const auto byPair = [](const RestingContact& a, const RestingContact& b) {
    return std::tuple(a.bodyA, a.bodyB, a.plane) < std::tuple(b.bodyA, b.bodyB, b.plane);
  };
  std::stable_sort(previous.begin(), previous.end(), byPair);
  m_reports.clear();
  m_frictionSweeps = 0;
  m_touching.clear();
  const ContactModel& cm = model.contacts;
  if (!cm.enabled) {
    passing.clear();
    return {};
  }
  const std::size_t n = model.bodies.size();
  std::vector<BodyKinematics> kin;
  bodyKinematics(model, params, y, kin);

  // A body with a joint still assembling is not in place yet: it passes through the other
  // bodies, as it does without contacts, until its joints are met. (Held back by contacts, parts
  // assembling from scattered places jammed against each other -- interlocking links cannot
  // reach their places without passing through each other -- and their tau pull against the
  // contacts pumped energy into them: the card house and the chain between towers blew up.)
  // It keeps its contacts with the planes: no model assembles into the floor, and parts that
  // fell through it while they assembled stayed buried (a rod joined to a ball came to rest
  // 1.4 m under the floor, and lifting it out would turn it more than the overlap projection
  // allows a group with joints).
  m_settling.assign(n, 0);
  for (std::size_t j = 0; j < model.constraints.size(); ++j) {
    if (!params.constraintEnabled[j] || (j < assembled.size() && assembled[j])) continue;
    const BodyList bl = model.constraints[j]->bodies();
    for (int b : bl) m_settling[std::size_t(b)] = 1;
  }
  // the query: the bodies where y places them (the step's start for the velocity-level steps)
  m_query.bodies = cm.shapes;
  for (std::size_t b = 0; b < n; ++b) {
    CollisionBody& s = m_query.bodies[b];
    const Eigen::Index o = Eigen::Index(b) * kBodyDofs;
    s.x = y.segment<3>(o);
    s.q = Quat(y(o + 3), y(o + 4), y(o + 5), y(o + 6));
    s.collides = params.bodyCollides[b] && params.bodyActive[b];
  }
  m_query.planes = cm.planes;
  m_query.joined.clear();
  m_query.pinned.clear();
  m_query.margin = kNearMargin;

  // the joints present now: their rows at this state (the problem's equality rows) and their
  // anchors (contacts of two joined bodies near the joint, and of a body pinned to the world with
  // the world near the pin, are the joint's own overlap: JoinedPair, PinnedPoint)
  const EvalContext ectx{kin, model.paths, t, &params.pathClock};
  std::vector<ConstraintRows> parts;
  std::vector<JoinedPair> axes;  // (a, b, axis) of rows that keep a pair turning about an axis
  for (std::size_t j = 0; j < model.constraints.size(); ++j) {
    const Constraint& c = *model.constraints[j];
    const BodyList bl = c.bodies();
    if (!params.constraintEnabled[j]) continue;
    if (std::any_of(bl.begin(), bl.end(), [&](int b) { return !params.bodyActive[std::size_t(b)]; })) continue;
    ConstraintRows r;
    c.evaluate(ectx, r);
    if (const Vec3 axis = c.jointAxis(ectx); bl.n == 2 && !axis.isZero())
      axes.push_back({.a = bl.b[0], .b = bl.b[1], .axis = axis});  // turning only: no point of its own
    else if (bl.n == 2 && bl.b[0] != bl.b[1])
      m_query.joined.push_back({.a = bl.b[0],
                                .b = bl.b[1],
                                .anchor = 0.5 * (r.point[0] + r.point[1]),
                                .gap = (r.point[0] - r.point[1]).norm()});
    if (bl.n == 1 && c.pinsToWorld())
      for (const Vec3& p : r.point) m_query.pinned.push_back({.body = bl.b[0], .anchor = p});
    if (r.nb > 0) parts.push_back(r);
  }
  // a pair that turns about an axis is held along the line through its joint's point (a hinge)
  for (const JoinedPair& x : axes)
    for (JoinedPair& j : m_query.joined)
      if (std::minmax(j.a, j.b) == std::minmax(x.a, x.b)) j.axis = x.axis;

  std::vector<ContactManifold> manifolds;
  try {
    manifolds = m_detector.detect(m_query);
  } catch (const std::invalid_argument& e) {
    return std::string("contacts: ") + e.what();
  }
  // Two bodies that one of them reached while its joints assembled pass through each other
  // until they come apart (no contact, not even within the near margin): assembled, a part
  // overlaps what it passed through (a rod to be joined to a ball's top, half a metre away,
  // swung down through the ball while its end went there, and lay 5 cm in it when the joint was
  // met), and pushing that out at once, or holding it, fights the joint: the overlap projection
  // would have to turn the rod 0.29 rad.
  std::vector<std::pair<int, int>> still;
  std::erase_if(manifolds, [&](const ContactManifold& m) {
    if (m.bodyB < 0) return false;
    const std::pair<int, int> pair{m.bodyA, m.bodyB};
    const bool through = m_settling[std::size_t(m.bodyA)] || m_settling[std::size_t(m.bodyB)] ||
                         std::binary_search(passing.begin(), passing.end(), pair);
    if (through) still.push_back(pair);
    return through;
  });
  std::sort(still.begin(), still.end());
  passing = std::move(still);
  if (manifolds.empty()) return {};
  m_touching.assign(n, 0);
  for (const ContactManifold& m : manifolds)
    for (int b : {m.bodyA, m.bodyB})
      if (b >= 0) m_touching[std::size_t(b)] = 1;

  // the rows, and the groups of bodies they and the joints link
  const double g = params.gravityOn ? params.gravity.norm() : 0.0;
  // below this approach speed a contact does not bounce: a resting body gets g h per step
  const double restingSpeed = 2.0 * g * h + 1e-3;
  const bool meanVelocities = model.settings.solver == SolverKind::SequentialImpulses ||
                              model.settings.integrator == IntegratorKind::SemiImplicitEuler;
  const auto velocity = [&](int b) {
    Vec6 u;
    u.head<3>() = kin[std::size_t(b)].v;
    u.tail<3>() = kin[std::size_t(b)].w;
    return u;
  };
  const auto moving = [&](int b) { return b >= 0 && kin[std::size_t(b)].invMass > 0.0; };
  std::vector<ContactRow> rows;
  std::vector<int> parent(n);
  for (std::size_t b = 0; b < n; ++b) parent[b] = int(b);
  for (std::size_t mi = 0; mi < manifolds.size(); ++mi)
    for (const ContactManifold& m = manifolds[mi]; const Contact& c : m.contacts) {
      ContactRow row;
      row.manifold = int(mi);
      row.normal = c.normal;
      const double depth = c.held();  // less a joint's own overlap (JoinedPair, PinnedPoint)
      row.near = !(depth > 0.0);
      if (!row.near) {
        m_reports.push_back({.contact = c, .plane = m.plane});
        row.report = int(m_reports.size()) - 1;
      }
      row.depth = depth;
      const Vec3 p = 0.5 * (c.pointA + c.pointB);
      row.point = p;
      int s = 0;
      for (const auto& [body, sign] : {std::pair{c.bodyA, 1.0}, std::pair{c.bodyB, -1.0}}) {
        if (!moving(body)) continue;
        row.body[s] = body;
        row.jac[s] = contactJacobian(c.normal, p, kin[std::size_t(body)].x, sign);
        const auto [t1, t2] = tangents(c.normal);
        row.tangent[s][0] = contactJacobian(t1, p, kin[std::size_t(body)].x, sign);
        row.tangent[s][1] = contactJacobian(t2, p, kin[std::size_t(body)].x, sign);
        row.approach += row.jac[s].dot(velocity(body));
        if (kickedFrom) {
          const BodyKinematics& k0 = (*kickedFrom)[std::size_t(body)];
          row.pull += (row.jac[s].head<3>().dot(kin[std::size_t(body)].v - k0.v) +
                       row.jac[s].tail<3>().dot(kin[std::size_t(body)].w - k0.w)) / h;
        } else if (params.gravityOn) {
          row.pull += row.jac[s].head<3>().dot(params.gravity);
        }
        ++s;
      }
      if (s == 0) continue;  // two fixed bodies
      if (s == 2) join(parent, row.body[0], row.body[1]);
      const auto& mat = params.bodyMaterial;  // restitution, friction, static friction
      const double eB = c.bodyB >= 0 ? mat[std::size_t(c.bodyB)].x() : cm.planeRestitution[std::size_t(m.plane)];
      // A joint's stop does not bounce: Poisson's law on rows that nearly repeat the joint's, a
      // statically indeterminate set of them (a face's corners against the face it is joined to),
      // gave energy at each impact (six cubes joined face centre to face centre, e = 1, falling
      // onto the floor spinning: 31 J to 2.4e4 J in 10 s, 17 ms a step).
      row.restitution = c.atJoint ? 0.0 : std::max(mat[std::size_t(c.bodyA)].x(), eB);
      row.restitutes = !row.near && row.restitution > 0.0 && row.approach < -restingSpeed;
      row.leaves = !row.near && row.approach > restingSpeed;
      const bool onPlane = c.bodyB < 0;
      const std::size_t a = std::size_t(c.bodyA), b = std::size_t(onPlane ? m.plane : c.bodyB);
      row.friction = std::sqrt(mat[a].y() * (onPlane ? cm.planeFriction[b] : mat[b].y()));
      row.staticFriction = std::sqrt(mat[a].z() * (onPlane ? cm.planeStaticFriction[b] : mat[b].z()));
      row.rolling = mat[a].w() + (onPlane ? cm.planeRollingResistance[b] : mat[b].w());
      row.atJoint = c.atJoint;
      rows.push_back(row);
    }
  if (rows.empty()) return {};
  for (const ConstraintRows& r : parts)
    for (int s = 1; s < r.nb; ++s) join(parent, r.body[0], r.body[s]);

  // each group that has contacts, solved on its own (its near pairs only in its overlap projection)
  std::map<int, std::pair<std::vector<int>, std::vector<int>>> groupRows;  // by root: its contact rows, near rows
  for (std::size_t k = 0; k < rows.size(); ++k) {
    auto& [touching, near] = groupRows[root(parent, rows[k].body[0])];
    (rows[k].near ? near : touching).push_back(int(k));
  }
  std::string problemMessage;
  std::vector<int> local(n, -1);
  for (const auto& [groupRoot, groupContacts] : groupRows) {
    std::vector<int> contactRows = groupContacts.first;
    const std::vector<int>& nearRows = groupContacts.second;
    if (contactRows.empty()) continue;
    std::vector<int> members;
    for (std::size_t b = 0; b < n; ++b)
      if (moving(int(b)) && root(parent, int(b)) == groupRoot) {
        local[b] = int(members.size());
        members.push_back(int(b));
      }
    gauss::Problem velocityProblem;
    velocityProblem.unconstrained.resize(Eigen::Index(6 * members.size()));
    for (std::size_t i = 0; i < members.size(); ++i) {
      const BodyKinematics& k = kin[std::size_t(members[i])];
      const BodyModel& bm = model.bodies[std::size_t(members[i])];
      velocityProblem.bodies.push_back({.mass = bm.mass, .inertia = k.R * bm.inertia.asDiagonal() * k.R.transpose()});
      velocityProblem.unconstrained.segment<6>(Eigen::Index(6 * i)) = velocity(members[i]);
    }
    for (int k : contactRows) velocityProblem.rows.push_back(contactRow(rows[std::size_t(k)], local, 0.0));
    // the joints' rows: J u+ = J u
    for (const ConstraintRows& r : parts) {
      if (root(parent, r.body[0]) != groupRoot) continue;
      for (int i = 0; i < r.d; ++i) {
        gauss::Row row{.equality = true};
        double rate = 0.0;
        for (int s = 0; s < r.nb; ++s) {
          Vec6 j;
          j.head<3>() = r.jlBlock(s).row(i).transpose();
          j.tail<3>() = r.jaBlock(s).row(i).transpose();
          rate += j.dot(velocity(r.body[s]));
          (s == 0 ? row.jacA : row.jacB) = j;
          (s == 0 ? row.bodyA : row.bodyB) = local[std::size_t(r.body[s])];
        }
        row.c = rate;
        velocityProblem.rows.push_back(row);
      }
    }
    // A group whose contacts are all joints' stops (Contact::atJoint) has nothing but joined
    // pairs touching next to their joints: what its contacts cannot meet is the joints' own
    // overlap and goes unsaid, as a contact the joints leave short between joined bodies does
    // (leftOut). (Named, a pendulum of five boxes joined face to face, swinging in the air, was
    // said to leave its contacts out in 2 % of its steps, and four thick panels hinged edge to
    // edge in a zigzag, in each other at their hinges from the start, in every step to leave an
    // overlap that only a 1 rad turn would remove.)
    const auto isStop = [&](int k) { return rows[std::size_t(k)].atJoint; };
    const bool stopsOnly = std::all_of(contactRows.begin(), contactRows.end(), isStop) && std::all_of(nearRows.begin(), nearRows.end(), isStop);
    const auto conflict = [&](const std::string& what, const std::string& why) {
      if (!problemMessage.empty() || stopsOnly) return;
      problemMessage = "contacts of body \"" + model.bodyNames[std::size_t(members.front())] + "\"" +
                       (members.size() > 1 ? " and " + std::to_string(members.size() - 1) + " bodies joined to it" : "") +
                       ": " + what + " (" + why + "); its joints hold it where contacts cannot";
    };

    // contacts that cannot hold together with the joints (solveLeavingOut; k: their rows): left
    // out, named unless the two bodies are joined (then it is the joint's own, on its line)
    const auto leftOut = [&](int k) {
      const ContactManifold& m = manifolds[std::size_t(rows[std::size_t(k)].manifold)];
      const auto joinsThem = [&](const JoinedPair& j) { return std::minmax(j.a, j.b) == std::minmax(m.bodyA, m.bodyB); };
      if (m.bodyB >= 0 && std::any_of(m_query.joined.begin(), m_query.joined.end(), joinsThem)) return;
      conflict("a contact with " + (m.bodyB >= 0 ? "body \"" + model.bodyNames[std::size_t(m.bodyB)] + "\"" : "a plane") +
                   " left out of this step",
               "it cannot hold together with the joints");
    };

    // the joints' rows factored once for the group's solves (compression, restitution, sticking,
    // overlap), where its problem is solved exactly
    std::optional<gauss::BilateralFactor> jointFactor;
    if (exactSize(velocityProblem) && velocityProblem.rows.size() > contactRows.size()) jointFactor.emplace(velocityProblem);
    const gauss::BilateralFactor* joints = jointFactor ? &*jointFactor : nullptr;

    // (kinetic energy of the group's velocities u, and the metric's inner product)
    const auto inner = [&](const Eigen::VectorXd& u, const Eigen::VectorXd& v) {
      double e = 0.0;
      for (std::size_t i = 0; i < members.size(); ++i) {
        const Vec6 ui = u.segment<6>(Eigen::Index(6 * i)), vi = v.segment<6>(Eigen::Index(6 * i));
        e += velocityProblem.bodies[i].mass * ui.head<3>().dot(vi.head<3>()) +
             ui.tail<3>().dot(velocityProblem.bodies[i].inertia * vi.tail<3>());
      }
      return e;
    };
    const auto energy = [&](const Eigen::VectorXd& u) { return 0.5 * inner(u, u); };
    // Contacts take energy or keep it: projecting onto the cone of contact rates >= 0 cannot
    // lengthen u in the metric M, restitution (e <= 1) gives back at most what compression
    // took, friction takes (below). Only the joints' rows can add energy, because they keep their
    // rates J u (not 0: their drift correction): a contact next to a joint that keeps a rate there
    // needs a large turn to meet both (a link hooked into a door, its tube 3 cm in the door's
    // slab, took a 2e10 N impulse and blew up), and a joint's stop, whose rows nearly repeat the
    // joint's, a huge one (ten cubes joined face to face, dropped onto the floor: 1.9e10 J). So
    // when the stage would leave the group with more than a tenth more energy than the step gave
    // it (and more than a body creeping at the resting speed has), the group is met once more
    // without its stops (left out of this step, as a contact the joints leave short between
    // joined bodies is) and with its joints held still for the step, J u+ = 0. Its admissible
    // velocities are then a cone with its apex at 0, whose nearest point to u in M is no longer
    // than u: compression adds no energy, and the joints' drift is left to the projection and the
    // next steps. (Before, all its contacts were left out, the floor's too: the ten cubes in 18 of
    // 10 000 steps, 0.05 mm into the floor. Met with the stops, held still, the stops took energy
    // instead: a pendulum of five boxes joined face to face, swinging in the air, lost up to 10 %
    // of it in 5 s, 5 J of a link's 8 J in one step, where leaving the stops out loses 0.03-1 %.)
    // Only if that too adds energy are its contacts left out of this step, and the conflict is
    // named.
    double creep = 0.0;
    for (const gauss::BodyMetric& b : velocityProblem.bodies) creep += 0.5 * b.mass * restingSpeed * restingSpeed;
    const double before = energy(velocityProblem.unconstrained);
    const bool jointRates = std::any_of(velocityProblem.rows.begin(), velocityProblem.rows.end(),
                                        [](const gauss::Row& r) { return r.equality && r.c != 0.0; });
    Eigen::VectorXd after, impulse;
    std::vector<Eigen::Vector2d> tangential;  // per contact: friction's impulse (t1, t2)
    std::vector<Eigen::Vector3d> rollingTorque;  // and rolling resistance's (about t1, t2, n)
    bool met = false, again = true, rests = false;
    for (int attempt = 0; attempt < 2 && again; ++attempt) {
      again = false;
      if (attempt == 1) {
        // the stops leave the problem (their rows are the first, in contactRows' order)
        for (std::size_t i = contactRows.size(); i-- > 0;)
          if (isStop(contactRows[i])) {
            velocityProblem.rows.erase(velocityProblem.rows.begin() + std::ptrdiff_t(i));
            contactRows.erase(contactRows.begin() + std::ptrdiff_t(i));
          }
        if (contactRows.empty()) break;
        for (gauss::Row& row : velocityProblem.rows)
          if (row.equality) row.c = 0.0;
        if (jointFactor) jointFactor.emplace(velocityProblem);
      }
      // compression
      if (m_recorder) m_recorder(velocityProblem);
      const auto [compression, conflicting] = solveLeavingOut(velocityProblem, jointFactor);
      for (auto i = conflicting.rbegin(); i != conflicting.rend(); ++i) {
        leftOut(contactRows[std::size_t(*i)]);
        contactRows.erase(contactRows.begin() + *i);
      }
      if (contactRows.empty()) break;
      if (!compression.ok) {
        conflict("left out of this step", compression.error);
        break;
      }
      after = compression.acceleration;
      impulse = compression.multipliers;
      tangential.clear();
      rollingTorque.clear();
      // restitution: e' lambda more along the bouncing contacts' rows, through the same rows.
      // The velocity-level steps call this between kick and drift: u is the velocity the drift
      // will move with over the step, x' = x + h u, i.e. the motion's mean over the coming step,
      // and the velocity before the kick was the mean over the last one. With a_n = J (u - u_0) / h
      // the contact's acceleration over the kick (u_0 the velocities before it; < 0: closing the
      // contact) the approach at the step's start is v_n - a_n h / 2 (v_n = J u), and the mean over
      // the coming step of the motion reflected then is
      //   -e (v_n - a_n h / 2) + a_n h / 2 = -e' v_n,   e' = e - (1 + e) a_n h / (2 v_n),
      // a little less than e. Reflecting u itself gained 2 g h / |v_n| of the energy per bounce
      // (0.9 % from 1 m at 1 ms). a_n is every force's and joint's, not gravity's alone: the tip of
      // a rod pinned at its other end falls at up to 1.5 g, and with J g an elastic rod striking the
      // floor gained 14 % of its energy in 20 s. RK4 and RK45 call this after the step, on the
      // motion's value at its end: e' = e there.
      Eigen::VectorXd bounce = Eigen::VectorXd::Zero(Eigen::Index(velocityProblem.rows.size()));
      bool bounces = false;
      for (std::size_t i = 0; i < contactRows.size(); ++i) {
        const ContactRow& cr = rows[std::size_t(contactRows[i])];
        if (!cr.restitutes) continue;
        const double lag = meanVelocities ? -(1.0 + cr.restitution) * cr.pull * h / (2.0 * cr.approach) : 0.0;
        const double e = std::max(0.0, cr.restitution + lag);
        bounce(Eigen::Index(i)) = e * compression.multipliers(Eigen::Index(i));
        bounces = bounces || bounce(Eigen::Index(i)) > 0.0;
      }
      if (bounces) {
        gauss::Problem restitution = velocityProblem;
        restitution.unconstrained = after + gauss::applyInverseMetricTranspose(velocityProblem, bounce);
        const gauss::Solution r = solve(restitution, joints);
        if (r.ok) {
          after = r.acceleration;
          impulse += bounce + r.multipliers;
        } else {
          conflict("bounce left out of this step", r.error);
        }
      }
      // friction: tangential impulses at the contacts that carry a normal impulse, the normal and
      // joint impulses adjusting to them (see frictionPhase)
      const Eigen::VectorXd frictionless = after, frictionlessImpulse = impulse;
      const bool stuck = !bounces && exactSize(velocityProblem) &&
                         stickingStart(rows, contactRows, local, velocityProblem, joints, impulse, after, tangential);
      // The sweeps run to their tolerance (at most 500) in a resting group, whose slip would creep
      // on as long as it rests (see stickingStart). A group with a contact slipping faster than a
      // resting one (restingSpeed), or one that bounces (an impact, restitutes), moves: 30 sweeps,
      // as a large group's. Its friction is then that
      // of an unfinished projected Gauss-Seidel, as in Bullet (10 sweeps by default) or Box2D:
      // within each contact's disc and taking energy (below), its joints at their rates (the
      // sweeps end with them), not Coulomb's to 1e-9 m/s. (A shaken bin of 30 mixed bodies ran 500
      // sweeps in most of its groups of 2-8 bodies, still changing rates by 1e-3 m/s at the last;
      // a chain of ten boxes settling on the floor, its links knocking on it in 3.5 groups a step,
      // ran 240-290 sweeps in each, 80 % of its run.) A group with a joint's stop (Contact::atJoint)
      // also takes 30: the stop's rows nearly repeat its joint's, and projected Gauss-Seidel between
      // them converges slowly (a 10-link box chain swinging with its links against each other's
      // stops swept 460-500 times a substep, still changing rates by 3e-5 m/s at the last, and ran
      // 1-3 ms a step; six cubes joined face to face, at rest on the floor, 460 sweeps and 1.7 ms).
      // At rest such a group is stuck by stickingStart once its slip is small (the six cubes: one
      // sweep a step, kinetic energy 1e-35 J).
      double slipping = 0.0;  // (the fastest friction contact's slip now)
      if (!stuck)
        for (int k : contactRows) {
          const ContactRow& cr = rows[std::size_t(k)];
          if (std::max(cr.friction, cr.staticFriction) > 0.0) slipping = std::max(slipping, slipOf(cr, local, after).norm());
        }
      const bool stops = std::any_of(contactRows.begin(), contactRows.end(), isStop);
      const int sweeps = exactSize(velocityProblem) && !bounces && slipping <= restingSpeed && !stops ? 500 : kSweeps;
      rests = sweeps > kSweeps;
      // A resting group starts its sweeps from the forces its contacts had in the last step, where
      // they had them (the same pair, its point within kWarmReach): at rest the sweeps then end at
      // their first (eight dominoes fallen against each other swept 97 times a step from the
      // frictionless result; stickingStart cannot hold them, its stuck solution asks more friction
      // of one edge than its load gives). Warm starting, as Box2D and Bullet do; not for a group
      // that moves, whose contacts' forces change from step to step. A group that starts stuck
      // keeps that start's normals and friction and takes only its rolling resistance warm (a
      // ball held on a slope by it).
      std::optional<Warm> warm;
      if (rests) {
        constexpr double nan = std::numeric_limits<double>::quiet_NaN();
        warm.emplace();
        warm->normal.assign(contactRows.size(), nan);
        warm->friction.assign(contactRows.size(), Eigen::Vector2d::Zero());
        warm->rolling.assign(contactRows.size(), Eigen::Vector2d::Constant(nan));
        for (std::size_t i = 0; i < contactRows.size(); ++i) {
          const ContactRow& cr = rows[std::size_t(contactRows[i])];
          const Contact& c = m_reports[std::size_t(cr.report)].contact;
          const RestingContact key{.bodyA = c.bodyA, .bodyB = c.bodyB, .plane = manifolds[std::size_t(cr.manifold)].plane};
          const auto [first, last] = std::equal_range(previous.begin(), previous.end(), key, byPair);
          for (const RestingContact& r : std::span(first, last))
            if ((r.point - c.pointA).norm() < kWarmReach) {
              const auto [t1, t2] = tangents(c.normal);
              if (!stuck) {
                warm->normal[i] = r.force * h;
                warm->friction[i] = h * Eigen::Vector2d(r.friction.dot(t1), r.friction.dot(t2));
              }
              warm->rolling[i] = h * Eigen::Vector2d(r.rolling.dot(t1), r.rolling.dot(t2));
              break;
            }
        }
      }
      m_frictionSweeps += frictionPhase(rows, contactRows, local, velocityProblem, sweeps, impulse, after, tangential, rollingTorque,
                                        warm ? &*warm : nullptr);
      // Friction takes energy, never gives it. The phase holds a bouncing contact's normal rate
      // at what restitution gave it while the tangential impulse turns the body, and the normal
      // impulse that keeps that rate then can give more than friction took (Kane's paradox of
      // Newton's law with friction, here after a Poisson bounce): a fat rod (e = 0.87, mu = 0.41)
      // landing on an end, spinning, left the floor with 0.8 J more than it hit it with. So the
      // phase's change du is taken as far as it keeps the energy of the frictionless result u_0:
      // E(u_0 + s du) - E(u_0) = s (<u_0, du>_M + s |du|^2_M / 2) <= 0 for s <= -2 <u_0, du> / |du|^2
      // (s = 1 when friction dissipates, as it does wherever nothing bounces). u_0 + s du meets every
      // row that both meet (joint rates, contact rates >= 0: a convex combination).
      if (!tangential.empty()) {
        const Eigen::VectorXd du = after - frictionless;
        const double g = inner(frictionless, du), q = inner(du, du);
        if (q > 0.0 && g + 0.5 * q > 1e-12 * energy(frictionless)) {
          const double s = g < 0.0 ? std::min(1.0, -2.0 * g / q) : 0.0;
          after = frictionless + s * du;
          impulse = frictionlessImpulse + s * (impulse - frictionlessImpulse);
          for (Eigen::Vector2d& f : tangential) f *= s;
          for (Eigen::Vector3d& f : rollingTorque) f *= s;
        }
      }
      // (the energy check: see above the loop)
      const double gained = energy(after) - before;
      if (gained > 0.1 * before + creep) {
        if (attempt == 0 && (jointRates || std::any_of(contactRows.begin(), contactRows.end(), isStop))) {
          again = true;
          continue;
        }
        char why[160];
        std::snprintf(why, sizeof why, "meeting them with its joints would add %.3g J to %.3g J of motion", gained, before);
        conflict("left out of this step", why);
        break;
      }
      met = true;
    }
    if (!met) {
      for (int k : contactRows) m_reports[std::size_t(rows[std::size_t(k)].report)].impulse = 0.0;
      for (int b : members) local[std::size_t(b)] = -1;
      continue;
    }
    // the velocities: P += m dv, L += I dw
    for (std::size_t i = 0; i < members.size(); ++i) {
      const Eigen::Index o = Eigen::Index(members[i]) * kBodyDofs;
      const Vec6 du = after.segment<6>(Eigen::Index(6 * i)) - velocityProblem.unconstrained.segment<6>(Eigen::Index(6 * i));
      y.segment<3>(o + 7) += velocityProblem.bodies[i].mass * du.head<3>();
      y.segment<3>(o + 10) += velocityProblem.bodies[i].inertia * du.tail<3>();
    }
    bool deep = false;
    for (std::size_t i = 0; i < contactRows.size(); ++i) {
      const ContactRow& cr = rows[std::size_t(contactRows[i])];
      ContactReport& rep = m_reports[std::size_t(cr.report)];
      rep.impulse = impulse(Eigen::Index(i));
      rep.force = rep.impulse / h;
      if (!tangential.empty()) {
        const auto [t1, t2] = tangents(rep.contact.normal);
        rep.friction = (tangential[i].x() * t1 + tangential[i].y() * t2) / h;
        rep.rolling = (rollingTorque[i].x() * t1 + rollingTorque[i].y() * t2 + rollingTorque[i].z() * rep.contact.normal) / h;
      }
      if (rests) resting.push_back({.bodyA = rep.contact.bodyA, .bodyB = rep.contact.bodyB, .plane = rep.plane,
                                    .point = rep.contact.pointA, .force = rep.force, .friction = rep.friction, .rolling = rep.rolling});
      deep = deep || (!cr.restitutes && !cr.leaves && cr.depth > cm.slop);
    }

    // the overlap of contacts that do not bounce, projected out to the slop
    if (deep) {
      gauss::Problem positionProblem = velocityProblem;
      positionProblem.unconstrained.setZero();
      for (std::size_t i = 0; i < positionProblem.rows.size(); ++i) {
        gauss::Row& row = positionProblem.rows[i];
        if (row.equality) {
          row.c = 0.0;
          continue;
        }
        const ContactRow& cr = rows[std::size_t(contactRows[i])];
        row.c = cr.restitutes || cr.leaves ? -cm.slop : cr.depth - cm.slop;
      }
      for (int k : nearRows) positionProblem.rows.push_back(contactRow(rows[std::size_t(k)], local, rows[std::size_t(k)].depth - cm.slop));
      const auto [d, notMoved] = solveLeavingOut(positionProblem, jointFactor);  // (its last use)
      const std::size_t firstJoint = contactRows.size(), firstNear = velocityProblem.rows.size();
      for (int i : notMoved)
        if (i < int(firstJoint) || i >= int(firstNear))
          leftOut(i < int(firstJoint) ? contactRows[std::size_t(i)] : nearRows[std::size_t(i) - firstNear]);
      // The displacement is linear in the turn: past a tenth of a radian it no longer moves the
      // contacts as the rows say (a joint holding a body into another can only be met by a
      // large turn), and the overlap is left as it is. Without joints in the group the move is
      // cut to that turn instead (the overlap shrinks by that part in this step and the rest in
      // the next ones): a pile of light capsules falling into each other asked for 0.1-0.4 rad
      // every step, and left as it was, it kept 6 mm of overlap for good.
      double turn = 0.0;
      if (d.ok)
        for (std::size_t i = 0; i < members.size(); ++i)
          turn = std::max(turn, d.acceleration.segment<3>(Eigen::Index(6 * i + 3)).norm());
      const bool joints = std::any_of(positionProblem.rows.begin(), positionProblem.rows.end(),
                                      [](const gauss::Row& r) { return r.equality; });
      const double part = turn > 0.1 && !joints ? 0.1 / turn : 1.0;
      if (!d.ok) {
        conflict("overlap not removed", d.error);
      } else if (turn > 0.1 && joints) {
        // (the turn is that of the linearized move: beyond half a turn its size says nothing --
        // cubes joined 1 mm inside their touching faces asked for 1.5e6 rad)
        char why[120];
        if (turn <= M_PI)
          std::snprintf(why, sizeof why, "removing it would turn a body by %.3g rad", turn);
        else
          std::snprintf(why, sizeof why, "no small turn of a body removes it");
        conflict("overlap not removed", why);
      } else {
        for (std::size_t i = 0; i < members.size(); ++i) {
          const Eigen::Index o = Eigen::Index(members[i]) * kBodyDofs;
          const Vec6 di = part * d.acceleration.segment<6>(Eigen::Index(6 * i));
          y.segment<3>(o) += di.head<3>();
          const Quat q = (rotationOf(di.tail<3>()) * Quat(y(o + 3), y(o + 4), y(o + 5), y(o + 6))).normalized();
          y.segment<4>(o + 3) = Eigen::Vector4d(q.w(), q.x(), q.y(), q.z());
        }
      }
    }
    for (int b : members) local[std::size_t(b)] = -1;
  }
  return problemMessage;
}

}  // namespace tether::core
