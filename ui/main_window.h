// The main window: viewport in the centre, tool bars, outliner and inspector docks, status bar
// (time, step rate, max deviation), menus with standard shortcuts, files, recent files,
// bundled examples, undo/redo, and the simulation controls.
#pragma once

#include <QActionGroup>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QTimer>
#include <memory>

#include "ui/autosave.h"
#include "ui/document.h"
#include "ui/inspector.h"
#include "ui/outliner.h"
#include "ui/plot_dock.h"
#include "ui/simulation_controller.h"
#include "ui/timeline.h"
#include "ui/viewport.h"

namespace tether::ui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  Document& document() { return m_doc; }
  SimulationController& simulation() { return *m_sim; }
  ViewportWidget* viewport() { return m_viewport; }
  Inspector* inspector() { return m_inspector; }
  Outliner* outliner() { return m_outliner; }
  // The scene as an item model and what is selected in it: the one selection the outliner, the
  // viewport and the inspector share.
  SceneModel* sceneModel() { return m_sceneModel; }
  QItemSelectionModel* selectionModel() { return m_selectionModel; }
  TimelineDock* timeline() { return m_timeline; }
  PlotDock* plots() { return m_plots; }
  // "Set initial state from this frame": the shown frame becomes the scene's initial state.
  void setInitialStateFromFrame();
  const Selection& selection() const { return m_selection; }
  // The document revision the constraint marks (conflicting, redundant) were last analysed for.
  long constraintIssuesRevision() const { return m_issuesRevision; }

  // File operations; a bad file shows a dialog naming the problem and leaves the document as
  // it was. Return whether they succeeded.
  bool openFile(const QString& path);
  // A bundled example as a new untitled document ("NAME.json (example)"): Save asks where, the
  // bundled file is never written, and Open Recent keeps the user's own files.
  bool openExample(const QString& path);
  bool saveFile(const QString& path);
  void newDocument();
  // At start: offer the work of windows that did not exit cleanly (their recovery files), one
  // box at a time: Recover / Discard / Later. Does not block the event loop.
  void offerRecovery();
  Autosaver& autosaver() { return *m_autosave; }

  // Choose the tool with that id ("select", "rod", ..., a constraint type's id; ui/tools.h), as
  // its action does; false if there is none.
  bool setTool(const QString& id);
  bool setTool(const core::ConstraintType& type);
  void select(const Selection& s);
  void play();
  void pause();
  bool isPlaying() const;
  void setSpeed(double factor);
  // The directory the bundled examples are read from.
  static QString examplesDir();

 protected:
  void closeEvent(QCloseEvent* e) override;

 private:
  void buildActions();
  void buildDocks();
  void updateTitle();
  void updateStatus();
  // the status bar says `news` (after prefix) once when it changes from `last`, and takes the old one off
  void sayNews(const QString& news, const QString& prefix, QString& last);
  bool maybeSave();
  bool save();
  bool saveAs();
  void open();
  bool openScene(const QString& path, bool example);  // openFile, openExample
  void deleteSelection();
  void duplicateSelection();  // Edit > Duplicate (Ctrl+D)
  // a ground plane at z = 0, normal +z, with contacts turned on (one undo step), selected
  void addGroundPlane();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void showError(const QString& title, const QString& text);
  void showStabilityWarnings();  // after opening a file: non-modal
  void clearDurationMessage();  // the "Paused at the scene's duration" message, if it is shown
  void showNextRecovery();
  void recover(RecoveryFile& r);
  // Marks the constraints tether-cli check flags in the viewport and outliner (asynchronous).
  void analyseConstraints();

  Document m_doc;
  std::unique_ptr<SimulationController> m_sim;
  ViewportWidget* m_viewport = nullptr;
  Outliner* m_outliner = nullptr;
  SceneModel* m_sceneModel = nullptr;
  QItemSelectionModel* m_selectionModel = nullptr;
  bool m_selecting = false;  // select() is setting the selection model
  Inspector* m_inspector = nullptr;
  TimelineDock* m_timeline = nullptr;
  PlotDock* m_plots = nullptr;
  QDockWidget* m_plotsDock = nullptr;
  Selection m_selection;
  std::pair<std::string, std::string> m_lastDuplicate;  // the last Duplicate's original and copy
  void follow(const Selection& s);  // the viewport and inspector show s
  QTimer m_frameTimer;
  bool m_restartNext = true;
  QString m_lastMessage;
  QString m_lastContactProblem;
  QString m_lastSubstepShortfall;
  // where the "Paused at the scene's duration" message was said: the time shown and the
  // document's revision (it goes when either changes: Reset, Step, a seek, an edit)
  double m_durationMessageT = 0.0;
  long m_durationMessageRevision = -1;
  long m_issuesRevision = -1;
  bool m_analysing = false, m_analysisWanted = false;  // analyseConstraints: one at a time

  QAction* m_playAction = nullptr;
  QActionGroup* m_tools = nullptr;
  QMenu* m_recentMenu = nullptr;
  QLabel* m_timeLabel = nullptr;
  QLabel* m_rateLabel = nullptr;
  QLabel* m_devLabel = nullptr;
  QLabel* m_promptLabel = nullptr;
  QLabel* m_hoverLabel = nullptr;
  QLabel* m_stateLabel = nullptr;
  Autosaver* m_autosave = nullptr;
  std::vector<RecoveryFile> m_recovery;  // still to offer, each locked by this process
};

}  // namespace tether::ui
