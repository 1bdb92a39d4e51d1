// Headless runs and checks of a scene: what tether-cli prints, as testable functions.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/scene.h"
#include "core/simulation.h"

namespace tether::core {

// Command-line overrides of a scene's settings.
struct SettingsOverrides {
  std::optional<double> dt;                    // s
  std::optional<IntegratorKind> integrator;
  std::optional<SolverKind> solver;
  std::optional<StabilizationKind> stabilization;
  std::optional<bool> projection;
  std::optional<double> projectionTolerance;  // m
  std::optional<int> maxSubsteps;
  void applyTo(Settings& s) const;
};

struct RunOptions {
  std::optional<double> until;                 // s; default settings.duration
  SettingsOverrides overrides;
  std::ostream* csv = nullptr;                 // t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz (RFC 4180)
  std::ostream* energyCsv = nullptr;           // t,kinetic,gravity,springs,total,max_deviation
  int every = 1;                               // write every k-th step to the CSVs
  // called after every output step with (t, until); returning false ends the run there
  // (RunSummary::interrupted): the CLI's progress line and Ctrl+C
  std::function<bool(double, double)> progress;
};

struct ConstraintSummary {
  std::string name;
  double assembledAt = -1.0;     // s: when it counts as assembled (activation + assembly time); -1 never active
  double maxDeviation = -1.0;    // max |D| over written steps after assembledAt; -1 none
  double measuredFrom = -1.0;    // s: the assembledAt from which maxDeviation is measured (the first one
                                 // reached: a constraint switched off and on again is measured from its
                                 // first assembly; the later one may lie past the run's end); -1 none
  double finalDeviation = -1.0;  // |D| at the end; -1 inactive then
};

// The output steps whose contacts could not be met together with the joints
// (Simulation::contactProblem: that group's contacts were left out of the step).
struct ContactTrouble {
  long steps = 0;                // output steps that ended with a contact problem
  long of = 0;                   // output steps taken
  double firstAt = -1.0;         // s: the first of them; -1 none
  double lastAt = -1.0;          // s: the last of them
  std::string first, last;       // their messages
};

struct RunSummary {
  long steps = 0;                // integrator steps
  long evaluations = 0;          // right-hand-side evaluations
  double wallSeconds = 0.0;
  double finalTime = 0.0;        // s
  double energyStart = 0.0;      // J, after the events at t = 0
  double energyEnd = 0.0;        // J
  // J, and when: the lowest and highest energy at the output steps (the end's change can hide a
  // swing: a bead on stiff springs ended 0.95 % off and swung 2.2 % between)
  double energyLow = 0.0, energyHigh = 0.0, energyLowAt = 0.0, energyHighAt = 0.0;
  // The same from when the model is assembled (every active constraint past its assembly time:
  // settings.assembly_time or 15 tau after it became active; a constraint an event switches on
  // later starts it anew, from when that one has assembled): the assembly's tau forces do work,
  // so start and end above can differ by what the assembly gave, not by drift. assembledAt < 0:
  // the model did not assemble before the end (or has no constraints: then it is 0, the start).
  // kineticHigh: the largest kinetic energy from then on, the scale of the energy the motion
  // exchanges against which a drift reads.
  double assembledAt = -1.0;
  double energyAssembled = 0.0;
  double assembledLow = 0.0, assembledHigh = 0.0, assembledLowAt = 0.0, assembledHighAt = 0.0;
  double kineticHigh = 0.0;
  bool driven = false;           // Model::driven: the energy follows the drive, not conservation
  bool diverged = false;
  bool interrupted = false;      // options.progress asked to stop
  bool outputFailed = false;     // a CSV write failed (the stream went bad): the run stopped there
  const std::ostream* failedOutput = nullptr;  // which of RunOptions' streams
  std::string message;
  std::vector<ConstraintSummary> constraints;
  ContactTrouble contacts;
  SubstepShortfall substeps;     // steps that needed more substeps than max_substeps allows
  // constraints still apart at the end (past their assembly, more than kConflictGap) that the
  // constraint analysis there finds conflicting, and the others redundant with them
  struct Apart {
    std::string name;
    double distance = -1.0;  // m: the largest |D| of its parts in metres; -1 none apart
    double tilt = -1.0;      // the largest of its turning parts' |D| = 2 tan(theta/2); -1 none apart
  };
  std::vector<Apart> conflicting;
  std::vector<std::string> conflictPartners;
  double conflictAt = 0.0;       // s: when they were analysed (the end of the run)
  double maxDeviationAfterAssembly() const;  // -1 when no constraint was measured after its assembly
};

// Throws SceneError for an invalid scene, and for an until that would take no step or more than
// Limits::kMaxSteps.
RunSummary runScene(const Scene& scene, const RunOptions& options);
std::string formatSummary(const RunSummary& s);

struct CheckReport {
  int bodies = 0, constraints = 0, activeConstraints = 0;
  int rows = 0, cols = 0, rank = 0;
  int unanalysedRows = 0;                  // rows the rank analysis left out (too large a singular group)
  double residual = 0.0;
  std::string solver;                      // the solver path and why
  std::vector<std::string> redundant;      // constraint names
  std::vector<std::string> conflicting;    // at t = 0 and still once the model has had time to assemble
  std::vector<std::string> assembling;     // conflicting at t = 0 only: the parts start apart
  double conflictCheckedAt = 0.0;          // s: when the conflicts at t = 0 were last looked at again
  std::vector<std::string> warnings;       // modelling pitfalls found in the scene, and numeric
                                           // settings past their stable bounds (core/stability.h)
};

// The longest checkScene simulates to tell a conflict from an assembly (a model built apart).
inline constexpr double kAssemblyLookAhead = 5.0;  // s
// A constraint still conflicting then is reported only if it is still apart by more than this
// (|D|, m or rad): constraints that agree are held far closer (the corpus's bound on drift).
inline constexpr double kConflictGap = 1e-6;

// The constraint system at t = 0 (after the events at t = 0); constraints conflicting there are
// looked at again once the model has had time to assemble. Throws SceneError.
CheckReport checkScene(const Scene& scene);
std::string formatCheck(const CheckReport& r);

}  // namespace tether::core
