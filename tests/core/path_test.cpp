#include <gtest/gtest.h>

#include "core/path.h"

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

}  // namespace
}  // namespace tether::core
