// core/body.cpp and core/forces.cpp against independent checks: each shape's mass and principal
// moments against Monte Carlo integration over the solid, and every conservative force's force
// and torque against the gradient of its potential energy by finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/body.h"
#include "core/forces.h"
#include "core/model.h"
#include "test_util.h"

namespace tether::core {
namespace {

// Is the body-local point inside the solid?
bool inside(const BodyDef& b, const Vec3& p) {
  switch (b.shape) {
    case Shape::Rod: return std::hypot(p.x(), p.y()) <= b.radius && std::abs(p.z()) <= 0.5 * b.length;
    case Shape::Sphere: return p.norm() <= b.radius;
    case Shape::Box: return (p.cwiseAbs() - 0.5 * b.size).maxCoeff() <= 0.0;
    case Shape::Torus: {
      const double rho = std::hypot(p.x(), p.y()) - b.majorRadius;
      return rho * rho + p.z() * p.z() <= b.minorRadius * b.minorRadius;
    }
  }
  return false;
}

// Mass and principal moments by sampling the bounding box uniformly (2e6 points, fixed seed):
// relative error about 1/sqrt(N * fill) ~ 0.1 %.
MassProperties monteCarlo(const BodyDef& b) {
  Vec3 h;
  switch (b.shape) {
    case Shape::Rod: h = Vec3(b.radius, b.radius, 0.5 * b.length); break;
    case Shape::Sphere: h = Vec3::Constant(b.radius); break;
    case Shape::Box: h = 0.5 * b.size; break;
    case Shape::Torus: h = Vec3(b.majorRadius + b.minorRadius, b.majorRadius + b.minorRadius, b.minorRadius); break;
  }
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = 2000000;
  double count = 0;
  Vec3 second = Vec3::Zero();  // sum of (y^2 + z^2, x^2 + z^2, x^2 + y^2)
  for (int i = 0; i < n; ++i) {
    const Vec3 p(h.x() * u(rng), h.y() * u(rng), h.z() * u(rng));
    if (!inside(b, p)) continue;
    count += 1;
    second += Vec3(p.y() * p.y() + p.z() * p.z(), p.x() * p.x() + p.z() * p.z(), p.x() * p.x() + p.y() * p.y());
  }
  const double volume = 8 * h.x() * h.y() * h.z() * count / n;
  MassProperties mp;
  mp.mass = b.density * volume;
  mp.inertia = mp.mass * second / count;
  return mp;
}

TEST(Body, MassAndInertiaOfEveryShapeMatchIntegrationOverTheSolid) {
  BodyDef rod, sphere, box, torus;
  rod.shape = Shape::Rod;
  rod.radius = 0.07;
  rod.length = 0.5;
  sphere.shape = Shape::Sphere;
  sphere.radius = 0.3;
  box.shape = Shape::Box;
  box.size = Vec3(0.2, 0.5, 0.9);
  torus.shape = Shape::Torus;
  torus.majorRadius = 0.4;
  torus.minorRadius = 0.1;
  for (BodyDef* b : {&rod, &sphere, &box, &torus}) {
    b->density = 700;
    SCOPED_TRACE(toString(b->shape));
    const MassProperties exact = massProperties(*b), mc = monteCarlo(*b);
    EXPECT_NEAR(mc.mass / exact.mass, 1.0, 4e-3);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(mc.inertia(i) / exact.inertia(i), 1.0, 6e-3) << "axis " << i;
  }
}

// The generalized force of the conservative forces (gravity, springs, torsion springs) is minus
// the gradient of their potential: F_i = -dU/dx_i and, for a small world-frame turn dtheta of
// body i (q <- exp(dtheta) q), T_i = -dU/dtheta_i. Central differences, h = 1e-6.
TEST(Forces, ForceAndTorqueAreMinusTheGradientOfThePotential) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto v3 = [&] { return Vec3(u(rng), u(rng), u(rng)); };
  for (int trial = 0; trial < 5; ++trial) {
    Scene s;
    for (const char* n : {"a", "b"}) {
      BodyDef b;
      b.name = n;
      b.shape = Shape::Box;
      b.size = Vec3(0.3, 0.4, 0.5);
      b.position = v3();
      b.orientation = Quat(Eigen::AngleAxisd(3 * u(rng), v3().normalized()));
      b.points.push_back({"p", 0.2 * v3()});
      s.bodies.push_back(b);
    }
    s.nails.push_back({"nail", v3()});
    ForceDef spring = test::springToNail("s1", "nail", test::pt("a", "p"), 40.0, 0.3);
    ForceDef between;
    between.name = "s2";
    between.kind = ForceKind::Spring;
    between.a = test::pt("a", "center");
    between.b = test::pt("b", "p");
    between.stiffness = 25.0;
    between.restLength = 0.1;
    ForceDef torsion;
    torsion.name = "t";
    torsion.kind = ForceKind::TorsionSpring;
    torsion.bodyA = "a";
    torsion.bodyB = "b";
    torsion.axisA = v3();
    torsion.axisB = v3();
    torsion.stiffness = 3.0;
    torsion.restAngle = 0.4;
    s.forces = {spring, between, torsion};
    const Model m = compile(s);
    const State st = m.initialState();
    auto potential = [&](const std::vector<BodyState>& bodies) {
      State x = st;
      x.bodies = bodies;
      const Energy e = energy(m, x);
      return e.gravity + e.springs;
    };
    std::vector<BodyKinematics> kin;
    bodyKinematics(m, st.params, st.bodies, kin);
    std::vector<Vec3> F(2, Vec3::Zero()), T(2, Vec3::Zero());
    accumulateExternalForces(m, st.params, EvalContext{kin, m.paths, 0.0}, F, T);
    const double h = 1e-6;
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 3; ++i) {
        std::vector<BodyState> plus = st.bodies, minus = st.bodies;
        plus[size_t(b)].x(i) += h;
        minus[size_t(b)].x(i) -= h;
        const double dUdx = (potential(plus) - potential(minus)) / (2 * h);
        EXPECT_NEAR(F[size_t(b)](i), -dUdx, 1e-5 * (1 + std::abs(dUdx))) << "trial " << trial << " body " << b << " x" << i;
        plus = minus = st.bodies;
        plus[size_t(b)].q = Quat(Eigen::AngleAxisd(h, Vec3::Unit(i))) * st.bodies[size_t(b)].q;
        minus[size_t(b)].q = Quat(Eigen::AngleAxisd(-h, Vec3::Unit(i))) * st.bodies[size_t(b)].q;
        const double dUdth = (potential(plus) - potential(minus)) / (2 * h);
        EXPECT_NEAR(T[size_t(b)](i), -dUdth, 1e-5 * (1 + std::abs(dUdth))) << "trial " << trial << " body " << b << " theta" << i;
      }
  }
}

}  // namespace
}  // namespace tether::core
