// Renaming and removing objects keeps a scene valid (core/scene_edit.h).
#include "core/scene_edit.h"

#include <gtest/gtest.h>

#include "core/validate.h"
#include "test_util.h"

namespace tether::core::test {
namespace {

Scene sceneWithEverything() {
  Scene s = compoundPendulum(0.1);
  s.paths.push_back({});
  s.paths.back().name = "track";
  s.constraints.push_back({.name = "follow", .params = PointToPathDef{.point = pt("lower", "end2"), .path = "track"}});
  s.forces.push_back(springToNail("spring", "nail", pt("lower", "center"), 5.0));
  ForceDef damp;
  damp.name = "air";
  damp.kind = ForceKind::Damping;
  damp.bodies = {"upper", "lower"};
  s.forces.push_back(damp);
  for (const char* target : {"joint", "spring", "lower"}) {
    EventDef e;
    e.time = 1.0;
    e.action = std::string(target) == "lower" ? EventAction::Remove : EventAction::Disable;
    e.target = target;
    s.events.push_back(e);
  }
  validateScene(s);
  return s;
}

TEST(SceneEdit, RenameUpdatesEveryReference) {
  Scene s = sceneWithEverything();
  ASSERT_TRUE(renameObject(s, ObjectKind::Body, "lower", "arm"));
  ASSERT_TRUE(renameObject(s, ObjectKind::Nail, "nail", "pivot"));
  ASSERT_TRUE(renameObject(s, ObjectKind::Path, "track", "rail"));
  ASSERT_TRUE(renameObject(s, ObjectKind::Constraint, "joint", "hinge"));
  EXPECT_NO_THROW(validateScene(s));
  EXPECT_EQ(s.constraints[1].name, "hinge");
  EXPECT_EQ(test::def<PointToPointDef>(s.constraints[1]).b.body, "arm");
  EXPECT_EQ(test::def<PointToNailDef>(s.constraints[0]).nail, "pivot");
  EXPECT_EQ(test::def<PointToPathDef>(s.constraints[2]).path, "rail");
  EXPECT_EQ(s.forces[0].b.body, "arm");
  EXPECT_EQ(s.forces[0].a.target, "pivot");
  EXPECT_EQ(s.forces[1].bodies[1], "arm");
  EXPECT_EQ(s.events[0].target, "hinge");
  EXPECT_EQ(s.events[2].target, "arm");
  EXPECT_FALSE(renameObject(s, ObjectKind::Body, "nobody", "x"));
}

TEST(SceneEdit, RemoveTakesDependantsAndTheirEvents) {
  Scene s = sceneWithEverything();
  ASSERT_TRUE(removeObject(s, ObjectKind::Body, "lower"));
  EXPECT_NO_THROW(validateScene(s));
  // joint, follow and spring act on "lower": gone, with the events that targeted them
  ASSERT_EQ(s.constraints.size(), 1u);
  EXPECT_EQ(s.constraints[0].name, "pin");
  ASSERT_EQ(s.forces.size(), 1u);
  EXPECT_EQ(s.forces[0].bodies, std::vector<std::string>{"upper"});
  EXPECT_TRUE(s.events.empty());

  Scene t = sceneWithEverything();
  ASSERT_TRUE(removeObject(t, ObjectKind::Nail, "nail"));
  EXPECT_NO_THROW(validateScene(t));
  EXPECT_EQ(t.constraints.size(), 2u);  // pin and (through its nail) nothing else; joint, follow stay
  EXPECT_EQ(t.forces.size(), 1u);       // the spring to the nail went
  EXPECT_EQ(t.events.size(), 2u);       // "spring"'s event went
  EXPECT_FALSE(removeObject(t, ObjectKind::Nail, "nail"));
}

}  // namespace
}  // namespace tether::core::test
