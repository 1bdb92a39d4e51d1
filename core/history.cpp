#include "core/history.h"

#include <algorithm>
#include <cmath>

namespace tether::core {

std::size_t stateBytes(const State& s) {
  const Params& p = s.params;
  return sizeof(State) + s.bodies.capacity() * sizeof(BodyState) +
         (s.memory.impulses.capacity() + s.memory.lastForce.capacity() + s.memory.rateOffset.capacity() + s.memory.velocityAim.capacity() + s.memory.velocityMiss.capacity() + s.memory.spinTrend.dw.capacity() +
          s.memory.velocityIntegral.capacity()) * sizeof(Vec3) + s.memory.assembled.capacity() +
         p.bodyActive.capacity() + p.bodyCollides.capacity() + p.bodyMaterial.capacity() * sizeof(Vec3) +
         p.constraintEnabled.capacity() +
         p.tau.capacity() * sizeof(double) + p.forceEnabled.capacity() + p.force.capacity() * sizeof(ForceParams) +
         p.pathClock.capacity() * sizeof(PathClock);
}

double framePeriod(double dt) {
  const double k = std::max(1.0, std::round((1.0 / 60.0) / dt));
  return k * dt;
}

void History::setLimit(std::size_t bytes) {
  m_limit = bytes;
  while (m_bytes > m_limit && !m_frames.empty()) {
    m_bytes -= stateBytes(m_frames.front());
    m_frames.pop_front();
  }
}

void History::record(const State& s) {
  truncateAfter(s.t, true);
  State copy = s;
  copy.bodies.shrink_to_fit();  // frames hold exactly what they need
  const std::size_t b = stateBytes(copy);
  while (!m_frames.empty() && m_bytes + b > m_limit) {
    m_bytes -= stateBytes(m_frames.front());
    m_frames.pop_front();
  }
  if (b > m_limit) return;  // a limit below one frame records nothing
  m_bytes += b;
  m_frames.push_back(std::move(copy));
}

void History::truncateAfter(double time, bool strict) {
  while (!m_frames.empty() && (strict ? m_frames.back().t >= time : m_frames.back().t > time)) {
    m_bytes -= stateBytes(m_frames.back());
    m_frames.pop_back();
  }
}

void History::clear() {
  m_frames.clear();
  m_bytes = 0;
}

double History::start() const { return m_frames.empty() ? 0.0 : m_frames.front().t; }
double History::end() const { return m_frames.empty() ? 0.0 : m_frames.back().t; }

const State* History::atOrBefore(double time, bool strict) const {
  // frames are sorted by t: the last one not after time
  auto it = strict ? std::lower_bound(m_frames.begin(), m_frames.end(), time,
                                      [](const State& s, double t) { return s.t < t; })
                   : std::upper_bound(m_frames.begin(), m_frames.end(), time,
                                      [](double t, const State& s) { return t < s.t; });
  if (it == m_frames.begin()) return nullptr;
  return &*std::prev(it);
}

const State* History::nearest(double time) const {
  if (m_frames.empty()) return nullptr;
  auto it = std::lower_bound(m_frames.begin(), m_frames.end(), time, [](const State& s, double t) { return s.t < t; });
  if (it == m_frames.end()) return &m_frames.back();
  if (it == m_frames.begin()) return &*it;
  const auto prev = std::prev(it);
  return (time - prev->t <= it->t - time) ? &*prev : &*it;
}

const State* History::after(double time) const {
  auto it = std::upper_bound(m_frames.begin(), m_frames.end(), time, [](double t, const State& s) { return t < s.t; });
  return it == m_frames.end() ? nullptr : &*it;
}

}  // namespace tether::core
