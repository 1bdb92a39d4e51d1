// The simulation thread (ARCHITECTURE.md, "Threads"). The solver thread alone owns the
// core::Simulation and its State; the UI talks to it only through queued messages, which the
// thread drains between steps, and reads the newest immutable Snapshot it published. The
// snapshot slot is a shared_ptr guarded by a mutex held only to copy the pointer (never during
// a step or a draw), so neither side waits for the other's work. (GCC 12's
// std::atomic<std::shared_ptr> would do the same with a lock bit ThreadSanitizer cannot see.)
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>

#include "core/live_edit.h"
#include "core/snapshot.h"

namespace tether::ui {

class SimulationController {
 public:
  SimulationController();
  ~SimulationController();  // stops the thread
  SimulationController(const SimulationController&) = delete;
  SimulationController& operator=(const SimulationController&) = delete;

  // Messages (UI thread; none of them waits for a step).
  // A new version of the document's scene. restart: a different scene (open, new): start from
  // its initial state, paused; otherwise the running model carries over (core::carryOver).
  void load(const core::Scene& scene, long revision, bool restart);
  void play();
  void pause();
  void step();                     // one frame (1/60 s of simulated time) while paused
  void reset();                    // back to the initial state, paused
  void setSpeed(double factor);    // 0.1 .. 4 simulated seconds per wall second
  void setRealTime(bool on);       // off: as fast as the machine allows
  // The mouse spring: grab a body point (body index in the current model) toward a target.
  void drag(int body, const core::Vec3& local, const core::Vec3& target);
  void endDrag();

  // The newest snapshot (never null after construction).
  std::shared_ptr<const core::Snapshot> snapshot() const {
    std::lock_guard lock(m_snapshotMutex);
    return m_snapshot;
  }

  static constexpr double kFrame = 1.0 / 60.0;  // s of simulated time per step() and per frame

 private:
  struct Load { core::Scene scene; long revision; bool restart; };
  struct Play {};
  struct Pause {};
  struct Step {};
  struct Reset {};
  struct Speed { double factor; };
  struct RealTime { bool on; };
  struct Drag { int body; core::Vec3 local, target; };
  struct EndDrag {};
  struct Quit {};
  using Message = std::variant<Load, Play, Pause, Step, Reset, Speed, RealTime, Drag, EndDrag, Quit>;

  void post(Message m);
  void run();                      // the solver thread
  bool handle(Message& m);         // false on Quit
  void advanceFrame(double simSeconds);
  void publish();

  // shared between threads: the queue (under m_mutex) and the snapshot slot
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::deque<Message> m_queue;
  mutable std::mutex m_snapshotMutex;
  std::shared_ptr<const core::Snapshot> m_snapshot;

  // owned by the solver thread alone
  core::Scene m_scene;
  std::shared_ptr<const core::Model> m_model;
  std::unique_ptr<core::Simulation> m_sim;
  std::shared_ptr<const core::SceneGeometry> m_geometry;
  long m_revision = 0;
  bool m_playing = false;
  double m_speed = 1.0;
  bool m_realTime = true;
  long m_steps = 0;
  double m_rate = 0.0;             // steps per wall second, smoothed
  std::string m_message;
  std::chrono::steady_clock::time_point m_lastFrame;

  std::thread m_thread;            // last: starts after every member above exists
};

}  // namespace tether::ui
