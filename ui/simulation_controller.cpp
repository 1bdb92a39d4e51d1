#include "ui/simulation_controller.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <numbers>
#include <utility>

#include "core/stability.h"

namespace tether::ui {

using Clock = std::chrono::steady_clock;

SimulationController::SimulationController(std::size_t historyBytes) : m_history(historyBytes) {
  m_snapshot = std::make_shared<const ControllerSnapshot>();
  m_thread = std::thread([this] { run(); });
}

SimulationController::~SimulationController() {
  m_quit = true;
  post(Quit{});
  m_thread.join();
}

void SimulationController::post(Message m) {
  {
    std::lock_guard lock(m_mutex);
    // a newer drag target or seek replaces one not yet taken
    const bool coalesce = !m_queue.empty() && m.index() == m_queue.back().index() &&
                          (std::holds_alternative<Drag>(m) || std::holds_alternative<Seek>(m));
    if (coalesce) m_queue.back() = std::move(m);
    else m_queue.push_back(std::move(m));
  }
  m_wake.notify_one();
}

void SimulationController::load(const core::Scene& scene, long revision, bool restart) {
  if (restart) m_playRequested = false;
  post(Load{scene, revision, restart});
}
void SimulationController::play() {
  m_playRequested = true;
  post(Play{});
}
void SimulationController::pause() {
  m_playRequested = false;
  post(Pause{});
}
void SimulationController::step() { post(Step{}); }
void SimulationController::stepBack() { post(StepBack{}); }
void SimulationController::seek(double t) { post(Seek{t}); }
void SimulationController::jumpToStart() { post(JumpStart{}); }
void SimulationController::jumpToEnd() { post(JumpEnd{}); }
void SimulationController::setLoop(bool on, double start, double end) { post(Loop{on, start, end}); }
void SimulationController::reset() {
  m_playRequested = false;
  post(Reset{});
}
void SimulationController::setSpeed(double f) { post(Speed{std::clamp(f, 0.1, 4.0)}); }
void SimulationController::setRealTime(bool on) { post(RealTime{on}); }
void SimulationController::setHistoryLimit(std::size_t bytes) { post(HistoryLimit{bytes}); }
void SimulationController::drag(int body, const core::Vec3& local, const core::Vec3& target) {
  post(Drag{body, local, target});
}
void SimulationController::endDrag() { post(EndDrag{}); }
std::future<SimulationController::Frames> SimulationController::recordedFrames(std::vector<double> times) {
  auto result = std::make_shared<std::promise<Frames>>();
  std::future<Frames> f = result->get_future();
  post(RecordedFrames{std::move(times), std::move(result)});
  return f;
}

void SimulationController::run() {
  std::deque<Message> batch;
  for (;;) {
    {
      std::unique_lock lock(m_mutex);
      if (m_playing && m_realTime) {
        // wait for the next display frame, or a message
        m_wake.wait_until(lock, m_lastFrame + std::chrono::microseconds(16667), [&] { return !m_queue.empty(); });
      } else if (!m_playing) {
        m_wake.wait(lock, [&] { return !m_queue.empty(); });
      }
      batch.swap(m_queue);
    }
    bool changed = !batch.empty();
    for (Message& m : batch)
      if (!handle(m)) return;
    batch.clear();
    if (m_playing && m_sim) {
      // real time: as many frames as the simulated time owed (wall time times the speed), at
      // most a twentieth of a second's worth, so a slow model slows down instead of stalling
      const Clock::time_point now = Clock::now();
      const double wall = std::chrono::duration<double>(now - m_lastFrame).count();
      m_lastFrame = now;
      m_debt = m_realTime ? std::min(m_debt + m_speed * std::min(wall, 0.05), 0.05 * m_speed + m_frame) : m_frame;
      const double t0 = m_sim->state().t;
      while (m_playing && m_debt >= m_frame * (1 - 1e-9)) {
        m_debt -= m_frame;
        if (!nextFrame()) break;
        if (!m_loop && m_sim->state().t >= m_stopAt - 1e-6 * m_frame) {  // (the frames' grid, summed, is off by round-off)
          m_playing = false;
          m_stoppedAtEnd = true;
        }
      }
      // the real-time factor, over about half a second of wall time (a loop wrap or a rewind
      // moves t back: that stretch is not counted)
      const double advanced = m_sim->state().t - t0;
      if (advanced >= 0.0) {
        m_factorSim += advanced;
        m_factorWall += wall;
        if (m_factorWall >= 0.5) {
          m_factor = m_factorSim / m_factorWall;
          m_factorSim = m_factorWall = 0.0;
        }
      }
      changed = true;
    }
    if (changed) publish();
  }
}

void SimulationController::restart() {
  m_sim = std::make_unique<core::Simulation>(m_model);
  m_contactsCurrent = true;  // (none yet)
  m_history.clear();
  m_samples.clear();
  recordFrame();
  m_steps = 0;
  m_debt = 0.0;
  m_message.clear();
}

void SimulationController::dropEndedDrag() {
  if (!m_dragging && m_sim && m_sim->state().params.mouse.body >= 0) m_sim->setMouseSpring(core::MouseSpring{});
}

void SimulationController::recordFrame() {
  const core::State& s = m_sim->state();
  // with the contacts of the step that reached it, drawn again when the frame is replayed
  std::vector<core::ContactDraw> contacts;
  if (m_contactsCurrent) core::contactDraws(*m_sim, contacts);
  m_history.record(s, std::move(contacts));
  auto snap = std::make_shared<ControllerSnapshot>();
  fillShown(*snap);
  if (!m_history.empty() && m_history.end() == s.t) m_samples.push(std::make_shared<const core::FrameSample>(core::frameSample(*snap)));
  else m_samples.truncateAfter(s.t, true);  // the history refused the frame (a limit below one)
  // the history dropped its oldest frames to stay within its memory bound
  if (m_history.empty()) m_samples.clear();
  else m_samples.dropBefore(m_history.start());
  m_prepared = std::move(snap);
}

void SimulationController::truncateHistory(double t, bool strict) {
  m_history.truncateAfter(t, strict);
  m_samples.truncateAfter(t, strict);
}

void SimulationController::fillShown(core::Snapshot& snap) {
  core::fillSnapshot(*m_sim, m_geometry, snap);
  if (!m_contactsCurrent) {
    snap.contacts = m_shownContacts;
    snap.contactProblem.clear();
  }
}

void SimulationController::showFrame(const core::State& s) {
  m_prepared.reset();
  m_sim->setState(s);
  m_contactsCurrent = false;
  m_shownContacts = m_history.contactsOf(&s);
  m_message.clear();
}

bool SimulationController::nextFrame(bool loop) {
  const double t = m_sim->state().t;
  if (loop && m_loop && m_loopEnd > m_loopStart && t >= m_loopEnd - 1e-9) {
    if (const core::State* s = m_history.atOrBefore(m_loopStart)) {
      showFrame(*s);
      return true;
    }
  }
  // a recorded frame ahead (after a seek back): replay it; it is what simulating would give
  if (const core::State* s = m_history.after(t + 1e-9 * m_frame)) {
    if (s->t <= t + m_frame * (1 + 1e-9)) {
      showFrame(*s);
      return true;
    }
  }
  dropEndedDrag();
  // the next frame on the frames' grid; Play's last before the scene's duration ends at the first
  // step at or past it, on the duration itself where it is a whole number of steps (the grid's
  // frame past it was up to a frame late: a helper's 70 s run paused at 70.006 s)
  double target = (std::floor(t / m_frame + 1e-9) + 1.0) * m_frame;
  if (const double dt = m_sim->model().settings.dt; !m_loop && t < m_stopAt - 1e-9 * m_frame) {
    const double last = std::ceil(m_stopAt / dt - 1e-9) * dt;
    if (target > last) target = last;
  }
  const Clock::time_point start = Clock::now();
  core::AdvanceResult r;
  try {
    m_contactsCurrent = true;  // (a failed advance puts a recorded frame back below)
    r = m_sim->advanceTo(target);
  } catch (const std::bad_alloc&) {
    // the solver thread must not take the app (and the user's unsaved work) down with it
    r.ok = false;
    r.message = "out of memory while simulating: the model needs more memory than this machine can give "
                "(fewer constraints on one body, or a smaller model); the scene is unchanged, save your work";
  } catch (const std::exception& e) {
    r.ok = false;
    r.message = std::string("the simulation failed: ") + e.what();
  }
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  m_steps += r.steps;
  if (wall > 0 && r.steps > 0) {
    const double rate = r.steps / wall;  // what the solver sustains, steps per wall second
    m_rate = m_rate > 0 ? 0.8 * m_rate + 0.2 * rate : rate;
  }
  if (!r.ok) {
    // stop and say why, showing the last recorded frame (the solver kept the last sane state,
    // which may lie between frames)
    m_playing = false;
    m_playRequested = m_playing;
    std::string shown;  // (the message's "last sane state" lies between frames: the view shows the frame before it)
    if (const core::State* s = m_history.atOrBefore(m_sim->state().t)) {
      m_sim->setState(*s);
      m_contactsCurrent = false;
      m_shownContacts = m_history.contactsOf(s);
      char text[96];
      std::snprintf(text, sizeof text, "; shown: the last recorded frame, t = %.3f s", s->t);
      shown = text;
    }
    m_prepared.reset();
    m_message = r.message + shown + core::divergenceAdvice(m_scene, r.advice);
    return false;
  }
  recordFrame();
  return true;
}

void SimulationController::load(Load& l) {
  std::shared_ptr<const core::Model> model;
  try {
    model = std::make_shared<const core::Model>(core::compile(l.scene));
  } catch (const std::exception& e) {
    m_message = std::string("cannot compile the scene: ") + e.what();
    m_playing = false;
    m_playRequested = m_playing;
    return;
  }
  // (a different scene has no "first changed event": comparing a 10 000-link chain's events
  // with the old scene's took seconds of an open)
  const std::optional<double> eventChange =
      m_sim && !l.restart ? core::firstEventChange(m_scene, l.scene) : std::nullopt;
  m_geometry = core::sceneGeometry(l.scene, *model);
  m_frame = core::framePeriod(model->settings.dt);
  if (l.restart || !m_sim) {
    m_model = std::move(model);
    m_scene = std::move(l.scene);
    restart();
    m_playing = false;
    return;
  }
  const double now = m_sim->state().t;
  if (eventChange) {
    // the timeline changed from time tc on: frames before tc stay; from the last of them the
    // run is simulated again up to where it was
    const double tc = *eventChange;
    core::State from = m_sim->state();
    bool rewind = tc <= now;
    if (rewind) {
      truncateHistory(tc, true);
      if (const core::State* s = m_history.atOrBefore(tc, true)) from = *s;
      else from = model->initialState();
    } else {
      truncateHistory(tc, true);
    }
    m_model = std::move(model);
    m_scene = std::move(l.scene);
    m_sim = std::make_unique<core::Simulation>(m_model, std::move(from));
    m_contactsCurrent = true;  // (none until it steps)
    dropEndedDrag();
    if (rewind) {
      if (m_history.empty()) recordFrame();
      // the UI shows progress (with Cancel) when this takes over a second: publish how far it
      // got every tenth of a second
      m_resimulation = {true, m_resimulation.id + 1, m_sim->state().t, now};
      Clock::time_point published = Clock::now();
      publish();
      while (m_sim->state().t < now - 1e-9 * m_frame && !m_quit) {
        if (m_cancelResimulation == m_resimulation.id) {
          // stopped by the user: the history ends at this frame, which is shown, paused
          m_playing = false;
          m_playRequested = false;
          m_resimulation.active = false;
          m_message.clear();
          char text[160];
          std::snprintf(text, sizeof text, "re-simulation stopped at t = %.3f s (of %.3f s): the frames after it are not recorded",
                        m_sim->state().t, now);
          m_message = text;
          return;
        }
        if (!nextFrame(false)) break;
        if (Clock::now() - published > std::chrono::milliseconds(100)) {
          publish();
          published = Clock::now();
        }
      }
      m_resimulation.active = false;
    }
  } else {
    // any other edit: carry on from the current state; what followed is no longer true
    core::State st = core::carryOver(m_scene, *m_model, m_sim->state(), l.scene, *model);
    m_model = std::move(model);
    m_scene = std::move(l.scene);
    m_sim = std::make_unique<core::Simulation>(m_model, std::move(st));
    m_contactsCurrent = true;  // (none until it steps)
    dropEndedDrag();
    truncateHistory(now, true);
    recordFrame();
  }
  m_message.clear();
}

bool SimulationController::handle(Message& msg) {
  if (std::holds_alternative<Quit>(msg)) return false;
  m_prepared.reset();  // any message may change the state or the mouse spring
  if (auto* l = std::get_if<Load>(&msg)) {
    load(*l);
    m_revision = l->revision;
    return true;
  }
  if (!m_sim) return true;
  if (std::holds_alternative<Play>(msg)) {
    m_playing = true;
    // Play from before the scene's duration stops at the first frame at or past it (the
    // timeline's range: a helper's 180 s run went on to 10 600 s and the history dropped its
    // start; the frames stay on their grid); from it or past it, on
    const double end = m_scene.settings.duration, t = m_sim->state().t;
    m_stopAt = t < end - 1e-9 * std::max(1.0, end) ? end : std::numeric_limits<double>::infinity();
    m_stoppedAtEnd = false;
    m_factorSim = m_factorWall = m_factor = 0.0;
    m_message.clear();
    m_lastFrame = Clock::now();
    m_debt = 0.0;
  } else if (std::holds_alternative<Pause>(msg)) {
    m_playing = false;
  } else if (std::holds_alternative<Step>(msg)) {
    if (!m_playing) nextFrame(false);
  } else if (std::holds_alternative<StepBack>(msg)) {
    if (const core::State* s = m_history.atOrBefore(m_sim->state().t - 1e-9 * m_frame, true)) showFrame(*s);
  } else if (auto* s = std::get_if<Seek>(&msg)) {
    if (const core::State* f = m_history.nearest(s->t)) showFrame(*f);
  } else if (std::holds_alternative<JumpStart>(msg)) {
    if (m_history.start() <= 0.0 && !m_history.empty()) showFrame(*m_history.atOrBefore(0.0));
    else restart();
  } else if (std::holds_alternative<JumpEnd>(msg)) {
    if (!m_history.empty()) showFrame(*m_history.atOrBefore(m_history.end()));
  } else if (auto* lp = std::get_if<Loop>(&msg)) {
    m_loop = lp->on;
    m_loopStart = std::min(lp->start, lp->end);
    m_loopEnd = std::max(lp->start, lp->end);
  } else if (std::holds_alternative<Reset>(msg)) {
    restart();
    m_playing = false;
  } else if (auto* sp = std::get_if<Speed>(&msg)) {
    m_speed = sp->factor;
  } else if (auto* r = std::get_if<RealTime>(&msg)) {
    m_realTime = r->on;
    m_lastFrame = Clock::now();
  } else if (auto* h = std::get_if<HistoryLimit>(&msg)) {
    m_history.setLimit(h->bytes);
    if (m_history.empty()) m_samples.clear();
    else m_samples.dropBefore(m_history.start());
  } else if (auto* d = std::get_if<Drag>(&msg)) {
    if (d->body >= 0 && size_t(d->body) < m_model->bodies.size() && !m_model->bodies[size_t(d->body)].fixed) {
      // a spring of 2 Hz on the body's own mass, 70 % of critical damping:
      //   k = m (2 pi f)^2, c = 2 zeta sqrt(k m)
      const double m = m_model->bodies[size_t(d->body)].mass;
      const double w = 2.0 * std::numbers::pi * 2.0;
      core::MouseSpring ms;
      ms.body = d->body;
      ms.local = d->local;
      ms.target = d->target;
      ms.stiffness = m * w * w;
      ms.damping = 2.0 * 0.7 * m * w;
      m_sim->setMouseSpring(ms);
      m_dragging = true;
      // a drag is an interaction, not a replayable run: what was recorded after now is void
      truncateHistory(m_sim->state().t, false);
    }
  } else if (std::holds_alternative<EndDrag>(msg)) {
    m_dragging = false;
    m_sim->setMouseSpring(core::MouseSpring{});
  } else if (auto* rf = std::get_if<RecordedFrames>(&msg)) {
    // each recorded state drawn through the simulation (forces and deviations are evaluated
    // for the picture), then the shown state put back as it was
    Frames frames;
    frames.reserve(rf->times.size());
    const core::State shown = m_sim->state();
    try {
      for (double t : rf->times) {
        const core::State* f = m_history.nearest(t);
        if (!f) {
          frames.push_back(nullptr);
          continue;
        }
        m_sim->setState(*f);
        auto snap = std::make_shared<core::Snapshot>();
        core::fillSnapshot(*m_sim, m_geometry, *snap);
        snap->contacts = m_history.contactsOf(f);
        snap->contactProblem.clear();
        snap->revision = m_revision;
        frames.push_back(std::move(snap));
      }
      m_sim->setState(shown);
      rf->result->set_value(std::move(frames));
    } catch (...) {
      m_sim->setState(shown);
      rf->result->set_exception(std::current_exception());
    }
  }
  return true;
}

void SimulationController::publish() {
  // the snapshot the last recorded frame filled, if nothing changed since; else fill one now
  std::shared_ptr<ControllerSnapshot> snap = std::move(m_prepared);
  if (!snap) {
    snap = std::make_shared<ControllerSnapshot>();
    if (m_sim) fillShown(*snap);
  }
  snap->revision = m_revision;
  snap->steps = m_steps;
  snap->stepsPerSecond = m_rate;
  snap->realTimeFactor = m_playing ? m_factor : 0.0;
  snap->speed = m_realTime ? m_speed : 0.0;
  snap->playing = m_playing;
  snap->stoppedAtEnd = m_stoppedAtEnd && !m_playing;
  snap->message = m_message;
  HistoryInfo& h = snap->history;
  h.start = m_history.start();
  h.end = m_history.end();
  h.frames = m_history.size();
  h.bytes = m_history.bytes();
  h.limit = m_history.limit();
  h.framePeriod = m_frame;
  h.loop = m_loop;
  h.loopStart = m_loopStart;
  h.loopEnd = m_loopEnd;
  snap->resimulation = m_resimulation;
  std::shared_ptr<const ControllerSnapshot> old;
  {
    std::lock_guard lock(m_snapshotMutex);
    old = std::exchange(m_snapshot, std::move(snap));
  }
  // the previous snapshot is released here, outside the lock (or by the UI if it still holds it)
}

}  // namespace tether::ui
