#include "ui/simulation_controller.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

namespace tether::ui {

using Clock = std::chrono::steady_clock;

SimulationController::SimulationController() {
  m_snapshot = std::make_shared<const core::Snapshot>();
  m_thread = std::thread([this] { run(); });
}

SimulationController::~SimulationController() {
  post(Quit{});
  m_thread.join();
}

void SimulationController::post(Message m) {
  {
    std::lock_guard lock(m_mutex);
    // a newer drag target replaces one not yet taken
    if (std::holds_alternative<Drag>(m) && !m_queue.empty() && std::holds_alternative<Drag>(m_queue.back()))
      m_queue.back() = std::move(m);
    else
      m_queue.push_back(std::move(m));
  }
  m_wake.notify_one();
}

void SimulationController::load(const core::Scene& scene, long revision, bool restart) {
  post(Load{scene, revision, restart});
}
void SimulationController::play() { post(Play{}); }
void SimulationController::pause() { post(Pause{}); }
void SimulationController::step() { post(Step{}); }
void SimulationController::reset() { post(Reset{}); }
void SimulationController::setSpeed(double f) { post(Speed{std::clamp(f, 0.1, 4.0)}); }
void SimulationController::setRealTime(bool on) { post(RealTime{on}); }
void SimulationController::drag(int body, const core::Vec3& local, const core::Vec3& target) {
  post(Drag{body, local, target});
}
void SimulationController::endDrag() { post(EndDrag{}); }

void SimulationController::run() {
  std::deque<Message> batch;
  for (;;) {
    {
      std::unique_lock lock(m_mutex);
      if (m_playing && m_realTime) {
        // wait for the next frame tick, or a message
        m_wake.wait_until(lock, m_lastFrame + std::chrono::microseconds(long(1e6 * kFrame)),
                          [&] { return !m_queue.empty(); });
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
      // real time: as much simulated time as wall time passed (times the speed), at most a
      // twentieth of a second per frame so a slow model slows down instead of stalling the loop
      const Clock::time_point now = Clock::now();
      const double wall = std::chrono::duration<double>(now - m_lastFrame).count();
      m_lastFrame = now;
      advanceFrame(m_speed * (m_realTime ? std::min(wall, 0.05) : kFrame));
      changed = true;
    }
    if (changed) publish();
  }
}

bool SimulationController::handle(Message& msg) {
  if (std::holds_alternative<Quit>(msg)) return false;
  if (auto* l = std::get_if<Load>(&msg)) {
    try {
      auto model = std::make_shared<const core::Model>(core::compile(l->scene));
      core::State st = (l->restart || !m_sim) ? model->initialState()
                                              : core::carryOver(m_scene, *m_model, m_sim->state(), l->scene, *model);
      m_geometry = core::sceneGeometry(l->scene, *model);
      m_sim = std::make_unique<core::Simulation>(model, std::move(st));
      m_model = std::move(model);
      m_scene = std::move(l->scene);
      m_message.clear();
      if (l->restart) {
        m_playing = false;
        m_steps = 0;
      }
    } catch (const std::exception& e) {
      m_message = std::string("cannot compile the scene: ") + e.what();
      m_playing = false;
    }
    m_revision = l->revision;
  } else if (std::holds_alternative<Play>(msg)) {
    if (m_sim) {
      m_playing = true;
      m_message.clear();
      m_lastFrame = Clock::now();
    }
  } else if (std::holds_alternative<Pause>(msg)) {
    m_playing = false;
  } else if (std::holds_alternative<Step>(msg)) {
    if (m_sim && !m_playing) advanceFrame(kFrame);
  } else if (std::holds_alternative<Reset>(msg)) {
    if (m_model) {
      m_sim = std::make_unique<core::Simulation>(m_model);
      m_playing = false;
      m_steps = 0;
      m_message.clear();
    }
  } else if (auto* s = std::get_if<Speed>(&msg)) {
    m_speed = s->factor;
  } else if (auto* r = std::get_if<RealTime>(&msg)) {
    m_realTime = r->on;
    m_lastFrame = Clock::now();
  } else if (auto* d = std::get_if<Drag>(&msg)) {
    if (m_sim && d->body >= 0 && size_t(d->body) < m_model->bodies.size() && !m_model->bodies[size_t(d->body)].fixed) {
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
    }
  } else if (std::holds_alternative<EndDrag>(msg)) {
    if (m_sim) m_sim->setMouseSpring(core::MouseSpring{});
  }
  return true;
}

void SimulationController::advanceFrame(double simSeconds) {
  const Clock::time_point start = Clock::now();
  const core::AdvanceResult r = m_sim->advanceTo(m_sim->state().t + simSeconds);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  m_steps += r.steps;
  if (wall > 0) {
    const double rate = r.steps / wall;  // what the solver sustains, steps per wall second
    m_rate = m_rate > 0 ? 0.8 * m_rate + 0.2 * rate : rate;
  }
  if (!r.ok) {
    // the last good state is kept; stop and say why
    m_playing = false;
    m_message = r.message + "; paused at the last good state";
  }
}

void SimulationController::publish() {
  auto snap = std::make_shared<core::Snapshot>();
  if (m_sim) {
    core::fillSnapshot(*m_sim, m_geometry, *snap);
  }
  snap->revision = m_revision;
  snap->steps = m_steps;
  snap->stepsPerSecond = m_rate;
  snap->playing = m_playing;
  snap->message = m_message;
  std::shared_ptr<const core::Snapshot> old;
  {
    std::lock_guard lock(m_snapshotMutex);
    old = std::exchange(m_snapshot, std::move(snap));
  }
  // the previous snapshot is released here, outside the lock (or by the UI if it still holds it)
}

}  // namespace tether::ui
