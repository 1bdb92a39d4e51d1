#include "render/overlay.h"

#include <algorithm>
#include <cmath>

namespace tether::render {

double niceCeil(double x) {
  if (!(x > 0) || !std::isfinite(x)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10 * p;
}

ArrowScale chooseArrowScale(const core::Snapshot& snap, const ViewOptions& view, double viewDistance) {
  double maxF = 0, maxT = 0, maxV = 0;
  for (const core::ConstraintDraw& c : snap.constraints)
    for (int s = 0; s < c.nb; ++s) {
      maxF = std::max(maxF, c.force[s].norm());
      maxT = std::max(maxT, c.torque[s].norm());
    }
  for (const core::BodyPose& p : snap.bodies)
    if (p.active) {
      if (view.externalForces) maxF = std::max(maxF, p.externalForce.norm());
      maxV = std::max(maxV, p.v.norm());
    }
  const double reach = 0.2 * viewDistance * view.forceScaleFactor;
  ArrowScale a;
  a.newtonsPerMetre = niceCeil(maxF / reach);
  a.newtonMetresPerMetre = niceCeil(maxT / reach);
  a.secondsPerMetre = niceCeil(maxV / reach);
  return a;
}

}  // namespace tether::render
