// Collision detection: which bodies touch, where, and how deep (issue 20, deliverable 1).
// Contact dynamics consume this; nothing here moves a body.
//
// Shapes (body coordinates, as core/body.h):
//   sphere: radius r about the centre
//   rod: a capsule, the segment end1..end2 (z in [-L/2, L/2]) swept by a ball of radius r. The
//     renderer draws a rod as a flat-ended cylinder (render/mesh.cpp cylinderMesh), so the
//     capsule's hemispherical caps reach r past each drawn end. We take the capsule anyway: its
//     surface is smooth (one normal everywhere, so a rod rolling over an edge or lying across
//     another rod gets a continuous normal and depth), its distance is the exact segment
//     distance minus r (no iteration, no margin), and Bullet has a closed form for
//     capsule-capsule and capsule-sphere; a cylinder's rim makes GJK/EPA's normal jump between
//     the cap and the side as it tilts, and Bullet's btCylinderShape is GJK-only.
//   box: the box of full extents size
//   torus: not convex; approximated by N capsules of radius a (the tube radius) on the chords of
//     the centre circle (torusChordCount, torusSurfaceError below), each its own Bullet object
//     (a pair of bodies gets one contact per chord it touches: a torus deep in another body can
//     report several, some on a chord's surface inside its neighbour)
// Ground planes are half-spaces {p : (p - point) . normal < 0} (solid below).
//
// Library: Bullet's collision module in double precision behind a pimpl (no Bullet header
// here): its broad phase (btDbvtBroadphase, one box per body: a torus's chords are culled pair
// by pair) and narrow phase, sphere-sphere, sphere-box, box-box (btBoxBoxDetector: up to 4
// points), capsule-sphere in closed form, capsule-box by GJK on the cores (the segment, and the
// box itself: its margin set to 0) with the capsule's radius as margin, EPA where the cores
// overlap.
// Written here, because Bullet's one-shot result is incomplete or inexact there, or slow:
//   - capsule-capsule (rods, torus chords): the segments' least distance in closed form, as
//     Bullet's, without its dispatcher's algorithm and manifold made and freed per pair;
//   - every body against a ground plane (the box's corners, the capsule's end balls, the
//     torus's chord ends below the plane, each an exact point): Bullet's convex-plane algorithm
//     reports one point per query (a box resting on a btStaticPlaneShape: 1 point, measured) and
//     collects the others over frames in its persistent manifold;
//   - a rod's line contacts: a capsule lying along a box face or another capsule gets one point
//     from Bullet; the balls at its two ends are tested against the other body as well. (A rod
//     lying across a box narrower than the rod, its ends in the air, still gets one point.)
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/scene.h"

namespace tether::core {

// One body as the detector sees it: shape, pose and filtering.
struct CollisionBody {
  Shape shape = Shape::Sphere;
  double length = 1.0;                 // rod, m
  double radius = 0.05;                // rod and sphere, m
  double majorRadius = 0.2;            // torus: centre-circle radius, m
  double minorRadius = 0.04;           // torus: tube radius, m
  Vec3 size = Vec3(0.2, 0.2, 0.2);     // box: full extents, m
  Vec3 x = Vec3::Zero();               // centre, world, m
  Quat q = Quat::Identity();           // body -> world (unit)
  bool fixed = false;                  // never moves: no contact with another fixed body or a plane
  bool collides = true;                // false: no contact at all (an inactive body, a ghost)
  // Bodies i and j may touch only if (group_i & mask_j) and (group_j & mask_i) are non-zero.
  std::uint32_t group = 1;
  std::uint32_t mask = 0xffffffffu;
};

// The shape, dimensions, fixed flag, collision filter and initial pose of a scene body.
CollisionBody collisionBody(const BodyDef& b);

// The distance from a point p of a body (body coordinates, its centre at the origin) to the body's
// farthest point: its reach about p (exact for a sphere, rod and box; a torus: a bound, |p| + R + r).
// About p = 0, the radius of its bounding sphere.
double farthestFrom(const CollisionBody& b, const Vec3& p);

// A ground plane: solid on the side opposite the normal. Filtered like a body (its group and mask).
struct GroundPlane {
  Vec3 point = Vec3::Zero();           // m
  Vec3 normal = Vec3::UnitZ();         // unit, pointing out of the solid
  std::uint32_t group = 0xffffffffu;
  std::uint32_t mask = 0xffffffffu;
};

// Two bodies joined by a constraint at a world anchor (the joint's point on either body, or
// their midpoint while the joint assembles): a contact between them at a distance d from the
// anchor closer than rho = jointExclusionRadius has rho - d of its depth counted as the joint's
// own overlap (Contact::jointDepth), unless collide is set; it holds only what lies beyond that,
// and is dropped while that is less than -margin. A contact deeper than the overlap the joint
// forces at its anchor, rho / 2 (and the gap while it assembles), has no more than that counted:
// a rod whose end is held at a bar's top cannot swing down into the bar (no cap where a torus is
// one of the pair). Contacts farther away (the rods of a hinge
// folded onto each other) hold their whole depth -- except where the joint lies deep inside
// both bodies and neither is a torus (jointIsInside): then the pair does not collide at all.
// A joint that also keeps the pair turning about an axis through the anchor (a hinge) holds them
// together along that whole line, not at the point: d is the distance to the line. Two plates
// hinged at the edge where they touch touch along the hinge's line, and Bullet's points at the
// edge's ends, a plate's width from the anchor, are combinations of the hinge's rows.
struct JoinedPair {
  int a = -1, b = -1;                  // body indices
  Vec3 anchor = Vec3::Zero();          // world, m
  Vec3 axis = Vec3::Zero();            // unit: the line through anchor the pair turns about; zero: none
  double gap = 0.0;                    // how far apart the joint's two points are (0: met), m
  bool collide = false;                // true: keep every contact (the joint asked to collide)
};

// One contact point. normal points from B to A (moving A along it separates the pair);
// pointB = pointA + depth * normal, so both are exact surface points of their bodies.
struct Contact {
  int bodyA = -1;
  int bodyB = -1;                      // -1: a ground plane (ContactManifold::plane)
  Vec3 pointA = Vec3::Zero();          // the deepest point of A inside B, world, m
  Vec3 pointB = Vec3::Zero();          // the point of B's surface it is pushed to, world, m
  Vec3 normal = Vec3::UnitZ();         // unit, from B to A
  double depth = 0.0;                  // penetration, m (> 0; a query with a margin: down to -margin, the gap)
  // The part of depth that is a joint's own overlap, for a pair joined near the contact or a
  // body pinned to the world near it (JoinedPair, PinnedPoint; 0 otherwise): what the contact
  // holds is depth - jointDepth (> -margin).
  double jointDepth = 0.0;             // m
  double held() const { return depth - jointDepth; }
  // Within 2 (t_A + t_B) of the anchor of a joint between the pair (jointThickness): the joint's
  // stop, whose lever about the joint is short and whose row nearly repeats the joint's. It does
  // not bounce (ContactStage).
  bool atJoint = false;
  bool operator==(const Contact&) const = default;
};

// The contacts of one pair. Body pairs have bodyA < bodyB; a plane's pair has bodyB = -1 and the
// plane's index in plane (else -1).
struct ContactManifold {
  int bodyA = -1, bodyB = -1, plane = -1;
  std::vector<Contact> contacts;       // ordered by pointA (x, then y, then z)
  bool operator==(const ContactManifold&) const = default;
};

// A body's point held at a place in the world (a nail, a path, a line or plane in space;
// Constraint::pinsToWorld). The pin forces into the world the body's material around the point
// when the point lies inside the body by p_in = pinDepth and that ball of material reaches into a
// plane or fixed body (p_in > its height over the plane, or p_in + its depth in the fixed body >
// 0): a rod whose end centre is nailed at the floor's level has its end cap in the floor by its
// radius. That overlap is the pin's own, as a joined pair's near its joint: a contact of the
// body with that plane or fixed body at a distance d from the anchor counts rho - d of its depth
// as the pin's (Contact::jointDepth), rho = 2 (p_in + the anchor's depth in the world, if > 0).
// Where the pin forces nothing (a ball nailed at a point of its surface), rho is 2 margin: only
// the contact at the pinned point itself, which the pin's rows already hold. Counted as a
// conflict, the nailed end cap left out all the rod's contacts, and it fell through the floor
// and hung a metre under it.
struct PinnedPoint {
  int body = -1;
  Vec3 anchor = Vec3::Zero();          // world, m (the body's point and the place it is held at: both)
};

struct CollisionQuery {
  std::vector<CollisionBody> bodies;
  std::vector<GroundPlane> planes;
  std::vector<JoinedPair> joined;
  std::vector<PinnedPoint> pinned;
  // Also report pairs apart by less than this, m: their contacts have depth in (-margin, 0], the
  // gap as a negative depth (the contact stage's near pairs; not two boxes, which Bullet's box-box
  // test reports only touching); 0: touching pairs only.
  double margin = 0.0;
};

// The detector keeps Bullet's broad phase between queries (a query moves the bodies' objects and
// updates their boxes) but no narrow-phase state: each overlapping pair is computed by a new
// algorithm with its bodies in index order, so the same query gives the same list bitwise
// whatever was queried before. Not thread-safe: one detector per thread.
class CollisionDetector {
 public:
  CollisionDetector();
  ~CollisionDetector();
  CollisionDetector(const CollisionDetector&) = delete;
  CollisionDetector& operator=(const CollisionDetector&) = delete;

  // Every penetrating pair, ordered by (bodyA, bodyB, plane): planes' manifolds (bodyB = -1)
  // come before body pairs of the same bodyA. Throws std::invalid_argument naming a bad input
  // (a non-positive dimension, a zero normal, a joined pair's index out of range).
  std::vector<ContactManifold> detect(const CollisionQuery& query);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// The torus's capsules: N chords of the centre circle (radius R), capsule radius a. A point's
// distance to the chord polygon differs from its distance to the circle by at most the
// Hausdorff distance between the two curves (distance functions are 1-Lipschitz), which is the
// chord's sagitta s = R (1 - cos(pi / N)): reached at a chord's middle, the polygon's vertices
// lie on the circle. The torus's signed distance is d(p, circle) - a and the compound's is
// d(p, polygon) - a, so they differ by at most s everywhere: every depth, surface point and
// contact position is within s of the exact torus's. N is the smallest multiple of 4 with
// s <= a / 20 (multiple of 4: the polygon has vertices on the local x and y axes, where the
// compound is exact), and at least 12, at most 256 (where a < R / 664 the bound is s(256) > a / 20).
int torusChordCount(double majorRadius, double minorRadius);
double torusSurfaceError(double majorRadius, double minorRadius);

// The thickness of a body at a joint: rod and sphere radius, box half its smallest extent, a
// torus's outer radius (hooked at its rim, its tube wraps around what holds it).
double jointThickness(const CollisionBody& b);
// How deep a point lies inside a body for a pin (PinnedPoint), m: depthInside, but for a torus
// the depth inside its tube (a torus is not convex, but its tube around a point of it is).
double pinDepth(const CollisionBody& b, const Vec3& p);
// The reach rho of a joint's own overlap (JoinedPair): a contact of the joined pair whose
// midpoint (pointA + pointB) / 2 is at a distance d < rho from the anchor counts rho - d of its
// depth as the joint's (Contact::jointDepth) and holds only the rest. Two bodies held at an anchor
// inside them by p_A and p_B (depthInside, >= 0) overlap around it by up to p_A + p_B, within that
// of it: two capsules of radius r sharing an end (r + r, their end caps), a rod's end at a ball's
// or box's surface (the rod's radius), a box's face centre to another's (nothing). So
//   rho = 2 (p_A + p_B), or 2 margin where both are 0
// (joined at points of their surfaces: only the contact at the joint itself, which the joint's
// rows hold). A torus: rho = 2 (t_A + t_B), t = jointThickness (hooked at its rim, its tube wraps
// around what holds it along an arc as long as the hoop, far from the anchor). Joined deep inside
// both they do not collide at all (jointIsInside).
// Counting rho - d, not the whole depth: dropped whole within rho, an overlap grown unseen (a box's
// corner joined to another's face, folded through that face) came out of it 47 mm deep, and
// pushing that out at once gave the model 2.4 % more energy; counted so, a contact sets in with
// nothing to push out wherever its overlap grows faster than its distance to the anchor shrinks.
// (rho was 2 (t_A + t_B) for every pair, the bodies' thicknesses whatever the anchor: bodies joined
// at their surfaces passed through each other near the joint -- a ball joined by its surface to
// another's swung through it, two cubes joined face centre to face centre folded 2.6 mm into
// each other.)
double jointExclusionRadius(const CollisionBody& a, const CollisionBody& b, const Vec3& anchor, double margin);
// How deep a point lies inside a body, m: its distance to the surface inside (for a box, to the
// nearest face's plane), negative outside; a torus, which is not convex, -infinity.
double depthInside(const CollisionBody& b, const Vec3& p);
// Whether an anchor lies inside both bodies by at least half their joint thickness (two rods
// joined at points of their axes, a rod's end in a ball, a box's centre): such bodies are convex,
// so their overlap is one convex region, and it holds the anchor: all of it is the joint's own,
// which no move that keeps the joint removes. Two rods joined at their axes cross there, and
// Bullet's one point for the pair, the deepest, is that crossing: with the exclusion radius
// alone, arms folding onto each other went unseen until they lay nearly parallel, where the
// line contact's end balls came in 15-17 mm deep (an 11-rod chain, corpus scene 405, folded
// through itself and stayed folded); seen arm by arm instead, every such pair was held 29 deg
// open (2 asin(1/4): the arms' first points outside 2 (r_A + r_B)), a V of two thin 1 m rods
// hung from one pin 29 deg apart, and a rod folded back onto its neighbour was pried up off the
// floor. Joined at their surfaces (a box's corner on another's face) bodies do not overlap at
// the joint, and their folding stays a collision.
bool jointIsInside(const CollisionBody& a, const CollisionBody& b, const Vec3& anchor);

}  // namespace tether::core
