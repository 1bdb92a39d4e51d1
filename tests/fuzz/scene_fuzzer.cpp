// libFuzzer target: the whole path a scene file takes in Tether, from bytes to solver steps
// (tests/fuzz/exercise.h says what counts as correct). Built and run by scripts/fuzz.sh (clang,
// -fsanitize=fuzzer,address,undefined); the normal suite replays every file in
// tests/data/fuzz-regressions/ through the same path (tests/core/fuzz_regression_test.cpp).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tether::fuzz::exerciseScene(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
