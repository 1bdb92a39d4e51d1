// render/ without GL: the camera's projection and rays, picking on a snapshot, and the debug
// overlay's arrow scales (render/overlay.h).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "render/camera.h"
#include "render/overlay.h"
#include "render/picking.h"

using namespace tether;
using core::Vec3;

namespace {

render::Camera frontCamera() {
  render::Camera c;
  c.resize(800, 600);
  c.set(Vec3(0, 0, 0), 4.0, -M_PI / 2, 0.0);  // looking along +y at the origin
  return c;
}

// A snapshot with one sphere (radius 0.1 at (0.5, 0, 0)) and a nail at (-0.5, 0, 0.5).
core::Snapshot oneSphere() {
  auto geo = std::make_shared<core::SceneGeometry>();
  core::BodyGeometry b;
  b.name = "ball";
  b.shape = core::Shape::Sphere;
  b.radius = 0.1;
  b.points = {{"center", Vec3::Zero()}, {"top", Vec3(0, 0, 0.1)}};
  geo->bodies.push_back(b);
  geo->nails.push_back({"nail", Vec3(-0.5, 0, 0.5)});
  core::Snapshot s;
  s.geometry = geo;
  core::BodyPose p;
  p.x = Vec3(0.5, 0, 0);
  s.bodies.push_back(p);
  return s;
}

}  // namespace

TEST(Camera, ProjectAndRayAgree) {
  const render::Camera c = frontCamera();
  for (const Vec3& w : {Vec3(0, 0, 0), Vec3(0.7, 0.3, -0.4), Vec3(-1, 2, 1)}) {
    double px = 0, py = 0;
    ASSERT_TRUE(c.project(w, px, py));
    const render::Ray r = c.ray(px, py);
    // the ray through the pixel passes through the point
    const Vec3 d = w - r.origin;
    // (GLM's single-precision matrices: ~1e-7 relative)
    EXPECT_LT((d - d.dot(r.direction) * r.direction).norm(), 1e-6 * (1 + d.norm()));
  }
  double px = 0, py = 0;
  c.project(Vec3::Zero(), px, py);
  EXPECT_NEAR(px, 400, 1e-9);  // the target is at the centre
  EXPECT_NEAR(py, 300, 1e-9);
  EXPECT_NEAR(c.workPlaneNormal().cwiseAbs().y(), 1.0, 1e-12);  // front view: the xz plane
  // a pixel at the target's depth: the view's height over the pixel rows
  EXPECT_NEAR(c.pixelSize(Vec3::Zero()), 2 * 4.0 * std::tan(render::Camera::kFovY / 2) / 600, 1e-9);
}

// The wheel zooms toward the point under the cursor: it stays on its pixel, in and out, in front
// of the target or behind it, and the distance scales as zoom's.
TEST(Camera, ZoomAtKeepsThePointOnItsPixel) {
  for (const Vec3& fixed : {Vec3(1.2, 0.5, 0.8), Vec3(-0.6, -1.5, -0.3), Vec3(0.3, 2.0, 0.1)}) {
    for (const double steps : {3.0, -4.0}) {
      render::Camera c = frontCamera();
      c.orbit(40, 25);
      double px = 0, py = 0, qx = 0, qy = 0;
      ASSERT_TRUE(c.project(fixed, px, py));
      const double before = c.distance();
      c.zoomAt(steps, fixed);
      ASSERT_TRUE(c.project(fixed, qx, qy));
      EXPECT_NEAR(qx, px, 1e-3);  // (single-precision matrices)
      EXPECT_NEAR(qy, py, 1e-3);
      EXPECT_NEAR(c.distance(), before * std::pow(0.85, steps), 1e-12);
    }
  }
}

TEST(Picking, BodiesPointsNailsAndSegmentsWithinTheirRadius) {
  const render::Camera c = frontCamera();
  const core::Snapshot s = oneSphere();
  double px = 0, py = 0;
  c.project(Vec3(0.5, 0, 0), px, py);
  const render::Hit body = render::pickBody(s, c.ray(px, py));
  ASSERT_EQ(body.kind, render::Hit::Kind::Body);
  EXPECT_EQ(body.index, 0);
  EXPECT_NEAR((body.position - Vec3(0.5, 0, 0)).norm(), 0.1, 1e-6);  // on the surface
  EXPECT_LT(body.position.y(), -0.09);                                // the near side
  EXPECT_FALSE(render::pickBody(s, c.ray(px + 40, py)));  // 40 px is ~0.2 m: a miss

  c.project(Vec3(0.5, 0, 0.1), px, py);
  const render::Hit top = render::pickControlPoint(s, c, px + 3, py, 6);
  ASSERT_EQ(top.kind, render::Hit::Kind::ControlPoint);
  EXPECT_EQ(top.point, 1);
  EXPECT_FALSE(render::pickControlPoint(s, c, px + 40, py, 6));

  // a ball's centre and its front pole fall on one pixel in the front view: the click on the middle
  // takes the centre, of the ball in front as much as of one behind it (and a nearer body's point
  // over a farther one's)
  for (const bool frontFirst : {true, false}) {
    core::Snapshot ball = oneSphere();
    auto geo = std::make_shared<core::SceneGeometry>(*ball.geometry);
    const Vec3 front = c.eye().y() < 0 ? Vec3(0, -0.1, 0) : Vec3(0, 0.1, 0);
    if (frontFirst) geo->bodies[0].points.insert(geo->bodies[0].points.begin(), {"front", front});
    else geo->bodies[0].points.push_back({"front", front});
    core::BodyGeometry behind = geo->bodies[0];
    behind.name = "behind";
    geo->bodies.push_back(behind);
    ball.geometry = geo;
    ball.bodies[0].x = Vec3::Zero();  // (on the line of sight through the view's centre)
    core::BodyPose back = ball.bodies[0];
    back.x -= 0.5 * front / front.norm();  // 0.5 m further from the eye, on the same pixel
    ball.bodies.push_back(back);
    c.project(Vec3::Zero(), px, py);
    const render::Hit centre = render::pickControlPoint(ball, c, px + 1, py, 6);
    ASSERT_EQ(centre.kind, render::Hit::Kind::ControlPoint);
    EXPECT_EQ(centre.index, 0);
    EXPECT_EQ(geo->bodies[0].points[size_t(centre.point)].name, "center") << frontFirst;
  }

  // a second click avoiding a body takes another body's point anywhere within the radius, not
  // the avoided body's point a few pixels nearer (a helper's hinge was refused so)
  {
    core::Snapshot two = oneSphere();
    auto geo = std::make_shared<core::SceneGeometry>(*two.geometry);
    core::BodyGeometry other = geo->bodies[0];
    other.name = "other";
    geo->bodies.push_back(other);
    two.geometry = geo;
    core::BodyPose shifted = two.bodies[0];
    shifted.x += Vec3(4 * c.pixelSize(shifted.x), 0, 0);  // its centre 4 px right of the first's
    two.bodies.push_back(shifted);
    c.project(two.bodies[0].x, px, py);
    EXPECT_EQ(render::pickControlPoint(two, c, px, py, 6).index, 0);
    const render::Hit avoided = render::pickControlPoint(two, c, px, py, 6, 0);
    ASSERT_EQ(avoided.kind, render::Hit::Kind::ControlPoint);
    EXPECT_EQ(avoided.index, 1);
    EXPECT_EQ(geo->bodies[1].points[size_t(avoided.point)].name, "center");
    EXPECT_EQ(render::pickControlPoint(two, c, px, py, 6, 1).index, 0);
  }

  c.project(Vec3(-0.5, 0, 0.5), px, py);
  EXPECT_EQ(render::pickNail(s, c, px, py - 5, 6).kind, render::Hit::Kind::Nail);
  EXPECT_FALSE(render::pickNail(s, c, px, py - 8, 6));

  const std::vector<render::Segment> segs = {{render::Segment::Kind::ConstraintForce, 3, Vec3(0, 0, 0), Vec3(1, 0, 0)}};
  c.project(Vec3(0.5, 0, 0), px, py);
  const render::Hit seg = render::pickSegment(segs, c, px, py + 4, 6);
  ASSERT_EQ(seg.kind, render::Hit::Kind::Segment);
  EXPECT_EQ(seg.index, 0);
  EXPECT_NEAR(seg.distance, 4, 0.01);
  EXPECT_FALSE(render::pickSegment(segs, c, px, py + 10, 6));
}

TEST(Overlay, NiceCeilRoundsUpTo125) {
  EXPECT_DOUBLE_EQ(render::niceCeil(1.0), 1.0);
  EXPECT_DOUBLE_EQ(render::niceCeil(1.01), 2.0);
  EXPECT_DOUBLE_EQ(render::niceCeil(3.42), 5.0);
  EXPECT_DOUBLE_EQ(render::niceCeil(7.0), 10.0);
  EXPECT_NEAR(render::niceCeil(0.0031), 0.005, 1e-15);
  EXPECT_DOUBLE_EQ(render::niceCeil(0.0), 1.0);
  EXPECT_DOUBLE_EQ(render::niceCeil(std::nan("")), 1.0);
}

TEST(Overlay, TheLongestArrowSpansAFifthOfTheViewAtMost) {
  core::Snapshot s = oneSphere();
  core::ConstraintDraw c;
  c.active = true;
  c.nb = 1;
  c.body[0] = 0;
  c.force[0] = Vec3(0, 0, 34.2);
  c.torque[0] = Vec3(0.3, 0, 0);
  s.constraints.push_back(c);
  s.bodies[0].v = Vec3(2, 0, 0);
  s.bodies[0].externalForce = Vec3(0, 0, -300);
  render::ViewOptions view;
  const double distance = 4.0, reach = 0.2 * distance;
  for (bool external : {false, true}) {
    view.externalForces = external;
    const render::ArrowScale a = render::chooseArrowScale(s, view, distance);
    const double longest = (external ? 300.0 : 34.2) / a.newtonsPerMetre;
    EXPECT_LE(longest, reach * (1 + 1e-12));
    EXPECT_GT(longest, reach / 2.5 * (1 - 1e-12));
    EXPECT_LE(0.3 / a.newtonMetresPerMetre, reach * (1 + 1e-12));
    EXPECT_LE(2.0 / a.secondsPerMetre, reach * (1 + 1e-12));
    EXPECT_GT(2.0 / a.secondsPerMetre, reach / 2.5 * (1 - 1e-12));
  }
  // the user's factor lengthens every arrow
  view.externalForces = false;
  view.forceScaleFactor = 2.0;
  EXPECT_LE(34.2 / render::chooseArrowScale(s, view, distance).newtonsPerMetre, 2 * reach * (1 + 1e-12));
  EXPECT_GT(34.2 / render::chooseArrowScale(s, view, distance).newtonsPerMetre, 2 * reach / 2.5);
}
