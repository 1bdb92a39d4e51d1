// core/right_hand_side.cpp: B of the continuous-time integrators prescribes each constraint's
// deviation acceleration. After the solve the bodies' accelerations a = F / m and
// alpha = I^-1 (T + L x w) (net forces, constraint forces included) give
//   D2 = J [a; alpha] + c,
// which must be the stabilization's law:
//   tau:        D2 = -(2/tau) D1 - D / tau^2
//   Baumgarte:  D2 = -2 alpha D1 - beta^2 D
//   implicit:   D2 = c - D1 / h - D / h^2     (Hong et al. Eqn. 11 drops c from B)
#include <gtest/gtest.h>

#include "core/constraint_system.h"
#include "test_util.h"

namespace tether::core {
namespace {

// Under the implicit method a constraint that is not assembled yet follows tau's law
// (assemblingKind); an assembled one, Hong's D'' = -D'/h - D/h^2.
TEST(RightHandSide, SolvedAccelerationsFollowEachStabilizationsLaw) {
  for (StabilizationKind kind : {StabilizationKind::Tau, StabilizationKind::Baumgarte, StabilizationKind::Implicit})
    for (bool assembled : {false, true})
      for (unsigned seed : {1u, 2u}) {
        if (assembled && kind != StabilizationKind::Implicit) continue;
        Scene s = test::mixedScene(true);  // RK4: the acceleration level
        test::scatter(s, seed);
        s.settings.stabilization = kind;
        s.settings.baumgarteAlpha = 7.0;
        s.settings.baumgarteBeta = 11.0;
        s.settings.defaultTau = 0.2;
        s.constraints[0].tau = 0.05;  // one constraint with its own
        auto sim = test::simulate(s);
        if (assembled) {
          State st = sim->state();
          st.memory.assembled.assign(sim->model().constraints.size(), 1);
          sim->setState(st);
        }
        sim->refresh();
        const StepContext& ctx = sim->context();
        const ConstraintAssembly& a = ctx.system.assembly();
        const std::vector<BodyKinematics>& kin = a.kinematics();
        const Params& params = sim->state().params;
        double worst = 0.0, scale = 0.0;
        for (int j : a.active()) {
          const ConstraintRows& r = a.rows()[size_t(j)];
          Vec3 D2 = r.c;
          for (int sl = 0; sl < r.nb; ++sl) {
            const size_t b = size_t(r.body[sl]);
            D2 += r.jl(sl, Vec3(kin[b].invMass * ctx.F[b])) + r.ja(sl, Vec3(kin[b].invI * (ctx.T[b] + kin[b].L.cross(kin[b].w))));
          }
          const double tau = params.tau[size_t(j)], h = ctx.h;
          Vec3 law;
          switch (kind) {
            case StabilizationKind::Tau: law = -(2.0 / tau) * r.D1 - r.D / (tau * tau); break;
            case StabilizationKind::Baumgarte: law = -2.0 * 7.0 * r.D1 - 121.0 * r.D; break;
            case StabilizationKind::Implicit:
              law = assembled ? Vec3(-r.D1 / h - r.D / (h * h)) : Vec3(-(2.0 / tau) * r.D1 - r.D / (tau * tau));
              break;
          }
          worst = std::max(worst, maxAbs(D2 - law, r.d));
          scale = std::max(scale, maxAbs(law, r.d));
        }
        EXPECT_LT(worst, 1e-8 * scale) << toString(kind) << (assembled ? " assembled" : "") << " seed " << seed;
        EXPECT_GT(scale, 0.1);
      }
}

}  // namespace
}  // namespace tether::core
