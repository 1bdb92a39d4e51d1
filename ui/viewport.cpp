#include "ui/viewport.h"

#include "core/constraint_type.h"
#include "core/scene_io.h"

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QOpenGLFunctions>
#include <QPainter>
#include <QSettings>
#include <QSurfaceFormat>
#include <QWheelEvent>
#include <cmath>

namespace tether::ui {

namespace {

QString number(double v, int digits = 3) { return QString::number(v, 'g', digits); }

// What a constraint joins: its point references as the file writes them (pointRefToString),
// nail and path names with the same "nail:" / "path:" prefix: "ball.center – nail:n1"
QString joins(const core::ConstraintDef& c) {
  QStringList parts;
  for (const core::ConstraintField& f : c.type().fields) {
    using FK = core::ConstraintField::Kind;
    if (f.isPoint())
      parts << QString::fromStdString(core::pointRefToString(f.point(c)));
    else if (f.isName())
      parts << QString::fromStdString((f.kind == FK::Nail ? "nail:" : f.kind == FK::Path ? "path:" : "") + f.name(c));
  }
  return parts.join(QStringLiteral(" – "));
}

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
  m_tools.context().onSelect = [this](const Selection& s) { emit selected(s); };
  m_tools.context().onMessage = [this](const QString& m) { emit message(m); };
  m_tools.context().segments = &m_renderer.segments();  // the select tool picks arrows as drawn
  m_shown = m_sim.snapshot();
  // a fixed arrow scale carries over from the last session
  QSettings settings;
  if (settings.value(QStringLiteral("view/fixedArrowScale"), false).toBool()) {
    m_scales.force.setScale(settings.value(QStringLiteral("view/fixedNewtonsPerMetre"), 0.0).toDouble());
    m_scales.torque.setScale(settings.value(QStringLiteral("view/fixedNewtonMetresPerMetre"), 0.0).toDouble());
    m_scales.velocity.setScale(settings.value(QStringLiteral("view/fixedSecondsPerMetre"), 0.0).toDouble());
    m_scales.setFixed(true);
  }
  // another scene: its forces are learnt afresh (a fixed scale stays)
  connect(&m_doc, &Document::loaded, this, [this] {
    m_scales.reset();
    m_issues.clear();
  });
}

void ViewportWidget::setFixedArrowScale(bool on) {
  m_scales.setFixed(on);
  QSettings().setValue(QStringLiteral("view/fixedArrowScale"), on);
  saveArrowScale();
  update();
}

void ViewportWidget::saveArrowScale() const {
  if (!fixedArrowScale()) return;
  QSettings settings;
  // 0: none chosen yet (the first frame chooses, then holds)
  auto value = [](const render::ArrowScaleKeeper& k) { return k.chosen() ? k.unitsPerMetre() : 0.0; };
  settings.setValue(QStringLiteral("view/fixedNewtonsPerMetre"), value(m_scales.force));
  settings.setValue(QStringLiteral("view/fixedNewtonMetresPerMetre"), value(m_scales.torque));
  settings.setValue(QStringLiteral("view/fixedSecondsPerMetre"), value(m_scales.velocity));
}

void ViewportWidget::longerArrows() {
  if (fixedArrowScale()) {
    for (render::ArrowScaleKeeper* k : {&m_scales.force, &m_scales.torque, &m_scales.velocity})
      if (k->chosen()) k->setScale(render::niceStep(k->unitsPerMetre(), -1));
    saveArrowScale();
  } else {
    m_view.forceScaleFactor *= 2;
    m_scales.rechoose();
  }
  update();
}

void ViewportWidget::shorterArrows() {
  if (fixedArrowScale()) {
    for (render::ArrowScaleKeeper* k : {&m_scales.force, &m_scales.torque, &m_scales.velocity})
      if (k->chosen()) k->setScale(render::niceStep(k->unitsPerMetre(), 1));
    saveArrowScale();
  } else {
    m_view.forceScaleFactor /= 2;
    m_scales.rechoose();
  }
  update();
}

void ViewportWidget::setConstraintIssues(std::vector<core::ConstraintIssue> issues) {
  m_issues = std::move(issues);
  update();
}

const core::ConstraintIssue* ViewportWidget::issueOf(const std::string& constraint) const {
  for (const core::ConstraintIssue& i : m_issues)
    if (i.name == constraint) return &i;
  return nullptr;
}

ViewportWidget::~ViewportWidget() {
  if (m_renderer.initialized() && context()) {
    makeCurrent();
    m_exportFbo.reset();
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
  // what the user looks at: the shown frame (after assembly, a scrubbed frame), not the start pose
  const auto snap = m_shown ? m_shown : m_sim.snapshot();
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
  viewMovedUnderCursor();
  update();
}

// The view moved under a cursor that did not: what it hovers and the corner's readout follow.
void ViewportWidget::viewMovedUnderCursor() {
  if (!m_cursor || !m_shown) return;  // (the cursor is not over the viewport)
  m_tools.move(*m_shown, m_lastMouse.x(), m_lastMouse.y(), false);
  m_cursor = m_tools.cursorPoint(m_lastMouse.x(), m_lastMouse.y());
  refreshPrompt();
}

void ViewportWidget::setStandardView(render::StandardView v) {
  m_camera.setView(v);
  viewMovedUnderCursor();
  update();
}

void ViewportWidget::pollSnapshot() {
  const auto snap = m_sim.snapshot();
  if (snap != m_shown) update();
  if (frameIsDue(*snap)) {
    m_shown = snap;
    frameAll();
    m_frameRevision = -1;
  }
}

bool ViewportWidget::frameIsDue(const core::Snapshot& s) const {
  return m_frameRevision >= 0 && s.revision >= m_frameRevision && s.geometry && !s.geometry->bodies.empty();
}

render::Highlight ViewportWidget::highlight() const {
  render::Highlight hl;
  m_tools.decorate(hl);
  hl.hoverConstraint = m_hoverConstraint;
  if (!m_shown || !m_shown->geometry) return hl;
  const core::SceneGeometry& g = *m_shown->geometry;
  if (!m_issues.empty())
    for (size_t j = 0; j < g.constraintNames.size(); ++j)
      if (const core::ConstraintIssue* i = issueOf(g.constraintNames[j])) (i->conflicting ? hl.conflicting : hl.redundant).push_back(int(j));
  const std::string& n = m_selection.name;
  switch (m_selection.kind) {
    case Selection::Kind::Body: hl.selectedBody = indexOf(g.bodies, n, [](const auto& b) { return b.name; }); break;
    case Selection::Kind::Nail: hl.selectedNail = indexOf(g.nails, n, [](const auto& b) { return b.name; }); break;
    case Selection::Kind::Path: hl.selectedPath = indexOf(g.paths, n, [](const auto& b) { return b.name; }); break;
    case Selection::Kind::Plane: hl.selectedPlane = indexOf(g.planes, n, [](const auto& b) { return b.name; }); break;
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
  if (frameIsDue(*m_shown)) {  // the first frame of a file just opened is drawn framed
    frameAll();
    m_frameRevision = -1;
  }
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
  // the scale held from frame to frame: it changes only when the arrows leave the readable band
  if (view.debugDraw) {
    auto chosen = [this] {
      return int(m_scales.force.chosen()) + int(m_scales.torque.chosen()) + int(m_scales.velocity.chosen());
    };
    if (const std::uint64_t epoch = m_sim.samples().epoch(); epoch != m_scaleEpoch) {
      m_scaleEpoch = epoch;
      m_scales.reset();  // (a fixed scale stays)
    }
    const int before = chosen();
    view.scale = m_scales.update(*m_shown, view, m_camera.distance());
    // a fixed scale switched on before any arrow of a kind was drawn is the first one chosen
    if (chosen() != before && fixedArrowScale()) saveArrowScale();
  }
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

QImage ViewportWidget::renderImage(const core::Snapshot& snap, const QSize& size, QString& error) {
  if (!m_renderer.initialized() || !context()) {
    error = m_glError.isEmpty() ? tr("the viewport has no OpenGL context yet") : m_glError;
    return {};
  }
  if (size.width() < 1 || size.height() < 1) {
    error = tr("the size %1×%2 is empty").arg(size.width()).arg(size.height());
    return {};
  }
  makeCurrent();
  GLint maxRenderbuffer = 0, maxViewport[2] = {0, 0};
  QOpenGLFunctions* gl = context()->functions();
  gl->glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &maxRenderbuffer);
  gl->glGetIntegerv(GL_MAX_VIEWPORT_DIMS, maxViewport);
  const int limit = std::min<int>(maxRenderbuffer, std::min(maxViewport[0], maxViewport[1]));
  if (limit > 0 && std::max(size.width(), size.height()) > limit) {
    doneCurrent();
    error = tr("%1×%2 px is larger than this GPU can render (at most %3 px a side)").arg(size.width()).arg(size.height()).arg(limit);
    return {};
  }
  if (!m_exportFbo || m_exportFbo->size() != size) {
    m_exportFbo.reset();
    QOpenGLFramebufferObjectFormat format;
    format.setAttachment(QOpenGLFramebufferObject::Depth);
    m_exportFbo = std::make_unique<QOpenGLFramebufferObject>(size, format);
    if (!m_exportFbo->isValid()) {
      m_exportFbo.reset();
      doneCurrent();
      error = tr("the GPU could not make a %1×%2 framebuffer (out of video memory?)").arg(size.width()).arg(size.height());
      return {};
    }
  }
  // the screen's camera at the new size: the vertical field of view is kept, so the picture
  // shows what the screen does (more or less at the sides if the aspect differs); marks sized
  // in pixels grow with the height so they keep their look
  const double scale = double(size.height()) / std::max(1, height());
  render::Camera cam = m_camera;
  cam.resize(size.width(), size.height());
  render::ViewOptions view = m_view;
  view.pixelScale = scale;
  m_exportFbo->bind();
  m_renderer.draw(snap, cam, view, render::Highlight{});
  QImage image = m_exportFbo->toImage().convertToFormat(QImage::Format_RGB32);
  m_exportFbo->release();
  doneCurrent();
  // the screen's resolution, so the legend's 9 pt text has the size it has on screen
  image.setDotsPerMeterX(int(std::lround(logicalDpiX() / 0.0254)));
  image.setDotsPerMeterY(int(std::lround(logicalDpiY() / 0.0254)));
  {
    QPainter p(&image);
    p.scale(scale, scale);
    render::Camera screenCam = m_camera;
    screenCam.resize(int(std::lround(size.width() / scale)), height());
    paintPictureOverlay(p, screenCam, QSizeF(size.width() / scale, size.height() / scale), 1.0 / scale);
  }
  // the renderer's hover segments now describe the picture: draw the screen again
  update();
  return image;
}

void ViewportWidget::paintPictureOverlay(QPainter& p, const render::Camera& cam, const QSizeF& size, double labelScale) {
  p.setRenderHint(QPainter::Antialiasing);
  QFont f = p.font();
  f.setPointSizeF(9);
  p.setFont(f);
  // the walk's labels (the gizmo's axis letters), about centred on their pixel (the walk gives
  // them in the rendered picture's pixels: labelScale maps them to the painter's)
  for (const render::Renderer::Label& l : m_renderer.labels()) {
    p.setPen(QColor::fromRgbF(l.color.r, l.color.g, l.color.b, l.color.a));
    p.drawText(QPointF(l.px * labelScale - 4, l.py * labelScale + 4), QString::fromStdString(l.text));
  }
  const bool debug = m_view.debugDraw;
  // legend: per kind of arrow a bar of a round value, at most 100 px long, at the orbit target's
  // depth; kinds shown, and those whose scale is held while their arrows are all noise
  m_legend.clear();
  if (debug && m_shown && m_shown->geometry && !m_renderer.segments().empty()) {
    const double metresPerPixel = cam.pixelSize(cam.target());
    const render::ArrowScale& s = m_renderer.arrowScale();
    auto row = [&](const char* kind, const char* unit, double unitsPerMetre) {
      const render::LegendBar bar = render::legendBar(unitsPerMetre, metresPerPixel, 100.0);
      if (bar.pixels > 0)
        m_legend.push_back({QString::fromLatin1(kind), bar.value,
                            QString::fromStdString(render::formatQuantity(bar.value, unit)), bar.pixels});
    };
    if (s.forces || ((m_view.constraintForces || m_view.externalForces) && m_scales.force.chosen()))
      row("force", "N", s.newtonsPerMetre);
    if (s.torques || (m_view.torques && m_scales.torque.chosen()))
      row("torque", "N m", s.newtonMetresPerMetre);
    if (s.velocities || (m_view.velocities && m_scales.velocity.chosen())) row("velocity", "m/s", s.secondsPerMetre);
  }
  if (!m_legend.isEmpty()) {
    const QFontMetrics fm = p.fontMetrics();
    const QString title = fixedArrowScale() ? tr("arrow scale (fixed)") : tr("arrow scale");
    int textWidth = fm.horizontalAdvance(title) - 108;
    for (const LegendRow& r : m_legend)
      textWidth = std::max(textWidth, fm.horizontalAdvance(QStringLiteral("%1  %2").arg(r.text, r.kind)));
    const int rowH = 16, n = int(m_legend.size());
    const int w = 100 + 8 + textWidth, x0 = int(size.width()) - w - 16, y0 = int(size.height()) - 12 - rowH * n;
    p.fillRect(QRect(x0 - 8, y0 - rowH - 8, w + 16, rowH * (n + 1) + 12), QColor(255, 255, 255, 190));
    p.setPen(QColor(90, 90, 90));
    p.drawText(QPointF(x0, y0 - 6), title);
    for (int i = 0; i < n; ++i) {
      const LegendRow& r = m_legend[i];
      const double y = y0 + rowH * i + 4, len = r.pixels;
      p.setPen(QPen(QColor(30, 30, 30), 2));
      p.drawLine(QPointF(x0, y), QPointF(x0 + len, y));
      p.drawLine(QPointF(x0, y - 4), QPointF(x0, y + 4));
      p.drawLine(QPointF(x0 + len, y - 4), QPointF(x0 + len, y + 4));
      p.setPen(QColor(30, 30, 30));
      p.drawText(QPointF(x0 + 108, y + 4), QStringLiteral("%1  %2").arg(r.text, r.kind));
    }
  }
}

void ViewportWidget::paintOverlay(QPainter& p) {
  paintPictureOverlay(p, m_camera, QSizeF(size()), 1.0);
  const bool debug = m_view.debugDraw;
  // the constraints check flags: how many, and where the reason is
  if (debug && !m_issues.empty()) {
    int conflicting = 0, redundant = 0;
    for (const core::ConstraintIssue& i : m_issues) i.conflicting ? ++conflicting : ++redundant;
    QStringList parts;
    if (conflicting) parts << tr("%n conflicting", nullptr, conflicting);
    if (redundant) parts << tr("%n redundant", nullptr, redundant);
    const QString text = (conflicting + redundant == 1 ? tr("%1 constraint at t = 0 (marked; hover it for why)")
                                                       : tr("%1 constraints at t = 0 (marked; hover them for why)"))
                             .arg(parts.join(QStringLiteral(", ")));
    p.setPen(conflicting ? QColor(200, 0, 0) : QColor(170, 100, 0));
    p.drawText(QPointF(12, height() - 108), text);
  }
  // where the cursor points, beside the axis gizmo (a helper placing nails 2 m apart in the
  // front view worked the scale out from the inspector)
  if (const QString at = cursorText(); !at.isEmpty()) {
    p.setPen(QColor(70, 70, 70));
    p.drawText(QPointF(108, height() - 12), at);
  }
  // hover info
  if (!m_hoverText.isEmpty()) {
    // (a flagged constraint's reason runs to a few lines: wrapped at 420 px)
    const QRectF box =
        p.boundingRect(QRectF(0, 0, 420, 1000), Qt::AlignLeft | Qt::TextWordWrap, m_hoverText).adjusted(-6, -4, 6, 4);
    QRectF at = box.translated(m_hoverAt + QPointF(16, 12));
    if (at.right() > width()) at.moveRight(m_hoverAt.x() - 8);
    if (at.bottom() > height()) at.moveBottom(m_hoverAt.y() - 8);
    p.fillRect(at, QColor(255, 255, 225, 235));
    p.setPen(QColor(40, 40, 40));
    p.drawRect(at);
    p.drawText(at.adjusted(6, 4, -6, -4), Qt::AlignLeft | Qt::TextWordWrap, m_hoverText);
  }
  m_messageBox = QRectF();
  if (m_shown && !m_shown->message.empty()) {
    // the whole message, wrapped, on a pale box (a divergence's runs to five lines with its cause
    // and its fixes: a 40 px strip cut it after two); a click folds it to its first clause (it
    // hid the model under it, and nothing but Reset took it away)
    if (m_shown->message != m_messageShown) {
      m_messageShown = m_shown->message;
      m_messageFolded = false;
    }
    QString text = QString::fromStdString(m_shown->message);
    if (m_messageFolded) text = text.section(QStringLiteral(": "), 0, 0) + tr(" … (click to read all)");
    else text += tr(" (click to fold)");
    const QRectF room(10, 24, std::max(100, width() - 20), std::max(40, height() - 48));
    const QRectF box = p.boundingRect(room, Qt::AlignLeft | Qt::TextWordWrap, text).intersected(room);
    m_messageBox = box.adjusted(-4, -3, 4, 3);
    p.fillRect(m_messageBox, QColor(255, 245, 245, 225));
    p.setPen(QColor(170, 20, 20));
    p.drawText(box, Qt::AlignLeft | Qt::TextWordWrap, text);
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
      m_hoverConstraint = seg.index;
      // the whole constraint's: a hinge is drawn as two parts of one name (its point's force, its
      // axis's torque), and its torque arrow said "|F| = 0 N, |D| = 0" beside its force arrow's 68 N
      double F = 0, T = 0, D = 0;
      const std::string& name = g.constraintNames[size_t(seg.index)];
      for (size_t j = 0; j < s.constraints.size() && j < g.constraintNames.size(); ++j) {
        const core::ConstraintDraw& c = s.constraints[j];
        if (g.constraintNames[j] != name || !c.active) continue;
        for (int k = 0; k < c.nb; ++k) {
          F = std::max(F, c.force[k].norm());
          T = std::max(T, c.torque[k].norm());
        }
        D = std::max(D, c.deviation);
      }
      const core::ConstraintDef& def = g.constraintDefs[size_t(seg.index)];
      m_hoverText = QStringLiteral("%1 (%2)\n%3\n|F| = %4 N\n|D| = %5")
                        .arg(QString::fromStdString(name), QString::fromUtf8(def.type().label), joins(def), number(F, 4),
                             number(D, 3));
      if (T > 0) m_hoverText += QStringLiteral("\n|T| = %1 N m").arg(number(T, 4));
      if (const core::ConstraintIssue* i = issueOf(g.constraintNames[size_t(seg.index)]))
        m_hoverText += QStringLiteral("\n") + QString::fromStdString(i->reason);
    } else if (seg.kind == K::ContactForce) {
      const core::ContactDraw& c = s.contacts[size_t(seg.index)];
      auto bodyName = [&](int b) {
        return b >= 0 && size_t(b) < g.bodies.size() ? QString::fromStdString(g.bodies[size_t(b)].name) : QString();
      };
      const QString other = c.bodyB >= 0 ? bodyName(c.bodyB)
                            : c.plane >= 0 && size_t(c.plane) < g.planes.size() ? QString::fromStdString(g.planes[size_t(c.plane)].name)
                                                                                 : QString();
      m_hoverText = QStringLiteral("contact %1 – %2\n|F| = %3 N").arg(bodyName(c.bodyA), other, number(c.force.norm(), 4));
    } else if (seg.kind == K::AppliedForce || seg.kind == K::AppliedTorque) {
      const bool torque = seg.kind == K::AppliedTorque;
      m_hoverText = QStringLiteral("%1 (constant %2)\n|%3| = %4 %5")
                        .arg(QString::fromStdString(g.forceNames[size_t(seg.index)]), torque ? QStringLiteral("torque") : QStringLiteral("force"),
                             torque ? QStringLiteral("T") : QStringLiteral("F"), number(s.forces[size_t(seg.index)].vector.norm(), 4),
                             torque ? QStringLiteral("N m") : QStringLiteral("N"));
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
  // a click on the simulation's message folds it to its first line, or unfolds it
  if (e->button() == Qt::LeftButton && m_messageBox.contains(e->position())) {
    m_messageFolded = !m_messageFolded;
    update();
    return;
  }
  const bool orbitMod = e->modifiers() & Qt::AltModifier;
  if (e->button() == Qt::LeftButton && !orbitMod) {
    m_toolButton = true;
    m_tools.press(*m_shown, e->position().x(), e->position().y());
    refreshPrompt();
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
    refreshPrompt();
  }
  m_cursor = m_tools.cursorPoint(e->position().x(), e->position().y());
  update();
}

void ViewportWidget::setSnapToGrid(bool on) {
  m_tools.context().snapToGrid = on;
  m_cursor = m_tools.cursorPoint(m_lastMouse.x(), m_lastMouse.y());
  update();
}

// (as many decimals as tell the grid's lines apart: 0.1 m apart, two)
QString ViewportWidget::cursorText() const {
  if (!m_cursor) return {};
  const int decimals = std::clamp(1 - int(std::floor(std::log10(m_camera.gridStep()))), 0, 6);
  auto f = [&](double v) {  // (no "-0.00")
    const QString s = QString::number(v, 'f', decimals);
    return s.toDouble() == 0.0 ? QString::number(0.0, 'f', decimals) : s;
  };
  return QStringLiteral("x %1  y %2  z %3 m%4")
      .arg(f(m_cursor->x()), f(m_cursor->y()), f(m_cursor->z()), snapToGrid() ? tr("  (snap)") : QString());
}

void ViewportWidget::mouseReleaseEvent(QMouseEvent* e) {
  if (m_toolButton && e->button() == Qt::LeftButton) {
    m_toolButton = false;
    m_tools.release(*m_shown, e->position().x(), e->position().y());
    refreshPrompt();
  }
  m_navButton = Qt::NoButton;
  update();
}

// The wheel zooms toward what the cursor points at: a body's surface, a ground plane, else the
// spot at the target's depth (a helper zoomed in on a plank at the side of a wide view and saw
// only the floor: the zoom went to the middle of the view).
void ViewportWidget::wheelEvent(QWheelEvent* e) {
  m_lastMouse = e->position();
  const double px = e->position().x(), py = e->position().y();
  const render::Ray ray = m_camera.ray(px, py);
  double along = m_camera.distance() / std::max(ray.direction.dot(m_camera.forward()), 1e-3);
  if (m_shown && m_shown->geometry) {
    if (const render::Hit b = render::pickBody(*m_shown, ray)) along = b.distance;
    else if (const render::Hit p = render::pickPlane(*m_shown, ray)) along = p.distance;
  }
  m_camera.zoomAt(e->angleDelta().y() / 120.0, ray.origin + along * ray.direction);
  viewMovedUnderCursor();
  update();
}

void ViewportWidget::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape) {
    m_tools.cancel();
    refreshPrompt();
    update();
    return;
  }
  QOpenGLWidget::keyPressEvent(e);
}

// Tab and Shift+Tab step through the points and nails on one spot under the cursor (the status
// bar says "Tab: 1 of 2 here"); elsewhere they move the keyboard focus as in any window.
bool ViewportWidget::focusNextPrevChild(bool next) {
  if (m_shown && m_tools.cycle(*m_shown, m_lastMouse.x(), m_lastMouse.y(), next)) {
    refreshPrompt();
    update();
    return true;
  }
  return QOpenGLWidget::focusNextPrevChild(next);
}

void ViewportWidget::refreshPrompt() {
  const QString p = m_tools.prompt();
  if (p != m_prompt) emit promptChanged(m_prompt = p);
  const QString h = m_tools.hover();
  if (h != m_hoverName) emit hoverChanged(m_hoverName = h);
}

void ViewportWidget::leaveEvent(QEvent* e) {
  m_hoverText.clear();
  m_cursor.reset();
  m_hoverConstraint = -1;
  QOpenGLWidget::leaveEvent(e);
  update();
}

}  // namespace tether::ui
