#include "ui/tools.h"

#include <cmath>

#include "core/constraint_type.h"

#include "render/picking.h"

namespace tether::ui {

using core::PointRef;
using core::Quat;
using core::Scene;
using core::Vec3;

namespace {

constexpr double kPickRadius = 9;   // pixels: points and nails
// pixels: bodies are picked by the exact ray or, failing that, within this distance on screen, so
// a rod drawn 5 px wide (the Rod tool's default at a usual zoom) can be grabbed while it swings
constexpr double kBodyPickRadius = 6;

}  // namespace

QString toolName(const Tool& t) {
  switch (t.kind) {
    case ToolKind::Select: return QStringLiteral("Select / move");
    case ToolKind::Rod: return QStringLiteral("Rod");
    case ToolKind::Sphere: return QStringLiteral("Sphere");
    case ToolKind::Torus: return QStringLiteral("Torus");
    case ToolKind::Box: return QStringLiteral("Box");
    case ToolKind::Nail: return QStringLiteral("Nail");
    case ToolKind::Spring: return QStringLiteral("Spring");
    case ToolKind::ControlPoint: return QStringLiteral("Control point");
    case ToolKind::Constraint: break;
  }
  return QString::fromUtf8((*t.constraint).label);
}

QString toolDescription(const Tool& t) {
  switch (t.kind) {
    case ToolKind::Select:
      return QStringLiteral("Select a body, nail, constraint arrow or spring by clicking it; drag a body or nail to "
                            "move its start pose. While the model plays, dragging a body pulls it with a spring.");
    case ToolKind::Rod:
      return QStringLiteral("Make a rod: press on the work plane where one end goes and drag to the other end. "
                            "A click makes a 1 m rod across the screen. Its ends are control points end1 and end2.");
    case ToolKind::Sphere:
      return QStringLiteral("Make a sphere: click on the work plane where its centre goes. Control points: its centre "
                            "and the six poles (top, bottom, ...).");
    case ToolKind::Torus:
      return QStringLiteral("Make a torus (a ring): click on the work plane where its centre goes.");
    case ToolKind::Box:
      return QStringLiteral("Make a box: click on the work plane where its centre goes. Its corners and face centres "
                            "are control points.");
    case ToolKind::Nail:
      return QStringLiteral("Put a nail, a fixed point in space, where you click on the work plane. Constraints hold "
                            "bodies' points to nails.");
    case ToolKind::Spring:
      return QStringLiteral("Join two points with a spring: click a control point of a body, then a second control "
                            "point, a nail, or empty space (a nail is made there).");
    case ToolKind::ControlPoint:
      return QStringLiteral("Add a control point to a body: click its surface where the point goes. Constraints and "
                            "springs attach to control points.");
    case ToolKind::Constraint: break;
  }
  return QString::fromUtf8((*t.constraint).description);
}

QString toolIconPath(const Tool& t) {
  switch (t.kind) {
    case ToolKind::Select: return QStringLiteral(":/icons/tools/select.svg");
    case ToolKind::Rod: return QStringLiteral(":/icons/tools/rod.svg");
    case ToolKind::Sphere: return QStringLiteral(":/icons/tools/sphere.svg");
    case ToolKind::Torus: return QStringLiteral(":/icons/tools/torus.svg");
    case ToolKind::Box: return QStringLiteral(":/icons/tools/box.svg");
    case ToolKind::Nail: return QStringLiteral(":/icons/tools/nail.svg");
    case ToolKind::Spring: return QStringLiteral(":/icons/tools/spring.svg");
    case ToolKind::ControlPoint: return QStringLiteral(":/icons/tools/control_point.svg");
    case ToolKind::Constraint: break;
  }
  return QStringLiteral(":/icons/constraints/%1.svg").arg(QString::fromUtf8((*t.constraint).id));
}

QKeySequence toolShortcut(const Tool& t) {
  switch (t.kind) {
    case ToolKind::Select: return QKeySequence(Qt::Key_S);
    case ToolKind::Rod: return QKeySequence(Qt::Key_R);
    case ToolKind::Sphere: return QKeySequence(Qt::Key_O);
    case ToolKind::Torus: return QKeySequence(Qt::Key_T);
    case ToolKind::Box: return QKeySequence(Qt::Key_B);
    case ToolKind::Nail: return QKeySequence(Qt::Key_N);
    case ToolKind::Spring: return QKeySequence(Qt::Key_P);
    case ToolKind::ControlPoint: return QKeySequence(Qt::Key_C);
    case ToolKind::Constraint: break;
  }
  const auto& types = core::constraintTypes();
  for (size_t i = 0; i < types.size() && i < 10; ++i)
    if (types[i] == t.constraint) return QKeySequence(Qt::CTRL | (i == 9 ? Qt::Key_0 : Qt::Key(Qt::Key_1 + int(i))));
  return {};
}

QString toolHint(const Tool& t, bool first) {
  switch (t.kind) {
    case ToolKind::Select:
      return QStringLiteral("Click to select; drag a body or nail to move it (while playing: pull it with a spring). "
                            "Right-drag orbits, middle-drag pans, wheel zooms.");
    case ToolKind::Rod: return QStringLiteral("Press and drag on the work plane: the rod runs from press to release.");
    case ToolKind::Sphere:
    case ToolKind::Torus:
    case ToolKind::Box:
    case ToolKind::Nail: return QStringLiteral("Click on the work plane to place it.");
    case ToolKind::ControlPoint: return QStringLiteral("Click a body's surface to add a control point there.");
    case ToolKind::Spring:
    case ToolKind::Constraint: break;
  }
  if (t.kind == ToolKind::Constraint) {
    const core::ConstraintType& type = (*t.constraint);
    return QString::fromUtf8(first ? type.secondPrompt : type.firstPrompt);
  }
  if (!first) return QStringLiteral("Click a control point of a body.");
  return QStringLiteral("Click a second control point, a nail, or empty space (makes a nail there). Esc cancels.");
}

ToolController::ToolController(Document& doc, SimulationController& sim, render::Camera& camera)
    : m_doc(doc), m_sim(sim), m_camera(camera) {}

void ToolController::setTool(const Tool& t) {
  cancel();
  m_tool = t;
}

void ToolController::cancel() {
  m_first.reset();
  m_rodDrag = false;
  if (m_drag == Drag::Spring) m_sim.endDrag();
  m_drag = Drag::None;
}

bool ToolController::wantsControlPoints() const {
  return m_tool.kind == ToolKind::Constraint || m_tool.kind == ToolKind::Spring;
}

bool ToolController::workPlane(double px, double py, Vec3& out) const {
  return m_camera.hitWorkPlane(m_camera.ray(px, py), out);
}

ToolController::Target ToolController::targetAt(const core::Snapshot& snap, double px, double py,
                                                bool secondClick) const {
  Target t;
  if (!snap.geometry) return t;
  const render::Hit point = render::pickControlPoint(snap, m_camera, px, py, kPickRadius);
  const render::Hit nail = render::pickNail(snap, m_camera, px, py, kPickRadius);
  // within a pixel and a half on screen the two are at one spot, as far as a click can tell
  const bool nailWins = nail && (!point || (secondClick && nail.distance <= point.distance + 1.5) ||
                                 nail.distance < point.distance - 1.5);
  if (point && !nailWins) {
    const core::BodyGeometry& b = snap.geometry->bodies[size_t(point.index)];
    t.kind = Target::Kind::Point;
    t.ref.kind = PointRef::Kind::BodyPoint;
    t.ref.body = b.name;
    t.ref.point = b.points[size_t(point.point)].name;
    t.position = point.position;
    t.body = point.index;
    t.point = point.point;
    t.local = b.points[size_t(point.point)].local;
    return t;
  }
  if (nail) {
    t.kind = Target::Kind::Nail;
    t.ref.kind = PointRef::Kind::Nail;
    t.ref.target = snap.geometry->nails[size_t(nail.index)].name;
    t.position = nail.position;
    return t;
  }
  if (const render::Hit h = render::pickPathPoint(snap, m_camera, px, py, kPickRadius)) {
    t.kind = Target::Kind::PathPoint;
    t.ref.kind = PointRef::Kind::Path;
    t.ref.target = snap.geometry->paths[size_t(h.index)].name;
    t.position = h.position;
    return t;
  }
  if (workPlane(px, py, t.position)) t.kind = Target::Kind::Space;
  return t;
}

bool ToolController::push(std::unique_ptr<SceneCommand> command) {
  QString error;
  if (m_doc.push(std::move(command), &error)) return true;
  if (onMessage) onMessage(QStringLiteral("Not done: ") + error);
  return false;
}

void ToolController::press(const core::Snapshot& snap, double px, double py) {
  m_doc.closeMerge();
  m_dragMoved = false;
  switch (m_tool.kind) {
    case ToolKind::Select: {
      if (!snap.geometry) return;
      // nails first (they sit on bodies' points), then bodies; arrows and constraint lines are
      // picked by the viewport before it calls the tool
      if (const render::Hit h = render::pickKeyframe(snap, m_camera, px, py, kPickRadius)) {
        const std::string path = snap.geometry->paths[size_t(h.index)].name;
        if (onSelect) onSelect({Selection::Kind::Path, path});
        m_drag = Drag::Keyframe;
        m_dragName = path;
        m_dragKeyframe = h.point;
        m_dragOrigin = h.position;
        m_dragStart = h.position;
        m_dragPlaneNormal = -m_camera.forward();
        return;
      }
      if (const render::Hit h = render::pickNail(snap, m_camera, px, py, kPickRadius)) {
        const core::NailDef& n = snap.geometry->nails[size_t(h.index)];
        if (onSelect) onSelect({Selection::Kind::Nail, n.name});
        m_drag = Drag::Nail;
        m_dragName = n.name;
        m_dragOrigin = n.position;
        m_dragStart = h.position;
        m_dragPlaneNormal = -m_camera.forward();
        return;
      }
      const render::Hit h = render::pickBodyNear(snap, m_camera, px, py, kBodyPickRadius);
      if (!h) {
        if (onSelect) onSelect({});
        return;
      }
      const core::BodyPose& pose = snap.bodies[size_t(h.index)];
      const core::BodyGeometry& g = snap.geometry->bodies[size_t(h.index)];
      if (onSelect) onSelect({Selection::Kind::Body, g.name});
      const bool playing = m_sim.playRequested();
      if (g.fixed && !playing) return;
      m_dragName = g.name;
      m_dragBody = h.index;
      m_dragStart = h.position;
      m_dragOrigin = pose.x;
      m_dragOrientation = pose.q;
      m_dragLocal = pose.q.conjugate() * (h.position - pose.x);
      m_dragPlaneNormal = -m_camera.forward();
      m_drag = playing ? Drag::Spring : Drag::Body;
      if (m_drag == Drag::Spring) m_sim.drag(m_dragBody, m_dragLocal, h.position);
      return;
    }
    case ToolKind::Rod:
      if (workPlane(px, py, m_rodFrom)) {
        m_rodDrag = true;
        m_rodTo = m_rodFrom;
      }
      return;
    case ToolKind::Sphere:
    case ToolKind::Torus:
    case ToolKind::Box:
    case ToolKind::Nail: placeBody(snap, px, py); return;
    case ToolKind::ControlPoint: {
      if (!snap.geometry) return;
      const render::Hit h = render::pickBodyNear(snap, m_camera, px, py, kBodyPickRadius);
      if (!h) {
        if (onMessage) onMessage(QStringLiteral("Click on a body's surface."));
        return;
      }
      const core::BodyPose& pose = snap.bodies[size_t(h.index)];
      const std::string body = snap.geometry->bodies[size_t(h.index)].name;
      const Vec3 local = pose.q.conjugate() * (h.position - pose.x);
      const std::string name = m_doc.uniqueName("p");
      push(EditProperty::make(m_doc, {false, core::ObjectKind::Body, body}, QStringLiteral("Control points"),
                              [&](Scene& s) { s.bodies.front().points.push_back({name, local}); }, false,
                              QStringLiteral("Add control point to %1").arg(QString::fromStdString(body))));
      return;
    }
    case ToolKind::Constraint:
    case ToolKind::Spring: {
      const Target t = targetAt(snap, px, py, m_first.has_value());
      if (!m_first) {
        if (t.kind != Target::Kind::Point) {
          if (onMessage) onMessage(QStringLiteral("Click a control point of a body first."));
          return;
        }
        if (m_tool.kind == ToolKind::Constraint &&
            !core::acceptsFirstClick((*m_tool.constraint), toClick(snap, t))) {
          if (onMessage) onMessage(QString::fromUtf8((*m_tool.constraint).firstPrompt));
          return;
        }
        m_first = t;
        return;
      }
      if (t.kind == Target::Kind::None) return;
      connect(snap, *m_first, t);
      m_first.reset();
      return;
    }
  }
}

void ToolController::move(const core::Snapshot& snap, double px, double py, bool down) {
  m_hover = Target{};
  m_hoverBody = m_hoverNail = -1;
  m_hoverName.clear();
  if (m_rodDrag) {
    workPlane(px, py, m_rodTo);
    return;
  }
  if (down && m_drag != Drag::None) {
    Vec3 p;
    if (!render::hitPlane(m_camera.ray(px, py), m_dragStart, m_dragPlaneNormal, p)) return;
    const Vec3 delta = p - m_dragStart;
    m_dragMoved = true;
    if (m_drag == Drag::Spring) {
      m_sim.drag(m_dragBody, m_dragLocal, p);
    } else if (m_drag == Drag::Body) {
      // the body starts where it is drawn, moved by the drag
      push(MoveBody::make(m_doc, m_dragName, m_dragOrigin + delta, m_dragOrientation));
    } else if (m_drag == Drag::Keyframe) {
      const size_t k = size_t(m_dragKeyframe);
      const Vec3 to = m_dragOrigin + delta;
      push(EditProperty::make(m_doc, {false, core::ObjectKind::Path, m_dragName}, QStringLiteral("Keyframe %1").arg(k),
                              [&](Scene& s) {
                                core::PathDef& p = s.paths.front();
                                if (k < p.keyframes.size()) p.keyframes[k].position = to;
                              }, true, QStringLiteral("Move keyframe")));
    } else if (m_drag == Drag::Nail) {
      const Vec3 to = m_dragOrigin + delta;
      push(EditProperty::make(m_doc, {false, core::ObjectKind::Nail, m_dragName}, QStringLiteral("Position"),
                              [&](Scene& s) { s.nails.front().position = to; }, true,
                              QStringLiteral("Move %1").arg(QString::fromStdString(m_dragName))));
    }
    return;
  }
  if (!snap.geometry) return;
  switch (m_tool.kind) {
    case ToolKind::Select:
    case ToolKind::ControlPoint: {
      if (const render::Hit n = render::pickNail(snap, m_camera, px, py, kPickRadius)) {
        m_hoverNail = n.index;
        m_hoverName = QStringLiteral("nail \"%1\"").arg(QString::fromStdString(snap.geometry->nails[size_t(n.index)].name));
        return;
      }
      const render::Hit h = render::pickBodyNear(snap, m_camera, px, py, kBodyPickRadius);
      if (h) {
        m_hoverBody = h.index;
        m_hoverName = QStringLiteral("body \"%1\"").arg(QString::fromStdString(snap.geometry->bodies[size_t(h.index)].name));
      }
      if (h && m_tool.kind == ToolKind::ControlPoint) {
        m_hover.kind = Target::Kind::Space;
        m_hover.position = h.position;
      }
      return;
    }
    case ToolKind::Constraint:
    case ToolKind::Spring:
    case ToolKind::Rod:
    case ToolKind::Sphere:
    case ToolKind::Torus:
    case ToolKind::Box:
    case ToolKind::Nail:
      m_hover = (m_tool.kind == ToolKind::Constraint || m_tool.kind == ToolKind::Spring) ? targetAt(snap, px, py, m_first.has_value())
                                                                                            : Target{};
      if (m_hover.kind == Target::Kind::None && workPlane(px, py, m_hover.position)) m_hover.kind = Target::Kind::Space;
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
      return;
  }
}

QString ToolController::prompt() const {
  QString text = toolName(m_tool) + QStringLiteral(" — ") + toolHint(m_tool, firstClicked());
  if (!m_hoverName.isEmpty()) text += QStringLiteral("   ·   Under the cursor: ") + m_hoverName;
  return text;
}

void ToolController::release(const core::Snapshot& snap, double px, double py) {
  (void)snap;
  if (m_rodDrag) {
    m_rodDrag = false;
    workPlane(px, py, m_rodTo);
    Vec3 a = m_rodFrom, b = m_rodTo;
    if ((b - a).norm() < 0.02) {  // a click: a 1 m rod across the screen
      const Vec3 r = m_camera.right();
      a = m_rodFrom - 0.5 * r;
      b = m_rodFrom + 0.5 * r;
    }
    const std::string name = m_doc.uniqueName("rod");
    core::BodyDef d;
    d.name = name;
    d.shape = core::Shape::Rod;
    d.length = (b - a).norm();
    d.radius = 0.02;
    d.position = 0.5 * (a + b);
    d.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), b - a);  // local z runs end1 -> end2
    push(std::make_unique<AddObjects>(m_doc, QStringLiteral("Add rod"), std::vector<SceneObject>{d}));
    if (onSelect) onSelect({Selection::Kind::Body, name});
    return;
  }
  if (m_drag == Drag::Spring) m_sim.endDrag();
  m_drag = Drag::None;
  m_doc.closeMerge();
}

void ToolController::placeBody(const core::Snapshot&, double px, double py) {
  Vec3 p;
  if (!workPlane(px, py, p)) return;
  if (m_tool.kind == ToolKind::Nail) {
    const std::string name = m_doc.uniqueName("nail");
    push(std::make_unique<AddObjects>(m_doc, QStringLiteral("Add nail"), std::vector<SceneObject>{core::NailDef{name, p}}));
    if (onSelect) onSelect({Selection::Kind::Nail, name});
    return;
  }
  core::BodyDef d;
  d.position = p;
  switch (m_tool.kind) {
    case ToolKind::Sphere: d.shape = core::Shape::Sphere; d.radius = 0.1; d.name = m_doc.uniqueName("sphere"); break;
    case ToolKind::Box: d.shape = core::Shape::Box; d.size = Vec3(0.2, 0.2, 0.2); d.name = m_doc.uniqueName("box"); break;
    default:
      // the ring lies in the work plane
      d.shape = core::Shape::Torus;
      d.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), m_camera.workPlaneNormal());
      d.name = m_doc.uniqueName("torus");
      break;
  }
  push(std::make_unique<AddObjects>(m_doc, QStringLiteral("Add %1").arg(QString::fromUtf8(core::toString(d.shape))),
                                    std::vector<SceneObject>{d}));
  if (onSelect) onSelect({Selection::Kind::Body, d.name});
}

// A target as core's tools see it.
core::ConstraintClick ToolController::toClick(const core::Snapshot& snap, const Target& t) {
  core::ConstraintClick c;
  using K = core::ConstraintClick::Kind;
  c.kind = t.kind == Target::Kind::Point ? K::Point
           : t.kind == Target::Kind::Nail ? K::Nail
           : t.kind == Target::Kind::PathPoint ? K::PathPoint : K::Space;
  c.ref = t.ref;
  c.position = t.position;
  c.local = t.local;
  if (t.kind == Target::Kind::Point && t.body >= 0 && snap.geometry) {
    c.shape = snap.geometry->bodies[size_t(t.body)].shape;
    if (size_t(t.body) < snap.bodies.size()) c.rotation = snap.bodies[size_t(t.body)].q;
  }
  return c;
}

void ToolController::connect(const core::Snapshot& snap, const Target& first, const Target& second) {
  // the constraint types' click rules (core/constraint_type.h) make the constraint and the
  // objects it needs (a nail at an empty spot, a path)
  core::ToolContext ctx;
  ctx.workPlaneNormal = m_camera.workPlaneNormal();
  ctx.screenRight = m_camera.right();
  // (one click adds at most one object per prefix, so the document's names suffice)
  ctx.uniqueName = [&](const std::string& prefix) { return m_doc.uniqueName(prefix); };

  core::ToolResult made;
  if (m_tool.kind == ToolKind::Spring) {
    core::ForceDef f;
    f.name = m_doc.uniqueName("spring");
    f.kind = core::ForceKind::Spring;
    f.a = first.ref;
    f.b = core::pointForClick(toClick(snap, second), ctx, made);
    f.stiffness = 20.0;
    f.damping = 1.0;
    std::vector<SceneObject> added(made.newNails.begin(), made.newNails.end());
    added.push_back(f);
    commitConnection(QStringLiteral("Add spring"), std::move(added), {Selection::Kind::Force, f.name});
    return;
  }
  const core::ConstraintType& type = (*m_tool.constraint);
  made = core::constraintFromClicks(type, toClick(snap, first), toClick(snap, second), ctx);
  if (!made.error.empty()) {
    if (onMessage) onMessage(QStringLiteral("Not done: ") + QString::fromStdString(made.error));
    return;
  }
  std::vector<SceneObject> added(made.newNails.begin(), made.newNails.end());
  added.insert(added.end(), made.newPaths.begin(), made.newPaths.end());
  added.push_back(made.constraint);
  commitConnection(QStringLiteral("Add %1").arg(QString::fromUtf8(type.label).toLower()), std::move(added),
                   {Selection::Kind::Constraint, made.constraint.name});
}

void ToolController::commitConnection(const QString& text, std::vector<SceneObject> objects, const Selection& made) {
  if (push(std::make_unique<AddObjects>(m_doc, text, std::move(objects))) && onSelect) onSelect(made);
}

void ToolController::decorate(render::Highlight& hl) const {
  hl.hoverBody = m_hoverBody;
  hl.hoverNail = m_hoverNail;
  if (m_hover.kind == Target::Kind::Point) {  // the control point under the cursor lights up
    hl.hoverPointBody = m_hover.body;
    hl.hoverPoint = m_hover.point;
  } else if (m_hover.kind != Target::Kind::None) {
    hl.hoverWorld = true;
    hl.hoverPosition = m_hover.position;
  }
  if (m_first) {
    hl.preview = true;
    hl.previewFrom = m_first->position;
    hl.previewTo = m_hover.kind != Target::Kind::None ? m_hover.position : m_first->position;
  }
  if (m_rodDrag) {
    hl.previewRod = true;
    hl.previewFrom = m_rodFrom;
    hl.previewTo = m_rodTo;
  }
}

}  // namespace tether::ui
