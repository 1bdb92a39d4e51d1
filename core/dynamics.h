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
#include "core/state.h"

namespace tether::core {

// Preallocated scratch of one simulation. Not shared between threads. Holds nothing that
// must outlive a step: what a step leaves for the next one is the State's StepMemory, which
// the steppers take as an argument.
struct StepContext {
  std::vector<BodyKinematics> kin;
  std::vector<Vec3> F, T;                 // net force (N) and torque (N m) per body
  // semi-implicit Euler: the held constraints' position correction per body, a part of F and T
  // whose impulse the step takes back after its drift (splitHeldCorrection); split: any
  std::vector<Vec3> Fp, Tp;
  bool split = false;
  ConstraintSystem system;
  GeometricStiffness stiffness;           // semi-implicit Euler (core/velocity_level.h)
  BlockSystem projection;                 // projection's J W J^T over the assembled constraints
  Eigen::VectorXd y, dy, ytmp, yerr;      // integrator work vectors
  Eigen::VectorXd k[7];
  // scratch of the velocity-level steppers and of projection (sized on first use, then reused)
  std::vector<Vec3> P, L;                 // momenta during a sequential-impulses step
  // semi-implicit Euler's rotors about a nail (turnAboutPin): the constraints that can hold a body
  // at a fixed place (Constraint::fixedPin; set by reset), and a step's rotors
  struct Rotor {
    int body;
    Vec3 x, P, L;
    Quat q;
  };
  // I_X about a candidate's held point in its principal axes (I_X = V diag(1 / inv) V^T, qV = V;
  // axis: of symmetry, or -1), constant in body axes: found at its first turn (pinFrame)
  struct PinFrame {
    Mat3 V = Mat3::Identity();
    Vec3 inv = Vec3::Zero();
    Quat qV = Quat::Identity();
    int axis = -1;
    bool set = false;
  };
  std::vector<int> pinCandidates;
  std::vector<PinFrame> pinFrames;  // (by pinCandidates' order)
  std::vector<Rotor> rotors;
  std::vector<Vec3> dLin, dAng;           // projection: per-body correction
  Eigen::VectorXd mu, muNodes, yBefore;   // projection: multipliers (by rows, by node); positions before a Newton step
  std::vector<int> chosen;                // projection: the constraints it acts on
  double hNext = 0.0;                     // RK45: proposed next step, s
  double h = 1e-3;                        // the step being taken (rk45: the scene's dt), s (implicit stabilization)
  // the velocity constraints' integrals the evaluations read (the State's
  // StepMemory::velocityIntegral, set by Simulation before each step); null: zero
  const std::vector<Vec3>* velocityIntegral = nullptr;
  // which constraints are assembled (StepMemory::assembled, set by Simulation) for the stages of
  // the continuous integrators, which get no StepMemory (see assemblingKind); null: none
  const std::vector<std::uint8_t>* assembled = nullptr;
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
// core/velocity_level.h); the others go on assembling with their tau. Returns the largest
// |D_i| of the assembled ones but the velocity constraints (Constraint::nonholonomic).
// (kAssembledThreshold: core/constraint.h.)
double updateAssembled(const ConstraintSystem& sys, std::vector<std::uint8_t>& assembled);

// The stages, each a function (in this order; evaluateForces runs them):
//   kinematics       computeKinematics: x, R, v, w and the world inverse inertia per body
//   external forces  computeExternalForces: gravity, springs, dampers, the mouse (core/forces.h)
//   constraint rows  ConstraintSystem::evaluate (core/constraint_assembly.h)
//   right-hand side  ConstraintSystem::formEquation (core/right_hand_side.h, velocity_level.h)
//   solve            ConstraintSystem::solve (core/constraint_solvers.h)
//   apply            ConstraintSystem::applyForces: the net force and torque per body
// then the integrator (core/integrator.h) and projection (core/projection.h); the step as a
// whole, with events, is Simulation::advanceTo.
void computeKinematics(const Model& model, const Params& params, const Eigen::VectorXd& y, StepContext& ctx);
void computeExternalForces(const Model& model, const Params& params, const EvalContext& ectx, StepContext& ctx);

// The stages up to the net force and torque per body (ctx.F, ctx.T) at (t, y); they are the
// rates of P and L, which is all a velocity-level step needs of dy/dt. memory: what the last
// step left (the velocity level's held constraints, rate offsets, spin trend and geometric
// stiffness read it); null: nothing (the continuous-time integrators need nothing of it).
void evaluateForces(const Model& model, const Params& params, double t, const Eigen::VectorXd& y, StepContext& ctx,
                    StepMemory* memory);

// dy/dt at (t, y) under the given parameters. Leaves the kinematics, the solved constraint
// system and the net forces of this evaluation in ctx.
void evaluateDerivative(const Model& model, const Params& params, double t, const Eigen::VectorXd& y,
                        Eigen::VectorXd& dy, StepContext& ctx, StepMemory* memory = nullptr);

}  // namespace tether::core
