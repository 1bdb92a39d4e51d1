#include "render/overlay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tether::render {

namespace {

bool usable(double x) { return x > 0 && std::isfinite(x); }

// x = mantissa * 10^exponent with mantissa in {1, 2, 5}; x must be a ladder value
void ladder(double x, int& mantissa, int& exponent) {
  exponent = int(std::floor(std::log10(x) + 1e-9));
  const double m = x / std::pow(10.0, exponent);
  mantissa = m < 1.5 ? 1 : m < 3.5 ? 2 : 5;
}

}  // namespace

double niceCeil(double x) {
  if (!usable(x)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10 * p;
}

double niceFloor(double x) {
  if (!usable(x)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  // log10 may land a hair off for exact powers: look one decade either side
  for (double m : {10.0, 5.0, 2.0, 1.0, 0.5})
    if (m * p <= x * (1 + 1e-12)) return m * p;
  return 0.2 * p;
}

double niceStep(double x, int steps) {
  int mantissa = 1, exponent = 0;
  ladder(niceCeil(x), mantissa, exponent);
  for (; steps > 0; --steps) {
    if (mantissa == 5) {
      mantissa = 1;
      ++exponent;
    } else {
      mantissa = mantissa == 1 ? 2 : 5;
    }
  }
  for (; steps < 0; ++steps) {
    if (mantissa == 1) {
      mantissa = 5;
      --exponent;
    } else {
      mantissa = mantissa == 5 ? 2 : 1;
    }
  }
  return mantissa * std::pow(10.0, exponent);
}

double noiseFloor(double reference) { return usable(reference) ? kNoiseFraction * reference : 0.0; }

ArrowMaxima largestArrows(const core::Snapshot& snap, const ViewOptions& view) {
  ArrowMaxima m;
  double arm = 1e-3;
  for (const core::ConstraintDraw& c : snap.constraints) {
    if (!c.active) continue;
    for (int s = 0; s < c.nb; ++s) {
      if (c.force[s].norm() > kStillForce) m.force = std::max(m.force, c.force[s].norm());
      if (c.body[s] >= 0 && size_t(c.body[s]) < snap.bodies.size())
        arm = std::max(arm, (c.at[s] - snap.bodies[size_t(c.body[s])].x).norm());
    }
  }
  m.torqueFloor = std::isfinite(m.force * arm) ? kNoiseFraction * m.force * arm : 0.0;
  for (const core::ConstraintDraw& c : snap.constraints) {
    if (!c.active) continue;
    // a torque counts where the walk draws it: beyond round-off beside its force
    for (int s = 0; s < c.nb; ++s)
      if (c.torque[s].norm() > std::max(1e-9 * (1 + c.force[s].norm()), m.torqueFloor))
        m.torque = std::max(m.torque, c.torque[s].norm());
  }
  if (view.contacts)
    for (const core::ContactDraw& c : snap.contacts)
      if (c.force.norm() > kStillForce) m.force = std::max(m.force, c.force.norm());
  // the constant forces and torques the scene applies (drawn as the scene walk does)
  if (snap.geometry)
    for (size_t f = 0; f < snap.forces.size() && f < snap.geometry->forceKinds.size(); ++f) {
      if (!snap.forces[f].active) continue;
      if (snap.geometry->forceKinds[f] == core::ForceKind::ConstantForce) m.force = std::max(m.force, snap.forces[f].vector.norm());
      if (snap.geometry->forceKinds[f] == core::ForceKind::ConstantTorque) m.torque = std::max(m.torque, snap.forces[f].vector.norm());
    }
  for (const core::BodyPose& p : snap.bodies)
    if (p.active) {
      if (view.externalForces && p.externalForce.norm() > kStillForce) m.force = std::max(m.force, p.externalForce.norm());
      if (p.v.norm() > kStillSpeed) m.velocity = std::max(m.velocity, p.v.norm());
    }
  // a non-finite value chooses nothing (the arrow itself is not drawn either)
  for (double* v : {&m.force, &m.torque, &m.velocity})
    if (!std::isfinite(*v)) *v = 0;
  return m;
}

ArrowScale chooseArrowScale(const core::Snapshot& snap, const ViewOptions& view, double viewDistance) {
  const ArrowMaxima m = largestArrows(snap, view);
  const double reach = 0.2 * viewDistance * view.forceScaleFactor;
  ArrowScale a;
  a.newtonsPerMetre = niceCeil(m.force / reach);
  a.newtonMetresPerMetre = niceCeil(m.torque / reach);
  a.secondsPerMetre = niceCeil(m.velocity / reach);
  a.forceNoise = std::max(noiseFloor(m.force), kStillForce);
  a.torqueNoise = std::max(noiseFloor(m.torque), m.torqueFloor);
  a.velocityNoise = std::max(noiseFloor(m.velocity), kStillSpeed);
  return a;
}

double ArrowScaleKeeper::update(double largest, double reach, double t) {
  if (!std::isfinite(largest) || largest < 0) largest = 0;
  m_reference = std::max(m_reference, largest);
  // noise never chooses a scale: a model at rest keeps the one its motion had
  const double signal = largest >= noiseFloor(m_reference) ? largest : 0.0;
  // the sliding maximum over the last kWindow seconds; a jump back (scrubbing, a reset) or
  // past the window starts it afresh
  if (!std::isfinite(t) || t < m_lastT || t - m_lastT > kWindow) m_window.clear();
  m_lastT = std::isfinite(t) ? t : 0.0;
  while (!m_window.empty() && m_window.back().second <= signal) m_window.pop_back();
  m_window.emplace_back(m_lastT, signal);
  while (m_window.front().first < m_lastT - kWindow) m_window.pop_front();
  const double peak = m_window.front().second;
  if (m_fixed && m_scale > 0) return m_scale;
  if (!usable(peak) || !usable(reach)) return unitsPerMetre();
  const double longest = m_scale > 0 ? peak / m_scale : 0.0;
  if (m_scale <= 0 || longest > kGrowAbove * reach || longest < kShrinkBelow * reach) m_scale = niceCeil(peak / reach);
  return m_scale;
}

void ArrowScaleKeeper::setScale(double unitsPerMetre) {
  if (usable(unitsPerMetre)) m_scale = niceCeil(unitsPerMetre);
}

void ArrowScaleKeeper::reset() {
  if (!m_fixed) m_scale = 0;
  m_reference = 0;
  m_lastT = 0;
  m_window.clear();
}

ArrowScale ArrowScales::update(const core::Snapshot& snap, const ViewOptions& view, double viewDistance) {
  const ArrowMaxima m = largestArrows(snap, view);
  const double reach = 0.2 * viewDistance * view.forceScaleFactor;
  ArrowScale a;
  a.newtonsPerMetre = force.update(m.force, reach, snap.t);
  a.newtonMetresPerMetre = torque.update(m.torque, reach, snap.t);
  a.secondsPerMetre = velocity.update(m.velocity, reach, snap.t);
  a.forceNoise = std::max(force.noise(), kStillForce);
  a.torqueNoise = std::max(torque.noise(), m.torqueFloor);
  a.velocityNoise = std::max(velocity.noise(), kStillSpeed);
  return a;
}

void ArrowScales::setFixed(bool on) {
  for (ArrowScaleKeeper* k : {&force, &torque, &velocity}) k->setFixed(on);
}

void ArrowScales::rechoose() {
  for (ArrowScaleKeeper* k : {&force, &torque, &velocity}) k->rechoose();
}

void ArrowScales::reset() {
  for (ArrowScaleKeeper* k : {&force, &torque, &velocity}) k->reset();
}

LegendBar legendBar(double unitsPerMetre, double metresPerPixel, double maxPixels) {
  const double unitsPerPixel = unitsPerMetre * metresPerPixel;
  if (!usable(unitsPerPixel) || !usable(maxPixels)) return {};
  LegendBar b;
  b.value = niceFloor(maxPixels * unitsPerPixel);
  b.pixels = b.value / unitsPerPixel;
  return b;
}

std::string formatQuantity(double value, const std::string& unit) {
  char buf[64];
  const double a = std::abs(value);
  if (a == 0 || !std::isfinite(a) || (a >= 0.01 && a < 1e4)) {
    std::snprintf(buf, sizeof buf, "%g", value);
    return std::string(buf) + " " + unit;
  }
  static const std::pair<int, const char*> prefixes[] = {{-15, "f"}, {-12, "p"}, {-9, "n"}, {-6, "\xC2\xB5"}, {-3, "m"},
                                                         {3, "k"},   {6, "M"},    {9, "G"},  {12, "T"}};
  const int e3 = int(std::floor(std::log10(a) / 3 + 1e-9)) * 3;
  for (const auto& [e, prefix] : prefixes)
    if (e == e3) {
      std::snprintf(buf, sizeof buf, "%g", value / std::pow(10.0, e));
      return std::string(buf) + " " + prefix + unit;
    }
  std::snprintf(buf, sizeof buf, "%g", value);
  return std::string(buf) + " " + unit;
}

}  // namespace tether::render
