// The plot dock (View → Plots) in a real window: quantities picked in its tree as a user does,
// series that hold every recorded frame with the values a fresh run gives, the playhead moved by
// a click or a drag in the plot, CSV export through the file dialog, the plot cut by Reset and
// following new frames while playing, thousands of frames decimated, and the playhead drawn.
#include <QFileDialog>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPushButton>
#include <QTreeWidget>
#include <QCategoryAxis>

#include "gui_util.h"

using namespace tether;
using namespace tether::test;

namespace {

QAction* findAction(ui::MainWindow& w, const QString& objectOrText) {
  for (QAction* a : w.findChildren<QAction*>())
    if (a->objectName() == objectOrText || a->text() == objectOrText) return a;
  return nullptr;
}

// Open the dock through View → Plots.
bool openPlots(ui::MainWindow& w) {
  QAction* a = findAction(w, QStringLiteral("viewPlots"));
  if (!a || a->isChecked()) return false;
  a->trigger();
  QTest::qWait(100);
  return w.plots()->isVisible();
}

// Check a quantity as a user does: click its row in the tree, press Space. The tree is built from
// the simulation's snapshot, so the rows are looked up once the snapshot of the scene just opened
// is there (before that, the rows of the previous scene are rebuilt under the click). Under load
// the tree scrolls to the row some events later: the click is made once the row is where it is
// drawn, and made again if it landed before the layout did.
bool pick(ui::MainWindow& w, const QString& fullLabel) {
  if (!waitForSnapshot(w)) return false;
  w.plots()->refresh();
  QTreeWidget* tree = w.plots()->quantityTree();
  auto find = [&]() -> QTreeWidgetItem* {
    for (QTreeWidgetItemIterator it(tree); *it; ++it)
      if ((*it)->toolTip(0) == fullLabel) return *it;
    return nullptr;
  };
  for (int attempt = 0; attempt < 50; ++attempt) {
    QTreeWidgetItem* item = find();
    if (!item) return false;
    if (tree->currentItem() == item) {
      QTest::keyClick(tree, Qt::Key_Space);
      return QTest::qWaitFor([&] { return find() && find()->checkState(0) == Qt::Checked; }, 5000);
    }
    tree->scrollToItem(item);
    QTest::qWait(50);
    const QRect r = tree->visualItemRect(item);
    if (!r.isValid() || !tree->viewport()->rect().contains(r.center())) continue;
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, QPoint(r.right() - 10, r.center().y()));
    QTest::qWait(20);
  }
  return false;
}

// Play until the simulation has run past t (on past the scene's duration), then pause.
bool playUntil(ui::MainWindow& w, double t) {
  w.play();
  QElapsedTimer timer;
  timer.start();
  while (w.simulation().snapshot()->t < t && timer.elapsed() < 60000) {
    playOnPastTheEnd(w);
    QTest::qWait(20);
  }
  w.pause();
  QTest::qWait(100);
  return w.simulation().snapshot()->t >= t && !w.isPlaying();
}

// Wait until the dock holds what the solver recorded (it copies new samples a few times a second).
bool settled(ui::MainWindow& w) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < 5000) {
    const auto snap = w.simulation().snapshot();
    QLineSeries* s = w.plots()->series(QStringLiteral("energy:kinetic"));
    if (!snap->playing && w.plots()->frames() == snap->history.frames && (!s || s->count() > 0)) {
      QTest::qWait(300);  // one more data tick: the series drawn from those frames
      return true;
    }
    QTest::qWait(20);
  }
  return false;
}

// The bundled pendulum, as the window opens it.
core::Scene pendulum() { return core::loadScene((ui::MainWindow::examplesDir() + "/pendulum.json").toStdString()); }

}  // namespace

class PlotDockTest : public QObject {
  Q_OBJECT

 private slots:
  // Play the pendulum 1 s, open the dock, check kinetic energy and the rod's z: one point per
  // recorded frame, each equal to a fresh run's value at that frame's time.
  void seriesHoldEveryRecordedFrame() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/pendulum.json"));
    QVERIFY(playUntil(w, 1.0));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("Kinetic energy (J)")));
    QVERIFY(pick(w, QStringLiteral("rod z (m)")));
    QVERIFY(settled(w));
    QCOMPARE(w.plots()->plottedKeys(), QStringList({"energy:kinetic", "body:rod:2"}));

    const auto snap = w.simulation().snapshot();
    QLineSeries* ke = w.plots()->series(QStringLiteral("energy:kinetic"));
    QLineSeries* z = w.plots()->series(QStringLiteral("body:rod:2"));
    QVERIFY(ke && z);
    QCOMPARE(ke->name(), QStringLiteral("Kinetic energy (J)"));
    QCOMPARE(size_t(ke->count()), snap->history.frames);
    QCOMPARE(size_t(z->count()), snap->history.frames);
    QVERIFY(snap->history.frames >= 60);
    // the last frame is the one shown: the snapshot's own values
    QCOMPARE(z->points().back().x(), snap->t);
    QCOMPARE(z->points().back().y(), snap->bodies[0].x.z());
    QCOMPARE(ke->points().back().y(), snap->energy.kinetic);

    // every frame: what a fresh run of the scene has at that time (frames are bitwise a fresh run)
    auto model = std::make_shared<const core::Model>(core::compile(pendulum()));
    core::Simulation sim(model);
    for (int i = 0; i < z->count(); ++i) {
      const double t = z->at(i).x();
      QCOMPARE(ke->at(i).x(), t);
      sim.advanceTo(t);
      const double dz = std::abs(z->at(i).y() - sim.state().bodies[0].x.z());
      const double dk = std::abs(ke->at(i).y() - core::energy(*model, sim.state()).kinetic);
      QVERIFY2(dz < 1e-12 && dk < 1e-9, qPrintable(QStringLiteral("frame %1 at t = %2: dz %3, dk %4").arg(i).arg(t).arg(dz).arg(dk)));
    }
    // the pendulum falls to its nail and swings: z changes by decimetres, energy is gained
    double lo = 1e9, hi = -1e9;
    for (const QPointF& p : z->points()) lo = std::min(lo, p.y()), hi = std::max(hi, p.y());
    QVERIFY(hi - lo > 0.1);
    QVERIFY(ke->points().back().y() > 0.1);
    // the time axis spans the recorded range
    auto* axis = qobject_cast<QValueAxis*>(ke->attachedAxes().front());
    QVERIFY(axis);
    QCOMPARE(axis->min(), snap->history.start);
    QCOMPARE(axis->max(), snap->history.end);
    w.document().undoStack()->setClean();
  }

  // A helper: the ticks of a quantity that changes little against its size read the same label
  // (a ball swinging 1 km from the origin: "1000" at every tick of x with %.4g). Each axis's
  // labels, formatted as the chart formats them, tell every tick apart.
  void tickLabelsTellTicksApart() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.document().edit("ball far out", [](core::Scene& s) {
      s.nails.push_back({"pivot", Vec3(1000.0, 0, 1)});
      s.bodies.push_back(ball(Vec3(1000.3, 0, 0.9)));
      s.constraints.push_back(topToNail("hang", "pivot"));
    }));
    QVERIFY(playUntil(w, 1.0));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("ball x (m)")));
    QVERIFY(settled(w));
    QLineSeries* x = w.plots()->series(QStringLiteral("body:ball:0"));
    QVERIFY(x && x->count() > 10);
    for (QAbstractAxis* a : x->attachedAxes()) {
      auto* axis = qobject_cast<QValueAxis*>(a);
      QVERIFY(axis);
      QStringList labels;
      if (auto* values = qobject_cast<QCategoryAxis*>(a)) {  // the value axes: labelled by the dock
        labels = values->categoriesLabels();
      } else {  // the time axis: by the chart
        QVERIFY(axis->tickType() == QValueAxis::TicksDynamic && axis->tickInterval() > 0);
        for (double t = std::ceil((axis->min() - axis->tickAnchor()) / axis->tickInterval()) * axis->tickInterval() + axis->tickAnchor();
             t <= axis->max(); t += axis->tickInterval())
          labels << QString::asprintf(axis->labelFormat().toLatin1().constData(), t);
      }
      QVERIFY2(labels.size() >= 2, qPrintable(labels.join(' ')));
      QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
      if (axis->max() > 999.0) QVERIFY2(labels.join(' ').contains("1000.1"), qPrintable(labels.join(' ')));
    }
    w.document().undoStack()->setClean();
  }

  // A helper's cradle: the tick at zero on a velocity axis read "-2.78e-16" (the chart adds the
  // step up from the first tick). A value axis's ticks are exact multiples of a round step.
  void aTickAtZeroReadsZero() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.document().edit("a ball swinging under x = 0", [](core::Scene& s) {
      s.nails.push_back({"pivot", Vec3(0, 0, 1)});
      s.bodies.push_back(ball(Vec3(0.7, 0, 0.9)));
      s.constraints.push_back(topToNail("hang", "pivot"));
    }));
    QVERIFY(playUntil(w, 3.0));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("ball x (m)")));
    QVERIFY(settled(w));
    QLineSeries* x = w.plots()->series(QStringLiteral("body:ball:0"));
    QVERIFY(x);
    auto* axis = qobject_cast<QCategoryAxis*>(x->attachedAxes().back());
    QVERIFY2(axis && axis->min() < 0 && axis->max() > 0, qPrintable(axis ? QString("%1 .. %2").arg(axis->min()).arg(axis->max()) : QString()));
    const QStringList labels = axis->categoriesLabels();
    QVERIFY2(labels.contains("0"), qPrintable(labels.join(' ')));
    for (const QString& l : labels) {
      QVERIFY2(!l.contains('e') && l != "-0", qPrintable(labels.join(' ')));
      QVERIFY(std::abs(axis->endValue(l) - l.toDouble()) < 1e-12);  // each label where its value is
    }
    w.document().undoStack()->setClean();
  }

  // A helper's pendulum drawn in the front view had y ~ -4e-16 m (round-off): its plot stretched
  // the noise over the chart as if it swung, and lost its tick labels. A range narrower than
  // round-off is shown as a band around it.
  void roundOffIsNotShownAsMotion() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.document().edit("ball off its plane by round-off", [](core::Scene& s) {
      s.nails.push_back({"pivot", Vec3(0, -3.8e-16, 1)});
      s.bodies.push_back(ball(Vec3(0.3, -1.1e-16, 0.9)));
      s.constraints.push_back(topToNail("hang", "pivot"));
    }));
    QVERIFY(playUntil(w, 1.0));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("ball y (m)")));
    QVERIFY(settled(w));
    QLineSeries* y = w.plots()->series(QStringLiteral("body:ball:1"));
    QVERIFY(y && y->count() > 10);
    double lo = 1e9, hi = -1e9;
    for (const QPointF& p : y->points()) lo = std::min(lo, p.y()), hi = std::max(hi, p.y());
    QVERIFY2(hi - lo < 1e-14, qPrintable(QString("%1 .. %2").arg(lo).arg(hi)));  // (round-off indeed)
    auto* axis = qobject_cast<QValueAxis*>(y->attachedAxes().back());
    QVERIFY(axis && axis->orientation() == Qt::Vertical);
    QVERIFY2(axis->max() - axis->min() >= 1e-12, qPrintable(QString("%1 .. %2").arg(axis->min()).arg(axis->max())));
    QVERIFY(axis->min() <= lo && axis->max() >= hi);
    w.document().undoStack()->setClean();
  }

  // A click in the plot seeks the playhead to the time under the cursor; a drag scrubs.
  void clickAndDragSeek() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/pendulum.json"));
    QVERIFY(playUntil(w, 1.0));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("Total energy (J)")));
    QVERIFY(settled(w));
    ui::PlotView* view = w.plots()->plotView();
    const double frame = w.simulation().snapshot()->history.framePeriod;
    const int y = view->height() / 2;

    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(int(std::lround(view->xOf(0.4))), y));
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(w.simulation().snapshot()->t - 0.4) <= frame, 5000);
    const double t = w.simulation().snapshot()->t;
    // the frame nearest the time under the click (within a pixel or two of 0.4 s)
    const double pixel = view->timeAt(view->xOf(0.5) + 1) - view->timeAt(view->xOf(0.5));
    QVERIFY2(pixel > 0 && std::abs(t - 0.4) <= 0.5 * frame + 2 * pixel, qPrintable(QString::number(t)));
    QTRY_COMPARE_WITH_TIMEOUT(view->playhead(), t, 2000);  // the line moved there too

    // drag from 0.2 s to 0.7 s
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, QPoint(int(std::lround(view->xOf(0.2))), y));
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(w.simulation().snapshot()->t - 0.2) <= frame, 5000);
    for (double u = 0.25; u <= 0.7001; u += 0.05) {
      QMouseEvent move(QEvent::MouseMove, QPointF(view->xOf(u), y), view->viewport()->mapToGlobal(QPointF(view->xOf(u), y)),
                       Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(view->viewport(), &move);
      QTest::qWait(20);
    }
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, QPoint(int(std::lround(view->xOf(0.7))), y));
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(w.simulation().snapshot()->t - 0.7) <= frame, 5000);
    // the viewport shows that frame: the status bar's time reads it
    QVERIFY(!w.isPlaying());
    w.document().undoStack()->setClean();
  }

  // Export CSV… through the file dialog: a header naming each quantity with its unit, a row per
  // recorded frame with the plotted values.
  void exportCsv() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/pendulum.json"));
    QVERIFY(playUntil(w, 0.5));
    QVERIFY(openPlots(w));
    QPushButton* button = w.plots()->exportButton();
    QVERIFY(!button->isEnabled());  // nothing plotted, nothing to export
    QVERIFY(pick(w, QStringLiteral("Kinetic energy (J)")));
    QVERIFY(pick(w, QStringLiteral("rod z (m)")));
    QVERIFY(pick(w, QStringLiteral("hang |F| (N)")));
    QVERIFY(settled(w));
    QVERIFY(button->isEnabled());

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("pendulum plot.csv"));
    // the dialog opens modal: type the file's name and press Return, as a user does
    bool dialogSeen = false;
    QTimer poll;
    poll.setInterval(50);
    QObject::connect(&poll, &QTimer::timeout, [&] {
      auto* d = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      auto* name = d ? d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit")) : nullptr;
      if (!name || !d->isVisible()) return;
      poll.stop();
      dialogSeen = true;
      // (the text set at once: typed, the completer's popup would take the Return)
      name->setFocus();
      name->setText(path);
      QTest::keyClick(name, Qt::Key_Return);
    });
    poll.start();
    // a dialog that never shows up must not hang the test: close whatever is modal after 20 s
    QTimer::singleShot(20000, [] {
      if (QWidget* m = QApplication::activeModalWidget()) m->close();
    });
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(dialogSeen);
    QVERIFY(QFile::exists(path));

    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.front(), QStringLiteral("t (s),Kinetic energy (J),rod z (m),hang |F| (N)"));
    const auto snap = w.simulation().snapshot();
    QCOMPARE(size_t(lines.size() - 1), snap->history.frames);
    QLineSeries* z = w.plots()->series(QStringLiteral("body:rod:2"));
    QLineSeries* F = w.plots()->series(QStringLiteral("force:hang"));
    for (int i = 1; i < lines.size(); ++i) {
      const QStringList cells = lines[i].split(',');
      QCOMPARE(cells.size(), 4);
      QCOMPARE(cells[0].toDouble(), z->at(i - 1).x());  // exactly: written to read back the same
      QCOMPARE(cells[2].toDouble(), z->at(i - 1).y());
    }
    // the constraint pulls the rod to its nail: |F| is the series' values where active
    const QStringList last = lines.back().split(',');
    QCOMPARE(last[0].toDouble(), snap->t);
    QCOMPARE(last[1].toDouble(), snap->energy.kinetic);
    QCOMPARE(last[3].toDouble(), F->points().back().y());
    QVERIFY(last[3].toDouble() > 1.0);

    // a file that cannot be written: the export says why and writes nothing
    QString why;
    QVERIFY(!w.plots()->exportCsv(dir.filePath(QStringLiteral("no such dir/x.csv")), &why));
    QVERIFY(!why.isEmpty());
    w.document().undoStack()->setClean();
  }

  // Reset clears the history: the plot is cut to the first frame; while playing it follows new
  // frames; a timeline edit that re-simulates rebuilds it.
  void followsPlayAndIsCutByReset() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/pendulum.json"));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("rod z (m)")));
    // at rest at first: a constant 0 on an axis of its own that then grows by a million times
    QVERIFY(pick(w, QStringLiteral("rod vx (m/s)")));
    QLineSeries* z = w.plots()->series(QStringLiteral("body:rod:2"));
    QVERIFY(z);
    QTRY_COMPARE_WITH_TIMEOUT(z->count(), 1, 3000);  // the initial frame
    QTest::qWait(300);  // drawn with its one frame

    // while playing the series grows without a pause
    w.play();
    QTRY_VERIFY_WITH_TIMEOUT(z->count() > 10, 5000);
    const int seen = z->count();
    QTRY_VERIFY_WITH_TIMEOUT(z->count() > seen + 10, 5000);
    QVERIFY(w.isPlaying());
    w.pause();
    QVERIFY(settled(w));
    QVERIFY(z->count() > 20);

    // Reset (Ctrl+R): the history holds the initial frame only, and so does the plot
    findAction(w, QStringLiteral("&Reset"))->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(z->count(), 1, 3000);
    QCOMPARE(z->at(0).x(), 0.0);

    // play to 1 s, then an event at 0.5 s re-simulates from there: what follows is rebuilt and
    // still one point per frame, each the new run's
    QVERIFY(playUntil(w, 1.0));
    QVERIFY(settled(w));
    const double zBefore = z->points().back().y();
    QVERIFY(w.document().edit("release", [](core::Scene& s) {
      core::EventDef e;
      e.time = 0.5;
      e.target = "hang";
      e.action = core::EventAction::Disable;
      s.events.push_back(e);
    }));
    QVERIFY(waitForSnapshot(w));
    QVERIFY(settled(w));
    const auto snap = w.simulation().snapshot();
    QCOMPARE(size_t(z->count()), snap->history.frames);
    QCOMPARE(z->points().back().y(), snap->bodies[0].x.z());
    QVERIFY(std::abs(z->points().back().y() - zBefore) > 1e-3);  // released at 0.5 s: it falls
    w.document().undoStack()->setClean();
  }

  // Another file opened: what was plotted of the old scene's bodies leaves the plot and its
  // legend (it stayed, as a series of a body the new scene does not have); the energies stay.
  void anotherFileDropsTheOldScenesSeries() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/pendulum.json"));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("rod z (m)")));
    QVERIFY(pick(w, QStringLiteral("Kinetic energy (J)")));
    QVERIFY(w.plots()->series(QStringLiteral("body:rod:2")));
    w.document().undoStack()->setClean();
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/newtons_cradle.json"));
    QVERIFY(waitForSnapshot(w));
    QTRY_VERIFY_WITH_TIMEOUT((w.plots()->refresh(), !w.plots()->series(QStringLiteral("body:rod:2"))), 5000);
    QVERIFY(!w.plots()->plottedKeys().contains(QStringLiteral("body:rod:2")));
    QVERIFY(w.plots()->series(QStringLiteral("energy:kinetic")));
    for (QLegendMarker* m : w.plots()->chart()->legend()->markers())
      QVERIFY2(!m->label().contains(QStringLiteral("rod")), qPrintable(m->label()));
  }

  // Thousands of frames (run as fast as the machine goes): the dock holds them all and draws at
  // most about two points per pixel column (the redraw's time is printed, not asserted: this
  // machine is shared and a timed test fails on load, not on a slowdown).
  void thousandsOfFramesAreDecimated() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/pendulum.json"));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("rod vx (m/s)")));
    QAction* realTime = findAction(w, QStringLiteral("Real-time s&ync"));
    QVERIFY(realTime);
    realTime->setChecked(false);
    QVERIFY(playUntil(w, 60.0));
    QVERIFY(settled(w));
    const auto snap = w.simulation().snapshot();
    QVERIFY(snap->history.frames > 3000);
    QCOMPARE(w.plots()->frames(), snap->history.frames);
    QLineSeries* vx = w.plots()->series(QStringLiteral("body:rod:3"));
    // (the chart lays its plot area out after the dock's last resize, and the dock decimates again
    // at its next refresh: under load that can be a few refreshes later. It decimates again only
    // when the width moved by more than 2 % (PlotDock::refresh), so the points are of a width up to
    // 2 % off: 510 points for 253 px were two per column of 255 px.)
    auto width = [&] { return int(w.plots()->chart()->plotArea().width()); };
    QTRY_VERIFY2_WITH_TIMEOUT(vx->count() <= 2 * (1.02 * width() + 1) + 2 && vx->count() > width() / 2,
                              qPrintable(QStringLiteral("%1 points for %2 px").arg(vx->count()).arg(width())), 10000);
    // its extremes are those of the whole run
    double lo = 1e9, hi = -1e9;
    for (const QPointF& p : vx->points()) lo = std::min(lo, p.y()), hi = std::max(hi, p.y());
    QVERIFY(hi - lo > 1.0);
    QElapsedTimer t;
    t.start();
    w.plots()->resize(w.plots()->width() - 1, w.plots()->height());  // a redraw of everything
    w.plots()->refresh();
    qInfo("redrawing %zu frames took %lld ms", w.plots()->frames(), t.elapsed());
    realTime->setChecked(true);
    w.document().undoStack()->setClean();
  }

  // The pendulum's energies in a 1280x800 window; the playhead is a red line at its time.
  // Saves plot_dock.png (docs/screenshots/plot_dock.png is this picture).
  void energiesScreenshot() {
    ui::MainWindow w;
    w.resize(1280, 800);
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/pendulum.json"));
    QVERIFY(openPlots(w));
    QVERIFY(pick(w, QStringLiteral("Kinetic energy (J)")));
    QVERIFY(pick(w, QStringLiteral("Potential energy (J)")));
    QVERIFY(pick(w, QStringLiteral("Total energy (J)")));
    QVERIFY(playUntil(w, 4.0));
    QVERIFY(settled(w));
    ui::PlotView* view = w.plots()->plotView();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(int(std::lround(view->xOf(2.5))), view->height() / 2));
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(view->playhead() - 2.5) < 0.05, 5000);
    w.viewport()->pollSnapshot();
    QTest::qWait(300);
    const QImage shot = w.screen()->grabWindow(w.winId()).toImage();
    QVERIFY(shot.save(QStringLiteral("plot_dock.png")));
    // the playhead: red pixels down a column of the plot area
    const QRectF area = w.plots()->chart()->plotArea();
    const QPoint top = view->viewport()->mapTo(&w, QPoint(int(std::lround(view->xOf(view->playhead()))), int(area.top())));
    int red = 0;
    for (int dy = 5; dy < int(area.height()) - 5; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const QColor c = shot.pixelColor(top + QPoint(dx, dy));
        if (c.red() > 180 && c.green() < 110 && c.blue() < 110) {
          ++red;
          break;
        }
      }
    QVERIFY2(red > int(area.height()) / 2, qPrintable(QStringLiteral("%1 of %2").arg(red).arg(area.height())));
    w.document().undoStack()->setClean();
  }
};

TETHER_GUI_TEST_MAIN(PlotDockTest)

#include "plot_dock_test.moc"
