#include "core/simulation.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "core/forces.h"
#include "core/integrator.h"

namespace tether::core {

Simulation::Simulation(std::shared_ptr<const Model> model) : Simulation(model, model->initialState()) {}

Simulation::Simulation(std::shared_ptr<const Model> model, State state) : m_model(std::move(model)) {
  m_ctx.reset(*m_model);
  setState(std::move(state));
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
    ++m_state.nextEvent;
    m_packed = false;
    m_ctx.rowsCurrent = false;
  }
}

double Simulation::nextEventTime() const {
  const auto& ev = m_model->events;
  return m_state.nextEvent < ev.size() ? ev[m_state.nextEvent].time : std::numeric_limits<double>::infinity();
}

bool Simulation::stepOnce(double h, std::string& runningAway) {
  const Model& m = *m_model;
  m_ctx.system.setResidualReported(false);
  if (m_state.assembled.size() != m.constraints.size()) m_state.assembled.assign(m.constraints.size(), 0);
  m_ctx.assembled = &m_state.assembled;
  if (m_state.lastForce.size() != m.constraints.size()) m_state.lastForce.assign(m.constraints.size(), Vec3::Zero());
  m_ctx.lastForce = &m_state.lastForce;
  if (m_state.spinTrend.dw.size() != m.bodies.size()) m_state.spinTrend.dw.assign(m.bodies.size(), Vec3::Zero());
  m_ctx.spinTrend = &m_state.spinTrend;
  packState();
  m_packed = false;  // (until the step succeeds)
  double taken = h;
  if (m.settings.solver == SolverKind::SequentialImpulses) {
    if (m_state.impulses.size() != m.constraints.size()) m_state.impulses.assign(m.constraints.size(), Vec3::Zero());
    stepSequentialImpulses(m, m_state.params, m_state.t, h, m_ctx, m_state.impulses);
  } else switch (m.settings.integrator) {
    case IntegratorKind::RK4: stepRK4(m, m_state.params, m_state.t, h, m_ctx); break;
    case IntegratorKind::SemiImplicitEuler: stepSemiImplicitEuler(m, m_state.params, m_state.t, h, m_ctx); break;
    case IntegratorKind::RK45:
      taken = stepRK45(m, m_state.params, m_state.t, h, m.settings.tolerance, m_ctx);
      m_state.hNext = m_ctx.hNext;
      break;
  }
  m_ctx.rowsCurrent = false;  // (y has moved on; a velocity-level projection sets it again)
  normalizeQuaternions(m_ctx.y);
  bool finite = allFiniteLong(m_ctx.y);
  if (m.settings.projection && finite && projectPositions(m, m_state.params, m_state.t + taken, m_ctx, m_state.assembled)) {
    if (normalizeQuaternions(m_ctx.y)) m_ctx.rowsCurrent = false;
    finite = allFiniteLong(m_ctx.y);
  }
  if (!finite) return false;
  runningAway = runaway(m_ctx.y, taken);
  if (!runningAway.empty()) return true;
  unpack(m_ctx.y, m_state.bodies);
  m_packed = true;
  m_state.t += taken;
  m_lastStep = taken;
  return true;
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
    }
    // the last good state: a step changes only these before it knows it succeeded (the bodies
    // and t only after); assignment reuses the vectors' storage
    m_backup.assembled = m_state.assembled;
    m_backup.lastForce = m_state.lastForce;
    m_backup.spinTrend = m_state.spinTrend;
    m_backup.impulses = m_state.impulses;
    m_backup.hNext = m_state.hNext;
    std::string runningAway;
    const bool finite = stepOnce(h, runningAway);
    if (!finite || !runningAway.empty()) {
      m_state.assembled.swap(m_backup.assembled);
      m_state.lastForce.swap(m_backup.lastForce);
      std::swap(m_state.spinTrend, m_backup.spinTrend);
      m_state.impulses.swap(m_backup.impulses);
      m_state.hNext = m_backup.hNext;
      res.ok = false;
      res.message = finite ? runningAway
                           : "the simulation diverged at t = " + std::to_string(m_state.t) +
                                 " s (non-finite state after a step of " + std::to_string(h) + " s)";
      return res;
    }
    if (reachesTarget && m_lastStep == h) m_state.t = target;  // exactly, whatever the rounding of t + h
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
std::string Simulation::runaway(const Eigen::VectorXd& y, double h) const {
  constexpr double kMaxTurn = 3.0, kMaxMove = 10.0;
  const Model& m = *m_model;
  int worst = -1;
  double worstTurn = 0.0, worstMove = 0.0;
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const BodyModel& bm = m.bodies[i];
    if (bm.fixed || !m_state.params.bodyActive[i]) continue;
    const double* p = y.data() + i * kBodyDofs;
    const Vec3 P(p[7], p[8], p[9]), L(p[10], p[11], p[12]);
    const double move = h * bm.invMass * P.norm();
    double turn = h * bm.invInertia.maxCoeff() * L.norm();  // >= h |w|
    if (turn > kMaxTurn) {
      const Quat q(p[3], p[4], p[5], p[6]);
      turn = h * bm.invInertia.cwiseProduct(q.conjugate() * L).norm();
    }
    const bool runs = turn > kMaxTurn || move > kMaxMove;
    if (runs && turn / kMaxTurn + move / kMaxMove > worstTurn / kMaxTurn + worstMove / kMaxMove) {
      worst = int(i);
      worstTurn = turn;
      worstMove = move;
    }
  }
  if (worst < 0) return {};
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
    o << "; constraint \"" << m.constraintNames[size_t(worstC)] << "\" is open by " << dev[size_t(worstC)]
      << " before that step";
  o << "; kept the last sane state (t = " << std::to_string(m_state.t) << " s). Try a smaller time step (dt), a "
    << "larger tau, softer springs or less damping on light bodies, or the rk4 integrator (tether-cli check names "
    << "the settings past their stable bounds)";
  return o.str();
}

void Simulation::refresh() {
  m_ctx.system.setResidualReported(true);
  packState();
  evaluateDerivative(*m_model, m_state.params, m_state.t, m_ctx.y, m_ctx.dy, m_ctx);
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
    out[j] = rows.D.head(rows.d).norm();
  }
}

}  // namespace tether::core
