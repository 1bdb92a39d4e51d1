// Time integrators over the packed state y (see dynamics.h). Each advances ctx.y from t by
// one step under fixed parameters; the caller normalizes quaternions afterwards.
#pragma once

#include "core/dynamics.h"

namespace tether::core {

// Classical fourth-order Runge-Kutta, fixed step h.
void stepRK4(const Model& model, const Params& params, double t, double h, StepContext& ctx);

// Semi-implicit (symplectic) Euler: momenta first, then positions with the new velocities:
//   P' = P + h F(y), L' = L + h T(y), x' = x + h P'/m, q' = exp(h w(q_half)) q with
//   w(q) = R(q) I_body^-1 R(q)^T L' at the midpoint orientation (see integrator.cpp).
void stepSemiImplicitEuler(const Model& model, const Params& params, double t, double h, StepContext& ctx);

// Dormand-Prince 5(4) with error control: tries h, shrinking it until the scaled error
// max_i |e_i| / (tol (1 + |y_i|)) <= 1. Returns the step taken; ctx.hNext holds the proposal
// for the next one.
double stepRK45(const Model& model, const Params& params, double t, double h, double tol, StepContext& ctx);

// Sequential impulses at the velocity level (settings.solver = sequential-impulses): momenta
// get the external impulse, then the constraint impulses (ConstraintSystem::sequentialImpulses,
// warm-started from and returning `impulses`), then positions move with the new velocities
// (semi-implicit Euler).
void stepSequentialImpulses(const Model& model, const Params& params, double t, double h, StepContext& ctx,
                            std::vector<Vec3>& impulses);

// Projection after a step (post-stabilization) of the constraints that are assembled: met to
// within kAssembledThreshold at some step since they became active (`assembled`, kept in the
// State; see updateAssembled). The others keep their D and D1 to first order, so that they go on assembling with
// their tau. Positions: Gauss-Newton on the deviations with the mass metric,
// the smallest mass-weighted correction dq that cancels D to first order,
//   min 1/2 dq^T W^-1 dq  subject to  D + J dq = 0   =>   dq = -W J^T (J W J^T)^-1 D,
// applied as x += dx, q <- exp(dtheta) q: Newton's method (J W J^T refactorized each time)
// until max |D| <= settings.projectionTolerance, at most kProjectionIterations times. Near a
// straight, taut stretch of a chain the kinematics are nearly singular: the correction turns
// thin links by ~1e-2 rad to close a 1e-5 m gap, and Newton needs 2-4 iterations before it
// converges quadratically (measured on the 1000-link chain; reusing a stale factorization
// there fails to decrease |D| at all). A step that does not decrease max |D| is halved (at
// most 4 times: thin bodies turn a lot for a small correction, where the linearization is
// poor), and if even that fails (nearly redundant constraints make J W J^T nearly singular)
// projection stands down for that step. Then velocities, by the same projection of the
// momenta: du = -W J^T (J W J^T)^-1 D1, so D1 = 0 (applied only if it decreases the largest
// rate; not for velocity-level steps, whose implicit target already corrects the rates of
// assembled constraints). Returns whether it changed the state.
// 40: the 10 000-link chain's top links, under 10x the tension, sometimes need more than 16
// (with 16 its joints opened to 45 um; with 40, 4.7 um, and no slower overall)
inline constexpr int kProjectionIterations = 40;
bool projectPositions(const Model& model, const Params& params, double t, StepContext& ctx,
                      std::vector<std::uint8_t>& assembled);

// Renormalize every quaternion in y (those unit to rounding are left as they are); true if any
// changed.
bool normalizeQuaternions(Eigen::VectorXd& y);

}  // namespace tether::core
