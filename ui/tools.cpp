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

constexpr int kMoveMerge = 1001;    // consecutive moves of one drag merge into one command
constexpr double kPickRadius = 9;   // pixels

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
  return QString::fromUtf8(core::constraintType(t.constraint).label);
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
    const core::ConstraintType& type = core::constraintType(t.constraint);
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

ToolController::Target ToolController::targetAt(const core::Snapshot& snap, double px, double py) const {
  Target t;
  if (!snap.geometry) return t;
  if (const render::Hit h = render::pickControlPoint(snap, m_camera, px, py, kPickRadius)) {
    const core::BodyGeometry& b = snap.geometry->bodies[size_t(h.index)];
    t.kind = Target::Kind::Point;
    t.ref.kind = PointRef::Kind::BodyPoint;
    t.ref.body = b.name;
    t.ref.point = b.points[size_t(h.point)].name;
    t.position = h.position;
    t.body = h.index;
    t.point = h.point;
    t.local = b.points[size_t(h.point)].local;
    return t;
  }
  if (const render::Hit h = render::pickNail(snap, m_camera, px, py, kPickRadius)) {
    t.kind = Target::Kind::Nail;
    t.ref.kind = PointRef::Kind::Nail;
    t.ref.target = snap.geometry->nails[size_t(h.index)].name;
    t.position = h.position;
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

void ToolController::edit(const QString& text, const std::function<void(Scene&)>& change, int mergeId) {
  QString error;
  if (!m_doc.edit(text, change, mergeId, &error) && onMessage) onMessage(QStringLiteral("Not done: ") + error);
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
      const render::Ray ray = m_camera.ray(px, py);
      const render::Hit h = render::pickBody(snap, ray);
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
      const render::Hit h = render::pickBody(snap, m_camera.ray(px, py));
      if (!h) {
        if (onMessage) onMessage(QStringLiteral("Click on a body's surface."));
        return;
      }
      const core::BodyPose& pose = snap.bodies[size_t(h.index)];
      const std::string body = snap.geometry->bodies[size_t(h.index)].name;
      const Vec3 local = pose.q.conjugate() * (h.position - pose.x);
      const std::string name = m_doc.uniqueName("p");
      edit(QStringLiteral("Add control point"), [&](Scene& s) {
        for (core::BodyDef& b : s.bodies)
          if (b.name == body) b.points.push_back({name, local});
      });
      return;
    }
    case ToolKind::Constraint:
    case ToolKind::Spring: {
      const Target t = targetAt(snap, px, py);
      if (!m_first) {
        if (t.kind != Target::Kind::Point) {
          if (onMessage) onMessage(QStringLiteral("Click a control point of a body first."));
          return;
        }
        if (m_tool.kind == ToolKind::Constraint &&
            !core::acceptsFirstClick(core::constraintType(m_tool.constraint), toClick(snap, t))) {
          if (onMessage) onMessage(QString::fromUtf8(core::constraintType(m_tool.constraint).firstPrompt));
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
      const std::string name = m_dragName;
      const Vec3 to = m_dragOrigin + delta;
      const Quat q = m_dragOrientation;
      edit(QStringLiteral("Move %1").arg(QString::fromStdString(name)), [&](Scene& s) {
        for (core::BodyDef& b : s.bodies)
          if (b.name == name) {
            b.position = to;
            b.orientation = q;
          }
      }, kMoveMerge);
    } else if (m_drag == Drag::Keyframe) {
      const std::string name = m_dragName;
      const int k = m_dragKeyframe;
      const Vec3 to = m_dragOrigin + delta;
      edit(QStringLiteral("Move keyframe"), [&](Scene& s) {
        for (core::PathDef& p : s.paths)
          if (p.name == name && k < int(p.keyframes.size())) p.keyframes[size_t(k)].position = to;
      }, kMoveMerge);
    } else if (m_drag == Drag::Nail) {
      const std::string name = m_dragName;
      const Vec3 to = m_dragOrigin + delta;
      edit(QStringLiteral("Move %1").arg(QString::fromStdString(name)), [&](Scene& s) {
        for (core::NailDef& n : s.nails)
          if (n.name == name) n.position = to;
      }, kMoveMerge);
    }
    return;
  }
  if (!snap.geometry) return;
  switch (m_tool.kind) {
    case ToolKind::Select:
    case ToolKind::ControlPoint: {
      if (const render::Hit n = render::pickNail(snap, m_camera, px, py, kPickRadius)) {
        m_hoverNail = n.index;
        return;
      }
      const render::Hit h = render::pickBody(snap, m_camera.ray(px, py));
      if (h) m_hoverBody = h.index;
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
      m_hover = (m_tool.kind == ToolKind::Constraint || m_tool.kind == ToolKind::Spring) ? targetAt(snap, px, py)
                                                                                            : Target{};
      if (m_hover.kind == Target::Kind::None && workPlane(px, py, m_hover.position)) m_hover.kind = Target::Kind::Space;
      return;
  }
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
    edit(QStringLiteral("Add rod"), [&](Scene& s) {
      core::BodyDef d;
      d.name = name;
      d.shape = core::Shape::Rod;
      d.length = (b - a).norm();
      d.radius = 0.02;
      d.position = 0.5 * (a + b);
      d.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), b - a);  // local z runs end1 -> end2
      s.bodies.push_back(d);
    });
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
    edit(QStringLiteral("Add nail"), [&](Scene& s) { s.nails.push_back({name, p}); });
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
  edit(QStringLiteral("Add %1").arg(QString::fromUtf8(core::toString(d.shape))), [&](Scene& s) { s.bodies.push_back(d); });
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
    Scene next = m_doc.scene();
    for (const core::NailDef& n : made.newNails) next.nails.push_back(n);
    next.forces.push_back(f);
    commitConnection(QStringLiteral("Add spring"), next, {Selection::Kind::Force, f.name});
    return;
  }
  const core::ConstraintType& type = core::constraintType(m_tool.constraint);
  made = core::constraintFromClicks(type, toClick(snap, first), toClick(snap, second), ctx);
  if (!made.error.empty()) {
    if (onMessage) onMessage(QStringLiteral("Not done: ") + QString::fromStdString(made.error));
    return;
  }
  Scene next = m_doc.scene();
  for (const core::NailDef& n : made.newNails) next.nails.push_back(n);
  for (const core::PathDef& p : made.newPaths) next.paths.push_back(p);
  next.constraints.push_back(made.constraint);
  commitConnection(QStringLiteral("Add %1").arg(QString::fromUtf8(type.label).toLower()), next,
                   {Selection::Kind::Constraint, made.constraint.name});
}

void ToolController::commitConnection(const QString& text, const Scene& next, const Selection& made) {
  QString error;
  if (!m_doc.edit(text, [&](Scene& s) { s = next; }, 0, &error)) {
    if (onMessage) onMessage(QStringLiteral("Not done: ") + error);
    return;
  }
  if (onSelect) onSelect(made);
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
