#include "core/collision.h"

#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
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
  return a.collides && b.collides && !(a.fixed && b.fixed) && (a.group & b.mask) != 0 && (b.group & a.mask) != 0;
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
  std::vector<Contact> kept;
  for (const Contact& c : cs) {
    const Vec3 m = 0.5 * (c.pointA + c.pointB);
    const bool near = std::any_of(kept.begin(), kept.end(), [&](const Contact& k) {
      return (0.5 * (k.pointA + k.pointB) - m).norm() < tol;
    });
    if (!near) kept.push_back(c);
  }
  cs = std::move(kept);
}

// A rod end's ball counts towards a line contact if its normal is within this angle of one of
// Bullet's normals for the pair (cos 15 deg): lying along a face or a parallel capsule the
// normals agree exactly; a ball reaching into the other body from another side does not.
constexpr double kLineContactCos = 0.9659258262890683;

// Drops Bullet's ordinary (ContactResultCallback) filtering: every probe result is reported.
struct ProbeResult final : btCollisionWorld::ContactResultCallback {
  const btCollisionObject* probe = nullptr;
  std::vector<Contact>* out = nullptr;  // A = the probe ball
  btScalar addSingleResult(btManifoldPoint& cp, const btCollisionObjectWrapper* w0, int, int,
                           const btCollisionObjectWrapper*, int, int) override {
    if (!(cp.getDistance() < 0.0)) return 0;
    Contact c;
    const bool probeIsA = w0->getCollisionObject() == probe;
    c.pointA = fromBt(probeIsA ? cp.m_positionWorldOnA : cp.m_positionWorldOnB);
    c.pointB = fromBt(probeIsA ? cp.m_positionWorldOnB : cp.m_positionWorldOnA);
    c.normal = fromBt(cp.m_normalWorldOnB) * (probeIsA ? 1.0 : -1.0);
    c.depth = -cp.getDistance();
    out->push_back(c);
    return 0;
  }
};

}  // namespace

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
    case Shape::Torus: return b.minorRadius;
    case Shape::Box: return 0.5 * b.size.minCoeff();
  }
  return 0.0;
}

double jointExclusionRadius(const CollisionBody& a, const CollisionBody& b) {
  return 2.0 * (jointThickness(a) + jointThickness(b));
}

struct CollisionDetector::Impl {
  // One body's Bullet objects: one, or for a torus one per chord capsule. The chords are separate objects rather than a
  // btCompoundShape: Bullet's compound algorithm writes every child's points into one shared
  // 4-point manifold, merging and replacing them in the order its child tree is walked, which
  // depends on the previous queries; separate objects give each chord pair its own manifold.
  struct Slot {
    std::unique_ptr<btCollisionShape> shape;  // shared by the body's objects
    std::vector<btTransform> parts;           // each object's pose in body coordinates
    std::vector<std::unique_ptr<btCollisionObject>> objects;
    bool inWorld = false;
  };

  struct PairFilter final : btOverlapFilterCallback {
    const std::vector<CollisionBody>* bodies = nullptr;
    bool needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const override {
      const int i = static_cast<const btCollisionObject*>(p0->m_clientObject)->getUserIndex();
      const int j = static_cast<const btCollisionObject*>(p1->m_clientObject)->getUserIndex();
      return i != j && mayTouch((*bodies)[std::size_t(i)], (*bodies)[std::size_t(j)]);
    }
  };

  // The configuration and dispatcher (Bullet's memory pools) stay; the broad phase, the world and
  // the objects are made for each query (Frame).
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher{&config};
  struct Frame {
    btDbvtBroadphase broadphase;
    btCollisionWorld world;
    explicit Frame(Impl& im) : world(&im.dispatcher, &broadphase, &im.config) {}
  };
  std::unique_ptr<Frame> frame;
  PairFilter filter;
  std::vector<Slot> slots;
  btSphereShape probeShape{1.0};
  btCollisionObject probe;

  Impl() {
    probe.setCollisionShape(&probeShape);
    probe.setUserIndex(-1);
  }
  ~Impl() { clear(); }

  // Back to no objects: every pair's algorithm and manifold returned to the pools first (one
  // pass, rather than each object's removal searching the pairs).
  void clear() {
    if (!frame) return;
    btOverlappingPairCache* cache = frame->world.getPairCache();
    btBroadphasePairArray& pairs = cache->getOverlappingPairArray();
    for (int i = 0; i < pairs.size(); ++i) cache->cleanOverlappingPair(pairs[i], &dispatcher);
    for (Slot& s : slots) remove(s);
    slots.clear();
    frame.reset();
  }
  btCollisionWorld& world() { return frame->world; }

  void begin(const std::vector<CollisionBody>& bodies) {
    clear();
    frame = std::make_unique<Frame>(*this);
    frame->world.getPairCache()->setOverlapFilterCallback(&filter);
    sync(bodies);
  }

  void remove(Slot& s) {
    if (s.inWorld)
      for (auto& o : s.objects) world().removeCollisionObject(o.get());
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
      o->setActivationState(DISABLE_DEACTIVATION);
      s.objects.push_back(std::move(o));
    }
  }

  static void place(Slot& s, const CollisionBody& b) {
    const btTransform pose = btPose(b.x, b.q);
    for (std::size_t k = 0; k < s.objects.size(); ++k) s.objects[k]->setWorldTransform(pose * s.parts[k]);
  }

  // Bullet's objects for the query's bodies (a body that does not collide gets none in the world).
  void sync(const std::vector<CollisionBody>& bodies) {
    filter.bodies = &bodies;
    slots.resize(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const CollisionBody& b = bodies[i];
      Slot& s = slots[i];
      buildShape(s, b, static_cast<int>(i));
      place(s, b);
      if (b.collides) {
        for (auto& o : s.objects) world().addCollisionObject(o.get());
        s.inWorld = true;
      }
    }
  }

  // The contacts of the rod's end balls with body `other`, A = the ball.
  std::vector<Contact> endBallContacts(const CollisionBody& rod, int other) {
    std::vector<Contact> out;
    ProbeResult result;
    result.probe = &probe;
    result.out = &out;
    probeShape.setUnscaledRadius(rod.radius);
    const Vec3 h = rod.q.normalized() * Vec3(0.0, 0.0, 0.5 * rod.length);
    for (const Vec3& centre : {Vec3(rod.x - h), Vec3(rod.x + h)}) {
      probe.setWorldTransform(btTransform(btQuaternion::getIdentity(), toBt(centre)));
      for (auto& o : slots[std::size_t(other)].objects) world().contactPairTest(&probe, o.get(), result);
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
  // joints' anchors per pair (lo, hi) whose nearby contacts are dropped
  std::map<std::pair<int, int>, std::vector<Vec3>> anchors;
  for (std::size_t k = 0; k < query.joined.size(); ++k) {
    const JoinedPair& j = query.joined[k];
    if (j.a < 0 || j.a >= n || j.b < 0 || j.b >= n || j.a == j.b)
      throw std::invalid_argument("joined pair " + std::to_string(k) + ": needs two different body indices below " +
                                  std::to_string(n));
    if (!j.collide) anchors[{std::min(j.a, j.b), std::max(j.a, j.b)}].push_back(j.anchor);
  }

  // Bullet built afresh for every query: nothing carried over. Kept between queries (with
  // every manifold cleared first), results after other poses differed in the last bits and, for
  // GJK/EPA pairs, by up to 1e-8 m from those of a fresh world (the collision test's
  // determinism case), so the broad phase's incremental update is given up for this.
  Impl& im = *m_impl;
  im.begin(bodies);
  im.world().performDiscreteCollisionDetection();

  std::map<std::pair<int, int>, std::vector<Contact>> pairs;
  for (int m = 0; m < im.dispatcher.getNumManifolds(); ++m) {
    const btPersistentManifold* pm = im.dispatcher.getManifoldByIndexInternal(m);
    const int i0 = pm->getBody0()->getUserIndex(), i1 = pm->getBody1()->getUserIndex();
    const bool flip = i0 > i1;  // Bullet's A is body0, its normal points from body1 to body0
    for (int k = 0; k < pm->getNumContacts(); ++k) {
      const btManifoldPoint& cp = pm->getContactPoint(k);
      if (!(cp.getDistance() < 0.0)) continue;
      Contact c;
      c.pointA = fromBt(flip ? cp.m_positionWorldOnB : cp.m_positionWorldOnA);
      c.pointB = fromBt(flip ? cp.m_positionWorldOnA : cp.m_positionWorldOnB);
      c.normal = fromBt(cp.m_normalWorldOnB) * (flip ? -1.0 : 1.0);
      c.depth = -cp.getDistance();
      pairs[{std::min(i0, i1), std::max(i0, i1)}].push_back(c);
    }
  }

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
        if (!(depth > 0.0)) continue;
        const Vec3 pointA = ball.centre - ball.radius * pl.normal;
        man.contacts.push_back({.bodyA = i, .bodyB = -1, .pointA = pointA, .pointB = ball.centre - s * pl.normal,
                                .normal = pl.normal, .depth = depth});
      }
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
      const double rho = jointExclusionRadius(A, B);
      std::erase_if(cs, [&](const Contact& c) {
        const Vec3 mid = 0.5 * (c.pointA + c.pointB);
        return std::any_of(j->second.begin(), j->second.end(), [&](const Vec3& p) { return (mid - p).norm() < rho; });
      });
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
