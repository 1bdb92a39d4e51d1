#include "core/constraint_type.h"

#include <stdexcept>

#include "core/constraints/distance.h"
#include "core/constraints/hinge.h"
#include "core/constraints/orientation.h"
#include "core/constraints/point_on_line.h"
#include "core/constraints/point_on_plane.h"
#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_path.h"
#include "core/constraints/point_to_point.h"
#include "core/constraints/scalar_point_to_nail.h"
#include "core/constraints/sphere_to_sphere.h"
#include "core/scene_io.h"

namespace tether::core {

// The table: one row per constraint type, in the order the GUI lists them.
const std::vector<const ConstraintType*>& constraintTypes() {
  static const std::vector<const ConstraintType*> all = {
      &pointToNailType(),   &pointToPointType(),  &pointToPathType(),      &orientationType(),
      &pointOnLineType(),   &pointOnPlaneType(),  &sphereToSphereType(),   &distanceType(),
      &scalarPointToNailType(), &hingeType(),
  };
  return all;
}

const ConstraintType& constraintType(ConstraintKind kind) {
  for (const ConstraintType* t : constraintTypes())
    if (t->kind == kind) return *t;
  throw std::logic_error("constraint kind without a row in constraintTypes()");
}

const ConstraintType* constraintTypeById(const std::string& id) {
  for (const ConstraintType* t : constraintTypes())
    if (id == t->id) return t;
  return nullptr;
}

void failAt(const std::string& where, const std::string& what) { throw SceneError(where + ": " + what); }

void requireTwoBodies(const ConstraintDef& c, const std::string& where) {
  if (c.a.body == c.b.body) failAt(where + ".b", "is on the same body as a (\"" + c.a.body + "\")");
}

std::string nailForClick(const ConstraintClick& c, const ToolContext& ctx, ToolResult& result) {
  if (c.kind == ConstraintClick::Kind::Nail) return c.ref.target;
  NailDef n{ctx.uniqueName("nail"), c.position};
  result.newNails.push_back(n);
  return n.name;
}

PointRef pointForClick(const ConstraintClick& c, const ToolContext& ctx, ToolResult& result) {
  if (c.kind == ConstraintClick::Kind::Point || c.kind == ConstraintClick::Kind::PathPoint) return c.ref;
  PointRef r;
  r.kind = PointRef::Kind::Nail;
  r.target = nailForClick(c, ctx, result);
  return r;
}

bool acceptsFirstClick(const ConstraintType& type, const ConstraintClick& first) {
  return first.kind == ConstraintClick::Kind::Point && (!type.firstNeedsSphere || first.shape == Shape::Sphere);
}

ToolResult constraintFromClicks(const ConstraintType& type, const ConstraintClick& first, const ConstraintClick& second,
                                const ToolContext& ctx) {
  ToolResult out;
  if (!acceptsFirstClick(type, first)) {
    out.error = std::string(type.firstPrompt);
    return out;
  }
  out.constraint.kind = type.kind;
  out.constraint.name = ctx.uniqueName(type.id);
  out.constraint.a = first.ref;
  if (type.fromClicks) type.fromClicks(first, second, ctx, out);
  return out;
}

}  // namespace tether::core
