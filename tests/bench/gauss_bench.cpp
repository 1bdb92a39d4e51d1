// Redon & Coquillart's experiment: the same frictionless problems solved in contact space
// (Dantzig / Baraff pivoting on A = J M^-1 J^T) and in motion space (the nearest-point active-set
// method on Q^T J^T), n bodies and c rows per body on average, each row on two random bodies.
// The paper reports the ratio t_contact / t_motion growing with c. Both solvers here are dense:
//   build/release/tests/bench/gauss_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
// and compare the medians of BM_GaussContactSpace and BM_GaussMotionSpace at each (n, c).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <random>
#include <vector>

#include "core/gauss.h"
#include "tests/gauss_problems.h"

namespace {

using namespace tether::core::gauss;

// ten problems per (n, c), the same for both solvers; rows = c n / 2 (each row touches two bodies)
std::vector<Problem> benchProblems(int bodies, int rowsPerBody) {
  std::mt19937_64 rng(1000 * std::uint64_t(bodies) + std::uint64_t(rowsPerBody));
  std::vector<Problem> out;
  for (int k = 0; k < 10; ++k) {
    tether::testing::GaussProblemShape shape;
    shape.bodies = bodies;
    shape.rows = rowsPerBody * bodies / 2;
    out.push_back(tether::testing::randomGaussProblem(rng, shape));
  }
  return out;
}

template <Solution (*solve)(const Problem&, double)>
void BM_Gauss(benchmark::State& state) {
  const std::vector<Problem> problems = benchProblems(int(state.range(0)), int(state.range(1)));
  for (auto _ : state)
    for (const Problem& p : problems) {
      const Solution s = solve(p, 1e-12);
      if (!s.ok) state.SkipWithError(s.error.c_str());
      benchmark::DoNotOptimize(s.acceleration.data());
    }
  state.counters["rows"] = double(problems.front().rows.size());
  state.SetItemsProcessed(state.iterations() * long(problems.size()));
}

void gaussArguments(benchmark::internal::Benchmark* b) {
  for (int n : {20, 50})
    for (int c : {1, 2, 4, 6, 8, 10}) b->Args({n, c});
  b->Unit(benchmark::kMicrosecond);
}

void BM_GaussMotionSpace(benchmark::State& state) { BM_Gauss<solveMotionSpace>(state); }
void BM_GaussContactSpace(benchmark::State& state) { BM_Gauss<solveContactSpace>(state); }
BENCHMARK(BM_GaussMotionSpace)->Apply(gaussArguments);
BENCHMARK(BM_GaussContactSpace)->Apply(gaussArguments);

// A chain of n bodies lying on the floor as the contact stage builds its group's problems: three
// bilateral rows per joint (n - 1 joints), one contact row with the floor on every third body, and
// a second problem with the same rows and two more bilateral rows per contact (sticking's). Both
// solved plainly (BM_GaussChainPlain) and with one gauss::BilateralFactor of the joints' rows
// (BM_GaussChainFactored); compare the medians at each n.
std::pair<Problem, Problem> chainProblems(int bodies) {
  std::mt19937_64 rng{std::uint64_t(bodies)};
  tether::testing::GaussProblemShape shape;
  shape.bodies = bodies;
  shape.rows = 0;
  Problem p = tether::testing::randomGaussProblem(rng, shape);
  std::normal_distribution<double> normal;
  const auto row = [&](int a, int b, bool equality) {
    Row r;
    r.bodyA = a;
    r.bodyB = b;
    r.jacA = Vec6::NullaryExpr([&] { return normal(rng); });
    if (b >= 0) r.jacB = -r.jacA;
    r.equality = equality;
    return r;
  };
  for (int k = 0; k < bodies; k += 3) p.rows.push_back(row(k, -1, false));
  for (int k = 0; k + 1 < bodies; ++k)
    for (int d = 0; d < 3; ++d) p.rows.push_back(row(k, k + 1, true));
  Problem q = p;
  for (int k = 0; k < bodies; k += 3)
    for (int d = 0; d < 2; ++d) q.rows.push_back(row(k, -1, true));
  return {p, q};
}

template <bool factored>
void BM_GaussChain(benchmark::State& state) {
  const auto [p, q] = chainProblems(int(state.range(0)));
  for (auto _ : state) {
    if (factored) {
      const BilateralFactor joints(p);
      for (const Problem* problem : {&p, &q}) benchmark::DoNotOptimize(solveMotionSpace(*problem, joints).acceleration.data());
    } else {
      for (const Problem* problem : {&p, &q}) benchmark::DoNotOptimize(solveMotionSpace(*problem).acceleration.data());
    }
  }
  state.counters["rows"] = double(q.rows.size());
}
void BM_GaussChainPlain(benchmark::State& state) { BM_GaussChain<false>(state); }
void BM_GaussChainFactored(benchmark::State& state) { BM_GaussChain<true>(state); }
BENCHMARK(BM_GaussChainPlain)->Arg(11)->Arg(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GaussChainFactored)->Arg(11)->Arg(30)->Unit(benchmark::kMicrosecond);

}  // namespace

// glibc returns a freed block at the top of the heap to the kernel once it exceeds 128 KB, and a
// solve's buffers (Y and R, or A and L: 100 KB and more from 20 bodies on) then page-fault back in
// at every solve, which tripled some times here. A simulator keeps its heap; so does this run.
int main(int argc, char** argv) {
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
