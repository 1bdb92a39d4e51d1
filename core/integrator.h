// Time integrators over the packed state y (see dynamics.h). Each advances ctx.y from t by
// one step under fixed parameters; the caller normalizes quaternions afterwards.
#pragma once

#include <functional>

#include "core/dynamics.h"
#include "core/projection.h"

namespace tether::core {

// Classical fourth-order Runge-Kutta, fixed step h.
void stepRK4(const Model& model, const Params& params, double t, double h, StepContext& ctx);

// Called by the velocity-level steps between the kick and the drift, on y with the positions at
// the start of the step and the momenta after the kick: the contact stage (core/contact.h) changes
// the momenta there, so that the drift moves with the velocities the contacts allow.
using AfterKick = std::function<void(Eigen::VectorXd& y)>;

// Semi-implicit (symplectic) Euler: momenta first, then positions with the new velocities:
//   P' = P + h F(y), L' = L + h T(y), x' = x + h P'/m, q' = exp(h w(q_half)) q with
//   w(q) = R(q) I_body^-1 R(q)^T L' at the midpoint orientation (see integrator.cpp).
// memory: what the last step left (see StepMemory), updated for the next one.
void stepSemiImplicitEuler(const Model& model, const Params& params, double t, double h, StepContext& ctx,
                           StepMemory& memory, const AfterKick& afterKick = {});

// Dormand-Prince 5(4) with error control: tries h, shrinking it until the scaled error
// max_i |e_i| / (tol (1 + |y_i|)) <= 1. Returns the step taken; ctx.hNext holds the proposal
// for the next one.
double stepRK45(const Model& model, const Params& params, double t, double h, double tol, StepContext& ctx);

// Sequential impulses at the velocity level (settings.solver = sequential-impulses): momenta
// get the external impulse, then the constraint impulses (ConstraintSystem::sequentialImpulses,
// warm-started from and returning memory.impulses), then positions move with the new velocities
// (semi-implicit Euler).
void stepSequentialImpulses(const Model& model, const Params& params, double t, double h, StepContext& ctx,
                            StepMemory& memory, const AfterKick& afterKick = {});

// Stage "integrate": one step of the scene's stepper from t (sequential impulses when the
// solver asks for it, else the integrator); returns the step taken (RK45 may take less than h).
// afterKick: see AfterKick (the velocity-level steps only; true if it was called).
double integrate(const Model& model, const Params& params, double t, double h, StepContext& ctx, StepMemory& memory,
                 const AfterKick& afterKick = {}, bool* kicked = nullptr);

// Renormalize every quaternion in y (those unit to rounding are left as they are); true if any
// changed.
bool normalizeQuaternions(Eigen::VectorXd& y);

}  // namespace tether::core
