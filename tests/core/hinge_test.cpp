// The hinge (core/constraints/hinge.h): its kinematics are checked with every type by
// constraint_fd_test.cpp; here its physics against closed forms and conservation laws.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/body.h"
#include "core/forces.h"
#include "core/headless.h"
#include "core/model.h"
#include "core/scene_io.h"
#include "core/simulation.h"
#include "test_util.h"

namespace tether::core {
namespace {

using test::pt;

Vec3 omega(const Simulation& sim, int b) {
  std::vector<BodyKinematics> kin;
  bodyKinematics(sim.model(), sim.state().params, sim.state().bodies, kin);
  return kin[size_t(b)].w;
}

BodyDef fixedPost() {
  BodyDef post;
  post.name = "post";
  post.shape = Shape::Box;
  post.size = Vec3(0.1, 0.1, 0.1);
  post.fixed = true;
  post.position = Vec3(0, 0, 2);
  return post;
}

ConstraintDef hinge(const PointRef& a, const Vec3& axisA, const PointRef& b, const Vec3& axisB) {
  return {.name = "hinge", .params = HingeDef{.a = a, .b = b, .axisA = axisA, .axisB = axisB}};
}

// A rod hinged by its end to a fixed post about the world y axis, released 0.05 rad from
// hanging straight down, swings in the xz plane as the compound pendulum:
//   T0 = 2 pi sqrt(I_pivot / (m g d)),  I_pivot = m (3 r^2 + L^2) / 12 + m d^2,  d = L / 2,
// and at amplitude theta0, T = T0 (1 + theta0^2 / 16 + ...). Its initial velocity has a part
// off the hinge's plane (a push along y and a twist about x), which the hinge must take out
// (assembly), leaving the swing in the plane.
TEST(Hinge, PendulumSwingsWithTheCompoundPendulumsPeriod) {
  const double L = 1.0, r = 0.02, theta0 = 0.05;
  Scene s = test::paperScene();
  s.settings.projection = true;
  s.settings.dt = 1e-3;
  s.bodies.push_back(fixedPost());
  const Vec3 pivot(0.05, 0, 2);
  s.bodies[0].points.push_back({"pivot", Vec3(0.05, 0, 0)});
  BodyDef rod = test::rod("rod", pivot, pivot + L * Vec3(std::sin(theta0), 0, -std::cos(theta0)), r);
  s.bodies.push_back(rod);
  // the rod's y axis in its body frame, the post's y axis in its own
  s.constraints.push_back(hinge(pt("rod", "end1"), rod.orientation.conjugate() * Vec3::UnitY(), pt("post", "pivot"),
                                Vec3::UnitY()));
  auto sim = test::simulate(s);
  // zero crossings of the angle (x of the centre relative to the pivot), after 1 s
  double last = 0.0, prevX = 0.0;
  std::vector<double> crossings;
  double maxY = 0.0, maxOffAxisSpin = 0.0;
  for (int k = 1; k <= 12000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok);
    const double x = sim->state().bodies[1].x.x() - pivot.x();
    if (k > 1 && prevX > 0.0 && x <= 0.0) {
      // linear interpolation of the crossing between the two output steps
      crossings.push_back((k - 1) * 1e-3 + 1e-3 * prevX / (prevX - x));
    }
    prevX = x;
    last = x;
    maxY = std::max(maxY, std::abs(sim->state().bodies[1].x.y()));
    const Vec3 w = omega(*sim, 1);
    maxOffAxisSpin = std::max(maxOffAxisSpin, std::hypot(w.x(), w.z()));
  }
  (void)last;
  ASSERT_GE(crossings.size(), 5u);
  const double measured = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  const double m = massProperties(rod).mass, d = L / 2;
  const double Ipivot = m * (3 * r * r + L * L) / 12 + m * d * d;
  const double T = 2 * std::numbers::pi * std::sqrt(Ipivot / (m * 9.81 * d)) * (1 + theta0 * theta0 / 16);
  EXPECT_NEAR(measured / T, 1.0, 2e-4) << "measured " << measured << " s, closed form " << T << " s";
  EXPECT_LT(maxY, 1e-9);            // in the plane normal to the axis
  EXPECT_LT(maxOffAxisSpin, 1e-9);  // turning about y only
}

// A box hinged to a fixed post about a generic axis (not a coordinate axis), released from rest
// off the hanging pose: it swings about the axis only, and the undamped hinge does no work
// (RK4 keeps the energy to round-off levels), while the joint stays closed.
TEST(Hinge, TiltedAxisSwingDoesNoWorkAndTurnsAboutTheAxisOnly) {
  Scene s = test::paperScene();
  s.settings.projection = true;
  s.settings.dt = 1e-3;
  s.bodies.push_back(fixedPost());
  s.bodies[0].points.push_back({"pivot", Vec3(0.05, 0, 0)});
  const Vec3 n = Vec3(1, 2, 0.5).normalized();  // the hinge axis, world (= post frame)
  BodyDef door;
  door.name = "door";
  door.shape = Shape::Box;
  door.size = Vec3(0.6, 0.03, 0.9);
  // the door's hinge point at its edge, local (-0.3, 0, 0); the door hangs off the axis,
  // turned so that its edge points from the pivot along u (normal to n)
  const Vec3 u = n.cross(Vec3::UnitZ()).cross(n).normalized() * -1.0;  // the downhill normal to n
  const Vec3 pivot(0.05, 0, 2);
  const Vec3 e = Eigen::AngleAxisd(1.0, n) * u;  // 1 rad up the swing
  const Vec3 y = n.cross(e).normalized();
  Mat3 R;
  R.col(0) = e;
  R.col(1) = y;
  R.col(2) = e.cross(y);
  door.orientation = Quat(R);
  door.position = pivot + 0.3 * e;
  door.points.push_back({"hinge", Vec3(-0.3, 0, 0)});
  s.bodies.push_back(door);
  s.constraints.push_back(hinge(pt("door", "hinge"), door.orientation.conjugate() * n, pt("post", "pivot"), n));
  auto sim = test::simulate(s);
  ASSERT_TRUE(sim->advanceTo(0.01).ok);
  const double e0 = test::mechanicalEnergy(*sim), scale = massProperties(door).mass * 9.81 * 0.3;
  double worstE = 0.0, worstOff = 0.0, worstGap = 0.0, swing = 0.0;
  std::vector<double> dev;
  for (double t = 0.05; t <= 20.0; t += 0.05) {
    ASSERT_TRUE(sim->advanceTo(t).ok);
    worstE = std::max(worstE, std::abs(test::mechanicalEnergy(*sim) - e0) / scale);
    const Vec3 w = omega(*sim, 1);
    worstOff = std::max(worstOff, (w - w.dot(n) * n).norm());
    swing = std::max(swing, std::abs(w.dot(n)));
    sim->deviations(dev);
    worstGap = std::max(worstGap, dev[0]);
  }
  std::printf("tilted hinge, rk4 20 s: energy drift / (m g l) %.3g, off-axis spin %.3g rad/s, max |D| %.3g\n", worstE,
              worstOff, worstGap);
  EXPECT_GT(swing, 1.0);      // it swings
  EXPECT_LT(worstE, 1e-8);    // and does no work
  EXPECT_LT(worstOff, 1e-8);  // about the axis only
  EXPECT_LT(worstGap, 1e-9);
}

// A hinge's axis is a line: the same door with b's axis given the other way round (a user's
// easy mistake) hinges the same. Aligned with -N it would sit at the deviation's singular point:
// it never assembled (|D| = 2) and gained energy without bound (377 J to 23 398 J in 5 s).
TEST(Hinge, AxesGivenOppositeWaysHingeTheSame) {
  auto run = [](double sign) {
    Scene s = test::paperScene();
    s.settings.projection = true;
    s.bodies.push_back(fixedPost());
    s.bodies[0].points.push_back({"pivot", Vec3(0.05, 0, 0)});
    BodyDef leaf;
    leaf.name = "leaf";
    leaf.shape = Shape::Box;
    leaf.size = Vec3(0.8, 1.0, 0.04);
    leaf.position = Vec3(0.45, 0, 2);
    leaf.points.push_back({"hinge", Vec3(-0.4, 0, 0)});
    s.bodies.push_back(leaf);
    s.constraints.push_back(hinge(pt("leaf", "hinge"), Vec3::UnitY(), pt("post", "pivot"), sign * Vec3::UnitY()));
    auto sim = test::simulate(s);
    const double e0 = test::mechanicalEnergy(*sim);
    EXPECT_TRUE(sim->advanceTo(3.0).ok);
    std::vector<double> dev;
    sim->deviations(dev);
    return std::make_pair(std::max(dev[0], dev[1]), std::abs(test::mechanicalEnergy(*sim) - e0));
  };
  const auto same = run(1.0), opposite = run(-1.0);
  EXPECT_LT(same.first, 1e-8);
  EXPECT_LT(opposite.first, 1e-8);
  EXPECT_LT(opposite.second, 1e-6 * 377.0);
  EXPECT_NEAR(opposite.second, same.second, 1e-9);
}

// Two boxes hinged together, floating without gravity, thrown with unrelated velocities and
// spins and off their joint: the hinge pulls them together with internal forces and torques
// only (equal and opposite), so linear momentum stays what it was and, once the joint has
// closed, angular momentum too; they then turn relative to each other only about the common
// axis.
TEST(Hinge, HingedPairInSpaceKeepsItsMomentum) {
  Scene s = test::paperScene();
  s.settings.gravityOn = false;
  s.settings.projection = true;
  s.settings.dt = 1e-3;
  s.settings.defaultTau = 0.2;
  for (int i = 0; i < 2; ++i) {
    BodyDef b;
    b.name = i ? "b" : "a";
    b.shape = Shape::Box;
    b.size = i ? Vec3(0.5, 0.2, 0.1) : Vec3(0.3, 0.3, 0.6);
    b.position = i ? Vec3(0.5, 0.1, 0.05) : Vec3(0, 0, 0);
    b.orientation = i ? Quat(Eigen::AngleAxisd(0.3, Vec3(1, 1, 0).normalized())) : Quat::Identity();
    b.velocity = i ? Vec3(-0.2, 0.3, 0.1) : Vec3(0.1, 0, -0.2);
    b.angularVelocity = i ? Vec3(0.5, -1.0, 2.0) : Vec3(0, 1.5, -0.5);
    b.points.push_back({"h", i ? Vec3(-0.25, 0, 0) : Vec3(0.15, 0, 0)});
    s.bodies.push_back(b);
  }
  s.constraints.push_back(hinge(pt("a", "h"), Vec3::UnitZ(), pt("b", "h"), Vec3::UnitY()));
  auto sim = test::simulate(s);
  auto momenta = [&](Vec3& P, Vec3& Lo) {
    P.setZero();
    Lo.setZero();
    for (const BodyState& b : sim->state().bodies) {
      P += b.P;
      Lo += b.L + b.x.cross(b.P);  // about the origin
    }
  };
  Vec3 P0, L0, P1, L1;
  momenta(P0, L0);
  ASSERT_TRUE(sim->advanceTo(4.0).ok);  // 20 tau: assembled
  momenta(P1, L1);
  EXPECT_LT((P1 - P0).norm(), 1e-9 * (1 + P0.norm()));
  // (while the points are apart the pair of forces is a couple, (p2 - p1) x F: angular
  // momentum is conserved once they meet)
  ASSERT_TRUE(sim->advanceTo(10.0).ok);
  Vec3 P2, L2;
  momenta(P2, L2);
  EXPECT_LT((P2 - P0).norm(), 1e-9 * (1 + P0.norm()));
  EXPECT_LT((L2 - L1).norm(), 1e-7 * (1 + L1.norm())) << L1.transpose() << " then " << L2.transpose();
  std::vector<double> dev;
  sim->deviations(dev);
  EXPECT_LT(dev[0], 1e-7);
  EXPECT_LT(dev[1], 1e-7);
  // relative spin along the (now common) axis only
  std::vector<BodyKinematics> kin;
  bodyKinematics(sim->model(), sim->state().params, sim->state().bodies, kin);
  const Vec3 axis = kin[0].R.col(2), wr = kin[0].w - kin[1].w;
  EXPECT_NEAR(std::abs(axis.dot(kin[1].R.col(1))), 1.0, 1e-9);
  EXPECT_LT((wr - wr.dot(axis) * axis).norm(), 1e-7);
}

// The bundled door at the default settings (semi-implicit Euler) for ten minutes: it assembles
// onto its hinge and closes; no divergence, the joint held, and the check reports one
// constraint removing five freedoms.
TEST(Hinge, DoorExampleAtDefaultSettings) {
  Scene s = loadScene(TETHER_EXAMPLES_DIR "/door_on_hinge.json");
  s.settings.duration = 600.0;
  const RunSummary r = runScene(s, {});
  ASSERT_FALSE(r.diverged) << r.message;
  ASSERT_EQ(r.constraints.size(), 1u);
  EXPECT_EQ(r.constraints[0].name, "hinge");
  EXPECT_LT(r.constraints[0].maxDeviation, 1e-6);
  const CheckReport c = checkScene(loadScene(TETHER_EXAMPLES_DIR "/door_on_hinge.json"));
  EXPECT_EQ(c.constraints, 1);
  EXPECT_EQ(c.rows, 5);
  EXPECT_EQ(c.rank, 5);
}

}  // namespace
}  // namespace tether::core
