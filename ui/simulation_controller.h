// The simulation thread (ARCHITECTURE.md, "Threads"). The solver thread alone owns the
// core::Simulation, its State and the recorded History; the UI talks to it only through queued
// messages, which the thread drains between frames, and reads the newest immutable Snapshot it
// published. The snapshot slot is a shared_ptr guarded by a mutex held only to copy the pointer
// (never during a step or a draw), so neither side waits for the other's work. (GCC 12's
// std::atomic<std::shared_ptr> would do the same with a lock bit ThreadSanitizer cannot see.)
//
// Time advances in frames on the grid k * F (core::framePeriod: a multiple of the step near
// 1/60 s), and every frame's State is recorded, so that
//  - scrubbing (seek) shows any recorded frame at once, without simulating;
//  - playing from a scrubbed-back frame replays the recorded frames;
//  - an edit of the timeline whose first change is at time t rewinds to the last frame before t
//    and re-simulates up to where the playhead was: the same frames a fresh run gives (a run
//    resumed from a recorded state repeats the uninterrupted run bitwise);
//  - any other edit of the scene continues live from the current state (core::carryOver): a
//    constraint added while playing assembles there; later frames are discarded.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>

#include "core/history.h"
#include "core/live_edit.h"
#include "core/snapshot.h"
#include "ui/frame_samples.h"

namespace tether::ui {

// What the timeline shows of the solver's history (in every snapshot).
struct HistoryInfo {
  double start = 0.0, end = 0.0;  // recorded range, s
  std::size_t frames = 0, bytes = 0, limit = 0;
  double framePeriod = 1.0 / 60;  // s
  bool loop = false;
  double loopStart = 0.0, loopEnd = 0.0;  // s
};

// A re-simulation after a timeline edit in progress (the solver publishes snapshots while it
// runs): from the frame it rewound to, up to where the playhead was; the snapshot's t is how far
// it got. id tells one re-simulation from the next (cancelResimulation takes it).
struct ResimulationInfo {
  bool active = false;
  long id = 0;
  double from = 0.0, to = 0.0;  // s
};

struct ControllerSnapshot : core::Snapshot {
  HistoryInfo history;
  // while playing: simulated seconds per wall second over the last half second or so (0: not
  // measured yet), and the speed asked for (in real time; 0 when running as fast as possible)
  double realTimeFactor = 0.0;
  double speed = 1.0;
  ResimulationInfo resimulation;
  bool stoppedAtEnd = false;  // playing stopped itself at the scene's duration
};

class SimulationController {
 public:
  explicit SimulationController(std::size_t historyBytes = 256u << 20);
  ~SimulationController();  // stops the thread
  SimulationController(const SimulationController&) = delete;
  SimulationController& operator=(const SimulationController&) = delete;

  // Messages (UI thread; none of them waits for a step).
  // A new version of the document's scene. restart: a different scene (open, new): start from
  // its initial state, paused, with an empty history; otherwise see the header comment.
  void load(const core::Scene& scene, long revision, bool restart);
  void play();
  void pause();
  void step();                     // one frame forward while paused
  void stepBack();                 // one recorded frame back
  void seek(double t);             // show the recorded frame nearest t
  void jumpToStart();
  void jumpToEnd();                // the last recorded frame
  void setLoop(bool on, double start, double end);  // while playing, wrap from end to start
  void reset();                    // back to the initial state, paused, history cleared
  void setSpeed(double factor);    // 0.1 .. 4 simulated seconds per wall second
  void setRealTime(bool on);       // off: as fast as the machine allows
  void setHistoryLimit(std::size_t bytes);
  // The mouse spring: grab a body point (body index in the current model) toward a target.
  void drag(int body, const core::Vec3& local, const core::Vec3& target);
  void endDrag();
  // Stop the re-simulation `id` (ResimulationInfo) where it got to: the history ends there, the
  // frame there is shown, paused. Ignored if that one has finished.
  void cancelResimulation(long id) { m_cancelResimulation = id; }
  // Snapshots of the recorded frames nearest each of `times` (null where nothing is recorded),
  // for export: the solver thread makes them from its history between frames, without changing
  // the shown frame or the history.
  using Frames = std::vector<std::shared_ptr<const core::Snapshot>>;
  std::future<Frames> recordedFrames(std::vector<double> times);

  // Whether the simulation plays or is about to: the last play / pause / reset asked for (on
  // the UI thread, before the solver has taken it), or the solver's own stop (a divergence).
  // A mouse press decides by it between pulling a body with a spring and moving its start
  // pose: a snapshot can still say "paused" right after Space.
  bool playRequested() const { return m_playRequested; }

  // One plot sample per recorded frame, cut and dropped with the history (the plot dock reads it
  // from the GUI thread: see ui/frame_samples.h).
  const FrameSampleStore& samples() const { return m_samples; }

  // The newest snapshot (never null after construction).
  std::shared_ptr<const ControllerSnapshot> snapshot() const {
    std::lock_guard lock(m_snapshotMutex);
    return m_snapshot;
  }

 private:
  struct Load { core::Scene scene; long revision; bool restart; };
  struct Play {};
  struct Pause {};
  struct Step {};
  struct StepBack {};
  struct Seek { double t; };
  struct JumpStart {};
  struct JumpEnd {};
  struct Loop { bool on; double start, end; };
  struct Reset {};
  struct Speed { double factor; };
  struct RealTime { bool on; };
  struct HistoryLimit { std::size_t bytes; };
  struct Drag { int body; core::Vec3 local, target; };
  struct EndDrag {};
  struct RecordedFrames { std::vector<double> times; std::shared_ptr<std::promise<Frames>> result; };
  struct Quit {};
  using Message = std::variant<Load, Play, Pause, Step, StepBack, Seek, JumpStart, JumpEnd, Loop, Reset, Speed,
                               RealTime, HistoryLimit, Drag, EndDrag, RecordedFrames, Quit>;

  // A recorded state may hold the mouse spring of a drag that has ended since (a frame shown by
  // a seek, the start of a re-simulation): simulating on from it must not replay the drag.
  void dropEndedDrag();
  void post(Message m);
  void run();                      // the solver thread
  bool handle(Message& m);         // false on Quit
  void load(Load& l);
  void restart();                  // initial state, history = its first frame
  // Replay or simulate one frame and record it; false on divergence. With loop, a frame at the
  // loop's end wraps to its start (playing only: a rewind's re-simulation must move forward).
  bool nextFrame(bool loop = true);
  void showFrame(const core::State& s);
  // Record the current state as a frame, with its plot sample; the snapshot filled for the
  // sample is kept for publish() (one evaluation serves both) until the state changes again.
  void recordFrame();
  void truncateHistory(double t, bool strict);
  void publish();
  // fillSnapshot at the simulation's state, without the contacts of a step it did not just take
  void fillShown(core::Snapshot& snap);

  // shared between threads: the queue (under m_mutex) and the snapshot slot
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::deque<Message> m_queue;
  mutable std::mutex m_snapshotMutex;
  std::shared_ptr<const ControllerSnapshot> m_snapshot;
  FrameSampleStore m_samples;  // has its own lock
  std::atomic<bool> m_quit{false};  // set by the destructor: long re-simulations stop early
  std::atomic<long> m_cancelResimulation{0};  // the id of a re-simulation the user stopped

  // owned by the solver thread alone
  core::Scene m_scene;
  std::shared_ptr<const core::Model> m_model;
  std::unique_ptr<core::Simulation> m_sim;
  std::shared_ptr<const core::SceneGeometry> m_geometry;
  core::History m_history;
  std::shared_ptr<ControllerSnapshot> m_prepared;  // filled at the current state, or null
  double m_frame = 1.0 / 60;       // frame period, s
  long m_revision = 0;
  bool m_playing = false;
  // Play stops at the scene's duration when it starts before it (m_stopAt; else infinity)
  double m_stopAt = std::numeric_limits<double>::infinity();
  bool m_stoppedAtEnd = false;
  std::atomic<bool> m_playRequested{false};
  bool m_dragging = false;  // the mouse button holds a drag now (Drag until EndDrag)
  double m_speed = 1.0;
  // the real-time factor: simulated and wall time accumulated while playing, and the last value
  double m_factorSim = 0.0, m_factorWall = 0.0, m_factor = 0.0;
  bool m_realTime = true;
  bool m_loop = false;
  double m_loopStart = 0.0, m_loopEnd = 0.0;
  long m_steps = 0;
  double m_rate = 0.0;             // steps per wall second, smoothed
  double m_debt = 0.0;             // simulated time owed to real time, s
  std::string m_message;
  // the simulation's contacts (Simulation::contacts) are those of the state it holds: it stepped
  // to it (false once a frame is replayed from the history: then the contacts recorded with it)
  bool m_contactsCurrent = false;
  std::vector<core::ContactDraw> m_shownContacts;  // a replayed frame's recorded contacts (!m_contactsCurrent)
  std::chrono::steady_clock::time_point m_lastFrame;
  ResimulationInfo m_resimulation;  // while load() re-simulates

  std::thread m_thread;            // last: starts after every member above exists
};

}  // namespace tether::ui
