// Runs a corpus scene under one solver configuration and measures what the robustness criteria
// look at: divergence, energy after assembly, constraint drift after assembly, angular speed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/scene.h"
#include "corpus.h"

namespace tether::robustness {

struct RunConfig {
  std::string name;
  core::IntegratorKind integrator = core::IntegratorKind::SemiImplicitEuler;
  bool projection = true;
};

// euler (the default: semi-implicit Euler, projection on), euler_noproj, rk4, rk45 (projection on)
const std::vector<RunConfig>& runConfigs();

// The criteria.
struct Bounds {
  double energy = 0.01;              // relative energy deviation after assembly, undamped scenes
  double driftProjected = 1e-6;      // m: max |D| after assembly with projection on
  double driftUnprojected = 1e-3;    // m: the same with projection off (see runner.cpp)
  double restDepth = 1e-4;           // m: contact scenes: overlap of a body at rest, last 10 s
};
Bounds defaultBounds();

struct RunResult {
  int id = 0;
  std::string category;
  std::uint64_t seed = 0;
  bool conservative = false;
  std::string config;
  bool projection = true;
  double seconds = 0.0;        // simulated time asked for
  double endTime = 0.0;        // reached
  double wall = 0.0;           // s
  long steps = 0;

  bool diverged = false;       // AdvanceResult.ok false, or non-finite energy / angular velocity
  bool timedOut = false;       // stalled: more than 20 x the grid's steps (rk45's step size
                               // collapsed), or the wall-clock limit ran out, before `seconds`
  std::string message;

  // energy: E = kinetic + gravity + springs (core::energy). E_asm at the assembly time t_asm;
  // dev = max_{t >= t_asm} |E(t) - E_asm| / scale (see runner.cpp for the scale)
  double tAssembled = -1.0;    // s; -1: never assembled
  double eAssembled = 0.0;     // J
  double energyScale = 0.0;    // J
  double energyDev = 0.0;      // relative
  double energyDevAt = -1.0;   // s: where the largest deviation is
  double energyOverAt = -1.0;  // s: first time the deviation exceeded the bound (-1: never)
  double energyEnd = 0.0;      // J: E at the end

  // drift: max |D| of every constraint after it counts as assembled (as core/headless.cpp:
  // assembly_time, default 15 tau, after it became active)
  double drift = 0.0;
  double driftAt = -1.0;
  double driftOverAt = -1.0;   // first time above the configuration's bound
  std::string driftConstraint;

  // the same measured only once the step holds a constraint (StepMemory::assembled: a step ended
  // with it met to 1e-3 m; re-armed when an event switches it off and on): a joint that opened
  // after it held, as opposed to an assembly not yet closed 15 tau after it began (which `drift`
  // also counts). Reported, not a criterion.
  double heldDrift = 0.0;
  std::string heldDriftConstraint;

  double omega = 0.0;          // rad/s: largest |w| of any body, whole run
  double omegaAt = -1.0;
  std::string omegaBody;

  // contact scenes (settings.contacts; see runner.cpp)
  bool contacts = false;
  bool passive = false;        // CorpusScene::passive
  double energyGain = 0.0;     // max_{t >= t_ref} (E(t) - E_ref) / energyScale, t_ref >= t_asm
  double energyGainAt = -1.0;
  double depthMax = 0.0;       // m: the deepest contact of the run (an impact's overlap included)
  double restDepth = 0.0;      // m: the deepest contact of a body at rest, last 10 s
  double restDepthAt = -1.0;
  std::string escaped;         // a body that ended below a ground plane or outside the scene's
                               // keepIn box (tunnelled, thrown out): "" if none

  // the guard rails (core::stabilityWarnings, what `tether-cli check` and the loader say) warned
  // about the scene with the configuration's settings: reported (the summary's "warned" column,
  // failing runs of scenes a user was told about), no criterion of its own
  bool warned = false;
  // criteria
  bool failsDivergence() const { return diverged; }
  bool failsEnergy(const Bounds& b) const { return conservative && tAssembled >= 0.0 && energyDev > b.energy; }
  bool failsDrift(const Bounds& b) const { return drift > (projection ? b.driftProjected : b.driftUnprojected); }
  bool opensAfterHeld(const Bounds& b) const {
    return heldDrift > (projection ? b.driftProjected : b.driftUnprojected);
  }
  // contact scenes: nothing escapes, bodies at rest barely overlap, a passive scene gains no energy
  bool failsContact(const Bounds& b) const {
    return contacts && (!escaped.empty() || restDepth > b.restDepth || (passive && energyGain > b.energy));
  }
  bool fails(const Bounds& b) const {
    return failsDivergence() || timedOut || failsEnergy(b) || failsDrift(b) || failsContact(b);
  }
};

// Run `scene` under `config` for `seconds` of simulated time (advanceTo in steps of dt),
// giving up after `wallLimit` seconds of wall time.
// `progress`, when given, hears the simulated time about once a second of wall time.
RunResult runCorpusScene(const CorpusScene& scene, const RunConfig& config, double seconds, double wallLimit,
                         const Bounds& bounds, const std::function<void(double)>& progress = {});

// The same in a child process (fork): a run that crashes counts as diverged ("crashed: signal
// N"), and one whose single advanceTo(dt) never ends (rk45's step size collapsed to nothing
// inside one output interval) is killed at wallLimit + 5 s and counts as stalled. The parent
// gets the record through a pipe.
RunResult runCorpusSceneIsolated(const CorpusScene& scene, const RunConfig& config, double seconds, double wallLimit,
                                 const Bounds& bounds);

// The scene with the configuration's settings, ready for `tether-cli run FILE` (duration =
// seconds).
core::Scene sceneForConfig(const CorpusScene& scene, const RunConfig& config, double seconds);

// One line per result, tab-separated (the results files), and back.
std::string toRecord(const RunResult& r);
bool fromRecord(const std::string& line, RunResult& r);

// "scene 123 (chain, seed 0x..., euler): diverged at t = ..." : the failures of a result
std::string describeFailures(const RunResult& r, const Bounds& b);
std::string describe(const RunResult& r);

// The summary table (markdown) over results.
std::string summaryTable(const std::vector<RunResult>& results, const Bounds& b);

}  // namespace tether::robustness
