// The viewport's tools (one class each, ui/tools.cpp): select/move (with the mouse spring while
// the simulation runs), rod, sphere / torus / box, nail, spring, control point, and one tool
// per constraint type. makeTools is the table the window builds its Tools menu, tool bars,
// shortcuts and tool tips from; ToolController holds the tool in use and forwards the
// viewport's mouse to it.
#pragma once

#include <QString>
#include <memory>
#include <vector>

#include "ui/tool.h"

namespace tether::ui {

// Every tool in menu order: the Build tools (Select first), then one per row of
// core::constraintTypes() (a new constraint type needs no change here). Shortcuts: a letter for
// the Build tools, Ctrl+1 .. Ctrl+0 for the first ten constraint types.
std::vector<std::unique_ptr<Tool>> makeTools(ToolContext& ctx);

class ToolController {
 public:
  ToolController(Document& doc, SimulationController& sim, render::Camera& camera);

  ToolContext& context() { return m_ctx; }
  const ToolContext& context() const { return m_ctx; }
  const std::vector<std::unique_ptr<Tool>>& all() const { return m_tools; }
  // The tool with that id (ToolIdentity::id), or null.
  Tool* find(const QString& id) const;
  // Choose the tool with that id (the one in use is cancelled first); false if there is none.
  bool setTool(const QString& id);
  Tool& tool() const { return *m_tool; }
  void cancel() { m_tool->cancel(); }  // Esc

  // mouse, in widget pixels; snap is the snapshot being shown
  void press(const core::Snapshot& snap, double px, double py);
  void move(const core::Snapshot& snap, double px, double py, bool buttonDown);
  void release(const core::Snapshot& snap, double px, double py) { m_tool->release(snap, px, py); }

  // The status bar's prompt: the tool and what its next click takes
  // ("Point to nail — Click a nail, ...").
  QString prompt() const;
  // What is under the cursor ("Under the cursor: nail \"pivot\""), empty if nothing.
  QString hover() const;
  // Tab (forward) or Shift+Tab: where several points or nails share the spot under the cursor,
  // the next (or previous) of them is the one hovered and clicked. False if there is no choice.
  bool cycle(const core::Snapshot& snap, double px, double py, bool forward);
  // The cursor's place for the viewport's readout: what the tool hovers, else the work plane's
  // spot under (px, py) (snapped as placing would be); none if the ray misses the plane.
  std::optional<core::Vec3> cursorPoint(double px, double py) const;
  void decorate(render::Highlight& hl) const { m_tool->decorate(hl); }
  bool wantsControlPoints() const { return m_tool->wantsControlPoints(); }

 private:
  ToolContext m_ctx;
  std::vector<std::unique_ptr<Tool>> m_tools;
  Tool* m_tool = nullptr;
};

}  // namespace tether::ui
