#include "core/simulation.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/forces.h"
#include "core/integrator.h"
#include "core/stability.h"
#include "core/validate.h"
#include "core/velocity_level.h"

namespace tether::core {

namespace {
// rk45 steps below this fraction of the output interval dt count as crawling (advanceTo)
constexpr double kRk45MinStepFraction = 1e-6;
// rad: the most a body held at points on its axis of symmetry spins about that axis in one
// substep (Simulation::Simulation, TurnCounts::HeldAxis)
constexpr double kHeldSpinPerSubstep = 0.05;
// rad: the most a body whose turn counts only for its contacts (TurnCounts::Shape and Axis)
// turns its shape in one substep while it touches something (see the constructor)
constexpr double kContactTurnPerSubstep = 0.08;
// a light link (Simulation::m_lightLink): the mass ratio that makes one, and the most its angular
// velocity turns in one substep, rad (see the constructor)
constexpr double kLightLinkRatio = 10.0;
constexpr double kLightLinkTurnPerSubstep = 0.04;
}  // namespace

Simulation::Simulation(std::shared_ptr<const Model> model) : Simulation(model, model->initialState()) {}

Simulation::Simulation(std::shared_ptr<const Model> model, State state) : m_model(std::move(model)) {
  m_ctx.reset(*m_model);
  setState(std::move(state));
  computeForceMobility();
  // (RK4's error is fourth order: a spring advances as far as a turn)
  const bool rk4 = m_model->settings.integrator == IntegratorKind::RK4 && m_model->settings.solver != SolverKind::SequentialImpulses;
  m_firstOrder = !rk4;
  m_substepTurn = rk4 ? stability::kSubstepTurnRK4 : stability::kSubstepTurnEuler;
  m_springPhase = rk4 ? stability::kSubstepTurnRK4 : stability::kSubstepSpringPhaseEuler;
  for (size_t j = 0; j < m_model->constraints.size(); ++j)
    if (m_model->constraints[j]->rowsTurnOnTheirOwn()) m_turningRows.push_back(int(j));
  for (size_t j = 0; j < m_model->constraints.size(); ++j)
    if (m_model->constraints[j]->nonholonomic()) m_velocityRows.push_back(int(j));
  // A body's turn per step sets the substeps (stepSubdivided) because what the step linearizes
  // turns with it: its constraints' arms and rows, the points forces act at, the gyroscopic
  // term, its shape for its contacts. A body with equal principal moments (a sphere) and nothing
  // attached to it off its centre has none of these: w = L / I is constant between forces
  // whatever it turns through, and its shape (for contacts) does not change as it turns. Its
  // turn does not count: a marble rolling at 1 m/s turns 0.125 rad per 1 ms step, and 500 of
  // them poured into a bin took 28 substeps a step. Euler and sequential impulses turn the other
  // bodies exactly or without error in energy and momentum between forces (integrator.cpp: a
  // body with an axis of symmetry, a rod or a torus, by the torque-free top's closed form; one
  // with three different moments, a box, by the implicit midpoint rule), so with nothing
  // attached only the turn of its shape counts, and only while it touches something (or is
  // within the near margin of it: ContactStage::touches), for its contacts to linearize: for a
  // body with an axis of symmetry the turn of its axis, h |w_perp| (w_perp = L_perp / I1, the
  // part of w across the axis; its spin about the axis does not count either: a capsule rolling
  // in a pile of 1 000 took 8 substeps a step for it), for a box all of h |w|. (Counted in the
  // air too, a box knocked into a spin of 500-650 rad/s in a shaken bin of 30 bodies kept its
  // 32 substeps a step for a second while it flew and bounced, and so did the whole bin.)
  // That turn counts up to kContactTurnPerSubstep, 0.08 rad per substep, not m_substepTurn:
  // what it costs is the contacts' linearization, not the step's accuracy. A contact's point at
  // rho from the centre of a body that turns by theta in a substep leaves its linearized path
  // by rho theta^2 / 2 (0.1 mm at 3 cm and 0.08 rad), an overlap or gap that the overlap
  // projection and the next substep's rows take in. (At 0.02 rad, capsules tumbling as 1 000
  // bodies poured into a box held the whole scene at 2-8 substeps a step for its first second.)
  const Model& m = *m_model;
  const bool closedFormTop = m.settings.solver == SolverKind::SequentialImpulses ||
                             m.settings.integrator == IntegratorKind::SemiImplicitEuler;
  m_turnCounts.assign(m.bodies.size(), TurnCounts::All);
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const Vec3& I = m.bodies[i].inertia;
    if (I.maxCoeff() - I.minCoeff() <= 1e-12 * I.maxCoeff())
      m_turnCounts[i] = TurnCounts::None;
    else if (closedFormTop)
      m_turnCounts[i] = m.bodies[i].symmetryAxis >= 0 ? TurnCounts::Axis : TurnCounts::Shape;
  }
  // A body with an axis of symmetry held only at points on that axis (the usual rod chain: its
  // joints at the rods' ends) is turned by the same closed form, and its spin about the axis
  // moves none of those points: their rows and arms depend on the axis alone
  // (Constraint::seesOnlyAxis), and so does their acceleration (the spin's parts of the
  // centripetal and the gyroscopic terms cancel). What its joints linearize turns with the
  // axis, which precesses about L at |L| / I1 (the torque-free top above), so that turn counts,
  // always, not only while it touches something (HeldAxis): h |L| / I1 = h |w_perp + (I3 / I1)
  // s a|, its spin s counting only as much as it tilts the precession. (Counting all of h |w|
  // instead, a chain of rods rolling on the floor, spinning at v / r about their axes, took
  // 16-64 substeps a step.) The spin itself still counts, up to kHeldSpinPerSubstep per
  // substep instead of m_substepTurn: the step follows it to first order only (its parts cancel
  // in the exact accelerations, not in the step's linearization). Measured with one step per
  // 1 ms on corpus scene 179, a heavy rod top (16.8 x 1.1 cm, spinning at 175 rad/s on a pin at
  // its lower end), whose energy the corpus asks to keep within 1 % of 0.2 J: 3.1e-3 J in one
  // step per step, 5.6e-4 J in two, 1.6e-4 J in four, 4.3e-5 J in the 16 of h |w|; without
  // projection 1.1 % in two (a fail), 0.27 % in four. 0.05 rad per substep keeps every scene
  // of the corpus that passed (euler and euler_noproj), the spinning tops within 0.6 %.
  const auto heldAt = [&](int b, bool onAxis) {
    TurnCounts& counts = m_turnCounts[size_t(b)];
    counts = onAxis && (counts == TurnCounts::Axis || counts == TurnCounts::HeldAxis) ? TurnCounts::HeldAxis : TurnCounts::All;
  };
  const auto axisOf = [&](int b) { return Vec3::Unit(std::max(0, m.bodies[size_t(b)].symmetryAxis)); };
  for (const auto& c : m.constraints)
    for (int b : c->bodies())
      if (b >= 0) heldAt(b, c->seesOnlyAxis(b, axisOf(b)));
  const auto attached = [&](const Anchor& a) {
    if (a.kind == Anchor::Kind::Body && a.index >= 0 && a.local != Vec3::Zero()) heldAt(a.index, onAxisOf(a, a.index, axisOf(a.index)));
  };
  for (const ForceModel& f : m.forces) {
    attached(f.a);
    attached(f.b);
    for (int b : {f.bodyA, f.bodyB})
      if (b >= 0) m_turnCounts[size_t(b)] = TurnCounts::All;
  }
  // A light link whips. A 0.16 kg rod pinned to a nail, a 15 kg ball on a 0.4 m string from its
  // free end: each time the ball swings through the line of the rod, the joint between rod and
  // string passes close to the line from the nail to the ball, at rho from it, and circles that
  // line at v / rho while the rod turns at only v / L. The rod's w then turns at v / rho: its
  // magnitude stays moderate (the substeps on h |w| stay few) but its direction swings through a
  // large angle within a step, and the step, which takes w as constant over it, loses energy at
  // every whip (ten such scenes at 1 ms, the string's c already at the end velocities: 3 % of the
  // motion's energy in a minute on average, 9 % at worst). So a body joined by a constraint to a
  // moving body kLightLinkRatio times heavier counts the turn of its w over a substep too,
  // |w' - w| / |w|, up to kLightLinkTurnPerSubstep (the ten scenes: 0.4 % on average, 0.6 % at
  // worst; with rk4, whose steps it divides alike, 22 % and 70 % before, 0.1 % and 0.4 % after).
  // Only while the body turns at all (h |w| above a tenth of m_substepTurn: near rest the
  // direction of w means nothing) and touches nothing (a contact's impulse turns w at once).
  // Links of like masses are not counted: the benchmark's 1 000-link chain whips at its free end
  // and keeps its energy to 0.04 % over its 2 s, and would take 2-6 times the substeps.
  m_lightLink.assign(m.bodies.size(), 0);
  m_heavyPartner.assign(m.bodies.size(), -1);
  for (const auto& c : m.constraints) {
    const BodyList bl = c->bodies();
    if (bl.n != 2 || bl.b[0] < 0 || bl.b[1] < 0) continue;
    for (int s = 0; s < 2; ++s) {
      const int light = bl.b[s], heavy = bl.b[1 - s];
      const BodyModel &l = m.bodies[size_t(light)], &h = m.bodies[size_t(heavy)];
      if (l.fixed || h.fixed || !(kLightLinkRatio * l.mass < h.mass)) continue;
      m_lightLink[size_t(light)] = 1;
      int& partner = m_heavyPartner[size_t(light)];
      if (stability::kJoinedMassRatio * l.mass < h.mass && (partner < 0 || m.bodies[size_t(partner)].mass < h.mass))
        partner = heavy;
    }
  }
  // A chain all but straight between two anchors (under 1 % of its reach to spare) whips alike
  // at every link, whatever their masses: near its straight poses the links can hardly move across
  // the line between its ends, and each swing through them snaps their w around (the constraint's
  // pull grows as the sideways speed squared over the room left). Five 0.4 m rods from a nail to
  // a plane 5 mm within their 2 m reach, drawn zig-zag, gained energy exponentially from the 4
  // substeps their h |w| asked for and blew up at 7 s (2 mm short: at 1.2 s); counting the turn of
  // each link's w, they kept their energy within 0.4 % from 10 s to 60 s (2 mm: 5 %, 10 mm: 1.5 %,
  // as against -17 %), at 3 s of wall time for the minute (measured, session 57). Exactly at reach
  // (no room at all), and five between two nails 1 mm short, still blow up: check says so.
  for (size_t i = 0; i < m.tautLink.size() && i < m_lightLink.size(); ++i)
    if (m.tautLink[i] && !m.bodies[i].fixed) m_lightLink[i] = 1;
  m_anyLightLink = std::find(m_lightLink.begin(), m_lightLink.end(), 1) != m_lightLink.end();
}

// A spring of stiffness k between points of mobility mu_a, mu_b (the acceleration of a point per
// unit force along the spring's line, free bodies) oscillates alone at omega^2 = k (mu_a + mu_b),
// with others on the same bodies up to stability::elasticRates' bound; constraints only add
// inertia, so these bound the rate from above. A body point at r from
// the centre of mass has the mobility matrix K (pointMobility: dv = K f for an impulse f at the
// point) in body axes (I diagonal there, r constant), and the largest eigenvalue of K bounds the
// mobility along any line. A torsion spring's torque is about n = a x b, perpendicular to the
// body's own axis a: the largest mobility of the body about a unit n with n . a = 0 is the
// largest eigenvalue of P I^-1 P, P = 1 - a a^T.
void Simulation::computeForceMobility() {
  const Model& m = *m_model;
  auto endMobility = [&](const Anchor& a) {
    if (a.kind != Anchor::Kind::Body) return 0.0;
    const BodyModel& b = m.bodies[size_t(a.index)];
    if (b.fixed) return 0.0;
    return stability::largestMobility(pointMobility(b.invMass, b.invInertia.asDiagonal(), a.local));
  };
  auto turnMobility = [&](int body, const Vec3& axis) {
    const BodyModel& b = m.bodies[size_t(body)];
    return b.fixed ? 0.0 : stability::turnMobility(b.invInertia.asDiagonal(), axis);
  };
  auto bodyOf = [&](const Anchor& a) { return a.kind == Anchor::Kind::Body ? a.index : -1; };
  m_elastic.assign(m.forces.size(), stability::Elastic{});
  m_springs.clear();
  for (size_t i = 0; i < m.forces.size(); ++i) {
    const ForceModel& f = m.forces[i];
    stability::Elastic& e = m_elastic[i];
    if (f.kind == ForceKind::Spring) {
      e.end[0] = {bodyOf(f.a), endMobility(f.a)};
      e.end[1] = {bodyOf(f.b), endMobility(f.b)};
    } else if (f.kind == ForceKind::TorsionSpring) {
      e.end[0] = {f.bodyA, turnMobility(f.bodyA, f.axisA)};
      e.end[1] = {f.bodyB, turnMobility(f.bodyB, f.axisB)};
    } else {
      continue;
    }
    if (e.end[0].mobility + e.end[1].mobility > 0.0) m_springs.push_back(int(i));
  }
}

// The fastest spring's angular frequency now (enabled springs at their current stiffness, with
// the springs that share their bodies: stability::elasticRates), rad/s; which: the spring whose
// bound it is.
double Simulation::fastestSpring(int* which) const {
  if (m_springs.empty()) return 0.0;
  for (int i : m_springs)
    m_elastic[size_t(i)].stiffness = m_state.params.forceEnabled[size_t(i)] ? m_state.params.force[size_t(i)].stiffness : 0.0;
  stability::elasticRates(m_elastic, m_model->bodies.size(), m_elasticRate2, m_elasticScratch);
  double rate2 = 0.0;
  for (int i : m_springs)
    if (m_elasticRate2[size_t(i)] > rate2) {
      rate2 = m_elasticRate2[size_t(i)];
      if (which) *which = i;
    }
  return std::sqrt(rate2);
}

void Simulation::setState(State s) {
  m_state = std::move(s);
  m_packed = false;
  m_ctx.rowsCurrent = false;
}

void Simulation::packState() {
  if (m_packed) return;
  pack(m_state.bodies, m_ctx.y);
  m_packed = true;
  m_ctx.rowsCurrent = false;
}

void Simulation::fireDueEvents() {
  const auto& ev = m_model->events;
  while (m_state.nextEvent < ev.size() && snapToGrid(ev[m_state.nextEvent].time) <= m_state.t) {
    applyEvent(*m_model, ev[m_state.nextEvent], m_state);
    // (a drive's speed may jump: the velocity constraints' laws start again from the measured
    // rate; see velocityConstraintTarget)
    m_state.memory.velocityAim.clear();
    m_state.memory.lawSteps.clear();
    ++m_state.nextEvent;
    m_packed = false;
    m_ctx.rowsCurrent = false;
  }
}

double Simulation::nextEventTime() const {
  const auto& ev = m_model->events;
  return m_state.nextEvent < ev.size() ? ev[m_state.nextEvent].time : std::numeric_limits<double>::infinity();
}

StepMemory& Simulation::preparedMemory() {
  const Model& m = *m_model;
  StepMemory& memory = m_state.memory;
  if (memory.assembled.size() != m.constraints.size()) memory.assembled.assign(m.constraints.size(), 0);
  if (memory.lastForce.size() != m.constraints.size()) memory.lastForce.assign(m.constraints.size(), Vec3::Zero());
  if (memory.impulses.size() != m.constraints.size()) memory.impulses.assign(m.constraints.size(), Vec3::Zero());
  if (memory.spinTrend.dw.size() != m.bodies.size()) memory.spinTrend.dw.assign(m.bodies.size(), Vec3::Zero());
  if (!m_velocityRows.empty() && memory.velocityIntegral.size() != m.constraints.size())
    memory.velocityIntegral.assign(m.constraints.size(), Vec3::Zero());
  m_ctx.velocityIntegral = m_velocityRows.empty() ? nullptr : &memory.velocityIntegral;
  m_ctx.assembled = &memory.assembled;
  return memory;
}

bool Simulation::stepOnce(double h, std::string& runningAway, double maxTurn, bool* tooFast) {
  const Model& m = *m_model;
  m_ctx.system.setResidualReported(false);
  StepMemory& memory = preparedMemory();
  packState();
  m_packed = false;  // (until the step succeeds)
  // contacts (core/contact.h): the velocity-level steps resolve them between their kick and
  // drift (at the step's start positions, so the drift moves with the velocities they allow);
  // RK4 and RK45 on the state they reach. The joints met where the step's forces were evaluated
  // count as assembled from there (projection marks them at the step's end; a joint met from the
  // start must be an equality row from the first step, or a contact would open it)
  AfterKick contactsAfterKick;
  if (m.contacts.enabled)
    contactsAfterKick = [&](Eigen::VectorXd& y) {
      updateAssembled(m_ctx.system, memory.assembled);
      // (m_ctx.kin: the kinematics the kick started from)
      m_contactProblem = m_contacts.resolve(m, m_state.params, m_state.t, h, y, memory.assembled, memory.passing,
                                            memory.resting, &m_ctx.kin);
    };
  // the velocity constraints' errors at the start: their integral over the step by the
  // trapezoidal rule for the continuous-time integrators (second order; the rectangle rule's
  // h/2 (g_start - g_end) per step left a point 2.5e-4 m off after assembling with rk4)
  const bool velocityLevel = stabilization(m.settings, h, nullptr).velocityLevel;
  if (!m_velocityRows.empty() && !velocityLevel) velocityErrors(m_state.t, m_ctx.y, m_rateStart);
  bool kicked = false;
  const double taken = integrate(m, m_state.params, m_state.t, h, m_ctx, memory, contactsAfterKick, &kicked);
  if (m.settings.integrator == IntegratorKind::RK45 && m.settings.solver != SolverKind::SequentialImpulses)
    m_state.hNext = m_ctx.hNext;
  m_ctx.rowsCurrent = false;  // (y has moved on; a velocity-level projection sets it again)
  normalizeQuaternions(m_ctx.y);
  bool finite = allFiniteLong(m_ctx.y);
  // the continuous integrators' assembled flags for the implicit method (assemblingKind), from
  // the rows of the step's last evaluation (projection, when on, marks them at the end too)
  if (!velocityLevel && m.settings.stabilization == StabilizationKind::Implicit && finite)
    updateAssembled(m_ctx.system, memory.assembled);
  if (m.contacts.enabled && !kicked && finite) {
    updateAssembled(m_ctx.system, memory.assembled);
    m_contactProblem = m_contacts.resolve(m, m_state.params, m_state.t + taken, taken, m_ctx.y, memory.assembled,
                                          memory.passing, memory.resting);
    finite = allFiniteLong(m_ctx.y);
  }
  if (m.settings.projection && finite && projectPositions(m, m_state.params, m_state.t + taken, m_ctx, memory.assembled)) {
    if (normalizeQuaternions(m_ctx.y)) m_ctx.rowsCurrent = false;
    finite = allFiniteLong(m_ctx.y);
  }
  if (!finite) return false;
  runningAway = runaway(m_ctx.y, taken);
  if (!runningAway.empty()) return true;
  // rows that turn on their own (a distance's line between points circling each other) count
  // like a body's turn, at the rate the step started with (a sphere circling another on a
  // sphere-to-sphere at 100 rad/s, neither spinning, lost 29 % of its energy in 20 s while the
  // line turned 0.1 rad per 1 ms step; see stepSubdivided)
  if (!m_turningRows.empty() && m_stepTurn <= maxTurn) {
    const EvalContext ectx{m_ctx.kin, m.paths, m_state.t, &m_state.params.pathClock};
    const std::vector<int>& offset = m_ctx.system.rowOffset();
    for (int j : m_turningRows)
      if (size_t(j) < offset.size() && offset[size_t(j)] >= 0)
        if (const double turn = taken * m.constraints[size_t(j)]->turnRate(ectx); turn > m_stepTurn) {
          m_stepTurn = turn;
          m_stepTurnBody = -1;
          m_stepTurnRow = j;
          m_stepTurnWhip = false;
        }
  }
  if (tooFast) *tooFast = m_stepTurn > maxTurn;
  if (m_stepTurn > maxTurn) return true;
  if (!m_velocityRows.empty()) {
    // their integral: for the velocity-level steps, h times the step's mean rate, the rate
    // measured at its end less the offset o it runs ahead of the rate the positions moved with
    // (x' = x + h v'), h (c + g) / 6 at the start (a third of StepMemory::rateOffset) plus h (c +
    // g) / 3 at the end; and how far that rate missed the one the solve was given, for the next
    // step (velocityAim less the miss taken off it; all derived at velocityConstraintTarget);
    // else the trapezoidal rule; zero while a constraint is not present
    velocityErrors(m_state.t + taken, m_ctx.y, m_rateEnd, velocityLevel ? &m_turnEnd : nullptr);
    std::vector<Vec3>& integral = m_state.memory.velocityIntegral;
    const std::vector<Vec3>& ahead = m_state.memory.rateOffset;
    for (size_t k = 0; k < m_velocityRows.size(); ++k) {
      const size_t j = size_t(m_velocityRows[k]);
      Vec3& I = integral[j];
      if (std::isnan(m_rateEnd[k].x())) {
        I.setZero();
        if (j < m_state.memory.velocityMiss.size()) m_state.memory.velocityMiss[j].setZero();
      } else if (velocityLevel) {
        const bool offset = j < ahead.size() && !std::isnan(ahead[j].x());
        const Vec3 mean = offset ? Vec3(m_rateEnd[k] - ahead[j] / 3.0 - (taken / 3.0) * m_turnEnd[k]) : m_rateEnd[k];
        I += taken * mean;
        std::vector<Vec3>& aim = m_state.memory.velocityAim;
        std::vector<Vec3>& miss = m_state.memory.velocityMiss;
        if (miss.size() != integral.size()) miss.assign(integral.size(), Vec3::Zero());
        if (j < aim.size() && !std::isnan(aim[j].x())) miss[j] = mean - aim[j] + miss[j];
      } else {
        I += 0.5 * taken * (m_rateStart[k] + m_rateEnd[k]);
      }
    }
    m_ctx.rowsCurrent = false;  // (rows a projection left hold the integral as it was)
  }
  unpack(m_ctx.y, m_state.bodies);
  m_packed = true;
  m_state.t += taken;
  m_lastStep = taken;
  return true;
}

// A fixed step follows a motion only while it turns a small angle per step: the constraint rows,
// the arms' rotation and the gyroscopic term are all linearized in h w, and a first-order step
// (semi-implicit Euler, sequential impulses) keeps a "shadow" energy whose distance from the
// true one is about h w / 2 of the energy in that motion (a spring on a slider at h w = 0.07
// oscillated by 3.9 %; a heavy top spinning at 245 rad/s lost 64 % in a minute at 0.5 ms and
// blew up at 1 ms). So each step is taken in n = 1, 2, 4, ... (at most settings.maxSubsteps)
// equal substeps such that no body turns more than m_substepTurn per substep (0.02 rad for the
// first-order steps: energy within ~1 %; 0.05 rad for RK4, whose error is fourth order), and no
// spring's phase advances more than m_springPhase (fastestSpring; 0.01 rad for the first-order
// steps, derived at kSubstepSpringPhaseEuler; the mouse spring is not counted). A
// step that would leave a body turning faster is taken again from its start in twice as many
// substeps (the start state is intact: stepOnce commits nothing until it succeeds, and the
// substeps restore what they committed). n then stays (State::substeps) and falls only after
// kCalmSteps steps in a row that half as many would have taken with room to spare, to as few as
// the largest turn among them allows: every change of step length moves the energy onto
// another shadow, at a state where the motion is fast (up) or calm (down), and the moves do not
// cancel. Switching back and forth each step made a plain pendulum's energy wander 40 times
// more than a fixed step of either length, and with 500 calm steps a chain built in the GUI (a
// rod, a box, a torus and a sphere hung from a nail, swinging between 1 and 4 substeps at
// 1 ms) gained 0.77 J of 259 in 600 s, in 66 changes, against 0.16 J with none after its
// first 10 s (measured; at 4 000 calm steps, two changes). Where the bodies hardly turn (a
// twentieth of a substep's bound per step), n falls after kQuietSteps: a change costs next to
// nothing there, and a damped model come to rest need not pay for its past. With contacts on,
// after kQuietSteps always: impacts and friction take energy in and out far beyond the
// changes' jumps, and a chain of six cubes settling on the floor in 2-4 substeps for 4 000
// steps came to rest in another pose, where it crept at 1e-6 to 2e-5 J for the 15 s measured
// instead of resting below 1e-9 J (the contact stage's own limit, not the substeps').
// RK4, whose error is fourth order, keeps no such shadow: its substeps fall after kQuietSteps.
// The grid, the output and the events are unchanged; only the work per step grows while the
// motion is that fast (the benchmark chains never substep; the tree does, where
// its energy change over 2 s fell from -9 % to -0.4 %). The adaptive integrator (rk45) controls
// its own step.
bool Simulation::stepSubdivided(double h, std::string& runningAway) {
  const Model& m = *m_model;
  const bool fixedStep = m.settings.integrator != IntegratorKind::RK45 || m.settings.solver == SolverKind::SequentialImpulses;
  if (!fixedStep) return stepOnce(h, runningAway);
  // a spring's phase advances like a turn: at least enough substeps for the fastest one
  int nSpring = 1, spring = -1;
  const int maxN = std::max(1, m.settings.maxSubsteps);
  const double phase = h * fastestSpring(&spring);
  while (nSpring < maxN && phase > nSpring * m_springPhase) nSpring = std::min(2 * nSpring, maxN);
  int n = std::clamp(std::max(m_state.substeps, nSpring), 1, maxN);
  bool saved = false;
  const double t0 = m_state.t;
  for (;;) {
    // the last try takes whatever turn it must
    const double maxTurn = n < maxN ? m_substepTurn : std::numeric_limits<double>::infinity();
    bool finite = true, tooFast = false;
    double largest = 0.0;  // the largest turn of a substep
    int largestBody = -1, largestRow = -1;  // whose
    bool largestWhip = false;
    auto noteLargest = [&]() {
      if (m_stepTurn <= largest) return;
      largest = m_stepTurn;
      largestBody = m_stepTurnBody;
      largestRow = m_stepTurnRow;
      largestWhip = m_stepTurnWhip;
    };
    runningAway.clear();
    if (n == 1) {
      finite = stepOnce(h, runningAway, maxTurn, &tooFast);  // commits only if it is taken
      noteLargest();
    } else {
      if (!saved) {
        m_subBackup = m_state.bodies;
        saved = true;
      }
      // every substep h / n (t0 + h less the t the others reached, for the last, was 0 where
      // each moved t by one unit of its last place: a step of 63 units at t = 600 s in 64
      // substeps; a step of 0 s divides by 0)
      for (int k = 0; k < n && finite && runningAway.empty() && !tooFast; ++k) {
        finite = stepOnce(h / n, runningAway, maxTurn, &tooFast);
        noteLargest();
      }
    }
    if (finite && runningAway.empty() && !tooFast) {
      m_state.t = t0 + h;
      m_lastStep = h;
      if (n == maxN) {  // past the bounds only at the ceiling: said (SubstepShortfall)
        const double turnOver = largest / m_substepTurn, phaseOver = phase / (n * m_springPhase);
        if (turnOver > 1.0 && turnOver >= phaseOver && largestWhip)
          noteShortfall(turnOver, largestBody, -1, -1, largest * (kLightLinkTurnPerSubstep / m_substepTurn),
                        kLightLinkTurnPerSubstep, n, true);
        else if (turnOver > 1.0 && turnOver >= phaseOver)
          noteShortfall(turnOver, largestBody, largestRow, -1, largest, m_substepTurn, n);
        else if (phaseOver > 1.0)
          noteShortfall(phaseOver, -1, -1, spring, phase / n, m_springPhase, n);
      }
      // half as many substeps would each turn twice as far; after kCalmSteps such steps (or
      // kQuietSteps, where the steps turn by less than a twentieth of a substep's bound: nothing
      // moves enough for a change to matter, and contacts at rest settle sooner in fewer
      // substeps), as few as the largest turn of those steps allows (calmTurn: per step,
      // largest * n)
      if (n > nSpring && 2.0 * largest <= 0.5 * m_substepTurn) {
        m_state.calmTurn = std::max(m_state.calmTurn, largest * n);
        ++m_state.calmSteps;
        const int calm = m.contacts.enabled || !m_firstOrder ? kQuietSteps : kCalmSteps;
        if (m_state.calmSteps >= calm || (m_state.calmSteps >= kQuietSteps && m_state.calmTurn <= 0.05 * m_substepTurn)) {
          while (n > nSpring && 2.0 * m_state.calmTurn / n <= 0.5 * m_substepTurn) n /= 2;
          m_state.calmSteps = 0;
          m_state.calmTurn = 0.0;
        }
      } else {
        m_state.calmSteps = 0;
        m_state.calmTurn = 0.0;
      }
      m_state.substeps = n;
      return true;
    }
    if (saved) {  // back to the start of the step
      m_state.bodies = m_subBackup;
      m_state.t = t0;
      m_packed = false;
    }
    if (n >= maxN) return finite;  // the caller restores the rest
    // again from the start, in more substeps
    m_packed = false;
    m_ctx.rowsCurrent = false;
    m_state.memory = m_backup.memory;
    n = std::min(2 * n, maxN);
  }
}

// A step at the ceiling whose substeps went past the bound by the factor over: counted, and the
// first and the worst described with the fix (the substeps the motion asks for, a power of two,
// or the dt at which the allowed ones would do).
void Simulation::noteShortfall(double over, int body, int row, int spring, double perSubstep, double bound, int n,
                               bool whip) {
  SubstepShortfall& s = m_shortfall;
  ++s.steps;
  if (s.firstAt < 0.0) s.firstAt = m_state.t;
  s.lastAt = m_state.t;
  if (!s.first.empty() && over <= s.worst) return;  // (words only for the first and a new worst)
  s.worst = over;
  const Model& m = *m_model;
  std::ostringstream o;
  o.precision(3);
  if (spring >= 0)
    o << "spring \"" << m.forceNames[size_t(spring)] << "\""
      << (stability::aloneOnItsBodies(m_elastic[size_t(spring)], m_elasticRate2[size_t(spring)])
              ? ""
              : " (with the springs that share its bodies)")
      << " advanced " << perSubstep << " rad of its oscillation";
  else if (body >= 0 && whip)
    o << "the angular velocity of body \"" << m.bodyNames[size_t(body)] << "\", "
      << (size_t(body) < m.tautLink.size() && m.tautLink[size_t(body)] ? "a link of a chain all but straight"
                                                                        : "a light link")
      << " whipping, turned " << perSubstep << " rad";
  else if (body >= 0)
    o << "body \"" << m.bodyNames[size_t(body)] << "\" turned " << perSubstep << " rad";
  else if (row >= 0)
    o << "constraint \"" << m.constraintNames[size_t(row)] << "\" turned its line " << perSubstep << " rad";
  else
    o << "a body turned " << perSubstep << " rad";
  // a body turning about its nail as a rotor (turnAboutPin) keeps its energy at any turn: what
  // strays is its path (a box tumbling at 90 rad/s on a corner, in one substep a step: 0.04 % of
  // its energy in 600 s, but 0.21 rad off after 2 s where 64 substeps left 0.019)
  const bool rotor = body >= 0 && !whip && std::any_of(m_ctx.rotors.begin(), m_ctx.rotors.end(),
                                                       [&](const StepContext::Rotor& r) { return r.body == body; });
  o << " in a substep at t = " << m_state.t << " s, " << over << " times the " << bound << " rad the step follows closely ("
    << (rotor ? "turning about its nail, it keeps its energy, but its path strays" : "the energy may stray past ~1 %")
    << "): max_substeps " << n << " is too few at dt = " << m.settings.dt << " s; ";
  o << stability::substepsFix(n, over, m.settings.dt);
  s.atWorst = o.str();
  if (s.first.empty()) s.first = s.atWorst;
}

// Steps follow a fixed grid t_k = k dt: a fixed-step integrator steps from grid point to grid
// point, and the adaptive one never crosses one. A step also ends on an event time or on tEnd
// that falls between grid points. Times within a billionth of a step of a grid point count as
// that grid point. So where a run is stopped does not change its trajectory: a run resumed
// from a state saved at any grid point or event time repeats the uninterrupted run bitwise.
double Simulation::snapToGrid(double t) const {
  const double dt = m_model->settings.dt;
  const double k = std::round(t / dt);
  return std::abs(t - k * dt) <= 1e-9 * dt ? k * dt : t;
}

double Simulation::nextGridPoint(double t) const {
  const double dt = m_model->settings.dt;
  return (std::floor(t / dt + 1e-9) + 1.0) * dt;
}

AdvanceResult Simulation::advanceTo(double tEndIn) {
  AdvanceResult res;
  const Model& m = *m_model;
  const double tEnd = snapToGrid(tEndIn);
  fireDueEvents();
  while (m_state.t < tEnd) {
    const double target = std::min({tEnd, snapToGrid(nextEventTime()), nextGridPoint(m_state.t)});
    double h = target - m_state.t;
    bool reachesTarget = true;
    if (m.settings.integrator == IntegratorKind::RK45 && m_state.hNext > 0.0 && m_state.hNext < h * (1.0 - 1e-6)) {
      h = m_state.hNext;
      reachesTarget = false;
      // rk45 crawling: a step a millionth of the output interval means the model is too stiff
      // for an explicit adaptive method (a run would take 10^6 steps per dt, for ever at the
      // user's scale): stop and say so, as for a divergence, instead of hanging without a word
      if (h < kRk45MinStepFraction * m.settings.dt) {
        res.ok = false;
        std::ostringstream msg;
        msg << "rk45 crawls at t = " << m_state.t << " s: it needs steps of " << h << " s, more than "
            << 1.0 / kRk45MinStepFraction << " per output interval dt = " << m.settings.dt
            << " s; the model is too stiff for it (a stiff spring, strong damping on a light body, a tiny tau): "
               "use euler or rk4, which substep, or the values tether-cli check warns about";
        res.message = msg.str();
        return res;
      }
    }
    // the last good state: a step changes only these before it knows it succeeded (the bodies
    // and t only after); assignment reuses the vectors' storage
    m_backup.memory = m_state.memory;
    m_backup.hNext = m_state.hNext;
    const double proposed = m_state.hNext;
    std::string runningAway;
    const bool finite = stepSubdivided(h, runningAway);
    if (!finite || !runningAway.empty()) {
      std::swap(m_state.memory, m_backup.memory);
      m_state.hNext = m_backup.hNext;
      res.ok = false;
      res.message = finite ? runningAway
                           : "the simulation diverged at t = " + std::to_string(m_state.t) +
                                 " s (non-finite state after a step of " + std::to_string(h) + " s)";
      if (finite) res.advice = m_runawayAdvice;
      return res;
    }
    if (reachesTarget && m_lastStep == h) {
      m_state.t = target;  // exactly, whatever the rounding of t + h
      // rk45: a step cut short to end on a target (a grid point, an event, tEnd) and taken whole
      // says nothing about the step the model needs, and its proposal (at most 5 times it) must
      // not replace the one it had: a run advanced in 0.01 s increments, whose sum drifts off
      // the 1 ms grid by 5e-12 s, took a 5e-12 s step to the grid point and stopped there as
      // "crawling" (a rod hanging from a nail)
      if (m.settings.integrator == IntegratorKind::RK45 && proposed > h) m_state.hNext = std::max(m_state.hNext, proposed);
    }
    ++res.steps;
    ++m_totalSteps;
    fireDueEvents();
  }
  return res;
}

// A blow-up is caught before it reaches NaN by what no step can follow: a body that turns
// more than kMaxTurn rad in one step (nearly half a turn: 3 000 rad/s at 1 ms; the free end of
// the benchmark's 100-link chain whips past 1 rad per step at 1/240 s and the step still holds
// it), or moves more than kMaxMove m in one step (1e4 m/s at 1 ms; no model of ours moves at
// that speed). A step that diverges grows by orders of magnitude per step, so it crosses
// these long before NaN. The bound |w| <= |L| / I_min is checked first, so the loop costs a few
// multiplications per body.
std::string Simulation::runaway(const Eigen::VectorXd& y, double h) {
  constexpr double kMaxTurn = 3.0, kMaxMove = 10.0;
  const Model& m = *m_model;
  int worst = -1;
  double worstTurn = 0.0, worstMove = 0.0;
  m_stepTurn = 0.0;
  m_stepTurnBody = m_stepTurnRow = -1;
  m_stepTurnWhip = false;
  // a turn that counts only for contacts, on m_substepTurn's scale (see the constructor)
  const double contactScale = m_substepTurn / kContactTurnPerSubstep;
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const BodyModel& bm = m.bodies[i];
    if (bm.fixed || !m_state.params.bodyActive[i]) continue;
    const double* p = y.data() + i * kBodyDofs;
    const Vec3 P(p[7], p[8], p[9]), L(p[10], p[11], p[12]);
    const double move = h * bm.invMass * P.norm();
    const Quat q(p[3], p[4], p[5], p[6]);
    const Vec3 Lb = q.conjugate() * L;  // (body axes; once: two of the branches below took it again)
    const double Ln = L.norm();
    double turn = h * bm.invInertia.maxCoeff() * Ln;  // >= h |w|
    if (turn > m_substepTurn) turn = h * bm.invInertia.cwiseProduct(Lb).norm();
    double counted = 0.0;  // what of its turn counts for the substeps
    const TurnCounts counts = int(i) == m_state.params.mouse.body ? TurnCounts::All : m_turnCounts[i];
    if (counts == TurnCounts::All) {
      counted = turn;
    } else if (counts == TurnCounts::Shape && m_contacts.touches(i)) {
      counted = turn * contactScale;
    } else if (counts == TurnCounts::Axis && m_contacts.touches(i)) {
      // the axis's turn: h |L_perp| / I1, L_perp the part of L (body frame) across the axis
      const int k = bm.symmetryAxis;
      Vec3 across = Lb;
      across(k) = 0.0;
      counted = h * bm.invInertia((k + 1) % 3) * across.norm() * contactScale;
    } else if (counts == TurnCounts::HeldAxis) {
      // the axis's precession about L, h |L| / I1, and its spin s = L_k / I3 up to
      // kHeldSpinPerSubstep (see the constructor), on m_substepTurn's scale
      const int k = bm.symmetryAxis;
      const double spin = h * bm.invInertia(k) * std::abs(Lb(k));
      counted = std::max(h * bm.invInertia((k + 1) % 3) * Ln, spin * (m_substepTurn / kHeldSpinPerSubstep));
    }
    bool whip = false;
    if (m_anyLightLink && m_lightLink[i] && (counts == TurnCounts::All || counts == TurnCounts::HeldAxis) && !m_contacts.touches(i)) {
      // a light link's w turns (see the constructor): w at the substep's start is m_state's
      const BodyState& start = m_state.bodies[i];
      const Vec3 w1 = q * bm.invInertia.cwiseProduct(Lb);
      const Vec3 w0 = start.q * bm.invInertia.cwiseProduct(start.q.conjugate() * start.L);
      const double w = std::max(w0.norm(), w1.norm());
      if (h * w > 0.1 * m_substepTurn) {
        const double turned = (w1 - w0).norm() / w * (m_substepTurn / kLightLinkTurnPerSubstep);
        if (turned > counted) {
          counted = turned;
          whip = true;
        }
      }
    }
    if (counted > m_stepTurn) {
      m_stepTurn = counted;
      m_stepTurnBody = int(i);
      m_stepTurnWhip = whip;
    }
    const bool runs = turn > kMaxTurn || move > kMaxMove;
    if (runs && turn / kMaxTurn + move / kMaxMove > worstTurn / kMaxTurn + worstMove / kMaxMove) {
      worst = int(i);
      worstTurn = turn;
      worstMove = move;
    }
  }
  if (worst < 0) return {};
  m_runawayAdvice.clear();
  std::ostringstream o;
  o.precision(3);
  o << "the simulation diverged at t = " << std::to_string(m_state.t + h) << " s (caught before it reached NaN): body \""
    << m.bodyNames[size_t(worst)] << "\" ";
  if (worstTurn > kMaxTurn) o << "spins at " << worstTurn / h << " rad/s (" << worstTurn << " rad per step of " << h << " s)";
  else o << "moves at " << worstMove / h << " m/s (" << worstMove << " m per step of " << h << " s)";
  std::vector<double> dev;
  deviations(dev);
  int worstC = -1;
  for (size_t j = 0; j < dev.size(); ++j)
    if (dev[j] > kAssembledThreshold && (worstC < 0 || dev[j] > dev[size_t(worstC)])) worstC = int(j);
  if (worstC >= 0)
    o << "; constraint \"" << m.constraintNames[size_t(worstC)] << "\" is open by " << dev[size_t(worstC)] << " "
      << (size_t(worstC) < m.constraintUnit.size() ? m.constraintUnit[size_t(worstC)] : "m") << " before that step";
  // constraints whose equations could not all be met where the step went (the least squares
  // leave them apart): a linkage driven past a dead point or beyond its reach, where no step size
  // helps (a helper's offset slider-crank, which cannot turn a full revolution, was told to try a
  // smaller dt). Analysed at the start of the step that ran away (still sane; the caller puts back
  // the state and the memory a failed step changed): at its end, among speeds of 6e5 rad/s, the
  // conflict showed or not with the last bits of the arithmetic.
  m_packed = false;
  m_ctx.rowsCurrent = false;
  refresh();
  const ConflictReport conflict = m_ctx.system.conflicts();
  bool conflicted = false;
  if (!conflict.conflicting.empty()) {
    // (by name, once each: a hinge's point and axis parts share one)
    std::vector<std::string> named;
    for (int j : conflict.conflicting)
      if (std::find(named.begin(), named.end(), m.constraintNames[size_t(j)]) == named.end())
        named.push_back(m.constraintNames[size_t(j)]);
    o << "; the constraints";
    for (size_t k = 0; k < named.size() && k < 4; ++k) o << (k ? ", \"" : " \"") << named[k] << "\"";
    if (named.size() > 4) o << " and " << named.size() - 4 << " more";
    // (a drive: a point led along a path, or a velocity constraint; a helper's chain with
    // neither was told to change "the drive")
    o << " could not all be met there: "
      << (m.driven() ? "if a drive pushes the model where its joints cannot follow (a linkage past a dead point or beyond "
                   "its reach), no step size helps: change the drive or the linkage"
                 : "where no pose meets them (a chain beyond its reach, or drawn straight), no step size helps: "
                   "change the model's shape");
    conflicted = true;
  }
  // a light body slaved to a much heavier one (stability::kJoinedMassRatio): no setting of the
  // step's helps there as much as the model's own masses
  if (const int heavy = m_heavyPartner[size_t(worst)]; heavy >= 0)
    o << "; body \"" << m.bodyNames[size_t(worst)] << "\" is " << std::llround(m.bodies[size_t(heavy)].mass / m.bodies[size_t(worst)].mass)
      << " times lighter than \"" << m.bodyNames[size_t(heavy)] << "\", which a constraint joins it to: beyond "
      << std::llround(stability::kJoinedMassRatio) << " times, make the light body heavier (or the heavy one lighter) first";
  o << "; kept the last sane state (t = " << std::to_string(m_state.t) << " s)";
  if (!conflicted) {  // (where no pose meets the joints, no setting helps: said above)
    std::ostringstream a;
    a << ". Try a smaller time step (dt), a larger tau, softer springs or less damping on light bodies"
      << (m.settings.integrator == IntegratorKind::RK4 ? "" : ", or the rk4 integrator")
      << " (tether-cli check names the settings past their stable bounds)";
    m_runawayAdvice = a.str();
  }
  return o.str();
}

void Simulation::refresh() {
  m_ctx.system.setResidualReported(true);
  packState();
  evaluateDerivative(*m_model, m_state.params, m_state.t, m_ctx.y, m_ctx.dy, m_ctx, &preparedMemory());
}

void Simulation::velocityErrors(double t, const Eigen::VectorXd& y, std::vector<Vec3>& out, std::vector<Vec3>* turn) {
  const Model& m = *m_model;
  bodyKinematics(m, m_state.params, y, m_rateKin);
  const EvalContext ctx{m_rateKin, m.paths, t, &m_state.params.pathClock};
  out.assign(m_velocityRows.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
  if (turn) turn->assign(m_velocityRows.size(), Vec3::Zero());
  ConstraintRows rows;
  for (size_t k = 0; k < m_velocityRows.size(); ++k) {
    const size_t j = size_t(m_velocityRows[k]);
    const Constraint& c = *m.constraints[j];
    bool present = m_state.params.constraintEnabled[j] != 0;
    for (int b : c.bodies()) present = present && m_state.params.bodyActive[size_t(b)];
    if (!present) continue;
    c.evaluate(ctx, rows);
    out[k] = rows.D1;
    if (turn) (*turn)[k] = rows.c + inertiaTurn(rows, m_rateKin);
  }
}

void Simulation::deviations(std::vector<double>& out) const {
  const Model& m = *m_model;
  std::vector<BodyKinematics> kin;
  bodyKinematics(m, m_state.params, m_state.bodies, kin);
  const EvalContext ctx{kin, m.paths, m_state.t, &m_state.params.pathClock};
  out.assign(m.constraints.size(), -1.0);
  ConstraintRows rows;
  for (size_t j = 0; j < m.constraints.size(); ++j) {
    if (!m_state.params.constraintEnabled[j]) continue;
    bool present = true;
    for (int b : m.constraints[j]->bodies()) present = present && m_state.params.bodyActive[size_t(b)];
    if (!present) continue;
    m.constraints[j]->evaluate(ctx, rows);
    if (m.constraints[j]->nonholonomic())
      rows.D = j < m_state.memory.velocityIntegral.size() ? m_state.memory.velocityIntegral[j] : Vec3::Zero();
    out[j] = rows.D.head(rows.d).norm();
  }
}

}  // namespace tether::core
