// The constraint interface (Barzel & Barr 1988, Fig. 11), in Jacobian form.
//
// Each constraint has a deviation D (d rows, D = 0 when met). With body velocities
// u_i = (v_i, w_i), D's rate is linear in them:
//   D1 = dD/dt = sum_i (Jl_i v_i + Ja_i w_i) + dD/dt|_explicit
// and its acceleration is linear in the bodies' accelerations:
//   D2 = sum_i (Jl_i a_i + Ja_i alpha_i) + c
// where c collects every velocity-product and explicit-time term. With a_i = F_i / m_i and
// alpha_i = I_i^-1 (T_i + L_i x w_i) (paper Eqn. 11) this is the paper's
//   D2 = sum_i (Gamma_i F_i + Lambda_i T_i) + beta,
//   Gamma_i = Jl_i / m_i, Lambda_i = Ja_i I_i^-1, beta = c + sum_i Ja_i I_i^-1 (L_i x w_i),
// so a constraint supplies (D, D1, Jl, Ja, c) and the assembler forms Gamma, Lambda, beta.
//
// Constraint forces: body i receives force G_i Fc and torque H_i Fc (Fc has f entries). The
// default is virtual work, G_i = Jl_i^T and H_i = Ja_i^T (f = d): the forces do no work on
// motions that keep D1 = 0, and the system matrix J W J^T is symmetric. A constraint may
// supply its own G/H (the orientation constraint applies a pure torque, f = 3 with d = 1).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/math.h"
#include "core/model.h"
#include "core/point_constraint_part.h"

namespace tether::core {

// What a constraint sees of a body. Four cache lines (aligned): the solver's inverse mass
// properties and w in the first two, what a constraint's points need (w, v, x, R) in the last
// three (at 10 000 bodies the step waits on memory).
struct alignas(64) BodyKinematics {
  Mat3 invI = Mat3::Zero();       // world inverse inertia R I^-1 R^T, 1/(kg m^2)
  double invMass = 0.0;           // 1/kg
  Vec3 w = Vec3::Zero();          // world angular velocity, rad/s
  Vec3 v = Vec3::Zero();          // m/s
  Vec3 x = Vec3::Zero();          // centre of mass, m
  Mat3 R = Mat3::Identity();      // body -> world rotation
  Vec3 L = Vec3::Zero();          // angular momentum, kg m^2/s
};

struct EvalContext {
  const std::vector<BodyKinematics>& bodies;
  const std::vector<Path>& paths;
  double t = 0.0;
  const std::vector<PathClock>* clocks = nullptr;  // per path; null: every path at speed 1
  // per constraint: the integral of a velocity constraint's error since it became active
  // (StepMemory::velocityIntegral; see Constraint::nonholonomic); null: zero
  const std::vector<Vec3>* velocityIntegral = nullptr;
};

using Mat33 = Eigen::Matrix3d;

// A constraint counts as met (assembled, see core/dynamics.h's updateAssembled) once every
// |D_i| is within this, in the constraint's units (m, or 1 for orientation).
inline constexpr double kAssembledThreshold = 1e-3;

// max |v_i| over the first d (1..3) entries: the size of a constraint's d-row quantity.
inline double maxAbs(const Vec3& v, int d) {
  double m = 0.0;
  for (int i = 0; i < d && i < 3; ++i) m = std::max(m, std::abs(v(i)));
  return m;
}

// The first d (1..3) entries of a stacked vector from offset o as a Vec3 (the rest zero), and
// back (set or add). Scalar loops: Eigen's dynamic-size copies between a Vec3 and a VectorXd
// segment carry 4-wide packet code for long segments, which the compiler cannot rule out for
// a 3-vector (with AVX it warns of an overflow).
inline Vec3 gatherRows(const Eigen::VectorXd& v, Eigen::Index o, int d) {
  Vec3 x = Vec3::Zero();
  for (int i = 0; i < d; ++i) x(i) = v(o + i);
  return x;
}
inline void scatterRows(Eigen::VectorXd& v, Eigen::Index o, const Vec3& x, int d) {
  for (int i = 0; i < d; ++i) v(o + i) = x(i);
}
inline void addRows(Eigen::VectorXd& v, Eigen::Index o, const Vec3& x, int d) {
  for (int i = 0; i < d; ++i) v(o + i) += x(i);
}

// One constraint's rows, evaluated at a state. At most 3 rows, 3 force dofs and 2 bodies;
// only the top d rows / left f columns are meaningful. Each slot's Jacobian is either plain
// d x 3 blocks (Jl, Ja: every type but the point pairs) or the point pair's implicit one
// (pointPart, core/point_constraint_part.h); the accessors below read either. The fields the
// solver reads every step come first: a point pair (header, D, D1, pointPart) is read from the
// first two cache lines alone (the struct is aligned to them; at 10 000 constraints the step
// waits on memory).
struct alignas(64) ConstraintRows {
  int d = 0;                       // rows of D
  int f = 0;                       // entries of Fc
  int nb = 0;                      // moving bodies involved (0..2)
  int body[2] = {-1, -1};
  bool customForce = false;        // G/H below instead of the J^T default
  // A constraint with more than one form of rows (the scalar point-to-nail: one row, or three)
  // says in `form` which it took; with keepForm set (ConstraintAssembly::holdForms) it takes that
  // one again instead of choosing from the state. clear() leaves both.
  bool keepForm = false;
  std::int8_t form = -1;
  // distanceRows' one row along the line from point[0] to point[1], neither end moving unless on
  // a body (the held target's c at the end velocities: correctHeldForArmRotation); clear() resets it
  bool separation = false;
  Vec3 D = Vec3::Zero();           // deviation (units of the constraint: m, or 1 for orientation)
  Vec3 D1 = Vec3::Zero();          // dD/dt
  PointConstraintPart pointPart;   // slots with a point's implicit Jacobian (Jl, Ja then not filled in)
  Vec3 c = Vec3::Zero();           // the part of D2 not from body accelerations
  Vec3 point[2];                   // where the constraint acts, world (for drawing)
  Mat33 Jl[2], Ja[2];              // d x 3 Jacobian blocks per body (other than point slots)
  Mat33 G[2], H[2];                // 3 x f: force and torque per unit Fc (customForce only)
  // Set by the assembler before evaluate (clear() leaves it): the constraint's tau now (s,
  // Params::tau), for rows whose form depends on how fast tau's law closes D (the scalar
  // point-to-nail's); 0.1 (the default tau) where no assembler evaluates them.
  double tau = 0.1;

  void clear(int rows, int dofs) {
    d = rows;
    f = dofs;
    nb = 0;
    body[0] = body[1] = -1;
    pointPart.unit[0] = pointPart.unit[1] = 0;
    pointPart.anchorAccelerates = false;
    separation = false;
    Jl[0].setZero(); Jl[1].setZero(); Ja[0].setZero(); Ja[1].setZero();
    D.setZero(); D1.setZero(); c.setZero();
    customForce = false;
    point[0].setZero(); point[1].setZero();
  }
  // The slot of body b in this constraint, adding it if new.
  int slot(int b) {
    for (int s = 0; s < nb; ++s)
      if (body[s] == b) return s;
    body[nb] = b;
    return nb++;
  }
  // Slot s's Jacobian blocks and their products, whichever way the slot holds them.
  Mat33 jlBlock(int s) const { return pointPart.has(s) ? pointPart.jlBlock(s) : Jl[s]; }
  Mat33 jaBlock(int s) const { return pointPart.has(s) ? pointPart.jaBlock(s) : Ja[s]; }
  Vec3 jl(int s, const Vec3& x) const { return pointPart.has(s) ? pointPart.jl(s, x) : Vec3(Jl[s] * x); }
  Vec3 jlT(int s, const Vec3& x) const { return pointPart.has(s) ? pointPart.jlT(s, x) : Vec3(Jl[s].transpose() * x); }
  Vec3 ja(int s, const Vec3& x) const { return pointPart.has(s) ? pointPart.ja(s, x) : Vec3(Ja[s] * x); }
  Vec3 jaT(int s, const Vec3& x) const { return pointPart.has(s) ? pointPart.jaT(s, x) : Vec3(Ja[s].transpose() * x); }
};
static_assert(offsetof(ConstraintRows, c) == 128, "a point pair's solver fields fill the first two cache lines");

// The (at most two) bodies a constraint involves, without allocating.
struct BodyList {
  int n = 0;
  int b[2] = {-1, -1};
  BodyList() = default;
  BodyList(std::initializer_list<int> l) {
    for (int x : l) b[n++] = x;
  }
  const int* begin() const { return b; }
  const int* end() const { return b + n; }
};

class Constraint {
 public:
  virtual ~Constraint() = default;
  virtual int rows() const = 0;
  virtual int forceDofs() const { return rows(); }
  // Bodies this constraint involves (to enable it only when they all exist).
  virtual BodyList bodies() const = 0;
  virtual void evaluate(const EvalContext& ctx, ConstraintRows& out) const = 0;
  // False when D's gradient vanishes at the solution (orientation, scalar point-to-nail): then
  // Newton projection is degenerate and the constraint is held by its stabilization alone.
  virtual bool projectable() const { return true; }
  // True when the rows hold a point of one body at a place in the world (a nail, a path, a line
  // or plane in space): ConstraintRows::point holds that point and that place, and the body's
  // contacts with the world near them are the constraint's own (PinnedPoint, core/collision.h).
  virtual bool pinsToWorld() const { return false; }
  // True when the rows are a point pair D = p2 - p1 whose two points are fixed in bodies or in the
  // world (point-to-point, point-to-nail; not a path's moving point): two such constraints on the
  // same bodies are rigid about the line between them (ConstraintAssembly::reduceRedundantPairs).
  virtual bool rigidPointPair() const { return false; }
  // True when the rows hold one point of a body (point: its anchor) at a place that does not move
  // with the motion (at: a nail, a World anchor; or a point of a fixed body, bodies[i].fixed; not a
  // path). A body held by such a constraint alone turns about that place as a rotor in the
  // semi-implicit Euler step (turnAboutPin, core/integrator.cpp).
  virtual bool fixedPin(const std::vector<BodyModel>& bodies, Anchor& point, Anchor& at) const {
    (void)bodies;
    (void)point;
    (void)at;
    return false;
  }
  // For rows that keep two bodies turning about a common axis (a hinge's axis part): that axis's
  // world direction now (unit), else zero. The two bodies' contacts near the line through their
  // joint's point along it are the joint's own (JoinedPair::axis, core/collision.h).
  virtual Vec3 jointAxis(const EvalContext& ctx) const {
    (void)ctx;
    return Vec3::Zero();
  }
  // A velocity (non-holonomic) constraint (Hong et al. Sec. 4): it prescribes a rate,
  // g = J u - v_o(t) = 0, and has no deviation of position. evaluate() sets D1 = g, the
  // Jacobian and c = J' u - v_o' (so that dg/dt = J [a; alpha] + c) and leaves D to the
  // assembler, which puts there the integral of g since the constraint became active
  // (StepMemory::velocityIntegral): with D = int g dt, D1 = g, D2 = dg/dt, the Barzel-Barr law
  // D'' + 2/tau D' + D/tau^2 = 0 is Baumgarte's with the integral term (Hong Eqn. 32, alpha = beta
  // = 1/tau), and the implicit method (Hong Eqn. 31) targets g(t + h) = 0 with no D at all.
  // Such a constraint is never projected (no position can meet a rate).
  virtual bool nonholonomic() const { return false; }
  // True when the rows' directions turn in the world on their own, not only with the bodies (a
  // distance's rows lie along the line between its points); then turnRate says how fast.
  virtual bool rowsTurnOnTheirOwn() const { return false; }
  // rad/s: how fast the rows' directions turn now (Simulation::stepSubdivided substeps on it as
  // on a body's turn). 0 unless rowsTurnOnTheirOwn.
  virtual double turnRate(const EvalContext& ctx) const {
    (void)ctx;
    return 0.0;
  }
  // True when the rows see body b's orientation only through where its body-local unit axis e
  // points: every point of b they hold lies on the line through b's centre along e, and they use
  // no direction of b. A turn of b about e then changes nothing they compute (Simulation does
  // not count a rod's spin about its own axis toward substeps when its joints are at its ends).
  // False, the default, for any type that does not say: the rows may see all of b's turn.
  virtual bool seesOnlyAxis(int b, const Vec3& e) const {
    (void)b;
    (void)e;
    return false;
  }
};

// True unless anchor a is a point of body b off the line through b's centre along the unit
// body-local axis e (Constraint::seesOnlyAxis of the point types); on it means within 1e-12 of
// its distance from the centre (a rod's ends are on its axis exactly).
inline bool onAxisOf(const Anchor& a, int b, const Vec3& e) {
  if (a.kind != Anchor::Kind::Body || a.index != b) return true;
  return a.local.cross(e).squaredNorm() <= 1e-24 * a.local.squaredNorm();
}

}  // namespace tether::core
