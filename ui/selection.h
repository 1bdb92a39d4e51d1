// What the user has selected: an object of the document, by kind and name (ids, not pointers).
#pragma once

#include <string>

#include "core/scene_edit.h"

namespace tether::ui {

// An event (Kind::Event) has no name: it is named by its index in the scene's events, in decimal.
struct Selection {
  enum class Kind { None, Body, Nail, Path, Force, Constraint, Settings, Plane, Event };
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

// The index of the event a selection names, or -1 (not an event, or none of `count` events).
inline int eventIndex(const Selection& s, size_t count) {
  if (s.kind != Selection::Kind::Event || s.name.empty() || s.name.size() > 9 ||
      s.name.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  const size_t i = std::stoul(s.name);
  return i < count ? int(i) : -1;
}

}  // namespace tether::ui
