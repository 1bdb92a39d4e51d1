// What the debug overlay shows and at what scale, decided without GL (unit-tested in
// tests/render/): the view options, and the arrow scales chosen for a snapshot.
#pragma once

#include "core/snapshot.h"

namespace tether::render {

struct ViewOptions {
  bool debugDraw = true;          // false: "animation" mode, bodies only (as in the paper)
  bool constraintForces = true;
  bool externalForces = false;
  bool torques = true;
  bool deviationLines = true;     // constraint geometry: point pairs, lines, planes, paths
  bool velocities = false;
  bool controlPoints = false;     // show every control point (the constraint tools turn it on)
  bool grid = true;
  double forceScaleFactor = 1.0;  // user multiplier on the automatic arrow scale
};

// The scale the arrows were drawn with, for the on-screen legend.
struct ArrowScale {
  double newtonsPerMetre = 1.0;        // force arrows
  double newtonMetresPerMetre = 1.0;   // torque arrows
  double secondsPerMetre = 1.0;        // velocity arrows: (m/s) per m of arrow
  bool forces = false, torques = false, velocities = false;  // which kinds were drawn
};

// 1, 2 or 5 times a power of ten, >= x (1 for x <= 0 or not finite).
double niceCeil(double x);

// Arrow scales for a snapshot: the longest arrow of each kind (constraint forces, and external
// forces when shown; torques; velocities) is at most a fifth of the view distance times
// view.forceScaleFactor and more than a fifth of that (round numbers step by at most 2.5), in
// round units per metre of arrow. The flags say nothing is drawn yet (drawSnapshot sets them).
ArrowScale chooseArrowScale(const core::Snapshot& snap, const ViewOptions& view, double viewDistance);

}  // namespace tether::render
