// The constraint-type table (core/constraint_type.h): every kind has one complete row, and what
// scene_io, validate, model, scene_edit and the tools derive from the rows works for every type.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "core/constraint.h"
#include "core/constraint_type.h"
#include "core/constraints/hinge.h"
#include "core/constraints/orientation.h"
#include "core/constraints/point_on_line.h"
#include "core/constraints/point_on_plane.h"
#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_point.h"
#include "core/constraints/sphere_to_sphere.h"
#include "core/constraints/distance.h"
#include "core/model.h"
#include "core/scene_edit.h"
#include "core/scene_io.h"

using namespace tether::core;

namespace {

// A scene with two spheres ("s1", "s2"), a rod, a nail and a path, and one constraint of the
// type with every field filled in.
Scene sceneWith(const ConstraintType& type) {
  Scene s;
  BodyDef rod;
  rod.name = "rod";
  rod.position = Vec3(0, 0, -0.5);
  s.bodies.push_back(rod);
  for (const char* n : {"s1", "s2"}) {
    BodyDef b;
    b.name = n;
    b.shape = Shape::Sphere;
    b.radius = 0.1;
    b.position = Vec3(std::string(n) == "s1" ? 1.0 : 1.2, 0, 0);
    s.bodies.push_back(b);
  }
  s.nails.push_back({"nail1", Vec3(0, 0, 0)});
  PathDef p;
  p.name = "path1";
  p.velocity = Vec3(0.1, 0, 0);
  s.paths.push_back(p);
  ConstraintDef c{.name = "c", .params = type.defaults};
  for (const ConstraintField& f : type.fields) {
    using K = ConstraintField::Kind;
    switch (f.kind) {
      case K::BodyPoint:
      case K::AnyPoint: {
        PointRef r;
        r.body = std::string(f.key) == "b" ? "s1" : "rod";
        r.point = std::string(f.key) == "b" ? "center" : "end1";
        f.point(c) = r;
        break;
      }
      case K::Nail: f.name(c) = "nail1"; break;
      case K::Path: f.name(c) = "path1"; break;
      case K::Body: f.name(c) = std::string(f.key).ends_with("b") ? "s2" : "s1"; break;
      case K::Direction: f.vector(c) = Vec3(0, 0.6, 0.8); break;
      case K::Position: f.vector(c) = Vec3(0.25, -0.5, 2.0); break;
      case K::Length: f.number(c) = 0.75; break;
    }
  }
  s.constraints.push_back(c);
  return s;
}

}  // namespace

TEST(ConstraintTypes, EveryKindHasOneCompleteRow) {
  std::set<std::string> ids;
  for (const ConstraintType* t : constraintTypes()) {
    SCOPED_TRACE(t->id);
    EXPECT_TRUE(ids.insert(t->id).second) << "duplicate id";
    EXPECT_EQ(constraintTypeById(t->id), t);
    EXPECT_EQ(constraintTypeIndex(t), int(ids.size()) - 1);
    // the defaults hold the type's own struct, so a definition's kind is its row
    EXPECT_EQ(&t->defaults.type(), t);
    EXPECT_EQ((ConstraintDef{.params = t->defaults}.type().id), t->id);
    EXPECT_TRUE(t->compile);
    EXPECT_TRUE(t->fromClicks);
    EXPECT_GT(std::string(t->label).size(), 0u);
    EXPECT_GT(std::string(t->description).size(), 20u);
    std::set<std::string> keys;
    for (const ConstraintField& f : t->fields) {
      EXPECT_TRUE(keys.insert(f.key).second) << "duplicate key " << f.key;
      // exactly one value kind, reached through the type's struct
      EXPECT_EQ(f.isPoint() + f.isName() + f.isVector() + f.isNumber(), 1) << f.key;
      ASSERT_TRUE(f.member && f.constMember) << f.key;
      ConstraintDef c{.params = t->defaults};
      EXPECT_EQ(f.member(c.params), f.constMember(std::as_const(c).params)) << f.key;
    }
  }
  EXPECT_EQ(constraintTypeById("no_such_type"), nullptr);
  EXPECT_EQ(constraintTypeIndex(nullptr), -1);
}

TEST(ConstraintTypes, EveryTypeRoundTripsAndCompiles) {
  for (const ConstraintType* t : constraintTypes()) {
    SCOPED_TRACE(t->id);
    const Scene s = sceneWith(*t);
    const std::string text = sceneToJson(s);
    const Scene back = sceneFromJson(text);
    ASSERT_EQ(back.constraints.size(), 1u);
    EXPECT_EQ(back.constraints[0], s.constraints[0]);
    EXPECT_EQ(sceneToJson(back), text);
    // every field is in the file under its key
    for (const ConstraintField& f : t->fields) EXPECT_NE(text.find(std::string("\"") + f.key + "\""), std::string::npos) << f.key;
    const Model m = compile(back);
    ASSERT_GE(m.constraints.size(), 1u);
    ASSERT_EQ(m.constraintParts.size(), 1u);
    EXPECT_EQ(m.constraintParts[0].count, int(m.constraints.size()));
    for (size_t j = 0; j < m.constraints.size(); ++j) {
      EXPECT_EQ(m.constraintNames[j], "c");
      EXPECT_EQ(m.constraintDef[j], 0);
    }
  }
}

TEST(ConstraintTypes, AMissingFieldIsNamedByItsKey) {
  for (const ConstraintType* t : constraintTypes()) {
    SCOPED_TRACE(t->id);
    const Scene s = sceneWith(*t);
    for (const ConstraintField& f : t->fields) {
      auto j = nlohmann::json::parse(sceneToJson(s));
      j["constraints"][0].erase(f.key);
      try {
        sceneFromJson(j.dump());
        ADD_FAILURE() << "accepted without " << f.key;
      } catch (const SceneError& e) {
        EXPECT_NE(std::string(e.what()).find(std::string("constraints[0].") + f.key), std::string::npos) << e.what();
      }
    }
  }
}

TEST(ConstraintTypes, ReferencesFollowRenameAndRemove) {
  for (const ConstraintType* t : constraintTypes()) {
    SCOPED_TRACE(t->id);
    for (const ConstraintField& f : t->fields) {
      if (!f.isName() && !f.isPoint()) continue;
      Scene s = sceneWith(*t);
      ObjectKind kind = ObjectKind::Body;
      std::string name;
      if (f.isPoint()) name = f.point(s.constraints[0]).body;
      else {
        name = f.name(s.constraints[0]);
        if (f.kind == ConstraintField::Kind::Nail) kind = ObjectKind::Nail;
        if (f.kind == ConstraintField::Kind::Path) kind = ObjectKind::Path;
      }
      ASSERT_TRUE(renameObject(s, kind, name, "renamed"));
      if (f.isPoint()) EXPECT_EQ(f.point(s.constraints[0]).body, "renamed") << f.key;
      else EXPECT_EQ(f.name(s.constraints[0]), "renamed") << f.key;
      EXPECT_NO_THROW(compile(s));
      ASSERT_TRUE(removeObject(s, kind, "renamed"));
      EXPECT_TRUE(s.constraints.empty()) << "a constraint outlived the " << f.key << " it refers to";
    }
  }
}

// A direction taken from the screen or from clicks goes onto the world axis within 20 degrees
// of it: a helper's point-on-line made in a view orbited 15 degrees ran along (0.966, -0.259, 0),
// and an orientation clicked straight up pointed (-0.011, 0, 0.9999). Further off, as it is.
TEST(ConstraintTypes, AToolsDirectionNearAnAxisIsTheAxis) {
  EXPECT_EQ(toolDirection(Vec3(0.9659, -0.2588, 0)), Vec3::UnitX());
  EXPECT_EQ(toolDirection(Vec3(-0.0113, 0, 0.9999)), Vec3::UnitZ());
  EXPECT_EQ(toolDirection(Vec3(0, -3, 0.2)), -Vec3::UnitY());
  const Vec3 diagonal = Vec3(1, 1, 0).normalized();
  EXPECT_TRUE(toolDirection(2 * diagonal).isApprox(diagonal));
  EXPECT_EQ(toolDirection(Vec3::Zero()), Vec3::UnitZ());
  ToolContext ctx;
  ctx.uniqueName = [](const std::string& prefix) { return prefix + "1"; };
  ctx.screenRight = Vec3(0.9659, -0.2588, 0);
  ConstraintClick rod;
  rod.kind = ConstraintClick::Kind::Point;
  rod.ref.body = "rod";
  rod.ref.point = "end1";
  rod.local = Vec3(0, 0, 0.5);
  ConstraintClick space;
  space.kind = ConstraintClick::Kind::Space;
  space.position = Vec3(-0.011, 0, 0.9999);
  EXPECT_EQ(constraintFromClicks(PointOnLineDef::type(), rod, space, ctx).constraint.params.as<PointOnLineDef>().direction,
            Vec3::UnitX());
  EXPECT_EQ(constraintFromClicks(OrientationDef::type(), rod, space, ctx).constraint.params.as<OrientationDef>().direction,
            Vec3::UnitZ());
}

TEST(ConstraintTypes, ToolsMakeValidConstraintsFromTwoClicks) {
  ToolContext ctx;
  int counter = 0;
  ctx.uniqueName = [&](const std::string& prefix) { return prefix + std::to_string(++counter); };
  ctx.workPlaneNormal = Vec3::UnitY();
  ctx.screenRight = Vec3::UnitX();
  ConstraintClick rodEnd;
  rodEnd.kind = ConstraintClick::Kind::Point;
  rodEnd.ref.body = "rod";
  rodEnd.ref.point = "end1";
  rodEnd.position = Vec3(0, 0, 0);
  rodEnd.local = Vec3(0, 0, 0.5);
  ConstraintClick sphere1 = rodEnd, sphere2 = rodEnd;
  sphere1.ref.body = "s1";
  sphere1.ref.point = "center";
  sphere1.shape = Shape::Sphere;
  sphere1.position = Vec3(1, 0, 0);
  sphere2.ref.body = "s2";
  sphere2.ref.point = "center";
  sphere2.shape = Shape::Sphere;
  sphere2.position = Vec3(1.2, 0, 0);
  ConstraintClick space;
  space.kind = ConstraintClick::Kind::Space;
  space.position = Vec3(0.3, 0, 0.4);
  for (const ConstraintType* t : constraintTypes()) {
    SCOPED_TRACE(t->id);
    const bool spheres = t->firstNeedsSphere;
    // second click on a point of another body (a sphere) for two-body types, empty space otherwise
    const ConstraintClick& first = spheres ? sphere1 : rodEnd;
    const bool twoBodies = spheres || t == &PointToPointDef::type() || t == &HingeDef::type();
    const ToolResult r = constraintFromClicks(*t, first, twoBodies ? sphere2 : space, ctx);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(&r.constraint.type(), t);
    EXPECT_EQ(r.constraint.name.rfind(t->id, 0), 0u) << r.constraint.name;
    Scene s = sceneWith(*t);
    s.constraints = {r.constraint};
    for (const NailDef& n : r.newNails) s.nails.push_back(n);
    for (const PathDef& p : r.newPaths) s.paths.push_back(p);
    EXPECT_NO_THROW(compile(s));
  }
  // what a tool refuses, with the reason
  EXPECT_FALSE(constraintFromClicks(SphereToSphereDef::type(), rodEnd, sphere2, ctx).error.empty());
  EXPECT_FALSE(constraintFromClicks(SphereToSphereDef::type(), sphere1, sphere1, ctx).error.empty());
  EXPECT_FALSE(constraintFromClicks(DistanceDef::type(), rodEnd, rodEnd, ctx).error.empty());
  EXPECT_FALSE(constraintFromClicks(PointToNailDef::type(), space, space, ctx).error.empty());
  // a nail clicked is used, not duplicated
  ConstraintClick nail;
  nail.kind = ConstraintClick::Kind::Nail;
  nail.ref.target = "nail1";
  const ToolResult pinned = constraintFromClicks(PointToNailDef::type(), rodEnd, nail, ctx);
  EXPECT_EQ(pinned.constraint.params.as<PointToNailDef>().nail, "nail1");
  EXPECT_TRUE(pinned.newNails.empty());
}

TEST(ConstraintTypes, GuidesLieOnTheLineAndPlane) {
  const PointOnLineDef line{.direction = Vec3(0, 3, 4)};
  const PointOnPlaneDef plane{.normal = Vec3(0, 0, 2)};
  const Vec3 at(1, 2, 3);
  GuideContext g;
  g.at = at;
  g.span = 10.0;
  const auto guide = PointOnLineDef::type().guides(line, g);
  ASSERT_EQ(guide.size(), 1u);
  EXPECT_NEAR((guide[0].b - guide[0].a).normalized().dot(Vec3(0, 0.6, 0.8)), 1.0, 1e-12);
  EXPECT_NEAR(((guide[0].a + guide[0].b) / 2 - at).norm(), 0.0, 1e-12);
  for (const GuideSegment& g : PointOnPlaneDef::type().guides(plane, g)) {
    EXPECT_NEAR(g.a.z(), at.z(), 1e-12);
    EXPECT_NEAR(g.b.z(), at.z(), 1e-12);
  }
  EXPECT_FALSE(PointToNailDef::type().guides);
}
