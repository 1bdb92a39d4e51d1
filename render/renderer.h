// The OpenGL 3.3 core backend of the viewport: draw() walks a core::Snapshot (drawSnapshot,
// render/scene_walk.h, decides what is shown) and batches what the walk emits through
// DebugDraw into instanced meshes (shaded bodies, unshaded arrows and dots) and lines, then
// draws the batches. Works in any current GL 3.3 context (functions are loaded with libepoxy);
// no widgets, no Qt.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "render/camera.h"
#include "render/debug_draw.h"
#include "render/scene_walk.h"

namespace tether::render {

// The DebugDraw it implements is private: draw()'s walk is what emits into the batches (a
// primitive emitted outside draw() would never be drawn).
class Renderer : private DebugDraw {
 public:
  Renderer();
  ~Renderer() override;
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

  // after draw(): the arrows and constraint lines drawn (for hover), the legend scale, and the
  // labels for the painter to write over the picture (GL draws no text)
  const std::vector<Segment>& segments() const { return m_drawn.segments; }
  const ArrowScale& arrowScale() const { return m_drawn.arrowScale; }
  struct Label {
    double px, py;
    std::string text;
    Color color;
  };
  const std::vector<Label>& labels() const { return m_labels; }

 private:
  // DebugDraw: batched for draw()
  void background(const Color& c) override;
  void shape(const core::BodyGeometry& body, const Vec3& position, const Quat& orientation, const Color& c) override;
  void segment(const Vec3& a, const Vec3& b, const Color& c) override;
  void arrow(const Vec3& from, const Vec3& vector, const Color& c) override;
  void point(const Vec3& at, double radiusPixels, const Color& c) override;
  void label(double px, double py, const std::string& text, const Color& c) override;
  void axes(const AxisGizmo& gizmo) override;
  void setOnTop(bool on) override { m_onTop = on; }
  void flush();

  struct Gpu;
  std::unique_ptr<Gpu> m_gpu;
  bool m_ready = false;
  const Camera* m_camera = nullptr;  // during draw(): pixel sizes of arrows, dots and thin shapes
  double m_pixelScale = 1.0;         // during draw(): ViewOptions::pixelScale
  bool m_onTop = false;              // during draw(): arrows and dots go to the on-top batch
  DrawnScene m_drawn;
  std::vector<Label> m_labels;
};

}  // namespace tether::render
