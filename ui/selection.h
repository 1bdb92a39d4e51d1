// What the user has selected: an object of the document, by kind and name (ids, not pointers).
#pragma once

#include <string>

#include "core/scene_edit.h"

namespace tether::ui {

struct Selection {
  enum class Kind { None, Body, Nail, Path, Force, Constraint, Settings, Plane };
  Kind kind = Kind::None;
  std::string name;
  bool operator==(const Selection&) const = default;
};

// The scene object kind a selection names (Body for None and Settings: callers check first).
inline core::ObjectKind objectKind(Selection::Kind k) {
  switch (k) {
    case Selection::Kind::Nail: return core::ObjectKind::Nail;
    case Selection::Kind::Path: return core::ObjectKind::Path;
    case Selection::Kind::Force: return core::ObjectKind::Force;
    case Selection::Kind::Constraint: return core::ObjectKind::Constraint;
    case Selection::Kind::Plane: return core::ObjectKind::Plane;
    default: return core::ObjectKind::Body;
  }
}

}  // namespace tether::ui
