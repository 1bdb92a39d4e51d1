#include "core/integrator.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace tether::core {

bool normalizeQuaternions(Eigen::VectorXd& y) {
  // quaternions already unit to rounding are left alone (bit for bit: the cached rows of
  // StepContext stay valid)
  constexpr double kUnit = 4.0 * std::numeric_limits<double>::epsilon();
  bool changed = false;
  for (Eigen::Index i = 0; i + kBodyDofs <= y.size(); i += kBodyDofs) {
    auto q = y.segment<4>(i + 3);
    const double n = q.norm();
    if (n > 0.0 && std::abs(n - 1.0) > kUnit) {
      q /= n;
      changed = true;
    }
  }
  return changed;
}

namespace {
// Holds the constraints' forms of rows (ConstraintAssembly::holdForms) from a step's first
// evaluation to its end: a constraint whose rows change form with the state (the scalar
// point-to-nail's one row or three) made the derivative jump between stages, and the point,
// circling its nail at the switch, alternated forms from stage to stage; rk45's error estimate
// then never fell with the step, and it crawled at 1e-7 s steps.
struct FormsHeld {
  StepContext& c;
  explicit FormsHeld(StepContext& ctx) : c(ctx) { c.system.holdForms(true); }
  ~FormsHeld() { c.system.holdForms(false); }
};
}  // namespace

void stepRK4(const Model& model, const Params& p, double t, double h, StepContext& c) {
  c.h = h;
  // y' = y + h/6 (k1 + 2 k2 + 2 k3 + k4)
  evaluateDerivative(model, p, t, c.y, c.k[0], c);
  const FormsHeld held(c);
  c.ytmp = c.y + (0.5 * h) * c.k[0];
  evaluateDerivative(model, p, t + 0.5 * h, c.ytmp, c.k[1], c);
  c.ytmp = c.y + (0.5 * h) * c.k[1];
  evaluateDerivative(model, p, t + 0.5 * h, c.ytmp, c.k[2], c);
  c.ytmp = c.y + h * c.k[2];
  evaluateDerivative(model, p, t + h, c.ytmp, c.k[3], c);
  c.y += (h / 6.0) * (c.k[0] + 2.0 * c.k[1] + 2.0 * c.k[2] + c.k[3]);
}

namespace {

// Orientation after a step h with world angular momentum L held fixed, for a body with three
// different moments (one with an axis of symmetry: turnSymmetric, exact). The explicit update
// q' = exp(h w(q)) q with w(q) = R I_body^-1 R^T L pumps energy into bodies tumbling with
// unequal moments (thin rods: the three-link bar gained 1e9 J in 50 s); a midpoint rate taken
// explicitly (the rule used here before) keeps the energy only while h |w| is small, so a box
// spinning at 500 rad/s, 0.5 rad per 1 ms step, needed 32 substeps a step.
//
// This is the implicit midpoint rule on Euler's equations in body axes, which keeps the energy
// and |L| exactly for any step, with the orientation by the Cayley transform of the midpoint
// rate, which keeps the world L exactly. In body axes Pi = R^T L, Omega = D Pi (D = I_body^-1
// diagonal), and without torque Pi' = Pi x Omega. The midpoint rule
//   Pi1 = Pi0 + h Pm x D Pm,   Pm = (Pi0 + Pi1) / 2,
// keeps every quadratic invariant: (Pi1 - Pi0) . Pm = h (Pm x D Pm) . Pm = 0, so |Pi1| = |Pi0|;
// (Pi1 - Pi0) . D Pm = 0, and with D symmetric that is Pi1 . D Pi1 = Pi0 . D Pi0, the energy.
// With W = D Pm the step reads Pi1 - Pi0 = -h W x (Pi0 + Pi1) / 2, i.e.
//   (1 + h/2 [W]) Pi1 = (1 - h/2 [W]) Pi0,   Pi1 = C^T Pi0,   C = (1 - h/2 [W])^-1 (1 + h/2 [W]),
// C the Cayley transform of h [W], a rotation: about W by 2 atan(h |W| / 2), the quaternion
// (1, h W / 2) normalized. So R1 = R0 C gives R1 Pi1 = R0 C C^T Pi0 = L: the world momentum is
// unchanged, and R1 follows R' = R [Omega] to second order (2 atan(x / 2) = x - x^3 / 12 ...).
// Pm solves F(x) = x - Pi0 - (h/2) x cross (D x) = 0, by Newton's method with
// dF/dx = 1 - (h/2) ([x] D - [D x]) (d(x cross D x) = dx cross D x + x cross D dx), a 3 x 3 solve
// an iteration. It starts from the explicit half step x0 = Pi0 + (h/2) Pi0 cross D Pi0, where
// F(x0) = (h/2) (Pi0 cross D Pi0 - x0 cross D x0) = O(h^2) against F(Pi0) = O(h): one iteration
// fewer (substeps of thin boxes tumbling in a whipping chain, the corpus's #122: 2.2 iterations a
// call on average, was 3). It stops where the step falls below rounding of Pi0 (1e-16 relative),
// or where a step already below 1e-12 relative is no longer a hundredth of the one before
// (quadratic convergence has met rounding noise: F's own rounding, amplified by a stiff
// Jacobian, kept 0.2 % of #122's calls from ever passing 1e-16 and they ran all 30 iterations).
Quat turnAsymmetric(const Quat& q, const Vec3& L, const Vec3& invInertiaBody, double h) {
  const Vec3 pi0 = q.conjugate() * L;
  const double scale = pi0.squaredNorm();
  if (!(scale > 0.0)) return q;
  Vec3 x = pi0 + (0.5 * h) * pi0.cross(invInertiaBody.cwiseProduct(pi0));
  double last = std::numeric_limits<double>::infinity();  // the last step's |.|^2
  for (int iteration = 0; iteration < 30; ++iteration) {
    const Vec3 omega = invInertiaBody.cwiseProduct(x);  // D x
    const Vec3 f = x - pi0 - (0.5 * h) * x.cross(omega);
    const Mat3 jac = Mat3::Identity() - (0.5 * h) * (skew(x) * invInertiaBody.asDiagonal() - skew(omega));
    const Vec3 step = jac.inverse() * f;
    x -= step;
    const double size = step.squaredNorm();
    if (!(size > 1e-32 * scale) || (size < 1e-24 * scale && size > 1e-4 * last)) break;
    last = size;
  }
  const Vec3 half = (0.5 * h) * invInertiaBody.cwiseProduct(x);  // h W / 2
  return (q * Quat(1.0, half.x(), half.y(), half.z())).normalized();
}

// q' = exp(h w) q.
Quat turn(const Quat& q, const Vec3& w, double h) {
  const double rate2 = w.squaredNorm();
  if (!(rate2 > 0.0)) return q;
  // exp(h w) = (cos a, sin a w / |w|), a = h |w| / 2. For a < 0.1 (nearly always: 24 rad/s at
  // 240 Hz) by their Taylor series in a^2, whose next terms (a^10 / 11!, a^12 / 12!) are below
  // 1e-17 (the library's sin and cos cost more than the rest of this function, and |w| itself,
  // a square root, is not needed). The coefficients are reciprocals to multiply by: a division
  // costs several multiplications, and these are in sequence.
  const double a2 = 0.25 * h * h * rate2;
  double s, c;
  if (a2 < 0.01) {
    constexpr double k6 = 1.0 / 6, k20 = 1.0 / 20, k42 = 1.0 / 42, k72 = 1.0 / 72;
    constexpr double k12 = 1.0 / 12, k30 = 1.0 / 30, k56 = 1.0 / 56, k90 = 1.0 / 90;
    s = 0.5 * h * (1.0 - a2 * k6 * (1.0 - a2 * k20 * (1.0 - a2 * k42 * (1.0 - a2 * k72))));
    c = 1.0 - 0.5 * a2 * (1.0 - a2 * k12 * (1.0 - a2 * k30 * (1.0 - a2 * k56 * (1.0 - a2 * k90))));
  } else {
    const double rate = std::sqrt(rate2), a = 0.5 * h * rate;
    s = std::sin(a) / rate;
    c = std::cos(a);
  }
  return Quat(c, s * w.x(), s * w.y(), s * w.z()) * q;  // unit to rounding (normalizeQuaternions)
}

// Orientation after a step h with L held fixed, for a body with an axis of symmetry e (body
// axis k, moment I3; the other two moments I1): exact. With a = R e, the world rate is
//   w = R I_body^-1 R^T L = L / I1 + s a,   s = (1/I3 - 1/I1) (L . a),
// and L . a stays constant (d(a . L)/dt = (w x a) . L = (L x a) . L / I1 = 0), so
//   R(t) = exp(t [L / I1]) R(0) exp(t s [e])
// (dR/dt = [L / I1] R + R s [e] = [L / I1 + s a] R = [w] R): the shape turns about L at |L| / I1
// and spins about its own axis at s, which does not change it. The midpoint rule (above) takes
// the axial spin into the turn, and a thin rod rolling on the floor spins about its axis at v / r
// (1 000 rad/s at 5 m/s for r = 5 mm): a turn of 1 rad per 1 ms step, which the midpoint rule
// misplaces by sin(h s) / (h s). (Simulation::stepSubdivided counts only the axis's turn for
// its substeps, when nothing is attached to the body off its centre.)
Quat turnSymmetric(const Quat& q, const Vec3& L, const Vec3& invInertiaBody, int k, double h) {
  const double invI1 = invInertiaBody((k + 1) % 3), invI3 = invInertiaBody(k);
  const Vec3 e = Vec3::Unit(k);
  const double s = (invI3 - invI1) * L.dot(q * e);
  return turn(q, invI1 * L, h) * turn(Quat::Identity(), s * e, h);  // (exp(h s e): the body-axis spin)
}

// Orientation after a step h with the world angular momentum L held fixed (no torque), for
// principal moments 1 / d in the axes of q, symmetric about axis `symmetryAxis` (-1: none).
Quat advanceOrientation(const Quat& q, const Vec3& L, const Vec3& d, int symmetryAxis, double h) {
  if (symmetryAxis >= 0) return turnSymmetric(q, L, d, symmetryAxis, h);
  if (d.maxCoeff() - d.minCoeff() <= 1e-12 * d.maxCoeff()) return turn(q, d.x() * L, h);  // (a sphere, a cube: w = L / I)
  return turnAsymmetric(q, L, d, h);
}

Quat advanceOrientation(const Quat& q, const Vec3& L, const BodyModel& body, double h) {
  return advanceOrientation(q, L, body.invInertia, body.symmetryAxis, h);
}

// A body held at a nail (or a fixed body's point) by one point and by nothing else turns about the
// nail as a rotor: the step's drift, x' = x + h v and the free turn about the centre, moves the
// held point off the nail by O(h^2 |w|^2 r), and projection's pull back does work: a torus
// spinning at 40 rad/s on a nail by a point of its rim lost 3 % of its energy in an hour (+4.5 %
// with projection off).
//
// About the held point X (r = X - x from the centre x, d = -r), the body is a rotor with
//   L_X = L + d x P                         (angular momentum about X: L about x plus x's moment)
//   I_X = I + m (|d|^2 1 - d d^T)           (the parallel-axis theorem, constant in body axes)
// and the constraint's force at X has no moment about it: after the kick, which gave P and L the
// constraint's impulse F_c h at X (h r x F_c on L), L_X has gained only the moments about X of
// the other forces, h (T + d x F) (L + h r x F_c + d x (P + h F_c) = L_X + 0). So the drift is
// the free rotor about X for h: I_X in its own principal axes (I_X = V diag(lambda) V^T, the body
// turned by V: q V) turned by advanceOrientation with L_X held (exact energy 1/2 L_X . I_X^-1 L_X
// for any turn), then the centre put where the point is on the nail, x' = X_nail - R' local, and
//   w' = R' I_X^-1 R'^T L_X,   v' = w' x (x' - X_nail),   P' = m v',
//   L' = L_X - (x' - X_nail) x P'   (= R' I R'^T w': the rotor's L less the centre's moment).
// Kick then free flow is the semi-implicit Euler of the rotor's own coordinates (the pendulum's
// swing has bounded energy error, no drift).
// I_X = I + m (|d|^2 1 - d d^T) about the held point `local` in its principal axes (below).
StepContext::PinFrame pinFrame(const BodyModel& body, const Vec3& local) {
  const Vec3 d = -local;  // body axes: the centre from the held point
  const Mat3 inertia = Mat3(body.inertia.asDiagonal()) + body.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(inertia);
  StepContext::PinFrame f;
  f.V = eig.eigenvectors();
  if (f.V.determinant() < 0.0) f.V.col(2) = -f.V.col(2);
  const Vec3 lambda = eig.eigenvalues();  // ascending
  f.inv = lambda.cwiseInverse();
  // an axis of symmetry: the moment apart from two equal ones (a rod or a torus pinned on its axis)
  constexpr double kEqual = 1e-12;
  const bool low = lambda(1) - lambda(0) <= kEqual * lambda(2), high = lambda(2) - lambda(1) <= kEqual * lambda(2);
  if (low && !high) f.axis = 2;
  if (high && !low) f.axis = 0;
  f.qV = Quat(f.V);
  f.set = true;
  return f;
}

// (frame: I_X's principal axes and inverse moments, pinFrame; constant in body axes, so found once)
void turnAboutPin(const StepContext::PinFrame& frame, const BodyModel& body, const Vec3& local, const Vec3& nail,
                  double h, Vec3& x, Quat& q, Vec3& P, Vec3& L) {
  const Mat3& V = frame.V;
  const Vec3& inv = frame.inv;
  const Quat& qV = frame.qV;
  const Vec3 r = q * local;
  const Vec3 Lx = L - r.cross(P);
  const Quat q1 = (advanceOrientation(q * qV, Lx, inv, frame.axis, h) * qV.conjugate()).normalized();
  const Vec3 r1 = q1 * local;
  const Vec3 w1 = q1 * (V * inv.asDiagonal() * V.transpose() * (q1.conjugate() * Lx));
  x = nail - r1;
  q = q1;
  P = body.mass * w1.cross(-r1);
  L = Lx + r1.cross(P);
}

// The colliding bodies a rotor among contacts could meet in a step, sorted along x: each one's
// centre x and its bounding radius grown by twice its travel over the step, with the largest of
// those (pad), so that the bodies near a nail are found by a search along x instead of a pass
// over all of them for each rotor (1 000 balls each on its own nail, 3 m apart, over a floor:
// 6.2 ms a step with a pass over all the bodies for each, 0.86 ms with the search; 0.63 ms with
// no rotors among contacts, as before session 54).
struct ContactSweep {
  struct Entry {
    double x;
    double radius;  // bounding radius + 2 h |v|
    Vec3 centre;
    int body;
  };
  std::vector<Entry> entries;
  double pad = 0.0;

  ContactSweep(const Model& model, const Params& p, const StepContext& c, double h) {
    const std::vector<CollisionBody>& shapes = model.contacts.shapes;
    for (size_t j = 0; j < shapes.size(); ++j) {
      if (!p.bodyCollides[j] || !p.bodyActive[j]) continue;
      const double r = farthestFrom(shapes[j], Vec3::Zero()) + 2.0 * h * c.kin[j].v.norm();
      entries.push_back({c.kin[j].x.x(), r, c.kin[j].x, int(j)});
      pad = std::max(pad, r);
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.x < b.x; });
  }
};

// Among contacts, whether body b, turning about `nail` as a rotor, is clear of everything it could
// touch in this step: every point of it stays within reach (its farthest point's distance from the
// held point `local`, farthestFrom) of the nail, so it is clear of a plane the nail is farther from
// than that, and of a body whose bounding sphere, moved on by its velocity over the step, stays
// that far, with the contacts' near margin (1 mm) to spare. A body that could touch something drifts straight, as the contact impulses
// were found for (a rod pinned 0.95 m over the floor, 1 m long, grazing it at each swing, e = 1:
// turning as a rotor between its strikes, it lost 1-5 J of 13 J of motion in 300 s, straight 0.03-0.08
// J; the strike's reflection turns the rotor's first-order energy swing into a change, each time).
bool clearOfContacts(const Model& model, const Params& p, const ContactSweep& sweep, size_t b, const Vec3& local,
                     const Vec3& nail) {
  constexpr double kMargin = 1e-3;
  const std::vector<CollisionBody>& shapes = model.contacts.shapes;
  if (b >= shapes.size() || !p.bodyCollides[b]) return true;
  const double reach = farthestFrom(shapes[b], local) + kMargin;
  for (const GroundPlane& g : model.contacts.planes)
    if (g.normal.dot(nail - g.point) <= reach) return false;
  // (a body within reach has its centre within reach + its radius <= reach + pad of the nail in x)
  const double from = nail.x() - reach - sweep.pad, to = nail.x() + reach + sweep.pad;
  auto it = std::lower_bound(sweep.entries.begin(), sweep.entries.end(), from,
                             [](const ContactSweep::Entry& e, double x) { return e.x < x; });
  const double box = reach + sweep.pad;  // (in y and z too: a quick test before the distance)
  for (; it != sweep.entries.end() && it->x <= to; ++it) {
    const Vec3 apart = it->centre - nail;
    if (std::abs(apart.y()) > box || std::abs(apart.z()) > box || size_t(it->body) == b) continue;
    if (apart.norm() - it->radius <= reach) return false;
  }
  return true;
}

// The rotors of a step: each body held alone at a nail or at a fixed body's point
// (Constraint::fixedPin; its only active constraint, and met, StepMemory::assembled or met at the
// step's start: one still assembling moves its point by its law), turned about that place from
// the kicked momenta in y. Only the constraints that can pin are looked at
// (StepContext::pinCandidates), so a chain pays one check for its nail. Among contacts (contacts:
// the step's contact stage ran after the kick), only a body clear of everything it could touch
// (clearOfContacts; a ring spinning on a nail high over the floor lost 3 % of its energy an hour
// while the rotor was off in every scene with contacts).
void turnRotors(const Model& model, const Params& p, double h, StepContext& c, const StepMemory& memory, bool contacts) {
  c.rotors.clear();
  const auto& incidence = c.system.assembly().incidence();
  const std::vector<int>& offset = c.system.rowOffset();
  std::optional<ContactSweep> sweep;  // (among contacts: built for the first body that could be a rotor)
  c.pinFrames.resize(c.pinCandidates.size());
  for (size_t k = 0; k < c.pinCandidates.size(); ++k) {
    const int j = c.pinCandidates[k];
    // met: held since an earlier step, or met now, at the step's start, as updateAssembled counts
    // it (with projection on the flags are set at each step's end, so a body on its nail from the
    // start took a general first step: a rod spinning at 500 rad/s on its end's nail was knocked
    // 9 cm off it by that step at dt = 0.01 s and gained 8.8 % of its energy reassembling, and
    // on a scalar pin it diverged)
    const bool held = size_t(j) < memory.assembled.size() && memory.assembled[size_t(j)];
    if (!held && !(size_t(j) < offset.size() && offset[size_t(j)] >= 0 &&
                   maxAbs(c.system.rows()[size_t(j)].D, c.system.rows()[size_t(j)].d) <= kAssembledThreshold))
      continue;
    Anchor point, at;
    model.constraints[size_t(j)]->fixedPin(model.bodies, point, at);
    const size_t b = size_t(point.index);
    if (b >= incidence.size() || incidence[b].size() != 1 || incidence[b][0].first != j || c.kin[b].invMass == 0.0)
      continue;
    // the place: a nail, or the fixed body's point where that body is now
    const Vec3 nail = at.kind == Anchor::Kind::Body ? Vec3(c.kin[size_t(at.index)].x + c.kin[size_t(at.index)].R * at.local)
                                                    : at.local;
    if (contacts) {
      if (!sweep) sweep.emplace(model, p, c, h);
      if (!clearOfContacts(model, p, *sweep, b, point.local, nail)) continue;
    }
    const Eigen::Index i = static_cast<Eigen::Index>(b) * kBodyDofs;
    StepContext::Rotor r{int(b), c.y.segment<3>(i), c.y.segment<3>(i + 7), c.y.segment<3>(i + 10),
                         Quat(c.y(i + 3), c.y(i + 4), c.y(i + 5), c.y(i + 6))};
    if (!c.pinFrames[k].set) c.pinFrames[k] = pinFrame(model.bodies[b], point.local);
    turnAboutPin(c.pinFrames[k], model.bodies[b], point.local, nail, h, r.x, r.q, r.P, r.L);
    c.rotors.push_back(r);
  }
}

void setOrientation(Eigen::VectorXd& y, Eigen::Index o, const Quat& q) {
  y.segment<4>(o + 3) = Eigen::Vector4d(q.w(), q.x(), q.y(), q.z());
}

// The rotors' poses and momenta (turnRotors) over what the general drift gave their bodies.
void placeRotors(StepContext& c) {
  for (const StepContext::Rotor& r : c.rotors) {
    const Eigen::Index i = static_cast<Eigen::Index>(r.body) * kBodyDofs;
    c.y.segment<3>(i) = r.x;
    setOrientation(c.y, i, r.q);
    c.y.segment<3>(i + 7) = r.P;
    c.y.segment<3>(i + 10) = r.L;
  }
}

}  // namespace

void stepSemiImplicitEuler(const Model& model, const Params& p, double t, double h, StepContext& c,
                           StepMemory& memory, const AfterKick& afterKick) {
  c.h = h;
  evaluateForces(model, p, t, c.y, c, &memory);
  recordPointPairForces(c.system.assembly(), c.system.forces(), memory.lastForce);
  c.system.takeRateOffsets(memory.rateOffset, memory.velocityAim, memory.lawSteps);
  SpinTrend& trend = memory.spinTrend;
  trend.dw.resize(model.bodies.size());
  trend.h = h;
  // kick: momenta
  for (size_t b = 0; b < model.bodies.size(); ++b) {
    if (c.kin[b].invMass == 0.0) continue;  // fixed or inactive: does not move
    const Eigen::Index i = static_cast<Eigen::Index>(b) * kBodyDofs;
    c.y.segment<3>(i + 7) += h * c.F[b];
    c.y.segment<3>(i + 10) += h * c.T[b];
  }
  // (the contact stage meets the momenta the drift moves with, the held constraints' position
  // correction in them)
  if (afterKick) afterKick(c.y);
  // bodies held at a nail alone turn about it (turnAboutPin; among contacts only those clear of
  // everything, the contact impulses being found for the straight drift): found from the kicked
  // momenta, put in place after the drift and turn of the others
  turnRotors(model, p, h, c, memory, bool(afterKick));
  for (size_t b = 0; b < model.bodies.size(); ++b) {
    const BodyKinematics& k = c.kin[b];
    if (k.invMass == 0.0) {
      trend.dw[b].setZero();
      continue;
    }
    const Eigen::Index i = static_cast<Eigen::Index>(b) * kBodyDofs;
    Vec3 L = c.y.segment<3>(i + 10);
    if (c.split) L -= h * c.Tp[b];
    const Vec3 w0 = k.invI * L;  // (w0: the new rate at the start orientation)
    trend.dw[b] = w0 - k.w;
    // drift: positions with the new velocities
    c.y.segment<3>(i) += (h * k.invMass) * Vec3(c.y.segment<3>(i + 7));
  }
  // the turns in a second pass: each body's orientation step is one long chain of dependent
  // operations (a division, then the series), and shorter loop bodies let the processor overlap
  // more bodies (measured: chain 1 000 -2 %)
  for (size_t b = 0; b < model.bodies.size(); ++b) {
    if (c.kin[b].invMass == 0.0) continue;
    const Eigen::Index i = static_cast<Eigen::Index>(b) * kBodyDofs;
    const Quat q(c.y(i + 3), c.y(i + 4), c.y(i + 5), c.y(i + 6));
    setOrientation(c.y, i, advanceOrientation(q, c.y.segment<3>(i + 10), model.bodies[b], h));
  }
  // the held constraints' position correction has moved the bodies; its impulse goes
  // (VelocityLevelEquation::splitHeldCorrection). (A rotor, put in place below, turned with the
  // kicked momenta: its one constraint is its pin, met exactly by the last turn, so its share is
  // round-off.)
  if (c.split)
    for (size_t b = 0; b < model.bodies.size(); ++b) {
      if (c.kin[b].invMass == 0.0) continue;
      const Eigen::Index i = static_cast<Eigen::Index>(b) * kBodyDofs;
      c.y.segment<3>(i + 7) -= h * c.Fp[b];
      c.y.segment<3>(i + 10) -= h * c.Tp[b];
    }
  placeRotors(c);
}

namespace {

// The force stages up to assembly at (t, y): kinematics, external forces, constraint rows.
void assembleAt(const Model& model, const Params& p, double t, StepContext& c, StepMemory& memory) {
  computeKinematics(model, p, c.y, c);
  const EvalContext ectx{c.kin, model.paths, t, &p.pathClock, c.velocityIntegral};
  computeExternalForces(model, p, ectx, c);
  c.system.assemble(model, p, ectx, c.F, c.T, stabilization(model.settings, c.h, &memory.assembled));
}

}  // namespace

void stepSequentialImpulses(const Model& model, const Params& p, double t, double h, StepContext& c,
                            StepMemory& memory, const AfterKick& afterKick) {
  c.h = h;
  ++c.evaluations;
  assembleAt(model, p, t, c, memory);
  const size_t nb = model.bodies.size();
  std::vector<Vec3>& P = c.P;
  std::vector<Vec3>& L = c.L;
  P.resize(nb);
  L.resize(nb);
  for (size_t i = 0; i < nb; ++i) {
    const Eigen::Index o = static_cast<Eigen::Index>(i) * kBodyDofs;
    P[i] = c.y.segment<3>(o + 7) + h * c.F[i];
    L[i] = c.y.segment<3>(o + 10) + h * c.T[i];  // world-frame L: no gyroscopic term
  }
  Stabilization stab = stabilization(model.settings, h, &memory.assembled);
  stab.rateOffset = &memory.rateOffset;
  stab.velocityAim = &memory.velocityAim;
  stab.velocityMiss = &memory.velocityMiss;
  c.system.sequentialImpulses(p, stab, model.settings.solverIterations, P, L, memory.impulses);
  c.system.takeRateOffsets(memory.rateOffset, memory.velocityAim, memory.lawSteps);
  if (afterKick) {
    for (size_t i = 0; i < nb; ++i) {
      const Eigen::Index o = static_cast<Eigen::Index>(i) * kBodyDofs;
      c.y.segment<3>(o + 7) = P[i];
      c.y.segment<3>(o + 10) = L[i];
    }
    afterKick(c.y);
    for (size_t i = 0; i < nb; ++i) {
      const Eigen::Index o = static_cast<Eigen::Index>(i) * kBodyDofs;
      P[i] = c.y.segment<3>(o + 7);
      L[i] = c.y.segment<3>(o + 10);
    }
  }
  // bodies held at a nail alone turn about it, as in stepSemiImplicitEuler (the pin's impulses have
  // no moment about it; a rod whirled at 500 rad/s on its end's nail lost 205 J of 12 703 J in
  // 60 s with the straight drift, and keeps it to 1e-6 now)
  if (!c.pinCandidates.empty()) {
    for (size_t i = 0; i < nb; ++i) {
      const Eigen::Index o = static_cast<Eigen::Index>(i) * kBodyDofs;
      c.y.segment<3>(o + 7) = P[i];
      c.y.segment<3>(o + 10) = L[i];
    }
    turnRotors(model, p, h, c, memory, bool(afterKick));
  } else {
    c.rotors.clear();
  }
  for (size_t i = 0; i < nb; ++i) {
    const BodyKinematics& k = c.kin[i];
    if (k.invMass == 0.0) continue;
    const Eigen::Index o = static_cast<Eigen::Index>(i) * kBodyDofs;
    c.y.segment<3>(o) += (h * k.invMass) * P[i];
    const Quat q(c.y(o + 3), c.y(o + 4), c.y(o + 5), c.y(o + 6));
    setOrientation(c.y, o, advanceOrientation(q, L[i], model.bodies[i], h));
    c.y.segment<3>(o + 7) = P[i];
    c.y.segment<3>(o + 10) = L[i];
  }
  placeRotors(c);
}

namespace {
// Dormand & Prince (1980) tableau.
constexpr double kC[7] = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
constexpr double kA[7][6] = {
    {},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
// fifth-order weights are row 6 of A; these are (fifth - fourth)
constexpr double kE[7] = {35.0 / 384 - 5179.0 / 57600, 0.0, 500.0 / 1113 - 7571.0 / 16695,
                          125.0 / 192 - 393.0 / 640, -2187.0 / 6784 + 92097.0 / 339200,
                          11.0 / 84 - 187.0 / 2100, -1.0 / 40};
}  // namespace

double stepRK45(const Model& model, const Params& p, double t, double h, double tol, StepContext& c) {
  // (no first-same-as-last reuse: every step starts from f(y) so that a run resumed from a
  // saved State repeats the uninterrupted run bit for bit)
  // The implicit stabilization's law, D'' = -D'/h - D/h^2 (right_hand_side.cpp), is the only
  // part of the derivative that depends on a step: here it takes the scene's step dt, not the
  // adaptive one. With the trial step it changed with every retry (and k1 kept the first try's),
  // the error estimate never fell as the step shrank, and rk45 crawled at t = 8e-13 s on every
  // scene, the plain pendulum too.
  c.h = model.settings.dt;
  evaluateDerivative(model, p, t, c.y, c.k[0], c);
  const FormsHeld held(c);
  for (int attempt = 0;; ++attempt) {
    for (int s = 1; s < 7; ++s) {
      c.ytmp = c.y;
      for (int j = 0; j < s; ++j)
        if (kA[s][j] != 0.0) c.ytmp += (h * kA[s][j]) * c.k[j];
      evaluateDerivative(model, p, t + kC[s] * h, c.ytmp, c.k[s], c);
    }
    // ytmp is now the fifth-order solution
    c.yerr.setZero(c.y.size());
    for (int j = 0; j < 7; ++j)
      if (kE[j] != 0.0) c.yerr += (h * kE[j]) * c.k[j];
    double err = 0.0;
    for (Eigen::Index i = 0; i < c.y.size(); ++i)
      err = std::max(err, std::abs(c.yerr(i)) / (tol * (1.0 + std::max(std::abs(c.y(i)), std::abs(c.ytmp(i))))));
    if (!std::isfinite(err)) err = 1e10;
    // step-size controller: h_new = h * 0.9 err^(-1/5), limited to [0.2, 5] h
    const double factor = err == 0.0 ? 5.0 : std::clamp(0.9 * std::pow(err, -0.2), 0.2, 5.0);
    if (err <= 1.0 || attempt >= 60 || h < 1e-12) {
      c.y = c.ytmp;
      c.hNext = h * factor;
      return h;
    }
    h *= factor;
  }
}

double integrate(const Model& model, const Params& p, double t, double h, StepContext& c, StepMemory& memory,
                 const AfterKick& afterKick, bool* kicked) {
  if (kicked) *kicked = false;
  if (model.settings.solver == SolverKind::SequentialImpulses) {
    stepSequentialImpulses(model, p, t, h, c, memory, afterKick);
    if (kicked) *kicked = bool(afterKick);
    return h;
  }
  switch (model.settings.integrator) {
    case IntegratorKind::RK4: stepRK4(model, p, t, h, c); return h;
    case IntegratorKind::SemiImplicitEuler:
      stepSemiImplicitEuler(model, p, t, h, c, memory, afterKick);
      if (kicked) *kicked = bool(afterKick);
      return h;
    case IntegratorKind::RK45: return stepRK45(model, p, t, h, model.settings.tolerance, c);
  }
  return h;
}

}  // namespace tether::core
