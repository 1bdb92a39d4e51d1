// One viewport tool: what a left click or drag does, and how people find it (name, tool tip,
// icon, shortcut, tool bar). The tools share a ToolContext: the document, the simulation, the
// camera, picking and the window's callbacks. ui/tools.h lists them in one table that builds
// the Tools menu, the tool bars and the shortcuts.
#pragma once

#include <QKeySequence>
#include <QString>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/constraint_type.h"
#include "core/snapshot.h"
#include "render/camera.h"
#include "render/picking.h"
#include "render/scene_walk.h"
#include "ui/commands.h"
#include "ui/document.h"
#include "ui/selection.h"
#include "ui/simulation_controller.h"

namespace tether::ui {

// Where a tool's action goes: the "Build" tool bar, or the "Constraints" one (after a separator
// in the Tools menu).
enum class ToolSection { Build, Constraints };

// A tool as people meet it.
struct ToolIdentity {
  QString id;           // "select", "rod", ...; a constraint tool: its type's id ("hinge")
  QString name;         // "Select / move"
  QString description;  // what it does and how to use it (its tool tip)
  QString iconPath;     // :/icons/tools/<tool>.svg, or :/icons/constraints/<type id>.svg
  QKeySequence shortcut;
  ToolSection section = ToolSection::Build;
};

// Something a click can land on.
struct Target {
  enum class Kind { None, Point, Nail, PathPoint, Space } kind = Kind::None;
  core::PointRef ref;                        // Point: the body point; Nail/PathPoint: target name
  core::Vec3 position = core::Vec3::Zero();  // world
  int body = -1;                             // Point: snapshot body index
  int point = -1;                            // Point: index into the body's geometry points
  core::Vec3 local = core::Vec3::Zero();     // Point: body coordinates
  // Point or Nail: how many points and nails are on this spot of the screen, and which of them
  // this is (0: the one a click takes unasked; Tab steps to the others)
  int choice = 0, choices = 1;
};

// What the tools share: the document they edit, the simulation, the camera, picking, and the
// window's callbacks.
struct ToolContext {
  ToolContext(Document& doc, SimulationController& sim, render::Camera& camera)
      : doc(doc), sim(sim), camera(camera) {}

  Document& doc;
  SimulationController& sim;
  render::Camera& camera;
  // the arrows, constraint lines and springs of the frame on screen (the renderer's), or null
  const std::vector<render::Segment>* segments = nullptr;
  std::function<void(const Selection&)> onSelect;
  std::function<void(const QString&)> onMessage;

  static constexpr double kPickRadius = 9;  // pixels: points and nails
  // pixels: bodies are picked by the exact ray or, failing that, within this distance on screen,
  // so a rod drawn 5 px wide (the Rod tool's default at a usual zoom) can be grabbed while it swings
  static constexpr double kBodyPickRadius = 6;

  void select(const Selection& s) const {
    if (onSelect) onSelect(s);
  }
  void say(const QString& text) const {
    if (onMessage) onMessage(text);
  }
  // The command through the document; a refusal is said on the status bar. False if refused.
  bool push(std::unique_ptr<SceneCommand> command) const;
  // Where the ray through (px, py) meets the work plane; with snapToGrid, at the nearest crossing
  // of the grid's lines (its two coordinates in the plane rounded to camera.gridStep()).
  bool workPlane(double px, double py, core::Vec3& out) const;
  bool snapToGrid = false;  // View > Snap to grid
  // What a click at (px, py) lands on. A control point and a nail at one spot (a pinned end on
  // its nail): the first click takes the point (it must be a body's), a second click the nail.
  // secondClick: a constraint's second click; avoid: the body of its first point (a point of
  // another body on the same spot wins)
  // Where several are on one spot (within a pixel and a half of the nearest), Tab steps through
  // them: pickCycle, counted while the cursor stays within 3 px of where Tab was pressed
  // (cycleX, cycleY); 0 takes the one the rules above pick.
  Target targetAt(const core::Snapshot& snap, double px, double py, bool secondClick, int avoid = -1) const;
  int pickCycle = 0;
  double cycleX = 0, cycleY = 0;
  bool cycleHolds(double px, double py) const { return std::hypot(px - cycleX, py - cycleY) <= 3.0; }
  // A target as core's constraint types see it.
  static core::ConstraintClick toClick(const core::Snapshot& snap, const Target& t);
};

// A tool: its identity, and what it does with the viewport's mouse. Every change goes to the
// document as an undoable edit. The base keeps what is under the cursor (hover) for the status
// bar and the highlight.
class Tool {
 public:
  Tool(ToolContext& ctx, ToolIdentity identity) : m_ctx(ctx), m_identity(std::move(identity)) {}
  virtual ~Tool() = default;
  Tool(const Tool&) = delete;
  Tool& operator=(const Tool&) = delete;

  const ToolIdentity& identity() const { return m_identity; }
  const QString& id() const { return m_identity.id; }
  const QString& name() const { return m_identity.name; }

  // mouse, in widget pixels; snap is the snapshot being shown
  virtual void press(const core::Snapshot& snap, double px, double py) = 0;
  // buttonDown: the left button is held (a drag)
  virtual void move(const core::Snapshot& snap, double px, double py, bool buttonDown) = 0;
  virtual void release(const core::Snapshot& snap, double px, double py);
  // Esc or another tool chosen: forget a pending first click, end a drag.
  virtual void cancel() {}
  // What the next click takes ("Click a nail, ...").
  virtual QString prompt() const = 0;
  // What is under the cursor, for people ("nail \"pivot\""); empty if nothing.
  const QString& hover() const { return m_hoverName; }
  // How many points and nails share the spot under the cursor (Tab steps through them).
  int hoverChoices() const { return m_hover.choices; }
  // Where the cursor points, if the tool knows: a control point, a nail, the spot on the work plane.
  std::optional<core::Vec3> hoverPoint() const {
    if (m_hover.kind == Target::Kind::None) return std::nullopt;
    return m_hover.position;
  }
  // What the renderer should highlight (hover, rubber band, preview).
  virtual void decorate(render::Highlight& hl) const;
  // Show every body's control points (the tool clicks them).
  virtual bool wantsControlPoints() const { return false; }
  // Forget what was under the cursor (the tool is chosen anew; the next move says).
  void clearHover();

 protected:
  // hover: a nail, else a body near the cursor (returned)
  render::Hit hoverNailOrBody(const core::Snapshot& snap, double px, double py);
  // hover: the spot on the work plane
  void hoverWorkPlane(double px, double py);
  // hover: a click target (named for people), else the work plane
  void hoverTarget(const core::Snapshot& snap, double px, double py, bool secondClick, int avoid = -1);

  ToolContext& m_ctx;
  Target m_hover;
  int m_hoverBody = -1, m_hoverNail = -1;
  QString m_hoverName;

 private:
  ToolIdentity m_identity;
};

}  // namespace tether::ui
