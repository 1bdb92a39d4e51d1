#include "core/model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include "core/body.h"
#include "core/constraint.h"
#include "core/constraint_type.h"
#include "core/stability.h"
#include "core/validate.h"

namespace tether::core {

namespace {

// Name -> index of each kind of scene object, built once per compile (a linear search per
// reference made compiling a 10 000-link chain quadratic: 0.5 s). Names are unique per kind
// (validateScene); the first wins regardless.
class Lookup {
 public:
  explicit Lookup(const Scene& s)
      : bodies(build(s.bodies)), nails(build(s.nails)), paths(build(s.paths)), constraints(build(s.constraints)),
        forces(build(s.forces)) {}
  using Map = std::unordered_map<std::string, int>;
  // -1 if absent
  static int in(const Map& m, const std::string& name) {
    const auto it = m.find(name);
    return it == m.end() ? -1 : it->second;
  }
  const Map bodies, nails, paths, constraints, forces;

 private:
  template <typename T>
  static Map build(const std::vector<T>& v) {
    Map m;
    m.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) m.emplace(v[i].name, static_cast<int>(i));
    return m;
  }
};

// Resolve a validated point reference.
Anchor resolve(const Scene& s, const Lookup& names, const PointRef& r) {
  Anchor a;
  switch (r.kind) {
    case PointRef::Kind::BodyPoint:
    case PointRef::Kind::BodyLocal: {
      a.kind = Anchor::Kind::Body;
      a.index = Lookup::in(names.bodies, r.body);
      const BodyDef& b = s.bodies[static_cast<size_t>(a.index)];
      a.local = r.kind == PointRef::Kind::BodyLocal ? r.local : *findPoint(b, r.point);
      break;
    }
    case PointRef::Kind::Nail:
      a.kind = Anchor::Kind::World;
      a.local = s.nails[static_cast<size_t>(Lookup::in(names.nails, r.target))].position;
      break;
    case PointRef::Kind::Path:
      a.kind = Anchor::Kind::Path;
      a.index = Lookup::in(names.paths, r.target);
      break;
  }
  return a;
}

// Names to indices for the constraint types' compile (core/constraint_type.h).
class Resolver final : public ConstraintResolver {
 public:
  Resolver(const Scene& s, const Lookup& names) : m_scene(s), m_names(names) {}
  Anchor point(const PointRef& r) const override { return resolve(m_scene, m_names, r); }
  int body(const std::string& name) const override { return Lookup::in(m_names.bodies, name); }
  const BodyDef& bodyDef(const std::string& name) const override { return m_scene.bodies[size_t(body(name))]; }
  Vec3 nail(const std::string& name) const override {
    return m_scene.nails[size_t(Lookup::in(m_names.nails, name))].position;
  }
  int path(const std::string& name) const override { return Lookup::in(m_names.paths, name); }

 private:
  const Scene& m_scene;
  const Lookup& m_names;
};

ForceParams forceParams(const ForceDef& f) {
  ForceParams p;
  p.stiffness = f.stiffness;
  p.damping = f.damping;
  p.restLength = f.restLength;
  p.restAngle = f.restAngle;
  p.linear = f.linear;
  p.angular = f.angular;
  p.vector = f.vector;
  return p;
}

}  // namespace

Model compile(const Scene& s) {
  validateScene(s);
  const Lookup names(s);
  Model m;
  m.settings = s.settings;
  Params& p = m.initialParams;
  p.gravity = s.settings.gravity;
  p.gravityOn = s.settings.gravityOn;

  for (const BodyDef& b : s.bodies) {
    BodyModel bm;
    const MassProperties mp = massProperties(b);
    bm.mass = mp.mass;
    bm.inertia = mp.inertia;
    bm.fixed = b.fixed;
    bm.invMass = b.fixed ? 0.0 : 1.0 / mp.mass;
    bm.invInertia = b.fixed ? Vec3::Zero() : Vec3(mp.inertia.cwiseInverse());
    for (int k = 0; k < 3; ++k) {
      const double i1 = mp.inertia((k + 1) % 3), i2 = mp.inertia((k + 2) % 3), tol = 1e-12 * mp.inertia.maxCoeff();
      if (std::abs(i1 - i2) <= tol && std::abs(mp.inertia(k) - i1) > tol) bm.symmetryAxis = k;
    }
    bm.initial.x = b.position;
    bm.initial.q = b.orientation.normalized();
    if (!b.fixed) {
      // P = m v; L = I w with I = R I_body R^T (world)
      const Mat3 R = bm.initial.q.toRotationMatrix();
      bm.initial.P = mp.mass * b.velocity;
      bm.initial.L = rotateDiagonal(R, mp.inertia) * b.angularVelocity;
    }
    m.bodies.push_back(bm);
    m.bodyNames.push_back(b.name);
    p.bodyActive.push_back(b.active ? 1 : 0);
    p.bodyCollides.push_back(b.collides ? 1 : 0);
    p.bodyMaterial.push_back(Eigen::Vector4d(b.restitution, b.friction, b.staticFriction, b.rollingResistance));
  }
  m.contacts.enabled = s.settings.contacts;
  m.contacts.slop = s.settings.contactSlop;
  for (const BodyDef& b : s.bodies) {
    m.contacts.shapes.push_back(collisionBody(b));
  }
  for (const PlaneDef& pd : s.planes) {
    m.contacts.planes.push_back({.point = pd.point, .normal = pd.normal.normalized()});
    m.contacts.planeRestitution.push_back(pd.restitution);
    m.contacts.planeFriction.push_back(pd.friction);
    m.contacts.planeStaticFriction.push_back(pd.staticFriction);
    m.contacts.planeRollingResistance.push_back(pd.rollingResistance);
  }
  for (const PathDef& pd : s.paths) m.paths.emplace_back(pd);
  p.pathClock.assign(s.paths.size(), PathClock{});
  for (const ForceDef& f : s.forces) {
    ForceModel fm;
    fm.kind = f.kind;
    if (f.kind == ForceKind::Spring || f.kind == ForceKind::ConstantForce) fm.a = resolve(s, names, f.a);
    if (f.kind == ForceKind::Spring) fm.b = resolve(s, names, f.b);
    fm.bodyA = f.bodyA.empty() ? -1 : Lookup::in(names.bodies, f.bodyA);
    fm.bodyB = f.bodyB.empty() ? -1 : Lookup::in(names.bodies, f.bodyB);
    fm.axisA = f.axisA.normalized();
    fm.axisB = f.axisB.normalized();
    for (const std::string& n : f.bodies) fm.bodies.push_back(Lookup::in(names.bodies, n));
    m.forces.push_back(fm);
    m.forceNames.push_back(f.name);
    p.forceEnabled.push_back(f.enabled ? 1 : 0);
    p.force.push_back(forceParams(f));
  }
  const Resolver resolver(s, names);
  for (size_t i = 0; i < s.constraints.size(); ++i) {
    const ConstraintDef& c = s.constraints[i];
    const ConstraintParts parts = c.type().compile(c.params, resolver);
    m.constraintParts.push_back({static_cast<int>(m.constraints.size()), static_cast<int>(parts.size())});
    for (size_t k = 0; k < parts.size(); ++k) {
      const auto& part = parts[k];
      const auto& units = c.type().deviations;
      m.constraintUnit.push_back(k < units.size() ? units[k].unit : "m");
      m.constraints.push_back(part);
      m.constraintNames.push_back(c.name);
      m.constraintDef.push_back(static_cast<int>(i));
      p.constraintEnabled.push_back(c.enabled ? 1 : 0);
      p.tau.push_back(c.tau.value_or(s.settings.defaultTau));
    }
  }
  for (const EventDef& e : s.events) {
    EventModel em;
    em.time = e.time;
    em.action = e.action;
    em.param = e.param;
    for (size_t i = 0; i < e.value.size() && i < 3; ++i) em.value(static_cast<int>(i)) = e.value[i];
    if (e.target == "gravity") {
      em.target = EventModel::Target::Gravity;
    } else if (int i = Lookup::in(names.bodies, e.target); i >= 0) {
      em.target = EventModel::Target::Body;
      em.index = i;
    } else if (int j = Lookup::in(names.constraints, e.target); j >= 0) {
      em.target = EventModel::Target::Constraint;
      em.index = j;
    } else if (int k = Lookup::in(names.paths, e.target); k >= 0) {
      em.target = EventModel::Target::Path;
      em.index = k;
    } else {
      em.target = EventModel::Target::Force;
      em.index = Lookup::in(names.forces, e.target);
    }
    m.events.push_back(em);
  }
  std::stable_sort(m.events.begin(), m.events.end(),
                   [](const EventModel& a, const EventModel& b) { return a.time < b.time; });
  m.tautLink.assign(m.bodies.size(), 0);
  for (const std::string& name : allButStraightBodies(s))
    if (const int i = m.findBody(name); i >= 0) m.tautLink[size_t(i)] = 1;
  return m;
}

State Model::initialState() const {
  State st;
  st.t = 0.0;
  st.params = initialParams;
  for (const BodyModel& b : bodies) st.bodies.push_back(b.initial);
  st.memory.impulses.assign(constraints.size(), Vec3::Zero());
  st.memory.assembled.assign(constraints.size(), 0);
  st.memory.lastForce.assign(constraints.size(), Vec3::Zero());
  st.memory.spinTrend.dw.assign(bodies.size(), Vec3::Zero());
  st.nextEvent = 0;
  return st;
}

int Model::findBody(const std::string& name) const {
  auto it = std::find(bodyNames.begin(), bodyNames.end(), name);
  return it == bodyNames.end() ? -1 : static_cast<int>(it - bodyNames.begin());
}

int Model::findConstraint(const std::string& name) const {
  auto it = std::find(constraintNames.begin(), constraintNames.end(), name);
  return it == constraintNames.end() ? -1 : static_cast<int>(it - constraintNames.begin());
}

void applyEvent(const Model& model, const EventModel& e, State& st) {
  Params& p = st.params;
  const size_t i = static_cast<size_t>(e.index);
  switch (e.target) {
    case EventModel::Target::Gravity:
      if (e.action == EventAction::Set) p.gravity = e.value;
      else p.gravityOn = e.action == EventAction::Enable;
      break;
    case EventModel::Target::Body:
      // set: whether it collides, or a material coefficient (the contact stage reads them)
      if (e.action == EventAction::Set) {
        if (e.param == "collides") p.bodyCollides[i] = e.value.x() != 0.0 ? 1 : 0;
        else if (e.param == "restitution") p.bodyMaterial[i].x() = e.value.x();
        else if (e.param == "friction") p.bodyMaterial[i].y() = e.value.x();
        else if (e.param == "static_friction") p.bodyMaterial[i].z() = e.value.x();
        else if (e.param == "rolling_resistance") p.bodyMaterial[i].w() = e.value.x();
        break;
      }
      // create: the body appears with the pose and momenta its definition gives;
      // remove: it leaves the model, with every constraint and force that touches it
      p.bodyActive[i] = e.action == EventAction::Create ? 1 : 0;
      if (e.action == EventAction::Create) st.bodies[i] = model.bodies[i].initial;
      break;
    case EventModel::Target::Constraint: {
      // every part of the definition (e.index) alike
      const Model::PartRange r = model.constraintParts[i];
      for (int k = r.first; k < r.first + r.count; ++k) {
        if (e.action == EventAction::Set) p.tau[size_t(k)] = e.value.x();
        else p.constraintEnabled[size_t(k)] = e.action == EventAction::Enable;
      }
      break;
    }
    case EventModel::Target::Path: {
      // set speed: restart the path's clock from where it is, so the point does not jump
      PathClock& c = p.pathClock[i];
      c.tau0 = c.local(st.t);
      c.t0 = st.t;
      c.speed = e.value.x();
      break;
    }
    case EventModel::Target::Force: {
      if (e.action != EventAction::Set) {
        p.forceEnabled[i] = e.action == EventAction::Enable;
        break;
      }
      ForceParams& f = p.force[i];
      if (e.param == "stiffness") f.stiffness = e.value.x();
      else if (e.param == "damping") f.damping = e.value.x();
      else if (e.param == "rest_length") f.restLength = e.value.x();
      else if (e.param == "rest_angle") f.restAngle = e.value.x();
      else if (e.param == "linear") f.linear = e.value.x();
      else if (e.param == "angular") f.angular = e.value.x();
      else if (e.param == "force" || e.param == "torque") f.vector = e.value;
      break;
    }
  }
}

bool Model::driven() const {
  return !paths.empty() || std::any_of(constraints.begin(), constraints.end(), [](const auto& c) { return c->nonholonomic(); });
}

}  // namespace tether::core
