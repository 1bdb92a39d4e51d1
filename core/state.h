// Simulation state: what the solver thread alone owns. Everything a timeline event can
// change lives here too (Params), so a recorded State resumes a run bitwise.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/math.h"

namespace tether::core {

// A body's state; packed into a vector (integrators) as kBodyDofs numbers: x, q (w, x, y, z), P, L.
inline constexpr int kBodyDofs = 13;
struct BodyState {
  Vec3 x = Vec3::Zero();         // centre-of-mass position, world, m
  Quat q = Quat::Identity();     // orientation, body -> world, unit quaternion
  Vec3 P = Vec3::Zero();         // linear momentum, world, kg m/s
  Vec3 L = Vec3::Zero();         // angular momentum about the centre of mass, world, kg m^2/s
};

// Force parameters that events may change.
struct ForceParams {
  double stiffness = 0.0;        // spring N/m, torsion N m/rad
  double damping = 0.0;          // spring N s/m, torsion N m s/rad
  double restLength = 0.0;       // m
  double restAngle = 0.0;        // rad
  double linear = 0.0;           // viscous damping, N s/m
  double angular = 0.0;          // viscous damping, N m s/rad
  Vec3 vector = Vec3::Zero();    // constant force N / torque N m, world
};

// The GUI's mouse drag while simulating: a damped zero-length spring from a body point to a
// target the user moves, F = -k (p - target) - c dp/dt at p. body = -1: none.
struct MouseSpring {
  int body = -1;
  Vec3 local = Vec3::Zero();     // body coordinates, m
  Vec3 target = Vec3::Zero();    // world, m
  double stiffness = 0.0;        // N/m
  double damping = 0.0;          // N s/m
};

// A path's clock. "set speed" events change how fast a point runs along its path: the path is
// sampled at its local time tau = tau0 + speed (t - t0), so the point never jumps; its velocity
// is speed x dx/dtau and its acceleration speed^2 x d2x/dtau2 (speed is piecewise constant).
struct PathClock {
  double t0 = 0.0;      // s: when the speed last changed
  double tau0 = 0.0;    // s: the local time then
  double speed = 1.0;   // local seconds per second (>= 0)
  double local(double t) const { return tau0 + speed * (t - t0); }
};

struct Params {
  Vec3 gravity = Vec3::Zero();                // m/s^2
  bool gravityOn = true;
  std::vector<std::uint8_t> bodyActive;       // per body: exists now
  // per body, for the contact stage: whether it collides, and its restitution, friction, static
  // friction and rolling resistance (x, y, z, w); the scene's values, which events may set
  std::vector<std::uint8_t> bodyCollides;
  std::vector<Eigen::Vector4d> bodyMaterial;
  std::vector<std::uint8_t> constraintEnabled;
  std::vector<double> tau;                    // per constraint, s
  std::vector<std::uint8_t> forceEnabled;
  std::vector<ForceParams> force;             // per force
  std::vector<PathClock> pathClock;           // per path
  MouseSpring mouse;                          // the user's drag (not part of the scene)
};

// Semi-implicit Euler: how each body's angular velocity changed over the last step (w at its
// end, with the orientation at its start, minus w at its start), and that step's length. The
// next step's held point pairs take w moved on by this trend as the first guess of their
// arm-rotation term (see VelocityLevelEquation::correctHeldForArmRotation).
struct SpinTrend {
  std::vector<Vec3> dw;            // per body, rad/s
  double h = 0.0;                  // s (0: no step yet)
};

// What a semi-implicit Euler step leaves for the next one of a constraint assembling by its law
// (tau's, or Baumgarte's): see assemblingTarget (core/velocity_level.cpp).
struct LawStep {
  Vec3 D = Vec3::Constant(std::numeric_limits<double>::quiet_NaN());  // D at the step's start, NaN past its rows
  Vec3 aim = Vec3::Zero();       // the mean rate V the law set, m/s
  Vec3 expected = Vec3::Zero();  // the mean rate D was to move with: aim less the miss taken off, m/s
  Vec3 missed = Vec3::Zero();    // how far the step before it missed, as measured at its start, m/s
  double h = 0.0;                // the step's length, s (0: none recorded)
};

// What a step leaves for the next one: part of the State, so that a run resumed from a saved
// State repeats the uninterrupted run bit for bit. The steppers take it as an argument.
// A contact of a resting group as the last contact stage left it (StepMemory::resting).
struct RestingContact {
  int bodyA = -1, bodyB = -1, plane = -1;  // as ContactManifold
  Vec3 point = Vec3::Zero();               // Contact::pointA, world, m
  double force = 0.0;                      // normal force, N
  Vec3 friction = Vec3::Zero();            // friction force on A, world, N
  Vec3 rolling = Vec3::Zero();             // rolling resistance's torque on A, world, N m
};

struct StepMemory {
  std::vector<Vec3> impulses;      // sequential impulses: last step's impulse per constraint (warm start), N s
  std::vector<std::uint8_t> assembled;  // projection: the constraint has been met (|D| <= 1e-3) since it became active
  std::vector<Vec3> lastForce;     // semi-implicit Euler: last step's force of each point-pair constraint, world, N
                                   // (the tension its geometric stiffness comes from; zero for other constraints)
  SpinTrend spinTrend;
  std::vector<Vec3> rateOffset;    // semi-implicit Euler: h (c + g) / 2 of each constraint's last step, how far its
                                   // rate D1 runs ahead of the rate D moved with (see velocityTarget), NaN past
                                   // its rows (see lastRateOffset); NaN or empty (all held): unknown
  std::vector<LawStep> lawSteps;   // semi-implicit Euler: per constraint assembling by its law (LawStep); h = 0 or
                                   // empty (none assembling): none
  std::vector<Vec3> velocityAim;   // velocity-level steps: the mean rate V the last step aimed each velocity
                                   // constraint at (see velocityConstraintTarget); NaN or empty: none
  std::vector<Vec3> velocityMiss;  // velocity-level steps: how far each velocity constraint's mean rate missed the
                                   // rate the last step's solve set (see velocityConstraintTarget); m/s
  std::vector<Vec3> velocityIntegral;  // per constraint: a velocity constraint's error integrated over the steps
                                       // since it became active, int g dt (Constraint::nonholonomic), m; zero
                                       // for the others and while inactive
  // contacts: the pairs of bodies (lower index first, ascending) passing through each other since
  // one of them met the other while its joints assembled, until they come apart (ContactStage)
  std::vector<std::pair<int, int>> passing;
  // contacts: the last contact stage's contacts that rested, with their forces, for the next
  // stage's friction sweeps to start from (ContactStage::resolve)
  std::vector<RestingContact> resting;
};

struct State {
  double t = 0.0;                  // s
  std::vector<BodyState> bodies;
  Params params;
  std::size_t nextEvent = 0;       // index into Model::events of the first event not yet applied
  double hNext = 0.0;              // adaptive integrators: proposed next step, s (0 = none yet)
  int substeps = 1;                // fixed-step integrators: substeps per step now (see Simulation::stepSubdivided)
  int calmSteps = 0;               // steps in a row that half as many substeps would have taken
  double calmTurn = 0.0;           // the largest turn per step (a substep's times the substeps) in those, rad
  StepMemory memory;               // what the last step left for the next one
};

}  // namespace tether::core
