// Helpers shared by the core tests: small scene builders and simulation drivers.
#pragma once

#include <memory>
#include <string>

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

inline PointRef pt(const std::string& body, const std::string& point) {
  PointRef r;
  r.kind = PointRef::Kind::BodyPoint;
  r.body = body;
  r.point = point;
  return r;
}

inline ConstraintDef pointToNail(const std::string& name, const PointRef& p, const std::string& nail,
                                 std::optional<double> tau = std::nullopt) {
  ConstraintDef c;
  c.name = name;
  c.kind = ConstraintKind::PointToNail;
  c.a = p;
  c.nail = nail;
  c.tau = tau;
  return c;
}

inline ConstraintDef pointToPoint(const std::string& name, const PointRef& a, const PointRef& b) {
  ConstraintDef c;
  c.name = name;
  c.kind = ConstraintKind::PointToPoint;
  c.a = a;
  c.b = b;
  return c;
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

// Kinetic + gravity + spring energy of the simulation's state, J.
inline double mechanicalEnergy(const Simulation& sim) { return energy(sim.model(), sim.state()).total(); }

inline std::unique_ptr<Simulation> simulate(const Scene& s) {
  return std::make_unique<Simulation>(std::make_shared<const Model>(compile(s)));
}

}  // namespace tether::core::test
