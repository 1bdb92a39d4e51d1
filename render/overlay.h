// What the debug overlay shows and at what scale, decided without GL (unit-tested in
// tests/render/): the view options, the arrow scales chosen for a snapshot, the scale a viewport
// holds from frame to frame (ArrowScaleKeeper: hysteresis, round values, a fixed option), which
// arrows are round-off noise, and the legend's bar.
#pragma once

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "core/snapshot.h"

namespace tether::render {

// The scale the arrows are drawn with, for the on-screen legend.
struct ArrowScale {
  double newtonsPerMetre = 1.0;        // force arrows
  double newtonMetresPerMetre = 1.0;   // torque arrows
  double secondsPerMetre = 1.0;        // velocity arrows: (m/s) per m of arrow
  // Magnitudes (N, N m, m/s) below which an arrow is round-off noise and not drawn.
  double forceNoise = 0.0, torqueNoise = 0.0, velocityNoise = 0.0;
  bool forces = false, torques = false, velocities = false;  // which kinds were drawn
};

struct ViewOptions {
  bool debugDraw = true;          // false: "animation" mode, bodies only (as in the paper)
  bool constraintForces = true;
  bool externalForces = false;
  bool torques = true;
  bool deviationLines = true;     // constraint geometry: point pairs, lines, planes, paths
  bool velocities = false;
  bool contacts = true;           // contact points and normal-force arrows (settings.contacts)
  bool controlPoints = false;     // show every control point (the constraint tools turn it on)
  bool grid = true;
  double forceScaleFactor = 1.0;  // user multiplier on the automatic arrow scale
  // The scale to draw at (a viewport's ArrowScales, held from frame to frame); unset, each frame
  // picks its own with chooseArrowScale.
  std::optional<ArrowScale> scale;
  // Output pixels per screen pixel. An exported picture larger than the viewport draws the
  // marks sized in pixels (arrow shafts, dots, the axis gizmo) this much larger, so it looks
  // as the screen does instead of finer.
  double pixelScale = 1.0;
};

// 1, 2 or 5 times a power of ten, >= x (1 for x <= 0 or not finite).
double niceCeil(double x);
// 1, 2 or 5 times a power of ten, <= x (1 for x <= 0 or not finite).
double niceFloor(double x);
// The round value `steps` notches of the 1-2-5 ladder above niceCeil(x) (below for steps < 0):
// niceStep(5, 1) = 10, niceStep(5, -1) = 2.
double niceStep(double x, int steps);

// An arrow is round-off noise, and not drawn, when its magnitude is below this fraction of the
// largest of its kind (in the frame, or since the run started: see ArrowScaleKeeper::reference).
// A millionth of the longest arrow is far below a pixel, so nothing visible is ever dropped;
// what is dropped are the 1e-14 N of a model at rest, which a scale chosen from them alone
// would draw full length.
inline constexpr double kNoiseFraction = 1e-6;
double noiseFloor(double reference);  // kNoiseFraction * reference (0 for a bad reference)
// A body slower than this is drawn at rest, whatever the fastest: a nanometre a second is no
// motion a model in metres shows, and a stack of boxes at rest, stepped once, moved at 1e-17 m/s
// and was drawn with a full-length velocity arrow and a legend of "1e-17 m/s" (a helper's finding).
inline constexpr double kStillSpeed = 1e-9;  // m/s
// A force below this is drawn as none, whatever the largest: a nanonewton is the weight of a
// tenth of a microgram. A four-bar at t = 0, its joints exactly met, had constraint forces of
// 1e-14 N, drawn full length with a legend of "50 fN" (a helper's finding).
inline constexpr double kStillForce = 1e-9;  // N

// An arrow as the renderer draws it: a shaft kArrowShaftPixels wide (times the display's pixel
// scale) and a head 7 shaft widths long, at most 0.35 of the arrow (lengths in any one unit:
// metres in the renderer, pixels where ui/ tells a press on the head from one on the shaft).
inline constexpr double kArrowShaftPixels = 1.6;
inline double arrowHeadLength(double length, double shaftWidth) { return std::min(0.35 * length, 7.0 * shaftWidth); }

// The largest magnitude of each kind of arrow the view shows in a snapshot (forces: the
// constraint forces, the contact forces and the applied forces when shown; torques beyond round-off beside their
// force, as drawSnapshot draws them; velocities of active bodies).
struct ArrowMaxima {
  double force = 0, torque = 0, velocity = 0;
  // Torques below this are the solve's round-off (not counted, not drawn): kNoiseFraction of the
  // torque the frame's largest constraint force makes at its longest arm (a constraint's point
  // from its body's centre, at least 1 mm). A helper's planar four-bar of hinges drew the
  // hinges' out-of-plane torques of 5e-9 N m full length ("10 nN m") beside forces of 20 N: the
  // orientation half of a hinge has no force of its own to be compared with.
  double torqueFloor = 0;
};
ArrowMaxima largestArrows(const core::Snapshot& snap, const ViewOptions& view);

// Arrow scales for one snapshot alone: the longest arrow of each kind is at most a fifth of the
// view distance times view.forceScaleFactor and more than a fifth of that (round numbers step by
// at most 2.5), in round units per metre of arrow; noise relative to the frame's largest. The
// flags say nothing is drawn yet (drawSnapshot sets them).
ArrowScale chooseArrowScale(const core::Snapshot& snap, const ViewOptions& view, double viewDistance);

// The scale of one kind of arrow held from frame to frame, so the legend reads steadily:
//  - a fresh choice is niceCeil(peak / reach): the longest arrow between reach/2.5 and reach;
//  - the scale is kept while the longest arrow stays in the readable band
//    [kShrinkBelow, kGrowAbove] x reach, and chosen afresh only when it would leave it;
//  - "longest" is the peak over the last kWindow seconds of simulated time, so a pendulum whose
//    tension falls to 0 at each turning point does not shrink the scale twice a swing;
//  - magnitudes below noiseFloor(reference()) (reference: the largest seen since reset()) never
//    choose a scale: a model at rest keeps the scale its motion had;
//  - fixed: the scale is held whatever the arrows do (the user's choice, and setScale's value).
class ArrowScaleKeeper {
 public:
  static constexpr double kGrowAbove = 2.0, kShrinkBelow = 0.2, kWindow = 3.0;

  // The largest magnitude of this kind in the frame shown at simulated time t (s), and the
  // intended length of the longest arrow (m). Returns the units per metre to draw with.
  double update(double largest, double reach, double t);
  double unitsPerMetre() const { return m_scale > 0 ? m_scale : 1.0; }
  bool chosen() const { return m_scale > 0; }
  double reference() const { return m_reference; }
  double noise() const { return noiseFloor(m_reference); }

  void setFixed(bool on) { m_fixed = on; }
  bool fixed() const { return m_fixed; }
  // Hold this scale (units per metre; rounded up to the 1-2-5 ladder); the user's fixed value.
  void setScale(double unitsPerMetre);
  // Forget the scale but not the run's reference (the arrows' intended length changed).
  void rechoose() { m_scale = 0; }
  // Forget everything but a fixed scale (another scene).
  void reset();

 private:
  double m_scale = 0;      // units per metre; 0: none chosen yet
  double m_reference = 0;  // the largest magnitude seen since reset()
  bool m_fixed = false;
  double m_lastT = 0;
  std::deque<std::pair<double, double>> m_window;  // (t, largest), largest decreasing: a sliding maximum
};

// The three kinds together, fed from snapshots.
struct ArrowScales {
  ArrowScaleKeeper force, torque, velocity;
  // Updates every kind from the snapshot (its largest non-noise arrows) and returns the scale to
  // draw with (ViewOptions::scale), with the noise floors.
  ArrowScale update(const core::Snapshot& snap, const ViewOptions& view, double viewDistance);
  void setFixed(bool on);
  void rechoose();
  void reset();
};

// The legend's bar for one kind: a round value (1, 2, 5 x 10^n units) whose arrow is at most
// maxPixels long and more than maxPixels / 2.5, at metresPerPixel (at the depth the legend
// stands for) and the arrows' unitsPerMetre.
struct LegendBar {
  double value = 0;   // units
  double pixels = 0;  // its length on screen
};
LegendBar legendBar(double unitsPerMetre, double metresPerPixel, double maxPixels);

// A round value with its unit for the legend: plain from 0.01 to below 10 000 ("0.05 N",
// "2000 N"), else with an SI prefix ("20 µN", "50 kN").
std::string formatQuantity(double value, const std::string& unit);

}  // namespace tether::render
