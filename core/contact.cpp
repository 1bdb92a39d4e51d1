#include "core/contact.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

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
  double pull = 0.0;           // J g: gravity's part of the approach's rate, m/s^2
  bool restitutes = false;
};

Vec6 contactJacobian(const Vec3& n, const Vec3& p, const Vec3& x, double sign) {
  Vec6 j;
  j.head<3>() = sign * n;
  j.tail<3>() = sign * (p - x).cross(n);
  return j;
}

// A group's problem by the active-set method in motion space (exact: the KKT point to rounding)
// while its dense factor, (6 n) x q for n bodies and q rows, stays small; larger groups (piles) by
// projected Gauss-Seidel, whose sweeps cost O(q): 100 sweeps or until no row's rate moves by
// 1e-9 m/s (m for the positions). Measured on a pile of 216 spheres in a box (one group, about
// 700 rows): the active set took 186 ms per step.
constexpr long kExactSize = 6 * 48 * 192;
constexpr int kSweeps = 100;
gauss::Solution solve(const gauss::Problem& p) {
  if (6 * long(p.bodies.size()) * long(p.rows.size()) <= kExactSize) return gauss::solveMotionSpace(p);
  return gauss::solveProjectedGaussSeidel(p, 1e-9, kSweeps);
}

}  // namespace

std::string ContactStage::resolve(const Model& model, const Params& params, double t, double h, Eigen::VectorXd& y,
                                  const std::vector<std::uint8_t>& assembled) {
  m_reports.clear();
  const ContactModel& cm = model.contacts;
  if (!cm.enabled) return {};
  const std::size_t n = model.bodies.size();
  std::vector<BodyKinematics> kin;
  bodyKinematics(model, params, y, kin);

  // the query: the bodies where the step left them
  m_query.bodies = cm.shapes;
  for (std::size_t b = 0; b < n; ++b) {
    CollisionBody& s = m_query.bodies[b];
    const Eigen::Index o = Eigen::Index(b) * kBodyDofs;
    s.x = y.segment<3>(o);
    s.q = Quat(y(o + 3), y(o + 4), y(o + 5), y(o + 6));
    s.collides = s.collides && params.bodyActive[b];
  }
  m_query.planes = cm.planes;
  m_query.joined.clear();

  // the joints present now: their rows at this state (the problem's equality rows) and their
  // anchors (contacts of two joined bodies near the joint are the joint's own overlap)
  const EvalContext ectx{kin, model.paths, t, &params.pathClock};
  std::vector<ConstraintRows> parts;
  for (std::size_t j = 0; j < model.constraints.size(); ++j) {
    const Constraint& c = *model.constraints[j];
    const BodyList bl = c.bodies();
    if (!params.constraintEnabled[j]) continue;
    if (std::any_of(bl.begin(), bl.end(), [&](int b) { return !params.bodyActive[std::size_t(b)]; })) continue;
    ConstraintRows r;
    c.evaluate(ectx, r);
    if (bl.n == 2 && bl.b[0] != bl.b[1])
      m_query.joined.push_back({.a = bl.b[0], .b = bl.b[1], .anchor = 0.5 * (r.point[0] + r.point[1])});
    if (r.nb > 0 && j < assembled.size() && assembled[j]) parts.push_back(r);
  }

  std::vector<ContactManifold> manifolds;
  try {
    manifolds = m_detector.detect(m_query);
  } catch (const std::invalid_argument& e) {
    return std::string("contacts: ") + e.what();
  }
  if (manifolds.empty()) return {};

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
  for (const ContactManifold& m : manifolds)
    for (const Contact& c : m.contacts) {
      m_reports.push_back({.contact = c, .plane = m.plane});
      ContactRow row;
      row.report = int(m_reports.size()) - 1;
      row.depth = c.depth;
      const Vec3 p = 0.5 * (c.pointA + c.pointB);
      int s = 0;
      for (const auto& [body, sign] : {std::pair{c.bodyA, 1.0}, std::pair{c.bodyB, -1.0}}) {
        if (!moving(body)) continue;
        row.body[s] = body;
        row.jac[s] = contactJacobian(c.normal, p, kin[std::size_t(body)].x, sign);
        row.approach += row.jac[s].dot(velocity(body));
        if (params.gravityOn) row.pull += row.jac[s].head<3>().dot(params.gravity);
        ++s;
      }
      if (s == 0) continue;  // two fixed bodies
      if (s == 2) join(parent, row.body[0], row.body[1]);
      const double eB = c.bodyB >= 0 ? cm.restitution[std::size_t(c.bodyB)] : cm.planeRestitution[std::size_t(m.plane)];
      row.restitution = std::max(cm.restitution[std::size_t(c.bodyA)], eB);
      row.restitutes = row.restitution > 0.0 && row.approach < -restingSpeed;
      rows.push_back(row);
    }
  if (rows.empty()) return {};
  for (const ConstraintRows& r : parts)
    for (int s = 1; s < r.nb; ++s) join(parent, r.body[0], r.body[s]);

  // each group that has contacts, solved on its own
  std::map<int, std::vector<int>> groupRows;  // by root: its contact rows
  for (std::size_t k = 0; k < rows.size(); ++k) groupRows[root(parent, rows[k].body[0])].push_back(int(k));
  std::string problemMessage;
  std::vector<int> local(n, -1);
  for (const auto& [groupRoot, contactRows] : groupRows) {
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
    for (int k : contactRows) {
      const ContactRow& cr = rows[std::size_t(k)];
      gauss::Row row{.bodyA = local[std::size_t(cr.body[0])], .jacA = cr.jac[0], .bodyB = -1, .jacB = Vec6::Zero(), .c = 0.0};
      if (cr.body[1] >= 0) {
        row.bodyB = local[std::size_t(cr.body[1])];
        row.jacB = cr.jac[1];
      }
      velocityProblem.rows.push_back(row);
    }
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
    const auto conflict = [&](const std::string& what, const std::string& why) {
      if (!problemMessage.empty()) return;
      problemMessage = "contacts of body \"" + model.bodyNames[std::size_t(members.front())] + "\"" +
                       (members.size() > 1 ? " and " + std::to_string(members.size() - 1) + " bodies joined to it" : "") +
                       ": " + what + " (" + why + "); its joints hold it where contacts cannot";
    };

    // compression
    const gauss::Solution compression = solve(velocityProblem);
    if (!compression.ok) {
      conflict("left out of this step", compression.error);
      continue;
    }
    Eigen::VectorXd after = compression.acceleration;
    Eigen::VectorXd impulse = compression.multipliers;
    // restitution: e' lambda more along the bouncing contacts' rows, through the same rows.
    // e' = e + (1 + e) (-a_n) h / (2 |v_n|): the step's end velocity u, which its last drift
    // used, is the motion's mean over the step (semi-implicit Euler: x' = x + h u), not its value
    // at the end; with a_n = J g the rate at which gravity pulls the contact closed, the
    // approach at the end is v_n + a_n h / 2, and the velocity the next step's kick must start
    // from to give the reflected mean is -e (v_n + a_n h / 2) - a_n h / 2 = -e' v_n. Without it
    // each bounce lost 2 g h / |v_n| of its energy (0.44 % for a ball dropped 1 m at 1 ms).
    // RK4 and RK45 end on the motion's value at the end of the step: e' = e there.
    Eigen::VectorXd bounce = Eigen::VectorXd::Zero(Eigen::Index(velocityProblem.rows.size()));
    bool bounces = false;
    for (std::size_t i = 0; i < contactRows.size(); ++i) {
      const ContactRow& cr = rows[std::size_t(contactRows[i])];
      if (!cr.restitutes) continue;
      const double lag = meanVelocities ? (1.0 + cr.restitution) * cr.pull * h / (2.0 * cr.approach) : 0.0;
      const double e = std::max(0.0, cr.restitution + lag);
      bounce(Eigen::Index(i)) = e * compression.multipliers(Eigen::Index(i));
      bounces = bounces || bounce(Eigen::Index(i)) > 0.0;
    }
    if (bounces) {
      gauss::Problem restitution = velocityProblem;
      restitution.unconstrained = after + gauss::applyInverseMetricTranspose(velocityProblem, bounce);
      const gauss::Solution r = solve(restitution);
      if (r.ok) {
        after = r.acceleration;
        impulse += bounce + r.multipliers;
      } else {
        conflict("bounce left out of this step", r.error);
      }
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
      deep = deep || (!cr.restitutes && cr.depth > cm.slop);
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
        row.c = cr.restitutes ? -cm.slop : cr.depth - cm.slop;
      }
      const gauss::Solution d = solve(positionProblem);
      if (!d.ok) {
        conflict("overlap not removed", d.error);
      } else {
        for (std::size_t i = 0; i < members.size(); ++i) {
          const Eigen::Index o = Eigen::Index(members[i]) * kBodyDofs;
          const Vec6 di = d.acceleration.segment<6>(Eigen::Index(6 * i));
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
