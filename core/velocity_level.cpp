#include "core/velocity_level.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/constraint_parts.h"

namespace tether::core {

namespace {

// A held point pair (point-to-point, -nail, -path: every slot a PointConstraintPart slot,
// assembled), whose target includes the arm-rotation term (see correctHeldForArmRotation).
bool heldPointPair(const ConstraintRows& r, int j, const std::vector<std::uint8_t>& held) {
  if (size_t(j) >= held.size() || !held[size_t(j)] || r.d != 3 || r.customForce) return false;
  return r.pointPart.whole(r.nb);
}

// A held constraint's D1*: D cancelled at the given rate (see velocityTarget).
inline Vec3 heldTarget(const Vec3& D, double rate) { return D * -rate; }

// tau's law D'' = -2/tau D' - D/tau^2 (Baumgarte's: alpha for 1/tau, beta for 1/tau), stepped
// implicitly in the mean rate V over a step h from the last step's V0: V = V0 + h (-2/tau V - D/tau^2)
// (see velocityTarget).
inline Vec3 stepLaw(const Stabilization& stab, double tau, const Vec3& V0, const Vec3& D) {
  const double h = stab.h;
  if (stab.kind == StabilizationKind::Baumgarte) return (V0 - (h * stab.beta * stab.beta) * D) / (1.0 + 2.0 * h * stab.alpha);
  return (V0 - (h / (tau * tau)) * D) / (1.0 + 2.0 * h / tau);
}

// D on its d rows, the rest zero
inline Vec3 onRows(const Vec3& D, int d) {
  Vec3 x = Vec3::Zero();
  for (int i = 0; i < d; ++i) x(i) = D(i);
  return x;
}

}  // namespace

Vec3 inertiaTurn(const ConstraintRows& r, const std::vector<BodyKinematics>& kin) {
  Vec3 g = Vec3::Zero();
  for (int s = 0; s < r.nb; ++s) {
    const BodyKinematics& k = kin[size_t(r.body[s])];
    g += r.ja(s, Vec3(k.invI * k.L.cross(k.w)));
  }
  return g;
}

Vec3 rateOffsetFor(const ConstraintRows& r, const Vec3& g, double h) {
  Vec3 o = 0.5 * h * (r.c + g);
  for (int i = r.d; i < 3; ++i) o(i) = std::numeric_limits<double>::quiet_NaN();
  return o;
}

bool lastRateOffset(const Stabilization& stab, const ConstraintRows& r, int j, Vec3& offset) {
  if (!stab.rateOffset || size_t(j) >= stab.rateOffset->size()) return false;
  const Vec3& o = (*stab.rateOffset)[size_t(j)];
  for (int i = 0; i < 3; ++i)
    if (std::isnan(o(i)) != (i >= r.d)) return false;  // none, or recorded on other rows
  offset = Vec3::Zero();
  for (int i = 0; i < r.d; ++i) offset(i) = o(i);
  return true;
}

Vec3 velocityTarget(const ConstraintRows& r, int j, double tau, const Stabilization& stab, const Vec3& g, bool held) {
  const double h = stab.h;
  if (held) {
    // Held: aim to cancel D within a step (D1* = -D/h, Hong et al.), over the scene's step dt
    // even when this step is shorter (a substep, an event or the end of a run between grid
    // points): -D/h of a 1e-7 m residue over a 1e-8 s step threw the links of a chain at 10 m/s.
    // All of D, the part within the projection tolerance too: left alone, that part wandered
    // freely within the band until projection snapped it back, and the snap (a move of the
    // positions alone, against the load the joint carries) added energy every time: a chain
    // yanked by a stiff spring gained 11 % in 20 s at 16 us steps (0.2 % with all of D cancelled;
    // the benchmark chains' joints close to 6e-9 m instead of 1e-7). After a solve by block
    // LDL^T the -D/h part closes D by a move of the positions alone, not by a rate the joint's load
    // would work on (splitHeldCorrection).
    // Over the step D moves by h D1' + h^2/2 c (the rows turn with the bodies; see
    // correctHeldForArmRotation): the target takes -h/2 c at the start velocities, so that the
    // step leaves D at O(h^3) instead of h^2/2 c. Without it a box rocking on a corner held by
    // point-on-plane drifted by h^2/2 c every step; projection put it back by moving the box
    // toward the plane, and the box lost 60 % of its energy in a minute.
    return heldTarget(r.D, 1.0 / std::max(h, stab.hNominal)) - (0.5 * h) * r.c;
  }
  // While a constraint assembles, its rows turn with the bodies and the bodies' inertia turns
  // too. With T = J u_end + e the rate the solve gives it at the end of the step (u_end: the new
  // velocities, w = I(q')^-1 L' at the new orientation; see VelocityLevelEquation::form), the bodies
  // move over the step with the midpoint rate, h g / 2 behind it (g = J_a I^-1 (L x w), the
  // row's share of the inertia's turn; see stepSemiImplicitEuler), and the rows turn by h c
  // (c = J' u): D moves by h (T - h g / 2) + h^2/2 c and its rate ends at D1(t + h) = T + h c.
  // So D moves with V = T + h (c - g) / 2, the step's mean rate, and the rate measured at the
  // end of a step runs ahead of the V the step moved with by o = h (c + g) / 2 of that step
  // (StepMemory::rateOffset). tau's law D'' = -2/tau D' - D/tau^2 is stepped on V, which moves D:
  //   V_n = V_{n-1} + h (-2/tau V_n - D_n / tau^2),   V_{n-1} = D1_n - o_{n-1},
  //   V_n = (D1_n - o_{n-1} - h D_n / tau^2) / (1 + 2h/tau),   T_n = V_n - h (c_n - g_n) / 2,
  // and D_{n+1} = D_n + h V_n to O(h^3). Under a steady c (g = 0, o_{n-1} = h c / 2) this is the
  // target T = (D1 - h D/tau^2 - (1 + h/tau) h c) / (1 + 2h/tau), whose fixed point is D = 0 (a
  // plain -h c there left D = -h tau c: 0.3 m on the whipping links of the chain between
  // towers). Under a c that turns (a point on a spinning body) the offset must be last step's:
  // with this step's, V picks up h (c_{n-1} - c_n) / 2 per step, whose sum does not cancel, and
  // D follows by ~ h |c| / (2 w): a thick rod spinning at 105 rad/s stayed 4 mm from its nail
  // (r w h at 0.02 rad per substep), never counted as assembled, and gained 14 % of its energy
  // in 5 s while tau's force pulled at the offset. Baumgarte likewise with alpha for 1/tau.
  // Held constraints use the implicit target (Hong et al.) above, which is stable for whipping
  // chains, and projection removes the rest.
  Vec3 offset;
  if (!lastRateOffset(stab, r, j, offset)) offset = 0.5 * h * (r.c + g);
  // (under the implicit method a constraint that is not held assembles by tau's law: assemblingKind)
  return stepLaw(stab, tau, r.D1 - offset, r.D) - 0.5 * h * (r.c - g);
}

// velocityTarget steps the law on the rate measured now less the offset o, and the rate the
// step will run ahead of its solve, h (c - g) / 2, is at the step's start too. What those leave out
// moves with the bodies' angular acceleration and the arms' turn over the step (c at the end
// velocities and the turned arm: h/2 (c(u') - c(u)) to first order), and each step's miss m, the
// mean rate D moved with less the one planned, stays in the law's state as a kick: a steady push
// of m / h. A sphere hung by a point on its surface from a nail, with a second sphere on a
// sphere-to-sphere, swung at up to 170 rad/s: its step (a 1/16 ms substep) missed by 1.5e-4 m/s,
// 2 % of h |c| / 2, a push of 2.4 m/s^2 against the law's D/tau^2 of 0.35 m/s^2 at 3.5 mm, and its
// point circled the nail 2-4 mm off for 2 s (the corpus's GUI-made spheres touching a pinned
// sphere, #3, #12, #24, and points on fast-spinning bodies, #81, #192, #373, assembled after
// 15 tau). The same at dt = 1/16 ms without substeps: the substeps keep h |w| at 0.02 rad, so
// the push is the same at any dt.
// So from its second step on the law is stepped on its own aim, V_{n-1} = the V the last step set
// (LawStep::aim), as a velocity constraint's (velocityConstraintTarget), with D measured now, and
// the miss is measured from the positions,
//   m = (D_n - D_{n-1}) / h_{n-1} - E_{n-1},   E: the mean rate the last step was to move D with,
// and taken off the target, T = V - h (c - g) / 2 - m. A miss that changes slowly is then met, and
// D keeps only its change (the sphere assembles in 1.0 s instead of 3.6). What is taken off is
// the mean of the last two misses, up to half of h |c - g| / 2. The mean: a miss that alternates
// every step is not fed back (with the last miss alone the paper's pendulum on a tau just inside
// Euler's limit, where D changes sign every step, blew up). The bound: the offset model is
// h (c - g) / 2 and what it leaves out a fraction of it; a larger miss comes from elsewhere (a
// contact's impulse, a projection's move, the compromise of a conflict), and taken off whole it
// fed back on itself: the distance from a point moved along a path to a spinning torus missed by
// twice as much every two substeps and blew up in 50. Beyond the bound D takes the miss, and the
// law's D term answers it.
// The first step of an assembly takes velocityTarget's (the law starts from the measured rate),
// and so does a step after an event (Simulation::fireDueEvents) or after the rows changed in
// number, and always a constraint with rows of several forms (ConstraintRows::form: the scalar
// point-to-nail, whose one row along the line to its nail turns with the point, and whose three
// rows while the point circles carry part of their law in c; measured against them, 1 of 300
// rods thrown at their nails assembled at 15.1 tau, none after 12.9 tau without).
Vec3 assemblingTarget(const ConstraintRows& r, int j, double tau, const Stabilization& stab, const Vec3& g, LawStep& next) {
  const double h = stab.h;
  if (r.form >= 0) return velocityTarget(r, j, tau, stab, g, false);  // (rows of several forms)
  const Vec3 ahead = 0.5 * h * (r.c - g), D = onRows(r.D, r.d);
  const LawStep* last = stab.lawSteps && size_t(j) < stab.lawSteps->size() ? &(*stab.lawSteps)[size_t(j)] : nullptr;
  bool stepped = last && last->h > 0.0;
  for (int i = 0; stepped && i < 3; ++i) stepped = std::isnan(last->D(i)) == (i >= r.d);  // (not on other rows)
  Vec3 aim, missed = Vec3::Zero(), miss = Vec3::Zero();
  if (stepped) {
    missed = (D - onRows(last->D, r.d)) / last->h - last->expected;
    miss = 0.5 * (missed + last->missed);
    const double bound = 0.5 * ahead.norm(), size = miss.norm();
    if (size > bound) miss *= bound / size;
    aim = stepLaw(stab, tau, last->aim, D);
  } else {
    aim = velocityTarget(r, j, tau, stab, g, false) + ahead;
  }
  next.D = D;
  for (int i = r.d; i < 3; ++i) next.D(i) = std::numeric_limits<double>::quiet_NaN();
  next.aim = aim;
  next.expected = aim - miss;
  next.missed = missed;
  next.h = h;
  return aim - ahead - miss;
}

// A velocity constraint's rows g = J u - v_o(t) (D1), with D = I = int g dt to the start of the
// step (zero under the implicit method). A velocity-level step is a leapfrog: its new velocities
// u' are the ones the positions move with over the step, x' = x + h v', so they belong to the
// step's middle, and the error the step actually makes is its mean rate V, not the rate measured
// at its end. For a point on a body pushed along a path, h V is exactly how far the point strays
// from the path's point over the step:
//   p' - p = h (v' + w_mid x r) + h^2/2 w' x (w' x r) + O(h^3)   (the arm turns; see
//   correctHeldForArmRotation), and the drive moves by h v_o + h^2/2 v_o',
// so with T = J(t) u' - v_o(t) the rate the solve sets (the rows of the step's start; u' with the
// end rate w' = w_mid + h/2 I^-1 (L x w), the inertia's turn g), c = J' u - v_o' (the rows turning
// with the bodies, the drive's acceleration):
//   V = T + h (c - g) / 2,   and the rate measured at the end is g' = T + h c = V + h (c + g) / 2
// (o = h (c + g) / 2, the rate offset velocityTarget derives for assembling constraints; it is
// StepMemory::rateOffset). Aiming g' at the law (as Hong et al.'s "g(t + h) = 0" reads) leaves
// V = -o: the point is pushed off the path by h^2/2 c every step, to the side c points to; a rod
// dragged at 1 m/s by one end (c, the centripetal term, pointing into the rod) climbed 0.38 m
// above its path in 300 s while its integral stayed at 5e-5 m, the drive doing work on the swing
// all the while: its energy in the drive's frame rose from 7.9 to 19 J and it blew up at 330 s
// at dt = 1 ms (the three-link bar driven round its circle at 325 s). So the laws set V, each
// stepped implicitly in it:
//   implicit (Hong Eqn. 31):        V = 0
//   tau:                            V = (V_{n-1} - h I/tau^2) / (1 + 2h/tau)
//   Baumgarte (Hong Eqn. 32):       V = (V_{n-1} - h beta^2 I) / (1 + 2h alpha)
// and T = V - h (c - g) / 2. The integral moves with the mean rate each step made (Simulation),
// so I is the point's distance from its path and takes in whatever the step missed. That rate is
// g' - o with o to second order: the arm's turn adds h^2/3 w x (w x (w x r)) = h^2/3 dc/dt to it
// (p' - p has h^3/6 of it against g''s h^2/2), so o = h (c + g)/6 at the start + h (c + g)/3 at
// the end (with h (c + g)/2 alone a rod spinning at 100 rad/s about its driven end stayed 40 um
// off its path while I said 0.5 um).
// V_{n-1} is the rate the law set last step (StepMemory::velocityAim), and what the mean rate
// missed of the solve's rate last step (StepMemory::velocityMiss, updated by Simulation) is taken
// off this step's. The terms left out above (O(h^2), turning with the bodies) change little from
// one step to the next; a law stepped on the measured rate takes them into its state and holds
// them as a steady offset with I = tau^2 miss / h (and taking the miss back does not help: the
// law's state then sums the miss's changes, the same turning offset): a rod spinning at 100 rad/s
// about its driven end sat 7 mm off its path, its end circling there at 0.35 m/s against the
// law's damping, and lost 95 % of its energy in a minute; at 20 rad/s it gained 4.7 % a minute
// under tau (0.04 % on its own aim with the miss taken back). A miss that does not go away (a
// conflict) is pushed against by a constant amount, not a growing one: it is measured against the
// rate the solve was given. The law starts from the measured mean rate, the rate now less that
// offset, where it has no aim: after an event (Simulation::fireDueEvents forgets the aims, so a
// drive's set speed is followed by the law, not cancelled in one step), and from the rate itself
// on the first step after the constraint comes on (the motion is continuous there).
Vec3 velocityConstraintTarget(const ConstraintRows& r, int j, double tau, const Stabilization& stab, const Vec3& g,
                              std::vector<Vec3>& nextAim) {
  const double h = stab.h;
  const bool aimed = stab.velocityAim && size_t(j) < stab.velocityAim->size() && !std::isnan((*stab.velocityAim)[size_t(j)].x());
  Vec3 offset;
  const bool stepped = lastRateOffset(stab, r, j, offset);
  const Vec3 last = aimed     ? (*stab.velocityAim)[size_t(j)]
                    : stepped ? Vec3(r.D1 - offset / 3.0 - (h / 3.0) * (r.c + g))
                              : r.D1;
  Vec3 aim = Vec3::Zero();
  switch (stab.kind) {
    case StabilizationKind::Implicit: break;
    case StabilizationKind::Tau: aim = (last - (h / (tau * tau)) * r.D) / (1.0 + 2.0 * h / tau); break;
    case StabilizationKind::Baumgarte:
      aim = (last - (h * stab.beta * stab.beta) * r.D) / (1.0 + 2.0 * h * stab.alpha);
      break;
  }
  nextAim[size_t(j)] = aim;
  const Vec3 miss = stab.velocityMiss && size_t(j) < stab.velocityMiss->size() ? (*stab.velocityMiss)[size_t(j)] : Vec3::Zero();
  return aim - 0.5 * h * (r.c - g) - miss;
}

void VelocityLevelEquation::form(const ConstraintAssembly& a, const Params& params, const std::vector<Vec3>& Fext,
                                 const std::vector<Vec3>& Text, const Stabilization& stab, Eigen::VectorXd& B) {
  const std::vector<BodyKinematics>& kin = a.kinematics();
  // a body's free accelerations (a0, alpha0; core/right_hand_side.h), for the assembling
  // (rate) targets too. The step updates the world-frame L by h T, and the rate a constraint
  // sees at the end of the step is w(t + h) = I(q')^-1 L' at the NEW orientation:
  // I(q')^-1 = I^-1 + h [w]x I^-1 - h I^-1 [w]x + O(h^2), so w(t + h) = w + h I^-1 (T + L x w)
  // + O(h^2), gyroscopic term included. (Leaving it out, as the start orientation's
  // w' - w = h I^-1 T would have it, mispredicts every spinning body's rate by h I^-1 (L x w)
  // per step, an error that does not vanish with h: the tori of the chain between towers,
  // tumbling as they assembled, gained energy until they blew up at any dt.)
  // The held constraints' targets are targets for D at the end of the step, which the body
  // reaches turning with the midpoint rate w(q_half) = w + h I^-1 T + h/2 I^-1 (L x w) + O(h^2)
  // (see stepSemiImplicitEuler): they take half the gyroscopic term (with all of it, a thin
  // plate pinned off its long axis spun up to 1 000 rad/s).
  const std::vector<int>& active = a.active();
  B.resize(a.rowCount());  // (every row is written below)
  // the held point pairs, whose targets include -h/2 c (see correctHeldForArmRotation)
  m_heldPairs.clear();
  m_heldSeparations.clear();
  m_heldNodes.clear();
  m_heldB.clear();
  m_armPasses = 0;
  // the rate offsets for the next step (see velocityTarget), unknown (NaN) for the held
  // constraints; none at all (an empty list, no pass over every constraint) while all are held
  m_nextOffset.clear();
  m_nextAim.clear();
  m_nextLaw.clear();
  m_cApplied.resize(active.size());
  const bool holding = stab.assembled != nullptr;
  const double invH = 1.0 / stab.h, holdRate = 1.0 / std::max(stab.h, stab.hNominal);
  for (size_t node = 0; node < active.size(); ++node) {
    const int j = active[node];
    const ConstraintRows& r = a.rows()[size_t(j)];
    Vec3 b;
    const bool velocityRows = a.nonholonomic(j);
    if (holding && !velocityRows && heldPointPair(r, j, *stab.assembled)) {
      // the common case, written out: held, every slot a point slot (PointConstraintPart)
      b = (r.D1 - heldTarget(r.D, holdRate)) * invH;
      m_heldNodes.push_back(int(node));
      m_heldB.push_back(r.D * (holdRate * invH));
      // the first guess of the fixed point: c at w moved on by its trend over the last step (or
      // at the start velocities)
      Vec3 guess = Vec3::Zero();
      for (int s = 0; s < r.nb; ++s) {
        const size_t bi = size_t(r.body[s]);
        b += r.pointPart.acceleration(s, freeLinearAcceleration(kin[bi], Fext[bi]),
                                      freeAngularAcceleration(kin[bi], Text[bi], 0.5));  // J [a0; alpha0]
        const Vec3 w = stab.spinTrend ? Vec3(kin[bi].w + stab.spinAhead * (*stab.spinTrend)[bi]) : kin[bi].w;
        guess += r.pointPart.centripetal(s, w);
      }
      b += 0.5 * guess;
      // c = J' u is the bodies' part (their arms' turn, which correctHeldForArmRotation takes at
      // the end velocities) and a path point's own acceleration a: the path moves h v + h^2/2 a
      // over the step, so its point's target takes -h/2 a as a body point's takes -h/2 c_body
      // (velocityTarget's -h/2 c, whole). Left out, the target ran h^2/2 a behind the path each
      // step and, beside a pin, disagreed with the pin's radial row by a/2: a crank pinned at
      // its centre and driven round a circle of its own radius was "conflicting" in tether-cli
      // check, the least-squares forces split the difference, and projection carried the rest.
      if (r.pointPart.anchorAccelerates) {
        Vec3 bodies = Vec3::Zero();
        for (int s = 0; s < r.nb; ++s) bodies += r.pointPart.centripetal(s, kin[size_t(r.body[s])].w);
        b += 0.5 * (r.c - bodies);
      }
      m_cApplied[node] = guess;
      m_heldPairs.push_back(int(node));
      B.segment<3>(a.rowOffset()[size_t(j)]) = b;
      continue;
    }
    const Vec3 g = inertiaTurn(r, kin);
    const bool held = heldAtVelocityLevel(a, stab, j);
    const double tau = params.tau[size_t(j)];
    if (velocityRows && m_nextAim.empty()) m_nextAim.assign(a.rows().size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
    Vec3 target;
    if (velocityRows) {
      target = velocityConstraintTarget(r, j, tau, stab, g, m_nextAim);
    } else if (held) {
      target = velocityTarget(r, j, tau, stab, g, true);
      if (!r.separation) {  // (see splitHeldCorrection)
        m_heldNodes.push_back(int(node));
        m_heldB.push_back(onRows(r.D, r.d) * (holdRate * invH));
      }
      if (holding && r.separation) {  // (its -h/2 c taken at the end velocities too)
        m_cApplied[node] = Vec3(r.c(0), 0.0, 0.0);
        m_heldSeparations.push_back(int(node));
      }
    } else {
      if (m_nextLaw.empty()) m_nextLaw.assign(a.rows().size(), LawStep{});
      target = assemblingTarget(r, j, tau, stab, g, m_nextLaw[size_t(j)]);
    }
    b = (r.D1 - target) * invH;
    if (m_nextOffset.empty()) m_nextOffset.assign(a.rows().size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
    m_nextOffset[size_t(j)] = rateOffsetFor(r, g, stab.h);
    addFreeAcceleration(b, r, kin, Fext, Text, held ? 0.5 : 1.0);
    scatterRows(B, a.rowOffset()[size_t(j)], b, r.d);
  }
  if (!m_heldNodes.empty()) {
    m_split.setZero(3 * Eigen::Index(active.size()));
    for (size_t k = 0; k < m_heldNodes.size(); ++k) m_split.segment<3>(3 * m_heldNodes[k]) = -m_heldB[k];
  }
}

// The drift of a held point pair over a semi-implicit Euler step, to second order in h.
// A point at the offset r from its body's centre moves with the step's new velocities
// (v', w'): x' = x + h v' and R' = exp(h [w']x) R (the orientation step turns by h w' to
// first order in the change of w), so
//   p' = x' + R' r_b = p + h (v' + w' x r) + h^2/2 w' x (w' x r) + O(h^3).
// For D = p2 - p1 (unit slot signs u_s) the rows give J u' = sum_s u_s (v_s' + w_s' x r_s):
//   D' = D + h J u' + h^2/2 c(u') + O(h^3),   c(u) = sum_s u_s w_s x (w_s x r_s).
// The held target D1* = -D / h (formEquation) cancels the first two terms and leaves the
// centripetal third: a taut chain's joints open by h^2/2 w^2 |r| each step (1e-6 m on the
// swinging 1000-link chain), which projection then has to close. Targeting
//   D1* = -D / h - h/2 c(u')
// instead leaves O(h^3). The target moves by -h/2 c, so B (= (D1 - D1*)/h + J a0) by +c/2
// and, M being unchanged, Fc by dFc with M dFc = -c/2: a solve with the factorization at hand.
// c depends on the unknown u' quadratically: a fixed point. Its first guess, which form()
// puts into B so that the force solve itself includes it, takes each body's w' as w plus the
// change of w over the last step (StepMemory::spinTrend, scaled to this step's length; w itself on
// a first step): c(w + dw_last). Then passes, each taking u' = u + h W (F_E + F_c) (W with
// the solve's inverse inertia) from the forces so far and solving for the change of c since
// the last pass. A pass runs only if that change would move a joint by more than 1/40 of the
// projection tolerance (at dt = 1/3840 the whole correction is below it). That move is not the
// h^2/2 |dc| of one step where the step is a substep (h < dt): the held target cancels D over the
// scene's step dt (velocityTarget), so a miss e per substep is taken back at h/dt of D per
// substep and D settles at e dt / h = h dt/2 |dc|, which is what the threshold compares. Measured
// with h^2/2 |dc|: three light links yanked by a stiff spring in 256 substeps (none short) gained
// 1.4 % of their energy in 20 s (0.28 % now), and a needle-thin box whipping in a triple pendulum
// (the corpus's #292, 2048 substeps) gained 0.7-1.4 J of 315 in 4 s (0.01-0.03 J now; with
// projection off, where every pass runs, 0.08-0.14 J). The
// threshold was a quarter of the tolerance while held targets left the part of D within the
// tolerance alone; since they cancel all of D (velocityTarget), a skipped pass's h^2/2 dc comes
// back as a rate -D/h next step (before splitHeldCorrection), which did work against the joint's load: three light links
// yanked by a stiff spring gained 12 % of their energy in a minute at a quarter, lost 1.6 % at
// 1/40 (and 2 % with every pass; the 10 000-link chain costs +2 % at 1/40, +12 % at 1/400).
// Measured at a quarter (correction passes, 2 s): the
// benchmark's 1 000-link chain 0.24 per step (1.0 with the start velocities as the guess, 1.9
// with no guess), the 10 000-link chain 0.07 (0.22, 1.1); with the Euler integrator the
// pendulum and three-link-bar examples skip the pass on 89 % and 95 % of steps (37 % and 18 %
// with the start velocities); the benchmark's ring and tree need one and two passes per step
// whatever the guess (there the passes, not the guess, limit the fixed point: the guess only
// costs them ~3 % of a step). Extrapolating c itself did as well on the chains but not on
// spinning bodies: a body turning steadily keeps w, and its c(w', r) with the start arm r is
// then c0, while c0 itself turns with the arm. More passes measured no better: where they
// would matter (a whipping free end), the third-order drift is larger still and projection
// closes it anyway.
// A held separation row (a distance's, a sphere-to-sphere's: ConstraintRows::separation) takes
// its c at the end velocities the same way, from the first pass (its first guess is the start
// velocities': its c depends on the bodies' v as well as w). Other constraints (point-on-line...)
// are left to projection, and so is a path's own acceleration.
bool VelocityLevelEquation::correctHeldForArmRotation(const ConstraintAssembly& a, const BlockLdltSolver& factored,
                                                      const Stabilization& stab, Eigen::VectorXd& B, Eigen::VectorXd& fc,
                                                      std::vector<Vec3>& F, std::vector<Vec3>& T) {
  if (!factored.factored() || !stab.velocityLevel || !stab.assembled || (m_heldPairs.empty() && m_heldSeparations.empty()))
    return false;
  constexpr int kPasses = 2;
  const std::vector<BodyKinematics>& kin = a.kinematics();
  const std::vector<int>& active = a.active();
  const std::vector<ConstraintRows>& rows = a.rows();
  const double h = stab.h;
  const int n = static_cast<int>(active.size());
  m_r.resize(3 * n);
  for (int pass = 0; pass < kPasses; ++pass) {
    double largest = 0.0;  // max |change of c|
    // w at the end of the step, taken where it is needed (a per-body array costs more in memory
    // traffic), and kept for the next slot: along a chain, the next joint's first body is this
    // joint's last one (taken again, the 1 000-link chain's step ran 1.8 % more instructions)
    int lastBody = -1;
    Vec3 wEnd = Vec3::Zero();
    for (int node : m_heldPairs) {
      const ConstraintRows& r = rows[size_t(active[size_t(node)])];
      Vec3 c = Vec3::Zero();
      for (int s = 0; s < r.nb; ++s) {
        if (r.body[s] != lastBody) {
          lastBody = r.body[s];
          const BodyKinematics& k = kin[size_t(lastBody)];
          wEnd = k.w + h * (k.invI * Vec3(T[size_t(lastBody)] + 0.5 * k.L.cross(k.w)));  // (see form)
        }
        c += r.pointPart.centripetal(s, wEnd);  // (as form)
      }
      const Vec3 dc = c - m_cApplied[size_t(node)];
      m_r.segment<3>(3 * node) = dc;
      largest = std::max(largest, dc.cwiseAbs().maxCoeff());
    }
    // a held separation row (a distance's): its c (separationC) at the end velocities, the
    // bodies' v' = v + h F / m as well as their w' (the line turns with the ends' relative
    // velocity across it). Left at the start velocities, its h^2/2 dc came back each step as a
    // rate -D/h doing work against the row's load: a 0.16 kg rod pinned to a nail with a 15 kg
    // ball on a 0.4 m distance from its free end lost 3-68 % of its energy in a minute whenever the
    // rod whipped (ten such scenes, 29 % on average), with point joints instead 0.3 %.
    for (int node : m_heldSeparations) {
      const ConstraintRows& r = rows[size_t(active[size_t(node)])];
      const double c = separationC(r, kin, [&](int s, Vec3& v, Vec3& w) {
        const size_t b = size_t(r.body[s]);
        const BodyKinematics& k = kin[b];
        v = k.v + (h * k.invMass) * F[b];
        w = k.w + h * (k.invI * Vec3(T[b] + 0.5 * k.L.cross(k.w)));  // (as the point pairs')
      });
      const double dc = c - m_cApplied[size_t(node)](0);
      m_r.segment<3>(3 * node) = Vec3(dc, 0.0, 0.0);
      largest = std::max(largest, std::abs(dc));
    }
    if (!(0.5 * h * std::max(h, stab.hNominal) * largest > 0.025 * stab.projectionTolerance)) break;  // (h dt/2 |dc|)
    for (int node : m_heldPairs) {
      const Vec3 dc = m_r.segment<3>(3 * node);
      m_cApplied[size_t(node)] += dc;
      B.segment<3>(a.rowOffset()[size_t(active[size_t(node)])]) += 0.5 * dc;
      m_r.segment<3>(3 * node) = -0.5 * dc;
    }
    for (int node : m_heldSeparations) {
      const double dc = m_r(3 * node);
      m_cApplied[size_t(node)](0) += dc;
      B(a.rowOffset()[size_t(active[size_t(node)])]) += 0.5 * dc;
      m_r(3 * node) = -0.5 * dc;
    }
    // the other constraints' targets do not move
    for (int node = 0, pair = 0, sep = 0; node < n; ++node) {
      if (size_t(pair) < m_heldPairs.size() && m_heldPairs[size_t(pair)] == node) ++pair;
      else if (size_t(sep) < m_heldSeparations.size() && m_heldSeparations[size_t(sep)] == node) ++sep;
      else m_r.segment<3>(3 * node).setZero();
    }
    factored.solveFactored(m_r);
    for (int node = 0; node < n; ++node) {
      const int j = active[size_t(node)];
      const ConstraintRows& r = rows[size_t(j)];
      const Vec3 dfc = m_r.segment<3>(3 * node);
      // (padding rows of a d < 3 constraint solve to 0)
      if (r.d == 3) fc.segment<3>(a.colOffset()[size_t(j)]) += dfc;
      else addRows(fc, a.colOffset()[size_t(j)], dfc, r.d);
      for (int s = 0; s < r.nb; ++s) {
        F[size_t(r.body[s])] += r.jlT(s, dfc);
        T[size_t(r.body[s])] += r.jaT(s, dfc);
      }
    }
    ++m_armPasses;
  }
  return m_armPasses > 0;
}

// The held constraints' position correction, as a displacement alone (a split impulse). A held
// constraint's target D1* = -D / max(h, dt) - h/2 c asks the step to close its deviation D, and
// the solve meets it with forces: by linearity Fc = M^-1 (-B) holds the part
//   f_D = M^-1 (-B_D),   B_D = D / (h max(h, dt)) on a held constraint's rows, 0 elsewhere,
// whose impulse h f_D turns each held joint's rate toward -D / max(h, dt). That impulse is a real
// one: the joint's load f (the rest of its force) does work on the rate it sets, about
// f . (J u) h = -f . D h / max(h, dt) per step, positive where the step left the joint stretched
// along its pull. A step's third-order error leaves a taut joint stretched on the same side step
// after step (its arms turn on while it carries its load), so that work does not average out:
// 50 steel balls of 1 cm joined point to point from a nail, dropped from horizontal, gained
// 0.028 J in 20 s (+0.1 J a minute, 18 % of their peak kinetic energy in ten), growing with the
// projection tolerance, which bounds D (0.0017 J at 1e-8 m), and with projection off as much.
// Here f_D moves the positions alone: the step kicks the momenta with the whole force, drifts,
// and then takes (F_D, T_D) = J^T f_D's impulse back (stepSemiImplicitEuler):
//   x' = x + h (v' + h m^-1 F_D),   q' turned at w' + h I^-1 T_D,   momenta without h J^T f_D,
// a displacement dq = h^2 W J^T f_D with J dq = -h^2 M M^-1 B_D = -D h / max(h, dt): the same
// closing of D, and no momentum (f_D is not in the constraints' forces fc either). The kinetic energy is the step's; a potential changes by the
// move alone, which is the smallest in the mass metric: over a joint between two bodies the slots'
// forces are opposite (sum of J_l^T f_D = 0), so sum m dx = 0 and the mass centre stays, and
// gravity does no work on it; a joint to a nail or a path moves its body against gravity by D,
// the load's one step of f . D instead of one per joint. The rope: +1e-4 J in 20 s, its highest
// at 13 s of 20 (20 balls; 50 balls: +6e-4 J, highest at 8.6 s) against +0.0044 J and +0.028 J,
// each highest at the end (over 120 s the 50 balls still rise, +2.8e-3 J a minute against +0.105 J:
// 38 times slower, not gone). As game engines' split impulse (pseudo-velocities; Catto, Bullet's
// splitImpulse), solved beside the step's forces in the same pass over the factors
// (BlockLdltSolver::setSecond). Not for held separation rows (a distance's, a sphere-to-sphere's),
// which keep the velocity form: split, a sphere circling a pinned sphere at 30 m/s on a
// sphere-to-sphere lost 0.43 J/s of its 1 890 J at dt 1 ms and 0.5 ms alike, with projection on
// or off (the corpus's #3), and a torus and a needle on two distances from a nail blew up at 17 s
// (#265); the cause is not found yet.
bool VelocityLevelEquation::splitHeldCorrection(const ConstraintAssembly& a, const BlockLdltSolver& factored,
                                                Eigen::VectorXd& fc, std::vector<Vec3>& Fp, std::vector<Vec3>& Tp) {
  if (!factored.factored() || m_heldNodes.empty()) return false;
  const std::vector<int>& active = a.active();
  const std::vector<ConstraintRows>& rows = a.rows();
  const int n = static_cast<int>(active.size());
  // f_D: solved beside the step's forces (BlockLdltSolver::setSecond), or here
  const Eigen::VectorXd* solved = factored.second();
  if (!solved) {
    factored.solveFactored(m_split);
    solved = &m_split;
  }
  for (int node = 0; node < n; ++node) {
    const int j = active[size_t(node)];
    const ConstraintRows& r = rows[size_t(j)];
    const Vec3 dfc = solved->segment<3>(3 * node);
    if (r.d == 3) fc.segment<3>(a.colOffset()[size_t(j)]) -= dfc;
    else addRows(fc, a.colOffset()[size_t(j)], -dfc, r.d);
    for (int s = 0; s < r.nb; ++s) {
      const size_t b = size_t(r.body[s]);
      if (r.pointPart.has(s)) {
        r.pointPart.addForce(s, dfc, Fp[b], Tp[b]);  // (one test for both products, as applyForces)
      } else {
        Fp[b] += r.jlT(s, dfc);
        Tp[b] += r.jaT(s, dfc);
      }
    }
  }
  return true;
}

// Geometric stiffness of taut point-pair constraints, for the semi-implicit Euler step.
//
// A point-pair constraint pulls its point on a body with a world force f (its multiplier, or
// minus it) at the offset r from the centre; the stiffness K = -tensionStiffness(f, r) of that
// torque against turning the body is derived in constraint_parts.h.
// The Euler step takes torques at the start of the step. In a taut chain, neighbouring links
// turning opposite ways (a zigzag) oscillate at w^2 ~ 2 (f . r) / I; where h^2 w^2 > 4 the step
// is unstable (at the top of the 1000-link chain at 240 Hz, h^2 f r / I ~ 10). Projection keeps
// the joints closed, but the zigzag velocity stays, whips the links, and makes every step's
// projection slow (three Newton steps instead of one, measured).
// Backward Euler in this stiffness, S = -h^2 K >= 0 and t all torques at the start of the step
// (constraint torques included):
//   I (w' - w) = h (t + h K w')   =>   (I + S) w' = I w + h t   =>   w' = w + (I + S)^-1 h (t - S w / h),
// the torques plus a damping torque -S w / h answered through the inverse inertia (I + S)^-1,
// would take every mode's energy by the factor 1/(1 + h^2 w^2) per step: the zigzag (h w > 2) is
// gone in a few steps, but so is energy from every body that turns with its pull (K is the change
// with f held fixed, and a turn with the pull does not change the torque). A swing lost energy
// (a 50 kg lamp on a 2 m chain of thin links: 4.4 % of its swing in 2 s), and a light link
// between heavy bodies, whose turn follows theirs, dragged them: a 20 g rod linking a nail to a
// 12 kg torus and a 154 kg sphere (tr S / tr I up to 39 at 1 ms) took 19 % of the model's energy in
// a minute, most of it at each whip (the corpus's #108). What the step needs damped is the fast
// part of the turn, not the turn, so the damping takes w against a reference w_r:
//   (I + S) w' = I w + h t + S w_r   =>   w' = w + (I + S)^-1 h (t - S (w - w_r) / h).
// For one mode (x = h w, a = h^2 K / I, the plain step theta' = theta + x'):
//   (1 + a) x' = x - a theta + a x_r,
// w_r = w (x_r = x) leaves a mode of inertia I + S, undamped (every eigenvalue on the unit circle
// for every a); w_r = w - dw (the rate a step before) damps it but grows past a = 4 (|lambda| 1.09
// at a = 6, 1.3 at a = 1 000); w_r = w - dw / 2, between them, keeps every a inside the circle:
// |lambda| 0.99 at a = 0.3, 0.93 at a = 2, 0.87-0.88 from a = 30 on (the zigzag falls tenfold in
// ~17 steps). On a body turning smoothly (dw = h alpha) the stiffness and its damping add the
// torque -3/2 S alpha: inertia (energy it holds, not energy it takes: 3/4 w S w, a light link's
// share). dw is the change over the last step (StepMemory::spinTrend) moved to this step's length;
// where it is unknown (the first step, a step after one cut short by an event) w_r = 0, as
// backward Euler, and so on a body pulled by a constraint still assembling, whose pull jumps from
// step to step and is a step late (with w - dw / 2 there, the paper's pendulum on a tau just
// inside Euler's limit diverged).
// S only acts where the plain step needs it: with a = tr S / tr I (h^2 w^2 of the body's own
// stiffness) it is scaled by clamp((a - 1) / 2, 0, 1): nothing below a = 1 (a 1 m chain never
// reaches it), all of it from a = 3. f is the last step's force (StepMemory::lastForce), a step late
// as in Andrews, Teichmann & Kry (2017).
bool GeometricStiffness::apply(const Model& model, const ConstraintAssembly& a, const std::vector<Vec3>& force,
                               const std::vector<std::uint8_t>& assembled, const std::vector<Vec3>* spinTrend,
                               double ahead, double h, std::vector<BodyKinematics>& kin, std::vector<Vec3>& T) {
  const std::vector<ConstraintRows>& rows = a.rows();
  const double h2 = h * h, invH = 1.0 / h;
  if (spinTrend && spinTrend->size() != kin.size()) spinTrend = nullptr;
  m_stiffened.clear();
  m_stiffness.assign(kin.size(), Mat3::Zero());
  m_assembling.assign(spinTrend ? kin.size() : 0, 0);
  for (int j : a.active()) {
    const ConstraintRows& r = rows[size_t(j)];
    if (size_t(j) >= force.size() || r.customForce) continue;
    const bool open = spinTrend && !(size_t(j) < assembled.size() && assembled[size_t(j)]);
    // the slot's force u f at r = -u a (PointConstraintPart) is -f at a: f . r and r r^T are the same
    for (int s = 0; s < r.nb; ++s) {
      if (!r.pointPart.has(s)) continue;
      addTensionStiffness(m_stiffness[size_t(r.body[s])], h2, -force[size_t(j)], r.pointPart.skewArm(s));
      if (open) m_assembling[size_t(r.body[s])] = 1;
    }
  }
  for (size_t i = 0; i < kin.size(); ++i) {
    BodyKinematics& k = kin[i];
    const BodyModel& bm = model.bodies[i];
    if (k.invMass == 0.0) continue;
    Mat3& S = m_stiffness[i];
    const double trS = S.trace();
    if (!(trS > 0.0) || !(bm.invInertia.minCoeff() > 0.0)) continue;  // (S is positive semi-definite)
    const double weight = std::clamp(0.5 * (trS / bm.inertia.sum() - 1.0), 0.0, 1.0);
    if (weight == 0.0) continue;
    if (weight < 1.0) S *= weight;
    Stiffened& st = m_stiffened.emplace_back();
    st.body = int(i);
    st.plainInvI = k.invI;
    st.inertia = rotateDiagonal(k.R, bm.inertia);
    if (!invertSpd(st.inertia + S, 0.0, k.invI)) k.invI = (st.inertia + S).inverse();
    // w - w_r: dw / 2, or w itself where dw is unknown or the body is pulled by a constraint still
    // assembling
    const Vec3 against = spinTrend && !m_assembling[i] ? Vec3(0.5 * ahead * (*spinTrend)[i]) : k.w;
    T[i].noalias() -= S * (invH * against);
  }
  return !m_stiffened.empty();
}

void GeometricStiffness::release(std::vector<BodyKinematics>& kin, std::vector<Vec3>& T, std::vector<Vec3>* Tp) const {
  for (const Stiffened& st : m_stiffened) {
    BodyKinematics& k = kin[size_t(st.body)];
    T[size_t(st.body)] = st.inertia * (k.invI * T[size_t(st.body)]);
    if (Tp) (*Tp)[size_t(st.body)] = st.inertia * (k.invI * (*Tp)[size_t(st.body)]);
    k.invI = st.plainInvI;
  }
}


void recordPointPairForces(const ConstraintAssembly& a, const Eigen::VectorXd& fc, std::vector<Vec3>& force) {
  std::fill(force.begin(), force.end(), Vec3::Zero());
  for (int j : a.active()) {
    const ConstraintRows& r = a.rows()[size_t(j)];
    if (size_t(j) >= force.size() || r.nb == 0 || !r.pointPart.has(0) || r.customForce) continue;
    force[size_t(j)] = a.multiplier(fc, j);  // (the slot-0 force is u times the multiplier; recorded without u)
  }
}

}  // namespace tether::core
