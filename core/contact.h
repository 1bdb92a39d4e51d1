// The contact stage (issue 20): bodies that touch each other or a ground plane are kept from
// passing through, bounce with Poisson's restitution, rest, and stick or slide by Coulomb
// friction (frictionPhase in contact.cpp). Scenes turn it on with settings.contacts. The
// velocity-level steps (semi-implicit Euler, sequential impulses) call it between their kick and
// drift, on the step's start positions and kicked velocities, so the drift moves with the
// velocities the contacts allow (after the drift, a body held by friction on a slope had already
// crept g sin h^2 per step); RK4 and RK45 call it after the step, on the state it reached.
//
// Gauss's principle in velocity space (Redon & Coquillart; the solver is core/gauss.h). The
// bodies of a contact group (bodies linked by contacts and joints) have generalized velocities
// u (v and w per body). The velocity after the impacts is the admissible one
// nearest to u in the kinetic metric M:
//   u+ = argmin 1/2 (u+ - u)^T M (u+ - u)   subject to
//        n_k . (relative velocity of contact k's points) >= 0   (unilateral)
//        J_j u+ = J_j u                                 (every assembled joint's row: unchanged)
// so M (u+ - u) = J^T lambda: lambda_k >= 0 is contact k's normal impulse, and the joints carry
// what the impacts transmit (a pendulum hitting the floor swings its nail's reaction too).
// Restitution (Poisson): that solve is the compression phase; the restitution phase applies
// e_k lambda_k more along each contact's normal (e_k the larger of its two bodies', 0 for contacts
// approaching slower than 2 |g| h + 1 mm/s: a resting body's contact absorbs the one step of
// gravity it gets, and does not chatter), through the same solve so that no contact approaches
// and no joint rate changes:
//   u_r = u_c + M^-1 sum_k n_k-row^T e_k lambda_k,    u+ = argmin 1/2 |u+ - u_r|_M^2  (same rows)
// For a single contact this returns the approach speed times e (Newton's law); for several it
// is Poisson's hypothesis (restitution impulse = e times compression impulse), which keeps
// momentum and, for e = 1 and one contact, energy.
//
// Penetration: a step moves the bodies by h u before the contact is found, so a contact may
// overlap by up to h |u . n|. Where a contact bounces (restitution
// applied) the overlap is left as it is: the body leaves it with the reflected speed, and for
// e = 1 its energy is what it had before the step (a ball that sank by depth d at speed v, which
// it reached falling d further, climbs back from -d at speed v: no energy from the correction).
// So is the overlap of a contact already leaving faster than the resting speed (the bounce of
// an earlier step not yet cleared: projected, a rod's end that left the floor 0.9 mm deep was
// lifted by that, m g 0.9 mm of energy from nothing).
// Where it neither bounces nor leaves, projection removes the overlap beyond the slop
// (settings.contact_slop: the overlap a resting contact keeps, so that it stays detected and its
// force stays steady), as projection of the joints does (core/projection.h): the displacement d
// (6 per body: translation and a small rotation) nearest to 0 in the metric M with
//   n_k . (displacement of contact k's points) >= depth_k - slop,   J_j d = 0,
// applied to positions only, not velocities. A resting box: each step's kick gives it g h towards
// the floor, the impulse m g h takes it away before the drift: its contact forces sum to m g
// exactly and it stays at the slop.
//
// Pairs apart by less than 1 mm (kNearMargin in contact.cpp) are rows of that projection too,
// with their gap as room (n_k . d >= depth_k - slop, depth_k < 0), and of nothing else: a
// projection that knew only the touching pairs pushed a body out of one neighbour into another.
//
// Contacts are found by CollisionDetector (core/collision.h): penetrating pairs (and the near
// ones), no continuous detection (a body faster than its thickness per step can
// pass through a thin one).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/collision.h"
#include "core/constraint.h"
#include "core/gauss.h"
#include "core/model.h"

namespace tether::core {

// One contact of the last contact stage.
struct ContactReport {
  Contact contact;             // as detected (bodyB -1: the ground plane `plane`)
  int plane = -1;
  double impulse = 0.0;        // normal impulse over the step (compression + restitution), N s
  double force = 0.0;          // impulse / h: the contact's force as a step's average, N
  Vec3 friction = Vec3::Zero();  // the friction force on A (tangential impulse / h), N
  Vec3 rolling = Vec3::Zero();   // rolling resistance's torque on A: against rolling (in the contact's plane) and spinning (about its normal), N m
};

class ContactStage {
 public:
  // The contact stage on the packed state y that a step of length h ended with (its velocities
  // and positions are changed). Returns "" or, when a group's contacts cannot be met together
  // with its joints (a path pushing a pinned body into the floor), a message naming the bodies;
  // that group's contacts are then left out of this step.
  // assembled: per constraint part, whether it has been met since it became active
  // (StepMemory::assembled). A body with a joint still assembling is not in place yet and takes
  // no contacts with other bodies (it passes through them on its way, as without contacts), only
  // with the planes; the pairs it overlaps on its way go on passing through each other until they
  // come apart (passing: StepMemory::passing, updated here). Every present joint, assembling or
  // not, is an equality row holding its rate, so an impact on a body in place reaches the bodies
  // joined to it. kickedFrom: the velocity-level steps' kinematics
  // before their kick (whose velocities' change over the kick gives a contact's acceleration,
  // for restitution); null after the step (RK4, RK45). resting: StepMemory::resting, the
  // contacts of the groups that rested in the last resolve, replaced by this one's.
  std::string resolve(const Model& model, const Params& params, double t, double h, Eigen::VectorXd& y,
                      const std::vector<std::uint8_t>& assembled, std::vector<std::pair<int, int>>& passing,
                      std::vector<RestingContact>& resting, const std::vector<BodyKinematics>* kickedFrom = nullptr);
  // The contacts of the last resolve, in the detector's order.
  const std::vector<ContactReport>& contacts() const { return m_reports; }
  // Whether the last resolve found the body touching something or within the near margin of it
  // (what Simulation::stepSubdivided counts a body's shape turn by).
  bool touches(std::size_t body) const { return body < m_touching.size() && m_touching[body]; }
  // The friction sweeps the last resolve made, over all its groups (a group that rests, started
  // from its exact stuck solution, takes one; see frictionPhase in contact.cpp).
  int frictionSweeps() const { return m_frictionSweeps; }
  // Called with each group's velocity problem before it is solved (the cross-check of the
  // motion-space and contact-space solvers on running scenes; empty: none).
  void setProblemRecorder(std::function<void(const gauss::Problem&)> recorder) { m_recorder = std::move(recorder); }

 private:
  CollisionDetector m_detector;
  CollisionQuery m_query;
  std::vector<ContactReport> m_reports;
  std::function<void(const gauss::Problem&)> m_recorder;
  std::vector<std::uint8_t> m_settling;  // per body: a joint of it still assembles
  std::vector<std::uint8_t> m_touching;  // per body: touches (see touches())
  int m_frictionSweeps = 0;
};

}  // namespace tether::core
