// External applied forces (paper Fig. 15, step 1) and their potential energies.
#pragma once

#include <vector>

#include "core/constraint.h"
#include "core/model.h"

namespace tether::core {

// Adds every enabled force's contribution to F (N) and T (N m, about each centre of mass).
// Bodies that are inactive or fixed receive nothing.
void accumulateExternalForces(const Model& model, const Params& params, const EvalContext& ctx,
                              std::vector<Vec3>& F, std::vector<Vec3>& T);

struct Energy {
  double kinetic = 0.0;    // J: sum 1/2 P.v + 1/2 L.w
  double gravity = 0.0;    // J: -sum m g . x
  double springs = 0.0;    // J: 1/2 k (l - l0)^2 for springs, 1/2 k (theta - theta0)^2 for torsion springs
  double total() const { return kinetic + gravity + springs; }
};

Energy energy(const Model& model, const State& state);

// World-frame kinematics of every body of a state (inactive and fixed bodies do not move).
void bodyKinematics(const Model& model, const Params& params, const std::vector<BodyState>& bodies,
                    std::vector<BodyKinematics>& out);
// The same from a packed state y (see pack(); kBodyDofs per body).
void bodyKinematics(const Model& model, const Params& params, const Eigen::VectorXd& y,
                    std::vector<BodyKinematics>& out);

}  // namespace tether::core
