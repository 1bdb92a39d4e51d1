#include "ui/tool.h"

#include <algorithm>

#include "core/stability.h"

namespace tether::ui {

using core::PointRef;
using core::Vec3;

bool ToolContext::push(std::unique_ptr<SceneCommand> command) const {
  // what the edit newly makes risky (core/stability.h: a chain that cannot reach the plane it was
  // just put on, a spring too stiff for the step) is said as it lands, as the inspector does; the
  // tools' edits are not refused for it (the model is half built while a tool works)
  const std::vector<core::StabilityWarning> before = core::stabilityWarnings(doc.scene());
  QStringList risky;
  const auto collect = [&before, &risky](const core::Scene& after) -> QString {
    for (const core::StabilityWarning& w : core::newWarnings(before, after)) risky << QString::fromStdString(w.message);
    return {};
  };
  QString error;
  if (!doc.push(std::move(command), &error, collect)) {
    say(QStringLiteral("Not done: ") + error);
    return false;
  }
  if (!risky.isEmpty()) say(QStringLiteral("Warning: ") + risky.join(QStringLiteral("; ")));
  return true;
}

bool ToolContext::workPlane(double px, double py, Vec3& out) const {
  if (!camera.hitWorkPlane(camera.ray(px, py), out)) return false;
  const Vec3 n = camera.workPlaneNormal();
  const double step = camera.gridStep();
  for (int i = 0; i < 3; ++i)
    if (n(i) != 0.0) out(i) = camera.target()(i);  // on the plane exactly (the hit's was off by 3e-16)
    else if (snapToGrid) out(i) = std::round(out(i) / step) * step;
  return true;
}

Target ToolContext::targetAt(const core::Snapshot& snap, double px, double py, bool secondClick, int avoid) const {
  Target t;
  if (!snap.geometry) return t;
  const render::Hit point = render::pickControlPoint(snap, camera, px, py, kPickRadius, avoid);
  const render::Hit nail = render::pickNail(snap, camera, px, py, kPickRadius);
  // within a pixel and a half on screen the two are at one spot, as far as a click can tell
  const bool nailWins = nail && (!point || (secondClick && nail.distance <= point.distance + 1.5) ||
                                 nail.distance < point.distance - 1.5);
  auto pointTarget = [&](const render::Hit& h) {
    const core::BodyGeometry& b = snap.geometry->bodies[size_t(h.index)];
    Target p;
    p.kind = Target::Kind::Point;
    p.ref.kind = PointRef::Kind::BodyPoint;
    p.ref.body = b.name;
    p.ref.point = b.points[size_t(h.point)].name;
    p.position = h.position;
    p.body = h.index;
    p.point = h.point;
    p.local = b.points[size_t(h.point)].local;
    return p;
  };
  auto nailTarget = [&](const render::Hit& h) {
    Target n;
    n.kind = Target::Kind::Nail;
    n.ref.kind = PointRef::Kind::Nail;
    n.ref.target = snap.geometry->nails[size_t(h.index)].name;
    n.position = h.position;
    return n;
  };
  if (point || nail) {
    // the one a click takes unasked, then the others on its spot (a joint's two ends, a pinned end
    // and its nail, a ball's centre behind its pole), nearest the eye first: Tab steps to them
    const render::Hit& first = point && !nailWins ? point : nail;
    std::vector<Target> here{first.kind == render::Hit::Kind::Nail ? nailTarget(first) : pointTarget(first)};
    const double spot = std::min(first.distance + 1.5, kPickRadius);
    std::vector<std::pair<double, Target>> others;
    for (const render::Hit& h : render::controlPointsWithin(snap, camera, px, py, spot))
      if (first.kind == render::Hit::Kind::Nail || h.index != first.index || h.point != first.point)
        others.push_back({(h.position - camera.eye()).norm(), pointTarget(h)});
    if (first.kind != render::Hit::Kind::Nail && nail && nail.distance <= spot)
      others.push_back({(nail.position - camera.eye()).norm(), nailTarget(nail)});
    std::stable_sort(others.begin(), others.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& o : others) here.push_back(std::move(o.second));
    const int n = int(here.size());
    const int k = cycleHolds(px, py) ? ((pickCycle % n) + n) % n : 0;
    t = std::move(here[size_t(k)]);
    t.choice = k;
    t.choices = n;
    return t;
  }
  if (const render::Hit h = render::pickPathPoint(snap, camera, px, py, kPickRadius)) {
    t.kind = Target::Kind::PathPoint;
    t.ref.kind = PointRef::Kind::Path;
    t.ref.target = snap.geometry->paths[size_t(h.index)].name;
    t.position = h.position;
    return t;
  }
  if (workPlane(px, py, t.position)) t.kind = Target::Kind::Space;
  return t;
}

core::ConstraintClick ToolContext::toClick(const core::Snapshot& snap, const Target& t) {
  core::ConstraintClick c;
  using K = core::ConstraintClick::Kind;
  c.kind = t.kind == Target::Kind::Point       ? K::Point
           : t.kind == Target::Kind::Nail      ? K::Nail
           : t.kind == Target::Kind::PathPoint ? K::PathPoint
                                               : K::Space;
  c.ref = t.ref;
  c.position = t.position;
  c.local = t.local;
  if (t.kind == Target::Kind::Point && t.body >= 0 && snap.geometry) {
    c.shape = snap.geometry->bodies[size_t(t.body)].shape;
    if (size_t(t.body) < snap.bodies.size()) c.rotation = snap.bodies[size_t(t.body)].q;
  }
  return c;
}

void Tool::release(const core::Snapshot&, double, double) { m_ctx.doc.closeMerge(); }

void Tool::clearHover() {
  m_hover = Target{};
  m_hoverBody = m_hoverNail = -1;
  m_hoverName.clear();
}

render::Hit Tool::hoverNailOrBody(const core::Snapshot& snap, double px, double py) {
  if (const render::Hit n = render::pickNail(snap, m_ctx.camera, px, py, ToolContext::kPickRadius)) {
    m_hoverNail = n.index;
    m_hoverName = QStringLiteral("nail \"%1\"").arg(QString::fromStdString(snap.geometry->nails[size_t(n.index)].name));
    return {};
  }
  const render::Hit h = render::pickBodyNear(snap, m_ctx.camera, px, py, ToolContext::kBodyPickRadius);
  if (h) {
    m_hoverBody = h.index;
    m_hoverName = QStringLiteral("body \"%1\"").arg(QString::fromStdString(snap.geometry->bodies[size_t(h.index)].name));
  }
  return h;
}

void Tool::hoverWorkPlane(double px, double py) {
  if (m_ctx.workPlane(px, py, m_hover.position)) m_hover.kind = Target::Kind::Space;
}

void Tool::hoverTarget(const core::Snapshot& snap, double px, double py, bool secondClick, int avoid) {
  m_hover = m_ctx.targetAt(snap, px, py, secondClick, avoid);
  if (m_hover.kind == Target::Kind::None) hoverWorkPlane(px, py);
  switch (m_hover.kind) {
    case Target::Kind::Point:
      m_hoverName = QStringLiteral("control point %1.%2")
                        .arg(QString::fromStdString(m_hover.ref.body), QString::fromStdString(m_hover.ref.point));
      break;
    case Target::Kind::Nail:
      m_hoverName = QStringLiteral("nail \"%1\"").arg(QString::fromStdString(m_hover.ref.target));
      break;
    case Target::Kind::PathPoint:
      m_hoverName = QStringLiteral("the moving point of path \"%1\"").arg(QString::fromStdString(m_hover.ref.target));
      break;
    case Target::Kind::None:
    case Target::Kind::Space: break;
  }
  if (m_hover.choices > 1) m_hoverName += QStringLiteral("  [Tab: %1 of %2 here]").arg(m_hover.choice + 1).arg(m_hover.choices);
}

void Tool::decorate(render::Highlight& hl) const {
  hl.hoverBody = m_hoverBody;
  hl.hoverNail = m_hoverNail;
  if (m_hover.kind == Target::Kind::Point) {  // the control point under the cursor lights up
    hl.hoverPointBody = m_hover.body;
    hl.hoverPoint = m_hover.point;
  } else if (m_hover.kind != Target::Kind::None) {
    hl.hoverWorld = true;
    hl.hoverPosition = m_hover.position;
  }
}

}  // namespace tether::ui
