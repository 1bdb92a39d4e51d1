#include "core/collision.h"

#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace tether::core {

namespace {

constexpr double kPi = std::numbers::pi;

btVector3 toBt(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
Vec3 fromBt(const btVector3& v) { return {v.x(), v.y(), v.z()}; }
btTransform btPose(const Vec3& x, const Quat& q) {
  const Quat u = q.normalized();
  return btTransform(btQuaternion(u.x(), u.y(), u.z(), u.w()), toBt(x));
}

// The torus's chord-polygon vertices in body coordinates (the xy plane).
Vec3 torusVertex(double majorRadius, int k, int n) {
  const double phi = 2.0 * kPi * k / n;
  return {majorRadius * std::cos(phi), majorRadius * std::sin(phi), 0.0};
}

// Bodies i and j may touch (the broad phase's filter): both collide, not both fixed, groups.
bool mayTouch(const CollisionBody& a, const CollisionBody& b) {
  return a.collides && b.collides && !(a.fixed && b.fixed) &&
         (a.group & b.mask) != 0 && (b.group & a.mask) != 0;
}

bool sameShape(const CollisionBody& a, const CollisionBody& b) {
  if (a.shape != b.shape) return false;
  switch (a.shape) {
    case Shape::Sphere: return a.radius == b.radius;
    case Shape::Rod: return a.radius == b.radius && a.length == b.length;
    case Shape::Box: return a.size == b.size;
    case Shape::Torus: return a.majorRadius == b.majorRadius && a.minorRadius == b.minorRadius;
  }
  return false;
}
bool sameFilter(const CollisionBody& a, const CollisionBody& b) {
  return a.fixed == b.fixed && a.collides == b.collides && a.group == b.group && a.mask == b.mask;
}

void checkBody(const CollisionBody& b, std::size_t i) {
  const auto bad = [&](const std::string& what) {
    throw std::invalid_argument("collision body " + std::to_string(i) + ": " + what);
  };
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  switch (b.shape) {
    case Shape::Sphere: if (!positive(b.radius)) bad("radius must be positive"); break;
    case Shape::Rod:
      if (!positive(b.radius) || !positive(b.length)) bad("rod radius and length must be positive");
      break;
    case Shape::Box:
      if (!positive(b.size.x()) || !positive(b.size.y()) || !positive(b.size.z())) bad("box extents must be positive");
      break;
    case Shape::Torus:
      if (!positive(b.majorRadius) || !positive(b.minorRadius)) bad("torus radii must be positive");
      break;
  }
  if (!b.x.allFinite() || !b.q.coeffs().allFinite() || b.q.norm() == 0.0) bad("pose is not finite");
}

// Balls whose union reaches a body's lowest points along any direction: the sphere's centre, the
// rod's end centres, the torus's chord-polygon vertices (radius r or a), the box's corners (radius
// 0). Against a half-space a capsule's deepest point is at an end (its depth is linear along
// the segment) and a box's at a corner, so these balls give the complete, exact plane manifold.
struct Ball {
  Vec3 centre;
  double radius;
};
std::vector<Ball> planeBalls(const CollisionBody& b) {
  const Mat3 R = b.q.normalized().toRotationMatrix();
  std::vector<Ball> balls;
  switch (b.shape) {
    case Shape::Sphere: balls.push_back({b.x, b.radius}); break;
    case Shape::Rod: {
      const Vec3 h = R.col(2) * (0.5 * b.length);
      balls.push_back({b.x - h, b.radius});
      balls.push_back({b.x + h, b.radius});
      break;
    }
    case Shape::Box:
      for (int i = 0; i < 8; ++i) {
        const Vec3 c(i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5);
        balls.push_back({b.x + R * c.cwiseProduct(b.size), 0.0});
      }
      break;
    case Shape::Torus: {
      const int n = torusChordCount(b.majorRadius, b.minorRadius);
      for (int k = 0; k < n; ++k) balls.push_back({b.x + R * torusVertex(b.majorRadius, k, n), b.minorRadius});
      break;
    }
  }
  return balls;
}

bool lessPoint(const Vec3& a, const Vec3& b) {
  if (a.x() != b.x()) return a.x() < b.x();
  if (a.y() != b.y()) return a.y() < b.y();
  return a.z() < b.z();
}

// Contacts of one pair closer than tol (midpoints) are one: the deepest is kept. Two torus
// chords meeting at a vertex, a rod's end ball and Bullet's point at the same place.
void mergeClose(std::vector<Contact>& cs, double tol) {
  std::sort(cs.begin(), cs.end(), [](const Contact& a, const Contact& b) {
    return a.depth != b.depth ? a.depth > b.depth : lessPoint(a.pointA, b.pointA);
  });
  // The kept contacts' midpoints in order of x: a contact's near ones lie within tol of its x
  // (|dx| <= the distance), so each looks at those alone (two fat tori lying on each other have
  // a contact for each pair of chords within the margin).
  std::vector<Contact> kept;
  std::vector<Vec3> byX;
  const auto lessX = [](const Vec3& p, const Vec3& q) { return p.x() < q.x(); };
  for (const Contact& c : cs) {
    const Vec3 m = 0.5 * (c.pointA + c.pointB);
    bool near = false;
    for (auto k = std::lower_bound(byX.begin(), byX.end(), Vec3(m.x() - tol, 0.0, 0.0), lessX);
         k != byX.end() && k->x() <= m.x() + tol && !near; ++k)
      near = (*k - m).norm() < tol;
    if (near) continue;
    byX.insert(std::upper_bound(byX.begin(), byX.end(), m, lessX), m);
    kept.push_back(c);
  }
  cs = std::move(kept);
}

// A rod end's ball counts towards a line contact if its normal is within this angle of one of
// Bullet's normals for the pair (cos 15 deg): lying along a face or a parallel capsule the
// normals agree exactly; a ball reaching into the other body from another side does not.
constexpr double kLineContactCos = 0.9659258262890683;

// One pair's points as Bullet's algorithm reports them, in the order (a, other), before any
// manifold caching (which merges close points and keeps 4). Bullet's A is the manifold's
// body 0, which may be either wrapper (as btCollisionWorld's own bridged result reads it).
struct PairResult final : btManifoldResult {
  const btCollisionObject* a = nullptr;
  std::vector<Contact>* out = nullptr;
  double margin = 0.0;
  PairResult(const btCollisionObjectWrapper* w0, const btCollisionObjectWrapper* w1) : btManifoldResult(w0, w1) {}
  void addContactPoint(const btVector3& normalOnB, const btVector3& pointOnB, btScalar distance) override {
    if (!(distance < margin)) return;
    const bool swapped = m_manifoldPtr && m_manifoldPtr->getBody0() != m_body0Wrap->getCollisionObject();
    const btCollisionObject* bulletA = (swapped ? m_body1Wrap : m_body0Wrap)->getCollisionObject();
    const Vec3 onB = fromBt(pointOnB), n = fromBt(normalOnB);
    const Vec3 onA = onB + distance * n;  // Bullet's A point: pushed back along the normal
    Contact c;
    const bool same = bulletA == a;
    c.pointA = same ? onA : onB;
    c.pointB = same ? onB : onA;
    c.normal = same ? n : Vec3(-n);
    c.depth = -distance;
    out->push_back(c);
  }
};

// Two capsules (rods, a torus's chords): the one point of their least distance, in closed form
// (Bullet's capsule-capsule test is the same closed form; asking it through its dispatcher cost
// a torus chain most of its step in making and freeing an algorithm and a manifold per chord
// pair). A's segment is p + s u, s in [0, 1], B's q + t v, t in [0, 1], w = p - q; their squared
// distance |w + s u - t v|^2 is convex, least where its gradient vanishes,
//   a s - b t = -c,  b s - e t = -f,   a = u.u, b = u.v, e = v.v, c = u.w, f = v.w,
// s = (b f - c e) / (a e - b^2). On the unit square (Ericson, Real-Time Collision Detection,
// 5.1.9): s clamped to [0, 1], then the best t for it, t = (b s + f) / e; where that leaves
// [0, 1], t clamped and s again the best for it, (b t - c) / a, clamped. Parallel segments
// (a e - b^2 = 0) have a line of closest pairs: s = 0 there. With x_A, x_B the closest points and
// d = |x_A - x_B|, the gap is d - r_A - r_B along n = (x_A - x_B) / d (from B to A), the points
// x_A - r_A n on A and x_B + r_B n on B; crossing axes (d = 0) take n across both, u x v.
void capsuleContact(const btCollisionObject& A, const btCollisionObject& B, double margin, std::vector<Contact>& out) {
  const auto& ca = static_cast<const btCapsuleShape&>(*A.getCollisionShape());
  const auto& cb = static_cast<const btCapsuleShape&>(*B.getCollisionShape());
  const auto segment = [](const btCollisionObject& o, const btCapsuleShape& c, Vec3& start, Vec3& along) {
    const btTransform& t = o.getWorldTransform();
    const Vec3 half = fromBt(t.getBasis().getColumn(c.getUpAxis())) * c.getHalfHeight();
    start = fromBt(t.getOrigin()) - half;
    along = 2.0 * half;
  };
  Vec3 p, u, q, v;
  segment(A, ca, p, u);
  segment(B, cb, q, v);
  const double ra = ca.getRadius(), rb = cb.getRadius();
  const Vec3 w = p - q;
  const double a = u.dot(u), b = u.dot(v), e = v.dot(v), c = u.dot(w), f = v.dot(w);
  const double denom = a * e - b * b;
  double s = denom > 0.0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  double t = e > 0.0 ? (b * s + f) / e : 0.0;
  if (t < 0.0 || t > 1.0) {
    t = std::clamp(t, 0.0, 1.0);
    s = a > 0.0 ? std::clamp((b * t - c) / a, 0.0, 1.0) : 0.0;
  }
  const Vec3 xa = p + s * u, xb = q + t * v;
  const double d = (xa - xb).norm();
  const double gap = d - ra - rb;
  if (!(gap < margin)) return;
  Vec3 n = d > 0.0 ? Vec3((xa - xb) / d) : Vec3(u.cross(v));
  if (d == 0.0) {
    if (n.squaredNorm() == 0.0) n = u.unitOrthogonal();  // parallel axes through each other
    n.normalize();
  }
  Contact k;
  k.pointA = xa - ra * n;
  k.pointB = xb + rb * n;
  k.normal = n;
  k.depth = -gap;
  out.push_back(k);
}

// A joint's anchor as the contacts near it see it: a point, or the line through it along a unit
// axis (JoinedPair::axis).
struct Reach {
  Vec3 at;
  Vec3 axis;         // unit, or zero
  double gap = 0.0;  // how far apart the joint's two points are (JoinedPair::gap), m
  double distance(const Vec3& p) const {
    const Vec3 r = p - at;
    return (r - r.dot(axis) * axis).norm();
  }
};

}  // namespace

double farthestFrom(const CollisionBody& b, const Vec3& p) {
  switch (b.shape) {
    case Shape::Sphere: return p.norm() + b.radius;
    case Shape::Rod: {
      const Vec3 h(0.0, 0.0, 0.5 * b.length);
      return std::max((p - h).norm(), (p + h).norm()) + b.radius;
    }
    case Shape::Box: return (p.cwiseAbs() + 0.5 * b.size).norm();  // (the corner on the far side of each axis)
    case Shape::Torus: return p.norm() + b.majorRadius + b.minorRadius;
  }
  return 0.0;
}

CollisionBody collisionBody(const BodyDef& b) {
  CollisionBody c;
  c.shape = b.shape;
  c.length = b.length;
  c.radius = b.radius;
  c.majorRadius = b.majorRadius;
  c.minorRadius = b.minorRadius;
  c.size = b.size;
  c.x = b.position;
  c.q = b.orientation;
  c.fixed = b.fixed;
  c.collides = b.collides;
  c.group = b.collisionGroup;
  c.mask = b.collisionMask;
  return c;
}

int torusChordCount(double majorRadius, double minorRadius) {
  // s = R (1 - cos(pi / N)) <= a / 20  <=>  pi / N <= acos(1 - a / (20 R))
  const double maxHalfAngle = std::acos(std::clamp(1.0 - minorRadius / (20.0 * majorRadius), -1.0, 1.0));
  const double n = maxHalfAngle > 0.0 ? std::ceil(kPi / maxHalfAngle) : 256.0;
  const int multipleOf4 = 4 * static_cast<int>(std::ceil(std::min(n, 256.0) / 4.0));
  return std::clamp(multipleOf4, 12, 256);
}

double torusSurfaceError(double majorRadius, double minorRadius) {
  return majorRadius * (1.0 - std::cos(kPi / torusChordCount(majorRadius, minorRadius)));
}

double jointThickness(const CollisionBody& b) {
  switch (b.shape) {
    case Shape::Sphere:
    case Shape::Rod: return b.radius;
    // a torus hooked at its rim wraps around what holds it: its tube crosses that body along an
    // arc as long as the hoop (a link hung from a door's face has its tube 3 cm in the door up to
    // 8 cm from the hook), so the whole hoop is near its joint
    case Shape::Torus: return b.majorRadius + b.minorRadius;
    case Shape::Box: return 0.5 * b.size.minCoeff();
  }
  return 0.0;
}

double pinDepth(const CollisionBody& b, const Vec3& p) {
  if (b.shape != Shape::Torus) return depthInside(b, p);
  const Vec3 l = b.q.normalized().conjugate() * (p - b.x);
  return b.minorRadius - std::hypot(std::hypot(l.x(), l.y()) - b.majorRadius, l.z());
}

namespace {
// rho of a joint or pin held inside its two sides by these depths (< 0: outside; see
// jointExclusionRadius and PinnedPoint), at least 2 margin: the contact at the point itself
double ownOverlapRadius(double inFirst, double inSecond, double margin) {
  const double own = inFirst + inSecond > 0.0 ? 2.0 * (std::max(0.0, inFirst) + std::max(0.0, inSecond)) : 0.0;
  return std::max(own, 2.0 * margin);
}
}  // namespace

double jointExclusionRadius(const CollisionBody& a, const CollisionBody& b, const Vec3& anchor, double margin) {
  if (a.shape == Shape::Torus || b.shape == Shape::Torus) return 2.0 * (jointThickness(a) + jointThickness(b));
  return ownOverlapRadius(std::max(0.0, depthInside(a, anchor)), std::max(0.0, depthInside(b, anchor)), margin);
}

double depthInside(const CollisionBody& b, const Vec3& p) {
  const Vec3 l = b.q.normalized().conjugate() * (p - b.x);
  switch (b.shape) {
    case Shape::Sphere: return b.radius - l.norm();
    case Shape::Rod: {
      const Vec3 onAxis(0.0, 0.0, std::clamp(l.z(), -0.5 * b.length, 0.5 * b.length));
      return b.radius - (l - onAxis).norm();
    }
    case Shape::Box: return (0.5 * b.size - l.cwiseAbs()).minCoeff();
    case Shape::Torus: break;
  }
  return -std::numeric_limits<double>::infinity();
}

bool jointIsInside(const CollisionBody& a, const CollisionBody& b, const Vec3& anchor) {
  return depthInside(a, anchor) >= 0.5 * jointThickness(a) && depthInside(b, anchor) >= 0.5 * jointThickness(b);
}

struct CollisionDetector::Impl {
  // One body's Bullet objects, rebuilt when its shape or filtering changes: one, or for a
  // torus one per chord capsule. The chords are separate objects rather than a btCompoundShape:
  // Bullet's compound algorithm writes every child's points into one shared 4-point manifold,
  // merging and replacing them in the order its child tree is walked; separate objects give
  // each chord its own points.
  struct Slot {
    CollisionBody built;                      // shape and filter it was built with
    std::unique_ptr<btCollisionShape> shape;  // shared by the body's objects
    std::vector<btTransform> parts;           // each object's pose in body coordinates
    std::vector<std::unique_ptr<btCollisionObject>> objects;
    // A torus's one object in the broad phase, boxed round the whole torus: its chords are not
    // in the broad phase (a torus chain's hundreds of chord boxes made most of a step's time
    // there) but culled pair by pair against each other's boxes (bodyPairContacts).
    std::unique_ptr<btCollisionObject> proxy;
    std::vector<btVector3> partLo, partHi;  // each object's box, widened by the margin
    btVector3 boxLo, boxHi;                 // the body's box, widened by the margin
    bool inWorld = false;
    btCollisionObject* broad() const { return proxy ? proxy.get() : objects.front().get(); }
  };

  struct PairFilter final : btOverlapFilterCallback {
    const std::vector<CollisionBody>* bodies = nullptr;
    bool needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const override {
      const int i = static_cast<const btCollisionObject*>(p0->m_clientObject)->getUserIndex();
      const int j = static_cast<const btCollisionObject*>(p1->m_clientObject)->getUserIndex();
      return i != j && mayTouch((*bodies)[std::size_t(i)], (*bodies)[std::size_t(j)]);
    }
  };

  // Kept between queries: the broad phase with the bodies' objects (a query moves them and
  // updates their boxes). Not kept: any narrow-phase result. Each overlapping pair is computed
  // by a new Bullet algorithm with its objects in body order, so a pair's points depend on its
  // two poses alone. (With btCollisionWorld keeping an algorithm and manifold per pair, results
  // after other poses differed from a fresh world's in the last bits, and by up to 1e-8 m for
  // GJK/EPA pairs, even with every manifold cleared before the query.)
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher{&config};
  btDbvtBroadphase broadphase;
  btCollisionWorld world{&dispatcher, &broadphase, &config};
  PairFilter filter;
  std::vector<Slot> slots;
  btSphereShape probeShape{1.0};
  btCollisionObject probe;

  Impl() {
    world.getPairCache()->setOverlapFilterCallback(&filter);
    probe.setCollisionShape(&probeShape);
    probe.setUserIndex(-1);
  }
  ~Impl() {
    for (Slot& s : slots) remove(s);
  }

  void remove(Slot& s) {
    if (s.inWorld) world.removeCollisionObject(s.broad());
    s.inWorld = false;
  }

  static void buildShape(Slot& s, const CollisionBody& b, int index) {
    s.parts.assign(1, btTransform::getIdentity());
    switch (b.shape) {
      case Shape::Sphere: s.shape = std::make_unique<btSphereShape>(b.radius); break;
      // btCapsuleShapeZ(radius, height): the segment z in [-height/2, height/2], end1..end2
      case Shape::Rod: s.shape = std::make_unique<btCapsuleShapeZ>(b.radius, b.length); break;
      case Shape::Box: {
        auto box = std::make_unique<btBoxShape>(toBt(0.5 * b.size));
        // Bullet shrinks a box by its margin and rounds it back by the margin: with none the
        // shape is the exact box (box-box and sphere-box are closed forms; GJK/EPA on the rest)
        box->setMargin(0.0);
        s.shape = std::move(box);
        break;
      }
      case Shape::Torus: {
        const int n = torusChordCount(b.majorRadius, b.minorRadius);
        const double chordLength = 2.0 * b.majorRadius * std::sin(kPi / n);
        s.shape = std::make_unique<btCapsuleShapeZ>(b.minorRadius, chordLength);
        s.parts.clear();
        for (int k = 0; k < n; ++k) {
          const Vec3 v0 = torusVertex(b.majorRadius, k, n), v1 = torusVertex(b.majorRadius, k + 1, n);
          s.parts.push_back(btPose(0.5 * (v0 + v1), Quat::FromTwoVectors(Vec3::UnitZ(), (v1 - v0).normalized())));
        }
        break;
      }
    }
    s.objects.clear();
    for (std::size_t k = 0; k < s.parts.size(); ++k) {
      auto o = std::make_unique<btCollisionObject>();
      o->setCollisionShape(s.shape.get());
      o->setUserIndex(index);
      o->setUserIndex2(static_cast<int>(k));
      s.objects.push_back(std::move(o));
    }
    s.proxy.reset();
    if (b.shape == Shape::Torus) {
      s.proxy = std::make_unique<btCollisionObject>();
      s.proxy->setCollisionShape(s.shape.get());
      s.proxy->setUserIndex(index);
      s.proxy->setUserIndex2(0);
    }
  }

  // Moves a body's objects and sets their boxes, and the body's broad-phase box, to the shapes'
  // exact bounds widened by the margin (btCollisionWorld's own update widens every box by
  // gContactBreakingThreshold, 2 cm, which for centimetre bodies makes tens of times more pairs
  // than touch). A chord's box is its segment's, grown by the tube's radius; the torus's, per
  // world axis e, R sqrt(1 - (n.e)^2) + a about its centre (n its axis): the circle of radius R
  // reaches R |n x e| along e, and the chords lie inside the circle.
  double margin = 0.0;  // the query's (CollisionQuery::margin): boxes widened by it, points kept within it
  void place(Slot& s, const CollisionBody& b) {
    const btTransform pose = btPose(b.x, b.q);
    const btVector3 m(margin, margin, margin);
    s.partLo.resize(s.objects.size());
    s.partHi.resize(s.objects.size());
    for (std::size_t k = 0; k < s.objects.size(); ++k) {
      btCollisionObject& o = *s.objects[k];
      o.setWorldTransform(pose * s.parts[k]);
      if (s.proxy) {
        const auto& chord = static_cast<const btCapsuleShape&>(*s.shape);
        const btVector3 c = o.getWorldTransform().getOrigin();
        const btVector3 half = o.getWorldTransform().getBasis().getColumn(2) * chord.getHalfHeight();
        const btVector3 grow = m + btVector3(1, 1, 1) * chord.getRadius();
        s.partLo[k] = (c - half);
        s.partLo[k].setMin(c + half);
        s.partLo[k] -= grow;
        s.partHi[k] = (c - half);
        s.partHi[k].setMax(c + half);
        s.partHi[k] += grow;
      } else {
        o.getCollisionShape()->getAabb(o.getWorldTransform(), s.partLo[k], s.partHi[k]);
        s.partLo[k] -= m;
        s.partHi[k] += m;
      }
    }
    if (s.proxy) {
      s.proxy->setWorldTransform(pose);
      const btVector3 n = pose.getBasis().getColumn(2);
      btVector3 reach;
      for (int e = 0; e < 3; ++e)
        reach[e] = b.majorRadius * std::sqrt(std::max(0.0, 1.0 - n[e] * n[e])) + b.minorRadius + margin;
      s.boxLo = pose.getOrigin() - reach;
      s.boxHi = pose.getOrigin() + reach;
    } else {
      s.boxLo = s.partLo.front();
      s.boxHi = s.partHi.front();
    }
    if (btBroadphaseProxy* h = s.broad()->getBroadphaseHandle()) broadphase.setAabb(h, s.boxLo, s.boxHi, &dispatcher);
  }

  // Brings Bullet's objects in line with the query: rebuilt where the shape or filter changed
  // (re-adding makes the broad phase filter the body's pairs again), else moved.
  void sync(const std::vector<CollisionBody>& bodies) {
    filter.bodies = &bodies;
    while (slots.size() > bodies.size()) {
      remove(slots.back());
      slots.pop_back();
    }
    slots.resize(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const CollisionBody& b = bodies[i];
      Slot& s = slots[i];
      const bool shapeOk = !s.objects.empty() && sameShape(s.built, b);
      if (shapeOk && sameFilter(s.built, b)) {
        place(s, b);
        continue;
      }
      remove(s);
      if (!shapeOk) buildShape(s, b, static_cast<int>(i));
      s.built = b;
      place(s, b);
      if (b.collides) {
        world.addCollisionObject(s.broad());
        s.inWorld = true;
        place(s, b);  // (the world gave the new objects' boxes their exact bounds, without the margin)
      }
    }
  }

  // The bodies whose boxes overlap, each pair (lower, higher) once, in body order.
  std::vector<std::pair<int, int>> overlappingPairs() {
    broadphase.calculateOverlappingPairs(&dispatcher);
    std::vector<std::pair<int, int>> out;
    const btBroadphasePairArray& pairs = world.getPairCache()->getOverlappingPairArray();
    for (int k = 0; k < pairs.size(); ++k) {
      const btBroadphaseProxy* p0 = pairs[k].m_pProxy0;
      const btBroadphaseProxy* p1 = pairs[k].m_pProxy1;
      // the pair cache keeps pairs a while after their boxes part
      if (!TestAabbAgainstAabb2(p0->m_aabbMin, p0->m_aabbMax, p1->m_aabbMin, p1->m_aabbMax)) continue;
      const int i = static_cast<const btCollisionObject*>(p0->m_clientObject)->getUserIndex();
      const int j = static_cast<const btCollisionObject*>(p1->m_clientObject)->getUserIndex();
      out.emplace_back(std::min(i, j), std::max(i, j));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // The points of bodies i < j whose boxes overlap: of each pair of their objects (a torus's
  // chords) whose boxes overlap, i's parts in order, then j's.
  std::vector<std::size_t> nearParts;
  void bodyPairContacts(int i, int j, std::vector<Contact>& out) {
    const Slot& si = slots[std::size_t(i)];
    const Slot& sj = slots[std::size_t(j)];
    nearParts.clear();
    for (std::size_t l = 0; l < sj.objects.size(); ++l)
      if (TestAabbAgainstAabb2(sj.partLo[l], sj.partHi[l], si.boxLo, si.boxHi)) nearParts.push_back(l);
    for (std::size_t k = 0; k < si.objects.size(); ++k) {
      if (!TestAabbAgainstAabb2(si.partLo[k], si.partHi[k], sj.boxLo, sj.boxHi)) continue;
      for (const std::size_t l : nearParts)
        if (TestAabbAgainstAabb2(si.partLo[k], si.partHi[k], sj.partLo[l], sj.partHi[l]))
          pairContacts(si.objects[k].get(), sj.objects[l].get(), out);
    }
  }

  // Bullet's points for two objects, A = a, with A's pose aPose: a new algorithm for the pair,
  // its result, gone.
  void process(btCollisionObject* a, const btTransform& aPose, btCollisionObject* b, std::vector<Contact>& out) {
    const btCollisionObjectWrapper wa(nullptr, a->getCollisionShape(), a, aPose, -1, -1);
    const btCollisionObjectWrapper wb(nullptr, b->getCollisionShape(), b, b->getWorldTransform(), -1, -1);
    btCollisionAlgorithm* algorithm = dispatcher.findAlgorithm(&wa, &wb, nullptr, BT_CONTACT_POINT_ALGORITHMS);
    if (!algorithm) return;
    PairResult result(&wa, &wb);
    result.a = a;
    result.out = &out;
    result.margin = margin;
    result.m_closestPointDistanceThreshold = margin;
    algorithm->processCollision(&wa, &wb, world.getDispatchInfo(), &result);
    algorithm->~btCollisionAlgorithm();
    dispatcher.freeCollisionAlgorithm(algorithm);
  }

  // The points of two objects as they are, A = a.
  void pairContacts(btCollisionObject* a, btCollisionObject* b, std::vector<Contact>& out) {
    if (a->getCollisionShape()->getShapeType() == CAPSULE_SHAPE_PROXYTYPE &&
        b->getCollisionShape()->getShapeType() == CAPSULE_SHAPE_PROXYTYPE) {
      capsuleContact(*a, *b, margin, out);
      return;
    }
    const std::size_t before = out.size();
    process(a, a->getWorldTransform(), b, out);
    if (out.size() == before && margin > 0.0 && a->getCollisionShape()->getShapeType() == BOX_SHAPE_PROXYTYPE &&
        b->getCollisionShape()->getShapeType() == BOX_SHAPE_PROXYTYPE)
      nearBoxContacts(a, b, out);
  }

  // Bullet's box-box test (btBoxBoxDetector) reports overlapping boxes only: two boxes apart by
  // less than the margin had no near contacts, where every other pair of shapes has them (Bullet's
  // closed forms and GJK report the points within the threshold). Without them a box lying
  // exactly on another (placed so) had no row to keep the overlap projection from lifting the box
  // below into it (ContactStage). Their points are those of the boxes brought together along the
  // normal n of their least distance d (GJK): A moved by d + s into B (s a little overlap, for the
  // detector), its points and depths then moved back. A translation keeps which features face
  // each other, so a box lying flat above another gets its face's corners, each as far apart as
  // the faces are.
  void nearBoxContacts(btCollisionObject* a, btCollisionObject* b, std::vector<Contact>& out) {
    constexpr double s = 1e-7;  // m
    btVoronoiSimplexSolver simplex;
    btGjkEpaPenetrationDepthSolver penetration;
    btGjkPairDetector gjk(static_cast<const btConvexShape*>(a->getCollisionShape()),
                          static_cast<const btConvexShape*>(b->getCollisionShape()), &simplex, &penetration);
    btGjkPairDetector::ClosestPointInput in;
    in.m_transformA = a->getWorldTransform();
    in.m_transformB = b->getWorldTransform();
    btPointCollector closest;
    gjk.getClosestPoints(in, closest, nullptr);
    if (!closest.m_hasResult || !(closest.m_distance < margin)) return;
    Vec3 n = fromBt(closest.m_normalOnBInWorld).normalized();  // from B to A
    if (!n.allFinite()) return;
    // a face's normal where it is one to rounding (GJK's is off by rounding across a face)
    for (const btCollisionObject* o : {a, b})
      for (int k = 0; k < 3; ++k) {
        const Vec3 axis = fromBt(o->getWorldTransform().getBasis().getColumn(k));
        if (std::abs(n.dot(axis)) > 1.0 - 1e-12) n = n.dot(axis) > 0.0 ? axis : Vec3(-axis);
      }
    const double shift = std::max(0.0, double(closest.m_distance)) + s;
    btTransform moved = a->getWorldTransform();
    moved.setOrigin(moved.getOrigin() - toBt(shift * n));
    std::vector<Contact> near;
    process(a, moved, b, near);
    for (Contact& c : near) {
      c.pointA += shift * n;
      c.depth -= shift;
      if (c.depth > -margin) out.push_back(c);
    }
  }

  // The contacts of the rod's end balls with body `other`, A = the ball.
  std::vector<Contact> endBallContacts(const CollisionBody& rod, int other) {
    std::vector<Contact> out;
    probeShape.setUnscaledRadius(rod.radius);
    const Vec3 h = rod.q.normalized() * Vec3(0.0, 0.0, 0.5 * rod.length);
    for (const Vec3& centre : {Vec3(rod.x - h), Vec3(rod.x + h)}) {
      probe.setWorldTransform(btTransform(btQuaternion::getIdentity(), toBt(centre)));
      for (auto& o : slots[std::size_t(other)].objects) pairContacts(&probe, o.get(), out);
    }
    return out;
  }

  // Completes a pair's manifold where a rod lies along the other body: Bullet reports one point
  // of a line contact, the rods' end balls give its ends (exact: ball-box and ball-capsule are
  // closed forms in Bullet). An end ball's contact is added when its normal agrees with one of
  // Bullet's; Bullet's points strictly between two such ends (along the rod) with an agreeing
  // normal and no deeper than the ends are dropped: on a flat face or a parallel capsule the
  // depth is linear along the rod, so the ends span the contact (a rod on a curved body keeps
  // its deeper middle).
  void completeRodContacts(const std::vector<CollisionBody>& bodies, int a, int b, double tol, std::vector<Contact>& cs) {
    std::vector<Contact> ends;
    const CollisionBody* firstRod = nullptr;
    for (const int rod : {a, b}) {
      const CollisionBody& r = bodies[std::size_t(rod)];
      if (r.shape != Shape::Rod) continue;
      if (!firstRod) firstRod = &r;
      for (Contact e : endBallContacts(r, rod == a ? b : a)) {
        if (rod == b) {  // the ball was A: into the pair's order
          std::swap(e.pointA, e.pointB);
          e.normal = -e.normal;
        }
        const bool agrees = std::any_of(cs.begin(), cs.end(), [&](const Contact& c) {
          return c.normal.dot(e.normal) >= kLineContactCos;
        });
        if (agrees && e.normal.allFinite()) ends.push_back(e);
      }
    }
    if (ends.size() >= 2) {
      const Vec3 axis = firstRod->q.normalized() * Vec3::UnitZ();
      const auto along = [&](const Contact& c) { return axis.dot(0.5 * (c.pointA + c.pointB)); };
      double lo = along(ends.front()), hi = lo, deepest = 0.0;
      for (const Contact& e : ends) {
        lo = std::min(lo, along(e));
        hi = std::max(hi, along(e));
        deepest = std::max(deepest, e.depth);
      }
      if (hi - lo > tol)
        std::erase_if(cs, [&](const Contact& c) {
          const bool agrees = std::any_of(ends.begin(), ends.end(), [&](const Contact& e) {
            return c.normal.dot(e.normal) >= kLineContactCos;
          });
          const double t = along(c);
          return agrees && t > lo + tol && t < hi - tol && c.depth <= deepest * (1.0 + 1e-9);
        });
    }
    cs.insert(cs.end(), ends.begin(), ends.end());
  }
};

CollisionDetector::CollisionDetector() : m_impl(std::make_unique<Impl>()) {}
CollisionDetector::~CollisionDetector() = default;

std::vector<ContactManifold> CollisionDetector::detect(const CollisionQuery& query) {
  const auto& bodies = query.bodies;
  const int n = static_cast<int>(bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i) checkBody(bodies[i], i);
  std::vector<GroundPlane> planes = query.planes;
  for (std::size_t p = 0; p < planes.size(); ++p) {
    const double len = planes[p].normal.norm();
    if (!(len > 0.0) || !std::isfinite(len) || !planes[p].point.allFinite())
      throw std::invalid_argument("ground plane " + std::to_string(p) + ": needs a finite point and a non-zero normal");
    planes[p].normal /= len;
  }
  // joints' anchors per pair (lo, hi), whose nearby contacts are the joints' own
  std::map<std::pair<int, int>, std::vector<Reach>> anchors;
  for (std::size_t k = 0; k < query.joined.size(); ++k) {
    const JoinedPair& j = query.joined[k];
    if (j.a < 0 || j.a >= n || j.b < 0 || j.b >= n || j.a == j.b)
      throw std::invalid_argument("joined pair " + std::to_string(k) + ": needs two different body indices below " +
                                  std::to_string(n));
    if (!j.anchor.allFinite() || !j.axis.allFinite() || !(j.gap >= 0.0 && std::isfinite(j.gap)))
      throw std::invalid_argument("joined pair " + std::to_string(k) + ": needs a finite anchor and axis and a finite gap >= 0");
    if (!j.collide) anchors[{std::min(j.a, j.b), std::max(j.a, j.b)}].push_back({j.anchor, j.axis.normalized(), j.gap});
  }
  // points pinned to the world, per body
  std::map<int, std::vector<Reach>> pins;
  for (std::size_t k = 0; k < query.pinned.size(); ++k) {
    const PinnedPoint& p = query.pinned[k];
    if (p.body < 0 || p.body >= n || !p.anchor.allFinite())
      throw std::invalid_argument("pinned point " + std::to_string(k) + ": needs a body index below " + std::to_string(n) +
                                  " and a finite anchor");
    pins[p.body].push_back({p.anchor, Vec3::Zero()});
  }
  // the joint's share of contacts near anchors (JoinedPair, PinnedPoint): rho - d, d the
  // distance to the anchor (or its line), rhoAt(anchor) its radius (the largest share), but no
  // more than the overlap the joint forces, capAt(anchor), for a contact deeper than that; the
  // contacts it leaves nothing to hold are dropped.
  // The cap: two convex bodies held at an anchor inside them by p_A and p_B overlap there by
  // p_A + p_B = rho / 2 (jointExclusionRadius), and turned about it they can always be posed so
  // that they overlap no deeper, as a rod whose end is held at a box's face lying down on it
  // (depth r - s sin(phi) at s along it). Deeper is no longer the joint's: a rod whose end is
  // held at the top of a bar of radius R, swung down over its side by phi, is in it by
  // r + R (1 - cos phi) at s = R sin(phi) from the anchor; counted rho - d (2 r - s), it sank
  // 28 degrees into the bar (3.6 mm deeper than its end cap). Counted so, the contact sets in
  // with nothing to push out and holds what lies beyond p_A + p_B (with 1e-3 of it to spare for
  // round-off, and the joint's gap while it assembles: its two points apart by g overlap by up
  // to g more than at their midpoint). A torus hooked at its rim wraps around what holds it
  // (jointExclusionRadius): no cap.
  const auto shareWithJoint = [&](std::vector<Contact>& cs, const std::vector<Reach>& at, const auto& rhoAt,
                                  const auto& capAt) {
    for (const Reach& r : at) {
      const double rho = rhoAt(r.at);
      const double cap = capAt(r, rho);
      for (Contact& c : cs) {
        const double taper = rho - r.distance(0.5 * (c.pointA + c.pointB));
        c.jointDepth = std::max(c.jointDepth, c.depth > cap ? std::min(taper, cap) : taper);
      }
    }
    std::erase_if(cs, [&](const Contact& c) { return !(c.held() > -query.margin); });
  };
  const auto ownCap = [](const Reach& r, double rho) { return 0.5 * rho * (1.0 + 1e-3) + r.gap; };
  // a pin's radius against the world (PinnedPoint): inWorld is the anchor's depth inside the
  // plane's solid or the fixed body (< 0 outside)
  const auto pinRho = [&](const CollisionBody& b, const Vec3& p, double inWorld) {
    return ownOverlapRadius(std::max(0.0, pinDepth(b, p)), inWorld, query.margin);
  };
  // pairs joined deep inside both: no contacts (jointIsInside)
  std::set<std::pair<int, int>> inside;
  for (const auto& pair : anchors) {
    const CollisionBody& A = bodies[std::size_t(pair.first.first)];
    const CollisionBody& B = bodies[std::size_t(pair.first.second)];
    if (std::any_of(pair.second.begin(), pair.second.end(), [&](const Reach& r) { return jointIsInside(A, B, r.at); }))
      inside.insert(pair.first);
  }

  // Bullet's points per body pair (a torus contributes one object per chord)
  Impl& im = *m_impl;
  im.margin = query.margin;
  im.sync(bodies);
  std::map<std::pair<int, int>, std::vector<Contact>> pairs;
  for (const auto& pair : im.overlappingPairs()) {
    if (inside.contains(pair)) continue;
    im.bodyPairContacts(pair.first, pair.second, pairs[pair]);
  }
  std::erase_if(pairs, [](const auto& p) { return p.second.empty(); });

  std::vector<ContactManifold> out;
  // planes first for each body (bodyB = -1 sorts before any body)
  std::map<int, std::vector<ContactManifold>> planeManifolds;
  for (int i = 0; i < n; ++i) {
    const CollisionBody& b = bodies[std::size_t(i)];
    if (!b.collides || b.fixed) continue;
    std::vector<Ball> balls;
    for (std::size_t p = 0; p < planes.size(); ++p) {
      const GroundPlane& pl = planes[p];
      if ((b.group & pl.mask) == 0 || (pl.group & b.mask) == 0) continue;
      if (balls.empty()) balls = planeBalls(b);
      ContactManifold man{.bodyA = i, .bodyB = -1, .plane = static_cast<int>(p), .contacts = {}};
      for (const Ball& ball : balls) {
        // height of the ball's centre over the plane s; its lowest point is s - radius over it
        const double s = (ball.centre - pl.point).dot(pl.normal);
        const double depth = ball.radius - s;
        if (!(depth > -query.margin)) continue;
        const Vec3 pointA = ball.centre - ball.radius * pl.normal;
        man.contacts.push_back({.bodyA = i, .bodyB = -1, .pointA = pointA, .pointB = ball.centre - s * pl.normal,
                                .normal = pl.normal, .depth = depth});
      }
      if (const auto pin = pins.find(i); pin != pins.end())
        shareWithJoint(
            man.contacts, pin->second, [&](const Vec3& p) { return pinRho(b, p, (pl.point - p).dot(pl.normal)); }, ownCap);
      if (!man.contacts.empty()) planeManifolds[i].push_back(std::move(man));
    }
  }

  const auto finish = [](std::vector<Contact>& cs) {
    std::sort(cs.begin(), cs.end(), [](const Contact& x, const Contact& y) { return lessPoint(x.pointA, y.pointA); });
  };
  auto planeIt = planeManifolds.begin();
  const auto flushPlanesUpTo = [&](int bodyA) {
    for (; planeIt != planeManifolds.end() && planeIt->first <= bodyA; ++planeIt)
      for (ContactManifold& m : planeIt->second) {
        finish(m.contacts);
        out.push_back(std::move(m));
      }
  };
  for (auto& [key, cs] : pairs) {
    const auto [a, b] = key;
    flushPlanesUpTo(a);
    const CollisionBody& A = bodies[std::size_t(a)];
    const CollisionBody& B = bodies[std::size_t(b)];
    std::erase_if(cs, [](const Contact& c) { return !c.normal.allFinite() || !c.pointA.allFinite(); });
    if (cs.empty()) continue;
    const double tol = 1e-3 * (jointThickness(A) + jointThickness(B));
    im.completeRodContacts(bodies, a, b, tol, cs);
    mergeClose(cs, tol);
    if (const auto j = anchors.find(key); j != anchors.end()) {
      const bool torus = A.shape == Shape::Torus || B.shape == Shape::Torus;
      shareWithJoint(
          cs, j->second, [&](const Vec3& p) { return jointExclusionRadius(A, B, p, query.margin); },
          [&](const Reach& r, double rho) { return torus ? std::numeric_limits<double>::infinity() : ownCap(r, rho); });
      // the contacts within the bodies' joint thicknesses of the joint: its stop (Contact::atJoint)
      const double stop = 2.0 * (jointThickness(A) + jointThickness(B));
      for (Contact& c : cs)
        for (const Reach& r : j->second) c.atJoint = c.atJoint || r.distance(0.5 * (c.pointA + c.pointB)) < stop;
    }
    // a body pinned to the world against a fixed body (the world too)
    for (const int moving : {a, b}) {
      const CollisionBody& pinned = bodies[std::size_t(moving)];
      const CollisionBody& still = bodies[std::size_t(moving == a ? b : a)];
      if (const auto pin = pins.find(moving); pin != pins.end() && still.fixed)
        shareWithJoint(
            cs, pin->second, [&](const Vec3& p) { return pinRho(pinned, p, depthInside(still, p)); }, ownCap);
    }
    if (cs.empty()) continue;
    for (Contact& c : cs) {
      c.bodyA = a;
      c.bodyB = b;
    }
    finish(cs);
    out.push_back({.bodyA = a, .bodyB = b, .plane = -1, .contacts = std::move(cs)});
  }
  flushPlanesUpTo(n);
  return out;
}

}  // namespace tether::core
