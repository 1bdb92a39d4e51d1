// Scenes used by benchmarks (tests/bench and, later, tether-cli bench): one definition each.
#pragma once

#include "core/scene.h"

namespace tether::core {

// The hanging chain of the solver issue: N rods of length 0.1 m and mass 0.05 kg (solid
// cylinders of radius 0.01 m), joined end to end by point-to-point constraints, the first rod's
// free end on a nail, starting straight and horizontal along +x; gravity 9.81, no damping,
// dt = 1/240 s.
Scene hangingChain(int n);

}  // namespace tether::core
