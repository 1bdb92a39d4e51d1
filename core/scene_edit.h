// Structural edits of a Scene that must keep its references whole: renaming an object updates
// every reference to it, removing one removes what depends on it. Used by the GUI's outliner
// and inspector (and by anything else that edits scenes).
#pragma once

#include <string>

#include "core/scene.h"

namespace tether::core {

enum class ObjectKind { Body, Nail, Path, Force, Constraint, Plane };

// Does the constraint refer to the object through any of its type's fields?
bool constraintUses(const ConstraintDef& c, ObjectKind kind, const std::string& name);

// Rename the object of a kind called from to to, in its definition and in every point
// reference, constraint, force and event that names it. False if it does not exist.
bool renameObject(Scene& scene, ObjectKind kind, const std::string& from, const std::string& to);

// Remove the object and everything that cannot exist without it: the constraints and forces
// that act on a removed body / nail / path, and the events that target any removed object.
// False if it does not exist.
bool removeObject(Scene& scene, ObjectKind kind, const std::string& name);

}  // namespace tether::core
