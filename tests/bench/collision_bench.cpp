// Collision detection (core/collision.h): a pile of 1 000 spheres and capsules in a box of five
// planes (BM_CollisionPile/10: 10 per side), microseconds per query, pairs and contacts found. Not a test: numbers to compare.
//   ./build/release/tests/bench/tether_bench --benchmark_filter=Collision
#include <benchmark/benchmark.h>

#include <random>

#include "core/collision.h"

namespace {

using namespace tether::core;

// A settled-looking pile: a 10 x 10 x 10 lattice of 7 cm cells in a 0.7 m box, alternately a
// sphere (r 3.5-3.7 cm) and a capsule (r 2 cm, 6 cm segment, random axis), each jittered by up
// to 5 mm: each body presses into a few neighbours, the bottom layer into the floor.
CollisionQuery pile(int side) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double h = 0.07;
  CollisionQuery q;
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      for (int k = 0; k < side; ++k) {
        CollisionBody b;
        b.x = Vec3((i + 0.5) * h, (j + 0.5) * h, (k + 0.48) * h) + 0.005 * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
        if ((i + j + k) % 2 == 0) {
          b.shape = Shape::Sphere;
          b.radius = 0.035 + 0.002 * u(rng);
        } else {
          b.shape = Shape::Rod;
          b.radius = 0.02;
          b.length = 0.06;
          b.q = Quat(Eigen::AngleAxisd(6.3 * u(rng), Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5).normalized()));
        }
        q.bodies.push_back(b);
      }
  const double w = side * h;
  q.planes = {{.point = Vec3::Zero(), .normal = Vec3::UnitZ()}, {.point = Vec3::Zero(), .normal = Vec3::UnitX()},
              {.point = Vec3(w, w, 0), .normal = -Vec3::UnitX()}, {.point = Vec3::Zero(), .normal = Vec3::UnitY()},
              {.point = Vec3(w, w, 0), .normal = -Vec3::UnitY()}};
  return q;
}

void BM_CollisionPile(benchmark::State& st) {
  const CollisionQuery q = pile(static_cast<int>(st.range(0)));  // range: bodies per side
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

BENCHMARK(BM_CollisionPile)->Arg(10)->Unit(benchmark::kMicrosecond);

}  // namespace
