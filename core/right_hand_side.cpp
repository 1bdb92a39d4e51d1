#include "core/right_hand_side.h"

namespace tether::core {

void formAccelerationLevel(const ConstraintAssembly& a, const Params& params, const std::vector<Vec3>& Fext,
                           const std::vector<Vec3>& Text, const Stabilization& stab, Eigen::VectorXd& B) {
  B.resize(a.rowCount());  // (every row is written below)
  for (int j : a.active()) {
    const ConstraintRows& r = a.rows()[size_t(j)];
    Vec3 b = Vec3::Zero();
    switch (assemblingKind(a, stab, j)) {
      case StabilizationKind::Tau: {
        const double tau = params.tau[size_t(j)];
        b = r.c + (2.0 / tau) * r.D1 + r.D / (tau * tau);
        break;
      }
      case StabilizationKind::Baumgarte:
        b = r.c + (2.0 * stab.alpha) * r.D1 + (stab.beta * stab.beta) * r.D;
        break;
      case StabilizationKind::Implicit:
        // Hong et al. Eqn. 11 as a law for the continuous integrators: D'' = -D'/h - D/h^2 with h
        // the scene's step (stepRK45 gives it dt), which cancels D and D' within about a step. The
        // paper drops the velocity-product term c from its first-order step; with D'' = J a + c
        // the law needs it here (dropped, c drove D off zero and the law's stiff pull worked
        // against it: the bundled pendulum lost 2.7 % of its energy in 15 s under rk4, 0.09 %
        // with c). A velocity constraint (Eqn. 31, D = 0 here): g(t + h) = g + h dg/dt = 0 with
        // dg/dt = J [a; alpha] + c, the same b = c + g / h.
        b = r.c + r.D1 / stab.h + r.D / (stab.h * stab.h);
        break;
    }
    addFreeAcceleration(b, r, a.kinematics(), Fext, Text, 1.0);
    scatterRows(B, a.rowOffset()[size_t(j)], b, r.d);
  }
}

}  // namespace tether::core
