// What the plot dock shows: each recorded frame reduced to the scalars one can plot against time
// (energies, body positions and velocities, each constraint's |D| and |F|), and the catalogue of
// those quantities for a scene. A FrameSample is made from the Snapshot the solver thread fills
// anyway (fillSnapshot), so the energy is core's own (forces.h: energy) and |D| and |F| are what
// the viewport's arrows and hover show; nothing here evaluates the model a second way.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/snapshot.h"

namespace tether::core {

struct FrameSample {
  double t = 0.0;                                // s
  Energy energy;                                 // J
  std::shared_ptr<const SceneGeometry> geometry; // names of the bodies and constraint parts below
  std::vector<std::uint8_t> bodyActive;          // per body (Model order)
  std::vector<Vec3> x, v, w;                     // per body: m, m/s, rad/s
  // per runtime constraint part (Model order, SceneGeometry::constraintNames): |D| in the
  // part's unit and the largest |F| it exerts on one of its bodies, N; both -1 while inactive
  std::vector<double> deviation, force;
};

FrameSample frameSample(const Snapshot& s);

// One plottable quantity. Bodies and constraints are named (not indexed), so a series follows
// its object across edits that recompile the scene and renumber it.
struct PlotQuantity {
  enum class Kind { Kinetic, Potential, Total, Body, Deviation, Force };
  Kind kind = Kind::Kinetic;
  std::string object;   // body or constraint name (Body, Deviation, Force)
  int component = 0;    // Body: 0-2 position x y z, 3-5 velocity, 6-8 angular velocity;
                        // Deviation: the constraint's part (a hinge has a point part and an axis part)
  std::string label;    // e.g. "ball z", "Kinetic energy", "rope |D|"
  std::string unit;     // e.g. "m", "J", "rad/s"
  // a stable key (what the dock remembers a checked item by): "body:ball:2"
  std::string key() const;
  bool operator==(const PlotQuantity& o) const { return key() == o.key(); }
};

// Every quantity a scene offers: the three energies, nine per body, and per constraint |D| (one
// per part where parts differ in unit, e.g. a hinge) and |F|.
std::vector<PlotQuantity> plotQuantities(const SceneGeometry& g);

// Reads a quantity from samples; caches where its object sits in the last geometry seen (the
// same shared geometry repeats over thousands of frames).
class PlotReader {
 public:
  explicit PlotReader(PlotQuantity q) : m_q(std::move(q)) {}
  const PlotQuantity& quantity() const { return m_q; }
  // NaN when the object does not exist or is inactive at that frame
  double operator()(const FrameSample& s);

 private:
  PlotQuantity m_q;
  const SceneGeometry* m_geometry = nullptr;
  std::vector<int> m_index;  // body index, or the constraint's parts
};

// Min-max decimation for drawing: keeps at most about 2 * buckets points, the smallest and largest
// value of each of `buckets` equal stretches of x (in x order), so a spike of one frame still
// shows. x must be sorted. With few points the input is returned as it is.
void decimateMinMax(const std::vector<double>& x, const std::vector<double>& y, int buckets,
                    std::vector<double>& outX, std::vector<double>& outY);

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

}  // namespace tether::core
