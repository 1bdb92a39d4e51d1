// The walk of a snapshot (render/scene_walk.h) recorded through a DebugDraw without GL: what
// the viewport shows, each thing once, in its colour.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/constraint_type.h"
#include "core/constraints/hinge.h"
#include "core/constraints/point_on_line.h"
#include "core/constraints/point_to_nail.h"
#include "core/model.h"
#include "core/scene_io.h"
#include "core/simulation.h"
#include "core/snapshot.h"
#include "render/scene_walk.h"

using namespace tether;
using core::Quat;
using core::Vec3;
using render::Color;
using Kind = render::Segment::Kind;

namespace {

bool same(const Color& a, const Color& b) { return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a; }

// Every primitive the walk emits, in order.
struct Recorder : render::DebugDraw {
  struct Shape { core::Shape shape; Vec3 position; Quat orientation; Color color; };
  struct Line { Vec3 a, b; Color color; };
  struct Arrow { Vec3 from, vector; Color color; };
  struct Dot { Vec3 at; double radius; Color color; };
  struct Text { double px, py; std::string text; Color color; };
  Color backgroundColor;
  std::vector<Shape> shapes;
  std::vector<Line> lines;
  std::vector<Arrow> arrows;
  std::vector<Dot> dots;
  std::vector<Text> texts;
  int gizmos = 0;

  void background(const Color& c) override { backgroundColor = c; }
  void shape(const core::BodyGeometry& b, const Vec3& x, const Quat& q, const Color& c) override {
    shapes.push_back({b.shape, x, q, c});
  }
  void segment(const Vec3& a, const Vec3& b, const Color& c) override { lines.push_back({a, b, c}); }
  void arrow(const Vec3& from, const Vec3& v, const Color& c) override { arrows.push_back({from, v, c}); }
  void point(const Vec3& at, double r, const Color& c) override { dots.push_back({at, r, c}); }
  void label(double px, double py, const std::string& t, const Color& c) override { texts.push_back({px, py, t, c}); }
  void axes(const render::AxisGizmo&) override { ++gizmos; }

  template <typename T, typename P>
  static int count(const std::vector<T>& v, P p) { return int(std::count_if(v.begin(), v.end(), p)); }
};

render::Camera frontCamera() {
  render::Camera c;
  c.resize(800, 600);
  c.set(Vec3(0, 0, 1), 4.0, -M_PI / 2, 0.0);  // looking along +y
  return c;
}

core::ConstraintDraw active(int nb, int body0, const Vec3& at, const Vec3& force, const Vec3& torque) {
  core::ConstraintDraw c;
  c.active = true;
  c.deviation = 0;
  c.nb = nb;
  c.point[0] = at;
  c.point[1] = at + Vec3(0, 0, 0.2);
  for (int s = 0; s < nb; ++s) {
    c.body[s] = body0 + s;
    c.at[s] = at;
    c.force[s] = s == 0 ? force : Vec3(-force);
    c.torque[s] = torque;
  }
  return c;
}

// A rod and a ball (turned a quarter about x), an inactive box, a nail, a spring, and four
// constraints: 0 a point-to-nail with a round-off torque (long enough to draw, were it drawn), 1 a point-on-line with a real torque,
// 2 a hinge (a guide along the ball's axis as the ball holds it), 3 switched off.
core::Snapshot smallScene() {
  auto geo = std::make_shared<core::SceneGeometry>();
  core::BodyGeometry rod, ball, box;
  rod.name = "rod";
  rod.points = {{"center", Vec3::Zero()}, {"end1", Vec3(0, 0, -0.5)}, {"end2", Vec3(0, 0, 0.5)}};
  ball.name = "ball";
  ball.shape = core::Shape::Sphere;
  ball.points = {{"center", Vec3::Zero()}};
  box.name = "box";
  box.shape = core::Shape::Box;
  geo->bodies = {rod, ball, box};
  geo->nails.push_back({"nail", Vec3(0, 0, 2)});
  const core::ConstraintDef hang{.params = core::PointToNailDef{}}, off = hang;
  const core::ConstraintDef slide{.params = core::PointOnLineDef{.direction = Vec3(1, 0, 0)}};
  const core::ConstraintDef hinge{.params = core::HingeDef{.a = {.body = "rod"}, .b = {.body = "ball"}, .axisB = Vec3(0, 0, 1)}};
  geo->constraintDefs = {hang, slide, hinge, off};
  geo->constraintNames = {"hang", "slide", "hinge", "off"};
  geo->forceKinds = {core::ForceKind::Spring};
  geo->forceNames = {"spring"};

  core::Snapshot s;
  s.geometry = geo;
  core::BodyPose p;
  p.x = Vec3(0, 0, 1);
  s.bodies.push_back(p);
  p.x = Vec3(1, 0, 1);
  p.q = Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  s.bodies.push_back(p);
  p.active = false;
  s.bodies.push_back(p);
  s.constraints = {active(1, 0, Vec3(0, 0, 1.5), Vec3(0, 0, 20), Vec3(1e-8, 0, 0)),
                   active(1, 1, Vec3(1, 0, 1), Vec3(0, 5, 0), Vec3(0, 0, 0.5)),
                   active(2, 0, Vec3(0.5, 0, 1), Vec3(3, 0, 0), Vec3::Zero()),
                   active(1, 0, Vec3(0, 0, 1.5), Vec3(0, 0, 7), Vec3(0, 0, 7))};
  s.constraints[3].active = false;
  core::ForceDraw spring;
  spring.active = true;
  spring.a = Vec3(0, 0, 1);
  spring.b = Vec3(1, 0, 1);
  s.forces.push_back(spring);
  return s;
}

// the default view's slant: 14 degrees down (the grid on the ground, not in the work plane)
render::Camera slantCamera() {
  render::Camera c = frontCamera();
  c.set(Vec3(0, 0, 1), 4.0, -M_PI / 2, 0.25);
  return c;
}

struct Walk {
  Recorder out;
  render::DrawnScene drawn;
  Walk(const core::Snapshot& s, const render::ViewOptions& view, const render::Highlight& hl = {},
       const render::Camera& cam = frontCamera()) {
    drawn = render::drawSnapshot(s, cam, view, hl, out);
  }
};

// a spring's coil: a lead at each end, 16 strokes of zig-zag and the one back to its axis
constexpr size_t kCoilLines = 19;

render::ViewOptions noGrid() {
  render::ViewOptions v;
  v.grid = false;
  return v;
}

}  // namespace

// Looking straight at the front (the work plane xz through the target), the grid lies in that
// plane, its lines 0.1 m apart at 4 m, the line z = 0 red (the x axis) and x = 0 blue (z): a
// helper in the front view saw the ground grid edge-on and had no sense of scale. Looking down at
// 14 degrees (the default view) it is the ground's, at z = 0.
TEST(SceneWalk, TheGridLiesInTheWorkPlaneFacedStraight) {
  core::Snapshot empty;
  empty.geometry = std::make_shared<core::SceneGeometry>();
  render::Camera cam = frontCamera();
  cam.set(Vec3(0.3, 0.7, 1.04), 4.0, -M_PI / 2, 0.05);  // (3 degrees down: faced straight)
  Recorder front;
  render::drawSnapshot(empty, cam, render::ViewOptions{}, {}, front);
  ASSERT_GT(front.lines.size(), 40u);
  int red = 0, blue = 0;
  for (const auto& l : front.lines) {
    EXPECT_NEAR(l.a.y(), 0.7, 1e-12);
    EXPECT_NEAR(l.b.y(), 0.7, 1e-12);
    const bool across = std::abs(l.a.z() - l.b.z()) < 1e-12;
    const double at = across ? l.a.z() : l.a.x();  // (its height, or its x)
    EXPECT_NEAR(at / 0.1, std::round(at / 0.1), 1e-9);
    if (l.color.r > 0.6f && l.color.g < 0.5f) {
      ++red;
      EXPECT_TRUE(across && std::abs(at) < 1e-12);
    }
    if (l.color.b > 0.7f && l.color.r < 0.5f) {
      ++blue;
      EXPECT_TRUE(!across && std::abs(at) < 1e-12);
    }
  }
  EXPECT_EQ(red, 1);
  EXPECT_EQ(blue, 1);
  cam.set(Vec3(0.3, 0.7, 1.04), 4.0, -M_PI / 2, 0.25);
  Recorder down;
  render::drawSnapshot(empty, cam, render::ViewOptions{}, {}, down);
  ASSERT_GT(down.lines.size(), 40u);
  for (const auto& l : down.lines) EXPECT_EQ(l.a.z(), 0.0);
}

TEST(SceneWalk, OneShapePerActiveBodyInItsColour) {
  const Walk w(smallScene(), noGrid());
  EXPECT_TRUE(same(w.out.backgroundColor, render::backgroundColor()));
  ASSERT_EQ(w.out.shapes.size(), 2u);  // the box is inactive
  EXPECT_EQ(w.out.shapes[0].shape, core::Shape::Rod);
  EXPECT_EQ(w.out.shapes[1].shape, core::Shape::Sphere);
  EXPECT_TRUE(same(w.out.shapes[1].color, render::bodyColor(core::Shape::Sphere, false)));
  EXPECT_TRUE(w.out.shapes[1].position.isApprox(Vec3(1, 0, 1)));
  EXPECT_TRUE(w.out.shapes[1].orientation.isApprox(smallScene().bodies[1].q));
}

TEST(SceneWalk, OneArrowPerActiveConstraintForceAndTorquesAboveRoundOff) {
  const core::Snapshot s = smallScene();
  const Walk w(s, noGrid());
  const render::ArrowScale& scale = w.drawn.arrowScale;
  EXPECT_EQ(scale.newtonsPerMetre, render::chooseArrowScale(s, noGrid(), 4.0).newtonsPerMetre);
  // forces: 1 + 1 + 2 (the hinge pushes both bodies); the switched-off constraint draws nothing
  for (int j = 0; j < 4; ++j)
    EXPECT_EQ(Recorder::count(w.out.arrows, [&](const auto& a) { return same(a.color, render::constraintColor(j)); }),
              j == 3 ? 0 : s.constraints[size_t(j)].nb)
        << "constraint " << j;
  const auto hang = std::find_if(w.out.arrows.begin(), w.out.arrows.end(),
                                 [](const auto& a) { return same(a.color, render::constraintColor(0)); });
  ASSERT_NE(hang, w.out.arrows.end());
  EXPECT_TRUE(hang->from.isApprox(Vec3(0, 0, 1.5)));
  EXPECT_TRUE(hang->vector.isApprox(Vec3(0, 0, 20) / scale.newtonsPerMetre));
  // torques: the point-on-line's at the ball's centre; the point-to-nail's 1e-8 N m beside 20 N
  // is round-off
  ASSERT_EQ(w.out.arrows.size(), 5u);
  const Recorder::Arrow& torque = w.out.arrows[2];  // after the point-on-line's force
  EXPECT_TRUE(torque.from.isApprox(Vec3(1, 0, 1)));
  EXPECT_TRUE(torque.vector.isApprox(Vec3(0, 0, 0.5) / scale.newtonMetresPerMetre));
  // what hovering can name: every arrow, constraint line and spring
  const auto& segs = w.drawn.segments;
  EXPECT_EQ(Recorder::count(segs, [](const auto& g) { return g.kind == Kind::ConstraintForce; }), 4);
  EXPECT_EQ(Recorder::count(segs, [](const auto& g) { return g.kind == Kind::ConstraintTorque && g.index == 1; }), 1);
  EXPECT_EQ(Recorder::count(segs, [](const auto& g) { return g.kind == Kind::ConstraintLine; }), 3);
  EXPECT_EQ(Recorder::count(segs, [](const auto& g) { return g.kind == Kind::Spring && g.index == 0; }), 1);
  EXPECT_EQ(segs.size(), 9u);
  EXPECT_TRUE(scale.forces && scale.torques && !scale.velocities);
  // forces off: no force arrow, the torque stays
  render::ViewOptions v = noGrid();
  v.constraintForces = false;
  EXPECT_EQ(Walk(s, v).out.arrows.size(), 1u);
}

TEST(SceneWalk, GuidesComeFromTheConstraintTypeTable) {
  const core::Snapshot s = smallScene();
  const Walk w(s, noGrid());
  const core::SceneGeometry& geo = *s.geometry;
  int guides = 0;
  for (size_t j = 0; j < 3; ++j) {
    const auto& fn = geo.constraintDefs[j].type().guides;
    if (!fn) continue;
    core::GuideContext gc;
    gc.at = s.constraints[j].point[1];
    gc.span = 2.0 * frontCamera().distance();
    gc.orientation = [&](const std::string& body) { return body == "ball" ? s.bodies[1].q : s.bodies[0].q; };
    for (const core::GuideSegment& g : fn(geo.constraintDefs[j].params, gc)) {
      ++guides;
      EXPECT_EQ(Recorder::count(w.out.lines,
                                [&](const auto& l) {
                                  return l.a.isApprox(g.a) && l.b.isApprox(g.b) &&
                                         !same(l.color, render::constraintColor(int(j)));  // faded
                                }),
                1)
          << "constraint " << j;
    }
  }
  EXPECT_EQ(guides, 2);  // the point-on-line's line and the hinge's axis
  // the hinge's axis as the ball holds it (turned to -y), not as its file says (z)
  EXPECT_EQ(Recorder::count(w.out.lines, [](const auto& l) { return (l.b - l.a).normalized().isApprox(Vec3(0, -1, 0)); }), 1);
  // each constraint's line between its two points, a spring's coil between its ends, nothing else
  EXPECT_EQ(w.out.lines.size(), 3u + 2u + kCoilLines);
  render::ViewOptions v = noGrid();
  v.deviationLines = false;
  EXPECT_EQ(Walk(s, v).out.lines.size(), kCoilLines);  // the spring
}

// A spring is a coil from end to end, 10 px wide across the line of sight (a plain line lay hidden
// under the grid's lines where snapping put it: two helpers did not find their springs).
TEST(SceneWalk, ASpringIsACoilBetweenItsEnds) {
  const core::Snapshot s = smallScene();  // (its spring: (0, 0, 1) to (1, 0, 1), seen from -y)
  const Walk w(s, noGrid());
  std::vector<Recorder::Line> coil;
  for (const auto& l : w.out.lines)
    if (same(l.color, {0.15f, 0.45f, 0.15f, 1})) coil.push_back(l);
  ASSERT_EQ(coil.size(), kCoilLines);
  EXPECT_TRUE(coil.front().a.isApprox(Vec3(0, 0, 1)));
  EXPECT_TRUE(coil.back().b.isApprox(Vec3(1, 0, 1)));
  const double px = frontCamera().pixelSize(Vec3(0.5, 0, 1));
  double widest = 0;
  for (size_t k = 0; k + 1 < coil.size(); ++k) {
    EXPECT_TRUE(coil[k].b.isApprox(coil[k + 1].a));      // one stroke
    EXPECT_NEAR(coil[k].b.y(), 0.0, 1e-12);             // across the line of sight: in the view's plane
    widest = std::max(widest, std::abs(coil[k].b.z() - 1.0));
  }
  EXPECT_NEAR(widest, 5 * px, 1e-9);
  // in animation mode too: part of the model
  render::ViewOptions v = noGrid();
  v.debugDraw = false;
  EXPECT_EQ(Walk(s, v).out.lines.size(), kCoilLines);
}

TEST(SceneWalk, NothingDebugWithoutDebugDraw) {
  const core::Snapshot s = smallScene();
  render::ViewOptions v = noGrid();
  v.debugDraw = false;
  const Walk w(s, v);
  EXPECT_EQ(w.out.shapes.size(), 2u);
  EXPECT_TRUE(w.out.arrows.empty());
  EXPECT_EQ(w.out.lines.size(), kCoilLines);  // (the spring: part of the model)
  EXPECT_TRUE(w.out.dots.empty());
  EXPECT_EQ(w.drawn.segments.size(), 1u);
  EXPECT_FALSE(w.drawn.arrowScale.forces || w.drawn.arrowScale.torques);
  EXPECT_EQ(w.out.gizmos, 1);  // the gizmo and the grid show in every mode
  v.grid = true;
  EXPECT_EQ(Walk(s, v).out.lines.size(), 2u * 41u + kCoilLines);
}

TEST(SceneWalk, HighlightsAreColoured) {
  const core::Snapshot s = smallScene();
  const Walk plain(s, noGrid());
  render::Highlight hl;
  hl.selectedBody = 0;
  hl.hoverBody = 1;
  hl.hoverNail = 0;
  hl.selectedConstraint = 1;
  const Walk lit(s, noGrid(), hl);
  const Color rod = render::bodyColor(core::Shape::Rod, false), ball = render::bodyColor(core::Shape::Sphere, false);
  EXPECT_TRUE(same(plain.out.shapes[0].color, rod));
  EXPECT_FALSE(same(lit.out.shapes[0].color, rod));
  EXPECT_FALSE(same(lit.out.shapes[1].color, ball));
  // selected is stronger than hovered: further from the body's own colour
  auto distance = [](const Color& a, const Color& b) { return std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b); };
  EXPECT_GT(distance(lit.out.shapes[0].color, rod), distance(lit.out.shapes[1].color, ball));
  // the hovered nail grows and changes colour; the selected constraint's two points are marked
  ASSERT_EQ(plain.out.dots.size(), 1u);
  ASSERT_EQ(lit.out.dots.size(), 3u);
  EXPECT_GT(lit.out.dots[0].radius, plain.out.dots[0].radius);
  EXPECT_FALSE(same(lit.out.dots[0].color, plain.out.dots[0].color));
  EXPECT_TRUE(lit.out.dots[1].at.isApprox(s.constraints[1].point[0]));
  EXPECT_TRUE(lit.out.dots[2].at.isApprox(s.constraints[1].point[1]));
  EXPECT_TRUE(same(lit.out.dots[1].color, lit.out.dots[2].color));
  // a hovered control point shows even without the debug overlay
  render::ViewOptions v = noGrid();
  v.debugDraw = false;
  hl = {};
  hl.hoverPointBody = 0;
  hl.hoverPoint = 2;
  const Walk point(s, v, hl);
  ASSERT_EQ(point.out.dots.size(), 1u);
  EXPECT_TRUE(point.out.dots[0].at.isApprox(Vec3(0, 0, 1.5)));
}

TEST(SceneWalk, VelocitiesAppliedForcesAndControlPointsWhenAsked) {
  core::Snapshot s = smallScene();
  s.bodies[0].v = Vec3(0, 0, -2);
  s.bodies[1].externalForce = Vec3(0, 0, -9.8);
  s.bodies[2].v = Vec3(1, 0, 0);  // inactive: not drawn
  render::ViewOptions v = noGrid();
  v.velocities = v.externalForces = v.controlPoints = true;
  const Walk w(s, v);
  EXPECT_EQ(w.out.arrows.size(), 5u + 1u + 1u);  // the ball's applied force, the rod's velocity
  EXPECT_EQ(Recorder::count(w.drawn.segments, [](const auto& g) { return g.kind == Kind::Velocity && g.index == 0; }), 1);
  EXPECT_EQ(Recorder::count(w.drawn.segments, [](const auto& g) { return g.kind == Kind::ExternalForce && g.index == 1; }), 1);
  EXPECT_TRUE(w.drawn.arrowScale.velocities);
  const Recorder::Arrow& velocity = w.out.arrows[5];  // after the constraints'
  EXPECT_TRUE(velocity.from.isApprox(Vec3(0, 0, 1)));
  EXPECT_TRUE(velocity.vector.isApprox(Vec3(0, 0, -2) / w.drawn.arrowScale.secondsPerMetre));
  EXPECT_TRUE(w.out.arrows[6].vector.isApprox(Vec3(0, 0, -9.8) / w.drawn.arrowScale.newtonsPerMetre));
  EXPECT_EQ(w.out.dots.size(), 1u + 3u + 1u);  // the nail, the rod's three points, the ball's one
}

// A body at rest moves by round-off (a helper's stack of boxes, stepped once: 1e-17 m/s): no
// velocity arrow, nor a velocity in the legend, however slow everything else is.
TEST(SceneWalk, ARoundOffSpeedIsDrawnAtRest) {
  core::Snapshot s = smallScene();
  s.bodies[0].v = Vec3(1e-17, 0, 0);
  s.bodies[1].v = Vec3(0, 3e-10, 0);
  render::ViewOptions v = noGrid();
  v.velocities = true;
  const Walk still(s, v);
  EXPECT_EQ(Recorder::count(still.drawn.segments, [](const auto& g) { return g.kind == Kind::Velocity; }), 0);
  EXPECT_FALSE(still.drawn.arrowScale.velocities);
  s.bodies[1].v = Vec3(0, 3e-6, 0);  // 3 micrometres a second is motion
  const Walk slow(s, v);
  EXPECT_EQ(Recorder::count(slow.drawn.segments, [](const auto& g) { return g.kind == Kind::Velocity; }), 1);
  EXPECT_TRUE(slow.drawn.arrowScale.velocities);
}

// Forces of round-off at rest (a four-bar at t = 0: 1e-14 N) draw no arrow and choose no scale,
// where they were drawn full length with a legend of "50 fN"; a micronewton is drawn.
TEST(SceneWalk, RoundOffForcesAreDrawnAsNone) {
  core::Snapshot s = smallScene();
  for (core::ConstraintDraw& c : s.constraints)
    for (int k = 0; k < c.nb; ++k) {
      c.force[k] *= 1e-15;
      c.torque[k] = Vec3::Zero();
    }
  const auto forces = [](const Walk& w) {
    return Recorder::count(w.drawn.segments, [](const auto& g) { return g.kind == Kind::ConstraintForce; });
  };
  const Walk still(s, noGrid());
  EXPECT_EQ(forces(still), 0);
  EXPECT_FALSE(still.drawn.arrowScale.forces);
  s.constraints[0].force[0] = Vec3(0, 0, 1e-6);
  const Walk small(s, noGrid());
  EXPECT_EQ(forces(small), 1);
  EXPECT_TRUE(small.drawn.arrowScale.forces);
}

TEST(SceneWalk, TheGizmoLettersItsAxesInTheCorner) {
  const render::Camera c = frontCamera();
  const Walk w(smallScene(), noGrid());
  EXPECT_EQ(w.out.gizmos, 1);
  ASSERT_EQ(w.out.texts.size(), 3u);
  // the front view: x to the right of the gizmo's centre, z above it, y (away) at it
  const double cx = 8 + 45, cy = c.height() - (8 + 45);
  EXPECT_EQ(w.out.texts[0].text, "x");
  EXPECT_GT(w.out.texts[0].px, cx + 30);
  EXPECT_NEAR(w.out.texts[0].py, cy, 1);
  EXPECT_EQ(w.out.texts[2].text, "z");
  EXPECT_LT(w.out.texts[2].py, cy - 30);
  EXPECT_NEAR(w.out.texts[1].px, cx, 1);
  // nothing to walk: only the background
  Recorder empty;
  render::drawSnapshot(core::Snapshot{}, c, noGrid(), {}, empty);
  EXPECT_TRUE(empty.texts.empty() && empty.shapes.empty() && empty.gizmos == 0);
}

// Issue 19: the grid's axis lines have the gizmo's colours: the line along x (y = 0) is red,
// the line along y (x = 0) green, like the gizmo's x and y.
TEST(SceneWalk, TheGridsAxisLinesMatchTheGizmo) {
  const Walk w(smallScene(), render::ViewOptions{}, {}, slantCamera());
  int alongX = 0, alongY = 0;
  for (const Recorder::Line& l : w.out.lines) {
    if (l.a.z() != 0.0 || l.b.z() != 0.0) continue;
    if (l.a.y() == 0.0 && l.b.y() == 0.0 && l.a.x() != l.b.x()) {  // the x axis
      ++alongX;
      EXPECT_GT(l.color.r, l.color.g + 0.2f);
    }
    if (l.a.x() == 0.0 && l.b.x() == 0.0 && l.a.y() != l.b.y()) {  // the y axis
      ++alongY;
      EXPECT_GT(l.color.g, l.color.r + 0.2f);
    }
  }
  EXPECT_EQ(alongX, 1);
  EXPECT_EQ(alongY, 1);
}

TEST(SceneWalk, HeldScaleAndNoiseFloorDecideTheArrows) {
  core::Snapshot s = smallScene();
  render::ViewOptions v = noGrid();
  render::ArrowScale held;
  held.newtonsPerMetre = 50;
  held.newtonMetresPerMetre = 2;
  held.forceNoise = 4.0;  // drops the hinge's 3 N, keeps 20 N and 5 N
  v.scale = held;
  const Walk w(s, v);
  EXPECT_EQ(w.drawn.arrowScale.newtonsPerMetre, 50);
  int forces = 0;
  for (const render::Segment& seg : w.drawn.segments)
    if (seg.kind == Kind::ConstraintForce) {
      ++forces;
      EXPECT_NE(seg.index, 2);
      EXPECT_TRUE((seg.to - seg.from).isApprox(s.constraints[size_t(seg.index)].force[0] / 50.0));
    }
  EXPECT_EQ(forces, 2);
  // round-off beside a real force: a scale of its own would draw 4e-14 N full length; the
  // frame's floor drops it
  s.constraints[1].force[0] = Vec3(0, 4e-14, 0);
  const Walk own(s, noGrid());
  EXPECT_EQ(Recorder::count(own.out.arrows, [](const auto& a) { return same(a.color, render::constraintColor(1)); }), 0);
}

TEST(SceneWalk, ConstraintsCheckFlagsAreMarkedInTheirColours) {
  const core::Snapshot s = smallScene();
  render::Highlight hl;
  hl.conflicting = {0};
  hl.redundant = {1};
  const Walk w(s, noGrid(), hl);
  auto lines = [&](const Color& c) { return Recorder::count(w.out.lines, [&](const auto& l) { return same(l.color, c); }); };
  auto dots = [&](const Color& c, const Vec3& at) {
    return Recorder::count(w.out.dots, [&](const auto& d) { return same(d.color, c) && d.at.isApprox(at) && d.radius == 6; });
  };
  EXPECT_EQ(lines(render::conflictColor()), 1);
  EXPECT_EQ(lines(render::redundantColor()), 1);
  EXPECT_EQ(lines(render::constraintColor(0)), 0);  // its line takes the flag's colour
  EXPECT_EQ(dots(render::conflictColor(), s.constraints[0].point[0]), 1);
  EXPECT_EQ(dots(render::conflictColor(), s.constraints[0].point[1]), 1);
  EXPECT_EQ(dots(render::redundantColor(), s.constraints[1].point[1]), 1);
  // the arrows keep the constraint's own colour (the legend and hovering name it)
  EXPECT_EQ(Recorder::count(w.out.arrows, [](const auto& a) { return same(a.color, render::constraintColor(0)); }), 1);
  // unflagged: no mark of either colour
  const Walk plain(s, noGrid());
  EXPECT_EQ(Recorder::count(plain.out.lines, [](const auto& l) { return same(l.color, render::conflictColor()); }), 0);
  // the flag colours are none of the palette's
  for (int j = 0; j < 8; ++j) {
    EXPECT_FALSE(same(render::constraintColor(j), render::conflictColor()));
    EXPECT_FALSE(same(render::constraintColor(j), render::redundantColor()));
  }
}

namespace {

// A box resting on a floor plane with two contacts, 60 N and 40 N, and a far-away ball.
core::Snapshot boxOnFloor(bool farBall = false) {
  auto geo = std::make_shared<core::SceneGeometry>();
  core::BodyGeometry box;
  box.name = "box";
  box.shape = core::Shape::Box;
  geo->bodies = {box};
  geo->planes.push_back({"floor", Vec3::Zero(), Vec3(0, 0, 2), 0.5});  // normal not unit
  core::Snapshot s;
  s.geometry = geo;
  core::BodyPose p;
  p.x = Vec3(0, 0, 0.1);
  s.bodies.push_back(p);
  if (farBall) {
    core::BodyGeometry ball;
    ball.name = "ball";
    ball.shape = core::Shape::Sphere;
    geo->bodies.push_back(ball);
    p.x = Vec3(23, 0, 5);
    s.bodies.push_back(p);
  }
  s.contacts.push_back({0, -1, 0, Vec3(-0.2, 0, 0), Vec3(0, 0, 60)});
  s.contacts.push_back({0, -1, 0, Vec3(0.2, 0, 0), Vec3(0, 0, 40)});
  return s;
}

}  // namespace

// A plane: a slab whose top face is the surface (its centre half its thickness below, turned to
// the normal), in the plane's colour, a 20 x 20 grid just above it, and no z = 0 ground grid.
TEST(SceneWalk, APlaneIsASlabUnderItsSurfaceWithAGrid) {
  render::ViewOptions view;
  const Walk w(boxOnFloor(), view, {}, slantCamera());
  const auto isPlane = [](const Recorder::Shape& s) { return s.shape == core::Shape::Box && same(s.color, render::planeColor()); };
  ASSERT_EQ(Recorder::count(w.out.shapes, isPlane), 1);
  const auto& slab = *std::find_if(w.out.shapes.begin(), w.out.shapes.end(), isPlane);
  EXPECT_NEAR(slab.position.z(), -20.0 / 400 / 2, 1e-12);
  EXPECT_NEAR((slab.orientation * Vec3::UnitZ() - Vec3::UnitZ()).norm(), 0.0, 1e-12);
  // 21 lines each way, 20 m long, just above z = 0 (and no other lines: the ground grid is off)
  const auto onPlane = [](const Recorder::Line& l) {
    return l.a.z() > 0 && l.a.z() < 0.05 && l.b.z() == l.a.z() && std::abs((l.b - l.a).norm() - 20.0) < 1e-9;
  };
  EXPECT_EQ(Recorder::count(w.out.lines, onPlane), 42);
  EXPECT_EQ(Recorder::count(w.out.lines, [](const Recorder::Line& l) { return std::abs(l.a.z()) < 1e-12; }), 0);
  // selected: the selection's colour mixed in
  render::Highlight hl;
  hl.selectedPlane = 0;
  const Walk lit(boxOnFloor(), view, hl);
  EXPECT_EQ(Recorder::count(lit.out.shapes, isPlane), 0);
}

// The square grows past 20 m to reach 2 m beyond the farthest body's foot on the plane.
TEST(SceneWalk, APlaneReachesPastItsBodies) {
  const core::Snapshot near = boxOnFloor(), far = boxOnFloor(true);
  EXPECT_EQ(render::planeSide(near.geometry->planes[0], near), 20.0);
  EXPECT_EQ(render::planeSide(far.geometry->planes[0], far), 50.0);  // 2 x 23 + 4 = 50
}

// Contacts: a dot at each point and an arrow of the force on body A from it, in the contacts'
// colour, drawn on top (between setOnTop(true) and setOnTop(false)), hoverable as ContactForce;
// the force scale counts them; none with view.contacts off.
TEST(SceneWalk, ContactsAreDotsAndForceArrowsOnTop) {
  struct OnTop : Recorder {
    bool on = false;
    int arrowsOnTop = 0, dotsOnTop = 0;
    void setOnTop(bool o) override { on = o; }
    void arrow(const Vec3& f, const Vec3& v, const Color& c) override {
      Recorder::arrow(f, v, c);
      arrowsOnTop += on;
    }
    void point(const Vec3& at, double r, const Color& c) override {
      Recorder::point(at, r, c);
      dotsOnTop += on;
    }
  };
  render::ViewOptions view;
  OnTop out;
  const render::DrawnScene drawn = render::drawSnapshot(boxOnFloor(), frontCamera(), view, {}, out);
  const auto isContact = [](const auto& x) { return same(x.color, render::contactColor()); };
  ASSERT_EQ(Recorder::count(out.arrows, isContact), 2);
  EXPECT_EQ(Recorder::count(out.dots, isContact), 2);
  EXPECT_EQ(out.arrowsOnTop, 2);
  EXPECT_EQ(out.dotsOnTop, 2);
  EXPECT_FALSE(out.on);
  const auto& a = *std::find_if(out.arrows.begin(), out.arrows.end(), isContact);
  EXPECT_EQ(a.from, Vec3(-0.2, 0, 0));
  EXPECT_NEAR(a.vector.z() * drawn.arrowScale.newtonsPerMetre, 60.0, 1e-9);
  EXPECT_TRUE(drawn.arrowScale.forces);
  EXPECT_EQ(render::largestArrows(boxOnFloor(), view).force, 60.0);
  EXPECT_EQ(Recorder::count(drawn.segments, [](const render::Segment& s) { return s.kind == Kind::ContactForce; }), 2);

  view.contacts = false;
  const Walk off(boxOnFloor(), view);
  EXPECT_EQ(Recorder::count(off.out.arrows, isContact), 0);
  EXPECT_EQ(Recorder::count(off.drawn.segments, [](const render::Segment& s) { return s.kind == Kind::ContactForce; }), 0);
  EXPECT_EQ(render::largestArrows(boxOnFloor(), view).force, 0.0);
}

namespace {

// Constant forces and torques (a helper added them with their tools and saw nothing, even with
// View > External forces on): an orange arrow at the force's point, and one at the torque's body
// centre, on the force and torque scales, hoverable and selectable as AppliedForce/AppliedTorque;
// the scales count them; a switched-off one is not drawn.
TEST(SceneWalk, ConstantForcesAndTorquesAreArrows) {
  core::Snapshot s = smallScene();
  auto geo = std::make_shared<core::SceneGeometry>(*s.geometry);
  geo->forceKinds = {core::ForceKind::Spring, core::ForceKind::ConstantForce, core::ForceKind::ConstantTorque,
                     core::ForceKind::ConstantForce};
  geo->forceNames = {"spring", "push", "twist", "off"};
  s.geometry = geo;
  core::ForceDraw push, twist, off;
  push.active = twist.active = true;
  push.a = push.b = Vec3(0, 0, 0.5);
  push.vector = Vec3(40, 0, 0);
  twist.a = twist.b = Vec3(1, 0, 1);
  twist.vector = Vec3(0, -2, 0);
  off.a = off.b = Vec3(0, 0, 1);
  off.vector = Vec3(0, 0, 99);
  s.forces.insert(s.forces.end(), {push, twist, off});
  const render::ViewOptions view = noGrid();
  const Walk w(s, view);
  const auto applied = [](const auto& x) { return same(x.color, render::appliedColor()); };
  ASSERT_EQ(Recorder::count(w.out.arrows, applied), 2);
  const auto first = std::find_if(w.out.arrows.begin(), w.out.arrows.end(), applied);
  const auto second = std::find_if(std::next(first), w.out.arrows.end(), applied);
  EXPECT_EQ(first->from, Vec3(0, 0, 0.5));
  EXPECT_NEAR((first->vector * w.drawn.arrowScale.newtonsPerMetre - Vec3(40, 0, 0)).norm(), 0.0, 1e-9);
  EXPECT_EQ(second->from, Vec3(1, 0, 1));
  EXPECT_NEAR((second->vector * w.drawn.arrowScale.newtonMetresPerMetre - Vec3(0, -2, 0)).norm(), 0.0, 1e-9);
  EXPECT_TRUE(w.drawn.arrowScale.torques);
  EXPECT_EQ(Recorder::count(w.drawn.segments, [](const render::Segment& g) { return g.kind == Kind::AppliedForce && g.index == 1; }), 1);
  EXPECT_EQ(Recorder::count(w.drawn.segments, [](const render::Segment& g) { return g.kind == Kind::AppliedTorque && g.index == 2; }), 1);
  // the scales count them: 40 N is the largest force here (the constraints' reach 20 N)
  EXPECT_EQ(render::largestArrows(s, view).force, 40.0);
  EXPECT_EQ(render::largestArrows(s, view).torque, 2.0);
}

}  // namespace

// A helper's planar four-bar of hinges, driven round by a path (session 59): the redundant hinges'
// solve left torques of ~1e-8 N m out of the plane beside forces of ~10 N, and with nothing
// larger they chose the torque scale ("10 nN m") and were drawn full length. A torque under a
// millionth of what its force makes at the body's size is round-off: not drawn, no legend row.
// The helper also saw each hinge's axis drawn twice, the second through a body's centre (its
// axis-alignment part's guide), and a line between the two bodies' centres (that part's deviation
// line): a definition's guides are drawn once, from its first part, and a turn after the first
// part draws no line.
TEST(SceneWalk, APlanarFourBarDrawsNoRoundOffTorquesAndEachHingeAxisOnce) {
  const core::Scene scene = core::sceneFromJson(R"json({"bodies":[{"angular_velocity":[0.0,0.0,0.0],"density":1000.0,"length":0.30000000000000004,"name":"rod1","orientation":[1.0,0.0,0.0,0.0],"position":[-0.0,0.0,0.15000000000000002],"radius":0.02,"type":"rod","velocity":[0.0,0.0,0.0]},{"angular_velocity":[0.0,0.0,0.0],"density":1000.0,"length":1.118033988749895,"name":"rod2","orientation":[0.8506508083520399,0.0,0.5257311121191336,0.0],"position":[0.5,0.0,0.55],"radius":0.02,"type":"rod","velocity":[0.0,0.0,0.0]},{"angular_velocity":[0.0,0.0,0.0],"density":1000.0,"length":0.8,"name":"rod3","orientation":[1.0,0.0,0.0,0.0],"position":[1.0,0.0,0.4],"radius":0.02,"type":"rod","velocity":[0.0,0.0,0.0]}],"constraints":[{"enabled":true,"nail":"nail1","name":"point_to_nail1","point":"rod1.end1","type":"point_to_nail"},{"enabled":true,"nail":"nail2","name":"point_to_nail2","point":"rod3.end1","type":"point_to_nail"},{"a":"rod1.end2","axis_a":[0.0,1.0,0.0],"axis_b":[0.0,1.0,0.0],"b":"rod2.end1","enabled":true,"name":"hinge1","type":"hinge"},{"a":"rod2.end2","axis_a":[0.0,1.0,0.0],"axis_b":[0.0,1.0,0.0],"b":"rod3.end2","enabled":true,"name":"hinge2","type":"hinge"},{"enabled":true,"name":"point_to_path1","path":"path1","point":"rod1.end2","type":"point_to_path"}],"events":[],"forces":[],"format":"tether-scene","nails":[{"name":"nail1","position":[-0.0,0.0,0.0]},{"name":"nail2","position":[1.0,0.0,0.0]}],"paths":[{"center":[-0.0,0.0,0.0],"name":"path1","normal":[0.0,1.0,0.0],"period":4.0,"phase":0.0,"radius":0.30000000000000004,"type":"circle","u":[0.0,0.0,1.0]}],"settings":{"baumgarte_alpha":10.0,"baumgarte_beta":10.0,"default_tau":0.1,"dt":0.001,"duration":10.0,"gravity":[0.0,0.0,-9.81],"gravity_on":true,"integrator":"euler","max_substeps":64,"projection":true,"projection_tolerance":1e-07,"solver":"auto","solver_iterations":30,"stabilization":"tau","tolerance":1e-08},"version":1})json");
  auto model = std::make_shared<const core::Model>(core::compile(scene));
  core::Simulation sim(model);
  const auto geometry = core::sceneGeometry(scene, *model);
  double largestForce = 0, largestTorque = 0;
  for (int frame = 1; frame <= 240; ++frame) {  // 4 s in frames of 1/60 s
    const double t = frame / 60.0;
    ASSERT_TRUE(sim.advanceTo(t).ok);
    core::Snapshot snap;
    core::fillSnapshot(sim, geometry, snap);
    for (const core::ConstraintDraw& c : snap.constraints)
      for (int s = 0; s < c.nb; ++s) {
        largestForce = std::max(largestForce, c.force[s].norm());
        largestTorque = std::max(largestTorque, c.torque[s].norm());
      }
    Walk w(snap, noGrid());
    const auto& segs = w.drawn.segments;
    // each hinge's axis drawn once, at its joint: its second part (the axes' alignment) draws
    // no guide of its own through a body's centre
    for (size_t j = 0; j < snap.constraints.size(); ++j) {
      const render::Color c = render::constraintColor(int(j)), bg = render::backgroundColor();  // (faded as the walk's)
      const render::Color guide{c.r + (bg.r - c.r) * 0.45f, c.g + (bg.g - c.g) * 0.45f, c.b + (bg.b - c.b) * 0.45f, c.a + (bg.a - c.a) * 0.45f};
      const auto guides = Recorder::count(w.out.lines, [&](const auto& l) { return same(l.color, guide); });
      const bool firstPart = j == 0 || geometry->constraintNames[j - 1] != geometry->constraintNames[j];
      if (geometry->constraintDefs[j].params.get<core::HingeDef>() && firstPart) {
        EXPECT_GT(guides, 0) << t << " " << geometry->constraintNames[j];
        const Vec3 joint = snap.constraints[j].point[1];
        for (const auto& l : w.out.lines)
          if (same(l.color, guide)) EXPECT_LT((l.a - joint).cross(l.b - joint).norm(), 1e-9 * (1 + (l.b - l.a).squaredNorm()));
      } else if (!firstPart) {
        EXPECT_EQ(guides, 0) << t << " " << geometry->constraintNames[j];
      }
      // and no line between the bodies' centres for the alignment: each part's line is its
      // joint's (a point pair), once
      const auto lines = Recorder::count(segs, [&](const auto& g) { return g.kind == Kind::ConstraintLine && g.index == int(j); });
      EXPECT_EQ(lines, firstPart ? 1 : 0) << t << " " << geometry->constraintNames[j];
    }
    EXPECT_GT(Recorder::count(segs, [](const auto& g) { return g.kind == Kind::ConstraintForce; }), 0) << t;
    EXPECT_EQ(Recorder::count(segs, [](const auto& g) { return g.kind == Kind::ConstraintTorque; }), 0) << t;
    EXPECT_FALSE(w.drawn.arrowScale.torques) << t;
  }
  EXPECT_GT(largestForce, 1.0);  // real forces,
  EXPECT_GT(largestTorque, 0.0);  // and torques that are round-off beside them
  EXPECT_LT(largestTorque, 1e-6 * largestForce);
}
