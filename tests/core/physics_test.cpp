// Physics against analytic results (the tests 1-6).
#include <gtest/gtest.h>

#include <cmath>

#include "core/headless.h"
#include "core/body.h"
#include "core/constraint_system.h"
#include "core/forces.h"
#include "test_util.h"

namespace tether::core {
namespace {

using test::pt;

// Paper Example 2: a ball pulled to a nail at its centre with gravity on. The deviation
// D = x - x0 obeys D'' + 2/tau D' + D/tau^2 = 0, whose solution from D(0) = D0, D'(0) = V0 is
//   D(t) = (D0 + (V0 + D0/tau) t) e^(-t/tau)
// (characteristic root -1/tau, double). At rest the constraint force is -m g.
TEST(Physics, PaperExample2BallToNailFollowsCriticallyDampedClosedForm) {
  Scene s = test::paperScene();
  s.settings.dt = 1e-3;
  const double tau = 0.2;
  const Vec3 nail(0, 0, 1), x0(0.5, -0.3, 0.2), v0(0.4, 0.1, 1.0);
  BodyDef ball = test::sphere("ball", x0, 0.1);
  ball.velocity = v0;
  s.bodies.push_back(ball);
  s.nails.push_back({"nail", nail});
  s.constraints.push_back(test::pointToNail("c", pt("ball", "center"), "nail", tau));
  auto sim = test::simulate(s);
  const Vec3 D0 = x0 - nail;
  double worst = 0.0;
  for (int k = 1; k <= 3000; ++k) {
    const double t = k * 1e-3;
    ASSERT_TRUE(sim->advanceTo(t).ok);
    const Vec3 exact = (D0 + (v0 + D0 / tau) * t) * std::exp(-t / tau);
    const Vec3 D = sim->state().bodies[0].x - nail;
    worst = std::max(worst, (D - exact).norm() / D0.norm());
  }
  EXPECT_LT(worst, 1e-6);
  // at rest (t = 3 s = 15 tau): the constraint force cancels gravity
  sim->refresh();
  Vec3 f, torque;
  sim->context().system.constraintForce(0, 0, f, torque);
  const double m = sim->model().bodies[0].mass;
  EXPECT_NEAR((f - (-m * s.settings.gravity)).norm() / (m * 9.81), 0.0, 1e-4);
  EXPECT_LT(torque.norm(), 1e-12);
}

// Angle of a rod hanging from its end1 at the origin, measured in the xz plane from -z.
double hangAngle(const BodyState& b) {
  const Vec3 axis = b.q * Vec3::UnitZ();  // end1 -> end2
  return std::atan2(axis.x(), -axis.z());
}

// Uniform thin rod pinned at one end: I_pivot = m L^2 / 3 (+ m r^2 / 4 for the cylinder's
// thickness), torque -m g (L/2) sin(theta), so for small angles
//   T = 2 pi sqrt(I_pivot / (m g L / 2)) -> 2 pi sqrt(2 L / (3 g)).
TEST(Physics, PinnedRodSmallAnglePeriod) {
  const double L = 1.0, g = 9.81, r = 0.002, theta0 = 0.01;
  Scene s = test::paperScene();
  s.settings.dt = 1e-3;
  s.settings.gravity = Vec3(0, 0, -g);
  s.nails.push_back({"pivot", Vec3::Zero()});
  s.bodies.push_back(test::rod("rod", Vec3::Zero(), L * Vec3(std::sin(theta0), 0, -std::cos(theta0)), r));
  s.constraints.push_back(test::pointToNail("pin", pt("rod", "end1"), "pivot", 0.05));
  auto sim = test::simulate(s);
  // upward zero crossings of theta, interpolated linearly
  std::vector<double> crossings;
  double prevT = 0.0, prevA = hangAngle(sim->state().bodies[0]);
  for (int k = 1; k <= 12000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok);
    const double a = hangAngle(sim->state().bodies[0]), t = sim->state().t;
    if (prevA < 0.0 && a >= 0.0) crossings.push_back(prevT + (t - prevT) * (-prevA) / (a - prevA));
    prevT = t;
    prevA = a;
  }
  ASSERT_GE(crossings.size(), 5u);
  const double period = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  const double expected = 2.0 * M_PI * std::sqrt(2.0 * L / (3.0 * g));
  EXPECT_NEAR(period / expected, 1.0, 1e-3);
}

// Compound pendulum (paper Fig. 3), undamped, released horizontal: large angles and chaos.
// Energy scale for the drift: sum m g L. Step: RK4, dt = 1 ms, tau = 0.05 s.
TEST(Physics, CompoundPendulumConservesEnergyAndHoldsConstraints) {
  const Scene s = test::compoundPendulum(0.05);
  auto sim = test::simulate(s);
  const Model& m = sim->model();
  const double scale = (m.bodies[0].mass + m.bodies[1].mass) * 9.81 * 1.0;
  const double e0 = energy(m, sim->state()).total();
  double drift = 0.0, maxD = 0.0, maxAngle = 0.0;
  std::vector<double> dev;
  for (int k = 1; k <= 20000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok);
    drift = std::max(drift, std::abs(energy(m, sim->state()).total() - e0) / scale);
    sim->deviations(dev);
    maxD = std::max({maxD, dev[0], dev[1]});
    maxAngle = std::max(maxAngle, std::abs(hangAngle(sim->state().bodies[1])));
  }
  EXPECT_LT(drift, 1e-5);
  EXPECT_LT(maxD, 1e-6);
  EXPECT_GT(maxAngle, 2.0);  // really large angles
}

// The step's small-matrix helpers against their plain definitions.
TEST(Physics, SmallMatrixAndFinitenessHelpers) {
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, -2, 0.5).normalized()).toRotationMatrix();
  const Vec3 d(0.3, 2.0, 7.5);
  const Mat3 I = rotateDiagonal(R, d);
  EXPECT_LT((I - R * d.asDiagonal() * R.transpose()).norm(), 1e-14);
  Mat3 inv;
  ASSERT_TRUE(invertSpd(I, 1e-12, inv));
  EXPECT_LT((inv * I - Mat3::Identity()).norm(), 1e-13);
  EXPECT_FALSE(invertSpd(rotateDiagonal(R, Vec3(1, 1, 0)), 1e-12, inv));  // singular
  // the rotation of q / |q| from an unnormalized q (no square root), and the identity for q = 0
  const Quat q(Eigen::AngleAxisd(0.7, Vec3(1, -2, 0.5).normalized()));
  EXPECT_LT((rotationOf(3.0 * q.w(), 3.0 * q.x(), 3.0 * q.y(), 3.0 * q.z()) - R).norm(), 1e-14);
  EXPECT_EQ(rotationOf(0.0, 0.0, 0.0, 0.0), Mat3::Identity());
  // S += s A B^T for a symmetric product (A = B C, C symmetric), against the full product
  const Mat3 B = Mat3::Random(), A = B * I;
  Mat3 S = I;
  addSymmetricProduct(S, -0.5, A, B);
  EXPECT_LT((S - (I - 0.5 * A * B.transpose())).norm(), 1e-12);
  // products with a cross-product matrix [a]x (skew(a)), and the symmetric one
  const Vec3 a(0.3, -1.1, 0.8), b(-0.4, 0.2, 1.5);
  const Mat3 X = skewTimes(a, I);
  EXPECT_LT((X - skew(a) * I).norm(), 1e-14);
  EXPECT_LT((timesSkewT(X, b) - X * skew(b).transpose()).norm(), 1e-14);
  Mat3 T = I;
  addTimesSkewTSymmetric(T, X, a);
  EXPECT_LT((T - (I + skew(a) * I * skew(a).transpose())).norm(), 1e-13);
  // every position (the four-wide loop and the remainder), NaN and both infinities
  for (const int n : {3, 13, 26, 27}) {
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(n, -1e300, 1e300);
    EXPECT_TRUE(allFiniteLong(y));
    for (int i = 0; i < n; ++i)
      for (const double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
        Eigen::VectorXd z = y;
        z(i) = bad;
        EXPECT_FALSE(allFiniteLong(z)) << "n " << n << " at " << i;
      }
  }
}

// Torque-free box (extents 1 x 2 x 3: I_x > I_y > I_z) spun about its intermediate axis y with
// a small perturbation: the Dzhanibekov flip. L is constant; 1/2 L . w is constant.
TEST(Physics, TorqueFreeBoxIntermediateAxisFlips) {
  Scene s = test::paperScene();
  s.settings.dt = 1e-3;
  s.settings.gravityOn = false;
  BodyDef box;
  box.name = "box";
  box.shape = Shape::Box;
  box.size = Vec3(1, 2, 3);
  box.density = 10;
  box.angularVelocity = Vec3(0.01, 3.0, 0.01);
  s.bodies.push_back(box);
  auto sim = test::simulate(s);
  const Model& m = sim->model();
  const Vec3 L0 = sim->state().bodies[0].L;
  const double e0 = energy(m, sim->state()).kinetic;
  double minAlign = 1.0, maxAlign = -1.0, lErr = 0.0, eErr = 0.0;
  for (int k = 1; k <= 20000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok);
    const BodyState& b = sim->state().bodies[0];
    lErr = std::max(lErr, (b.L - L0).norm() / L0.norm());
    eErr = std::max(eErr, std::abs(energy(m, sim->state()).kinetic - e0) / e0);
    const double align = (b.q * Vec3::UnitY()).dot(L0.normalized());
    minAlign = std::min(minAlign, align);
    maxAlign = std::max(maxAlign, align);
  }
  EXPECT_LT(lErr, 1e-9);
  EXPECT_LT(eErr, 1e-7);
  EXPECT_GT(maxAlign, 0.99);   // starts along +L
  EXPECT_LT(minAlign, -0.99);  // and flips to -L
}

// Orientation constraint on a free rod (no gravity), starting at rest 100 degrees away: the
// rod turns in one plane, so D = 2 tan(theta/2) u keeps its direction u and its size follows
// |D|(t) = |D0| (1 + t/tau) e^(-t/tau).
TEST(Physics, OrientationAlignsWithCriticallyDampedApproach) {
  Scene s = test::paperScene();
  s.settings.dt = 1e-3;
  s.settings.gravityOn = false;
  const double tau = 0.1, angle = 100.0 * M_PI / 180.0;
  s.bodies.push_back(test::rod("rod", Vec3::Zero(), Vec3(std::sin(angle), 0, std::cos(angle)), 0.02));
  s.constraints.push_back(
      {.name = "align", .tau = tau, .params = OrientationDef{.body = "rod", .axis = Vec3::UnitZ(), .direction = Vec3::UnitZ()}});
  auto sim = test::simulate(s);
  const double D0 = 2.0 * std::tan(0.5 * angle);
  double worst = 0.0;
  for (int k = 1; k <= 2000; ++k) {
    const double t = k * 1e-3;
    ASSERT_TRUE(sim->advanceTo(t).ok);
    const double theta = std::acos(std::clamp((sim->state().bodies[0].q * Vec3::UnitZ()).z(), -1.0, 1.0));
    const double D = 2.0 * std::tan(0.5 * theta);
    worst = std::max(worst, std::abs(D - D0 * (1.0 + t / tau) * std::exp(-t / tau)) / std::abs(D0));
  }
  EXPECT_LT(worst, 1e-6);
  // a pure torque: the centre of mass never moved
  EXPECT_LT((sim->state().bodies[0].x - s.bodies[0].position).norm(), 1e-12);
}

Scene circlePathScene(double tau, bool startMoving) {
  Scene s = test::paperScene();
  s.settings.dt = 1e-3;
  PathDef p;
  p.name = "circle";
  p.kind = PathKind::Circle;
  p.center = Vec3(0, 0, 1);
  p.normal = Vec3(0, 0.3, 1);
  p.u = Vec3(1, 0, 0);
  p.radius = 0.5;
  p.period = 2.0;
  s.paths.push_back(p);
  const PathSample x0 = Path(p).sample(0.0);
  BodyDef ball = test::sphere("ball", x0.x, 0.05);
  if (startMoving) ball.velocity = x0.v;
  s.bodies.push_back(ball);
  s.constraints.push_back({.name = "follow", .tau = tau, .params = PointToPathDef{.point = pt("ball", "center"), .path = "circle"}});
  return s;
}

// Point-to-path on a tilted circle under gravity. Starting on the path with its velocity,
// the point never leaves it (the X'' feed-forward carries the centripetal acceleration).
// Starting at rest on the start point, D(0) = 0, D'(0) = -X'(0) and
//   D(t) = -X'(0) t e^(-t/tau);
// after 5 tau the tracking error keeps to that closed form within 1e-6 m, and after 20 tau
// it is below 1e-6 m outright.
TEST(Physics, PointToPathTracksCircle) {
  const double tau = 0.05;
  {
    auto sim = test::simulate(circlePathScene(tau, true));
    double worst = 0.0;
    for (int k = 1; k <= 4000; ++k) {
      ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok);
      const Path& path = sim->model().paths[0];
      worst = std::max(worst, (sim->state().bodies[0].x - path.sample(sim->state().t).x).norm());
    }
    EXPECT_LT(worst, 1e-6);
  }
  {
    const Scene s = circlePathScene(tau, false);
    auto sim = test::simulate(s);
    const Path& path = sim->model().paths[0];
    const Vec3 v0 = path.sample(0.0).v;
    double worstClosed = 0.0, worstLate = 0.0;
    for (int k = 1; k <= 4000; ++k) {
      const double t = k * 1e-3;
      ASSERT_TRUE(sim->advanceTo(t).ok);
      const Vec3 D = sim->state().bodies[0].x - path.sample(t).x;
      if (t >= 5 * tau) worstClosed = std::max(worstClosed, (D - (-v0 * t * std::exp(-t / tau))).norm());
      if (t >= 20 * tau) worstLate = std::max(worstLate, D.norm());
    }
    EXPECT_LT(worstClosed, 1e-6);
    EXPECT_LT(worstLate, 1e-6);
  }
}

// Mass properties against textbook values.
TEST(Physics, MassPropertiesOfPrimitives) {
  BodyDef r = test::rod("r", Vec3::Zero(), Vec3(0, 0, 2), 0.1, 500);
  MassProperties mp = massProperties(r);
  const double m = 500 * M_PI * 0.01 * 2;
  EXPECT_NEAR(mp.mass, m, 1e-12);
  EXPECT_NEAR(mp.inertia.x(), m * (3 * 0.01 + 4) / 12, 1e-12);
  EXPECT_NEAR(mp.inertia.z(), m * 0.01 / 2, 1e-12);
  BodyDef t;
  t.shape = Shape::Torus;
  t.majorRadius = 0.3;
  t.minorRadius = 0.05;
  t.density = 2000;
  mp = massProperties(t);
  const double mt = 2000 * 2 * M_PI * M_PI * 0.3 * 0.0025;
  EXPECT_NEAR(mp.mass, mt, 1e-12);
  EXPECT_NEAR(mp.inertia.z(), mt * (0.09 + 0.75 * 0.0025), 1e-12);
  EXPECT_NEAR(mp.inertia.x(), mt * (0.045 + 0.625 * 0.0025), 1e-12);
  BodyDef b;
  b.shape = Shape::Box;
  b.size = Vec3(1, 2, 3);
  b.density = 1;
  mp = massProperties(b);
  EXPECT_NEAR(mp.mass, 6, 1e-12);
  EXPECT_NEAR(mp.inertia.y(), 6 * 10 / 12.0, 1e-12);
}

}  // namespace
}  // namespace tether::core
