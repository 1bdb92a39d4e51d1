#include "core/constraint_type.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/constraints/distance.h"
#include "core/constraints/hinge.h"
#include "core/constraints/orientation.h"
#include "core/constraints/point_on_line.h"
#include "core/constraints/point_on_plane.h"
#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_path.h"
#include "core/constraints/point_to_point.h"
#include "core/constraints/point_velocity.h"
#include "core/constraints/rolling.h"
#include "core/constraints/scalar_point_to_nail.h"
#include "core/constraints/sphere_to_sphere.h"
#include "core/scene_io.h"

namespace tether::core {

// The table: one row per constraint type, in the order the GUI lists them.
const std::vector<const ConstraintType*>& constraintTypes() {
  // (the table and its rows are never destroyed: a worker thread may still read them at exit)
  static const auto& all = *new std::vector<const ConstraintType*>{
      &PointToNailDef::type(), &PointToPointDef::type(),   &PointToPathDef::type(),
      &OrientationDef::type(), &PointOnLineDef::type(),    &PointOnPlaneDef::type(),
      &SphereToSphereDef::type(), &DistanceDef::type(),    &ScalarPointToNailDef::type(),
      &HingeDef::type(),       &PointVelocityDef::type(), &RollingDef::type(),
  };
  return all;
}

const ConstraintType* constraintTypeById(const std::string& id) {
  for (const ConstraintType* t : constraintTypes())
    if (id == t->id) return t;
  return nullptr;
}

int constraintTypeIndex(const ConstraintType* type) {
  const auto& all = constraintTypes();
  const auto it = std::find(all.begin(), all.end(), type);
  return it == all.end() ? -1 : int(it - all.begin());
}

void failAt(const std::string& where, const std::string& what) { throw SceneError(where + ": " + what); }

void requireTwoBodies(const PointRef& a, const PointRef& b, const std::string& where) {
  if (a.body == b.body) failAt(where + ".b", "is on the same body as a (\"" + a.body + "\")");
}

std::string nailForClick(const ConstraintClick& c, const ToolContext& ctx, ToolResult& result) {
  if (c.kind == ConstraintClick::Kind::Nail) return c.ref.target;
  NailDef n{ctx.uniqueName("nail"), c.position};
  result.newNails.push_back(n);
  return n.name;
}

std::string pathForClicks(const ConstraintClick& first, const ConstraintClick& second, const ToolContext& ctx,
                          ToolResult& result) {
  if (second.kind == ConstraintClick::Kind::PathPoint) return second.ref.target;
  PathDef path;
  path.name = ctx.uniqueName("path");
  path.kind = PathKind::Circle;
  path.center = second.position;
  path.normal = ctx.workPlaneNormal;
  const Vec3 d = first.position - second.position;
  const Vec3 r = d - path.normal.dot(d) * path.normal;
  if (r.norm() < 1e-3) {
    result.error = "click the circle's centre away from the point.";
    return {};
  }
  path.radius = r.norm();
  path.u = r.normalized();
  path.period = 4.0;
  result.newPaths.push_back(path);
  return path.name;
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
  out.constraint.name = ctx.uniqueName(type.id);
  type.fromClicks(first, second, ctx, out);
  if (out.error.empty() && &out.constraint.type() != &type)
    throw std::logic_error(std::string(type.id) + ": the tool made another type's parameters");
  return out;
}

Vec3 toolDirection(const Vec3& d) {
  const double n = d.norm();
  if (!(n > 1e-12)) return Vec3::UnitZ();
  const Vec3 u = d / n;
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(u(i)) > std::abs(u(k))) k = i;
  constexpr double kCos20 = 0.93969262078590843;  // cos 20 degrees
  return std::abs(u(k)) >= kCos20 ? Vec3(std::copysign(1.0, u(k)) * Vec3::Unit(k)) : u;
}

}  // namespace tether::core
