// The corpus runner: one scene, one configuration, the measurements of the criteria.
//
// Assembly time t_asm: the first step at which every active constraint counts as assembled the
// way core/headless.cpp counts it (settings.assembly_time, default 15 of its tau, after it
// became active) and also has |D| <= 1e-3 (what projection calls assembled). Taking the later of
// the two keeps the end of the assembly transient out of the reference energy: a body whose
// constraints are met at t = 0 but whose velocity is not (a spin about an axis off its pin) is
// still being pulled onto D' = 0 for a few tau. Scenes without constraints are assembled at 0.
//
// Energy: E = kinetic + gravity + springs (core::energy). The deviation after assembly is
//   max_{t >= t_asm} |E(t) - E_asm| / scale,
//   scale = max(KE_max, V_max - V_min, E_asm - V_min, floor)
// over t >= t_asm, V = gravity + spring energy, i.e. the larger of the kinetic energy the
// motion reaches, the swing of the potential energy, and the energy above the lowest potential
// seen (E_ref = V_min). This is the energy the motion exchanges, so 1 % of it is a visible
// change of the swing; the absolute energy (which depends on where z = 0 is) never enters.
// floor = sum over dynamic bodies of m |g| x 1 cm (with |g| = 9.81 even when gravity is off)
// keeps a scene that hangs nearly still from dividing by ~0: there 1 % means the energy of
// lifting every body by 0.1 mm.
//
// Drift: |D| of each constraint (core::Simulation::deviations) after it counts as assembled
// (headless rule: assembly_time / 15 tau after it became active; re-counted when an event
// switches it off and on), every step.
//
// Bounds: projection on: 1e-6 m (the projection tolerance is 1e-7 per component). Projection
// off: 1e-3 m, chosen from the distribution measured on the corpus (the summary prints it; see
// tests/robustness/README.md): without projection only tau and the implicit target pull D back,
// so drift grows with speed; 1 mm is the level projection itself treats as "assembled", far above
// what the step leaves on the scenes that pass with projection on.
//
// Contact scenes (settings.contacts):
// - escaped: at the end every body's centre must be on the open side of every ground plane, and
//   inside the scene's keepIn box when it has one (a bin): nothing tunnelled or was thrown out;
// - rest depth: the deepest contact (ContactReport depth, as the detector found it, less the
//   part that is a joint's own overlap, Contact::jointDepth: two joined boxes folded into each
//   other near their joint, as two rods at a hinge, are the joint's) over the last 10 s among
//   bodies at rest (|v| < 5 cm/s; a fixed body counts as at rest). A body resting
//   on another keeps the slop (1e-6 m) plus the one step of gravity it takes before its contact
//   stops it (g h^2 ~ 1e-5 m): 1e-4 m is ten times that. While an impact lasts, overlap up to the
//   approach speed times h is the documented no-continuous-detection limit (depthMax reports it);
// - energy gain, passive scenes: max (E(t) - E_ref) / scale over t >= t_ref, with the scale above
//   and t_ref = t_asm (without contacts), or (with them) the later of t_asm and the end of the first step that leaves no contact deeper than
//   1 mm (bodies the user placed overlapping, half sunk in the floor, are lifted out by position
//   projection, which raises their potential energy once). Impacts, friction and damping may
//   only take energy away: 1 % of the scale, as for the undamped scenes.
#include "runner.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <memory>
#include <sstream>

#include "core/forces.h"
#include "core/model.h"
#include "core/simulation.h"
#include "core/stability.h"

#include <cerrno>
#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tether::robustness {

namespace {
constexpr long kStepBudget = 20;
}  // namespace

const std::vector<RunConfig>& runConfigs() {
  static const std::vector<RunConfig> configs = {
      {"euler", core::IntegratorKind::SemiImplicitEuler, true},
      {"euler_noproj", core::IntegratorKind::SemiImplicitEuler, false},
      {"rk4", core::IntegratorKind::RK4, true},
      {"rk45", core::IntegratorKind::RK45, true},
  };
  return configs;
}

Bounds defaultBounds() { return Bounds{}; }

core::Scene sceneForConfig(const CorpusScene& cs, const RunConfig& config, double seconds) {
  core::Scene s = cs.scene;
  s.settings.integrator = config.integrator;
  s.settings.projection = config.projection;
  s.settings.duration = seconds;
  // a measurement's override of the scenes' max_substeps (docs/performance.md, session 53)
  if (const char* m = std::getenv("TETHER_CORPUS_MAX_SUBSTEPS")) s.settings.maxSubsteps = std::atoi(m);
  return s;
}

namespace {
// A run's identity: the scene's id, category, seed and kind, the configuration and the length.
RunResult resultHeader(const CorpusScene& cs, const RunConfig& config, double seconds) {
  RunResult out;
  out.id = cs.id;
  out.category = cs.category;
  out.seed = cs.seed;
  out.conservative = cs.conservative;
  out.config = config.name;
  out.projection = config.projection;
  out.seconds = seconds;
  out.contacts = cs.scene.settings.contacts;
  out.passive = cs.passive;
  out.warned = !core::stabilityWarnings(sceneForConfig(cs, config, seconds)).empty();
  return out;
}
}  // namespace

RunResult runCorpusScene(const CorpusScene& cs, const RunConfig& config, double seconds, double wallLimit,
                         const Bounds& bounds, const std::function<void(double)>& progress) {
  using Clock = std::chrono::steady_clock;
  RunResult out = resultHeader(cs, config, seconds);
  const double driftBound = config.projection ? bounds.driftProjected : bounds.driftUnprojected;

  const core::Scene scene = sceneForConfig(cs, config, seconds);
  auto model = std::make_shared<const core::Model>(core::compile(scene));
  core::Simulation sim(model);
  const double dt = scene.settings.dt;
  const size_t nc = model->constraints.size();
  const size_t nb = model->bodies.size();

  double floor = 0.0;
  for (const auto& b : model->bodies)
    if (!b.fixed) floor += b.mass * 9.81 * 0.01;
  floor = std::max(floor, 1e-300);

  std::vector<double> dev;
  std::vector<double> activeSince(nc, -1.0), assembledAt(nc, -1.0);
  std::vector<std::uint8_t> held(nc, 0);  // StepMemory::assembled since it became active
  std::vector<core::BodyKinematics> kin;
  std::vector<std::pair<double, double>> energies;  // (t, E) from t_asm on
  double keMax = 0.0, vMin = std::numeric_limits<double>::infinity(), vMax = -vMin;
  double overlapFreeAt = -1.0;  // contact scenes: the end of the first step leaving no contact deeper than 1 mm
  const double restFrom = seconds - 10.0;

  auto observe = [&]() -> bool {
    const core::State& st = sim.state();
    const double t = st.t;
    sim.deviations(dev);
    bool allAssembled = true;
    for (size_t j = 0; j < nc; ++j) {
      if (dev[j] < 0.0) {
        activeSince[j] = -1.0;
        held[j] = 0;
        continue;
      }
      if (!std::isfinite(dev[j])) {
        out.diverged = true;
        out.message = "non-finite deviation of " + model->constraintNames[j] + " at t = " + std::to_string(t);
        return false;
      }
      if (activeSince[j] < 0.0) {
        activeSince[j] = t;
        assembledAt[j] = t + scene.settings.assemblyTime.value_or(15.0 * st.params.tau[j]);
      }
      if (held[j] && dev[j] > out.heldDrift) {
        out.heldDrift = dev[j];
        out.heldDriftConstraint = model->constraintNames[j];
      }
      // held: the step's own flag (set when a step ends with |D_i| <= 1e-3, kept while active)
      if (j < st.memory.assembled.size() && st.memory.assembled[j]) held[j] = 1;
      const bool counted = t >= assembledAt[j] - 1e-12;
      if (!counted || dev[j] > 1e-3) allAssembled = false;
      if (counted) {
        if (dev[j] > out.drift) {
          out.drift = dev[j];
          out.driftAt = t;
          out.driftConstraint = model->constraintNames[j];
        }
        if (dev[j] > driftBound && out.driftOverAt < 0.0) out.driftOverAt = t;
      }
    }
    core::bodyKinematics(*model, st.params, st.bodies, kin);
    for (size_t i = 0; i < nb; ++i) {
      if (!st.params.bodyActive[i] || model->bodies[i].fixed) continue;
      const double w = kin[i].w.norm();
      if (!std::isfinite(w)) {
        out.diverged = true;
        out.message = "non-finite angular velocity of " + model->bodyNames[i] + " at t = " + std::to_string(t);
        return false;
      }
      if (w > out.omega) {
        out.omega = w;
        out.omegaAt = t;
        out.omegaBody = model->bodyNames[i];
      }
    }
    if (out.contacts && st.t > 0.0) {
      double deepest = 0.0;
      auto atRest = [&](int i) { return i < 0 || model->bodies[size_t(i)].fixed || kin[size_t(i)].v.norm() < 0.05; };
      for (const core::ContactReport& c : sim.contacts()) {
        const double d = c.contact.held();
        deepest = std::max(deepest, d);
        if (t >= restFrom && d > out.restDepth && atRest(c.contact.bodyA) && atRest(c.contact.bodyB)) {
          out.restDepth = d;
          out.restDepthAt = t;
        }
      }
      out.depthMax = std::max(out.depthMax, deepest);
      if (overlapFreeAt < 0.0 && deepest <= 1e-3) overlapFreeAt = t;
    }
    const core::Energy e = core::energy(*model, st);
    const double E = e.total();
    if (!std::isfinite(E)) {
      out.diverged = true;
      out.message = "non-finite energy at t = " + std::to_string(t);
      return false;
    }
    if (out.tAssembled < 0.0 && allAssembled) {
      out.tAssembled = t;
      out.eAssembled = E;
    }
    if (out.tAssembled >= 0.0) {
      energies.emplace_back(t, E);
      keMax = std::max(keMax, e.kinetic);
      vMin = std::min(vMin, e.gravity + e.springs);
      vMax = std::max(vMax, e.gravity + e.springs);
    }
    out.energyEnd = E;
    return true;
  };

  const auto start = Clock::now();
  const core::AdvanceResult r0 = sim.advanceTo(0.0);
  bool ok = r0.ok && observe();
  if (!r0.ok) {
    out.diverged = true;
    out.message = r0.message;
  }
  const long frames = static_cast<long>(std::ceil(seconds / dt - 1e-9));
  double nextProgress = 1.0;
  for (long k = 1; ok && k <= frames; ++k) {
    const core::AdvanceResult r = sim.advanceTo(std::min(seconds, static_cast<double>(k) * dt));
    out.steps += r.steps;
    if (!r.ok) {
      out.diverged = true;
      out.message = r.message;
      break;
    }
    ok = observe();
    // a step size that collapses (rk45) would run for hours: stop at kStepBudget times the
    // grid's steps (deterministic), or at the wall-clock limit (a safety net)
    if (out.steps > kStepBudget * frames) {
      out.timedOut = true;
      char buf[160];
      std::snprintf(buf, sizeof buf, "stalled: %ld steps by t = %.4f s (the step budget is %ld x the %ld grid steps)",
                    out.steps, sim.state().t, kStepBudget, frames);
      out.message = buf;
      break;
    }
    const double wallNow = std::chrono::duration<double>(Clock::now() - start).count();
    if (progress && wallNow > nextProgress) {
      progress(sim.state().t);
      nextProgress = wallNow + 1.0;
    }
    if (wallNow > wallLimit) {
      out.timedOut = true;
      char buf[160];
      std::snprintf(buf, sizeof buf, "wall-clock limit %.0f s reached at t = %.3f s (%ld steps)", wallLimit,
                    sim.state().t, out.steps);
      out.message = buf;
      break;
    }
  }
  out.wall = std::chrono::duration<double>(Clock::now() - start).count();
  out.endTime = sim.state().t;

  if (out.tAssembled >= 0.0 && !energies.empty()) {
    out.energyScale = std::max({keMax, vMax - vMin, out.eAssembled - vMin, floor});
    double worst = -1.0;
    for (const auto& [t, E] : energies) {
      const double d = std::abs(E - out.eAssembled) / out.energyScale;
      if (d > worst) {
        worst = d;
        out.energyDevAt = t;
      }
      if (d > bounds.energy && out.energyOverAt < 0.0) out.energyOverAt = t;
    }
    out.energyDev = worst;
    // (measured for every passive scene; a criterion of the contact scenes, failsContact, and of
    // the soak, soak_test.cpp)
    if (out.passive && (!out.contacts || overlapFreeAt >= 0.0)) {
      const double tRef = out.contacts ? std::max(out.tAssembled, overlapFreeAt) : out.tAssembled;
      double eRef = 0.0;
      bool found = false;
      for (const auto& [t, E] : energies) {
        if (t < tRef - 1e-12) continue;
        if (!found) {
          eRef = E;
          found = true;
        }
        const double g = (E - eRef) / out.energyScale;
        if (g > out.energyGain) {
          out.energyGain = g;
          out.energyGainAt = t;
        }
      }
    }
  }
  if (out.contacts && !out.diverged) {
    const core::State& st = sim.state();
    for (size_t i = 0; i < nb && out.escaped.empty(); ++i) {
      if (!st.params.bodyActive[i] || model->bodies[i].fixed) continue;
      const Vec3 x = st.bodies[i].x;
      for (const core::PlaneDef& p : cs.scene.planes)
        if (p.normal.normalized().dot(x - p.point) < 0.0) out.escaped = model->bodyNames[i] + " below " + p.name;
      if (cs.keepIn && out.escaped.empty() &&
          ((x - cs.keepIn->first).minCoeff() < 0.0 || (cs.keepIn->second - x).minCoeff() < 0.0))
        out.escaped = model->bodyNames[i] + " out of the box it was put in";
    }
  }
  return out;
}

RunResult runCorpusSceneIsolated(const CorpusScene& cs, const RunConfig& config, double seconds, double wallLimit,
                                 const Bounds& bounds) {
  RunResult out = resultHeader(cs, config, seconds);
  int fd[2];
  if (pipe(fd) != 0) return runCorpusScene(cs, config, seconds, wallLimit, bounds);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return runCorpusScene(cs, config, seconds, wallLimit, bounds);
  }
  auto writeAll = [](int f, const std::string& text) {
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(f, text.data() + done, text.size() - done);
      if (n <= 0) return;
      done += size_t(n);
    }
  };
  if (pid == 0) {
    close(fd[0]);
    const RunResult r = runCorpusScene(cs, config, seconds, wallLimit, bounds, [&](double t) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "T %.17g\n", t);
      writeAll(fd[1], buf);
    });
    writeAll(fd[1], "R " + toRecord(r) + "\n");
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double deadline = wallLimit + 5.0;
  std::string data;
  bool killed = false;
  for (;;) {
    const double left = deadline - std::chrono::duration<double>(Clock::now() - start).count();
    if (left <= 0.0) {
      kill(pid, SIGKILL);
      killed = true;
      break;
    }
    pollfd p{fd[0], POLLIN, 0};
    const int ready = poll(&p, 1, int(std::min(left, 1.0) * 1000.0) + 1);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char buf[4096];
    const ssize_t n = read(fd[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the child is done (or died)
    data.append(buf, size_t(n));
  }
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  double lastT = -1.0;
  std::istringstream lines(data);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("T ", 0) == 0) lastT = std::atof(line.c_str() + 2);
    if (line.rfind("R ", 0) == 0 && fromRecord(line.substr(2), out)) return out;
  }
  out.wall = std::chrono::duration<double>(Clock::now() - start).count();
  out.endTime = lastT;
  char buf[200];
  if (killed) {
    out.timedOut = true;
    std::snprintf(buf, sizeof buf,
                  "killed after %.0f s of wall time, last seen at t = %.4f s (one advanceTo(dt) did not end: the "
                  "step size collapsed)",
                  deadline, lastT);
  } else {
    out.diverged = true;
    std::snprintf(buf, sizeof buf, "crashed (%s %d), last seen at t = %.4f s",
                  WIFSIGNALED(status) ? "signal" : "exit status", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                  lastT);
  }
  out.message = buf;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Records

std::string toRecord(const RunResult& r) {
  std::ostringstream o;
  o.precision(17);
  auto clean = [](std::string s) {
    for (char& c : s)
      if (c == '\t' || c == '\n') c = ' ';
    return s.empty() ? std::string("-") : s;
  };
  o << r.id << '\t' << r.category << '\t' << r.seed << '\t' << r.conservative << '\t' << r.config << '\t'
    << r.projection << '\t' << r.seconds << '\t' << r.endTime << '\t' << r.wall << '\t' << r.steps << '\t'
    << r.diverged << '\t' << r.timedOut << '\t' << r.tAssembled << '\t' << r.eAssembled << '\t' << r.energyScale
    << '\t' << r.energyDev << '\t' << r.energyDevAt << '\t' << r.energyOverAt << '\t' << r.energyEnd << '\t'
    << r.drift << '\t' << r.driftAt << '\t' << r.driftOverAt << '\t' << clean(r.driftConstraint) << '\t' << r.omega
    << '\t' << r.omegaAt << '\t' << clean(r.omegaBody) << '\t' << r.heldDrift << '\t' << clean(r.heldDriftConstraint)
    << '\t' << clean(r.message) << '\t' << r.contacts << '\t' << r.passive << '\t' << r.energyGain << '\t'
    << r.energyGainAt << '\t' << r.depthMax << '\t' << r.restDepth << '\t' << r.restDepthAt << '\t'
    << clean(r.escaped) << '\t' << r.warned;
  return o.str();
}

bool fromRecord(const std::string& line, RunResult& r) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : line) {
    if (c == '\t') {
      f.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  f.push_back(cur);
  if (f.size() != 38) return false;
  try {
    size_t i = 0;
    r.id = std::stoi(f[i++]);
    r.category = f[i++];
    r.seed = std::stoull(f[i++]);
    r.conservative = f[i++] == "1";
    r.config = f[i++];
    r.projection = f[i++] == "1";
    r.seconds = std::stod(f[i++]);
    r.endTime = std::stod(f[i++]);
    r.wall = std::stod(f[i++]);
    r.steps = std::stol(f[i++]);
    r.diverged = f[i++] == "1";
    r.timedOut = f[i++] == "1";
    r.tAssembled = std::stod(f[i++]);
    r.eAssembled = std::stod(f[i++]);
    r.energyScale = std::stod(f[i++]);
    r.energyDev = std::stod(f[i++]);
    r.energyDevAt = std::stod(f[i++]);
    r.energyOverAt = std::stod(f[i++]);
    r.energyEnd = std::stod(f[i++]);
    r.drift = std::stod(f[i++]);
    r.driftAt = std::stod(f[i++]);
    r.driftOverAt = std::stod(f[i++]);
    r.driftConstraint = f[i++];
    r.omega = std::stod(f[i++]);
    r.omegaAt = std::stod(f[i++]);
    r.omegaBody = f[i++];
    r.heldDrift = std::stod(f[i++]);
    r.heldDriftConstraint = f[i++];
    if (r.heldDriftConstraint == "-") r.heldDriftConstraint.clear();
    r.message = f[i++];
    if (r.message == "-") r.message.clear();
    r.contacts = f[i++] == "1";
    r.passive = f[i++] == "1";
    r.energyGain = std::stod(f[i++]);
    r.energyGainAt = std::stod(f[i++]);
    r.depthMax = std::stod(f[i++]);
    r.restDepth = std::stod(f[i++]);
    r.restDepthAt = std::stod(f[i++]);
    r.escaped = f[i++];
    if (r.escaped == "-") r.escaped.clear();
    r.warned = f[i++] == "1";
  } catch (...) {
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Reports

std::string describe(const RunResult& r) {
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "scene %d (%s, seed 0x%016" PRIx64 ", %s, %s): t_end %.3f s, t_asm %.3g s, energy dev %.3g (max at "
                "t = %.3f s, scale %.3g J), drift %.3g m (%s, t = %.3f s), |w| max %.3g rad/s (%s), %ld steps, %.2f s "
                "wall",
                r.id, r.category.c_str(), r.seed, r.config.c_str(), r.conservative ? "undamped" : "non-conservative",
                r.endTime, r.tAssembled, r.energyDev, r.energyDevAt, r.energyScale, r.drift,
                r.driftConstraint.empty() ? "-" : r.driftConstraint.c_str(), r.driftAt, r.omega,
                r.omegaBody.empty() ? "-" : r.omegaBody.c_str(), r.steps, r.wall);
  std::string out = buf;
  if (r.contacts) {
    std::snprintf(buf, sizeof buf, "; contacts: deepest %.3g m, at rest %.3g m, energy gain %.3g%s%s", r.depthMax,
                  r.restDepth, r.energyGain, r.escaped.empty() ? "" : ", ESCAPED ", r.escaped.c_str());
    out += buf;
  }
  return out;
}

std::string describeFailures(const RunResult& r, const Bounds& b) {
  std::ostringstream o;
  char buf[512];
  std::snprintf(buf, sizeof buf, "scene %d (%s, seed 0x%016" PRIx64 ", config %s%s)", r.id, r.category.c_str(), r.seed,
                r.config.c_str(), r.warned ? ", warned by tether-cli check" : "");
  const std::string who = buf;
  if (r.diverged) o << who << ": DIVERGED at t = " << r.endTime << " s: " << r.message << "\n";
  if (r.timedOut) o << who << ": STALLED: " << r.message << "\n";
  if (r.failsEnergy(b)) {
    std::snprintf(buf, sizeof buf,
                  ": ENERGY deviation %.4g (bound %.3g) first over at t = %.3f s, worst at t = %.3f s; E_asm %.6g J "
                  "at t_asm %.3f s, E_end %.6g J, scale %.4g J\n",
                  r.energyDev, b.energy, r.energyOverAt, r.energyDevAt, r.eAssembled, r.tAssembled, r.energyEnd,
                  r.energyScale);
    o << who << buf;
  }
  if (r.failsDrift(b)) {
    std::snprintf(buf, sizeof buf,
                  ": DRIFT %.4g m (bound %.3g m, projection %s) first over at t = %.3f s, worst %s at t = %.3f s; "
                  "after it held: %.3g m%s%s\n",
                  r.drift, r.projection ? b.driftProjected : b.driftUnprojected, r.projection ? "on" : "off",
                  r.driftOverAt, r.driftConstraint.c_str(), r.driftAt, r.heldDrift,
                  r.heldDriftConstraint.empty() ? "" : " ", r.heldDriftConstraint.c_str());
    o << who << buf;
  }
  if (r.failsContact(b)) {
    if (!r.escaped.empty()) o << who << ": ESCAPED: " << r.escaped << " at the end\n";
    if (r.restDepth > b.restDepth) {
      std::snprintf(buf, sizeof buf, ": REST DEPTH %.4g m (bound %.3g m) at t = %.3f s\n", r.restDepth, b.restDepth,
                    r.restDepthAt);
      o << who << buf;
    }
    if (r.passive && r.energyGain > b.energy) {
      std::snprintf(buf, sizeof buf, ": ENERGY GAIN %.4g (bound %.3g) at t = %.3f s, scale %.4g J\n", r.energyGain,
                    b.energy, r.energyGainAt, r.energyScale);
      o << who << buf;
    }
  }
  return o.str();
}

namespace {

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

}  // namespace

std::string summaryTable(const std::vector<RunResult>& results, const Bounds& b) {
  std::ostringstream o;
  const auto& configs = runConfigs();
  // category order as in the corpus
  std::vector<std::string> cats;
  for (const auto& c : categories()) cats.push_back(c.name);

  struct Agg {
    std::set<int> scenes, conservative;
    int runs = 0;
    std::map<std::string, int> fail, diverged, timedOut, energy, drift, opened, failWarned;
    double worstEnergy = 0.0;  // undamped scenes, any configuration
    int worstEnergyId = -1;
    std::string worstEnergyCfg;
    double driftOn = 0.0, driftOff = 0.0, omega = 0.0;
    int driftOnId = -1, driftOffId = -1, omegaId = -1;
    double wall = 0.0;
  };
  std::map<std::string, Agg> agg;
  Agg total;
  std::map<std::string, std::vector<double>> driftOffDist;
  for (const RunResult& r : results) {
    for (Agg* a : {&agg[r.category], &total}) {
      a->scenes.insert(r.id);
      if (r.conservative) a->conservative.insert(r.id);
      ++a->runs;
      a->wall += r.wall;
      if (r.fails(b)) ++a->fail[r.config];
      if (r.fails(b) && r.warned) ++a->failWarned[r.config];
      if (r.diverged) ++a->diverged[r.config];
      if (r.timedOut) ++a->timedOut[r.config];
      if (r.failsEnergy(b)) ++a->energy[r.config];
      if (r.failsDrift(b)) ++a->drift[r.config];
      if (r.opensAfterHeld(b)) ++a->opened[r.config];
      if (r.conservative && r.tAssembled >= 0.0 && r.energyDev > a->worstEnergy) {
        a->worstEnergy = r.energyDev;
        a->worstEnergyId = r.id;
        a->worstEnergyCfg = r.config;
      }
      double& d = r.projection ? a->driftOn : a->driftOff;
      int& di = r.projection ? a->driftOnId : a->driftOffId;
      if (r.drift > d) {
        d = r.drift;
        di = r.id;
      }
      if (r.omega > a->omega) {
        a->omega = r.omega;
        a->omegaId = r.id;
      }
    }
    if (!r.projection && !r.diverged) driftOffDist[r.category].push_back(r.drift);
  }

  o << "| category | scenes | undamped | failing scenes: euler / euler_noproj / rk4 / rk45 | worst energy dev "
       "(undamped) | worst drift, projection on | worst drift, projection off | worst |w| (rad/s) |\n";
  o << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  auto row = [&](const std::string& name, const Agg& a) {
    o << "| " << name << " | " << a.scenes.size() << " | " << a.conservative.size() << " | ";
    for (size_t k = 0; k < configs.size(); ++k) {
      const auto it = a.fail.find(configs[k].name);
      o << (k ? " / " : "") << (it == a.fail.end() ? 0 : it->second);
    }
    o << " | " << (a.worstEnergyId >= 0 ? sci(a.worstEnergy) + " (#" + std::to_string(a.worstEnergyId) + " " + a.worstEnergyCfg + ")" : "-")
      << " | " << (a.driftOnId >= 0 ? sci(a.driftOn) + " m (#" + std::to_string(a.driftOnId) + ")" : "-") << " | "
      << (a.driftOffId >= 0 ? sci(a.driftOff) + " m (#" + std::to_string(a.driftOffId) + ")" : "-") << " | "
      << (a.omegaId >= 0 ? sci(a.omega) + " (#" + std::to_string(a.omegaId) + ")" : "-") << " |\n";
  };
  for (const auto& c : cats)
    if (agg.count(c)) row(c, agg[c]);
  row("**all**", total);

  o << "\nper configuration (runs: failing = diverged, stalled, energy or drift; a run can fail several):\n\n";
  o << "| configuration | runs | failing | diverged | stalled | energy > " << b.energy * 100
    << " % (undamped) | drift > bound | of which opened after it held | bound | failing, warned before the run |\n"
       "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& cfg : configs) {
    int runs = 0, warnedRuns = 0;
    for (const RunResult& r : results) {
      runs += r.config == cfg.name;
      warnedRuns += r.config == cfg.name && r.warned;
    }
    if (!runs) continue;
    auto get = [&](const std::map<std::string, int>& m) {
      const auto it = m.find(cfg.name);
      return it == m.end() ? 0 : it->second;
    };
    o << "| " << cfg.name << " | " << runs << " | " << get(total.fail) << " | " << get(total.diverged) << " | "
      << get(total.timedOut) << " | " << get(total.energy) << " | " << get(total.drift) << " | " << get(total.opened)
      << " | " << sci(cfg.projection ? b.driftProjected : b.driftUnprojected) << " m | " << get(total.failWarned)
      << " of " << warnedRuns << " warned |\n";
  }

  // the distribution of drift without projection (non-diverged runs)
  std::vector<double> all;
  for (const auto& [c, v] : driftOffDist) all.insert(all.end(), v.begin(), v.end());
  if (!all.empty()) {
    std::sort(all.begin(), all.end());
    auto q = [&](double p) { return all[std::min(all.size() - 1, size_t(p * double(all.size() - 1) + 0.5))]; };
    o << "\ndrift with projection off (euler_noproj, " << all.size() << " runs that did not diverge): median "
      << sci(q(0.5)) << " m, 90 % " << sci(q(0.9)) << " m, 99 % " << sci(q(0.99)) << " m, max " << sci(all.back())
      << " m\n";
  }
  // contact scenes, per configuration
  bool anyContacts = false;
  for (const RunResult& r : results) anyContacts |= r.contacts;
  if (anyContacts) {
    o << "\ncontact scenes (bound: at rest " << sci(b.restDepth) << " m, gain " << b.energy * 100
      << " % for passive scenes):\n\n"
         "| configuration | runs | escaped | at-rest overlap > bound | energy gain > bound | worst at-rest overlap | "
         "worst energy gain (passive) | deepest contact |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& cfg : configs) {
      int runs = 0, escaped = 0, deep = 0, gain = 0;
      double worstRest = 0.0, worstGain = 0.0, deepest = 0.0;
      int worstRestId = -1, worstGainId = -1, deepestId = -1;
      for (const RunResult& r : results) {
        if (!r.contacts || r.config != cfg.name) continue;
        ++runs;
        escaped += !r.escaped.empty();
        deep += r.restDepth > b.restDepth;
        gain += r.passive && r.energyGain > b.energy;
        if (r.restDepth > worstRest) worstRest = r.restDepth, worstRestId = r.id;
        if (r.passive && r.energyGain > worstGain) worstGain = r.energyGain, worstGainId = r.id;
        if (r.depthMax > deepest) deepest = r.depthMax, deepestId = r.id;
      }
      if (!runs) continue;
      auto at = [](double v, int id, const char* unit) {
        return id < 0 ? std::string("0") : sci(v) + unit + " (#" + std::to_string(id) + ")";
      };
      o << "| " << cfg.name << " | " << runs << " | " << escaped << " | " << deep << " | " << gain << " | "
        << at(worstRest, worstRestId, " m") << " | " << at(worstGain, worstGainId, "") << " | "
        << at(deepest, deepestId, " m") << " |\n";
    }
  }
  char buf[128];
  std::snprintf(buf, sizeof buf, "\n%d runs, %.1f s of wall time in the runs\n", total.runs, total.wall);
  o << buf;
  return o.str();
}

}  // namespace tether::robustness
