// Random problems for the Gauss solvers (core/gauss.h), shaped as in Redon & Coquillart's
// experiment: n bodies, rows touching two bodies picked at random (the same body twice: a contact
// with the environment, one block), random coefficients. Used by tests/core/gauss_test.cpp and
// tests/bench/gauss_bench.cpp.
#pragma once

#include <cmath>
#include <random>

#include <Eigen/Geometry>

#include "core/gauss.h"

namespace tether::testing {

struct GaussProblemShape {
  int bodies = 4;
  int rows = 6;
  double bilateralShare = 0.0;  // probability that a row is bilateral
};

// Feasible by construction: a random a0 satisfies every row (bilateral rows exactly, half of the
// unilateral ones exactly and the others with room to spare), so a solution exists; the
// unconstrained acceleration is random, so some rows are violated and some are not.
inline core::gauss::Problem randomGaussProblem(std::mt19937_64& rng, const GaussProblemShape& shape) {
  using core::gauss::Vec6;
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit;
  std::uniform_int_distribution<int> body(0, shape.bodies - 1);
  core::gauss::Problem p;
  for (int k = 0; k < shape.bodies; ++k) {
    core::gauss::BodyMetric b;
    b.mass = std::exp(std::log(0.1) + unit(rng) * std::log(100.0));  // 0.1 to 10 kg
    const Eigen::Quaterniond q(normal(rng), normal(rng), normal(rng), normal(rng));
    const core::Mat3 r = q.normalized().toRotationMatrix();
    core::Vec3 principal;
    for (int i = 0; i < 3; ++i) principal[i] = b.mass * (0.01 + unit(rng));
    b.inertia = r * principal.asDiagonal() * r.transpose();
    p.bodies.push_back(b);
  }
  const long n = 6 * shape.bodies;
  const Eigen::VectorXd a0 = Eigen::VectorXd::NullaryExpr(n, [&] { return normal(rng); });
  p.unconstrained = Eigen::VectorXd::NullaryExpr(n, [&] { return 2.0 * normal(rng); });
  for (int i = 0; i < shape.rows; ++i) {
    core::gauss::Row r;
    r.bodyA = body(rng);
    const int other = body(rng);
    r.bodyB = other == r.bodyA ? -1 : other;
    r.jacA = Vec6::NullaryExpr([&] { return normal(rng); });
    if (r.bodyB >= 0) r.jacB = Vec6::NullaryExpr([&] { return normal(rng); });
    r.equality = unit(rng) < shape.bilateralShare;
    double value = r.jacA.dot(a0.segment<6>(6 * r.bodyA));
    if (r.bodyB >= 0) value += r.jacB.dot(a0.segment<6>(6 * r.bodyB));
    r.c = r.equality || unit(rng) < 0.5 ? value : value - std::exponential_distribution<double>(1.0)(rng);
    p.rows.push_back(r);
  }
  return p;
}

}  // namespace tether::testing
