// Velocity (non-holonomic) constraints (Hong et al. Sec. 4; core/constraint.h,
// Constraint::nonholonomic): a point's prescribed velocity (point_velocity) and a sphere rolling
// on a plane without slipping (rolling), under every integrator and stabilization, against
// analytic results; and the paper's three-link bar driven by its velocity, whose holonomic and
// non-holonomic errors over 50 s are written to CSV (docs/hong-velocity-constraint.md; the worst
// figures are taken every 0.01 s).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/constraint.h"
#include "core/constraints/point_velocity.h"
#include "core/constraints/rolling.h"
#include "core/scene_io.h"
#include "test_util.h"

namespace tether::core {
namespace {

using test::pt;

// The rows of constraint part j at the simulation's state (D1 is a velocity constraint's error g).
ConstraintRows rowsNow(const Simulation& sim, int j) {
  const Model& m = sim.model();
  std::vector<BodyKinematics> kin;
  bodyKinematics(m, sim.state().params, sim.state().bodies, kin);
  const EvalContext ctx{kin, m.paths, sim.state().t, &sim.state().params.pathClock};
  ConstraintRows r;
  m.constraints[size_t(j)]->evaluate(ctx, r);
  return r;
}

double rowNorm(const Vec3& v, int d) {
  double s = 0.0;
  for (int i = 0; i < d; ++i) s += v(i) * v(i);
  return std::sqrt(s);
}

PathDef linePath(const std::string& name, const Vec3& velocity) {
  PathDef p;
  p.name = name;
  p.kind = PathKind::Line;
  p.velocity = velocity;
  return p;
}

ConstraintDef pointVelocity(const std::string& name, const PointRef& p, const std::string& path) {
  return ConstraintDef{.name = name, .params = PointVelocityDef{.point = p, .path = path}};
}

ConstraintDef rolling(const std::string& name, const std::string& body, const Vec3& origin, const Vec3& normal) {
  return ConstraintDef{.name = name, .params = RollingDef{.body = body, .origin = origin, .normal = normal}};
}

struct Config {
  IntegratorKind integrator;
  StabilizationKind stabilization;
};
const Config kConfigs[] = {
    {IntegratorKind::SemiImplicitEuler, StabilizationKind::Tau}, {IntegratorKind::SemiImplicitEuler, StabilizationKind::Baumgarte},
    {IntegratorKind::SemiImplicitEuler, StabilizationKind::Implicit}, {IntegratorKind::RK4, StabilizationKind::Tau},
    {IntegratorKind::RK4, StabilizationKind::Baumgarte}, {IntegratorKind::RK4, StabilizationKind::Implicit},
    {IntegratorKind::RK45, StabilizationKind::Tau},
};
std::string name(const Config& c) { return std::string(toString(c.integrator)) + " + " + toString(c.stabilization); }

// A sphere at rest under gravity is given a point velocity of (0.3, 0, 0.4) m/s at its centre: it
// takes that velocity and keeps it against gravity (the constraint force is m g up), under every
// integrator and stabilization. With the integral fed back (tau, Baumgarte) the point ends where
// it would be had it moved so from the start (the integral of the error returns to zero); the
// implicit method (Hong Eqn. 31) feeds back no integral and keeps the offset of the first step.
TEST(VelocityConstraint, APointTakesAndKeepsItsPathsVelocity) {
  const Vec3 vo(0.3, 0.0, 0.4);
  for (const Config& c : kConfigs) {
    Scene s;
    s.settings.integrator = c.integrator;
    s.settings.stabilization = c.stabilization;
    s.bodies.push_back(test::sphere("ball", Vec3(0, 0, 1)));
    s.paths.push_back(linePath("drive", vo));
    s.constraints.push_back(pointVelocity("push", pt("ball", "center"), "drive"));
    auto sim = test::simulate(s);
    ASSERT_TRUE(sim->advanceTo(4.0).ok) << name(c);
    const double m = sim->model().bodies[0].mass;
    const Vec3 v = sim->state().bodies[0].P / m;
    EXPECT_LT((v - vo).norm(), 1e-6) << name(c) << ": v " << v.transpose();
    const Vec3 drift = sim->state().bodies[0].x - (Vec3(0, 0, 1) + 4.0 * vo);
    std::vector<double> dev;
    sim->deviations(dev);
    if (c.stabilization != StabilizationKind::Implicit) {
      EXPECT_LT(drift.norm(), 1e-4) << name(c) << ": drift " << drift.transpose();
      EXPECT_LT(dev[0], 1e-4) << name(c);
    } else {
      // the first step's catch-up: at most |v_o| h
      EXPECT_LT(drift.norm(), 1.01 * vo.norm() * s.settings.dt) << name(c) << ": drift " << drift.transpose();
    }
  }
}

// A sphere (radius r) rolls without slipping down a plane tilted by theta. Its kinetic energy is
// 1/2 m v^2 + 1/2 (2/5 m r^2)(v/r)^2 = 7/10 m v^2 and it loses m g sin(theta) per metre down the
// slope, so a = 5/7 g sin(theta) exactly (the rolling constraint's force does no work), whatever
// the friction it takes; the contact point does not slip (g = 0), and energy is conserved.
TEST(VelocityConstraint, ABallRollsDownASlopeAtFiveSeventhsOfGSinTheta) {
  const double theta = 0.3, r = 0.1, g = 9.81, T = 3.0;
  const Vec3 n(-std::sin(theta), 0.0, std::cos(theta));            // the plane's normal
  const Vec3 downhill(-std::cos(theta), 0.0, -std::sin(theta));    // in the plane, g . downhill = g sin(theta)
  for (const Config& c : kConfigs) {
    Scene s;
    s.settings.integrator = c.integrator;
    s.settings.stabilization = c.stabilization;
    s.bodies.push_back(test::sphere("ball", r * n, r));
    s.constraints.push_back(rolling("roll", "ball", Vec3::Zero(), n));
    auto sim = test::simulate(s);
    const double e0 = test::mechanicalEnergy(*sim);
    ASSERT_TRUE(sim->advanceTo(T).ok) << name(c);
    const double m = sim->model().bodies[0].mass;
    const BodyState& b = sim->state().bodies[0];
    const double a = 5.0 / 7.0 * g * std::sin(theta);
    const Vec3 v = b.P / m;
    EXPECT_NEAR(v.dot(downhill), a * T, 1e-6 * a * T) << name(c);
    EXPECT_LT(std::abs(v.dot(n)), 1e-9) << name(c);
    const ConstraintRows slip = rowsNow(*sim, 1);
    EXPECT_LT(rowNorm(slip.D1, 2), 1e-9) << name(c) << ": slip " << slip.D1.transpose();
    // the distance: exact for rk4; semi-implicit Euler's x' = x + h v' runs ahead by at most
    // a h T / 2 (less where the spin has it take substeps)
    const double along = (b.x - r * n).dot(downhill);
    const double ahead = c.integrator == IntegratorKind::SemiImplicitEuler ? 0.5 * a * s.settings.dt * T : 0.0;
    EXPECT_GE(along, 0.5 * a * T * T - 1e-6) << name(c);
    EXPECT_LE(along, 0.5 * a * T * T + ahead + 1e-6) << name(c);
    EXPECT_NEAR(test::mechanicalEnergy(*sim), e0, (c.integrator == IntegratorKind::SemiImplicitEuler ? 2e-3 : 1e-8) * m * g * along)
        << name(c);
  }
}

// A ball rolling on level ground while spinning about the vertical: the spin about the normal is
// free, so it rolls straight on at its speed and keeps both (the classic non-holonomic
// sphere); checked for a minute with the default settings.
TEST(VelocityConstraint, ARollingBallSpinningAboutTheVerticalRollsStraightForAMinute) {
  const double r = 0.1;
  Scene s;
  BodyDef ball = test::sphere("ball", Vec3(0, 0, r), r);
  ball.velocity = Vec3(1.0, 0.0, 0.0);
  ball.angularVelocity = Vec3(0.0, 1.0 / r, 5.0);  // rolling along +x: w x (-r z) = v
  s.bodies.push_back(ball);
  s.constraints.push_back(rolling("roll", "ball", Vec3::Zero(), Vec3::UnitZ()));
  auto sim = test::simulate(s);
  const double e0 = test::mechanicalEnergy(*sim);
  ASSERT_TRUE(sim->advanceTo(60.0).ok);
  const double m = sim->model().bodies[0].mass;
  const BodyState& b = sim->state().bodies[0];
  const Vec3 v = b.P / m;
  EXPECT_LT((v - Vec3(1, 0, 0)).norm(), 1e-6) << v.transpose();
  EXPECT_NEAR(b.x.x(), 60.0, 1e-3);
  EXPECT_NEAR(b.x.y(), 0.0, 1e-6);
  EXPECT_NEAR(b.x.z(), r, 1e-9);
  EXPECT_NEAR(test::mechanicalEnergy(*sim), e0, 1e-6 * e0);
}

// A ball sliding at v0 without turning, put on a rolling constraint: the constraint's friction
// acts at the contact point, so the angular momentum about that point, m v r + (2/5 m r^2) w,
// stays m v0 r; when it rolls (w = v / r) v = 5/7 v0, whichever stabilization takes the slip out
// (the integral feedback of tau and Baumgarte rolls it back by the slipped distance on the way).
// Under tau the slip changes smoothly, by at most 0.1 m/s a step (the tau law on its integral:
// at most 2 g0/tau h = 0.04 m/s here); a velocity constraint is never held, which cancelled an
// integral of up to 1 mm in one 1 ms step and kicked the slip from 1 to -0.57 m/s.
TEST(VelocityConstraint, ASlidingBallSettlesToRollAtFiveSeventhsOfItsSpeed) {
  const double r = 0.1, v0 = 2.0;
  for (const Config& c : kConfigs) {
    Scene s;
    s.settings.integrator = c.integrator;
    s.settings.stabilization = c.stabilization;
    BodyDef ball = test::sphere("ball", Vec3(0, 0, r), r);
    ball.velocity = Vec3(v0, 0.0, 0.0);
    s.bodies.push_back(ball);
    s.constraints.push_back(rolling("roll", "ball", Vec3::Zero(), Vec3::UnitZ()));
    auto sim = test::simulate(s);
    // the touching point's velocity along x: v_x + (w x (-r z))_x = v_x - r w_y, w = L / (2/5 m r^2)
    const double mass = sim->model().bodies[0].mass;
    double jump = 0.0, last = v0;
    for (int k = 1; k <= 3000; ++k) {
      ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << name(c);
      const BodyState& b = sim->state().bodies[0];
      const double slip = b.P.x() / mass - r * b.L.y() / (0.4 * mass * r * r);
      jump = std::max(jump, std::abs(slip - last));
      last = slip;
    }
    if (c.stabilization == StabilizationKind::Tau) EXPECT_LT(jump, 0.1) << name(c);
    const double m = sim->model().bodies[0].mass;
    const Vec3 v = sim->state().bodies[0].P / m;
    EXPECT_NEAR(v.x(), 5.0 / 7.0 * v0, 1e-6) << name(c);
    EXPECT_LT(rowNorm(rowsNow(*sim, 1).D1, 2), 1e-6) << name(c);
  }
}

// A velocity constraint's integral is part of the State: a run resumed from a state saved in the
// middle repeats the whole run bit for bit, with the constraint switched on and off by events
// (its integral restarts from zero each time it comes on).
TEST(VelocityConstraint, ARunResumesBitwiseAndTheIntegralRestartsWhenSwitchedOn) {
  Scene s;
  s.bodies.push_back(test::rod("bar", Vec3(0, 0, 1), Vec3(0.6, 0, 1.2), 0.03));
  s.nails.push_back({"nail", Vec3(0, 0, 1)});
  PathDef circle;
  circle.name = "drive";
  circle.kind = PathKind::Circle;
  circle.center = Vec3(0.3, 0, 1.3);
  circle.radius = 0.2;
  circle.period = 1.5;
  s.paths.push_back(circle);
  s.constraints.push_back(test::pointToNail("pin", pt("bar", "end1"), "nail"));
  ConstraintDef drive = pointVelocity("driver", pt("bar", "end2"), "drive");
  drive.enabled = false;
  s.constraints.push_back(drive);
  s.events.push_back(EventDef{.time = 0.5, .action = EventAction::Enable, .target = "driver"});
  s.events.push_back(EventDef{.time = 1.5, .action = EventAction::Disable, .target = "driver"});
  s.events.push_back(EventDef{.time = 2.0, .action = EventAction::Enable, .target = "driver"});
  auto model = std::make_shared<const Model>(compile(s));
  Simulation whole(model), first(model);
  ASSERT_TRUE(whole.advanceTo(3.0).ok);
  ASSERT_TRUE(first.advanceTo(1.0).ok);
  EXPECT_GT(first.state().memory.velocityIntegral[1].norm(), 0.0);
  ASSERT_TRUE(first.advanceTo(1.75).ok);
  EXPECT_EQ(first.state().memory.velocityIntegral[1].norm(), 0.0);  // off: cleared
  // round trip through the scene file too
  const Scene again = sceneFromJson(sceneToJson(s));
  EXPECT_EQ(again.constraints[1], s.constraints[1]);
  Simulation resumed(std::make_shared<const Model>(compile(again)), first.state());
  ASSERT_TRUE(resumed.advanceTo(3.0).ok);
  for (size_t i = 0; i < whole.state().bodies.size(); ++i) {
    EXPECT_EQ(std::memcmp(whole.state().bodies[i].x.data(), resumed.state().bodies[i].x.data(), 3 * sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(whole.state().bodies[i].L.data(), resumed.state().bodies[i].L.data(), 3 * sizeof(double)), 0);
  }
}

// Bad definitions are named.
TEST(VelocityConstraint, BadDefinitionsAreNamed) {
  Scene s;
  s.bodies.push_back(test::rod("bar", Vec3(0, 0, 1), Vec3(0.6, 0, 1.2)));
  s.constraints.push_back(rolling("roll", "bar", Vec3::Zero(), Vec3::UnitZ()));
  try {
    compile(s);
    ADD_FAILURE() << "a rod accepted as a rolling sphere";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("constraints[0].body: \"bar\" is not a sphere"), std::string::npos) << e.what();
  }
  s.constraints[0] = pointVelocity("push", pt("bar", "end1"), "nowhere");
  try {
    compile(s);
    ADD_FAILURE() << "an unknown path accepted";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("constraints[0].path"), std::string::npos) << e.what();
  }
}

// A rod dragged at a constant velocity V by one end (point_velocity on a line path) is, in the
// drive's frame, a pendulum on a fixed pivot: its energy there, E - sum (m v . V - 1/2 m V^2), is
// conserved, and the end stays on the path. The first-order steps once aimed the rate at each
// step's end at zero, which left the step's mean rate at -h (c + g) / 2: the end climbed 0.38 m
// above the path in 300 s and the swing gained 25 % of its energy in 120 s, blowing up at 330 s
// (velocityConstraintTarget). Every integrator and stabilization, and sequential impulses.
TEST(VelocityConstraint, ARodDraggedByOneEndKeepsItsEnergyInTheDrivesFrame) {
  const Vec3 V(1.0, 0.0, 0.0), start(0, 0, 1);
  std::vector<std::pair<Config, SolverKind>> configs;
  for (const Config& c : kConfigs) configs.push_back({c, SolverKind::Auto});
  configs.push_back({{IntegratorKind::SemiImplicitEuler, StabilizationKind::Tau}, SolverKind::SequentialImpulses});
  for (const auto& [c, solver] : configs) {
    const std::string label = name(c) + (solver == SolverKind::SequentialImpulses ? " (sequential impulses)" : "");
    Scene s;
    s.settings.integrator = c.integrator;
    s.settings.stabilization = c.stabilization;
    s.settings.solver = solver;
    s.bodies.push_back(test::rod("rod", start, Vec3(0.5, 0.3, 0.2), 0.02));
    PathDef drag = linePath("drag", V);
    drag.start = start;
    s.paths.push_back(drag);
    s.constraints.push_back(pointVelocity("towed", pt("rod", "end1"), "drag"));
    auto sim = test::simulate(s);
    const double m = sim->model().bodies[0].mass, half = 0.5 * s.bodies[0].length;
    auto dragFrame = [&] {
      const BodyState& b = sim->state().bodies[0];
      return test::mechanicalEnergy(*sim) - (b.P.dot(V) - 0.5 * m * V.squaredNorm());
    };
    auto offPath = [&] {
      const BodyState& b = sim->state().bodies[0];
      return (b.x - b.q * Vec3(0, 0, half) - (start + sim->state().t * V)).norm();
    };
    ASSERT_TRUE(sim->advanceTo(5.0).ok) << label;  // (assembled: the end takes 1 m/s from rest)
    const double e0 = dragFrame();
    double worstEnergy = 0.0, worstPath = 0.0;
    for (int k = 1; k <= 24; ++k) {
      ASSERT_TRUE(sim->advanceTo(5.0 + 5.0 * k).ok) << label;
      worstEnergy = std::max(worstEnergy, std::abs(dragFrame() - e0) / e0);
      worstPath = std::max(worstPath, offPath());
    }
    // measured (euler, 1 ms): 3e-4 of the energy, 2e-6 m; the implicit method feeds back no
    // integral and keeps what the first step missed (at most |V| h; see above)
    EXPECT_LT(worstEnergy, 2e-3) << label;
    const double missed = c.stabilization == StabilizationKind::Implicit ? V.norm() * s.settings.dt : 0.0;
    EXPECT_LT(worstPath, missed + 2e-5) << label;
  }
}

// The drive doubles its speed at 5 s (a set speed event): the point's error g jumps by -1 m/s and
// tau's law takes it out as D'' + 2/tau D' + D/tau^2 = 0 with D = I, D(0) = 0, D'(0) = -1 m/s:
// D'(t) = -(1 - t/tau) e^(-t/tau), 0.655 m/s after 0.01 s at tau = 0.05 s, with every integrator
// (the first-order steps once cancelled it within a step: each step's law started from its last
// aim, which knows nothing of the jump); the implicit method cancels it at once.
TEST(VelocityConstraint, ASpeedChangeOfTheDriveIsFollowedByTheLaw) {
  for (const Config& c : kConfigs) {
    if (c.stabilization == StabilizationKind::Baumgarte) continue;
    Scene s;
    s.settings.integrator = c.integrator;
    s.settings.stabilization = c.stabilization;
    s.bodies.push_back(test::rod("rod", Vec3(0, 0, 1), Vec3(0.5, 0.3, 0.2), 0.02));
    PathDef drag = linePath("drag", Vec3(1, 0, 0));
    drag.start = Vec3(0, 0, 1);
    s.paths.push_back(drag);
    s.constraints.push_back(pointVelocity("towed", pt("rod", "end1"), "drag"));
    s.events.push_back(EventDef{.time = 5.0, .action = EventAction::Set, .target = "drag", .param = "speed", .value = {2.0}});
    auto sim = test::simulate(s);
    ASSERT_TRUE(sim->advanceTo(5.01).ok) << name(c);
    const double g = rowNorm(rowsNow(*sim, 0).D1, 3), tau = s.settings.defaultTau, t = 0.01;
    if (c.stabilization == StabilizationKind::Implicit) EXPECT_LT(g, 1e-2) << name(c);
    else EXPECT_NEAR(g, (1.0 - t / tau) * std::exp(-t / tau), 0.02) << name(c);
  }
}

// A rod spinning at 20 rad/s about a velocity-driven end that stands still (a line path at zero
// velocity; no gravity) keeps its energy: the constraint does no work. What the first-order step's
// mean rate misses of its aim, O(h^2) terms turning with the rod, is taken back on the next step;
// stepped on its own aim without that, tau's law held the miss as an offset circling with the rod
// and the rod gained 4.7 % of its energy a minute (and blew up within 10 s before the law acted on
// the mean rate at all).
TEST(VelocityConstraint, ARodSpinningAboutItsDrivenEndKeepsItsEnergy) {
  for (const Config& c : kConfigs) {
    Scene s;
    s.settings.integrator = c.integrator;
    s.settings.stabilization = c.stabilization;
    s.settings.gravityOn = false;
    BodyDef rod = test::rod("rod", Vec3(0, 0, 1), Vec3(1, 0, 1), 0.05);
    rod.velocity = Vec3(0, 10, 0);
    rod.angularVelocity = Vec3(0, 0, 20);  // (the end at x = 0 at rest)
    s.bodies.push_back(rod);
    PathDef still = linePath("still", Vec3::Zero());
    still.start = Vec3(0, 0, 1);
    s.paths.push_back(still);
    s.constraints.push_back(pointVelocity("pivot", pt("rod", "end1"), "still"));
    auto sim = test::simulate(s);
    const double e0 = test::mechanicalEnergy(*sim);
    ASSERT_TRUE(sim->advanceTo(60.0).ok) << name(c);
    const BodyState& b = sim->state().bodies[0];
    // measured (euler, 1 ms): +4e-4 in a minute, the end 1e-7 m from the path
    EXPECT_NEAR(test::mechanicalEnergy(*sim), e0, 2e-3 * e0) << name(c);
    EXPECT_LT((b.x - b.q * Vec3(0, 0, 0.5) - Vec3(0, 0, 1)).norm(), 1e-5) << name(c);
  }
}

// Hong et al. Sec. 5, Fig. 2 with the velocity constraint of Sec. 4: the three-link bar
// (resources/examples/three_link_bar_velocity.json), its first rod's free end driven by the
// velocity of a point running round a circle, for 50 s at dt = 0.01 and 0.001 with the implicit
// method (Eqn. 31) and Baumgarte's with the integral term (Eqn. 32-34, alpha = 0.5/dt,
// beta = 1/dt), first-order steps (semi-implicit Euler) and no projection, as in the paper.
// Writes t, the holonomic error (the largest |D| of the three joints, m), the non-holonomic
// error (m/s) and its integral |int g| (m) every 0.05 s to hong_velocity/<method>_dt<dt>.csv
// under the test's working directory (scripts/hong_velocity.sh makes the plot in docs/).
// The non-holonomic error is the rate the step moved with, |I(t) - I(t - dt)| / dt: the first-
// order step is a leapfrog, its velocities those of the step's middle, and the rate measured with
// them at the step's end runs ahead of it by h (c + g) / 2 (velocityConstraintTarget), also
// written (nonholonomic_end_m_per_s).
TEST(VelocityConstraint, HongThreeLinkBarDrivenByItsVelocityFor50Seconds) {
  const Scene base = loadScene(std::string(TETHER_EXAMPLES_DIR) + "/three_link_bar_velocity.json");
  const std::filesystem::path outDir = std::filesystem::current_path() / "hong_velocity";
  std::filesystem::create_directories(outDir);
  struct Worst {
    double holonomic = 0.0, rate = 0.0, end = 0.0, drift = 0.0;
  };
  std::map<std::string, Worst> worst;
  for (StabilizationKind method : {StabilizationKind::Implicit, StabilizationKind::Baumgarte})
    for (double dt : {0.01, 0.001}) {
      Scene s = base;
      test::hongSettings(s, method, dt);
      auto sim = test::simulate(s);
      const std::string key = std::string(toString(method)) + "_dt" + (dt == 0.01 ? "0.01" : "0.001");
      std::ofstream csv(outDir / (key + ".csv"));
      csv << "t,holonomic_m,nonholonomic_m_per_s,integral_m,nonholonomic_end_m_per_s\n";
      const int steps = static_cast<int>(std::lround(50.0 / dt)), every = static_cast<int>(std::lround(0.01 / dt));
      std::vector<double> dev;
      Worst& w = worst[key];
      Vec3 before = Vec3::Zero();
      for (int i = 1; i <= steps; ++i) {
        ASSERT_TRUE(sim->advanceTo(i * dt).ok) << key;
        const Vec3 integral = sim->state().memory.velocityIntegral[0], moved = integral - before;
        before = integral;
        if (i % every) continue;
        sim->deviations(dev);
        const double holonomic = std::max({dev[1], dev[2], dev[3]});
        const double rate = moved.norm() / dt, end = rowNorm(rowsNow(*sim, 0).D1, 3);
        if (i % (5 * every) == 0) csv << i * dt << "," << holonomic << "," << rate << "," << dev[0] << "," << end << "\n";
        if (i * dt >= 1.0) {  // after the start from rest (the drive's 1.6 m/s is taken in the first step)
          w.holonomic = std::max(w.holonomic, holonomic);
          w.rate = std::max(w.rate, rate);
          w.end = std::max(w.end, end);
          w.drift = std::max(w.drift, dev[0]);
        }
      }
      ASSERT_TRUE(csv.good()) << key;
      std::printf("%-14s max holonomic %.3e m, non-holonomic %.3e m/s (at the step's end %.3e), integral %.3e m\n",
                  key.c_str(), w.holonomic, w.rate, w.end, w.drift);
    }
  // bounded for the 50 s (measured: holonomic 1.6e-6 m at dt = 0.01, which takes 8 substeps for
  // the bar's spin, and 3.2e-8 m at 0.001; non-holonomic at most 1.1e-5 and 7.4e-7 m/s; the
  // driven end at most 3.5e-6 and 3.7e-8 m from the drive's point). Before the law acted on the
  // step's mean rate, the end was pushed h^2/2 c off the drive every step, and with semi-implicit
  // Euler at dt = 1 ms the bar gained energy until it blew up after 325 s (the soak found it).
  for (const auto& [key, w] : worst) {
    const double dt = key.ends_with("0.01") ? 0.01 : 0.001;
    EXPECT_LT(w.holonomic, dt == 0.01 ? 5e-6 : 2e-7) << key;
    EXPECT_LT(w.rate, 3e-3 * dt) << key;
    EXPECT_LT(w.drift, dt == 0.01 ? 1e-5 : 1e-7) << key;
  }
  for (const char* method : {"implicit", "baumgarte"}) {
    const std::string m = method;
    // the errors shrink with the step (the implicit method's |g| as h^2 per step, uncorrected;
    // Baumgarte's integral takes its accumulated part out)
    EXPECT_LT(worst[m + "_dt0.001"].rate, 0.25 * worst[m + "_dt0.01"].rate) << m;
    EXPECT_LT(worst[m + "_dt0.001"].holonomic, 0.25 * worst[m + "_dt0.01"].holonomic) << m;
  }
  // the paper: similar holonomic errors for both methods (here within a factor of 2); its
  // "somewhat better" non-holonomic errors for the implicit method are not reproduced: Baumgarte's
  // integral term keeps the rate 2 (dt = 0.01) and 28 (0.001) times smaller (docs/hong-velocity-constraint.md)
  for (const char* dt : {"_dt0.01", "_dt0.001"}) {
    const double a = worst[std::string("implicit") + dt].holonomic, b = worst[std::string("baumgarte") + dt].holonomic;
    EXPECT_LT(std::max(a, b), 2.0 * std::min(a, b)) << dt;
  }
}

}  // namespace
}  // namespace tether::core
