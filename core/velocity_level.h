// What only the velocity-level steps need: semi-implicit Euler (the interactive default) and
// sequential impulses prescribe each constraint's rate at the end of the step instead of its
// acceleration (core/right_hand_side.h). Here: their right-hand side B with the targets of
// assembling and held constraints, the held point pairs' arm-rotation correction, and the
// geometric stiffness of taut links. The Euler step itself is stepSemiImplicitEuler
// (core/integrator.h).
//
// v' = v + h W (F_E + F_c) must give D1' = J v' + e = D1*, where D1* discretizes each equation
// implicitly in D1 (so it needs no velocity-product term c and stays stable when bodies spin fast):
//   tau:       (D1* - D1)/h + 2/tau D1* + D/tau^2 = 0  =>  D1* = (D1 - h D/tau^2) / (1 + 2h/tau)
//   Baumgarte: D1* = (D1 - h beta^2 D) / (1 + 2 alpha h)
//   implicit:  D1* = -D / h                              (then B is exactly Hong's Eqn. 11)
// and J W F_c = (D1* - D1)/h - J a0 gives B_k = J_k [a0; alpha0] + (D1_k - D1*_k) / h.
// The rate also moves by h c over the step (the Jacobian turns with the bodies). While a
// constraint assembles that term is kept (B_k += c_k), so D follows the tau dynamics on
// spinning bodies too; once assembled it is held by the implicit target without c, like Hong
// et al.'s scheme (with c, fast whipping chains diverged), and projection removes the drift;
// a held point pair's target also includes half the step's arm-rotation term, at the end
// velocities (see correctHeldForArmRotation), which leaves its drift third order. The held
// targets' -D/h closes D by moving the positions alone (splitHeldCorrection), so that the
// joints' loads do no work on it.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/constraint_solvers.h"
#include "core/right_hand_side.h"

namespace tether::core {

// g = J_a I^-1 (L x w): the part of a row's rate change that comes from the bodies' inertia
// turning with them (the gyroscopic term; see VelocityLevelEquation::form and velocityTarget).
Vec3 inertiaTurn(const ConstraintRows& r, const std::vector<BodyKinematics>& kin);

// The rate offset a step leaves for constraint j's next one (StepMemory::rateOffset; derived
// at velocityTarget): h (c + g) / 2 on its r.d rows and NaN on the others, so that the next step
// can tell whether it was recorded on as many rows.
Vec3 rateOffsetFor(const ConstraintRows& r, const Vec3& g, double h);
// The offset the last step left for constraint j, into offset (zero past r.d), if there is one and
// it was recorded on as many rows as r has now. A constraint whose rows change their frame
// between steps has none: the scalar point-to-nail's one row along the line to its nail and its
// three world rows while it circles (core/constraints/scalar_point_to_nail.h) alternate every few
// steps, and each read the other's offset in its own frame (the line's for a world axis): a
// GUI-made rod 0.9 m from its nail, circling, was still 1 cm off it at 15 tau.
bool lastRateOffset(const Stabilization& stab, const ConstraintRows& r, int j, Vec3& offset);

// Whether constraint j is held at the velocity level (the implicit target; see velocityTarget):
// assembled, and not a velocity constraint. Those keep their stabilization's law throughout
// (velocityConstraintTarget): held, the integral of their error would be cancelled in one step,
// and an integral of 1 mm (the assembled mark) is a kick of 1 m/s at h = 1 ms: a sliding ball
// put on a rolling constraint reversed its slip in its second step.
inline bool heldAtVelocityLevel(const ConstraintAssembly& a, const Stabilization& stab, int j) {
  return stab.held(j) && !a.nonholonomic(j);
}

// The rate D1* a velocity-level step aims constraint j's rows at (derived in velocity_level.cpp);
// held: see heldAtVelocityLevel. Not for velocity constraints: velocityConstraintTarget.
Vec3 velocityTarget(const ConstraintRows& r, int j, double tau, const Stabilization& stab, const Vec3& g, bool held);

// The same for a constraint that assembles (not held, not a velocity constraint), from what the
// last step did with its law (Stabilization::lawSteps; derived in velocity_level.cpp); what this
// step does goes into next.
Vec3 assemblingTarget(const ConstraintRows& r, int j, double tau, const Stabilization& stab, const Vec3& g, LawStep& next);

// The same for a velocity constraint (Constraint::nonholonomic; derived in velocity_level.cpp).
// Its aim, the mean rate V it sets, goes into nextAim[j] (sized per constraint by the caller).
Vec3 velocityConstraintTarget(const ConstraintRows& r, int j, double tau, const Stabilization& stab, const Vec3& g,
                              std::vector<Vec3>& nextAim);

class VelocityLevelEquation {
 public:
  // B for a velocity-level step (stab.velocityLevel), stacked by rows.
  void form(const ConstraintAssembly& a, const Params& params, const std::vector<Vec3>& Fext,
            const std::vector<Vec3>& Text, const Stabilization& stab, Eigen::VectorXd& B);

  // After the solve by block LDL^T (whose factorization it reuses) and the net forces: the
  // held point pairs' second-order drift (see velocity_level.cpp). F and T are the net force
  // and torque per body, which give the velocities at the end of the step; B, fc, F and T are
  // corrected. False if it changed nothing.
  bool correctHeldForArmRotation(const ConstraintAssembly& a, const BlockLdltSolver& factored, const Stabilization& stab,
                                 Eigen::VectorXd& B, Eigen::VectorXd& fc, std::vector<Vec3>& F, std::vector<Vec3>& T);
  // After correctHeldForArmRotation: the part of the forces that closes the held constraints'
  // deviations (the -D/h of their targets), to move the positions alone (derived in
  // velocity_level.cpp). fc loses it; Fp and Tp (per body, zeroed by the caller) get it as a force
  // and torque, which the net F and T keep: the step takes their impulse back after its drift.
  // False if there is none (no held constraint, or a solve that was not by block LDL^T).
  bool splitHeldCorrection(const ConstraintAssembly& a, const BlockLdltSolver& factored, Eigen::VectorXd& fc,
                           std::vector<Vec3>& Fp, std::vector<Vec3>& Tp);
  // The held constraints' part of -B (3 per node, zero elsewhere) for the solve to solve beside
  // -B (BlockLdltSolver::setSecond), or null when none is held. Valid until the next form().
  Eigen::VectorXd* heldRightHandSide() { return m_heldNodes.empty() ? nullptr : &m_split; }
  // Passes of that correction since the last form() (0 when its first guess held).
  int armPasses() const { return m_armPasses; }

  // Per constraint: how far its rate at the end of the step will run ahead of the rate D moves
  // with over it, h (c + g) / 2 (NaN: held or inactive; see velocityTarget); for the next
  // step's targets (StepMemory::rateOffset). Filled by form() and by SequentialImpulses.
  std::vector<Vec3>& nextOffsets() { return m_nextOffset; }
  // Per constraint: a velocity constraint's aim (see velocityConstraintTarget; NaN for the others,
  // empty when there are none), for the next step (StepMemory::velocityAim).
  std::vector<Vec3>& nextAims() { return m_nextAim; }
  // Per constraint: what this step does with an assembling constraint's law (see assemblingTarget;
  // empty when none assembles), for the next step (StepMemory::lawSteps).
  std::vector<LawStep>& nextLawSteps() { return m_nextLaw; }

 private:
  std::vector<int> m_heldPairs;   // the nodes the correction acts on
  std::vector<int> m_heldSeparations;  // the same for held separation rows (ConstraintRows::separation)
  std::vector<Vec3> m_cApplied;   // the c a held pair's target includes so far, per node
  int m_armPasses = 0;
  std::vector<Vec3> m_nextOffset;
  std::vector<Vec3> m_nextAim;
  std::vector<LawStep> m_nextLaw;
  Eigen::VectorXd m_r;            // the correction's right-hand side / solution, 3 per node
  std::vector<int> m_heldNodes;   // the held constraints' nodes (splitHeldCorrection)
  std::vector<Vec3> m_heldB;      // their targets' position part in B, D / (h max(h, dt))
  Eigen::VectorXd m_split;        // -m_heldB, 3 per node (heldRightHandSide)
};

// Geometric stiffness of taut point-pair constraints for the semi-implicit Euler step
// (derived in velocity_level.cpp): where a body's own stiffness would make the explicit step
// unstable, its solve uses (I + S)^-1 in place of I^-1 and a damping torque -S dw / (2 h) on the
// change dw of its rate over the last step (moved to this step's length), or -S w / h where that
// is unknown or the body is pulled by a constraint still assembling.
class GeometricStiffness {
 public:
  // Before the solve: from last step's point-pair forces (StepMemory::lastForce), the assembled
  // flags (StepMemory::assembled) and the bodies' change of w over the last step (SpinTrend::dw,
  // times ahead; null: unknown), changes the stiffened bodies' kin.invI and adds their damping
  // torque to T. False: no body stiffened.
  bool apply(const Model& model, const ConstraintAssembly& a, const std::vector<Vec3>& lastForce,
             const std::vector<std::uint8_t>& assembled, const std::vector<Vec3>* spinTrend, double ahead, double h,
             std::vector<BodyKinematics>& kin, std::vector<Vec3>& T);
  // After the solve: the net torque as the rate of L (I (I + S)^-1 t), and the plain I^-1 back.
  void release(std::vector<BodyKinematics>& kin, std::vector<Vec3>& T, std::vector<Vec3>* Tp = nullptr) const;

 private:
  std::vector<Mat3> m_stiffness;  // per body: S = h^2 (geometric stiffness)
  std::vector<std::uint8_t> m_assembling;  // per body: pulled by a constraint not yet assembled
  // the bodies whose solve uses (I + S)^-1 this evaluation, with their world inertia I and plain
  // I^-1 (one compact list: at 10 000 bodies per-body arrays of them cost more memory traffic)
  struct Stiffened {
    int body = -1;
    Mat3 inertia, plainInvI;
  };
  std::vector<Stiffened> m_stiffened;
};

// The force of each point-pair constraint (point-to-point, -nail, -path) in the last solve, into
// force (sized per constraint); zero for the others. The semi-implicit Euler step keeps it in
// StepMemory::lastForce for the next step's geometric stiffness.
void recordPointPairForces(const ConstraintAssembly& a, const Eigen::VectorXd& fc, std::vector<Vec3>& force);

}  // namespace tether::core
