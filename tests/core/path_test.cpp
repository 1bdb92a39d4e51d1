#include <gtest/gtest.h>

#include "core/path.h"
#include "core/snapshot.h"
#include "test_util.h"

namespace tether::core {
namespace {

void expectDerivativesMatch(const Path& p, double t0, double t1) {
  const double h = 1e-5;
  for (double t = t0; t <= t1; t += (t1 - t0) / 37.0) {
    const PathSample a = p.sample(t - h), b = p.sample(t + h), s = p.sample(t);
    EXPECT_LT(((b.x - a.x) / (2 * h) - s.v).norm(), 1e-6) << "t = " << t;
    EXPECT_LT(((b.v - a.v) / (2 * h) - s.a).norm(), 1e-5) << "t = " << t;
  }
}

TEST(Path, LineAndCircleDerivatives) {
  PathDef l;
  l.kind = PathKind::Line;
  l.start = Vec3(1, 2, 3);
  l.velocity = Vec3(0.5, -1, 0);
  expectDerivativesMatch(Path(l), 0, 3);
  PathDef c;
  c.kind = PathKind::Circle;
  c.center = Vec3(0, 1, 0);
  c.normal = Vec3(0.2, 0.1, 1);
  c.u = Vec3(1, 0, 0);
  c.radius = 0.7;
  c.period = 1.7;
  c.phase = 0.3;
  const Path p(c);
  expectDerivativesMatch(p, 0, 3);
  for (double t : {0.0, 0.4, 1.1}) EXPECT_NEAR((p.sample(t).x - c.center).norm(), 0.7, 1e-12);
  EXPECT_NEAR((p.sample(0.3).x - p.sample(0.3 + 1.7).x).norm(), 0.0, 1e-12);
}

TEST(Path, SplineInterpolatesKeyframesWithContinuousDerivatives) {
  PathDef s;
  s.kind = PathKind::Spline;
  s.keyframes = {{0.0, Vec3(0, 0, 0)}, {0.5, Vec3(1, 0, 0)}, {1.5, Vec3(1, 2, 0)}, {2.0, Vec3(0, 1, 1)}};
  const Path p(s);
  for (const Keyframe& k : s.keyframes) EXPECT_LT((p.sample(k.t).x - k.position).norm(), 1e-12);
  expectDerivativesMatch(p, -0.5, 2.5);  // includes the linear extensions and every knot
  // natural ends: zero curvature at the first and last keyframe
  EXPECT_LT(p.sample(0.0).a.norm(), 1e-12);
  EXPECT_LT(p.sample(2.0).a.norm(), 1e-12);
  // two keyframes: a straight line at constant speed
  PathDef two;
  two.kind = PathKind::Spline;
  two.keyframes = {{1.0, Vec3(0, 0, 0)}, {3.0, Vec3(2, 0, 0)}};
  EXPECT_LT((Path(two).sample(2.0).v - Vec3(1, 0, 0)).norm(), 1e-12);
}

// "set speed" events run a path's clock faster or slower from where the point is:
//   x(t) = path(tau(t)), tau = tau0 + s (t - t0)
// A line start + v tau at speed 1 until t = 1, then 2: x(2) = start + v (1 + 2 x 1), and the
// point's velocity doubles; a body held on the path by a point-to-path constraint catches up
// with its tau dynamics (paper scene: RK4, tau = 0.1 s) and then moves at twice the speed.
TEST(Path, SpeedEventsRunThePathsClockFromWhereThePointIs) {
  Scene s = test::paperScene();
  s.settings.gravityOn = false;
  s.settings.dt = 1e-3;
  PathDef line;
  line.name = "rail";
  line.kind = PathKind::Line;
  line.start = Vec3(0, 0, 1);
  line.velocity = Vec3(0.5, 0, 0);
  s.paths.push_back(line);
  s.bodies.push_back(test::sphere("ball", Vec3(0, 0, 1), 0.05));
  s.constraints.push_back({.name = "ride", .params = PointToPathDef{.point = test::pt("ball", "center"), .path = "rail"}});
  EventDef faster;
  faster.time = 1.0;
  faster.action = EventAction::Set;
  faster.target = "rail";
  faster.param = "speed";
  faster.value = {2.0};
  s.events.push_back(faster);
  auto sim = test::simulate(s);
  Snapshot snap;
  ASSERT_TRUE(sim->advanceTo(2.0).ok);
  fillSnapshot(*sim, sceneGeometry(s, sim->model()), snap);
  EXPECT_LT((snap.pathPoints[0] - Vec3(0.5 * 3.0, 0, 1)).norm(), 1e-12);
  ASSERT_TRUE(sim->advanceTo(3.0).ok);
  fillSnapshot(*sim, sceneGeometry(s, sim->model()), snap);
  EXPECT_LT((snap.pathPoints[0] - Vec3(0.5 * 5.0, 0, 1)).norm(), 1e-12);
  EXPECT_LT(snap.constraints[0].deviation, 1e-6);  // the ball caught up
  EXPECT_NEAR(snap.bodies[0].v.x(), 1.0, 1e-6);    // and runs at twice the speed
  // speed 0 stops the point where it is
  s.events[0].value = {0.0};
  auto stop = test::simulate(s);
  ASSERT_TRUE(stop->advanceTo(3.0).ok);
  fillSnapshot(*stop, sceneGeometry(s, stop->model()), snap);
  EXPECT_LT((snap.pathPoints[0] - Vec3(0.5, 0, 1)).norm(), 1e-12);
  EXPECT_LT(snap.bodies[0].v.norm(), 1e-6);
}

}  // namespace
}  // namespace tether::core
