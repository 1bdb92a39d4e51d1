// Guard rails: numeric settings that make a simulation blow up, found before it runs.
//
// Each check linearizes one part of the model into the damped oscillator
//     x'' + gamma x' + omega2 x = 0
// (a constraint's deviation under its tau or Baumgarte feedback, a spring's stretch on the
// effective mass at its ends, a body's velocity under viscous damping) and asks whether the
// integrator's one-step map of it grows. The derivations are in core/stability.cpp. One more
// check is geometric: a nail too near a plane (under its surface, or above it by less than the
// held point's depth in its body), with contacts on, holds the body in the plane (checkHeldPoints);
// so does a point of a fixed body that a moving body is joined to (a hinge on a sunk post). And
// reach: a path that drives a point past the reach of a chain of links hanging it from an anchor
// (checkReach), or a chain too short for its two anchors (checkStraightChains): no pose of the
// links meets them there. Anchors: nails, points of fixed bodies, and the planes and lines of
// point-on-plane and point-on-line constraints; links: bodies between their joints (point-to-point,
// hinge) and distance constraints.
// Severity:
//   Warn      poorly resolved or risky (overshoots, jumps, the period spans few steps, RK45 would
//             crawl): the run may still go, but not as the numbers say
//   Diverges  the step map of the linearized part grows every step: certainly unstable
// tether-cli check / run and the GUI's File > Open report these; the inspector refuses an edit
// that makes a new Diverges warning appear.
#pragma once

#include <string>
#include <optional>
#include <vector>

#include "core/scene.h"

namespace tether::core {

enum class StabilitySeverity { Warn, Diverges };

struct StabilityWarning {
  std::string place;             // the value at fault: "constraints[1].tau", "settings.dt", "events[2].value"
  StabilitySeverity severity = StabilitySeverity::Warn;
  std::string message;           // plain words, starting with the place: value, limit, fix
  bool geometric = false;        // of the model's shape (a chain out of reach, a dead point): no setting helps
  std::vector<std::string> bodies;  // a chain's warning: its moving links (whose joints it explains)
};

// Every warning of a valid scene (validateScene), in the order settings, constraints, forces,
// events. Uses the bodies' mass and inertia at their initial poses.
std::vector<StabilityWarning> stabilityWarnings(const Scene& scene);

// The moving bodies of chains between two anchors that are all but straight or folded (under 1 %
// of their links' length to spare: Checker::checkNearReach), by name: the step counts the turn of
// their angular velocities (Simulation, m_lightLink).
std::vector<std::string> allButStraightBodies(const Scene& scene);

// For a divergence's message, what to do: the scene's geometric warnings (a chain that cannot
// reach or is drawn straight, a drive past its reach or at a dead point) where check finds any,
// "; before the run, check found ...: <the warnings>", since no setting fixes those (a helper's
// straight chain was told both to try a smaller dt and that no step size helps); else
// settingsAdvice (AdvanceResult::advice).
std::string divergenceAdvice(const Scene& scene, const std::string& settingsAdvice);

// The Diverges warnings of `after` at places where `before` had none: what an edit newly makes
// certainly unstable (a file's old values can still be left as they are while others change).
std::vector<StabilityWarning> newDivergences(const Scene& before, const Scene& after);

// The warnings of `after` (any severity) at places where `before` had none of that severity.
std::vector<StabilityWarning> newWarnings(const Scene& before, const Scene& after);
// The same against the warnings the scene before had (an edit tried in place keeps no copy).
std::vector<StabilityWarning> newWarnings(const std::vector<StabilityWarning>& before, const Scene& after);

// A point-to-path on a circle path that drives a crank: a point its body's other constraints keep
// on that circle (core/stability.cpp, checkDrives: tau's law acts on it as phi'' + 2/tau phi' +
// (1/tau^2 - W^2) phi = 0, with Baumgarte's law beta^2 for 1/tau^2).
struct CrankDrive {
  double w = 0.0;          // rad/s: the circle's fastest turn (its `set speed` events included)
  double k = 0.0;          // 1/s: 1/tau, or Baumgarte's beta
  bool baumgarte = false;
  const PathDef* path = nullptr;
  // 1/s: how fast it closes on the path's point (1/tau - W; tau's law only), 0 if it never does
  double closingRate() const { return baumgarte || w >= k ? 0.0 : k - w; }
};
// Constraint i of the scene as a crank drive, if it is one.
std::optional<CrankDrive> crankDrive(const Scene& scene, size_t i);

namespace stability {

// v > 0 at 3 significant digits (as the warnings print their fixes), rounded the safe way for a
// fix (a tau printed as 0.0239 for 0.02387 would be warned of again): down for an upper bound,
// up for a lower one.
double roundDown3(double v);
double roundUp3(double v);

// h / tau beyond which semi-implicit Euler's velocity-level tau feedback grows: 2 + 2 sqrt(2).
inline constexpr double kEulerTauLimit = 4.82842712474619;
// h |lambda| beyond which RK4 grows on a real decaying mode lambda < 0: the real root of
// x^3 - 4 x^2 + 12 x - 24 = 0 (|1 - x + x^2/2 - x^3/6 + x^4/24| = 1).
inline constexpr double kRk4RealLimit = 2.785293563405282;
// h omega beyond which RK4 grows on an undamped oscillation (lambda = +-i omega): 2 sqrt(2).
inline constexpr double kRk4ImagLimit = 2.8284271247461903;
// h omega beyond which semi-implicit (symplectic) Euler grows on an undamped spring.
inline constexpr double kEulerSpringLimit = 2.0;
// Warn: tau shorter than this many steps (the assembly is not animated, it jumps).
inline constexpr double kTauSteps = 3.0;
// Warn: an oscillation period of fewer than this many steps (h omega > 2 pi / 10).
inline constexpr double kStepsPerPeriod = 10.0;
// Warn: a damping rate above this many e-folds per step (h c / m > 1: the velocity flips or
// vanishes within a step).
inline constexpr double kDampingPerStep = 1.0;
// The fixed-step integrators split a step into substeps that turn no body by more than this
// (rad; Simulation::stepSubdivided): first-order steps (Euler, sequential impulses) for accuracy,
// RK4 for the linearization and its fourth-order error; with RK4 no spring's phase advances more
// than its turn either (kSubstepSpringPhaseEuler for the first-order steps). RK4 at 0.1 rad lost
// energy where a thin body spun at ~100 rad/s without substeps (h w 0.09 at 1 ms): a thin box on a
// string pendulum 8.4 % in a minute (corpus #254), with its projection taking what the step's
// fourth-order error carried off the constraints (without projection 1.2 %, at dt / 2 0.35 %); a
// rod whipping a ball on a distance 3.9 % (#264), a stiff two-body pendulum with torsion springs
// 1.1 % (#311). At 0.05: 0.14 %, 0.35 %, 0.23 %; the corpus's 375 runs took 13 % more wall time
// (645 -> 728 s, session 46).
inline constexpr double kSubstepTurnEuler = 0.02;
inline constexpr double kSubstepTurnRK4 = 0.05;
// A spring's phase per substep for the first-order steps: half their turn. Semi-implicit Euler
// on an oscillator (v' = v - h w^2 x, x' = x + h v') keeps H~ = (v^2 + w^2 x^2) / 2 - (h w^2 / 2) x v
// exactly; the true energy swings about it by +-(h w / 2) of the oscillation's energy (x v peaks
// at E / w), so it strays up to h w from where it was at any moment: 2 % at 0.02 rad, past the
// 1 % an undamped model must keep (corpus #206 and #218, a bead on a line with a spring to a
// nail, 1.0 % and 1.14 %; 0.50 % and 0.57 % at 0.01).
inline constexpr double kSubstepSpringPhaseEuler = 0.01;
// Warn: a constraint joining two moving bodies whose masses differ by more than this factor. Not
// derived, measured: of the robustness corpus's first 375 scenes (tests/robustness), run 60 s at
// the default settings, the 31 this warns about failed 12 times with semi-implicit Euler and 13
// with RK4 (diverged, stalled, or off by more than 1 % of their energy), the other 344 failed 14
// and 10 times (session 46). The light body's motion is then slaved to the heavy one's at rates
// the step cannot follow: a 0.9 g rod between a 9 g rod and a 920 kg box (#86) whips at 350 rad/s
// where the arm straightens, and the step diverges there even in 4 096 substeps.
inline constexpr double kJoinedMassRatio = 1000.0;
// Warn: a time step longer than this (s), for the fixed-step integrators.
inline constexpr double kMaxDt = 0.05;
// RK45 adapts its step, so it never diverges; warn when a rate |lambda| exceeds this many per
// output interval dt (its steps would have to be ~1000 times shorter than dt: the run crawls).
inline constexpr double kRk45Extreme = 1000.0;

// How an integrator treats the oscillator's damping term:
//   Feedback  a constraint's stabilization at the velocity level (semi-implicit Euler solves
//             for the end-of-step rate: v' = (v - h omega2 x) / (1 + h gamma))
//   Force     an applied force, taken at the start of the step (v' = v - h (omega2 x + gamma v))
// RK4 treats both the same (it integrates x'' = -gamma x' - omega2 x).
enum class Treatment { Feedback, Force };

// The growth factor per step of x'' + gamma x' + omega2 x = 0 under `integrator` (RK45 counts as
// RK4: its step adapts, see above) with step h: the spectral radius of the step map on (x, x').
// > 1: diverges.
double growthPerStep(IntegratorKind integrator, Treatment treatment, double h, double omega2, double gamma);

// Whether an integrator takes viscous damping (the damping force: F = -c v, T = -c w)
// explicitly, and so is bound by h c / m < 2 (Euler) or 2.785 (RK4). If semi-implicit Euler
// comes to take angular damping implicitly (backward Euler: unconditionally stable), return
// false for it here: that switches its bound off.
bool viscousDampingIsExplicit(IntegratorKind integrator, bool angular);

// An elastic force (a spring, a torsion spring) as the substeps count it: its stiffness now (0:
// off) and, at each of its two ends, the body it acts on (-1: a nail, a path, a fixed body) and
// the end's largest mobility there (m/s^2 per N along any line for a spring, rad/s^2 per N m
// about any axis its torque can take for a torsion spring).
struct ElasticEnd {
  int body = -1;
  double mobility = 0.0;
};
struct Elastic {
  double stiffness = 0.0;
  ElasticEnd end[2];
};
// A bound on the fastest oscillation the elastic forces make together, omega^2 <= max_i
// rate2[i], where force i's rate2 is its own omega^2 alone (k (mu_a + mu_b)) plus what the forces
// that share a body with it add (four springs on one bead in parallel: twice one's omega). See
// stability.cpp for the derivation. scratch: per body.
void elasticRates(const std::vector<Elastic>& forces, size_t bodies, std::vector<double>& rate2,
                  std::vector<double>& scratch);
// Whether force f's rate2 (elasticRates) is its own alone: no spring it shares a body with adds.
bool aloneOnItsBodies(const Elastic& f, double rate2);
// The largest mobility of an end: of a point with mobility matrix K (pointMobility), along any
// line; of a body with inverse inertia invI about any axis perpendicular to its own unit axis a
// (the largest eigenvalue of P invI P, P = 1 - a a^T: a torsion spring's torque is about a x b).
double largestMobility(const Mat3& K);
double turnMobility(const Mat3& invI, const Vec3& a);
// The fix said for a motion `over` times past what max_substeps substeps of dt follow closely
// (SUBSTEPS SHORT, and check before the run): "set max_substeps to N, or lower dt to X s", N
// the power of two times max_substeps that follows it (left out past Limits::kMaxSubsteps), X
// rounded down.
std::string substepsFix(int maxSubsteps, double over, double dt);

}  // namespace stability

}  // namespace tether::core
