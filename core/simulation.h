// A running simulation: a Model, the State it alone owns, and the step loop that fires
// timeline events at their exact times.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/contact.h"
#include "core/dynamics.h"
#include "core/model.h"
#include "core/stability.h"

namespace tether::core {

// Steps that needed more substeps than settings.max_substeps allows: the last try takes whatever
// turn (or spring phase) it must, and past the bound the energy may stray by more than ~1 %
// (see stepSubdivided). Counted since the Simulation was made.
struct SubstepShortfall {
  long steps = 0;              // steps taken at the ceiling past the bound
  double firstAt = -1.0;       // s: the end of the first of them; -1 none
  double lastAt = -1.0;        // s: the end of the last
  double worst = 0.0;          // the largest turn (or phase) per substep over its bound
  std::string first, atWorst;  // what moved too fast, the fix to try: at the first, at the worst
};

struct AdvanceResult {
  bool ok = true;          // false: the state blew up (or is blowing up); the last sane state is kept
  std::string message;     // why, naming the body (ends "kept the last sane state (t = ...)")
  std::string advice;      // the settings to try (". Try a smaller time step ..."): what a divergence
                           // says unless check found the model's shape at fault (divergenceAdvice)
  long steps = 0;          // integrator steps taken (accepted)
};

class Simulation {
 public:
  explicit Simulation(std::shared_ptr<const Model> model);
  Simulation(std::shared_ptr<const Model> model, State state);

  // Integrate to tEnd (>= now). Steps end exactly on the grid k * dt, on event times and on
  // tEnd; events with time <= now fire first, in file order.
  AdvanceResult advanceTo(double tEnd);

  const Model& model() const { return *m_model; }
  const State& state() const { return m_state; }
  void setState(State s);
  // The user's mouse drag (GUI): a spring from a body point to a target, until cleared.
  void setMouseSpring(const MouseSpring& m) { m_state.params.mouse = m; }
  long totalSteps() const { return m_totalSteps; }

  // Evaluate the model at the current state (forces, constraint system), without stepping:
  // fills context() for reports and drawing.
  void refresh();
  const StepContext& context() const { return m_ctx; }
  // The contacts of the last step (settings.contacts), and the last step's contact problem ("" if
  // none: see ContactStage::resolve).
  const std::vector<ContactReport>& contacts() const { return m_contacts.contacts(); }
  const std::string& contactProblem() const { return m_contactProblem; }
  // The friction sweeps of the last substep's contact stage (ContactStage::frictionSweeps).
  int frictionSweeps() const { return m_contacts.frictionSweeps(); }
  // Each contact group's velocity problem, as the contact stage solves it (ContactStage).
  void setContactProblemRecorder(std::function<void(const gauss::Problem&)> recorder) {
    m_contacts.setProblemRecorder(std::move(recorder));
  }

  // The steps that ran short of substeps (see SubstepShortfall).
  const SubstepShortfall& substepShortfall() const { return m_shortfall; }

  // |D| of every constraint now (Euclidean norm of its rows; a velocity constraint's D is the
  // integral of its error, StepMemory::velocityIntegral); -1 for inactive ones.
  void deviations(std::vector<double>& out) const;

 private:
  void fireDueEvents();
  double nextEventTime() const;
  double snapToGrid(double t) const;
  double nextGridPoint(double t) const;
  // One step; false if the state became non-finite. A finite state that is running away (see
  // runaway) is not taken either: runningAway says why, and the state stays as it was.
  // A step that would leave a body turning more than maxTurn per step is not taken either
  // (*tooFast set).
  // The State's StepMemory, sized for the model.
  StepMemory& preparedMemory();
  bool stepOnce(double h, std::string& runningAway, double maxTurn = std::numeric_limits<double>::infinity(),
                bool* tooFast = nullptr);
  // stepOnce in as many substeps as the motion asks for (see simulation.cpp)
  bool stepSubdivided(double h, std::string& runningAway);
  // Whether the packed state y that a step h produced is running away: "" if not, else what,
  // naming the body and the most deviated constraint; the settings to try go to m_runawayAdvice.
  std::string runaway(const Eigen::VectorXd& y, double h);
  void computeForceMobility();
  double fastestSpring(int* which = nullptr) const;  // rad/s; which: that force's index
  // Records a step taken at the ceiling whose substeps went past their bound by the factor over.
  void noteShortfall(double over, int body, int row, int spring, double perSubstep, double bound, int n, bool whip = false);
  void packState();         // m_ctx.y = the state's bodies, packed (unless it already is)

  std::shared_ptr<const Model> m_model;
  State m_state;
  State m_backup;  // the parts of m_state a step may change before it fails (see advanceTo)
  StepContext m_ctx;
  ContactStage m_contacts;
  std::string m_contactProblem;
  long m_totalSteps = 0;
  double m_lastStep = 0.0;  // the step the integrator actually took, s
  // m_ctx.y holds m_state.bodies packed (bit for bit): set when a step succeeds, cleared when
  // the state changes otherwise (a new state, an event)
  bool m_packed = false;
  std::string m_runawayAdvice;  // the last runaway's advice on settings (AdvanceResult::advice)
  // the largest angle a body turned in the last step (runaway sets it; exact above m_substepTurn,
  // else an upper bound), rad
  double m_stepTurn = 0.0;
  int m_stepTurnBody = -1, m_stepTurnRow = -1;  // whose turn m_stepTurn is: a body's, or a constraint's rows'
  bool m_stepTurnWhip = false;  // the body's is the turn of its w (a light link's; see m_lightLink)
  SubstepShortfall m_shortfall;
  std::vector<BodyState> m_subBackup;  // the bodies at the start of a subdivided step
  // the elastic forces as the substeps count them (computeForceMobility; the stiffness set by
  // fastestSpring), the springs among the forces, and fastestSpring's scratch
  mutable std::vector<stability::Elastic> m_elastic;
  std::vector<int> m_springs;
  mutable std::vector<double> m_elasticRate2, m_elasticScratch;
  std::vector<int> m_turningRows;  // constraints whose rows turn on their own (Constraint::rowsTurnOnTheirOwn)
  std::vector<int> m_velocityRows;  // velocity constraints (Constraint::nonholonomic)
  // per body, what of its turn counts for the substeps (see the constructor): all of it; its
  // shape's turn while it touches something; its axis's turn while it touches something; its
  // axis's turn always and its spin in part (held at points on its axis); none
  enum class TurnCounts : std::uint8_t { All, Shape, Axis, HeldAxis, None };
  std::vector<TurnCounts> m_turnCounts;
  // per body: a light link, joined by a constraint to a moving body at least kLightLinkRatio times
  // heavier; the turn of its angular velocity counts for the substeps too (see the constructor)
  std::vector<std::uint8_t> m_lightLink;
  bool m_anyLightLink = false;
  // per body: the heaviest moving body a constraint joins it to when that one is more than
  // stability::kJoinedMassRatio times heavier (named when the light body runs away), else -1
  std::vector<int> m_heavyPartner;
  std::vector<BodyKinematics> m_rateKin;     // scratch of velocityErrors
  // per velocity constraint: its error g at a step's start and end, and c + g at the end
  std::vector<Vec3> m_rateStart, m_rateEnd, m_turnEnd;
  // Each velocity constraint's error g at (t, y) into out (m_velocityRows' order; NaN: not present).
  // (turn: also each one's c + g, the rows' own turn and the inertia's; see velocityConstraintTarget)
  void velocityErrors(double t, const Eigen::VectorXd& y, std::vector<Vec3>& out, std::vector<Vec3>* turn = nullptr);
  double m_substepTurn = 0.02;  // rad per (sub)step for this model's integrator (see stepSubdivided)
  double m_springPhase = 0.01;  // a spring's phase per (sub)step, the same way
  bool m_firstOrder = true;     // the fixed steps are first order (semi-implicit Euler, sequential impulses), not RK4
  static constexpr int kCalmSteps = 4000;  // steps in a row before the substeps fall (see stepSubdivided)
  static constexpr int kQuietSteps = 500;  // the same where the bodies hardly turn
};

}  // namespace tether::core
