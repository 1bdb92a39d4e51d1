// Snapshots: what the viewport draws must be the physics' own numbers.
#include "core/snapshot.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace tether::core::test {
namespace {

// A rod hanging at rest from a nail: the constraint force at the nail holds the weight,
// F = m g upward, applied at the rod's end1; gravity appears as the rod's external force.
TEST(Snapshot, HangingRodForceIsItsWeightAtThePin) {
  Scene s = paperScene();
  s.nails.push_back({"nail", Vec3(0, 0, 1)});
  s.bodies.push_back(rod("rod", Vec3(0, 0, 1), Vec3(0, 0, 0), 0.02));
  s.constraints.push_back(pointToNail("pin", pt("rod", "end1"), "nail"));
  auto sim = simulate(s);
  const double m = sim->model().bodies[0].mass;
  Snapshot snap;
  fillSnapshot(*sim, sceneGeometry(s, sim->model()), snap);
  ASSERT_EQ(snap.constraints.size(), 1u);
  const ConstraintDraw& c = snap.constraints[0];
  ASSERT_TRUE(c.active);
  ASSERT_EQ(c.nb, 1);
  EXPECT_NEAR(c.force[0].z(), m * 9.81, 1e-9 * m);
  EXPECT_NEAR(c.force[0].x(), 0.0, 1e-12);
  EXPECT_TRUE(c.at[0].isApprox(Vec3(0, 0, 1), 1e-12));
  EXPECT_LT(c.torque[0].norm(), 1e-12);  // a point force: no pure torque left over
  EXPECT_TRUE(snap.bodies[0].externalForce.isApprox(Vec3(0, 0, -m * 9.81), 1e-12));
  EXPECT_LT(snap.maxDeviation, 1e-12);
  EXPECT_EQ(snap.geometry->bodies[0].name, "rod");
  EXPECT_EQ(snap.geometry->constraintNames[0], "pin");
  EXPECT_NEAR(snap.energy.gravity, m * 9.81 * 0.5, 1e-9);
}

// The mouse spring: F = -k (p - target) - c v_p pulls the grabbed point toward the target.
TEST(Snapshot, MouseSpringPullsTowardTheTarget) {
  Scene s = paperScene();
  s.settings.gravityOn = false;
  s.bodies.push_back(sphere("ball", Vec3::Zero(), 0.1));
  Model model = compile(s);
  State st = model.initialState();
  st.params.mouse.body = 0;
  st.params.mouse.local = Vec3(0.1, 0, 0);
  st.params.mouse.target = Vec3(1.1, 0, 0);
  st.params.mouse.stiffness = 50.0;
  Simulation sim(std::make_shared<const Model>(model), st);
  Snapshot snap;
  fillSnapshot(sim, sceneGeometry(s, sim.model()), snap);
  EXPECT_TRUE(snap.mouseActive);
  EXPECT_TRUE(snap.mouseFrom.isApprox(Vec3(0.1, 0, 0)));
  EXPECT_TRUE(snap.bodies[0].externalForce.isApprox(Vec3(50.0, 0, 0), 1e-12));
  sim.advanceTo(0.05);
  EXPECT_GT(sim.state().bodies[0].x.x(), 0.0);
}

}  // namespace
}  // namespace tether::core::test
