#include "core/forces.h"

#include <algorithm>
#include <cmath>

#include "core/constraint_parts.h"

namespace tether::core {

namespace {

bool moving(const Model& m, const Params& p, int i) {
  return i >= 0 && p.bodyActive[size_t(i)] && !m.bodies[size_t(i)].fixed;
}

bool anchorExists(const Params& p, const Anchor& a) {
  return a.kind != Anchor::Kind::Body || p.bodyActive[size_t(a.index)];
}

void applyAt(const AnchorKinematics& k, const Vec3& f, std::vector<Vec3>& F, std::vector<Vec3>& T) {
  if (k.body < 0) return;
  F[size_t(k.body)] += f;
  T[size_t(k.body)] += k.r.cross(f);
}

// Torsion spring geometry: theta = angle between the world axes a, b; n = (a x b) / |a x b|.
struct TorsionGeometry {
  double theta = 0.0;
  Vec3 n = Vec3::Zero();
  bool valid = false;
};

TorsionGeometry torsionGeometry(const Vec3& a, const Vec3& b) {
  TorsionGeometry g;
  const Vec3 axb = a.cross(b);
  const double s = axb.norm();
  g.theta = std::atan2(s, a.dot(b));
  if (s > 1e-12) {
    g.n = axb / s;
    g.valid = true;
  }
  return g;
}

// One body's kinematics from its state (position x, orientation (qw, qx, qy, qz), momenta P, L).
inline void kinematicsOf(const BodyModel& bm, bool active, const Vec3& x, double qw, double qx, double qy, double qz,
                         const Vec3& P, const Vec3& L, BodyKinematics& k) {
  k.x = x;
  // R of q / |q| (this runs for every body at every evaluation: no square root)
  const Mat3& R = k.R = rotationOf(qw, qx, qy, qz);
  if (!active || bm.fixed) {
    k.v.setZero(); k.w.setZero(); k.L.setZero(); k.invI.setZero(); k.invMass = 0.0;
    return;
  }
  // v = P / m, I^-1 = R I_body^-1 R^T, w = I^-1 L (paper Fig. 16)
  k.invMass = bm.invMass;
  k.v = P * bm.invMass;
  k.invI = rotateDiagonal(R, bm.invInertia);
  k.L = L;
  k.w.noalias() = k.invI * L;
}

}  // namespace

void bodyKinematics(const Model& model, const Params& params, const std::vector<BodyState>& bodies,
                    std::vector<BodyKinematics>& out) {
  out.resize(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    const BodyState& s = bodies[i];
    kinematicsOf(model.bodies[i], params.bodyActive[i], s.x, s.q.w(), s.q.x(), s.q.y(), s.q.z(), s.P, s.L, out[i]);
  }
}

void bodyKinematics(const Model& model, const Params& params, const Eigen::VectorXd& y,
                    std::vector<BodyKinematics>& out) {
  const size_t n = size_t(y.size()) / kBodyDofs;
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const double* p = y.data() + i * kBodyDofs;
    kinematicsOf(model.bodies[i], params.bodyActive[i], Vec3(p[0], p[1], p[2]), p[3], p[4], p[5], p[6],
                 Vec3(p[7], p[8], p[9]), Vec3(p[10], p[11], p[12]), out[i]);
  }
}

void accumulateExternalForces(const Model& m, const Params& p, const EvalContext& ctx, std::vector<Vec3>& F,
                              std::vector<Vec3>& T) {
  const int nb = static_cast<int>(m.bodies.size());
  if (p.gravityOn)
    for (int i = 0; i < nb; ++i)
      if (moving(m, p, i)) F[size_t(i)] += m.bodies[size_t(i)].mass * p.gravity;

  for (size_t fi = 0; fi < m.forces.size(); ++fi) {
    if (!p.forceEnabled[fi]) continue;
    const ForceModel& f = m.forces[fi];
    const ForceParams& fp = p.force[fi];
    switch (f.kind) {
      case ForceKind::Spring: {
        // Damped spring between points a and b: with r = pb - pa, l = |r|, n = r / l,
        //   F_b = -(k (l - l0) + c n . (vb - va)) n,  F_a = -F_b  (U = 1/2 k (l - l0)^2, F = -grad U)
        if (!anchorExists(p, f.a) || !anchorExists(p, f.b)) break;
        const AnchorKinematics ka = anchorKinematics(f.a, ctx), kb = anchorKinematics(f.b, ctx);
        const Vec3 r = kb.p - ka.p;
        const double l = r.norm();
        if (l < 1e-12) break;
        const Vec3 n = r / l;
        const Vec3 fb = -(fp.stiffness * (l - fp.restLength) + fp.damping * n.dot(kb.v - ka.v)) * n;
        applyAt(kb, fb, F, T);
        applyAt(ka, -fb, F, T);
        break;
      }
      case ForceKind::Damping:
        // Viscous damping: F = -c_lin v, T = -c_ang w
        for (int i = 0; i < nb; ++i) {
          if (!moving(m, p, i)) continue;
          if (!f.bodies.empty() && std::find(f.bodies.begin(), f.bodies.end(), i) == f.bodies.end()) continue;
          F[size_t(i)] -= fp.linear * ctx.bodies[size_t(i)].v;
          T[size_t(i)] -= fp.angular * ctx.bodies[size_t(i)].w;
        }
        break;
      case ForceKind::TorsionSpring: {
        // Torsion spring between body axes a (on A) and b (on B), theta = angle(a, b),
        // U = 1/2 k (theta - theta0)^2. Turning A by dphi about n = a x b / |a x b| changes
        // a . b by dphi |a x b|, so dtheta = -dphi: the torque on A is -dU/dphi n =
        // k (theta - theta0) n, and on B the opposite. theta' = n . (wB - wA), and the
        // damping torque on A is c theta' n.
        if (!p.bodyActive[size_t(f.bodyA)] || !p.bodyActive[size_t(f.bodyB)]) break;
        const BodyKinematics &A = ctx.bodies[size_t(f.bodyA)], &B = ctx.bodies[size_t(f.bodyB)];
        const TorsionGeometry g = torsionGeometry(A.R * f.axisA, B.R * f.axisB);
        if (!g.valid) break;
        const double rate = g.n.dot(B.w - A.w);
        const Vec3 tA = (fp.stiffness * (g.theta - fp.restAngle) + fp.damping * rate) * g.n;
        if (moving(m, p, f.bodyA)) T[size_t(f.bodyA)] += tA;
        if (moving(m, p, f.bodyB)) T[size_t(f.bodyB)] -= tA;
        break;
      }
      case ForceKind::ConstantForce:
        if (anchorExists(p, f.a)) applyAt(anchorKinematics(f.a, ctx), fp.vector, F, T);
        break;
      case ForceKind::ConstantTorque:
        if (moving(m, p, f.bodyA)) T[size_t(f.bodyA)] += fp.vector;
        break;
    }
  }

  // the mouse spring: F = -k (p - target) - c v_p at the grabbed point p
  if (moving(m, p, p.mouse.body)) {
    Anchor a;
    a.kind = Anchor::Kind::Body;
    a.index = p.mouse.body;
    a.local = p.mouse.local;
    const AnchorKinematics k = anchorKinematics(a, ctx);
    applyAt(k, -p.mouse.stiffness * (k.p - p.mouse.target) - p.mouse.damping * k.v, F, T);
  }
}

Energy energy(const Model& m, const State& st) {
  Energy e;
  std::vector<BodyKinematics> kin;
  bodyKinematics(m, st.params, st.bodies, kin);
  const Params& p = st.params;
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    if (!p.bodyActive[i] || m.bodies[i].fixed) continue;
    e.kinetic += 0.5 * st.bodies[i].P.dot(kin[i].v) + 0.5 * st.bodies[i].L.dot(kin[i].w);
    if (p.gravityOn) e.gravity -= m.bodies[i].mass * p.gravity.dot(st.bodies[i].x);
  }
  const EvalContext ctx{kin, m.paths, st.t, &st.params.pathClock};
  for (size_t fi = 0; fi < m.forces.size(); ++fi) {
    if (!p.forceEnabled[fi]) continue;
    const ForceModel& f = m.forces[fi];
    const ForceParams& fp = p.force[fi];
    if (f.kind == ForceKind::Spring && anchorExists(p, f.a) && anchorExists(p, f.b)) {
      const double l = (anchorKinematics(f.b, ctx).p - anchorKinematics(f.a, ctx).p).norm();
      e.springs += 0.5 * fp.stiffness * (l - fp.restLength) * (l - fp.restLength);
    }
    if (f.kind == ForceKind::TorsionSpring && p.bodyActive[size_t(f.bodyA)] && p.bodyActive[size_t(f.bodyB)]) {
      const double th = torsionGeometry(kin[size_t(f.bodyA)].R * f.axisA, kin[size_t(f.bodyB)].R * f.axisB).theta;
      e.springs += 0.5 * fp.stiffness * (th - fp.restAngle) * (th - fp.restAngle);
    }
  }
  return e;
}

}  // namespace tether::core
