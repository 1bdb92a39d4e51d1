// The robustness corpus: a seeded, deterministic generator of scenes like the ones users build
// (core::Scene structs, not JSON). Scene `id` alone determines the scene: its category comes
// from a fixed table, its seed from the id, and every random number from Rng below, whose
// distributions are written out here from raw 64-bit draws (std::uniform_real_distribution and
// friends are not specified exactly, so they differ between standard libraries).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <string>
#include <vector>

#include "core/scene.h"

namespace tether::robustness {

using core::Quat;
using core::Vec3;

// Portable distributions over std::mt19937_64 (whose output sequence the standard fixes).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : m_gen(seed) {}
  std::uint64_t bits() { return m_gen(); }
  // [0, 1): the top 53 bits of one draw
  double uniform() { return static_cast<double>(m_gen() >> 11) * 0x1.0p-53; }
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  // log-uniform on [a, b], a > 0
  double logUniform(double a, double b);
  // integer in [lo, hi], both included
  int integer(int lo, int hi);
  bool chance(double p) { return uniform() < p; }
  // standard normal (Box-Muller, one value per two draws)
  double normal();
  // uniform on the unit sphere (z uniform in [-1, 1], azimuth uniform)
  Vec3 unitVector();
  // uniform random rotation (Shoemake's three-draw method)
  Quat rotation();
  // a unit vector perpendicular to n (n unit), uniform in azimuth
  Vec3 perpendicular(const Vec3& n);

 private:
  std::mt19937_64 m_gen;
};

// The seed of scene `id` (splitmix64 of the id and a fixed salt).
std::uint64_t sceneSeed(int id);

struct CorpusScene {
  int id = 0;
  std::string category;
  std::uint64_t seed = 0;
  // undamped / conservative: no damping forces, no spring or torsion damping, no moving paths,
  // no events, no constant forces or torques: after assembly, kinetic + gravity + spring energy
  // is conserved by the exact dynamics
  bool conservative = true;
  // passive: nothing drives it (no moving paths, no events, no constant forces or torques), so
  // its energy after assembly can only fall (damping, friction, inelastic impacts) or stay
  bool passive = true;
  // contact scenes (settings.contacts): where every body's centre must be at the end (a bin);
  // besides, every body ends on the open side of every ground plane
  std::optional<std::pair<Vec3, Vec3>> keepIn;
  std::string note;  // what the generator built, in a few words
  core::Scene scene;
};

struct Category {
  std::string name;
  int count = 0;
  std::string what;  // one line for the summary
};

// The category table, in id order: scenes [0, count0) are category 0, and so on.
const std::vector<Category>& categories();
int corpusSize();
CorpusScene makeScene(int id);
// Whether nothing drives the scene (no moving paths, no events, no constant forces or torques):
// CorpusScene::passive.
bool isPassive(const core::Scene& scene);

}  // namespace tether::robustness
