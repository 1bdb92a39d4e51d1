#include "core/headless.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <set>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <sstream>

#include "core/constraint.h"
#include "core/constraints/orientation.h"
#include "core/forces.h"
#include "core/model.h"
#include "core/simulation.h"
#include "core/scene_io.h"
#include "core/stability.h"
#include "core/validate.h"

namespace tether::core {

namespace {

// A CSV field per RFC 4180: quoted when it holds a comma, a quote or a line break, with its
// quotes doubled.
std::string csvField(const std::string& f) {
  if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
  std::string q = "\"";
  for (char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void writeCsvRows(std::ostream& os, const Model& m, const State& st) {
  char line[512];
  std::vector<BodyKinematics> kin;
  bodyKinematics(m, st.params, st.bodies, kin);
  for (size_t i = 0; i < st.bodies.size(); ++i) {
    if (!st.params.bodyActive[i]) continue;
    const BodyState& b = st.bodies[i];
    const BodyKinematics& k = kin[i];
    std::snprintf(line, sizeof line, "%.10g,", st.t);
    os << line << csvField(m.bodyNames[i]);
    std::snprintf(line, sizeof line, ",%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g\n",
                  b.x.x(), b.x.y(), b.x.z(), b.q.w(), b.q.x(), b.q.y(), b.q.z(), k.v.x(), k.v.y(), k.v.z(), k.w.x(),
                  k.w.y(), k.w.z());
    os << line;
  }
}

}  // namespace

void SettingsOverrides::applyTo(Settings& s) const {
  if (dt) s.dt = *dt;
  if (integrator) s.integrator = *integrator;
  if (solver) s.solver = *solver;
  if (stabilization) s.stabilization = *stabilization;
  if (projection) s.projection = *projection;
  if (projectionTolerance) s.projectionTolerance = *projectionTolerance;
  if (maxSubsteps) s.maxSubsteps = *maxSubsteps;
}

double RunSummary::maxDeviationAfterAssembly() const {
  double m = -1.0;
  for (const auto& c : constraints) m = std::max(m, c.maxDeviation);
  return m;
}

// A crank's drive past 1/tau (or Baumgarte's beta) is not a conflict but a lag: tau's law settles
// its point ahead of the path's for good (crankDrive; stability's warning says it with the fix,
// and the constraint analysis sees the unmet residual as a conflict): a crank at 12.6 rad/s with
// tau = 0.1 s, 0.22 m behind its path with rk4 as the warning said, was "conflicting" too.
static bool lagsBehindItsDrive(const Scene& scene, const Model& model, int part) {
  const auto drive = crankDrive(scene, size_t(model.constraintDef[size_t(part)]));
  return drive && drive->w >= drive->k;
}

// a time as the summary prints times (6 significant digits, no trailing zeros)
static std::string timeText(double t) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", t);
  return b;
}

RunSummary runScene(const Scene& sceneIn, const RunOptions& opt) {
  Scene scene = sceneIn;
  opt.overrides.applyTo(scene.settings);
  if (opt.until) {
    const double until = *opt.until;
    if (!(until >= Limits::kMinTime && until <= Limits::kMaxTime)) {
      std::ostringstream m;
      m << "until: must be between " << Limits::kMinTime << " and " << Limits::kMaxTime << " s (is " << until
        << "): a shorter run would take no step";
      throw SceneError(m.str());
    }
    checkStepCount(until, scene.settings.dt, "until");
    scene.settings.duration = until;  // this run's length: the file's duration does not apply
  }
  auto model = std::make_shared<const Model>(compile(scene));  // validates the overridden settings too
  const double until = scene.settings.duration;
  const double dt = scene.settings.dt;
  const int every = std::max(1, opt.every);

  Simulation sim(model);
  RunSummary out;
  out.driven = model->driven();
  const size_t nc = model->constraints.size();
  out.constraints.resize(nc);
  for (size_t j = 0; j < nc; ++j) out.constraints[j].name = model->constraintNames[j];
  std::vector<double> dev;
  std::vector<double> activeSince(nc, -1.0);
  bool reassembling = false;  // a constraint became active after t = 0: the after-assembly range starts anew

  // a constraint counts as assembled settle_j after it became active:
  // settings.assembly_time, or 15 of its tau (critically damped: |D| <= 16 e^-15 |D0| ~ 5e-6 |D0|)
  auto observe = [&]() {
    sim.deviations(dev);
    const double t = sim.state().t;
    for (size_t j = 0; j < nc; ++j) {
      ConstraintSummary& c = out.constraints[j];
      c.finalDeviation = dev[j];
      if (dev[j] < 0.0) {
        activeSince[j] = -1.0;
        continue;
      }
      if (activeSince[j] < 0.0) {
        activeSince[j] = t;
        reassembling = reassembling || t > 0.0;  // (switched on by an event: its pull starts again)
        const double settle = scene.settings.assemblyTime.value_or(15.0 * sim.state().params.tau[j]);
        c.assembledAt = t + settle;
      }
      if (t >= c.assembledAt - 1e-12) {
        if (c.measuredFrom < 0.0) c.measuredFrom = c.assembledAt;
        c.maxDeviation = std::max(c.maxDeviation, dev[j]);
      }
    }
  };

  const auto start = std::chrono::steady_clock::now();
  sim.advanceTo(0.0);  // fire the events at t = 0
  out.energyStart = energy(*model, sim.state()).total();
  out.energyLow = out.energyHigh = out.energyStart;
  // assembled: every active constraint measured (observe: past its assembly time); the first
  // such step starts the after-assembly range
  // (each active constraint past its latest activation's assembly time: one switched off and on
  // again assembles anew; at t = 0 with none active, the start)
  auto assembledNow = [&]() {
    const double t = sim.state().t;
    for (size_t j = 0; j < nc; ++j)
      if (dev[j] >= 0.0 && t < out.constraints[j].assembledAt - 1e-12) return false;
    return true;
  };
  auto observeEnergy = [&]() {
    const Energy en = energy(*model, sim.state());
    const double e = en.total(), t = sim.state().t;
    if (e < out.energyLow) out.energyLow = e, out.energyLowAt = t;
    if (e > out.energyHigh) out.energyHigh = e, out.energyHighAt = t;
    // A constraint switched on by an event pulls its points together again, doing work (a
    // pendulum pinned at 1 s after a free fall): the range is from when the last one assembled
    // (it started at t = 0 when every constraint was switched on later, and held their pulls).
    if (reassembling) {
      reassembling = false;
      out.assembledAt = -1.0;
      out.kineticHigh = 0.0;
    }
    if (out.assembledAt < 0.0) {
      if (!assembledNow()) return;
      out.assembledAt = t;
      out.energyAssembled = out.assembledLow = out.assembledHigh = e;
      out.assembledLowAt = out.assembledHighAt = t;
    }
    if (e < out.assembledLow) out.assembledLow = e, out.assembledLowAt = t;
    if (e > out.assembledHigh) out.assembledHigh = e, out.assembledHighAt = t;
    out.kineticHigh = std::max(out.kineticHigh, en.kinetic);
  };
  observe();
  observeEnergy();  // (at t = 0: assembled already when nothing has to assemble)
  // the energy and the largest |D| now (dev: observe's), one row; no constraint active: empty
  auto writeEnergyRow = [&]() {
    const Energy e = energy(*model, sim.state());
    double worst = -1.0;
    for (double d : dev) worst = std::max(worst, d);
    char line[256];
    std::snprintf(line, sizeof line, "%.10g,%.12g,%.12g,%.12g,%.12g,", sim.state().t, e.kinetic, e.gravity, e.springs,
                  e.total());
    *opt.energyCsv << line;
    if (worst >= 0.0) {
      std::snprintf(line, sizeof line, "%.6g", worst);
      *opt.energyCsv << line;
    }
    *opt.energyCsv << "\n";
  };
  if (opt.csv) {
    *opt.csv << "t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n";
    writeCsvRows(*opt.csv, *model, sim.state());
    opt.csv->flush();  // on the disk before the first (maybe long) step
  }
  if (opt.energyCsv) {
    *opt.energyCsv << "t,kinetic,gravity,springs,total,max_deviation\n";
    writeEnergyRow();
    opt.energyCsv->flush();
  }
  // output steps: the last one ends at until exactly (at least one: validation keeps until/dt
  // within 1e8 and until >= 1e-9 s)
  const long frames = std::max(1L, static_cast<long>(std::ceil(until / dt - 1e-9)));
  auto csvFailed = [&]() {
    for (std::ostream* os : {opt.csv, opt.energyCsv}) {
      if (!os || os->good()) continue;
      out.outputFailed = true;
      out.failedOutput = os;
      out.message = std::string(os == opt.csv ? "writing the CSV" : "writing the energy CSV") + " failed at t = " +
                    timeText(sim.state().t) + " s (disk full?)";
      return true;
    }
    return false;
  };
  // the caller's progress report, which may ask to stop (Ctrl+C)
  auto stopAsked = [&]() {
    if (!opt.progress || opt.progress(sim.state().t, until)) return false;
    out.interrupted = true;
    out.message = "interrupted at t = " + timeText(sim.state().t) + " s";
    return true;
  };
  csvFailed();  // the header and the rows at t = 0
  stopAsked();
  for (long k = 1; k <= frames && !out.outputFailed && !out.interrupted; ++k) {
    const double t = std::min(until, static_cast<double>(k) * dt);
    const AdvanceResult r = sim.advanceTo(t);
    out.steps += r.steps;
    if (!r.ok) {
      out.diverged = true;
      out.message = r.message + divergenceAdvice(scene, r.advice);
      break;
    }
    observe();
    observeEnergy();
    out.contacts.of = k;
    if (const std::string& problem = sim.contactProblem(); !problem.empty()) {
      ContactTrouble& c = out.contacts;
      if (c.steps++ == 0) {
        c.firstAt = sim.state().t;
        c.first = problem;
      }
      c.lastAt = sim.state().t;
      c.last = problem;
    }
    if ((opt.csv || opt.energyCsv) && (k % every == 0 || k == frames)) {
      if (opt.csv) writeCsvRows(*opt.csv, *model, sim.state());
      if (opt.energyCsv) writeEnergyRow();
      if (csvFailed()) break;
    }
    if (stopAsked()) break;
  }
  // A constraint still apart at the end, long after its assembly, is most often one the others
  // will not let hold: two welds on one pair of bodies that disagree, a point held in two places.
  // The run's other findings then name its symptoms (a light link whipping, substeps short: the
  // least-squares forces strain and shake the bodies), not its cause, so the cause is analysed
  // where it shows: the constraint analysis tether-cli check runs at t = 0, here at the end (a
  // gyroscope whose axle was welded twice 2.5 cm apart ran a minute saying only SUBSTEPS SHORT
  // for the axle). Its partners: the redundant constraints on the same bodies.
  if (!out.diverged) {
    bool apart = false;
    for (size_t j = 0; j < nc; ++j)
      apart = apart || (out.constraints[j].maxDeviation >= 0.0 && dev[j] > kConflictGap);
    if (apart) {
      sim.refresh();
      const ConflictReport c = sim.context().system.conflicts();
      sim.deviations(dev);
      out.conflictAt = sim.state().t;
      auto named = [&](const std::string& n) {
        return std::find_if(out.conflicting.begin(), out.conflicting.end(), [&](const auto& e) { return e.name == n; });
      };
      for (int j : c.conflicting) {
        if (out.constraints[size_t(j)].maxDeviation < 0.0 || !(dev[size_t(j)] > kConflictGap) ||
            lagsBehindItsDrive(scene, *model, j))
          continue;
        const std::string& n = model->constraintNames[size_t(j)];
        auto e = named(n);
        if (e == out.conflicting.end()) e = out.conflicting.insert(e, {n});
        // the part's unit (Model::constraintUnit): metres or a turn
        double& d = std::string(model->constraintUnit[size_t(j)]) == "rad" ? e->tilt : e->distance;
        d = std::max(d, dev[size_t(j)]);
      }
      // (the moving bodies: a fixed body, the world, is shared by everything nailed to it)
      std::set<int> bodies;
      for (int j : c.conflicting)
        if (named(model->constraintNames[size_t(j)]) != out.conflicting.end())
          for (int b : model->constraints[size_t(j)]->bodies())
            if (b >= 0 && !model->bodies[size_t(b)].fixed) bodies.insert(b);
      for (int j : c.redundant) {
        const BodyList on = model->constraints[size_t(j)]->bodies();
        if (std::none_of(on.begin(), on.end(), [&](int b) { return bodies.count(b) > 0; })) continue;
        const std::string& n = model->constraintNames[size_t(j)];
        if (named(n) == out.conflicting.end() &&
            std::find(out.conflictPartners.begin(), out.conflictPartners.end(), n) == out.conflictPartners.end())
          out.conflictPartners.push_back(n);
      }
    }
  }
  // one line per definition: its parts (a hinge's point and axis) merged, the worst of them
  std::vector<ConstraintSummary> merged;
  for (const Model::PartRange& r : model->constraintParts) {
    ConstraintSummary c = out.constraints[size_t(r.first)];
    for (int k = r.first + 1; k < r.first + r.count; ++k) {
      const ConstraintSummary& p = out.constraints[size_t(k)];
      c.assembledAt = std::max(c.assembledAt, p.assembledAt);
      if (p.measuredFrom >= 0.0) c.measuredFrom = c.measuredFrom < 0.0 ? p.measuredFrom : std::min(c.measuredFrom, p.measuredFrom);
      c.maxDeviation = std::max(c.maxDeviation, p.maxDeviation);
      c.finalDeviation = std::max(c.finalDeviation, p.finalDeviation);
    }
    merged.push_back(c);
  }
  out.constraints = std::move(merged);
  out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.finalTime = sim.state().t;
  out.energyEnd = energy(*model, sim.state()).total();
  out.evaluations = sim.context().evaluations;
  out.substeps = sim.substepShortfall();
  return out;
}

std::string formatSummary(const RunSummary& s) {
  std::ostringstream o;
  char buf[256];
  std::snprintf(buf, sizeof buf, "steps: %ld (%ld force evaluations)\nwall time: %.3f s (%.1f us/step)\nfinal time: %.6g s\n",
                s.steps, s.evaluations, s.wallSeconds, s.steps ? 1e6 * s.wallSeconds / double(s.steps) : 0.0,
                s.finalTime);
  o << buf;
  const double dE = s.energyEnd - s.energyStart;
  std::snprintf(buf, sizeof buf, "energy: start %.9g J, end %.9g J, change %.3e J\n", s.energyStart, s.energyEnd, dE);
  o << buf;
  std::snprintf(buf, sizeof buf, "energy range: lowest %.9g J at t = %.6g s, highest %.9g J at t = %.6g s\n", s.energyLow,
                s.energyLowAt, s.energyHigh, s.energyHighAt);
  o << buf;
  if (s.assembledAt > 0.0) {
    std::snprintf(buf, sizeof buf,
                  "energy after assembly (from t = %.6g s): %.9g J, end %.9g J, change %.3e J; lowest %.9g J at t = "
                  "%.6g s, highest %.9g J at t = %.6g s; kinetic energy up to %.6g J\n",
                  s.assembledAt, s.energyAssembled, s.energyEnd, s.energyEnd - s.energyAssembled, s.assembledLow,
                  s.assembledLowAt, s.assembledHigh, s.assembledHighAt, s.kineticHigh);
    o << buf;
    // (a helper read a driven slider-crank's change of 9.9 J as drift: it was the phase the run
    // ended at; sampled at one phase of the drive, the energy held to 1e-9 J)
    if (s.driven)
      o << "  (the model is driven, by a path or a velocity constraint: the drive does work on it, so its energy "
           "follows the drive's phase; compare it at the same phase of the drive, not start with end)\n";
  } else if (s.assembledAt < 0.0) {
    o << "energy after assembly: not assembled before the end\n";
  }
  o << "constraints (max |D| after assembly, final |D|):\n";
  size_t width = 4;
  for (const auto& c : s.constraints) width = std::max(width, c.name.size());
  for (const auto& c : s.constraints) {
    if (c.maxDeviation < 0.0 && c.assembledAt < 0.0) {
      std::snprintf(buf, sizeof buf, "  %-*s  never active\n", int(width), c.name.c_str());
    } else if (c.maxDeviation < 0.0 && c.assembledAt < s.finalTime) {
      // (a helper's trebuchet let its sling go at 1 s, before the 1.5 s it took to assemble, and
      // read "not assembled before the end" of a 600 s run)
      std::snprintf(buf, sizeof buf, "  %-*s  switched off before it assembled (it would have at t = %.3g s)\n",
                    int(width), c.name.c_str(), c.assembledAt);
    } else if (c.maxDeviation < 0.0) {
      std::snprintf(buf, sizeof buf, "  %-*s  not assembled before the end (assembles at t = %.3g s)\n", int(width),
                    c.name.c_str(), c.assembledAt);
    } else {
      char fin[32] = "inactive";
      if (c.finalDeviation >= 0.0) std::snprintf(fin, sizeof fin, "%.3e", c.finalDeviation);
      std::snprintf(buf, sizeof buf, "  %-*s  %.3e  (from t = %.3g s)  final %s\n", int(width), c.name.c_str(),
                    c.maxDeviation, c.measuredFrom, fin);
    }
    o << buf;
  }
  if (const double m = s.maxDeviationAfterAssembly(); m >= 0.0)
    std::snprintf(buf, sizeof buf, "max |D| after assembly: %.3e\n", m);
  else
    std::snprintf(buf, sizeof buf, "max |D| after assembly: none measured (%s)\n",
                  s.constraints.empty() ? "the scene has no constraints" : "no constraint was assembled before the end");
  o << buf;
  if (const ContactTrouble& c = s.contacts; c.steps > 0) {
    std::snprintf(buf, sizeof buf, "CONTACTS NOT MET in %ld of %ld steps, from t = %.6g s to %.6g s: ", c.steps, c.of,
                  c.firstAt, c.lastAt);
    o << buf << c.first << "\n";
    if (c.last != c.first) o << "  the last: " << c.last << "\n";
  }
  if (!s.conflicting.empty()) {
    std::snprintf(buf, sizeof buf, "CONFLICTING at t = %.6g s: ", s.conflictAt);
    o << buf;
    for (size_t i = 0; i < s.conflicting.size(); ++i) {
      const RunSummary::Apart& a = s.conflicting[i];
      o << (i ? ", " : "") << a.name << " (";
      if (a.distance >= 0.0) {
        std::snprintf(buf, sizeof buf, "%.3g m apart", a.distance);
        o << buf << (a.tilt >= 0.0 ? ", " : "");
      }
      if (a.tilt >= 0.0) {  // |D| = 2 tan(theta/2)
        std::snprintf(buf, sizeof buf, "turned %.3g degrees off", 2.0 * std::atan(0.5 * a.tilt) * 180.0 / M_PI);
        o << buf;
      }
      o << ")";
    }
    o << (s.conflicting.size() > 1 ? " cannot hold" : " cannot hold together with the other constraints on its bodies");
    if (!s.conflictPartners.empty()) {
      o << " (redundant with ";
      for (size_t i = 0; i < s.conflictPartners.size(); ++i) o << (i ? ", " : "") << s.conflictPartners[i];
      o << ")";
    }
    o << ": no pose meets them all, so the solver holds what it can, leaves the rest apart and strains the "
         "bodies (which may be all that other findings see); remove one of them or move their points so they "
         "agree (tether-cli check lists the redundant and conflicting constraints at t = 0)\n";
  }
  if (const SubstepShortfall& u = s.substeps; u.steps > 0) {
    std::snprintf(buf, sizeof buf, "SUBSTEPS SHORT in %ld of %ld steps, from t = %.6g s to %.6g s: ", u.steps, s.steps,
                  u.firstAt, u.lastAt);
    o << buf << u.first << "\n";
    if (u.atWorst != u.first) o << "  the worst: " << u.atWorst << "\n";
  }
  if (s.diverged) o << "DIVERGED: " << s.message << "\n";
  if (s.interrupted) o << "INTERRUPTED: " << s.message << "\n";
  if (s.outputFailed) o << "OUTPUT FAILED: " << s.message << "\n";
  return o.str();
}

CheckReport checkScene(const Scene& scene) {
  auto model = std::make_shared<const Model>(compile(scene));
  Simulation sim(model);
  sim.advanceTo(0.0);
  sim.refresh();
  const ConstraintSystem& sys = sim.context().system;
  CheckReport r;
  r.bodies = static_cast<int>(model->bodies.size());
  // definitions, not runtime parts (a hinge is one constraint of two parts)
  r.constraints = static_cast<int>(model->constraintParts.size());
  std::set<int> activeDefs;
  for (int j : sys.active()) activeDefs.insert(model->constraintDef[size_t(j)]);
  r.activeConstraints = static_cast<int>(activeDefs.size());
  r.rows = sys.report().rows;
  r.cols = sys.report().cols;
  const ConflictReport c = sys.conflicts();
  r.rank = c.rank;
  r.unanalysedRows = c.unanalysedRows;
  r.residual = sys.report().residual;
  const Settings& st = model->settings;
  r.solver = std::string(toString(st.solver)) + ": ";
  if (st.solver == SolverKind::SequentialImpulses)
    r.solver += "velocity-level sequential impulses, " + std::to_string(st.solverIterations) +
                " sweeps per step, warm started (for reports the forces are solved as auto: ";
  // (no reason when there was nothing to solve: no constraint active at the start)
  if (!sys.report().reason || !*sys.report().reason) r.solver += "nothing to solve at the start (no constraint active)";
  else r.solver += std::string(toString(sys.report().path)) + ", because " + sys.report().reason;
  if (st.solver == SolverKind::SequentialImpulses) r.solver += ")";
  r.solver += "; stabilization: " + std::string(toString(st.stabilization));
  if (st.projection) {
    std::ostringstream tol;
    tol << st.projectionTolerance;
    r.solver += " + position projection (to " + tol.str() + " m)";
  }
  // by name, once per definition
  auto names = [&](const std::vector<int>& parts, std::vector<std::string>& out) {
    for (int j : parts) {
      const std::string& n = model->constraintNames[size_t(j)];
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  };
  names(c.redundant, r.redundant);
  // Conflicting at t = 0 may be only the assembly: a model built apart (the card house, any model
  // drawn scattered) with redundant joints has deviations D that disagree until the parts meet,
  // and the least-squares residual of M Fc + B = 0 then names every joint of the group. Two
  // joints that hold one point in two places never agree, so the conflicts that remain once the
  // model has had time to assemble are the real ones: the constraints conflicting at t = 0 are
  // looked at again at the assembly time (settings.assembly_time, or 15 of the largest tau among
  // them, the headless runner's rule: |D| down to ~5e-6 of its start; for a crank's drive 15 / (1/tau - W)),
  // capped at kAssemblyLookAhead.
  if (!c.conflicting.empty()) {
    double settle = 0.0;
    for (int j : c.conflicting) {
      settle = std::max(settle, 15.0 * sim.state().params.tau[size_t(j)]);
      // a crank's drive closes at 1/tau - W, not 1/tau (crankDrive, core/stability.h)
      if (const auto drive = crankDrive(scene, size_t(model->constraintDef[size_t(j)])); drive && drive->closingRate() > 0.0)
        settle = std::max(settle, 15.0 / drive->closingRate());
    }
    settle = std::min(scene.settings.assemblyTime.value_or(settle), kAssemblyLookAhead);
    // (one look, at the end: while the parts move, a real conflict's residual can pass through 0)
    std::vector<int> still = c.conflicting;
    // conflicting then and in the later analysis too, but met: the ones that hold while the
    // others are left apart (the solve meets met constraints first: ConstraintSystem::heldFirst)
    std::vector<int> holding;
    double at = 0.0;
    bool ok = true;
    try {
      ok = sim.advanceTo(settle).ok;
    } catch (const std::exception&) {
      ok = false;  // a blow-up: the conflicts stand as found
    }
    if (ok) {
      at = settle;
      sim.refresh();
      const ConflictReport later = sim.context().system.conflicts();
      // and a conflict leaves its constraints apart: the residual's test (1e-8 of |B|) also
      // catches joints that agree but are held to 1e-9 m, whose D / tau^2 and D' / tau part of B
      // differ by ~1e-7 (a steel crank pinned and driven round its circle, rk4: "conflicting"
      // while both held it within 2.3e-9 m)
      std::vector<double> gap;
      sim.deviations(gap);
      auto inLater = [&](int j) {
        return std::find(later.conflicting.begin(), later.conflicting.end(), j) != later.conflicting.end();
      };
      std::erase_if(still, [&](int j) {
        return !inLater(j) || gap[size_t(j)] <= kConflictGap || lagsBehindItsDrive(scene, *model, j);
      });
      for (int j : c.conflicting)
        if (!still.empty() && inLater(j) && gap[size_t(j)] <= kConflictGap) holding.push_back(j);
    }
    names(still, r.conflicting);
    auto in = [](const std::vector<int>& v, int j) { return std::find(v.begin(), v.end(), j) != v.end(); };
    for (int j : c.conflicting)
      if (!in(still, j) && !in(holding, j) && !lagsBehindItsDrive(scene, *model, j)) names({j}, r.assembling);
    r.conflictCheckedAt = at;
  }
  // an orientation constraint holds two rotations: two on one body hold its three with a
  // fourth row to spare, which makes M singular every step (the dense SVD's cost)
  std::vector<int> orientations(scene.bodies.size(), 0);
  for (const ConstraintDef& cd : scene.constraints)
    if (const auto* o = cd.params.get<OrientationDef>()) ++orientations[size_t(model->findBody(o->body))];
  for (size_t i = 0; i < orientations.size(); ++i)
    if (orientations[i] > 1)
      r.warnings.push_back("body \"" + scene.bodies[i].name + "\" has " + std::to_string(orientations[i]) +
                           " orientation constraints: each holds two of its three rotations, so together they "
                           "are redundant (one row to spare) and every step takes the slower dense SVD; hold "
                           "the last rotation with a point-on-line or point-on-plane constraint instead");
  // numeric settings past their stable bounds (core/stability.h)
  for (const StabilityWarning& w : stabilityWarnings(scene)) r.warnings.push_back(w.message);
  return r;
}

std::string formatCheck(const CheckReport& r) {
  std::ostringstream o;
  o << "scene ok: " << r.bodies << (r.bodies == 1 ? " body, " : " bodies, ") << r.constraints
    << (r.constraints == 1 ? " constraint (" : " constraints (") << r.activeConstraints << " active at t = 0)\n";
  o << "constraint system at t = 0: " << r.rows << " x " << r.cols << ", rank " << r.rank;
  if (r.unanalysedRows > 0)
    o << " of the " << r.rows - r.unanalysedRows << " rows analysed (" << r.unanalysedRows
      << " rows are in groups of joined constraints larger than the " << kRankAnalysisLimit
      << " the rank analysis takes; the solver found M singular there)";
  else if (r.rank < r.rows) o << " (rank-deficient by " << r.rows - r.rank << ")";
  o << "\nresidual |M Fc + B|: " << r.residual << "\n";
  o << "solver: " << r.solver << "\n";
  auto list = [&](const char* what, const std::vector<std::string>& v) {
    o << what << ": ";
    if (v.empty()) o << "none";
    for (size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << v[i];
    o << "\n";
  };
  list("redundant constraints", r.redundant);
  list("conflicting constraints", r.conflicting);
  if (!r.assembling.empty()) {
    std::ostringstream at;
    at << r.conflictCheckedAt;
    o << "conflicting only while assembling (they agree by t = " << at.str() << " s): ";
    for (size_t i = 0; i < r.assembling.size(); ++i) o << (i ? ", " : "") << r.assembling[i];
    o << "\n";
  }
  for (const std::string& w : r.warnings) o << "warning: " << w << "\n";
  return o.str();
}

}  // namespace tether::core
