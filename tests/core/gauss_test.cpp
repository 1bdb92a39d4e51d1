// Gauss's principle of least constraint (core/gauss.h): the motion-space nearest-point solver and
// the contact-space LCP against analytic answers, against each other, and on bad input.
#include "core/gauss.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

#include "tests/gauss_problems.h"

namespace {

using namespace tether::core;
using namespace tether::core::gauss;

constexpr double kG = 9.81;

// a contact at arm r from body k's centre of mass with normal n (pointing into the body): the
// point's normal acceleration n . (a + alpha x r) = (n, r x n) . (a, alpha) must stay >= c
Row gaussContactRow(int body, const Vec3& r, const Vec3& n, double c = 0.0) {
  Row row;
  row.bodyA = body;
  row.jacA << n, r.cross(n);
  row.c = c;
  return row;
}

Problem gaussOneBody(double mass, const Mat3& inertia, const Eigen::VectorXd& unconstrained) {
  Problem p;
  p.bodies.push_back({mass, inertia});
  p.unconstrained = unconstrained;
  return p;
}

Vec6 gaussGravity() {
  Vec6 g = Vec6::Zero();
  g[2] = -kG;
  return g;
}

// KKT conditions of the problem, to `tol` relative: rows hold, unilateral multipliers are >= 0 and
// vanish where their row is slack, and M (a - a_u) = J^T lambda.
void expectGaussOptimal(const Problem& p, const Solution& s, double tol) {
  ASSERT_TRUE(s.ok) << s.error;
  const double scale = std::max({1.0, p.unconstrained.norm(), s.acceleration.norm(), s.multipliers.norm()});
  EXPECT_LE(largestViolation(p, s.acceleration), tol * scale);
  const Eigen::VectorXd ja = applyJacobian(p, s.acceleration);
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (p.rows[i].equality) continue;
    EXPECT_GE(s.multipliers[long(i)], -tol * scale) << "row " << i;
    EXPECT_LE(std::abs(s.multipliers[long(i)] * (ja[long(i)] - p.rows[i].c)), tol * scale * scale) << "row " << i;
  }
  EXPECT_LE((applyInverseMetricTranspose(p, s.multipliers) - (s.acceleration - p.unconstrained)).norm(), tol * scale);
}

TEST(Gauss, AParticleOnASlopeSlidesDownItAtGSinTheta) {
  // The paper's first example: the admissible acceleration nearest to g. On a slope of angle theta
  // with normal n, a = g - (g . n) n: along the slope at g sin(theta), and the contact force
  // lambda = m g cos(theta).
  const double theta = 0.3, m = 2.0;
  const Vec3 n(-std::sin(theta), 0.0, std::cos(theta));
  Problem p = gaussOneBody(m, Mat3::Identity(), gaussGravity());
  p.rows.push_back(gaussContactRow(0, Vec3::Zero(), n));
  const Vec3 g(0.0, 0.0, -kG);
  const Vec3 expected = g - g.dot(n) * n;
  for (const Solution& s : {solveMotionSpace(p), solveContactSpace(p)}) {
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_LE((s.acceleration.head<3>() - expected).norm(), 1e-12);
    EXPECT_NEAR(s.acceleration.head<3>().norm(), kG * std::sin(theta), 1e-12);
    EXPECT_LE(s.acceleration.tail<3>().norm(), 1e-12);
    EXPECT_NEAR(s.multipliers[0], m * kG * std::cos(theta), 1e-12);
  }
}

TEST(Gauss, ABoxOnAPlaneRestsOnItsFourCornersCarryingItsWeight) {
  // Four corner contacts of a 0.4 x 0.2 x 0.1 box are four rows on three freedoms (z and the two
  // tilts): dependent rows. The box stays put and the forces sum to m g.
  const double m = 3.0;
  const Vec3 half(0.2, 0.1, 0.05);
  const Mat3 inertia = Vec3(m / 3 * (half.y() * half.y() + half.z() * half.z()), m / 3 * (half.x() * half.x() + half.z() * half.z()),
                            m / 3 * (half.x() * half.x() + half.y() * half.y()))
                           .asDiagonal();
  Problem p = gaussOneBody(m, inertia, gaussGravity());
  for (double sx : {-1.0, 1.0})
    for (double sy : {-1.0, 1.0})
      p.rows.push_back(gaussContactRow(0, Vec3(sx * half.x(), sy * half.y(), -half.z()), Vec3::UnitZ()));
  for (const Solution& s : {solveMotionSpace(p), solveContactSpace(p)}) {
    expectGaussOptimal(p, s, 1e-12);
    EXPECT_LE(s.acceleration.norm(), 1e-12);
    EXPECT_NEAR(s.multipliers.sum(), m * kG, 1e-12 * m * kG);
  }
}

TEST(Gauss, ABoxPushedOverAnEdgeLiftsItsOtherCorners) {
  // A torque about y on the resting box: the corners on one side lift (their rows stay slack and
  // carry no force), the box turns about the other edge, whose two corners carry it.
  const double m = 1.0;
  Vec6 au = gaussGravity();
  au[4] = 400.0;  // angular acceleration about y, rad/s^2
  Problem p = gaussOneBody(m, Mat3::Identity() * 0.01, au);
  for (double sx : {-1.0, 1.0})
    for (double sy : {-1.0, 1.0})
      p.rows.push_back(gaussContactRow(0, Vec3(sx * 0.2, sy * 0.1, -0.05), Vec3::UnitZ()));
  const Solution motion = solveMotionSpace(p), contact = solveContactSpace(p);
  expectGaussOptimal(p, motion, 1e-12);
  expectGaussOptimal(p, contact, 1e-12);
  EXPECT_LE((motion.acceleration - contact.acceleration).norm(), 1e-10);
  // +alpha_y lowers the +x corners (alpha x r has z component -alpha_y r_x): they carry the force
  EXPECT_GT(motion.acceleration[4], 0.0);
  EXPECT_NEAR(motion.multipliers[0] + motion.multipliers[1], 0.0, 1e-9);
  EXPECT_GT(motion.multipliers[2] + motion.multipliers[3], 0.0);
}

TEST(Gauss, BilateralAndUnilateralRowsTogether) {
  // A bob held by a point-to-nail joint (three bilateral rows at its top point) and pushed by a
  // wall contact: the joint's rows always hold; the wall's only while it pushes.
  const Vec3 top(0.0, 0.0, 0.5);
  Problem p = gaussOneBody(1.5, Mat3::Identity() * 0.02, gaussGravity());
  for (int axis = 0; axis < 3; ++axis) {
    Row r = gaussContactRow(0, top, Vec3::Unit(axis));
    r.equality = true;
    p.rows.push_back(r);
  }
  p.unconstrained[0] = 3.0;                                        // pushed along +x ...
  p.rows.push_back(gaussContactRow(0, Vec3(0.1, 0.0, -0.5), -Vec3::UnitX()));  // ... into a wall
  const Solution motion = solveMotionSpace(p), contact = solveContactSpace(p);
  expectGaussOptimal(p, motion, 1e-12);
  expectGaussOptimal(p, contact, 1e-12);
  EXPECT_GT(motion.multipliers[3], 0.0);
  EXPECT_LE((motion.acceleration - contact.acceleration).norm(), 1e-10);
  EXPECT_LE((motion.multipliers - contact.multipliers).norm(), 1e-9);
  // pushed away from the wall instead: the contact lets go
  p.unconstrained[0] = -3.0;
  const Solution away = solveMotionSpace(p);
  expectGaussOptimal(p, away, 1e-12);
  EXPECT_EQ(away.multipliers[3], 0.0);
}

TEST(Gauss, BothSpacesGiveTheSameAccelerationsOnAThousandRandomProblems) {
  // The paper's claim of mathematical equivalence, checked: random bodies (0.1 to 10 kg, turned
  // inertias), rows on one or two bodies, a fifth of them bilateral, fewer rows than freedoms (the
  // contact-space solver needs independent rows). Both solutions are KKT points and agree to 1e-9.
  std::mt19937_64 rng(20261124);
  std::uniform_int_distribution<int> bodies(1, 8);
  int changedActiveSet = 0, withActiveContacts = 0;
  double worst = 0.0;
  for (int k = 0; k < 1000; ++k) {
    tether::testing::GaussProblemShape shape;
    shape.bodies = bodies(rng);
    shape.rows = std::uniform_int_distribution<int>(1, 3 * shape.bodies)(rng);
    shape.bilateralShare = 0.2;
    const Problem p = tether::testing::randomGaussProblem(rng, shape);
    const Solution motion = solveMotionSpace(p), contact = solveContactSpace(p);
    SCOPED_TRACE("problem " + std::to_string(k));
    expectGaussOptimal(p, motion, 1e-9);
    expectGaussOptimal(p, contact, 1e-9);
    const double scale = std::max({1.0, p.unconstrained.norm(), motion.acceleration.norm()});
    const double diff = (motion.acceleration - contact.acceleration).norm() / scale;
    worst = std::max(worst, diff);
    EXPECT_LE(diff, 1e-9);
    // not trivial: unilateral rows that a_u violates but that end slack (the active set changed),
    // and unilateral rows that end carrying a force
    const Eigen::VectorXd before = applyJacobian(p, p.unconstrained);
    bool changed = false, carrying = false;
    for (std::size_t i = 0; i < p.rows.size(); ++i) {
      if (p.rows[i].equality) continue;
      if (before[long(i)] < p.rows[i].c && motion.multipliers[long(i)] == 0.0) changed = true;
      if (motion.multipliers[long(i)] > 0.0) carrying = true;
    }
    changedActiveSet += changed;
    withActiveContacts += carrying;
  }
  EXPECT_GT(withActiveContacts, 500);
  EXPECT_GT(changedActiveSet, 50);
  std::ostringstream text;
  text << worst;
  RecordProperty("worst_relative_difference", text.str());
}

TEST(Gauss, ProjectedGaussSeidelConvergesToTheSameAccelerations) {
  // the large groups' solver: on 300 random problems (dependent rows included: more rows than
  // freedoms), swept to convergence, it reaches the active-set method's acceleration
  std::mt19937_64 rng(112024);
  std::uniform_int_distribution<int> bodies(1, 6);
  double worst = 0.0;
  int sweeps = 0;
  for (int k = 0; k < 300; ++k) {
    tether::testing::GaussProblemShape shape;
    shape.bodies = bodies(rng);
    shape.rows = std::uniform_int_distribution<int>(1, 8 * shape.bodies)(rng);
    shape.bilateralShare = 0.1;
    const Problem p = tether::testing::randomGaussProblem(rng, shape);
    const Solution exact = solveMotionSpace(p);
    if (!exact.ok) continue;  // (bilateral rows that conflict)
    const Solution pgs = solveProjectedGaussSeidel(p, 1e-14, 200000);
    ASSERT_TRUE(pgs.ok);
    SCOPED_TRACE("problem " + std::to_string(k));
    const double scale = std::max({1.0, p.unconstrained.norm(), exact.acceleration.norm()});
    const double diff = (pgs.acceleration - exact.acceleration).norm() / scale;
    worst = std::max(worst, diff);
    EXPECT_LE(diff, 1e-7);
    EXPECT_LE(largestViolation(p, pgs.acceleration), 1e-8 * scale);
    sweeps = std::max(sweeps, pgs.iterations);
  }
  std::ostringstream text;
  text << worst << " (at most " << sweeps << " sweeps)";
  RecordProperty("worst_relative_difference", text.str());
}

TEST(Gauss, AFactorOfTheBilateralRowsGivesTheSameSolutionsToTheProblemsThatShareThem) {
  // The contact stage solves a group's problems (compression, sticking, overlap) with one factor
  // of its joints' rows (gauss::BilateralFactor). On 1 000 random problems, half their rows
  // bilateral (some depending on the others where there are more than freedoms): the problem
  // itself, and one sharing its bilateral rows with other targets c, another unconstrained
  // acceleration and rows appended (unilateral and bilateral), give the plain solve's
  // accelerations to 1e-9 and KKT points; a factor of other rows is refused.
  std::mt19937_64 rng(20261128);
  std::uniform_int_distribution<int> bodies(1, 6);
  std::normal_distribution<double> normal;
  int dependent = 0, failing = 0;
  double worst = 0.0;
  for (int k = 0; k < 1000; ++k) {
    tether::testing::GaussProblemShape shape;
    shape.bodies = bodies(rng);
    shape.rows = std::uniform_int_distribution<int>(1, 8 * shape.bodies)(rng);
    shape.bilateralShare = 0.5;
    Problem p = tether::testing::randomGaussProblem(rng, shape);
    // every third, a bilateral row twice (two joints holding the same freedom)
    long bilateral = 0;
    for (const Row& r : p.rows) bilateral += r.equality;
    if (k % 3 == 0 && bilateral > 0) {
      const auto first = std::find_if(p.rows.begin(), p.rows.end(), [](const Row& r) { return r.equality; });
      p.rows.push_back(*first);
      ++bilateral;
    }
    dependent += bilateral > 6 * shape.bodies || k % 3 == 0;
    const BilateralFactor factor(p);
    ASSERT_TRUE(factor.ok());
    // the same bilateral rows with other targets (consistent: met by another a1), rows appended
    Problem q = p;
    const Eigen::VectorXd a1 = Eigen::VectorXd::NullaryExpr(q.unconstrained.size(), [&] { return normal(rng); });
    q.unconstrained = Eigen::VectorXd::NullaryExpr(q.unconstrained.size(), [&] { return 2.0 * normal(rng); });
    shape.rows = 3;
    for (const Row& r : tether::testing::randomGaussProblem(rng, shape).rows) q.rows.push_back(r);
    q.rows.back().equality = true;
    const Eigen::VectorXd met = applyJacobian(q, a1);
    for (std::size_t i = 0; i < q.rows.size(); ++i)
      q.rows[i].c = met[long(i)] - (q.rows[i].equality || i % 2 ? 0.0 : std::abs(normal(rng)));
    for (const Problem* problem : {static_cast<const Problem*>(&p), static_cast<const Problem*>(&q)}) {
      SCOPED_TRACE("problem " + std::to_string(k) + (problem == &q ? " (sharing its rows)" : ""));
      const Solution plain = solveMotionSpace(*problem), factored = solveMotionSpace(*problem, factor);
      ASSERT_EQ(plain.ok, factored.ok) << plain.error << " / " << factored.error;
      if (!plain.ok) {  // (bilateral rows that conflict: the same row named)
        EXPECT_EQ(plain.error, factored.error);
        ++failing;
        continue;
      }
      expectGaussOptimal(*problem, factored, 1e-9);
      const double scale = std::max({1.0, problem->unconstrained.norm(), plain.acceleration.norm()});
      const double diff = (plain.acceleration - factored.acceleration).norm() / scale;
      worst = std::max(worst, diff);
      EXPECT_LE(diff, 1e-9);
    }
  }
  EXPECT_GT(dependent, 300);  // (not only independent rows)
  std::ostringstream text;
  text << worst << " (" << dependent << " problems with dependent bilateral rows, " << failing << " conflicting)";
  RecordProperty("worst_relative_difference", text.str());

  // a factor of other rows: refused, naming why
  Problem p = gaussOneBody(1.0, Mat3::Identity(), gaussGravity());
  Row joint = gaussContactRow(0, Vec3::Zero(), Vec3::UnitZ());
  joint.equality = true;
  p.rows.push_back(joint);
  const BilateralFactor factor(p);
  p.rows[0].jacA[0] = 1.0;
  EXPECT_THROW(solveMotionSpace(p, factor), std::invalid_argument);
  p.rows[0] = gaussContactRow(0, Vec3::Zero(), Vec3::UnitZ());  // (no longer bilateral)
  EXPECT_THROW(solveMotionSpace(p, factor), std::invalid_argument);
  p.rows[0] = joint;
  EXPECT_NO_THROW(solveMotionSpace(p, factor));
  p.bodies[0].mass = 2.0;  // another body
  EXPECT_THROW(solveMotionSpace(p, factor), std::invalid_argument);
}

TEST(Gauss, DependentRowsAreSolvedInMotionSpaceAndReportedInContactSpace) {
  // The same contact twice: motion space shares the force between the two copies; the contact-space
  // pivoting would need the singular block of A and says so.
  Problem p = gaussOneBody(1.0, Mat3::Identity(), gaussGravity());
  p.rows.push_back(gaussContactRow(0, Vec3::Zero(), Vec3::UnitZ()));
  p.rows.push_back(p.rows.back());
  const Solution motion = solveMotionSpace(p);
  expectGaussOptimal(p, motion, 1e-12);
  EXPECT_LE(motion.acceleration.norm(), 1e-12);
  EXPECT_NEAR(motion.multipliers.sum(), kG, 1e-12);
  const Solution contact = solveContactSpace(p);
  // either it stops at the first copy (the second then holds already) or it names the dependency
  if (contact.ok) EXPECT_LE((contact.acceleration - motion.acceleration).norm(), 1e-12);
  else EXPECT_NE(contact.error.find("depends"), std::string::npos) << contact.error;
}

TEST(Gauss, ConflictingRowsAndBadInputAreNamed) {
  Problem p = gaussOneBody(1.0, Mat3::Identity(), Vec6::Zero());
  Row a = gaussContactRow(0, Vec3::Zero(), Vec3::UnitX(), 1.0), b = a;
  a.equality = b.equality = true;
  b.c = 2.0;  // a_x = 1 and a_x = 2
  p.rows = {a, b};
  const Solution motion = solveMotionSpace(p), contact = solveContactSpace(p);
  EXPECT_FALSE(motion.ok);
  EXPECT_NE(motion.error.find("row 1"), std::string::npos) << motion.error;
  EXPECT_EQ(motion.conflictRow, -1);  // (bilateral rows: no contact to leave out)
  EXPECT_FALSE(contact.ok);
  EXPECT_NE(contact.error.find("row 1"), std::string::npos) << contact.error;

  // a contact that a joint holds short: a_x = 1 held, a_x >= 2 asked; it is the row named
  Problem held = gaussOneBody(1.0, Mat3::Identity(), Vec6::Zero());
  Row unilateral = gaussContactRow(0, Vec3::Zero(), Vec3::UnitX(), 2.0), free = gaussContactRow(0, Vec3::Zero(), Vec3::UnitZ());
  held.rows = {free, unilateral, a};
  const Solution short1 = solveMotionSpace(held), short2 = solveMotionSpace(held, BilateralFactor(held));
  for (const Solution& s : {short1, short2}) {
    EXPECT_FALSE(s.ok);
    EXPECT_EQ(s.conflictRow, 1) << s.error;
  }

  Problem shape = gaussOneBody(1.0, Mat3::Identity(), Eigen::VectorXd::Zero(5));
  EXPECT_NE(solveMotionSpace(shape).error.find("6 per body"), std::string::npos);
  Problem row = gaussOneBody(1.0, Mat3::Identity(), Vec6::Zero());
  row.rows.push_back(gaussContactRow(3, Vec3::Zero(), Vec3::UnitZ()));
  EXPECT_NE(solveContactSpace(row).error.find("row 0 names a body"), std::string::npos);
  row.rows[0] = gaussContactRow(0, Vec3::Zero(), Vec3(std::nan(""), 0.0, 1.0));
  EXPECT_NE(solveMotionSpace(row).error.find("row 0 is not finite"), std::string::npos);
  Problem massless = gaussOneBody(0.0, Mat3::Identity(), Vec6::Zero());
  EXPECT_NE(solveMotionSpace(massless).error.find("body 0"), std::string::npos);
}

TEST(Gauss, CollisionsInVelocitiesFollowPoisson) {
  // The same nearest-point problem in velocities (Redon & Coquillart, section 3.2): after an impact
  // the velocities are the admissible ones nearest to those before, in the kinetic metric, with
  // the contact's normal velocity at least -e times its value before. Two spheres of 1 and 3 kg
  // meet head on: momentum is kept, the approach speed comes back times e.
  for (double e : {0.0, 0.5, 1.0}) {
    Problem p;
    p.bodies = {{1.0, Mat3::Identity() * 0.004}, {3.0, Mat3::Identity() * 0.012}};
    p.unconstrained = Eigen::VectorXd::Zero(12);
    p.unconstrained[0] = 2.0;   // body 0 moves +x at 2 m/s
    p.unconstrained[6] = -1.0;  // body 1 moves -x at 1 m/s
    Row r;  // the normal (body 1 -> body 0) is -x: relative normal velocity (v0 - v1) . (-x)
    r.bodyA = 0;
    r.jacA << -Vec3::UnitX(), Vec3::Zero();
    r.bodyB = 1;
    r.jacB << Vec3::UnitX(), Vec3::Zero();
    const double before = r.jacA.dot(p.unconstrained.head<6>()) + r.jacB.dot(p.unconstrained.tail<6>());
    ASSERT_LT(before, 0.0);  // approaching
    r.c = -e * before;
    p.rows.push_back(r);
    for (const Solution& s : {solveMotionSpace(p), solveContactSpace(p)}) {
      ASSERT_TRUE(s.ok) << s.error;
      EXPECT_NEAR(1.0 * s.acceleration[0] + 3.0 * s.acceleration[6], 1.0 * 2.0 + 3.0 * -1.0, 1e-12);
      EXPECT_NEAR(s.acceleration[0] - s.acceleration[6], -e * 3.0, 1e-12);
    }
  }
}

}  // namespace
