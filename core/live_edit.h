// Editing a running model (ARCHITECTURE.md: "recompiled when the scene's structure changes;
// state carries over by id"). The GUI edits the scene while the simulation runs — adds a
// constraint, a body, changes a spring — and the model carries on from where it was.
#pragma once

#include "core/model.h"
#include "core/scene.h"

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

}  // namespace tether::core
