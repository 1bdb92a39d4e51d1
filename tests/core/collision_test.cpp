// Collision detection (core/collision.h): every shape pair and the plane against closed forms,
// complete manifolds in one query, filtering, joints, determinism, the torus's error bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <tuple>

#include "core/collision.h"

namespace tether::core {
namespace {

constexpr double kColDelta = 0.01;  // overlap of the pair cases, m

CollisionBody colSphere(const Vec3& x, double r) {
  CollisionBody b;
  b.shape = Shape::Sphere;
  b.radius = r;
  b.x = x;
  return b;
}
// a rod from end1 to end2
CollisionBody colRod(const Vec3& end1, const Vec3& end2, double r) {
  CollisionBody b;
  b.shape = Shape::Rod;
  b.radius = r;
  b.length = (end2 - end1).norm();
  b.x = 0.5 * (end1 + end2);
  b.q = Quat::FromTwoVectors(Vec3::UnitZ(), end2 - end1);
  return b;
}
CollisionBody colBox(const Vec3& x, const Vec3& size, const Quat& q = Quat::Identity()) {
  CollisionBody b;
  b.shape = Shape::Box;
  b.size = size;
  b.x = x;
  b.q = q;
  return b;
}
CollisionBody colTorus(const Vec3& x, double major, double minor, const Quat& q = Quat::Identity()) {
  CollisionBody b;
  b.shape = Shape::Torus;
  b.majorRadius = major;
  b.minorRadius = minor;
  b.x = x;
  b.q = q;
  return b;
}

std::vector<ContactManifold> colDetect(const std::vector<CollisionBody>& bodies, const std::vector<GroundPlane>& planes = {},
                                       const std::vector<JoinedPair>& joined = {}) {
  CollisionDetector d;
  return d.detect({.bodies = bodies, .planes = planes, .joined = joined});
}

std::size_t colCount(const std::vector<ContactManifold>& ms) {
  std::size_t n = 0;
  for (const auto& m : ms) n += m.contacts.size();
  return n;
}

// Every contact: a unit normal, positive depth, pointB = pointA + depth normal.
void colExpectConsistent(const std::vector<ContactManifold>& ms) {
  for (const auto& m : ms)
    for (const Contact& c : m.contacts) {
      EXPECT_EQ(c.bodyA, m.bodyA);
      EXPECT_EQ(c.bodyB, m.bodyB);
      EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
      EXPECT_GT(c.depth, 0.0);
      EXPECT_LT((c.pointA + c.depth * c.normal - c.pointB).norm(), 1e-12);
    }
}

// A pair case: body "upper" overlaps body "lower" by delta; expected: count contacts (0: at
// least 3), each of depth delta with normal +z from lower to upper (or normal), the upper
// body's points at pointsA; tol for depth and points, normalTol (if set) for the normal.
struct ColPairCase {
  const char* name;
  CollisionBody lower, upper;
  std::size_t count;
  std::vector<Vec3> pointsA;  // on the upper body, any order (empty: not checked)
  double tol;
  Vec3 normal = Vec3::UnitZ();
  double normalTol = 0.0;
};

// Both index orders: [upper, lower] has normal n, [lower, upper] -n with A and B swapped.
void colCheckPair(const ColPairCase& pc) {
  SCOPED_TRACE(pc.name);
  for (const bool upperFirst : {true, false}) {
    SCOPED_TRACE(upperFirst ? "upper first" : "lower first");
    const auto ms = upperFirst ? colDetect({pc.upper, pc.lower}) : colDetect({pc.lower, pc.upper});
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_EQ(ms[0].bodyA, 0);
    EXPECT_EQ(ms[0].bodyB, 1);
    EXPECT_EQ(ms[0].plane, -1);
    if (pc.count > 0) ASSERT_EQ(ms[0].contacts.size(), pc.count);
    else ASSERT_GE(ms[0].contacts.size(), 3u);
    colExpectConsistent(ms);
    const double s = upperFirst ? 1.0 : -1.0;
    for (const Contact& c : ms[0].contacts) {
      EXPECT_NEAR(c.depth, kColDelta, pc.tol);
      EXPECT_LT((c.normal - s * pc.normal).norm(), pc.normalTol > 0.0 ? pc.normalTol : pc.tol);
      if (pc.pointsA.empty()) continue;
      const Vec3 onUpper = upperFirst ? c.pointA : c.pointB;
      double best = 1e9;
      for (const Vec3& p : pc.pointsA) best = std::min(best, (p - onUpper).norm());
      EXPECT_LT(best, pc.tol) << onUpper.transpose();
    }
  }
}

// The ten shape pairs, each with the upper body lifted by lift (lift = 0: overlap kColDelta).
std::vector<ColPairCase> colPairCases(double lift) {
  const double d = kColDelta - lift;
  const double R = 0.2, a = 0.04;
  const Vec3 slab(1.0, 1.0, 0.2);  // a wide box, top face at z = 0.1
  std::vector<ColPairCase> cs;
  cs.push_back({"sphere-sphere", colSphere(Vec3::Zero(), 0.1), colSphere(Vec3(0, 0, 0.15 - d), 0.05), 1,
                {Vec3(0, 0, 0.1 - d)}, 1e-12});
  cs.push_back({"sphere-rod", colRod(Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0), 0.05), colSphere(Vec3(0.2, 0, 0.15 - d), 0.1), 1,
                {Vec3(0.2, 0, 0.05 - d)}, 1e-12});
  cs.push_back({"sphere-box", colBox(Vec3::Zero(), slab), colSphere(Vec3(0.1, 0.2, 0.2 - d), 0.1), 1,
                {Vec3(0.1, 0.2, 0.1 - d)}, 1e-12});
  // over the torus's vertex 0 (R, 0, 0), where the chord polygon meets the circle: exact
  cs.push_back({"sphere-torus", colTorus(Vec3::Zero(), R, a), colSphere(Vec3(R, 0, a + 0.05 - d), 0.05), 1,
                {Vec3(R, 0, a - d)}, 1e-12});
  cs.push_back({"rod-rod crossing", colRod(Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0), 0.05),
                colRod(Vec3(0, -0.5, 0.1 - d), Vec3(0, 0.5, 0.1 - d), 0.05), 1, {Vec3(0, 0, 0.05 - d)}, 1e-12});
  cs.push_back({"rod lying on box", colBox(Vec3::Zero(), slab), colRod(Vec3(-0.3, 0.1, 0.15 - d), Vec3(0.3, 0.1, 0.15 - d), 0.05),
                2, {Vec3(-0.3, 0.1, 0.1 - d), Vec3(0.3, 0.1, 0.1 - d)}, 1e-9});
  // across the torus over vertices 0 and N/2 (N is a multiple of 4)
  cs.push_back({"rod-torus", colTorus(Vec3::Zero(), R, a), colRod(Vec3(-0.3, 0, a + 0.05 - d), Vec3(0.3, 0, a + 0.05 - d), 0.05),
                2, {Vec3(-R, 0, a - d), Vec3(R, 0, a - d)}, 1e-12});
  cs.push_back({"box face-down on box", colBox(Vec3::Zero(), slab), colBox(Vec3(0, 0, 0.2 - d), Vec3(0.2, 0.2, 0.2)), 4,
                {Vec3(-0.1, -0.1, 0.1 - d), Vec3(0.1, -0.1, 0.1 - d), Vec3(-0.1, 0.1, 0.1 - d), Vec3(0.1, 0.1, 0.1 - d)},
                1e-12});
  // box on a flat torus: Bullet's point on each chord capsule under it (anywhere along the
  // chord: a segment parallel to the face), at the exact depth
  cs.push_back({"box on torus", colTorus(Vec3::Zero(), R, a), colBox(Vec3(0, 0, a + 0.1 - d), slab), 0, {}, 1e-9});
  // chain links: lower in the xy plane, upper in the xz plane through its hole, the upper's
  // tube at x = c - R touching the lower's at x = R: the exact tori touch at one point with
  // normal -x; the compounds' chords next to those vertices come closer than the vertices (by
  // less than the two tori's errors, 2 s): four symmetric points, each within 2 s in depth
  {
    const double c = 2 * R - 2 * a + d, s2 = 2 * torusSurfaceError(R, a);
    const Quat upright(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()));
    cs.push_back({"torus-torus linked", colTorus(Vec3::Zero(), R, a), colTorus(Vec3(c, 0, 0), R, a, upright), 4, {}, s2,
                  -Vec3::UnitX(), 2 * std::numbers::pi / torusChordCount(R, a)});
  }
  return cs;
}

TEST(Collision, EveryShapePairAgainstClosedForms) {
  for (const ColPairCase& pc : colPairCases(0.0)) colCheckPair(pc);
}

// Two rods in every relative pose (crossing, skew, parallel side by side or end to end, on one
// line, through each other), within the margin or touching: the deepest contact is as deep as
// the radii less the segments' least distance, found here independently by a golden-section
// search over A's segment of the distance of its point to B's segment (convex along A), and the
// contact's points lie on the two surfaces.
TEST(Collision, RodPairsMatchTheSegmentsLeastDistance) {
  const auto toSegment = [](const Vec3& x, const Vec3& q0, const Vec3& q1) {
    const Vec3 v = q1 - q0;
    return (q0 + std::clamp((x - q0).dot(v) / v.squaredNorm(), 0.0, 1.0) * v - x).norm();
  };
  const auto least = [&](const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
    const auto f = [&](double s) { return toSegment(p0 + s * (p1 - p0), q0, q1); };
    const double g = 0.5 * (std::sqrt(5.0) - 1.0);
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 200; ++k) {
      const double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
      (f(m1) <= f(m2) ? hi : lo) = (f(m1) <= f(m2) ? m2 : m1);
    }
    return std::min({f(0.5 * (lo + hi)), f(0.0), f(1.0)});
  };
  std::mt19937 rng(20);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto dir = [&] { return Vec3(u(rng), u(rng), u(rng)).normalized(); };
  CollisionDetector d;
  const double margin = 1e-3;
  int touching = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const double ra = 0.01 + 0.05 * (u(rng) + 1.0), rb = 0.01 + 0.05 * (u(rng) + 1.0);
    const Vec3 p0 = 0.3 * Vec3(u(rng), u(rng), u(rng));
    const Vec3 ua = dir();
    const Vec3 p1 = p0 + (0.1 + 0.3 * (u(rng) + 1.0)) * ua;
    // B: skew, parallel beside A, on A's line, or crossing through it
    const int kind = trial % 4;
    Vec3 ub = kind == 1 || kind == 2 ? ua : dir();
    Vec3 side = ua.unitOrthogonal();
    side = Eigen::AngleAxisd(3.0 * u(rng), ua) * side;
    const double apart = ra + rb + (kind == 3 ? -(ra + rb) * (u(rng) + 1.0) : 2.0 * margin * u(rng));
    Vec3 q0 = p0 + (0.5 + 0.5 * u(rng)) * (p1 - p0) + (kind == 2 ? Vec3::Zero() : Vec3(apart * side));
    if (kind == 2) q0 = p1 + apart * ua;  // end to end on one line
    const Vec3 q1 = q0 + (0.1 + 0.3 * (u(rng) + 1.0)) * (kind == 0 ? Vec3(ub - ub.dot(side) * side).normalized() : ub);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " kind " << kind);
    const double gap = least(p0, p1, q0, q1) - ra - rb;
    const auto ms = d.detect({.bodies = {colRod(p0, p1, ra), colRod(q0, q1, rb)}, .margin = margin});
    if (gap > margin * (1.0 + 1e-9)) {
      EXPECT_EQ(colCount(ms), 0u);
      continue;
    }
    if (gap < margin * (1.0 - 1e-9)) ASSERT_EQ(ms.size(), 1u);
    if (ms.empty()) continue;
    ++touching;
    const Contact* deepest = &ms[0].contacts.front();
    for (const Contact& c : ms[0].contacts) {
      if (c.depth > deepest->depth) deepest = &c;
      EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
      EXPECT_LT((c.pointA + c.depth * c.normal - c.pointB).norm(), 1e-12);
      EXPECT_LE(toSegment(c.pointA, p0, p1), ra + 1e-12);  // (an end ball's point may be inside)
      EXPECT_LE(toSegment(c.pointB, q0, q1), rb + 1e-12);
    }
    EXPECT_NEAR(deepest->depth, -gap, 1e-12);
    EXPECT_NEAR(toSegment(deepest->pointA, p0, p1), ra, 1e-12);  // on A's surface
    EXPECT_NEAR(toSegment(deepest->pointB, q0, q1), rb, 1e-12);  // on B's
  }
  EXPECT_GT(touching, 300);
}

TEST(Collision, SeparatedPairsGiveNoContact) {
  for (const ColPairCase& pc : colPairCases(2 * kColDelta)) {
    SCOPED_TRACE(pc.name);
    EXPECT_TRUE(colDetect({pc.upper, pc.lower}).empty());
    EXPECT_TRUE(colDetect({pc.lower, pc.upper}).empty());
  }
}

// With a margin (the contact stage's near pairs) a pair apart by a gap below it comes with the gap
// as a negative depth, pointB = pointA + depth normal still; beyond the margin it does not come.
TEST(Collision, PairsWithinTheMarginComeWithTheirGapAsNegativeDepth) {
  CollisionDetector d;
  for (const ColPairCase& pc : colPairCases(2 * kColDelta)) {  // apart by kColDelta
    SCOPED_TRACE(pc.name);
    const auto ms = d.detect({.bodies = {pc.upper, pc.lower}, .margin = 2 * kColDelta});
    ASSERT_EQ(ms.size(), 1u);
    ASSERT_FALSE(ms[0].contacts.empty());
    for (const Contact& c : ms[0].contacts) {
      EXPECT_LT(c.depth, 0.0);
      if (pc.count == 1) EXPECT_NEAR(c.depth, -kColDelta, 1e-9);
      EXPECT_LT((c.pointB - c.pointA - c.depth * c.normal).norm(), 1e-9);
    }
    EXPECT_TRUE(d.detect({.bodies = {pc.upper, pc.lower}, .margin = 0.5 * kColDelta}).empty());
  }
  // a ball 2 mm over the floor
  const auto ms = d.detect({.bodies = {colSphere(Vec3(0, 0, 0.102), 0.1)}, .planes = {GroundPlane{}}, .margin = 3e-3});
  ASSERT_EQ(colCount(ms), 1u);
  EXPECT_NEAR(ms[0].contacts[0].depth, -2e-3, 1e-12);
  EXPECT_TRUE(d.detect({.bodies = {colSphere(Vec3(0, 0, 0.102), 0.1)}, .planes = {GroundPlane{}}, .margin = 1e-3}).empty());
}

// Each shape on the ground plane z = 0: expected points (depth from their heights), normal +z.
TEST(Collision, EveryShapeOnThePlane) {
  const GroundPlane floor;
  const auto check = [&](const char* name, const CollisionBody& b, std::size_t count, double depth) {
    SCOPED_TRACE(name);
    const auto ms = colDetect({b}, {floor});
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_EQ(ms[0].bodyA, 0);
    EXPECT_EQ(ms[0].bodyB, -1);
    EXPECT_EQ(ms[0].plane, 0);
    ASSERT_EQ(ms[0].contacts.size(), count);
    colExpectConsistent(ms);
    for (const Contact& c : ms[0].contacts) {
      EXPECT_NEAR(c.depth, depth, 1e-12);
      EXPECT_EQ(c.normal, Vec3::UnitZ());
      EXPECT_NEAR(c.pointB.z(), 0.0, 1e-15);
    }
  };
  // sphere of radius r at height h: depth r - h
  const double r = 0.1, h = 0.07;
  check("sphere", colSphere(Vec3(0.3, -0.2, h), r), 1, r - h);
  check("rod lying", colRod(Vec3(-0.4, 0, 0.045), Vec3(0.4, 0, 0.045), 0.05), 2, 0.005);
  check("rod standing", colRod(Vec3(0, 0, 0.04), Vec3(0, 0, 1.04), 0.05), 1, 0.01);
  check("box flat", colBox(Vec3(0, 0, 0.095), Vec3(0.4, 0.3, 0.2)), 4, 0.005);
  const int n = torusChordCount(0.2, 0.04);
  check("torus flat", colTorus(Vec3(0, 0, 0.035), 0.2, 0.04), std::size_t(n), 0.005);
  // upright: its lowest point on the vertex 3N/4, exact
  check("torus upright", colTorus(Vec3(0, 0, 0.235), 0.2, 0.04, Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()))), 1,
        0.005);
  // a tilted box touches with its lowest corner only
  const Quat tilt = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX())) * Quat(Eigen::AngleAxisd(0.2, Vec3::UnitY()));
  double lowest = 1e9;  // the lowest corner's height over the centre
  for (int i = 0; i < 8; ++i)
    lowest = std::min(lowest, (tilt * Vec3(i & 1 ? 0.1 : -0.1, i & 2 ? 0.1 : -0.1, i & 4 ? 0.1 : -0.1)).z());
  check("box tilted", colBox(Vec3(0, 0, -lowest - 0.005), Vec3(0.2, 0.2, 0.2), tilt), 1, 0.005);
  // a tilted plane: the sphere's depth along its normal
  const GroundPlane slope{.point = Vec3(0, 0, 0), .normal = Vec3(1, 0, 1)};  // normalized by detect
  const auto ms = colDetect({colSphere(Vec3(0.5, 0, 0.5), 1.0)}, {slope});
  ASSERT_EQ(colCount(ms), 1u);
  EXPECT_NEAR(ms[0].contacts[0].depth, 1.0 - std::sqrt(0.5), 1e-12);
  EXPECT_LT((ms[0].contacts[0].normal - Vec3(1, 0, 1).normalized()).norm(), 1e-15);
}

TEST(Collision, ManifoldsAreCompleteInOneQuery) {
  const GroundPlane floor;
  // box resting on the plane: 4; face down on a larger box: 4; capsule lying: 2; sphere: 1
  EXPECT_EQ(colCount(colDetect({colBox(Vec3(0, 0, 0.099), Vec3(0.2, 0.2, 0.2))}, {floor})), 4u);
  EXPECT_EQ(colCount(colDetect({colBox(Vec3(0, 0, -0.1), Vec3(1, 1, 0.2)), colBox(Vec3(0.2, 0, 0.099), Vec3(0.2, 0.2, 0.2))})), 4u);
  EXPECT_EQ(colCount(colDetect({colRod(Vec3(-0.5, 0, 0.049), Vec3(0.5, 0, 0.049), 0.05)}, {floor})), 2u);
  EXPECT_EQ(colCount(colDetect({colSphere(Vec3(0, 0, 0.049), 0.05)}, {floor})), 1u);
  // two parallel rods stacked like logs: the line contact's two ends
  const auto logs = colDetect({colRod(Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0), 0.05), colRod(Vec3(-0.3, 0, 0.099), Vec3(0.7, 0, 0.099), 0.05)});
  ASSERT_EQ(colCount(logs), 2u);
  EXPECT_NEAR(logs[0].contacts[0].pointA.x(), -0.3, 1e-12);
  EXPECT_NEAR(logs[0].contacts[1].pointA.x(), 0.5, 1e-12);
  for (const Contact& c : logs[0].contacts) EXPECT_NEAR(c.depth, 0.001, 1e-12);
}

TEST(Collision, CollidesFlagGroupsAndFixedBodies) {
  const CollisionBody a = colSphere(Vec3::Zero(), 0.1), b = colSphere(Vec3(0.15, 0, 0), 0.1);
  const GroundPlane floor{.point = Vec3(0, 0, -0.05)};
  EXPECT_EQ(colDetect({a, b}).size(), 1u);
  CollisionBody off = b;
  off.collides = false;
  EXPECT_TRUE(colDetect({a, off}, {floor}).size() == 1u && colDetect({a, off}, {floor})[0].bodyB == -1);
  // groups: both directions must accept
  CollisionBody g1 = a, g2 = b;
  g1.group = 1;
  g2.group = 2;
  g1.mask = 2;
  g2.mask = 1;
  EXPECT_EQ(colDetect({g1, g2}).size(), 1u);
  g2.mask = 4;  // g2 does not accept group 1
  EXPECT_TRUE(colDetect({g1, g2}).empty());
  g2.mask = 1;
  g1.mask = 4;  // g1 does not accept group 2
  EXPECT_TRUE(colDetect({g1, g2}).empty());
  // a plane's group and mask
  GroundPlane picky = floor;
  picky.mask = 2;
  EXPECT_TRUE(colDetect({a}, {picky}).empty());
  EXPECT_EQ(colDetect({g2}, {picky}).size(), 1u);
  // fixed bodies: against moving ones only
  CollisionBody fa = a, fb = b;
  fa.fixed = fb.fixed = true;
  EXPECT_TRUE(colDetect({fa, fb}, {floor}).empty());
  EXPECT_EQ(colDetect({fa, b}).size(), 1u);
  // flags changed between queries of one detector take effect (the broad phase refilters)
  CollisionDetector d;
  EXPECT_EQ(d.detect({.bodies = {a, b}}).size(), 1u);
  EXPECT_TRUE(d.detect({.bodies = {g1, g2}}).empty());
  EXPECT_TRUE(d.detect({.bodies = {fa, fb}}).empty());
  EXPECT_EQ(d.detect({.bodies = {a, b}}).size(), 1u);
}

TEST(Collision, JoinedPairsSkipContactsAtTheJoint) {
  const double r = 0.05;
  // hinged end to end, slightly bent: the capsules overlap at the hinge only
  const CollisionBody a = colRod(Vec3(0, 0, 0), Vec3(1, 0, 0), r);
  const CollisionBody bent = colRod(Vec3(1, 0, 0), Vec3(1.9, 0, 0.3), r);
  const JoinedPair hinge{.a = 0, .b = 1, .anchor = Vec3(1, 0, 0)};
  EXPECT_EQ(colDetect({a, bent}).size(), 1u);  // the overlap is there
  EXPECT_TRUE(colDetect({a, bent}, {}, {hinge}).empty());
  // folded back onto each other, side by side along the hinge axis y (overlap 2r - d): the far
  // ends at x = 0 still collide
  const double d = 0.06;
  const CollisionBody folded = colRod(Vec3(1, d, 0), Vec3(0, d, 0), r);
  const JoinedPair hinge2{.a = 0, .b = 1, .anchor = Vec3(1, d / 2, 0)};
  const auto all = colDetect({a, folded});
  ASSERT_EQ(colCount(all), 2u);  // both ends of the line contact
  const auto kept = colDetect({a, folded}, {}, {hinge2});
  ASSERT_EQ(colCount(kept), 1u);
  EXPECT_NEAR(kept[0].contacts[0].pointA.x(), 0.0, 1e-12);
  EXPECT_NEAR(kept[0].contacts[0].depth, 2 * r - d, 1e-12);
  EXPECT_LT((kept[0].contacts[0].normal + Vec3::UnitY()).norm(), 1e-12);
  // asked to collide: every contact
  EXPECT_EQ(colCount(colDetect({a, folded}, {}, {{.a = 1, .b = 0, .anchor = hinge2.anchor, .collide = true}})), 2u);
  EXPECT_EQ(kept[0].contacts[0].jointDepth, 0.0);
  // the radius: 2 (p_A + p_B), the anchor's depths in the two rods (between their axes: r - d/2
  // each); a contact outside it holds its whole depth, one at a distance rho - e counts e of its
  // depth as the joint's, and is dropped when that is all of it
  const double rho = 4 * (r - d / 2);
  EXPECT_DOUBLE_EQ(jointExclusionRadius(a, folded, hinge2.anchor, 1e-3), rho);
  const auto farEnd = [&](double distance) {
    return colDetect({a, folded}, {}, {hinge2, {.a = 0, .b = 1, .anchor = Vec3(distance, d / 2, 0)}});
  };
  auto c = farEnd(rho + 1e-6);
  ASSERT_EQ(colCount(c), 1u);
  EXPECT_EQ(c[0].contacts[0].jointDepth, 0.0);
  c = farEnd(rho - 0.01);
  ASSERT_EQ(colCount(c), 1u);
  EXPECT_NEAR(c[0].contacts[0].jointDepth, 0.01, 1e-12);
  EXPECT_NEAR(c[0].contacts[0].depth, 2 * r - d, 1e-12);  // the geometry as it is
  EXPECT_EQ(colCount(farEnd(rho - (2 * r - d) - 1e-6)), 0u);
  // rods sharing an end: 2 (r + r); a rod's end at a ball's surface: 2 r; two balls joined at
  // points of their surfaces: 2 margin, the contact at the joint only; a torus: 2 (t_A + t_B)
  const CollisionBody ball = colSphere(Vec3(2, 0, 0), 0.1), other = colSphere(Vec3(2.2, 0, 0), 0.1);
  EXPECT_NEAR(jointExclusionRadius(a, bent, Vec3(1, 0, 0), 1e-3), 4 * r, 1e-12);
  EXPECT_NEAR(jointExclusionRadius(colRod(Vec3(1.9, 0, 0), Vec3(1, 0, 0), r), ball, Vec3(1.9, 0, 0), 1e-3), 2 * r, 1e-12);
  EXPECT_DOUBLE_EQ(jointExclusionRadius(ball, other, Vec3(2.1, 0, 0), 1e-3), 2e-3);
  const CollisionBody ring = colTorus(Vec3(2.3, 0, 0), 0.2, 0.03);
  EXPECT_DOUBLE_EQ(jointExclusionRadius(ring, other, Vec3(2.1, 0, 0), 1e-3), 2 * (0.23 + 0.1));
  // a hinge holds its pair along its axis line: a contact anywhere near that line is its own
  // (two plates hinged at the edge where they touch: the edge's ends, a plate's width away)
  // (the anchor as hinge2's; an axis across the line leaves the far end's contact, as the point)
  EXPECT_EQ(colCount(colDetect({a, folded}, {}, {{.a = 0, .b = 1, .anchor = hinge2.anchor, .axis = Vec3(2, 0, 0)}})), 0u);
  EXPECT_EQ(colCount(colDetect({a, folded}, {}, {{.a = 0, .b = 1, .anchor = hinge2.anchor, .axis = Vec3::UnitZ()}})), 1u);
}

// A body pinned to the world (a nail) at a point inside it whose ball of material reaches into a
// plane or fixed body has its contacts with that near the pin counted as the pin's own; pinned
// at a point of its surface, or where nothing reaches, it collides as any body.
TEST(Collision, PinnedPointsShareTheirContactsWithTheWorld) {
  const CollisionBody ball = colSphere(Vec3(0, 0, 0.05), 0.1);  // 5 cm in the floor
  const std::vector<GroundPlane> floor{GroundPlane{}};
  const auto detect = [&](const std::vector<CollisionBody>& bodies, const std::vector<PinnedPoint>& pinned) {
    CollisionDetector d;
    return d.detect({.bodies = bodies, .planes = floor, .pinned = pinned});
  };
  ASSERT_EQ(colCount(detect({ball}, {})), 1u);
  // the contact: 0.05 deep, its midpoint at (0, 0, -0.025)
  const Vec3 mid(0, 0, -0.025);
  // pinned at its centre, 0.1 inside it and 0.05 over the floor: the pin holds its lower 5 cm in
  // the floor; rho = 2 x 0.1, the midpoint 0.075 away: 0.125 of the 0.05 is the pin's, dropped
  EXPECT_EQ(colCount(detect({ball}, {{.body = 0, .anchor = ball.x}})), 0u);
  // pinned at a point 0.03 off its axis at the floor's level: rho = 2 (0.1 - |(0.03, 0, -0.05)|),
  // and the contact is 0.05 deep, more than the pin forces, rho / 2 = 0.042 (turned about the pin
  // until its centre is over it, the ball is in the floor by that much): rho / 2 is the pin's
  // (with 1e-3 of it for round-off), not rho - d = 0.044, and the other 8 mm are held
  const Vec3 off(0.03, 0, 0);
  auto c = detect({ball}, {{.body = 0, .anchor = off}});
  ASSERT_EQ(colCount(c), 1u);
  const double rho = 2 * (0.1 - (off - ball.x).norm());
  ASSERT_LT(rho / 2, 0.05);
  ASSERT_LT(rho / 2, rho - (mid - off).norm());
  EXPECT_NEAR(c[0].contacts[0].jointDepth, rho / 2 * (1 + 1e-3), 1e-12);
  EXPECT_NEAR(c[0].contacts[0].depth, 0.05, 1e-12);  // the geometry as it is
  // pinned at its top, a surface point 0.15 over the floor: the pin forces nothing, all is held
  c = detect({ball}, {{.body = 0, .anchor = Vec3(0, 0, 0.15)}});
  ASSERT_EQ(colCount(c), 1u);
  EXPECT_EQ(c[0].contacts[0].jointDepth, 0.0);
  // against a fixed body the same: a ball 5 cm into a fixed one, pinned at its centre (0.1 inside
  // it, 0.05 outside the fixed one) and at its top
  CollisionBody table = colSphere(Vec3(0, 0, 0.15), 0.1);
  table.fixed = true;
  const CollisionBody high = colSphere(Vec3(0, 0, 0.3), 0.1);
  ASSERT_EQ(colCount(detect({table, high}, {})), 1u);
  EXPECT_EQ(colCount(detect({table, high}, {{.body = 1, .anchor = high.x}})), 0u);
  EXPECT_EQ(colCount(detect({table, high}, {{.body = 1, .anchor = Vec3(0, 0, 0.4)}})), 1u);
  // a torus's depth at a pin is inside its tube
  const CollisionBody ring = colTorus(Vec3::Zero(), 0.2, 0.02);
  EXPECT_NEAR(pinDepth(ring, Vec3(0.2, 0, 0)), 0.02, 1e-15);
  EXPECT_NEAR(pinDepth(ring, Vec3(0, 0.2, 0.01)), 0.01, 1e-15);
  EXPECT_NEAR(pinDepth(ring, Vec3::Zero()), -0.18, 1e-15);
}

// Joined at points deep inside both (rods at their axes, a box's centre), convex bodies do not
// collide at all: their overlap is one convex region around the joint. Two rods pinned where
// their axes cross, nearly closed, overlap along their arms far beyond the exclusion radius,
// and a V of two rods sharing an end centre, nearly closed, along most of their length; seen
// arm by arm, both were held 29 degrees open. Joined at a surface point the exclusion radius
// applies (JoinedPairsSkipContactsAtTheJoint); a torus is never "inside".
TEST(Collision, PairsJoinedDeepInsideBothDoNotCollide) {
  const double r = 0.02, half = 0.5;
  const CollisionBody a = colRod(Vec3(-half, 0, 0), Vec3(half, 0, 0), r);
  for (const double theta : {0.05, 0.3}) {
    const Vec3 u(std::cos(theta), std::sin(theta), 0.0);
    const CollisionBody scissor = colRod(-half * u, half * u, r);
    ASSERT_FALSE(colDetect({a, scissor}).empty());
    EXPECT_TRUE(colDetect({a, scissor}, {}, {{.a = 0, .b = 1, .anchor = Vec3::Zero()}}).empty()) << theta;
    const CollisionBody v = colRod(Vec3(-half, 0, 0), Vec3(-half, 0, 0) + 2 * half * u, r);
    ASSERT_FALSE(colDetect({a, v}).empty());
    EXPECT_TRUE(colDetect({a, v}, {}, {{.a = 0, .b = 1, .anchor = Vec3(-half, 0, 0)}}).empty()) << theta;
    // asked to collide, they do
    EXPECT_FALSE(colDetect({a, scissor}, {}, {{.a = 0, .b = 1, .anchor = Vec3::Zero(), .collide = true}}).empty());
  }
  // the depths: an axis point r deep in a rod, a box's centre half its smallest side, a face's
  // centre 0, a torus never (it is not convex)
  EXPECT_DOUBLE_EQ(depthInside(a, Vec3(0.1, 0, 0)), r);
  EXPECT_NEAR(depthInside(a, Vec3(half + 0.5 * r, 0, 0)), 0.5 * r, 1e-15);
  const CollisionBody block = colBox(Vec3(0, 0, 0.05), Vec3(0.4, 0.2, 0.1));
  EXPECT_DOUBLE_EQ(depthInside(block, Vec3(0, 0, 0.05)), 0.05);
  EXPECT_DOUBLE_EQ(depthInside(block, Vec3(0.2, 0, 0.05)), 0.0);
  EXPECT_LT(depthInside(block, Vec3(0.3, 0, 0.05)), 0.0);
  EXPECT_TRUE(std::isinf(depthInside(colTorus(Vec3::Zero(), 0.1, 0.02), Vec3(0.1, 0, 0))));
  // a rod through a box's centre: inside both; the rod's end on the box's face: not
  EXPECT_TRUE(jointIsInside(a, colBox(Vec3::Zero(), Vec3(0.4, 0.2, 0.1)), Vec3::Zero()));
  EXPECT_FALSE(jointIsInside(a, colBox(Vec3(half + 0.05, 0, 0), Vec3(0.1, 0.1, 0.1)), Vec3(half, 0, 0)));
}

// A jumble of every shape, overlapping each other and the walls.
std::vector<CollisionBody> colJumble(unsigned seed, int count, int shapeShift = 0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<CollisionBody> bodies;
  for (int i = 0; i < count; ++i) {
    const Vec3 x(u(rng), u(rng), u(rng));
    const Quat q = Quat(Eigen::AngleAxisd(6.3 * u(rng), Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5).normalized()));
    switch ((i + shapeShift) % 4) {
      case 0: bodies.push_back(colSphere(x, 0.05 + 0.05 * u(rng))); break;
      case 1: bodies.push_back(colRod(x - q * Vec3(0, 0, 0.1), x + q * Vec3(0, 0, 0.1), 0.03)); break;
      case 2: bodies.push_back(colBox(x, Vec3(0.1, 0.15, 0.2), q)); break;
      default: bodies.push_back(colTorus(x, 0.1, 0.02, q)); break;
    }
  }
  return bodies;
}

std::vector<GroundPlane> colWalls() {
  return {{.point = Vec3::Zero(), .normal = Vec3::UnitZ()}, {.point = Vec3::Zero(), .normal = Vec3::UnitX()},
          {.point = Vec3(1, 1, 0), .normal = -Vec3::UnitX()}, {.point = Vec3::Zero(), .normal = Vec3::UnitY()},
          {.point = Vec3(1, 1, 0), .normal = -Vec3::UnitY()}};
}

TEST(Collision, SamePosesGiveTheSameListWhateverCameBefore) {
  const CollisionQuery qa{.bodies = colJumble(1, 120), .planes = colWalls(), .joined = {}};
  const CollisionQuery qb{.bodies = colJumble(2, 120), .planes = colWalls(), .joined = {}};
  CollisionDetector d;
  const auto first = d.detect(qa);
  ASSERT_GT(colCount(first), 50u);
  colExpectConsistent(first);
  const auto other = d.detect(qb);
  EXPECT_NE(first, other);
  // fewer bodies, each index another shape, some not colliding
  CollisionQuery qc{.bodies = colJumble(3, 50, 1), .planes = {}, .joined = {}};
  for (std::size_t i = 0; i < qc.bodies.size(); i += 3) qc.bodies[i].collides = false;
  EXPECT_FALSE(d.detect(qc).empty());
  const auto again = d.detect(qa);
  ASSERT_EQ(first, again);  // == on every double: bitwise but for the sign of zero
  // (field by field: the struct's padding is not part of it)
  const auto same = [](const Contact& a, const Contact& b) {
    const auto bits = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
    return a.bodyA == b.bodyA && a.bodyB == b.bodyB && a.atJoint == b.atJoint && bits(a.depth, b.depth) &&
           bits(a.jointDepth, b.jointDepth) && std::memcmp(a.pointA.data(), b.pointA.data(), sizeof(Vec3)) == 0 &&
           std::memcmp(a.pointB.data(), b.pointB.data(), sizeof(Vec3)) == 0 &&
           std::memcmp(a.normal.data(), b.normal.data(), sizeof(Vec3)) == 0;
  };
  for (std::size_t m = 0; m < first.size(); ++m)
    for (std::size_t k = 0; k < first[m].contacts.size(); ++k) EXPECT_TRUE(same(first[m].contacts[k], again[m].contacts[k]));
  // a fresh detector agrees too
  CollisionDetector fresh;
  EXPECT_EQ(fresh.detect(qa), first);
  // ordered by pair, the plane's manifolds before a body's pairs, each by pointA
  for (std::size_t m = 1; m < first.size(); ++m) {
    const auto& p = first[m - 1];
    const auto& c = first[m];
    EXPECT_TRUE(std::tie(p.bodyA, p.bodyB, p.plane) < std::tie(c.bodyA, c.bodyB, c.plane));
  }
  for (const auto& m : first)
    for (std::size_t k = 1; k < m.contacts.size(); ++k) {
      const Vec3 &p = m.contacts[k - 1].pointA, &c = m.contacts[k].pointA;
      EXPECT_TRUE(std::tie(p.x(), p.y(), p.z()) <= std::tie(c.x(), c.y(), c.z()));
    }
}

// The compound's depths against the exact torus's: a small probe ball at sampled points; the
// exact penetration is eps - (d(p, circle) - a).
TEST(Collision, TorusWithinItsStatedError) {
  const double R = 0.2, a = 0.04, eps = 0.01;
  const int n = torusChordCount(R, a);
  const double bound = torusSurfaceError(R, a);
  EXPECT_EQ(n % 4, 0);
  EXPECT_LE(bound, a / 20);
  EXPECT_DOUBLE_EQ(bound, R * (1 - std::cos(std::numbers::pi / n)));
  const Quat q(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  const Vec3 centre(0.1, -0.2, 0.3);
  const CollisionBody torus = colTorus(centre, R, a, q);
  const auto exactDistance = [&](const Vec3& world) {
    const Vec3 p = q.inverse() * (world - centre);
    const double rho = std::hypot(p.x(), p.y());
    return std::hypot(rho - R, p.z()) - a;
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  CollisionDetector d;
  double worst = 0.0;
  int touching = 0;
  for (int i = 0; i < 4000; ++i) {
    // around the tube: an angle on the circle, then an offset within a + eps + 2 bound
    const double phi = std::numbers::pi * u(rng), off = (a + eps + 2 * bound) * std::abs(u(rng)), psi = std::numbers::pi * u(rng);
    const Vec3 local((R + off * std::cos(psi)) * std::cos(phi), (R + off * std::cos(psi)) * std::sin(phi), off * std::sin(psi));
    const Vec3 p = centre + q * local;
    const double exact = eps - exactDistance(p);
    const auto ms = d.detect({.bodies = {torus, colSphere(p, eps)}});
    // the deepest contact's point on the torus's surface to within s (a sphere deep in the tube
    // also touches other chords' capsules, at their surfaces inside the compound)
    double depth = 0.0;
    Vec3 deepest = Vec3::Zero();
    for (const auto& m : ms)
      for (const Contact& c : m.contacts)
        if (c.depth > depth) {
          depth = c.depth;
          deepest = c.pointA;
        }
    if (depth > 0.0) EXPECT_LE(std::abs(exactDistance(deepest)), bound + 1e-12) << local.transpose();
    if (!ms.empty()) ++touching;
    worst = std::max(worst, std::abs(depth - std::max(exact, 0.0)));
    ASSERT_LE(std::abs(depth - std::max(exact, 0.0)), bound + 1e-12) << local.transpose();
  }
  EXPECT_GT(touching, 1000);
  EXPECT_GT(worst, 0.5 * bound);  // the bound is nearly reached: the compound is not the torus
}

TEST(Collision, TorusChordCountAndJointThickness) {
  EXPECT_EQ(torusChordCount(0.2, 0.04), 24);  // acos(0.99) = 0.1415: pi / N <= it from N = 23
  EXPECT_EQ(torusChordCount(1.0, 0.5), 16);  // pi / acos(0.975) = 14.02
  EXPECT_EQ(torusChordCount(1.0, 0.9), 12);
  EXPECT_EQ(torusChordCount(1.0, 1e-4), 256);
  EXPECT_DOUBLE_EQ(jointThickness(colBox(Vec3::Zero(), Vec3(0.4, 0.1, 0.3))), 0.05);
  EXPECT_DOUBLE_EQ(jointThickness(colTorus(Vec3::Zero(), 0.2, 0.03)), 0.23);  // the hoop wraps around its joint
}

TEST(Collision, BadInputIsNamed) {
  CollisionDetector d;
  CollisionBody bad = colSphere(Vec3::Zero(), 0.0);
  EXPECT_THROW(d.detect({.bodies = {bad}}), std::invalid_argument);
  EXPECT_THROW(d.detect({.bodies = {colSphere(Vec3::Zero(), 1)}, .planes = {{.normal = Vec3::Zero()}}}), std::invalid_argument);
  try {
    d.detect({.bodies = {colSphere(Vec3::Zero(), 1)}, .joined = {{.a = 0, .b = 3}}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("joined pair 0"), std::string::npos);
  }
  const std::vector<CollisionBody> two{colSphere(Vec3::Zero(), 1), colSphere(Vec3(1, 0, 0), 1)};
  for (const double gap : {-1e-3, std::numeric_limits<double>::quiet_NaN()})
    try {
      d.detect({.bodies = two, .joined = {{.a = 0, .b = 1, .gap = gap}}});
      FAIL() << gap;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("gap >= 0"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace tether::core
