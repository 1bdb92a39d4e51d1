#include "core/stability.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "core/body.h"
#include "core/collision.h"
#include "core/constraint_type.h"
#include "core/constraints/distance.h"
#include "core/constraints/hinge.h"
#include "core/constraints/point_on_line.h"
#include "core/constraints/point_on_plane.h"
#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_path.h"
#include "core/constraints/point_to_point.h"
#include "core/path.h"
#include "core/scene_edit.h"
#include "core/validate.h"

// Derivations. Every part is the oscillator x'' + gamma x' + omega2 x = 0, stepped with h.
//
// 1. Constraint feedback (settings.stabilization "tau": gamma = 2/tau, omega2 = 1/tau^2;
//    "baumgarte": gamma = 2 alpha, omega2 = beta^2). "implicit" (D' = -D/h) is stable for
//    any h and is not checked.
//    Semi-implicit Euler solves for the rate at the end of the step (velocityTarget in
//    core/velocity_level.h): D1' = (D1 - h omega2 D) / (1 + h gamma), then D' = D + h D1'.
//    With x = h / tau on the state (D, h D1) the map is
//        A = 1/(1+2x) [[1 + 2x - x^2, 1], [-x^2, 1]],  det = 1/(1+2x),  tr = (2 + 2x - x^2)/(1+2x).
//    Jury's conditions for z^2 - tr z + det: |det| < 1 (x > 0: yes); 1 - tr + det = x^2/(1+2x)
//    > 0 (yes); 1 + tr + det = (4 + 4x - x^2)/(1+2x) > 0, i.e. x < 2 + 2 sqrt(2) = 4.83.
//    So tau > h / 4.83 is stable, and tau <= h / 4.83 grows every step. Below that the
//    discrete assembly is not the continuous one: tr^2 - 4 det = x^3 (x - 4)/(1+2x)^2, so the
//    eigenvalues are complex (a slight oscillation, |z| = 1/sqrt(1+2x)) up to x = 4, and for
//    x > 1 + sqrt(3) (tr < 0) D changes sign every step. We warn below 3 steps (x > 1/3):
//    the model then jumps together in a few steps instead of being animated.
//    Baumgarte in general: 1 + tr + det = (4 + 2 h gamma - h^2 omega2)/(1 + h gamma) > 0,
//    i.e. h^2 beta^2 < 4 + 4 h alpha (tau: alpha = beta = 1/tau gives x^2 < 4 + 4x again).
//    RK4 integrates D'' = -gamma D' - omega2 D; its step multiplies each eigenvalue mode by
//    R(h lambda), R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24, lambda the roots of
//    lambda^2 + gamma lambda + omega2 (tau: -1/tau, double). On the real axis R > 0 (an even
//    truncation of exp has no real root), and R(-x) - 1 = x (x^3 - 4x^2 + 12x - 24) / 24, whose
//    cubic rises monotonically (3x^2 - 8x + 12 > 0) through its one root 2.785
//    (kRk4RealLimit): |R(-x)| < 1 iff x < 2.785, i.e. tau > h / 2.785. On the imaginary axis
//    |R(iy)|^2 = 1 - y^6/72 + y^8/576 < 1 iff y < 2 sqrt(2).
//    The double root makes RK4's step map a Jordan block, R(hA) = R(-x) 1 + R'(-x) (hA + x 1):
//    below the limit it still amplifies D for a few steps before it decays (x = 2.65: by -2.45
//    in the first step, about 7 times at most). That, and a body turning fast as it assembles
//    (the linearization ignores the turn), is why tau below 3 steps is a warning: near the
//    limit a rod's end pulled 0.4 m can blow up on the stable side too.
//    (With projection on, a constraint that is already met is held by projection and, with
//    Euler, by the implicit target: tau then acts only while a constraint assembles: at the
//    start, after it is enabled, or after something tears it open by more than 1 mm.)
//
// 2. Springs (gamma = c / m_eff, omega2 = k / m_eff). Applied forces are taken at the start of
//    the step and positions move with the new velocity (symplectic Euler). On (x, h v), with
//    w = h omega, e = h gamma:
//        h v' = (1 - e) h v - w^2 x,  x' = x + h v'   =>   A = [[1 - w^2, 1 - e], [-w^2, 1 - e]],
//        det = 1 - e,  tr = 2 - w^2 - e.
//    Jury: |1 - e| < 1 (0 <= e < 2; at e = 0 the eigenvalues lie on the unit circle, distinct
//    while w < 2: bounded); 1 - tr + det = w^2 > 0; 1 + tr + det = 4 - w^2 - 2e > 0. Together:
//        (h omega)^2 + 2 h c / m_eff < 4      (c = 0: h omega < 2; k = 0: h c / m_eff < 2).
//    RK4: as above, h omega < 2 sqrt(2) undamped, h c / m_eff < 2.785 overdamped.
//    The effective mass along the spring's direction n at its two ends a, b:
//        1 / m_eff = sum over the ends of 1/m + (r x n) . I_world^-1 (r x n)
//    (an impulse f n at the point p = x + r changes its velocity along n by that much: f/m
//    from the centre of mass, (I^-1 (r x f n)) x r from the turn). A nail, a path or a fixed
//    body contributes 0. For a spring of zero length at the start, n is the worst direction:
//    the largest eigenvalue of sum (1/m) 1 + [r]x^T I^-1 [r]x. Bodies' masses and inertias are
//    those of their definitions at the initial pose. Constraints on the bodies only make the
//    motion along n heavier (they take freedoms away), so the free m_eff is the light end:
//    a Diverges finding for a spring on constrained bodies is the free bodies' verdict.
//    Torsion springs: the same with the moment of inertia about the torque axis n = a x b / |a x b|,
//        1 / I_eff = n . (I_A^-1 + I_B^-1) n   (worst n perpendicular to a if a, b are parallel).
//
// 3. Viscous damping (the damping force): v' = (1 - h c/m) v, and per principal axis of a body
//    L' = (1 - h c / I_i) L_i: stable iff h c / m < 2 and h c / I_min < 2 (RK4: 2.785). A thin
//    rod's axial moment m r^2 / 2 is tiny: angular damping meant for its swing spins it to
//    pieces about its axis. See stability::viscousDampingIsExplicit to switch this off for an
//    integrator that takes the damping implicitly.
//
// 4. dt itself: a step above 0.05 s is coarse for anything that moves (warn).
//
// RK45 (Dormand-Prince) shrinks its step until it is stable, so it never diverges; it warns
// only when a rate exceeds 1000 per output interval dt (its steps would be ~1000 times shorter
// than dt: the run crawls).

namespace tether::core {

namespace stability {

bool viscousDampingIsExplicit(IntegratorKind integrator, bool angular) {
  (void)angular;  // semi-implicit Euler: linear and angular damping both explicit (core/forces.cpp)
  switch (integrator) {
    case IntegratorKind::SemiImplicitEuler: return true;
    case IntegratorKind::RK4: return true;
    case IntegratorKind::RK45: return true;
  }
  return true;
}

namespace {

double spectralRadius(const Eigen::Matrix2d& A) {
  const double tr = A.trace(), det = A.determinant();
  const double disc = tr * tr - 4.0 * det;
  if (disc >= 0.0) {
    const double s = std::sqrt(disc);
    return 0.5 * std::max(std::abs(tr + s), std::abs(tr - s));
  }
  return std::sqrt(det);
}

}  // namespace

double growthPerStep(IntegratorKind integrator, Treatment treatment, double h, double omega2, double gamma) {
  Eigen::Matrix2d M;  // the step map on (x, v)
  if (integrator == IntegratorKind::SemiImplicitEuler) {
    if (treatment == Treatment::Feedback) {
      const double s = 1.0 / (1.0 + h * gamma);  // v' = s (v - h omega2 x), x' = x + h v'
      M << 1.0 - h * h * omega2 * s, h * s, -h * omega2 * s, s;
    } else {
      const double d = 1.0 - h * gamma;  // v' = d v - h omega2 x, x' = x + h v'
      M << 1.0 - h * h * omega2, h * d, -h * omega2, d;
    }
  } else {
    Eigen::Matrix2d A;
    A << 0.0, 1.0, -omega2, -gamma;
    const Eigen::Matrix2d Z = h * A, Z2 = Z * Z, Z3 = Z2 * Z, Z4 = Z3 * Z;
    M = Eigen::Matrix2d::Identity() + Z + Z2 / 2.0 + Z3 / 6.0 + Z4 / 24.0;
  }
  return spectralRadius(M);
}

}  // namespace stability

namespace stability {
// (the nudges keep a v that is already at 3 digits, 4.19, from going up to 4.2, and a 0.0004
// computed as 0.000399999... from going down to 0.000399)
static double digitsOf(double v) { return std::pow(10.0, 2 - std::floor(std::log10(v))); }
double roundDown3(double v) { return std::floor(v * digitsOf(v) * (1.0 + 1e-12)) / digitsOf(v); }
double roundUp3(double v) { return std::ceil(v * digitsOf(v) * (1.0 - 1e-12)) / digitsOf(v); }

// The elastic forces linearized about a pose: M x'' = -K x, K = sum_i k_i J_i^T J_i (J_i: the
// gradient of force i's stretch or twist; their pre-stress and the constraints left out:
// constraints only add inertia). The fastest omega^2 is the largest eigenvalue of
// M^-1/2 K M^-1/2 = sum_i k_i g_i g_i^T, g_i = M^-1/2 J_i^T, whose nonzero eigenvalues are those of
// the Gram matrix A_ij = sqrt(k_i k_j) g_i . g_j. By Gershgorin, lambda <= max_i sum_j |A_ij|.
// g_i . g_j is a sum over the bodies both act on of g_i^b . g_j^b, each at most |g_i^b| |g_j^b|,
// and |g_i^b|^2 = J_i^b M_b^-1 J_i^b^T is at most the end's largest mobility mu_i^b (an end
// with both its points on one body: |g_i^b| <= sqrt(mu_a) + sqrt(mu_b)). With c_i^b = sqrt(k_i)
// times the sum of sqrt(mu) of force i's ends on body b, and C_b = sum_j c_j^b,
//   omega^2 <= max_i sum_b c_i^b C_b.
// Alone on its bodies, a spring's bound is k (mu_a + mu_b), its omega^2 (exact for points on
// their centre). n equal springs in parallel on one bead: n k / m, exact.
void elasticRates(const std::vector<Elastic>& forces, size_t bodies, std::vector<double>& rate2,
                  std::vector<double>& scratch) {
  scratch.assign(bodies, 0.0);  // C_b
  auto share = [](const Elastic& f, const ElasticEnd& e) { return std::sqrt(f.stiffness * e.mobility); };
  for (const Elastic& f : forces) {
    if (!(f.stiffness > 0.0)) continue;
    for (const ElasticEnd& e : f.end)
      if (e.body >= 0) scratch[size_t(e.body)] += share(f, e);
  }
  rate2.assign(forces.size(), 0.0);
  for (size_t i = 0; i < forces.size(); ++i) {
    const Elastic& f = forces[i];
    if (!(f.stiffness > 0.0)) continue;
    const ElasticEnd &a = f.end[0], &b = f.end[1];
    if (a.body >= 0 && a.body == b.body) {
      rate2[i] = (share(f, a) + share(f, b)) * scratch[size_t(a.body)];
      continue;
    }
    for (const ElasticEnd& e : f.end)
      if (e.body >= 0) rate2[i] += share(f, e) * scratch[size_t(e.body)];
  }
}

bool aloneOnItsBodies(const Elastic& f, double rate2) {
  return rate2 <= f.stiffness * (f.end[0].mobility + f.end[1].mobility) * (1.0 + 1e-9);
}

double largestMobility(const Mat3& K) {
  return Eigen::SelfAdjointEigenSolver<Mat3>(K, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
}

double turnMobility(const Mat3& invI, const Vec3& a) {
  const Mat3 P = Mat3::Identity() - a * a.transpose();
  return largestMobility(P * invI * P);
}

std::string substepsFix(int maxSubsteps, double over, double dt) {
  std::ostringstream o;
  o.precision(3);
  const int n = std::max(1, maxSubsteps);
  int needed = n;
  while (needed < n * over && needed < 1 << 30) needed *= 2;
  if (needed <= Limits::kMaxSubsteps) o << "set max_substeps to " << needed << ", or ";
  o << "lower dt to " << roundDown3(dt / over) << " s";  // (at dt / over it would be said again)
  return o.str();
}
}  // namespace stability

namespace {

using stability::Treatment;

constexpr double kGrowthTolerance = 1e-9;  // growth per step above 1 + this: diverges

std::string num(double v) {  // a value the user gave
  char b[64];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}
std::string lim(double v) {  // a computed limit or fix
  char b[64];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}
using stability::roundDown3;
using stability::roundUp3;

// The integrator that actually steps: sequential impulses always step with semi-implicit Euler.
IntegratorKind stepper(const Settings& s) {
  return s.solver == SolverKind::SequentialImpulses ? IntegratorKind::SemiImplicitEuler : s.integrator;
}

const char* integratorName(IntegratorKind k) {
  switch (k) {
    case IntegratorKind::SemiImplicitEuler: return "semi-implicit Euler";
    case IntegratorKind::RK4: return "RK4";
    case IntegratorKind::RK45: return "RK45";
  }
  return "?";
}

// The largest |lambda| of lambda^2 + gamma lambda + omega2 = 0 (s^-1).
double fastestRate(double omega2, double gamma) {
  const double disc = 0.25 * gamma * gamma - omega2;
  return disc >= 0.0 ? 0.5 * gamma + std::sqrt(disc) : std::sqrt(omega2);
}

// The largest p in [0, hi] with growth(p) <= 1 (growth(hi) > 1, growth rising with p).
double largestStable(const std::function<double(double)>& growth, double hi) {
  double lo = 0.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (!(growth(mid) <= 1.0 + kGrowthTolerance) ? hi : lo) = mid;
  }
  return lo;
}

struct Finding {
  StabilitySeverity severity;
  std::string field;  // "tau", "stiffness", ...: the place is the object's place + "." + field
  std::string text;   // after "place: "
};

class Checker {
  struct Held {  // a point of a body (heldPoint)
    const BodyDef* body;
    Vec3 local;  // the held point in the body's coordinates
    Vec3 world() const { return body->position + body->orientation * local; }  // at the body's initial pose
  };

 public:
  explicit Checker(const Scene& s) : m_s(s), m_st(s.settings), m_int(stepper(s.settings)), m_h(s.settings.dt) {
    for (size_t i = 0; i < s.bodies.size(); ++i) m_bodies.emplace(s.bodies[i].name, int(i));
  }

  // the bodies of chains all but straight (checkNearReach)
  std::vector<std::string> tautBodies() {
    checkStraightChains();
    return {m_taut.begin(), m_taut.end()};
  }

  std::vector<StabilityWarning> run() {
    checkDt();
    checkFeedback();
    for (size_t i = 0; i < m_s.forces.size(); ++i)
      for (Finding& f : checkForce(m_s.forces[i]))
        add("forces[" + std::to_string(i) + "]." + f.field, f.severity, std::move(f.text));
    checkSpringSubsteps();
    checkEvents();
    checkDrives();
    checkReach();
    checkStraightChains();
    checkHeldPoints();
    checkBodiesInPlanes();
    checkRollingResistance();
    checkJoinedMasses();
    return std::move(m_out);
  }

 private:
  void add(std::string place, StabilitySeverity sev, std::string text) {
    m_out.push_back({place, sev, place + ": " + text, false, {}});
  }
  // a warning of the model's shape (a chain out of its reach, at a dead point): no setting helps
  void addGeometric(std::string place, StabilitySeverity sev, std::string text, std::vector<std::string> bodies = {}) {
    add(std::move(place), sev, std::move(text));
    m_out.back().geometric = true;
    m_out.back().bodies = std::move(bodies);
  }

  bool euler() const { return m_int == IntegratorKind::SemiImplicitEuler; }
  bool rk45() const { return m_int == IntegratorKind::RK45; }
  std::string dtText() const { return "dt = " + num(m_h) + " s"; }
  std::string stepText(double h) const {
    return h < m_h ? dtText() + " in " + num(std::round(m_h / h)) + " substeps" : dtText();
  }
  // The phase a fixed-step integrator lets a spring advance per substep (Simulation::m_springPhase).
  double springPhase() const {
    return m_int == IntegratorKind::RK4 ? stability::kSubstepTurnRK4 : stability::kSubstepSpringPhaseEuler;
  }
  // The (sub)step of a fixed-step integrator for an oscillation at omega (see checkOscillator).
  double springStep(double omega) const {
    if (rk45()) return m_h;
    const int maxN = std::max(1, m_st.maxSubsteps);
    int n = 1;
    while (n < maxN && m_h * omega > n * springPhase()) n = std::min(2 * n, maxN);
    return m_h / n;
  }

  // The springs past the phase per substep the step follows closely even at the ceiling of
  // max_substeps, stable and resolved or not: the run would say SUBSTEPS SHORT from the first step
  // (a helper's 20 g bead between two 20 000 N/m springs, dt omega = 1.0 a spring: 0.016 rad in
  // each of 64 substeps, its energy swinging by ~1.5 %, said only once run). Said once, of the
  // fastest by the run's own bound (stability::elasticRates: the ends' largest mobilities, the
  // springs sharing a body together), at the setting that cures it, in the run's numbers.
  void checkSpringSubsteps() {
    if (rk45()) return;
    std::vector<stability::Elastic> elastic(m_s.forces.size());
    for (size_t i = 0; i < m_s.forces.size(); ++i) {
      const ForceDef& f = m_s.forces[i];
      stability::Elastic& e = elastic[i];
      if (f.kind == ForceKind::Spring) {
        const PointRef* ends[2] = {&f.a, &f.b};
        for (int k = 0; k < 2; ++k) {
          Vec3 at;
          Mat3 K;
          if (!end(*ends[k], at, K)) continue;
          const auto b = m_bodies.find(ends[k]->body);
          if (b == m_bodies.end() || !(K.trace() > 0.0)) continue;
          e.end[k] = {b->second, stability::largestMobility(K)};
        }
      } else if (f.kind == ForceKind::TorsionSpring) {
        const std::string* names[2] = {&f.bodyA, &f.bodyB};
        const Vec3* axes[2] = {&f.axisA, &f.axisB};
        for (int k = 0; k < 2; ++k) {
          const auto b = m_bodies.find(*names[k]);
          if (b == m_bodies.end() || m_s.bodies[size_t(b->second)].fixed) continue;
          const BodyDef& bd = m_s.bodies[size_t(b->second)];
          e.end[k] = {b->second, stability::turnMobility(invInertiaWorld(bd), bd.orientation.normalized() * axes[k]->normalized())};
        }
      } else {
        continue;
      }
      if (f.enabled) e.stiffness = f.stiffness;
    }
    std::vector<double> rate2, scratch;
    stability::elasticRates(elastic, m_s.bodies.size(), rate2, scratch);
    const auto fastest = std::max_element(rate2.begin(), rate2.end());
    if (fastest == rate2.end()) return;
    const double omega = std::sqrt(*fastest), h = springStep(omega);
    if (!(h * omega > springPhase() * (1.0 + kGrowthTolerance))) return;
    const ForceDef& f = m_s.forces[size_t(fastest - rate2.begin())];
    const stability::Elastic& e = elastic[size_t(fastest - rate2.begin())];
    const bool alone = stability::aloneOnItsBodies(e, *fastest);
    add("settings.max_substeps", StabilitySeverity::Warn,
        std::string(f.kind == ForceKind::TorsionSpring ? "torsion spring \"" : "spring \"") + f.name + "\" (" + num(f.stiffness) +
            (f.kind == ForceKind::TorsionSpring ? " N m/rad" : " N/m") +
            (alone ? "" : ", with the springs that share its bodies") + ", oscillating at up to " +
            (omega >= 1000.0 ? std::to_string(long(std::lround(omega))) : lim(omega)) +
            " rad/s) advances " + lim(h * omega) + " rad of its oscillation per substep (" + stepText(h) +
            ", the most max_substeps allows), past the " + num(springPhase()) +
            " rad the step follows closely: its energy may stray past ~1 % (a run says SUBSTEPS SHORT); " +
            stability::substepsFix(m_st.maxSubsteps, h * omega / springPhase(), m_h));
  }

  void checkDt() {
    if (rk45() || m_h <= stability::kMaxDt) return;
    add("settings.dt", StabilitySeverity::Warn,
        num(m_h) + " s is a coarse time step for " + integratorName(m_int) + " (more than " + num(stability::kMaxDt) +
            " s): bodies move far within one step, so joints, springs and fast motion are poorly resolved and can "
            "blow up; use at most 0.01 s (the default is 0.001 s)");
  }

  // ---- 1. constraint feedback -------------------------------------------------------------

  // A tau (s) of `subject` ("0.0001 s of constraint \"hang\""): at most one finding.
  std::vector<Finding> checkTau(double tau, const std::string& subject) const {
    std::vector<Finding> out;
    const double x = m_h / tau;
    const double good = stability::kTauSteps * m_h;  // the fix: 3 steps
    const std::string fix = "; use a tau of at least " + lim(good) + " s (3 time steps), or dt <= " +
                            lim(tau / stability::kTauSteps) + " s";
    if (rk45()) {
      if (x > stability::kRk45Extreme)
        out.push_back({StabilitySeverity::Warn, "tau",
                       subject + " is over " + num(stability::kRk45Extreme) + " times shorter than the output interval " +
                           dtText() + ": RK45 stays stable only by shrinking its steps to about 3 tau = " +
                           lim(3.0 * tau) + " s, so the run would crawl; use a tau of at least " +
                           lim(m_h / stability::kRk45Extreme) + " s"});
      return out;
    }
    const double limitX = euler() ? stability::kEulerTauLimit : stability::kRk4RealLimit;
    const double growth = stability::growthPerStep(m_int, Treatment::Feedback, m_h, 1.0 / (tau * tau), 2.0 / tau);
    if (!(growth <= 1.0 + kGrowthTolerance)) {
      out.push_back({StabilitySeverity::Diverges, "tau",
                     subject + " is below the limit of " + integratorName(m_int) + ", dt / " + num(std::round(limitX * 1000.0) / 1000.0) + " = " +
                         lim(m_h / limitX) + " s at " + dtText() +
                         ": while it assembles, the constraint would overshoot further every step and blow up" + fix});
    } else if (x > 1.0 / stability::kTauSteps) {
      out.push_back({StabilitySeverity::Warn, "tau",
                     subject + " is shorter than 3 time steps (" + dtText() +
                         "): the assembly is poorly resolved, it jumps and overshoots instead of following "
                         "D'' + 2/tau D' + D/tau^2 = 0" + fix});
    }
    return out;
  }

  void checkFeedback() {
    switch (m_st.stabilization) {
      case StabilizationKind::Implicit: return;  // stable for any step
      case StabilizationKind::Baumgarte: checkBaumgarte(); return;
      case StabilizationKind::Tau: break;
    }
    int usingDefault = 0;
    for (const ConstraintDef& c : m_s.constraints) usingDefault += c.tau ? 0 : 1;
    const std::string who = usingDefault ? "the tau of " + std::to_string(usingDefault) +
                                               (usingDefault == 1 ? " constraint that gives none" : " constraints that give none") +
                                               " and of new ones"
                                         : "the tau new constraints get";
    for (Finding& f : checkTau(m_st.defaultTau, num(m_st.defaultTau) + " s (" + who + ")"))
      add("settings.default_tau", f.severity, std::move(f.text));
    for (size_t i = 0; i < m_s.constraints.size(); ++i) {
      const ConstraintDef& c = m_s.constraints[i];
      if (!c.tau) continue;
      for (Finding& f : checkTau(*c.tau, num(*c.tau) + " s of constraint \"" + c.name + "\""))
        add("constraints[" + std::to_string(i) + "].tau", f.severity, std::move(f.text));
    }
  }

  void checkBaumgarte() {
    const double a = m_st.baumgarteAlpha, b = m_st.baumgarteBeta;
    const double gamma = 2.0 * a, omega2 = b * b;
    if (omega2 == 0.0 && gamma == 0.0) return;
    // the fault is beta's when the mode oscillates (beta > alpha), else alpha's (overdamped: the
    // fast real rate alpha + sqrt(alpha^2 - beta^2))
    const bool betas = b >= a;
    const std::string place = betas ? "settings.baumgarte_beta" : "settings.baumgarte_alpha";
    const std::string subject = "Baumgarte feedback (alpha = " + num(a) + " 1/s, beta = " + num(b) + " 1/s)";
    const double rate = fastestRate(omega2, gamma);
    if (rk45()) {
      if (m_h * rate > stability::kRk45Extreme)
        add(place, StabilitySeverity::Warn,
            subject + " corrects at " + lim(rate) + " 1/s, over " + num(stability::kRk45Extreme) +
                " times per output interval " + dtText() + ": RK45 would crawl; use alpha and beta of at most " +
                lim(stability::kRk45Extreme / m_h) + " 1/s");
      return;
    }
    const double fixRate = 1.0 / (stability::kTauSteps * m_h);  // as tau = 3 dt
    const std::string fix = "; use alpha and beta of at most " + lim(fixRate) + " 1/s (as tau = 3 time steps), or dt <= " +
                            lim(1.0 / (stability::kTauSteps * rate)) + " s";
    const double growth = stability::growthPerStep(m_int, Treatment::Feedback, m_h, omega2, gamma);
    if (!(growth <= 1.0 + kGrowthTolerance)) {
      std::string limit;
      if (betas) {
        const double bMax = std::sqrt(largestStable(
            [&](double w2) { return stability::growthPerStep(m_int, Treatment::Feedback, m_h, w2, gamma); }, omega2));
        limit = "beta <= " + lim(bMax) + " 1/s at this alpha";
        if (euler()) limit += " (dt^2 beta^2 < 4 + 4 dt alpha)";
      } else {
        const double aMax = 0.5 * largestStable(
            [&](double g) { return stability::growthPerStep(m_int, Treatment::Feedback, m_h, omega2, g); }, gamma);
        limit = "alpha <= " + lim(aMax) + " 1/s at this beta";
      }
      add(place, StabilitySeverity::Diverges,
          subject + " is beyond the limit of " + integratorName(m_int) + " at " + dtText() + ", " + limit +
              ": a constraint's deviation would overshoot further every step and blow up" + fix);
    } else if (m_h * rate > 1.0 / stability::kTauSteps) {
      add(place, StabilitySeverity::Warn,
          subject + " corrects at " + lim(rate) + " 1/s, within fewer than 3 time steps (" + dtText() +
              "): constraints jump together and overshoot instead of being animated" + fix);
    }
  }

  // ---- 2. springs and 3. damping ----------------------------------------------------------

  const BodyDef* body(const std::string& name) const {
    const auto it = m_bodies.find(name);
    return it == m_bodies.end() ? nullptr : &m_s.bodies[size_t(it->second)];
  }

  // World inverse inertia of a body at its initial pose; zero for a fixed body.
  static Mat3 invInertiaWorld(const BodyDef& b) {
    if (b.fixed) return Mat3::Zero();
    const MassProperties mp = massProperties(b);
    return rotateDiagonal(b.orientation.normalized().toRotationMatrix(), mp.inertia.cwiseInverse());
  }

  // A spring end: its world position at t = 0 and its inverse mass matrix K (dv = K f for an
  // impulse f at the point, pointMobility); zero for a nail, a path or a fixed body.
  bool end(const PointRef& r, Vec3& pos, Mat3& K) const {
    K.setZero();
    switch (r.kind) {
      case PointRef::Kind::Nail:
        for (const NailDef& n : m_s.nails)
          if (n.name == r.target) {
            pos = n.position;
            return true;
          }
        return false;
      case PointRef::Kind::Path:
        for (const PathDef& p : m_s.paths)
          if (p.name == r.target) {
            pos = Path(p).sample(0.0).x;
            return true;
          }
        return false;
      case PointRef::Kind::BodyPoint:
      case PointRef::Kind::BodyLocal: {
        const BodyDef* b = body(r.body);
        if (!b) return false;
        Vec3 local = r.local;
        if (r.kind == PointRef::Kind::BodyPoint) {
          const auto p = findPoint(*b, r.point);
          if (!p) return false;
          local = *p;
        }
        const Vec3 arm = b->orientation.normalized() * local;
        pos = b->position + arm;
        if (b->fixed) return true;
        K = pointMobility(1.0 / massProperties(*b).mass, invInertiaWorld(*b), arm);
        return true;
      }
    }
    return false;
  }

  // One oscillator's findings: stiffness k (omega2 = k / m) and damping c (gamma = c / m) of a
  // force on the effective mass m (units: "N/m", "N s/m", "kg" for springs; "N m/rad",
  // "N m s/rad", "kg m^2" for torsion springs).
  struct Units {
    const char* k;
    const char* c;
    const char* m;
    const char* massName;
    const char* where;
    const char* sym;  // "m" or "I"
  };
  std::vector<Finding> checkOscillator(const std::string& subject, double k, double c, double m, const Units& u) const {
    std::vector<Finding> out;
    const double omega2 = k / m, gamma = c / m, omega = std::sqrt(omega2);
    const std::string desc = subject + " (" + num(k) + " " + u.k + (c > 0.0 ? ", damping " + num(c) + " " + u.c : "") +
                             ", on an " + u.massName + " of " + lim(m) + " " + u.m + " " + u.where + ")";
    // fixes that bring it back to 10 steps per period and one e-fold of damping per step
    const double wGood = 2.0 * M_PI / stability::kStepsPerPeriod;
    const std::string kFix = "use a stiffness of at most " + lim(m * (wGood / m_h) * (wGood / m_h)) + " " + u.k +
                             ", or dt <= " + lim(wGood / omega) + " s";
    const std::string cFix = "use a damping of at most " + lim(m * stability::kDampingPerStep / m_h) + " " + u.c +
                             ", or dt <= " + lim(stability::kDampingPerStep / gamma) + " s";
    if (rk45()) {
      const double rate = fastestRate(omega2, gamma);
      if (m_h * rate > stability::kRk45Extreme) {
        const bool stiff = omega >= gamma;
        out.push_back({StabilitySeverity::Warn, stiff ? "stiffness" : "damping",
                       desc + " moves at " + lim(rate) + " 1/s, over " + num(stability::kRk45Extreme) +
                           " times per output interval " + dtText() +
                           ": RK45 stays stable only by shrinking its steps that far, so the run would crawl; " +
                           (stiff ? kFix : cFix)});
      }
      return out;
    }
    // the step a spring actually gets: the fixed-step integrators split a step into substeps
    // that advance the fastest spring's phase by at most kSubstepTurn (Simulation::stepSubdivided;
    // it takes omega from an upper bound of the mobility, so it substeps at least this much)
    const double h = springStep(omega);
    const double growth = stability::growthPerStep(m_int, Treatment::Force, h, omega2, gamma);
    // whose fault: the part that uses up more of the stability budget
    const bool stiff = euler() ? (h * omega) * (h * omega) >= 2.0 * h * gamma : omega >= gamma;
    if (!(growth <= 1.0 + kGrowthTolerance)) {
      std::string limit;
      if (stiff) {
        const double kMax = m * largestStable(
            [&](double w2) { return stability::growthPerStep(m_int, Treatment::Force, h, w2, gamma); }, omega2);
        limit = "a stiffness of at most " + lim(kMax) + " " + u.k;
      } else {
        const double cMax = m * largestStable(
            [&](double g) { return stability::growthPerStep(m_int, Treatment::Force, h, omega2, g); }, gamma);
        limit = "a damping of at most " + lim(cMax) + " " + u.c;
      }
      const std::string cm = std::string("dt c/") + u.sym;
      const std::string rule = euler() ? "(dt omega)^2 + 2 " + cm + " < 4" : "dt omega < 2.83, " + cm + " < 2.79";
      out.push_back({StabilitySeverity::Diverges, stiff ? "stiffness" : "damping",
                     desc + " has dt omega = " + lim(h * omega) + (c > 0.0 ? ", dt c/" + std::string(u.sym) + " = " + lim(h * gamma) : "") + " at " +
                         stepText(h) + ", beyond the limit of " + integratorName(m_int) + " (" + rule + ": " + limit +
                         "): it would overshoot further every step and blow up; " + (stiff ? kFix : cFix)});
      return out;
    }
    if (h * omega > wGood)
      out.push_back({StabilitySeverity::Warn, "stiffness",
                     desc + " oscillates with a period of " + lim(2.0 * M_PI / omega) + " s, fewer than " +
                         num(stability::kStepsPerPeriod) + " time steps (" + stepText(h) +
                         "): poorly resolved, its motion and energy come out wrong; " + kFix});
    if (h * gamma > stability::kDampingPerStep)
      out.push_back({StabilitySeverity::Warn, "damping",
                     desc + " damps within one time step (dt c/" + u.sym + " = " + lim(h * gamma) + " at " + stepText(h) +
                         "): poorly resolved, the damping overshoots; " + cFix});
    return out;
  }

  std::vector<Finding> checkForce(const ForceDef& f, const std::string& prefix = "") const {
    std::vector<Finding> out;
    switch (f.kind) {
      case ForceKind::Spring: {
        if (f.stiffness <= 0.0 && f.damping <= 0.0) break;
        Vec3 pa, pb;
        Mat3 Ka, Kb;
        if (!end(f.a, pa, Ka) || !end(f.b, pb, Kb)) break;
        const Mat3 K = Ka + Kb;
        const Vec3 r = pb - pa;
        double inv;  // 1 / m_eff along the spring, or the worst direction
        if (r.norm() > 1e-9) {
          const Vec3 n = r.normalized();
          inv = n.dot(K * n);
        } else {
          inv = Eigen::SelfAdjointEigenSolver<Mat3>(K, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
        }
        if (!(inv > 0.0)) break;  // both ends immovable
        out = checkOscillator(prefix + "spring \"" + f.name + "\"", f.stiffness, f.damping, 1.0 / inv,
                              {"N/m", "N s/m", "kg", "effective mass", "at its ends", "m"});
        break;
      }
      case ForceKind::TorsionSpring: {
        if (f.stiffness <= 0.0 && f.damping <= 0.0) break;
        const BodyDef *A = body(f.bodyA), *B = body(f.bodyB);
        if (!A || !B) break;
        const Mat3 W = invInertiaWorld(*A) + invInertiaWorld(*B);
        const Vec3 a = A->orientation.normalized() * f.axisA.normalized();
        const Vec3 b = B->orientation.normalized() * f.axisB.normalized();
        double inv;
        if (a.cross(b).norm() > 1e-6) {
          const Vec3 n = a.cross(b).normalized();
          inv = n.dot(W * n);
        } else {  // parallel: the worst axis perpendicular to a
          const Vec3 e1 = a.unitOrthogonal(), e2 = a.cross(e1);
          Eigen::Matrix2d P;
          P << e1.dot(W * e1), e1.dot(W * e2), e2.dot(W * e1), e2.dot(W * e2);
          inv = Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(P, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
        }
        if (!(inv > 0.0)) break;
        out = checkOscillator(prefix + "torsion spring \"" + f.name + "\"", f.stiffness, f.damping, 1.0 / inv,
                              {"N m/rad", "N m s/rad", "kg m^2", "effective moment of inertia", "about its torque axis", "I"});
        break;
      }
      case ForceKind::Damping:
        for (bool angular : {false, true}) {
          const double c = angular ? f.angular : f.linear;
          if (c <= 0.0 || !stability::viscousDampingIsExplicit(m_int, angular)) continue;
          if (auto w = checkViscous(f, c, angular, prefix)) out.push_back(std::move(*w));
        }
        break;
      case ForceKind::ConstantForce:
      case ForceKind::ConstantTorque: break;
    }
    return out;
  }

  // Viscous damping c on the lightest body it acts on (mass, or smallest principal moment).
  std::optional<Finding> checkViscous(const ForceDef& f, double c, bool angular, const std::string& prefix) const {
    double m = 0.0;
    const BodyDef* worst = nullptr;
    auto consider = [&](const BodyDef& b) {
      if (b.fixed) return;
      const MassProperties mp = massProperties(b);
      const double mi = angular ? mp.inertia.minCoeff() : mp.mass;
      if (!worst || mi < m) {
        m = mi;
        worst = &b;
      }
    };
    if (f.bodies.empty())
      for (const BodyDef& b : m_s.bodies) consider(b);
    else
      for (const std::string& n : f.bodies)
        if (const BodyDef* b = body(n)) consider(*b);
    if (!worst || !(m > 0.0)) return std::nullopt;
    const double e = m_h * c / m;
    const char* unit = angular ? "N m s/rad" : "N s/m";
    const std::string what = prefix + "damping \"" + f.name + "\" (" + (angular ? "angular " : "linear ") + num(c) + " " +
                             unit + ") on body \"" + worst->name + "\" (" +
                             (angular ? "smallest moment of inertia " + lim(m) + " kg m^2" : "mass " + lim(m) + " kg") + ")";
    const std::string fix = "; use at most " + lim(stability::kDampingPerStep * m / m_h) + " " + unit + ", or dt <= " +
                            lim(stability::kDampingPerStep * m / c) + " s";
    const std::string field = angular ? "angular" : "linear";
    if (rk45()) {
      if (e > stability::kRk45Extreme)
        return Finding{StabilitySeverity::Warn, field,
                       what + " damps at " + lim(c / m) + " 1/s, over " + num(stability::kRk45Extreme) +
                           " times per output interval " + dtText() + ": RK45 would crawl" + fix};
      return std::nullopt;
    }
    const double limit = euler() ? 2.0 : stability::kRk4RealLimit;
    if (!(stability::growthPerStep(m_int, Treatment::Force, m_h, 0.0, c / m) <= 1.0 + kGrowthTolerance))
      return Finding{StabilitySeverity::Diverges, field,
                     what + " has dt c/" + (angular ? "I" : "m") + " = " + lim(e) + " at " + dtText() +
                         ", beyond the limit " + lim(limit) + " of " + integratorName(m_int) + " (" + lim(limit * m / m_h) +
                         " " + unit + "): the " + (angular ? "spin" : "velocity") +
                         " would flip and grow every step and blow up" + fix};
    if (e > stability::kDampingPerStep)
      return Finding{StabilitySeverity::Warn, field,
                     what + " has dt c/" + (angular ? "I" : "m") + " = " + lim(e) + " at " + dtText() +
                         ": it damps within one time step, poorly resolved" + fix};
    return std::nullopt;
  }

  // ---- drives round a circle -----------------------------------------------------------

  // A point-to-path on a circle path turning at W (rad/s) drives a point that its body's other
  // constraints keep on that circle: a crank pinned or hinged at the centre, the crank of a
  // slider-crank. Only the point's turn about the centre is free, so only the tangential part
  // of the assembling law D'' + 2/tau D' + D/tau^2 = 0 acts on it. With the point phi behind
  // the path's (both on the circle of radius R, the path at angle W t, the point at W t - phi)
  // the tangent t at the point sees t.D = -R sin phi, t.D' = R (W (1 - cos phi) - phi'),
  // t.D'' = R (W^2 sin phi - phi'') (plus phi'^2 terms), so the law on t is
  //   phi'' + 2/tau phi' + (1/tau^2 - W^2) phi = 0   (to first order in phi).
  // The circle's turn is a centrifugal anti-spring W^2: where W > 1/tau, phi = 0 is unstable and
  // the point settles at the other root of the steady law (phi' = phi'' = 0),
  //   sin phi (W^2 - 1/tau^2) = -2 W/tau (1 - cos phi),   tan(phi/2) = (1 - W^2 tau^2) / (2 W tau) < 0:
  // |phi| ahead of the path's point, for good (a crank driven at 20 rad/s with tau = 0.1 s stayed
  // 72.9 degrees ahead of it, measured; the formula says 73.7). Below 1/tau it is overdamped, its roots -1/tau +- W:
  // it assembles at 1/tau - W, not 1/tau (a hinged crank at 7.85 rad/s with tau = 0.1 s took 2.9 s
  // instead of 1.5), so past W = 1/(2 tau) that is said too, and the fix is tau <= 1/(2 W), which
  // closes at W or faster. With Baumgarte's law 1/tau^2 is beta^2. A point
  // with nothing else on its body follows all three rows and assembles at any W. The speed is
  // the fastest the path's clock runs: 1, or a `set speed` event's value.
  void checkDrives() {
    for (size_t i = 0; i < m_s.constraints.size(); ++i) {
      const std::optional<CrankDrive> drive = crankDrive(m_s, i);
      if (!drive) continue;
      const ConstraintDef& c = m_s.constraints[i];
      const auto* d = c.params.get<PointToPathDef>();
      const PathDef* path = drive->path;
      const double w = drive->w, k = drive->k;
      const bool baumgarte = drive->baumgarte;
      const std::string place = baumgarte ? "settings.baumgarte_beta" : "constraints[" + std::to_string(i) + "].tau";
      const std::string what = "constraint \"" + c.name + "\" drives \"" + d->point.body + "\" round the circle path \"" +
                               path->name + "\" at " + lim(w) + " rad/s";
      // the fix rounded the safe way (roundDown3)
      const std::string fix = baumgarte ? "use a beta of at least " + lim(std::ceil(2.0 * w * 100.0) / 100.0) + " 1/s"
                                        : "use a tau of at most " + lim(roundDown3(0.5 / w)) + " s";
      if (w >= k) {
        const double wt = w / k, lag = 2.0 * std::atan((wt * wt - 1.0) / (2.0 * wt));
        add(place, StabilitySeverity::Warn,
            what + ", faster than " + (baumgarte ? "Baumgarte's beta = " + num(k) + " 1/s" : "1/tau = " + lim(k) + " 1/s (tau " + num(1.0 / k) + " s" + (c.tau ? ")" : ", the default)")) +
                ": a point its body's other constraints keep on that circle (a crank) settles " + lim(lag * 180.0 / M_PI) +
                " degrees ahead of the path's point (" + lim(2.0 * path->radius * std::sin(0.5 * lag)) + " m) instead of reaching it; " + fix);
      } else if (!baumgarte && w > 0.5 * k * (1.0 + 1e-3)) {
        // overdamped (the roots of s^2 + 2/tau s + 1/tau^2 - W^2 are -1/tau +- W): it closes at 1/tau - W
        const double rate = k - w;
        add(place, StabilitySeverity::Warn,
            what + ", more than half of 1/tau = " + lim(k) + " 1/s (tau " + num(1.0 / k) + " s" + (c.tau ? "" : ", the default") +
                "): a point its body's other constraints keep on that circle (a crank) closes on the path's point only at "
                "1/tau - " + lim(w) + " = " + lim(rate) + " 1/s, in about " + lim(15.0 / rate) + " s instead of 15 tau = " +
                lim(15.0 / k) + " s; " + fix);
      }
    }
  }

  // ---- a drive past the reach of a chain that holds it ------------------------------------
  // A point driven along a path (point-to-path) whose body hangs from an anchor (a nail, or a point
  // of a fixed body) by a chain of bodies joined at points (point-to-point joints, hinges): body k
  // of the chain is held at two points l_k apart (the driven body: the driven point and its joint
  // towards the anchor). Whatever the links' turns, the vector from the anchor to the driven point
  // is a sum of vectors of lengths l_k, so its length d lies in
  //   [max(0, l_max - (sum l - l_max)), sum l]
  // (the polygon inequality: one side is no longer than the others together), and every d in that
  // interval is reached (the links close any polygon whose longest side is at most the sum of the
  // others). Other constraints on the bodies only take freedoms away, so each chain from the driven
  // point to an anchor bounds d on its own. Where the path takes its point outside, no pose of the
  // links meets every constraint: tau's law pulls the joints apart and the solve, asked for the
  // impossible, spins the links up (corpus #270 as first generated: a 2-rod bar of 0.313 and 0.249
  // m from a nail, driven round a circle that passes 0.029 m from it, blew up 0.33 s into the run
  // with rk4 and at 2.5 s with euler, and nothing said why). The path's point is followed on its
  // clock (its `set speed` events) while the drive is on (its enable, disable and remove events): a
  // line or a spline over the scene's duration, a circle up to one turn after its last change of
  // speed (it repeats); chains through a body or joint that events create, remove or switch are
  // left out. Said: the first time the point leaves the reach, and how far it goes; else a chain
  // that starts straight while the drive pulls along it, or a path that takes the chain to the edge
  // of its reach (both dead points, below).
  // When a drive runs, on its path's clock: from its start (or its first enable event) to its
  // first disable or removal; a line or a spline over the scene's duration, a circle up to one
  // turn after its path's last change of speed or the drive's start, which covers every place it
  // will ever be (or to where it stops).
  struct DriveSpan {
    double on = 0.0, until = 0.0;
    std::vector<std::pair<double, double>> speeds;  // the path's `set speed` events: (t, speed from t on)
    int samples = 0;  // 400 a turn of a circle, 50 a spline's segment, at least 4 000, at most 100 000
    double clockAt(double t) const {  // the path's local time at t
      double tau = 0.0, from = 0.0, speed = 1.0;
      for (const auto& [te, s] : speeds) {
        if (te >= t) break;
        tau += speed * (te - from);
        from = te;
        speed = s;
      }
      return tau + speed * (t - from);
    }
  };
  std::optional<DriveSpan> driveSpan(const ConstraintDef& drive, const PathDef& path) const {
    DriveSpan out;
    double on = drive.enabled ? 0.0 : -1.0, off = std::numeric_limits<double>::infinity();
    std::vector<const EventDef*> own;
    for (const EventDef& e : m_s.events)
      if (e.target == drive.name) own.push_back(&e);
    std::stable_sort(own.begin(), own.end(), [](const EventDef* a, const EventDef* b) { return a->time < b->time; });
    for (const EventDef* e : own) {
      if (on < 0.0 && e->action == EventAction::Enable) on = e->time;
      else if (on >= 0.0 && (e->action == EventAction::Disable || e->action == EventAction::Remove)) {
        off = e->time;
        break;
      }
    }
    if (on < 0.0) return std::nullopt;
    for (const EventDef& e : m_s.events)
      if (e.action == EventAction::Set && e.target == path.name && e.param == "speed" && !e.value.empty())
        out.speeds.emplace_back(e.time, std::max(0.0, e.value[0]));
    std::stable_sort(out.speeds.begin(), out.speeds.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const double lastChange = out.speeds.empty() ? 0.0 : out.speeds.back().first;
    const double finalSpeed = out.speeds.empty() ? 1.0 : out.speeds.back().second;
    double until = std::max(m_st.duration, lastChange);
    if (path.kind == PathKind::Circle)
      until = std::max(on, lastChange) + (finalSpeed > 0.0 ? std::abs(path.period) / finalSpeed : 0.0);
    until = std::min(until, off);
    if (!(until > on)) return std::nullopt;
    out.on = on;
    out.until = until;
    const double travel = out.clockAt(until) - out.clockAt(on);
    double samples = 4000.0;
    if (path.kind == PathKind::Circle) samples = std::max(samples, 400.0 * travel / std::abs(path.period));
    if (path.kind == PathKind::Spline && path.keyframes.size() > 1) {
      const double keys = path.keyframes.back().t - path.keyframes.front().t;
      if (keys > 0.0) samples = std::max(samples, 50.0 * double(path.keyframes.size()) * travel / keys);
    }
    out.samples = int(std::min(samples, 100000.0));
    return out;
  }
  // Where a chain is held to the world: a point (a nail, a point of a fixed body), or every point
  // of a plane or a line (a point-on-plane, a point-on-line: the world's plane and line).
  struct Anchor {
    enum class Kind { Point, Plane, Line };
    Kind kind = Kind::Point;
    Vec3 at = Vec3::Zero();   // world: the point, or the plane's or line's origin
    Vec3 dir = Vec3::UnitZ(); // unit: the plane's normal, the line's direction
    std::string name;         // in words: nail "n", fixed body "b", the plane of "c"
    std::string from;         // the nail, that point of "b", that plane
    bool isPoint() const { return kind == Kind::Point; }
    // the distance of x from its nearest point of the anchor
    double distance(const Vec3& x) const {
      const Vec3 r = x - at;
      if (kind == Kind::Plane) return std::abs(dir.dot(r));
      if (kind == Kind::Line) return (r - dir * dir.dot(r)).norm();
      return r.norm();
    }
    // the least distance between a point of this anchor and one of `o` (planes and lines that are
    // not parallel meet, at 0; skew lines are apart along their common normal d1 x d2)
    double distance(const Anchor& o) const {
      if (isPoint()) return o.distance(at);
      if (o.isPoint()) return distance(o.at);
      const Anchor& a = kind == Kind::Plane ? *this : o;  // (a plane first, if either is one)
      const Anchor& b = kind == Kind::Plane ? o : *this;
      const double across = a.dir.cross(b.dir).norm();
      constexpr double kParallel = 1e-9;
      if (a.kind == Kind::Plane && b.kind == Kind::Plane) return across < kParallel ? a.distance(b.at) : 0.0;
      if (a.kind == Kind::Plane) return std::abs(a.dir.dot(b.dir)) < kParallel ? a.distance(b.at) : 0.0;  // a line
      if (across < kParallel) return a.distance(b.at);
      return std::abs((b.at - a.at).dot(a.dir.cross(b.dir))) / across;
    }
  };
  struct Chain {
    Anchor anchor;
    std::vector<std::string> bodies;  // from the driven body to the anchor's, in words: "b", distance "c"
    std::vector<double> lengths;      // each body's span between its two held points, each distance's length
    std::vector<Vec3> points;         // at the initial poses: each link's two held points, in that order
    std::vector<std::string> names;   // the moving bodies' names
    size_t links() const { return bodies.size(); }
    bool later = false;  // through a constraint an event switches on later (its pose then is not known)
  };
  // A constraint of `body` as a link of a chain: the body's point it holds (`here`), and either
  // the other body's point it joins that to (`there`), or the anchor it holds it to; `length`:
  // a distance constraint's (a link of its own between the two points), else 0.
  struct Link {
    Held here;
    std::optional<Held> there;  // a moving body's point: the chain goes on from it
    Anchor anchor;              // else where the chain ends
    double length = 0.0;
    std::string name;           // the distance's, in words
  };
  std::optional<Link> linkOf(const ConstraintDef& c, const BodyDef& body, const std::set<std::string>& switched) const {
    auto held = [&](const PointRef& r) -> std::optional<Held> {
      std::optional<Held> h = heldPoint(r, true);
      return h && h->body == &body ? h : std::nullopt;
    };
    auto nailAt = [&](const std::string& name) -> std::optional<Anchor> {
      const auto nail = std::find_if(m_s.nails.begin(), m_s.nails.end(), [&](const NailDef& x) { return x.name == name; });
      if (nail == m_s.nails.end()) return std::nullopt;
      return Anchor{Anchor::Kind::Point, nail->position, Vec3::UnitZ(), "nail \"" + nail->name + "\"", "the nail"};
    };
    if (const auto* n = c.params.get<PointToNailDef>()) {
      const std::optional<Held> here = held(n->point);
      const std::optional<Anchor> nail = nailAt(n->nail);
      if (!here || !nail) return std::nullopt;
      return Link{*here, std::nullopt, *nail, 0.0, {}};
    }
    if (const auto* p = c.params.get<PointOnPlaneDef>()) {
      const std::optional<Held> here = held(p->point);
      if (!here || !(p->normal.norm() > 0.0)) return std::nullopt;
      return Link{*here, std::nullopt,
                  {Anchor::Kind::Plane, p->origin, p->normal.normalized(), "the plane of \"" + c.name + "\"", "that plane"}, 0.0, {}};
    }
    if (const auto* l = c.params.get<PointOnLineDef>()) {
      const std::optional<Held> here = held(l->point);
      if (!here || !(l->direction.norm() > 0.0)) return std::nullopt;
      return Link{*here, std::nullopt,
                  {Anchor::Kind::Line, l->origin, l->direction.normalized(), "the line of \"" + c.name + "\"", "that line"}, 0.0, {}};
    }
    const PointRef *a = nullptr, *b = nullptr;
    double length = 0.0;
    if (const auto* p = c.params.get<PointToPointDef>()) a = &p->a, b = &p->b;
    else if (const auto* h = c.params.get<HingeDef>()) a = &h->a, b = &h->b;
    else if (const auto* d = c.params.get<DistanceDef>()) a = &d->a, b = &d->b, length = std::abs(d->length);
    if (!a) return std::nullopt;
    Link link;
    link.length = length;
    if (length > 0.0) link.name = "distance \"" + c.name + "\"";
    std::optional<Held> here = held(*a);
    const PointRef* other = b;
    if (!here) {
      here = held(*b);
      other = a;
    }
    if (!here) return std::nullopt;
    link.here = *here;
    if (other->kind == PointRef::Kind::Nail) {
      const std::optional<Anchor> nail = nailAt(other->target);
      if (!nail) return std::nullopt;
      link.anchor = *nail;
      return link;
    }
    const std::optional<Held> there = heldPoint(*other, true);
    if (!there || there->body == &body || switched.count(there->body->name)) return std::nullopt;
    if (there->body->fixed)
      link.anchor = {Anchor::Kind::Point, there->world(), Vec3::UnitZ(), "fixed body \"" + there->body->name + "\"",
                     "that point of \"" + there->body->name + "\""};
    else
      link.there = there;
    return link;
  }
  using Uses = std::unordered_map<std::string, std::vector<size_t>>;
  // each body's constraints (indexed: the chains are walked body by body)
  Uses constraintUses() const {
    Uses uses;
    for (size_t j = 0; j < m_s.constraints.size(); ++j) {
      const ConstraintDef& c = m_s.constraints[j];
      for (const ConstraintField& f : c.type().fields) {
        const std::string* body = nullptr;
        if (f.isPoint() && (f.point(c).kind == PointRef::Kind::BodyPoint || f.point(c).kind == PointRef::Kind::BodyLocal))
          body = &f.point(c).body;
        else if (f.kind == ConstraintField::Kind::Body)
          body = &f.name(c);
        if (!body) continue;
        std::vector<size_t>& list = uses[*body];
        if (list.empty() || list.back() != j) list.push_back(j);
      }
    }
    return uses;
  }
  // bodies and constraints that events create, remove or switch
  std::set<std::string> switchedNames() const {
    std::set<std::string> switched;
    for (const EventDef& e : m_s.events)
      if (e.action != EventAction::Set) switched.insert(e.target);
    return switched;
  }
  // constraints off at the start that events only switch on (never off, nor remove): from then
  // on they hold as if on from the start, so a chain through them must reach then too
  std::set<std::string> enabledLaterNames() const {
    std::set<std::string> later, other;
    for (const EventDef& e : m_s.events)
      if (e.action == EventAction::Enable) later.insert(e.target);
      else if (e.action != EventAction::Set) other.insert(e.target);
    std::set<std::string> out;
    for (const ConstraintDef& c : m_s.constraints)
      if (!c.enabled && later.count(c.name) && !other.count(c.name)) out.insert(c.name);
    return out;
  }
  bool holds(const ConstraintDef& c, const std::set<std::string>& switched) const {
    return (c.enabled || m_enabledLater.count(c.name)) && !switched.count(c.name);
  }
  // Chains between two anchors (nails, points of fixed bodies, the planes of point-on-plane and
  // the lines of point-on-line constraints), walked from each anchor through point-to-point joints,
  // hinges and distances. Two things are said of one:
  // - Out of reach: the links span |2 longest - sum| to sum between their held points, and no pose
  //   meets anchors further apart or nearer (a helper's 4 links of 0.5 m between nails 2.3 m apart;
  //   a rod on a plane hung by a distance of 0.6 m from a nail 0.65 m beyond its reach). Assembling
  //   pulls the chain straight against its reach, where the pull grows without bound: both blew up
  //   within 2.5 s with every integrator and solver, `check` silent. A plane or a line holds its end
  //   anywhere on it, so only its least distance from the other anchor can be out of reach (the
  //   links then stand straight along its normal: a dead point as between two nails). (Not said of
  //   one body between two points, which has no straight pose to pull into: the conflict analysis
  //   names it, and it rests, held by the anchor it met first. One rod between a nail and a plane
  //   beyond its reach does stand straight: it blew up within 0.07 s. The held points as the scene
  //   places them: out by less than the projection tolerance is held as if met, see checkReach.)
  // - Drawn straight between two points, its held points all on the line between them: to first
  //   order its links can move only across that line, and neither can take a load across it, so
  //   its solve starts singular. Stretched to its whole reach, gravity across the line asks for an
  //   infinite tension; longer than the span (drawn with gaps, to assemble), every pull that closes
  //   a joint is along the line and meets nothing that bends the chain. Eight steel rods drawn
  //   straight between two nails blew up within 3 ms either way (found by a helper building models
  //   as a user would); bent by 1 cm, or laid 10 cm below the nails, the same chains assembled and
  //   swung 600 s.
  void checkStraightChains() {
    const Uses uses = constraintUses();
    // (a constraint an event only switches on counts as on: e.g. the plane a rod is to slide on,
    // switched on at 1 s beyond the rod's reach, blew up at 1.08 s with `check` silent)
    m_enabledLater = enabledLaterNames();
    std::set<std::string> switched = switchedNames();
    for (const std::string& n : m_enabledLater) switched.erase(n);
    std::set<std::set<std::string>> said;  // each chain once (it is found from both its ends)
    std::vector<std::pair<size_t, const BodyDef*>> starts;  // (in the constraints' order: the first names the place)
    for (const auto& [name, list] : uses) {
      const BodyDef* b = body(name);
      if (!b || b->fixed || switched.count(name)) continue;
      for (size_t i : list) starts.emplace_back(i, b);
    }
    std::sort(starts.begin(), starts.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first < y.first : x.second->name < y.second->name;
    });
    for (const auto& [i, b] : starts) {
      const ConstraintDef& c = m_s.constraints[i];
      if (!holds(c, switched)) continue;
      const std::optional<Link> start = linkOf(c, *b, switched);
      if (!start || start->there) continue;
      for (Chain chain : chainsFrom(start->here, i, uses, switched)) {
        if (start->length > 0.0) {  // (the start's distance, a link of its own: the chain's first)
          chain.bodies.insert(chain.bodies.begin(), start->name);
          chain.lengths.insert(chain.lengths.begin(), start->length);
          chain.points.insert(chain.points.begin(), {start->anchor.at, start->here.world()});
        }
        chain.later = chain.later || m_enabledLater.count(c.name);
        checkChain(i, start->anchor, chain, said);
      }
    }
    m_enabledLater.clear();
  }
  // lengths written with the digits that tell the span from the reach `bound` (1.2004 is not 1.2)
  static std::function<std::string(double)> apartDigits(double span, double bound, double sum) {
    const double tiny = 1e-9 * std::max(1.0, sum);
    int digits = 3;
    while (digits < 9 && fmt(span, digits, tiny) == fmt(bound, digits, tiny)) ++digits;
    return [digits, tiny](double v) { return fmt(v, digits, tiny); };
  }
  void checkChain(size_t i, const Anchor& from, const Chain& chain, std::set<std::set<std::string>>& said) {
    const Anchor& to = chain.anchor;
    const bool points = from.isPoint() && to.isPoint();
    const double span = from.distance(to);
    double sum = 0.0, longest = 0.0, off = 0.0;
    for (double l : chain.lengths) {
      sum += l;
      longest = std::max(longest, l);
    }
    std::set<std::string> key(chain.bodies.begin(), chain.bodies.end());
    key.insert(from.name);
    key.insert(to.name);
    const std::string words = "the chain " + to.name + linksOf(chain) + " -> " + from.name;
    const double slack = std::max(1e-9 * std::max(1.0, sum), m_st.projectionTolerance);
    // (a plane or a line also has points further away than any: only its least distance is bounded)
    const double lo = points ? std::max(0.0, 2.0 * longest - sum) : 0.0;
    if ((chain.links() >= 2 || !points) && (span > sum + slack || span < lo - slack)) {
      if (!said.insert(key).second) return;
      const bool far = span > sum;
      const auto len = apartDigits(span, far ? sum : lo, sum);
      const std::string apart = "they are " + len(span) + (points ? " m apart" : " m apart where nearest");
      addGeometric("constraints[" + std::to_string(i) + "]", StabilitySeverity::Warn,
          words + " cannot reach between its anchors: " + apart + ", and its links hold its ends " +
              (lo == sum ? "exactly " + len(sum) + " m" : (points ? len(lo) + " to " : "at most ") + len(sum) + " m") +
              " apart: no pose meets them all, so assembling it pulls the links " + (far ? "straight" : "together") +
              " against that limit, where the pull grows without bound and the model can blow up; move " +
              (points ? std::string("the anchors ") : from.name + " and " + to.name + " ") + lim(far ? span - sum : lo - span) + " m " + (far ? "closer" : "further apart") + ", or change the links", chain.names);
      return;
    }
    if (points && chain.links() >= 2 && span > 0.0 && !chain.later) {  // (drawn: the pose at t = 0)
      const Vec3 a = from.at, u = (to.at - a) / span;
      for (const Vec3& x : chain.points) off = std::max(off, (x - a - u * u.dot(x - a)).norm());
      if (off <= 1e-9 * std::max(1.0, sum)) {
        if (!said.insert(key).second) return;
        // (what follows, measured: a helper's five 0.4 m rods drawn straight between nails 2 m
        // apart held 4 s before they blew up, the same rods between nails 1.99 m apart 1 ms)
        const bool whole = span >= sum - slack;
        addGeometric("constraints[" + std::to_string(i) + "]", StabilitySeverity::Warn,
            words + " is drawn straight between its anchors (" + lim(sum) + " m of links, " + lim(span) +
                " m apart): along one line its links cannot move across it, so the solve that holds it is singular; " +
                (whole ? "stretched to its whole reach, it meets gravity across the line with a pull that grows "
                         "without bound, and it blows up, at once or within seconds; move the anchors at least " +
                         lim(kNearReachSlack * sum) + " m (1 % of its links) closer and draw the links sagging between "
                         "them (moved closer but still drawn straight, it blows up at once)"
                       : "every pull that assembles it is along the line and nothing bends the chain, so it blows up "
                         "within its first steps; draw the links bent by a few degrees, or the chain below its anchors"),
            chain.names);
        return;
      }
    }
    checkNearReach(i, from, chain, span, sum, lo, words, key, said);
  }
  // Within reach, but with less than kNearReachSlack of its reach to spare (or as little beyond
  // its folded limit): every pose of the chain is all but straight (folded), its links can hardly
  // move across the line between its ends, and the pull that keeps them there grows as 1/slack
  // with the motion along it (the tension of a string pulled taut: its sideways speed squared
  // over the room it has). Measured at the default settings (session 57, chains of 0.4 m rods of
  // radius 0.02 m drawn zig-zag and assembled): five between two nails 1 mm short of their 2 m
  // reach blew up at 3.2 s, 5 mm short gained 10 times its energy in a minute; five from a nail
  // to a plane blew up at 1.2 s 2 mm short, at 7 s 5 mm short, lost 17 % of their energy in a
  // minute 10 mm short, and kept it within 2 % 20 mm (1 %) short, as did two rods 1 mm short.
  // Anchors exactly at the reach (a chain snapped to a grid: five 0.4 m rods from a nail 2 m
  // above a floor) blew up in 0.8 s. Two links fare better (two 1 m rods between nails 1 mm short
  // swung a minute within 1e-4 of their energy; exactly at reach, they blew up at 46 s), but
  // what is said is what their room allows, not that they blow up.
  static constexpr double kNearReachSlack = 0.01;
  void checkNearReach(size_t i, const Anchor& from, const Chain& chain, double span, double sum, double lo,
                      const std::string& words, const std::set<std::string>& key, std::set<std::set<std::string>>& said) {
    const Anchor& to = chain.anchor;
    const bool points = from.isPoint() && to.isPoint();
    if (!(chain.links() >= 2 || !points) || !(sum > 0.0)) return;
    const double room = kNearReachSlack * sum;
    const bool straight = span > sum - room, folded = points && lo > 0.0 && span < lo + room;
    if (!straight && !folded) return;
    m_taut.insert(chain.names.begin(), chain.names.end());
    if (!said.insert(key).second) return;
    const double spare = straight ? sum - span : span - lo;
    const std::string ends = points ? std::string("the anchors ") : from.name + " and " + to.name + " ";
    const auto len = apartDigits(span, straight ? sum : lo, sum);
    addGeometric("constraints[" + std::to_string(i) + "]", StabilitySeverity::Warn,
        words + " is all but " + (straight ? "straight" : "folded") + " between its anchors: they are " + len(span) +
            (points ? " m apart" : " m apart where nearest") + ", and its links hold its ends " +
            (straight ? "at most " + len(sum) : "at least " + len(lo)) + " m apart, " +
            (spare > 1e-9 * sum ? lim(spare) + " m (" + lim(100.0 * spare / sum) + " % of its links)" : std::string("nothing")) +
            " to spare: every pose is that " + (straight ? "straight" : "folded") +
            ", its links can hardly move across it, and the pull holding them grows steeply as they move along it, so "
            "a lively motion can blow up; leave at least 1 % of its links to spare: move " + ends + lim(room - spare) +
            " m " + (straight ? "closer" : "further apart") + ", or change the links", chain.names);
  }
  void checkReach() {
    if (std::none_of(m_s.constraints.begin(), m_s.constraints.end(),
                     [](const ConstraintDef& c) { return c.params.get<PointToPathDef>() != nullptr; }))
      return;
    const Uses uses = constraintUses();
    const std::set<std::string> switched = switchedNames();
    for (size_t i = 0; i < m_s.constraints.size(); ++i) {
      const ConstraintDef& drive = m_s.constraints[i];
      const auto* d = drive.params.get<PointToPathDef>();
      if (!d) continue;
      const auto path = std::find_if(m_s.paths.begin(), m_s.paths.end(), [&](const PathDef& p) { return p.name == d->path; });
      const std::optional<Held> end = heldPoint(d->point, true);
      if (path == m_s.paths.end() || !end || end->body->fixed || switched.count(end->body->name)) continue;
      const std::vector<Chain> chains = chainsFrom(*end, i, uses, switched);
      if (chains.empty()) continue;
      const std::optional<DriveSpan> span = driveSpan(drive, *path);
      if (!span) continue;
      const double on = span->on, until = span->until;
      const int n = span->samples;
      auto clockAt = [&](double t) { return span->clockAt(t); };
      const Path sampler(*path);
      struct Miss {
        const Chain* chain = nullptr;
        double first = 0.0, lo = 0.0, hi = 0.0, worstOut = 0.0, worstD = 0.0;
      };
      std::optional<Miss> said, toggle;  // (toggle: worstOut is how far past the edge, worstD the distance)
      bool deadSaid = false;
      for (const Chain& chain : chains) {
        double sum = 0.0, longest = 0.0;
        for (double l : chain.lengths) {
          sum += l;
          longest = std::max(longest, l);
        }
        // (out by less than the projection tolerance is held as if met: a crank whose circle is
        // 5e-8 m wider than its link ran with its joints 2.5e-8 m apart)
        const double slack = std::max(1e-9 * std::max(1.0, sum), m_st.projectionTolerance);
        // (a plane or a line holds the chain's end anywhere on it: only its near side bounds the reach)
        const bool twoSided = chain.anchor.isPoint() && 2.0 * longest - sum > slack;
        Miss m{&chain, -1.0, twoSided ? 2.0 * longest - sum : 0.0, sum, 0.0, 0.0};
        auto distAt = [&](double t) { return chain.anchor.distance(sampler.sample(clockAt(t)).x); };  // from the anchor
        // A dead point at the start: the chain straight (its distance at an end of the reach, which
        // takes every link along one line) while the drive, assembling, pulls its point along that
        // line. To first order the links can move the point only across the line, so the pull
        // meets a singular solve, and the first step's rounding bends the chain by ~1e-16 with a
        // force that grows as 1/bend: a box and a ball hung straight from a nail, driven 5 cm
        // inwards, spun at 8e9 rad/s within 2 ms (euler and rk4 alike); bent by 1e-5 m, the same
        // model assembled and held its joints to 1e-10 m.
        const long segments = std::count_if(chain.lengths.begin(), chain.lengths.end(), [&](double l) { return l > slack; });
        if (on == 0.0 && !deadSaid && segments > 1) {  // (one link keeps one distance: the reach check's)
          const Vec3 at = end->world();
          const double now = chain.anchor.distance(at);
          const double want = distAt(0.0);
          const bool reachable = want >= m.lo - slack && want <= m.hi + slack;
          if (reachable && std::abs(now - m.hi) <= 1e-9 * std::max(1.0, sum) && want < now - slack) {
            deadSaid = true;
            addGeometric("constraints[" + std::to_string(i) + "].path", StabilitySeverity::Warn,
                "constraint \"" + drive.name + "\" pulls a point of \"" + end->body->name + "\" " + lim(now - want) +
                    " m nearer " + chain.anchor.name + " (to " + lim(want) + " m from " + chain.anchor.from +
                    ", where path \"" + path->name + "\" starts), but the chain that holds it, " + chain.anchor.name +
                    linksOf(chain) + ", starts straight, stretched to its whole reach (" + lim(now) +
                    " m): at that dead point its links cannot move the point along their line, so the drive can stay "
                    "open, or the pull that assembles it blows up within a few steps (euler); start the links bent "
                    "by a few degrees, or the point on the path");
          }
        }
        auto outAt = [&](double t) {  // how far out of reach (< 0: inside)
          const double d = distAt(t);
          return std::max(m.lo - d, d - m.hi);
        };
        // how near an edge where the links stand straight (a dead point): the far one, and the near
        // one where it is not 0 (three links and more can fold to 0 without standing straight)
        auto edgeAt = [&](double t) {
          const double d = distAt(t);
          return std::max(m.lo > slack ? m.lo - d : -std::numeric_limits<double>::infinity(), d - m.hi);
        };
        double before = on;  // the last sample within the edge
        std::vector<double> edges;  // edgeAt at the samples, while within reach
        for (int k = 0; k <= n; ++k) {
          const double t = on + (until - on) * k / n;
          const double dist = distAt(t), out = std::max(m.lo - dist, dist - m.hi);
          if (!(out > 0.0) && m.first < 0.0) before = t;
          if (!(out > slack)) {
            if (segments > 1 && m.first < 0.0) edges.push_back(edgeAt(t));
            continue;
          }
          if (m.first < 0.0) {  // where it crosses the edge, by bisection between the samples
            double a = before, b = t;
            for (int it = 0; it < 60 && k > 0 && b - a > 1e-12 * std::max(1.0, b); ++it) {
              const double mid = 0.5 * (a + b);
              (outAt(mid) > 0.0 ? b : a) = mid;
            }
            m.first = std::round(b * 1e6) / 1e6;  // (to the microsecond: 1e-13 s is 0 to the user)
          }
          if (out > m.worstOut) {
            m.worstOut = out;
            m.worstD = dist;
          }
        }
        if (m.first >= 0.0 && (!said || m.first < said->first)) said = m;
        // A toggle: the path takes the point to the edge of the reach, where the links stand
        // straight, nearer than the joints themselves are held (twice the projection tolerance): a
        // 2-rod bar of 1 and 0.6 m driven round a circle that touches both edges diverged at 8.0 s
        // with euler and 12.0 s with rk4, and one 1e-7 m inside with euler at 4 s; 5e-7 m, 1e-6 m and
        // 1e-5 m inside ran 30 s with both. The first sample that near, or the first local maximum
        // that comes that near refined by golden sections (the distance is smooth there: a circle
        // touching the edge between two samples is 7e-5 m off it at them).
        const double near = std::max(2.0 * m_st.projectionTolerance, 1e-9 * std::max(1.0, sum));
        if (m.first < 0.0 && !deadSaid && !edges.empty()) {
          const int last = int(edges.size()) - 1;
          auto timeOf = [&](int k) { return on + (until - on) * k / n; };
          for (int k = 0; k <= last; ++k) {
            double t = timeOf(k), edge = edges[size_t(k)];
            // (a strict peak, within 1e-3 of the reach of the edge: refining gains only the samples' miss)
            const bool peak = k > 0 && k < last && edge >= edges[size_t(k) - 1] && edge >= edges[size_t(k) + 1] &&
                              (edge > edges[size_t(k) - 1] || edge > edges[size_t(k) + 1]) && edge > -1e-3 * std::max(1.0, sum);
            if (!(edge > -near) && peak) {
              double a = timeOf(k - 1), b = timeOf(k + 1);
              constexpr double g = 0.6180339887498949;
              for (int it = 0; it < 80 && b - a > 1e-12 * std::max(1.0, b); ++it) {
                const double c = b - g * (b - a), e = a + g * (b - a);
                if (edgeAt(c) > edgeAt(e)) b = e;  // (the largest in [a, e])
                else a = c;
              }
              t = 0.5 * (a + b);
              edge = edgeAt(t);
            }
            if (edge > -near) {
              if (!toggle || t < toggle->first)
                toggle = Miss{&chain, std::round(t * 1e6) / 1e6, m.lo, m.hi, edge, distAt(t)};  // (as m.first)
              break;
            }
          }
        }
      }
      if (!said && toggle && !deadSaid) {
        const Chain& chain = *toggle->chain;
        addGeometric("constraints[" + std::to_string(i) + "].path", StabilitySeverity::Warn,
            "constraint \"" + drive.name + "\" drives a point of \"" + end->body->name + "\" along path \"" + path->name +
                "\" to the edge of the reach of the chain that holds it at t = " + lim(toggle->first) +
                " s (" + lim(toggle->worstD) + " m from " + chain.anchor.name + "; the chain, " + chain.anchor.name +
                linksOf(chain) + ", reaches " + lim(toggle->lo) + " to " + lim(toggle->hi) + " m), where its links stand "
                "straight: at that dead point the pull that keeps the point on the path grows without bound, and the "
                "model can blow up; keep the path inside the reach (a millimetre will do), and the links off one line "
                "where it starts");
      }
      if (!said) continue;
      const Chain& chain = *said->chain;
      const std::string links = linksOf(chain);
      // the distance and the reach with the digits that tell them apart (1.605 is not 1.6)
      const double bound = said->worstD < said->lo ? said->lo : said->hi;
      const double tiny = 1e-9 * std::max(1.0, said->hi);
      int digits = 3;
      while (digits < 9 && fmt(said->worstD, digits, tiny) == fmt(bound, digits, tiny)) ++digits;
      const std::string reach = said->lo == said->hi ? "reaches exactly " + fmt(said->hi, digits, tiny) + " m"
                                                     : "reaches only " + fmt(said->lo, digits, tiny) + " to " +
                                                           fmt(said->hi, digits, tiny) + " m";
      addGeometric("constraints[" + std::to_string(i) + "].path", StabilitySeverity::Warn,
          "constraint \"" + drive.name + "\" drives a point of \"" + end->body->name + "\" along path \"" + path->name +
              "\" out of reach at t = " + lim(said->first) + " s, as " + (said->worstD < said->lo ? "near" : "far") +
              " as " + fmt(said->worstD, digits, tiny) + " m from " + chain.anchor.name + ", but the chain that holds it there, " +
              chain.anchor.name + links +
              ", " + reach + " from " + chain.anchor.from + ": no pose of its links meets the drive there, so a joint is torn open and the "
              "model can blow up; move the path or the anchor, or change the links' lengths");
    }
  }
  // " -> \"b1\" -> \"b2\"...": a chain's bodies from its anchor (a long one by its ends)
  static std::string linksOf(const Chain& chain) {
    std::string links;
    const size_t nb = chain.bodies.size();
    for (size_t k = 0; k < nb; ++k) {
      if (nb > 6 && k == 3) {
        links += " -> ... (" + std::to_string(nb - 6) + " more)";
        k = nb - 3;
      }
      links += " -> " + chain.bodies[nb - 1 - k];
    }
    return links;
  }
  // v with `digits` significant digits (0 below tiny)
  static std::string fmt(double v, int digits, double tiny) {
    if (std::abs(v) < tiny) return "0";
    char b[64];
    std::snprintf(b, sizeof b, "%.*g", digits, v);
    return b;
  }
  // The chains from the held point `end` of constraint j to an anchor (below).
  std::vector<Chain> chainsFrom(const Held& end, size_t j, const Uses& uses, const std::set<std::string>& switched) const {
    std::vector<Chain> chains;
    Chain cur;
    std::set<size_t> joints{j};
    std::set<const BodyDef*> bodies;
    int budget = 20000;
    chainsFrom(end, uses, switched, cur, joints, bodies, chains, budget);
    return chains;
  }
  // The chains from the held point `end` (reached by the joints in `joints`) to an anchor, each
  // body once, in depth first order; at most 16 chains and `budget` steps.
  void chainsFrom(const Held& end, const Uses& uses, const std::set<std::string>& switched, Chain& cur,
                  std::set<size_t>& joints, std::set<const BodyDef*>& bodies, std::vector<Chain>& out, int& budget) const {
    const BodyDef& body = *end.body;
    if (--budget < 0 || out.size() >= 16 || bodies.count(&body) || cur.bodies.size() >= 1000) return;
    const auto on = uses.find(body.name);
    if (on == uses.end()) return;
    bodies.insert(&body);
    cur.bodies.push_back("\"" + body.name + "\"");
    cur.names.push_back(body.name);
    for (size_t j : on->second) {
      const ConstraintDef& c = m_s.constraints[j];
      if (joints.count(j) || !holds(c, switched)) continue;
      const std::optional<Link> link = linkOf(c, body, switched);
      if (!link) continue;
      const bool wasLater = cur.later;
      cur.later = cur.later || m_enabledLater.count(c.name);
      cur.lengths.push_back((link->here.local - end.local).norm());
      cur.points.push_back(end.world());
      cur.points.push_back(link->here.world());
      const bool ends = !link->there;
      const Vec3 far = ends ? link->anchor.at : link->there->world();
      if (link->length > 0.0) {  // (a distance: a link of its own, to the anchor's point or the next body's)
        cur.bodies.push_back(link->name);
        cur.lengths.push_back(link->length);
        cur.points.push_back(link->here.world());
        cur.points.push_back(far);
      }
      if (ends) {  // an anchor: a chain
        Chain chain = cur;
        chain.anchor = link->anchor;
        out.push_back(std::move(chain));
      } else {
        joints.insert(j);
        chainsFrom(*link->there, uses, switched, cur, joints, bodies, out, budget);
        joints.erase(j);
      }
      if (link->length > 0.0) {
        cur.bodies.pop_back();
        cur.lengths.pop_back();
        cur.points.resize(cur.points.size() - 2);
      }
      cur.lengths.pop_back();
      cur.points.resize(cur.points.size() - 2);
      cur.later = wasLater;
    }
    cur.bodies.pop_back();
    cur.names.pop_back();
    bodies.erase(&body);
  }

  // ---- events that set a checked parameter -----------------------------------------------

  void checkEvents() {
    for (size_t i = 0; i < m_s.events.size(); ++i) {
      const EventDef& e = m_s.events[i];
      if (e.action != EventAction::Set || e.value.empty()) continue;
      const std::string place = "events[" + std::to_string(i) + "].value";
      const std::string when = "set at t = " + num(e.time) + " s: ";
      const double v = e.value[0];
      for (const ConstraintDef& c : m_s.constraints) {
        if (c.name != e.target || e.param != "tau" || m_st.stabilization != StabilizationKind::Tau) continue;
        for (Finding& f : checkTau(v, when + "tau " + num(v) + " s of constraint \"" + c.name + "\""))
          add(place, f.severity, std::move(f.text));
      }
      for (const ForceDef& fd : m_s.forces) {
        if (fd.name != e.target) continue;
        ForceDef g = fd;
        if (e.param == "stiffness") g.stiffness = v;
        else if (e.param == "damping") g.damping = v;
        else if (e.param == "linear") g.linear = v;
        else if (e.param == "angular") g.angular = v;
        else continue;
        // what the event adds to the force's own findings
        std::set<std::pair<std::string, StabilitySeverity>> own;
        for (const Finding& f : checkForce(fd)) own.emplace(f.field, f.severity);
        for (Finding& f : checkForce(g, when))
          if (!own.count({f.field, f.severity})) add(place, f.severity, std::move(f.text));
      }
    }
  }

  // A nail too near a plane (the floor) with contacts on, holding a body that collides: the
  // held point lies d deep inside its body (0 on its surface; core/collision.h, pinDepth), so a
  // nail at height z above the plane (< 0 under its surface) keeps the body in the plane in every
  // pose where z < d: at a surface point the contact there cannot hold and is left out of every
  // step; deeper, the overlap is the pin's own and stays, unsaid at run time. Said before the
  // run, with the height that clears the plane: d - z more for the held point's depth, and
  // R - z more (R: the body's farthest point from the held one) to keep the body clear of the
  // plane however it turns. A nail on the plane, as a click on the floor places it, holding a
  // body by a point of its surface, is not too near. A point of a fixed body that a moving body
  // is joined to (a point-to-point joint or a hinge: a door's post sunk in the floor) holds that
  // body in place the same way, and is said the same way.
  void checkHeldPoints() {
    if (!m_st.contacts) return;
    for (size_t i = 0; i < m_s.nails.size(); ++i) {
      const NailDef& nail = m_s.nails[i];
      std::vector<Held> held;
      for (const ConstraintDef& c : m_s.constraints) {
        const PointToNailDef* d = c.params.get<PointToNailDef>();
        if (!d || d->nail != nail.name) continue;
        if (const auto h = heldPoint(d->point)) held.push_back(*h);
      }
      sayHeldInPlane("nails[" + std::to_string(i) + "].position", "nail \"" + nail.name + "\"", "the nail", nail.position,
                     held);
    }
    for (size_t k = 0; k < m_s.constraints.size(); ++k) {
      const ConstraintDef& c = m_s.constraints[k];
      const PointRef *a = nullptr, *b = nullptr;
      if (const auto* d = c.params.get<PointToPointDef>()) a = &d->a, b = &d->b;
      if (const auto* d = c.params.get<HingeDef>()) a = &d->a, b = &d->b;
      if (!a) continue;
      for (int side = 0; side < 2; ++side) {
        const PointRef& still = side ? *b : *a;
        const auto f = heldPoint(still, true);
        const auto h = heldPoint(side ? *a : *b);
        if (!f || !f->body->fixed || !h || h->body->fixed) continue;
        const std::string place = "constraints[" + std::to_string(k) + "]." + (side ? "b" : "a");
        const Vec3 at = f->world();
        // (a hinge standing in the plane says all the point would)
        const auto* d = c.params.get<HingeDef>();
        if (d && sayStandingInPlane(place, c.name, at, f->body->orientation * (side ? d->axisB : d->axisA).normalized(), *h,
                                    (side ? d->axisA : d->axisB).normalized()))
          continue;
        sayHeldInPlane(place, "constraint \"" + c.name + "\"'s point on fixed body \"" + f->body->name + "\"", "that point",
                       at, {*h});
      }
    }
  }
  // A moving body that starts in a plane's solid, deeper than kStartsInPlane: with contacts on,
  // the first steps push it out and it gains the lift's energy (a helper's sphere 0.5 m under the
  // floor popped to its surface in one step, +39.7 J, with nothing said). Its lowest point over
  // the plane is c - s(R^T (-n)), c its centre's height over the surface and s its shape's
  // support function about its centre (support) along -n in body axes.
  static constexpr double kStartsInPlane = 1e-4;  // m
  void checkBodiesInPlanes() {
    if (!m_st.contacts) return;
    for (size_t i = 0; i < m_s.bodies.size(); ++i) {
      const BodyDef& b = m_s.bodies[i];
      if (b.fixed || !b.collides || !b.active) continue;
      for (const PlaneDef& plane : m_s.planes) {
        const Vec3 n = plane.normal.normalized();
        const double lowest = (b.position - plane.point).dot(n) - support(b, b.orientation.normalized().conjugate() * (-n));
        if (!(lowest < -kStartsInPlane)) continue;
        add("bodies[" + std::to_string(i) + "].position", StabilitySeverity::Warn,
            "body \"" + b.name + "\" starts " + lim(-lowest) + " m into plane \"" + plane.name +
                "\": with contacts on, the first steps push it out, and it gains the energy of that lift; move it at least " +
                lim(-lowest) + " m out of the plane");
      }
    }
  }
  // A round body's rolling resistance past its radius (the pair's: its own and the largest of
  // what it may touch, as a pair sums them): the torque that opposes rolling, mu_r N, then holds
  // it on any slope its friction holds (tan(theta) <= mu_r / r) and stops any roll at once; it
  // slides instead (a helper's 0.1 m ball with 1 m on it and 1 m on the floor never turned). As
  // measured, mu_r is the lever arm of the normal force within the contact patch: 1e-4 to 1e-2
  // of the radius for hard wheels and balls, 0.05-0.3 of it for tyres and soft balls.
  void checkRollingResistance() {
    if (!m_st.contacts) return;
    double others = 0.0;  // the largest a partner brings: a plane's, or another collides body's
    for (const PlaneDef& p : m_s.planes) others = std::max(others, p.rollingResistance);
    for (size_t i = 0; i < m_s.bodies.size(); ++i) {
      const BodyDef& b = m_s.bodies[i];
      const double r = b.shape == Shape::Sphere || b.shape == Shape::Rod ? b.radius : b.shape == Shape::Torus ? b.minorRadius : 0.0;
      if (b.fixed || !b.collides || !(r > 0.0)) continue;
      double partner = others;
      for (size_t k = 0; k < m_s.bodies.size(); ++k)
        if (k != i && m_s.bodies[k].collides) partner = std::max(partner, m_s.bodies[k].rollingResistance);
      const double pair = b.rollingResistance + partner;
      if (!(pair > r)) continue;
      add("bodies[" + std::to_string(i) + "].rolling_resistance", StabilitySeverity::Warn,
          "the rolling resistance of body \"" + b.name + "\" with what it touches is up to " + num(pair) + " m, more than its " +
              (b.shape == Shape::Torus ? "tube's radius " : "radius ") + num(r) +
              " m: it never rolls, it slides (the resistance is the normal force's lever arm within the contact patch, "
              "1e-4 to 1e-2 of the radius for hard balls and wheels, up to 0.3 of it for soft ones)");
    }
  }
  // ---- mass ratios across a joint ------------------------------------------------------------

  // A body joined by a constraint to a moving body more than kJoinedMassRatio times heavier: said
  // once per light body, at its density, with its heaviest partner.
  void checkJoinedMasses() {
    struct Worst {
      double ratio = 0.0;
      int heavy = -1;
      size_t constraint = 0;
    };
    std::vector<Worst> worst(m_s.bodies.size());
    for (size_t k = 0; k < m_s.constraints.size(); ++k) {
      const ConstraintDef& c = m_s.constraints[k];
      std::vector<int> joined;
      for (const ConstraintField& f : c.type().fields) {
        std::string name;
        if (f.isPoint()) {
          const PointRef& r = f.point(c);
          if (r.kind == PointRef::Kind::BodyPoint || r.kind == PointRef::Kind::BodyLocal) name = r.body;
        } else if (f.kind == ConstraintField::Kind::Body) {
          name = f.name(c);
        }
        const auto b = m_bodies.find(name);
        if (b != m_bodies.end() && !m_s.bodies[size_t(b->second)].fixed) joined.push_back(b->second);
      }
      for (int light : joined)
        for (int heavy : joined) {
          const double ratio = mass(heavy) / mass(light);
          if (ratio > stability::kJoinedMassRatio && ratio > worst[size_t(light)].ratio)
            worst[size_t(light)] = {ratio, heavy, k};
        }
    }
    for (size_t i = 0; i < worst.size(); ++i) {
      const Worst& w = worst[i];
      if (w.heavy < 0) continue;
      const BodyDef& light = m_s.bodies[i];
      const BodyDef& heavy = m_s.bodies[size_t(w.heavy)];
      const double enough = roundUp3(mass(w.heavy) / stability::kJoinedMassRatio);  // (as said: enough)
      add("bodies[" + std::to_string(i) + "].density", StabilitySeverity::Warn,
          "body \"" + light.name + "\" (" + massText(mass(int(i))) + ") is joined by constraint \"" +
              m_s.constraints[w.constraint].name + "\" to \"" + heavy.name + "\" (" + massText(mass(w.heavy)) +
              "), " + ratioText(w.ratio) + " times heavier: beyond " + num(stability::kJoinedMassRatio) +
              " times across a joint the light body's motion follows the heavy one's at rates the step cannot follow, "
              "and such models often blow up or lose energy; make \"" + light.name + "\" at least " +
              massText(enough) + " (density " + lim(roundUp3(light.density * enough / mass(int(i)))) + " kg/m^3 at its size) or \"" +
              heavy.name + "\" lighter");
    }
  }
  double mass(int body) const { return massProperties(m_s.bodies[size_t(body)]).mass; }
  static std::string ratioText(double r) {
    char b[64];
    std::snprintf(b, sizeof b, r < 1e9 ? "%.0f" : "%.3g", r);
    return b;
  }
  static std::string massText(double kg) { return kg < 1.0 ? lim(1000.0 * kg) + " g" : lim(kg) + " kg"; }

  // A hinge on a fixed body whose axis u stands along a plane's normal n keeps the held body
  // turning about u only: the hinge aligns the body's axis a (its coordinates) with u, so each of
  // its points x stays at the height (x - p) . a s over the hinge point p (s = n . u = +-1), in any
  // turn. Its lowest point, z + min_x (x - p) . a s = z - h(-a s) - p . a s (h the shape's support
  // function about its centre: a ball r, a rod r + L/2 |d_z|, a box sum of half sides |d_i|, a
  // torus R |d_xy| + r), under the plane stays there: said with how far to raise the hinge's point.
  bool sayStandingInPlane(const std::string& place, const std::string& name, const Vec3& at, const Vec3& u,
                          const Held& h, const Vec3& a) {
    bool said = false;
    for (const PlaneDef& plane : m_s.planes) {
      const Vec3 n = plane.normal.normalized();
      const double c = n.dot(u);
      if (std::abs(c) < 1.0 - 1e-9) continue;  // tilted: the body can swing out of the plane
      const Vec3 up = std::copysign(1.0, c) * a;
      const double z = (at - plane.point).dot(n);
      const double lowest = z - support(*h.body, -up) - h.local.dot(up);
      if (!(lowest < -1e-9)) continue;
      add(place, StabilitySeverity::Warn,
          "hinge \"" + name + "\" stands along the normal of plane \"" + plane.name + "\" and holds \"" + h.body->name +
              "\" with its lowest point " + lim(-lowest) + " m under the surface in any turn: with contacts on, the body " +
              "stays in the plane; raise the hinge's point at least " + lim(-lowest) + " m");
      said = true;
    }
    return said;
  }
  // The support function of a body's shape about its centre, unturned: max over its points x of
  // x . d, d a unit vector.
  static double support(const BodyDef& b, const Vec3& d) {
    switch (b.shape) {
      case Shape::Sphere: return b.radius;
      case Shape::Rod: return b.radius + 0.5 * b.length * std::abs(d.z());
      case Shape::Box: return 0.5 * b.size.cwiseProduct(d).cwiseAbs().sum();
      case Shape::Torus: return b.majorRadius * std::hypot(d.x(), d.y()) + b.minorRadius;
    }
    return 0.0;
  }
  // The body and local point a reference names (BodyPoint, BodyLocal), if the body collides (or
  // any body: anyBody).
  std::optional<Held> heldPoint(const PointRef& r, bool anyBody = false) const {
    if (r.kind != PointRef::Kind::BodyPoint && r.kind != PointRef::Kind::BodyLocal) return std::nullopt;
    const auto b = m_bodies.find(r.body);
    if (b == m_bodies.end()) return std::nullopt;
    const BodyDef& body = m_s.bodies[size_t(b->second)];
    const std::optional<Vec3> p = r.kind == PointRef::Kind::BodyLocal ? std::optional(r.local) : findPoint(body, r.point);
    if (!p || !(anyBody || body.collides)) return std::nullopt;
    return Held{&body, *p};
  }
  // The warning at place for a point held at `at` (what: its words; move: what to move) whose
  // held bodies are too near a plane: the one that needs it highest.
  void sayHeldInPlane(const std::string& place, const std::string& what, const std::string& move, const Vec3& at,
                      const std::vector<Held>& held) {
    for (const PlaneDef& plane : m_s.planes) {
      const double z = (at - plane.point).dot(plane.normal.normalized());
      // the held body that needs the point highest: its name, d and R
      std::string worst;
      double depth = 0.0, reach = 0.0;
      for (const Held& h : held) {
        CollisionBody shape = collisionBody(*h.body);
        shape.x = Vec3::Zero();
        shape.q = Quat::Identity();
        const double in = std::max(0.0, pinDepth(shape, h.local));
        if (!(z < in - 1e-9) || (!worst.empty() && in <= depth)) continue;
        worst = h.body->name;
        depth = in;
        reach = farthestFrom(shape, h.local);
      }
      if (worst.empty()) continue;
      const std::string where = z < 0.0 ? " is " + lim(-z) + " m under the surface of plane \"" + plane.name + "\""
                                         : " is only " + lim(z) + " m above plane \"" + plane.name + "\"";
      const std::string how = depth > 1e-9 ? " by a point " + lim(depth) + " m inside it" : " there";
      add(place, StabilitySeverity::Warn,
          what + where + " and holds \"" + worst + "\"" + how + ": with contacts on, the body stays in the plane; move " +
              move + " at least " + lim(depth - z) + " m out of the plane (" + lim(reach - z) + " m keeps \"" + worst +
              "\" clear of it in any pose)");
    }
  }
  const Scene& m_s;
  const Settings& m_st;
  const IntegratorKind m_int;
  const double m_h;
  std::unordered_map<std::string, int> m_bodies;
  std::set<std::string> m_enabledLater;  // while checkStraightChains walks: enabledLaterNames()
  std::set<std::string> m_taut;          // the bodies of chains all but straight (checkNearReach)
  std::vector<StabilityWarning> m_out;
};

}  // namespace

std::optional<CrankDrive> crankDrive(const Scene& s, size_t i) {
  const ConstraintDef& c = s.constraints[i];
  const auto* d = c.params.get<PointToPathDef>();
  if (!d || d->point.kind == PointRef::Kind::Nail || d->point.kind == PointRef::Kind::Path) return std::nullopt;
  const auto path = std::find_if(s.paths.begin(), s.paths.end(), [&](const PathDef& p) { return p.name == d->path; });
  if (path == s.paths.end() || path->kind != PathKind::Circle) return std::nullopt;
  bool held = false;  // the point's body carries another constraint
  for (const ConstraintDef& o : s.constraints) held = held || (&o != &c && constraintUses(o, ObjectKind::Body, d->point.body));
  if (!held) return std::nullopt;
  double speed = 1.0;
  for (const EventDef& e : s.events)
    if (e.action == EventAction::Set && e.target == path->name && e.param == "speed" && !e.value.empty())
      speed = std::max(speed, e.value[0]);
  CrankDrive out;
  out.w = speed * 2.0 * M_PI / std::abs(path->period);
  out.baumgarte = s.settings.stabilization == StabilizationKind::Baumgarte;
  out.k = out.baumgarte ? s.settings.baumgarteBeta : 1.0 / c.tau.value_or(s.settings.defaultTau);
  out.path = &*path;
  return out;
}

std::vector<StabilityWarning> stabilityWarnings(const Scene& scene) { return Checker(scene).run(); }

std::vector<std::string> allButStraightBodies(const Scene& scene) { return Checker(scene).tautBodies(); }

std::string divergenceAdvice(const Scene& scene, const std::string& settingsAdvice) {
  std::string said;
  for (const StabilityWarning& w : stabilityWarnings(scene))
    if (w.geometric) said += (said.empty() ? "" : "; ") + w.message;
  if (said.empty()) return settingsAdvice;
  return "; before the run, check found the model's shape at fault, where no step size or tau helps: " + said;
}

std::vector<StabilityWarning> newWarnings(const Scene& before, const Scene& after) {
  return newWarnings(stabilityWarnings(before), after);
}

std::vector<StabilityWarning> newWarnings(const std::vector<StabilityWarning>& before, const Scene& after) {
  std::set<std::pair<std::string, StabilitySeverity>> had;
  for (const StabilityWarning& w : before) had.emplace(w.place, w.severity);
  std::vector<StabilityWarning> out;
  for (StabilityWarning& w : stabilityWarnings(after))
    if (!had.count({w.place, w.severity})) out.push_back(std::move(w));
  return out;
}

std::vector<StabilityWarning> newDivergences(const Scene& before, const Scene& after) {
  std::vector<StabilityWarning> out;
  for (StabilityWarning& w : newWarnings(before, after))
    if (w.severity == StabilitySeverity::Diverges) out.push_back(std::move(w));
  return out;
}

}  // namespace tether::core
