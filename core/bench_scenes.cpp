#include "core/bench_scenes.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_point.h"
#include "core/forces.h"
#include "core/model.h"
#include "core/simulation.h"

namespace tether::core {

namespace {

constexpr double kLength = 0.1, kRadius = 0.01, kMass = 0.05, kG = 9.81;

Scene baseScene() {
  Scene s;
  s.settings.dt = 1.0 / 240.0;
  s.settings.gravity = Vec3(0, 0, -kG);
  s.settings.duration = 2.0;
  return s;
}

BodyDef rodBetween(const std::string& name, const Vec3& a, const Vec3& b) {
  BodyDef r;
  r.name = name;
  r.shape = Shape::Rod;
  r.length = kLength;
  r.radius = kRadius;
  r.density = kMass / (M_PI * kRadius * kRadius * kLength);
  r.position = 0.5 * (a + b);
  r.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), (b - a).normalized());
  return r;
}

ConstraintDef joint(const std::string& name, const std::string& a, const std::string& pa, const std::string& b,
                    const std::string& pb) {
  return {.name = name, .params = PointToPointDef{.a = {.body = a, .point = pa}, .b = {.body = b, .point = pb}}};
}

ConstraintDef nailed(const std::string& name, const std::string& body, const std::string& point,
                     const std::string& nail) {
  return {.name = name, .params = PointToNailDef{.point = {.body = body, .point = point}, .nail = nail}};
}

std::string rodName(int i) { return "rod" + std::to_string(i); }

}  // namespace

BenchScene hangingChain(int n) {
  BenchScene b{"chain", n, baseScene(), kMass * kG * n * n * kLength / 2.0};
  Scene& s = b.scene;
  s.nails.push_back({"nail", Vec3::Zero()});
  for (int i = 0; i < n; ++i) {
    s.bodies.push_back(rodBetween(rodName(i), Vec3(i * kLength, 0, 0), Vec3((i + 1) * kLength, 0, 0)));
    s.constraints.push_back(i == 0 ? nailed("joint0", rodName(0), "end1", "nail")
                                   : joint("joint" + std::to_string(i), rodName(i - 1), "end2", rodName(i), "end1"));
  }
  return b;
}

BenchScene hangingRing(int n) {
  n = std::max(4, n + (n % 2));
  BenchScene b{"ring", n, baseScene(), n * kMass * kG * (n * kLength / 4.0)};
  Scene& s = b.scene;
  // corners of a regular n-gon with side L
  const double R = kLength / (2.0 * std::sin(M_PI / n));
  auto corner = [&](int i) {
    const double a = 2.0 * M_PI * i / n;
    return Vec3(R * std::cos(a), R * std::sin(a), 0.0);
  };
  for (int i = 0; i < n; ++i) s.bodies.push_back(rodBetween(rodName(i), corner(i), corner((i + 1) % n)));
  for (int i = 0; i < n; ++i)
    s.constraints.push_back(joint("joint" + std::to_string(i), rodName(i), "end2", rodName((i + 1) % n), "end1"));
  s.nails.push_back({"nail_a", corner(0)});
  s.nails.push_back({"nail_b", corner(n / 2)});
  s.constraints.push_back(nailed("hang_a", rodName(0), "end1", "nail_a"));
  s.constraints.push_back(nailed("hang_b", rodName(n / 2), "end1", "nail_b"));
  return b;
}

BenchScene hangingStar(int n) {
  BenchScene b{"star", n + 1, baseScene(), n * kMass * kG * kLength};
  Scene& s = b.scene;
  s.nails.push_back({"nail", Vec3::Zero()});
  const Vec3 hubEnd(kLength, 0.0, 0.0);
  s.bodies.push_back(rodBetween("hub", Vec3::Zero(), hubEnd));
  s.constraints.push_back(nailed("hang", "hub", "end1", "nail"));
  // spokes fanned out in the horizontal plane around the hub's free end
  for (int i = 0; i < n; ++i) {
    const double a = 2.0 * M_PI * (i + 0.5) / n;
    s.bodies.push_back(rodBetween(rodName(i), hubEnd, hubEnd + kLength * Vec3(std::cos(a), std::sin(a), 0.0)));
    s.constraints.push_back(joint("joint" + std::to_string(i), "hub", "end2", rodName(i), "end1"));
  }
  return b;
}

BenchScene hangingTree(int depth) {
  const int n = (1 << depth) - 1;
  BenchScene b{"tree", n, baseScene(), n * kMass * kG * depth * kLength};
  Scene& s = b.scene;
  s.nails.push_back({"nail", Vec3::Zero()});
  // rod i has children 2i+1 and 2i+2; each child turns left or right of its parent's heading
  std::vector<Vec3> start(static_cast<size_t>(n)), dir(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (i == 0) {
      start[0] = Vec3::Zero();
      dir[0] = Vec3::UnitX();
    } else {
      const int parent = (i - 1) / 2;
      const int level = static_cast<int>(std::log2(i + 1));
      const double turn = (i % 2 ? 1.0 : -1.0) * (M_PI / 4.0) / std::sqrt(double(level));
      start[size_t(i)] = start[size_t(parent)] + kLength * dir[size_t(parent)];
      dir[size_t(i)] = Eigen::AngleAxisd(turn, Vec3::UnitZ()) * dir[size_t(parent)];
    }
    s.bodies.push_back(rodBetween(rodName(i), start[size_t(i)], start[size_t(i)] + kLength * dir[size_t(i)]));
    s.constraints.push_back(i == 0 ? nailed("joint0", rodName(0), "end1", "nail")
                                   : joint("joint" + std::to_string(i), rodName((i - 1) / 2), "end2", rodName(i), "end1"));
  }
  return b;
}

BenchResult runBench(const BenchScene& b, double seconds, int repeats) {
  BenchResult r;
  r.name = b.name;
  r.bodies = b.bodies;
  auto model = std::make_shared<const Model>(compile(b.scene));
  const double dt = model->settings.dt;
  r.steps = static_cast<int>(std::lround(seconds / dt));
  std::vector<double> times;
  std::vector<double> dev;
  for (int rep = 0; rep < std::max(1, repeats); ++rep) {
    Simulation sim(model);
    const double e0 = energy(*model, sim.state()).total();
    double stepSeconds = 0.0, maxSep = 0.0, finalSep = 0.0;
    bool diverged = false;
    for (int k = 1; k <= r.steps; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      const bool ok = sim.advanceTo(k * dt).ok;
      stepSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!ok) {
        diverged = true;
        break;
      }
      sim.deviations(dev);
      finalSep = *std::max_element(dev.begin(), dev.end());
      maxSep = std::max(maxSep, finalSep);
    }
    times.push_back(1e6 * stepSeconds / r.steps);
    r.maxSeparation = maxSep;
    r.finalSeparation = finalSep;
    r.diverged = diverged;
    r.energyChange = (energy(*model, sim.state()).total() - e0) / b.energyScale;
  }
  std::sort(times.begin(), times.end());
  r.usPerStep = times[times.size() / 2];
  return r;
}

std::string formatBench(const std::vector<BenchResult>& results) {
  std::string out = "scene    bodies   steps    us/step (median)   max separation   final separation   energy change\n";
  char line[256];
  for (const BenchResult& r : results) {
    // a blown-up run (finite but huge) keeps its columns: the energy in %e beyond 1e6 %
    const double e = 100.0 * r.energyChange;
    std::snprintf(line, sizeof line, std::abs(e) < 1e6 ? "%-7s %7d %7d %18.1f %16.3e %18.3e %14.3f %%%s\n"
                                                        : "%-7s %7d %7d %18.1f %16.3e %18.3e %14.3e %%%s\n",
                  r.name.c_str(), r.bodies, r.steps, r.usPerStep, r.maxSeparation, r.finalSeparation, e,
                  r.diverged ? "  DIVERGED" : "");
    out += line;
  }
  return out;
}

}  // namespace tether::core
