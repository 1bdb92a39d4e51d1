// The timeline dock: a time ruler with the playhead and the recorded range, one lane per object
// that has events (bodies, constraints, forces, gravity) and one per keyframed path; events as
// markers with an icon per kind and a tooltip. Click or drag in the ruler to scrub; click markers
// to select (Ctrl adds), drag them along time (snapping to frames), Delete, Ctrl+C / Ctrl+V
// (paste at the playhead); the context menu adds events and keyframes at the clicked time (a
// round time near it). Every edit is an undoable document edit; the transport bar plays, steps,
// jumps and loops.
#pragma once

#include <QWidget>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ui/document.h"
#include "ui/simulation_controller.h"

class QMenu;
class QCheckBox;
class QLabel;
class QScrollBar;

namespace tether::ui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  TimelineView(Document& doc, SimulationController& sim, QWidget* parent = nullptr);

  struct Lane {
    enum class Kind { Gravity, Body, Constraint, Force, Path };
    Kind kind = Kind::Gravity;
    std::string name;
  };
  const std::vector<Lane>& lanes() const { return m_lanes; }
  // geometry, for the tests and the transport bar
  double timeAt(double x) const;
  double xAt(double t) const;
  int laneY(int lane) const;  // top of a lane, pixels
  double playhead() const;    // the shown frame's time, s
  // The context menu for a point of the view (what right-click shows): events and keyframes
  // at the clicked time (the playhead's in the name column), at most two menu levels deep.
  QMenu* buildContextMenu(const QPoint& pos);
  int labelWidth() const;   // the lane-name column, px: sized to the longest name (capped)
  // Keep the playhead in view: once it leaves the visible range (playing past the right
  // edge, a jump, a loop) the view pages to it, as Blender's timeline does.
  void followPlayhead();
  const std::set<int>& selectedEvents() const { return m_selEvents; }

  // Actions the menu, the keys and the inspector use, at time `at` (the menu's: the clicked
  // time, rounded as clickedTime says; none: the playhead's frame). Return false (and say why)
  // if refused.
  bool addEvent(core::EventAction action, const std::string& target, const std::string& param = {},
                const std::vector<double>& value = {}, std::optional<double> at = {});
  bool addKeyframe(const std::string& path, std::optional<double> at = {});
  void deleteSelection();
  void copySelection();
  void paste(std::optional<double> at = {});
  void fit();     // show the whole timeline (its range only grows until Fit or another scene)
  void fitNow();  // Fit (menu and button): the whole timeline as it is now, the view follows again
  // The visible range and what there is to see, for the scroll bar under the view: the view
  // starts at viewStart() and shows viewSpan() seconds; extentEnd() is the last time there is
  // something at (the fitted range, the recording, the playhead). scrollTo keeps the scale.
  double viewStart() const { return m_t0; }
  double viewSpan() const;
  double extentEnd() const;
  void scrollTo(double start);

 // Show event i as the one selected (the outliner or the inspector chose it).
  void showSelected(int event);

 signals:
  void message(const QString& text);
  void eventPicked(int event);  // a click made one event the whole selection: inspect it
  void viewChanged();  // the visible range moved or was rescaled

 protected:
  void paintEvent(QPaintEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void contextMenuEvent(QContextMenuEvent* e) override;
  bool event(QEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  struct Marker {
    int event = -1;           // index into scene.events, or -1 for a keyframe
    std::string path;         // keyframe: its path
    int keyframe = -1;
    int lane = 0;
    double t = 0.0;
  };
  void rebuild();
  std::vector<Marker> markers() const;
  std::optional<Marker> markerAt(const QPoint& p) const;
  int laneAt(int y) const;
  double snap(double t) const;
  double clickedTime(double x) const;  // what a click at x means: a round time near it, or the frame
  QString describe(const Marker& m) const;
  QString laneLabel(const Lane& l) const;
  void follow(double t);  // page so that t is in view
  void refreshToolTip();  // after an edit: the shown tooltip's marker may be gone or moved
  void setView(double t0, double pxPerSecond);  // every change of the visible range goes here

  Document& m_doc;
  SimulationController& m_sim;
  std::vector<Lane> m_lanes;
  double m_t0 = -0.2, m_pxPerSecond = 100.0;
  bool m_userZoom = false;
  double m_fitEnd = 0.0;        // the fitted range's end: it only grows (no jumps after edits)
  double m_duration = -1.0;     // the scene's duration rebuild() last saw (a new one refits)
  int m_labelWanted = 0;        // the longest lane label, px
  double m_followed = -1.0;     // the playhead time followPlayhead() last saw
  std::optional<QPoint> m_tip;  // where the shown tooltip was asked for
  std::set<int> m_selEvents;
  std::set<std::pair<std::string, int>> m_selKeys;
  std::vector<core::EventDef> m_clipboard;  // times relative to the first
  enum class Drag { None, Scrub, Markers } m_drag = Drag::None;
  double m_dragFrom = 0.0;
  std::vector<std::pair<int, double>> m_dragEvents;                        // event, original time
  std::vector<std::tuple<std::string, int, double>> m_dragKeys;            // path, keyframe, original time
};

class TimelineDock : public QWidget {
  Q_OBJECT
 public:
  TimelineDock(Document& doc, SimulationController& sim, QWidget* parent = nullptr);
  TimelineView* view() { return m_view; }
  void refresh();  // playhead and labels from the newest snapshot

 signals:
  void playRequested(bool on);

 private:
  SimulationController& m_sim;
  TimelineView* m_view;
  QLabel* m_time;
  QCheckBox* m_loop;
  QScrollBar* m_scroll;  // the view's range within the whole timeline
  double m_scrollOrigin = 0.0, m_scrollUnit = 1e-3;  // scroll value v is time m_scrollOrigin + v * m_scrollUnit
  bool m_syncing = false;
  void syncScrollBar();
  double m_loopIn = 0.0, m_loopOut = 1.0;
};

}  // namespace tether::ui
