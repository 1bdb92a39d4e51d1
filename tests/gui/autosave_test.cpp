// Issue 19: never lose work (autosave to a recovery file, offered back after a crash), the
// status bar's max |D|, and the timeline's defects a new user hit (events at the clicked time
// two menu levels deep, a ruler that only grows, a playhead that stays in view, whole lane
// names, no tooltip of a removed event).
#include <QFile>
#include <QHelpEvent>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyleOptionSlider>
#include <QToolButton>
#include <QToolTip>

#include "gui_util.h"
#include "ui/autosave.h"

using namespace tether;
using namespace tether::test;

namespace {

QString pendulum() { return ui::MainWindow::examplesDir() + QStringLiteral("/pendulum.json"); }

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList recoveryFiles() {
  return QDir(ui::Autosaver::directory()).entryList({QStringLiteral("*.tether-recovery")}, QDir::Files);
}

// xdotool, as a person's mouse and keyboard on the X display of another process
QString xdo(const QStringList& args, int timeoutMs = 20000) {
  QProcess p;
  p.start(QStringLiteral("xdotool"), args);
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    return {};
  }
  return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// the first visible window of process pid whose title matches the regular expression name
QString waitForWindow(qint64 pid, const QString& name, int timeoutMs = 30000) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < timeoutMs) {
    // (--all: both conditions; xdotool's default is either)
    const QString ids = xdo({"search", "--all", "--onlyvisible", "--pid", QString::number(pid), "--name", name});
    if (!ids.isEmpty()) return ids.split(QLatin1Char('\n')).first();
    QTest::qWait(100);
  }
  return {};
}

// the top-level menu entry with this text, or null
QAction* topAction(QMenu& menu, const QString& text) {
  for (QAction* a : menu.actions())
    if (a->text() == text) return a;
  return nullptr;
}

// a ball hanging from a hook by constraint `hold`, duration `duration`, 60 frames a second
void hangingBall(ui::MainWindow& w, double duration, const std::string& holdName = "hold") {
  QVERIFY(w.document().edit("ball on a hook", [&](core::Scene& s) {
    s.settings.dt = 1.0 / 240;
    s.settings.duration = duration;
    s.bodies.push_back(ball(Vec3(0, 0, 0.9)));
    s.nails.push_back({"hook", Vec3(0, 0, 1)});
    s.constraints.push_back(topToNail(holdName, "hook"));
  }));
  QVERIFY(waitForSnapshot(w));
}

// The hanging ball with a 1 s duration, saved in home and opened from there: a scene of its own,
// with the timeline's ruler fitted to its 1 s.
bool openShortScene(ui::MainWindow& w, const QTemporaryDir& home) {
  hangingBall(w, 1.0);
  const QString file = home.filePath(QStringLiteral("short.json"));
  core::saveScene(w.document().scene(), file.toStdString());
  return w.openFile(file) && waitForSnapshot(w);
}

}  // namespace

class AutosaveTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_data;

 private slots:
  void init() {
    // recovery files of this test only (AppDataLocation is under XDG_DATA_HOME)
    QVERIFY(m_data.isValid());
    qputenv("XDG_DATA_HOME", QDir(m_data.path()).filePath(QStringLiteral("data")).toUtf8());
    QDir(ui::Autosaver::directory()).removeRecursively();
    qputenv("TETHER_AUTOSAVE_SECONDS", "0.2");
  }

  // The brief's test: the app (the real binary) opens a file, a nail is added with the mouse
  // and keyboard, the autosave writes it, the app is killed with SIGKILL; started again it
  // offers the work, Recover opens it as modified with the user's path, Ctrl+S writes the
  // user's file, and a clean exit leaves no recovery file.
  void killedAppOffersItsWorkOnRestart() {
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("xdotool")).isEmpty(),
             "xdotool is needed to drive the app in its own process (scripts/deps.sh installs it)");
    QTemporaryDir home;
    const QString user = home.filePath(QStringLiteral("pendulum.json"));
    QVERIFY(QFile::copy(pendulum(), user));
    const QByteArray original = readAll(user);
    const int nails = int(core::loadScene(user.toStdString()).nails.size());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("TETHER_AUTOSAVE_SECONDS"), QStringLiteral("1"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
    const QString recoveryDir = home.filePath(QStringLiteral("data/Tether/Tether/recovery"));
    auto recoveries = [&] { return QDir(recoveryDir).entryList({QStringLiteral("*.tether-recovery")}, QDir::Files); };

    // 1. the app with the user's file; the Nail tool (N) and a click in the viewport
    QProcess app;
    app.setProcessEnvironment(env);
    app.setProcessChannelMode(QProcess::ForwardedChannels);
    app.start(QStringLiteral(TETHER_APP_BINARY), {user});
    QVERIFY(app.waitForStarted());
    const QString win = waitForWindow(app.processId(), QStringLiteral("pendulum\\.json"));
    QVERIFY2(!win.isEmpty(), "the app's window did not show");
    QTest::qWait(1500);  // the viewport's GL context and first frame
    const QString geometry = xdo({"getwindowgeometry", "--shell", win});
    int x = 0, y = 0, wd = 0, ht = 0;
    for (const QString& line : geometry.split(QLatin1Char('\n'))) {
      const QStringList kv = line.split(QLatin1Char('='));
      if (kv.size() != 2) continue;
      if (kv[0] == "X") x = kv[1].toInt();
      if (kv[0] == "Y") y = kv[1].toInt();
      if (kv[0] == "WIDTH") wd = kv[1].toInt();
      if (kv[0] == "HEIGHT") ht = kv[1].toInt();
    }
    QVERIFY2(wd > 600 && ht > 400, qPrintable(geometry));
    xdo({"windowfocus", "--sync", win});
    // the middle of the central viewport, a little above (the timeline dock is below it)
    xdo({"mousemove", "--sync", QString::number(x + wd / 2), QString::number(y + ht * 2 / 5)});
    xdo({"key", "n"});
    QTest::qWait(200);
    xdo({"click", "1"});
    QVERIFY2(!waitForWindow(app.processId(), QStringLiteral("pendulum\\.json\\*")).isEmpty(),
             "the click did not modify the document (no * in the title)");

    // 2. the autosave (every second here) writes the nail to a recovery file, not to the user's
    QTRY_VERIFY_WITH_TIMEOUT(recoveries().size() == 1, 10000);
    const QString recovery = QDir(recoveryDir).filePath(recoveries().first());
    QTRY_VERIFY_WITH_TIMEOUT(ui::Autosaver::readScene(recovery).nails.size() == size_t(nails + 1), 10000);
    QCOMPARE(readAll(user), original);

    // 3. kill -9: no chance to clean up
    app.kill();
    QVERIFY(app.waitForFinished(10000));
    QCOMPARE(app.exitStatus(), QProcess::CrashExit);
    QCOMPARE(recoveries().size(), 1);

    // 4. started again (no file named): the work is offered; Return recovers it
    QProcess again;
    again.setProcessEnvironment(env);
    again.setProcessChannelMode(QProcess::ForwardedChannels);
    again.start(QStringLiteral(TETHER_APP_BINARY), QStringList{});
    QVERIFY(again.waitForStarted());
    const QString box = waitForWindow(again.processId(), QStringLiteral("^Recover unsaved work$"));
    QVERIFY2(!box.isEmpty(), "the recovery box was not shown");
    QTest::qWait(300);
    xdo({"windowfocus", "--sync", box});
    xdo({"key", "Return"});
    // recovered as the user's file, modified
    const QString main2 = waitForWindow(again.processId(), QStringLiteral("^pendulum\\.json\\* — Tether$"));
    QVERIFY2(!main2.isEmpty(), "the recovered document is not shown as a modified pendulum.json");
    QCOMPARE(readAll(user), original);

    // 5. Ctrl+S writes the user's file with the nail; the recovery files go
    QTest::qWait(1000);  // the box gone and the main window active again
    xdo({"windowfocus", "--sync", main2});
    xdo({"key", "ctrl+s"});
    QTRY_VERIFY_WITH_TIMEOUT(readAll(user) != original, 10000);
    QCOMPARE(int(core::loadScene(user.toStdString()).nails.size()), nails + 1);
    QVERIFY(!waitForWindow(again.processId(), QStringLiteral("^pendulum\\.json — Tether$")).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(recoveries().isEmpty(), 10000);

    // 6. a clean exit (Ctrl+Q) leaves nothing to recover
    xdo({"key", "ctrl+q"});
    QVERIFY(again.waitForFinished(15000));
    QCOMPARE(again.exitStatus(), QProcess::NormalExit);
    QCOMPARE(again.exitCode(), 0);
    QVERIFY(recoveries().isEmpty());
  }

  // Only a modified document is written, never to the user's file; a save, an undo back to
  // the saved state and closing the window remove the recovery file.
  void autosaveWritesChangesOnlyAndGoesWhenClean() {
    QTemporaryDir home;
    const QString user = home.filePath(QStringLiteral("pendulum.json"));
    QVERIFY(QFile::copy(pendulum(), user));
    const QByteArray original = readAll(user);
    {
      ui::MainWindow w;
      QVERIFY(ready(w));
      w.activateWindow();  // keys reach its shortcuts
      QVERIFY(QTest::qWaitForWindowActive(&w));
      QVERIFY(w.openFile(user));
      QTest::qWait(800);  // four autosave periods with nothing to save
      QVERIFY(recoveryFiles().isEmpty());

      // a nail by clicking with the Nail tool
      const size_t nails = w.document().scene().nails.size();
      QTest::keyClick(w.viewport(), Qt::Key_N);
      click(w.viewport(), pixel(w.viewport(), Vec3(0.5, 0, 0.3)));
      QCOMPARE(w.document().scene().nails.size(), nails + 1);
      QTRY_COMPARE_WITH_TIMEOUT(recoveryFiles().size(), 1, 5000);
      QCOMPARE(w.autosaver().file(), QDir(ui::Autosaver::directory()).filePath(recoveryFiles().first()));
      QCOMPARE(ui::Autosaver::readScene(w.autosaver().file()).nails.size(), nails + 1);
      QCOMPARE(readAll(user), original);
      // a running window's file is not offered (its lock is held)
      QStringList broken;
      QVERIFY(ui::Autosaver::recoverable(&broken).empty());
      QVERIFY(broken.isEmpty());

      // undo back to the saved state: nothing to recover
      w.document().undoStack()->undo();
      QTRY_VERIFY_WITH_TIMEOUT(recoveryFiles().isEmpty(), 5000);
      w.document().undoStack()->redo();
      QTRY_COMPARE_WITH_TIMEOUT(recoveryFiles().size(), 1, 5000);
      // Ctrl+S: the user's file has the nail, the recovery file is gone
      QTest::keyClick(&w, Qt::Key_S, Qt::ControlModifier);
      QVERIFY(!w.document().isModified());
      QCOMPARE(core::loadScene(user.toStdString()).nails.size(), nails + 1);
      QVERIFY(recoveryFiles().isEmpty());
      QTest::qWait(600);
      QVERIFY(recoveryFiles().isEmpty());  // and no autosave of a clean document

      // modified again; the window goes (a clean exit): so does its file
      QTest::keyClick(w.viewport(), Qt::Key_N);
      click(w.viewport(), pixel(w.viewport(), Vec3(-0.5, 0, 0.3)));
      QTRY_COMPARE_WITH_TIMEOUT(recoveryFiles().size(), 1, 5000);
      w.document().undoStack()->setClean();  // (no Save? box in the test)
      QTRY_VERIFY_WITH_TIMEOUT(recoveryFiles().isEmpty(), 5000);
      w.document().undoStack()->undo();
      QTRY_COMPARE_WITH_TIMEOUT(recoveryFiles().size(), 1, 5000);
    }
    QVERIFY(recoveryFiles().isEmpty());
  }

  // Files left by windows no longer running: Later keeps one (offered again), Discard deletes
  // it, Recover opens it as a modified document with the user's path; an unreadable one is
  // reported and kept aside, never offered again and never deleted.
  void recoveryBoxLaterDiscardRecoverAndBroken() {
    QTemporaryDir home;
    const QString user = home.filePath(QStringLiteral("pendulum.json"));
    QVERIFY(QFile::copy(pendulum(), user));
    const QByteArray original = readAll(user);
    // the work of a window that crashed: written by a real autosaver, its lock gone with it
    QString left;
    size_t nails = 0;
    {
      ui::Document doc;
      QString error;
      QVERIFY(doc.load(user, error));
      nails = doc.scene().nails.size();
      ui::Autosaver saver(doc);
      QVERIFY(doc.edit("Add nail", [](core::Scene& s) { s.nails.push_back({"crash_nail", Vec3(0.3, 0, 0.2)}); }));
      QVERIFY(saver.saveNow());
      left = saver.file() + QStringLiteral(".copy.tether-recovery");
      QVERIFY(QFile::copy(saver.file(), left));
    }
    QVERIFY(QFileInfo::exists(left));
    auto box = [](ui::MainWindow& w) -> QMessageBox* {
      for (auto* b : w.findChildren<QMessageBox*>(QStringLiteral("recoveryBox")))
        if (b->isVisible()) return b;
      return nullptr;
    };

    ui::MainWindow w;
    QVERIFY(ready(w));
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    // Later: kept, and offered again next time
    w.offerRecovery();
    QTRY_VERIFY(box(w));
    QVERIFY2(box(w)->text().contains(QStringLiteral("Tether found unsaved work from")) &&
                 box(w)->text().contains(QStringLiteral("(pendulum.json)")),
             qPrintable(box(w)->text()));
    QVERIFY(box(w)->informativeText().contains(user));
    QList<QAbstractButton*> buttons = box(w)->buttons();
    QAbstractButton* later = nullptr;
    for (QAbstractButton* b : buttons)
      if (b->text() == QStringLiteral("Later")) later = b;
    QVERIFY(later);
    QTest::mouseClick(later, Qt::LeftButton);
    QTRY_VERIFY(!box(w));
    QVERIFY(QFileInfo::exists(left));
    QVERIFY(!w.document().isModified());

    // a second copy, and a file that is not a recovery file at all
    const QString second = left + QStringLiteral(".2.tether-recovery");
    QVERIFY(QFile::copy(left, second));
    const QString bad = QDir(ui::Autosaver::directory()).filePath(QStringLiteral("999999-1-1.tether-recovery"));
    {
      QFile f(bad);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("{\"format\": \"tether-recovery\", \"scene\": \"{\\\"format\\\": 3}\"");  // cut short
    }
    w.offerRecovery();
    // the broken one: said so, kept aside under another name
    QMessageBox* brokenBox = nullptr;
    QTRY_VERIFY((brokenBox = w.findChild<QMessageBox*>(QStringLiteral("brokenRecoveryBox"))) && brokenBox->isVisible());
    QVERIFY2(brokenBox->informativeText().contains(QStringLiteral("999999-1-1.tether-recovery")) &&
                 brokenBox->informativeText().contains(QStringLiteral("not JSON")),
             qPrintable(brokenBox->informativeText()));
    QVERIFY(!QFileInfo::exists(bad));
    QVERIFY(QFileInfo::exists(bad + QStringLiteral(".broken")));
    brokenBox->close();
    // Discard the first offered; then Recover the other
    QTRY_VERIFY(box(w));
    QTest::mouseClick(box(w)->findChild<QPushButton*>(QStringLiteral("discard")), Qt::LeftButton);
    QTRY_VERIFY(box(w));  // the next one
    QCOMPARE(recoveryFiles().size(), 1);
    QTest::keyClick(box(w), Qt::Key_Return);  // Recover is the default
    QTRY_VERIFY(!box(w));
    QCOMPARE(w.document().scene().nails.size(), nails + 1);
    QCOMPARE(w.document().scene().nails.back().name, std::string("crash_nail"));
    QVERIFY(w.document().isModified());
    QCOMPARE(w.document().filePath(), user);
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("pendulum.json")));
    QVERIFY(w.isWindowModified());
    QCOMPARE(readAll(user), original);
    // the recovered work is in this window's own file now; the old one is gone
    QCOMPARE(recoveryFiles().size(), 1);
    QCOMPARE(QDir(ui::Autosaver::directory()).filePath(recoveryFiles().first()), w.autosaver().file());
    QVERIFY(QFileInfo::exists(bad + QStringLiteral(".broken")));
    // Save writes the user's file
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(&w, Qt::Key_S, Qt::ControlModifier);
    QVERIFY(!w.document().isModified());
    QCOMPARE(core::loadScene(user.toStdString()).nails.back().name, std::string("crash_nail"));
    QVERIFY(recoveryFiles().isEmpty());
    // nothing more to offer
    w.offerRecovery();
    QTest::qWait(100);
    QVERIFY(!box(w));
  }

  // The status bar shows the largest constraint deviation of the shown frame.
  void statusBarShowsMaxDeviation() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.document().edit("ball off its hook", [](core::Scene& s) {
      s.bodies.push_back(ball(Vec3(0.3, 0, 0.9)));
      s.nails.push_back({"hook", Vec3(0, 0, 1)});
      s.constraints.push_back(topToNail("hold", "hook"));
    }));
    QVERIFY(waitForSnapshot(w));
    QLabel* dev = nullptr;
    QTRY_VERIFY([&] {
      for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
        if (l->text().startsWith(QStringLiteral("max |D| = "))) dev = l;
      return dev != nullptr;
    }());
    // (the label follows the shown frame: wait for the frame of this model, not the empty scene's)
    const auto agrees = [&] {
      const double shown = dev->text().mid(10).toDouble();
      const double d = w.viewport()->shownSnapshot()->maxDeviation;
      return d > 0.2 && std::abs(shown - d) < 1e-3 * d;
    };
    QTRY_VERIFY2(agrees(), qPrintable(dev->text()));
    w.document().undoStack()->setClean();
  }

  // A helper could not give an event an exact time: clicking it (its marker or its outliner row)
  // left the inspector on "Nothing selected", and Delete in the outliner did nothing. An event is
  // inspected now: its time typed (one undo step), and deleted from the outliner.
  void anEventIsInspectedEditedAndDeleted() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 900);
    hangingBall(w, 5.0);
    core::EventDef e;
    e.time = 3.4;
    e.action = core::EventAction::Disable;
    e.target = "hold";
    QVERIFY(w.document().edit("event", [&](core::Scene& s) { s.events.push_back(e); }));
    QVERIFY(waitForSnapshot(w));
    ui::TimelineView* tv = w.timeline()->view();
    int lane = -1;
    for (size_t i = 0; i < tv->lanes().size(); ++i)
      if (tv->lanes()[i].name == "hold") lane = int(i);
    QVERIFY(lane >= 0);
    // its marker clicked
    QTest::mouseClick(tv, Qt::LeftButton, {}, QPoint(int(std::lround(tv->xAt(3.4))), tv->laneY(lane) + 11));
    QCOMPARE(tv->selectedEvents(), std::set<int>{0});
    QTRY_COMPARE(w.inspector()->selection(), (ui::Selection{ui::Selection::Kind::Event, "0"}));
    QTRY_VERIFY(w.inspector()->findChild<QDoubleSpinBox*>("Time"));
    QVERIFY(typeInto(w, "Time", "3"));
    QCOMPARE(w.document().scene().events[0].time, 3.0);
    w.document().undoStack()->undo();
    QCOMPARE(w.document().scene().events[0].time, 3.4);
    w.document().undoStack()->redo();
    QCOMPARE(w.document().scene().events[0].time, 3.0);
    // its outliner row: the inspector and the timeline show it
    w.select({});
    QTest::mouseClick(tv, Qt::LeftButton, {}, QPoint(int(std::lround(tv->xAt(1.0))), tv->laneY(lane) + 11));
    QVERIFY(tv->selectedEvents().empty());
    QAbstractItemModel* m = w.outliner()->model();
    QModelIndex events;
    for (int r = 0; r < m->rowCount(); ++r)
      if (m->index(r, 0).data().toString().startsWith("Events")) events = m->index(r, 0);
    QVERIFY(events.isValid());
    w.outliner()->setCurrentIndex(m->index(0, 0, events));
    QTRY_COMPARE(w.inspector()->selection(), (ui::Selection{ui::Selection::Kind::Event, "0"}));
    QCOMPARE(tv->selectedEvents(), std::set<int>{0});
    // Delete there removes it
    w.activateWindow();
    QTRY_VERIFY(w.isActiveWindow());
    w.outliner()->setFocus();
    QTest::keyClick(w.outliner(), Qt::Key_Delete);
    QTRY_VERIFY(w.document().scene().events.empty());
    QCOMPARE(w.inspector()->selection(), ui::Selection{});
    w.document().undoStack()->setClean();
  }

  // Right-clicking the timeline at t offers every object's events at most two levels deep and
  // adds the event at t, not at the playhead.
  void timelineAddsEventAtClickedTime() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 900);
    hangingBall(w, 5.0);
    ui::TimelineView* tv = w.timeline()->view();
    QCOMPARE(tv->playhead(), 0.0);
    // right-click in the empty lanes area at 2.5 s, as a mouse does
    const QPoint at(int(std::lround(tv->xAt(2.5))), tv->laneY(1) + 5);
    QContextMenuEvent ev(QContextMenuEvent::Mouse, at, tv->mapToGlobal(at));
    QApplication::sendEvent(tv, &ev);
    QMenu* menu = nullptr;
    QTRY_VERIFY((menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())));
    // the constraint's own submenu sits in the menu itself: menu > hold > Disable
    QAction* hold = topAction(*menu, QStringLiteral("hold"));
    QVERIFY2(hold && hold->menu(), "no \"hold\" submenu in the timeline's context menu");
    QAction* disable = nullptr;
    for (QAction* a : hold->menu()->actions())
      if (a->text() == QStringLiteral("Disable at 2.5 s")) disable = a;
    QVERIFY2(disable, "no \"Disable at 2.5 s\" in the hold submenu");
    // and the body's, gravity's
    QVERIFY(topAction(*menu, QStringLiteral("ball")) && topAction(*menu, QStringLiteral("gravity")));
    disable->trigger();
    menu->close();
    QCOMPARE(int(w.document().scene().events.size()), 1);
    const core::EventDef e = w.document().scene().events[0];
    QCOMPARE(e.action, core::EventAction::Disable);
    QCOMPARE(e.target, std::string("hold"));
    QVERIFY2(std::abs(e.time - 2.5) < 1e-9, qPrintable(QString::number(e.time)));
    QCOMPARE(tv->playhead(), 0.0);
    // on the new lane: its actions at the clicked time, at the top
    std::unique_ptr<QMenu> lane(tv->buildContextMenu(QPoint(int(std::lround(tv->xAt(1.25))), tv->laneY(0) + 5)));
    QAction* enable = topAction(*lane, QStringLiteral("Enable at 1.25 s"));
    QVERIFY(enable);
    enable->trigger();
    QCOMPARE(int(w.document().scene().events.size()), 2);
    QVERIFY(std::abs(w.document().scene().events[1].time - 1.25) < 1e-9);
    w.document().undoStack()->setClean();
  }

  // The ruler's range only grows: deleting the last event does not rescale it.
  void timelineRulerOnlyGrows() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 900);
    hangingBall(w, 5.0);
    ui::TimelineView* tv = w.timeline()->view();
    QVERIFY(tv->addEvent(core::EventAction::Disable, "hold", {}, {}, 8.0));
    QTest::qWait(50);
    const double right = tv->timeAt(tv->width());
    const double x4 = tv->xAt(4.0);
    QVERIFY2(right >= 8.0, qPrintable(QString::number(right)));
    // select the marker with a click, Delete
    QTest::mouseClick(tv, Qt::LeftButton, {}, QPoint(int(std::lround(tv->xAt(8.0))), tv->laneY(0) + 11));
    QCOMPARE(int(tv->selectedEvents().size()), 1);
    QTest::keyClick(tv, Qt::Key_Delete);
    QVERIFY(w.document().scene().events.empty());
    QTest::qWait(50);
    QCOMPARE(tv->timeAt(tv->width()), right);
    QCOMPARE(tv->xAt(4.0), x4);
    // a re-simulation (an edit of the scene) neither
    QVERIFY(w.document().edit("radius", [](core::Scene& s) { s.bodies[0].radius = 0.12; }));
    QTest::qWait(50);
    QCOMPARE(tv->timeAt(tv->width()), right);
    w.document().undoStack()->setClean();
  }

  // While playing past the visible range, the view pages so the playhead stays in it.
  void timelineFollowsPlayhead() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 900);
    QTemporaryDir home;
    QVERIFY(openShortScene(w, home));
    ui::TimelineView* tv = w.timeline()->view();
    const double visible = tv->timeAt(tv->width()) - tv->timeAt(tv->labelWidth());
    QVERIFY(visible < 1.5);
    w.setSpeed(4.0);
    w.play();
    // what the timeline draws, every 50 ms: its red playhead line
    auto playheadDrawn = [tv] {
      const QImage img = tv->grab().toImage();
      const int y = img.height() - 2;
      for (int x = tv->labelWidth(); x < img.width(); ++x) {
        const QColor c = img.pixelColor(x, y);
        if (c.red() > 150 && c.green() < 110 && c.blue() < 110) return true;
      }
      return false;
    };
    int missing = 0, frames = 0;
    QElapsedTimer clock;
    clock.start();
    while (w.simulation().snapshot()->t < 3.5 && clock.elapsed() < 30000) {
      playOnPastTheEnd(w);  // (its duration is 1 s)
      QTest::qWait(50);
      ++frames;
      if (!playheadDrawn()) ++missing;
    }
    w.pause();
    QVERIFY(w.simulation().snapshot()->t >= 3.5);
    QTest::qWait(50);
    const double x = tv->xAt(tv->playhead());
    QVERIFY2(x >= tv->labelWidth() && x <= tv->width(), qPrintable(QString::number(x)));
    // (a playhead that runs off the edge is missing from every frame after it; one frame without
    // it was seen once in a CI run on a quiet machine and never since, cause not found)
    QVERIFY2(missing <= 1, qPrintable(QStringLiteral("%1 of %2 frames without the playhead").arg(missing).arg(frames)));
    // the scale stayed: paged, not squeezed
    QVERIFY(std::abs((tv->timeAt(tv->width()) - tv->timeAt(tv->labelWidth())) - visible) < 1e-9);
    // back to the start: in view again
    auto* start = w.timeline()->findChild<QToolButton*>(QStringLiteral("Jump to start"));
    QVERIFY(start);
    QTest::mouseClick(start, Qt::LeftButton);
    QTRY_VERIFY(w.simulation().snapshot()->t == 0.0);
    QTRY_VERIFY(tv->xAt(0.0) >= tv->labelWidth() && tv->xAt(0.0) <= tv->width());
    w.document().undoStack()->setClean();
  }

  // Issue 19: after a long run the view has paged far from the start (at 60 s the 1 s mark was
  // off screen, with nothing but the context menu's Fit to bring it back). The scroll bar under
  // the view brings earlier times back at the same scale, dragged with the mouse; the Fit button
  // on the transport bar shows the whole run.
  void timelineScrollsBackToEarlierTimes() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 800);
    QTemporaryDir home;
    QVERIFY(openShortScene(w, home));
    ui::TimelineView* tv = w.timeline()->view();
    auto* bar = w.timeline()->findChild<QScrollBar*>(QStringLiteral("timelineScroll"));
    QVERIFY(bar);
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->maximum(), 0);  // the whole (1 s) timeline is in view
    w.simulation().setRealTime(false);
    w.play();
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->stoppedAtEnd, 30000);  // (at its duration, 1 s)
    w.play();
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->t > 61.0, 60000);
    w.pause();
    QTRY_VERIFY(!w.simulation().snapshot()->playing);
    QTest::qWait(100);  // (the timeline follows at display rate)
    const double end = w.simulation().snapshot()->t;
    const double span = tv->viewSpan();
    QVERIFY2(tv->xAt(1.0) < tv->labelWidth(), "the view should have paged past 1 s");
    QVERIFY(bar->maximum() > 0);
    QVERIFY(bar->value() > bar->maximum() / 2);
    // drag the scroll bar's handle to its left end
    QStyleOptionSlider opt;
    opt.initFrom(bar);
    opt.orientation = Qt::Horizontal;
    opt.minimum = bar->minimum();
    opt.maximum = bar->maximum();
    opt.sliderPosition = opt.sliderValue = bar->value();
    opt.pageStep = bar->pageStep();
    opt.singleStep = bar->singleStep();
    const QRect handle = bar->style()->subControlRect(QStyle::CC_ScrollBar, &opt, QStyle::SC_ScrollBarSlider, bar);
    QVERIFY(handle.width() > 0);
    QTest::mousePress(bar, Qt::LeftButton, {}, handle.center());
    for (int x = handle.center().x(); x > -40; x -= 40) QTest::mouseMove(bar, QPoint(x, handle.center().y()));
    QTest::mouseRelease(bar, Qt::LeftButton, {}, QPoint(-40, handle.center().y()));
    QCOMPARE(bar->value(), 0);
    const double x1 = tv->xAt(1.0);
    QVERIFY2(x1 >= tv->labelWidth() && x1 <= tv->width(), qPrintable(QString::number(x1)));
    QVERIFY(std::abs(tv->viewSpan() - span) < 1e-9);  // the same scale
    // right there, the context menu adds at the clicked time
    std::unique_ptr<QMenu> menu(tv->buildContextMenu(QPoint(int(std::lround(x1)), tv->laneY(0) + 5)));
    QVERIFY(menu);
    bool atOne = false;
    for (QAction* a : menu->actions()) atOne = atOne || a->text().contains(QStringLiteral("at 1 s"));
    QVERIFY2(atOne, "the context menu should offer 1 s");
    // Fit shows the whole run
    auto* fit = w.timeline()->findChild<QToolButton*>(QStringLiteral("Show the whole timeline"));
    QVERIFY(fit);
    QTest::mouseClick(fit, Qt::LeftButton);
    QVERIFY(tv->xAt(0.0) >= tv->labelWidth() && tv->xAt(end) <= tv->width());
    QCOMPARE(bar->maximum(), 0);
    w.document().undoStack()->setClean();
    // File > New: the new scene's ruler is fitted to its own 10 s (a helper's kept the 1 600 s
    // recorded before it)
    w.newDocument();
    QTest::qWait(200);
    QVERIFY2(tv->viewSpan() < 12.0, qPrintable(QString::number(tv->viewSpan())));
    QVERIFY(tv->xAt(10.0) <= tv->width());
  }

  // The lanes scroll: the bundled marbles (500 bodies, each brought in by a create event, 500
  // lanes) opened in a 1280 x 800 window left it 11 453 px tall, the view's height for every
  // lane. Now the window keeps its size, the lanes get a vertical scroll bar, and scrolled to
  // the bottom the last marble's lane is in view.
  void timelineLanesScrollInsteadOfGrowingTheWindow() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 800);
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + QStringLiteral("/marbles.json")) && waitForSnapshot(w));
    QTest::qWait(50);
    QVERIFY2(w.height() <= 800, qPrintable(QString::number(w.height())));
    ui::TimelineView* tv = w.timeline()->view();
    QCOMPARE(int(tv->lanes().size()), 500);
    auto* lanes = w.timeline()->findChild<QScrollArea*>(QStringLiteral("timelineLanes"));
    QVERIFY(lanes);
    QScrollBar* bar = lanes->verticalScrollBar();
    QVERIFY(bar->isVisible());
    QVERIFY(bar->maximum() > 0);
    bar->setValue(bar->maximum());
    const QRect seen = lanes->viewport()->rect().translated(0, bar->value());
    QVERIFY(seen.contains(QPoint(5, tv->laneY(499) + 5)));
    w.document().undoStack()->setClean();
  }

  // A long lane name shows whole (the name column grows to it), a very long one is elided
  // with the whole name in the tooltip.
  void timelineLaneNamesWhole() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 900);
    const std::string longName = "hold_the_ball_on_its_hook_until_the_door_opens";
    hangingBall(w, 5.0, longName);
    ui::TimelineView* tv = w.timeline()->view();
    QVERIFY(tv->addEvent(core::EventAction::Disable, longName, {}, {}, 1.0));
    const QString label = QStringLiteral("constraint ") + QString::fromStdString(longName);
    QVERIFY2(tv->labelWidth() >= tv->fontMetrics().horizontalAdvance(label) + 10,
             qPrintable(QStringLiteral("%1 px for %2 px").arg(tv->labelWidth()).arg(tv->fontMetrics().horizontalAdvance(label))));
    // hover the name: the whole name
    const QPoint on(20, tv->laneY(0) + 10);
    QHelpEvent help(QEvent::ToolTip, on, tv->mapToGlobal(on));
    QApplication::sendEvent(tv, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), label);
    QToolTip::hideText();
    // a name longer than the view allows: the column stops at 40 %, the tooltip has it all
    const std::string huge(300, 'x');
    QVERIFY(w.document().edit("rename", [&](core::Scene& s) {
      s.constraints[0].name = huge;
      s.events[0].target = huge;
    }));
    QVERIFY(tv->labelWidth() <= tv->width() * 2 / 5);
    QHelpEvent help2(QEvent::ToolTip, on, tv->mapToGlobal(on));
    QApplication::sendEvent(tv, &help2);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), QStringLiteral("constraint ") + QString::fromStdString(huge));
    QToolTip::hideText();
    w.document().undoStack()->setClean();
  }

  // The tooltip of an event that is removed (here by Undo from the Edit menu) goes with it.
  void timelineRemovedEventTooltipGoes() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 900);
    hangingBall(w, 5.0);
    ui::TimelineView* tv = w.timeline()->view();
    QVERIFY(tv->addEvent(core::EventAction::Disable, "hold", {}, {}, 2.0));
    QVERIFY(tv->addEvent(core::EventAction::Enable, "hold", {}, {}, 3.0));
    const QPoint on(int(std::lround(tv->xAt(3.0))), tv->laneY(0) + 11);
    QHelpEvent help(QEvent::ToolTip, on, tv->mapToGlobal(on));
    QApplication::sendEvent(tv, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("enable hold")), qPrintable(QToolTip::text()));
    // Edit > Undo: the enable event goes
    QAction* undo = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text().startsWith(QStringLiteral("&Undo")) || a->text().startsWith(QStringLiteral("Undo"))) undo = a;
    QVERIFY(undo);
    undo->trigger();
    QCOMPARE(int(w.document().scene().events.size()), 1);
    QTRY_VERIFY(!QToolTip::isVisible());
    // a marker's tooltip follows its marker: moving the mouse off hides it
    const QPoint on2(int(std::lround(tv->xAt(2.0))), tv->laneY(0) + 11);
    QHelpEvent help2(QEvent::ToolTip, on2, tv->mapToGlobal(on2));
    QApplication::sendEvent(tv, &help2);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY(QToolTip::text().contains(QStringLiteral("disable hold")));
    QTest::mouseMove(tv, on2 + QPoint(120, 0));
    QTRY_VERIFY(!QToolTip::isVisible());
    w.document().undoStack()->setClean();
  }
};

TETHER_GUI_TEST_MAIN(AutosaveTest)
#include "autosave_test.moc"
