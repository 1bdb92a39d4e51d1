// core/constraint_diagnostics.cpp: rank, redundant and conflicting constraints, as check and
// the GUI report them.
#include <gtest/gtest.h>

#include "core/constraint_system.h"
#include "core/headless.h"
#include "core/scene_io.h"
#include "test_util.h"

namespace tether::core {
namespace {

using test::pt;

// Under-constrained: two nails at the same place hold one point. M = [W W; W W] has rank 3;
// the minimum-norm solution splits the load equally.
TEST(Diagnostics, UnderConstrainedSplitsForcesEqually) {
  Scene s = test::paperScene();
  s.settings.dt = 1e-3;
  s.bodies.push_back(test::sphere("ball", Vec3(0, 0, 0)));
  s.nails.push_back({"n1", Vec3::Zero()});
  s.nails.push_back({"n2", Vec3::Zero()});
  s.constraints.push_back(test::pointToNail("c1", pt("ball", "center"), "n1"));
  s.constraints.push_back(test::pointToNail("c2", pt("ball", "center"), "n2"));
  auto sim = test::simulate(s);
  ASSERT_TRUE(sim->advanceTo(1.0).ok);
  sim->refresh();
  const ConstraintSystem& sys = sim->context().system;
  EXPECT_EQ(sys.report().rank, 3);
  Vec3 f1, f2, t;
  sys.constraintForce(0, 0, f1, t);
  sys.constraintForce(1, 0, f2, t);
  const double mg = sim->model().bodies[0].mass * 9.81;
  EXPECT_NEAR((f1 - f2).norm() / mg, 0.0, 1e-9);
  EXPECT_NEAR((f1 + f2 - Vec3(0, 0, mg)).norm() / mg, 0.0, 1e-6);
  const ConflictReport c = sys.conflicts();
  EXPECT_EQ(c.redundant.size(), 2u);
  EXPECT_TRUE(c.conflicting.empty());
  EXPECT_LT(sim->state().bodies[0].x.norm(), 1e-8);
}

// The rank analysis runs per group of constraints joined through moving bodies (issue 17: one
// SVD of the whole system took 2.5 GB and 8 s for 3 000 pendulums): a redundant pair in one
// pendulum is found among 2 000 independent others, and the others are not blamed.
TEST(Diagnostics, RankAnalysisIsPerGroupOfJoinedConstraints) {
  Scene s = test::paperScene();
  s.settings.dt = 1e-3;
  for (int i = 0; i < 2000; ++i) {
    const std::string n = std::to_string(i);
    s.bodies.push_back(test::sphere("ball" + n, Vec3(0.1 * i, 0, 0)));
    s.nails.push_back({"nail" + n, Vec3(0.1 * i, 0, 0)});
    s.constraints.push_back(test::pointToNail("pin" + n, pt("ball" + n, "center"), "nail" + n));
  }
  const CheckReport full = checkScene(s);
  EXPECT_EQ(full.rows, 6000);
  EXPECT_EQ(full.rank, 6000);
  EXPECT_TRUE(full.redundant.empty());
  s.nails.push_back({"twin", Vec3(0.1 * 7, 0, 0)});
  s.constraints.push_back(test::pointToNail("pin7_again", pt("ball7", "center"), "twin"));
  const CheckReport r = checkScene(s);
  EXPECT_EQ(r.rank, 6000);
  EXPECT_EQ(r.redundant, (std::vector<std::string>{"pin7", "pin7_again"}));
  EXPECT_TRUE(r.conflicting.empty());
}

// Redundant but consistent: a crank pinned at one end, its other end driven round a circle of
// its own length about the pin (point-to-path), default settings (semi-implicit Euler with
// projection). The pin and the drive both hold the crank's length, so M has rank 5 of 6, and
// their targets agree once the crank turns with the drive. (The held point pairs' target left
// out the path's acceleration, half of Omega^2 R stood between the two radial rows, and check
// called this working crank "conflicting".)
TEST(Diagnostics, ADrivenCrankIsRedundantNotConflicting) {
  const Scene s = sceneFromJson(R"({"format": "tether-scene", "version": 1,
    "bodies": [{"name": "crank", "type": "rod", "ends": [[0, 0, 1], [0.3, 0, 1]], "radius": 0.02}],
    "nails": [{"name": "pivot", "position": [0, 0, 1]}],
    "paths": [{"name": "drive", "type": "circle", "center": [0, 0, 1], "normal": [0, 1, 0], "radius": 0.3, "period": 2}],
    "constraints": [{"name": "pin", "type": "point_to_nail", "point": "crank.end1", "nail": "pivot"},
                    {"name": "drive_c", "type": "point_to_path", "point": "crank.end2", "path": "drive"}]})");
  const CheckReport r = checkScene(s);
  EXPECT_EQ(r.rank, 5);
  EXPECT_EQ(r.redundant, (std::vector<std::string>{"pin", "drive_c"}));
  EXPECT_TRUE(r.conflicting.empty()) << formatCheck(r);
  // and the system the step solves, held, is consistent
  auto sim = test::simulate(s);
  ASSERT_TRUE(sim->advanceTo(3.0).ok);
  sim->refresh();
  EXPECT_TRUE(sim->context().system.conflicts().conflicting.empty());
  EXPECT_LT(sim->context().system.report().residual, 1e-6);
}

// Over-constrained: one point, two nails 0.4 m apart. No force meets both; least squares
// settles the body between them, finite, and the conflict is reported.
TEST(Diagnostics, OverConstrainedSettlesBetweenAndReportsConflict) {
  Scene s = test::paperScene();
  s.settings.dt = 1e-3;
  s.settings.gravityOn = false;
  s.bodies.push_back(test::sphere("ball", Vec3(0.3, 0.5, 0.1)));
  s.nails.push_back({"n1", Vec3(-0.2, 0, 0)});
  s.nails.push_back({"n2", Vec3(0.2, 0, 0)});
  s.constraints.push_back(test::pointToNail("c1", pt("ball", "center"), "n1"));
  s.constraints.push_back(test::pointToNail("c2", pt("ball", "center"), "n2"));
  auto sim = test::simulate(s);
  ASSERT_TRUE(sim->advanceTo(5.0).ok);
  const BodyState& b = sim->state().bodies[0];
  EXPECT_TRUE(b.x.allFinite());
  EXPECT_LT(b.x.norm(), 1e-6);  // midway between the nails
  EXPECT_LT(b.P.norm(), 1e-6);
  sim->refresh();
  const ConstraintSystem& sys = sim->context().system;
  EXPECT_TRUE(sys.forces().allFinite());
  const ConflictReport c = sys.conflicts();
  EXPECT_EQ(c.conflicting.size(), 2u);
}

}  // namespace
}  // namespace tether::core
