#include "ui/timeline.h"

#include <QCheckBox>
#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <map>

#include "core/validate.h"
#include "ui/commands.h"

namespace tether::ui {

using core::EventAction;
using core::EventDef;
using core::Scene;

namespace {

constexpr int kRuler = 26;       // px
constexpr int kLane = 22;        // px
constexpr int kLabels = 130;     // px, the name column's least width
constexpr int kMarker = 6;       // half size, px

double niceStep(double secondsPer100px) {
  const double p = std::pow(10.0, std::floor(std::log10(secondsPer100px)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= secondsPer100px) return m * p;
  return 10 * p;
}

// the next smaller step of the 1-2-5 series: 10 -> 5 -> 2 -> 1 -> 0.5 ...
double finerStep(double step) {
  const double p = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const double m = std::round(step / p);
  return m >= 5 ? 2 * p : m >= 2 ? p : 0.5 * p;
}

QColor actionColor(EventAction a) {
  switch (a) {
    case EventAction::Enable: return QColor(30, 150, 50);
    case EventAction::Disable: return QColor(200, 40, 40);
    case EventAction::Create: return QColor(40, 90, 210);
    case EventAction::Remove: return QColor(40, 40, 40);
    case EventAction::Set: return QColor(230, 130, 0);
  }
  return Qt::gray;
}

// the marker icon of an event kind: enable ▲, disable ▼, create ●, remove ✕, set ◆
void drawMarker(QPainter& p, QPointF c, EventAction a, bool selected) {
  const double r = kMarker;
  p.setPen(QPen(selected ? QColor(255, 200, 0) : actionColor(a).darker(140), selected ? 2.5 : 1));
  p.setBrush(actionColor(a));
  QPainterPath path;
  switch (a) {
    case EventAction::Enable: path.addPolygon(QPolygonF({c + QPointF(0, -r), c + QPointF(r, r), c + QPointF(-r, r)})); break;
    case EventAction::Disable: path.addPolygon(QPolygonF({c + QPointF(0, r), c + QPointF(r, -r), c + QPointF(-r, -r)})); break;
    case EventAction::Create: path.addEllipse(c, r, r); break;
    case EventAction::Set: path.addPolygon(QPolygonF({c + QPointF(0, -r), c + QPointF(r, 0), c + QPointF(0, r), c + QPointF(-r, 0)})); break;
    case EventAction::Remove:
      p.setPen(QPen(selected ? QColor(255, 200, 0) : actionColor(a), 3));
      p.drawLine(c + QPointF(-r, -r), c + QPointF(r, r));
      p.drawLine(c + QPointF(-r, r), c + QPointF(r, -r));
      return;
  }
  path.closeSubpath();
  p.drawPath(path);
}

}  // namespace

TimelineView::TimelineView(Document& doc, SimulationController& sim, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_sim(sim) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumHeight(kRuler + 3 * kLane);
  connect(&m_doc, &Document::changed, this, [this] {
    rebuild();
    if (m_tip && QToolTip::isVisible()) refreshToolTip();
    else m_tip.reset();
    update();
  });
  connect(&m_doc, &Document::loaded, this, [this] {
    m_userZoom = false;
    m_fitEnd = 0.0;  // another scene: its own range
    m_selEvents.clear();
    m_selKeys.clear();
  });
  rebuild();
}

double TimelineView::timeAt(double x) const { return m_t0 + (x - labelWidth()) / m_pxPerSecond; }
double TimelineView::xAt(double t) const { return labelWidth() + (t - m_t0) * m_pxPerSecond; }

int TimelineView::labelWidth() const {
  // wide enough for the longest name, but never more than 40 % of the view (longer names
  // are elided in the middle, with the whole name in the tooltip)
  return std::clamp(m_labelWanted, kLabels, std::max(kLabels, width() * 2 / 5));
}

QString TimelineView::laneLabel(const Lane& l) const {
  static const char* kinds[] = {"", "body ", "constraint ", "force ", "path "};
  return QString::fromUtf8(kinds[int(l.kind)]) + QString::fromStdString(l.name);
}
int TimelineView::laneY(int lane) const { return kRuler + lane * kLane; }
double TimelineView::playhead() const { return m_sim.snapshot()->t; }

int TimelineView::laneAt(int y) const {
  if (y < kRuler) return -1;
  const int l = (y - kRuler) / kLane;
  return l < int(m_lanes.size()) ? l : -1;
}

double TimelineView::snap(double t) const {
  const double f = m_sim.snapshot()->history.framePeriod;
  return std::max(0.0, std::round(t / f) * f);
}

double TimelineView::clickedTime(double x) const {
  // The roundest time within a few pixels of the click: the ruler's ticks and the 1-2-5 steps
  // between them, down to the frame. A frame is rarely a round time (17 ms at dt = 1 ms):
  // snapped to frames alone, a right-click on the ruler's "1" would mean 1.003 s, or 1.02 s with
  // 60 s in view (60 ms a pixel).
  constexpr double kReach = 3.0;  // px
  const double t = std::max(0.0, timeAt(x));
  const double frame = m_sim.snapshot()->history.framePeriod;
  for (double step = niceStep(100.0 / m_pxPerSecond); step > frame; step = finerStep(step)) {
    // (to the nanosecond: 3 * 0.1 is 0.30000000000000004, the file would say so)
    const double r = std::round(std::round(t / step) * step * 1e9) / 1e9;
    if (std::abs(xAt(r) - x) <= kReach) return r;
  }
  return snap(t);
}

void TimelineView::rebuild() {
  const Scene& s = m_doc.scene();
  m_lanes.clear();
  auto add = [&](Lane::Kind k, const std::string& name) {
    for (const Lane& l : m_lanes)
      if (l.kind == k && l.name == name) return;
    m_lanes.push_back({k, name});
  };
  for (const EventDef& e : s.events) {
    if (e.target == "gravity") add(Lane::Kind::Gravity, e.target);
    else if (std::any_of(s.bodies.begin(), s.bodies.end(), [&](const auto& b) { return b.name == e.target; }))
      add(Lane::Kind::Body, e.target);
    else if (std::any_of(s.constraints.begin(), s.constraints.end(), [&](const auto& c) { return c.name == e.target; }))
      add(Lane::Kind::Constraint, e.target);
    else if (std::any_of(s.paths.begin(), s.paths.end(), [&](const auto& p) { return p.name == e.target; }))
      add(Lane::Kind::Path, e.target);
    else add(Lane::Kind::Force, e.target);
  }
  for (const core::PathDef& p : s.paths)
    if (p.kind == core::PathKind::Spline) add(Lane::Kind::Path, p.name);
  // selections that no longer exist
  std::erase_if(m_selEvents, [&](int i) { return i >= int(s.events.size()); });
  m_labelWanted = 0;
  for (const Lane& l : m_lanes) m_labelWanted = std::max(m_labelWanted, fontMetrics().horizontalAdvance(laneLabel(l)) + 16);
  setMinimumHeight(kRuler + std::max<int>(3, int(m_lanes.size())) * kLane);
  // the duration set anew is the range asked for: the ruler fits it, shorter too (it stayed at
  // 12.5 s, an event's old time, when a helper set 6 s)
  if (s.settings.duration != m_duration) {
    m_duration = s.settings.duration;
    m_fitEnd = 0.0;
    m_userZoom = false;
  }
  if (!m_userZoom) fit();
}

void TimelineView::fit() {
  const Scene& s = m_doc.scene();
  // (the recording's end once the solver has this version of the scene: just after File > New
  // the snapshot still had the old scene's 1 600 s, and the new one's ruler kept them)
  const auto snap = m_sim.snapshot();
  double end = std::max(s.settings.duration, snap->revision == m_doc.revision() ? snap->history.end : 0.0);
  for (const EventDef& e : s.events) end = std::max(end, e.time + 0.5);
  for (const core::PathDef& p : s.paths)
    if (!p.keyframes.empty()) end = std::max(end, p.keyframes.back().t + 0.5);
  // the range only grows: deleting the last event or a re-simulation that drops frames does
  // not rescale the ruler under the user's eyes
  end = std::max(end, m_fitEnd);
  m_fitEnd = end;
  const double t0 = -0.02 * end;
  // (24 px: room for the last tick's label, "10" was cut to "1")
  setView(t0, std::max(1e-3, (width() - labelWidth() - 24) / (end - t0)));
}

void TimelineView::setView(double t0, double pxPerSecond) {
  m_t0 = t0;
  m_pxPerSecond = pxPerSecond;
  update();
  emit viewChanged();
}

double TimelineView::viewSpan() const { return std::max(1, width() - labelWidth()) / m_pxPerSecond; }

double TimelineView::extentEnd() const {
  const auto snap = m_sim.snapshot();
  return std::max({m_fitEnd, snap->history.end, snap->t});
}

void TimelineView::scrollTo(double start) {
  if (start == m_t0) return;
  m_userZoom = true;
  setView(start, m_pxPerSecond);
}

std::vector<TimelineView::Marker> TimelineView::markers() const {
  std::vector<Marker> out;
  const Scene& s = m_doc.scene();
  for (size_t i = 0; i < s.events.size(); ++i)
    for (size_t l = 0; l < m_lanes.size(); ++l)
      if (m_lanes[l].name == s.events[i].target)
        out.push_back({int(i), {}, -1, int(l), s.events[i].time});
  for (size_t l = 0; l < m_lanes.size(); ++l) {
    if (m_lanes[l].kind != Lane::Kind::Path) continue;
    for (const core::PathDef& p : s.paths)
      if (p.name == m_lanes[l].name)
        for (size_t k = 0; k < p.keyframes.size(); ++k) out.push_back({-1, p.name, int(k), int(l), p.keyframes[k].t});
  }
  return out;
}

std::optional<TimelineView::Marker> TimelineView::markerAt(const QPoint& pt) const {
  std::optional<Marker> best;
  double bestD = kMarker + 3;
  for (const Marker& m : markers()) {
    const double d = std::max(std::abs(xAt(m.t) - pt.x()), std::abs(laneY(m.lane) + kLane / 2.0 - pt.y()));
    if (d <= bestD) {
      bestD = d;
      best = m;
    }
  }
  return best;
}

QString TimelineView::describe(const Marker& m) const {
  const Scene& s = m_doc.scene();
  if (m.event < 0) {
    for (const core::PathDef& p : s.paths)
      if (p.name == m.path) {
        const auto& k = p.keyframes[size_t(m.keyframe)];
        return tr("t = %1 s: %2 keyframe %3 at (%4, %5, %6) m")
            .arg(k.t).arg(QString::fromStdString(p.name)).arg(m.keyframe + 1)
            .arg(k.position.x()).arg(k.position.y()).arg(k.position.z());
      }
    return {};
  }
  const EventDef& e = s.events[size_t(m.event)];
  QString text = tr("t = %1 s: %2 %3").arg(e.time).arg(QString::fromUtf8(core::toString(e.action)), QString::fromStdString(e.target));
  if (e.action == EventAction::Set) {
    QStringList v;
    for (double x : e.value) v << QString::number(x);
    text += QStringLiteral(" %1 = %2").arg(QString::fromStdString(e.param), v.join(QStringLiteral(", ")));
  }
  return text;
}

void TimelineView::paintEvent(QPaintEvent*) {
  const auto snap = m_sim.snapshot();
  follow(snap->t);  // what is drawn has the playhead in it, whenever the solver moved it
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const HistoryInfo& h = snap->history;
  // lanes
  for (size_t l = 0; l < m_lanes.size(); ++l) {
    const QRect r(0, laneY(int(l)), width(), kLane);
    p.fillRect(r, l % 2 ? palette().alternateBase() : palette().base());
    p.setPen(palette().text().color());
    p.drawText(QRect(6, r.top(), labelWidth() - 10, kLane), Qt::AlignVCenter | Qt::AlignLeft,
               fontMetrics().elidedText(laneLabel(m_lanes[l]), Qt::ElideMiddle, labelWidth() - 10));
  }
  if (m_lanes.empty()) {
    p.setPen(palette().placeholderText().color());
    p.drawText(QRect(labelWidth(), kRuler, width() - labelWidth(), 2 * kLane), Qt::AlignCenter,
               tr("No events yet: right-click where (and when) one should happen"));
  }
  // ruler: the recorded range, the loop, ticks
  p.fillRect(QRect(0, 0, width(), kRuler), palette().window());
  const double x0 = xAt(h.start), x1 = xAt(h.end);
  p.fillRect(QRectF(x0, kRuler - 7, std::max(1.0, x1 - x0), 5), QColor(90, 150, 230));
  if (h.loop && h.loopEnd > h.loopStart)
    p.fillRect(QRectF(xAt(h.loopStart), 0, xAt(h.loopEnd) - xAt(h.loopStart), height()), QColor(40, 180, 60, 30));
  const double step = niceStep(100.0 / m_pxPerSecond);
  p.setPen(palette().text().color());
  for (double t = std::ceil(timeAt(labelWidth()) / step) * step; t <= timeAt(width()); t += step) {
    const double x = xAt(t);
    p.drawLine(QPointF(x, kRuler - 8), QPointF(x, kRuler - 1));
    p.drawText(QPointF(x + 2, 12), QString::number(t, 'g', 4));
    p.setPen(QColor(0, 0, 0, 25));
    p.drawLine(QPointF(x, kRuler), QPointF(x, height()));
    p.setPen(palette().text().color());
  }
  p.drawLine(0, kRuler - 1, width(), kRuler - 1);
  p.drawLine(labelWidth() - 1, 0, labelWidth() - 1, height());
  // markers
  p.setRenderHint(QPainter::Antialiasing);
  p.setClipRect(QRect(labelWidth(), 0, width() - labelWidth(), height()));
  const Scene& s = m_doc.scene();
  for (const Marker& m : markers()) {
    const QPointF c(xAt(m.t), laneY(m.lane) + kLane / 2.0);
    if (m.event >= 0) {
      drawMarker(p, c, s.events[size_t(m.event)].action, m_selEvents.count(m.event) > 0);
    } else {
      const bool sel = m_selKeys.count({m.path, m.keyframe}) > 0;
      p.setPen(QPen(sel ? QColor(255, 200, 0) : QColor(80, 80, 120), sel ? 2.5 : 1));
      p.setBrush(QColor(150, 150, 220));
      p.drawRect(QRectF(c.x() - kMarker + 1, c.y() - kMarker + 1, 2 * kMarker - 2, 2 * kMarker - 2));
    }
  }
  // the playhead
  const double xp = xAt(snap->t);
  p.setPen(QPen(QColor(220, 30, 30), 2));
  p.drawLine(QPointF(xp, 0), QPointF(xp, height()));
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  setFocus();
  m_doc.closeMerge();
  if (e->button() != Qt::LeftButton) return;
  if (e->position().y() < kRuler && e->position().x() >= labelWidth()) {
    m_drag = Drag::Scrub;
    m_sim.seek(timeAt(e->position().x()));
    return;
  }
  const std::optional<Marker> m = markerAt(e->position().toPoint());
  const bool add = e->modifiers() & Qt::ControlModifier;
  if (!m) {
    if (!add) {
      m_selEvents.clear();
      m_selKeys.clear();
    }
    update();
    return;
  }
  const bool selected = m->event >= 0 ? m_selEvents.count(m->event) > 0 : m_selKeys.count({m->path, m->keyframe}) > 0;
  if (add) {
    if (m->event >= 0) selected ? void(m_selEvents.erase(m->event)) : void(m_selEvents.insert(m->event));
    else selected ? void(m_selKeys.erase({m->path, m->keyframe})) : void(m_selKeys.insert({m->path, m->keyframe}));
  } else if (!selected) {
    m_selEvents.clear();
    m_selKeys.clear();
    if (m->event >= 0) m_selEvents.insert(m->event);
    else m_selKeys.insert({m->path, m->keyframe});
  }
  if (m_selEvents.size() == 1 && m_selKeys.empty()) emit eventPicked(*m_selEvents.begin());
  // start dragging the selection along time
  m_drag = Drag::Markers;
  m_dragFrom = timeAt(e->position().x());
  m_dragEvents.clear();
  m_dragKeys.clear();
  const Scene& s = m_doc.scene();
  for (int i : m_selEvents) m_dragEvents.push_back({i, s.events[size_t(i)].time});
  for (const auto& [path, k] : m_selKeys)
    for (const core::PathDef& p : s.paths)
      if (p.name == path && k < int(p.keyframes.size())) m_dragKeys.emplace_back(path, k, p.keyframes[size_t(k)].t);
  update();
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  if (m_drag == Drag::Scrub) {
    m_sim.seek(std::max(0.0, timeAt(e->position().x())));
  } else if (m_drag == Drag::Markers && (!m_dragEvents.empty() || !m_dragKeys.empty())) {
    // move by a whole number of frames; no event before 0
    double dt = snap(timeAt(e->position().x())) - snap(m_dragFrom);
    for (const auto& [i, t] : m_dragEvents) dt = std::max(dt, -t);
    for (const auto& [p, k, t] : m_dragKeys) dt = std::max(dt, -t);
    std::vector<std::pair<int, EventDef>> events;
    for (const auto& [i, t] : m_dragEvents) {
      EventDef e = m_doc.scene().events[size_t(i)];
      e.time = std::max(0.0, snap(t + dt));
      events.emplace_back(i, e);
    }
    std::map<std::string, std::vector<std::pair<int, double>>> times;  // path -> (keyframe, time)
    for (const auto& [path, k, t] : m_dragKeys) times[path].emplace_back(k, t + dt);
    std::vector<std::pair<std::string, std::function<void(core::PathDef&)>>> paths;
    for (const auto& [path, pathKeys] : times)
      paths.emplace_back(path, [keys = pathKeys](core::PathDef& p) {  // (clang 14 cannot capture a binding)
        for (const auto& [k, t] : keys) p.keyframes[size_t(k)].t = t;
      });
    QString error;
    if (!m_doc.push(std::make_unique<EditEvents>(m_doc, tr("Move events"), events, paths, true), &error))
      emit message(tr("Not moved: %1").arg(error));
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent*) {
  m_drag = Drag::None;
  m_doc.closeMerge();
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  const double x = e->position().x();
  m_userZoom = true;
  if (e->modifiers() & Qt::ShiftModifier) {
    setView(m_t0 - e->angleDelta().y() / 120.0 * 50.0 / m_pxPerSecond, m_pxPerSecond);
  } else {
    // zoom about the cursor
    const double t = timeAt(x);
    const double pxPerSecond = std::clamp(m_pxPerSecond * std::pow(1.2, e->angleDelta().y() / 120.0), 1e-2, 1e6);
    setView(t - (x - labelWidth()) / pxPerSecond, pxPerSecond);
  }
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  if (e->matches(QKeySequence::Delete) || e->key() == Qt::Key_Backspace) deleteSelection();
  else if (e->matches(QKeySequence::Copy)) copySelection();
  else if (e->matches(QKeySequence::Paste)) paste();
  else QWidget::keyPressEvent(e);
}

bool TimelineView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    m_tip = he->pos();
    refreshToolTip();
    return true;
  }
  return QWidget::event(e);
}

void TimelineView::refreshToolTip() {
  if (!m_tip) return;
  const QPoint at = *m_tip;
  if (const std::optional<Marker> m = markerAt(at)) {
    // the rect: moving off the marker hides its tooltip
    const QPoint c(int(std::lround(xAt(m->t))), laneY(m->lane) + kLane / 2);
    QToolTip::showText(mapToGlobal(at), describe(*m), this, QRect(c - QPoint(kMarker + 3, kMarker + 3), QSize(2 * kMarker + 7, 2 * kMarker + 7)));
    return;
  }
  const int lane = laneAt(at.y());
  if (lane >= 0 && at.x() < labelWidth()) {  // the name column: the whole name, however long
    QToolTip::showText(mapToGlobal(at), laneLabel(m_lanes[size_t(lane)]), this, QRect(0, laneY(lane), labelWidth(), kLane));
    return;
  }
  // nothing there (any more): a removed event's tooltip must not stay
  m_tip.reset();
  QToolTip::hideText();
}

void TimelineView::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (!m_userZoom) fit();  // the same range over the new width
  else emit viewChanged();  // the same scale: more or less of it shows
}

void TimelineView::followPlayhead() { follow(playhead()); }

void TimelineView::follow(double t) {
  if (t == m_followed) return;
  m_followed = t;
  if (m_drag == Drag::Scrub) return;  // under the mouse already
  const double left = timeAt(labelWidth()), right = timeAt(width() - 4);
  if (t >= left && t <= right) return;
  // page: the playhead carries on from near the left edge, the scale stays
  const double span = right - left;
  m_userZoom = true;  // a paged view is no longer the fitted one (Fit brings that back)
  setView(t < span ? -0.02 * span : t - 0.05 * span, m_pxPerSecond);
}

bool TimelineView::addEvent(EventAction action, const std::string& target, const std::string& param,
                            const std::vector<double>& value, std::optional<double> at) {
  EventDef e;
  e.time = at ? std::max(0.0, *at) : snap(playhead());
  e.action = action;
  e.target = target;
  e.param = param;
  e.value = value;
  QString error;
  const QString what = tr("Add %1 %2 at %3 s").arg(QString::fromUtf8(core::toString(action)), QString::fromStdString(target)).arg(e.time);
  if (!m_doc.push(std::make_unique<AddEvents>(m_doc, what, std::vector<EventDef>{e}), &error)) {
    emit message(tr("Not added: %1").arg(error));
    return false;
  }
  m_selEvents = {int(m_doc.scene().events.size()) - 1};
  emit eventPicked(*m_selEvents.begin());  // (the inspector showed the event selected before)
  emit message(what);
  return true;
}

bool TimelineView::addKeyframe(const std::string& path, std::optional<double> when) {
  const Scene& s = m_doc.scene();
  const double t = when ? std::max(0.0, *when) : snap(playhead());
  // the new keyframe sits where the path is now, so the motion does not jump
  core::Vec3 at = core::Vec3::Zero();
  for (size_t i = 0; i < s.paths.size(); ++i)
    if (s.paths[i].name == path) at = core::Path(s.paths[i]).sample(t).x;
  QString error;
  const auto addKey = [&](Scene& sc) {
    for (core::PathDef& p : sc.paths) {
      if (p.kind != core::PathKind::Spline) {  // a line or circle becomes a spline through its trace
        p.keyframes = {{0.0, core::Path(p).sample(0.0).x}};
        p.kind = core::PathKind::Spline;
      }
      auto it = std::find_if(p.keyframes.begin(), p.keyframes.end(), [&](const core::Keyframe& k) { return k.t >= t; });
      if (it != p.keyframes.end() && std::abs(it->t - t) < 1e-12) it->position = at;
      else p.keyframes.insert(it, {t, at});
    }
  };
  const bool ok = m_doc.push(EditProperty::make(m_doc, {false, core::ObjectKind::Path, path}, tr("Keyframes"), addKey,
                                                false, tr("Add keyframe to %1").arg(QString::fromStdString(path))),
                             &error);
  if (!ok) emit message(tr("Not added: %1").arg(error));
  return ok;
}

void TimelineView::showSelected(int event) {
  if (m_selEvents == std::set<int>{event} && m_selKeys.empty()) return;
  m_selEvents = {event};
  m_selKeys.clear();
  update();
}

void TimelineView::deleteSelection() {
  if (m_selEvents.empty() && m_selKeys.empty()) return;
  QString error;
  if (m_doc.push(std::make_unique<RemoveEvents>(m_doc, tr("Delete events"), m_selEvents, m_selKeys), &error)) {
    m_selEvents.clear();
    m_selKeys.clear();
  } else {
    emit message(tr("Not deleted: %1").arg(error));
  }
}

void TimelineView::copySelection() {
  m_clipboard.clear();
  for (int i : m_selEvents) m_clipboard.push_back(m_doc.scene().events[size_t(i)]);
  if (m_clipboard.empty()) return;
  const double first = std::min_element(m_clipboard.begin(), m_clipboard.end(), [](const auto& a, const auto& b) {
                         return a.time < b.time;
                       })->time;
  for (EventDef& e : m_clipboard) e.time -= first;
  emit message(tr("Copied %1 events").arg(m_clipboard.size()));
}

void TimelineView::paste(std::optional<double> when) {
  if (m_clipboard.empty()) return;
  const double at = when ? std::max(0.0, *when) : snap(playhead());
  const size_t before = m_doc.scene().events.size();
  QString error;
  std::vector<EventDef> pasted = m_clipboard;
  for (EventDef& e : pasted) e.time += at;
  if (m_doc.push(std::make_unique<AddEvents>(m_doc, tr("Paste events"), std::move(pasted)), &error)) {
    m_selEvents.clear();
    for (size_t i = before; i < m_doc.scene().events.size(); ++i) m_selEvents.insert(int(i));
  } else {
    emit message(tr("Not pasted: %1").arg(error));
  }
}

QMenu* TimelineView::buildContextMenu(const QPoint& pos) {
  auto* menu = new QMenu(this);
  // the clicked time (in the name column, which has none: the playhead's)
  const double t = pos.x() >= labelWidth() ? clickedTime(pos.x()) : snap(playhead());
  const Scene& s = m_doc.scene();
  // what a target can have: enable/disable (constraints, forces, gravity), create/remove
  // (bodies), set (its settable parameters: a body's are its collisions and materials)
  auto addActions = [&](QMenu* m, Lane::Kind kind, const std::string& name) {
    auto act = [&](const QString& text, EventAction a) {
      m->addAction(text, this, [this, a, name, t] { addEvent(a, name, {}, {}, t); });
    };
    if (kind == Lane::Kind::Path)
      m->addAction(tr("Add keyframe at %1 s").arg(t), this, [this, name, t] { addKeyframe(name, t); });
    if (kind == Lane::Kind::Body) {
      act(tr("Create at %1 s").arg(t), EventAction::Create);
      act(tr("Remove at %1 s").arg(t), EventAction::Remove);
    } else if (kind != Lane::Kind::Path) {
      act(tr("Enable at %1 s").arg(t), EventAction::Enable);
      act(tr("Disable at %1 s").arg(t), EventAction::Disable);
    }
    for (const core::ParamSpec& ps : core::settableParams(s, name)) {
      const std::string param = ps.name;
      const int size = ps.size;
      // the prompt names what to type, its unit and the value it has then, which the field
      // starts with: "stiffness (N/m, now 10):", "force (x y z, N, now 0 0 -9.81):" (a helper
      // met a bare "restitution:" and an empty field)
      QStringList now;
      for (double x : core::paramValueAt(s, name, param, t)) now << QString::number(x, 'g', 6);
      QStringList what;
      if (size == 3) what << QStringLiteral("x y z");
      if (*ps.unit) what << QString::fromUtf8(ps.unit);
      if (!now.isEmpty()) what << tr("now %1").arg(now.join(QLatin1Char(' ')));
      // (in words: "static friction", not the file's static_friction, which a helper met in the menu)
      const QString words = QString::fromUtf8(ps.name).replace(QLatin1Char('_'), QLatin1Char(' '));
      const QString prompt = words + (what.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(what.join(QStringLiteral(", ")))) + QLatin1Char(':');
      const QString start = now.join(QLatin1Char(' '));
      m->addAction(tr("Set %1 at %2 s…").arg(words).arg(t), this, [this, name, param, size, prompt, start, words, t] {
        bool ok = false;
        const QString text = QInputDialog::getText(this, tr("Set %1 of %2 at %3 s").arg(words, QString::fromStdString(name)).arg(t), prompt,
                                                   QLineEdit::Normal, start, &ok);
        if (!ok) return;
        std::vector<double> v;
        for (const QString& part : text.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts)) {
          bool good = false;
          v.push_back(part.toDouble(&good));
          if (!good) {
            emit message(tr("Not added: \"%1\" is not a number").arg(part));
            return;
          }
        }
        addEvent(EventAction::Set, name, param, v, t);
      });
    }
  };
  const int lane = laneAt(pos.y());
  if (lane >= 0) {
    addActions(menu, m_lanes[size_t(lane)].kind, m_lanes[size_t(lane)].name);
    menu->addSeparator();
  }
  // any object, lane or not: one submenu per object under a heading per kind, so every event
  // is two levels from the click (it was four: Add event for > Constraints > name > action)
  menu->addSection(tr("Add at %1 s").arg(t));
  addActions(menu->addMenu(tr("gravity")), Lane::Kind::Gravity, "gravity");
  auto group = [&](const QString& title, Lane::Kind kind, const auto& list) {
    if (list.empty()) return;
    menu->addSection(title);
    for (const auto& x : list) addActions(menu->addMenu(QString::fromStdString(x.name)), kind, x.name);
  };
  group(tr("Bodies"), Lane::Kind::Body, s.bodies);
  group(tr("Constraints"), Lane::Kind::Constraint, s.constraints);
  group(tr("Forces"), Lane::Kind::Force, s.forces);
  group(tr("Paths"), Lane::Kind::Path, s.paths);
  menu->addSeparator();
  QAction* del = menu->addAction(tr("Delete selected"), this, &TimelineView::deleteSelection);
  del->setEnabled(!m_selEvents.empty() || !m_selKeys.empty());
  menu->addAction(tr("Copy selected"), this, &TimelineView::copySelection)->setEnabled(!m_selEvents.empty());
  menu->addAction(tr("Paste at %1 s").arg(t), this, [this, t] { paste(t); })->setEnabled(!m_clipboard.empty());
  menu->addAction(tr("Fit"), this, &TimelineView::fitNow);
  return menu;
}

void TimelineView::fitNow() {
  m_userZoom = false;
  m_fitEnd = 0.0;  // asked for: fit to what there is now
  fit();
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
  QMenu* menu = buildContextMenu(e->pos());
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(e->globalPos());
}

TimelineDock::TimelineDock(Document& doc, SimulationController& sim, QWidget* parent)
    : QWidget(parent), m_sim(sim) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(2, 2, 2, 2);
  v->setSpacing(2);
  auto* bar = new QHBoxLayout;
  auto button = [&](const QString& text, const QString& tip, const std::function<void()>& f) {
    auto* b = new QToolButton;
    b->setText(text);
    b->setToolTip(tip);
    b->setObjectName(tip);
    connect(b, &QToolButton::clicked, this, f);
    bar->addWidget(b);
    return b;
  };
  button(QStringLiteral("|◀"), tr("Jump to start"), [this] { m_sim.jumpToStart(); });
  button(QStringLiteral("◀|"), tr("Step back"), [this] { m_sim.stepBack(); });
  button(QStringLiteral("▶"), tr("Play"), [this] { emit playRequested(true); });
  button(QStringLiteral("❚❚"), tr("Pause"), [this] { emit playRequested(false); });
  button(QStringLiteral("|▶"), tr("Step forward"), [this] { m_sim.step(); });
  button(QStringLiteral("▶|"), tr("Jump to end"), [this] { m_sim.jumpToEnd(); });
  m_loop = new QCheckBox(tr("Loop"));
  bar->addSpacing(12);
  bar->addWidget(m_loop);
  button(tr("In"), tr("Loop start at the playhead"), [this] {
    m_loopIn = m_sim.snapshot()->t;
    m_sim.setLoop(m_loop->isChecked(), m_loopIn, m_loopOut);
  });
  button(tr("Out"), tr("Loop end at the playhead"), [this] {
    m_loopOut = m_sim.snapshot()->t;
    m_sim.setLoop(m_loop->isChecked(), m_loopIn, m_loopOut);
  });
  connect(m_loop, &QCheckBox::toggled, this, [this](bool on) { m_sim.setLoop(on, m_loopIn, m_loopOut); });
  bar->addSpacing(12);
  m_view = new TimelineView(doc, sim);
  button(tr("Fit"), tr("Show the whole timeline"), [this] { m_view->fitNow(); });
  bar->addStretch();
  m_time = new QLabel;
  bar->addWidget(m_time);
  v->addLayout(bar);
  // the lanes scroll vertically: a scene with an event for each of 500 marbles has 500 lanes,
  // and the view's height (every lane) made the main window 11 000 px tall
  auto* lanes = new QScrollArea;
  lanes->setObjectName(QStringLiteral("timelineLanes"));
  lanes->setWidget(m_view);
  lanes->setWidgetResizable(true);
  lanes->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  lanes->setFrameShape(QFrame::NoFrame);
  lanes->setMinimumHeight(m_view->minimumHeight());
  v->addWidget(lanes, 1);
  // Under the view, the whole timeline as a scroll bar (the view pages after the playhead while
  // playing; this brings earlier times back, as do Shift+wheel and Fit)
  m_scroll = new QScrollBar(Qt::Horizontal);
  m_scroll->setObjectName(QStringLiteral("timelineScroll"));
  v->addWidget(m_scroll);
  connect(m_view, &TimelineView::viewChanged, this, &TimelineDock::syncScrollBar);
  connect(m_scroll, &QScrollBar::valueChanged, this, [this](int value) {
    if (!m_syncing) m_view->scrollTo(m_scrollOrigin + value * m_scrollUnit);
  });
  syncScrollBar();
}

void TimelineDock::syncScrollBar() {
  // the scroll range covers the timeline from a margin before 0 (Fit's, 2 % of the whole, or 2 %
  // of the view when zoomed in: 0 shows near the left edge) or the view's start if earlier, to its
  // extent or the view's end; a page is the visible span, in steps of a thousandth of it (coarser
  // when the whole would not fit an int)
  const double span = m_view->viewSpan(), start = m_view->viewStart(), extent = m_view->extentEnd();
  const double lo = std::min(std::max(-0.02 * extent, -0.02 * span), start);
  const double hi = std::max(extent, start + span);
  const double unit = std::max(span / 1000.0, (hi - lo) / 1e9);
  m_syncing = true;
  m_scrollOrigin = lo;
  m_scrollUnit = unit;
  m_scroll->setRange(0, int(std::lround((hi - span - lo) / unit)));
  m_scroll->setPageStep(int(std::lround(span / unit)));
  m_scroll->setSingleStep(std::max(1, m_scroll->pageStep() / 10));
  m_scroll->setValue(int(std::lround((start - lo) / unit)));
  m_syncing = false;
}

void TimelineDock::refresh() {
  const auto snap = m_sim.snapshot();
  const HistoryInfo& h = snap->history;
  m_time->setText(tr("t = %1 s   recorded %2–%3 s (%4 frames, %5 of %6 MB)")
                      .arg(snap->t, 0, 'f', 3)
                      .arg(h.start, 0, 'f', 2)
                      .arg(h.end, 0, 'f', 2)
                      .arg(h.frames)
                      .arg(double(h.bytes) / (1 << 20), 0, 'f', 1)
                      .arg(double(h.limit) / (1 << 20), 0, 'f', 0));
  m_view->followPlayhead();
  m_view->update();
  syncScrollBar();  // the recording grows the timeline's extent
}

}  // namespace tether::ui
