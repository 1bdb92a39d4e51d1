// The contact stage (core/contact.h) in running simulations, at the default settings
// (semi-implicit Euler, dt = 1 ms, projection on) unless a test says otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>

#include "core/contact.h"
#include "core/scene_io.h"
#include "test_util.h"

namespace tether::core::test {
namespace {

Scene contactScene() {
  Scene s;
  s.settings.contacts = true;
  s.planes.push_back({.name = "floor", .point = Vec3::Zero(), .normal = Vec3::UnitZ(), .restitution = 0.0});
  return s;
}

// Heights of the centre's local maxima after the start, above the floor's touching height.
std::vector<double> apexes(Simulation& sim, double lowest, double until) {
  std::vector<double> out;
  double z0 = sim.state().bodies[0].x.z(), z1 = z0;
  for (double t = 1e-3; t <= until + 1e-9; t += 1e-3) {
    if (!sim.advanceTo(t).ok) {
      ADD_FAILURE() << "diverged at t = " << t;
      return out;
    }
    const double z2 = sim.state().bodies[0].x.z();
    if (z1 > z0 && z1 >= z2) out.push_back(z1 - lowest);
    z0 = z1;
    z1 = z2;
  }
  return out;
}

TEST(Contacts, ABallDroppedOnTheFloorBouncesToESquaredOfItsHeight) {
  // dropped from 1 m above the floor, e = 0.8: each apex is e^2 = 0.64 of the one before
  Scene s = contactScene();
  s.bodies.push_back(sphere("ball", Vec3(0, 0, 1.1), 0.1));
  s.bodies[0].restitution = 0.8;
  auto sim = simulate(s);
  std::vector<double> heights{1.0};
  for (double h : apexes(*sim, 0.1, 3.5)) heights.push_back(h);
  ASSERT_GE(heights.size(), 7u);
  for (size_t i = 1; i < 7; ++i) EXPECT_NEAR(heights[i] / heights[i - 1], 0.64, 0.01 * 0.64) << "bounce " << i;
}

TEST(Contacts, AnElasticBallKeepsItsHeightWithEveryStepper) {
  // e = 1: the bounce returns the energy it took. Semi-implicit Euler and sequential impulses
  // end a step on its mean velocity, half a step of gravity behind the end: the restitution
  // counts it (without, each bounce lost 0.44 %); RK4 and RK45 end on the end velocity.
  for (int k = 0; k < 4; ++k) {
    Scene s = contactScene();
    s.bodies.push_back(sphere("ball", Vec3(0, 0, 1.1), 0.1));
    s.bodies[0].restitution = 1.0;
    if (k == 1) s.settings.integrator = IntegratorKind::RK4;
    if (k == 2) s.settings.integrator = IntegratorKind::RK45;
    if (k == 3) s.settings.solver = SolverKind::SequentialImpulses;
    auto sim = simulate(s);
    const std::vector<double> heights = apexes(*sim, 0.1, 5.0);
    ASSERT_GE(heights.size(), 5u) << k;
    for (double h : heights) EXPECT_NEAR(h, 1.0, 1e-3) << k;
  }
}

TEST(Contacts, AnElasticRodPinnedAtItsEndKeepsItsEnergyStrikingTheFloor) {
  // A rod (r = 2 cm, 0.5 m) pinned at its end just over the floor, released 30 degrees up, e = 1:
  // its free end strikes the floor again and again. The restitution's correction for the mean
  // velocities takes the contact's acceleration over the kick, the pin's force in it (the tip
  // falls at up to 1.5 g); with gravity's alone the rod gained 14 % of its energy in 20 s.
  Scene s = contactScene();
  s.planes[0].restitution = 1.0;
  s.nails.push_back({"nail", Vec3(0, 0, 0.03)});
  s.bodies.push_back(rod("rod", Vec3(0, 0, 0.03), Vec3(0.5 * std::cos(M_PI / 6), 0, 0.03 + 0.5 * std::sin(M_PI / 6)), 0.02));
  s.bodies[0].restitution = 1.0;
  s.constraints.push_back(pointToNail("pin", pt("rod", "end1"), "nail"));
  auto sim = simulate(s);
  const double e0 = mechanicalEnergy(*sim);
  int strikes = 0;
  for (int k = 1; k <= 20000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    for (const ContactReport& c : sim->contacts()) strikes += c.impulse > 1e-3;
  }
  EXPECT_GT(strikes, 10);
  EXPECT_LT(std::abs(mechanicalEnergy(*sim) - e0), 5e-3 * e0) << mechanicalEnergy(*sim) << " against " << e0;
}

TEST(Contacts, ABoxRestsOnFourCornersThatCarryItsWeight) {
  Scene s = contactScene();
  s.bodies.push_back(box("box", Vec3(0.3, -0.2, 0.1 + 0.01), Vec3(0.4, 0.3, 0.2), 0.0));
  auto sim = simulate(s);
  ASSERT_TRUE(sim->advanceTo(10.0).ok);
  const auto& contacts = sim->contacts();
  ASSERT_EQ(contacts.size(), 4u);
  const double mg = sim->model().bodies[0].mass * 9.81;
  double sum = 0.0;
  for (const ContactReport& c : contacts) {
    EXPECT_EQ(c.plane, 0);
    sum += c.force;
  }
  EXPECT_NEAR(sum, mg, 1e-9 * mg);
  // its overlap with the floor: the lowest corner's depth
  const BodyState& b = sim->state().bodies[0];
  double lowest = 1.0;
  for (int k = 0; k < 8; ++k)
    lowest = std::min(lowest, (b.x + b.q * Vec3(k & 1 ? 0.2 : -0.2, k & 2 ? 0.15 : -0.15, k & 4 ? 0.1 : -0.1)).z());
  EXPECT_GE(lowest, -1e-5);
  EXPECT_LE(lowest, 0.0);
  // and it has not moved sideways or turned
  EXPECT_NEAR(sim->state().bodies[0].x.x(), 0.3, 1e-9);
  EXPECT_NEAR(sim->state().bodies[0].x.y(), -0.2, 1e-9);
  EXPECT_LT(sim->state().bodies[0].L.norm(), 1e-9);
  EXPECT_TRUE(sim->contactProblem().empty()) << sim->contactProblem();
}

TEST(Contacts, ABoxSlidesDownAFrictionlessSlopeAtGSinTheta) {
  const double theta = 0.35;
  const Vec3 n(-std::sin(theta), 0.0, std::cos(theta));  // the slope falls towards -x
  Scene s = contactScene();
  s.planes[0].normal = n;
  BodyDef b = box("box", 0.1 * n, Vec3(0.2, 0.2, 0.2));
  b.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), n);
  b.friction = b.staticFriction = 0.0;
  s.bodies.push_back(b);
  auto sim = simulate(s);
  ASSERT_TRUE(sim->advanceTo(1.0).ok);
  const Vec3 v = sim->state().bodies[0].P / sim->model().bodies[0].mass;
  const Vec3 down(-std::cos(theta), 0.0, -std::sin(theta));
  EXPECT_NEAR(v.dot(down), 9.81 * std::sin(theta) * 1.0, 1e-6 * 9.81);
  EXPECT_NEAR(v.dot(n), 0.0, 1e-9);
  EXPECT_EQ(sim->contacts().size(), 4u);
}

// A 0.2 m cube resting on a slope of angle theta (falling towards -x), friction mu on both.
// (muStatic < 0: the same as mu; velocity: the box's at the start)
std::unique_ptr<Simulation> boxOnSlope(double theta, double mu, double muStatic = -1.0, const Vec3& velocity = Vec3::Zero()) {
  const Vec3 n(-std::sin(theta), 0.0, std::cos(theta));
  Scene s = contactScene();
  s.planes[0].normal = n;
  s.planes[0].friction = s.planes[0].staticFriction = mu;
  BodyDef b = box("box", (0.1 - 5e-7) * n, Vec3(0.2, 0.2, 0.2));
  b.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), n);
  b.friction = b.staticFriction = mu;
  if (muStatic >= 0.0) b.staticFriction = s.planes[0].staticFriction = muStatic;
  b.velocity = velocity;
  s.bodies.push_back(b);
  return simulate(s);
}

TEST(Contacts, FrictionHoldsABoxOnASlopeBelowItsAngle) {
  // tan(0.4) = 0.42 < mu = 0.5: it sticks (Coulomb: the friction needed, m g sin theta, is within
  // mu m g cos theta)
  auto sim = boxOnSlope(0.4, 0.5);
  const Vec3 start = sim->state().bodies[0].x;
  ASSERT_TRUE(sim->advanceTo(5.0).ok);
  EXPECT_LT((sim->state().bodies[0].x - start).norm(), 1e-6);
  double normal = 0.0;
  Vec3 friction = Vec3::Zero();
  for (const ContactReport& c : sim->contacts()) {
    normal += c.force;
    friction += c.friction;
  }
  const double mg = sim->model().bodies[0].mass * 9.81;
  EXPECT_NEAR(normal, mg * std::cos(0.4), 1e-6 * mg);
  EXPECT_NEAR(friction.norm(), mg * std::sin(0.4), 1e-6 * mg);
}

// Static friction above the kinetic: mu_k = 0.3 < tan 0.4 = 0.42 < mu_s = 0.5. Resting, it sticks
// by mu_s (it slid down at g (sin - 0.3 cos) while the step's own kick, 3.8 mm/s of slip, counted
// as sliding); pushed along the floor, it slides by mu_k, a = -mu_k g, and stops.
TEST(Contacts, StaticFrictionHoldsWhatKineticFrictionWouldLetSlide) {
  auto sim = boxOnSlope(0.4, 0.3, 0.5);
  const Vec3 start = sim->state().bodies[0].x;
  ASSERT_TRUE(sim->advanceTo(5.0).ok);
  EXPECT_LT((sim->state().bodies[0].x - start).norm(), 1e-6);
  Vec3 friction = Vec3::Zero();
  for (const ContactReport& c : sim->contacts()) friction += c.friction;
  const double mg = sim->model().bodies[0].mass * 9.81;
  EXPECT_NEAR(friction.norm(), mg * std::sin(0.4), 1e-6 * mg);

  auto flat = boxOnSlope(0.0, 0.3, 0.5, Vec3(2.0, 0.0, 0.0));
  const double m = flat->model().bodies[0].mass;
  ASSERT_TRUE(flat->advanceTo(0.1).ok);
  const double v1 = flat->state().bodies[0].P.x() / m;
  ASSERT_TRUE(flat->advanceTo(0.4).ok);
  const double v2 = flat->state().bodies[0].P.x() / m;
  EXPECT_NEAR((v2 - v1) / 0.3, -0.3 * 9.81, 1e-3 * 0.3 * 9.81);
  ASSERT_TRUE(flat->advanceTo(1.5).ok);  // (2 m/s stops after 0.68 s)
  EXPECT_LT(flat->state().bodies[0].P.norm() / m, 1e-9);
}

// A torque about the vertical, 30 % of what the corners' friction can hold, on a cube resting on
// the floor: it does not turn, and its four corners' friction forces (the stuck patch's torque
// shared about the centre of pressure, core/contact.cpp stickingStart) add up to no force and to
// the torque's opposite about the cube's vertical axis.
TEST(Contacts, FrictionHoldsATwistedBoxAndItsCornersCarryTheTorque) {
  auto probe = boxOnSlope(0.0, 0.5);
  const double m = probe->model().bodies[0].mass, corner = 0.1 * std::sqrt(2.0);
  const double torque = 0.3 * 0.5 * m * 9.81 * corner;
  Scene s = contactScene();
  s.planes[0].friction = s.planes[0].staticFriction = 0.5;
  s.bodies.push_back(box("box", Vec3(0, 0, 0.1 - 5e-7), Vec3(0.2, 0.2, 0.2)));
  s.bodies[0].friction = s.bodies[0].staticFriction = 0.5;
  ForceDef twist;
  twist.name = "twist";
  twist.kind = ForceKind::ConstantTorque;
  twist.bodyA = "box";
  twist.vector = Vec3(0, 0, torque);
  s.forces.push_back(twist);
  auto sim = simulate(s);
  ASSERT_TRUE(sim->advanceTo(2.0).ok);
  const BodyState& b = sim->state().bodies[0];
  EXPECT_LT(b.q.angularDistance(Quat::Identity()), 1e-9);
  Vec3 force = Vec3::Zero(), moment = Vec3::Zero();
  for (const ContactReport& c : sim->contacts()) {
    force += c.friction;
    moment += (0.5 * (c.contact.pointA + c.contact.pointB) - b.x).cross(c.friction);
  }
  EXPECT_LT(force.norm(), 1e-9 * m * 9.81);
  EXPECT_NEAR(moment.z(), -torque, 1e-6 * torque);
}

TEST(Contacts, ABoxSlidesDownASlopeSteeperThanItsFrictionAngle) {
  // tan(0.5) = 0.55 > mu = 0.3: a = g (sin theta - mu cos theta) down the slope
  const double theta = 0.5, mu = 0.3;
  auto sim = boxOnSlope(theta, mu);
  const Vec3 down(-std::cos(theta), 0.0, -std::sin(theta));
  const double m = sim->model().bodies[0].mass;
  ASSERT_TRUE(sim->advanceTo(0.5).ok);
  const double v1 = sim->state().bodies[0].P.dot(down) / m;
  ASSERT_TRUE(sim->advanceTo(1.5).ok);
  const double v2 = sim->state().bodies[0].P.dot(down) / m;
  const double a = 9.81 * (std::sin(theta) - mu * std::cos(theta));
  EXPECT_NEAR(v2 - v1, a * 1.0, 1e-3 * a);
  EXPECT_LT(sim->state().bodies[0].L.norm(), 1e-6);  // it slides flat, without tipping
}

TEST(Contacts, AStackOfTenBoxesStandsAMinute) {
  Scene s = contactScene();
  for (int i = 0; i < 10; ++i)
    s.bodies.push_back(box("box" + std::to_string(i), Vec3(0, 0, 0.1 + 0.2 * i + 1e-4 * i), Vec3(0.3, 0.3, 0.2)));
  auto sim = simulate(s);
  const char* quick = std::getenv("TETHER_EXAMPLE_SECONDS");  // (the sanitizer build: shorter)
  ASSERT_TRUE(sim->advanceTo(quick ? std::atof(quick) : 60.0).ok);
  for (int i = 0; i < 10; ++i) {
    const Vec3 x = sim->state().bodies[size_t(i)].x;
    EXPECT_LT(x.head<2>().norm(), 1e-6) << i;
    EXPECT_NEAR(x.z(), 0.1 + 0.2 * i, 1e-4) << i;
    // at rest: each face held exactly (stickingStart in core/contact.cpp). With the friction
    // sweeps alone, the slip they left grew tenfold every 10 s: 2e-8 m/s by 60 s, 1e-6 by 240 s.
    const BodyState& b = sim->state().bodies[size_t(i)];
    if (!quick) EXPECT_LT(b.P.norm() / sim->model().bodies[size_t(i)].mass, 1e-11) << i;
    if (!quick) EXPECT_LT(b.L.norm(), 1e-11) << i;
  }
  double sumOnFloor = 0.0;
  for (const ContactReport& c : sim->contacts())
    if (c.plane == 0) sumOnFloor += c.force;
  const double weight = 10 * sim->model().bodies[0].mass * 9.81;
  EXPECT_NEAR(sumOnFloor, weight, 1e-6 * weight);
}

// The bundled card house (resources/examples/card_house_friction.json): seven cards on a board,
// two A-frames, a card across them and an A-frame on that, no constraint at all. Friction holds
// it (the tops need mu >= tan 18 deg = 0.32, the cards have 0.6): over its 30 s no card moves by
// more than 0.2 mm or turns by more than 0.005 rad. Without friction it falls within a second.
TEST(Contacts, TheCardHouseStandsByFrictionAlone) {
  const Scene file = loadScene(std::string(TETHER_EXAMPLES_DIR) + "/card_house_friction.json");
  ASSERT_TRUE(file.constraints.empty());
  const auto largestMove = [](const Scene& s, double until) {
    auto sim = simulate(s);
    const std::vector<BodyState> start = sim->state().bodies;
    EXPECT_TRUE(sim->advanceTo(until).ok);
    double moved = 0.0, turned = 0.0;
    for (std::size_t i = 0; i < start.size(); ++i) {
      const BodyState& b = sim->state().bodies[i];
      moved = std::max(moved, (b.x - start[i].x).norm());
      turned = std::max(turned, b.q.angularDistance(start[i].q));
    }
    return std::pair{moved, turned};
  };
  const char* quick = std::getenv("TETHER_EXAMPLE_SECONDS");  // (the sanitizer build: shorter)
  const auto [moved, turned] = largestMove(file, quick ? std::atof(quick) : file.settings.duration);
  EXPECT_LT(moved, 2e-4);
  EXPECT_LT(turned, 5e-3);
  Scene slippery = file;
  for (BodyDef& b : slippery.bodies) b.friction = b.staticFriction = 0.0;
  EXPECT_GT(largestMove(slippery, 1.0).first, 0.01);
}

// The bundled marbles (resources/examples/marbles.json): 500 glass marbles (radius 8 mm) poured
// into a bin of four fixed walls on the floor, 25 created every 0.1 s. Once landed none overlaps
// anything by 0.1 mm, and after 5 s every marble lies in the bin, at rest.
TEST(Contacts, FiveHundredMarblesPouredIntoABinStayInItAndBarelyOverlap) {
  const Scene file = loadScene(std::string(TETHER_EXAMPLES_DIR) + "/marbles.json");
  const char* quick = std::getenv("TETHER_EXAMPLE_SECONDS");  // (the sanitizer build: shorter)
  const double until = quick ? std::atof(quick) : 5.0;  // (all poured by 1.9 s, landed by 3)
  auto sim = simulate(file);
  double deepest = 0.0, resting = 0.0;  // the deepest overlap, and after 3 s (all landed)
  for (double t = 0.01; t <= until + 1e-9; t += 0.01) {
    ASSERT_TRUE(sim->advanceTo(t).ok) << t;
    double& worst = t < 3.0 ? deepest : resting;
    for (const ContactReport& c : sim->contacts()) worst = std::max(worst, c.contact.depth);
  }
  // landing, a contact is found where a step ends in an overlap (no continuous detection): at
  // most what two marbles approach by in a step, each at most sqrt(1 + 2 g 0.35) = 2.8 m/s
  // (measured: 2.9 mm); resting, a fraction of a millimetre (measured: 0.02 mm)
  EXPECT_LT(deepest, 2 * 2.8 * file.settings.dt);
  if (!quick) EXPECT_LT(resting, 1e-4);
  RecordProperty("deepest_overlap_m", std::to_string(deepest));
  RecordProperty("resting_overlap_m", std::to_string(resting));
  int marbles = 0;
  const double r = 0.008, halfInner = 0.12;
  for (std::size_t i = 0; i < file.bodies.size(); ++i) {
    if (file.bodies[i].name.rfind("marble", 0) != 0 || !sim->state().params.bodyActive[i]) continue;
    ++marbles;
    const BodyState& b = sim->state().bodies[i];
    EXPECT_LE(std::max(std::abs(b.x.x()), std::abs(b.x.y())), halfInner - r + 1e-3) << file.bodies[i].name;
    EXPECT_GE(b.x.z(), r - 1e-3) << file.bodies[i].name;
    if (!quick) EXPECT_LT(b.P.norm() / sim->model().bodies[i].mass, 0.1) << file.bodies[i].name;
  }
  EXPECT_EQ(marbles, quick ? 25 * (int(until / 0.1) + 1) : 500);
}

TEST(Contacts, APendulumSwingsIntoTheFloorAndItsPinHolds) {
  // a rod pinned at one end 0.6 m above the floor, 1 m long, released horizontal: it strikes the
  // floor; the joint carries the impact (an equality row of the same problem) and stays met
  Scene s = contactScene();
  s.nails.push_back({"nail", Vec3(0, 0, 0.6)});
  s.bodies.push_back(rod("rod", Vec3(0, 0, 0.6), Vec3(1, 0, 0.6), 0.03));
  s.constraints.push_back(pointToNail("pin", pt("rod", "end1"), "nail"));
  auto sim = simulate(s);
  std::vector<double> d;
  double deepest = 0.0;
  for (double t = 0.01; t <= 10.0 + 1e-9; t += 0.01) {
    ASSERT_TRUE(sim->advanceTo(t).ok);
    for (const ContactReport& c : sim->contacts()) deepest = std::max(deepest, c.contact.depth);
    sim->deviations(d);
    ASSERT_LT(d[0], 1e-6) << "t = " << t;
  }
  EXPECT_FALSE(sim->contacts().empty());  // it came to rest on the floor
  EXPECT_LT(deepest, 0.03);
  // resting: its lowest point on the floor, at most the slop in it
  const BodyState& r = sim->state().bodies[0];
  const Vec3 end2 = r.x + r.q * Vec3(0, 0, 0.5);
  EXPECT_NEAR(end2.z(), 0.03, 1e-5);
}

// A chain of rods (each `length` long, radius `radius`) lying on the floor along x, link i
// thrown at velocity(i); and the largest joint deviation over `seconds` of its run.
template <class Velocity>
Scene chainOnTheFloor(int links, double length, double radius, Velocity velocity) {
  Scene s = contactScene();
  for (int i = 0; i < links; ++i) {
    const std::string name = "r" + std::to_string(i);
    BodyDef b = rod(name, Vec3(length * i, 0, radius), Vec3(length * (i + 1), 0, radius), radius);
    b.velocity = velocity(i);
    s.bodies.push_back(b);
    if (i > 0) s.constraints.push_back(pointToPoint("j" + std::to_string(i), pt("r" + std::to_string(i - 1), "end2"), pt(name, "end1")));
  }
  return s;
}
double worstDeviation(Simulation& sim, double seconds) {
  std::vector<double> d;
  double worst = 0.0;
  for (double t = 0.01; t <= seconds + 1e-9; t += 0.01) {
    if (!sim.advanceTo(t).ok) {
      ADD_FAILURE() << "diverged at t = " << t;
      return worst;
    }
    sim.deviations(d);
    for (double x : d) worst = std::max(worst, x);
  }
  return worst;
}

// A chain of eight rods lying on the floor, thrown sideways at 2 m/s and twisting, slides and
// rolls nearly to rest by friction. Its group is moving, so the friction sweeps stop at 30
// (core/contact.cpp), but the joints' rows are one block solved exactly at the end of every
// sweep: they keep the rates the step gave them, and with projection off the joints stay met by
// the implicit target alone (row by row, with 30 sweeps, the three-link bar on the floor opened a
// joint by 3.7 mm with projection on).
TEST(Contacts, AChainSlidingOnTheFloorKeepsItsJointsWithFewFrictionSweeps) {
  // sideways, faster towards the far end: it twists as it slides
  Scene s = chainOnTheFloor(8, 0.2, 0.01, [](int i) { return Vec3(0.3 * i, 2.0, 0); });
  s.settings.projection = false;
  auto sim = simulate(s);
  const double e0 = energy(sim->model(), sim->state()).kinetic;
  // (measured: 4.5e-8 m at 0.24 s, as the rods spin up to 200 rad/s about their axes in 4
  // substeps; the joints row by row in the sweeps: 4.8e-6 m)
  EXPECT_LT(worstDeviation(*sim, 3.0), 5e-7);
  // friction took nearly all of its motion; rods still roll slowly: a rod rolls without
  // resistance, only its neighbours' joints make it slip (measured: 1.3e-3 of the kinetic energy
  // left at 3 s; at rest within 5-8 s, depending on dt: the rolling is chaotic)
  EXPECT_LT(energy(sim->model(), sim->state()).kinetic, 1e-2 * e0);
}

// A chain too long for the joints' dense block (100 links, 297 joint rows > 192, core/contact.cpp)
// sweeps its joints row by row, as before the block: thrown sideways across the floor with the
// default settings, it slides and its joints stay met. (The sanitizer build, which sets
// TETHER_EXAMPLE_SECONDS, runs a fifth of it: its 0.5 s took 144 s there.)
TEST(Contacts, ALongChainSlidingOnTheFloorKeepsItsJoints) {
  const double seconds = std::getenv("TETHER_EXAMPLE_SECONDS") ? 0.1 : 0.5;
  auto sim = simulate(chainOnTheFloor(100, 0.05, 0.005, [](int i) { return Vec3(0, 1.0 + 0.01 * i, 0); }));
  EXPECT_LT(worstDeviation(*sim, seconds), 1e-6);
  EXPECT_GT(sim->state().bodies[50].x.y(), 0.2 * seconds);  // it slid
}

TEST(Contacts, BodiesPassThroughWhenContactsAreOffOrTheyDoNotCollide) {
  // a ball dropped on a fixed rock: it stays on it only with contacts on, both colliding and
  // their groups in each other's masks
  for (int variant = 0; variant < 4; ++variant) {
    Scene s = contactScene();
    s.planes.clear();
    s.bodies.push_back(sphere("ball", Vec3(0, 0, 0.6), 0.1));
    s.bodies.push_back(sphere("rock", Vec3::Zero(), 0.3));
    s.bodies[1].fixed = true;
    if (variant == 1) s.settings.contacts = false;
    if (variant == 2) s.bodies[0].collides = false;
    if (variant == 3) s.bodies[0].collisionGroup = 2, s.bodies[0].collisionMask = 2;  // the rock is group 1
    auto sim = simulate(s);
    ASSERT_TRUE(sim->advanceTo(2.0).ok);
    if (variant == 0)
      EXPECT_NEAR(sim->state().bodies[0].x.norm(), 0.4, 1e-5);
    else
      EXPECT_LT(sim->state().bodies[0].x.z(), -10.0) << variant;
  }
}

TEST(Contacts, TwoBallsCollidingHeadOnKeepTheirMomentum) {
  // a 1:8 mass pair (radius 0.1 and 0.2), no gravity, e = 0.7: momentum kept to 1e-12
  // relative; the speed of separation is e times the speed of approach (one contact: Newton's law)
  Scene s = contactScene();
  s.planes.clear();
  s.settings.gravityOn = false;
  s.bodies.push_back(sphere("a", Vec3(-0.5, 0, 0), 0.1));
  s.bodies.push_back(sphere("b", Vec3(0.5, 0, 0), 0.2));
  s.bodies[0].velocity = Vec3(3, 0, 0);
  s.bodies[1].velocity = Vec3(-1, 0, 0);
  s.bodies[0].restitution = s.bodies[1].restitution = 0.7;
  auto sim = simulate(s);
  const auto momentum = [&] { return Vec3(sim->state().bodies[0].P + sim->state().bodies[1].P); };
  const Vec3 p0 = momentum();
  ASSERT_TRUE(sim->advanceTo(1.0).ok);
  EXPECT_LT((momentum() - p0).norm(), 1e-12 * p0.norm());
  const Vec3 va = sim->state().bodies[0].P / sim->model().bodies[0].mass;
  const Vec3 vb = sim->state().bodies[1].P / sim->model().bodies[1].mass;
  EXPECT_NEAR((vb - va).x(), 0.7 * 4.0, 1e-12);
  EXPECT_LT((vb - va).tail<2>().norm(), 1e-12);
}

TEST(Contacts, NewtonsCradlePassesTheFirstBallsSpeedToTheLast) {
  // the bundled example: five 2 mm-apart steel balls on strings, e = 1, the first let go. It
  // strikes the second at the bottom of its swing; the impacts run through the row within a
  // few steps and the last ball leaves with the first one's speed, the others nearly at rest.
  auto sim = simulate(loadScene(std::string(TETHER_EXAMPLES_DIR) + "/newtons_cradle.json"));
  const Model& m = sim->model();
  const auto vx = [&](int i) { return sim->state().bodies[size_t(i)].P.x() / m.bodies[size_t(i)].mass; };
  double before = 0.0, lastFastest = 0.0, othersFastest = 0.0;
  bool hit = false;
  for (double t = 1e-3; t < 0.45; t += 1e-3) {
    ASSERT_TRUE(sim->advanceTo(t).ok);
    hit = hit || !sim->contacts().empty();
    if (!hit) before = vx(0);
    if (hit && lastFastest < vx(4)) {
      lastFastest = vx(4);
      othersFastest = 0.0;
      for (int i = 0; i < 4; ++i) othersFastest = std::max(othersFastest, std::abs(vx(i)));
    }
  }
  ASSERT_TRUE(hit);
  EXPECT_GT(before, 1.0);
  EXPECT_NEAR(lastFastest, before, 0.01 * before);
  EXPECT_LT(othersFastest, 0.01 * before);
}

TEST(Contacts, ARunIsDeterministicAndResumesBitForBit) {
  Scene s = contactScene();
  for (int i = 0; i < 4; ++i) {
    s.bodies.push_back(box("box" + std::to_string(i), Vec3(0.05 * i, 0.03 * i, 0.15 + 0.25 * i), Vec3(0.2, 0.2, 0.2), 0.3));
    s.bodies.back().orientation = Quat(Eigen::AngleAxisd(0.2 * i, Vec3(1, 1, 0).normalized()));
  }
  s.bodies.push_back(sphere("ball", Vec3(0.1, 0.0, 1.4), 0.08));
  auto a = simulate(s);
  auto b = simulate(s);
  ASSERT_TRUE(a->advanceTo(1.5).ok);
  const State mid = a->state();
  ASSERT_TRUE(a->advanceTo(3.0).ok);
  ASSERT_TRUE(b->advanceTo(3.0).ok);
  Simulation c(std::make_shared<const Model>(compile(s)), mid);
  ASSERT_TRUE(c.advanceTo(3.0).ok);
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    for (const Simulation* other : {b.get(), &c}) {
      const BodyState &x = a->state().bodies[i], &y = other->state().bodies[i];
      EXPECT_TRUE(x.x == y.x && x.q.coeffs() == y.q.coeffs() && x.P == y.P && x.L == y.L) << i;
    }
  }
}

// Eight dominoes in a row, the first tipped by 0.21 rad: they fall against each other and lie in a pile
// held by friction, which the sticking start cannot solve (its stuck solution asks one leaning
// edge for more friction than its load gives). Resting, each step's sweeps start from the last
// step's contact forces and end at their first (from the frictionless result they took 97 a
// step), and the pile stays where it lies.
// A helper's finding: boxes stacked exactly touching (as typed, 0.2 m boxes at z = 0.1, 0.3,
// ...), restitution 1, on a floor of restitution 1. Two boxes apart by round-off had no contact
// at all (Bullet's box-box test reports overlapping boxes only), so no near row held the box
// above while the overlap projection lifted the one below into it: it came out 0.06 mm deep at
// 0.04 m/s, faster than the resting speed, and bounced. A stack of four gained 11.6 J in 30 s,
// of eight 23 J, its top boxes thrown up 0.67 m in two minutes. Boxes apart by less than the
// margin now have their near contacts (CollisionDetector): the stack rests.
TEST(Contacts, AnElasticStackPlacedTouchingRests) {
  for (int count : {4, 7, 8}) {
    SCOPED_TRACE(count);
    Scene s = contactScene();
    s.planes[0].restitution = 1.0;
    for (int i = 0; i < count; ++i) {
      s.bodies.push_back(box("b" + std::to_string(i), Vec3(0, 0, 0.1 + 0.2 * i), Vec3(0.2, 0.2, 0.2), 1.0));
      s.bodies.back().friction = s.bodies.back().staticFriction = 0.5;
    }
    auto sim = simulate(s);
    const double e0 = mechanicalEnergy(*sim);
    double highest = 0.0;
    for (double t = 0.5; t <= 30.0 + 1e-9; t += 0.5) {
      ASSERT_TRUE(sim->advanceTo(t).ok);
      for (int i = 0; i < count; ++i) highest = std::max(highest, std::abs(sim->state().bodies[size_t(i)].x.z() - (0.1 + 0.2 * i)));
      EXPECT_LT(mechanicalEnergy(*sim) - e0, 1e-6 * e0) << t;
    }
    EXPECT_LT(highest, 1e-5);
  }
}

TEST(Contacts, FallenDominoesRestWithOneFrictionSweepAStep) {
  Scene s = contactScene();
  for (int i = 0; i < 8; ++i) {
    s.bodies.push_back(box("domino" + std::to_string(i + 1), Vec3(0.3 * i, 0, 0.25), Vec3(0.05, 0.25, 0.5)));
    s.bodies.back().density = 700;
  }
  s.bodies[0].orientation = Quat(Eigen::AngleAxisd(0.21, Vec3::UnitY()));
  s.bodies[0].position.z() = 0.26;
  auto sim = simulate(s);
  ASSERT_TRUE(sim->advanceTo(5.0).ok);
  for (const BodyState& b : sim->state().bodies) EXPECT_LT(b.x.z(), 0.2);  // every one fell
  const State fallen = sim->state();
  int most = 0;
  for (int k = 1; k <= 2000; ++k) {
    ASSERT_TRUE(sim->advanceTo(5.0 + k * 1e-3).ok);
    most = std::max(most, sim->frictionSweeps());
  }
  EXPECT_LE(most, 2);
  for (size_t i = 0; i < s.bodies.size(); ++i) EXPECT_LT((sim->state().bodies[i].x - fallen.bodies[i].x).norm(), 1e-6) << i;
}

TEST(Contacts, TheSceneFileHoldsPlanesMaterialsAndFiltersAndNamesBadValues) {
  Scene s = contactScene();
  s.settings.contactSlop = 2e-6;
  s.planes[0].restitution = 0.25;
  s.bodies.push_back(sphere("ball", Vec3(0, 0, 1), 0.1));
  s.bodies[0].restitution = 0.9;
  s.bodies[0].collides = false;
  s.bodies[0].collisionGroup = 6;
  s.bodies[0].collisionMask = 0xfffffff0u;
  s.bodies[0].rollingResistance = 0.003;
  s.planes[0].rollingResistance = 0.001;
  const Scene back = sceneFromJson(sceneToJson(s));
  EXPECT_EQ(back.bodies[0].rollingResistance, 0.003);
  EXPECT_EQ(back.planes, s.planes);
  EXPECT_TRUE(back.settings.contacts);
  EXPECT_EQ(back.settings.contactSlop, 2e-6);
  EXPECT_EQ(back.bodies[0].restitution, 0.9);
  EXPECT_FALSE(back.bodies[0].collides);
  EXPECT_EQ(back.bodies[0].collisionGroup, 6u);
  EXPECT_EQ(back.bodies[0].collisionMask, 0xfffffff0u);

  const auto error = [](const std::string& text) {
    try {
      sceneFromJson(text);
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string head = R"({"format":"tether-scene","version":1,)";
  EXPECT_NE(error(head + R"("bodies":[{"name":"b","type":"sphere","restitution":1.5}]})").find("bodies[0].restitution"),
            std::string::npos);
  EXPECT_NE(error(head + R"("planes":[{"name":"p","normal":[0,0,0]}]})").find("planes[0].normal"), std::string::npos);
  EXPECT_NE(error(head + R"("bodies":[{"name":"b","type":"sphere","collision_group":-1}]})").find("collision_group"),
            std::string::npos);
  EXPECT_NE(error(head + R"("planes":[{"name":"p"}],"bodies":[{"name":"p","type":"sphere"}]})").find("duplicate name"),
            std::string::npos);
  EXPECT_NE(error(head + R"("settings":{"contact_slop":-1}})").find("settings.contact_slop"), std::string::npos);
  EXPECT_NE(error(head + R"("bodies":[{"name":"b","type":"sphere","rolling_resistance":-0.1}]})").find("bodies[0].rolling_resistance: must be between 0 and 1"),
            std::string::npos);
  EXPECT_NE(error(head + R"("planes":[{"name":"p","rolling_resistance":2}]})").find("planes[0].rolling_resistance"), std::string::npos);
}

// A solid ball on a slope, by friction alone (no rolling constraint): with I = 2/5 m r^2 about
// its centre, rolling without slipping (v = w r) down a slope of angle theta takes the friction
// f = m g sin theta - m a and the torque f r = I a / r, so a = g sin theta / (1 + I / (m r^2))
// = 5/7 g sin theta, and f = 2/7 m g sin theta: it rolls while mu >= 2/7 tan theta. Below that
// it slides, a = g (sin theta - mu cos theta), while friction spins it up: dw/dt = mu m g cos
// theta r / I = 5/2 mu g cos theta / r.
TEST(Contacts, ABallRollsDownASlopeWithoutSlippingByFriction) {
  const double theta = 0.3, r = 0.1, g = 9.81;
  // (turn: the slope turned about the vertical by this much, its fall line off the axes)
  const auto roll = [&](double mu, double turn = 0.0) {
    const Vec3 n = Eigen::AngleAxisd(turn, Vec3::UnitZ()) * Vec3(-std::sin(theta), 0.0, std::cos(theta));
    Scene s = contactScene();
    s.planes[0].normal = n;
    s.planes[0].friction = s.planes[0].staticFriction = mu;
    BodyDef b = sphere("ball", (r - 5e-7) * n, r);
    b.friction = b.staticFriction = mu;
    s.bodies.push_back(b);
    return simulate(s);
  };
  const Vec3 down(-std::cos(theta), 0.0, -std::sin(theta)), axis(0, 1, 0);  // w along -y rolls it down
  {
    auto sim = roll(0.5);  // 2/7 tan(0.3) = 0.088 < 0.5: it rolls
    const double m = sim->model().bodies[0].mass, I = 0.4 * m * r * r;
    ASSERT_TRUE(sim->advanceTo(0.5).ok);
    const double v1 = sim->state().bodies[0].P.dot(down) / m;
    ASSERT_TRUE(sim->advanceTo(1.5).ok);
    const double v2 = sim->state().bodies[0].P.dot(down) / m, w2 = -sim->state().bodies[0].L.dot(axis) / I;
    EXPECT_NEAR(v2 - v1, 5.0 / 7.0 * g * std::sin(theta), 1e-3 * g);
    EXPECT_NEAR(w2 * r, v2, 1e-4 * v2);  // no slip at the contact
  }
  {
    const double mu = 0.05;  // < 0.088: it slides and spins up
    auto sim = roll(mu);
    const double m = sim->model().bodies[0].mass, I = 0.4 * m * r * r;
    ASSERT_TRUE(sim->advanceTo(0.5).ok);
    const double v1 = sim->state().bodies[0].P.dot(down) / m, w1 = -sim->state().bodies[0].L.dot(axis) / I;
    ASSERT_TRUE(sim->advanceTo(1.5).ok);
    const double v2 = sim->state().bodies[0].P.dot(down) / m, w2 = -sim->state().bodies[0].L.dot(axis) / I;
    EXPECT_NEAR(v2 - v1, g * (std::sin(theta) - mu * std::cos(theta)), 1e-3 * g);
    EXPECT_NEAR(w2 - w1, 2.5 * mu * g * std::cos(theta) / r, 1e-3 * g / r);
    EXPECT_GT(v2 - w2 * r, 0.1);  // slipping
  }
  {
    // mu = 0.15 > 0.088: it rolls, needing 0.59 of its static friction, and each step's friction
    // is the stuck solution's, exact, which the sweeps confirm in one. (Its one contact's share of
    // the friction was once computed with a twist of rounding's size over a spread of rounding's
    // size, 1e-19 / 1e-36, and came out at up to twice the force: the stuck start was refused
    // and the sweeps started from the frictionless solution, taking 2 sweeps here and hundreds
    // in a resting bin of 20 bodies. The slope is turned off the axes: on a fall line along x,
    // the rounding's twist was 0.)
    const double turn = 0.7;
    auto sim = roll(0.15, turn);
    const double m = sim->model().bodies[0].mass, I = 0.4 * m * r * r;
    const Eigen::AngleAxisd q(turn, Vec3::UnitZ());
    const Vec3 down = q * Vec3(-std::cos(theta), 0.0, -std::sin(theta)), axis = q * Vec3::UnitY();
    int most = 0;
    for (int k = 1; k <= 1000; ++k) {
      ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok);
      most = std::max(most, sim->frictionSweeps());
    }
    EXPECT_EQ(most, 1);
    const double v = sim->state().bodies[0].P.dot(down) / m, w = -sim->state().bodies[0].L.dot(axis) / I;
    EXPECT_NEAR(w * r, v, 1e-4 * v);  // no slip at the contact
  }
}

// Rolling resistance (core/contact.cpp, frictionPhase): a torque against a contact's rolling of
// at most mu_r times its normal force, mu_r the pair's lever arm (the ball's plus the floor's).
// A solid ball (I = 2/5 m r^2) rolling on a level floor: m a = F and I a / r = -F r - mu_r m g
// give a = -5/7 g mu_r / r, so from v0 it stops after v0 / a, having rolled v0^2 / (2 a), and then
// stays. On a slope it is held while tan theta <= mu_r / r; steeper it rolls down at
// 5/7 g (sin theta - mu_r / r cos theta). Its slope is turned off the axes (as the friction
// test's is), its fall line along no coordinate.
TEST(Contacts, RollingResistanceSlowsARollingBallAndHoldsItOnAGentleSlope) {
  const double r = 0.1, mur = 0.002, g = 9.81, turn = 0.7;
  const auto scene = [&](double theta, double v0) {
    const Eigen::AngleAxisd q(turn, Vec3::UnitZ());
    const Vec3 n = q * Vec3(-std::sin(theta), 0.0, std::cos(theta)), down = q * Vec3(-std::cos(theta), 0.0, -std::sin(theta));
    Scene s = contactScene();
    s.planes[0].normal = n;
    BodyDef b = sphere("ball", (r - 5e-7) * n, r);
    b.rollingResistance = mur;
    b.velocity = v0 * down;
    b.angularVelocity = n.cross(down) * (v0 / r);  // rolling: the touching point -r n at rest
    s.bodies.push_back(b);
    return std::pair{s, down};
  };
  const auto ball = [&](double theta, double v0) {
    auto [s, down] = scene(theta, v0);
    return std::pair{simulate(s), down};
  };
  {
    auto [sim, down] = ball(0.0, 1.0);
    const double m = sim->model().bodies[0].mass, a = 5.0 / 7.0 * g * mur / r;
    const Vec3 start = sim->state().bodies[0].x;
    ASSERT_TRUE(sim->advanceTo(1.0).ok);
    const double v1 = sim->state().bodies[0].P.dot(down) / m;
    ASSERT_TRUE(sim->advanceTo(5.0).ok);
    const double v5 = sim->state().bodies[0].P.dot(down) / m;
    EXPECT_NEAR(v1 - v5, 4.0 * a, 1e-3 * 4.0 * a);
    ASSERT_TRUE(sim->advanceTo(9.0).ok);  // it stopped at 1 / a = 7.1 s
    EXPECT_NEAR((sim->state().bodies[0].x - start).dot(down), 1.0 / (2.0 * a), 2e-3 / (2.0 * a));
    const Vec3 stopped = sim->state().bodies[0].x;
    ASSERT_TRUE(sim->advanceTo(12.0).ok);
    EXPECT_LT((sim->state().bodies[0].x - stopped).norm(), 1e-6);
    EXPECT_LT(sim->state().bodies[0].L.norm(), 1e-9);
  }
  {
    auto [sim, down] = ball(std::atan(0.8 * mur / r), 0.0);  // held
    const Vec3 start = sim->state().bodies[0].x;
    ASSERT_TRUE(sim->advanceTo(5.0).ok);
    EXPECT_LT((sim->state().bodies[0].x - start).norm(), 1e-6);
  }
  {
    const double theta = std::atan(2.0 * mur / r);  // rolls down
    auto [sim, down] = ball(theta, 0.0);
    const double m = sim->model().bodies[0].mass;
    ASSERT_TRUE(sim->advanceTo(0.5).ok);
    const double v1 = sim->state().bodies[0].P.dot(down) / m;
    ASSERT_TRUE(sim->advanceTo(2.5).ok);
    const double v2 = sim->state().bodies[0].P.dot(down) / m;
    const double a = 5.0 / 7.0 * g * (std::sin(theta) - mur / r * std::cos(theta));
    EXPECT_NEAR(v2 - v1, 2.0 * a, 1e-3 * 2.0 * a);
  }
  {
    // none until an event sets it at 1 s: the ball keeps its speed, then slows as above
    auto [s, down] = scene(0.0, 1.0);
    s.bodies[0].rollingResistance = 0.0;
    s.events.push_back({.time = 1.0, .action = EventAction::Set, .target = "ball", .param = "rolling_resistance", .value = {mur}});
    EXPECT_EQ(sceneFromJson(sceneToJson(s)).events, s.events);
    auto timed = simulate(s);
    const double m = timed->model().bodies[0].mass, a = 5.0 / 7.0 * g * mur / r;
    ASSERT_TRUE(timed->advanceTo(0.9).ok);
    EXPECT_NEAR(timed->state().bodies[0].P.dot(down) / m, 1.0, 1e-5);  // (0.9 a = 0.13 with it)
    ASSERT_TRUE(timed->advanceTo(2.0).ok);
    const double v2 = timed->state().bodies[0].P.dot(down) / m;
    ASSERT_TRUE(timed->advanceTo(4.0).ok);
    EXPECT_NEAR(v2 - timed->state().bodies[0].P.dot(down) / m, 2.0 * a, 1e-3 * 2.0 * a);
  }
}

// The same resistance against spinning about the contact's normal (a helper's ball spun in place
// for ever): I dw/dt = -mu_r m g, w falls by 5 mu_r g / (2 r^2) a second and stops at
// 2 r^2 w0 / (5 mu_r g), then stays; the torque on the ball is said (ContactReport::rolling) about
// the normal. A tilted floor, the spin about its normal, the ball on it.
TEST(Contacts, RollingResistanceStopsASpinAboutTheNormal) {
  const double r = 0.1, mur = 0.002, g = 9.81, w0 = 10.0;
  const Vec3 n = Eigen::AngleAxisd(0.3, Vec3(1, 1, 0).normalized()) * Vec3::UnitZ();
  Scene s = contactScene();
  s.settings.gravity = -g * n;  // (a floor across the gravity: the ball stays on its spot)
  s.planes[0].normal = n;
  s.planes[0].rollingResistance = mur / 2;
  BodyDef b = sphere("ball", (r - 5e-7) * n, r);
  b.rollingResistance = mur / 2;
  b.angularVelocity = w0 * n;
  s.bodies.push_back(b);
  auto sim = simulate(s);
  const double rate = 5.0 * mur * g / (2.0 * r * r);  // 4.905 rad/s^2: stops at 2.04 s
  const auto spin = [&] {
    const BodyState& st = sim->state().bodies[0];
    return (sim->model().bodies[0].inertia.asDiagonal().inverse() * st.L).dot(n);  // (a sphere: I isotropic)
  };
  ASSERT_TRUE(sim->advanceTo(0.5).ok);
  const double w1 = spin();
  ASSERT_TRUE(sim->advanceTo(1.5).ok);
  EXPECT_NEAR(w1 - spin(), rate, 1e-3 * rate);
  double torque = 0.0;
  for (const ContactReport& c : sim->contacts()) torque += c.rolling.dot(n);
  const double m = sim->model().bodies[0].mass;
  EXPECT_NEAR(torque, -mur * m * g, 1e-6 * mur * m * g);
  ASSERT_TRUE(sim->advanceTo(3.0).ok);
  EXPECT_LT(std::abs(spin()), 1e-9);
  const Vec3 at = sim->state().bodies[0].x;
  ASSERT_TRUE(sim->advanceTo(5.0).ok);
  EXPECT_LT(std::abs(spin()), 1e-9);
  EXPECT_LT((sim->state().bodies[0].x - at).norm(), 1e-9);
}

// Timeline events switch a body's collisions and set its materials: a ball bouncing with e = 0.8
// stops bouncing once an event sets its restitution to 0, and falls through the floor once
// another switches its collisions off. The events round-trip through the file; bad ones are named.
TEST(Contacts, EventsSwitchCollisionsAndSetMaterials) {
  Scene s = contactScene();
  s.bodies.push_back(sphere("ball", Vec3(0, 0, 1.1), 0.1));
  s.bodies[0].restitution = 0.8;
  s.events.push_back({.time = 2.0, .action = EventAction::Set, .target = "ball", .param = "restitution", .value = {0.0}});
  s.events.push_back({.time = 4.0, .action = EventAction::Set, .target = "ball", .param = "collides", .value = {0.0}});
  EXPECT_EQ(sceneFromJson(sceneToJson(s)).events, s.events);
  auto sim = simulate(s);
  const auto bounces = apexes(*sim, 0.1, 1.9);
  ASSERT_GE(bounces.size(), 2u);  // bouncing before the first event
  EXPECT_GT(bounces.back(), 0.01);
  ASSERT_TRUE(sim->advanceTo(2.5).ok);
  double highest = 0.0;
  for (double t = 2.5; t <= 3.9; t += 0.01) {
    ASSERT_TRUE(sim->advanceTo(t).ok);
    highest = std::max(highest, sim->state().bodies[0].x.z());
  }
  EXPECT_LT(highest, 0.1 + 1e-4);  // resting on the floor (the centre a radius above it)
  EXPECT_GT(highest, 0.1 - 1e-4);
  ASSERT_TRUE(sim->advanceTo(5.0).ok);
  EXPECT_LT(sim->state().bodies[0].x.z(), -1.0);  // through the floor: it no longer collides

  const auto error = [](const std::string& events) {
    try {
      sceneFromJson(R"({"format":"tether-scene","version":1,"bodies":[{"name":"b","type":"sphere"}],"events":)" + events + "}");
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error(R"([{"time":1,"action":"set","target":"b","param":"restitution","value":1.5}])").find("events[0].value"),
            std::string::npos);
  EXPECT_NE(error(R"([{"time":1,"action":"set","target":"b","param":"collides","value":0.5}])").find("1 (on) or 0 (off)"),
            std::string::npos);
  EXPECT_NE(error(R"([{"time":1,"action":"set","target":"b","param":"rolling_resistance","value":-1}])").find("events[0].value"),
            std::string::npos);
  EXPECT_NE(error(R"([{"time":1,"action":"set","target":"b","param":"mass","value":2}])").find("has no parameter \"mass\""),
            std::string::npos);
}

// Tunnelling, the stated limit (there is no continuous detection): a 1 cm sphere at 5 m/s at
// dt = 1/240 moves 2.1 cm a step, twice its size. A contact is found only where a step ends in
// an overlap, and pushes out along the shallower side, so a fixed wall stops the sphere when its
// centre cannot step past the wall's middle unseen: thickness T >= 2 (v h - r). Gravity off, the
// sphere flying along x at 20 phases of a step (its start shifted by h v / 20), e = 0.5:
//   a 4 cm wall (T >= 3.2 cm) stops it at every phase; so does a ground plane (a half-space: no
//   far side) even at 50 m/s. Thinner walls are passed through at some phases (README).
TEST(Contacts, AFastSmallSphereDoesNotTunnelThroughAWallTwiceItsStepOrAPlane) {
  const double h = 1.0 / 240.0, r = 0.005;
  const auto throughWall = [&](double thickness, double speed, int phase) {
    Scene s = contactScene();
    s.planes.clear();
    s.settings.dt = h;
    s.settings.gravityOn = false;
    BodyDef wall = box("wall", Vec3(0, 0, 0), Vec3(thickness, 1, 1));
    wall.fixed = true;
    s.bodies.push_back(wall);
    BodyDef ball = sphere("ball", Vec3(-0.2 - speed * h * phase / 20.0, 0, 0), r, 7800);
    ball.velocity = Vec3(speed, 0, 0);
    s.bodies.push_back(ball);
    auto sim = simulate(s);
    EXPECT_TRUE(sim->advanceTo(0.5).ok);
    return sim->state().bodies[1].x.x() > 0.0;
  };
  for (int phase = 0; phase < 20; ++phase) EXPECT_FALSE(throughWall(0.04, 5.0, phase)) << "phase " << phase;
  int passed = 0;
  for (int phase = 0; phase < 20; ++phase) passed += throughWall(0.01, 5.0, phase);
  RecordProperty("phases_through_a_1cm_plate", passed);

  for (int phase = 0; phase < 20; ++phase) {
    Scene s = contactScene();
    s.settings.dt = h;
    s.settings.gravityOn = false;
    BodyDef ball = sphere("ball", Vec3(0, 0, 0.3 + 50.0 * h * phase / 20.0), r, 7800);
    ball.velocity = Vec3(0, 0, -50.0);
    s.bodies.push_back(ball);
    auto sim = simulate(s);
    ASSERT_TRUE(sim->advanceTo(0.5).ok);
    EXPECT_GT(sim->state().bodies[0].x.z(), 0.0) << "phase " << phase;
  }
}

// Redon & Coquillart's equivalence on the problems the examples pose: every velocity problem of
// the first 3 s of the bundled contact examples (ball, cradle, stack, torus chain), solved in
// motion space (the active set, as the stage does) and in contact space (Dantzig's pivoting on
// J M^-1 J^T), gives the same velocities within 1e-9 relative. Contact space needs independent
// rows: problems with dependent ones (a box's four corners on a plane) are counted, not compared.
TEST(Contacts, MotionAndContactSpaceAgreeOnTheExamplesProblems) {
  int compared = 0, dependent = 0;
  double worst = 0.0;
  for (const char* name : {"bouncing_ball", "newtons_cradle", "box_stack", "torus_chain"}) {
    const Scene s = loadScene(std::string(TETHER_EXAMPLES_DIR) + "/" + name + ".json");
    Simulation sim(std::make_shared<const Model>(compile(s)));
    std::vector<gauss::Problem> problems;
    sim.setContactProblemRecorder([&](const gauss::Problem& p) {
      if (problems.size() < 400) problems.push_back(p);
    });
    ASSERT_TRUE(sim.advanceTo(3.0).ok) << name;
    int here = 0;
    for (const gauss::Problem& p : problems) {
      const gauss::Solution motion = gauss::solveMotionSpace(p), contact = gauss::solveContactSpace(p);
      ASSERT_TRUE(motion.ok) << name << ": " << motion.error;
      if (!contact.ok) {
        ++dependent;
        continue;
      }
      const double scale = std::max({1.0, p.unconstrained.norm(), motion.acceleration.norm()});
      const double diff = (motion.acceleration - contact.acceleration).norm() / scale;
      worst = std::max(worst, diff);
      EXPECT_LE(diff, 1e-9) << name;
      ++here;
    }
    EXPECT_GT(here, 0) << name << ": no problem with independent rows to compare";
    compared += here;
  }
  EXPECT_GT(compared, 200);
  RecordProperty("compared", compared);
  RecordProperty("dependent", dependent);
  std::ostringstream text;
  text << worst;
  RecordProperty("worst_relative_difference", text.str());
}

// Friction takes energy, never gives it: rods (fat and thin), boxes and tori, spinning and
// thrown, dropped onto a rough floor that bounces them (e 0.5-0.95, mu 0.2-1), 200 drops of 1 s:
// the mechanical energy never rises above its lowest value so far by more than m g x 0.1 mm (a
// body rolling on the floor sinks g h^2 in a step's drift and is lifted back, a few um up and
// down). Two ways it rose, both found by the robustness corpus's contact scenes (#376): the
// friction phase held a bouncing contact's normal rate while friction turned the body, and gave
// a fat rod landing on an end 0.8 J of 17; and the overlap a bounce had left was projected out
// the next step while the body was already leaving it (+m g 0.9 mm).
TEST(Contacts, FrictionAtABounceNeverAddsEnergy) {
  std::mt19937_64 rng(20);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  double worst = -1.0;
  int worstTrial = -1;
  for (int trial = 0; trial < 200; ++trial) {
    Scene s = contactScene();
    s.planes[0].restitution = 0.5 + 0.45 * u(rng);
    s.planes[0].friction = s.planes[0].staticFriction = 0.2 + 0.8 * u(rng);
    BodyDef b;
    switch (trial % 3) {
      case 0: b = rod("b", Vec3(0, 0, -0.1), Vec3(0, 0, 0.1), 0.01 + 0.07 * u(rng)); break;
      case 1: b = box("b", Vec3::Zero(), Vec3(0.05 + 0.2 * u(rng), 0.05 + 0.2 * u(rng), 0.05 + 0.2 * u(rng))); break;
      default:
        b.name = "b";
        b.shape = Shape::Torus;
        b.majorRadius = 0.1;
        b.minorRadius = 0.02 + 0.05 * u(rng);
    }
    b.restitution = s.planes[0].restitution;
    b.friction = b.staticFriction = s.planes[0].friction;
    b.orientation = Quat(Eigen::AngleAxisd(2 * M_PI * u(rng), Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5).normalized()));
    b.position = Vec3(0, 0, 0.3 + 0.3 * u(rng));
    b.velocity = Vec3(4 * u(rng) - 2, 4 * u(rng) - 2, -2 * u(rng));
    b.angularVelocity = 20 * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
    s.bodies.push_back(b);
    auto sim = simulate(s);
    const double scale = sim->model().bodies[0].mass * 9.81;
    double e = mechanicalEnergy(*sim);
    for (int k = 1; k <= 1000; ++k) {
      ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "trial " << trial;
      const double next = mechanicalEnergy(*sim);
      if ((next - e) / scale > worst) {
        worst = (next - e) / scale;
        worstTrial = trial;
      }
      e = std::min(e, next);
    }
  }
  EXPECT_LT(worst, 1e-4) << "trial " << worstTrial;
  RecordProperty("worst_gain", std::to_string(worst));
}

// A pile of 80 spheres and capsules poured into a box (one group past the exact solver's size:
// projected Gauss-Seidel): the light capsules falling into each other ask the overlap
// projection for large turns, which is then cut to 0.1 rad a step instead of skipped (skipped, as
// for a group with joints, the pile kept 6 mm of overlap for good). Once it has landed (1 s on)
// and until 3 s, no overlap exceeds 1 mm (the pile benchmark's bound; skipping the large turns
// instead left 6 mm), and nothing leaves the box. Recorded, not bounded: the deepest overlap
// between bodies at rest (no point within 5 cm of the centre faster than 1 cm/s), 0.19-0.23 mm:
// the 30 projected Gauss-Seidel sweeps of a group this size do not take all of it out in one
// step while the pile still shifts. (The pile does not stop at once: spheres
// go on rolling off the capsules under them until about 3 s, at up to 0.3 m/s, and a contact
// found at the end of a step overlaps by up to the step's approach, 0.3 mm there.)
TEST(Contacts, RemovingAnOverlapDoesNotPushABodyIntoANeighbourItDoesNotTouchYet) {
  // three balls in a row, no gravity: B 0.8 mm into the fixed A, C 0.3 mm beyond B. Projecting
  // A-B alone moves B 0.8 mm into C (0.5 mm deep, which the next step pushed back: in a pile,
  // bodies chattered so); with the near pair B-C in the projection, C moves 0.5 mm with it.
  Scene s = contactScene();
  s.settings.gravityOn = false;
  const double r = 0.05;
  s.bodies.push_back(sphere("A", Vec3(0, 0, 0.5), r));
  s.bodies.back().fixed = true;
  s.bodies.push_back(sphere("B", Vec3(2 * r - 8e-4, 0, 0.5), r));
  s.bodies.push_back(sphere("C", Vec3(4 * r - 8e-4 + 3e-4, 0, 0.5), r));
  auto sim = simulate(s);
  ASSERT_TRUE(sim->advanceTo(1e-3).ok);
  const auto& b = sim->state().bodies;
  const double slop = sim->model().contacts.slop;
  EXPECT_GT((b[1].x - b[0].x).norm(), 2 * r - slop - 1e-9);
  EXPECT_GT((b[2].x - b[1].x).norm(), 2 * r - slop - 1e-9);
  EXPECT_NEAR(b[2].x.x() - s.bodies[2].position.x(), 5e-4, 1e-5);  // C moved by what B pushed into the gap
  ASSERT_EQ(sim->contacts().size(), 1u);  // only A-B touches: a near pair is not a contact
}

// A V of two thin rods pinned together at their upper ends, hung from one nail and let go
// 0.25 rad either side of the vertical: they swing through each other as two pendulums do (their
// overlap is the pin's own, see jointIsInside). Seen arm by arm, they were held 29 degrees
// apart and hung so at rest.
TEST(Contacts, TwoRodsPinnedAtOneEndSwingThroughEachOther) {
  Scene s = contactScene();
  const Vec3 pin(0, 0, 1.5);
  s.nails.push_back({"nail", pin});
  for (const double side : {-1.0, 1.0})
    s.bodies.push_back(rod(side < 0 ? "left" : "right", pin, pin + Vec3(side * std::sin(0.25), 0, -std::cos(0.25)), 0.005));
  s.constraints.push_back(pointToNail("hang", pt("left", "end1"), "nail"));
  s.constraints.push_back(pointToPoint("pin", pt("left", "end1"), pt("right", "end1")));
  auto sim = simulate(s);
  double closest = 1.0;
  for (int k = 1; k <= 1500; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok);
    EXPECT_TRUE(sim->contacts().empty()) << "t = " << k * 1e-3;
    const Vec3 za = sim->state().bodies[0].q * Vec3::UnitZ(), zb = sim->state().bodies[1].q * Vec3::UnitZ();
    closest = std::min(closest, std::acos(std::min(1.0, za.dot(zb))));
  }
  EXPECT_LT(closest, 0.01);  // they pass: both reach the vertical together
  EXPECT_TRUE(sim->contactProblem().empty()) << sim->contactProblem();
}

TEST(Contacts, PartsStillAssemblingRestOnTheFloor) {
  // A ball on the floor and a rod beside it whose end is to be joined to the ball's top, half a
  // metre away. While the joint assembles the two pass through each other, but not through the
  // floor: they used to fall through it and, assembled, rest 1.4 m under it for good.
  Scene s = contactScene();
  s.bodies.push_back(sphere("ball", Vec3(0, 0, 0.2), 0.2));
  s.bodies.push_back(rod("rod", Vec3(-0.5, 0, 0.45), Vec3(0.5, 0, 0.45), 0.02));
  s.constraints.push_back(pointToPoint("joint", pt("ball", "top"), pt("rod", "end1")));
  auto sim = simulate(s);
  std::vector<double> d;
  for (int k = 1; k <= 3000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    const BodyState& ball = sim->state().bodies[0];
    const BodyState& r = sim->state().bodies[1];
    const Vec3 axis = r.q * Vec3::UnitZ();
    ASSERT_GT(ball.x.z(), 0.2 - 5e-3) << "t = " << k * 1e-3;
    ASSERT_GT(r.x.z() - 0.5 * std::abs(axis.z()), 0.02 - 5e-3) << "t = " << k * 1e-3;
  }
  sim->deviations(d);
  for (double x : d) EXPECT_LT(x, 1e-6);
  EXPECT_TRUE(sim->contactProblem().empty()) << sim->contactProblem();
}

TEST(Contacts, PartsThatMetWhileAssemblingPassThroughEachOtherUntilApart) {
  // A ball hung by its top from a nail 0.9 m over a fixed slab (top at 0.7 m), starting under
  // the slab: it passes up through the slab while its joint assembles. Hanging, it is apart from
  // the slab, and when the nail lets go at 3 s it falls onto the slab and rests there.
  Scene s = contactScene();
  s.nails.push_back({"nail", Vec3(0, 0, 1.0)});
  s.bodies.push_back(box("slab", Vec3(0, 0, 0.65), Vec3(1, 1, 0.1)));
  s.bodies.back().fixed = true;
  s.bodies.push_back(sphere("ball", Vec3(0.05, 0, 0.3), 0.1));
  s.bodies.back().restitution = 0.0;
  s.constraints.push_back(pointToNail("hang", pt("ball", "top"), "nail"));
  s.events.push_back({.time = 3.0, .action = EventAction::Disable, .target = "hang"});
  auto sim = simulate(s);
  double highest = 0.0;
  for (int k = 1; k <= 3000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    highest = std::max(highest, sim->state().bodies[1].x.z());
    EXPECT_TRUE(sim->contactProblem().empty()) << "t = " << k * 1e-3 << ": " << sim->contactProblem();
  }
  EXPECT_NEAR(highest, 0.9, 2e-3);  // through the slab to the nail
  EXPECT_TRUE(sim->state().memory.passing.empty());  // apart
  for (int k = 3001; k <= 5000; ++k) ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
  EXPECT_NEAR(sim->state().bodies[1].x.z(), 0.8, 1e-4);  // on the slab (rolling on it with the swing it had)
  EXPECT_LT(std::abs(sim->state().bodies[1].P.z()), 1e-3);

  // Nailed 0.75 m up, it hangs 5 cm in the slab: the two pass through each other (nothing said,
  // nothing pushed), and released it falls on through the slab to the floor.
  s.nails[0].position = Vec3(0, 0, 0.75);
  sim = simulate(s);
  for (int k = 1; k <= 3000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    EXPECT_TRUE(sim->contactProblem().empty()) << "t = " << k * 1e-3 << ": " << sim->contactProblem();
  }
  EXPECT_NEAR(sim->state().bodies[1].x.z(), 0.65, 1e-3);
  EXPECT_EQ(sim->state().memory.passing, (std::vector<std::pair<int, int>>{{0, 1}}));
  for (int k = 3001; k <= 5000; ++k) ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
  EXPECT_NEAR(sim->state().bodies[1].x.z(), 0.1, 1e-4);  // on the floor
  EXPECT_TRUE(sim->state().memory.passing.empty());
}

TEST(Contacts, BodiesJoinedAtTheirSurfacesDoNotPassThroughEachOther) {
  // A joint at points of the two bodies' surfaces forces no overlap: only the contact at the
  // joint itself is its own. (With the joint's reach 2 (t_A + t_B) for every pair, the hanging
  // ball swung 200 mm into the fixed one, and the spinning cube folded 2.6 mm into the other.)
  // A ball hung from a fixed ball by their touching surface points cannot swing at all.
  Scene s = contactScene();
  s.bodies.push_back(sphere("A", Vec3(0, 0, 1), 0.1));
  s.bodies.back().fixed = true;
  s.bodies.push_back(sphere("B", Vec3(0.2, 0, 1), 0.1));
  s.constraints.push_back(pointToPoint("j", pt("A", "right"), pt("B", "left")));
  auto sim = simulate(s);
  for (int k = 1; k <= 3000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    ASSERT_GT((sim->state().bodies[1].x - sim->state().bodies[0].x).norm(), 0.2 - 1e-3) << "t = " << k * 1e-3;
  }
  // A cube on the floor, another on it joined centre of bottom face to centre of top face, turning
  // about x at 2 rad/s: it tips onto an edge and no corner of either goes into the other.
  Scene c = contactScene();
  c.bodies.push_back(box("A", Vec3(0, 0, 0.1), Vec3(0.2, 0.2, 0.2)));
  c.bodies.push_back(box("B", Vec3(0, 0, 0.3), Vec3(0.2, 0.2, 0.2)));
  c.bodies.back().angularVelocity = Vec3(2, 0, 0);
  c.constraints.push_back(pointToPoint("j", pt("A", "top"), pt("B", "bottom")));
  sim = simulate(c);
  double deepest = 0.0;
  for (int k = 1; k <= 3000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    for (int i = 0; i < 2; ++i) {
      const BodyState &self = sim->state().bodies[size_t(i)], &other = sim->state().bodies[size_t(1 - i)];
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 local(corner & 1 ? 0.1 : -0.1, corner & 2 ? 0.1 : -0.1, corner & 4 ? 0.1 : -0.1);
        const Vec3 in = other.q.conjugate() * (self.x + self.q * local - other.x);
        deepest = std::max(deepest, (Vec3::Constant(0.1) - in.cwiseAbs()).minCoeff());
      }
    }
  }
  EXPECT_LT(deepest, 1e-3);
}

TEST(Contacts, AJointsStopHoldsWithoutBouncing) {
  // The contacts next to a joint are its stop: they hold and do not bounce, whatever the
  // bodies' restitution (Contact::atJoint). A ball joined to a fixed ball at their touching
  // surface points, tilting about the joint at 3 rad/s, elastic, frictionless, no gravity: the
  // stop takes the tilt (before it, the ball swung 95 mm into the other and back; bouncing, the
  // first try gave it 1.5e7 J from 0.26 J in 5 s).
  Scene s = contactScene();
  s.settings.gravityOn = false;
  for (const auto& [name, x] : {std::pair{"A", 0.0}, std::pair{"B", 0.2}}) {
    s.bodies.push_back(sphere(name, Vec3(x, 0, 1), 0.1));
    s.bodies.back().restitution = 1.0;
    s.bodies.back().friction = s.bodies.back().staticFriction = 0.0;
  }
  s.bodies[0].fixed = true;
  s.bodies[1].angularVelocity = Vec3(0, 3, 0);
  s.bodies[1].velocity = Vec3(0, 0, -0.3);  // turning about the joint point (0.1, 0, 1)
  s.constraints.push_back(pointToPoint("j", pt("A", "right"), pt("B", "left")));
  auto sim = simulate(s);
  const double e0 = mechanicalEnergy(*sim);
  for (int k = 1; k <= 5000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    ASSERT_LE(mechanicalEnergy(*sim), e0 * (1 + 1e-4)) << "t = " << k * 1e-3;  // (euler: 4e-6 in its first step)
    ASSERT_GT((sim->state().bodies[1].x - sim->state().bodies[0].x).norm(), 0.2 - 1e-3) << "t = " << k * 1e-3;
  }
  EXPECT_LT(mechanicalEnergy(*sim), 1e-6 * e0);  // the tilt was all it had

  // Six cubes joined face centre to face centre in a row, elastic, each spinning against its
  // neighbours, falling onto an elastic floor: they never gain energy (bouncing stops gave them
  // 2.4e4 J from 31 J in 10 s) and end at rest on the floor.
  Scene c = contactScene();
  c.planes[0].restitution = 1.0;
  const Quat q = Quat(0.9537169507482269, 0.2647566937109086, 0.1323783468554543, 0.052951338742181726).normalized();
  for (int i = 0; i < 6; ++i) {
    c.bodies.push_back(box("C" + std::to_string(i), Vec3(0.3, 0, 0.6) + q * Vec3(0.1 * i, 0, 0), Vec3::Constant(0.1), 1.0));
    c.bodies.back().orientation = q;
    c.bodies.back().angularVelocity = Vec3(i % 2 ? -2.0 : 2.0, 1.0, 0.5);
    if (i > 0)
      c.constraints.push_back(pointToPoint("j" + std::to_string(i), pt("C" + std::to_string(i - 1), "right"),
                                           pt("C" + std::to_string(i), "left")));
  }
  sim = simulate(c);
  const double start = mechanicalEnergy(*sim);
  double highest = start;
  for (int k = 1; k <= 4000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    highest = std::max(highest, mechanicalEnergy(*sim));
  }
  EXPECT_LT(highest, start * 1.01);
  EXPECT_LT(energy(sim->model(), sim->state()).kinetic, 1e-9);
  for (const BodyState& b : sim->state().bodies) EXPECT_GT(b.x.z(), 0.05 - 1e-3);  // on the floor, not in it
}

TEST(Contacts, JoinedBodiesTouchingOnlyAtTheirStopsGoUnsaid) {
  // Five boxes 0.2 x 0.1 x 0.1 joined end face centre to end face centre, the first nailed at
  // its far end, released level, swinging high over the floor: only joined bodies touch, next to
  // their joints. (Said in 237 of 10 000 steps: "meeting them with its joints would add
  // 0.0264 J", before such a step was met with the joints held still.)
  Scene s = contactScene();
  s.planes[0].point = Vec3(0, 0, -3);
  s.nails.push_back({"pivot", Vec3(0, 0, 2)});
  for (int i = 0; i < 5; ++i) {
    s.bodies.push_back(box("p" + std::to_string(i), Vec3(0.1 + 0.2 * i, 0, 2), Vec3(0.2, 0.1, 0.1)));
    if (i > 0)
      s.constraints.push_back(pointToPoint("j" + std::to_string(i), pt("p" + std::to_string(i - 1), "right"),
                                           pt("p" + std::to_string(i), "left")));
  }
  s.constraints.push_back(pointToNail("nail", pt("p0", "left"), "pivot"));
  auto sim = simulate(s);
  const double e0 = mechanicalEnergy(*sim);
  double deepest = 0.0;
  const Vec3 half(0.1, 0.05, 0.05);
  for (int k = 1; k <= 5000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    ASSERT_TRUE(sim->contactProblem().empty()) << "t = " << k * 1e-3 << ": " << sim->contactProblem();
    for (int i = 0; i + 1 < 5; ++i)
      for (int side = 0; side < 2; ++side) {
        const BodyState &self = sim->state().bodies[size_t(i + side)], &other = sim->state().bodies[size_t(i + 1 - side)];
        for (int corner = 0; corner < 8; ++corner) {
          const Vec3 local(corner & 1 ? half.x() : -half.x(), corner & 2 ? half.y() : -half.y(), corner & 4 ? half.z() : -half.z());
          const Vec3 in = other.q.conjugate() * (self.x + self.q * local - other.x);
          deepest = std::max(deepest, (half - in.cwiseAbs()).minCoeff());
        }
      }
  }
  EXPECT_LT(deepest, 3e-3);  // the helper's count: 1.8 mm at worst, in the steps left out
  EXPECT_LT(std::abs(mechanicalEnergy(*sim) - e0), 1e-3 * e0);

  // Four panels 0.4 x 0.03 x 1.8 hinged edge to edge (at their slabs' middles) in a zigzag, 60
  // degrees between neighbours, the first hinged to a fixed post, the last pushed: the slabs are
  // in each other at the hinges from the start, and only a turn of 1 rad would part them. What
  // their contacts cannot meet is the joints' own overlap, unsaid. (It was said in every step:
  // "overlap not removed (removing it would turn a body by 1.08 rad)".)
  Scene z = contactScene();
  z.bodies.push_back(box("post", Vec3(0, 0, 1), Vec3(0.06, 0.06, 2.0)));
  z.bodies.back().fixed = true;
  Vec3 hinge(0.03, 0, 1);
  std::string previous = "post";
  Vec3 previousEnd(0.03, 0, 0);
  for (int i = 0; i < 4; ++i) {
    const Quat q(Eigen::AngleAxisd((i % 2 ? -30.0 : 30.0) * M_PI / 180.0, Vec3::UnitZ()));
    const std::string name = "d" + std::to_string(i);
    z.bodies.push_back(box(name, hinge + q * Vec3(0.2, 0, 0), Vec3(0.4, 0.03, 1.8)));
    z.bodies.back().orientation = q;
    z.constraints.push_back({.name = "h" + std::to_string(i),
                             .params = HingeDef{.a = localRef(previous, previousEnd), .b = localRef(name, Vec3(-0.2, 0, 0)),
                                                .axisA = Vec3::UnitZ(), .axisB = Vec3::UnitZ()}});
    hinge += q * Vec3(0.4, 0, 0);
    previous = name;
    previousEnd = Vec3(0.2, 0, 0);
  }
  z.bodies.back().angularVelocity = Vec3(0, 0, 6);
  sim = simulate(z);
  for (int k = 1; k <= 2000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    ASSERT_TRUE(sim->contactProblem().empty()) << "t = " << k * 1e-3 << ": " << sim->contactProblem();
  }
}

TEST(Contacts, ACubeChainDroppedOnTheFloorKeepsItsContacts) {
  // Ten cubes joined face centre to face centre, tilted 20 degrees, dropped from 1 m with the
  // default materials: as the links knock on the floor and fold against each other's stops,
  // meeting the stops with the joints at their rates would give the chain energy (1.9e10 J,
  // rows that nearly repeat each other), and the group is met without its stops, its joints
  // held still, for that step instead. (Its contacts, the floor's too, were left out in 18 of
  // 10 000 steps, said as "meeting them with its joints would add 1.87e+10 J".)
  Scene s = contactScene();
  s.planes[0].restitution = 0.5;
  const Quat q(Eigen::AngleAxisd(-20.0 * M_PI / 180.0, Vec3::UnitY()));
  for (int i = 0; i < 10; ++i) {
    s.bodies.push_back(box("c" + std::to_string(i), Vec3(0, 0, 1) + q * Vec3(0.1 * i, 0, 0), Vec3::Constant(0.1), 0.5));
    s.bodies.back().orientation = q;
    if (i > 0)
      s.constraints.push_back(pointToPoint("j" + std::to_string(i), pt("c" + std::to_string(i - 1), "right"),
                                           pt("c" + std::to_string(i), "left")));
  }
  auto sim = simulate(s);
  const double e0 = mechanicalEnergy(*sim);
  double lowest = 1.0;
  for (int k = 1; k <= 1500; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    ASSERT_TRUE(sim->contactProblem().empty()) << "t = " << k * 1e-3 << ": " << sim->contactProblem();
    ASSERT_LE(mechanicalEnergy(*sim), e0 * (1 + 1e-6)) << "t = " << k * 1e-3;
    for (const BodyState& b : sim->state().bodies)
      for (int corner = 0; corner < 8 && k > 500; ++corner) {
        const Vec3 local(corner & 1 ? 0.05 : -0.05, corner & 2 ? 0.05 : -0.05, corner & 4 ? 0.05 : -0.05);
        lowest = std::min(lowest, (b.x + b.q * local).z());
      }
  }
  // after the first knock (at 4.4 m/s it puts a corner 2.9 mm into the floor for a step, before
  // its contact is found), no corner a millimetre in the floor (0.02-0.2 mm at most, as rounding
  // changes the links' knocks)
  EXPECT_GT(lowest, -1e-3);
}

TEST(Contacts, ARodNailedOnTheFloorLiesOnIt) {
  // A nail placed with a click on the floor's plane (z = 0) and a rod lying on the floor, its end
  // pulled to that nail: the end cap stays in the floor by the rod's radius, held there by the
  // nail, and the rest of the rod lies on the floor. That contact at the nail is the nail's own
  // (PinnedPoint): counted as a conflict it left out all the rod's contacts, and the rod fell
  // through the floor and hung a metre under it. The same with the end already at the nail.
  const double r = 0.02;
  for (const double gap : {0.5, 0.0}) {
    Scene s = contactScene();
    s.nails.push_back({"nail", Vec3::Zero()});
    s.bodies.push_back(rod("rod", Vec3(gap, 0, r), Vec3(gap + 1.0, 0, r), r));
    s.constraints.push_back(pointToNail("hang", pt("rod", "end1"), "nail"));
    auto sim = simulate(s);
    for (int k = 1; k <= 5000; ++k) {
      ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
      const BodyState& b = sim->state().bodies[0];
      const Vec3 end2 = b.x + 0.5 * (b.q * Vec3::UnitZ());
      ASSERT_GT(end2.z(), r - 3e-3) << "gap " << gap << ", t = " << k * 1e-3;
    }
    std::vector<double> d;
    sim->deviations(d);
    EXPECT_LT(d[0], 1e-6) << gap;
    EXPECT_TRUE(sim->contactProblem().empty()) << sim->contactProblem();
    EXPECT_FALSE(sim->contacts().empty()) << gap;  // the far end rests on the floor
  }
}

TEST(Contacts, ARodHeldByItsEndOnTopOfABarDoesNotSwingIntoIt) {
  // A rod (radius 2 cm, 0.5 m) whose end is joined to the top of a fixed bar (radius 3 cm) or
  // ball (radius 20 cm), lying across it, released level: the end cap is in the bar by the rod's
  // radius (the joint's own overlap), and the rod tips over the side until its underside rests on
  // the bar. Its contacts there were counted as the joint's overlap as far as it reached, so it
  // swung 28 degrees down into the bar (4.8 into the ball), 3.6 mm deeper than the end cap.
  for (const bool ball : {false, true}) {
    Scene s = contactScene();
    const Vec3 top(0, 0, 1);
    if (ball) {
      s.bodies.push_back(sphere("holder", top - Vec3(0, 0, 0.2), 0.2));
    } else {
      s.bodies.push_back(rod("holder", top + Vec3(-0.5, 0, -0.03), top + Vec3(0.5, 0, -0.03), 0.03));
    }
    s.bodies.back().fixed = true;
    const Vec3 topInHolder = s.bodies.back().orientation.conjugate() * (top - s.bodies.back().position);
    s.bodies.push_back(rod("arm", top, top + Vec3(0, 0.5, 0), 0.02));
    s.constraints.push_back(pointToPoint("end", localRef("holder", topInHolder), pt("arm", "end1")));
    auto sim = simulate(s);
    const double e0 = mechanicalEnergy(*sim);
    double lowest = 90.0;
    for (int k = 1; k <= 5000; ++k) {
      ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "ball " << ball << ", t = " << k * 1e-3;
      const BodyState& b = sim->state().bodies[1];
      const Vec3 along = b.q * Vec3::UnitZ();
      lowest = std::min(lowest, std::asin(along.z()) * 180.0 / M_PI);
      ASSERT_LE(mechanicalEnergy(*sim), e0 + 1e-6) << "ball " << ball << ", t = " << k * 1e-3;
    }
    // it rests just below level, its underside on the holder (-2.1 and -0.8 degrees)
    EXPECT_GT(lowest, ball ? -2.0 : -4.0) << "ball " << ball;
    EXPECT_LT(energy(sim->model(), sim->state()).kinetic, 1e-6) << "ball " << ball;
    std::vector<double> d;
    sim->deviations(d);
    EXPECT_LT(d[0], 1e-6) << "ball " << ball;
  }
}

TEST(Contacts, PlatesHingedAtTheEdgeWhereTheyTouchFoldOnTheFloor) {
  // Two plates 0.3 x 0.2 x 0.05 m, one on the floor, the other standing on its end at the first's
  // edge, hinged there (the hinge's axis along that edge). Tilted 80 degrees it folds onto the
  // first; tilted 100 it falls open onto the floor. The plates touch along the hinge's line, and
  // the contacts at the line's ends, a plate's width from the hinge point, are combinations of the
  // hinge's rows: counted as contacts they failed the group's solve every step, its contacts the
  // floor's too were left out, and both plates fell through the floor (11-228 m in 3 s).
  for (const double tilt : {80.0, 100.0}) {
    Scene s = contactScene();
    const Vec3 size(0.3, 0.2, 0.05);
    s.bodies.push_back(box("A", Vec3(0, 0, 0.025), size));
    const Quat q(Eigen::AngleAxisd(tilt * M_PI / 180.0, Vec3::UnitY()));
    const Vec3 hingeAt(0.15, 0, 0.05);
    s.bodies.push_back(box("B", hingeAt - q * Vec3(0.15, 0, -0.025), size));
    s.bodies.back().orientation = q;
    s.constraints.push_back({.name = "hinge",
                             .params = HingeDef{.a = localRef("A", Vec3(0.15, 0, 0.025)), .b = localRef("B", Vec3(0.15, 0, -0.025)),
                                                .axisA = Vec3::UnitY(), .axisB = Vec3::UnitY()}});
    auto sim = simulate(s);
    for (int k = 1; k <= 3000; ++k) {
      ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
      for (const BodyState& b : sim->state().bodies)
        ASSERT_GT(b.x.z(), 0.025 - 2e-3) << "tilt " << tilt << ", t = " << k * 1e-3;
      ASSERT_TRUE(sim->contactProblem().empty()) << "tilt " << tilt << ", t = " << k * 1e-3 << ": " << sim->contactProblem();
    }
    // folded, B lies on A; fallen open, beside it
    const BodyState &a = sim->state().bodies[0], &b = sim->state().bodies[1];
    EXPECT_NEAR(a.x.z(), 0.025, 1e-4) << tilt;
    EXPECT_NEAR(b.x.z(), tilt < 90.0 ? 0.075 : 0.025, 1e-4) << tilt;
    EXPECT_NEAR(b.x.x() - a.x.x(), tilt < 90.0 ? 0.0 : 0.3, 1e-4) << tilt;
    std::vector<double> d;
    sim->deviations(d);
    for (double x : d) EXPECT_LT(x, 1e-6) << tilt;
  }
}

TEST(Contacts, AContactTheJointsCannotMeetIsLeftOutAlone) {
  // A ball hung by its top from a nail so low that it is 5 cm in the floor: the nail holds the
  // ball's lowest point, and the floor's contact there cannot push it out (its row is one of the
  // nail's). A rod hinged to the ball's side lies with its far end on the floor. That one contact
  // is left out, and said; the rod's end keeps its contact and rests on the floor. (Before, the
  // group's contacts all went, and the rod's end fell through the floor.)
  Scene s = contactScene();
  s.nails.push_back({"pin", Vec3(0, 0, 0.15)});
  s.bodies.push_back(sphere("ball", Vec3(0, 0, 0.05), 0.1));
  s.bodies.push_back(rod("rod", Vec3(0.1, 0, 0.05), Vec3(1.1, 0, 0.02), 0.02));
  s.constraints.push_back(pointToNail("hold", pt("ball", "top"), "pin"));
  s.constraints.push_back(pointToPoint("side", localRef("ball", Vec3(0.1, 0, 0)), pt("rod", "end1")));
  auto sim = simulate(s);
  for (int k = 1; k <= 2000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    const BodyState& r = sim->state().bodies[1];
    const Vec3 end2 = r.x + 0.5 * std::hypot(1.0, 0.03) * (r.q * Vec3::UnitZ());
    ASSERT_GT(end2.z(), 0.02 - 3e-3) << "t = " << k * 1e-3;
  }
  EXPECT_NE(sim->contactProblem().find("contacts of body \"ball\""), std::string::npos) << sim->contactProblem();
  bool rodOnFloor = false;
  for (const ContactReport& c : sim->contacts()) rodOnFloor = rodOnFloor || (c.contact.bodyA == 1 && c.force > 1.0);
  EXPECT_TRUE(rodOnFloor);
  std::vector<double> d;
  sim->deviations(d);
  for (double x : d) EXPECT_LT(x, 1e-6);
}

TEST(Contacts, APileOfSpheresAndCapsulesPouredIntoABoxKeepsItsOverlapsSmall) {
  Scene s = contactScene();
  const double cell = 0.08, w = 4 * cell;
  const std::pair<Vec3, Vec3> walls[] = {{Vec3::Zero(), Vec3::UnitX()}, {Vec3(w, w, 0), -Vec3::UnitX()},
                                         {Vec3::Zero(), Vec3::UnitY()}, {Vec3(w, w, 0), -Vec3::UnitY()}};
  for (const auto& [point, normal] : walls)
    s.planes.push_back({.name = "wall" + std::to_string(s.planes.size()), .point = point, .normal = normal, .restitution = 0.0});
  for (int k = 0; k < 5; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        const Vec3 at((i + 0.5) * cell + 0.002 * (k % 3), (j + 0.5) * cell - 0.002 * (i % 2), 0.01 + (k + 0.5) * cell);
        BodyDef b = (i + j + k) % 2 ? rod("b", at - Vec3(0.03, 0.01 * (j - 1.5), 0.01), at + Vec3(0.03, 0.01 * (j - 1.5), 0.01), 0.02)
                                    : sphere("b", at, 0.035);
        b.name = "b" + std::to_string(s.bodies.size());
        b.restitution = 0.0;
        s.bodies.push_back(b);
      }
  auto sim = simulate(s);
  double deepest = 0.0, deepestAtRest = 0.0;
  int restingContacts = 0;
  for (int k = 1; k <= 3000; ++k) {
    ASSERT_TRUE(sim->advanceTo(k * 1e-3).ok) << "t = " << k * 1e-3;
    if (k < 1000) continue;
    const auto& bodies = sim->state().bodies;
    // at rest: every point within 5 cm of the centre slower than 1 cm/s
    const auto still = [&](int i) {
      if (i < 0) return true;
      const BodyState& b = bodies[size_t(i)];
      const BodyModel& m = sim->model().bodies[size_t(i)];
      const Vec3 w = b.q * m.invInertia.cwiseProduct(b.q.conjugate() * b.L);
      return b.P.norm() / m.mass + 0.05 * w.norm() < 0.01;
    };
    for (const ContactReport& c : sim->contacts()) {
      deepest = std::max(deepest, c.contact.depth);
      if (still(c.contact.bodyA) && still(c.contact.bodyB)) {
        deepestAtRest = std::max(deepestAtRest, c.contact.depth);
        ++restingContacts;
      }
    }
  }
  EXPECT_LT(deepest, 1e-3);
  EXPECT_GT(restingContacts, 10000);
  RecordProperty("deepest", std::to_string(deepest));
  RecordProperty("deepest_at_rest", std::to_string(deepestAtRest));
  for (const BodyState& b : sim->state().bodies) {
    EXPECT_GT(b.x.z(), 0.0);
    EXPECT_GT(b.x.x(), 0.0);
    EXPECT_LT(b.x.x(), w);
    EXPECT_GT(b.x.y(), 0.0);
    EXPECT_LT(b.x.y(), w);
  }
}

}  // namespace
}  // namespace tether::core::test
