#include "core/live_edit.h"

#include <algorithm>
#include <limits>

#include "core/forces.h"
#include "core/scene_io.h"

namespace tether::core {

namespace {

// The initial conditions a user sets: when these change, the body starts over.
bool sameStart(const BodyDef& a, const BodyDef& b) {
  return a.position == b.position && a.orientation.coeffs() == b.orientation.coeffs() && a.velocity == b.velocity &&
         a.angularVelocity == b.angularVelocity && a.fixed == b.fixed;
}

}  // namespace

State carryOver(const Scene& oldScene, const Model& oldModel, const State& oldState, const Scene& newScene,
                const Model& newModel) {
  State st = newModel.initialState();
  st.t = oldState.t;
  st.hNext = oldState.hNext;
  st.substeps = oldState.substeps;
  st.calmSteps = oldState.calmSteps;
  st.calmTurn = oldState.calmTurn;
  st.memory.spinTrend.h = oldState.memory.spinTrend.h;

  // the timeline up to t, with the new scene's events
  while (st.nextEvent < newModel.events.size() && newModel.events[st.nextEvent].time <= st.t) {
    applyEvent(newModel, newModel.events[st.nextEvent], st);
    ++st.nextEvent;
  }

  // bodies: keep velocities v = P/m and w = I^-1 L through changes of mass properties:
  //   P' = m' v,  L' = R I'_body R^T w
  for (size_t i = 0; i < newModel.bodies.size(); ++i) {
    const std::string& name = newModel.bodyNames[i];
    const int j = oldModel.findBody(name);
    if (j < 0 || !oldState.params.bodyActive[size_t(j)] || !st.params.bodyActive[i]) continue;
    const BodyDef* before = byName(oldScene.bodies, name);
    const BodyDef* after = byName(newScene.bodies, name);
    if (!before || !after || !sameStart(*before, *after)) continue;
    const BodyState& o = oldState.bodies[size_t(j)];
    const BodyModel& om = oldModel.bodies[size_t(j)];
    const BodyModel& nm = newModel.bodies[i];
    BodyState& s = st.bodies[i];
    s = o;
    if (size_t(j) < oldState.memory.spinTrend.dw.size()) st.memory.spinTrend.dw[i] = oldState.memory.spinTrend.dw[size_t(j)];
    if (nm.fixed) continue;
    if (om.mass != nm.mass || om.inertia != nm.inertia) {
      const Mat3 R = o.q.normalized().toRotationMatrix();
      const Vec3 v = o.P * om.invMass;
      const Vec3 w = rotateDiagonal(R, om.invInertia) * o.L;
      s.P = nm.mass * v;
      s.L = rotateDiagonal(R, nm.inertia) * w;
    }
  }

  // bodies passing through each other (contacts): the same pairs, by name
  for (const auto& [a, b] : oldState.memory.passing) {
    const int i = newModel.findBody(oldModel.bodyNames[size_t(a)]), j = newModel.findBody(oldModel.bodyNames[size_t(b)]);
    if (i >= 0 && j >= 0) st.memory.passing.push_back(std::minmax(i, j));
  }
  std::sort(st.memory.passing.begin(), st.memory.passing.end());

  // constraints: warm start and assembled flags by name, when the definition is unchanged
  for (size_t c = 0; c < newModel.constraints.size(); ++c) {
    const std::string& name = newModel.constraintNames[c];
    const int first = oldModel.findConstraint(name);
    if (first < 0) continue;
    // the same part of the same definition (an unchanged definition has the same parts)
    const int j = first + int(c) - newModel.constraintParts[size_t(newModel.constraintDef[c])].first;
    const ConstraintDef* before = byName(oldScene.constraints, name);
    const ConstraintDef* after = byName(newScene.constraints, name);
    if (!before || !after || !(*before == *after)) continue;
    if (size_t(j) < oldState.memory.impulses.size()) st.memory.impulses[c] = oldState.memory.impulses[size_t(j)];
    if (size_t(j) < oldState.memory.assembled.size()) st.memory.assembled[c] = oldState.memory.assembled[size_t(j)];
    if (size_t(j) < oldState.memory.lastForce.size()) st.memory.lastForce[c] = oldState.memory.lastForce[size_t(j)];
    if (size_t(j) < oldState.memory.rateOffset.size()) {
      if (st.memory.rateOffset.empty()) st.memory.rateOffset.assign(newModel.constraints.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
      st.memory.rateOffset[c] = oldState.memory.rateOffset[size_t(j)];
    }
    if (size_t(j) < oldState.memory.lawSteps.size()) {
      if (st.memory.lawSteps.empty()) st.memory.lawSteps.assign(newModel.constraints.size(), LawStep{});
      st.memory.lawSteps[c] = oldState.memory.lawSteps[size_t(j)];
    }
    if (size_t(j) < oldState.memory.velocityAim.size()) {
      if (st.memory.velocityAim.empty()) st.memory.velocityAim.assign(newModel.constraints.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
      st.memory.velocityAim[c] = oldState.memory.velocityAim[size_t(j)];
    }
    if (size_t(j) < oldState.memory.velocityMiss.size()) {
      if (st.memory.velocityMiss.empty()) st.memory.velocityMiss.assign(newModel.constraints.size(), Vec3::Zero());
      st.memory.velocityMiss[c] = oldState.memory.velocityMiss[size_t(j)];
    }
    if (size_t(j) < oldState.memory.velocityIntegral.size()) {
      if (st.memory.velocityIntegral.empty()) st.memory.velocityIntegral.assign(newModel.constraints.size(), Vec3::Zero());
      st.memory.velocityIntegral[c] = oldState.memory.velocityIntegral[size_t(j)];
    }
  }

  // the mouse spring follows its body
  const MouseSpring& mouse = oldState.params.mouse;
  if (mouse.body >= 0) {
    const int b = newModel.findBody(oldModel.bodyNames[size_t(mouse.body)]);
    if (b >= 0) {
      st.params.mouse = mouse;
      st.params.mouse.body = b;
    }
  }
  return st;
}

std::optional<double> firstEventChange(const Scene& a, const Scene& b) {
  Scene ra = a, rb = b;
  ra.events.clear();
  rb.events.clear();
  if (sceneToJson(ra) != sceneToJson(rb)) return std::nullopt;
  // the events in the order a run applies them: by time, file order within a time
  auto sorted = [](const std::vector<EventDef>& ev) {
    std::vector<EventDef> s = ev;
    std::stable_sort(s.begin(), s.end(), [](const EventDef& x, const EventDef& y) { return x.time < y.time; });
    return s;
  };
  const std::vector<EventDef> ea = sorted(a.events), eb = sorted(b.events);
  for (size_t i = 0; i < std::max(ea.size(), eb.size()); ++i) {
    if (i < ea.size() && i < eb.size() && ea[i] == eb[i]) continue;
    double t = std::numeric_limits<double>::infinity();
    if (i < ea.size()) t = std::min(t, ea[i].time);
    if (i < eb.size()) t = std::min(t, eb[i].time);
    return t;
  }
  return std::numeric_limits<double>::infinity();
}

Scene withInitialState(const Scene& scene, const Snapshot& frame) {
  Scene s = scene;
  for (size_t i = 0; i < s.bodies.size() && i < frame.bodies.size(); ++i) {
    BodyDef& b = s.bodies[i];
    const BodyPose& p = frame.bodies[i];
    b.active = p.active;
    if (b.fixed) continue;
    b.position = p.x;
    b.orientation = p.q;
    b.velocity = p.v;         // P / m
    b.angularVelocity = p.w;  // I^-1 L
  }
  return s;
}

}  // namespace tether::core
