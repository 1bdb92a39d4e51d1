// tether-cli: headless runner. Parses arguments and wires core functions; nothing else.
//   tether-cli run SCENE [--until T] [--csv FILE] [--every K] [--quiet] [settings overrides]
//   tether-cli check SCENE [settings overrides]
//   tether-cli bench [--chain N,N,...] [--ring N] [--tree DEPTH] [--star N,N,...] [--seconds S] [--repeats R] [settings overrides]
// settings overrides: --dt H --integrator rk4|rk45|euler --solver auto|dense-svd|sparse|sequential-impulses
//                     --stabilization tau|baumgarte|implicit --projection on|off
//                     --projection-tolerance M --max-substeps N
// Exit codes: 0 ok, 2 bad input, 3 the simulation diverged, 4 output could not be written,
// 5 out of memory, 130 interrupted (Ctrl+C: the CSV so far is flushed and the summary printed).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <set>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/bench_scenes.h"
#include "core/headless.h"
#include "core/scene_io.h"
#include "core/stability.h"
#include "core/validate.h"

namespace {

constexpr int kOk = 0, kBadInput = 2, kDiverged = 3, kOutputFailed = 4, kOutOfMemory = 5, kInterrupted = 130;

std::atomic<bool> g_interrupt{false};
std::atomic<long long> g_interruptAt{0};  // ns, CLOCK_MONOTONIC: when the first came
// The first Ctrl+C asks the run to end after the step under way (with the CSV and summary); a
// second one ends the process at once, for a step that takes too long, unless it came within
// half a second of the first: `timeout -s INT` signals the run and then its process group, two
// at once, and a run stopped so printed no summary. (clock_gettime, signal and raise are
// async-signal-safe.)
extern "C" void onInterrupt(int) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const long long now = static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
  if (!g_interrupt.exchange(true)) {
    g_interruptAt = now;
    return;
  }
  if (now - g_interruptAt > 500'000'000LL) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}
void catchInterrupt() {
  struct sigaction sa{};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

// The progress line of `run` on a terminal: simulated time, speed against real time, ETA;
// redrawn at most 4 times a second. Returns false once Ctrl+C was pressed.
class Progress {
 public:
  explicit Progress(bool show) : m_show(show), m_start(std::chrono::steady_clock::now()), m_last(m_start) {}
  bool operator()(double t, double until) {
    if (g_interrupt) return false;
    if (!m_show) return true;
    const auto now = std::chrono::steady_clock::now();
    if (m_drawn && now - m_last < std::chrono::milliseconds(250) && t < until) return true;
    m_last = now;
    const double wall = std::chrono::duration<double>(now - m_start).count();
    const double rate = wall > 0.0 ? t / wall : 0.0;
    char eta[32] = "?";
    if (rate > 0.0) std::snprintf(eta, sizeof eta, "%.0f s", (until - t) / rate);
    std::fprintf(stderr, "\r  t = %.4g / %.4g s  (%.3g x real time, ETA %s; Ctrl+C ends it)   ", t, until, rate, eta);
    std::fflush(stderr);
    m_drawn = true;
    return true;
  }
  void finish() {
    if (m_drawn) std::fprintf(stderr, "\n");
  }

 private:
  bool m_show, m_drawn = false;
  std::chrono::steady_clock::time_point m_start, m_last;
};

const char* kUsage =
    "usage:\n"
    "  tether-cli run SCENE [--until T] [--csv FILE] [--energy-csv FILE] [--every K] [--quiet] [overrides]\n"
    "  tether-cli check SCENE [overrides]\n"
    "  tether-cli bench [--chain N,N,...] [--ring N] [--tree DEPTH] [--star N,N,...] [--seconds S] [--repeats R] [overrides]\n"
    "overrides of the scene's settings:\n"
    "  --dt H  --integrator rk4|rk45|euler  --solver auto|dense-svd|sparse|sequential-impulses\n"
    "  --stabilization tau|baumgarte|implicit  --projection on|off  --projection-tolerance M  --max-substeps N\n"
    "run shows its progress on a terminal (--quiet: not); Ctrl+C ends it with the CSV so far and a summary.\n"
    "--csv: every body's pose and velocities per written step; --energy-csv: the energy and the largest |D| per\n"
    "written step (t,kinetic,gravity,springs,total,max_deviation).\n"
    "exit codes: 0 ok, 2 bad input, 3 diverged, 4 output not written, 5 out of memory, 130 interrupted\n";

int usage(const std::string& msg = "") {
  if (!msg.empty()) std::cerr << "tether-cli: " << msg << "\n";
  std::cerr << kUsage;
  return kBadInput;
}

bool parseNumber(const char* s, double& out) {
  // decimal only (strtod also reads "0x10", "inf", "nan")
  if (std::strspn(s, "0123456789.eE+-") != std::strlen(s)) return false;
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end != s && *end == '\0' && std::isfinite(out);
}

bool parseCount(const char* s, int& out) {
  double x = 0;
  if (!parseNumber(s, x) || x < 1 || x > 1e9 || x != static_cast<int>(x)) return false;
  out = static_cast<int>(x);
  return true;
}

// "N,N,..." of whole numbers >= 1
bool parseCounts(const char* s, std::vector<int>& out) {
  out.clear();
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    int n = 0;
    if (!parseCount(item.c_str(), n)) return false;
    out.push_back(n);
  }
  return !out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tether::core;
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage;
    return kOk;
  }
  if (cmd != "run" && cmd != "check" && cmd != "bench") return usage("unknown command \"" + cmd + "\"");
  // a run's Ctrl+C is caught from here on: one that comes while the scene loads ends the run at
  // t = 0, with its summary (timeout -s INT 0.0015 printed nothing)
  if (cmd == "run") catchInterrupt();
  int first = 2;
  std::string scenePath;
  if (cmd != "bench") {
    if (argc < 3) return usage("missing SCENE");
    scenePath = argv[2];
    first = 3;
  }

  RunOptions opt;
  SettingsOverrides& ov = opt.overrides;
  std::string csvPath, energyPath;
  bool quiet = false;
  std::vector<int> chains{10, 100, 1000, 10000}, stars;
  int ring = 1000, treeDepth = 10, repeats = 3;
  double seconds = 2.0;
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (cmd == "run" && a == "--quiet") {
      quiet = true;
      continue;
    }
    static const std::set<std::string> kCommon{"--dt", "--integrator", "--solver", "--stabilization", "--projection",
                                               "--projection-tolerance", "--max-substeps"};
    static const std::set<std::string> kRun{"--until", "--csv", "--energy-csv", "--every"};
    static const std::set<std::string> kBench{"--chain", "--star", "--ring", "--tree", "--seconds", "--repeats"};
    const bool known = kCommon.count(a) || (cmd == "run" && kRun.count(a)) || (cmd == "bench" && kBench.count(a));
    if (!known) {
      if (a.rfind("-", 0) == 0) return usage("unknown option \"" + a + "\" for " + cmd);
      return usage("unexpected argument \"" + a + "\" (one scene per command; options start with --)");
    }
    const char* v = i + 1 < argc ? argv[++i] : nullptr;
    if (!v) return usage("option " + a + " needs a value");
    double x = 0;
    const bool isRun = cmd == "run", isBench = cmd == "bench";
    if (a == "--dt") {
      if (!parseNumber(v, x) || !(x >= Limits::kMinTime && x <= 10.0)) return usage("--dt: must be a number between 1e-9 and 10 (s)");
      ov.dt = x;
    } else if (a == "--integrator") {
      ov.integrator = integratorFromString(v);
      if (!ov.integrator) return usage("--integrator: must be rk4, rk45 or euler");
    } else if (a == "--solver") {
      ov.solver = solverFromString(v);
      if (!ov.solver) return usage("--solver: must be auto, dense-svd, sparse or sequential-impulses");
    } else if (a == "--stabilization") {
      ov.stabilization = stabilizationFromString(v);
      if (!ov.stabilization) return usage("--stabilization: must be tau, baumgarte or implicit");
    } else if (a == "--projection") {
      if (std::strcmp(v, "on") && std::strcmp(v, "off")) return usage("--projection: must be on or off");
      ov.projection = std::strcmp(v, "on") == 0;
    } else if (a == "--projection-tolerance") {
      if (!parseNumber(v, x) || !(x >= Limits::kMinProjectionTolerance && x <= 1.0))
        return usage("--projection-tolerance: must be a number between 1e-12 and 1 (m)");
      ov.projectionTolerance = x;
    } else if (a == "--max-substeps") {
      int n = 0;
      if (!parseCount(v, n) || n > Limits::kMaxSubsteps) return usage("--max-substeps: must be a whole number in 1..4096");
      ov.maxSubsteps = n;
    } else if (isRun && a == "--until") {
      if (!parseNumber(v, x)) return usage("--until: must be a number (s)");
      if (!(x >= Limits::kMinTime && x <= Limits::kMaxTime))
        return usage("--until: must be a number between 1e-9 and 1e9 (s): a shorter run would take no step");
      opt.until = x;
    } else if (isRun && a == "--csv") {
      if (!*v) return usage("--csv: needs a file name");
      csvPath = v;
    } else if (isRun && a == "--energy-csv") {
      if (!*v) return usage("--energy-csv: needs a file name");
      energyPath = v;
    } else if (isRun && a == "--every") {
      if (!parseCount(v, opt.every)) return usage("--every: must be a whole number >= 1");
    } else if (isBench && a == "--chain") {
      if (!parseCounts(v, chains)) return usage("--chain: must be whole numbers >= 1, comma separated");
    } else if (isBench && a == "--star") {
      if (!parseCounts(v, stars)) return usage("--star: must be whole numbers >= 1, comma separated");
    } else if (isBench && a == "--ring") {
      if (!parseCount(v, ring)) return usage("--ring: must be a whole number >= 1");
    } else if (isBench && a == "--tree") {
      if (!parseCount(v, treeDepth) || treeDepth > 20) return usage("--tree: must be a depth in 1..20");
    } else if (isBench && a == "--seconds") {
      if (!parseNumber(v, seconds) || seconds <= 0) return usage("--seconds: must be a number > 0");
    } else if (isBench && a == "--repeats") {
      if (!parseCount(v, repeats)) return usage("--repeats: must be a whole number >= 1");
    } else {
      return usage("unknown option \"" + a + "\" for " + cmd);
    }
  }

  try {
    if (cmd == "bench") {
      std::vector<BenchScene> scenes;
      for (int n : chains) scenes.push_back(hangingChain(n));
      scenes.push_back(hangingRing(ring));
      scenes.push_back(hangingTree(treeDepth));
      for (int n : stars) scenes.push_back(hangingStar(n));
      std::vector<BenchResult> results;
      bool diverged = false;
      std::string refused;
      for (BenchScene& b : scenes) {
        ov.applyTo(b.scene.settings);
        try {
          results.push_back(runBench(b, seconds, repeats));
        } catch (const SceneError& e) {  // past a limit (a star's hub): said, and the others run
          refused += b.name + " " + std::to_string(b.bodies) + ": refused: " + e.what() + "\n";
          continue;
        }
        diverged = diverged || results.back().diverged;
        std::cerr << "  " << b.name << " " << b.bodies << " done\n";
      }
      const Settings& st = scenes.front().scene.settings;
      std::cout << "settings: integrator " << toString(st.integrator) << ", solver " << toString(st.solver)
                << ", stabilization " << toString(st.stabilization);
      if (st.projection) std::cout << " + projection to " << st.projectionTolerance << " m";
      std::cout << ", dt " << st.dt << " s";
      if (st.integrator != IntegratorKind::RK45) std::cout << " (at most " << st.maxSubsteps << " substeps)";
      std::cout << "; " << seconds << " s simulated, median of " << repeats << " runs\n"
                << formatBench(results) << refused;
      return diverged ? kDiverged : !refused.empty() ? kBadInput : kOk;
    }
    Scene scene = loadScene(scenePath);
    if (cmd == "check") {
      ov.applyTo(scene.settings);
      std::cout << formatCheck(checkScene(scene)) << std::flush;
      if (!std::cout) {
        std::cerr << "tether-cli: writing the report to standard output failed\n";
        return kOutputFailed;
      }
      return kOk;
    }
    // the output files: never the scene itself, nor one file for both; a file not yet written
    // is the same as another by its path made absolute and normal ("out.csv", "./out.csv",
    // "dir/../out.csv")
    std::ofstream csv, energyCsv;
    auto sameFile = [](const std::string& a, const std::string& b) {
      std::error_code ec;
      if (std::filesystem::equivalent(a, b, ec)) return true;
      std::error_code ea, eb;
      const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ea), ea);
      const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, eb), eb);
      return !ea && !eb && ca == cb;
    };
    auto openOutput = [&](const std::string& option, const std::string& path, std::ofstream& out) {
      if (sameFile(path, scenePath)) {
        std::cerr << "tether-cli: " << option << " " << path << " is the scene file itself: it would be overwritten\n";
        return false;
      }
      out.open(path, std::ios::trunc);
      if (!out) {
        std::cerr << "tether-cli: " << path << ": cannot write file: " << std::strerror(errno) << "\n";
        return false;
      }
      return true;
    };
    if (!csvPath.empty() && !energyPath.empty() && sameFile(csvPath, energyPath)) {
      std::cerr << "tether-cli: --csv and --energy-csv name the same file " << csvPath << "\n";
      return kBadInput;
    }
    if (!csvPath.empty()) {
      if (!openOutput("--csv", csvPath, csv)) return kBadInput;
      opt.csv = &csv;
    }
    if (!energyPath.empty()) {
      if (!openOutput("--energy-csv", energyPath, energyCsv)) return kBadInput;
      opt.energyCsv = &energyCsv;
    }
    {
      // numeric settings past their stable bounds: said, not refused (the run shows what happens)
      Scene effective = scene;
      ov.applyTo(effective.settings);
      if (opt.until) effective.settings.duration = *opt.until;  // (a drive is followed as far as the run goes)
      for (const StabilityWarning& w : stabilityWarnings(effective)) std::cerr << "tether-cli: warning: " << w.message << "\n";
    }
    Progress progress(!quiet && isatty(STDERR_FILENO));
    opt.progress = [&](double t, double until) { return progress(t, until); };
    const RunSummary s = runScene(scene, opt);
    std::signal(SIGINT, SIG_DFL);
    progress.finish();
    int code = s.diverged ? kDiverged : s.interrupted ? kInterrupted : s.outputFailed ? kOutputFailed : kOk;
    for (auto [stream, path] : {std::pair{&csv, &csvPath}, std::pair{&energyCsv, &energyPath}}) {
      if (!stream->is_open()) continue;
      stream->close();  // flushes: a full disk shows here at the latest
      if (!*stream && !s.outputFailed) {
        std::cerr << "tether-cli: " << *path << ": writing the CSV failed (disk full?)\n";
        code = kOutputFailed;
      }
    }
    std::cout << "scene: " << scenePath << "\n" << formatSummary(s) << std::flush;
    if (!std::cout) {
      std::cerr << "tether-cli: writing the summary to standard output failed\n";
      if (code == kOk) code = kOutputFailed;
    }
    if (s.diverged || s.interrupted) std::cerr << "tether-cli: " << s.message << "\n";
    if (s.outputFailed) std::cerr << "tether-cli: " << (s.failedOutput == opt.energyCsv ? energyPath : csvPath) << ": " << s.message << "\n";
    return code;
  } catch (const SceneError& e) {
    std::cerr << "tether-cli: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "tether-cli: out of memory: the scene needs more memory than this machine can give "
                 "(split it into smaller scenes, or run it where there is more memory)\n";
    return kOutOfMemory;
  }
}
