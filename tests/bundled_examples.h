// The bundled examples (resources/examples/*.json) by name, for the tests that run each:
// tests/core/examples_test.cpp and the soak (tests/robustness/soak_test.cpp). The including
// target defines TETHER_EXAMPLES_DIR.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace tether::test {

// File names without ".json", sorted.
inline std::vector<std::string> bundledExampleNames() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(TETHER_EXAMPLES_DIR))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tether::test
