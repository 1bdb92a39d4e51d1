#include "ui/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QLocale>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>

#include "core/constraint_type.h"
#include "core/live_edit.h"
#include "core/scene_edit.h"
#include "core/stability.h"
#include "ui/export.h"
#include "ui/help.h"
#include "ui/progress.h"
#include <cmath>

#ifndef TETHER_EXAMPLES_DIR
#define TETHER_EXAMPLES_DIR ""
#endif

namespace tether::ui {

namespace {

constexpr int kMaxRecent = 8;

// A tool's status tip, which one line of the status bar shows in full at 1280 px: the first
// sentence of its description, else up to its first colon (the whole is its tool tip).
QString statusTipOf(const QString& description) {
  constexpr qsizetype kFits = 110;
  QString tip = description.left(description.indexOf(QLatin1String(". ")) + 1);
  if (tip.isEmpty()) tip = description;
  if (tip.size() > kFits && tip.contains(QLatin1String(": "))) tip = tip.left(tip.indexOf(QLatin1String(": "))) + QLatin1Char('.');
  return tip;
}

// the history's memory bound: a user setting, default 256 MB
std::size_t historyLimit() {
  return std::size_t(QSettings().value(QStringLiteral("history/limitMB"), 256).toLongLong()) << 20;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_sim(std::make_unique<SimulationController>(historyLimit())) {
  setObjectName(QStringLiteral("TetherMainWindow"));
  m_viewport = new ViewportWidget(m_doc, *m_sim, this);
  setCentralWidget(m_viewport);
  buildDocks();
  buildActions();

  m_timeLabel = new QLabel(this);
  m_rateLabel = new QLabel(this);
  m_devLabel = new QLabel(this);
  m_stateLabel = new QLabel(this);
  // what is under the cursor in a label of its own, left of the numbers: always readable in full
  // (in the prompt's label, a long prompt cut it off at 1280 px)
  m_hoverLabel = new QLabel(this);
  m_hoverLabel->setObjectName(QStringLiteral("hoverName"));
  m_hoverLabel->setContentsMargins(12, 0, 0, 0);  // apart from a prompt cut off at its left
  for (QLabel* l : {m_hoverLabel, m_stateLabel, m_timeLabel, m_rateLabel, m_devLabel}) statusBar()->addPermanentWidget(l);
  connect(m_viewport, &ViewportWidget::hoverChanged, m_hoverLabel, &QLabel::setText);
  // the tool's prompt on the left: what the next click takes
  // (a message such as "Not done: ..." covers it for a few seconds)
  m_promptLabel = new QLabel(this);
  m_promptLabel->setObjectName(QStringLiteral("toolPrompt"));
  m_promptLabel->setMinimumWidth(1);  // long prompts are cut at the status bar, not widen the window
  statusBar()->addWidget(m_promptLabel, 1);
  connect(m_viewport, &ViewportWidget::promptChanged, m_promptLabel, [this](const QString& p) {
    m_promptLabel->setText(p);
    m_promptLabel->setToolTip(p);  // (what a narrow window cuts off)
  });
  // a message longer than the status bar reads in full in its tool tip
  connect(statusBar(), &QStatusBar::messageChanged, statusBar(), &QStatusBar::setToolTip);
  m_viewport->refreshPrompt();  // the select tool's prompt from the start

  // every document change goes to the solver thread as a message; a different scene restarts it
  connect(&m_doc, &Document::loaded, this, [this] {
    m_restartNext = true;
    clearDurationMessage();  // (of the scene that was open: a helper read it under the next one)
  });
  connect(&m_doc, &Document::changed, this, [this] {
    m_sim->load(m_doc.scene(), m_doc.revision(), m_restartNext);
    m_restartNext = false;
    analyseConstraints();
  });
  connect(&m_doc, &Document::modifiedChanged, this, [this] { updateTitle(); });
  connect(&m_doc, &Document::filePathChanged, this, [this] { updateTitle(); });
  connect(m_viewport, &ViewportWidget::selected, this, &MainWindow::select);
  // (a warning an edit made runs long: it stays long enough to be read, 20 s)
  connect(m_viewport, &ViewportWidget::message, this, [this](const QString& m) {
    statusBar()->showMessage(m, m.startsWith(QLatin1String("Warning: ")) ? 20000 : 6000);
  });
  connect(m_viewport, &ViewportWidget::glFailed, this, [this](const QString& why) {
    showError(tr("OpenGL"), tr("The 3D viewport cannot draw: %1").arg(why));
  });
  connect(m_selectionModel, &QItemSelectionModel::selectionChanged, this, [this] {
    if (m_selecting) return;
    const QModelIndexList rows = m_selectionModel->selectedRows();
    follow(rows.isEmpty() ? Selection{} : m_sceneModel->selectionAt(rows.first()));
  });
  // After an edit the selection model holds the selected object's row again: rows added or
  // removed reset the model (which clears its selection quietly), and a rename in place keeps
  // the row, whose object then has the new name.
  const auto resync = [this] {
    const QModelIndex i = m_sceneModel->indexOf(m_selection);
    if (!i.isValid()) {
      const QModelIndexList rows = m_selectionModel->selectedRows();
      if (!rows.isEmpty()) follow(m_sceneModel->selectionAt(rows.first()));
      return;
    }
    if (m_selectionModel->currentIndex() == i && m_selectionModel->isSelected(i)) return;
    m_selecting = true;
    m_selectionModel->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_selecting = false;
  };
  connect(m_sceneModel, &QAbstractItemModel::modelReset, this, resync);
  connect(m_sceneModel, &QAbstractItemModel::dataChanged, this, resync);
  connect(m_outliner, &Outliner::message, this, [this](const QString& m) { statusBar()->showMessage(m, 6000); });
  connect(m_outliner, &Outliner::deleteRequested, this, &MainWindow::deleteSelection);
  connect(m_inspector, &Inspector::renamed, this, &MainWindow::select);
  connect(m_inspector, &Inspector::message, this, [this](const QString& m) { statusBar()->showMessage(m, 10000); });

  // the UI polls the newest snapshot at display rate; it never waits for the solver
  m_frameTimer.setInterval(16);
  connect(&m_frameTimer, &QTimer::timeout, this, [this] {
    m_viewport->pollSnapshot();
    updateStatus();
    m_timeline->refresh();
  });
  m_frameTimer.start();
  new ResimulationProgress(*m_sim, this);  // progress and Stop for a long re-simulation

  m_autosave = new Autosaver(m_doc, this);
  connect(m_autosave, &Autosaver::failed, this, [this](const QString& why) {
    statusBar()->showMessage(tr("Autosave failed: %1").arg(why), 10000);
  });

  m_sim->load(m_doc.scene(), m_doc.revision(), true);
  m_restartNext = false;
  analyseConstraints();
  resize(1280, 800);
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  updateTitle();
  updateStatus();
}

MainWindow::~MainWindow() {
  m_frameTimer.stop();
  // The document (a member) goes before the child objects: the view and the model that read
  // it go first (hiding the outliner still asks its model for sizes), and the selection they
  // clear on the way must not reach the inspector.
  disconnect(m_selectionModel, nullptr, this, nullptr);
  disconnect(m_sceneModel, nullptr, this, nullptr);
  delete m_outliner;
  delete m_selectionModel;
  delete m_sceneModel;
}

QString MainWindow::examplesDir() {
  const QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/tether/examples");
  if (QDir(installed).exists()) return QDir(installed).canonicalPath();
  return QStringLiteral(TETHER_EXAMPLES_DIR);
}

void MainWindow::buildDocks() {
  m_sceneModel = new SceneModel(m_doc, this);
  m_selectionModel = new QItemSelectionModel(m_sceneModel, this);
  m_outliner = new Outliner(m_sceneModel, m_selectionModel);
  auto* od = new QDockWidget(tr("Scene"), this);
  od->setObjectName(QStringLiteral("outlinerDock"));
  od->setWidget(m_outliner);
  addDockWidget(Qt::LeftDockWidgetArea, od);
  m_inspector = new Inspector(m_doc);
  auto* id = new QDockWidget(tr("Properties"), this);
  id->setObjectName(QStringLiteral("inspectorDock"));
  id->setWidget(m_inspector);
  addDockWidget(Qt::RightDockWidgetArea, id);
  id->setMinimumWidth(330);
  m_timeline = new TimelineDock(m_doc, *m_sim);
  connect(m_timeline->view(), &TimelineView::eventPicked, this,
          [this](int i) { select({Selection::Kind::Event, std::to_string(i)}); });
  auto* td = new QDockWidget(tr("Timeline"), this);
  td->setObjectName(QStringLiteral("timelineDock"));
  td->setWidget(m_timeline);
  addDockWidget(Qt::BottomDockWidgetArea, td);
  connect(m_timeline, &TimelineDock::playRequested, this, [this](bool on) { on ? play() : pause(); });
  connect(m_timeline->view(), &TimelineView::message, this, [this](const QString& m) { statusBar()->showMessage(m, 6000); });
  // the plot dock: beside the timeline, hidden until View → Plots
  m_plots = new PlotDock(*m_sim);
  m_plotsDock = new QDockWidget(tr("Plots"), this);
  m_plotsDock->setObjectName(QStringLiteral("plotDock"));
  m_plotsDock->setWidget(m_plots);
  addDockWidget(Qt::BottomDockWidgetArea, m_plotsDock);
  splitDockWidget(td, m_plotsDock, Qt::Horizontal);
  m_plotsDock->hide();
  // the first time it opens, give the plot the larger share of the bottom (a plot needs width;
  // the timeline's lanes do not); later the user's layout stands
  connect(m_plotsDock, &QDockWidget::visibilityChanged, this, [this, td, first = true](bool visible) mutable {
    if (!visible || !first || m_plotsDock->isFloating()) return;
    first = false;
    resizeDocks({td, m_plotsDock}, {width() * 2 / 5, width() * 3 / 5}, Qt::Horizontal);
  });
  connect(m_plots, &PlotDock::message, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  // recorded events land on the playhead's frame (or on the scene's duration, where Play paused
  // off the frames' grid)
  m_inspector->setPlayheadSource([this] {
    const auto snap = m_sim->snapshot();
    const double f = snap->history.framePeriod, end = m_doc.scene().settings.duration;
    if (std::abs(snap->t - end) <= 1e-9 * std::max(1.0, end)) return end;
    return std::max(0.0, std::round(snap->t / f) * f);
  });
}

void MainWindow::buildActions() {
  // File
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New"), QKeySequence::New, this, [this] {
    if (maybeSave()) newDocument();
  });
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::open);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  QMenu* examples = file->addMenu(tr("&Examples"));
  const QDir dir(examplesDir());
  for (const QFileInfo& fi : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
    const QString path = fi.absoluteFilePath();
    examples->addAction(fi.baseName().replace(QLatin1Char('_'), QLatin1Char(' ')), this, [this, path] {
      if (maybeSave()) openExample(path);
    });
  }
  file->addSeparator();
  file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
  // (QKeySequence::SaveAs is empty on desktops whose theme defines none, Xvfb's among them)
  QAction* saveAsAction = file->addAction(tr("Save &As…"), this, &MainWindow::saveAs);
  QList<QKeySequence> saveAsKeys{QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)};
  for (const QKeySequence& k : QKeySequence::keyBindings(QKeySequence::SaveAs))
    if (!saveAsKeys.contains(k)) saveAsKeys.push_back(k);  // (one action, each key once: no ambiguity)
  saveAsAction->setShortcuts(saveAsKeys);
  file->addSeparator();
  // export (ui/export.h): the viewport's picture at a chosen size, the recording as a video
  auto status = [this](const QString& m) { statusBar()->showMessage(m, 15000); };
  file->addAction(tr("Export &image…"), this, [this, status] { exportImage(this, *m_viewport, m_doc.filePath(), status); })
      ->setObjectName(QStringLiteral("exportImage"));
  file->addAction(tr("Export &video…"), this, [this, status] {
        exportVideo(this, *m_viewport, *m_sim, m_doc.filePath(), [this] { pause(); }, status);
      })->setObjectName(QStringLiteral("exportVideo"));
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  // Edit
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = m_doc.undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = m_doc.undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  QAction* del = edit->addAction(tr("&Delete"), this, &MainWindow::deleteSelection);
  del->setShortcut(QKeySequence::Delete);
  QAction* dup = edit->addAction(tr("Duplic&ate"), this, &MainWindow::duplicateSelection);
  dup->setObjectName(QStringLiteral("duplicate"));
  dup->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  dup->setStatusTip(tr("A copy of the selected body or nail beside it; moved, the next copy repeats the move"));
  edit->addAction(tr("Scene &settings"), this, [this] { select({Selection::Kind::Settings, {}}); });

  // View
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Frame all"), QKeySequence(Qt::Key_F), m_viewport, &ViewportWidget::frameAll);
  QMenu* views = view->addMenu(tr("Standard &views"));
  const std::pair<QString, render::StandardView> standard[] = {
      {tr("Front"), render::StandardView::Front}, {tr("Back"), render::StandardView::Back},
      {tr("Left"), render::StandardView::Left},   {tr("Right"), render::StandardView::Right},
      {tr("Top"), render::StandardView::Top},     {tr("Bottom"), render::StandardView::Bottom},
      {tr("Isometric"), render::StandardView::Iso}};
  int key = Qt::Key_1;
  for (const auto& [name, v] : standard) {
    const render::StandardView sv = v;
    views->addAction(name, QKeySequence(key++), this, [this, sv] { m_viewport->setStandardView(sv); });
  }
  view->addSeparator();
  auto toggle = [&](const QString& text, bool* flag, const QKeySequence& ks = {}) {
    QAction* a = view->addAction(text);
    a->setCheckable(true);
    a->setChecked(*flag);
    if (!ks.isEmpty()) a->setShortcut(ks);
    connect(a, &QAction::toggled, this, [this, flag](bool on) {
      *flag = on;
      m_viewport->update();
    });
    return a;
  };
  render::ViewOptions& vo = m_viewport->viewOptions();
  QAction* debug = toggle(tr("&Debug overlay: forces, control points, lines"), &vo.debugDraw, QKeySequence(Qt::Key_D));
  debug->setObjectName(QStringLiteral("debugDraw"));
  toggle(tr("Constraint f&orces"), &vo.constraintForces);
  toggle(tr("&External forces"), &vo.externalForces);
  toggle(tr("&Torques"), &vo.torques);
  toggle(tr("Deviation &lines and constraint geometry"), &vo.deviationLines);
  toggle(tr("Veloc&ities"), &vo.velocities);
  toggle(tr("Co&ntacts (points and forces)"), &vo.contacts)->setObjectName(QStringLiteral("contactsOverlay"));
  toggle(tr("&Control points"), &vo.controlPoints);
  toggle(tr("&Grid"), &vo.grid);
  // the tools place on the grid's crossings (the readout in the viewport's corner says "snap")
  QAction* snap = view->addAction(tr("&Snap to grid"));
  snap->setObjectName(QStringLiteral("snapToGrid"));
  snap->setCheckable(true);
  snap->setShortcut(QKeySequence(Qt::Key_G));
  connect(snap, &QAction::toggled, m_viewport, &ViewportWidget::setSnapToGrid);
  view->addAction(tr("Longer arrows"), QKeySequence(Qt::Key_BracketRight), m_viewport, &ViewportWidget::longerArrows);
  view->addAction(tr("Shorter arrows"), QKeySequence(Qt::Key_BracketLeft), m_viewport, &ViewportWidget::shorterArrows);
  // the legend's scale held as it is (saved with the window's settings)
  QAction* fixScale = view->addAction(tr("Fi&x arrow scale"));
  fixScale->setObjectName(QStringLiteral("fixArrowScale"));
  fixScale->setCheckable(true);
  fixScale->setChecked(m_viewport->fixedArrowScale());
  connect(fixScale, &QAction::toggled, m_viewport, &ViewportWidget::setFixedArrowScale);
  view->addSeparator();
  QAction* plots = m_plotsDock->toggleViewAction();
  plots->setText(tr("&Plots"));
  plots->setObjectName(QStringLiteral("viewPlots"));
  plots->setToolTip(tr("Plot energies, body motion and constraint |D| and |F| against time"));
  view->addAction(plots);

  // Simulation
  QMenu* simMenu = menuBar()->addMenu(tr("&Simulation"));
  m_playAction = simMenu->addAction(tr("&Play"));
  m_playAction->setCheckable(true);
  m_playAction->setShortcut(QKeySequence(Qt::Key_Space));
  connect(m_playAction, &QAction::triggered, this, [this](bool on) { on ? play() : pause(); });
  QAction* step = simMenu->addAction(tr("&Step"), QKeySequence(Qt::Key_Period), this, [this] { m_sim->step(); });
  simMenu->addAction(tr("Step &back"), QKeySequence(Qt::Key_Comma), this, [this] { m_sim->stepBack(); });
  simMenu->addAction(tr("Jump to s&tart"), QKeySequence(Qt::Key_Home), this, [this] { m_sim->jumpToStart(); });
  simMenu->addAction(tr("Jump to &end"), QKeySequence(Qt::Key_End), this, [this] { m_sim->jumpToEnd(); });
  QAction* reset = simMenu->addAction(tr("&Reset"), QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] {
    m_sim->reset();
    m_playAction->setChecked(false);
  });
  QMenu* speed = simMenu->addMenu(tr("Spee&d"));
  auto* speeds = new QActionGroup(this);
  for (double f : {0.1, 0.25, 0.5, 1.0, 2.0, 4.0}) {
    QAction* a = speed->addAction(QStringLiteral("%1×").arg(f));
    a->setCheckable(true);
    a->setChecked(f == 1.0);
    speeds->addAction(a);
    connect(a, &QAction::triggered, this, [this, f] { setSpeed(f); });
  }
  simMenu->addSeparator();
  simMenu->addAction(tr("Set &initial state from this frame"), this, &MainWindow::setInitialStateFromFrame);
  simMenu->addAction(tr("&History memory…"), this, [this] {
    bool ok = false;
    const int mb = QInputDialog::getInt(this, tr("History memory"), tr("Recorded frames may use up to (MB):"),
                                        int(historyLimit() >> 20), 1, 1 << 20, 64, &ok);
    if (!ok) return;
    QSettings().setValue(QStringLiteral("history/limitMB"), mb);
    m_sim->setHistoryLimit(std::size_t(mb) << 20);
  });
  QAction* realTime = simMenu->addAction(tr("Real-time s&ync"));
  realTime->setCheckable(true);
  realTime->setChecked(true);
  connect(realTime, &QAction::toggled, this, [this](bool on) { m_sim->setRealTime(on); });

  // Tools
  QMenu* toolsMenu = menuBar()->addMenu(tr("&Tools"));
  m_tools = new QActionGroup(this);
  QToolBar* simBar = addToolBar(tr("Simulation"));
  simBar->setObjectName(QStringLiteral("simulationBar"));
  simBar->addAction(m_playAction);
  simBar->addAction(step);
  simBar->addAction(reset);
  // Undo and Redo on the tool bar say only that (the command's name is in the tool tip): the
  // menu's actions carry it ("Undo Add disable point_to_nail1 at 1 s"), which on the bar would
  // widen the buttons and move every tool to their right with each edit, under the cursor
  for (QAction* a : {undo, redo}) {
    QAction* button = simBar->addAction(a == undo ? tr("Undo") : tr("Redo"), a, &QAction::trigger);
    button->setObjectName(a == undo ? QStringLiteral("toolBarUndo") : QStringLiteral("toolBarRedo"));
    auto sync = [a, button] {
      button->setEnabled(a->isEnabled());
      button->setToolTip(a->text().remove(QLatin1Char('&')));
    };
    connect(a, &QAction::changed, button, sync);
    sync();
  }
  QToolBar* bodyBar = addToolBar(tr("Build"));
  bodyBar->setObjectName(QStringLiteral("buildBar"));
  // every tool of the table (ui/tools.h), in its order: an action in the Tools menu and on its
  // section's tool bar, with its icon, name, shortcut and a tool tip saying what it does
  addToolBarBreak(Qt::TopToolBarArea);
  QToolBar* conBar = new QToolBar(tr("Constraints"), this);
  conBar->setObjectName(QStringLiteral("constraintBar"));
  bool constraintsStarted = false;
  for (const auto& tool : m_viewport->tools().all()) {
    const ToolIdentity& t = tool->identity();
    const bool constraint = t.section == ToolSection::Constraints;
    if (constraint && !constraintsStarted) toolsMenu->addSeparator();
    constraintsStarted = constraintsStarted || constraint;
    QAction* a = toolsMenu->addAction(QIcon(t.iconPath), t.name);
    a->setCheckable(true);
    a->setData(t.id);
    a->setObjectName(QStringLiteral("tool:") + t.name);
    if (!t.shortcut.isEmpty()) a->setShortcut(t.shortcut);
    a->setToolTip(QStringLiteral("<b>%1</b>%2<br>%3")
                      .arg(t.name.toHtmlEscaped(),
                           t.shortcut.isEmpty() ? QString()
                                                : QStringLiteral(" (%1)").arg(t.shortcut.toString(QKeySequence::NativeText)),
                           t.description.toHtmlEscaped()));
    a->setStatusTip(statusTipOf(t.description));
    a->setChecked(tool.get() == &m_viewport->tools().tool());
    m_tools->addAction(a);
    (constraint ? conBar : bodyBar)->addAction(a);
    const QString id = t.id;
    connect(a, &QAction::triggered, this, [this, id] { setTool(id); });
  }
  addToolBar(conBar);
  // a ground plane is no tool (nothing to click in the view): added at once, where the tools are
  QAction* plane = new QAction(tr("Ground plane"), this);
  plane->setObjectName(QStringLiteral("addGroundPlane"));
  plane->setToolTip(tr("<b>Ground plane</b><br>Add a floor at z = 0 (normal +z) and turn contacts on: bodies rest on "
                       "it and bounce off it"));
  plane->setStatusTip(tr("Add a floor at z = 0 and turn contacts on"));
  connect(plane, &QAction::triggered, this, &MainWindow::addGroundPlane);
  toolsMenu->addSeparator();
  toolsMenu->addAction(plane);
  bodyBar->addAction(plane);

  // Help
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Quick start"), QKeySequence::HelpContents, this, [this] { showQuickStart(this); });
  help->addAction(tr("&Keyboard shortcuts"), this, [this] { showKeyboardShortcuts(this); });
  help->addSeparator();
  help->addAction(tr("&About Tether"), this, [this] {
    QMessageBox::about(this, tr("About Tether"),
                       tr("<b>Tether %1</b><p>Physically based modeling with dynamic constraints "
                          "(Barzel &amp; Barr 1988).</p><p>OpenGL: %2</p>")
                           .arg(QCoreApplication::applicationVersion(), m_viewport->glError().isEmpty()
                                                                            ? m_viewport->glInfo()
                                                                            : m_viewport->glError()));
  });
}

void MainWindow::setInitialStateFromFrame() {
  const auto snap = m_sim->snapshot();
  if (snap->revision != m_doc.revision() || !snap->geometry) {
    statusBar()->showMessage(tr("Not done: the frame shown is not of the current scene yet"), 6000);
    return;
  }
  m_doc.setScene(core::withInitialState(m_doc.scene(), *snap), tr("Set initial state from t = %1 s").arg(snap->t));
  // a new initial state: the run starts over from it
  m_sim->reset();
  m_playAction->setChecked(false);
}

bool MainWindow::setTool(const QString& id) {
  if (!m_viewport->tools().setTool(id)) return false;
  for (QAction* a : m_tools->actions())
    if (a->data().toString() == id) a->setChecked(true);
  m_viewport->refreshPrompt();
  m_viewport->update();
  return true;
}

bool MainWindow::setTool(const core::ConstraintType& type) { return setTool(QString::fromUtf8(type.id)); }

void MainWindow::select(const Selection& s) {
  const QModelIndex i = m_sceneModel->indexOf(s);
  m_selecting = true;
  if (i.isValid()) m_selectionModel->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  else m_selectionModel->clear();
  m_selecting = false;
  follow(s);
}

void MainWindow::follow(const Selection& s) {
  m_selection = s;
  if (const int i = eventIndex(s, m_doc.scene().events.size()); i >= 0) m_timeline->view()->showSelected(i);
  m_viewport->setSelection(s);
  m_inspector->setSelection(s);
}

void MainWindow::play() {
  m_sim->play();
  m_playAction->setChecked(true);
  clearDurationMessage();
}

void MainWindow::clearDurationMessage() {
  if (statusBar()->currentMessage().startsWith(QLatin1String("Paused at the scene's duration"))) statusBar()->clearMessage();
}

void MainWindow::pause() {
  m_sim->pause();
  m_playAction->setChecked(false);
}

bool MainWindow::isPlaying() const { return m_playAction->isChecked(); }

void MainWindow::setSpeed(double factor) { m_sim->setSpeed(factor); }

void MainWindow::updateTitle() {
  setWindowTitle(m_doc.displayName() + QStringLiteral("[*] — Tether"));
  setWindowModified(m_doc.isModified());
}

void MainWindow::updateStatus() {
  const auto snap = m_viewport->shownSnapshot();
  if (!snap) return;
  m_timeLabel->setText(tr("t = %1 s").arg(snap->t, 0, 'f', 3));
  // how fast the model runs against the clock (steps per second of computing said nothing a
  // user could act on: 1.7 million while playing in real time); amber when it cannot keep up
  // with the speed asked for
  const std::shared_ptr<const ControllerSnapshot> c = m_sim->snapshot();
  const bool behind = c->speed > 0.0 && c->realTimeFactor > 0.0 && c->realTimeFactor < 0.9 * c->speed;
  m_rateLabel->setText(c->realTimeFactor > 0.0 ? tr("%1× real time").arg(c->realTimeFactor, 0, 'g', 2) : QString());
  m_rateLabel->setStyleSheet(behind ? QStringLiteral("color: #b06000; font-weight: bold;") : QString());
  m_rateLabel->setToolTip(behind ? tr("The model runs slower than the speed asked for (%1×): the solver needs more "
                                      "time per step than the clock gives it").arg(c->speed)
                                 : tr("Simulated seconds per second of wall time"));
  m_devLabel->setText(tr("max |D| = %1").arg(snap->maxDeviation, 0, 'g', 3));
  m_stateLabel->setText(snap->playing ? tr("running") : tr("paused"));
  if (!snap->playing && m_playAction->isChecked() && snap->revision == m_doc.revision() && !snap->message.empty())
    m_playAction->setChecked(false);  // the solver paused itself (divergence)
  if (!c->playing && m_playAction->isChecked() && c->stoppedAtEnd) {
    m_playAction->setChecked(false);
    statusBar()->showMessage(tr("Paused at the scene's duration, %1 s (Settings > Duration), at t = %2 s: Play goes on past it")
                                 .arg(m_doc.scene().settings.duration, 0, 'g', 6)
                                 .arg(c->t, 0, 'f', 3));
    m_durationMessageT = c->t;
    m_durationMessageRevision = m_doc.revision();
  } else if (c->t != m_durationMessageT || m_doc.revision() != m_durationMessageRevision) {
    clearDurationMessage();  // (a helper read it after Reset, edits and Steps, the time beside it 0.017 s)
  }
  // The simulation's own news, each said once as it comes, and taken off the status bar when it
  // goes (Reset, an edit, the object deleted): a divergence's message, contacts that could not be
  // met with the joints (Simulation::contactProblem), a motion faster than max_substeps lets the
  // step follow (Simulation::substepShortfall; said at its first step, with the fix).
  sayNews(QString::fromStdString(snap->message), QString(), m_lastMessage);
  sayNews(QString::fromStdString(snap->contactProblem), tr("Contacts: "), m_lastContactProblem);
  sayNews(QString::fromStdString(snap->substepShortfall), tr("Too few substeps: "), m_lastSubstepShortfall);
}

void MainWindow::sayNews(const QString& news, const QString& prefix, QString& last) {
  if (news == last) return;
  if (!last.isEmpty() && statusBar()->currentMessage() == prefix + last) statusBar()->clearMessage();
  last = news;
  if (!news.isEmpty()) statusBar()->showMessage(prefix + news);
}

void MainWindow::showError(const QString& title, const QString& text) {
  // window-modal and non-blocking: the event loop (and the solver's snapshots) keep going
  auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setObjectName(QStringLiteral("errorBox"));
  box->open();
}

bool MainWindow::openFile(const QString& path) { return openScene(path, false); }

bool MainWindow::openExample(const QString& path) { return openScene(path, true); }

bool MainWindow::openScene(const QString& path, bool example) {
  QString error;
  // read on a worker thread, with progress and Cancel when it takes over a second (ui/progress.h)
  std::optional<core::Scene> scene = readSceneWithProgress(this, path, error);
  if (!scene && error.isEmpty()) {
    statusBar()->showMessage(tr("Opening %1 cancelled: the open document is unchanged").arg(QFileInfo(path).fileName()), 10000);
    return false;
  }
  if (!scene) {
    showError(tr("Cannot open scene"), tr("%1 was not opened:\n\n%2").arg(QFileInfo(path).fileName(), error));
    return false;
  }
  if (example) {
    m_doc.adopt(std::move(*scene), QString());
    m_doc.setUntitledName(tr("%1 (example)").arg(QFileInfo(path).fileName()));
  } else {
    m_doc.adopt(std::move(*scene), path);
    addRecent(QFileInfo(path).absoluteFilePath());
  }
  m_viewport->frameWhenShown(m_doc.revision());
  select({});
  m_playAction->setChecked(false);
  showStabilityWarnings();
  return true;
}

void MainWindow::offerRecovery() {
  QStringList broken;
  m_recovery = Autosaver::recoverable(&broken);
  if (!broken.isEmpty()) {
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Unreadable recovery file"),
                                tr("%n recovery file(s) could not be read. They were kept aside, not deleted:", nullptr,
                                   int(broken.size())),
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("brokenRecoveryBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(broken.join(QStringLiteral("\n\n")));
    box->setModal(false);
    box->setWindowModality(Qt::NonModal);
    box->show();
  }
  showNextRecovery();
}

void MainWindow::showNextRecovery() {
  if (m_recovery.empty()) return;
  RecoveryFile& r = m_recovery.front();
  const QString name = r.originalPath.isEmpty() ? tr("Untitled") : QFileInfo(r.originalPath).fileName();
  auto* box = new QMessageBox(QMessageBox::Question, tr("Recover unsaved work"),
                              tr("Tether found unsaved work from %1 (%2).")
                                  .arg(QLocale().toString(r.saved, QLocale::ShortFormat), name),
                              QMessageBox::NoButton, this);
  box->setObjectName(QStringLiteral("recoveryBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setInformativeText(
      (r.originalPath.isEmpty() ? tr("Recover opens it as a new, unsaved document.")
                                : tr("Recover opens it as a modified document; Save writes %1.").arg(r.originalPath)) +
      tr("\nDiscard deletes it. Later keeps it and asks again at the next start."));
  QPushButton* recoverButton = box->addButton(tr("Recover"), QMessageBox::AcceptRole);
  QPushButton* discardButton = box->addButton(tr("Discard"), QMessageBox::DestructiveRole);
  box->addButton(tr("Later"), QMessageBox::RejectRole);
  recoverButton->setObjectName(QStringLiteral("recover"));
  discardButton->setObjectName(QStringLiteral("discard"));
  box->setDefaultButton(recoverButton);
  connect(box, &QMessageBox::finished, this, [this, box, recoverButton, discardButton] {
    if (m_recovery.empty()) return;
    RecoveryFile r = std::move(m_recovery.front());
    m_recovery.erase(m_recovery.begin());
    if (box->clickedButton() == recoverButton) {
      recover(r);
      // one document at a time: the others stay for the next start
      for (RecoveryFile& other : m_recovery) Autosaver::release(other);
      if (!m_recovery.empty())
        statusBar()->showMessage(tr("%n more recovery file(s) will be offered at the next start", nullptr,
                                    int(m_recovery.size())), 10000);
      m_recovery.clear();
      return;
    }
    if (box->clickedButton() == discardButton) Autosaver::remove(r);
    else Autosaver::release(r);  // Later (or the box closed)
    showNextRecovery();
  });
  box->open();
}

void MainWindow::recover(RecoveryFile& r) {
  if (!maybeSave()) {
    Autosaver::release(r);
    return;
  }
  core::Scene scene;
  try {
    scene = Autosaver::readScene(r.file);
  } catch (const std::exception& e) {
    Autosaver::release(r);
    showError(tr("Cannot recover"), tr("%1 could not be read (it is kept):\n\n%2").arg(r.file, QString::fromUtf8(e.what())));
    return;
  }
  m_doc.recover(scene, r.originalPath);
  select({});
  m_playAction->setChecked(false);
  // the work is in this window's own recovery file before the old one goes
  if (m_autosave->saveNow()) Autosaver::remove(r);
  else Autosaver::release(r);
  statusBar()->showMessage(tr("Recovered %1 from %2: save it to keep it")
                               .arg(m_doc.displayName(), QLocale().toString(r.saved, QLocale::ShortFormat)), 10000);
  showStabilityWarnings();
}

void MainWindow::showStabilityWarnings() {
  // values past their stable bounds (core/stability.h): the file loads as it is, and says so
  // in a box that does not block the window, and in the status bar
  // the last file's box and status message go with it (a helper, having opened another scene,
  // read the first one's warning count under the second)
  if (auto* old = findChild<QMessageBox*>(QStringLiteral("stabilityBox"))) {
    old->setObjectName(QString());
    old->close();
  }
  statusBar()->clearMessage();
  const std::vector<core::StabilityWarning> warnings = core::stabilityWarnings(m_doc.scene());
  if (warnings.empty()) return;
  int diverging = 0, shape = 0;
  QString list;
  for (const core::StabilityWarning& w : warnings) {
    const bool d = w.severity == core::StabilitySeverity::Diverges;
    diverging += d ? 1 : 0;
    shape += w.geometric ? 1 : 0;
    list += (d ? tr("• Diverges: %1\n") : tr("• Warning: %1\n")).arg(QString::fromStdString(w.message));
  }
  const QString name = m_doc.displayName();
  // (a chain drawn straight, which blows up at once, was introduced as a scene that "runs, but
  // not as its values say", with examples that did not apply: a helper's finding)
  const QString head =
      diverging ? tr("%1 has values its integrator cannot step stably: playing it will blow up. Fix them in the "
                     "Properties dock (the scene is loaded as it is).").arg(name)
      // (not "no setting makes work": a helper's chain with 0.5 % of slack played 10 minutes well)
      : shape   ? tr("%1 has a shape that can blow up or lose its energy at any time step (a chain out of its "
                     "reach, drawn straight, or with almost no slack; a drive its links cannot follow). Each "
                     "warning says what to change (the scene is loaded as it is).").arg(name)
                : tr("%1 runs, but not as its values say (too coarse for its time step, a body held in a "
                     "plane...): each warning names the value and the fix.").arg(name);
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Stability warnings"), head, QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("stabilityBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setInformativeText(list.trimmed());
  box->setModal(false);
  box->setWindowModality(Qt::NonModal);
  box->show();
  // active, so that Return or Escape closes it as the user reads it (a helper's Return went to
  // the main window, where no window manager gave the box the keyboard); a click on the main
  // window takes it back, since nothing blocks there
  box->raise();
  box->activateWindow();
  statusBar()->showMessage(tr("%1: %n stability warning(s)", nullptr, int(warnings.size())).arg(name) +
                           (diverging ? tr(", %n certainly diverging", nullptr, diverging) : QString()));
}

bool MainWindow::saveFile(const QString& path) {
  QString error;
  if (!m_doc.save(path, error)) {
    showError(tr("Cannot save scene"), error);
    return false;
  }
  addRecent(QFileInfo(path).absoluteFilePath());
  statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
  return true;
}

void MainWindow::newDocument() {
  m_doc.clear();
  select({});
  m_playAction->setChecked(false);
}

void MainWindow::open() {
  if (!maybeSave()) return;
  const QString path = QFileDialog::getOpenFileName(this, tr("Open scene"), QFileInfo(m_doc.filePath()).path(),
                                                    tr("Tether scenes (*.json);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

bool MainWindow::save() {
  if (m_doc.filePath().isEmpty()) return saveAs();
  return saveFile(m_doc.filePath());
}

bool MainWindow::saveAs() {
  QString path = QFileDialog::getSaveFileName(this, tr("Save scene"), m_doc.filePath().isEmpty() ? QDir::homePath() + "/untitled.json" : m_doc.filePath(),
                                              tr("Tether scenes (*.json)"));
  if (path.isEmpty()) return false;
  if (!path.endsWith(QStringLiteral(".json"))) path += QStringLiteral(".json");
  return saveFile(path);
}

bool MainWindow::maybeSave() {
  if (!m_doc.isModified()) return true;
  const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                           tr("%1 has unsaved changes. Save them?").arg(m_doc.displayName()),
                                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::deleteSelection() {
  // the Delete shortcut reaches the window first: in the timeline it means its markers
  if (m_timeline->view()->hasFocus()) {
    m_timeline->view()->deleteSelection();
    return;
  }
  const Selection s = m_selection;
  if (s.kind == Selection::Kind::None || s.kind == Selection::Kind::Settings) return;
  QString error;
  if (s.kind == Selection::Kind::Event) {
    const int i = eventIndex(s, m_doc.scene().events.size());
    if (i >= 0 && m_doc.push(std::make_unique<RemoveEvents>(m_doc, tr("Delete event"), std::set<int>{i},
                                                            std::set<std::pair<std::string, int>>{}),
                             &error))
      select({});
    else if (i >= 0)
      statusBar()->showMessage(tr("Not deleted: %1").arg(error), 6000);
    return;
  }
  if (m_doc.push(RemoveObject::make(m_doc, objectKind(s.kind), s.name), &error))
    select({});
  else
    statusBar()->showMessage(tr("Not deleted: %1").arg(error), 6000);
}

// A copy of the selected body (its shape, size, mass, pose and motion; not its constraints) or
// nail, named as its kind's next ("domino3" -> "domino4"). Where it goes: the copy of a copy
// repeats the step between them as it is now, so a row is made by moving the first copy into
// place and pressing Ctrl+D again (a helper placed eight dominoes and five cradle balls by typing
// every position); else beside the original, to the screen's right by its size and a gap.
void MainWindow::duplicateSelection() {
  const Selection s = m_selection;
  const core::Scene& scene = m_doc.scene();
  auto named = [](const auto& list, const std::string& name) -> const auto* {
    const auto it = std::find_if(list.begin(), list.end(), [&](const auto& x) { return x.name == name; });
    return it == list.end() ? nullptr : &*it;
  };
  auto nextName = [this](const std::string& name) {
    std::string prefix = name;
    while (!prefix.empty() && std::isdigit(static_cast<unsigned char>(prefix.back()))) prefix.pop_back();
    return m_doc.uniqueName(prefix.empty() ? name : prefix);
  };
  // the step a copy of a copy repeats, if s is the last copy made and both are still there
  auto repeated = [&](const auto& list, core::Vec3& step) {
    const auto* copy = named(list, s.name);
    const auto* from = named(list, m_lastDuplicate.first);
    if (!copy || !from || m_lastDuplicate.second != s.name) return false;
    step = copy->position - from->position;
    return step.norm() > 1e-9;
  };
  const core::Vec3 right = m_viewport->camera().right();
  QString error;
  SceneObject object;
  QString text;
  std::string name;
  if (s.kind == Selection::Kind::Body) {
    const core::BodyDef* b = named(scene.bodies, s.name);
    if (!b) return;
    core::BodyDef d = *b;
    core::Vec3 step;
    if (!repeated(scene.bodies, step)) {
      // the body's width along the screen's right: its box in body axes, turned
      const core::Vec3 box = d.shape == core::Shape::Rod     ? core::Vec3(2 * d.radius, 2 * d.radius, d.length)
                             : d.shape == core::Shape::Box   ? d.size
                             : d.shape == core::Shape::Torus ? core::Vec3(2 * (d.majorRadius + d.minorRadius),
                                                                          2 * (d.majorRadius + d.minorRadius), 2 * d.minorRadius)
                                                             : core::Vec3::Constant(2 * d.radius);
      const double size = (d.orientation.toRotationMatrix().transpose() * right).cwiseAbs().dot(box);
      step = right * (size + std::max(0.05, 0.5 * size));
    }
    d.name = nextName(b->name);
    d.position += step;
    name = d.name;
    object = d;
    text = tr("Duplicate %1").arg(QString::fromStdString(b->name));
  } else if (s.kind == Selection::Kind::Nail) {
    const core::NailDef* n = named(scene.nails, s.name);
    if (!n) return;
    core::NailDef d = *n;
    core::Vec3 step;
    if (!repeated(scene.nails, step)) step = 0.2 * right;
    d.name = nextName(n->name);
    d.position += step;
    name = d.name;
    object = d;
    text = tr("Duplicate %1").arg(QString::fromStdString(n->name));
  } else {
    statusBar()->showMessage(tr("Duplicate copies a body or a nail: select one first"), 6000);
    return;
  }
  if (!m_doc.push(std::make_unique<AddObjects>(m_doc, text, std::vector<SceneObject>{object}), &error)) {
    statusBar()->showMessage(tr("Not duplicated: %1").arg(error), 6000);
    return;
  }
  m_lastDuplicate = {s.name, name};
  select({s.kind, name});
}

void MainWindow::addGroundPlane() {
  // a floor at z = 0 already there (contacts on): it is selected, not doubled (a helper's second
  // press added "ground1" on top of "floor", with nothing said)
  const core::Scene& s = m_doc.scene();
  if (s.settings.contacts)
    for (const core::PlaneDef& q : s.planes)
      if (q.normal.normalized().dot(core::Vec3::UnitZ()) > 1.0 - 1e-12 && std::abs(q.point.z()) < 1e-12) {
        select({Selection::Kind::Plane, q.name});
        statusBar()->showMessage(tr("The floor at z = 0 is there already: plane \"%1\" (selected)").arg(QString::fromStdString(q.name)), 6000);
        return;
      }
  core::PlaneDef p;
  p.name = m_doc.uniqueName("ground");
  p.point = core::Vec3::Zero();
  p.normal = core::Vec3::UnitZ();
  QString error;
  if (m_doc.push(std::make_unique<AddPlane>(m_doc, p), &error)) select({Selection::Kind::Plane, p.name});
  else statusBar()->showMessage(tr("Not added: %1").arg(error), 6000);
}

void MainWindow::analyseConstraints() {
  // what tether-cli check reports, off the UI thread (a compile and a solve at t = 0: tens of ms
  // on the bundled examples; seconds for a singular group of a thousand rows, or a model built
  // apart whose conflicts at t = 0 are looked at again once it has assembled). One analysis at a
  // time: a change while one runs (a drag edits the scene at every mouse move) asks for another
  // when it ends, of the document as it is then; a result for an older revision is dropped.
  if (m_analysing) {
    m_analysisWanted = true;
    return;
  }
  m_analysing = true;
  m_analysisWanted = false;
  const long revision = m_doc.revision();
  auto* watcher = new QFutureWatcher<std::vector<core::ConstraintIssue>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, revision] {
    watcher->deleteLater();
    m_analysing = false;
    if (revision == m_doc.revision()) {
      const std::vector<core::ConstraintIssue> issues = watcher->result();
      m_viewport->setConstraintIssues(issues);
      m_sceneModel->setConstraintIssues(issues);
      m_issuesRevision = revision;
    }
    if (m_analysisWanted) analyseConstraints();
  });
  watcher->setFuture(QtConcurrent::run([scene = m_doc.scene()] {
    try {
      return core::constraintIssues(scene);
    } catch (const std::exception&) {
      return std::vector<core::ConstraintIssue>{};  // an invalid scene is refused where it is edited
    }
  }));
}

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue(QStringLiteral("recentFiles"), recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& path : recent)
    m_recentMenu->addAction(path, this, [this, path] {
      if (maybeSave()) openFile(path);
    });
  m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!maybeSave()) {
    e->ignore();
    return;
  }
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  e->accept();
}

}  // namespace tether::ui
