#include "core/scene_edit.h"

#include <algorithm>

#include "core/constraint_type.h"

namespace tether::core {

namespace {

template <typename T>
bool renameIn(std::vector<T>& list, const std::string& from, const std::string& to) {
  for (T& x : list)
    if (x.name == from) {
      x.name = to;
      return true;
    }
  return false;
}

void rename(std::string& s, const std::string& from, const std::string& to) {
  if (s == from) s = to;
}

// Does a point reference name the object?
bool refers(const PointRef& r, ObjectKind kind, const std::string& name) {
  switch (kind) {
    case ObjectKind::Body:
      return (r.kind == PointRef::Kind::BodyPoint || r.kind == PointRef::Kind::BodyLocal) && r.body == name;
    case ObjectKind::Nail: return r.kind == PointRef::Kind::Nail && r.target == name;
    case ObjectKind::Path: return r.kind == PointRef::Kind::Path && r.target == name;
    default: return false;
  }
}

void renameRef(PointRef& r, ObjectKind kind, const std::string& from, const std::string& to) {
  if (!refers(r, kind, from)) return;
  if (kind == ObjectKind::Body) r.body = to;
  else r.target = to;
}

// Does a name field of a constraint name objects of this kind?
bool namesKind(const ConstraintField& f, ObjectKind kind) {
  return (f.kind == ConstraintField::Kind::Body && kind == ObjectKind::Body) ||
         (f.kind == ConstraintField::Kind::Nail && kind == ObjectKind::Nail) ||
         (f.kind == ConstraintField::Kind::Path && kind == ObjectKind::Path);
}

bool forceUses(const ForceDef& f, ObjectKind kind, const std::string& name) {
  switch (f.kind) {
    case ForceKind::Spring: return refers(f.a, kind, name) || refers(f.b, kind, name);
    case ForceKind::ConstantForce: return refers(f.a, kind, name);
    case ForceKind::TorsionSpring: return kind == ObjectKind::Body && (f.bodyA == name || f.bodyB == name);
    case ForceKind::ConstantTorque: return kind == ObjectKind::Body && f.bodyA == name;
    case ForceKind::Damping: return false;  // a damping force outlives the bodies it lists
  }
  return false;
}

}  // namespace

bool constraintUses(const ConstraintDef& c, ObjectKind kind, const std::string& name) {
  for (const ConstraintField& f : c.type().fields) {
    if (f.isPoint() && refers(f.point(c), kind, name)) return true;
    if (f.isName() && namesKind(f, kind) && f.name(c) == name) return true;
  }
  return false;
}

bool renameObject(Scene& s, ObjectKind kind, const std::string& from, const std::string& to) {
  bool found = false;
  switch (kind) {
    case ObjectKind::Body: found = renameIn(s.bodies, from, to); break;
    case ObjectKind::Nail: found = renameIn(s.nails, from, to); break;
    case ObjectKind::Path: found = renameIn(s.paths, from, to); break;
    case ObjectKind::Force: found = renameIn(s.forces, from, to); break;
    case ObjectKind::Constraint: found = renameIn(s.constraints, from, to); break;
    case ObjectKind::Plane: found = renameIn(s.planes, from, to); break;
  }
  if (!found) return false;
  for (ConstraintDef& c : s.constraints)
    for (const ConstraintField& f : c.type().fields) {
      if (f.isPoint()) renameRef(f.point(c), kind, from, to);
      if (f.isName() && namesKind(f, kind)) rename(f.name(c), from, to);
    }
  for (ForceDef& f : s.forces) {
    renameRef(f.a, kind, from, to);
    renameRef(f.b, kind, from, to);
    if (kind == ObjectKind::Body) {
      rename(f.bodyA, from, to);
      rename(f.bodyB, from, to);
      for (std::string& b : f.bodies) rename(b, from, to);
    }
  }
  // events name bodies, constraints, forces and paths (not nails or planes)
  if (kind != ObjectKind::Nail && kind != ObjectKind::Plane)
    for (EventDef& e : s.events) rename(e.target, from, to);
  return true;
}

bool removeObject(Scene& s, ObjectKind kind, const std::string& name) {
  auto erase = [&](auto& list) {
    const auto n = list.size();
    std::erase_if(list, [&](const auto& x) { return x.name == name; });
    return list.size() != n;
  };
  bool found = false;
  switch (kind) {
    case ObjectKind::Body: found = erase(s.bodies); break;
    case ObjectKind::Nail: found = erase(s.nails); break;
    case ObjectKind::Path: found = erase(s.paths); break;
    case ObjectKind::Force: found = erase(s.forces); break;
    case ObjectKind::Constraint: found = erase(s.constraints); break;
    case ObjectKind::Plane: found = erase(s.planes); break;
  }
  if (!found) return false;
  // dependants, and the events of everything removed
  std::vector<std::string> gone = {name};
  std::erase_if(s.constraints, [&](const ConstraintDef& c) {
    const bool dep = constraintUses(c, kind, name);
    if (dep) gone.push_back(c.name);
    return dep;
  });
  std::erase_if(s.forces, [&](const ForceDef& f) {
    const bool dep = forceUses(f, kind, name);
    if (dep) gone.push_back(f.name);
    return dep;
  });
  if (kind == ObjectKind::Body)
    for (ForceDef& f : s.forces)
      if (f.kind == ForceKind::Damping) std::erase(f.bodies, name);
  // (a nail or plane has no events; every other removed object's events go)
  const bool noEvents = kind == ObjectKind::Nail || kind == ObjectKind::Plane;
  std::erase_if(s.events, [&](const EventDef& e) {
    return std::find(gone.begin() + (noEvents ? 1 : 0), gone.end(), e.target) != gone.end();
  });
  return true;
}

}  // namespace tether::core
