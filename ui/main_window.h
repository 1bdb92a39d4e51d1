// The main window: viewport in the centre, tool bars, outliner and inspector docks, status bar
// (time, step rate, max deviation), menus with standard shortcuts, files, recent files,
// bundled examples, undo/redo, and the simulation controls.
#pragma once

#include <QActionGroup>
#include <QLabel>
#include <QMainWindow>
#include <QTimer>
#include <memory>

#include "ui/document.h"
#include "ui/inspector.h"
#include "ui/outliner.h"
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
  TimelineDock* timeline() { return m_timeline; }
  // "Set initial state from this frame": the shown frame becomes the scene's initial state.
  void setInitialStateFromFrame();
  const Selection& selection() const { return m_selection; }

  // File operations; a bad file shows a dialog naming the problem and leaves the document as
  // it was. Return whether they succeeded.
  bool openFile(const QString& path);
  bool saveFile(const QString& path);
  void newDocument();

  void setTool(const Tool& t);
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
  bool maybeSave();
  bool save();
  bool saveAs();
  void open();
  void deleteSelection();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void showError(const QString& title, const QString& text);
  void showStabilityWarnings();  // after opening a file: non-modal

  Document m_doc;
  std::unique_ptr<SimulationController> m_sim;
  ViewportWidget* m_viewport = nullptr;
  Outliner* m_outliner = nullptr;
  Inspector* m_inspector = nullptr;
  TimelineDock* m_timeline = nullptr;
  Selection m_selection;
  QTimer m_frameTimer;
  bool m_restartNext = true;
  QString m_lastMessage;

  QAction* m_playAction = nullptr;
  QActionGroup* m_tools = nullptr;
  QMenu* m_recentMenu = nullptr;
  QLabel* m_timeLabel = nullptr;
  QLabel* m_rateLabel = nullptr;
  QLabel* m_devLabel = nullptr;
  QLabel* m_stateLabel = nullptr;
};

}  // namespace tether::ui
