// One contact as the app draws it and as the history keeps it with each frame.
#pragma once
#include "core/math.h"

namespace tether::core {

// One contact of a step (Simulation::contacts): the force the other side (a body or a ground
// plane) pushes body A with, as the step's average, at the surface point it pushes to.
struct ContactDraw {
  int bodyA = -1, bodyB = -1;      // bodyB -1: the ground plane `plane`
  int plane = -1;
  Vec3 at = Vec3::Zero();          // the contact point on B's surface, world, m
  Vec3 force = Vec3::Zero();       // on body A: (impulse / h) n, N (the reaction on B is -force)
};

}  // namespace tether::core
