// A constraint type, file to screen, in one place.
//
// Everything the application knows about a kind of constraint besides its kinematics (the
// Constraint subclass) is a ConstraintType, defined next to that subclass in
// core/constraints/<type>.cpp and listed once in constraintTypes() (core/constraint_type.cpp):
//   - its parameters (fields): what the scene file holds and the inspector shows, which names
//     it refers to (renaming and removing bodies, nails and paths follow them), and the checks
//     every parameter of that kind gets (a reference that exists, a non-zero direction, a
//     length within Limits);
//   - the checks beyond those (the same body twice, spheres that are not spheres);
//   - compilation into the runtime constraint (one or more parts: a constraint has at most 3
//     rows, a hinge is a point pair plus an axis alignment);
//   - the guide geometry the viewport draws for it (a line, a plane, an axis);
//   - its tool: what the two clicks accept, the prompts, and the definition they make.
// scene_io, validate, model, snapshot, render, scene_edit and the GUI iterate the table; none
// of them switches on the kind. docs/architecture.md, "Add a constraint type", walks through it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/scene.h"

namespace tether::core {

class Constraint;

// One parameter of a constraint type. Exactly one of the member pointers is set, by kind.
struct ConstraintField {
  enum class Kind {
    BodyPoint,   // a point on a body (named or local): point
    AnyPoint,    // a point on a body, a nail or a path's moving point: point
    Nail,        // a nail's name: name
    Path,        // a path's name: name
    Body,        // a body's name: name
    Direction,   // a non-zero vector (unit after compilation; world or body axes, see label): vector
    Position,    // a world position, m: vector
    Length,      // a length, m: number
  };
  const char* key;                          // JSON key, and the place in messages (constraints[i].key)
  const char* label;                        // inspector label
  Kind kind;
  PointRef ConstraintDef::*point = nullptr;
  std::string ConstraintDef::*name = nullptr;
  Vec3 ConstraintDef::*vector = nullptr;
  double ConstraintDef::*number = nullptr;

  bool isPoint() const { return kind == Kind::BodyPoint || kind == Kind::AnyPoint; }
  bool isName() const { return kind == Kind::Nail || kind == Kind::Path || kind == Kind::Body; }
};

// A definition's runtime constraint(s): parts share its name, tau and switching.
using ConstraintParts = std::vector<std::shared_ptr<const Constraint>>;

// What compile gives a type to resolve names with (the scene is already validated).
class ConstraintResolver {
 public:
  virtual ~ConstraintResolver() = default;
  virtual Anchor point(const PointRef& r) const = 0;
  virtual int body(const std::string& name) const = 0;  // model body index
  virtual const BodyDef& bodyDef(const std::string& name) const = 0;
  virtual Vec3 nail(const std::string& name) const = 0;  // world position, m
  virtual int path(const std::string& name) const = 0;   // model path index
};

// A straight segment of guide geometry, world, m.
struct GuideSegment {
  Vec3 a = Vec3::Zero(), b = Vec3::Zero();
};

// Where a constraint is now, for drawing its guides.
struct GuideContext {
  Vec3 at = Vec3::Zero();          // the constraint's second point, world, m
  double span = 1.0;               // a length across the view, m
  std::function<Quat(const std::string& body)> orientation;  // a body's orientation now
};

// What a click of a constraint tool landed on (the GUI fills it in from its picking).
struct ConstraintClick {
  enum class Kind { Point, Nail, PathPoint, Space };
  Kind kind = Kind::Space;
  PointRef ref;                     // Point: the body point; Nail, PathPoint: ref.target names it
  Vec3 position = Vec3::Zero();     // world, m
  Vec3 local = Vec3::Zero();        // Point: body coordinates, m
  Shape shape = Shape::Rod;         // Point: the body's shape
  Quat rotation = Quat::Identity(); // Point: the body's orientation (body -> world)
};

// What a tool may consult to build a constraint from its clicks.
struct ToolContext {
  Vec3 workPlaneNormal = Vec3::UnitZ();  // world, unit
  Vec3 screenRight = Vec3::UnitX();      // world, unit: the camera's right
  std::function<std::string(const std::string&)> uniqueName;  // a fresh name from a prefix
};

// A tool's result: the constraint and the objects it needs that do not exist yet (a nail at an
// empty spot, a path), or why nothing was made.
struct ToolResult {
  ConstraintDef constraint;
  std::vector<NailDef> newNails;
  std::vector<PathDef> newPaths;
  std::string error;                // non-empty: nothing is made, this says why ("Not done: ...")
};

struct ConstraintType {
  ConstraintKind kind;
  const char* id;                   // file name: "point_to_nail" (also the prefix of new names)
  const char* label;                // for people: "Point to nail"
  const char* description;          // what it does and how to make one (tool tips, docs)
  std::vector<ConstraintField> fields;
  // Checks beyond each field's own (run after them); where is the constraint's place
  // ("constraints[3]"); throw with failAt(where + ".b", "...").
  std::function<void(const Scene&, const ConstraintDef&, const std::string& where)> check = {};
  // The runtime constraint(s).
  std::function<ConstraintParts(const ConstraintDef&, const ConstraintResolver&)> compile = {};
  // Guide geometry drawn with the constraint (none by default).
  std::function<std::vector<GuideSegment>(const ConstraintDef&, const GuideContext&)> guides = {};
  // The tool: two clicks. The first must land on a body's control point (and, when
  // firstNeedsSphere, a sphere's); prompts say what to click for each.
  bool firstNeedsSphere = false;
  const char* firstPrompt = "Click a control point of a body.";
  const char* secondPrompt = "Click a second control point, a nail, or empty space (makes a nail there). Esc cancels.";
  std::function<void(const ConstraintClick& first, const ConstraintClick& second, const ToolContext&, ToolResult&)> fromClicks = {};
};

// Every constraint type, in the order the GUI lists them.
const std::vector<const ConstraintType*>& constraintTypes();
const ConstraintType& constraintType(ConstraintKind kind);
const ConstraintType* constraintTypeById(const std::string& id);

// Throws SceneError("where: what") (the validator's form).
[[noreturn]] void failAt(const std::string& where, const std::string& what);

// Whether a first click may start the type's tool: a body's control point (a sphere's, when
// firstNeedsSphere).
bool acceptsFirstClick(const ConstraintType& type, const ConstraintClick& first);

// A tool's two clicks made into a constraint of the type (named, kind set, a = the first
// click's point), or the reason nothing can be made (result.error).
ToolResult constraintFromClicks(const ConstraintType& type, const ConstraintClick& first, const ConstraintClick& second,
                                const ToolContext& ctx);

// A check: points a and b lie on different bodies (else: "<where>.b: is on the same body as a").
void requireTwoBodies(const ConstraintDef& c, const std::string& where);

// Helpers for the types' tools.
// The nail a click means: the clicked nail, or a new one at the clicked spot (added to result).
std::string nailForClick(const ConstraintClick& c, const ToolContext& ctx, ToolResult& result);
// The point a click means: a body point or path point as clicked, else a nail as nailForClick.
PointRef pointForClick(const ConstraintClick& c, const ToolContext& ctx, ToolResult& result);

}  // namespace tether::core
