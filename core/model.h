// The model: a Scene compiled into flat arrays with indices instead of names and with
// precomputed mass properties. Immutable while simulating; recompiled when the scene's
// structure changes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/collision.h"
#include "core/path.h"
#include "core/scene.h"
#include "core/state.h"

namespace tether::core {

class Constraint;

// (aligned to cache lines, what the step reads of it first: at 10 000 bodies it waits on memory)
struct alignas(64) BodyModel {
  bool fixed = false;
  double mass = 0.0;                 // kg (0 for fixed bodies' dynamics: see invMass)
  double invMass = 0.0;              // 1/kg; 0 when fixed
  Vec3 invInertia = Vec3::Zero();    // 1/(kg m^2); 0 when fixed
  Vec3 inertia = Vec3::Zero();       // principal moments, body axes, kg m^2
  // the body axis of symmetry: the axis whose moment differs from the two others, which are
  // equal (rods, tori, square boxes); -1 when all three are equal or all differ
  int symmetryAxis = -1;
  BodyState initial;                 // the pose and momenta the scene gives
};

// A point forces and constraints act at, resolved.
struct Anchor {
  enum class Kind { Body, World, Path };
  Kind kind = Kind::World;
  int index = -1;                    // body or path index
  Vec3 local = Vec3::Zero();         // Body: body coordinates; World: world position (m)
};

struct ForceModel {
  ForceKind kind = ForceKind::Spring;
  Anchor a, b;                       // spring ends; constant force: a
  int bodyA = -1, bodyB = -1;        // torsion spring, constant torque (bodyA)
  Vec3 axisA = Vec3::UnitZ(), axisB = Vec3::UnitZ();  // unit, body coordinates
  std::vector<int> bodies;           // damping: empty = every body
};

struct EventModel {
  enum class Target { Gravity, Body, Constraint, Force, Path };
  double time = 0.0;                 // s
  EventAction action = EventAction::Enable;
  Target target = Target::Gravity;
  int index = -1;
  std::string param;                 // Set: parameter name
  Vec3 value = Vec3::Zero();         // Set: value (x only for scalars)
};

// What the contact stage (core/contact.h) needs of the scene: each body's collision shape (its
// pose is set at each step; whether it collides and its material are in Params, which events
// set), the ground planes and their materials.
struct ContactModel {
  bool enabled = false;              // settings.contacts
  double slop = 1e-6;                // settings.contact_slop, m
  std::vector<CollisionBody> shapes; // per body
  // per plane: restitution, friction (sliding), static friction, rolling resistance (m)
  std::vector<GroundPlane> planes;
  std::vector<double> planeRestitution, planeFriction, planeStaticFriction, planeRollingResistance;
};

struct Model {
  Settings settings;
  std::vector<std::string> bodyNames, forceNames, constraintNames;  // constraintNames: per part
  std::vector<BodyModel> bodies;
  std::vector<Path> paths;
  std::vector<ForceModel> forces;
  // Runtime constraints: a scene constraint compiles into one or more parts (a hinge: a point
  // pair and an axis alignment; core/constraint_type.h). Per part: the definition's name, and
  // its index in Scene::constraints; per definition: its parts' range. Events switch and set
  // every part of a definition alike.
  std::vector<std::shared_ptr<const Constraint>> constraints;
  std::vector<int> constraintDef;
  std::vector<const char*> constraintUnit;  // per part: its deviation's unit, "m" or "rad" (DeviationPart)
  struct PartRange {
    int first = 0, count = 0;
  };
  std::vector<PartRange> constraintParts;
  ContactModel contacts;
  std::vector<EventModel> events;    // sorted by time (stable: file order within a time)
  // per body: 1 if it is a link of a chain all but straight between two anchors (under 1 % of its
  // reach to spare: allButStraightBodies), whose angular velocity the step follows
  std::vector<std::uint8_t> tautLink;
  Params initialParams;

  // The state at t = 0, before any event has fired.
  State initialState() const;
  int findBody(const std::string& name) const;
  int findConstraint(const std::string& name) const;  // its first part, -1 if none
  // Whether something drives the model: a path leading a point, or a velocity constraint. It
  // does work on the model, so its energy follows the drive rather than being conserved.
  bool driven() const;
};

// Validate and compile. Throws SceneError naming the place of the first problem.
Model compile(const Scene& scene);

// Apply one event to a state (timeline stage of the step pipeline).
void applyEvent(const Model& model, const EventModel& e, State& state);

}  // namespace tether::core
