// The recorded history (core/history.h): frame grid, memory bound, lookups, and that frames
// resume runs bitwise; events fire at exactly their times with every integrator.
#include "core/history.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/live_edit.h"
#include "core/snapshot.h"
#include "test_util.h"

namespace tether::core::test {
namespace {

TEST(History, FramePeriodIsAMultipleOfTheStepNearestASixtiethOfASecond) {
  EXPECT_DOUBLE_EQ(framePeriod(1e-3), 17e-3);
  EXPECT_DOUBLE_EQ(framePeriod(1.0 / 240), 4.0 / 240);
  EXPECT_DOUBLE_EQ(framePeriod(0.1), 0.1);
}

State frameAt(double t, int bodies) {
  State s;
  s.t = t;
  s.bodies.resize(size_t(bodies));
  s.params.bodyActive.assign(size_t(bodies), 1);
  return s;
}

TEST(History, KeepsWithinItsMemoryBoundByDroppingTheOldest) {
  const std::size_t frame = stateBytes(frameAt(0, 10));
  History h(50 * frame);
  for (int k = 0; k < 1000; ++k) h.record(frameAt(k * 0.01, 10));
  EXPECT_LE(h.bytes(), h.limit());
  EXPECT_EQ(h.size(), 50u);
  EXPECT_DOUBLE_EQ(h.end(), 9.99);
  EXPECT_DOUBLE_EQ(h.start(), 9.5);
  h.setLimit(10 * frame);
  EXPECT_EQ(h.size(), 10u);
  EXPECT_LE(h.bytes(), 10 * frame);
  EXPECT_DOUBLE_EQ(h.start(), 9.9);
}

// Each frame keeps the contacts it was recorded with (the app draws them when the frame is
// replayed); they count towards the memory bound; a state that is not one of the frames has none.
TEST(History, FramesKeepTheirContacts) {
  History h;
  for (int k = 0; k <= 4; ++k) {
    std::vector<ContactDraw> c(static_cast<size_t>(k));
    for (int i = 0; i < k; ++i) c[size_t(i)] = {.bodyA = i, .force = Vec3(0, 0, k)};
    h.record(frameAt(k / 4.0, 2), std::move(c));
  }
  EXPECT_EQ(h.bytes(), 5 * stateBytes(frameAt(0, 2)) + 10 * sizeof(ContactDraw));
  const std::vector<ContactDraw>& c = h.contactsOf(h.nearest(0.74));
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[2].bodyA, 2);
  EXPECT_EQ(c[2].force.z(), 3.0);
  EXPECT_TRUE(h.contactsOf(h.atOrBefore(0.1)).empty());
  const State other = frameAt(0.75, 2);
  EXPECT_TRUE(h.contactsOf(&other).empty());
  EXPECT_TRUE(h.contactsOf(nullptr).empty());
  h.truncateAfter(0.5);
  EXPECT_EQ(h.bytes(), 3 * stateBytes(frameAt(0, 2)) + 3 * sizeof(ContactDraw));
}

TEST(History, LookupsAndTruncation) {
  History h;
  for (int k = 0; k <= 10; ++k) h.record(frameAt(k / 8.0, 2));  // exact binary times
  EXPECT_EQ(h.atOrBefore(0.3)->t, 0.25);
  EXPECT_EQ(h.atOrBefore(0.25)->t, 0.25);
  EXPECT_EQ(h.atOrBefore(0.25, true)->t, 0.125);
  EXPECT_EQ(h.atOrBefore(-1.0), nullptr);
  EXPECT_EQ(h.atOrBefore(0.0, true), nullptr);
  EXPECT_EQ(h.nearest(0.32)->t, 0.375);
  EXPECT_EQ(h.nearest(7.0)->t, 1.25);
  EXPECT_EQ(h.after(0.25)->t, 0.375);
  EXPECT_EQ(h.after(1.25), nullptr);
  h.truncateAfter(0.5);
  EXPECT_EQ(h.end(), 0.5);
  h.truncateAfter(0.5, true);
  EXPECT_EQ(h.end(), 0.375);
  // recording at an earlier time replaces what followed
  h.record(frameAt(0.25, 2));
  EXPECT_EQ(h.end(), 0.25);
  EXPECT_EQ(h.size(), 3u);
}

// A compound pendulum with an event that cuts the joint mid-run and turns gravity off later.
Scene eventfulScene(IntegratorKind integrator, SolverKind solver) {
  Scene s = compoundPendulum(0.05);
  s.settings.integrator = integrator;
  s.settings.solver = solver;
  s.settings.dt = 1e-3;
  EventDef cut;
  cut.time = 0.4567;  // not on the step grid
  cut.action = EventAction::Disable;
  cut.target = "joint";
  s.events.push_back(cut);
  return s;
}

struct IntegratorCase {
  IntegratorKind integrator;
  SolverKind solver;
};
const IntegratorCase kCases[] = {{IntegratorKind::RK4, SolverKind::Auto},
                                 {IntegratorKind::RK45, SolverKind::Auto},
                                 {IntegratorKind::SemiImplicitEuler, SolverKind::Auto},
                                 {IntegratorKind::SemiImplicitEuler, SolverKind::SequentialImpulses}};

TEST(History, RecordedFramesResumeTheRunBitwiseWithEveryIntegrator) {
  for (const IntegratorCase& c : kCases) {
    SCOPED_TRACE(toString(c.integrator) + std::string(" / ") + toString(c.solver));
    const Scene s = eventfulScene(c.integrator, c.solver);
    auto model = std::make_shared<const Model>(compile(s));
    // the uninterrupted run, recorded frame by frame as the GUI does
    Simulation run(model);
    History h;
    const double F = framePeriod(s.settings.dt);
    for (int k = 1; k <= 60; ++k) {
      ASSERT_TRUE(run.advanceTo(k * F).ok);
      h.record(run.state());
    }
    // resume from frames before and after the event
    for (double from : {0.2, 0.6}) {
      Simulation resumed(model, *h.atOrBefore(from));
      ASSERT_TRUE(resumed.advanceTo(60 * F).ok);
      for (size_t i = 0; i < s.bodies.size(); ++i) {
        EXPECT_EQ(resumed.state().bodies[i].x, run.state().bodies[i].x);
        EXPECT_EQ(resumed.state().bodies[i].q.coeffs(), run.state().bodies[i].q.coeffs());
        EXPECT_EQ(resumed.state().bodies[i].P, run.state().bodies[i].P);
        EXPECT_EQ(resumed.state().bodies[i].L, run.state().bodies[i].L);
      }
    }
  }
}

// Gravity switched off at te: afterwards a free ball's velocity stays -g te exactly (every one of
// these integrators is exact for a constant acceleration), which it is only if the event fired
// at te itself and not at a neighbouring step.
TEST(History, EventsFireAtExactlyTheirTimesWithEveryIntegrator) {
  for (const IntegratorCase& c : kCases) {
    SCOPED_TRACE(toString(c.integrator) + std::string(" / ") + toString(c.solver));
    Scene s = paperScene();
    s.settings.integrator = c.integrator;
    s.settings.solver = c.solver;
    s.settings.projection = false;
    s.settings.dt = 1e-2;
    s.bodies.push_back(sphere("ball", Vec3::Zero()));
    EventDef off;
    off.time = 0.1234;
    off.action = EventAction::Disable;
    off.target = "gravity";
    s.events.push_back(off);
    auto sim = simulate(s);
    ASSERT_TRUE(sim->advanceTo(0.5).ok);
    const double v = sim->state().bodies[0].P.z() * sim->model().bodies[0].invMass;
    EXPECT_NEAR(v, -9.81 * 0.1234, 1e-12);
    EXPECT_FALSE(sim->state().params.gravityOn);
  }
}

TEST(LiveEdit, FirstEventChangeFindsWhereTheTimelinesPart) {
  const Scene a = eventfulScene(IntegratorKind::RK4, SolverKind::Auto);
  EXPECT_EQ(firstEventChange(a, a), std::numeric_limits<double>::infinity());
  Scene b = a;
  EventDef on;
  on.time = 2.0;
  on.action = EventAction::Enable;
  on.target = "joint";
  b.events.push_back(on);
  EXPECT_EQ(firstEventChange(a, b), 2.0);
  EXPECT_EQ(firstEventChange(b, a), 2.0);
  Scene c = a;
  c.events[0].time = 0.3;  // moved earlier
  EXPECT_EQ(firstEventChange(a, c), 0.3);
  Scene d = a;
  d.bodies[0].density = 5.0;  // not an event
  EXPECT_FALSE(firstEventChange(a, d).has_value());
}

TEST(LiveEdit, InitialStateFromAFrameStartsThereAtRest) {
  Scene s = compoundPendulum(0.05);
  auto sim = simulate(s);
  sim->advanceTo(0.7);
  Snapshot frame;
  fillSnapshot(*sim, sceneGeometry(s, sim->model()), frame);
  const Scene t = withInitialState(s, frame);
  auto fresh = simulate(t);
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    EXPECT_TRUE(fresh->state().bodies[i].x.isApprox(sim->state().bodies[i].x, 1e-14));
    EXPECT_TRUE(fresh->state().bodies[i].P.isApprox(sim->state().bodies[i].P, 1e-12));
    EXPECT_TRUE(fresh->state().bodies[i].L.isApprox(sim->state().bodies[i].L, 1e-10));
  }
}

}  // namespace
}  // namespace tether::core::test
