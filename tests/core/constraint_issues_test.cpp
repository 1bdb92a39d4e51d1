// core/constraint_issues.cpp: what check flags, per constraint definition, with its reason.
#include <gtest/gtest.h>

#include "core/constraint_issues.h"
#include "core/scene_io.h"
#include "test_util.h"

namespace tether::core {
namespace {

using test::pt;

// a ball held by two nails half a metre apart: both constraints conflict (the point cannot be
// at both) and are redundant (six rows for three coordinates)
Scene twoNails() {
  Scene s = test::paperScene();
  s.settings.gravityOn = false;
  s.bodies.push_back(test::sphere("ball", Vec3(0.3, 0.5, 0.1)));
  s.bodies.push_back(test::sphere("other", Vec3(3, 0, 0)));
  s.nails.push_back({"n1", Vec3(-0.2, 0, 0)});
  s.nails.push_back({"n2", Vec3(0.2, 0, 0)});
  s.nails.push_back({"n3", Vec3(3, 0, 1)});
  s.constraints.push_back(test::pointToNail("fine", pt("other", "center"), "n3"));
  s.constraints.push_back(test::pointToNail("left", pt("ball", "center"), "n1"));
  s.constraints.push_back(test::pointToNail("right", pt("ball", "center"), "n2"));
  return s;
}

TEST(ConstraintIssues, AConflictingPairIsFlaggedWithEachOtherNamed) {
  const std::vector<ConstraintIssue> issues = constraintIssues(twoNails());
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].name, "left");
  EXPECT_EQ(issues[1].name, "right");
  for (const ConstraintIssue& i : issues) {
    EXPECT_TRUE(i.conflicting);
    EXPECT_TRUE(i.redundant);
    EXPECT_NE(i.reason.find("Conflicting"), std::string::npos) << i.reason;
    EXPECT_NE(i.reason.find("Redundant"), std::string::npos) << i.reason;
  }
  EXPECT_NE(issues[0].reason.find("\"right\""), std::string::npos) << issues[0].reason;
  EXPECT_EQ(issues[0].reason.find("\"left\""), std::string::npos) << issues[0].reason;
  EXPECT_NE(issues[1].reason.find("\"left\""), std::string::npos) << issues[1].reason;
  // what check prints, flag for flag
  const CheckReport r = checkScene(twoNails());
  EXPECT_EQ(r.conflicting, (std::vector<std::string>{"left", "right"}));
}

// Five rods drawn straight between two nails (a helper's rope bridge): at the reach exactly
// their joints are redundant, short of it conflicting, though none is a joint too many. Each is
// told the chain's shape (it was told to remove one, or to use a hinge instead of two point
// joints).
TEST(ConstraintIssues, AStraightChainsJointsAreToldItsShape) {
  auto bridge = [](double span) {
    Scene s;  // (the defaults, as the helper's)
    for (int i = 0; i < 5; ++i)
      s.bodies.push_back(test::rod("rod" + std::to_string(i), Vec3(-1.0 + 0.4 * i, 0, 1), Vec3(-0.6 + 0.4 * i, 0, 1)));
    s.nails.push_back({"left", Vec3(-1, 0, 1)});
    s.nails.push_back({"right", Vec3(-1 + span, 0, 1)});
    s.constraints.push_back(test::pointToNail("L", pt("rod0", "end1"), "left"));
    for (int i = 0; i < 4; ++i)
      s.constraints.push_back(test::pointToPoint("j" + std::to_string(i), pt("rod" + std::to_string(i), "end2"),
                                                 pt("rod" + std::to_string(i + 1), "end1")));
    s.constraints.push_back(test::pointToNail("R", pt("rod4", "end2"), "right"));
    return s;
  };
  for (const double span : {2.0, 1.99}) {
    const std::vector<ConstraintIssue> issues = constraintIssues(bridge(span));
    EXPECT_EQ(issues.size(), 6u) << span;
    for (const ConstraintIssue& i : issues) {
      EXPECT_TRUE(span < 2.0 ? i.conflicting : i.redundant) << i.name;
      EXPECT_NE(i.reason.find("because of the chain's shape, not because it has a joint too many: the chain nail "),
                std::string::npos)
          << i.reason;
      EXPECT_NE(i.reason.find("is drawn straight between its anchors"), std::string::npos) << i.reason;
      EXPECT_EQ(i.reason.find("hinge"), std::string::npos) << i.reason;
      EXPECT_EQ(i.reason.find("Remove"), std::string::npos) << i.reason;
    }
  }
  // and its run, which blows up at once, says to change the shape: not to try a smaller dt, nor
  // to change a drive it has not (it was told all three), with the gap's unit
  const RunSummary run = runScene(bridge(1.99), {.until = 0.1});
  ASSERT_TRUE(run.diverged);
  EXPECT_NE(run.message.find("could not all be met there: where no pose meets them (a chain beyond its reach, or drawn "
                             "straight), no step size helps: change the model's shape"),
            std::string::npos)
      << run.message;
  EXPECT_NE(run.message.find(" m before that step"), std::string::npos) << run.message;
  EXPECT_NE(run.message.find("check found the model's shape at fault"), std::string::npos) << run.message;
  EXPECT_EQ(run.message.find("drive"), std::string::npos) << run.message;
  EXPECT_EQ(run.message.find("Try a smaller"), std::string::npos) << run.message;
}

TEST(ConstraintIssues, RedundantAloneAndNone) {
  Scene s = twoNails();
  s.nails[1].position = s.nails[0].position;  // both nails at one place: redundant, not conflicting
  const std::vector<ConstraintIssue> issues = constraintIssues(s);
  ASSERT_EQ(issues.size(), 2u);
  for (const ConstraintIssue& i : issues) {
    EXPECT_FALSE(i.conflicting);
    EXPECT_TRUE(i.redundant);
    EXPECT_EQ(i.reason.find("Conflicting"), std::string::npos);
    EXPECT_NE(i.reason.find("dense SVD"), std::string::npos);
    // a helper's pinned and driven crank was told to remove one: where the mechanism needs both,
    // it runs as it is (and faster with the sparse solver)
    EXPECT_NE(i.reason.find("a crank pinned and driven round, a closed linkage of hinges), they agree and it runs as it is"),
              std::string::npos) << i.reason;
    EXPECT_NE(i.reason.find("Solver: sparse"), std::string::npos) << i.reason;
  }
  s.constraints.pop_back();
  EXPECT_TRUE(constraintIssues(s).empty());
}

// A rod held at both ends by nails exactly its length apart: redundant (both pins hold its length
// along the line between the nails), and consistent once it is in place. Built apart (turned and
// moved off the nails, as a model a user draws scattered), the two pins' deviations along that
// line disagree at t = 0 and the least-squares residual names both as conflicting; by the time
// the model has assembled they agree. check says so instead of calling them conflicting (the card
// house's 24 joints were all flagged "conflicting" in red).
TEST(ConstraintIssues, AModelBuiltApartConflictsOnlyWhileItAssembles) {
  Scene s = test::paperScene();
  s.settings.gravityOn = false;
  s.nails.push_back({"a", Vec3(0, 0, 0)});
  s.nails.push_back({"b", Vec3(1, 0, 0)});
  s.bodies.push_back(test::rod("bar", Vec3(0.1, 0.3, 0.05), Vec3(0.9, 0.7, -0.5)));  // turned, off the nails
  s.bodies.back().length = 1.0;  // the nails' distance
  s.constraints.push_back(test::pointToNail("left", pt("bar", "end1"), "a"));
  s.constraints.push_back(test::pointToNail("right", pt("bar", "end2"), "b"));
  const CheckReport r = checkScene(s);
  EXPECT_EQ(r.redundant, (std::vector<std::string>{"left", "right"}));
  EXPECT_TRUE(r.conflicting.empty());
  EXPECT_EQ(r.assembling, (std::vector<std::string>{"left", "right"}));
  EXPECT_GT(r.conflictCheckedAt, 0.0);
  EXPECT_NE(formatCheck(r).find("conflicting only while assembling"), std::string::npos) << formatCheck(r);
  for (const ConstraintIssue& i : constraintIssues(s, r)) {
    EXPECT_FALSE(i.conflicting) << i.name;
    EXPECT_TRUE(i.redundant) << i.name;
  }
  // nails a little too far apart: the pins never agree, and stay conflicting
  s.nails[1].position = Vec3(1.1, 0, 0);
  const CheckReport apart = checkScene(s);
  EXPECT_EQ(apart.conflicting, (std::vector<std::string>{"left", "right"}));
  EXPECT_TRUE(apart.assembling.empty());
}

TEST(ConstraintIssues, AnInvalidSceneThrowsAsCheckDoes) {
  Scene s = twoNails();
  test::def<PointToNailDef>(s.constraints[1]).nail = "nowhere";
  EXPECT_THROW(constraintIssues(s), SceneError);
}

}  // namespace
}  // namespace tether::core
