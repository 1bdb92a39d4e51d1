// Collision detection (core/collision.h): a pile of 1 000 spheres and capsules in a box of five
// planes, microseconds per query and how many contacts it finds. Not a test: numbers to compare.
//   ./build/release/tests/bench/tether_bench --benchmark_filter=Collision
#include <benchmark/benchmark.h>

#include <random>

#include "core/collision.h"

namespace {

using namespace tether::core;

// Spheres (r 2-4 cm) and capsules (r 2 cm, 10 cm long) at random poses in a 0.6 m x 0.6 m x
// 0.6 m box, about as dense as a settled pile (each touches a few neighbours).
CollisionQuery pile(int count) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  CollisionQuery q;
  for (int i = 0; i < count; ++i) {
    CollisionBody b;
    b.x = Vec3(0.6 * u(rng), 0.6 * u(rng), 0.6 * u(rng));
    if (i % 2 == 0) {
      b.shape = Shape::Sphere;
      b.radius = 0.02 + 0.02 * u(rng);
    } else {
      b.shape = Shape::Rod;
      b.radius = 0.02;
      b.length = 0.1;
      b.q = Quat(Eigen::AngleAxisd(6.3 * u(rng), Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5).normalized()));
    }
    q.bodies.push_back(b);
  }
  q.planes = {{.point = Vec3::Zero(), .normal = Vec3::UnitZ()}, {.point = Vec3::Zero(), .normal = Vec3::UnitX()},
              {.point = Vec3(0.6, 0.6, 0), .normal = -Vec3::UnitX()}, {.point = Vec3::Zero(), .normal = Vec3::UnitY()},
              {.point = Vec3(0.6, 0.6, 0), .normal = -Vec3::UnitY()}};
  return q;
}

void BM_CollisionPile(benchmark::State& st) {
  const CollisionQuery q = pile(static_cast<int>(st.range(0)));
  CollisionDetector d;
  std::size_t pairs = 0, contacts = 0;
  for (auto _ : st) {
    const auto ms = d.detect(q);
    pairs = ms.size();
    contacts = 0;
    for (const auto& m : ms) contacts += m.contacts.size();
    benchmark::DoNotOptimize(ms.data());
  }
  st.counters["us_per_query"] = benchmark::Counter(double(st.iterations()) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  st.counters["pairs"] = double(pairs);
  st.counters["contacts"] = double(contacts);
}

BENCHMARK(BM_CollisionPile)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
