#include "ui/frame_samples.h"

namespace tether::ui {

void FrameSampleStore::push(SamplePtr s) {
  std::lock_guard lock(m_mutex);
  bool cut = false;
  while (!m_samples.empty() && m_samples.back()->t >= s->t) {
    m_samples.pop_back();
    cut = true;
  }
  if (cut) ++m_epoch;
  m_samples.push_back(std::move(s));
}

void FrameSampleStore::truncateAfter(double t, bool strict) {
  std::lock_guard lock(m_mutex);
  bool cut = false;
  while (!m_samples.empty() && (strict ? m_samples.back()->t >= t : m_samples.back()->t > t)) {
    m_samples.pop_back();
    cut = true;
  }
  if (cut) ++m_epoch;
}

void FrameSampleStore::dropBefore(double t) {
  std::lock_guard lock(m_mutex);
  while (!m_samples.empty() && m_samples.front()->t < t) {
    m_samples.pop_front();
    ++m_first;
  }
}

void FrameSampleStore::clear() {
  std::lock_guard lock(m_mutex);
  m_first += m_samples.size();
  m_samples.clear();
  ++m_epoch;
}

FrameSampleStore::Update FrameSampleStore::update(SampleCopy& c) const {
  std::lock_guard lock(m_mutex);
  if (c.epoch != m_epoch) {
    c.samples.assign(m_samples.begin(), m_samples.end());
    c.first = m_first;
    c.epoch = m_epoch;
    return Update::Rebuilt;
  }
  bool changed = false;
  while (!c.samples.empty() && c.first < m_first) {
    c.samples.pop_front();
    ++c.first;
    changed = true;
  }
  if (c.samples.empty()) c.first = m_first;  // all dropped: start where the store stands
  const std::uint64_t have = c.first + c.samples.size();
  const std::uint64_t end = m_first + m_samples.size();
  for (std::uint64_t k = have; k < end; ++k) c.samples.push_back(m_samples[size_t(k - m_first)]);
  changed = changed || end > have;
  return changed ? Update::Appended : Update::None;
}

}  // namespace tether::ui
