// The recorded history as plot samples, shared between the solver thread (which appends one
// sample per recorded frame and cuts them as it cuts its History) and the plot dock (which
// copies what is new a few times a second). The solver holds the mutex only to push or pop a
// pointer; the dock copies pointers to immutable samples, never the samples themselves, and only
// those it does not have yet, so neither side waits on the other's work.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

#include "core/plot_data.h"

namespace tether::ui {

using SamplePtr = std::shared_ptr<const core::FrameSample>;

// The dock's copy: the samples and where they stand in the store's numbering.
struct SampleCopy {
  std::deque<SamplePtr> samples;
  std::uint64_t epoch = ~std::uint64_t(0);  // the store's epoch when copied (none yet)
  std::uint64_t first = 0;                  // sequence number of samples.front()
};

class FrameSampleStore {
 public:
  // Solver thread. push: the sample of a newly recorded frame; samples at or after its time are
  // dropped first (as History::record does).
  void push(SamplePtr s);
  void truncateAfter(double t, bool strict);  // as History::truncateAfter
  void dropBefore(double t);                  // the History dropped its oldest frames
  void clear();

  // GUI thread: bring a copy up to date; what happened to it.
  enum class Update { None, Appended, Rebuilt };
  Update update(SampleCopy& c) const;
  // Any thread: how many times the history was cut from the back (truncation, clear) so far.
  std::uint64_t epoch() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_epoch;
  }

 private:
  mutable std::mutex m_mutex;
  std::deque<SamplePtr> m_samples;
  std::uint64_t m_first = 0;  // sequence number of m_samples.front()
  // counts cuts from the back (truncation, clear): a copy from another epoch may hold samples
  // that no longer exist and is rebuilt; within an epoch samples are only appended or dropped
  // from the front
  std::uint64_t m_epoch = 0;
};

}  // namespace tether::ui
