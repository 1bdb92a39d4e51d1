// Draws a core::Snapshot with OpenGL 3.3 core: instanced shaded bodies, nails, control points,
// constraints (point pairs, lines, planes, path curves), a ground grid and an axis gizmo, and the
// live debug overlay of force / torque / velocity arrows. Works in any current GL 3.3 context
// (functions are loaded with libepoxy); no widgets, no Qt.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "render/camera.h"
#include "render/overlay.h"
#include "render/picking.h"

namespace tether::render {

struct Color {
  float r = 0, g = 0, b = 0, a = 1;
};

// What the user points at or has selected (indices into the snapshot).
struct Highlight {
  int selectedBody = -1, hoverBody = -1;
  int selectedNail = -1, hoverNail = -1;
  int selectedConstraint = -1, hoverConstraint = -1;
  int selectedPath = -1;
  int hoverPointBody = -1, hoverPoint = -1;  // a control point under the cursor
  bool hoverWorld = false;                   // a world position under the cursor (tools)
  Vec3 hoverPosition = Vec3::Zero();
  // a tool's rubber band and a rod being placed
  bool preview = false;
  Vec3 previewFrom = Vec3::Zero(), previewTo = Vec3::Zero();
  bool previewRod = false;
  double previewRadius = 0.02;
};

class Renderer {
 public:
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Needs a current GL 3.3+ context. False (and why) if shaders or buffers cannot be made.
  bool initialize(std::string& error);
  bool initialized() const { return m_ready; }
  // GL version string of the current context (after initialize)
  std::string glVersion() const;
  void release();  // frees GL objects (context current)

  void draw(const core::Snapshot& snap, const Camera& camera, const ViewOptions& view, const Highlight& hl);
  void finish();  // glFinish: for frame timing

  // after draw(): the arrows and constraint lines drawn (for hover), the legend scale and the
  // gizmo's axis tips in pixels (x, y, z)
  const std::vector<Segment>& segments() const { return m_segments; }
  const ArrowScale& arrowScale() const { return m_scale; }
  struct GizmoLabel { char axis; double px, py; };
  const std::vector<GizmoLabel>& gizmoLabels() const { return m_gizmo; }

  // colours, so the UI and the tests agree with what is drawn
  static Color constraintColor(int index);
  static Color bodyColor(core::Shape shape, bool fixed);
  static Color backgroundColor();

 private:
  struct Gpu;
  std::unique_ptr<Gpu> m_gpu;
  bool m_ready = false;
  std::vector<Segment> m_segments;
  ArrowScale m_scale;
  std::vector<GizmoLabel> m_gizmo;
};

}  // namespace tether::render
