// The 3D viewport: a thin QOpenGLWidget that owns a render::Renderer and a camera, draws the
// newest snapshot the simulation published (no lock), routes mouse input to the tools and
// paints the overlay text (legend, hover info, axis labels) with QPainter.
#pragma once

#include <QPainter>
#include <QOpenGLWidget>
#include <cstdint>
#include <memory>

#include "core/constraint_issues.h"
class QOpenGLFramebufferObject;

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
  const Selection& selection() const { return m_selection; }
  // Emit promptChanged / hoverChanged if the tool's prompt or what is under the cursor changed
  // (after a click, a move, a tool change).
  void refreshPrompt();
  void frameAll();
  // Frame all as soon as the scene of document revision `revision` is shown (a file just opened:
  // it opens framed, whatever the camera looked at before).
  void frameWhenShown(long revision) { m_frameRevision = revision; }
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
  // A picture of `snap` at `size` pixels, as the viewport shows it (its camera, view options,
  // the arrows' legend and the axis letters), without the tool hint, hover box or selection;
  // rendered offscreen into a framebuffer of that size. Null with `error` set if the GPU cannot
  // (a size past its largest framebuffer, no GL).
  QImage renderImage(const core::Snapshot& snap, const QSize& size, QString& error);

  // The arrow scales held from frame to frame (render::ArrowScaleKeeper), and the option to fix
  // them: fixed, they hold whatever the arrows do; saved in QSettings (view/fixedArrowScale and
  // the values) with the values, so a fixed scale carries over to the next session.
  const render::ArrowScales& arrowScales() const { return m_scales; }
  void setFixedArrowScale(bool on);
  bool fixedArrowScale() const { return m_scales.force.fixed(); }
  // Longer / shorter arrows ([ and ]): automatic, twice / half the intended length (chosen
  // afresh); fixed, one step down / up the 1-2-5 ladder of units per metre.
  void longerArrows();
  void shorterArrows();
  // One row of the legend as last painted: a bar `pixels` long stands for `value` (round).
  struct LegendRow {
    QString kind;   // "force", "torque", "velocity"
    double value = 0;
    QString text;   // as painted, e.g. "5 N"
    double pixels = 0;
  };
  const QList<LegendRow>& legend() const { return m_legend; }
  // The constraints tether-cli check flags: marked in the viewport, the reason in the hover box.
  void setConstraintIssues(std::vector<core::ConstraintIssue> issues);
  const std::vector<core::ConstraintIssue>& constraintIssues() const { return m_issues; }
  // The arrows, constraint lines and springs drawn in the last frame (the scene walk's).
  const std::vector<render::Segment>& drawnSegments() const { return m_renderer.segments(); }
  // The hover box's text (what the arrow or line under the cursor is), empty if none.
  QString hoverText() const { return m_hoverText; }
  // View > Snap to grid: the tools place on the grid's crossings
  void setSnapToGrid(bool on);
  bool snapToGrid() const { return m_tools.context().snapToGrid; }
  // the readout in the corner: where the cursor points (x, y, z), "" when it is off the viewport
  QString cursorText() const;
  // where the simulation's message (a divergence) was last drawn; a click there folds it
  QRectF messageBox() const { return m_messageBox; }

 signals:
  void selected(const Selection& s);
  void message(const QString& text);
  void promptChanged(const QString& text);  // the tool's prompt line (ToolController::prompt)
  void hoverChanged(const QString& text);   // what is under the cursor (ToolController::hover)
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
  bool focusNextPrevChild(bool next) override;
  void viewMovedUnderCursor();
  void leaveEvent(QEvent* e) override;

 private:
  QString m_prompt;
  QString m_hoverName;  // ToolController::hover, as last emitted
  bool frameIsDue(const core::Snapshot& s) const;
  void paintOverlay(QPainter& p);
  // what of the overlay belongs to the picture (exports too): the walk's labels, the legend;
  // `size` and `cam` in screen pixels (an export scales the painter)
  void paintPictureOverlay(QPainter& p, const render::Camera& cam, const QSizeF& size, double labelScale);
  void updateHover(double px, double py);
  void saveArrowScale() const;
  const core::ConstraintIssue* issueOf(const std::string& constraint) const;
  render::Highlight highlight() const;

  Document& m_doc;
  SimulationController& m_sim;
  render::Renderer m_renderer;
  render::Camera m_camera;
  render::ViewOptions m_view;
  render::ArrowScales m_scales;
  QList<LegendRow> m_legend;
  std::vector<core::ConstraintIssue> m_issues;
  ToolController m_tools;
  Selection m_selection;
  std::shared_ptr<const core::Snapshot> m_shown;
  QString m_glError;
  QString m_glInfo;
  QPointF m_lastMouse;
  Qt::MouseButton m_navButton = Qt::NoButton;
  bool m_toolButton = false;
  QString m_hoverText;
  std::optional<core::Vec3> m_cursor;  // cursorText's point
  // the simulation's message as last drawn, where, and folded to its first clause (a click)
  std::string m_messageShown;
  QRectF m_messageBox;
  bool m_messageFolded = false;
  int m_hoverConstraint = -1;  // the constraint whose arrow or line is under the cursor
  QPointF m_hoverAt;
  long m_frameRevision = -1;
  // the history's cuts (FrameSampleStore::epoch) the arrow scales have seen: Reset and a timeline
  // edit's re-simulation relearn them (the largest force seen would otherwise outlive the run it
  // came from: after a blow-up to 1e17 N, Undo and Reset left a legend no arrow could reach)
  std::uint64_t m_scaleEpoch = 0;  // frame all once a snapshot of this document revision is shown; -1: done
  bool m_timing = false;
  double m_lastFrameMs = 0.0;
  long m_frames = 0;
  std::unique_ptr<QOpenGLFramebufferObject> m_exportFbo;  // kept between a video's frames
};

}  // namespace tether::ui
