// The step pipeline's force stages, as one function of (t, y): the right-hand side of the
// equations of motion (paper Fig. 16) with the constraint forces of Fig. 15 included.
//
//   kinematics -> external forces -> assemble M Fc + B = 0 -> solve -> net force/torque
//   -> dy/dt = (v, 1/2 w q, F, T)
//
// y packs kBodyDofs = 13 numbers per body: x (3), q (w, x, y, z), P (3), L (3) (core/state.h).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/constraint.h"
#include "core/constraint_system.h"
#include "core/model.h"

namespace tether::core {

// Preallocated scratch of one simulation. Not shared between threads.
struct StepContext {
  std::vector<BodyKinematics> kin;
  std::vector<Vec3> F, T;                 // net force (N) and torque (N m) per body
  ConstraintSystem system;
  Eigen::VectorXd y, dy, ytmp, yerr;      // integrator work vectors
  Eigen::VectorXd k[7];
  // scratch of the velocity-level steppers and of projection (sized on first use, then reused)
  std::vector<Vec3> P, L;                 // momenta during a sequential-impulses step
  std::vector<Vec3> dLin, dAng;           // projection: per-body correction
  std::vector<Vec3> wMid;                 // semi-implicit Euler: each body's midpoint rate
  Eigen::VectorXd mu, yBefore;            // projection: multipliers; positions before a Newton step
  double hNext = 0.0;                     // RK45: proposed next step, s
  double h = 1e-3;                        // the step being taken, s (implicit stabilization)
  std::vector<std::uint8_t>* assembled = nullptr;  // the State's assembled flags (see updateAssembled)
  std::vector<Vec3>* lastForce = nullptr;  // the State's last point-pair forces (geometric stiffness)
  std::vector<Vec3>* rateOffset = nullptr;  // the State's h c / 2 per constraint (see velocityTarget)
  SpinTrend* spinTrend = nullptr;          // the State's change of w over the last step
  std::vector<Mat3> stiffness;             // per body: S = h^2 (geometric stiffness), see dynamics.cpp
  // the bodies whose solve uses (I + S)^-1 this evaluation, with their world inertia I and plain
  // I^-1 (one compact list: at 10 000 bodies per-body arrays of them cost more memory traffic)
  struct Stiffened {
    int body = -1;
    Mat3 inertia, plainInvI;
  };
  std::vector<Stiffened> stiffened;
  long evaluations = 0;                   // right-hand-side evaluations so far
  // The kinematics and constraint rows in `kin` and `system` were evaluated at y as it is now
  // and at rowsT: set after a velocity-level projection, which ends on an evaluation at the
  // final state, so that the next step's first evaluation (of y itself, at rowsT) skips them.
  // Whoever changes y or the parameters after that clears it (Simulation: a step's integrator,
  // a renormalization, a new state, an event), so a hit changes no result.
  bool rowsCurrent = false;
  double rowsT = 0.0;

  void reset(const Model& model);
};

// The stabilization of a scene's settings for a step h (velocity level for semi-implicit Euler).
Stabilization stabilization(const Settings& s, double h, const std::vector<std::uint8_t>* assembled);

void pack(const std::vector<BodyState>& bodies, Eigen::VectorXd& y);
void unpack(const Eigen::VectorXd& y, std::vector<BodyState>& bodies);

// Which constraints count as assembled: met to within kAssembledThreshold at some evaluation
// since they became active (sticky; cleared while inactive). An assembled constraint is
// projected (projectPositions) and, at the velocity level, held by the implicit target (see
// ConstraintSystem::assemble); the others go on assembling with their tau. Returns the largest
// |D_i| of the assembled ones.
inline constexpr double kAssembledThreshold = 1e-3;
double updateAssembled(const ConstraintSystem& sys, std::vector<std::uint8_t>& assembled);

// The force of each point-pair constraint (point-to-point, -nail, -path) in the last solve, into
// force (sized per constraint); zero for the others. The semi-implicit Euler step keeps it in
// State::lastForce for the next step's geometric stiffness (see dynamics.cpp).
void recordPointPairForces(const ConstraintSystem& sys, std::vector<Vec3>& force);

// The stages up to the net force and torque per body (ctx.F, ctx.T) at (t, y); they are the
// rates of P and L, which is all a velocity-level step needs of dy/dt.
void evaluateForces(const Model& model, const Params& params, double t, const Eigen::VectorXd& y, StepContext& ctx);

// dy/dt at (t, y) under the given parameters. Leaves the kinematics, the solved constraint
// system and the net forces of this evaluation in ctx.
void evaluateDerivative(const Model& model, const Params& params, double t, const Eigen::VectorXd& y,
                        Eigen::VectorXd& dy, StepContext& ctx);

}  // namespace tether::core
