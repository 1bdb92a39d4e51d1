// Test 7: for every constraint type, D1 and the force-free part of D2 agree with finite
// differences of D (a velocity constraint's D2 with those of its D1) along a random
// torque-free trajectory. This is what catches sign errors.
//
// The trajectory comes from the simulator itself with gravity off, no forces and the
// constraint disabled: each body then moves with a = 0 and alpha = I^-1 (L x w), so
//   D2 = sum_i (Jl_i a_i + Ja_i alpha_i) + c = sum_i Ja_i I_i^-1 (L_i x w_i) + c.
// Central differences over +-h (h = 1e-4 s, RK4 steps of 1e-5 s) are accurate to O(h^2).
#include <gtest/gtest.h>

#include <random>

#include "core/constraint.h"
#include "core/constraint_parts.h"
#include "core/constraint_type.h"
#include "core/forces.h"
#include "test_util.h"

namespace tether::core {
namespace {

using test::pt;

struct Probe {
  Vec3 D, D1, D2;  // top d rows
  int d = 0;
};

Probe probe(const Simulation& sim, int j) {
  const Model& m = sim.model();
  std::vector<BodyKinematics> kin;
  bodyKinematics(m, sim.state().params, sim.state().bodies, kin);
  const EvalContext ctx{kin, m.paths, sim.state().t};
  ConstraintRows r;
  m.constraints[size_t(j)]->evaluate(ctx, r);
  Probe p;
  p.d = r.d;
  p.D = r.D;
  p.D1 = r.D1;
  p.D2 = r.c;
  for (int s = 0; s < r.nb; ++s) {
    const BodyKinematics& k = kin[size_t(r.body[s])];
    p.D2 += r.ja(s, k.invI * k.L.cross(k.w));
  }
  return p;
}

BodyDef randomBody(const std::string& name, Shape shape, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto v3 = [&] { return Vec3(u(rng), u(rng), u(rng)); };
  BodyDef b;
  b.name = name;
  b.shape = shape;
  b.length = 0.8;
  b.radius = 0.1;
  b.size = Vec3(0.3, 0.5, 0.7);
  b.position = v3();
  b.orientation = Quat(Eigen::AngleAxisd(3.0 * u(rng), v3().normalized()));
  b.velocity = v3();
  b.angularVelocity = 4.0 * v3();
  b.points.push_back({"p", 0.3 * v3()});
  return b;
}

// Builds a scene with two random bodies (spheres for sphere-to-sphere), a nail, a circle
// path, and the one constraint under test, disabled so that it does not act.
Scene fdScene(const ConstraintType& type, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Scene s = test::paperScene();
  s.settings.gravityOn = false;
  s.settings.dt = 1e-5;
  const bool spheres = type.firstNeedsSphere;
  s.bodies.push_back(randomBody("a", spheres ? Shape::Sphere : Shape::Box, rng));
  s.bodies.push_back(randomBody("b", spheres ? Shape::Sphere : Shape::Rod, rng));
  s.nails.push_back({"nail", Vec3(u(rng), u(rng), u(rng))});
  PathDef p;
  p.name = "path";
  p.kind = PathKind::Circle;
  p.center = Vec3(u(rng), u(rng), u(rng));
  p.normal = Vec3(u(rng), u(rng), 1.0);
  p.u = Vec3(1, 0, 0);
  p.radius = 0.7;
  p.period = 1.3;
  s.paths.push_back(p);
  // every field of the type: points and bodies on "a" and "b" (b's keys end in b), random
  // directions and positions
  ConstraintDef c{.name = "c", .enabled = false, .params = type.defaults};
  for (const ConstraintField& f : type.fields) {
    const bool onB = std::string(f.key).ends_with("b");
    using K = ConstraintField::Kind;
    switch (f.kind) {
      case K::BodyPoint:
      case K::AnyPoint: f.point(c) = pt(onB ? "b" : "a", "p"); break;
      case K::Nail: f.name(c) = "nail"; break;
      case K::Path: f.name(c) = "path"; break;
      case K::Body: f.name(c) = onB ? "b" : "a"; break;
      case K::Direction:
      case K::Position: f.vector(c) = Vec3(u(rng), u(rng), u(rng)); break;
      case K::Length: f.number(c) = 0.5; break;
    }
  }
  s.constraints.push_back(c);
  return s;
}

class ConstraintFd : public ::testing::TestWithParam<const ConstraintType*> {};

// every part of the definition (a hinge has two)
TEST_P(ConstraintFd, RateAndAccelerationMatchFiniteDifferences) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    auto sim = test::simulate(fdScene(*GetParam(), seed));
    const int parts = int(sim->model().constraints.size());
    const double h = 1e-4;
    ASSERT_TRUE(sim->advanceTo(0.3).ok);
    std::vector<Probe> before, mid, after;
    for (int j = 0; j < parts; ++j) before.push_back(probe(*sim, j));
    ASSERT_TRUE(sim->advanceTo(0.3 + h).ok);
    for (int j = 0; j < parts; ++j) mid.push_back(probe(*sim, j));
    ASSERT_TRUE(sim->advanceTo(0.3 + 2 * h).ok);
    for (int j = 0; j < parts; ++j) after.push_back(probe(*sim, j));
    for (int j = 0; j < parts; ++j) {
      const int d = mid[j].d;
      const Eigen::VectorXd fdD1 = (after[j].D - before[j].D).head(d) / (2 * h);
      const Eigen::VectorXd fdD2 = (after[j].D1 - before[j].D1).head(d) / (2 * h);
      const double scale1 = 1.0 + mid[j].D1.head(d).norm(), scale2 = 1.0 + mid[j].D2.head(d).norm();
      // (a velocity constraint has no D of its own: its D1 is the rate it prescribes)
      if (!sim->model().constraints[size_t(j)]->nonholonomic())
        EXPECT_LT((fdD1 - mid[j].D1.head(d)).norm() / scale1, 1e-5)
            << "seed " << seed << " part " << j << " D1 " << mid[j].D1.head(d).transpose() << " fd " << fdD1.transpose();
      EXPECT_LT((fdD2 - mid[j].D2.head(d)).norm() / scale2, 1e-5)
          << "seed " << seed << " part " << j << " D2 " << mid[j].D2.head(d).transpose() << " fd " << fdD2.transpose();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, ConstraintFd, ::testing::ValuesIn(constraintTypes()),
                         [](const auto& info) { return std::string(info.param->id); });

// The Jacobian itself: D1 = J u + dD/dt|explicit, checked by perturbing one body's velocity.
TEST_P(ConstraintFd, JacobianIsLinearInVelocities) {
  auto sim = test::simulate(fdScene(*GetParam(), 7));
  const Model& m = sim->model();
  State st = sim->state();
  std::vector<BodyKinematics> kin;
  bodyKinematics(m, st.params, st.bodies, kin);
  for (size_t j = 0; j < m.constraints.size(); ++j) {
    ConstraintRows r0, r1;
    m.constraints[j]->evaluate({kin, m.paths, 0.0}, r0);
    for (int s = 0; s < r0.nb; ++s) {
      const size_t b = size_t(r0.body[s]);
      const Vec3 dv(0.3, -0.2, 0.5), dw(-0.4, 0.1, 0.2);
      std::vector<BodyKinematics> k2 = kin;
      k2[b].v += dv;
      k2[b].w += dw;
      m.constraints[j]->evaluate({k2, m.paths, 0.0}, r1);
      const Eigen::VectorXd predicted = (r0.D1 + r0.jl(s, dv) + r0.ja(s, dw)).head(r0.d);
      EXPECT_LT((r1.D1.head(r0.d) - predicted).norm(), 1e-12) << "part " << j;
    }
  }
}

// A separation row's c from its slots' velocities (separationC, which the held target takes at
// the end velocities) is the c the row was evaluated with, at the same velocities; and it is
// linear in neither: at other velocities it is the c of the row evaluated there. (Types whose
// rows are no separation skip; distance and sphere-to-sphere have one, between two bodies and
// between a body and a nail.)
TEST_P(ConstraintFd, SeparationCIsTheRowsC) {
  int checked = 0;
  for (unsigned seed = 1; seed <= 5; ++seed) {
    auto sim = test::simulate(fdScene(*GetParam(), seed));
    const Model& m = sim->model();
    State st = sim->state();
    std::vector<BodyKinematics> kin;
    bodyKinematics(m, st.params, st.bodies, kin);
    for (size_t j = 0; j < m.constraints.size(); ++j) {
      ConstraintRows r;
      m.constraints[j]->evaluate({kin, m.paths, 0.0}, r);
      if (!r.separation) continue;
      ++checked;
      const auto at = [&](const std::vector<BodyKinematics>& k) {
        return separationC(r, k, [&](int s, Vec3& v, Vec3& w) {
          v = k[size_t(r.body[s])].v;
          w = k[size_t(r.body[s])].w;
        });
      };
      EXPECT_NEAR(at(kin), r.c(0), 1e-12 * (1.0 + std::abs(r.c(0)))) << "seed " << seed;
      std::vector<BodyKinematics> k2 = kin;
      for (BodyKinematics& k : k2) {
        k.v += Vec3(0.7, -0.4, 0.2);
        k.w += Vec3(-1.5, 2.0, 0.5);
      }
      ConstraintRows r2;
      m.constraints[j]->evaluate({k2, m.paths, 0.0}, r2);
      EXPECT_NEAR(at(k2), r2.c(0), 1e-12 * (1.0 + std::abs(r2.c(0)))) << "seed " << seed;
    }
  }
  const std::string id = GetParam()->id;
  if (id == "distance" || id == "sphere_to_sphere") EXPECT_GT(checked, 0) << id;
}

// The torque of a fixed force at an arm r, turned by theta: its derivative at theta = 0, by
// central differences, is K = -tensionStiffness(f, r) when f pulls along r; shear and
// compression give none.
TEST(TensionStiffness, IsMinusTheTorqueDerivativeUnderTension) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec3 r(u(rng), u(rng), u(rng));
    const Vec3 f = (3.0 + 2.0 * u(rng)) * r;  // tension
    auto torque = [&](const Vec3& theta) {
      const double a = theta.norm();
      const Vec3 turned = a > 0.0 ? Vec3(Eigen::AngleAxisd(a, theta / a) * r) : r;
      return Vec3(turned.cross(f));
    };
    Mat33 K;
    const double e = 1e-6;
    for (int i = 0; i < 3; ++i)
      K.col(i) = (torque(e * Vec3::Unit(i)) - torque(-e * Vec3::Unit(i))) / (2.0 * e);
    const Mat33 S = tensionStiffness(f, r);
    EXPECT_LT((K + S).norm(), 1e-7 * S.norm()) << "trial " << trial;
    EXPECT_LT(S.determinant(), 1e-12);  // no stiffness about the arm itself
    const Vec3 across = r.cross(Vec3(u(rng), u(rng), u(rng)));
    EXPECT_GT(across.dot(S * across), 0.0);  // stiff across it
    // compression, and a force across the arm: none
    EXPECT_TRUE(tensionStiffness(-f, r).isZero(0.0));
    EXPECT_LT(tensionStiffness(across, r).norm(), 1e-12);
  }
}

}  // namespace
}  // namespace tether::core
