// The robustness corpus generator (see corpus.h). Each category's builder makes one scene from
// an Rng; the guard rails of the step's explicit parts are the only tuning:
//   - spring stiffness: h * omega < 1 with omega = sqrt(k / m_eff), m_eff the smaller effective
//     mass of its two end points (1 / (1/m + |r|^2 / I_min) for a point at arm r on a body);
//   - torsion springs likewise with the bodies' smallest principal moments;
//   - viscous damping: h * c_lin / m < 1 and h * c_ang / I_min < 1 for every damped body,
//     spring and torsion damping h * c / m_eff < 1.
// Nothing else is adjusted to make scenes pass.
#include "corpus.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/body.h"
#include "core/constraints/distance.h"
#include "core/constraints/orientation.h"
#include "core/constraints/point_on_line.h"
#include "core/constraints/point_on_plane.h"
#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_path.h"
#include "core/constraints/point_to_point.h"
#include "core/constraints/scalar_point_to_nail.h"
#include "core/constraints/sphere_to_sphere.h"
#include "core/scene_io.h"

namespace tether::robustness {

using core::BodyDef;
using core::ConstraintDef;
using core::EventAction;
using core::EventDef;
using core::ForceDef;
using core::ForceKind;
using core::PathDef;
using core::PathKind;
using core::PointRef;
using core::Scene;
using core::Shape;

constexpr double kPi = std::numbers::pi;
constexpr double kStep = 1e-3;  // the scenes' dt (the default), for the guard rails

// ---------------------------------------------------------------------------------------------
// Rng

double Rng::logUniform(double a, double b) { return a * std::exp(std::log(b / a) * uniform()); }

int Rng::integer(int lo, int hi) {
  const int n = hi - lo + 1;
  const int k = static_cast<int>(uniform() * n);
  return lo + std::min(k, n - 1);
}

double Rng::normal() {
  const double u1 = 1.0 - uniform();  // (0, 1]
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

Vec3 Rng::unitVector() {
  const double z = uniform(-1.0, 1.0);
  const double phi = uniform(0.0, 2.0 * kPi);
  const double s = std::sqrt(std::max(0.0, 1.0 - z * z));
  return Vec3(s * std::cos(phi), s * std::sin(phi), z);
}

Quat Rng::rotation() {
  const double u1 = uniform(), u2 = uniform(), u3 = uniform();
  const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
  Quat q(a * std::sin(2 * kPi * u2), a * std::cos(2 * kPi * u2), b * std::sin(2 * kPi * u3), b * std::cos(2 * kPi * u3));
  q.normalize();
  return q;
}

Vec3 Rng::perpendicular(const Vec3& n) {
  const Vec3 a = std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  const Vec3 e1 = n.cross(a).normalized();
  const Vec3 e2 = n.cross(e1);
  const double phi = uniform(0.0, 2.0 * kPi);
  return std::cos(phi) * e1 + std::sin(phi) * e2;
}

std::uint64_t sceneSeed(int id) {
  std::uint64_t z = 0x7e7e5eedULL * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

namespace {

// ---------------------------------------------------------------------------------------------
// Building blocks

struct Ctx {
  Scene& s;
  Rng& r;
  bool conservative = true;
  std::string note;
  std::optional<std::pair<Vec3, Vec3>> keepIn;  // contact scenes: the box the bodies must stay in

  void addNote(const std::string& n) { note += (note.empty() ? "" : ", ") + n; }

  // names as the app's Document::uniqueName makes them: prefix1, prefix2, ...
  std::string unique(const std::string& prefix) const {
    std::set<std::string> used;
    for (const auto& b : s.bodies) used.insert(b.name);
    for (const auto& n : s.nails) used.insert(n.name);
    for (const auto& p : s.paths) used.insert(p.name);
    for (const auto& f : s.forces) used.insert(f.name);
    for (const auto& c : s.constraints) used.insert(c.name);
    for (int i = 1;; ++i) {
      const std::string name = prefix + std::to_string(i);
      if (!used.count(name)) return name;
    }
  }

  BodyDef& body(const std::string& name) {
    for (BodyDef& b : s.bodies)
      if (b.name == name) return b;
    throw std::logic_error("corpus: no body " + name);
  }

  std::string add(BodyDef b) {
    if (b.name.empty()) b.name = unique(core::toString(b.shape));
    s.bodies.push_back(b);
    return s.bodies.back().name;
  }
  std::string nail(const Vec3& p) {
    const std::string n = unique("nail");
    s.nails.push_back({n, p});
    return n;
  }
  std::string constraint(ConstraintDef c) {
    if (c.name.empty()) c.name = unique(c.type().id);
    s.constraints.push_back(c);
    return s.constraints.back().name;
  }
  // a type's struct (PointOnLineDef, ...), named after its type
  std::string constraint(core::ConstraintParams p) { return constraint(ConstraintDef{.params = std::move(p)}); }
  std::string force(ForceDef f) {
    if (f.name.empty()) {
      const char* p = f.kind == ForceKind::Spring          ? "spring"
                      : f.kind == ForceKind::Damping       ? "damping"
                      : f.kind == ForceKind::TorsionSpring ? "torsion"
                                                           : "force";
      f.name = unique(p);
    }
    if ((f.kind == ForceKind::Spring || f.kind == ForceKind::TorsionSpring) && f.damping > 0.0) conservative = false;
    if (f.kind == ForceKind::Damping || f.kind == ForceKind::ConstantForce || f.kind == ForceKind::ConstantTorque)
      conservative = false;
    s.forces.push_back(f);
    return s.forces.back().name;
  }
  std::string path(PathDef p) {
    p.name = unique("path");
    s.paths.push_back(p);
    conservative = false;  // a moving path feeds energy in
    return s.paths.back().name;
  }
  void event(EventDef e) {
    s.events.push_back(e);
    conservative = false;
  }
};

PointRef bodyPoint(const std::string& body, const std::string& point) {
  PointRef r;
  r.kind = PointRef::Kind::BodyPoint;
  r.body = body;
  r.point = point;
  return r;
}
PointRef bodyLocal(const std::string& body, const Vec3& local) {
  PointRef r;
  r.kind = PointRef::Kind::BodyLocal;
  r.body = body;
  r.local = local;
  return r;
}
PointRef nailRef(const std::string& nail) {
  PointRef r;
  r.kind = PointRef::Kind::Nail;
  r.target = nail;
  return r;
}
PointRef pathRef(const std::string& path) {
  PointRef r;
  r.kind = PointRef::Kind::Path;
  r.target = path;
  return r;
}

Vec3 localOf(const BodyDef& b, const PointRef& r) {
  if (r.kind == PointRef::Kind::BodyLocal) return r.local;
  const auto p = core::findPoint(b, r.point);
  if (!p) throw std::logic_error("corpus: no point " + r.point);
  return *p;
}
Vec3 worldOf(const BodyDef& b, const Vec3& local) { return b.position + b.orientation * local; }
Vec3 worldOf(const BodyDef& b, const PointRef& r) { return worldOf(b, localOf(b, r)); }

// put the body's local point at `world` with orientation q
void place(BodyDef& b, const Vec3& local, const Vec3& world, const Quat& q) {
  b.orientation = q.normalized();
  b.position = world - b.orientation * local;
}

// a rotation taking localDir to worldDir, then rolled about worldDir
Quat alignTo(const Vec3& localDir, const Vec3& worldDir, double roll) {
  return (Eigen::AngleAxisd(roll, worldDir.normalized()) * Quat::FromTwoVectors(localDir, worldDir)).normalized();
}

core::MassProperties massOf(const BodyDef& b) { return core::massProperties(b); }
double minInertia(const BodyDef& b) { return massOf(b).inertia.minCoeff(); }
// the smallest effective mass of a body point (any direction): 1 / (1/m + |r|^2 / I_min)
double pointMass(const BodyDef& b, const Vec3& local) {
  const auto mp = massOf(b);
  return 1.0 / (1.0 / mp.mass + local.squaredNorm() / mp.inertia.minCoeff());
}

BodyDef rodDef(double length, double radius, double density) {
  BodyDef b;
  b.shape = Shape::Rod;
  b.length = length;
  b.radius = radius;
  b.density = density;
  return b;
}

Shape randomShape(Rng& r) {
  static const Shape all[] = {Shape::Rod, Shape::Sphere, Shape::Torus, Shape::Box};
  return all[r.integer(0, 3)];
}

// A body of characteristic size `size` (m): rod length, sphere and torus diameter, box's
// longest extent. Rod radius/length log-uniform in [1/300, 1/2]; box aspect up to 1:100.
BodyDef randomBody(Rng& r, Shape shape, double size, double density) {
  BodyDef b;
  b.shape = shape;
  b.density = density;
  switch (shape) {
    case Shape::Rod:
      b.length = size;
      b.radius = size * r.logUniform(1.0 / 300.0, 0.5);
      break;
    case Shape::Sphere: b.radius = 0.5 * size; break;
    case Shape::Torus:
      b.majorRadius = 0.5 * size;
      b.minorRadius = b.majorRadius * r.uniform(0.05, 0.6);
      break;
    case Shape::Box: {
      const double aspect = r.logUniform(1.0, 100.0);
      double e[3] = {size, size / aspect, size * r.logUniform(1.0 / aspect, 1.0)};
      // shuffle the axes
      for (int i = 2; i > 0; --i) std::swap(e[i], e[r.integer(0, i)]);
      b.size = Vec3(e[0], e[1], e[2]);
      break;
    }
  }
  return b;
}

double randomDensity(Rng& r) { return r.logUniform(200.0, 8000.0); }

// A point off the centre to hang a body from: one of its named control points (not the
// centre), or (one time in three) a body-local point on or inside the shape.
PointRef randomAttach(Rng& r, const BodyDef& b) {
  if (r.chance(0.67)) {
    std::vector<std::string> names;
    for (const auto& p : core::shapePoints(b))
      if (p.name != "center") names.push_back(p.name);
    return bodyPoint(b.name, names[size_t(r.integer(0, int(names.size()) - 1))]);
  }
  Vec3 half;
  switch (b.shape) {
    case Shape::Rod: half = Vec3(b.radius, b.radius, 0.5 * b.length); break;
    case Shape::Sphere: half = Vec3::Constant(b.radius); break;
    case Shape::Torus: half = Vec3(b.majorRadius + b.minorRadius, b.majorRadius + b.minorRadius, b.minorRadius); break;
    case Shape::Box: half = 0.5 * b.size; break;
  }
  Vec3 u = r.unitVector();
  if (b.shape == Shape::Box || b.shape == Shape::Rod) u /= u.cwiseAbs().maxCoeff();  // on the box's surface
  Vec3 local = half.cwiseProduct(u) * r.uniform(0.5, 1.0);
  if (local.norm() < 1e-3 * half.maxCoeff()) local = Vec3(0, 0, half.z());
  return bodyLocal(b.name, local);
}

// Two far-apart points of a link (where its parent and its child attach).
std::pair<PointRef, PointRef> linkPoints(Rng& r, const BodyDef& b) {
  switch (b.shape) {
    case Shape::Rod:
      if (r.chance(0.8)) return {bodyPoint(b.name, "end1"), bodyPoint(b.name, "end2")};
      return {bodyLocal(b.name, Vec3(0, 0, -0.5 * b.length * r.uniform(0.5, 1.0))),
              bodyLocal(b.name, Vec3(0, 0, 0.5 * b.length * r.uniform(0.5, 1.0)))};
    case Shape::Sphere: {
      static const char* pairs[3][2] = {{"top", "bottom"}, {"left", "right"}, {"front", "back"}};
      const int k = r.integer(0, 2);
      return {bodyPoint(b.name, pairs[k][0]), bodyPoint(b.name, pairs[k][1])};
    }
    case Shape::Torus:
      if (r.chance(0.5)) return {bodyPoint(b.name, "west"), bodyPoint(b.name, "east")};
      return {bodyPoint(b.name, "south"), bodyPoint(b.name, "north")};
    case Shape::Box: {
      if (r.chance(0.6)) {
        const int c = r.integer(0, 7);
        return {bodyPoint(b.name, "corner" + std::to_string(c)), bodyPoint(b.name, "corner" + std::to_string(7 - c))};
      }
      static const char* pairs[3][2] = {{"bottom", "top"}, {"left", "right"}, {"front", "back"}};
      const int k = r.integer(0, 2);
      return {bodyPoint(b.name, pairs[k][0]), bodyPoint(b.name, pairs[k][1])};
    }
  }
  return {};
}

ConstraintDef pointToNail(const PointRef& p, const std::string& nail) {
  return {.params = core::PointToNailDef{.point = p, .nail = nail}};
}
ConstraintDef pointToPoint(const PointRef& a, const PointRef& b) {
  return {.params = core::PointToPointDef{.a = a, .b = b}};
}

// ω about `axis` (world, unit) of magnitude w; the velocity makes `pin` (world) a point at rest
// when `consistent`, else the centre of mass starts at rest (what a user typing ω gets).
void setSpin(BodyDef& b, const Vec3& axis, double w, const Vec3* pin, bool consistent) {
  b.angularVelocity = w * axis.normalized();
  b.velocity = (pin && consistent) ? Vec3(b.angularVelocity.cross(b.position - *pin)) : Vec3::Zero();
}

// A high spin (>= 50 rad/s) of a body: about a random axis, or exactly about a rod's long
// axis / a principal axis.
void highSpin(Ctx& c, BodyDef& b, const Vec3* pin) {
  Rng& r = c.r;
  const double w = r.logUniform(50.0, 250.0);
  Vec3 axis;
  if (b.shape == Shape::Rod && r.chance(0.5)) {
    axis = b.orientation * Vec3::UnitZ();
    c.addNote("spin " + std::to_string(int(w)) + " rad/s about " + b.name + "'s long axis");
  } else if (r.chance(0.25)) {
    axis = b.orientation * Vec3::Unit(r.integer(0, 2));
    c.addNote("spin " + std::to_string(int(w)) + " rad/s about a principal axis of " + b.name);
  } else {
    axis = r.unitVector();
    c.addNote("spin " + std::to_string(int(w)) + " rad/s of " + b.name);
  }
  setSpin(b, axis, w, pin, r.chance(0.5));
}

// Gentle random motion consistent with a pin.
void gentleMotion(Rng& r, BodyDef& b, const Vec3* pin, double wmax = 3.0) {
  b.angularVelocity = r.unitVector() * r.uniform(0.0, wmax);
  b.velocity = pin ? Vec3(b.angularVelocity.cross(b.position - *pin)) : Vec3(r.unitVector() * r.uniform(0.0, 1.0));
}

// Move and turn bodies away from where their constraints want them (assembly).
void scatter(Ctx& c, const std::vector<std::string>& bodies, double dist, double maxAngle) {
  for (const auto& n : bodies) {
    BodyDef& b = c.body(n);
    b.position += c.r.unitVector() * dist * c.r.uniform(0.2, 1.0);
    b.orientation = (Eigen::AngleAxisd(c.r.uniform(0.0, maxAngle), c.r.unitVector()) * b.orientation).normalized();
  }
  c.addNote("scattered");
}

Vec3 randomNailPos(Rng& r) { return Vec3(r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(1.0, 3.0)); }

// Guard rails (see the top of the file): stiffness for h * omega = hw with m_eff.
double stiffnessFor(double hw, double mEff) { return mEff * (hw / kStep) * (hw / kStep); }

// A serial chain hanging from a nail. Each link's parent point sits on the previous link's
// child point; the link points along a direction from a random walk with a drift (generic 3D).
struct Serial {
  std::vector<std::string> bodies;
  std::vector<std::pair<PointRef, PointRef>> points;  // parent side, child side
  std::vector<std::string> joints;                      // constraint names
  std::string nail;
  Vec3 end;                                             // where the last child point is
};

struct SerialSpec {
  int n = 3;
  std::function<BodyDef(int)> makeLink;
  double drift = 0.3;           // horizontal drift of the walk (0: none)
  double wander = 1.0;          // random part of the walk direction
  bool alignLinks = true;       // link's points along the walk direction (else random rotation)
  Vec3 nailPos = Vec3(0, 0, 2);
  // rods held at their two ends, whatever linkPoints drew (its draws are made all the same)
  bool wholeRods = false;
};

Serial buildSerial(Ctx& c, const SerialSpec& spec) {
  Rng& r = c.r;
  Serial out;
  out.nail = c.nail(spec.nailPos);
  Vec3 anchor = spec.nailPos;
  const Vec3 driftDir = r.perpendicular(Vec3::UnitZ());
  for (int i = 0; i < spec.n; ++i) {
    BodyDef b = spec.makeLink(i);
    b.name = c.unique(core::toString(b.shape));
    auto pts = linkPoints(r, b);
    if (spec.wholeRods && b.shape == Shape::Rod) pts = {bodyPoint(b.name, "end1"), bodyPoint(b.name, "end2")};
    const Vec3 la = localOf(b, pts.first), lb = localOf(b, pts.second);
    Quat q;
    if (spec.alignLinks && (lb - la).norm() > 1e-9) {
      Vec3 dir = -Vec3::UnitZ() * r.uniform(0.0, 1.0) + spec.drift * driftDir + spec.wander * r.unitVector();
      if (dir.norm() < 1e-6) dir = -Vec3::UnitZ();
      q = alignTo(lb - la, dir.normalized(), r.uniform(0.0, 2 * kPi));
    } else {
      q = r.rotation();
    }
    place(b, la, anchor, q);
    anchor = worldOf(b, lb);
    out.bodies.push_back(c.add(b));
    out.points.push_back(pts);
    if (i == 0)
      out.joints.push_back(c.constraint(pointToNail(pts.first, out.nail)));
    else
      out.joints.push_back(c.constraint(pointToPoint(out.points[size_t(i) - 1].second, pts.first)));
  }
  out.end = anchor;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Categories

void pendulum(Ctx& c) {
  Rng& r = c.r;
  BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.1, 1.5), randomDensity(r));
  b.name = c.unique(core::toString(b.shape));
  const PointRef pin = randomAttach(r, b);
  const Vec3 nailPos = randomNailPos(r);
  place(b, localOf(b, pin), nailPos, r.rotation());
  c.addNote(std::string(core::toString(b.shape)) + " pendulum pinned at " +
            (pin.kind == PointRef::Kind::BodyPoint ? pin.point : std::string("a local point")));
  if (r.chance(0.35))
    highSpin(c, b, &nailPos);
  else
    gentleMotion(r, b, &nailPos);
  const std::string name = c.add(b);
  c.constraint(pointToNail(pin, c.nail(nailPos)));
  if (r.chance(0.3)) scatter(c, {name}, r.logUniform(0.01, 0.8), kPi);
}

void multiPendulum(Ctx& c) {
  Rng& r = c.r;
  SerialSpec spec;
  spec.n = r.chance(0.5) ? 2 : 3;
  spec.alignLinks = r.chance(0.5);
  spec.nailPos = randomNailPos(r);
  spec.makeLink = [&](int) { return randomBody(r, randomShape(r), r.logUniform(0.1, 1.0), randomDensity(r)); };
  Serial s = buildSerial(c, spec);
  c.addNote(spec.n == 2 ? "double pendulum" : "triple pendulum");
  // every link starts moving consistently with the joints: the chain turns as a rigid whole
  const Vec3 w = r.unitVector() * r.uniform(0.0, 3.0);
  for (const auto& n : s.bodies) {
    BodyDef& b = c.body(n);
    b.angularVelocity = w;
    b.velocity = w.cross(b.position - spec.nailPos);
  }
  if (r.chance(0.25)) {
    BodyDef& b = c.body(s.bodies[size_t(r.integer(0, spec.n - 1))]);
    highSpin(c, b, nullptr);
  }
  if (r.chance(0.2)) scatter(c, s.bodies, r.logUniform(0.01, 0.5), 1.0);
}

void chain(Ctx& c) {
  Rng& r = c.r;
  SerialSpec spec;
  spec.n = std::clamp(int(std::lround(r.logUniform(2.0, 50.0))), 2, 50);
  const double linkSize = r.logUniform(0.05, 0.4);
  const int kind = r.integer(0, 9);  // rods, tori, boxes, mixed
  const double density = randomDensity(r);
  const double aspect = r.logUniform(1.0 / 300.0, 0.5);
  spec.makeLink = [&, kind](int) {
    Shape sh = kind < 5 ? Shape::Rod : kind < 7 ? Shape::Torus : kind < 8 ? Shape::Box : randomShape(r);
    if (sh == Shape::Rod && kind < 5) return rodDef(linkSize, linkSize * aspect, density);
    return randomBody(r, sh, linkSize, density);
  };
  spec.drift = r.uniform(0.0, 1.0);
  spec.wander = r.uniform(0.3, 1.0);
  spec.nailPos = Vec3(r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(2.0, 5.0));
  Serial s = buildSerial(c, spec);
  const char* kinds[] = {"rod", "rod", "rod", "rod", "rod", "torus", "torus", "box", "mixed", "mixed"};
  c.addNote(std::to_string(spec.n) + "-link " + kinds[kind] + " chain");
  if (r.chance(0.5)) {
    // between two nails: the second nail where the last link ends (the chain hangs slack)
    const std::string n2 = c.nail(s.end);
    c.constraint(pointToNail(s.points.back().second, n2));
    c.addNote("between two nails");
  } else {
    c.addNote("from one nail");
  }
  if (r.chance(0.15)) scatter(c, s.bodies, r.logUniform(0.01, 0.3), 0.5);
}

void spinning(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 9);
  if (variant < 2) {
    // free body, random axis
    BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.05, 1.0), randomDensity(r));
    b.position = Vec3(0, 0, 1);
    b.orientation = r.rotation();
    b.name = c.unique(core::toString(b.shape));
    setSpin(b, r.unitVector(), r.logUniform(50.0, 300.0), nullptr, false);
    b.velocity = r.unitVector() * r.uniform(0.0, 2.0);
    c.addNote("free spinning " + std::string(core::toString(b.shape)));
    c.add(b);
  } else if (variant < 4) {
    // free body about a principal axis exactly: thin rod's long axis, box's intermediate axis
    BodyDef b;
    if (variant == 2) {
      b = rodDef(r.logUniform(0.05, 1.0), 0, randomDensity(r));
      b.radius = b.length * r.logUniform(1.0 / 300.0, 1.0 / 30.0);
    } else {
      b = randomBody(r, Shape::Box, r.logUniform(0.05, 1.0), randomDensity(r));
    }
    b.orientation = r.rotation();
    b.position = Vec3(0, 0, 1);
    b.name = c.unique(core::toString(b.shape));
    int axis = 2;
    if (variant == 3) {  // the intermediate principal axis
      const Vec3 I = massOf(b).inertia;
      int lo = 0, hi = 0;
      for (int k = 1; k < 3; ++k) {
        if (I(k) < I(lo)) lo = k;
        if (I(k) > I(hi)) hi = k;
      }
      axis = 3 - lo - hi;
      if (lo == hi) axis = 0;
    }
    setSpin(b, b.orientation * Vec3::Unit(axis), r.logUniform(50.0, 300.0), nullptr, false);
    c.addNote(variant == 2 ? "free thin rod spinning exactly about its long axis"
                           : "free box spinning about its intermediate axis");
    c.add(b);
  } else if (variant < 8) {
    // heavy top: pinned on its symmetry axis (local z) off the centre, spinning about it
    const Shape sh = variant == 4 ? Shape::Rod : variant == 5 ? Shape::Torus : variant == 6 ? Shape::Box : Shape::Sphere;
    BodyDef b = randomBody(r, sh, r.logUniform(0.1, 0.8), randomDensity(r));
    if (sh == Shape::Box) b.size.y() = b.size.x();  // square cross-section: symmetric top
    b.name = c.unique(core::toString(sh));
    double h = 0.0;
    switch (sh) {
      case Shape::Rod: h = 0.5 * b.length; break;
      case Shape::Torus: h = b.majorRadius * r.uniform(0.2, 1.0); break;
      case Shape::Box: h = 0.5 * b.size.z(); break;
      case Shape::Sphere: h = b.radius; break;
    }
    const Vec3 local(0, 0, -h);
    const Vec3 nailPos = randomNailPos(r);
    const Vec3 up = (Vec3::UnitZ() + r.unitVector() * r.uniform(0.0, 1.5)).normalized();
    place(b, local, nailPos, alignTo(Vec3::UnitZ(), r.chance(0.3) ? Vec3(-up) : up, r.uniform(0, 2 * kPi)));
    setSpin(b, b.orientation * Vec3::UnitZ(), r.logUniform(50.0, 300.0), &nailPos, r.chance(0.7));
    c.addNote("heavy " + std::string(core::toString(sh)) + " top spinning about its axis");
    c.add(b);
    c.constraint(pointToNail(bodyLocal(b.name, local), c.nail(nailPos)));
  } else {
    // a rod spinning about its long axis inside a swinging double pendulum
    SerialSpec spec;
    spec.n = 2;
    spec.nailPos = randomNailPos(r);
    spec.makeLink = [&](int) { return rodDef(r.logUniform(0.2, 1.0), 0.0, randomDensity(r)); };
    auto mk = spec.makeLink;
    spec.makeLink = [&, mk](int i) {
      BodyDef b = mk(i);
      b.radius = b.length * r.logUniform(1.0 / 300.0, 0.5);
      return b;
    };
    Serial s = buildSerial(c, spec);
    BodyDef& b = c.body(s.bodies[size_t(r.integer(0, 1))]);
    const Vec3 pin = worldOf(b, localOf(b, s.points[b.name == s.bodies[0] ? 0 : 1].first));
    setSpin(b, b.orientation * Vec3::UnitZ(), r.logUniform(50.0, 250.0), &pin, true);
    c.addNote("double rod pendulum, " + b.name + " spinning about its long axis");
  }
}

void massRatio(Ctx& c) {
  Rng& r = c.r;
  SerialSpec spec;
  spec.n = r.integer(2, 6);
  spec.nailPos = randomNailPos(r);
  const double ratio = r.logUniform(100.0, 1000.0);
  const int special = r.chance(0.5) ? spec.n - 1 : r.integer(0, spec.n - 1);
  const bool heavy = r.chance(0.6);
  const double baseMass = r.logUniform(0.01, 5.0);
  spec.makeLink = [&](int i) {
    BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.1, 0.8), 1000.0);
    const double m = baseMass * (i == special ? (heavy ? ratio : 1.0 / ratio) : r.uniform(0.8, 1.25));
    b.density = m / (massOf(b).mass / b.density);
    return b;
  };
  spec.alignLinks = r.chance(0.6);
  Serial s = buildSerial(c, spec);
  c.addNote(std::to_string(spec.n) + "-body pendulum, body " + std::to_string(special) + " " +
            (heavy ? "heavier" : "lighter") + " by " + std::to_string(int(ratio)));
  const Vec3 w = r.unitVector() * r.uniform(0.0, 2.0);
  for (const auto& n : s.bodies) {
    BodyDef& b = c.body(n);
    b.angularVelocity = w;
    b.velocity = w.cross(b.position - spec.nailPos);
  }
  if (r.chance(0.2)) highSpin(c, c.body(s.bodies[size_t(special)]), nullptr);
}

void slider(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 4);
  if (variant == 0) {
    // crane: a bead on a horizontal line (generic azimuth), a body hanging from it
    BodyDef bead = randomBody(r, r.chance(0.5) ? Shape::Sphere : Shape::Box, r.logUniform(0.05, 0.3), randomDensity(r));
    bead.name = c.unique(core::toString(bead.shape));
    bead.orientation = r.rotation();
    bead.position = randomNailPos(r);
    const Vec3 dir = r.perpendicular(Vec3::UnitZ());
    core::PointOnLineDef line;
    line.point = bodyPoint(bead.name, "center");
    line.origin = bead.position + r.uniform(-0.3, 0.3) * dir;
    line.direction = dir;
    c.add(bead);
    c.constraint(line);
    BodyDef load = randomBody(r, randomShape(r), r.logUniform(0.1, 1.0), randomDensity(r));
    load.name = c.unique(core::toString(load.shape));
    const PointRef la = randomAttach(r, load);
    const PointRef ba = r.chance(0.5) ? bodyPoint(bead.name, "center") : randomAttach(r, c.body(bead.name));
    place(load, localOf(load, la), worldOf(c.body(bead.name), ba), r.rotation());
    gentleMotion(r, load, nullptr, 2.0);
    c.add(load);
    c.constraint(pointToPoint(ba, la));
    c.addNote("crane: " + std::string(core::toString(load.shape)) + " under a bead on a horizontal line");
  } else if (variant == 1 || variant == 2) {
    // a rod pinned at one end, its other end on a line (a hinge) or on a plane through it
    BodyDef b = rodDef(r.logUniform(0.2, 1.5), 0, randomDensity(r));
    b.radius = b.length * r.logUniform(1.0 / 300.0, 0.5);
    b.name = c.unique("rod");
    const Vec3 nailPos = randomNailPos(r);
    place(b, localOf(b, bodyPoint(b.name, "end1")), nailPos, r.rotation());
    const Vec3 tip = worldOf(b, bodyPoint(b.name, "end2"));
    core::ConstraintParams k;
    if (variant == 1) {
      core::PointOnLineDef line{.point = bodyPoint(b.name, "end2")};
      line.direction = r.unitVector();
      line.origin = tip - r.uniform(-1, 1) * line.direction;  // the line passes through the tip
      k = line;
      c.addNote("rod pinned at end1, end2 on a line (a hinge about nail-tip)");
      gentleMotion(r, b, &nailPos);
      // rotation about the nail-tip axis only (consistent with both constraints)
      const Vec3 axis = (tip - nailPos).normalized();
      b.angularVelocity = axis * r.uniform(-5.0, 5.0);
      b.velocity = b.angularVelocity.cross(b.position - nailPos);
    } else {
      k = core::PointOnPlaneDef{.point = bodyPoint(b.name, "end2"), .origin = tip, .normal = r.unitVector()};
      c.addNote("rod pinned at end1, end2 on a plane");
      b.angularVelocity = Vec3::Zero();
      b.velocity = Vec3::Zero();
    }
    c.add(b);
    c.constraint(pointToNail(bodyPoint(b.name, "end1"), c.nail(nailPos)));
    c.constraint(k);
    if (r.chance(0.3)) highSpin(c, c.body(b.name), &nailPos);
  } else if (variant == 3) {
    // a puck: a box with three bottom corners on a horizontal plane, sliding and spinning
    BodyDef b = randomBody(r, Shape::Box, r.logUniform(0.1, 1.0), randomDensity(r));
    b.name = c.unique("box");
    b.orientation = Quat(Eigen::AngleAxisd(r.uniform(0, 2 * kPi), Vec3::UnitZ()));
    b.position = Vec3(r.uniform(-1, 1), r.uniform(-1, 1), 0.5 * b.size.z());
    b.velocity = r.perpendicular(Vec3::UnitZ()) * r.uniform(0.0, 1.0);
    b.angularVelocity = Vec3::UnitZ() * (r.chance(0.4) ? r.logUniform(50.0, 200.0) : r.uniform(-5.0, 5.0));
    c.add(b);
    for (const char* corner : {"corner0", "corner1", "corner2"}) {
      core::PointOnPlaneDef k;
      k.point = bodyPoint(b.name, corner);
      k.origin = Vec3::Zero();
      k.normal = Vec3::UnitZ();
      c.constraint(k);
    }
    c.addNote("box puck on a horizontal plane (3 corners), spin " + std::to_string(int(b.angularVelocity.z())));
  } else {
    // a bead on a tilted line, held by a spring to a nail off the line
    BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.05, 0.5), randomDensity(r));
    b.name = c.unique(core::toString(b.shape));
    b.orientation = r.rotation();
    b.position = randomNailPos(r);
    const Vec3 dir = r.unitVector();
    core::PointOnLineDef k;
    k.point = bodyPoint(b.name, "center");
    k.origin = b.position;
    k.direction = dir;
    c.add(b);
    c.constraint(k);
    const Vec3 nailPos = b.position + r.perpendicular(dir) * r.uniform(0.1, 1.0) + dir * r.uniform(-0.5, 0.5);
    ForceDef f;
    f.kind = ForceKind::Spring;
    f.a = nailRef(c.nail(nailPos));
    f.b = bodyPoint(b.name, "center");
    const double m = massOf(b).mass;
    // stiff enough to hold it against gravity along the line: k > m g / 0.5 m
    f.stiffness = std::max(m * 9.81 / 0.5, stiffnessFor(r.logUniform(0.01, 0.3), m));
    f.stiffness = std::min(f.stiffness, stiffnessFor(0.9, m));
    f.restLength = r.uniform(0.0, 0.5);
    c.force(f);
    b.angularVelocity = r.unitVector() * r.uniform(0.0, 5.0);
    c.body(b.name).angularVelocity = b.angularVelocity;
    c.addNote("bead on a tilted line with a spring to a nail");
  }
}

void orientation(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 2);
  BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.1, 1.0), randomDensity(r));
  b.name = c.unique(core::toString(b.shape));
  const Vec3 nailPos = randomNailPos(r);
  core::OrientationDef o;
  o.body = b.name;
  const bool aligned = r.chance(0.6);
  if (variant == 0) {
    // turntable: pinned at its centre, an axis held along a direction, spinning about it
    o.axis = r.chance(0.5) ? Vec3::Unit(r.integer(0, 2)) : r.unitVector();
    o.direction = r.unitVector();
    const Quat q = aligned ? alignTo(o.axis, o.direction, r.uniform(0, 2 * kPi)) : r.rotation();
    place(b, Vec3::Zero(), nailPos, q);
    const double w = r.chance(0.5) ? r.logUniform(50.0, 200.0) : r.uniform(0.0, 5.0);
    b.angularVelocity = o.direction * w;
    c.add(b);
    c.constraint(pointToNail(bodyPoint(b.name, "center"), c.nail(nailPos)));
    c.addNote(std::string("turntable ") + core::toString(b.shape) + (aligned ? "" : ", misaligned") + ", spin " +
              std::to_string(int(w)));
  } else if (variant == 1) {
    // hinge pendulum: pinned off-centre, an axis held along a horizontal direction
    const PointRef pin = randomAttach(r, b);
    const Vec3 local = localOf(b, pin);
    o.axis = r.perpendicular(local.normalized());
    o.direction = r.perpendicular(Vec3::UnitZ());
    const Quat q = aligned ? alignTo(o.axis, o.direction, r.uniform(0, 2 * kPi)) : r.rotation();
    place(b, local, nailPos, q);
    b.angularVelocity = o.direction * r.uniform(-4.0, 4.0);
    b.velocity = b.angularVelocity.cross(b.position - nailPos);
    c.add(b);
    c.constraint(pointToNail(pin, c.nail(nailPos)));
    c.addNote(std::string("hinge pendulum ") + core::toString(b.shape) + (aligned ? "" : ", misaligned"));
  } else {
    // docking: the centre on a horizontal line, an axis held along a direction
    o.axis = r.unitVector();
    o.direction = r.unitVector();
    const Quat q = aligned ? alignTo(o.axis, o.direction, r.uniform(0, 2 * kPi)) : r.rotation();
    place(b, Vec3::Zero(), nailPos, q);
    core::PointOnLineDef line;
    line.point = bodyPoint(b.name, "center");
    line.direction = r.perpendicular(Vec3::UnitZ());
    line.origin = nailPos + r.uniform(-0.5, 0.5) * line.direction + (aligned ? Vec3::Zero() : Vec3(r.unitVector() * 0.2));
    b.velocity = line.direction * r.uniform(-1.0, 1.0);
    b.angularVelocity = o.direction * r.uniform(-3.0, 3.0);
    c.add(b);
    c.constraint(line);
    c.addNote(std::string("docking ") + core::toString(b.shape) + " on a line" + (aligned ? "" : ", misaligned"));
  }
  c.constraint(o);
}

void sphereContact(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 2);
  int made = 0;
  auto sphere = [&](double radius) {
    BodyDef b;
    b.shape = Shape::Sphere;
    b.radius = radius;
    b.density = randomDensity(r);
    b.name = "sphere" + std::to_string(++made);
    return b;
  };
  auto contact = [&](const std::string& a, const std::string& b) {
    core::SphereToSphereDef k;
    k.bodyA = a;
    k.bodyB = b;
    c.constraint(k);
  };
  if (variant == 0) {
    // a ball kept on a fixed sphere (bilateral: it orbits over and under it)
    BodyDef big = sphere(r.logUniform(0.2, 1.0));
    big.fixed = true;
    big.position = Vec3(r.uniform(-1, 1), r.uniform(-1, 1), 1.5);
    BodyDef ball = sphere(r.logUniform(0.03, 0.3));
    const Vec3 n = (Vec3::UnitZ() + r.unitVector()).normalized();
    ball.position = big.position + n * (big.radius + ball.radius) * (r.chance(0.7) ? 1.0 : r.uniform(1.05, 1.5));
    ball.orientation = r.rotation();
    ball.velocity = r.perpendicular(n) * r.uniform(0.0, 2.0);
    ball.angularVelocity = r.chance(0.3) ? Vec3(r.unitVector() * r.logUniform(50.0, 200.0)) : Vec3::Zero();
    c.add(big);
    c.add(ball);
    contact(big.name, ball.name);
    c.addNote("ball on a fixed sphere");
  } else {
    // spheres hanging in a stack: the first pinned to a nail (at its top or its centre), each
    // next one touching the previous
    const int n = variant == 1 ? 2 : 3;
    const Vec3 nailPos = randomNailPos(r);
    std::vector<std::string> names;
    Vec3 prevPos;
    double prevR = 0;
    for (int i = 0; i < n; ++i) {
      BodyDef s = sphere(r.logUniform(0.05, 0.4));
      s.orientation = r.rotation();
      if (i == 0) {
        const bool centre = r.chance(0.4);
        place(s, centre ? Vec3::Zero() : Vec3(s.orientation.inverse() * Vec3(r.unitVector() * s.radius)), nailPos,
              s.orientation);
        c.add(s);
        c.constraint(pointToNail(bodyLocal(s.name, s.orientation.inverse() * (nailPos - s.position)), c.nail(nailPos)));
      } else {
        const Vec3 dir = (-Vec3::UnitZ() + r.unitVector() * 1.2).normalized();
        s.position = prevPos + dir * (prevR + s.radius);
        s.velocity = r.perpendicular(dir) * r.uniform(0.0, 1.0);
        c.add(s);
        contact(names.back(), s.name);
      }
      names.push_back(s.name);
      prevPos = s.position;
      prevR = s.radius;
    }
    c.addNote(std::to_string(n) + " spheres hanging, touching");
  }
}

void distance(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 9);
  if (variant < 3) {
    // string pendulum: a distance constraint from a nail
    BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.05, 0.8), randomDensity(r));
    b.name = c.unique(core::toString(b.shape));
    const PointRef p = r.chance(0.5) ? bodyPoint(b.name, "center") : randomAttach(r, b);
    const Vec3 nailPos = randomNailPos(r);
    const double len = r.logUniform(0.1, 2.0);
    place(b, localOf(b, p), nailPos + r.unitVector() * len * (r.chance(0.7) ? 1.0 : r.uniform(0.5, 1.5)), r.rotation());
    gentleMotion(r, b, nullptr, 2.0);
    c.add(b);
    core::DistanceDef k;
    k.a = nailRef(c.nail(nailPos));
    k.b = p;
    k.length = len;
    c.constraint(k);
    c.addNote("string pendulum (distance to a nail)");
  } else if (variant < 6) {
    // two bodies: the first on a string from a nail, the second on a string from the first
    const Vec3 nailPos = randomNailPos(r);
    std::string prevNail = c.nail(nailPos);
    Vec3 prevPoint = nailPos;
    PointRef prevRef = nailRef(prevNail);
    for (int i = 0; i < 2; ++i) {
      BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.05, 0.6), randomDensity(r));
      b.name = c.unique(core::toString(b.shape));
      const auto pts = linkPoints(r, b);
      const double len = r.logUniform(0.1, 1.0);
      place(b, localOf(b, pts.first), prevPoint + r.unitVector() * len, r.rotation());
      c.add(b);
      core::DistanceDef k;
      k.a = prevRef;
      k.b = pts.first;
      k.length = len;
      c.constraint(k);
      prevRef = pts.second;
      prevPoint = worldOf(c.body(b.name), pts.second);
    }
    c.addNote("double string pendulum (distance constraints)");
  } else if (variant < 7) {
    // a rod pendulum with a second body held at a distance from the rod's tip
    BodyDef rod = rodDef(r.logUniform(0.3, 1.2), 0, randomDensity(r));
    rod.radius = rod.length * r.logUniform(1.0 / 300.0, 0.5);
    rod.name = c.unique("rod");
    const Vec3 nailPos = randomNailPos(r);
    place(rod, localOf(rod, bodyPoint(rod.name, "end1")), nailPos, r.rotation());
    c.add(rod);
    c.constraint(pointToNail(bodyPoint(rod.name, "end1"), c.nail(nailPos)));
    BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.05, 0.5), randomDensity(r));
    b.name = c.unique(core::toString(b.shape));
    const PointRef p = randomAttach(r, b);
    const double len = r.logUniform(0.1, 1.0);
    place(b, localOf(b, p), worldOf(c.body(rod.name), bodyPoint(rod.name, "end2")) + r.unitVector() * len, r.rotation());
    c.add(b);
    core::DistanceDef k;
    k.a = bodyPoint(rod.name, "end2");
    k.b = p;
    k.length = len;
    c.constraint(k);
    c.addNote("rod pendulum with a body at a distance from its tip");
  } else {
    // scalar point-to-nail: a body's point pulled onto a nail by |X - nail| (paper footnote 3)
    BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.1, 0.8), randomDensity(r));
    b.name = c.unique(core::toString(b.shape));
    const PointRef p = randomAttach(r, b);
    const Vec3 nailPos = randomNailPos(r);
    place(b, localOf(b, p), nailPos + r.unitVector() * r.logUniform(0.05, 1.0), r.rotation());
    gentleMotion(r, b, nullptr, 2.0);
    c.add(b);
    core::ScalarPointToNailDef k;
    k.point = p;
    k.nail = c.nail(nailPos);
    c.constraint(k);
    c.addNote("scalar point-to-nail pulls a point onto a nail");
  }
}

void pathDriven(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 4);
  PathDef path;
  if (variant == 0) {
    path.kind = PathKind::Line;
    path.start = randomNailPos(r);
    path.velocity = r.unitVector() * r.logUniform(0.05, 1.0);
  } else if (variant == 1 || variant == 3) {
    path.kind = PathKind::Circle;
    path.center = randomNailPos(r);
    path.normal = r.unitVector();
    path.u = r.perpendicular(path.normal);
    path.radius = r.logUniform(0.05, 0.8);
    path.period = (r.chance(0.5) ? 1.0 : -1.0) * r.logUniform(1.0, 10.0);
    path.phase = r.uniform(0, 2 * kPi);
  } else {
    path.kind = PathKind::Spline;
    const Vec3 p0 = randomNailPos(r);
    const int k = r.integer(2, 6);
    double t = 0.0;
    for (int i = 0; i < k; ++i) {
      path.keyframes.push_back({t, p0 + r.unitVector() * r.uniform(0.0, 0.5)});
      t += r.uniform(0.5, 3.0);
    }
  }
  const std::string pathName = c.path(path);
  // where the path point is at t = 0
  Vec3 p0;
  switch (path.kind) {
    case PathKind::Line: p0 = path.start; break;
    case PathKind::Circle: p0 = path.center + path.radius * (std::cos(path.phase) * path.u + std::sin(path.phase) * path.normal.cross(path.u)); break;
    case PathKind::Spline: p0 = path.keyframes[0].position; break;
  }
  if (variant == 3) {
    // three-link bar: a chain from a nail to the moving circle point, slack enough to reach it.
    // Whole rods: n equal links reach from 0 to n l from the nail (the polygon inequality), and
    // n l exceeds the circle's farthest point. Held at interior points, a 2-rod bar reached only
    // from |l1 - l2| on, and #270 as first generated (links 0.313 and 0.249 m) was driven past
    // 0.029 m from its nail: infeasible, not a model (tether-cli check says so now)
    const Vec3 nailPos = path.center + r.unitVector() * r.uniform(0.0, 0.5);
    const double reach = (nailPos - path.center).norm() + path.radius;
    SerialSpec spec;
    spec.n = r.integer(2, 4);
    spec.nailPos = nailPos;
    spec.wholeRods = true;
    const double link = 1.4 * reach / spec.n + r.uniform(0.05, 0.3);
    spec.makeLink = [&](int) { return rodDef(link, link * r.logUniform(1.0 / 300.0, 0.2), randomDensity(r)); };
    Serial s = buildSerial(c, spec);
    core::PointToPathDef k;
    k.point = s.points.back().second;
    k.path = pathName;
    c.constraint(k);
    c.addNote(std::to_string(spec.n) + "-rod bar from a nail to a point on a circle (assembles onto it)");
    return;
  }
  BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.1, 1.0), randomDensity(r));
  b.name = c.unique(core::toString(b.shape));
  const PointRef pin = randomAttach(r, b);
  place(b, localOf(b, pin), p0, r.rotation());
  c.add(b);
  const int how = r.integer(0, 5);
  if (how < 4) {
    core::PointToPathDef k;
    k.point = pin;
    k.path = pathName;
    c.constraint(k);
    c.addNote(std::string(core::toString(b.shape)) + " hung from a point moving on a " + core::toString(path.kind));
  } else if (how == 4) {
    core::DistanceDef k;
    k.a = pathRef(pathName);
    k.b = pin;
    k.length = r.logUniform(0.1, 1.0);
    c.constraint(k);
    c.addNote(std::string(core::toString(b.shape)) + " on a string from a point moving on a " + core::toString(path.kind));
  } else {
    ForceDef f;
    f.kind = ForceKind::Spring;
    f.a = pathRef(pathName);
    f.b = pin;
    const double m = pointMass(b, localOf(b, pin));
    f.stiffness = stiffnessFor(r.logUniform(0.02, 0.5), m);
    f.damping = r.chance(0.5) ? m * r.uniform(0.0, 0.5) / kStep * 0.1 : 0.0;
    c.force(f);
    c.addNote(std::string(core::toString(b.shape)) + " on a spring from a point moving on a " + core::toString(path.kind));
  }
  if (r.chance(0.3)) {
    EventDef e;
    e.time = r.uniform(1.0, 20.0);
    e.action = EventAction::Set;
    e.target = pathName;
    e.param = "speed";
    e.value = {r.chance(0.3) ? 0.0 : r.uniform(0.2, 3.0)};
    c.event(e);
    c.addNote("path speed set at t = " + std::to_string(e.time));
  }
}

void springs(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 4);
  const bool stiff = r.chance(0.5);
  const bool damped = r.chance(0.25);
  auto hw = [&]() { return stiff ? r.logUniform(0.05, 0.9) : 0.0; };
  auto stiffness = [&](double mEff) {
    if (stiff) return stiffnessFor(hw(), mEff);
    const double w = r.logUniform(0.5, 10.0);  // soft: omega 0.5 .. 10 rad/s
    return std::min(mEff * w * w, stiffnessFor(0.9, mEff));
  };
  auto springDamping = [&](double mEff) { return damped ? mEff * r.logUniform(0.001, 0.5) / kStep : 0.0; };
  c.addNote(std::string(stiff ? "stiff" : "soft") + (damped ? " damped" : ""));
  if (variant == 0 || variant == 1) {
    // a body on a spring from a nail (and, variant 1, a second body on a spring below it)
    const Vec3 nailPos = randomNailPos(r);
    PointRef prev = nailRef(c.nail(nailPos));
    double prevMass = std::numeric_limits<double>::infinity();
    Vec3 prevPoint = nailPos;
    const int n = variant == 0 ? 1 : 2;
    for (int i = 0; i < n; ++i) {
      BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.05, 0.8), randomDensity(r));
      b.name = c.unique(core::toString(b.shape));
      const auto pts = linkPoints(r, b);
      const double rest = r.uniform(0.0, 0.8);
      place(b, localOf(b, pts.first), prevPoint + r.unitVector() * r.uniform(0.0, 1.2), r.rotation());
      gentleMotion(r, b, nullptr, 2.0);
      c.add(b);
      const double m = pointMass(b, localOf(b, pts.first));
      const double mEff = std::isinf(prevMass) ? m : m * prevMass / (m + prevMass);
      ForceDef f;
      f.kind = ForceKind::Spring;
      f.a = prev;
      f.b = pts.first;
      f.stiffness = stiffness(mEff);
      f.damping = springDamping(mEff);
      f.restLength = rest;
      c.force(f);
      prev = pts.second;
      prevPoint = worldOf(c.body(b.name), pts.second);
      prevMass = pointMass(c.body(b.name), localOf(c.body(b.name), pts.second));
    }
    c.addNote(n == 1 ? "body on a spring from a nail" : "two bodies on springs in series");
  } else if (variant == 2) {
    // a chain whose links are also tied by springs from a nail to each link's far end
    SerialSpec spec;
    spec.n = r.integer(2, 6);
    spec.nailPos = randomNailPos(r);
    const double size = r.logUniform(0.1, 0.6);
    spec.makeLink = [&](int) { return randomBody(r, randomShape(r), size, randomDensity(r)); };
    Serial s = buildSerial(c, spec);
    const std::string springNail = c.nail(spec.nailPos + r.unitVector() * r.uniform(0.2, 1.0));
    for (size_t i = 0; i < s.bodies.size(); ++i) {
      if (!r.chance(0.6)) continue;
      const BodyDef& b = c.body(s.bodies[i]);
      ForceDef f;
      f.kind = ForceKind::Spring;
      f.a = nailRef(springNail);
      f.b = s.points[i].second;
      const double mEff = pointMass(b, localOf(b, s.points[i].second));
      f.stiffness = stiffness(mEff);
      f.damping = springDamping(mEff);
      f.restLength = r.uniform(0.0, 1.0);
      c.force(f);
    }
    c.addNote(std::to_string(spec.n) + "-link chain with springs to a nail");
  } else {
    // torsion springs across ball joints of a 2-3 link pendulum (with a linear spring too, 4)
    SerialSpec spec;
    spec.n = r.integer(2, 3);
    spec.nailPos = randomNailPos(r);
    spec.makeLink = [&](int) { return randomBody(r, randomShape(r), r.logUniform(0.1, 0.8), randomDensity(r)); };
    Serial s = buildSerial(c, spec);
    for (size_t i = 1; i < s.bodies.size(); ++i) {
      const BodyDef& a = c.body(s.bodies[i - 1]);
      const BodyDef& b = c.body(s.bodies[i]);
      ForceDef f;
      f.kind = ForceKind::TorsionSpring;
      f.bodyA = a.name;
      f.bodyB = b.name;
      f.axisA = r.chance(0.5) ? Vec3::Unit(r.integer(0, 2)) : r.unitVector();
      f.axisB = r.chance(0.5) ? Vec3::Unit(r.integer(0, 2)) : r.unitVector();
      const double Ia = minInertia(a), Ib = minInertia(b);
      const double Ieff = Ia * Ib / (Ia + Ib);
      f.stiffness = stiffness(Ieff);
      f.damping = springDamping(Ieff);
      f.restAngle = r.chance(0.5) ? 0.0 : r.uniform(0.0, kPi);
      c.force(f);
    }
    if (variant == 4) {
      const BodyDef& last = c.body(s.bodies.back());
      ForceDef f;
      f.kind = ForceKind::Spring;
      f.a = nailRef(c.nail(spec.nailPos + r.unitVector()));
      f.b = s.points.back().second;
      const double mEff = pointMass(last, localOf(last, s.points.back().second));
      f.stiffness = stiffness(mEff);
      f.damping = springDamping(mEff);
      c.force(f);
    }
    c.addNote(std::to_string(spec.n) + "-body pendulum with torsion springs at its joints");
  }
}

void damped(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 2);
  std::vector<std::string> bodies;
  if (variant == 0) {
    pendulum(c);
  } else if (variant == 1) {
    multiPendulum(c);
  } else {
    SerialSpec spec;
    spec.n = r.integer(2, 15);
    spec.nailPos = randomNailPos(r);
    const double size = r.logUniform(0.05, 0.4);
    spec.makeLink = [&](int) { return randomBody(r, r.chance(0.5) ? Shape::Rod : randomShape(r), size, randomDensity(r)); };
    buildSerial(c, spec);
    c.addNote(std::to_string(spec.n) + "-link chain");
  }
  ForceDef f;
  f.kind = ForceKind::Damping;
  const bool all = r.chance(0.5);
  double mMin = std::numeric_limits<double>::infinity(), iMin = mMin;
  for (const BodyDef& b : c.s.bodies) {
    if (!all && !r.chance(0.6) && !(b.name == c.s.bodies.back().name && f.bodies.empty())) continue;
    if (!all) f.bodies.push_back(b.name);
    mMin = std::min(mMin, massOf(b).mass);
    iMin = std::min(iMin, minInertia(b));
  }
  // guard rails: h c / m < 1 and h c_ang / I_min < 1
  f.linear = r.chance(0.8) ? mMin * r.logUniform(1e-3, 0.8) / kStep : 0.0;
  f.angular = r.chance(0.8) ? iMin * r.logUniform(1e-3, 0.8) / kStep : 0.0;
  c.force(f);
  c.addNote("viscous damping on " + std::string(all ? "all bodies" : "some bodies"));
}

void assembly(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 3);
  std::vector<std::string> bodies;
  if (variant == 0) {
    SerialSpec spec;
    spec.n = r.integer(2, 12);
    spec.nailPos = randomNailPos(r);
    spec.alignLinks = r.chance(0.5);
    spec.makeLink = [&](int) { return randomBody(r, randomShape(r), r.logUniform(0.1, 0.6), randomDensity(r)); };
    Serial s = buildSerial(c, spec);
    bodies = s.bodies;
    c.addNote(std::to_string(spec.n) + "-body chain");
  } else if (variant == 1) {
    // a tree: every new body hangs from a random point of a random earlier one
    const Vec3 nailPos = randomNailPos(r);
    const int n = r.integer(3, 10);
    for (int i = 0; i < n; ++i) {
      BodyDef b = randomBody(r, randomShape(r), r.logUniform(0.1, 0.6), randomDensity(r));
      b.name = c.unique(core::toString(b.shape));
      const PointRef mine = randomAttach(r, b);
      if (i == 0) {
        place(b, localOf(b, mine), nailPos, r.rotation());
        c.add(b);
        c.constraint(pointToNail(mine, c.nail(nailPos)));
      } else {
        const BodyDef& parent = c.body(bodies[size_t(r.integer(0, i - 1))]);
        const PointRef at = randomAttach(r, parent);
        place(b, localOf(b, mine), worldOf(parent, at), r.rotation());
        c.add(b);
        c.constraint(pointToPoint(at, mine));
      }
      bodies.push_back(b.name);
    }
    c.addNote(std::to_string(n) + "-body tree");
  } else if (variant == 2) {
    // plates hinged edge to edge by two corner joints each (redundant rows, like the card house)
    const int n = r.integer(2, 4);
    const Vec3 nailPos = randomNailPos(r);
    const double w = r.logUniform(0.1, 0.6), hgt = r.logUniform(0.1, 0.6), t = std::max(w, hgt) * r.logUniform(0.01, 0.1);
    std::string prev;
    for (int i = 0; i < n; ++i) {
      BodyDef b;
      b.shape = Shape::Box;
      b.size = Vec3(w, t, hgt);
      b.density = randomDensity(r);
      b.name = c.unique("box");
      // hinge along the local x edge: parent's bottom edge (corners 0, 1) to child's top edge (4, 5)
      if (i == 0) {
        place(b, localOf(b, bodyPoint(b.name, "corner4")), nailPos, r.rotation());
        c.add(b);
        c.constraint(pointToNail(bodyPoint(b.name, "corner4"), c.nail(nailPos)));
      } else {
        const BodyDef& p = c.body(prev);
        const Vec3 edge = p.orientation * Vec3::UnitX();
        const Quat q = (Eigen::AngleAxisd(r.uniform(-2.5, 2.5), edge) * p.orientation).normalized();
        place(b, localOf(b, bodyPoint(b.name, "corner4")), worldOf(p, bodyPoint(prev, "corner0")), q);
        c.add(b);
        c.constraint(pointToPoint(bodyPoint(prev, "corner0"), bodyPoint(b.name, "corner4")));
        c.constraint(pointToPoint(bodyPoint(prev, "corner1"), bodyPoint(b.name, "corner5")));
      }
      bodies.push_back(b.name);
      prev = b.name;
    }
    c.addNote(std::to_string(n) + " plates hinged by corner pairs");
  } else {
    // a rod pendulum with a box on its tip sliding with one corner on a plane
    BodyDef rod = rodDef(r.logUniform(0.3, 1.2), 0, randomDensity(r));
    rod.radius = rod.length * r.logUniform(1.0 / 300.0, 0.2);
    rod.name = c.unique("rod");
    const Vec3 nailPos = randomNailPos(r);
    place(rod, localOf(rod, bodyPoint(rod.name, "end1")), nailPos, r.rotation());
    c.add(rod);
    c.constraint(pointToNail(bodyPoint(rod.name, "end1"), c.nail(nailPos)));
    BodyDef box = randomBody(r, Shape::Box, r.logUniform(0.1, 0.5), randomDensity(r));
    box.name = c.unique("box");
    const int corner = r.integer(0, 7);
    place(box, localOf(box, bodyPoint(box.name, "corner" + std::to_string(corner))),
          worldOf(c.body(rod.name), bodyPoint(rod.name, "end2")), r.rotation());
    c.add(box);
    c.constraint(pointToPoint(bodyPoint(rod.name, "end2"), bodyPoint(box.name, "corner" + std::to_string(corner))));
    core::PointOnPlaneDef k;
    k.point = bodyPoint(box.name, "corner" + std::to_string(7 - corner));
    k.origin = worldOf(c.body(box.name), k.point);
    k.normal = r.unitVector();
    c.constraint(k);
    bodies = {rod.name, box.name};
    c.addNote("rod pendulum with a box whose far corner slides on a plane");
  }
  // every constraint with its own tau (some), the parts scattered and turned
  for (ConstraintDef& k : c.s.constraints)
    if (r.chance(0.5)) k.tau = r.logUniform(0.03, 0.5);
  scatter(c, bodies, r.logUniform(0.05, 1.0), r.uniform(0.2, kPi));
}

void events(Ctx& c) {
  Rng& r = c.r;
  const int variant = r.integer(0, 4);
  if (variant == 0) {
    // a pendulum let go and caught again
    pendulum(c);
    const double t1 = r.uniform(0.5, 10.0), t2 = t1 + r.uniform(0.1, 1.5);
    const std::string pin = c.s.constraints.front().name;
    c.event({t1, EventAction::Disable, pin, "", {}});
    c.event({t2, EventAction::Enable, pin, "", {}});
    c.addNote("pin off at " + std::to_string(t1) + ", on at " + std::to_string(t2));
  } else if (variant == 1) {
    // a chain breaks at a joint (and, half the time, joins again)
    SerialSpec spec;
    spec.n = r.integer(3, 12);
    spec.nailPos = randomNailPos(r) + Vec3(0, 0, 1);
    const double size = r.logUniform(0.1, 0.4);
    spec.makeLink = [&](int) { return randomBody(r, r.chance(0.6) ? Shape::Rod : randomShape(r), size, randomDensity(r)); };
    Serial s = buildSerial(c, spec);
    const std::string joint = s.joints[size_t(r.integer(1, spec.n - 1))];
    const double t1 = r.uniform(0.5, 8.0);
    c.event({t1, EventAction::Disable, joint, "", {}});
    std::string what = std::to_string(spec.n) + "-link chain breaks at " + joint;
    if (r.chance(0.5)) {
      const double t2 = t1 + r.uniform(0.05, 1.0);
      c.event({t2, EventAction::Enable, joint, "", {}});
      what += " and joins again";
    }
    c.addNote(what);
  } else if (variant == 2) {
    // a constraint switched on mid-motion: a swinging double pendulum's tip caught by a nail
    multiPendulum(c);
    // (the nail where that point starts: the pendulum can always reach it)
    const BodyDef& last = c.s.bodies.back();
    const PointRef tip = randomAttach(r, last);
    ConstraintDef k = pointToNail(tip, c.nail(worldOf(last, tip)));
    k.enabled = false;
    const std::string name = c.constraint(k);
    const double t1 = r.uniform(0.5, 10.0);
    c.event({t1, EventAction::Enable, name, "", {}});
    if (r.chance(0.5)) c.event({t1 + r.uniform(0.5, 5.0), EventAction::Disable, name, "", {}});
    c.addNote("a second nail constraint switched on at " + std::to_string(t1));
  } else if (variant == 3) {
    // a spring and gravity toggled
    pendulum(c);
    const BodyDef& b = c.s.bodies.back();
    ForceDef f;
    f.kind = ForceKind::Spring;
    f.a = nailRef(c.nail(randomNailPos(r)));
    f.b = randomAttach(r, b);
    f.stiffness = stiffnessFor(r.logUniform(0.01, 0.5), pointMass(b, localOf(b, f.b)));
    f.enabled = r.chance(0.5);
    const std::string name = c.force(f);
    const double t1 = r.uniform(0.5, 10.0);
    c.event({t1, f.enabled ? EventAction::Disable : EventAction::Enable, name, "", {}});
    c.event({t1 + r.uniform(0.5, 5.0), EventAction::Disable, "gravity", "", {}});
    c.event({t1 + r.uniform(5.0, 10.0), EventAction::Enable, "gravity", "", {}});
    c.addNote("spring and gravity toggled");
  } else {
    // tau changed while assembling, and a joint switched off and on
    assembly(c);
    const ConstraintDef& k = c.s.constraints[size_t(r.integer(0, int(c.s.constraints.size()) - 1))];
    const std::string name = k.name;
    c.event({r.uniform(0.05, 1.0), EventAction::Set, name, "tau", {r.logUniform(0.02, 0.5)}});
    const double t1 = r.uniform(2.0, 10.0);
    c.event({t1, EventAction::Disable, name, "", {}});
    c.event({t1 + r.uniform(0.05, 2.0), EventAction::Enable, name, "", {}});
    c.addNote("tau set, " + name + " off and on");
  }
}

// The GUI: bodies and constraints exactly as ui/tools.cpp makes them, at clicks on the work
// plane (through the orbit centre, facing the world axis nearest the view direction).
struct GuiCamera {
  Vec3 target = Vec3::Zero();
  double yaw = -kPi / 2, pitch = 0.25;
  Vec3 forward() const {
    const Vec3 eye = target + Vec3(std::cos(pitch) * std::cos(yaw), std::cos(pitch) * std::sin(yaw), std::sin(pitch));
    return (target - eye).normalized();
  }
  Vec3 right() const { return forward().cross(Vec3::UnitZ()).normalized(); }
  Vec3 workPlaneNormal() const {
    const Vec3 f = forward();
    int axis = 0;
    for (int i = 1; i < 3; ++i)
      if (std::abs(f(i)) > std::abs(f(axis))) axis = i;
    return Vec3::Unit(axis);
  }
  // a click on the work plane, (a, b) in its two other world axes
  Vec3 click(double a, double b) const {
    const Vec3 n = workPlaneNormal();
    int ax = 0;
    while (n(ax) == 0.0) ++ax;
    Vec3 p = target;
    p((ax + 1) % 3) += a;
    p((ax + 2) % 3) += b;
    return p;
  }
};

void gui(Ctx& c) {
  Rng& r = c.r;
  GuiCamera cam;
  auto newView = [&]() {
    // the default front view, the standard views, or an orbited one; the orbit centre panned
    const int v = r.integer(0, 5);
    const double yaws[] = {-kPi / 2, kPi / 2, 0.0, kPi, -kPi / 2};
    cam.yaw = v < 5 ? yaws[v] : r.uniform(-kPi, kPi);
    cam.pitch = v == 4 ? 1.4 : v < 4 ? 0.25 : r.uniform(-0.5, 1.2);
    if (r.chance(0.5)) cam.target = Vec3(r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(0, 2));
  };
  auto click = [&]() { return cam.click(r.uniform(-1.5, 1.5), r.uniform(-1.5, 1.5)); };
  const bool moveView = r.chance(0.5);  // the user turns the view between operations
  newView();
  auto maybeNewView = [&]() {
    if (moveView && r.chance(0.5)) newView();
  };
  auto rodTool = [&]() {
    Vec3 a = click(), b = click();
    if (r.chance(0.2) || (b - a).norm() < 0.02) {  // a click: a 1 m rod across the screen
      const Vec3 rr = cam.right();
      b = a + 0.5 * rr;
      a = a - 0.5 * rr;
    }
    BodyDef d;
    d.name = c.unique("rod");
    d.shape = Shape::Rod;
    d.length = (b - a).norm();
    d.radius = 0.02;
    d.position = 0.5 * (a + b);
    d.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), b - a);
    return c.add(d);
  };
  auto placeTool = [&](Shape sh) {
    BodyDef d;
    d.position = click();
    d.shape = sh;
    if (sh == Shape::Sphere) d.radius = 0.1;
    if (sh == Shape::Box) d.size = Vec3(0.2, 0.2, 0.2);
    if (sh == Shape::Torus) d.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), cam.workPlaneNormal());
    d.name = c.unique(core::toString(sh));
    return c.add(d);
  };
  auto someNamedPoint = [&](const std::string& body) {
    std::vector<std::string> names;
    for (const auto& p : core::shapePoints(c.body(body))) names.push_back(p.name);
    return bodyPoint(body, names[size_t(r.integer(0, int(names.size()) - 1))]);
  };
  auto offCentre = [&](const std::string& body) {
    PointRef p;
    do p = someNamedPoint(body);
    while (p.point == "center");
    return p;
  };
  // def: a PointToNailDef or a ScalarPointToNailDef
  auto toNail = [&](const PointRef& p, auto def) {
    def.point = p;
    def.nail = r.chance(0.3) && !c.s.nails.empty() ? c.s.nails[size_t(r.integer(0, int(c.s.nails.size()) - 1))].name
                                                    : c.nail(click());
    c.constraint(def);
  };
  const int t = r.integer(0, 11);
  switch (t) {
    case 0: {  // rod pendulum
      const std::string rod = rodTool();
      maybeNewView();
      toNail(offCentre(rod), core::PointToNailDef{});
      c.addNote("GUI: rod pendulum");
      break;
    }
    case 1: {  // compound pendulum
      const std::string a = rodTool();
      maybeNewView();
      const std::string b = rodTool();
      maybeNewView();
      toNail(bodyPoint(a, "end1"), core::PointToNailDef{});
      c.constraint(pointToPoint(bodyPoint(a, "end2"), bodyPoint(b, r.chance(0.7) ? "end1" : "center")));
      c.addNote("GUI: compound pendulum");
      break;
    }
    case 2: {  // a sphere on a distance constraint to a new nail
      const std::string s = placeTool(Shape::Sphere);
      maybeNewView();
      const PointRef p = someNamedPoint(s);
      const Vec3 from = worldOf(c.body(s), p);
      Vec3 to = click();
      if ((to - from).norm() < 1e-3) to += Vec3(0.5, 0, 0);
      core::DistanceDef k;
      k.a = p;
      k.b = nailRef(c.nail(to));
      k.length = (to - from).norm();
      c.constraint(k);
      c.addNote("GUI: sphere on a distance to a nail");
      break;
    }
    case 3: {  // a box on the spring tool's spring (20 N/m, 1 N s/m), maybe pinned too
      const std::string b = placeTool(Shape::Box);
      maybeNewView();
      ForceDef f;
      f.kind = ForceKind::Spring;
      f.a = someNamedPoint(b);
      f.b = nailRef(c.nail(click()));
      f.stiffness = 20.0;
      f.damping = 1.0;
      c.force(f);
      if (r.chance(0.5)) toNail(offCentre(b), core::PointToNailDef{});
      c.addNote("GUI: box on a spring");
      break;
    }
    case 4: {  // torus chain
      const int n = r.integer(2, 6);
      std::vector<std::string> tori;
      for (int i = 0; i < n; ++i) {
        tori.push_back(placeTool(Shape::Torus));
        if (r.chance(0.2)) maybeNewView();
      }
      toNail(bodyPoint(tori[0], "west"), core::PointToNailDef{});
      for (int i = 1; i < n; ++i)
        c.constraint(pointToPoint(bodyPoint(tori[size_t(i) - 1], "east"), bodyPoint(tori[size_t(i)], "west")));
      c.addNote("GUI: " + std::to_string(n) + "-torus chain");
      break;
    }
    case 5: {  // rod end on the point-to-path tool's circle (period 4 s, in the work plane)
      const std::string rod = rodTool();
      maybeNewView();
      const PointRef p = offCentre(rod);
      const Vec3 at = worldOf(c.body(rod), p);
      const Vec3 centre = click();
      PathDef path;
      path.kind = PathKind::Circle;
      path.center = centre;
      path.normal = cam.workPlaneNormal();
      const Vec3 rr = at - centre - path.normal.dot(at - centre) * path.normal;
      path.radius = std::max(rr.norm(), 1e-3);
      path.u = rr.norm() > 1e-3 ? Vec3(rr.normalized()) : r.perpendicular(path.normal);
      path.period = 4.0;
      core::PointToPathDef k;
      k.point = p;
      k.path = c.path(path);
      c.constraint(k);
      c.addNote("GUI: rod on a circle path");
      break;
    }
    case 6:
    case 7: {  // rod pinned, its other end on a line (across the screen) or a horizontal plane
      // (one view: the nail clicked on end1, the line / plane through a click on end2, both on
      // the work plane the rod was drawn on, so that the three can all be met)
      const std::string rod = rodTool();
      core::PointToNailDef pin;
      pin.point = bodyPoint(rod, "end1");
      pin.nail = c.nail(worldOf(c.body(rod), pin.point));
      c.constraint(pin);
      const PointRef end2 = bodyPoint(rod, "end2");
      const Vec3 origin = worldOf(c.body(rod), end2);
      if (t == 6)
        c.constraint(core::PointOnLineDef{.point = end2, .origin = origin, .direction = cam.right()});
      else
        c.constraint(core::PointOnPlaneDef{.point = end2, .origin = origin, .normal = Vec3::UnitZ()});
      c.addNote(t == 6 ? "GUI: rod pinned, end on a line" : "GUI: rod pinned, end on a plane");
      break;
    }
    case 8: {  // box pinned at its centre (or a corner) with an orientation constraint
      const std::string b = placeTool(Shape::Box);
      maybeNewView();
      toNail(r.chance(0.5) ? bodyPoint(b, "center") : offCentre(b), core::PointToNailDef{});
      const PointRef p = someNamedPoint(b);
      const Vec3 local = localOf(c.body(b), p);
      core::OrientationDef k;
      k.body = b;
      k.axis = local.norm() > 1e-9 ? Vec3(local.normalized()) : Vec3::UnitZ();
      const Vec3 n = click() - worldOf(c.body(b), p);
      k.direction = n.norm() > 1e-9 ? Vec3(n.normalized()) : Vec3::UnitZ();
      c.constraint(k);
      c.addNote("GUI: box with an orientation constraint");
      break;
    }
    case 9: {  // sphere to sphere: one pinned, the other touching it
      const std::string a = placeTool(Shape::Sphere);
      maybeNewView();
      const std::string b = placeTool(Shape::Sphere);
      toNail(r.chance(0.5) ? bodyPoint(a, "center") : offCentre(a), core::PointToNailDef{});
      core::SphereToSphereDef k;
      k.bodyA = a;
      k.bodyB = b;
      c.constraint(k);
      c.addNote("GUI: sphere touching a pinned sphere");
      break;
    }
    case 10: {  // scalar point-to-nail
      const Shape sh = randomShape(r);
      const std::string b = sh == Shape::Rod ? rodTool() : placeTool(sh);
      maybeNewView();
      toNail(offCentre(b), core::ScalarPointToNailDef{});
      c.addNote(std::string("GUI: ") + core::toString(sh) + " on a scalar point-to-nail");
      break;
    }
    default: {  // a box or torus hanging from a rod pendulum
      const std::string rod = rodTool();
      maybeNewView();
      const std::string b = placeTool(r.chance(0.5) ? Shape::Box : Shape::Torus);
      maybeNewView();
      toNail(bodyPoint(rod, "end1"), core::PointToNailDef{});
      c.constraint(pointToPoint(bodyPoint(rod, "end2"), offCentre(b)));
      c.addNote("GUI: body hanging from a rod pendulum");
      break;
    }
  }
  c.addNote(moveView ? "views changed between clicks" : "one view");
}

// ---------------------------------------------------------------------------------------------
// contact: bodies touching ground planes, fixed bodies and each other (settings.contacts)

struct Material {
  double e = 0.5, mu = 0.5, mus = 0.5;
};
// restitution 0 one time in five, else uniform in [0, 0.9]; frictionless one time in seven,
// else sliding friction log-uniform in [0.05, 1.2] and sticking friction up to 1.4 times that
Material randomMaterial(Rng& r) {
  Material m;
  m.e = r.chance(0.2) ? 0.0 : r.uniform(0.0, 0.9);
  if (r.chance(1.0 / 7.0)) {
    m.mu = m.mus = 0.0;
  } else {
    m.mu = r.logUniform(0.05, 1.2);
    m.mus = m.mu * r.uniform(1.0, 1.4);
  }
  return m;
}
template <class T> void setMaterial(T& x, const Material& m) {
  x.restitution = m.e;
  x.friction = m.mu;
  x.staticFriction = m.mus;
}

// How far the body reaches from its centre along the world direction d (unit): its support
// function (the torus's collision shape is chord capsules inside the ring: it reaches a little less).
double reach(const BodyDef& b, const Vec3& d) {
  const Vec3 l = b.orientation.conjugate() * d;
  switch (b.shape) {
    case Shape::Sphere: return b.radius;
    case Shape::Rod: return std::abs(l.z()) * 0.5 * b.length + b.radius;
    case Shape::Box: return 0.5 * b.size.dot(l.cwiseAbs());
    case Shape::Torus: return b.majorRadius * std::hypot(l.x(), l.y()) + b.minorRadius;
  }
  return 0.0;
}

// Put b above the plane (point p, unit normal n) at `gap` from it, over the point `at`.
void restOn(BodyDef& b, const Vec3& p, const Vec3& n, const Vec3& at, double gap) {
  b.position = at - n.dot(at - p) * n + (reach(b, -n) + gap) * n;
}

// A unit normal tilted from +z by `angle` about a random horizontal axis.
Vec3 tilted(Rng& r, double angle) {
  return Eigen::AngleAxisd(angle, r.perpendicular(Vec3::UnitZ())) * Vec3::UnitZ();
}

std::string groundPlane(Ctx& c, const Vec3& point, const Vec3& normal, const Material& m) {
  core::PlaneDef p;
  p.name = c.unique("ground");
  p.point = point;
  p.normal = normal;
  setMaterial(p, m);
  c.s.planes.push_back(p);
  c.s.settings.contacts = true;
  return p.name;
}

// A fixed box (a wall, a table, an obstacle).
std::string fixedBox(Ctx& c, const Vec3& centre, const Vec3& size, const Quat& q, const Material& m) {
  BodyDef b;
  b.shape = Shape::Box;
  b.fixed = true;
  b.size = size;
  b.position = centre;
  b.orientation = q;
  setMaterial(b, m);
  return c.add(b);
}

// Contacts are found at the end of each step, without continuous detection: two bodies whose
// relative travel in one step exceeds their thickness can pass through each other (the stated
// limit, README "Contacts"). Contact scenes keep every body at least 1 cm thick (rods and tori of
// radius >= 5 mm, boxes >= 1 cm in every extent): at the speeds they reach (~5 m/s) a step moves
// a body 5 mm, half of that.
void thickEnough(BodyDef& b) {
  b.radius = std::max(b.radius, 0.005);
  b.minorRadius = std::max(b.minorRadius, 0.005);
  b.size = b.size.cwiseMax(0.01);
}

// A body for contact scenes: any shape, size log-uniform in [lo, hi], its own material.
BodyDef contactBody(Rng& r, double lo, double hi) {
  BodyDef b = randomBody(r, randomShape(r), r.logUniform(lo, hi), randomDensity(r));
  thickEnough(b);
  b.orientation = r.rotation();
  setMaterial(b, randomMaterial(r));
  return b;
}

void contact(Ctx& c) {
  Rng& r = c.r;
  c.s.settings.contacts = true;
  const int kind = r.integer(0, 8);
  switch (kind) {
    case 0: {  // bodies dropped (thrown, spinning) onto a ground plane, tilted up to 25 degrees
      const Vec3 n = r.chance(0.5) ? Vec3::UnitZ() : tilted(r, r.uniform(0.0, 25.0 * kPi / 180.0));
      groundPlane(c, Vec3::Zero(), n, randomMaterial(r));
      const int k = r.integer(1, 3);
      for (int i = 0; i < k; ++i) {
        BodyDef b = contactBody(r, 0.05, 0.8);
        restOn(b, Vec3::Zero(), n, Vec3(1.2 * i, r.uniform(-0.2, 0.2), 0), r.uniform(0.0, 2.0));
        b.velocity = r.unitVector() * r.uniform(0.0, 3.0);
        b.angularVelocity = r.unitVector() * r.logUniform(0.1, 20.0);
        c.add(b);
      }
      c.addNote(std::to_string(k) + " bodies dropped onto a ground plane");
      break;
    }
    case 1: {  // a pile poured into a closed bin: four fixed walls and a lid on a ground plane
      const Material wall = randomMaterial(r);
      groundPlane(c, Vec3::Zero(), Vec3::UnitZ(), wall);
      const int n = r.integer(5, 25);
      const double w = r.uniform(0.3, 0.6), t = 0.1, cell = 0.22;
      const int perRow = std::max(1, int(2 * w / cell)), layers = (n + perRow * perRow - 1) / (perRow * perRow);
      const double h = 0.2 + cell * layers + 0.3;  // the lid's underside
      for (int side = 0; side < 4; ++side) {
        const int ax = side / 2;
        const double sgn = side % 2 ? 1.0 : -1.0;
        Vec3 centre(0, 0, 0.5 * (h + t)), size(2 * (w + t), 2 * (w + t), h + t);
        centre(ax) = sgn * (w + 0.5 * t);
        size(ax) = t;
        fixedBox(c, centre, size, Quat::Identity(), wall);
      }
      fixedBox(c, Vec3(0, 0, h + 0.5 * t), Vec3(2 * w, 2 * w, t), Quat::Identity(), wall);
      for (int i = 0; i < n; ++i) {
        BodyDef b = contactBody(r, 0.04, 0.2);
        const int layer = i / (perRow * perRow), k = i % (perRow * perRow);
        b.position = Vec3(-w + cell * (0.5 + k % perRow), -w + cell * (0.5 + k / perRow), 0.2 + cell * (0.5 + layer));
        b.velocity = r.unitVector() * r.uniform(0.0, 1.0);
        b.angularVelocity = r.unitVector() * r.uniform(0.0, 5.0);
        c.add(b);
      }
      c.keepIn = std::make_pair(Vec3(-w, -w, 0.0), Vec3(w, w, h));
      c.addNote(std::to_string(n) + " bodies shaken in a closed bin");
      break;
    }
    case 2: {  // a stack of boxes, each a little off the one below, maybe with gaps between them
      const Material m = randomMaterial(r);
      groundPlane(c, Vec3::Zero(), Vec3::UnitZ(), m);
      const int n = r.integer(2, 8);
      double z = 0.0;
      Vec3 below(0, 0, 0);
      double belowHalf = 0.5;
      for (int i = 0; i < n; ++i) {
        BodyDef b;
        b.shape = Shape::Box;
        b.density = randomDensity(r);
        b.size = Vec3(r.uniform(0.1, 0.5), r.uniform(0.1, 0.5), r.uniform(0.05, 0.3));
        b.orientation = Quat(Eigen::AngleAxisd(r.uniform(0.0, 2 * kPi), Vec3::UnitZ()));
        setMaterial(b, r.chance(0.5) ? m : randomMaterial(r));
        const double off = 0.25 * std::min(belowHalf, 0.5 * b.size.head<2>().minCoeff());
        const double gap = r.chance(0.5) ? 0.0 : r.uniform(0.0, 0.02);
        b.position = Vec3(below.x() + r.uniform(-off, off), below.y() + r.uniform(-off, off), z + gap + 0.5 * b.size.z());
        z = b.position.z() + 0.5 * b.size.z();
        below = b.position;
        belowHalf = 0.5 * b.size.head<2>().minCoeff();
        c.add(b);
      }
      c.addNote("a stack of " + std::to_string(n) + " boxes");
      break;
    }
    case 3: {  // a body on a slope: below or above its friction angle
      const double angle = r.uniform(5.0, 40.0) * kPi / 180.0;
      const Vec3 n = tilted(r, angle);
      groundPlane(c, Vec3::Zero(), n, randomMaterial(r));
      BodyDef b = contactBody(r, 0.05, 0.6);
      if (r.chance(0.5)) {  // lying on a face / its side, not on an edge
        const Shape sh = b.shape;
        b.orientation = Quat::FromTwoVectors(sh == Shape::Rod ? Vec3::UnitX() : Vec3::UnitZ(), n);
      }
      restOn(b, Vec3::Zero(), n, Vec3::Zero(), r.chance(0.5) ? 0.0 : r.uniform(0.0, 0.05));
      c.add(b);
      c.addNote(std::string(core::toString(b.shape)) + " on a " + std::to_string(int(angle * 180 / kPi)) + " degree slope");
      break;
    }
    case 4: {  // a pendulum swinging into the floor or a fixed block (joint and contacts)
      const Material m = randomMaterial(r);
      BodyDef b = contactBody(r, 0.2, 1.2);
      b.name = c.unique(core::toString(b.shape));
      const PointRef pin = randomAttach(r, b);
      const Vec3 nailPos(0, 0, 2.0);
      place(b, localOf(b, pin), nailPos, r.rotation());
      gentleMotion(r, b, &nailPos);
      // the floor a random part of the way up the body's lowest reach below the nail
      const double lowest = nailPos.z() - b.position.z() + reach(b, -Vec3::UnitZ());
      const double hangs = (b.position - nailPos).norm() + reach(b, -Vec3::UnitZ());
      double floorZ = nailPos.z() - hangs * r.uniform(0.6, 0.95);
      floorZ = std::min(floorZ, nailPos.z() - lowest - 1e-3);  // not touching at the start
      c.add(b);
      c.constraint(pointToNail(pin, c.nail(nailPos)));
      if (r.chance(0.5)) {
        groundPlane(c, Vec3(0, 0, floorZ), Vec3::UnitZ(), m);
        c.addNote(std::string(core::toString(b.shape)) + " pendulum striking the floor");
      } else {
        groundPlane(c, Vec3(0, 0, nailPos.z() - 4.0), Vec3::UnitZ(), m);
        const Vec3 side = r.perpendicular(Vec3::UnitZ());
        const double size = r.uniform(0.2, 0.6);
        fixedBox(c, Vec3(0, 0, floorZ - 0.5 * size) + side * (0.5 * size + r.uniform(0.0, 0.3)),
                 Vec3::Constant(size), Quat::Identity(), m);
        c.addNote(std::string(core::toString(b.shape)) + " pendulum striking a fixed block");
      }
      break;
    }
    case 5: {  // a chain hanging from a nail, released sideways, heaping on the floor
      const Material m = randomMaterial(r);
      SerialSpec spec;
      spec.n = r.integer(3, 12);
      spec.nailPos = Vec3(0, 0, 2.0);
      spec.drift = 2.0;  // nearly horizontal at first: it swings down
      spec.wander = 0.3;
      const Shape sh = r.chance(0.6) ? Shape::Rod : (r.chance(0.5) ? Shape::Box : Shape::Torus);
      const double len = r.uniform(0.1, 0.3);
      spec.makeLink = [&](int) {
        BodyDef b = randomBody(r, sh, len, randomDensity(r));
        thickEnough(b);
        setMaterial(b, m);
        return b;
      };
      Serial s = buildSerial(c, spec);
      const double floorZ = spec.nailPos.z() - spec.n * len * r.uniform(0.4, 0.9);
      double lowest = 1e9;
      for (const auto& name : s.bodies) lowest = std::min(lowest, c.body(name).position.z() - reach(c.body(name), -Vec3::UnitZ()));
      groundPlane(c, Vec3(0, 0, std::min(floorZ, lowest - 1e-3)), Vec3::UnitZ(), m);
      c.addNote(std::to_string(spec.n) + "-link " + core::toString(sh) + " chain falling onto the floor");
      break;
    }
    case 6: {  // spinning and rolling on the floor: a ball with backspin, a coin on its edge, a top
      const Material m = randomMaterial(r);
      groundPlane(c, Vec3::Zero(), Vec3::UnitZ(), m);
      BodyDef b = contactBody(r, 0.05, 0.5);
      if (b.shape == Shape::Torus && r.chance(0.6)) {  // a coin rolling on its edge
        const Vec3 axis = r.perpendicular(Vec3::UnitZ());
        b.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), axis);
        restOn(b, Vec3::Zero(), Vec3::UnitZ(), Vec3::Zero(), 0.0);
        const double w = r.uniform(2.0, 30.0);
        b.angularVelocity = w * axis;
        b.velocity = -w * (b.majorRadius + b.minorRadius) * axis.cross(Vec3::UnitZ()) * r.uniform(0.5, 1.0);
        c.addNote("a torus rolling on its edge");
      } else {
        restOn(b, Vec3::Zero(), Vec3::UnitZ(), Vec3::Zero(), r.chance(0.5) ? 0.0 : r.uniform(0.0, 0.05));
        b.velocity = r.perpendicular(Vec3::UnitZ()) * r.uniform(0.0, 5.0);
        b.angularVelocity = r.chance(0.5) ? Vec3(Vec3::UnitZ() * r.logUniform(1.0, 60.0)) : Vec3(r.unitVector() * r.logUniform(1.0, 60.0));
        c.addNote(std::string(core::toString(b.shape)) + " sliding and spinning on the floor");
      }
      c.add(b);
      break;
    }
    case 7: {  // elastic and frictionless: balls bouncing on the floor and off each other, e = 1
      const Material m{1.0, 0.0, 0.0};
      groundPlane(c, Vec3::Zero(), Vec3::UnitZ(), m);
      const int k = r.integer(1, 4);
      for (int i = 0; i < k; ++i) {
        BodyDef b;
        b.shape = Shape::Sphere;
        b.radius = r.uniform(0.05, 0.3);
        b.density = randomDensity(r);
        setMaterial(b, m);
        restOn(b, Vec3::Zero(), Vec3::UnitZ(), Vec3(0.7 * i, 0, 0), r.uniform(0.1, 2.0));
        b.velocity = Vec3(r.uniform(-0.3, 0.3), 0.0, r.uniform(-1.0, 1.0));
        c.add(b);
      }
      c.addNote(std::to_string(k) + " elastic balls (e = 1, no friction)");
      return;  // conservative: nothing dissipates
    }
    default: {  // as the GUI makes it: default bodies at clicks, Add ground plane (z = 0), a pin
      GuiCamera cam;
      const int v = r.integer(0, 2);  // the default front view, the top view, an orbited one
      if (v == 1) cam.pitch = kPi / 2 - 1e-3;
      if (v == 2) {
        cam.yaw = r.uniform(-kPi, kPi);
        cam.pitch = r.uniform(0.2, 1.2);
      }
      // a click on the work plane, above the floor (from the top view: on it, the bodies half sunk)
      auto click = [&]() {
        Vec3 p = cam.click(r.uniform(-1.5, 1.5), r.uniform(-1.5, 1.5));
        p.z() = std::abs(p.z());
        return p;
      };
      const int k = r.integer(1, 4);
      std::vector<std::string> names;
      for (int i = 0; i < k; ++i) {
        BodyDef d;
        d.shape = randomShape(r);
        d.position = click();
        if (d.shape == Shape::Rod) {  // a click: a 1 m rod across the screen, radius 0.02
          d.radius = 0.02;
          d.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), cam.right());
        }
        if (d.shape == Shape::Sphere) d.radius = 0.1;
        if (d.shape == Shape::Box) d.size = Vec3(0.2, 0.2, 0.2);
        if (d.shape == Shape::Torus) d.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), cam.workPlaneNormal());
        d.name = c.unique(core::toString(d.shape));
        names.push_back(c.add(d));
      }
      core::PlaneDef p;
      p.name = c.unique("ground");
      c.s.planes.push_back(p);
      if (r.chance(0.5)) {  // the first body pinned at a point above the floor
        BodyDef& b = c.body(names[0]);
        const Vec3 local = b.shape == Shape::Rod ? Vec3(0, 0, -0.5 * b.length) : Vec3(reach(b, Vec3::UnitZ()), 0, 0);
        const Vec3 at = worldOf(b, local);
        if (at.z() > 0.0) c.constraint(pointToNail(bodyLocal(b.name, local), c.nail(at)));
      }
      c.addNote("GUI: " + std::to_string(k) + " bodies at clicks (view " + std::to_string(v) + "), ground plane added");
      break;
    }
  }
  c.conservative = false;  // restitution < 1 and friction dissipate
}

struct CategoryBuilder {
  Category info;
  void (*build)(Ctx&);
};

const std::vector<CategoryBuilder>& builders() {
  static const std::vector<CategoryBuilder> table = {
      {{"gui", 40, "as the GUI tools make them (defaults, clicks on the work plane)"}, gui},
      {{"pendulum", 35, "one body of any shape pinned at a control point"}, pendulum},
      {{"multi_pendulum", 35, "double and triple pendulums of mixed shapes"}, multiPendulum},
      {{"chain", 40, "chains of 2-50 links, one nail or two"}, chain},
      {{"spinning", 30, "spins >= 50 rad/s: free bodies, heavy tops, spinning links"}, spinning},
      {{"mass_ratio", 20, "mass ratios 1:100-1:1000 across a joint"}, massRatio},
      {{"slider", 20, "point-on-line and point-on-plane"}, slider},
      {{"orientation", 15, "orientation constraints: turntables, hinges, docking"}, orientation},
      {{"sphere_contact", 15, "sphere-to-sphere"}, sphereContact},
      {{"distance", 20, "distance and scalar point-to-nail"}, distance},
      {{"path_driven", 20, "point-to-path on moving lines, circles, splines"}, pathDriven},
      {{"springs", 25, "stiff and soft springs, torsion springs"}, springs},
      {{"damped", 15, "viscous damping"}, damped},
      {{"assembly", 25, "scattered parts pulled together by tau"}, assembly},
      {{"events", 20, "constraints, springs, gravity switched mid-motion"}, events},
      {{"contact", 50, "contacts: drops, piles in a bin, stacks, slopes, strikes, chains, rolling, elastic"}, contact},
  };
  return table;
}

}  // namespace

const std::vector<Category>& categories() {
  static const std::vector<Category> out = [] {
    std::vector<Category> v;
    for (const auto& b : builders()) v.push_back(b.info);
    return v;
  }();
  return out;
}

int corpusSize() {
  int n = 0;
  for (const auto& c : categories()) n += c.count;
  return n;
}

bool isPassive(const core::Scene& scene) {
  return scene.events.empty() && scene.paths.empty() &&
         std::none_of(scene.forces.begin(), scene.forces.end(), [](const ForceDef& f) {
           return f.kind == ForceKind::ConstantForce || f.kind == ForceKind::ConstantTorque;
         });
}

CorpusScene makeScene(int id) {
  if (id < 0 || id >= corpusSize()) throw std::out_of_range("corpus: no scene " + std::to_string(id));
  int first = 0;
  const CategoryBuilder* cat = nullptr;
  for (const auto& b : builders()) {
    if (id < first + b.info.count) {
      cat = &b;
      break;
    }
    first += b.info.count;
  }
  CorpusScene out;
  out.id = id;
  out.category = cat->info.name;
  out.seed = sceneSeed(id);
  Rng rng(out.seed);
  out.scene.settings.duration = 60.0;
  Ctx ctx{out.scene, rng};
  cat->build(ctx);
  out.conservative = ctx.conservative && out.scene.events.empty() && out.scene.paths.empty();
  out.passive = isPassive(out.scene);
  out.keepIn = ctx.keepIn;
  // the scene as a file holds it (the reader normalizes quaternions, for one): a dumped scene
  // then replays bitwise in tether-cli
  out.scene = core::sceneFromJson(core::sceneToJson(out.scene));
  out.note = ctx.note;
  return out;
}

}  // namespace tether::robustness
