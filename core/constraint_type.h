// A constraint type, file to screen, in one place.
//
// Everything the application knows about a kind of constraint besides its kinematics (the
// Constraint subclass) is its parameter struct (<Type>Def, what ConstraintDef::params holds) and
// a ConstraintType, both defined next to that subclass in core/constraints/<type>.{h,cpp}, the
// row listed once in constraintTypes() (core/constraint_type.cpp):
//   - its parameters (fields, members of the struct): what the scene file holds and the
//     inspector shows, which names it refers to (renaming and removing bodies, nails and paths
//     follow them), and the checks every parameter of that kind gets (a reference that exists, a non-zero direction, a
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
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/model.h"
#include "core/scene.h"

namespace tether::core {

class Constraint;

// One parameter of a constraint type: a member of the type's own struct, made by field() below.
// Its kind says which value it holds (a point, a name, a vector or a number: point(), name(),
// vector(), number()); generic code (the file, validation, renames, the inspector) reaches the
// parameter through those without knowing the struct.
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
  // The member in the held struct (of the value type the kind says), for writing and for
  // reading; field() makes both.
  void* (*member)(ConstraintParams&) = nullptr;
  const void* (*constMember)(const ConstraintParams&) = nullptr;

  bool isPoint() const { return kind == Kind::BodyPoint || kind == Kind::AnyPoint; }
  bool isName() const { return kind == Kind::Nail || kind == Kind::Path || kind == Kind::Body; }
  bool isVector() const { return kind == Kind::Direction || kind == Kind::Position; }
  bool isNumber() const { return kind == Kind::Length; }

  PointRef& point(ConstraintDef& c) const { return at<PointRef>(c, isPoint()); }
  const PointRef& point(const ConstraintDef& c) const { return at<PointRef>(c, isPoint()); }
  std::string& name(ConstraintDef& c) const { return at<std::string>(c, isName()); }
  const std::string& name(const ConstraintDef& c) const { return at<std::string>(c, isName()); }
  Vec3& vector(ConstraintDef& c) const { return at<Vec3>(c, isVector()); }
  const Vec3& vector(const ConstraintDef& c) const { return at<Vec3>(c, isVector()); }
  double& number(ConstraintDef& c) const { return at<double>(c, isNumber()); }
  const double& number(const ConstraintDef& c) const { return at<double>(c, isNumber()); }

 private:
  template <class T> T& at(ConstraintDef& c, bool kindHolds) const {
    requireKind(kindHolds);
    return *static_cast<T*>(member(c.params));
  }
  template <class T> const T& at(const ConstraintDef& c, bool kindHolds) const {
    requireKind(kindHolds);
    return *static_cast<const T*>(constMember(c.params));
  }
  void requireKind(bool kindHolds) const {
    if (!kindHolds) throw std::logic_error(std::string("constraint field \"") + key + "\" read as another kind");
  }
};

namespace detail {
template <class> struct MemberPointer;
template <class C, class T> struct MemberPointer<T C::*> {
  using Class = C;
  using Value = T;
};
}  // namespace detail

// A field for a member of a type's struct: field<&HingeDef::axisB>("axis_b", "Axis in B", Direction).
// The member's C++ type must be the one the kind holds (checked when the table is built).
template <auto Member>
ConstraintField field(const char* key, const char* label, ConstraintField::Kind kind) {
  using Def = typename detail::MemberPointer<decltype(Member)>::Class;
  using Value = typename detail::MemberPointer<decltype(Member)>::Value;
  ConstraintField f{key, label, kind};
  f.member = [](ConstraintParams& p) -> void* { return &(p.as<Def>().*Member); };
  f.constMember = [](const ConstraintParams& p) -> const void* { return &(p.as<Def>().*Member); };
  const bool fits = (f.isPoint() && std::is_same_v<Value, PointRef>) || (f.isName() && std::is_same_v<Value, std::string>) ||
                    (f.isVector() && std::is_same_v<Value, Vec3>) || (f.isNumber() && std::is_same_v<Value, double>);
  if (!fits) throw std::logic_error(std::string("constraint field \"") + key + "\": member type does not fit its kind");
  return f;
}

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

// A direction a tool takes from the screen or from two clicks, put on the world axis it is within
// 20 degrees of, else as it is; unit (zero: z). A helper's point-on-line made in a slightly
// orbited view ran along (0.966, -0.259, 0), and an orientation clicked straight up pointed
// (-0.011, 0, 0.9999): both had to be typed in.
Vec3 toolDirection(const Vec3& d);

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

// How a plotted part's deviation |D| is labelled: its unit and, for a type of several parts,
// which part it is.
struct DeviationPart {
  const char* unit = "m";
  const char* suffix = "";          // appended to "<name> |D|": " (axis)"
};

// A constraint type's row. The hooks receive the definition's parameters, which hold the type's
// own struct (params.as<HingeDef>()).
struct ConstraintType {
  const char* id;                   // file name: "point_to_nail" (also the prefix of new names)
  const char* label;                // for people: "Point to nail"
  const char* description;          // what it does and how to make one (tool tips, docs)
  ConstraintParams defaults;        // the type's struct with its defaults (what reading a file fills in)
  std::vector<ConstraintField> fields;
  // Checks beyond each field's own (run after them); where is the constraint's place
  // ("constraints[3]"); throw with failAt(where + ".b", "...").
  std::function<void(const Scene&, const ConstraintParams&, const std::string& where)> check = {};
  // The runtime constraint(s).
  std::function<ConstraintParts(const ConstraintParams&, const ConstraintResolver&)> compile = {};
  // Each part's deviation as plotted, in the order compile makes them.
  std::vector<DeviationPart> deviations = {DeviationPart{}};
  // Guide geometry drawn with the constraint (none by default).
  std::function<std::vector<GuideSegment>(const ConstraintParams&, const GuideContext&)> guides = {};
  // The tool: two clicks. The first must land on a body's control point (and, when
  // firstNeedsSphere, a sphere's); prompts say what to click for each.
  bool firstNeedsSphere = false;
  const char* firstPrompt = "Click a control point of a body.";
  const char* secondPrompt = "Click a second control point, a nail, or empty space (makes a nail there). Esc cancels.";
  // Sets result.constraint.params from the clicks (the first is a control point the type
  // accepts), or result.error.
  std::function<void(const ConstraintClick& first, const ConstraintClick& second, const ToolContext&, ToolResult&)> fromClicks = {};
};

// Every constraint type, in the order the GUI lists them.
const std::vector<const ConstraintType*>& constraintTypes();
const ConstraintType* constraintTypeById(const std::string& id);
// Its position in constraintTypes() (-1 for none).
int constraintTypeIndex(const ConstraintType* type);

// Throws SceneError("where: what") (the validator's form).
[[noreturn]] void failAt(const std::string& where, const std::string& what);

// Whether a first click may start the type's tool: a body's control point (a sphere's, when
// firstNeedsSphere).
bool acceptsFirstClick(const ConstraintType& type, const ConstraintClick& first);

// A tool's two clicks made into a named constraint of the type, or the reason nothing can be
// made (result.error).
ToolResult constraintFromClicks(const ConstraintType& type, const ConstraintClick& first, const ConstraintClick& second,
                                const ToolContext& ctx);

// A check: points a and b lie on different bodies (else: "<where>.b: is on the same body as a").
void requireTwoBodies(const PointRef& a, const PointRef& b, const std::string& where);

// Helpers for the types' tools.
// The nail a click means: the clicked nail, or a new one at the clicked spot (added to result).
std::string nailForClick(const ConstraintClick& c, const ToolContext& ctx, ToolResult& result);
// The point a click means: a body point or path point as clicked, else a nail as nailForClick.
PointRef pointForClick(const ConstraintClick& c, const ToolContext& ctx, ToolResult& result);
// The path a second click means for a point first clicked: the clicked path's, or a new circle
// about the spot through the point in the work plane, 4 s a turn (added to result); "" with
// result.error when the spot is the point.
std::string pathForClicks(const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx,
                          ToolResult& result);

}  // namespace tether::core
