// Editing a running model (ARCHITECTURE.md: "recompiled when the scene's structure changes;
// state carries over by id"). The GUI edits the scene while the simulation runs — adds a
// constraint, a body, changes a spring — and the model carries on from where it was.
#pragma once

#include <optional>

#include "core/model.h"
#include "core/scene.h"
#include "core/snapshot.h"

namespace tether::core {

// The state of newModel (compiled from newScene) that continues oldState (of oldModel,
// compiled from oldScene) at time oldState.t:
//  - the timeline is replayed up to t with the new scene's events and parameters;
//  - a body present in both keeps its pose and velocities (momenta rescaled when its mass
//    properties changed), unless the edit changed its initial pose or velocity: then the
//    user moved it, and it starts over from its new definition;
//  - a constraint present in both with an unchanged definition keeps its warm-start impulse
//    and "assembled" flag; new or changed constraints assemble afresh.
// Names are the ids. With newScene == oldScene the result equals oldState.
State carryOver(const Scene& oldScene, const Model& oldModel, const State& oldState, const Scene& newScene,
                const Model& newModel);

// When two scenes differ in their timeline events only: the earliest time from which a run of
// one can differ from a run of the other (the first place where their time-sorted event lists
// differ; +infinity when they are equal). A recorded history before that time stays valid.
// nullopt when anything besides the events differs.
std::optional<double> firstEventChange(const Scene& a, const Scene& b);

// The scene with its bodies' initial conditions (pose, velocities, whether they exist) taken
// from a snapshot of a run of it: "set initial state from this frame".
Scene withInitialState(const Scene& scene, const Snapshot& frame);

}  // namespace tether::core
