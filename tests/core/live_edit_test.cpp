// Editing a running model: state carries over by name (core/live_edit.h).
#include "core/live_edit.h"

#include <gtest/gtest.h>

#include "core/body.h"
#include "test_util.h"

namespace tether::core::test {
namespace {

struct Running {
  Scene scene;
  std::shared_ptr<const Model> model;
  std::unique_ptr<Simulation> sim;
  explicit Running(const Scene& s) : scene(s), model(std::make_shared<const Model>(compile(s))) {
    sim = std::make_unique<Simulation>(model);
  }
  // Recompile for an edited scene and continue from the carried-over state.
  void edit(const Scene& s) {
    auto m = std::make_shared<const Model>(compile(s));
    State st = carryOver(scene, *model, sim->state(), s, *m);
    scene = s;
    model = m;
    sim = std::make_unique<Simulation>(model, st);
  }
};

TEST(LiveEdit, UnchangedSceneContinuesBitwise) {
  const Scene s = compoundPendulum(0.05);
  Running a(s), b(s);
  a.sim->advanceTo(0.5);
  b.sim->advanceTo(0.5);
  b.edit(s);  // a no-op edit in the middle of the run
  a.sim->advanceTo(1.0);
  b.sim->advanceTo(1.0);
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    EXPECT_EQ(a.sim->state().bodies[i].x, b.sim->state().bodies[i].x);
    EXPECT_EQ(a.sim->state().bodies[i].L, b.sim->state().bodies[i].L);
  }
  EXPECT_EQ(a.sim->state().t, b.sim->state().t);
}

TEST(LiveEdit, AddedConstraintAssemblesWhileOtherBodiesKeepTheirMotion) {
  Scene s = compoundPendulum(0.05);
  s.bodies.push_back(sphere("ball", Vec3(3, 0, 0), 0.1));
  Running r(s);
  r.sim->advanceTo(0.3);
  const State before = r.sim->state();
  const int ball = r.model->findBody("ball");
  EXPECT_LT(before.bodies[size_t(ball)].x.z(), -0.3);  // falling freely

  Scene e = s;
  e.nails.push_back({"hook", Vec3(3, 0, 0)});
  e.constraints.push_back(pointToNail("catch", pt("ball", "top"), "hook"));
  r.edit(e);
  for (int i = 0; i < 2; ++i) {  // the pendulum continues where it was
    EXPECT_EQ(r.sim->state().bodies[size_t(i)].x, before.bodies[size_t(i)].x);
    EXPECT_EQ(r.sim->state().bodies[size_t(i)].P, before.bodies[size_t(i)].P);
  }
  EXPECT_EQ(r.sim->state().bodies[size_t(ball)].x, before.bodies[size_t(ball)].x);
  EXPECT_DOUBLE_EQ(r.sim->state().t, 0.3);
  // the new constraint pulls the ball up to the hook (tau = 0.1 s: assembled within ~2 s)
  r.sim->advanceTo(3.0);
  std::vector<double> dev;
  r.sim->deviations(dev);
  EXPECT_LT(dev[size_t(r.model->findConstraint("catch"))], 1e-3);
  EXPECT_LT(dev[size_t(r.model->findConstraint("joint"))], 1e-6);
}

TEST(LiveEdit, MovedBodyStartsOverAndDensityChangeKeepsVelocity) {
  Scene s = compoundPendulum(0.05);
  s.bodies.push_back(sphere("ball", Vec3(3, 0, 0), 0.1));
  Running r(s);
  r.sim->advanceTo(0.3);
  const State before = r.sim->state();

  Scene e = s;
  e.bodies[2].position = Vec3(4, 0, 1);  // the user drags the ball somewhere else
  e.bodies[1].density *= 2.0;            // and makes the lower rod heavier
  r.edit(e);
  const State& after = r.sim->state();
  EXPECT_EQ(after.bodies[2].x, Vec3(4, 0, 1));
  EXPECT_EQ(after.bodies[2].P, Vec3::Zero());
  // v = P/m and w = I^-1 L unchanged; momenta doubled
  EXPECT_TRUE(after.bodies[1].P.isApprox(2.0 * before.bodies[1].P, 1e-12));
  EXPECT_TRUE(after.bodies[1].L.isApprox(2.0 * before.bodies[1].L, 1e-12));
  EXPECT_EQ(after.bodies[1].x, before.bodies[1].x);
}

TEST(LiveEdit, TimelineIsReplayedWithTheNewEvents) {
  Scene s = compoundPendulum(0.05);
  Running r(s);
  r.sim->advanceTo(0.5);
  Scene e = s;
  EventDef off;
  off.time = 0.2;
  off.action = EventAction::Disable;
  off.target = "joint";
  e.events.push_back(off);  // an event in the past takes effect at once
  r.edit(e);
  EXPECT_FALSE(r.sim->state().params.constraintEnabled[1]);
  EXPECT_EQ(r.sim->state().nextEvent, 1u);
}

}  // namespace
}  // namespace tether::core::test
