#include "core/scene_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/constraint_type.h"
#include "core/validate.h"

namespace tether::core {

using json = nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw SceneError(where + ": " + what);
}

// A JSON object being read at a known path. Every key read is remembered, so that unknown
// keys (usually typos) are reported instead of being silently ignored.
class Obj {
 public:
  Obj(const json& j, std::string path) : m_j(j), m_path(std::move(path)) {
    if (!m_j.is_object()) fail(m_path, "must be an object");
  }
  ~Obj() = default;

  const std::string& path() const { return m_path; }
  std::string at(const std::string& key) const { return m_path.empty() ? key : m_path + "." + key; }
  bool has(const std::string& key) const { return m_j.contains(key); }

  const json* get(const std::string& key) {
    m_used.insert(key);
    auto it = m_j.find(key);
    return it == m_j.end() ? nullptr : &*it;
  }

  double number(const std::string& key, double def) {
    const json* v = get(key);
    return v ? toNumber(*v, at(key)) : def;
  }
  double requiredNumber(const std::string& key) {
    const json* v = get(key);
    if (!v) fail(at(key), "is required");
    return toNumber(*v, at(key));
  }
  bool boolean(const std::string& key, bool def) {
    const json* v = get(key);
    if (!v) return def;
    if (!v->is_boolean()) fail(at(key), "must be true or false");
    return v->get<bool>();
  }
  std::string string(const std::string& key, const std::string& def) {
    const json* v = get(key);
    if (!v) return def;
    if (!v->is_string()) fail(at(key), "must be a string");
    return v->get<std::string>();
  }
  std::string requiredString(const std::string& key) {
    const json* v = get(key);
    if (!v) fail(at(key), "is required");
    if (!v->is_string()) fail(at(key), "must be a string");
    return v->get<std::string>();
  }
  Vec3 vec3(const std::string& key, const Vec3& def) {
    const json* v = get(key);
    return v ? toVec3(*v, at(key)) : def;
  }
  Vec3 requiredVec3(const std::string& key) {
    const json* v = get(key);
    if (!v) fail(at(key), "is required");
    return toVec3(*v, at(key));
  }
  // An array at key (missing = empty); calls f(element, "key[i]") for each element.
  template <typename F>
  void array(const std::string& key, F&& f) {
    const json* v = get(key);
    if (!v) return;
    if (!v->is_array()) fail(at(key), "must be an array");
    for (size_t i = 0; i < v->size(); ++i) f((*v)[i], at(key) + "[" + std::to_string(i) + "]");
  }

  void rejectUnknownKeys() const {
    for (auto it = m_j.begin(); it != m_j.end(); ++it)
      if (!m_used.count(it.key())) {
        std::string known;
        for (const std::string& k : m_used) known += (known.empty() ? "" : ", ") + k;
        if (it.key().empty()) fail(m_path.empty() ? "(top level)" : m_path, "an empty key \"\" (known here: " + known + ")");
        fail(at(it.key()), "unknown key (a typo? known here: " + known + ")");
      }
  }

  static double toNumber(const json& v, const std::string& where) {
    if (!v.is_number()) fail(where, "must be a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(where, "must be a finite number");
    return x;
  }
  static Vec3 toVec3(const json& v, const std::string& where) {
    if (!v.is_array() || v.size() != 3) fail(where, "must be an array of 3 numbers");
    return Vec3(toNumber(v[0], where + "[0]"), toNumber(v[1], where + "[1]"), toNumber(v[2], where + "[2]"));
  }

 private:
  const json& m_j;
  std::string m_path;
  std::set<std::string> m_used;
};

template <typename Enum, size_t N>
Enum enumFrom(const std::string& s, const Enum (&all)[N], const std::string& where) {
  std::string options;
  for (Enum e : all) {
    if (s == toString(e)) return e;
    options += std::string(options.empty() ? "" : ", ") + toString(e);
  }
  fail(where, "unknown value \"" + s + "\" (expected one of: " + options + ")");
}

constexpr Shape kShapes[] = {Shape::Rod, Shape::Sphere, Shape::Torus, Shape::Box};
constexpr PathKind kPathKinds[] = {PathKind::Line, PathKind::Circle, PathKind::Spline};
constexpr ForceKind kForceKinds[] = {ForceKind::Spring, ForceKind::Damping, ForceKind::TorsionSpring,
                                     ForceKind::ConstantForce, ForceKind::ConstantTorque};
constexpr EventAction kActions[] = {EventAction::Enable, EventAction::Disable, EventAction::Create,
                                    EventAction::Remove, EventAction::Set};
constexpr IntegratorKind kIntegrators[] = {IntegratorKind::RK4, IntegratorKind::RK45,
                                           IntegratorKind::SemiImplicitEuler};
constexpr SolverKind kSolvers[] = {SolverKind::Auto, SolverKind::DenseSvd, SolverKind::Sparse,
                                   SolverKind::SequentialImpulses};
constexpr StabilizationKind kStabilizations[] = {StabilizationKind::Tau, StabilizationKind::Baumgarte,
                                                 StabilizationKind::Implicit};

// "rod1.end2" -> body point; "nail:n1" -> nail; "path:p1" -> path;
// {"body": "rod1", "local": [x, y, z]} -> body-local point.
PointRef readPointRef(const json& v, const std::string& where) {
  PointRef r;
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s.rfind("nail:", 0) == 0) {
      r.kind = PointRef::Kind::Nail;
      r.target = s.substr(5);
    } else if (s.rfind("path:", 0) == 0) {
      r.kind = PointRef::Kind::Path;
      r.target = s.substr(5);
    } else {
      const size_t dot = s.rfind('.');
      if (dot == std::string::npos || dot == 0 || dot + 1 == s.size())
        fail(where, "\"" + s + "\" is not a point (expected \"body.point\", \"nail:NAME\" or \"path:NAME\")");
      r.kind = PointRef::Kind::BodyPoint;
      r.body = s.substr(0, dot);
      r.point = s.substr(dot + 1);
    }
    if ((r.kind == PointRef::Kind::Nail || r.kind == PointRef::Kind::Path) && r.target.empty())
      fail(where, "missing name after \"" + s + "\"");
    return r;
  }
  Obj o(v, where);
  r.kind = PointRef::Kind::BodyLocal;
  r.body = o.requiredString("body");
  r.local = o.requiredVec3("local");
  o.rejectUnknownKeys();
  return r;
}

json writePointRef(const PointRef& r) {
  if (r.kind == PointRef::Kind::BodyLocal)
    return json{{"body", r.body}, {"local", {r.local.x(), r.local.y(), r.local.z()}}};
  return pointRefToString(r);
}

json vec(const Vec3& v) { return json::array({v.x(), v.y(), v.z()}); }

Quat readOrientation(const json& v, const std::string& where) {
  if (v.is_object()) {
    Obj o(v, where);
    Vec3 axis = o.requiredVec3("axis");
    const double deg = o.requiredNumber("angle_deg");
    o.rejectUnknownKeys();
    if (axis.norm() < 1e-12) fail(where + ".axis", "must not be the zero vector");
    return Quat(Eigen::AngleAxisd(deg * M_PI / 180.0, axis.normalized()));
  }
  if (!v.is_array() || v.size() != 4) fail(where, "must be a quaternion [w, x, y, z] or {\"axis\", \"angle_deg\"}");
  Quat q(Obj::toNumber(v[0], where + "[0]"), Obj::toNumber(v[1], where + "[1]"),
         Obj::toNumber(v[2], where + "[2]"), Obj::toNumber(v[3], where + "[3]"));
  const double n = q.norm();
  if (std::abs(n - 1.0) > 1e-6) {
    std::ostringstream s;
    s << "must be a unit quaternion (its norm is " << n << ")";
    fail(where, s.str());
  }
  // keep exactly the value that was written when it is already unit to round-off, so that a
  // load -> save -> load cycle is lossless
  if (std::abs(n - 1.0) > 1e-15) q.normalize();
  return q;
}

// A collision group or mask: a whole number of 32 bits.
std::uint32_t filterBits(const json& v, const std::string& where) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 0xffffffffull)
    fail(where, "must be a whole number from 0 to 4294967295 (32 bits, one per group)");
  return static_cast<std::uint32_t>(v.get<std::uint64_t>());
}

BodyDef readBody(const json& v, const std::string& where) {
  Obj o(v, where);
  BodyDef b;
  b.name = o.requiredString("name");
  b.shape = enumFrom(o.requiredString("type"), kShapes, o.at("type"));
  b.density = o.number("density", b.density);
  b.fixed = o.boolean("fixed", b.fixed);
  b.active = o.boolean("active", b.active);
  switch (b.shape) {
    case Shape::Rod:
      b.length = o.number("length", b.length);
      b.radius = o.number("radius", b.radius);
      break;
    case Shape::Sphere: b.radius = o.number("radius", b.radius); break;
    case Shape::Torus:
      b.majorRadius = o.number("major_radius", b.majorRadius);
      b.minorRadius = o.number("minor_radius", b.minorRadius);
      break;
    case Shape::Box: b.size = o.vec3("size", b.size); break;
  }
  b.position = o.vec3("position", b.position);
  if (const json* q = o.get("orientation")) b.orientation = readOrientation(*q, o.at("orientation"));
  // a rod may instead be placed by its two ends: sets position, orientation and length
  if (const json* ends = o.get("ends")) {
    if (b.shape != Shape::Rod) fail(o.at("ends"), "only a rod can be placed by its ends");
    if (o.has("position") || o.has("orientation") || o.has("length"))
      fail(o.at("ends"), "give either \"ends\" or position/orientation/length, not both");
    if (!ends->is_array() || ends->size() != 2) fail(o.at("ends"), "must be an array of two points");
    const Vec3 e1 = Obj::toVec3((*ends)[0], o.at("ends") + "[0]");
    const Vec3 e2 = Obj::toVec3((*ends)[1], o.at("ends") + "[1]");
    if ((e2 - e1).norm() <= 0.0) fail(o.at("ends"), "the two ends must differ");
    b.length = (e2 - e1).norm();
    b.position = 0.5 * (e1 + e2);
    b.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), (e2 - e1).normalized());
  }
  b.velocity = o.vec3("velocity", b.velocity);
  b.angularVelocity = o.vec3("angular_velocity", b.angularVelocity);
  b.collides = o.boolean("collides", b.collides);
  b.restitution = o.number("restitution", b.restitution);
  b.friction = o.number("friction", b.friction);
  b.staticFriction = o.number("static_friction", b.staticFriction);
  b.rollingResistance = o.number("rolling_resistance", b.rollingResistance);
  if (const json* g = o.get("collision_group")) b.collisionGroup = filterBits(*g, o.at("collision_group"));
  if (const json* m = o.get("collision_mask")) b.collisionMask = filterBits(*m, o.at("collision_mask"));
  if (const json* pts = o.get("points")) {
    if (!pts->is_object()) fail(o.at("points"), "must be an object of name: [x, y, z]");
    for (auto it = pts->begin(); it != pts->end(); ++it)
      b.points.push_back({it.key(), Obj::toVec3(it.value(), o.at("points") + "." + it.key())});
  }
  o.rejectUnknownKeys();
  return b;
}

json writeBody(const BodyDef& b) {
  json j{{"name", b.name}, {"type", toString(b.shape)}, {"density", b.density}};
  switch (b.shape) {
    case Shape::Rod: j["length"] = b.length; j["radius"] = b.radius; break;
    case Shape::Sphere: j["radius"] = b.radius; break;
    case Shape::Torus: j["major_radius"] = b.majorRadius; j["minor_radius"] = b.minorRadius; break;
    case Shape::Box: j["size"] = vec(b.size); break;
  }
  if (b.fixed) j["fixed"] = true;
  if (!b.active) j["active"] = false;
  j["position"] = vec(b.position);
  j["orientation"] = {b.orientation.w(), b.orientation.x(), b.orientation.y(), b.orientation.z()};
  j["velocity"] = vec(b.velocity);
  j["angular_velocity"] = vec(b.angularVelocity);
  if (!b.collides) j["collides"] = false;
  if (b.restitution != BodyDef{}.restitution) j["restitution"] = b.restitution;
  if (b.friction != BodyDef{}.friction) j["friction"] = b.friction;
  if (b.staticFriction != BodyDef{}.staticFriction) j["static_friction"] = b.staticFriction;
  if (b.rollingResistance != BodyDef{}.rollingResistance) j["rolling_resistance"] = b.rollingResistance;
  if (b.collisionGroup != BodyDef{}.collisionGroup) j["collision_group"] = b.collisionGroup;
  if (b.collisionMask != BodyDef{}.collisionMask) j["collision_mask"] = b.collisionMask;
  if (!b.points.empty()) {
    json pts = json::object();
    for (const NamedPoint& p : b.points) pts[p.name] = vec(p.local);
    j["points"] = pts;
  }
  return j;
}

PathDef readPath(const json& v, const std::string& where) {
  Obj o(v, where);
  PathDef p;
  p.name = o.requiredString("name");
  p.kind = enumFrom(o.requiredString("type"), kPathKinds, o.at("type"));
  switch (p.kind) {
    case PathKind::Line:
      p.start = o.requiredVec3("start");
      p.velocity = o.vec3("velocity", p.velocity);
      break;
    case PathKind::Circle:
      p.center = o.requiredVec3("center");
      p.normal = o.vec3("normal", p.normal);
      p.u = o.vec3("u", p.u);
      p.radius = o.requiredNumber("radius");
      p.period = o.requiredNumber("period");
      p.phase = o.number("phase", p.phase);
      break;
    case PathKind::Spline:
      o.array("keyframes", [&](const json& k, const std::string& kw) {
        Obj ko(k, kw);
        p.keyframes.push_back({ko.requiredNumber("t"), ko.requiredVec3("position")});
        ko.rejectUnknownKeys();
      });
      break;
  }
  o.rejectUnknownKeys();
  return p;
}

json writePath(const PathDef& p) {
  json j{{"name", p.name}, {"type", toString(p.kind)}};
  switch (p.kind) {
    case PathKind::Line: j["start"] = vec(p.start); j["velocity"] = vec(p.velocity); break;
    case PathKind::Circle:
      j["center"] = vec(p.center); j["normal"] = vec(p.normal); j["u"] = vec(p.u);
      j["radius"] = p.radius; j["period"] = p.period; j["phase"] = p.phase;
      break;
    case PathKind::Spline: {
      json ks = json::array();
      for (const Keyframe& k : p.keyframes) ks.push_back({{"t", k.t}, {"position", vec(k.position)}});
      j["keyframes"] = ks;
      break;
    }
  }
  return j;
}

ForceDef readForce(const json& v, const std::string& where) {
  Obj o(v, where);
  ForceDef f;
  f.name = o.requiredString("name");
  f.kind = enumFrom(o.requiredString("type"), kForceKinds, o.at("type"));
  f.enabled = o.boolean("enabled", true);
  auto point = [&](const char* key) {
    const json* p = o.get(key);
    if (!p) fail(o.at(key), "is required");
    return readPointRef(*p, o.at(key));
  };
  switch (f.kind) {
    case ForceKind::Spring:
      f.a = point("a");
      f.b = point("b");
      f.stiffness = o.requiredNumber("stiffness");
      f.damping = o.number("damping", 0.0);
      f.restLength = o.number("rest_length", 0.0);
      break;
    case ForceKind::Damping:
      o.array("bodies", [&](const json& b, const std::string& bw) {
        if (!b.is_string()) fail(bw, "must be a body name");
        f.bodies.push_back(b.get<std::string>());
      });
      f.linear = o.number("linear", 0.0);
      f.angular = o.number("angular", 0.0);
      break;
    case ForceKind::TorsionSpring:
      f.bodyA = o.requiredString("body_a");
      f.bodyB = o.requiredString("body_b");
      f.axisA = o.vec3("axis_a", f.axisA);
      f.axisB = o.vec3("axis_b", f.axisB);
      f.stiffness = o.requiredNumber("stiffness");
      f.damping = o.number("damping", 0.0);
      f.restAngle = o.number("rest_angle", 0.0);
      break;
    case ForceKind::ConstantForce:
      f.a = point("point");
      f.vector = o.requiredVec3("force");
      break;
    case ForceKind::ConstantTorque:
      f.bodyA = o.requiredString("body");
      f.vector = o.requiredVec3("torque");
      break;
  }
  o.rejectUnknownKeys();
  return f;
}

json writeForce(const ForceDef& f) {
  json j{{"name", f.name}, {"type", toString(f.kind)}, {"enabled", f.enabled}};
  switch (f.kind) {
    case ForceKind::Spring:
      j["a"] = writePointRef(f.a); j["b"] = writePointRef(f.b);
      j["stiffness"] = f.stiffness; j["damping"] = f.damping; j["rest_length"] = f.restLength;
      break;
    case ForceKind::Damping:
      j["bodies"] = f.bodies; j["linear"] = f.linear; j["angular"] = f.angular;
      break;
    case ForceKind::TorsionSpring:
      j["body_a"] = f.bodyA; j["body_b"] = f.bodyB; j["axis_a"] = vec(f.axisA); j["axis_b"] = vec(f.axisB);
      j["stiffness"] = f.stiffness; j["damping"] = f.damping; j["rest_angle"] = f.restAngle;
      break;
    case ForceKind::ConstantForce: j["point"] = writePointRef(f.a); j["force"] = vec(f.vector); break;
    case ForceKind::ConstantTorque: j["body"] = f.bodyA; j["torque"] = vec(f.vector); break;
  }
  return j;
}

ConstraintDef readConstraint(const json& v, const std::string& where) {
  Obj o(v, where);
  ConstraintDef c;
  c.name = o.requiredString("name");
  const std::string id = o.requiredString("type");
  const ConstraintType* type = constraintTypeById(id);
  if (!type) {
    std::string options;
    for (const ConstraintType* t : constraintTypes()) options += std::string(options.empty() ? "" : ", ") + t->id;
    fail(o.at("type"), "unknown value \"" + id + "\" (expected one of: " + options + ")");
  }
  c.params = type->defaults;
  c.enabled = o.boolean("enabled", true);
  if (o.has("tau")) c.tau = o.requiredNumber("tau");
  for (const ConstraintField& f : type->fields) {
    if (f.isPoint()) {
      const json* p = o.get(f.key);
      if (!p) fail(o.at(f.key), "is required");
      f.point(c) = readPointRef(*p, o.at(f.key));
    } else if (f.isName()) {
      f.name(c) = o.requiredString(f.key);
    } else if (f.isVector()) {
      f.vector(c) = o.requiredVec3(f.key);
    } else if (f.isNumber()) {
      f.number(c) = o.requiredNumber(f.key);
    }
  }
  o.rejectUnknownKeys();
  return c;
}

json writeConstraint(const ConstraintDef& c) {
  json j{{"name", c.name}, {"type", c.type().id}, {"enabled", c.enabled}};
  if (c.tau) j["tau"] = *c.tau;
  for (const ConstraintField& f : c.type().fields) {
    if (f.isPoint()) j[f.key] = writePointRef(f.point(c));
    else if (f.isName()) j[f.key] = f.name(c);
    else if (f.isVector()) j[f.key] = vec(f.vector(c));
    else if (f.isNumber()) j[f.key] = f.number(c);
  }
  return j;
}

EventDef readEvent(const json& v, const std::string& where) {
  Obj o(v, where);
  EventDef e;
  e.time = o.requiredNumber("time");
  e.action = enumFrom(o.requiredString("action"), kActions, o.at("action"));
  e.target = o.requiredString("target");
  if (e.action == EventAction::Set) {
    e.param = o.requiredString("param");
    const json* val = o.get("value");
    if (!val) fail(o.at("value"), "is required");
    if (val->is_number()) {
      e.value = {Obj::toNumber(*val, o.at("value"))};
    } else if (val->is_boolean()) {
      e.value = {val->get<bool>() ? 1.0 : 0.0};
    } else {
      const Vec3 x = Obj::toVec3(*val, o.at("value"));
      e.value = {x.x(), x.y(), x.z()};
    }
  }
  o.rejectUnknownKeys();
  return e;
}

json writeEvent(const EventDef& e) {
  json j{{"time", e.time}, {"action", toString(e.action)}, {"target", e.target}};
  if (e.action == EventAction::Set) {
    j["param"] = e.param;
    j["value"] = e.value.size() == 1 ? json(e.value[0]) : json(e.value);
  }
  return j;
}

// A whole number in lo..hi, read without wrapping (4294967326 is not 30).
int wholeNumber(const json& v, const std::string& where, int lo, int hi) {
  if (!v.is_number_integer()) fail(where, "must be a whole number");
  const bool inRange = v.is_number_unsigned() ? v.get<std::uint64_t>() <= std::uint64_t(hi)
                                              : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
  if (!inRange) fail(where, "must be in " + std::to_string(lo) + ".." + std::to_string(hi) + " (is " + v.dump() + ")");
  return static_cast<int>(v.get<std::int64_t>());
}

Settings readSettings(const json& v, const std::string& where) {
  Obj o(v, where);
  Settings s;
  s.gravity = o.vec3("gravity", s.gravity);
  s.gravityOn = o.boolean("gravity_on", s.gravityOn);
  s.dt = o.number("dt", s.dt);
  s.integrator = enumFrom(o.string("integrator", toString(s.integrator)), kIntegrators, o.at("integrator"));
  s.solver = enumFrom(o.string("solver", toString(s.solver)), kSolvers, o.at("solver"));
  if (const json* it = o.get("solver_iterations")) s.solverIterations = wholeNumber(*it, o.at("solver_iterations"), 1, Limits::kMaxSolverIterations);
  if (const json* it = o.get("max_substeps")) s.maxSubsteps = wholeNumber(*it, o.at("max_substeps"), 1, Limits::kMaxSubsteps);
  s.stabilization = enumFrom(o.string("stabilization", toString(s.stabilization)), kStabilizations,
                             o.at("stabilization"));
  s.baumgarteAlpha = o.number("baumgarte_alpha", s.baumgarteAlpha);
  s.baumgarteBeta = o.number("baumgarte_beta", s.baumgarteBeta);
  s.projection = o.boolean("projection", s.projection);
  s.projectionTolerance = o.number("projection_tolerance", s.projectionTolerance);
  s.defaultTau = o.number("default_tau", s.defaultTau);
  s.tolerance = o.number("tolerance", s.tolerance);
  s.duration = o.number("duration", s.duration);
  if (o.has("assembly_time")) s.assemblyTime = o.requiredNumber("assembly_time");
  s.contacts = o.boolean("contacts", s.contacts);
  s.contactSlop = o.number("contact_slop", s.contactSlop);
  o.rejectUnknownKeys();
  return s;
}

json writeSettings(const Settings& s) {
  json j{{"gravity", vec(s.gravity)}, {"gravity_on", s.gravityOn}, {"dt", s.dt},
         {"integrator", toString(s.integrator)}, {"solver", toString(s.solver)},
         {"solver_iterations", s.solverIterations}, {"max_substeps", s.maxSubsteps},
         {"stabilization", toString(s.stabilization)},
         {"baumgarte_alpha", s.baumgarteAlpha}, {"baumgarte_beta", s.baumgarteBeta}, {"projection", s.projection},
         {"projection_tolerance", s.projectionTolerance},
         {"default_tau", s.defaultTau}, {"tolerance", s.tolerance}, {"duration", s.duration}};
  if (s.assemblyTime) j["assembly_time"] = *s.assemblyTime;
  // (written only when set: files of scenes without contacts stay as they were)
  if (s.contacts) j["contacts"] = true;
  if (s.contacts || s.contactSlop != Settings{}.contactSlop) j["contact_slop"] = s.contactSlop;
  return j;
}

// 1-based line and column of a byte offset, for parse errors.
std::string lineColumn(const std::string& text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}


// Strict JSON: nlohmann's DOM builder driven through its SAX interface, with what plain
// json::parse lets through turned into errors that name the line and column:
//  - a key given twice in one object (json::parse keeps the last one);
//  - a NUL byte (its lexer takes it for the end of the input: anything after it was ignored);
//  - a number that underflows to 0 ("1e-400" read as 0) or overflows ("1e400": json::parse
//    reports it without a place).
// Trailing garbage after the top-level value is already an error in json::parse's strict mode.
class StrictSax {
 public:
  StrictSax(json& root, const std::string& text, const size_t& offset) : m_dom(root, true), m_text(text), m_offset(offset) {}

  bool null() { return m_dom.null(); }
  bool boolean(bool v) { return m_dom.boolean(v); }
  bool number_integer(json::number_integer_t v) { return m_dom.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return m_dom.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& raw) {
    // the mantissa's digits before the exponent: any of them non-zero means v should not be 0
    if (v == 0.0 && raw.substr(0, raw.find_first_of("eE")).find_first_of("123456789") != std::string::npos)
      throw SceneError("not valid JSON at " + startOf(raw.size()) + ": the number " + raw +
                       " is too small for a double (it would read as 0); write 0 or a number of at least 1e-300");
    return m_dom.number_float(v, raw);
  }
  bool string(std::string& v) { return m_dom.string(v); }
  bool binary(json::binary_t& v) { return m_dom.binary(v); }
  bool start_object(std::size_t n) {
    m_keys.emplace_back();
    return m_dom.start_object(n);
  }
  bool key(std::string& k) {
    if (!m_keys.back().insert(k).second)
      throw SceneError("not valid JSON at " + startOf(k.size() + 1) + ": the key \"" + k +
                       "\" is given twice in one object (which one did you mean?)");
    return m_dom.key(k);
  }
  bool end_object() {
    m_keys.pop_back();
    return m_dom.end_object();
  }
  bool start_array(std::size_t n) { return m_dom.start_array(n); }
  bool end_array() { return m_dom.end_array(); }
  bool parse_error(std::size_t byte, const std::string& token, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    // drop nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix
    const size_t colon = what.find(": ");
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    if (e.id == 406) {  // a number too large: name the place where it starts
      throw SceneError("not valid JSON at " + lineColumn(m_text, byte >= token.size() ? byte - token.size() : 0) +
                       ": the number " + token + " is too large for a double");
    }
    if (detail.rfind("[json.exception", 0) == 0) detail = detail.substr(detail.find("] ") + 2);
    throw SceneError("not valid JSON at " + lineColumn(m_text, byte == 0 ? 0 : byte - 1) + ": " + detail);
  }

 private:
  // the place of a token that ends `back` bytes before the last one the lexer has read (the
  // lexer reads one byte past a number, none past a string's closing quote)
  std::string startOf(size_t back) const { return lineColumn(m_text, m_offset > back ? m_offset - 1 - back : 0); }

  nlohmann::detail::json_sax_dom_parser<json> m_dom;
  const std::string& m_text;
  const size_t& m_offset;                  // bytes the lexer has read so far
  std::vector<std::set<std::string>> m_keys;  // per open object
};

// A char iterator that tells StrictSax how far the lexer has read (for error places).
struct CountingIterator {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  const char* p = nullptr;
  const char* begin = nullptr;
  size_t* offset = nullptr;
  reference operator*() const { return *p; }
  CountingIterator& operator++() {
    ++p;
    *offset = size_t(p - begin);
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p == o.p; }
  bool operator!=(const CountingIterator& o) const { return p != o.p; }
};

json parseStrict(const std::string& text) {
  if (const size_t nul = text.find('\0'); nul != std::string::npos)
    throw SceneError("not valid JSON at " + lineColumn(text, nul) +
                     ": a NUL byte (is this a text file? a scene file is UTF-8 JSON)");
  json root;
  size_t offset = 0;
  StrictSax sax(root, text, offset);
  const CountingIterator first{text.data(), text.data(), &offset}, last{text.data() + text.size(), text.data(), &offset};
  json::sax_parse(first, last, &sax, nlohmann::detail::input_format_t::json, true);
  return root;
}

}  // namespace

std::string pointRefToString(const PointRef& r) {
  switch (r.kind) {
    case PointRef::Kind::BodyPoint: return r.body + "." + r.point;
    case PointRef::Kind::Nail: return "nail:" + r.target;
    case PointRef::Kind::Path: return "path:" + r.target;
    case PointRef::Kind::BodyLocal: {
      std::ostringstream s;
      s << r.body << "@(" << r.local.x() << ", " << r.local.y() << ", " << r.local.z() << ")";
      return s.str();
    }
  }
  return "?";
}

Scene sceneFromJson(const std::string& text) {
  const json root = parseStrict(text);
  if (!root.is_object()) fail("(top level)", "must be a JSON object");
  Obj o(root, "");
  const std::string format = o.string("format", "");
  if (format != "tether-scene") fail("format", "must be \"tether-scene\" (is this a Tether scene file?)");
  const json* ver = o.get("version");
  if (!ver) fail("version", "is required");
  if (!ver->is_number_integer()) fail("version", "must be an integer");
  if (ver->get<long long>() != kSceneFormatVersion)
    fail("version", "unsupported version " + std::to_string(ver->get<long long>()) + " (this Tether reads version " +
                        std::to_string(kSceneFormatVersion) + ")");
  Scene s;
  if (const json* st = o.get("settings")) s.settings = readSettings(*st, "settings");
  o.array("bodies", [&](const json& v, const std::string& w) { s.bodies.push_back(readBody(v, w)); });
  o.array("nails", [&](const json& v, const std::string& w) {
    Obj n(v, w);
    NailDef nd{n.requiredString("name"), n.requiredVec3("position")};
    n.rejectUnknownKeys();
    s.nails.push_back(nd);
  });
  o.array("planes", [&](const json& v, const std::string& w) {
    Obj pl(v, w);
    PlaneDef pd;
    pd.name = pl.requiredString("name");
    pd.point = pl.vec3("point", pd.point);
    pd.normal = pl.vec3("normal", pd.normal);
    pd.restitution = pl.number("restitution", pd.restitution);
    pd.friction = pl.number("friction", pd.friction);
    pd.staticFriction = pl.number("static_friction", pd.staticFriction);
    pd.rollingResistance = pl.number("rolling_resistance", pd.rollingResistance);
    pl.rejectUnknownKeys();
    s.planes.push_back(pd);
  });
  o.array("paths", [&](const json& v, const std::string& w) { s.paths.push_back(readPath(v, w)); });
  o.array("forces", [&](const json& v, const std::string& w) { s.forces.push_back(readForce(v, w)); });
  o.array("constraints", [&](const json& v, const std::string& w) { s.constraints.push_back(readConstraint(v, w)); });
  o.array("events", [&](const json& v, const std::string& w) { s.events.push_back(readEvent(v, w)); });
  o.string("description", "");  // free text, not kept
  o.rejectUnknownKeys();
  validateScene(s);
  return s;
}

std::string sceneToJson(const Scene& s) {
  json root;
  root["format"] = "tether-scene";
  root["version"] = kSceneFormatVersion;
  root["settings"] = writeSettings(s.settings);
  json bodies = json::array(), nails = json::array(), paths = json::array(), forces = json::array(),
       constraints = json::array(), events = json::array();
  for (const auto& b : s.bodies) bodies.push_back(writeBody(b));
  for (const auto& n : s.nails) nails.push_back({{"name", n.name}, {"position", vec(n.position)}});
  for (const auto& p : s.paths) paths.push_back(writePath(p));
  for (const auto& f : s.forces) forces.push_back(writeForce(f));
  for (const auto& c : s.constraints) constraints.push_back(writeConstraint(c));
  for (const auto& e : s.events) events.push_back(writeEvent(e));
  root["bodies"] = bodies;
  root["nails"] = nails;
  if (!s.planes.empty()) {
    json planes = json::array();
    for (const PlaneDef& p : s.planes) {
      planes.push_back({{"name", p.name}, {"point", vec(p.point)}, {"normal", vec(p.normal)}, {"restitution", p.restitution},
                        {"friction", p.friction}, {"static_friction", p.staticFriction}});
      if (p.rollingResistance != PlaneDef{}.rollingResistance) planes.back()["rolling_resistance"] = p.rollingResistance;
    }
    root["planes"] = planes;
  }
  root["paths"] = paths;
  root["forces"] = forces;
  root["constraints"] = constraints;
  root["events"] = events;
  return root.dump(2) + "\n";
}

Scene loadScene(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot open file");
  // read at most kMaxSceneBytes (and a little more, to notice): a huge file is refused, not
  // read for ever; a NUL byte stops the reading (the parser names its place: not a text file)
  std::string text;
  std::vector<char> chunk(size_t(1) << 20);
  while (text.size() <= kMaxSceneBytes && in) {
    in.read(chunk.data(), std::streamsize(chunk.size()));
    const auto got = size_t(in.gcount());
    text.append(chunk.data(), got);
    if (std::find(chunk.begin(), chunk.begin() + std::ptrdiff_t(got), '\0') != chunk.begin() + std::ptrdiff_t(got)) break;
  }
  if (in.bad()) throw SceneError(path + ": cannot read file");
  if (text.size() > kMaxSceneBytes)
    throw SceneError(path + ": larger than " + std::to_string(kMaxSceneBytes >> 20) + " MB: not a scene file?");
  try {
    return sceneFromJson(text);
  } catch (const SceneError& e) {
    throw SceneError(path + ": " + e.what());
  }
}

namespace {

// Writes all of text to fd and flushes it to the disk; false (errno set) on a short write, a full
// disk or a failed fsync.
bool writeAllAndSync(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return ::fsync(fd) == 0;
}

std::string errnoText() { return std::strerror(errno); }

// Writes text to a new file `file` with the given mode; throws SceneError naming `shown`.
void writeNewFile(const std::string& file, const std::string& text, mode_t mode, const std::string& shown) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) throw SceneError(shown + ": cannot write file: " + errnoText());
  if (!writeAllAndSync(fd, text)) {
    const std::string why = errnoText();
    ::close(fd);
    std::remove(file.c_str());
    throw SceneError(shown + ": write failed: " + why);
  }
  if (::close(fd) != 0) {
    const std::string why = errnoText();
    std::remove(file.c_str());
    throw SceneError(shown + ": write failed: " + why);
  }
}

}  // namespace

// Saving as a careful editor does (Qt's QSaveFile): the new text goes to a temporary file beside
// the target, is flushed to the disk (fsync), takes the target's mode and (as far as allowed) its
// owner, and then replaces the target by rename, so that a crash or a full disk leaves either the
// old or the new file, never a cut one. A symlink is followed: the file it points to is replaced,
// the link stays. A file with other hard links is rewritten in place (a rename would detach it from
// them), after its old text is copied aside, which is put back if the rewrite fails.
void saveScene(const Scene& scene, const std::string& path) {
  const std::string text = sceneToJson(scene);
  std::error_code ec;
  std::string target = path;
  if (std::filesystem::is_symlink(path, ec)) {
    const auto resolved = std::filesystem::canonical(path, ec);
    if (ec) throw SceneError(path + ": cannot follow the symbolic link: " + ec.message());
    target = resolved.string();
  }
  struct stat old{};
  const bool exists = ::stat(target.c_str(), &old) == 0;
  const mode_t mode = exists ? (old.st_mode & 07777) : 0666;  // new files: 0666 minus the umask

  if (exists && old.st_nlink > 1) {
    std::ifstream in(target, std::ios::binary);
    std::ostringstream prev;
    prev << in.rdbuf();
    if (!in) throw SceneError(path + ": cannot read the file before rewriting it");
    const std::string aside = target + ".tether-old";
    std::remove(aside.c_str());
    writeNewFile(aside, prev.str(), mode, path);
    const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    const bool ok = fd >= 0 && writeAllAndSync(fd, text);
    const std::string why = errnoText();
    if (fd >= 0 && ::close(fd) != 0 && ok) {
      throw SceneError(path + ": write failed: " + errnoText() + " (the previous text is in " + aside + ")");
    }
    if (!ok) {
      const int back = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
      const bool restored = back >= 0 && writeAllAndSync(back, prev.str());
      if (back >= 0) ::close(back);
      if (restored) std::remove(aside.c_str());
      throw SceneError(path + ": write failed: " + why +
                       (restored ? " (the file is as it was)" : " (the previous text is in " + aside + ")"));
    }
    std::remove(aside.c_str());
    return;
  }

  const std::string tmp = target + ".tmp-save";
  std::remove(tmp.c_str());
  writeNewFile(tmp, text, mode, path);
  if (exists) {
    ::chmod(tmp.c_str(), mode);                             // the umask may have cut it
    if (::chown(tmp.c_str(), old.st_uid, old.st_gid) != 0) {  // only root may give files away
      (void)::chown(tmp.c_str(), uid_t(-1), old.st_gid);   // keep the group if we can
    }
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const std::string why = errnoText();
    std::remove(tmp.c_str());
    throw SceneError(path + ": cannot replace file: " + why);
  }
  // the rename itself reaches the disk with the directory's entry
  const std::string dir = std::filesystem::path(target).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace tether::core
