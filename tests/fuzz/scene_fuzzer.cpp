// libFuzzer target: the whole path a scene file takes in Tether, from bytes to solver steps.
//
//   bytes -> sceneFromJson (parse + validate) -> compile -> checkScene (rank analysis, warnings)
//         -> a few steps with each integrator (euler, rk4, rk45) and each solver (auto, dense SVD,
//            sparse, sequential impulses)
//
// What counts as correct: a SceneError (the documented error, naming the place) anywhere, or a
// run that ends (diverged or not). Anything else is a finding: a signal, a sanitizer report, an
// exception of another type (libFuzzer reports it as a crash: nothing here catches it), or a
// timeout (a hang). Built by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined); the
// crashers it found are replayed by the normal suite from tests/data/fuzz-regressions/.
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/headless.h"
#include "core/scene_io.h"

namespace {

using namespace tether::core;

void exercise(const std::string& text) {
  Scene scene;
  try {
    scene = sceneFromJson(text);
  } catch (const SceneError&) {
    return;
  }
  try {
    (void)formatCheck(checkScene(scene));
  } catch (const SceneError&) {
    return;
  }
  // a few output steps (RK45: output intervals) of each integrator, and of each solver
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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  exercise(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
