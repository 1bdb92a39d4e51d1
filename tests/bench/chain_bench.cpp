// Hanging chain, ring and tree (core/bench_scenes.h): microseconds per 1/240 s step, and how
// well the joints hold and energy is kept. Not a test: numbers to compare.
//   ./build/release/tests/bench/tether_bench
// `tether-cli bench` runs the same scenes with medians over repeated runs and prints a table.
#include <benchmark/benchmark.h>

#include "core/bench_scenes.h"

namespace {

using namespace tether::core;

void report(benchmark::State& st, const BenchScene& scene, double seconds) {
  BenchResult r;
  for (auto _ : st) r = runBench(scene, seconds, 1);
  st.counters["us_per_step"] = r.usPerStep;
  st.counters["max_sep_m"] = r.maxSeparation;
  st.counters["final_sep_m"] = r.finalSeparation;
  st.counters["energy_change_rel"] = r.energyChange;
}

void BM_Chain(benchmark::State& st) { report(st, hangingChain(static_cast<int>(st.range(0))), 2.0); }
void BM_Ring(benchmark::State& st) { report(st, hangingRing(static_cast<int>(st.range(0))), 2.0); }
void BM_Tree(benchmark::State& st) { report(st, hangingTree(static_cast<int>(st.range(0))), 2.0); }

BENCHMARK(BM_Chain)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Ring)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Tree)->Arg(10)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
