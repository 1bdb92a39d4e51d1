#include "core/plot_data.h"

#include <algorithm>
#include <cmath>

#include "core/constraint_type.h"

namespace tether::core {

FrameSample frameSample(const Snapshot& s) {
  FrameSample f;
  f.t = s.t;
  f.energy = s.energy;
  f.geometry = s.geometry;
  const size_t nb = s.bodies.size();
  f.bodyActive.resize(nb);
  f.x.resize(nb);
  f.v.resize(nb);
  f.w.resize(nb);
  for (size_t i = 0; i < nb; ++i) {
    const BodyPose& p = s.bodies[i];
    f.bodyActive[i] = p.active;
    f.x[i] = p.x;
    f.v[i] = p.v;
    f.w[i] = p.w;
  }
  f.deviation.assign(s.constraints.size(), -1.0);
  f.force.assign(s.constraints.size(), -1.0);
  for (size_t j = 0; j < s.constraints.size(); ++j) {
    const ConstraintDraw& c = s.constraints[j];
    if (!c.active) continue;
    f.deviation[j] = c.deviation;
    // as the viewport's hover reports it: the larger of the forces on its (one or two) bodies
    double F = 0.0;
    for (int k = 0; k < c.nb; ++k) F = std::max(F, c.force[k].norm());
    f.force[j] = F;
  }
  return f;
}

std::string PlotQuantity::key() const {
  switch (kind) {
    case Kind::Kinetic: return "energy:kinetic";
    case Kind::Potential: return "energy:potential";
    case Kind::Total: return "energy:total";
    case Kind::Body: return "body:" + object + ":" + std::to_string(component);
    case Kind::Deviation: return "deviation:" + object + ":" + std::to_string(component);
    case Kind::Force: return "force:" + object;
  }
  return {};
}

std::vector<PlotQuantity> plotQuantities(const SceneGeometry& g) {
  using K = PlotQuantity::Kind;
  std::vector<PlotQuantity> out = {{K::Kinetic, {}, 0, "Kinetic energy", "J"},
                                   {K::Potential, {}, 0, "Potential energy", "J"},
                                   {K::Total, {}, 0, "Total energy", "J"}};
  static const char* const kComponent[9] = {"x", "y", "z", "vx", "vy", "vz", "ωx", "ωy", "ωz"};
  static const char* const kUnit[3] = {"m", "m/s", "rad/s"};
  for (const BodyGeometry& b : g.bodies)
    for (int c = 0; c < 9; ++c) out.push_back({K::Body, b.name, c, b.name + " " + kComponent[c], kUnit[c / 3]});
  // a definition's parts are consecutive and share its name
  for (size_t j = 0; j < g.constraintNames.size();) {
    const std::string& name = g.constraintNames[j];
    size_t parts = 1;
    while (j + parts < g.constraintNames.size() && g.constraintNames[j + parts] == name) ++parts;
    // each part's unit and name as its type labels them (lengths, angles: core/constraint_type.h)
    const std::vector<DeviationPart>& labels = g.constraintDefs[j].type().deviations;
    for (size_t p = 0; p < parts; ++p) {
      const DeviationPart d = p < labels.size() ? labels[p] : DeviationPart{};
      out.push_back({K::Deviation, name, int(p), name + " |D|" + d.suffix, d.unit});
    }
    out.push_back({K::Force, name, 0, name + " |F|", "N"});
    j += parts;
  }
  return out;
}

double PlotReader::operator()(const FrameSample& s) {
  using K = PlotQuantity::Kind;
  switch (m_q.kind) {
    case K::Kinetic: return s.energy.kinetic;
    case K::Potential: return s.energy.gravity + s.energy.springs;
    case K::Total: return s.energy.total();
    default: break;
  }
  if (!s.geometry) return kNoValue;
  if (s.geometry.get() != m_geometry) {
    m_geometry = s.geometry.get();
    m_index.clear();
    if (m_q.kind == K::Body) {
      for (size_t i = 0; i < m_geometry->bodies.size(); ++i)
        if (m_geometry->bodies[i].name == m_q.object) m_index.push_back(int(i));
    } else {
      for (size_t j = 0; j < m_geometry->constraintNames.size(); ++j)
        if (m_geometry->constraintNames[j] == m_q.object) m_index.push_back(int(j));
    }
  }
  if (m_q.kind == K::Body) {
    if (m_index.empty()) return kNoValue;
    const size_t i = size_t(m_index.front());
    if (i >= s.x.size() || !s.bodyActive[i]) return kNoValue;
    const Vec3& v = m_q.component < 3 ? s.x[i] : m_q.component < 6 ? s.v[i] : s.w[i];
    return v[m_q.component % 3];
  }
  if (m_q.kind == K::Deviation) {
    if (size_t(m_q.component) >= m_index.size()) return kNoValue;
    const double d = s.deviation[size_t(m_index[size_t(m_q.component)])];
    return d < 0.0 ? kNoValue : d;
  }
  // |F| of the whole constraint: the largest over its parts (a hinge's axis part pushes no force)
  double F = -1.0;
  for (int j : m_index) F = std::max(F, s.force[size_t(j)]);
  return F < 0.0 ? kNoValue : F;
}

void decimateMinMax(const std::vector<double>& x, const std::vector<double>& y, int buckets,
                    std::vector<double>& outX, std::vector<double>& outY) {
  outX.clear();
  outY.clear();
  const size_t n = std::min(x.size(), y.size());
  if (buckets < 1 || n <= size_t(2 * buckets) + 2) {
    outX.assign(x.begin(), x.begin() + std::ptrdiff_t(n));
    outY.assign(y.begin(), y.begin() + std::ptrdiff_t(n));
    return;
  }
  outX.reserve(2 * size_t(buckets) + 2);
  outY.reserve(2 * size_t(buckets) + 2);
  const double x0 = x.front(), span = x.back() - x.front();
  size_t i = 0;
  for (int b = 0; b < buckets && i < n; ++b) {
    const double end = b + 1 == buckets ? std::numeric_limits<double>::infinity() : x0 + span * (b + 1) / buckets;
    size_t lo = n, hi = n;  // where this stretch's extremes are
    for (; i < n && x[i] < end; ++i) {
      if (std::isnan(y[i])) continue;
      if (lo == n || y[i] < y[lo]) lo = i;
      if (hi == n || y[i] > y[hi]) hi = i;
    }
    if (lo == n) continue;
    // in x order, so the line runs through both
    const size_t first = std::min(lo, hi), second = std::max(lo, hi);
    outX.push_back(x[first]);
    outY.push_back(y[first]);
    if (second != first) {
      outX.push_back(x[second]);
      outY.push_back(y[second]);
    }
  }
}

}  // namespace tether::core
