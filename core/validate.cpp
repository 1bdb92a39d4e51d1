#include "core/validate.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "core/body.h"
#include "core/constraint_type.h"
#include "core/scene_io.h"

namespace tether::core {

namespace {

constexpr const char* kRollingRange = "(m: the torque that opposes rolling is at most this times the normal force; 0 rolls freely)";

[[noreturn]] void invalid(const std::string& where, const std::string& what) { throw SceneError(where + ": " + what); }

std::string idx(const char* list, size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

void positive(double v, const std::string& where) {
  if (!(v > 0.0)) {
    std::ostringstream s;
    s << "must be > 0 (is " << v << ")";
    invalid(where, s.str());
  }
}

// lo <= v <= hi, else "must be between lo and hi unit (is v)"
void inRange(double v, double lo, double hi, const std::string& where, const char* unit) {
  if (v >= lo && v <= hi) return;
  std::ostringstream s;
  s << "must be between " << lo << " and " << hi << (*unit ? " " : "") << unit << " (is " << v << ")";
  invalid(where, s.str());
}
void positiveIn(double v, double lo, double hi, const std::string& where, const char* unit) {
  positive(v, where);
  inRange(v, lo, hi, where, unit);
}
// |v| <= max in every component
void bounded(const Vec3& v, double max, const std::string& where, const char* unit) {
  for (int i = 0; i < 3; ++i) inRange(v[i], -max, max, where + "[" + std::to_string(i) + "]", unit);
}
void bounded(double v, double max, const std::string& where, const char* unit) { inRange(v, -max, max, where, unit); }

// a direction: not the zero vector, and components within 1e9 (its norm must not overflow, or
// the normalized direction would be 0 and the constraint silently do nothing)
void nonZero(const Vec3& v, const std::string& where) {
  bounded(v, Limits::kMaxCoordinate, where, "");
  if (!(v.norm() > 1e-12)) invalid(where, "must not be the zero vector");
}

enum class Kind { Body, Nail, Path, Force, Constraint, Plane };

const char* kindName(Kind k) {
  switch (k) {
    case Kind::Body: return "body";
    case Kind::Nail: return "nail";
    case Kind::Path: return "path";
    case Kind::Force: return "force";
    case Kind::Constraint: return "constraint";
    case Kind::Plane: return "plane";
  }
  return "?";
}

class Names {
 public:
  explicit Names(const Scene& s) : m_scene(s) {
    for (size_t i = 0; i < s.bodies.size(); ++i) add(s.bodies[i].name, Kind::Body, i, idx("bodies", i));
    for (size_t i = 0; i < s.nails.size(); ++i) add(s.nails[i].name, Kind::Nail, i, idx("nails", i));
    for (size_t i = 0; i < s.paths.size(); ++i) add(s.paths[i].name, Kind::Path, i, idx("paths", i));
    for (size_t i = 0; i < s.planes.size(); ++i) add(s.planes[i].name, Kind::Plane, i, idx("planes", i));
    for (size_t i = 0; i < s.forces.size(); ++i) add(s.forces[i].name, Kind::Force, i, idx("forces", i));
    for (size_t i = 0; i < s.constraints.size(); ++i)
      add(s.constraints[i].name, Kind::Constraint, i, idx("constraints", i));
  }

  const std::pair<Kind, size_t>* find(const std::string& n) const {
    auto it = m_map.find(n);
    return it == m_map.end() ? nullptr : &it->second;
  }

  size_t require(const std::string& n, Kind k, const std::string& where) const {
    const auto* e = find(n);
    if (!e) invalid(where, std::string("no ") + kindName(k) + " named \"" + n + "\"");
    if (e->first != k) invalid(where, "\"" + n + "\" is a " + kindName(e->first) + ", not a " + kindName(k));
    return e->second;
  }

  const BodyDef& body(const std::string& n, const std::string& where) const {
    return m_scene.bodies[require(n, Kind::Body, where)];
  }

  void point(const PointRef& r, const std::string& where) const {
    switch (r.kind) {
      case PointRef::Kind::BodyPoint: {
        const BodyDef& b = body(r.body, where);
        if (!findPoint(b, r.point)) {
          std::string names;
          for (const NamedPoint& p : shapePoints(b)) names += (names.empty() ? "" : ", ") + p.name;
          for (const NamedPoint& p : b.points) names += ", " + p.name;
          invalid(where, "body \"" + b.name + "\" has no control point \"" + r.point + "\" (it has: " + names + ")");
        }
        break;
      }
      case PointRef::Kind::BodyLocal: body(r.body, where); break;
      case PointRef::Kind::Nail: require(r.target, Kind::Nail, where); break;
      case PointRef::Kind::Path: require(r.target, Kind::Path, where); break;
    }
  }

 private:
  void add(const std::string& n, Kind k, size_t i, const std::string& where) {
    if (n.empty()) invalid(where + ".name", "must not be empty");
    for (unsigned char c : n)
      if (c < 0x20 || c == 0x7f) invalid(where + ".name", "must not contain control characters (a newline, tab or NUL byte)");
    if (n.find_first_of(".:") != std::string::npos) invalid(where + ".name", "must not contain '.' or ':'");
    if (n == "gravity") invalid(where + ".name", "\"gravity\" is reserved");
    auto [it, fresh] = m_map.emplace(n, std::make_pair(k, i));
    if (!fresh) invalid(where + ".name", "duplicate name \"" + n + "\" (already used by a " + kindName(it->second.first) + ")");
  }

  const Scene& m_scene;
  std::map<std::string, std::pair<Kind, size_t>> m_map;
};

void validateBody(const BodyDef& b, const std::string& w) {
  using L = Limits;
  auto length = [&](double v, const std::string& where) { positiveIn(v, L::kMinLength, L::kMaxLength, where, "m"); };
  positiveIn(b.density, L::kMinDensity, L::kMaxDensity, w + ".density", "kg/m^3");
  switch (b.shape) {
    case Shape::Rod:
      length(b.length, w + ".length");
      length(b.radius, w + ".radius");
      break;
    case Shape::Sphere: length(b.radius, w + ".radius"); break;
    case Shape::Torus:
      length(b.majorRadius, w + ".major_radius");
      length(b.minorRadius, w + ".minor_radius");
      if (b.minorRadius >= b.majorRadius) invalid(w + ".minor_radius", "must be smaller than major_radius");
      break;
    case Shape::Box:
      length(b.size.x(), w + ".size[0]");
      length(b.size.y(), w + ".size[1]");
      length(b.size.z(), w + ".size[2]");
      break;
  }
  bounded(b.position, L::kMaxCoordinate, w + ".position", "m");
  bounded(b.velocity, L::kMaxSpeed, w + ".velocity", "m/s");
  bounded(b.angularVelocity, L::kMaxSpeed, w + ".angular_velocity", "rad/s");
  if (std::abs(b.orientation.norm() - 1.0) > 1e-6) invalid(w + ".orientation", "must be a unit quaternion");
  inRange(b.restitution, 0.0, 1.0, w + ".restitution", "(0: no bounce, 1: elastic)");
  inRange(b.friction, 0.0, 10.0, w + ".friction", "(Coulomb's coefficient: 0 slides freely)");
  inRange(b.staticFriction, 0.0, 10.0, w + ".static_friction", "(Coulomb's coefficient: 0 slides freely)");
  inRange(b.rollingResistance, 0.0, 1.0, w + ".rolling_resistance", kRollingRange);
  const auto builtIn = shapePoints(b);
  for (size_t i = 0; i < b.points.size(); ++i) {
    const std::string pw = w + ".points." + b.points[i].name;
    if (b.points[i].name.empty()) invalid(w + ".points", "a point name must not be empty");
    for (const NamedPoint& p : builtIn)
      if (p.name == b.points[i].name) invalid(pw, std::string("shadows the ") + toString(b.shape) + "'s own control point");
    for (size_t j = 0; j < i; ++j)
      if (b.points[j].name == b.points[i].name) invalid(pw, "duplicate point name");
    bounded(b.points[i].local, Limits::kMaxCoordinate, pw, "m");
  }
}

void validatePath(const PathDef& p, const std::string& w) {
  using L = Limits;
  switch (p.kind) {
    case PathKind::Line:
      bounded(p.start, L::kMaxCoordinate, w + ".start", "m");
      bounded(p.velocity, L::kMaxSpeed, w + ".velocity", "m/s");
      break;
    case PathKind::Circle:
      bounded(p.center, L::kMaxCoordinate, w + ".center", "m");
      positiveIn(p.radius, L::kMinLength, L::kMaxLength, w + ".radius", "m");
      if (p.period == 0.0) invalid(w + ".period", "must not be 0");
      inRange(std::abs(p.period), L::kMinTime, L::kMaxTime, w + ".period", "s (in magnitude)");
      bounded(p.phase, 1e6, w + ".phase", "rad");
      nonZero(p.normal, w + ".normal");
      nonZero(p.u, w + ".u");
      if (p.u.normalized().cross(p.normal.normalized()).norm() < 1e-6) invalid(w + ".u", "must not be parallel to normal");
      break;
    case PathKind::Spline:
      if (p.keyframes.size() < 2) invalid(w + ".keyframes", "needs at least 2 keyframes");
      for (size_t i = 0; i < p.keyframes.size(); ++i) {
        const std::string kw = w + ".keyframes[" + std::to_string(i) + "]";
        bounded(p.keyframes[i].t, L::kMaxTime, kw + ".t", "s");
        bounded(p.keyframes[i].position, L::kMaxCoordinate, kw + ".position", "m");
      }
      for (size_t i = 1; i < p.keyframes.size(); ++i)
        if (!(p.keyframes[i].t - p.keyframes[i - 1].t >= L::kMinTime))
          invalid(w + ".keyframes[" + std::to_string(i) + "].t", "keyframe times must increase strictly (by at least 1e-9 s)");
      break;
  }
}

void validateForce(const ForceDef& f, const Names& names, const std::string& w) {
  using L = Limits;
  bounded(f.stiffness, L::kMaxCoefficient, w + ".stiffness", "");
  bounded(f.damping, L::kMaxCoefficient, w + ".damping", "");
  bounded(f.restLength, L::kMaxLength, w + ".rest_length", "m");
  bounded(f.linear, L::kMaxCoefficient, w + ".linear", "N s/m");
  bounded(f.angular, L::kMaxCoefficient, w + ".angular", "N m s/rad");
  bounded(f.vector, L::kMaxCoefficient, w + (f.kind == ForceKind::ConstantTorque ? ".torque" : ".force"), "");
  const bool onePoint = f.kind == ForceKind::ConstantForce;  // its key is "point"
  if (f.a.kind == PointRef::Kind::BodyLocal) bounded(f.a.local, L::kMaxCoordinate, w + (onePoint ? ".point" : ".a") + ".local", "m");
  if (f.b.kind == PointRef::Kind::BodyLocal) bounded(f.b.local, L::kMaxCoordinate, w + ".b.local", "m");
  switch (f.kind) {
    case ForceKind::Spring:
      names.point(f.a, w + ".a");
      names.point(f.b, w + ".b");
      if (f.stiffness < 0.0) invalid(w + ".stiffness", "must be >= 0");
      if (f.damping < 0.0) invalid(w + ".damping", "must be >= 0");
      if (f.restLength < 0.0) invalid(w + ".rest_length", "must be >= 0");
      break;
    case ForceKind::Damping:
      for (size_t i = 0; i < f.bodies.size(); ++i) names.body(f.bodies[i], w + ".bodies[" + std::to_string(i) + "]");
      if (f.linear < 0.0) invalid(w + ".linear", "must be >= 0");
      if (f.angular < 0.0) invalid(w + ".angular", "must be >= 0");
      break;
    case ForceKind::TorsionSpring:
      names.body(f.bodyA, w + ".body_a");
      names.body(f.bodyB, w + ".body_b");
      if (f.bodyA == f.bodyB) invalid(w + ".body_b", "must differ from body_a");
      nonZero(f.axisA, w + ".axis_a");
      nonZero(f.axisB, w + ".axis_b");
      if (f.stiffness < 0.0) invalid(w + ".stiffness", "must be >= 0");
      if (f.damping < 0.0) invalid(w + ".damping", "must be >= 0");
      if (f.restAngle < 0.0 || f.restAngle > M_PI) invalid(w + ".rest_angle", "must be in [0, pi]");
      break;
    case ForceKind::ConstantForce:
      names.point(f.a, w + ".point");
      if (f.a.kind == PointRef::Kind::Nail || f.a.kind == PointRef::Kind::Path)
        invalid(w + ".point", "must be a point on a body");
      break;
    case ForceKind::ConstantTorque: names.body(f.bodyA, w + ".body"); break;
  }
}

void bodyPointOnly(const PointRef& r, const std::string& w) {
  if (r.kind == PointRef::Kind::Nail || r.kind == PointRef::Kind::Path)
    invalid(w, "must be a point on a body (to hold it at a fixed or moving point, use point-to-nail or point-to-path, or join it to a fixed body)");
}

// Each field by its kind (the type's table row), then the type's own checks.
void validateConstraint(const Scene& s, const ConstraintDef& c, const Names& names, const std::string& w) {
  using L = Limits;
  if (c.tau) positiveIn(*c.tau, L::kMinTime, L::kMaxTime, w + ".tau", "s");
  const ConstraintType& type = c.type();
  for (const ConstraintField& f : type.fields) {
    const std::string at = w + "." + f.key;
    switch (f.kind) {
      case ConstraintField::Kind::BodyPoint:
      case ConstraintField::Kind::AnyPoint: {
        const PointRef& r = f.point(c);
        if (r.kind == PointRef::Kind::BodyLocal) bounded(r.local, L::kMaxCoordinate, at + ".local", "m");
        names.point(r, at);
        if (f.kind == ConstraintField::Kind::BodyPoint) bodyPointOnly(r, at);
        break;
      }
      case ConstraintField::Kind::Nail: names.require(f.name(c), Kind::Nail, at); break;
      case ConstraintField::Kind::Path: names.require(f.name(c), Kind::Path, at); break;
      case ConstraintField::Kind::Body: names.body(f.name(c), at); break;
      case ConstraintField::Kind::Direction: nonZero(f.vector(c), at); break;
      case ConstraintField::Kind::Position: bounded(f.vector(c), L::kMaxCoordinate, at, "m"); break;
      case ConstraintField::Kind::Length: positiveIn(f.number(c), L::kMinLength, L::kMaxLength, at, "m"); break;
    }
  }
  if (type.check) type.check(s, c.params, w);
}

void validateEvent(const EventDef& e, const Scene& s, const Names& names, const std::string& w) {
  if (!(e.time >= 0.0)) invalid(w + ".time", "must be >= 0");
  inRange(e.time, 0.0, Limits::kMaxTime, w + ".time", "s");
  for (size_t i = 0; i < e.value.size(); ++i) bounded(e.value[i], Limits::kMaxCoefficient, w + ".value", "");
  auto checkValue = [&](int size) {
    if (static_cast<int>(e.value.size()) != size)
      invalid(w + ".value", size == 1 ? "must be a number" : "must be an array of 3 numbers");
  };
  if (e.target == "gravity") {
    if (e.action == EventAction::Create || e.action == EventAction::Remove)
      invalid(w + ".action", "gravity can be enabled, disabled or set, not created or removed");
    if (e.action == EventAction::Set) {
      if (e.param != "acceleration") invalid(w + ".param", "gravity has one parameter: \"acceleration\"");
      checkValue(3);
      for (size_t i = 0; i < 3; ++i)
        bounded(e.value[i], Limits::kMaxAcceleration, w + ".value[" + std::to_string(i) + "]", "m/s^2");
    }
    return;
  }
  const auto* t = names.find(e.target);
  if (!t) invalid(w + ".target", "no body, force, constraint or path named \"" + e.target + "\"");
  const auto [kind, i] = *t;
  switch (e.action) {
    case EventAction::Create:
    case EventAction::Remove:
      if (kind != Kind::Body) invalid(w + ".action", std::string(toString(e.action)) + " applies to bodies only");
      return;
    case EventAction::Enable:
    case EventAction::Disable:
      if (kind != Kind::Force && kind != Kind::Constraint)
        invalid(w + ".action", std::string(toString(e.action)) + " applies to forces, constraints and gravity");
      return;
    case EventAction::Set:
      if (kind == Kind::Path) {
        if (e.param != "speed") invalid(w + ".param", "a path has one parameter: \"speed\"");
        checkValue(1);
        if (!(e.value[0] >= 0.0)) invalid(w + ".value", "speed must be >= 0");
        return;
      }
      if (kind == Kind::Constraint) {
        if (e.param != "tau") invalid(w + ".param", "a constraint has one parameter: \"tau\"");
        checkValue(1);
        if (!(e.value[0] > 0.0)) invalid(w + ".value", "tau must be > 0");
        inRange(e.value[0], Limits::kMinTime, Limits::kMaxTime, w + ".value", "s");
        return;
      }
      if (kind == Kind::Force) {
        std::string list;
        for (const ParamSpec& p : settableParams(s.forces[i].kind)) {
          if (e.param == p.name) {
            checkValue(p.size);
            if (p.size == 1 && e.value[0] < 0.0) invalid(w + ".value", "must be >= 0");
            return;
          }
          list += (list.empty() ? "" : ", ") + std::string(p.name);
        }
        invalid(w + ".param", std::string("a ") + toString(s.forces[i].kind) + " has no parameter \"" + e.param +
                               "\" (it has: " + list + ")");
      }
      if (kind == Kind::Body) {
        // the contact stage's switches and materials, in the ranges a body's own fields take
        checkValue(1);
        const double v = e.value[0];
        if (e.param == "collides") {
          if (v != 0.0 && v != 1.0) invalid(w + ".value", "collides is 1 (on) or 0 (off)");
        } else if (e.param == "restitution") {
          inRange(v, 0.0, 1.0, w + ".value", "(0: no bounce, 1: elastic)");
        } else if (e.param == "friction" || e.param == "static_friction") {
          inRange(v, 0.0, 10.0, w + ".value", "(Coulomb's coefficient: 0 slides freely)");
        } else if (e.param == "rolling_resistance") {
          inRange(v, 0.0, 1.0, w + ".value", kRollingRange);
        } else {
          std::string list;
          for (const ParamSpec& p : settableBodyParams()) list += (list.empty() ? "" : ", ") + std::string(p.name);
          invalid(w + ".param", "a body has no parameter \"" + e.param + "\" (it has: " + list + ")");
        }
        return;
      }
      invalid(w + ".target", "set applies to bodies, forces, constraints, paths and gravity");
  }
}

}  // namespace

std::vector<ParamSpec> settableParams(ForceKind kind) {
  switch (kind) {
    case ForceKind::Spring: return {{"stiffness", 1, "N/m"}, {"damping", 1, "N s/m"}, {"rest_length", 1, "m"}};
    case ForceKind::Damping: return {{"linear", 1, "N s/m"}, {"angular", 1, "N m s/rad"}};
    case ForceKind::TorsionSpring: return {{"stiffness", 1, "N m/rad"}, {"damping", 1, "N m s/rad"}, {"rest_angle", 1, "rad"}};
    case ForceKind::ConstantForce: return {{"force", 3, "N"}};
    case ForceKind::ConstantTorque: return {{"torque", 3, "N m"}};
  }
  return {};
}

std::vector<ParamSpec> settableBodyParams() {
  return {{"collides", 1}, {"restitution", 1}, {"friction", 1}, {"static_friction", 1}, {"rolling_resistance", 1, "m"}};
}

std::vector<ParamSpec> settableParams(const Scene& scene, const std::string& target) {
  if (target == "gravity") return {{"acceleration", 3, "m/s²"}};
  const auto named = [&](const auto& list) {
    return std::any_of(list.begin(), list.end(), [&](const auto& x) { return x.name == target; });
  };
  if (named(scene.bodies)) return settableBodyParams();
  if (named(scene.constraints)) return {{"tau", 1, "s"}};
  if (named(scene.paths)) return {{"speed", 1}};
  for (const ForceDef& f : scene.forces)
    if (f.name == target) return settableParams(f.kind);
  return {};
}

std::vector<double> paramValueAt(const Scene& scene, const std::string& target, const std::string& param, double t) {
  std::vector<double> v;
  const auto one = [&](double x) { v = {x}; };
  const auto three = [&](const Vec3& x) { v = {x.x(), x.y(), x.z()}; };
  if (target == "gravity" && param == "acceleration") three(scene.settings.gravity);
  for (const BodyDef& b : scene.bodies)
    if (b.name == target) {
      if (param == "collides") one(b.collides ? 1.0 : 0.0);
      if (param == "restitution") one(b.restitution);
      if (param == "friction") one(b.friction);
      if (param == "static_friction") one(b.staticFriction);
      if (param == "rolling_resistance") one(b.rollingResistance);
    }
  for (const ConstraintDef& c : scene.constraints)
    if (c.name == target && param == "tau") one(c.tau.value_or(scene.settings.defaultTau));
  for (const PathDef& p : scene.paths)
    if (p.name == target && param == "speed") one(1.0);
  for (const ForceDef& f : scene.forces)
    if (f.name == target) {
      if (param == "stiffness") one(f.stiffness);
      if (param == "damping") one(f.damping);
      if (param == "rest_length") one(f.restLength);
      if (param == "rest_angle") one(f.restAngle);
      if (param == "linear") one(f.linear);
      if (param == "angular") one(f.angular);
      if (param == "force" || param == "torque") three(f.vector);
    }
  if (v.empty()) return v;
  // the events in time order, as the run applies them (a stable sort: at one time, file order)
  std::vector<const EventDef*> sets;
  for (const EventDef& e : scene.events)
    if (e.action == EventAction::Set && e.target == target && e.param == param && e.time <= t && e.value.size() == v.size())
      sets.push_back(&e);
  std::stable_sort(sets.begin(), sets.end(), [](const EventDef* a, const EventDef* b) { return a->time < b->time; });
  if (!sets.empty()) v = sets.back()->value;
  return v;
}

namespace {

// Limits::kMaxConstraintsPerBody: counts every constraint (a disabled one can be enabled by an
// event) on each moving body.
void checkConstraintsPerBody(const Scene& s) {
  std::map<std::string, int> count;
  for (const ConstraintDef& c : s.constraints) {
    std::set<std::string> on;
    for (const ConstraintField& f : c.type().fields) {
      if (f.isPoint()) {
        const PointRef& r = f.point(c);
        if (r.kind == PointRef::Kind::BodyPoint || r.kind == PointRef::Kind::BodyLocal) on.insert(r.body);
      }
      if (f.kind == ConstraintField::Kind::Body && !f.name(c).empty()) on.insert(f.name(c));
    }
    for (const std::string& b : on) ++count[b];
  }
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    const BodyDef& b = s.bodies[i];
    const auto it = count.find(b.name);
    if (b.fixed || it == count.end() || it->second <= Limits::kMaxConstraintsPerBody) continue;
    invalid(idx("bodies", i), "body \"" + b.name + "\" is joined by " + std::to_string(it->second) +
                               " constraints, more than the " + std::to_string(Limits::kMaxConstraintsPerBody) +
                               " one moving body may take: constraints that share a body couple pairwise, so the "
                               "solver's work grows with the cube of their number; join the parts through "
                               "intermediate bodies, or make the body fixed");
  }
}

}  // namespace

void checkStepCount(double duration, double dt, const std::string& where) {
  const double steps = duration / dt;
  if (steps <= Limits::kMaxSteps) return;
  std::ostringstream m;
  m << duration << " s at dt = " << dt << " s is " << steps << " steps, more than the " << Limits::kMaxSteps
    << " one run may take; shorten it or raise dt";
  invalid(where, m.str());
}

void validateScene(const Scene& s) {
  using L = Limits;
  const Settings& st = s.settings;
  positiveIn(st.dt, L::kMinTime, 10.0, "settings.dt", "s");
  positiveIn(st.defaultTau, L::kMinTime, L::kMaxTime, "settings.default_tau", "s");
  positiveIn(st.tolerance, L::kMinTolerance, 1.0, "settings.tolerance", "(doubles resolve no finer)");
  positiveIn(st.projectionTolerance, L::kMinProjectionTolerance, 1.0, "settings.projection_tolerance", "m");
  positiveIn(st.duration, L::kMinTime, L::kMaxTime, "settings.duration", "s");
  checkStepCount(st.duration, st.dt, "settings.duration");
  if (st.assemblyTime) inRange(*st.assemblyTime, 0.0, L::kMaxTime, "settings.assembly_time", "s");
  if (!st.gravity.allFinite()) invalid("settings.gravity", "must be finite");
  bounded(st.gravity, L::kMaxAcceleration, "settings.gravity", "m/s^2");
  inRange(st.baumgarteAlpha, 0.0, L::kMaxBaumgarte, "settings.baumgarte_alpha", "1/s");
  inRange(st.baumgarteBeta, 0.0, L::kMaxBaumgarte, "settings.baumgarte_beta", "1/s");
  if (st.solverIterations < 1 || st.solverIterations > L::kMaxSolverIterations)
    invalid("settings.solver_iterations", "must be in 1.." + std::to_string(L::kMaxSolverIterations));
  if (st.maxSubsteps < 1 || st.maxSubsteps > L::kMaxSubsteps)
    invalid("settings.max_substeps", "must be in 1.." + std::to_string(L::kMaxSubsteps));
  inRange(st.contactSlop, 0.0, 1e-2, "settings.contact_slop", "m");

  const Names names(s);
  for (size_t i = 0; i < s.bodies.size(); ++i) validateBody(s.bodies[i], idx("bodies", i));
  checkConstraintsPerBody(s);
  for (size_t i = 0; i < s.nails.size(); ++i) bounded(s.nails[i].position, L::kMaxCoordinate, idx("nails", i) + ".position", "m");
  for (size_t i = 0; i < s.paths.size(); ++i) validatePath(s.paths[i], idx("paths", i));
  for (size_t i = 0; i < s.planes.size(); ++i) {
    const std::string w = idx("planes", i);
    bounded(s.planes[i].point, L::kMaxCoordinate, w + ".point", "m");
    nonZero(s.planes[i].normal, w + ".normal");
    inRange(s.planes[i].restitution, 0.0, 1.0, w + ".restitution", "(0: no bounce, 1: elastic)");
    inRange(s.planes[i].friction, 0.0, 10.0, w + ".friction", "(Coulomb's coefficient: 0 slides freely)");
    inRange(s.planes[i].staticFriction, 0.0, 10.0, w + ".static_friction", "(Coulomb's coefficient: 0 slides freely)");
    inRange(s.planes[i].rollingResistance, 0.0, 1.0, w + ".rolling_resistance", kRollingRange);
  }
  for (size_t i = 0; i < s.forces.size(); ++i) validateForce(s.forces[i], names, idx("forces", i));
  for (size_t i = 0; i < s.constraints.size(); ++i) validateConstraint(s, s.constraints[i], names, idx("constraints", i));
  for (size_t i = 0; i < s.events.size(); ++i) validateEvent(s.events[i], s, names, idx("events", i));
}

}  // namespace tether::core
