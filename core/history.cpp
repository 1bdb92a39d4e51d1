#include "core/history.h"

#include <algorithm>
#include <cmath>

namespace tether::core {

std::size_t stateBytes(const State& s) {
  const Params& p = s.params;
  return sizeof(State) + s.bodies.capacity() * sizeof(BodyState) +
         (s.memory.impulses.capacity() + s.memory.lastForce.capacity() + s.memory.rateOffset.capacity() + s.memory.velocityAim.capacity() + s.memory.velocityMiss.capacity() + s.memory.spinTrend.dw.capacity() +
          s.memory.velocityIntegral.capacity()) * sizeof(Vec3) + s.memory.assembled.capacity() +
         s.memory.lawSteps.capacity() * sizeof(LawStep) +
         s.memory.passing.capacity() * sizeof(std::pair<int, int>) + s.memory.resting.capacity() * sizeof(RestingContact) +
         p.bodyActive.capacity() + p.bodyCollides.capacity() + p.bodyMaterial.capacity() * sizeof(Eigen::Vector4d) +
         p.constraintEnabled.capacity() +
         p.tau.capacity() * sizeof(double) + p.forceEnabled.capacity() + p.force.capacity() * sizeof(ForceParams) +
         p.pathClock.capacity() * sizeof(PathClock);
}

double framePeriod(double dt) {
  const double k = std::max(1.0, std::round((1.0 / 60.0) / dt));
  return k * dt;
}

std::size_t History::frameBytes(const Frame& f) {
  return stateBytes(f.state) + f.contacts.capacity() * sizeof(ContactDraw);
}

void History::setLimit(std::size_t bytes) {
  m_limit = bytes;
  while (m_bytes > m_limit && !m_frames.empty()) {
    m_bytes -= frameBytes(m_frames.front());
    m_frames.pop_front();
  }
}

void History::record(const State& s, std::vector<ContactDraw> contacts) {
  truncateAfter(s.t, true);
  Frame f{s, std::move(contacts)};
  f.state.bodies.shrink_to_fit();  // frames hold exactly what they need
  f.contacts.shrink_to_fit();
  const std::size_t b = frameBytes(f);
  while (!m_frames.empty() && m_bytes + b > m_limit) {
    m_bytes -= frameBytes(m_frames.front());
    m_frames.pop_front();
  }
  if (b > m_limit) return;  // a limit below one frame records nothing
  m_bytes += b;
  m_frames.push_back(std::move(f));
}

void History::truncateAfter(double time, bool strict) {
  while (!m_frames.empty() && (strict ? m_frames.back().state.t >= time : m_frames.back().state.t > time)) {
    m_bytes -= frameBytes(m_frames.back());
    m_frames.pop_back();
  }
}

void History::clear() {
  m_frames.clear();
  m_bytes = 0;
}

double History::start() const { return m_frames.empty() ? 0.0 : m_frames.front().state.t; }
double History::end() const { return m_frames.empty() ? 0.0 : m_frames.back().state.t; }

const State* History::atOrBefore(double time, bool strict) const {
  // frames are sorted by t: the last one not after time
  auto it = strict ? std::lower_bound(m_frames.begin(), m_frames.end(), time,
                                      [](const Frame& f, double t) { return f.state.t < t; })
                   : std::upper_bound(m_frames.begin(), m_frames.end(), time,
                                      [](double t, const Frame& f) { return t < f.state.t; });
  if (it == m_frames.begin()) return nullptr;
  return &std::prev(it)->state;
}

const State* History::nearest(double time) const {
  if (m_frames.empty()) return nullptr;
  auto it = std::lower_bound(m_frames.begin(), m_frames.end(), time, [](const Frame& f, double t) { return f.state.t < t; });
  if (it == m_frames.end()) return &m_frames.back().state;
  if (it == m_frames.begin()) return &it->state;
  const auto prev = std::prev(it);
  return (time - prev->state.t <= it->state.t - time) ? &prev->state : &it->state;
}

const State* History::after(double time) const {
  auto it = std::upper_bound(m_frames.begin(), m_frames.end(), time, [](double t, const Frame& f) { return t < f.state.t; });
  return it == m_frames.end() ? nullptr : &it->state;
}

const std::vector<ContactDraw>& History::contactsOf(const State* frame) const {
  static const std::vector<ContactDraw> none;
  if (!frame || m_frames.empty()) return none;
  // the frame with that state's time, if the pointer is its state
  auto it = std::lower_bound(m_frames.begin(), m_frames.end(), frame->t, [](const Frame& f, double t) { return f.state.t < t; });
  return it != m_frames.end() && &it->state == frame ? it->contacts : none;
}

}  // namespace tether::core
