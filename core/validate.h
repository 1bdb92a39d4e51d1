// Value and reference checks for a Scene, shared by the file reader and by compile() (the
// GUI edits Scenes directly). Throws SceneError naming the place: "bodies[3].length: must be > 0".
#pragma once

#include <string>
#include <vector>

#include "core/scene.h"

namespace tether::core {

void validateScene(const Scene& scene);
// A run of duration s in steps of dt s: refuses more than Limits::kMaxSteps steps, naming where.
void checkStepCount(double duration, double dt, const std::string& where);

// The range of every physical value a scene may hold (SI units; docs/scene-format.md, "Limits").
// Past them the derived quantities (a mass rho L^3, an inertia rho L^5, the constraint matrix's
// entries m^-1 L^2) leave what a double resolves or what the solver can balance, so a scene
// holding them is refused with the value's place instead of diverging or crashing later.
struct Limits {
  static constexpr double kMinLength = 1e-9, kMaxLength = 1e9;      // m: sizes, radii, lengths
  static constexpr double kMaxCoordinate = 1e9;                      // m: positions, points
  // kg/m^3: up to 1e12, far past any material, because users (and the robustness corpus) make a
  // small body heavy through its density to get a point-like mass
  static constexpr double kMinDensity = 1e-9, kMaxDensity = 1e12;
  static constexpr double kMaxSpeed = 1e9;                           // m/s, rad/s
  static constexpr double kMinTime = 1e-9, kMaxTime = 1e9;          // s: dt, tau, duration, periods
  static constexpr double kMaxCoefficient = 1e12;                    // stiffness, damping, force, torque
  static constexpr double kMaxAcceleration = 1e6;                    // m/s^2: gravity
  static constexpr double kMinTolerance = 1e-14;                     // rk45 (relative): below, rounding
  static constexpr double kMinProjectionTolerance = 1e-12;           // m
  static constexpr double kMaxSteps = 1e8;                           // duration / dt of one run
  static constexpr double kMaxBaumgarte = 1e6;                       // 1/s: alpha, beta
  static constexpr int kMaxSolverIterations = 100000;                // sequential impulses' sweeps
  static constexpr int kMaxSubsteps = 4096;
  // Constraints on one moving body. They all share it, so their rows of the constraint matrix M
  // couple pairwise: n constraints make a dense n x n block whose factorization takes ~n^3/6
  // block updates every force evaluation (400: 1e7, 0.1 s and 220 MB; 800: 19 s to set up and
  // 1.6 GB, measured with tether-cli check on a star of spokes).
  static constexpr int kMaxConstraintsPerBody = 400;
};

// Parameters a "set" event may change, how many numbers each takes (1 or 3), and their unit.
struct ParamSpec {
  const char* name;
  int size;
  const char* unit = "";  // as the scene format gives it ("" for a pure number)
};
std::vector<ParamSpec> settableParams(ForceKind kind);
// Bodies (the contact stage's): "collides" (1 or 0), "restitution", "friction", "static_friction", "rolling_resistance".
std::vector<ParamSpec> settableBodyParams();
// Constraints: "tau" (1). Paths: "speed" (1, local seconds per second). Gravity: "acceleration" (3).
// The parameters of whatever the scene's target names (a body, force, constraint or path, or
// "gravity"); none for a name it does not have.
std::vector<ParamSpec> settableParams(const Scene& scene, const std::string& target);
// A settable parameter's value at time t: the scene's, unless a set event at or before t (the
// last of them) changed it; empty for a target or parameter the scene does not have.
std::vector<double> paramValueAt(const Scene& scene, const std::string& target, const std::string& param, double t);

}  // namespace tether::core
