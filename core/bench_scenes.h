// Benchmark scenes and the benchmark runner shared by tests/bench and `tether-cli bench`.
#pragma once

#include <string>
#include <vector>

#include "core/scene.h"

namespace tether::core {

struct BenchScene {
  std::string name;
  int bodies = 0;
  Scene scene;
  double energyScale = 1.0;  // J: the energy changes are reported relative to this
};

// All: rods of length 0.1 m and mass 0.05 kg (solid cylinders, radius 0.01 m) joined end to end
// by point-to-point constraints, released at rest with every rod horizontal; gravity 9.81, no
// damping, dt = 1/240 s.
// Chain: N rods in a straight line along +x, the first rod's free end on a nail. Energy scale:
// the potential-energy drop of the chain hanging straight down, m g N^2 L / 2.
BenchScene hangingChain(int n);
// Ring: N rods (N even) closing a regular polygon in the horizontal plane, hanging from two
// nails at opposite corners. Energy scale: N m g (N L / 4), each half hanging straight down.
BenchScene hangingRing(int n);
// Binary tree of the given depth (2^depth - 1 rods): the root's end1 on a nail, each rod's end2
// joined to the end1 of two children, spread in the horizontal plane. Energy scale:
// N m g depth L.
BenchScene hangingTree(int depth);
// Star: a hub rod hung by its end1 from a nail, and N rods each joined by its end1 to the hub's
// end2 (every joint on the one hub body: the constraints couple pairwise, a dense N x N block
// of M; Limits::kMaxConstraintsPerBody caps N + 1 at 400). Energy scale: N m g L.
BenchScene hangingStar(int n);

struct BenchResult {
  std::string name;
  int bodies = 0;
  int steps = 0;
  double usPerStep = 0.0;       // median over the repeats
  double maxSeparation = 0.0;   // m: largest constraint deviation over the run
  double finalSeparation = 0.0; // m
  double energyChange = 0.0;    // (E_end - E_start) / energyScale
  bool diverged = false;
};

// Simulates `seconds` (in 1/240 s frames) `repeats` times; the time is the median.
BenchResult runBench(const BenchScene& b, double seconds, int repeats);
std::string formatBench(const std::vector<BenchResult>& results);

}  // namespace tether::core
