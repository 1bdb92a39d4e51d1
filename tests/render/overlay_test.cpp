// render/overlay.h without GL: round values, the legend's bar, the noise floor, and the scale a
// viewport holds from frame to frame (ArrowScaleKeeper: hysteresis, the peak window, noise
// never choosing, the fixed option).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "render/overlay.h"

using namespace tether;
using core::Vec3;

namespace {

// mantissa in {1, 2, 5}: a value of the 1-2-5 ladder
bool round125(double v) {
  const double m = v / std::pow(10.0, std::floor(std::log10(v) + 1e-9));
  return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9;
}

// a pendulum's rod tension over a swing from the horizontal: 0 at the turning points, 3 m g at
// the bottom (m g = 9.81 N), period 1.64 s
double tension(double t) {
  const double phase = std::sin(M_PI * t / 1.64);
  return 3 * 9.81 * phase * phase;
}

}  // namespace

TEST(Overlay, NiceFloorRoundsDownTo125) {
  EXPECT_DOUBLE_EQ(render::niceFloor(1.0), 1.0);
  EXPECT_DOUBLE_EQ(render::niceFloor(1.99), 1.0);
  EXPECT_DOUBLE_EQ(render::niceFloor(3.42), 2.0);
  EXPECT_DOUBLE_EQ(render::niceFloor(9.99), 5.0);
  EXPECT_DOUBLE_EQ(render::niceFloor(10.0), 10.0);
  EXPECT_NEAR(render::niceFloor(0.0031), 0.002, 1e-15);
  EXPECT_NEAR(render::niceFloor(1e-14 * 4.2), 2e-14, 1e-28);
  EXPECT_DOUBLE_EQ(render::niceFloor(-1.0), 1.0);
  for (double x = 1e-7; x < 1e7; x *= 1.37) {
    const double f = render::niceFloor(x);
    EXPECT_TRUE(round125(f)) << x;
    EXPECT_LE(f, x * (1 + 1e-12));
    EXPECT_GT(f, x / 2.5 * (1 - 1e-12)) << x;
  }
}

TEST(Overlay, NiceStepWalksTheLadder) {
  EXPECT_DOUBLE_EQ(render::niceStep(5, 1), 10);
  EXPECT_DOUBLE_EQ(render::niceStep(5, -1), 2);
  EXPECT_DOUBLE_EQ(render::niceStep(1, -1), 0.5);
  EXPECT_DOUBLE_EQ(render::niceStep(2, 2), 10);
  EXPECT_DOUBLE_EQ(render::niceStep(3.42, 0), 5);  // the ceiling itself
  EXPECT_NEAR(render::niceStep(0.01, -3), 0.001, 1e-15);
  for (double x = 1e-3; x < 1e3; x = render::niceStep(x, 1)) EXPECT_TRUE(round125(x)) << x;
}

TEST(Overlay, LegendBarIsARoundValueOfReadableLength) {
  // 7 N per m of arrow (not round: the bar still is), 3.1 mm per pixel
  for (double mpp : {3.1e-3, 1e-3, 0.0173, 0.4}) {
    const render::LegendBar b = render::legendBar(7.0, mpp, 100);
    EXPECT_TRUE(round125(b.value)) << mpp;
    EXPECT_LE(b.pixels, 100 * (1 + 1e-12));
    EXPECT_GT(b.pixels, 40 * (1 - 1e-12));
    EXPECT_NEAR(b.value, b.pixels * mpp * 7.0, 1e-12 * b.value);  // the bar is what the arrows' scale says
  }
  EXPECT_EQ(render::legendBar(0, 1e-3, 100).pixels, 0);
  EXPECT_EQ(render::legendBar(1, std::nan(""), 100).pixels, 0);
}

TEST(Overlay, QuantitiesReadPlainOrWithAnSIPrefix) {
  EXPECT_EQ(render::formatQuantity(5, "N"), "5 N");
  EXPECT_EQ(render::formatQuantity(0.05, "N"), "0.05 N");
  EXPECT_EQ(render::formatQuantity(2000, "N"), "2000 N");
  EXPECT_EQ(render::formatQuantity(50000, "N"), "50 kN");
  EXPECT_EQ(render::formatQuantity(2e-5, "N"), "20 \xC2\xB5N");
  EXPECT_EQ(render::formatQuantity(0.005, "N m"), "5 mN m");
  EXPECT_EQ(render::formatQuantity(1e-13, "N"), "100 fN");
  EXPECT_EQ(render::formatQuantity(0, "m/s"), "0 m/s");
}

TEST(Overlay, NoiseIsAMillionthOfTheReference) {
  EXPECT_DOUBLE_EQ(render::noiseFloor(1570), 1570e-6);
  EXPECT_EQ(render::noiseFloor(0), 0);
  EXPECT_EQ(render::noiseFloor(std::nan("")), 0);
  // chooseArrowScale alone: relative to the frame's largest
  core::Snapshot s;
  core::ConstraintDraw c;
  c.active = true;
  c.nb = 1;
  c.body[0] = 0;
  c.force[0] = Vec3(0, 0, 20);
  s.constraints.push_back(c);
  s.bodies.push_back({});
  EXPECT_DOUBLE_EQ(render::chooseArrowScale(s, {}, 4).forceNoise, 20e-6);
}

TEST(Overlay, RoundOffTorquesChooseNoScale) {
  // a point joint's torque of 2e-15 N m beside 20 N: not drawn, so no torque scale either
  core::Snapshot s;
  core::ConstraintDraw c;
  c.active = true;
  c.nb = 1;
  c.body[0] = 0;
  c.force[0] = Vec3(0, 0, 20);
  c.torque[0] = Vec3(2e-15, 0, 0);
  s.constraints.push_back(c);
  s.bodies.push_back({});
  EXPECT_EQ(render::largestArrows(s, {}).torque, 0);
  render::ArrowScales scales;
  scales.update(s, {}, 4);
  EXPECT_FALSE(scales.torque.chosen());
  s.constraints[0].torque[0] = Vec3(0.3, 0, 0);
  EXPECT_EQ(render::largestArrows(s, {}).torque, 0.3);
}

TEST(ArrowScaleKeeper, ASteadySwingKeepsOneRoundScale) {
  render::ArrowScaleKeeper k;
  const double reach = 0.8;
  double first = 0;
  // 60 frames a second for 20 s of a swing whose tension falls to 0 twice a period
  for (int frame = 0; frame < 1200; ++frame) {
    const double t = frame / 60.0;
    const double s = k.update(tension(t), reach, t);
    if (t < 0.9) continue;  // the first bottom pass sets it
    if (first == 0) first = s;
    ASSERT_EQ(s, first) << "t = " << t;
  }
  EXPECT_TRUE(round125(first));
  EXPECT_LE(3 * 9.81 / first, render::ArrowScaleKeeper::kGrowAbove * reach);
  EXPECT_GE(3 * 9.81 / first, render::ArrowScaleKeeper::kShrinkBelow * reach);
}

TEST(ArrowScaleKeeper, ChangesOnlyWhenArrowsLeaveTheReadableBand) {
  render::ArrowScaleKeeper k;
  const double reach = 1.0;
  EXPECT_EQ(k.update(3.42, reach, 0), 5);  // a fresh choice: the longest arrow 0.684 m
  // anywhere in [0.2, 2] x reach at 5 N per m (1 N ... 10 N) the scale holds
  double t = 0;
  for (double f : {9.9, 1.1, 6.0, 9.99}) EXPECT_EQ(k.update(f, reach, t += 0.1), 5) << f;
  // past twice the reach: at once, a round value with the arrow within reach again
  EXPECT_EQ(k.update(10.5, reach, t += 0.1), 20);
  // below the band: only once the window's peak (10.5 N) has passed
  t += 0.1;
  const double dropped = t;
  for (; t < dropped + render::ArrowScaleKeeper::kWindow - 0.2; t += 0.1) EXPECT_EQ(k.update(0.5, reach, t), 20) << t;
  t = dropped + render::ArrowScaleKeeper::kWindow + 0.1;
  EXPECT_EQ(k.update(0.5, reach, t), 0.5);
  // a shorter reach ([): the band still holds the arrow; chosen afresh after rechoose
  EXPECT_EQ(k.update(0.5, 0.6 * reach, t += 0.1), 0.5);
  k.rechoose();
  EXPECT_EQ(k.update(0.5, 0.6 * reach, t += 0.1), 1);
}

TEST(ArrowScaleKeeper, NoiseNeverChoosesTheScale) {
  render::ArrowScaleKeeper k;
  double t = 0;
  // the space station docking: 1.57 kN while it assembles, then round-off at rest
  EXPECT_EQ(k.update(1570, 0.8, t), 2000);
  for (; t < 20; t += 0.25) EXPECT_EQ(k.update(4e-14, 0.8, t), 2000) << t;
  EXPECT_DOUBLE_EQ(k.reference(), 1570);
  EXPECT_DOUBLE_EQ(k.noise(), 1570e-6);
  // a real force again rescales as usual
  EXPECT_EQ(k.update(1.0, 0.8, t += 0.25), 2);
  // nothing at all keeps the scale too
  render::ArrowScaleKeeper empty;
  EXPECT_EQ(empty.update(0, 0.8, 0), 1);
  EXPECT_FALSE(empty.chosen());
}

TEST(ArrowScaleKeeper, FixedHoldsWhateverTheArrowsDo) {
  render::ArrowScaleKeeper k;
  k.update(3.42, 1.0, 0);
  k.setFixed(true);
  EXPECT_EQ(k.update(1e4, 1.0, 0.1), 5);
  EXPECT_EQ(k.update(1e-3, 1.0, 10), 5);
  k.setScale(0.7);  // rounded up to the ladder
  EXPECT_EQ(k.update(3, 1.0, 10.1), 1);
  k.reset();  // another scene: a fixed scale stays
  EXPECT_EQ(k.update(3, 1.0, 0), 1);
  k.setFixed(false);
  EXPECT_EQ(k.update(300, 1.0, 0.1), 500);
  // fixed before anything was drawn: the first choice is then held
  render::ArrowScaleKeeper f;
  f.setFixed(true);
  EXPECT_EQ(f.update(3.42, 1.0, 0), 5);
  EXPECT_EQ(f.update(300, 1.0, 0.1), 5);
}

TEST(ArrowScaleKeeper, ScrubbingBackRestartsTheWindowButKeepsTheBand) {
  render::ArrowScaleKeeper k;
  EXPECT_EQ(k.update(8, 1.0, 5.0), 10);
  EXPECT_EQ(k.update(3, 1.0, 5.1), 10);  // in the band
  EXPECT_EQ(k.update(3, 1.0, 1.0), 10);  // back in time: the window holds 3 N only, still in the band
  EXPECT_EQ(k.update(1, 1.0, 1.1), 10);  // 0.1 m: below the band; the window (3 N) since the jump decides
  EXPECT_EQ(k.update(1, 1.0, 4.2), 1);   // 3 N left the window
}

TEST(ArrowScales, UpdateReturnsTheHeldScalesAndTheNoiseFloors) {
  core::Snapshot s;
  core::ConstraintDraw c;
  c.active = true;
  c.nb = 1;
  c.body[0] = 0;
  c.force[0] = Vec3(0, 0, 34.2);
  c.torque[0] = Vec3(0.3, 0, 0);
  s.constraints.push_back(c);
  core::BodyPose p;
  p.v = Vec3(2, 0, 0);
  s.bodies.push_back(p);
  render::ViewOptions view;
  render::ArrowScales scales;
  render::ArrowScale a = scales.update(s, view, 4.0);
  EXPECT_EQ(a.newtonsPerMetre, render::chooseArrowScale(s, view, 4.0).newtonsPerMetre);
  EXPECT_DOUBLE_EQ(a.forceNoise, 34.2e-6);
  EXPECT_DOUBLE_EQ(a.torqueNoise, 0.3e-6);
  EXPECT_DOUBLE_EQ(a.velocityNoise, 2e-6);
  // at rest: the scales and floors of the motion stay
  s.constraints[0].force[0] = Vec3(0, 0, 4e-14);
  s.constraints[0].torque[0] = Vec3::Zero();
  s.bodies[0].v = Vec3(1e-16, 0, 0);
  s.t = 1.0;
  const render::ArrowScale rest = scales.update(s, view, 4.0);
  EXPECT_EQ(rest.newtonsPerMetre, a.newtonsPerMetre);
  EXPECT_EQ(rest.secondsPerMetre, a.secondsPerMetre);
  EXPECT_DOUBLE_EQ(rest.forceNoise, 34.2e-6);
  scales.reset();
  EXPECT_FALSE(scales.force.chosen());
}
