// The scene: the editable, serializable description of a model (MuJoCo's "spec").
// Plain structs with defaults; these are what the JSON file holds and what undo commands
// edit. Names, not indices, connect the parts; core::compile() resolves them into a Model.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/math.h"

namespace tether::core {

inline constexpr int kSceneFormatVersion = 1;

enum class Shape { Rod, Sphere, Torus, Box };

// A named point fixed in a body, in body coordinates (m).
struct NamedPoint {
  std::string name;
  Vec3 local = Vec3::Zero();  // body-local position, m
  bool operator==(const NamedPoint&) const = default;
};

struct BodyDef {
  std::string name;
  Shape shape = Shape::Rod;
  double density = 1000.0;                // kg/m^3
  double length = 1.0;                    // rod: length along local z, m
  double radius = 0.05;                   // rod and sphere radius, m
  double majorRadius = 0.2;               // torus: centre-line radius, m (ring in the local xy plane)
  double minorRadius = 0.04;              // torus: tube radius, m
  Vec3 size = Vec3(0.2, 0.2, 0.2);        // box: full extents along local x, y, z, m
  bool fixed = false;                     // infinite mass: never moves
  bool active = true;                     // exists at t = 0 ("create" events bring it in later)
  Vec3 position = Vec3::Zero();           // centre of mass, world, m
  Quat orientation = Quat::Identity();    // body -> world rotation (unit)
  Vec3 velocity = Vec3::Zero();           // centre-of-mass velocity, m/s
  Vec3 angularVelocity = Vec3::Zero();    // world frame, rad/s
  std::vector<NamedPoint> points;         // user control points (beside the shape's named ones)
  // Contacts (settings.contacts; core/contact.h): whether the body touches others at all, its
  // Poisson restitution coefficient (a pair takes the larger of its two), its Coulomb friction
  // coefficients while sliding and while sticking (a pair takes the geometric mean of its two),
  // its rolling resistance (the lever arm, m, of the torque that opposes rolling: at most that
  // times the normal force; a pair takes the sum of its two, as each one's give adds to it),
  // and its collision filter: bodies i and j touch only if (group_i & mask_j) and
  // (group_j & mask_i) are non-zero.
  bool collides = true;
  double restitution = 0.5;
  double friction = 0.5;
  double staticFriction = 0.5;
  double rollingResistance = 0.0;         // m
  std::uint32_t collisionGroup = 1;
  std::uint32_t collisionMask = 0xffffffffu;
};

// A ground plane (contacts): the half-space below a point, solid on the side opposite the normal.
struct PlaneDef {
  std::string name;
  Vec3 point = Vec3::Zero();              // a point on the surface, world, m
  Vec3 normal = Vec3::UnitZ();            // out of the solid (need not be unit)
  double restitution = 0.5;               // Poisson's coefficient (a pair takes the larger)
  double friction = 0.5;                  // Coulomb, sliding and sticking (a pair: geometric mean)
  double staticFriction = 0.5;
  double rollingResistance = 0.0;         // m (a pair: the sum)
  bool operator==(const PlaneDef&) const = default;
};

struct NailDef {
  std::string name;
  Vec3 position = Vec3::Zero();  // world, m
};

enum class PathKind { Line, Circle, Spline };

struct Keyframe {
  double t = 0.0;                 // s
  Vec3 position = Vec3::Zero();   // world, m
};

// A point moving in time. Line: start + velocity * t. Circle: centre + radius (cos(phi) u +
// sin(phi) (n x u)) with phi = phase + 2 pi t / period. Spline: natural cubic through keyframes,
// extended linearly (C2) outside them.
struct PathDef {
  std::string name;
  PathKind kind = PathKind::Line;
  Vec3 start = Vec3::Zero();          // line: position at t = 0, m
  Vec3 velocity = Vec3::Zero();       // line: m/s
  Vec3 center = Vec3::Zero();         // circle: m
  Vec3 normal = Vec3::UnitZ();        // circle: plane normal (unit)
  Vec3 u = Vec3::UnitX();             // circle: direction of the point at phase 0
  double radius = 1.0;                // circle: m
  double period = 1.0;                // circle: s per turn (negative turns the other way)
  double phase = 0.0;                 // circle: rad
  std::vector<Keyframe> keyframes;    // spline: at least 2, strictly increasing t
};

// A point a force or constraint acts at: a body's named or local point, a nail, or a path.
struct PointRef {
  enum class Kind { BodyPoint, BodyLocal, Nail, Path };
  Kind kind = Kind::BodyPoint;
  std::string body;                   // BodyPoint / BodyLocal
  std::string point = "center";       // BodyPoint: the point's name
  Vec3 local = Vec3::Zero();          // BodyLocal: body coordinates, m
  std::string target;                 // Nail / Path: its name
  bool operator==(const PointRef&) const = default;
};

enum class ForceKind { Spring, Damping, TorsionSpring, ConstantForce, ConstantTorque };

struct ForceDef {
  std::string name;
  ForceKind kind = ForceKind::Spring;
  bool enabled = true;
  PointRef a, b;                       // spring: ends; constant force: a = application point
  double stiffness = 10.0;             // spring N/m; torsion spring N m/rad
  double damping = 0.0;                // spring N s/m; torsion spring N m s/rad
  double restLength = 0.0;             // spring, m
  double restAngle = 0.0;              // torsion spring, rad
  std::vector<std::string> bodies;     // damping: bodies it acts on (empty = every body)
  double linear = 0.0;                 // damping: N s/m
  double angular = 0.0;                // damping: N m s/rad
  std::string bodyA, bodyB;            // torsion spring bodies; constant torque: bodyA
  Vec3 axisA = Vec3::UnitZ();          // torsion spring: body-local axes
  Vec3 axisB = Vec3::UnitZ();
  Vec3 vector = Vec3::Zero();          // constant force (N) or torque (N m), world frame
};

struct ConstraintType;

// A constraint's parameters: a value of its type's own struct (PointToNailDef, HingeDef, ...,
// declared in core/constraints/<type>.h), held by value behind a small type-erased holder so
// that the scene lists no types: a new type adds its struct and its row in constraintTypes()
// and changes nothing here. Copies are deep and == compares the held values (undo, redo and
// the save round trip compare definitions); the held struct names its type (Def::type()),
// which is the constraint's kind.
class ConstraintParams {
 public:
  ConstraintParams() = default;  // empty: no type yet (a definition being built or read)
  template <class Def>
    requires(!std::is_same_v<std::remove_cvref_t<Def>, ConstraintParams>)
  ConstraintParams(Def def) : m_held(std::make_unique<Held<Def>>(std::move(def))) {}
  ConstraintParams(const ConstraintParams& o) : m_held(o.m_held ? o.m_held->clone() : nullptr) {}
  ConstraintParams(ConstraintParams&&) noexcept = default;
  ConstraintParams& operator=(const ConstraintParams& o) {
    if (this != &o) m_held = o.m_held ? o.m_held->clone() : nullptr;
    return *this;
  }
  ConstraintParams& operator=(ConstraintParams&&) noexcept = default;
  bool operator==(const ConstraintParams& o) const {
    return m_held && o.m_held ? m_held->equals(*o.m_held) : !m_held && !o.m_held;
  }

  bool empty() const { return !m_held; }
  // The held struct's type row (core/constraint_type.h); throws std::logic_error when empty.
  const ConstraintType& type() const {
    if (!m_held) throw std::logic_error("a constraint definition without parameters has no type");
    return m_held->type();
  }
  // The held struct if it is a Def, else nullptr.
  template <class Def> const Def* get() const {
    const auto* h = dynamic_cast<const Held<Def>*>(m_held.get());
    return h ? &h->value : nullptr;
  }
  template <class Def> Def* get() {
    auto* h = dynamic_cast<Held<Def>*>(m_held.get());
    return h ? &h->value : nullptr;
  }
  // The held struct, which must be a Def (a type's own code reaching its parameters).
  template <class Def> const Def& as() const { return *checked(get<Def>()); }
  template <class Def> Def& as() { return *checked(get<Def>()); }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual std::unique_ptr<Base> clone() const = 0;
    virtual bool equals(const Base& o) const = 0;
    virtual const ConstraintType& type() const = 0;
  };
  template <class Def> struct Held final : Base {
    explicit Held(Def d) : value(std::move(d)) {}
    std::unique_ptr<Base> clone() const override { return std::make_unique<Held>(value); }
    bool equals(const Base& o) const override {
      const auto* h = dynamic_cast<const Held*>(&o);
      return h && h->value == value;
    }
    const ConstraintType& type() const override { return Def::type(); }
    Def value;
  };
  template <class T> static T* checked(T* p) {
    if (!p) throw std::logic_error("constraint parameters read as another type's");
    return p;
  }
  std::unique_ptr<Base> m_held;
};

// What every constraint has; the rest is its type's (params).
struct ConstraintDef {
  std::string name;
  bool enabled = true;
  std::optional<double> tau;           // s; unset = settings.defaultTau
  ConstraintParams params;             // the type's struct (core/constraints/<type>.h)
  // The kind of constraint: the row of the struct held in params.
  const ConstraintType& type() const { return params.type(); }
  bool operator==(const ConstraintDef&) const = default;
};

enum class EventAction { Enable, Disable, Create, Remove, Set };

struct EventDef {
  double time = 0.0;                   // s
  EventAction action = EventAction::Enable;
  std::string target;                  // a constraint, force or body name, or "gravity"
  std::string param;                   // Set: parameter name (tau, stiffness, ...)
  std::vector<double> value;           // Set: 1 number or a 3-vector
  bool operator==(const EventDef&) const = default;
};

enum class IntegratorKind { RK4, RK45, SemiImplicitEuler };
// How the constraint-force equation is solved (see core/constraint_solvers.h):
//   auto: the sparse block LDL^T when M is symmetric, sparse least squares when it is not,
//         dense SVD (or a regularized solve, for large systems) when M is singular
//   dense-svd: always the paper's SVD (the reference)
//   sparse: the sparse paths only (regularized when singular)
//   sequential-impulses: velocity-level iterative impulses with warm starting (Robson); steps
//         with semi-implicit Euler whatever the integrator setting
enum class SolverKind { Auto, DenseSvd, Sparse, SequentialImpulses };
// How constraint drift is fed back into the equation:
//   tau: Barzel & Barr, D'' + 2/tau D' + D/tau^2 = 0 per constraint
//   baumgarte: D'' + 2 alpha D' + beta^2 D = 0 with scene-wide alpha, beta
//   implicit: Hong et al., velocities at the end of the step satisfy D + h D' = 0
enum class StabilizationKind { Tau, Baumgarte, Implicit };

struct Settings {
  Vec3 gravity = Vec3(0.0, 0.0, -9.81);  // m/s^2; applies to every dynamic body
  bool gravityOn = true;
  double dt = 1e-3;                      // s: step (RK4, Euler) or output interval (RK45)
  // Default: semi-implicit Euler at the velocity level with Barzel's tau and projection of the
  // assembled constraints: one force evaluation per step, joints held to projectionTolerance,
  // assembly still animated by tau. The paper's examples and the analytic tests use rk4.
  IntegratorKind integrator = IntegratorKind::SemiImplicitEuler;
  SolverKind solver = SolverKind::Auto;
  int solverIterations = 30;             // sequential impulses: sweeps per step
  // fixed-step integrators: at most this many substeps per step while a body turns or a spring
  // oscillates faster than a step resolves (Simulation::stepSubdivided); 1 = never substep
  int maxSubsteps = 64;
  StabilizationKind stabilization = StabilizationKind::Tau;
  double baumgarteAlpha = 10.0;          // 1/s
  double baumgarteBeta = 10.0;           // 1/s
  bool projection = true;                // project assembled constraints after each step
  double projectionTolerance = 1e-7;     // m: projection iterates until every assembled |D| is below
  double defaultTau = 0.1;               // s
  double tolerance = 1e-8;               // RK45 error tolerance per step (relative + absolute)
  double duration = 10.0;                // s: default length of a headless run
  std::optional<double> assemblyTime;    // s: when the model counts as assembled (default 15 tau)
  // Contacts between bodies and with the planes (core/contact.h). Off unless the scene asks:
  // scenes written before contacts existed keep their motion.
  bool contacts = false;
  // m: the penetration a resting contact keeps (it stays detected, so a resting body's
  // contact force is steady); deeper overlap is projected out after each step
  double contactSlop = 1e-6;
};

struct Scene {
  Settings settings;
  std::vector<BodyDef> bodies;
  std::vector<NailDef> nails;
  std::vector<PlaneDef> planes;
  std::vector<PathDef> paths;
  std::vector<ForceDef> forces;
  std::vector<ConstraintDef> constraints;
  std::vector<EventDef> events;
};

// The entry of a scene list (bodies, nails, constraints, ...) with this name, or nullptr.
template <typename List>
auto byName(List& list, const std::string& name) -> decltype(&*list.begin()) {
  for (auto& x : list)
    if (x.name == name) return &x;
  return nullptr;
}

// Names used in the file format (and by the CLI), one place for both directions.
const char* toString(Shape s);
const char* toString(PathKind k);
const char* toString(ForceKind k);
const char* toString(EventAction a);
const char* toString(IntegratorKind k);
const char* toString(SolverKind k);
const char* toString(StabilizationKind k);
std::optional<SolverKind> solverFromString(const std::string& s);
std::optional<StabilizationKind> stabilizationFromString(const std::string& s);
std::optional<IntegratorKind> integratorFromString(const std::string& s);

}  // namespace tether::core
