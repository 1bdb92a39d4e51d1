#include "ui/tools.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/body.h"
#include "core/constraints/hinge.h"

namespace tether::ui {

using core::Quat;
using core::Scene;
using core::Vec3;

namespace {

ToolIdentity buildTool(const char* id, const char* name, const char* description, Qt::Key key) {
  return {QString::fromLatin1(id), QString::fromUtf8(name), QString::fromUtf8(description),
          QStringLiteral(":/icons/tools/%1.svg").arg(QString::fromLatin1(id)), QKeySequence(key), ToolSection::Build};
}

// Select / move: a click selects what is under it; a drag moves a body's start pose, a nail or a
// path's keyframe; while the model plays, dragging a body pulls it with the mouse spring.
class SelectTool : public Tool {
 public:
  explicit SelectTool(ToolContext& ctx)
      : Tool(ctx, buildTool("select", "Select / move",
                            "Select a body, nail, ground plane, constraint arrow or spring by clicking it; drag a body or nail to "
                            "move its start pose. While the model plays, dragging a body pulls it with a spring.",
                            Qt::Key_S)) {}

  QString prompt() const override {
    return QStringLiteral("Click to select; drag a body or nail to move it (while playing: pull it with a spring). "
                          "Right-drag orbits, middle-drag pans, wheel zooms.");
  }

  void press(const core::Snapshot& snap, double px, double py) override {
    if (!snap.geometry) return;
    if (selectSegment(snap, px, py)) return;
    // keyframes and nails first (nails sit on bodies' points), then bodies
    const render::Camera& cam = m_ctx.camera;
    if (const render::Hit h = render::pickKeyframe(snap, cam, px, py, ToolContext::kPickRadius)) {
      const std::string path = snap.geometry->paths[size_t(h.index)].name;
      m_ctx.select({Selection::Kind::Path, path});
      startDrag(Drag::Keyframe, path, h.position, h.position);
      m_keyframe = h.point;
      return;
    }
    if (const render::Hit h = render::pickNail(snap, cam, px, py, ToolContext::kPickRadius)) {
      const core::NailDef& n = snap.geometry->nails[size_t(h.index)];
      m_ctx.select({Selection::Kind::Nail, n.name});
      startDrag(Drag::Nail, n.name, n.position, h.position);
      return;
    }
    const render::Hit h = render::pickBodyNear(snap, cam, px, py, ToolContext::kBodyPickRadius);
    if (!h) {
      // a ground plane is an object too: a press on its drawn square selects it; one on the sky
      // selects nothing
      if (const render::Hit p = render::pickPlane(snap, cam.ray(px, py)))
        m_ctx.select({Selection::Kind::Plane, snap.geometry->planes[size_t(p.index)].name});
      else
        m_ctx.select({});
      return;
    }
    const core::BodyPose& pose = snap.bodies[size_t(h.index)];
    const core::BodyGeometry& g = snap.geometry->bodies[size_t(h.index)];
    m_ctx.select({Selection::Kind::Body, g.name});
    const bool playing = m_ctx.sim.playRequested();
    if (g.fixed && !playing) return;
    startDrag(playing ? Drag::Spring : Drag::Body, g.name, pose.x, h.position);
    m_body = h.index;
    m_orientation = pose.q;
    m_local = pose.q.conjugate() * (h.position - pose.x);
    if (m_drag == Drag::Spring) m_ctx.sim.drag(m_body, m_local, h.position);
  }

  void move(const core::Snapshot& snap, double px, double py, bool down) override {
    clearHover();
    if (down && m_drag != Drag::None) {
      drag(px, py);
      return;
    }
    if (!snap.geometry) return;
    if (hoverNailOrBody(snap, px, py) || m_hoverNail >= 0) return;
    if (const render::Hit p = render::pickPlane(snap, m_ctx.camera.ray(px, py)))
      m_hoverName = QStringLiteral("ground plane \"%1\"").arg(QString::fromStdString(snap.geometry->planes[size_t(p.index)].name));
  }

  void release(const core::Snapshot& snap, double px, double py) override {
    cancel();
    Tool::release(snap, px, py);
  }

  void cancel() override {
    if (m_drag == Drag::Spring) m_ctx.sim.endDrag();
    m_drag = Drag::None;
  }

 private:
  enum class Drag { None, Body, Nail, Spring, Keyframe };

  // A press on a drawn arrow, constraint line or spring selects its constraint (or spring): they
  // are drawn over the bodies. The rule when one crosses a body: where the press also lands on a
  // body's drawn surface (the exact ray hits it), the body is taken (it is what the user sees
  // under the arrow's thin shaft), unless the press is on an arrow's head, which is the arrow's
  // own. Off every body the segment wins, as before. True if a segment was selected.
  bool selectSegment(const core::Snapshot& snap, double px, double py) {
    if (!m_ctx.segments) return false;
    const std::vector<render::Segment>& segs = *m_ctx.segments;
    const render::Hit h = render::pickSegment(segs, m_ctx.camera, px, py, kSegmentPickRadius);
    if (!h) return false;
    const render::Segment& seg = segs[size_t(h.index)];
    using K = render::Segment::Kind;
    const bool force = seg.kind == K::Spring || seg.kind == K::AppliedForce || seg.kind == K::AppliedTorque;
    const bool arrow = seg.kind == K::ConstraintForce || seg.kind == K::ConstraintTorque || seg.kind == K::AppliedForce ||
                       seg.kind == K::AppliedTorque;
    if (!arrow && seg.kind != K::ConstraintLine && !force) return false;
    if (render::pickBody(snap, m_ctx.camera.ray(px, py)) && !(arrow && onArrowHead(seg, px, py))) return false;
    if (force) m_ctx.select({Selection::Kind::Force, snap.geometry->forceNames[size_t(seg.index)]});
    else m_ctx.select({Selection::Kind::Constraint, snap.geometry->constraintNames[size_t(seg.index)]});
    return true;
  }

  // Whether (px, py) is on the arrow's head: within the pick radius of the head's length (as the
  // renderer draws it, render/overlay.h) next to the tip.
  bool onArrowHead(const render::Segment& seg, double px, double py) const {
    double ax = 0, ay = 0, bx = 0, by = 0;
    if (!m_ctx.camera.project(seg.from, ax, ay) || !m_ctx.camera.project(seg.to, bx, by)) return false;
    const double head = render::arrowHeadLength(std::hypot(bx - ax, by - ay), render::kArrowShaftPixels);
    return std::hypot(px - bx, py - by) <= head + kSegmentPickRadius;
  }

  void startDrag(Drag kind, const std::string& name, const Vec3& origin, const Vec3& start) {
    m_drag = kind;
    m_name = name;
    m_origin = origin;
    m_start = start;
    m_planeNormal = -m_ctx.camera.forward();
  }

  // the dragged object follows the cursor in the plane through the press facing the camera
  void drag(double px, double py) {
    Vec3 p;
    if (!render::hitPlane(m_ctx.camera.ray(px, py), m_start, m_planeNormal, p)) return;
    const Vec3 to = m_origin + (p - m_start);
    switch (m_drag) {
      case Drag::Spring: m_ctx.sim.drag(m_body, m_local, p); break;
      case Drag::Body:  // the body starts where it is drawn, moved by the drag
        m_ctx.push(MoveBody::make(m_ctx.doc, m_name, to, m_orientation));
        break;
      case Drag::Keyframe: {
        const size_t k = size_t(m_keyframe);
        m_ctx.push(EditProperty::make(m_ctx.doc, {false, core::ObjectKind::Path, m_name},
                                      QStringLiteral("Keyframe %1").arg(k),
                                      [&](Scene& s) {
                                        core::PathDef& path = s.paths.front();
                                        if (k < path.keyframes.size()) path.keyframes[k].position = to;
                                      },
                                      true, QStringLiteral("Move keyframe")));
        break;
      }
      case Drag::Nail:
        m_ctx.push(EditProperty::make(m_ctx.doc, {false, core::ObjectKind::Nail, m_name}, QStringLiteral("Position"),
                                      [&](Scene& s) { s.nails.front().position = to; }, true,
                                      QStringLiteral("Move %1").arg(QString::fromStdString(m_name))));
        break;
      case Drag::None: break;
    }
  }

  static constexpr double kSegmentPickRadius = 4;  // pixels

  Drag m_drag = Drag::None;
  std::string m_name;  // the body, nail or path being moved
  int m_keyframe = -1;
  int m_body = -1;
  Vec3 m_start = Vec3::Zero(), m_origin = Vec3::Zero(), m_local = Vec3::Zero();
  Quat m_orientation = Quat::Identity();
  Vec3 m_planeNormal = Vec3::UnitY();
};

// A tool that puts something on the work plane: what is hovered is the spot there.
class PlacingTool : public Tool {
 public:
  using Tool::Tool;
  QString prompt() const override { return QStringLiteral("Click on the work plane to place it."); }
  void move(const core::Snapshot& snap, double px, double py, bool) override {
    clearHover();
    if (snap.geometry) hoverWorkPlane(px, py);
  }
};

// Rod: press where one end goes, drag to the other, release; a click makes a 1 m rod across
// the screen.
class RodTool : public PlacingTool {
 public:
  explicit RodTool(ToolContext& ctx)
      : PlacingTool(ctx, buildTool("rod", "Rod",
                                   "Make a rod: press on the work plane where one end goes and drag to the other end. "
                                   "A click makes a 1 m rod across the screen. Its ends are control points end1 and "
                                   "end2.",
                                   Qt::Key_R)) {}

  QString prompt() const override {
    return QStringLiteral("Press and drag on the work plane: the rod runs from press to release.");
  }

  void press(const core::Snapshot&, double px, double py) override {
    if (m_ctx.workPlane(px, py, m_from)) {
      m_dragging = true;
      m_to = m_from;
    }
  }

  void move(const core::Snapshot& snap, double px, double py, bool down) override {
    if (!m_dragging) return PlacingTool::move(snap, px, py, down);
    clearHover();
    m_ctx.workPlane(px, py, m_to);
  }

  void release(const core::Snapshot& snap, double px, double py) override {
    if (!m_dragging) return Tool::release(snap, px, py);
    m_dragging = false;
    m_ctx.workPlane(px, py, m_to);
    Vec3 a = m_from, b = m_to;
    if ((b - a).norm() < 0.02) {  // a click: a 1 m rod across the screen
      const Vec3 r = m_ctx.camera.right();
      a = m_from - 0.5 * r;
      b = m_from + 0.5 * r;
    }
    core::BodyDef d;
    d.name = m_ctx.doc.uniqueName("rod");
    d.shape = core::Shape::Rod;
    d.length = (b - a).norm();
    d.radius = 0.02;
    d.position = 0.5 * (a + b);
    d.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), b - a);  // local z runs end1 -> end2
    m_ctx.push(std::make_unique<AddObjects>(m_ctx.doc, QStringLiteral("Add rod"), std::vector<SceneObject>{d}));
    m_ctx.select({Selection::Kind::Body, d.name});
  }

  void cancel() override { m_dragging = false; }

  void decorate(render::Highlight& hl) const override {
    Tool::decorate(hl);
    if (!m_dragging) return;
    hl.previewRod = true;
    hl.previewFrom = m_from;
    hl.previewTo = m_to;
  }

 private:
  bool m_dragging = false;  // press .. release
  Vec3 m_from = Vec3::Zero(), m_to = Vec3::Zero();
};

// Sphere, torus or box: a click on the work plane puts one of the default size there.
class ShapeTool : public PlacingTool {
 public:
  ShapeTool(ToolContext& ctx, core::Shape shape, ToolIdentity identity)
      : PlacingTool(ctx, std::move(identity)), m_shape(shape) {}

  void press(const core::Snapshot&, double px, double py) override {
    core::BodyDef d;
    if (!m_ctx.workPlane(px, py, d.position)) return;
    d.shape = m_shape;
    switch (m_shape) {
      case core::Shape::Sphere: d.radius = 0.1; break;
      case core::Shape::Box: d.size = Vec3(0.2, 0.2, 0.2); break;
      default: {  // the ring lies in the work plane, its north pole up on the screen, east to the right
        // (the shortest turn of z onto the plane's normal put the front view's north at the bottom):
        // local z towards the viewer, y the screen's up across it, x = y x z the screen's right
        Vec3 z = m_ctx.camera.workPlaneNormal();
        if (z.dot(m_ctx.camera.forward()) > 0.0) z = -z;
        Vec3 y = m_ctx.camera.up() - z * z.dot(m_ctx.camera.up());
        if (!(y.norm() > 1e-6)) y = z.unitOrthogonal();
        y.normalize();
        core::Mat3 r;
        r.col(0) = y.cross(z);
        r.col(1) = y;
        r.col(2) = z;
        d.orientation = Quat(r);
        break;
      }
    }
    d.name = m_ctx.doc.uniqueName(id().toStdString());
    m_ctx.push(std::make_unique<AddObjects>(m_ctx.doc,
                                            QStringLiteral("Add %1").arg(QString::fromUtf8(core::toString(d.shape))),
                                            std::vector<SceneObject>{d}));
    m_ctx.select({Selection::Kind::Body, d.name});
  }

 private:
  core::Shape m_shape;
};

// Nail: a fixed point in space where the click meets the work plane.
class NailTool : public PlacingTool {
 public:
  explicit NailTool(ToolContext& ctx)
      : PlacingTool(ctx, buildTool("nail", "Nail",
                                   "Put a nail, a fixed point in space, where you click on the work plane. Constraints "
                                   "hold bodies' points to nails.",
                                   Qt::Key_N)) {}

  void press(const core::Snapshot&, double px, double py) override {
    Vec3 p;
    if (!m_ctx.workPlane(px, py, p)) return;
    const std::string name = m_ctx.doc.uniqueName("nail");
    m_ctx.push(std::make_unique<AddObjects>(m_ctx.doc, QStringLiteral("Add nail"),
                                            std::vector<SceneObject>{core::NailDef{name, p}}));
    m_ctx.select({Selection::Kind::Nail, name});
  }
};

// Control point: a click on a body's surface adds a named point there.
class ControlPointTool : public Tool {
 public:
  explicit ControlPointTool(ToolContext& ctx)
      : Tool(ctx, buildTool("control_point", "Control point",
                            "Add a control point to a body: click its surface where the point goes. Constraints and "
                            "springs attach to control points.",
                            Qt::Key_C)) {}

  QString prompt() const override { return QStringLiteral("Click a body's surface to add a control point there."); }

  void press(const core::Snapshot& snap, double px, double py) override {
    if (!snap.geometry) return;
    const render::Hit h = render::pickBodyNear(snap, m_ctx.camera, px, py, ToolContext::kBodyPickRadius);
    if (!h) {
      m_ctx.say(QStringLiteral("Click on a body's surface."));
      return;
    }
    const core::BodyPose& pose = snap.bodies[size_t(h.index)];
    const std::string body = snap.geometry->bodies[size_t(h.index)].name;
    const Vec3 local = pose.q.conjugate() * (h.position - pose.x);
    const std::string name = m_ctx.doc.uniqueName("p");
    m_ctx.push(EditProperty::make(m_ctx.doc, {false, core::ObjectKind::Body, body}, QStringLiteral("Control points"),
                                  [&](Scene& s) { s.bodies.front().points.push_back({name, local}); }, false,
                                  QStringLiteral("Add control point to %1").arg(QString::fromStdString(body))));
  }

  void move(const core::Snapshot& snap, double px, double py, bool) override {
    clearHover();
    if (!snap.geometry) return;
    if (const render::Hit h = hoverNailOrBody(snap, px, py)) {  // where the point would go
      m_hover.kind = Target::Kind::Space;
      m_hover.position = h.position;
    }
  }
};

// Two clicks join two points: the first a body's control point, the second a point, a nail, a
// path's point or empty space. A line follows the cursor from the first.
class TwoClickTool : public Tool {
 public:
  using Tool::Tool;

  void press(const core::Snapshot& snap, double px, double py) override {
    const Target t = m_ctx.targetAt(snap, px, py, m_first.has_value(), m_first ? m_first->body : -1);
    if (!m_first) {
      if (t.kind != Target::Kind::Point) {
        m_ctx.say(QStringLiteral("Click a control point of a body first."));
        return;
      }
      if (acceptsFirst(snap, t)) m_first = t;
      return;
    }
    if (t.kind == Target::Kind::None) return;
    connect(snap, *m_first, t);
    m_first.reset();
  }

  void move(const core::Snapshot& snap, double px, double py, bool) override {
    clearHover();
    if (snap.geometry) hoverTarget(snap, px, py, m_first.has_value(), m_first ? m_first->body : -1);
  }

  void cancel() override { m_first.reset(); }
  bool wantsControlPoints() const override { return true; }

  void decorate(render::Highlight& hl) const override {
    Tool::decorate(hl);
    if (!m_first) return;
    hl.preview = true;
    hl.previewFrom = m_first->position;
    hl.previewTo = m_hover.kind != Target::Kind::None ? m_hover.position : m_first->position;
  }

 protected:
  // Whether a body's point may be the first click (if not, say why).
  virtual bool acceptsFirst(const core::Snapshot&, const Target&) { return true; }
  virtual void connect(const core::Snapshot& snap, const Target& first, const Target& second) = 0;
  bool firstClicked() const { return m_first.has_value(); }

  core::ToolContext coreContext() const {
    core::ToolContext ctx;
    ctx.workPlaneNormal = m_ctx.camera.workPlaneNormal();
    ctx.screenRight = m_ctx.camera.right();
    // (one click adds at most one object per prefix, so the document's names suffice)
    ctx.uniqueName = [this](const std::string& prefix) { return m_ctx.doc.uniqueName(prefix); };
    return ctx;
  }
  void commit(const QString& text, std::vector<SceneObject> objects, const Selection& made) {
    if (m_ctx.push(std::make_unique<AddObjects>(m_ctx.doc, text, std::move(objects)))) m_ctx.select(made);
  }

 private:
  std::optional<Target> m_first;
};

// Spring: from a body's control point to a second point, a nail, or a new nail in empty space.
class SpringTool : public TwoClickTool {
 public:
  explicit SpringTool(ToolContext& ctx)
      : TwoClickTool(ctx, buildTool("spring", "Spring",
                                    "Join two points with a spring: click a control point of a body, then a second "
                                    "control point, a nail, or empty space (a nail is made there).",
                                    Qt::Key_P)) {}

  QString prompt() const override {
    if (!firstClicked()) return QStringLiteral("Click a control point of a body.");
    return QStringLiteral("Click a second control point, a nail, or empty space (makes a nail there). Esc cancels.");
  }

 protected:
  void connect(const core::Snapshot& snap, const Target& first, const Target& second) override {
    core::ToolResult made;
    core::ForceDef f;
    f.name = m_ctx.doc.uniqueName("spring");
    f.kind = core::ForceKind::Spring;
    f.a = first.ref;
    f.b = core::pointForClick(ToolContext::toClick(snap, second), coreContext(), made);
    // At rest as drawn, undamped, and stiff enough that the weight of the body it hangs stretches
    // it by a tenth of that: k = m g / (0.1 L). (It was 20 N/m, rest length 0 and damped 1 N s/m:
    // a helper's 4 kg ball hung 2 m below its nail, and a spring drawn was damped unasked.)
    const double drawn = (second.position - first.position).norm();
    f.restLength = drawn;
    f.damping = 0.0;
    double mass = 0.0;
    for (const core::PointRef* r : {&f.a, &f.b})
      if (const core::BodyDef* b = core::byName(m_ctx.doc.scene().bodies, r->body); b && !b->fixed)
        mass = std::max(mass, core::massProperties(*b).mass);
    const double weight = (mass > 0.0 ? mass : 1.0) * 9.81, k = weight / (0.1 * std::max(drawn, 0.05));
    const double unit = std::pow(10.0, std::floor(std::log10(k)) - 1.0);  // (two significant digits)
    f.stiffness = std::round(k / unit) * unit;
    std::vector<SceneObject> added(made.newNails.begin(), made.newNails.end());
    added.push_back(f);
    commit(QStringLiteral("Add spring"), std::move(added), {Selection::Kind::Force, f.name});
  }
};

// Torsion spring: a spring on the turn of one body against another about an axis, as a door's on
// its hinge. Two clicks, on a control point of each body (as for a Hinge). The axis: that of a
// hinge joining the two bodies, else the work plane's normal (the Hinge tool's: top view,
// vertical). The force (core/forces.cpp) measures the angle between an arm on each body, so each
// arm is one line across the axis (the screen's right, or the line between the clicks, taken
// across it), held in each body's coordinates: equal as drawn, rest angle 0 keeps the bodies
// turned as drawn.
class TorsionSpringTool : public TwoClickTool {
 public:
  explicit TorsionSpringTool(ToolContext& ctx)
      : TwoClickTool(ctx, buildTool("torsion_spring", "Torsion spring",
                                    "Spring back the turn of one body against another about an axis (a door on its "
                                    "hinge): click a control point of each body. The axis is their hinge's, else the "
                                    "work plane's normal (top view: vertical); the spring holds them turned as drawn.",
                                    Qt::Key_Q)) {}

  QString prompt() const override {
    if (!firstClicked()) return QStringLiteral("Click a control point of the first body.");
    return QStringLiteral("Click a control point of the second body (the axis: their hinge's, else the work plane's "
                          "normal). Esc cancels.");
  }

 protected:
  void connect(const core::Snapshot&, const Target& first, const Target& second) override {
    const Scene& s = m_ctx.doc.scene();
    auto bodyOf = [&s](const std::string& name) { return core::byName(s.bodies, name); };
    const core::BodyDef* A = bodyOf(first.ref.body);
    const core::BodyDef* B = second.kind == Target::Kind::Point ? bodyOf(second.ref.body) : nullptr;
    if (!A || !B || A == B) {
      m_ctx.say(QStringLiteral("Not done: a torsion spring joins two bodies: click a control point of a second body."));
      return;
    }
    Vec3 axis = m_ctx.camera.workPlaneNormal();
    for (const core::ConstraintDef& c : s.constraints)  // (a hinge between the two: its axis, at the start poses)
      if (const auto* h = c.params.get<core::HingeDef>())
        if ((h->a.body == A->name && h->b.body == B->name) || (h->a.body == B->name && h->b.body == A->name)) {
          const core::BodyDef* onA = bodyOf(h->a.body);
          if (onA && h->axisA.norm() > 0.0) axis = (onA->orientation * h->axisA).normalized();
          break;
        }
    auto across = [&axis](Vec3 v) -> Vec3 {
      v -= axis * axis.dot(v);
      return v.norm() > 1e-6 ? v.normalized() : Vec3::Zero();
    };
    Vec3 arm = across(second.position - first.position);
    if (arm.isZero()) arm = across(m_ctx.camera.right());
    if (arm.isZero()) arm = across(m_ctx.camera.up());
    core::ForceDef f;
    f.name = m_ctx.doc.uniqueName("torsion");
    f.kind = core::ForceKind::TorsionSpring;
    f.bodyA = A->name;
    f.bodyB = B->name;
    f.axisA = A->orientation.conjugate() * arm;  // (the start poses: the run starts from them)
    f.axisB = B->orientation.conjugate() * arm;
    f.stiffness = 10.0;
    f.damping = 0.1;
    f.restAngle = 0.0;
    commit(QStringLiteral("Add torsion spring between %1 and %2").arg(QString::fromStdString(A->name), QString::fromStdString(B->name)),
           {f}, {Selection::Kind::Force, f.name});
  }
};

// Constant force: a force fixed in the world at a body's control point (a thrust, a push). Two
// clicks: the point, then where the force points to; it starts as large as the body's weight.
class ConstantForceTool : public TwoClickTool {
 public:
  explicit ConstantForceTool(ToolContext& ctx)
      : TwoClickTool(ctx, buildTool("constant_force", "Constant force",
                                    "Push a body with a constant force: click a control point of the body, then "
                                    "anywhere in the direction the force points. It starts as large as the body's "
                                    "weight; change it in the Properties dock.",
                                    Qt::Key_U)) {}

  QString prompt() const override {
    if (!firstClicked()) return QStringLiteral("Click the control point the force acts at.");
    return QStringLiteral("Click where the force points to. Esc cancels.");
  }

 protected:
  void connect(const core::Snapshot&, const Target& first, const Target& second) override {
    // a click in empty space lands on the work plane, which the point may be off: the direction
    // is the one seen, in the plane through the point parallel to the work plane (a click
    // straight above a ball's front pole pointed 12 degrees off vertical)
    Vec3 along = second.position - first.position;
    if (second.kind == Target::Kind::Space) {
      const Vec3 n = m_ctx.camera.workPlaneNormal();
      along -= n * n.dot(along);
    }
    if (!(along.norm() > 1e-9)) {
      m_ctx.say(QStringLiteral("Not done: click away from the point, in the direction the force points."));
      return;
    }
    const Scene& s = m_ctx.doc.scene();
    const core::BodyDef* body = core::byName(s.bodies, first.ref.body);
    if (!body) return;
    const double g = s.settings.gravity.norm() > 0.0 ? s.settings.gravity.norm() : 9.81;
    core::ForceDef f;
    f.name = m_ctx.doc.uniqueName("force");
    f.kind = core::ForceKind::ConstantForce;
    f.a = first.ref;
    f.vector = core::massProperties(*body).mass * g * along.normalized();
    commit(QStringLiteral("Add constant force on %1").arg(QString::fromStdString(first.ref.body)), {f},
           {Selection::Kind::Force, f.name});
  }
};

// One click on a body, or on empty space for every body: a force that needs no second point.
class BodyForceTool : public Tool {
 public:
  using Tool::Tool;
  void move(const core::Snapshot& snap, double px, double py, bool) override {
    clearHover();
    if (snap.geometry) hoverNailOrBody(snap, px, py);
  }

 protected:
  // the body under (px, py), or "" for none
  std::string bodyAt(const core::Snapshot& snap, double px, double py) const {
    if (!snap.geometry) return {};
    const render::Hit h = render::pickBodyNear(snap, m_ctx.camera, px, py, ToolContext::kBodyPickRadius);
    return h ? snap.geometry->bodies[size_t(h.index)].name : std::string();
  }
  void add(const QString& text, core::ForceDef f) {
    if (m_ctx.push(std::make_unique<AddObjects>(m_ctx.doc, text, std::vector<SceneObject>{f})))
      m_ctx.select({Selection::Kind::Force, f.name});
  }
};

// Damping: a drag on a body's velocity and turn (air, a viscous bath), or on every body's.
class DampingTool : public BodyForceTool {
 public:
  explicit DampingTool(ToolContext& ctx)
      : BodyForceTool(ctx, buildTool("damping", "Damping",
                                     "Slow bodies down as air would: click a body to damp it, or empty space to damp "
                                     "every body. Its linear (N s/m) and angular (N m s/rad) rates are in the "
                                     "Properties dock.",
                                     Qt::Key_A)) {}
  QString prompt() const override {
    return QStringLiteral("Click a body to damp it, or empty space to damp every body.");
  }
  void press(const core::Snapshot& snap, double px, double py) override {
    core::ForceDef f;
    f.name = m_ctx.doc.uniqueName("damping");
    f.kind = core::ForceKind::Damping;
    f.linear = 0.1;
    f.angular = 0.01;
    if (std::string body = bodyAt(snap, px, py); !body.empty()) f.bodies = {body};
    add(f.bodies.empty() ? QStringLiteral("Add damping") : QStringLiteral("Add damping to %1").arg(QString::fromStdString(f.bodies[0])),
        f);
  }
};

// Constant torque: a body turned by a torque fixed in the world, about the axis out of the work
// plane (towards the viewer: counterclockwise as seen).
class ConstantTorqueTool : public BodyForceTool {
 public:
  explicit ConstantTorqueTool(ToolContext& ctx)
      : BodyForceTool(ctx, buildTool("constant_torque", "Constant torque",
                                     "Turn a body with a constant torque: click the body. It turns it counterclockwise "
                                     "as seen, by 1 N m; change it in the Properties dock.",
                                     Qt::Key_K)) {}
  QString prompt() const override { return QStringLiteral("Click the body to turn."); }
  void press(const core::Snapshot& snap, double px, double py) override {
    const std::string body = bodyAt(snap, px, py);
    if (body.empty()) {
      m_ctx.say(QStringLiteral("Click on a body."));
      return;
    }
    core::ForceDef f;
    f.name = m_ctx.doc.uniqueName("torque");
    f.kind = core::ForceKind::ConstantTorque;
    f.bodyA = body;
    const Vec3 n = m_ctx.camera.workPlaneNormal();  // (an axis: towards the viewer, against the view)
    f.vector = n.dot(m_ctx.camera.forward()) > 0.0 ? -n : n;
    add(QStringLiteral("Add constant torque on %1").arg(QString::fromStdString(body)), f);
  }
};

// One constraint type (a row of core::constraintTypes()): its click rules make the constraint
// and the objects it needs (a nail at an empty spot, a path).
class ConstraintTool : public TwoClickTool {
 public:
  ConstraintTool(ToolContext& ctx, const core::ConstraintType& type, QKeySequence shortcut)
      : TwoClickTool(ctx, {QString::fromUtf8(type.id), QString::fromUtf8(type.label), QString::fromUtf8(type.description),
                           QStringLiteral(":/icons/constraints/%1.svg").arg(QString::fromUtf8(type.id)),
                           std::move(shortcut), ToolSection::Constraints}),
        m_type(type) {}

  QString prompt() const override { return QString::fromUtf8(firstClicked() ? m_type.secondPrompt : m_type.firstPrompt); }

 protected:
  bool acceptsFirst(const core::Snapshot& snap, const Target& t) override {
    if (core::acceptsFirstClick(m_type, ToolContext::toClick(snap, t))) return true;
    m_ctx.say(QString::fromUtf8(m_type.firstPrompt));
    return false;
  }

  void connect(const core::Snapshot& snap, const Target& first, const Target& second) override {
    const core::ToolResult made = core::constraintFromClicks(m_type, ToolContext::toClick(snap, first),
                                                             ToolContext::toClick(snap, second), coreContext());
    if (!made.error.empty()) {
      m_ctx.say(QStringLiteral("Not done: ") + QString::fromStdString(made.error));
      return;
    }
    std::vector<SceneObject> added(made.newNails.begin(), made.newNails.end());
    added.insert(added.end(), made.newPaths.begin(), made.newPaths.end());
    added.push_back(made.constraint);
    commit(QStringLiteral("Add %1").arg(QString::fromUtf8(m_type.label).toLower()), std::move(added),
           {Selection::Kind::Constraint, made.constraint.name});
  }

 private:
  const core::ConstraintType& m_type;
};

}  // namespace

std::vector<std::unique_ptr<Tool>> makeTools(ToolContext& ctx) {
  std::vector<std::unique_ptr<Tool>> t;
  t.push_back(std::make_unique<SelectTool>(ctx));
  t.push_back(std::make_unique<RodTool>(ctx));
  t.push_back(std::make_unique<ShapeTool>(
      ctx, core::Shape::Sphere,
      buildTool("sphere", "Sphere",
                "Make a sphere: click on the work plane where its centre goes. Control points: its centre and the six "
                "poles (top, bottom, ...).",
                Qt::Key_O)));
  t.push_back(std::make_unique<ShapeTool>(
      ctx, core::Shape::Torus,
      buildTool("torus", "Torus", "Make a torus (a ring): click on the work plane where its centre goes.", Qt::Key_T)));
  t.push_back(std::make_unique<ShapeTool>(
      ctx, core::Shape::Box,
      buildTool("box", "Box",
                "Make a box: click on the work plane where its centre goes. Its corners and face centres are control "
                "points.",
                Qt::Key_B)));
  t.push_back(std::make_unique<NailTool>(ctx));
  t.push_back(std::make_unique<SpringTool>(ctx));
  t.push_back(std::make_unique<TorsionSpringTool>(ctx));
  t.push_back(std::make_unique<DampingTool>(ctx));
  t.push_back(std::make_unique<ConstantForceTool>(ctx));
  t.push_back(std::make_unique<ConstantTorqueTool>(ctx));
  t.push_back(std::make_unique<ControlPointTool>(ctx));
  const auto& types = core::constraintTypes();
  for (size_t i = 0; i < types.size(); ++i) {
    // Ctrl+1 .. Ctrl+9, Ctrl+0, then Ctrl+Shift+1 .. Ctrl+Shift+9, Ctrl+Shift+0
    const auto digit = [](size_t k) { return k == 9 ? Qt::Key_0 : Qt::Key(Qt::Key_1 + int(k)); };
    const QKeySequence key = i < 10   ? QKeySequence(Qt::CTRL | digit(i))
                             : i < 20 ? QKeySequence(Qt::CTRL | Qt::SHIFT | digit(i - 10))
                                      : QKeySequence();
    t.push_back(std::make_unique<ConstraintTool>(ctx, *types[i], key));
  }
  return t;
}

ToolController::ToolController(Document& doc, SimulationController& sim, render::Camera& camera)
    : m_ctx(doc, sim, camera), m_tools(makeTools(m_ctx)), m_tool(m_tools.front().get()) {}

Tool* ToolController::find(const QString& id) const {
  for (const auto& t : m_tools)
    if (t->id() == id) return t.get();
  return nullptr;
}

bool ToolController::setTool(const QString& id) {
  Tool* t = find(id);
  if (!t) return false;
  m_tool->cancel();
  m_tool = t;
  m_tool->clearHover();
  return true;
}

void ToolController::press(const core::Snapshot& snap, double px, double py) {
  m_ctx.doc.closeMerge();
  m_tool->press(snap, px, py);
  m_ctx.pickCycle = 0;  // (a constraint's second click on the same spot starts from its own rule)
}

void ToolController::move(const core::Snapshot& snap, double px, double py, bool buttonDown) {
  if (m_ctx.pickCycle != 0 && !m_ctx.cycleHolds(px, py)) m_ctx.pickCycle = 0;
  m_tool->move(snap, px, py, buttonDown);
}

bool ToolController::cycle(const core::Snapshot& snap, double px, double py, bool forward) {
  if (m_tool->hoverChoices() < 2) return false;
  if (m_ctx.pickCycle == 0 || !m_ctx.cycleHolds(px, py)) {
    m_ctx.pickCycle = 0;
    m_ctx.cycleX = px;
    m_ctx.cycleY = py;
  }
  m_ctx.pickCycle += forward ? 1 : -1;
  m_tool->move(snap, px, py, false);
  return true;
}

QString ToolController::prompt() const { return m_tool->name() + QStringLiteral(" — ") + m_tool->prompt(); }

std::optional<core::Vec3> ToolController::cursorPoint(double px, double py) const {
  if (std::optional<core::Vec3> p = m_tool->hoverPoint()) return p;
  core::Vec3 at;
  if (m_ctx.workPlane(px, py, at)) return at;
  return std::nullopt;
}

QString ToolController::hover() const {
  return m_tool->hover().isEmpty() ? QString() : QStringLiteral("Under the cursor: ") + m_tool->hover();
}

}  // namespace tether::ui
