#include "ui/viewport.h"

#include "core/constraint_type.h"

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPainter>
#include <QSurfaceFormat>
#include <QWheelEvent>
#include <cmath>

namespace tether::ui {

namespace {

QString number(double v, int digits = 3) { return QString::number(v, 'g', digits); }

// index of a name in a list, -1 if absent
template <typename List, typename Get>
int indexOf(const List& list, const std::string& name, Get get) {
  for (size_t i = 0; i < list.size(); ++i)
    if (get(list[i]) == name) return int(i);
  return -1;
}

}  // namespace

ViewportWidget::ViewportWidget(Document& doc, SimulationController& sim, QWidget* parent)
    : QOpenGLWidget(parent), m_doc(doc), m_sim(sim), m_tools(doc, sim, m_camera) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(320, 240);
  m_tools.onSelect = [this](const Selection& s) { emit selected(s); };
  m_tools.onMessage = [this](const QString& m) { emit message(m); };
  m_shown = m_sim.snapshot();
}

ViewportWidget::~ViewportWidget() {
  if (m_renderer.initialized() && context()) {
    makeCurrent();
    m_renderer.release();
    doneCurrent();
  }
}

void ViewportWidget::requestSurfaceFormat() {
  QSurfaceFormat fmt;
  fmt.setVersion(3, 3);
  fmt.setProfile(QSurfaceFormat::CoreProfile);
  fmt.setDepthBufferSize(24);
  QSurfaceFormat::setDefaultFormat(fmt);
}

void ViewportWidget::initializeGL() {
  std::string error;
  if (!context() || !context()->isValid()) error = "no OpenGL context could be created";
  else if (!m_renderer.initialize(error)) error = "OpenGL renderer: " + error;
  if (!error.empty()) {
    m_glError = QString::fromStdString(error);
    emit glFailed(m_glError);
    return;
  }
  m_glInfo = QString::fromStdString(m_renderer.glVersion());
}

void ViewportWidget::resizeGL(int w, int h) { m_camera.resize(w, h); }

void ViewportWidget::setSelection(const Selection& s) {
  m_selection = s;
  update();
}

void ViewportWidget::frameAll() {
  const auto snap = m_sim.snapshot();
  core::Vec3 lo = core::Vec3::Constant(1e300), hi = core::Vec3::Constant(-1e300);
  bool any = false;
  auto grow = [&](const core::Vec3& p, double r) {
    lo = lo.cwiseMin(p - core::Vec3::Constant(r));
    hi = hi.cwiseMax(p + core::Vec3::Constant(r));
    any = true;
  };
  if (snap->geometry) {
    for (size_t i = 0; i < snap->bodies.size(); ++i) {
      if (!snap->bodies[i].active) continue;
      const core::BodyGeometry& g = snap->geometry->bodies[i];
      const double r = g.shape == core::Shape::Rod ? 0.5 * g.length
                       : g.shape == core::Shape::Box ? 0.5 * g.size.norm()
                       : g.shape == core::Shape::Torus ? g.majorRadius + g.minorRadius : g.radius;
      grow(snap->bodies[i].x, r);
    }
    for (const core::NailDef& n : snap->geometry->nails) grow(n.position, 0.05);
    for (const core::PathGeometry& p : snap->geometry->paths)
      for (const core::Vec3& x : p.curve) grow(x, 0.0);
  }
  if (!any) {
    lo = core::Vec3(-1, -1, -1);
    hi = core::Vec3(1, 1, 1);
  }
  m_camera.frame(lo, hi);
  update();
}

void ViewportWidget::setStandardView(render::StandardView v) {
  m_camera.setView(v);
  update();
}

void ViewportWidget::pollSnapshot() {
  const auto snap = m_sim.snapshot();
  if (snap != m_shown) {
    if (!m_framedOnce && snap->geometry && !snap->geometry->bodies.empty()) {
      m_shown = snap;
      frameAll();
      m_framedOnce = true;
    }
    update();
  }
}

render::Highlight ViewportWidget::highlight() const {
  render::Highlight hl;
  m_tools.decorate(hl);
  hl.hoverConstraint = m_hoverConstraint;
  if (!m_shown || !m_shown->geometry) return hl;
  const core::SceneGeometry& g = *m_shown->geometry;
  const std::string& n = m_selection.name;
  switch (m_selection.kind) {
    case Selection::Kind::Body: hl.selectedBody = indexOf(g.bodies, n, [](const auto& b) { return b.name; }); break;
    case Selection::Kind::Nail: hl.selectedNail = indexOf(g.nails, n, [](const auto& b) { return b.name; }); break;
    case Selection::Kind::Path: hl.selectedPath = indexOf(g.paths, n, [](const auto& b) { return b.name; }); break;
    case Selection::Kind::Constraint:
      hl.selectedConstraint = indexOf(g.constraintNames, n, [](const auto& b) { return b; });
      break;
    default: break;
  }
  return hl;
}

void ViewportWidget::paintGL() {
  QElapsedTimer timer;
  timer.start();
  m_shown = m_sim.snapshot();
  if (!m_renderer.initialized()) {
    QPainter p(this);
    p.fillRect(rect(), Qt::black);
    p.setPen(Qt::white);
    p.drawText(rect(), Qt::AlignCenter, m_glError.isEmpty() ? QStringLiteral("No OpenGL") : m_glError);
    return;
  }
  m_camera.resize(width(), height());
  render::ViewOptions view = m_view;
  view.controlPoints = view.controlPoints || m_tools.wantsControlPoints();
  // GL drawing inside the painter's native block, so QPainter finds its own state afterwards
  QPainter p(this);
  p.beginNativePainting();
  m_renderer.draw(*m_shown, m_camera, view, highlight());
  p.endNativePainting();
  paintOverlay(p);
  if (m_timing) {
    p.end();
    makeCurrent();
    m_renderer.finish();
  }
  m_lastFrameMs = timer.nsecsElapsed() * 1e-6;
  ++m_frames;
}

void ViewportWidget::paintOverlay(QPainter& p) {
  p.setRenderHint(QPainter::Antialiasing);
  QFont f = p.font();
  f.setPointSizeF(9);
  p.setFont(f);
  // the walk's labels (the gizmo's axis letters), about centred on their pixel
  for (const render::Renderer::Label& l : m_renderer.labels()) {
    p.setPen(QColor::fromRgbF(l.color.r, l.color.g, l.color.b, l.color.a));
    p.drawText(QPointF(l.px - 4, l.py + 4), QString::fromStdString(l.text));
  }
  const bool debug = m_view.debugDraw;
  // legend: a bar of 80 px and what it stands for at the orbit target's depth
  if (debug && m_shown && m_shown->geometry && !m_renderer.segments().empty()) {
    const double metres = 80.0 * m_camera.pixelSize(m_camera.target());
    const render::ArrowScale& s = m_renderer.arrowScale();
    QStringList lines;
    if (s.forces)
      lines << QStringLiteral("force: %1 N  (%2 N per m)").arg(number(metres * s.newtonsPerMetre), number(s.newtonsPerMetre));
    if (s.torques)
      lines << QStringLiteral("torque: %1 N m").arg(number(metres * s.newtonMetresPerMetre));
    if (s.velocities) lines << QStringLiteral("velocity: %1 m/s").arg(number(metres * s.secondsPerMetre));
    int textWidth = 90;
    for (const QString& l : lines) textWidth = std::max(textWidth, p.fontMetrics().horizontalAdvance(QStringLiteral("bar = ") + l));
    const int x0 = width() - textWidth - 16, y0 = height() - 14 - 16 * int(lines.size());
    p.fillRect(QRect(x0 - 8, y0 - 18, textWidth + 16, 24 + 16 * int(lines.size())), QColor(255, 255, 255, 190));
    p.setPen(QPen(QColor(30, 30, 30), 2));
    p.drawLine(x0, y0 - 6, x0 + 80, y0 - 6);
    p.drawLine(x0, y0 - 10, x0, y0 - 2);
    p.drawLine(x0 + 80, y0 - 10, x0 + 80, y0 - 2);
    p.setPen(QColor(30, 30, 30));
    for (int i = 0; i < lines.size(); ++i) p.drawText(QPointF(x0, y0 + 12 + 16 * i), QStringLiteral("bar = ") + lines[i]);
  }
  // tool hint
  p.setPen(QColor(60, 60, 70));
  p.drawText(QRectF(10, 6, width() - 20, 20), Qt::AlignLeft | Qt::AlignVCenter,
             toolName(m_tools.tool()) + QStringLiteral(" — ") + toolHint(m_tools.tool(), m_tools.firstClicked()));
  // hover info
  if (!m_hoverText.isEmpty()) {
    const QRectF box = p.boundingRect(QRectF(0, 0, 400, 200), Qt::AlignLeft, m_hoverText).adjusted(-6, -4, 6, 4);
    QRectF at = box.translated(m_hoverAt + QPointF(16, 12));
    if (at.right() > width()) at.moveRight(m_hoverAt.x() - 8);
    if (at.bottom() > height()) at.moveBottom(m_hoverAt.y() - 8);
    p.fillRect(at, QColor(255, 255, 225, 235));
    p.setPen(QColor(40, 40, 40));
    p.drawRect(at);
    p.drawText(at.adjusted(6, 4, -6, -4), Qt::AlignLeft, m_hoverText);
  }
  if (m_shown && !m_shown->message.empty()) {
    p.setPen(QColor(170, 20, 20));
    p.drawText(QRectF(10, 24, width() - 20, 40), Qt::AlignLeft | Qt::TextWordWrap, QString::fromStdString(m_shown->message));
  }
}

void ViewportWidget::updateHover(double px, double py) {
  m_hoverText.clear();
  m_hoverConstraint = -1;
  if (!m_shown || !m_shown->geometry) return;
  const core::Snapshot& s = *m_shown;
  const core::SceneGeometry& g = *s.geometry;
  if (const render::Hit h = render::pickSegment(m_renderer.segments(), m_camera, px, py, 5)) {
    const render::Segment& seg = m_renderer.segments()[size_t(h.index)];
    using K = render::Segment::Kind;
    if (seg.kind == K::ConstraintForce || seg.kind == K::ConstraintTorque || seg.kind == K::ConstraintLine) {
      const core::ConstraintDraw& c = s.constraints[size_t(seg.index)];
      m_hoverConstraint = seg.index;
      double F = 0, T = 0;
      for (int k = 0; k < c.nb; ++k) {
        F = std::max(F, c.force[k].norm());
        T = std::max(T, c.torque[k].norm());
      }
      m_hoverText = QStringLiteral("%1 (%2)\n|F| = %3 N\n|D| = %4")
                        .arg(QString::fromStdString(g.constraintNames[size_t(seg.index)]),
                             QString::fromUtf8(core::constraintType(g.constraintDefs[size_t(seg.index)].kind).label), number(F, 4),
                             number(c.deviation, 3));
      if (T > 0) m_hoverText += QStringLiteral("\n|T| = %1 N m").arg(number(T, 4));
    } else if (seg.kind == K::Spring) {
      m_hoverText = QStringLiteral("%1 (spring)\nlength %2 m")
                        .arg(QString::fromStdString(g.forceNames[size_t(seg.index)]), number((seg.to - seg.from).norm()));
    } else {
      const core::BodyPose& b = s.bodies[size_t(seg.index)];
      m_hoverText = seg.kind == K::Velocity
                        ? QStringLiteral("%1\n|v| = %2 m/s").arg(QString::fromStdString(g.bodies[size_t(seg.index)].name), number(b.v.norm()))
                        : QStringLiteral("%1\n|F applied| = %2 N").arg(QString::fromStdString(g.bodies[size_t(seg.index)].name), number(b.externalForce.norm()));
    }
    m_hoverAt = QPointF(px, py);
  }
}

void ViewportWidget::mousePressEvent(QMouseEvent* e) {
  m_lastMouse = e->position();
  const bool orbitMod = e->modifiers() & Qt::AltModifier;
  if (e->button() == Qt::LeftButton && !orbitMod) {
    // with the select tool, a click on an arrow or constraint line selects its constraint (or
    // spring): they are drawn over the bodies
    if (m_tools.tool().kind == ToolKind::Select && m_shown->geometry)
      if (const render::Hit h = render::pickSegment(m_renderer.segments(), m_camera, e->position().x(), e->position().y(), 4)) {
        const render::Segment& seg = m_renderer.segments()[size_t(h.index)];
        using K = render::Segment::Kind;
        if (seg.kind == K::ConstraintForce || seg.kind == K::ConstraintTorque || seg.kind == K::ConstraintLine) {
          emit selected({Selection::Kind::Constraint, m_shown->geometry->constraintNames[size_t(seg.index)]});
          return;
        }
        if (seg.kind == K::Spring) {
          emit selected({Selection::Kind::Force, m_shown->geometry->forceNames[size_t(seg.index)]});
          return;
        }
      }
    m_toolButton = true;
    m_tools.press(*m_shown, e->position().x(), e->position().y());
  } else {
    m_navButton = (e->button() == Qt::MiddleButton || (e->modifiers() & Qt::ShiftModifier)) ? Qt::MiddleButton
                                                                                              : Qt::RightButton;
  }
  update();
}

void ViewportWidget::mouseMoveEvent(QMouseEvent* e) {
  const QPointF d = e->position() - m_lastMouse;
  m_lastMouse = e->position();
  if (m_navButton == Qt::RightButton) m_camera.orbit(d.x(), d.y());
  else if (m_navButton == Qt::MiddleButton) m_camera.pan(d.x(), d.y());
  else {
    m_tools.move(*m_shown, e->position().x(), e->position().y(), m_toolButton);
    if (!m_toolButton) updateHover(e->position().x(), e->position().y());
  }
  update();
}

void ViewportWidget::mouseReleaseEvent(QMouseEvent* e) {
  if (m_toolButton && e->button() == Qt::LeftButton) {
    m_toolButton = false;
    m_tools.release(*m_shown, e->position().x(), e->position().y());
  }
  m_navButton = Qt::NoButton;
  update();
}

void ViewportWidget::wheelEvent(QWheelEvent* e) {
  m_camera.zoom(e->angleDelta().y() / 120.0);
  update();
}

void ViewportWidget::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape) {
    m_tools.cancel();
    update();
    return;
  }
  QOpenGLWidget::keyPressEvent(e);
}

void ViewportWidget::leaveEvent(QEvent* e) {
  m_hoverText.clear();
  m_hoverConstraint = -1;
  QOpenGLWidget::leaveEvent(e);
  update();
}

}  // namespace tether::ui
