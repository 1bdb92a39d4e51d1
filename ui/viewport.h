// The 3D viewport: a thin QOpenGLWidget that owns a render::Renderer and a camera, draws the
// newest snapshot the simulation published (no lock), routes mouse input to the tools and
// paints the overlay text (legend, hover info, axis labels) with QPainter.
#pragma once

#include <QPainter>
#include <QOpenGLWidget>
#include <memory>

#include "render/camera.h"
#include "render/renderer.h"
#include "ui/tools.h"

namespace tether::ui {

class ViewportWidget : public QOpenGLWidget {
  Q_OBJECT
 public:
  ViewportWidget(Document& doc, SimulationController& sim, QWidget* parent = nullptr);
  ~ViewportWidget() override;
  // Ask for what the renderer needs (OpenGL 3.3 core, depth buffer) before QApplication exists.
  static void requestSurfaceFormat();

  render::Camera& camera() { return m_camera; }
  render::ViewOptions& viewOptions() { return m_view; }
  ToolController& tools() { return m_tools; }
  void setSelection(const Selection& s);
  void frameAll();
  void setStandardView(render::StandardView v);
  // The snapshot last drawn (for the status bar and tests).
  std::shared_ptr<const core::Snapshot> shownSnapshot() const { return m_shown; }
  // Redraw if the simulation published something new since the last frame.
  void pollSnapshot();
  QString glError() const { return m_glError; }
  QString glInfo() const { return m_glInfo; }  // version and renderer of the context
  bool glReady() const { return m_renderer.initialized(); }
  // Milliseconds the last paintGL took (draw plus glFinish when timing is on).
  void setTiming(bool on) { m_timing = on; }
  double lastFrameMs() const { return m_lastFrameMs; }
  long framesDrawn() const { return m_frames; }

 signals:
  void selected(const Selection& s);
  void message(const QString& text);
  void glFailed(const QString& why);

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void leaveEvent(QEvent* e) override;

 private:
  void paintOverlay(QPainter& p);
  void updateHover(double px, double py);
  render::Highlight highlight() const;

  Document& m_doc;
  SimulationController& m_sim;
  render::Renderer m_renderer;
  render::Camera m_camera;
  render::ViewOptions m_view;
  ToolController m_tools;
  Selection m_selection;
  std::shared_ptr<const core::Snapshot> m_shown;
  QString m_glError;
  QString m_glInfo;
  QPointF m_lastMouse;
  Qt::MouseButton m_navButton = Qt::NoButton;
  bool m_toolButton = false;
  QString m_hoverText;
  int m_hoverConstraint = -1;  // the constraint whose arrow or line is under the cursor
  QPointF m_hoverAt;
  bool m_framedOnce = false;
  bool m_timing = false;
  double m_lastFrameMs = 0.0;
  long m_frames = 0;
};

}  // namespace tether::ui
