// render/picking.cpp: picking bodies with a screen-space tolerance (a thin rod a few pixels wide
// is picked by a click beside it).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>

#include "render/camera.h"
#include "render/picking.h"

using namespace tether;
using core::Vec3;

namespace {

render::Camera frontCamera() {
  render::Camera c;
  c.resize(800, 600);
  c.set(Vec3(0, 0, 0), 4.0, -std::numbers::pi / 2, 0.0);  // looking along +y at the origin
  return c;
}

// A rod of radius r and length 1 m along z through the origin, tilted by `tilt` about y.
core::Snapshot thinRod(double r, double tilt) {
  auto geo = std::make_shared<core::SceneGeometry>();
  core::BodyGeometry b;
  b.name = "rod";
  b.shape = core::Shape::Rod;
  b.radius = r;
  b.length = 1.0;
  geo->bodies.push_back(b);
  core::Snapshot s;
  s.geometry = geo;
  core::BodyPose p;
  p.q = core::Quat(Eigen::AngleAxisd(tilt, Vec3::UnitY()));
  s.bodies.push_back(p);
  return s;
}

}  // namespace

// A rod 2 pixels wide: the exact ray misses a click 4 px beside it, the tolerant pick does not,
// and 9 px beside it is a miss for both.
TEST(Picking, AThinRodIsPickedWithinTheScreenRadius) {
  const render::Camera c = frontCamera();
  const double r = 0.5 * 2 * c.pixelSize(Vec3::Zero());  // 2 px across
  for (double tilt : {0.0, 0.4, 1.2}) {
    const core::Snapshot s = thinRod(r, tilt);
    const Vec3 axis = s.bodies[0].q * Vec3::UnitZ();
    double px = 0, py = 0, qx = 0, qy = 0;
    ASSERT_TRUE(c.project(0.2 * axis, px, py));
    ASSERT_TRUE(c.project(0.3 * axis, qx, qy));
    // the unit normal to the rod's image
    const double len = std::hypot(qx - px, qy - py), nx = -(qy - py) / len, ny = (qx - px) / len;
    EXPECT_TRUE(render::pickBody(s, c.ray(px, py))) << tilt;
    EXPECT_FALSE(render::pickBody(s, c.ray(px + 4 * nx, py + 4 * ny))) << tilt;
    for (double side : {4.0, -5.5}) {
      const render::Hit h = render::pickBodyNear(s, c, px + side * nx, py + side * ny, 6);
      ASSERT_EQ(h.kind, render::Hit::Kind::Body) << tilt << " " << side;
      EXPECT_EQ(h.index, 0);
      // the hit is on the rod's surface near the clicked spot
      const Vec3 local = s.bodies[0].q.conjugate() * h.position;
      EXPECT_NEAR(std::hypot(local.x(), local.y()), r, 1e-6);
      EXPECT_NEAR(local.z(), 0.2, 0.02);
    }
    EXPECT_FALSE(render::pickBodyNear(s, c, px + 9 * nx, py + 9 * ny, 6)) << tilt;
  }
}

// Under the cursor the exact hit wins over a nearer-on-screen neighbour: two rods, the click on
// the farther one's image picks it.
TEST(Picking, TheBodyUnderTheCursorWinsOverOneBeside) {
  const render::Camera c = frontCamera();
  core::Snapshot s = thinRod(0.01, 0);
  auto geo = std::make_shared<core::SceneGeometry>(*s.geometry);
  geo->bodies.push_back(geo->bodies[0]);
  geo->bodies[1].name = "rod2";
  s.geometry = geo;
  core::BodyPose p;
  p.x = Vec3(0.03, -0.5, 0);  // in front, 3 cm to the right
  s.bodies.push_back(p);
  double px = 0, py = 0;
  ASSERT_TRUE(c.project(Vec3::Zero(), px, py));
  EXPECT_EQ(render::pickBodyNear(s, c, px, py, 6).index, 0);
  ASSERT_TRUE(c.project(p.x, px, py));
  EXPECT_EQ(render::pickBodyNear(s, c, px, py, 6).index, 1);
}

// A ground plane is picked where a ray meets its drawn square (planeSide wide: 20 m for a scene
// near its point), from above or below, the nearest of two; not beyond the square, nor by a ray
// along it or pointing away.
TEST(Picking, AGroundPlaneIsPickedOnItsDrawnSquare) {
  auto geo = std::make_shared<core::SceneGeometry>();
  geo->planes.push_back({.name = "floor", .point = Vec3::Zero(), .normal = Vec3::UnitZ()});
  geo->planes.push_back({.name = "shelf", .point = Vec3(0, 0, 1), .normal = Vec3(0, 0, -2)});
  core::Snapshot s;
  s.geometry = geo;
  const auto pick = [&](const Vec3& from, const Vec3& dir) {
    return render::pickPlane(s, render::Ray{from, dir.normalized()});
  };
  render::Hit h = pick(Vec3(3, 4, 0.5), Vec3(0, 0, -1));
  ASSERT_EQ(h.kind, render::Hit::Kind::Plane);
  EXPECT_EQ(h.index, 0);
  EXPECT_NEAR(h.distance, 0.5, 1e-12);
  EXPECT_NEAR((h.position - Vec3(3, 4, 0)).norm(), 0.0, 1e-12);
  h = pick(Vec3(3, 4, 0.5), Vec3(0, 0, 1));  // the shelf, seen from below its normal's side
  ASSERT_EQ(h.kind, render::Hit::Kind::Plane);
  EXPECT_EQ(h.index, 1);
  h = pick(Vec3(3, 4, 5), Vec3(0, 0, -1));  // through the shelf first
  EXPECT_EQ(h.index, 1);
  EXPECT_FALSE(pick(Vec3(11, 0, 0.5), Vec3(0, 0, -1)));  // beyond the 20 m square
  EXPECT_FALSE(pick(Vec3(0, 0, 0.5), Vec3(1, 0, 0)));    // along both
  geo->planes.pop_back();
  EXPECT_FALSE(pick(Vec3(0, 0, 0.5), Vec3(0, 0.2, 1)));  // away from the floor
}
