// Hanging chain of N rods (core/bench_scenes.h): microseconds per 1/240 s step, and how well
// the joints hold and energy is kept. Not a test: numbers to compare, medians over repetitions.
//   ./build/release/tests/bench/tether_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/bench_scenes.h"
#include "core/forces.h"
#include "core/model.h"
#include "core/simulation.h"

namespace {

using namespace tether::core;

void BM_HangingChain(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const int steps = static_cast<int>(st.range(1));
  auto model = std::make_shared<const Model>(compile(hangingChain(n)));
  const double dt = model->settings.dt;
  double maxSep = 0.0, finalSep = 0.0, energyRel = 0.0, stepSeconds = 0.0;
  std::vector<double> dev;
  for (auto _ : st) {
    st.PauseTiming();
    Simulation sim(model);
    const double e0 = energy(*model, sim.state()).total();
    maxSep = 0.0;
    st.ResumeTiming();
    for (int k = 1; k <= steps; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      sim.advanceTo(k * dt);
      stepSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      st.PauseTiming();
      sim.deviations(dev);
      finalSep = *std::max_element(dev.begin(), dev.end());
      maxSep = std::max(maxSep, finalSep);
      st.ResumeTiming();
    }
    st.PauseTiming();
    // relative to the potential-energy drop of the chain hanging straight down: m g N^2 L / 2
    const double drop = 0.05 * 9.81 * n * n * 0.1 / 2.0;
    energyRel = (energy(*model, sim.state()).total() - e0) / drop;
    st.ResumeTiming();
  }
  st.counters["us_per_step"] = 1e6 * stepSeconds / (static_cast<double>(steps) * static_cast<double>(st.iterations()));
  st.counters["max_sep_m"] = maxSep;
  st.counters["final_sep_m"] = finalSep;
  st.counters["energy_change_rel"] = energyRel;
  st.counters["simulated_s"] = steps * dt;
}

// N = 10 over the full 2 s (480 steps); N = 100 over 0.25 s (60 steps): the dense SVD is
// O(n^3) per evaluation, which is what the solver issue replaces.
BENCHMARK(BM_HangingChain)->Args({10, 480})->Args({100, 60})->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
