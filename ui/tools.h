// The viewport's tools: what a left click or drag does. Select/move (with the mouse spring
// while the simulation runs), placing bodies and nails, one tool per constraint type, springs,
// and custom control points. Every change goes to the document as an undoable edit.
#pragma once

#include <QKeySequence>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

#include "core/constraint_type.h"
#include "core/snapshot.h"
#include "render/camera.h"
#include "render/scene_walk.h"
#include "ui/document.h"
#include "ui/selection.h"
#include "ui/simulation_controller.h"

namespace tether::ui {

enum class ToolKind { Select, Rod, Sphere, Torus, Box, Nail, Constraint, Spring, ControlPoint };

struct Tool {
  ToolKind kind = ToolKind::Select;
  const core::ConstraintType* constraint = nullptr;  // ToolKind::Constraint: the type (a row of core::constraintTypes())
  bool operator==(const Tool&) const = default;
};
QString toolName(const Tool& t);
QString toolHint(const Tool& t, bool firstPicked);
// What the tool does and how to use it (its tool tip).
QString toolDescription(const Tool& t);
// Its icon's resource path: :/icons/tools/<tool>.svg, or :/icons/constraints/<type id>.svg.
QString toolIconPath(const Tool& t);
// Its keyboard shortcut: a letter for the body tools, Ctrl+1 .. Ctrl+0 for the constraint types
// in the order of core::constraintTypes() (none past the tenth).
QKeySequence toolShortcut(const Tool& t);

class ToolController {
 public:
  ToolController(Document& doc, SimulationController& sim, render::Camera& camera);

  void setTool(const Tool& t);
  const Tool& tool() const { return m_tool; }
  void cancel();  // Esc: forget a pending first click, end a drag
  bool firstClicked() const { return m_first.has_value(); }  // a constraint / spring awaits its second click

  // mouse, in widget pixels; snap is the snapshot being shown
  void press(const core::Snapshot& snap, double px, double py);
  void move(const core::Snapshot& snap, double px, double py, bool buttonDown);
  void release(const core::Snapshot& snap, double px, double py);

  // The status bar's line: the tool, what its next click takes, and what is under the cursor
  // ("Point to nail — Click a nail, ... · Under the cursor: nail \"pivot\"").
  QString prompt() const;

  // what the renderer should highlight for the tool (hover, rubber band, preview)
  void decorate(render::Highlight& hl) const;
  bool wantsControlPoints() const;

  // callbacks to the window
  std::function<void(const Selection&)> onSelect;
  std::function<void(const QString&)> onMessage;

 private:
  // something a click can land on
  struct Target {
    enum class Kind { None, Point, Nail, PathPoint, Space } kind = Kind::None;
    core::PointRef ref;           // Point: the body point; Nail/PathPoint: target name
    core::Vec3 position = core::Vec3::Zero();  // world
    int body = -1;                // Point: snapshot body index
    int point = -1;               // Point: index into the body's geometry points
    core::Vec3 local = core::Vec3::Zero();     // Point: body coordinates
  };
  // What a click at (px, py) lands on. A control point and a nail at one spot (a pinned end on
  // its nail): the first click takes the point (it must be a body's), a second click the nail.
  Target targetAt(const core::Snapshot& snap, double px, double py, bool secondClick) const;
  bool workPlane(double px, double py, core::Vec3& out) const;
  void placeBody(const core::Snapshot& snap, double px, double py);
  static core::ConstraintClick toClick(const core::Snapshot& snap, const Target& t);
  void connect(const core::Snapshot& snap, const Target& first, const Target& second);
  void commitConnection(const QString& text, std::vector<SceneObject> objects, const Selection& made);
  // The command through the document; a refusal is said on the status bar. False if refused.
  bool push(std::unique_ptr<SceneCommand> command);

  Document& m_doc;
  SimulationController& m_sim;
  render::Camera& m_camera;
  Tool m_tool;

  // pending state
  std::optional<Target> m_first;      // constraint / spring: the first click
  Target m_hover;                     // what is under the cursor
  bool m_rodDrag = false;             // placing a rod: press .. release
  core::Vec3 m_rodFrom = core::Vec3::Zero(), m_rodTo = core::Vec3::Zero();
  enum class Drag { None, Body, Nail, Spring, Keyframe } m_drag = Drag::None;
  std::string m_dragName;             // the body, nail or path being moved
  int m_dragKeyframe = -1;
  int m_dragBody = -1;
  core::Vec3 m_dragStart = core::Vec3::Zero(), m_dragOrigin = core::Vec3::Zero(), m_dragLocal = core::Vec3::Zero();
  core::Quat m_dragOrientation = core::Quat::Identity();
  core::Vec3 m_dragPlaneNormal = core::Vec3::UnitY();
  bool m_dragMoved = false;
  int m_hoverBody = -1, m_hoverNail = -1;
  QString m_hoverName;                // what is under the cursor, for people
};

}  // namespace tether::ui
