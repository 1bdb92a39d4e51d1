// The path a scene file takes through Tether, as the fuzzer drives it (tests/fuzz/scene_fuzzer.cpp)
// and as the normal suite replays the fuzzer's findings (tests/core/fuzz_regression_test.cpp):
//
//   bytes -> sceneFromJson (parse + validate) -> compile -> checkScene (rank analysis, warnings)
//         -> a few steps with each integrator (euler, rk4, rk45) and each solver (auto, dense SVD,
//            sparse, sequential impulses)
//
// A SceneError anywhere is the documented outcome for bad input; a run that ends (diverged or
// not) is the outcome for a bad model. Anything else escapes: another exception, a signal, a
// sanitizer report, or a hang.
#pragma once

#include <algorithm>
#include <string>

#include "core/headless.h"
#include "core/scene_io.h"

namespace tether::fuzz {

// Returns how far the text got: 0 refused by the reader, 1 refused by check, 2 ran.
inline int exerciseScene(const std::string& text) {
  using namespace tether::core;
  Scene scene;
  try {
    scene = sceneFromJson(text);
  } catch (const SceneError&) {
    return 0;
  }
  try {
    (void)formatCheck(checkScene(scene));
  } catch (const SceneError&) {
    return 1;
  }
  const IntegratorKind integrators[] = {IntegratorKind::SemiImplicitEuler, IntegratorKind::RK4, IntegratorKind::RK45};
  const SolverKind solvers[] = {SolverKind::Auto, SolverKind::DenseSvd, SolverKind::Sparse,
                                SolverKind::SequentialImpulses};
  for (IntegratorKind integrator : integrators) {
    for (SolverKind solver : solvers) {
      if (integrator != IntegratorKind::SemiImplicitEuler && solver != SolverKind::Auto) continue;
      RunOptions opt;
      opt.overrides.integrator = integrator;
      opt.overrides.solver = solver;
      // three output steps, at most 0.05 s simulated: a stiff model under rk45 takes 10^5 steps a
      // second of simulated time, which is slow, not a hang (the CLI shows progress meanwhile)
      opt.until = std::min(3.0 * scene.settings.dt, 0.05);
      try {
        (void)formatSummary(runScene(scene, opt));
      } catch (const SceneError&) {
      }
    }
  }
  return 2;
}

}  // namespace tether::fuzz
