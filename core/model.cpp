#include "core/model.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "core/body.h"
#include "core/constraint.h"
#include "core/constraints/distance.h"
#include "core/constraints/orientation.h"
#include "core/constraints/point_on_line.h"
#include "core/constraints/point_on_plane.h"
#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_path.h"
#include "core/constraints/point_to_point.h"
#include "core/constraints/scalar_point_to_nail.h"
#include "core/constraints/sphere_to_sphere.h"
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

std::shared_ptr<const Constraint> makeConstraint(const Scene& s, const Lookup& names, const ConstraintDef& c) {
  auto nailPos = [&] { return s.nails[static_cast<size_t>(Lookup::in(names.nails, c.nail))].position; };
  auto resolve = [&](const PointRef& r) { return tether::core::resolve(s, names, r); };
  auto body = [&](const std::string& name) { return Lookup::in(names.bodies, name); };
  switch (c.kind) {
    case ConstraintKind::PointToNail: return std::make_shared<PointToNail>(resolve(c.a), nailPos());
    case ConstraintKind::ScalarPointToNail: return std::make_shared<ScalarPointToNail>(resolve(c.a), nailPos());
    case ConstraintKind::PointToPoint: return std::make_shared<PointToPoint>(resolve(c.a), resolve(c.b));
    case ConstraintKind::PointToPath: return std::make_shared<PointToPath>(resolve(c.a), Lookup::in(names.paths, c.path));
    case ConstraintKind::Distance: return std::make_shared<Distance>(resolve(c.a), resolve(c.b), c.length);
    case ConstraintKind::Orientation:
      return std::make_shared<Orientation>(body(c.bodyA), c.axis, c.direction);
    case ConstraintKind::PointOnLine: return std::make_shared<PointOnLine>(resolve(c.a), c.origin, c.direction);
    case ConstraintKind::PointOnPlane: return std::make_shared<PointOnPlane>(resolve(c.a), c.origin, c.normal);
    case ConstraintKind::SphereToSphere: {
      const int a = body(c.bodyA), b = body(c.bodyB);
      return std::make_shared<SphereToSphere>(a, b, s.bodies[size_t(a)].radius + s.bodies[size_t(b)].radius);
    }
  }
  return nullptr;
}

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
  for (const ConstraintDef& c : s.constraints) {
    m.constraints.push_back(makeConstraint(s, names, c));
    m.constraintNames.push_back(c.name);
    p.constraintEnabled.push_back(c.enabled ? 1 : 0);
    p.tau.push_back(c.tau.value_or(s.settings.defaultTau));
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
  return m;
}

State Model::initialState() const {
  State st;
  st.t = 0.0;
  st.params = initialParams;
  for (const BodyModel& b : bodies) st.bodies.push_back(b.initial);
  st.impulses.assign(constraints.size(), Vec3::Zero());
  st.assembled.assign(constraints.size(), 0);
  st.lastForce.assign(constraints.size(), Vec3::Zero());
  st.spinTrend.dw.assign(bodies.size(), Vec3::Zero());
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
      // create: the body appears with the pose and momenta its definition gives;
      // remove: it leaves the model, with every constraint and force that touches it
      p.bodyActive[i] = e.action == EventAction::Create ? 1 : 0;
      if (e.action == EventAction::Create) st.bodies[i] = model.bodies[i].initial;
      break;
    case EventModel::Target::Constraint:
      if (e.action == EventAction::Set) p.tau[i] = e.value.x();
      else p.constraintEnabled[i] = e.action == EventAction::Enable;
      break;
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

}  // namespace tether::core
