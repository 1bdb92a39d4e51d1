// Projection: after a step, the assembled constraints are put back on D = 0 (and, for the
// acceleration-level integrators, D1 = 0) by the smallest mass-weighted correction.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dynamics.h"

namespace tether::core {

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

}  // namespace tether::core
