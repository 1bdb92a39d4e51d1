// The constraints tether-cli check flags (redundant, conflicting), each with the reason in words,
// for the GUI to mark in the viewport and the outliner. Built on checkScene: it compiles the scene
// and solves the constraint system at t = 0, so it is for load and edit time, not every frame.
#pragma once

#include <string>
#include <vector>

#include "core/headless.h"
#include "core/scene.h"

namespace tether::core {

struct ConstraintIssue {
  std::string name;          // the constraint definition
  bool conflicting = false;  // its equations cannot all be met together with others'
  bool redundant = false;    // its rows repeat what others already hold
  std::string reason;        // a sentence or two naming the others and what to do
};

// One entry per flagged constraint definition, in scene order. Throws SceneError (as
// checkScene) for an invalid scene.
std::vector<ConstraintIssue> constraintIssues(const Scene& scene);
// The same from a report checkScene already made of this scene.
std::vector<ConstraintIssue> constraintIssues(const Scene& scene, const CheckReport& report);

}  // namespace tether::core
