// The robustness corpus as tests (see corpus.h, runner.h and tests/robustness/README.md).
//
// Corpus/CorpusShard.Run/<config>_sNN: the scenes with id % (the config's shard count) == NN under
//   one configuration; per scene: no divergence, undamped scenes keep their energy within 1 %
//   after assembly, drift after assembly within the configuration's bound; contact scenes: no
//   body escapes (below a ground plane, out of its bin), bodies at rest overlap <= 1e-4 m, a
//   passive scene gains no energy (runner.cpp).
// CorpusGenerator.*: the generator is deterministic and covers what it promises.
// CorpusSummary.Table: the summary table over the results files of a ctest run.
//
// Environment:
//   TETHER_CORPUS_ONLY=id,id,...   run only these scenes
//   TETHER_CORPUS_SECONDS=S        simulate S seconds instead of 60 (the sanitizer build)
//   TETHER_CORPUS_DUMP=DIR         write each failing scene, with the failing configuration's
//                                  settings, to DIR/scene_<id>_<config>.json
//                                  (then: tether-cli run DIR/scene_<id>_<config>.json)
//   TETHER_CORPUS_DUMP_ALL=1       with TETHER_CORPUS_DUMP: every scene run, failing or not
//   TETHER_CORPUS_RESULTS=DIR      append one record per run to DIR/<test>.tsv (ctest sets it;
//                                  the summary test reads them)
//   TETHER_CORPUS_NO_FORK=1        run the scenes in this process (for a debugger); by default
//                                  each run is a child process, killed at the wall-clock limit
//                                  + 5 s, a crash counting as divergence
//   TETHER_CORPUS_WALL_LIMIT=S     wall-clock limit per scene and configuration (default 30 s; a
//                                  run stopped by it counts as stalled, like one over the step
//                                  budget of 20 x the grid's steps, which usually stops first)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "core/constraint_type.h"
#include "core/model.h"
#include "core/scene_io.h"
#include "corpus.h"
#include "runner.h"

// shards per configuration (euler, euler_noproj, rk4, rk45), as CMakeLists.txt registers them
#ifndef TETHER_CORPUS_SHARD_COUNTS
#define TETHER_CORPUS_SHARD_COUNTS 6, 6, 8, 24
#endif

namespace tether::robustness {
namespace {

constexpr int kShards[] = {TETHER_CORPUS_SHARD_COUNTS};

std::vector<RunResult>& inProcessResults() {
  static std::vector<RunResult> v;
  return v;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

double seconds() {
  const char* s = env("TETHER_CORPUS_SECONDS");
  return s ? std::atof(s) : 60.0;
}

std::set<int> onlyIds() {
  std::set<int> out;
  if (const char* s = env("TETHER_CORPUS_ONLY")) {
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
      if (!item.empty()) out.insert(std::atoi(item.c_str()));
  }
  return out;
}

struct ShardParam {
  int config = 0;
  int shard = 0;
};

std::vector<ShardParam> shardParams() {
  std::vector<ShardParam> v;
  static_assert(std::size(kShards) == 4, "one shard count per configuration");
  for (int c = 0; c < int(runConfigs().size()); ++c)
    for (int s = 0; s < kShards[c]; ++s) v.push_back({c, s});
  return v;
}

class CorpusShard : public ::testing::TestWithParam<ShardParam> {};

TEST_P(CorpusShard, Run) {
  const RunConfig& config = runConfigs()[size_t(GetParam().config)];
  const Bounds bounds = defaultBounds();
  const double secs = seconds();
  const char* wl = env("TETHER_CORPUS_WALL_LIMIT");
  const double wallLimit = wl ? std::atof(wl) : 30.0;
  const std::set<int> only = onlyIds();
  const bool isolate = env("TETHER_CORPUS_NO_FORK") == nullptr;
  const char* dumpDir = env("TETHER_CORPUS_DUMP");
  const bool dumpAll = env("TETHER_CORPUS_DUMP_ALL") != nullptr;
  std::ofstream record;
  if (const char* dir = env("TETHER_CORPUS_RESULTS")) {
    std::filesystem::create_directories(dir);
    char name[64];
    std::snprintf(name, sizeof name, "/%s_s%02d.tsv", config.name.c_str(), GetParam().shard);
    record.open(std::string(dir) + name, std::ios::trunc);
  }
  int ran = 0, failed = 0;
  for (int id = GetParam().shard; id < corpusSize(); id += kShards[GetParam().config]) {
    if (!only.empty() && !only.count(id)) continue;
    const CorpusScene cs = makeScene(id);
    const RunResult r = isolate ? runCorpusSceneIsolated(cs, config, secs, wallLimit, bounds)
                                : runCorpusScene(cs, config, secs, wallLimit, bounds);
    ++ran;
    inProcessResults().push_back(r);
    if (record) record << toRecord(r) << "\n" << std::flush;
    const bool fails = r.fails(bounds);
    failed += fails;
    std::cout << (fails ? "FAIL " : "ok   ") << describe(r) << " [" << cs.note << "]\n";
    EXPECT_FALSE(r.diverged) << describeFailures(r, bounds) << "  " << cs.note;
    EXPECT_FALSE(r.timedOut) << describeFailures(r, bounds) << "  " << cs.note;
    if (cs.conservative && r.tAssembled >= 0.0)
      EXPECT_LE(r.energyDev, bounds.energy) << describeFailures(r, bounds) << "  " << cs.note;
    EXPECT_LE(r.drift, config.projection ? bounds.driftProjected : bounds.driftUnprojected)
        << describeFailures(r, bounds) << "  " << cs.note;
    EXPECT_FALSE(r.failsContact(bounds)) << describeFailures(r, bounds) << "  " << cs.note;
    if (dumpDir && (fails || dumpAll)) {
      std::filesystem::create_directories(dumpDir);
      char name[96];
      std::snprintf(name, sizeof name, "/scene_%03d_%s.json", id, config.name.c_str());
      core::saveScene(sceneForConfig(cs, config, secs), std::string(dumpDir) + name);
      std::cout << "     dumped " << dumpDir << name << "\n";
    }
  }
  std::cout << config.name << " shard " << GetParam().shard << ": " << ran << " scenes, " << failed << " failing\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusShard, ::testing::ValuesIn(shardParams()), [](const auto& info) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s_s%02d", runConfigs()[size_t(info.param.config)].name.c_str(), info.param.shard);
  return std::string(buf);
});

// ---------------------------------------------------------------------------------------------

TEST(CorpusGenerator, DeterministicValidAndCovering) {
  ASSERT_GE(corpusSize(), 300);
  std::map<std::string, int> shapes, constraints, forces, perCategory, conservative;
  int spin50 = 0, rodAxisSpin = 0, scattered = 0, withEvents = 0, paths = 0, generic3d = 0;
  int contactScenes = 0, elastic = 0, bins = 0;
  std::set<std::string> contactShapes;
  double rodAspectMin = 1, rodAspectMax = 0, boxAspectMax = 1;
  for (int id = 0; id < corpusSize(); ++id) {
    const CorpusScene a = makeScene(id);
    const CorpusScene b = makeScene(id);
    const std::string ja = core::sceneToJson(a.scene);
    ASSERT_EQ(ja, core::sceneToJson(b.scene)) << "scene " << id << " is not deterministic";
    ASSERT_NO_THROW(core::compile(a.scene)) << "scene " << id << " (" << a.category << ") " << a.note;
    ASSERT_EQ(core::sceneToJson(core::sceneFromJson(ja)), ja) << "scene " << id << " does not round-trip";
    ++perCategory[a.category];
    conservative[a.category] += a.conservative;
    bool planar = true;
    for (const auto& body : a.scene.bodies) {
      ++shapes[core::toString(body.shape)];
      if (body.angularVelocity.norm() >= 50.0) {
        ++spin50;
        if (body.shape == core::Shape::Rod &&
            (body.angularVelocity.normalized() - body.orientation * Vec3::UnitZ()).norm() < 1e-12)
          ++rodAxisSpin;
      }
      if (body.shape == core::Shape::Rod) {
        rodAspectMin = std::min(rodAspectMin, body.radius / body.length);
        rodAspectMax = std::max(rodAspectMax, body.radius / body.length);
      }
      if (body.shape == core::Shape::Box) boxAspectMax = std::max(boxAspectMax, body.size.maxCoeff() / body.size.minCoeff());
      // planar: every body axis-aligned with one coordinate plane's normal
      const Vec3 n = body.orientation * Vec3::UnitY();
      if (std::abs(std::abs(n.y()) - 1.0) > 1e-9 && std::abs(std::abs((body.orientation * Vec3::UnitZ()).y())) > 1e-9)
        planar = false;
    }
    generic3d += !planar;
    for (const auto& c : a.scene.constraints) ++constraints[c.type().id];
    for (const auto& f : a.scene.forces) ++forces[core::toString(f.kind)];
    scattered += a.note.find("scattered") != std::string::npos || a.category == "gui";
    withEvents += !a.scene.events.empty();
    if (a.scene.settings.contacts) {
      ++contactScenes;
      elastic += a.conservative;
      bins += a.keepIn.has_value();
      EXPECT_FALSE(a.scene.planes.empty()) << "contact scene " << id << " has no ground plane";
      for (const auto& body : a.scene.bodies)
        if (!body.fixed) contactShapes.insert(core::toString(body.shape));
    }
    paths += !a.scene.paths.empty();
  }
  for (const char* s : {"rod", "sphere", "torus", "box"}) EXPECT_GT(shapes[s], 0) << s;
  for (const char* c : {"point_to_nail", "point_to_point", "point_to_path", "orientation", "point_on_line",
                        "point_on_plane", "sphere_to_sphere", "distance", "scalar_point_to_nail"})
    EXPECT_GT(constraints[c], 0) << c;
  for (const char* f : {"spring", "damping", "torsion_spring"}) EXPECT_GT(forces[f], 0) << f;
  EXPECT_GT(spin50, 20);
  EXPECT_GT(rodAxisSpin, 3);
  EXPECT_LT(rodAspectMin, 1.0 / 200.0);
  EXPECT_GT(boxAspectMax, 50.0);
  EXPECT_GT(generic3d, corpusSize() / 2);
  EXPECT_GE(contactScenes, 50);
  EXPECT_GT(elastic, 0);
  EXPECT_GT(bins, 0);
  EXPECT_EQ(contactShapes.size(), 4u);
  std::cout << "corpus: " << corpusSize() << " scenes; undamped per category:";
  for (const auto& c : categories()) std::cout << " " << c.name << " " << conservative[c.name] << "/" << perCategory[c.name];
  std::cout << "\nbodies:";
  for (const auto& [k, v] : shapes) std::cout << " " << k << " " << v;
  std::cout << "\nconstraints:";
  for (const auto& [k, v] : constraints) std::cout << " " << k << " " << v;
  std::cout << "\nforces:";
  for (const auto& [k, v] : forces) std::cout << " " << k << " " << v;
  std::cout << "\nbodies spinning >= 50 rad/s: " << spin50 << " (" << rodAxisSpin << " rods exactly about their axis)"
            << "; rod radius/length " << rodAspectMin << " .. " << rodAspectMax << "; box aspect up to " << boxAspectMax
            << "; scenes assembled from scattered parts " << scattered << ", with events " << withEvents
            << ", with moving paths " << paths << ", generic 3D " << generic3d << "; with contacts " << contactScenes
            << " (" << elastic << " elastic, " << bins << " in a closed bin)\n";
}

TEST(CorpusGenerator, SeedsAreDistinct) {
  std::set<std::uint64_t> seeds;
  for (int id = 0; id < corpusSize(); ++id) seeds.insert(sceneSeed(id));
  EXPECT_EQ(int(seeds.size()), corpusSize());
  // the distributions are ours, not the standard library's: fixed values for a fixed seed
  Rng r(42);
  const double u = r.uniform();
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
  Rng r2(42);
  EXPECT_EQ(u, r2.uniform());
}

TEST(CorpusSummary, Table) {
  std::vector<RunResult> results;
  const char* dir = env("TETHER_CORPUS_RESULTS");
  if (!dir) GTEST_SKIP() << "TETHER_CORPUS_RESULTS not set (a direct run prints the table at exit)";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no results in " << dir;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".tsv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line)) {
      RunResult r;
      if (fromRecord(line, r)) results.push_back(r);
    }
  }
  const Bounds b = defaultBounds();
  std::cout << summaryTable(results, b);
  // the worst failures, one line each
  std::vector<const RunResult*> failing;
  for (const RunResult& r : results)
    if (r.fails(b)) failing.push_back(&r);
  std::cout << "\n" << failing.size() << " failing runs";
  if (!failing.empty()) std::cout << "; the first 40 by scene:\n";
  std::sort(failing.begin(), failing.end(), [](const RunResult* x, const RunResult* y) {
    return x->id != y->id ? x->id < y->id : x->config < y->config;
  });
  for (size_t i = 0; i < failing.size() && i < 40; ++i) std::cout << describeFailures(*failing[i], b);
}

class PrintSummary : public ::testing::Environment {
 public:
  void TearDown() override {
    if (env("TETHER_CORPUS_RESULTS") || inProcessResults().empty()) return;
    std::cout << "\n" << summaryTable(inProcessResults(), defaultBounds());
  }
};

const auto* const kSummary = ::testing::AddGlobalTestEnvironment(new PrintSummary);

}  // namespace
}  // namespace tether::robustness
