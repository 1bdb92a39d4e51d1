// Every input the fuzzer (scripts/fuzz.sh) or a report found to crash, hang or abort Tether,
// replayed through the same path (tests/fuzz/exercise.h): parse, validate, check, a few steps of
// each integrator and solver. Passing means it got through without a crash; the sanitizer builds
// (scripts/test.sh) make memory errors and undefined behaviour fail too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fuzz/exercise.h"

namespace {

TEST(FuzzRegressions, EveryFindingGoesThroughWithoutCrashing) {
  int n = 0, ran = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TETHER_TEST_DATA_DIR "/fuzz-regressions")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    SCOPED_TRACE(entry.path().filename().string());
    ran += tether::fuzz::exerciseScene(buf.str()) == 2;
    ++n;
  }
  EXPECT_GE(n, 7);
  EXPECT_GE(ran, 5) << "most findings are valid scenes that must run, not be refused";
}

}  // namespace
