// Stage "right-hand side": B of the constraint-force equation M Fc + B = 0, from the
// constraint rows (core/constraint_assembly.h) and the external forces.
//
// For the continuous-time integrators (RK4, RK45) the deviation's acceleration is prescribed:
//   B_k = J_k [a0; alpha0] + c_k + (2 / tau_k) D1_k + D_k / tau_k^2            (tau)
//   B_k = J_k [a0; alpha0] + c_k + 2 alpha D1_k + beta^2 D_k                    (Baumgarte)
//   B_k = J_k [a0; alpha0] + D1_k / h + D_k / h^2                               (implicit, Hong Eqn. 11)
//   B_k = J_k [a0; alpha0] + c_k + D1_k / h             (implicit, a velocity constraint: Hong Eqn. 31)
// where a0 = F_E / m and alpha0 = I^-1 (T_E + L x w) are each body's acceleration without
// constraint forces (paper Eqn. 7, with beta's gyroscopic part moved into alpha0): with
// D2 = J [a; alpha] + c and [a; alpha] = [a0; alpha0] + W [G; H] Fc, D2 = (prescribed) is
// M Fc + B = 0 for B = J [a0; alpha0] + c - (prescribed D2).
// Semi-implicit Euler and sequential impulses prescribe the rate at the end of the step
// instead (core/velocity_level.h).
#pragma once

#include <cstdint>
#include <vector>

#include "core/constraint_assembly.h"

namespace tether::core {

// How the deviation feeds back into B (see StabilizationKind).
struct Stabilization {
  StabilizationKind kind = StabilizationKind::Tau;
  double alpha = 10.0, beta = 10.0;  // Baumgarte, 1/s
  double h = 1e-3;                   // the integrator step, s
  bool velocityLevel = false;        // semi-implicit Euler: target the rate at the end of the step
  // per constraint: assembled (see projectPositions). At the velocity level an assembled
  // constraint under tau is held like the implicit method (D1* = -D/h): tau shapes how a
  // constraint assembles, holding it is the implicit method's job.
  const std::vector<std::uint8_t>* assembled = nullptr;
  double projectionTolerance = 0.0;  // m (0: no projection): the arm-rotation passes run only
                                     // where they would move a joint by 1/40 of it
  double hNominal = 0.0;             // s: the scene's step (a step may be shorter)
  // held point pairs: each body's change of w over the last step, to be scaled by spinAhead
  // (see VelocityLevelEquation::correctHeldForArmRotation); null: none
  const std::vector<Vec3>* spinTrend = nullptr;
  double spinAhead = 0.0;
  // assembling constraints: h (c + g) / 2 of each one's last step (StepMemory::rateOffset; see
  // velocityTarget, lastRateOffset); null, NaN or recorded on other rows: taken as this step's
  const std::vector<Vec3>* rateOffset = nullptr;
  // velocity constraints: the mean rate the last step aimed each at (StepMemory::velocityAim; see
  // velocityConstraintTarget); null or NaN: none
  const std::vector<Vec3>* velocityAim = nullptr;
  const std::vector<Vec3>* velocityMiss = nullptr;  // (StepMemory::velocityMiss); null: none
  // assembling constraints: what the last step did with each one's law (StepMemory::lawSteps; see
  // assemblingTarget); null: none
  const std::vector<LawStep>* lawSteps = nullptr;

  bool held(int j) const { return assembled && size_t(j) < assembled->size() && (*assembled)[size_t(j)]; }
};

// The law constraint j follows: the stabilization's, except that under the implicit method a
// holonomic constraint not yet assembled (Stabilization::held) assembles by tau's law. Hong et
// al.'s law closes a gap within one step h (D'' = -D'/h - D/h^2; at the velocity level D1* =
// -D/h): it holds a constraint that is met, but from a gap it throws the parts at D/h. The bundled
// pendulum, whose rod starts 6 cm from its nail, diverged at 0.37 s with semi-implicit Euler
// (its rod spun up to 2e5 rad/s) and took 1 900 J from its 23 J under rk45. Velocity constraints
// keep theirs (their D is no gap; see velocityConstraintTarget).
inline StabilizationKind assemblingKind(const ConstraintAssembly& a, const Stabilization& stab, int j) {
  if (stab.kind != StabilizationKind::Implicit || a.nonholonomic(j) || stab.held(j)) return stab.kind;
  return StabilizationKind::Tau;
}

// A body's acceleration without constraint forces: a0 = F / m, and alpha0 = I^-1 (T + g L x w)
// with the gyroscopic term scaled by g (1: dw/dt at the start of the step, paper Eqn. 11; the
// velocity level takes g = 1/2 for held constraints, see VelocityLevelEquation::form).
inline Vec3 freeLinearAcceleration(const BodyKinematics& k, const Vec3& F) { return Vec3(k.invMass * F); }
inline Vec3 freeAngularAcceleration(const BodyKinematics& k, const Vec3& T, double gyroscopic) {
  return Vec3(k.invI * Vec3(T + gyroscopic * k.L.cross(k.w)));
}

// b += J [a0; alpha0] of one constraint's rows (slot by slot, in that order).
inline void addFreeAcceleration(Vec3& b, const ConstraintRows& r, const std::vector<BodyKinematics>& kin,
                                const std::vector<Vec3>& F, const std::vector<Vec3>& T, double gyroscopic) {
  for (int s = 0; s < r.nb; ++s) {
    const size_t i = size_t(r.body[s]);
    b += r.jl(s, freeLinearAcceleration(kin[i], F[i])) + r.ja(s, freeAngularAcceleration(kin[i], T[i], gyroscopic));
  }
}

// B for the continuous-time integrators (stab.velocityLevel false), stacked by rows.
void formAccelerationLevel(const ConstraintAssembly& a, const Params& params, const std::vector<Vec3>& Fext,
                           const std::vector<Vec3>& Text, const Stabilization& stab, Eigen::VectorXd& B);

}  // namespace tether::core
