// Helpers shared by the core tests: small scene builders and simulation drivers. Every
// constraint type's struct is included, so a test builds a definition in place:
//   ConstraintDef{.name = "rope", .params = DistanceDef{.a = pt("r", "end2"), .b = ..., .length = 0.6}}
#pragma once

#include <memory>
#include <random>
#include <optional>
#include <string>

#include "core/constraints/distance.h"
#include "core/constraints/hinge.h"
#include "core/constraints/orientation.h"
#include "core/constraints/point_on_line.h"
#include "core/constraints/point_on_plane.h"
#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_path.h"
#include "core/constraints/point_to_point.h"
#include "core/constraints/scalar_point_to_nail.h"
#include "core/constraints/sphere_to_sphere.h"
#include "core/forces.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/simulation.h"

namespace tether::core::test {

// The settings the analytic tests check: the paper's continuous formulation (RK4, tau, no
// projection), so that closed forms of the tau equation hold.
inline Scene paperScene() {
  Scene s;
  s.settings.integrator = IntegratorKind::RK4;
  s.settings.projection = false;
  return s;
}

inline BodyDef rod(const std::string& name, const Vec3& end1, const Vec3& end2, double radius = 0.01,
                   double density = 1000.0) {
  BodyDef b;
  b.name = name;
  b.shape = Shape::Rod;
  b.radius = radius;
  b.density = density;
  b.length = (end2 - end1).norm();
  b.position = 0.5 * (end1 + end2);
  b.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), (end2 - end1).normalized());
  return b;
}

inline BodyDef sphere(const std::string& name, const Vec3& at, double radius = 0.1, double density = 1000.0) {
  BodyDef b;
  b.name = name;
  b.shape = Shape::Sphere;
  b.radius = radius;
  b.density = density;
  b.position = at;
  return b;
}

inline BodyDef box(const std::string& name, const Vec3& at, const Vec3& size, double restitution = 0.0) {
  BodyDef b;
  b.name = name;
  b.shape = Shape::Box;
  b.size = size;
  b.position = at;
  b.restitution = restitution;
  return b;
}

// A definition's parameters as its type's struct: def<OrientationDef>(s.constraints[3]).axis.
template <class Def> Def& def(ConstraintDef& c) { return c.params.as<Def>(); }
template <class Def> const Def& def(const ConstraintDef& c) { return c.params.as<Def>(); }

inline PointRef pt(const std::string& body, const std::string& point) {
  PointRef r;
  r.kind = PointRef::Kind::BodyPoint;
  r.body = body;
  r.point = point;
  return r;
}

// n rods of 0.4 m (radius 0.02 m) drawn zig-zag down from a nail "top" at (0, 0, 2), joined end
// to end by point-to-point joints ("j1", ...), the first pinned to the nail ("pin"); the last
// one's end held to a nail "low" `nailAt` m below "top", and/or to the plane z = 2 - `planeAt`
// ("slide"). Five rods reach 2 m.
inline Scene zigZagChain(int n, std::optional<double> nailAt, std::optional<double> planeAt) {
  Scene s;
  s.nails.push_back({"top", Vec3(0, 0, 2)});
  for (int i = 0; i < n; ++i) {
    const double z0 = 2.0 - 0.32 * i, x0 = i % 2 ? 0.24 : 0.0;
    s.bodies.push_back(rod("r" + std::to_string(i), Vec3(x0, 0, z0), Vec3(0.24 - x0, 0, z0 - 0.32), 0.02));
    if (i > 0)
      s.constraints.push_back({.name = "j" + std::to_string(i),
                               .params = PointToPointDef{.a = pt("r" + std::to_string(i - 1), "end2"),
                                                         .b = pt("r" + std::to_string(i), "end1")}});
  }
  s.constraints.push_back({.name = "pin", .params = PointToNailDef{.point = pt("r0", "end1"), .nail = "top"}});
  const PointRef last = pt("r" + std::to_string(n - 1), "end2");
  if (nailAt) {
    s.nails.push_back({"low", Vec3(0, 0, 2.0 - *nailAt)});
    s.constraints.push_back({.name = "hold", .params = PointToNailDef{.point = last, .nail = "low"}});
  }
  if (planeAt)
    s.constraints.push_back({.name = "slide", .params = PointOnPlaneDef{.point = last, .origin = Vec3(0, 0, 2.0 - *planeAt),
                                                                        .normal = Vec3(0, 0, 1)}});
  return s;
}

// A nail as a constraint's or force's point.
inline PointRef nailRef(const std::string& nail) {
  PointRef r;
  r.kind = PointRef::Kind::Nail;
  r.target = nail;
  return r;
}

// A point given in a body's coordinates.
inline PointRef localRef(const std::string& body, const Vec3& local) {
  PointRef r;
  r.kind = PointRef::Kind::BodyLocal;
  r.body = body;
  r.local = local;
  return r;
}

inline ConstraintDef pointToNail(const std::string& name, const PointRef& p, const std::string& nail,
                                 std::optional<double> tau = std::nullopt) {
  return {.name = name, .tau = tau, .params = PointToNailDef{.point = p, .nail = nail}};
}

inline ConstraintDef pointToPoint(const std::string& name, const PointRef& a, const PointRef& b) {
  return {.name = name, .params = PointToPointDef{.a = a, .b = b}};
}

inline ForceDef springToNail(const std::string& name, const std::string& nail, const PointRef& p, double stiffness,
                             double restLength = 0.0) {
  ForceDef f;
  f.name = name;
  f.kind = ForceKind::Spring;
  f.a.kind = PointRef::Kind::Nail;
  f.a.target = nail;
  f.b = p;
  f.stiffness = stiffness;
  f.restLength = restLength;
  return f;
}

// The compound pendulum (paper Fig. 3) released horizontal from rest: upper rod pinned at the
// origin, lower rod hinged to its end.
inline Scene compoundPendulum(double tau) {
  Scene s = paperScene();
  s.settings.dt = 1e-3;
  s.settings.defaultTau = tau;
  s.nails.push_back({"nail", Vec3::Zero()});
  s.bodies.push_back(rod("upper", Vec3::Zero(), Vec3(1, 0, 0), 0.02));
  s.bodies.push_back(rod("lower", Vec3(1, 0, 0), Vec3(1.8, 0, 0.4), 0.02));
  s.constraints.push_back(pointToNail("pin", pt("upper", "end1"), "nail"));
  s.constraints.push_back(pointToPoint("joint", pt("upper", "end2"), pt("lower", "end1")));
  return s;
}

// Hong et al.'s experiment (Sec. 5): first-order steps (semi-implicit Euler), no projection, the
// given method at step dt, Baumgarte's parameters alpha = 0.5/dt, beta = 1/dt.
inline void hongSettings(Scene& s, StabilizationKind method, double dt) {
  s.settings.integrator = IntegratorKind::SemiImplicitEuler;
  s.settings.stabilization = method;
  s.settings.baumgarteAlpha = 0.5 / dt;
  s.settings.baumgarteBeta = 1.0 / dt;
  s.settings.projection = false;
  s.settings.dt = dt;
}

// Kinetic + gravity + spring energy of the simulation's state, J.
inline double mechanicalEnergy(const Simulation& sim) { return energy(sim.model(), sim.state()).total(); }

inline std::unique_ptr<Simulation> simulate(const Scene& s) {
  return std::make_unique<Simulation>(std::make_shared<const Model>(compile(s)));
}

// Scatter every body of a scene to random poses and velocities, so the constraint system is a
// generic one (not the special structure of an assembled model).
inline void scatter(Scene& s, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (BodyDef& b : s.bodies) {
    b.position += 0.05 * Vec3(u(rng), u(rng), u(rng));
    b.orientation = Quat(Eigen::AngleAxisd(0.3 * u(rng), Vec3(u(rng), u(rng), u(rng)).normalized())) * b.orientation;
    b.velocity = Vec3(u(rng), u(rng), u(rng));
    b.angularVelocity = 3.0 * Vec3(u(rng), u(rng), u(rng));
  }
}

// A scene with one constraint of most types on five bodies of every shape but the torus
// (an orientation on request), for tests that want a generic constraint system.
inline Scene mixedScene(bool withOrientation) {
  Scene s = paperScene();
  s.bodies.push_back(rod("r1", Vec3(0, 0, 0), Vec3(1, 0, 0)));
  s.bodies.push_back(rod("r2", Vec3(1, 0, 0), Vec3(1.5, 0.5, 0.3)));
  s.bodies.push_back(sphere("s1", Vec3(2, 0.5, 0.3), 0.2));
  s.bodies.push_back(sphere("s2", Vec3(2.3, 0.5, 0.1), 0.15));
  BodyDef box;
  box.name = "box";
  box.shape = Shape::Box;
  box.size = Vec3(0.3, 0.2, 0.1);
  box.position = Vec3(0.5, -0.5, 0.2);
  s.bodies.push_back(box);
  s.nails.push_back({"n", Vec3::Zero()});
  s.constraints.push_back(pointToNail("pin", pt("r1", "end1"), "n"));
  s.constraints.push_back(pointToPoint("joint", pt("r1", "end2"), pt("r2", "end1")));
  s.constraints.push_back({.name = "rope", .params = DistanceDef{.a = pt("r2", "end2"), .b = pt("s1", "center"), .length = 0.6}});
  s.constraints.push_back({.name = "touch", .params = SphereToSphereDef{.bodyA = "s1", .bodyB = "s2"}});
  s.constraints.push_back({.name = "rail",
                           .params = PointOnLineDef{.point = pt("box", "center"),
                                                    .origin = Vec3(0, -0.5, 0),
                                                    .direction = Vec3(1, 0, 0.2)}});
  s.constraints.push_back(
      {.name = "floor", .params = PointOnPlaneDef{.point = pt("box", "corner0"), .origin = Vec3::Zero(), .normal = Vec3(0, 0, 1)}});
  s.constraints.push_back(pointToPoint("hook", pt("box", "right"), pt("r1", "center")));
  if (withOrientation)
    s.constraints.push_back(
        {.name = "upright", .params = OrientationDef{.body = "r2", .axis = Vec3::UnitZ(), .direction = Vec3(0.3, 1, 0.2)}});
  return s;
}

}  // namespace tether::core::test
