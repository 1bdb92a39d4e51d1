// The recorded history of a run: the State at each frame time (with the contacts of the step
// that reached it, to draw), so a GUI can scrub to any
// recorded frame at once and resume from it (a run resumed from a recorded State repeats the
// uninterrupted run bitwise: core/simulation.h). Frames lie on a fixed frame grid of the
// simulation's time-step grid; memory is bounded: when a new frame would exceed the limit, the
// oldest frames are dropped.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <vector>

#include "core/contact_draw.h"
#include "core/state.h"

namespace tether::core {

// Bytes a State occupies (its object and the storage of its vectors).
std::size_t stateBytes(const State& s);

// The frame period for a time step dt: the multiple of dt nearest to 1/60 s (at least dt), so
// that every frame time k * period lies on the step grid.
double framePeriod(double dt);

class History {
 public:
  explicit History(std::size_t limitBytes = 256u << 20) : m_limit(limitBytes) {}

  void setLimit(std::size_t bytes);  // drops the oldest frames if over
  std::size_t limit() const { return m_limit; }
  std::size_t bytes() const { return m_bytes; }
  std::size_t size() const { return m_frames.size(); }
  bool empty() const { return m_frames.empty(); }

  // Append a frame, with the contacts of the step that reached it (to draw when it is replayed);
  // its time must be after the last one's (earlier frames are discarded first: recording after
  // a seek replaces what followed). Drops the oldest frames to stay in bounds.
  void record(const State& s, std::vector<ContactDraw> contacts = {});
  // Discard every frame with t > time (keep t <= time), or with t >= time when strict.
  void truncateAfter(double time, bool strict = false);
  void clear();

  double start() const;  // time of the first frame (0 if empty)
  double end() const;    // time of the last frame (0 if empty)
  // The latest frame with t <= time (t < time when strict), if any.
  const State* atOrBefore(double time, bool strict = false) const;
  // The frame nearest to time, if any.
  const State* nearest(double time) const;
  // The first frame after time, if any (replaying forward).
  const State* after(double time) const;
  // The contacts recorded with a frame these return (empty for any other state).
  const std::vector<ContactDraw>& contactsOf(const State* frame) const;

 private:
  struct Frame {
    State state;
    std::vector<ContactDraw> contacts;
  };
  static std::size_t frameBytes(const Frame& f);
  std::deque<Frame> m_frames;
  std::size_t m_limit;
  std::size_t m_bytes = 0;
};

}  // namespace tether::core
