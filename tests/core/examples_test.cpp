// Every bundled example runs headless for its full duration, assembles (max |D| < 1e-4 after
// assembly) and never diverges. TETHER_EXAMPLE_SECONDS shortens the runs (the sanitizer build
// uses it: there the point is memory and UB checking, not assembly).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/headless.h"
#include "core/scene_io.h"

namespace tether::core {
namespace {

std::vector<std::string> exampleNames() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(TETHER_EXAMPLES_DIR))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

class Example : public ::testing::TestWithParam<std::string> {};

TEST_P(Example, AssemblesAndNeverDiverges) {
  const Scene scene = loadScene(std::string(TETHER_EXAMPLES_DIR) + "/" + GetParam() + ".json");
  RunOptions opt;
  const char* quick = std::getenv("TETHER_EXAMPLE_SECONDS");
  if (quick) opt.until = std::atof(quick);
  const RunSummary s = runScene(scene, opt);
  ASSERT_FALSE(s.diverged) << s.message;
  EXPECT_NEAR(s.finalTime, opt.until.value_or(scene.settings.duration), 1e-9);
  if (quick) return;
  for (const ConstraintSummary& c : s.constraints) {
    EXPECT_GE(c.maxDeviation, 0.0) << c.name << " never counted as assembled";
    EXPECT_LT(c.maxDeviation, 1e-4) << c.name;
  }
  EXPECT_GE(scene.settings.duration, 10.0);
}

INSTANTIATE_TEST_SUITE_P(Bundled, Example, ::testing::ValuesIn(exampleNames()),
                         [](const auto& info) { return info.param; });

TEST(Examples, AllPaperDemosAreBundled) {
  const auto names = exampleNames();
  for (const char* n : {"pendulum", "compound_pendulum", "ball_to_nail", "chain_between_towers", "space_station",
                        "card_house", "pandoras_chain", "three_link_bar"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

}  // namespace
}  // namespace tether::core
