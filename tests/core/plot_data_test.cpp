// Plot samples (core/plot_data.h): a sample holds what the snapshot of its frame shows, the
// catalogue names every quantity with its unit, a reader finds its object by name across
// recompiles, and the min-max decimation keeps the extremes within its point budget.
#include "core/plot_data.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/scene_io.h"

namespace tether::core::test {
namespace {

Scene example(const std::string& name) { return loadScene(std::string(TETHER_EXAMPLES_DIR) + "/" + name); }

const PlotQuantity* find(const std::vector<PlotQuantity>& qs, const std::string& key) {
  for (const PlotQuantity& q : qs)
    if (q.key() == key) return &q;
  return nullptr;
}

TEST(PlotData, ASampleHoldsWhatTheSnapshotOfItsFrameShows) {
  const Scene scene = example("door_on_hinge.json");
  auto model = std::make_shared<const Model>(compile(scene));
  Simulation sim(model);
  sim.advanceTo(0.5);
  Snapshot snap;
  fillSnapshot(sim, sceneGeometry(scene, *model), snap);
  const FrameSample f = frameSample(snap);
  EXPECT_EQ(f.t, snap.t);
  EXPECT_EQ(f.energy.kinetic, snap.energy.kinetic);
  ASSERT_EQ(f.x.size(), snap.bodies.size());
  const std::vector<PlotQuantity> qs = plotQuantities(*snap.geometry);

  const int door = 1;
  ASSERT_EQ(snap.geometry->bodies[door].name, "door");
  for (int c = 0; c < 9; ++c) {
    PlotReader read(*find(qs, "body:door:" + std::to_string(c)));
    const Vec3& v = c < 3 ? snap.bodies[door].x : c < 6 ? snap.bodies[door].v : snap.bodies[door].w;
    EXPECT_EQ(read(f), v[c % 3]) << c;
  }
  EXPECT_GT(std::abs(PlotReader(*find(qs, "body:door:8"))(f)), 0.01);  // it swings about z

  PlotReader potential(*find(qs, "energy:potential")), total(*find(qs, "energy:total"));
  EXPECT_EQ(potential(f), snap.energy.gravity + snap.energy.springs);
  EXPECT_EQ(total(f), snap.energy.total());

  // the hinge compiles into a point part (m) and an axis part (rad): |D| of each, |F| of the pair
  const PlotQuantity* point = find(qs, "deviation:hinge:0");
  const PlotQuantity* axis = find(qs, "deviation:hinge:1");
  const PlotQuantity* force = find(qs, "force:hinge");
  ASSERT_TRUE(point && axis && force);
  EXPECT_EQ(point->unit, "m");
  EXPECT_EQ(axis->unit, "rad");
  EXPECT_EQ(force->unit, "N");
  EXPECT_EQ(point->label, "hinge |D| (point)");
  ASSERT_EQ(snap.constraints.size(), 2u);
  EXPECT_EQ(PlotReader(*point)(f), snap.constraints[0].deviation);
  EXPECT_EQ(PlotReader(*axis)(f), snap.constraints[1].deviation);
  const double F = std::max(snap.constraints[0].force[0].norm(), snap.constraints[0].force[1].norm());
  EXPECT_GT(F, 1.0);  // it holds the door up
  // (within a few ulps: the norm is summed in core's build and in this one, with or without FMA)
  EXPECT_DOUBLE_EQ(PlotReader(*force)(f), F);
}

TEST(PlotData, TheCatalogueNamesEveryQuantityWithItsUnit) {
  const Scene scene = example("pendulum.json");
  const Model model = compile(scene);
  const std::vector<PlotQuantity> qs = plotQuantities(*sceneGeometry(scene, model));
  // 3 energies, 9 per body, |D| and |F| of the point-to-nail
  ASSERT_EQ(qs.size(), 3u + 9u + 2u);
  EXPECT_EQ(qs[0].label, "Kinetic energy");
  EXPECT_EQ(qs[0].unit, "J");
  const PlotQuantity* z = find(qs, "body:rod:2");
  ASSERT_TRUE(z);
  EXPECT_EQ(z->label, "rod z");
  EXPECT_EQ(z->unit, "m");
  EXPECT_EQ(find(qs, "body:rod:4")->unit, "m/s");
  EXPECT_EQ(find(qs, "body:rod:7")->unit, "rad/s");
  EXPECT_EQ(find(qs, "deviation:hang:0")->label, "hang |D|");
  EXPECT_EQ(find(qs, "deviation:hang:0")->unit, "m");
}

TEST(PlotData, AReaderFollowsItsObjectByNameAndHasNoValueWhereItIsMissing) {
  Scene scene = example("pendulum.json");
  auto m1 = std::make_shared<const Model>(compile(scene));
  Simulation s1(m1);
  Snapshot a;
  fillSnapshot(s1, sceneGeometry(scene, *m1), a);

  // a second body ahead of the rod: the rod is index 1 now
  BodyDef ball;
  ball.name = "ball";
  ball.shape = Shape::Sphere;
  ball.position = Vec3(5, 0, 0);
  scene.bodies.insert(scene.bodies.begin(), ball);
  auto m2 = std::make_shared<const Model>(compile(scene));
  Simulation s2(m2);
  Snapshot b;
  fillSnapshot(s2, sceneGeometry(scene, *m2), b);

  PlotQuantity z{PlotQuantity::Kind::Body, "rod", 2, "rod z", "m"};
  PlotReader read(z);
  EXPECT_EQ(read(frameSample(a)), a.bodies[0].x.z());
  EXPECT_EQ(read(frameSample(b)), b.bodies[1].x.z());
  EXPECT_EQ(read(frameSample(a)), a.bodies[0].x.z());
  PlotReader gone(PlotQuantity{PlotQuantity::Kind::Body, "ball", 0, "ball x", "m"});
  EXPECT_TRUE(std::isnan(gone(frameSample(a))));
  EXPECT_EQ(gone(frameSample(b)), 5.0);
}

TEST(PlotData, DecimationKeepsTheExtremesWithinItsBudget) {
  std::vector<double> x, y, dx, dy;
  for (int i = 0; i < 100000; ++i) {
    x.push_back(i * 0.001);
    y.push_back(std::sin(i * 0.001));
  }
  y[54321] = 7.0;    // a spike of one frame
  y[77777] = -3.0;
  decimateMinMax(x, y, 500, dx, dy);
  EXPECT_LE(dx.size(), 1000u);
  EXPECT_GE(dx.size(), 900u);
  EXPECT_NE(std::find(dy.begin(), dy.end(), 7.0), dy.end());
  EXPECT_NE(std::find(dy.begin(), dy.end(), -3.0), dy.end());
  EXPECT_TRUE(std::is_sorted(dx.begin(), dx.end()));
  EXPECT_EQ(dx.front(), 0.0);
  EXPECT_EQ(dx.back(), x.back());  // the sine rises over the last stretch: its largest is the last point
  // few points: as they are
  std::vector<double> sx{0, 1, 2}, sy{3, 4, 5};
  decimateMinMax(sx, sy, 500, dx, dy);
  EXPECT_EQ(dx, sx);
  EXPECT_EQ(dy, sy);
}

}  // namespace
}  // namespace tether::core::test
