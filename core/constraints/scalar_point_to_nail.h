// Scalar point-to-nail (paper footnote 3): D = |X_P - X0|, the distance from the point to the
// nail (d = 1), rather than the vector. The point is pulled to the nail along any feasible
// path instead of a straight line, so unrealizable straight-line approaches (paper Fig. 14c)
// no longer over-constrain the system. It is the distance constraint with L = 0.
//
// Once the point is within kHoldRadius of the nail it is held as a point-to-nail (D = X_P - X0,
// three rows). The scalar form cannot hold a pin: its single row's direction n = D / |D| is
// undefined at D = 0 and turns by 90 degrees for a sideways step of |D|, so a pinned pendulum
// slid around its nail (0.07 to 0.3 m open long after it "assembled", in the robustness
// corpus), and Newton projection, whose step is along that n, could not close it. The two
// forms agree at the switch in |D| (the magnitude of the vector is the scalar), so the
// assembled bookkeeping (|D| <= 1e-3 m) sees no jump; a point knocked away again is pulled
// back by the scalar form.
//
// The scalar form's force is central: it passes through the nail, so it cannot change the
// angular momentum about the nail, and a point that circles the nail can close on it only by
// speeding up as 1/|D| (kinetic energy ~ 1/|D|^2): it stalls. Measured in the robustness
// corpus: a rod's end circling 7 cm from its nail at 140 rad/s for the whole minute, others 1
// to 3 cm off. So while the point circles the nail faster than orbitRate (|v_t| > orbitRate
// |D|, v_t its velocity across the line to the nail) it too is pulled by the three rows, whose
// tangential rows take the circling out; the straight-line approach they ask for is then a
// short one. orbitRate is 1/tau, the constraint's own: tau's law closes |D| at about that
// rate, so a point circling slower than it is closing, and the scalar form's free path is kept.
// At that rate the circling's centripetal acceleration |D| w^2 is the law's own pull |D|/tau^2,
// and no larger: a fixed 10 rad/s (1/tau at the default tau) let a point on a slow tau (0.5 s)
// circle at 5 times 1/tau in the scalar form, its row carrying 25 times the law's pull while
// its direction turned at 10 rad/s, and the step's error in that load outweighed the law: in a
// sweep of 300 rods thrown and spun at their nails (tau 0.1 to 0.5 s), with rk4 two never
// assembled (one 2.9 mm off, its r'' 0.015 m/s^2 off the law, of a 0.25 m/s^2 centripetal term)
// and one took 40 tau; with euler one never did (2 cm off) and two took 15-17 tau. With 1/tau
// every one assembled within 13 tau (ScalarPointToNailOnASlowTauAssemblesOnSchedule).
// Near orbitRate the two forms alternate from step to step, so the three rows close |D| by the
// scalar row's law (their c carries the circling's centrifugal term; derived in evaluate), an
// Euler step does not read one form's rate offset in the other's rows (lastRateOffset,
// core/velocity_level.h), and rk4 and rk45 keep one form through a step's stages
// (ConstraintAssembly::holdForms).
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class ScalarPointToNail final : public Constraint {
 public:
  // the distance below which the point is held by three rows (the assembled threshold, m)
  static constexpr double kHoldRadius = 1e-3;
  // rad/s: circling the nail faster than this, the point is pulled by three rows too (tau:
  // the constraint's, ConstraintRows::tau)
  static double orbitRate(double tau) { return 1.0 / tau; }
  // its forms of rows (ConstraintRows::form): three rows held at the nail, three while circling,
  // the scalar row
  enum Form : std::int8_t { kHeld = 0, kCircling = 1, kScalar = 2 };
  ScalarPointToNail(Anchor point, Vec3 nail) : m_point(point), m_nail(nail) {}
  int rows() const override { return 3; }  // 1 while it assembles, 3 once held or circling
  BodyList bodies() const override { return {m_point.index}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool seesOnlyAxis(int b, const Vec3& e) const override { return onAxisOf(m_point, b, e); }
  bool pinsToWorld() const override { return true; }
  // (held, within kHoldRadius, it is a point-to-nail: the step turns its body about the nail when
  // it is the body's only constraint; the caller asks only of met constraints)
  bool fixedPin(const std::vector<BodyModel>&, Anchor& point, Anchor& at) const override {
    point = m_point;
    at = {.kind = Anchor::Kind::World, .index = -1, .local = m_nail};
    return true;
  }

 private:
  Anchor m_point;
  Vec3 m_nail;  // world, m
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// A body point held at a nail by one scalar row.
struct ScalarPointToNailDef {
  PointRef point;
  std::string nail;
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const ScalarPointToNailDef&) const = default;
};

}  // namespace tether::core
