#include "ui/tools.h"

#include <cmath>

#include "render/picking.h"

namespace tether::ui {

using core::ConstraintKind;
using core::PointRef;
using core::Quat;
using core::Scene;
using core::Vec3;

namespace {

constexpr int kMoveMerge = 1001;    // consecutive moves of one drag merge into one command
constexpr double kPickRadius = 9;   // pixels

std::string kindPrefix(ConstraintKind k) {
  std::string s = core::toString(k);
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

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
  return QString::fromUtf8(core::toString(t.constraint));
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
  if (!first) return QStringLiteral("Click a control point of a body.");
  if (t.kind == ToolKind::Constraint && t.constraint == ConstraintKind::SphereToSphere)
    return QStringLiteral("Click a point of the second sphere.");
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
      if (g.fixed && !snap.playing) return;
      m_dragName = g.name;
      m_dragBody = h.index;
      m_dragStart = h.position;
      m_dragOrigin = pose.x;
      m_dragOrientation = pose.q;
      m_dragLocal = pose.q.conjugate() * (h.position - pose.x);
      m_dragPlaneNormal = -m_camera.forward();
      m_drag = snap.playing ? Drag::Spring : Drag::Body;
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
        m_first = t;
        return;
      }
      if (t.kind == Target::Kind::None) return;
      connect(snap, t);
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

void ToolController::connect(const core::Snapshot& snap, const Target& second) {
  const Target first = *m_first;
  Scene next = m_doc.scene();
  // a second click on empty space (or, where a nail is needed, on a body point) makes a nail
  auto nailAt = [&](const Target& t) -> std::string {
    if (t.kind == Target::Kind::Nail) return t.ref.target;
    const std::string name = m_doc.uniqueName("nail");
    next.nails.push_back({name, t.position});
    return name;
  };
  auto secondRef = [&]() -> PointRef {
    if (second.kind == Target::Kind::Point || second.kind == Target::Kind::PathPoint) return second.ref;
    PointRef r;
    r.kind = PointRef::Kind::Nail;
    r.target = nailAt(second);
    return r;
  };
  QString text;
  if (m_tool.kind == ToolKind::Spring) {
    core::ForceDef f;
    f.name = m_doc.uniqueName("spring");
    f.kind = core::ForceKind::Spring;
    f.a = first.ref;
    f.b = secondRef();
    f.stiffness = 20.0;
    f.damping = 1.0;
    next.forces.push_back(f);
    text = QStringLiteral("Add spring");
  } else {
    core::ConstraintDef c;
    c.kind = m_tool.constraint;
    c.name = m_doc.uniqueName(kindPrefix(c.kind));
    c.a = first.ref;
    const Vec3 p = first.position;
    switch (c.kind) {
      case ConstraintKind::PointToNail:
      case ConstraintKind::ScalarPointToNail:
        c.nail = nailAt(second);
        break;
      case ConstraintKind::PointToPoint:
        c.b = secondRef();
        break;
      case ConstraintKind::Distance:
        c.b = secondRef();
        c.length = (second.position - p).norm();
        if (c.length < 1e-3) {
          if (onMessage) onMessage(QStringLiteral("Not done: the two points coincide; a distance needs two apart."));
          return;
        }
        break;
      case ConstraintKind::PointToPath: {
        if (second.kind == Target::Kind::PathPoint) {
          c.path = second.ref.target;
          break;
        }
        // a circle about the second click through the point, in the work plane, 4 s a turn
        core::PathDef path;
        path.name = m_doc.uniqueName("path");
        path.kind = core::PathKind::Circle;
        path.center = second.position;
        path.normal = m_camera.workPlaneNormal();
        const Vec3 r = p - second.position - path.normal.dot(p - second.position) * path.normal;
        if (r.norm() < 1e-3) {
          if (onMessage) onMessage(QStringLiteral("Not done: click the circle's centre away from the point."));
          return;
        }
        path.radius = r.norm();
        path.u = r.normalized();
        path.period = 4.0;
        next.paths.push_back(path);
        c.path = path.name;
        break;
      }
      case ConstraintKind::Orientation: {
        // the body axis through the clicked point (the body's z axis for its centre), to point
        // from that point toward the second click
        c.bodyA = first.ref.body;
        c.axis = first.local.norm() > 1e-9 ? Vec3(first.local.normalized()) : Vec3::UnitZ();
        const Vec3 n = second.position - p;
        c.direction = n.norm() > 1e-9 ? Vec3(n.normalized()) : Vec3::UnitZ();
        break;
      }
      case ConstraintKind::PointOnLine:
        // the line through the second click, across the screen
        c.origin = second.position;
        c.direction = m_camera.right();
        break;
      case ConstraintKind::PointOnPlane:
        // the horizontal plane through the second click
        c.origin = second.position;
        c.normal = Vec3::UnitZ();
        break;
      case ConstraintKind::SphereToSphere: {
        const auto isSphere = [&](const Target& t) {
          return t.kind == Target::Kind::Point && t.body >= 0 && snap.geometry &&
                 snap.geometry->bodies[size_t(t.body)].shape == core::Shape::Sphere;
        };
        if (!isSphere(first) || !isSphere(second) || first.ref.body == second.ref.body) {
          if (onMessage) onMessage(QStringLiteral("Not done: sphere-to-sphere needs points of two different spheres."));
          return;
        }
        c.bodyA = first.ref.body;
        c.bodyB = second.ref.body;
        c.a = PointRef{};
        break;
      }
    }
    next.constraints.push_back(c);
    text = QStringLiteral("Add %1").arg(QString::fromUtf8(core::toString(c.kind)));
  }
  const std::string selected = m_tool.kind == ToolKind::Spring ? next.forces.back().name : next.constraints.back().name;
  QString error;
  if (!m_doc.edit(text, [&](Scene& s) { s = next; }, 0, &error)) {
    if (onMessage) onMessage(QStringLiteral("Not done: ") + error);
    return;
  }
  if (onSelect)
    onSelect({m_tool.kind == ToolKind::Spring ? Selection::Kind::Force : Selection::Kind::Constraint, selected});
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
