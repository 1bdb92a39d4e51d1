// tether-cli: headless runner. Parses arguments and wires core functions; nothing else.
//   tether-cli run SCENE [--until T] [--dt H] [--integrator rk4|rk45|euler] [--csv FILE] [--every K]
//   tether-cli check SCENE
// Exit codes: 0 ok, 2 bad input, 3 the simulation diverged.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "core/headless.h"
#include "core/scene_io.h"

namespace {

constexpr int kOk = 0, kBadInput = 2, kDiverged = 3;

int usage(const char* msg = nullptr) {
  if (msg) std::cerr << "tether-cli: " << msg << "\n";
  std::cerr << "usage:\n"
               "  tether-cli run SCENE [--until T] [--dt H] [--integrator rk4|rk45|euler] [--csv FILE] [--every K]\n"
               "  tether-cli check SCENE\n";
  return kBadInput;
}

bool parseNumber(const char* s, double& out) {
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end != s && *end == '\0' && std::isfinite(out);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tether::core;
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    usage();
    return kOk;
  }
  if (cmd != "run" && cmd != "check") return usage(("unknown command \"" + cmd + "\"").c_str());
  if (argc < 3) return usage("missing SCENE");
  const std::string scenePath = argv[2];

  RunOptions opt;
  std::string csvPath;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (cmd != "run") return usage(("unknown option \"" + a + "\" for check").c_str());
    const char* v = value();
    if (!v) return usage(("option " + a + " needs a value").c_str());
    double x = 0;
    if (a == "--until") {
      if (!parseNumber(v, x) || x < 0) return usage("--until: must be a number >= 0");
      opt.until = x;
    } else if (a == "--dt") {
      if (!parseNumber(v, x) || x <= 0) return usage("--dt: must be a number > 0");
      opt.dt = x;
    } else if (a == "--integrator") {
      opt.integrator = integratorFromString(v);
      if (!opt.integrator) return usage("--integrator: must be rk4, rk45 or euler");
    } else if (a == "--csv") {
      csvPath = v;
    } else if (a == "--every") {
      if (!parseNumber(v, x) || x < 1 || x != static_cast<int>(x)) return usage("--every: must be a whole number >= 1");
      opt.every = static_cast<int>(x);
    } else {
      return usage(("unknown option \"" + a + "\"").c_str());
    }
  }

  try {
    const Scene scene = loadScene(scenePath);
    if (cmd == "check") {
      std::cout << formatCheck(checkScene(scene));
      return kOk;
    }
    std::ofstream csv;
    if (!csvPath.empty()) {
      csv.open(csvPath, std::ios::trunc);
      if (!csv) {
        std::cerr << "tether-cli: " << csvPath << ": cannot write file\n";
        return kBadInput;
      }
      opt.csv = &csv;
    }
    const RunSummary s = runScene(scene, opt);
    std::cout << "scene: " << scenePath << "\n" << formatSummary(s);
    if (s.diverged) {
      std::cerr << "tether-cli: " << s.message << "\n";
      return kDiverged;
    }
    return kOk;
  } catch (const SceneError& e) {
    std::cerr << "tether-cli: " << e.what() << "\n";
    return kBadInput;
  }
}
