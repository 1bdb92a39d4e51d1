// The soak (ctest label "soak", registered in tests/CMakeLists.txt): every bundled example for
// 10 minutes simulated with each integrator, measured by the corpus's runner (runner.h) and held
// to the corpus's criteria (tests/robustness/README.md):
//   - no divergence, and no stall (rk45's step collapsing, or the wall-clock limit);
//   - an undamped example (no damping, no drives, no events, no contacts) keeps its energy
//     within 1 % after assembly; an example nothing drives (no moving paths, events, constant
//     forces) gains no more than 1 % (contacts, damping and friction only take energy away);
//   - no joint drifts past 1e-6 m once assembled (projection is on in every configuration);
//   - with contacts: nothing falls through a ground plane, bodies at rest overlap <= 0.1 mm.
//
// Soak/ExampleSoak.Run/<example>_<integrator>
// Environment: TETHER_SOAK_SECONDS (default 600), TETHER_SOAK_WALL_LIMIT (default 5400 s).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "core/scene_io.h"
#include "tests/bundled_examples.h"
#include "runner.h"

namespace tether::robustness {
namespace {

struct SoakParam {
  std::string example;  // file name without .json
  int config = 0;       // index into runConfigs()
};
void PrintTo(const SoakParam& p, std::ostream* os) { *os << p.example << " with " << runConfigs()[size_t(p.config)].name; }


std::vector<SoakParam> soakParams() {
  std::vector<SoakParam> v;
  for (const std::string& name : tether::test::bundledExampleNames())
    for (int c = 0; c < int(runConfigs().size()); ++c)
      if (runConfigs()[size_t(c)].projection) v.push_back({name, c});  // (euler, rk4, rk45)
  return v;
}

double envNumber(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atof(v) : fallback;
}

// The criteria a corpus scene carries (CorpusScene::conservative, passive), read off a scene.
CorpusScene asCorpusScene(const std::string& name, core::Scene scene) {
  CorpusScene cs;
  cs.category = "example";
  cs.note = name;
  const bool driven = !isPassive(scene);
  const bool damped = std::any_of(scene.forces.begin(), scene.forces.end(), [](const core::ForceDef& f) {
    return f.kind == core::ForceKind::Damping ||
           ((f.kind == core::ForceKind::Spring || f.kind == core::ForceKind::TorsionSpring) && f.damping > 0.0);
  });
  cs.passive = !driven;
  cs.conservative = !driven && !damped && !scene.settings.contacts;
  cs.scene = std::move(scene);
  return cs;
}

class ExampleSoak : public ::testing::TestWithParam<SoakParam> {};

TEST_P(ExampleSoak, Run) {
  const SoakParam& p = GetParam();
  const RunConfig& config = runConfigs()[size_t(p.config)];
  const CorpusScene cs =
      asCorpusScene(p.example, core::loadScene(std::string(TETHER_EXAMPLES_DIR) + "/" + p.example + ".json"));
  const Bounds bounds = defaultBounds();
  const RunResult r = runCorpusSceneIsolated(cs, config, envNumber("TETHER_SOAK_SECONDS", 600.0),
                                             envNumber("TETHER_SOAK_WALL_LIMIT", 5400.0), bounds);
  std::cout << describe(r) << (cs.conservative ? " [undamped]" : cs.passive ? " [passive]" : " [driven]") << "\n";
  const std::string why = describeFailures(r, bounds) + "  " + p.example;
  EXPECT_FALSE(r.diverged) << why;
  EXPECT_FALSE(r.timedOut) << why;
  EXPECT_FALSE(r.failsEnergy(bounds)) << why;
  EXPECT_FALSE(r.failsDrift(bounds)) << why;
  EXPECT_FALSE(r.failsContact(bounds)) << why;
  if (cs.passive) EXPECT_LE(r.energyGain, bounds.energy) << why << " (energy gain after assembly)";
}

INSTANTIATE_TEST_SUITE_P(Soak, ExampleSoak, ::testing::ValuesIn(soakParams()), [](const auto& info) {
  return info.param.example + "_" + runConfigs()[size_t(info.param.config)].name;
});

}  // namespace
}  // namespace tether::robustness
