#include "core/snapshot.h"

#include <cmath>
#include <limits>

#include "core/body.h"
#include "core/constraint_parts.h"

namespace tether::core {

std::shared_ptr<const SceneGeometry> sceneGeometry(const Scene& scene, const Model& model) {
  auto g = std::make_shared<SceneGeometry>();
  for (const BodyDef& b : scene.bodies) {
    BodyGeometry bg;
    bg.name = b.name;
    bg.shape = b.shape;
    bg.length = b.length;
    bg.radius = b.radius;
    bg.majorRadius = b.majorRadius;
    bg.minorRadius = b.minorRadius;
    bg.size = b.size;
    bg.fixed = b.fixed;
    bg.points = shapePoints(b);
    bg.points.insert(bg.points.end(), b.points.begin(), b.points.end());
    g->bodies.push_back(std::move(bg));
  }
  g->nails = scene.nails;
  g->planes = scene.planes;
  // path traces: a circle closed in 96 segments; a line over the scene's duration; a spline
  // over its keyframes' time span
  for (size_t i = 0; i < scene.paths.size(); ++i) {
    const PathDef& d = scene.paths[i];
    const Path& p = model.paths[i];
    PathGeometry pg;
    pg.name = d.name;
    double t0 = 0.0, t1 = scene.settings.duration;
    int n = 64;
    if (d.kind == PathKind::Circle) {
      t1 = std::abs(d.period);
      n = 96;
      pg.closed = true;
    } else if (d.kind == PathKind::Spline && !d.keyframes.empty()) {
      t0 = d.keyframes.front().t;
      t1 = d.keyframes.back().t;
      n = 32 * static_cast<int>(d.keyframes.size());
    }
    for (int k = 0; k < n + (pg.closed ? 0 : 1); ++k) pg.curve.push_back(p.sample(t0 + (t1 - t0) * k / n).x);
    if (d.kind == PathKind::Spline)
      for (const Keyframe& k : d.keyframes) pg.keyframes.push_back(k.position);
    g->paths.push_back(std::move(pg));
  }
  for (size_t j = 0; j < model.constraintDef.size(); ++j) {
    const ConstraintDef& c = scene.constraints[size_t(model.constraintDef[j])];
    g->constraintNames.push_back(c.name);
    g->constraintDefs.push_back(c);
    g->constraintTurns.push_back(j < model.constraintUnit.size() && std::string_view(model.constraintUnit[j]) == "rad");
  }
  for (const ForceDef& f : scene.forces) {
    g->forceNames.push_back(f.name);
    g->forceKinds.push_back(f.kind);
  }
  return g;
}

void fillSnapshot(Simulation& sim, std::shared_ptr<const SceneGeometry> geometry, Snapshot& out) {
  sim.refresh();
  const Model& m = sim.model();
  const State& st = sim.state();
  const StepContext& ctx = sim.context();
  out.geometry = std::move(geometry);
  out.t = st.t;

  // bodies, with the net external force of each
  const size_t nb = m.bodies.size();
  std::vector<Vec3> F(nb, Vec3::Zero()), T(nb, Vec3::Zero());
  const EvalContext ectx{ctx.kin, m.paths, st.t, &st.params.pathClock};
  accumulateExternalForces(m, st.params, ectx, F, T);
  out.bodies.resize(nb);
  for (size_t i = 0; i < nb; ++i) {
    BodyPose& p = out.bodies[i];
    p.active = st.params.bodyActive[i] != 0;
    p.x = st.bodies[i].x;
    p.q = st.bodies[i].q.normalized();
    p.v = ctx.kin[i].v;
    p.w = ctx.kin[i].w;
    p.externalForce = F[i];
  }

  // constraints: each slot's force is drawn at the constraint point whose lever arm explains
  // the reported torque best (T = r x F exactly for point constraints); what remains is a pure
  // torque (the orientation constraint's)
  const ConstraintSystem& sys = ctx.system;
  out.constraints.assign(m.constraints.size(), ConstraintDraw{});
  out.maxDeviation = 0.0;
  for (int j : sys.active()) {
    const ConstraintRows& r = sys.rows()[size_t(j)];
    ConstraintDraw& c = out.constraints[size_t(j)];
    c.active = true;
    // (a velocity constraint's: the integral of its error, which the implicit method leaves out of D)
    const Vec3 D = sys.assembly().nonholonomic(j) && size_t(j) < st.memory.velocityIntegral.size()
                       ? st.memory.velocityIntegral[size_t(j)]
                       : r.D;
    double d2 = 0.0;  // (|D| over the d rows, written out: see gatherRows)
    for (int i = 0; i < r.d; ++i) d2 += D(i) * D(i);
    c.deviation = std::sqrt(d2);
    out.maxDeviation = std::max(out.maxDeviation, c.deviation);
    c.point[0] = r.point[0];
    c.point[1] = r.point[1];
    c.nb = r.nb;
    for (int s = 0; s < r.nb; ++s) {
      c.body[s] = r.body[s];
      sys.constraintForce(j, s, c.force[s], c.torque[s]);
      const Vec3 x = st.bodies[size_t(r.body[s])].x;
      double best = std::numeric_limits<double>::infinity();
      for (const Vec3& p : r.point) {
        const double e = (c.torque[s] - (p - x).cross(c.force[s])).norm();
        if (e < best) {
          best = e;
          c.at[s] = p;
        }
      }
      c.torque[s] -= (c.at[s] - x).cross(c.force[s]);
    }
  }

  // forces
  out.forces.assign(m.forces.size(), ForceDraw{});
  for (size_t fi = 0; fi < m.forces.size(); ++fi) {
    const ForceModel& f = m.forces[fi];
    ForceDraw& d = out.forces[fi];
    auto exists = [&](const Anchor& a) { return a.kind != Anchor::Kind::Body || st.params.bodyActive[size_t(a.index)]; };
    d.active = st.params.forceEnabled[fi] && exists(f.a) && exists(f.b);
    d.vector = st.params.force[fi].vector;
    if (f.kind == ForceKind::Spring || f.kind == ForceKind::ConstantForce) {
      d.a = anchorKinematics(f.a, ectx).p;
      d.b = f.kind == ForceKind::Spring ? anchorKinematics(f.b, ectx).p : d.a;
    } else if (f.bodyA >= 0) {
      d.a = d.b = st.bodies[size_t(f.bodyA)].x;
    }
  }
  out.pathPoints.clear();
  for (size_t i = 0; i < m.paths.size(); ++i)
    out.pathPoints.push_back(m.paths[i].sample(st.params.pathClock[i].local(st.t)).x);

  contactDraws(sim, out.contacts);
  out.contactProblem = sim.contactProblem();
  out.substepShortfall = sim.substepShortfall().first;

  out.energy = energy(m, st);
  const MouseSpring& ms = st.params.mouse;
  out.mouseActive = ms.body >= 0 && st.params.bodyActive[size_t(ms.body)];
  if (out.mouseActive) {
    out.mouseFrom = st.bodies[size_t(ms.body)].x + st.bodies[size_t(ms.body)].q.normalized() * ms.local;
    out.mouseTo = ms.target;
  }
}

void contactDraws(const Simulation& sim, std::vector<ContactDraw>& out) {
  out.clear();
  for (const ContactReport& r : sim.contacts())
    out.push_back({r.contact.bodyA, r.contact.bodyB, r.plane, r.contact.pointB, r.force * r.contact.normal});
}

}  // namespace tether::core
