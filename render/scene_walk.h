// What the viewport shows of a snapshot, decided without GL: drawSnapshot walks it and emits
// every body, line, arrow, dot and label, with its colour and size, through a DebugDraw
// (render/debug_draw.h). The renderer draws what it emits; tests/render/ records it.
#pragma once

#include <vector>

#include "core/snapshot.h"
#include "render/camera.h"
#include "render/debug_draw.h"
#include "render/overlay.h"
#include "render/picking.h"

namespace tether::render {

// What the user points at or has selected (indices into the snapshot).
struct Highlight {
  int selectedBody = -1, hoverBody = -1;
  int selectedNail = -1, hoverNail = -1;
  int selectedConstraint = -1, hoverConstraint = -1;
  int selectedPath = -1;
  int selectedPlane = -1;
  int hoverPointBody = -1, hoverPoint = -1;  // a control point under the cursor
  bool hoverWorld = false;                   // a world position under the cursor (tools)
  Vec3 hoverPosition = Vec3::Zero();
  // a tool's rubber band and a rod being placed
  bool preview = false;
  Vec3 previewFrom = Vec3::Zero(), previewTo = Vec3::Zero();
  bool previewRod = false;
  double previewRadius = 0.02;
  // constraints tether-cli check flags (runtime indices, as in the snapshot): their lines and
  // points drawn in conflictColor / redundantColor (a conflicting one that is also redundant
  // shows as conflicting)
  std::vector<int> conflicting, redundant;
};

// What the GUI reads beside the picture: the arrows, constraint lines and springs drawn
// (hovering and clicking pick them) and the scale the arrows were drawn at (the legend).
struct DrawnScene {
  std::vector<Segment> segments;
  ArrowScale arrowScale;
};

// Emits the snapshot as the viewport shows it, in this order: the background; bodies and the
// rod a tool is placing; the ground planes (square slabs planeSide() wide, gridded); with
// view.debugDraw, nails, paths, each active constraint's line, its type's guides and force and
// torque arrows (at view.scale, or chooseArrowScale's if unset; an arrow below its kind's noise
// floor is not drawn), the marks of constraints check flags, springs, applied forces and
// velocities, contact points and force arrows (view.contacts; drawn on top), control points; the
// hovered control point and the tools' feedback; the mouse spring; the ground grid (when there
// is no ground plane); the axis gizmo and its labels.
DrawnScene drawSnapshot(const core::Snapshot& snap, const Camera& camera, const ViewOptions& view, const Highlight& hl,
                        DebugDraw& out);

// colours, so the UI and the tests agree with what is drawn
Color constraintColor(int index);
Color bodyColor(core::Shape shape, bool fixed);
Color backgroundColor();
Color conflictColor();   // a constraint whose equations cannot all be met (check: conflicting)
Color redundantColor();  // a constraint whose rows repeat others' (check: redundant)
Color planeColor();
Color contactColor();    // contact points and their force arrows
Color appliedColor();    // constant forces and torques

// The side of the square a ground plane is drawn as (m): 20 m, or more so that it reaches past
// every active body's foot on it by 2 m (a multiple of 10 m).
double planeSide(const core::PlaneDef& plane, const core::Snapshot& snap);

}  // namespace tether::render
