// The end-to-end scenario of issue 19, as a new user plays it at 1280x800 with the mouse: the
// tool bar's buttons, clicks and drags in the viewport, the menus, the timeline's context menu.
// The model is built only by those events; the test reads the document and the solver's
// snapshots to check what happened.
#include "gui_util.h"

#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolBar>
#include <QToolButton>

using namespace tether;
using namespace tether::test;

namespace {

// The tool bar button of the tool named `name` ("Rod", "Point to nail"), clicked.
bool clickTool(ui::MainWindow& w, const QString& name) {
  for (QToolBar* bar : w.findChildren<QToolBar*>())
    for (QAction* a : bar->actions())
      if (a->text() == name) {
        QWidget* button = bar->widgetForAction(a);
        if (!button || !button->isVisible()) return false;
        QTest::mouseClick(button, Qt::LeftButton);
        return a->isChecked();
      }
  return false;
}

// Menu `menu` of the menu bar, then its item `item`, clicked (texts without the '&').
bool chooseMenu(ui::MainWindow& w, const QString& menu, const QString& item) {
  QMenuBar* bar = w.menuBar();
  for (QAction* m : bar->actions()) {
    if (m->text().remove('&') != menu || !m->menu()) continue;
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(m).center());
    QMenu* popup = m->menu();
    if (!QTest::qWaitFor([&] { return popup->isVisible(); }, 5000)) return false;
    for (QAction* a : popup->actions())
      if (a->text().remove('&') == item) {
        QTest::mouseClick(popup, Qt::LeftButton, {}, popup->actionGeometry(a).center());
        return QTest::qWaitFor([&] { return !popup->isVisible(); }, 5000);
      }
    QTest::keyClick(popup, Qt::Key_Escape);
    return false;
  }
  return false;
}

// A rod dragged out from `from` to `to` on the work plane.
void dragRod(ui::ViewportWidget* v, const Vec3& from, const Vec3& to) {
  QTest::mouseMove(v, pixel(v, from));
  QTest::mousePress(v, Qt::LeftButton, {}, pixel(v, from));
  QTest::mouseMove(v, pixel(v, 0.5 * (from + to)));
  QTest::mouseMove(v, pixel(v, to));
  QTest::mouseRelease(v, Qt::LeftButton, {}, pixel(v, to));
}

// The pointer brought over `p` (QTest moves the X pointer only when no button is down: a warp to
// where it already is, after a drag, sends no motion event, so it comes from a step away).
void hover(QWidget* v, const QPoint& p) {
  QTest::mouseMove(v, p + QPoint(4, 4));
  QTest::mouseMove(v, p);
}

// Right-click at `p` of `w` as the window system delivers it (the window turns it into a
// context-menu event); the menu that pops up, or null.
QMenu* contextMenu(QWidget* w, const QPoint& p) {
  QTest::mouseClick(w->window()->windowHandle(), Qt::RightButton, {}, w->mapTo(w->window(), p));
  if (!QTest::qWaitFor([] { return qobject_cast<QMenu*>(QApplication::activePopupWidget()); }, 5000)) return nullptr;
  return qobject_cast<QMenu*>(QApplication::activePopupWidget());
}

// The item `text` of a shown popup menu clicked; false if it has none.
bool chooseFrom(QMenu* menu, const QString& text) {
  for (QAction* a : menu->actions())
    if (a->text() == text) {
      QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(a).center());
      return QTest::qWaitFor([] { return !QApplication::activePopupWidget(); }, 5000);
    }
  return false;
}

}  // namespace

class ScenarioTest : public QObject {
  Q_OBJECT

 private slots:
  // Issue 19's scenario: a pendulum and a double pendulum built with the mouse alone, 60 s
  // played at the default settings (faster than real time) with the joints held to 1e-6 m, the
  // moving rod grabbed at 1x and pulled, a "disable at 1 s" event added through the timeline's
  // context menu, and the replay: the rod falls at 1 s and no mouse spring is left in it.
  void pendulumsByMouse() {
    ui::MainWindow w;
    w.resize(1280, 800);
    QVERIFY(ready(w));
    ui::ViewportWidget* v = w.viewport();
    const core::Scene& s = w.document().scene();

    // a pendulum: a rod dragged out, its upper end pinned to a new nail beside it
    QVERIFY(clickTool(w, "Rod"));
    dragRod(v, Vec3(-1.4, 0, 1.5), Vec3(-0.8, 0, 1.1));
    QCOMPARE(int(s.bodies.size()), 1);
    QVERIFY(waitForSnapshot(w));
    QVERIFY(clickTool(w, "Point to nail"));
    const QPoint a1 = pixel(v, Vec3(-1.4, 0, 1.5));
    hover(v, a1);
    QTRY_VERIFY2(underCursor(w).contains("control point rod1.end1"), qPrintable(underCursor(w)));
    click(v, a1);
    QTRY_VERIFY2(prompt(w).contains("Click a nail"), qPrintable(prompt(w)));
    click(v, a1 + QPoint(-16, 0));
    QCOMPARE(int(s.constraints.size()), 1);
    QCOMPARE(int(s.nails.size()), 1);
    QVERIFY(waitForSnapshot(w));

    // a double pendulum: two rods with a gap between them; the upper one's end to a new nail, its
    // lower end to the other rod's upper end (the model closes the gap as it assembles)
    QVERIFY(clickTool(w, "Rod"));
    dragRod(v, Vec3(0.1, 0, 1.5), Vec3(0.6, 0, 1.2));
    QVERIFY(waitForSnapshot(w));
    dragRod(v, Vec3(0.72, 0, 1.2), Vec3(1.2, 0, 0.9));
    QCOMPARE(int(s.bodies.size()), 3);
    QVERIFY(waitForSnapshot(w));
    QVERIFY(clickTool(w, "Point to nail"));
    const QPoint b1 = pixel(v, Vec3(0.1, 0, 1.5));
    hover(v, b1);
    QTRY_VERIFY2(underCursor(w).contains("control point rod2.end1"), qPrintable(underCursor(w)));
    click(v, b1);
    click(v, b1 + QPoint(-16, 0));
    QCOMPARE(int(s.constraints.size()), 2);
    QCOMPARE(int(s.nails.size()), 2);
    QVERIFY(waitForSnapshot(w));
    QVERIFY(clickTool(w, "Point to point"));
    const QPoint b2 = pixel(v, Vec3(0.6, 0, 1.2)), c1 = pixel(v, Vec3(0.72, 0, 1.2));
    hover(v, b2);
    QTRY_VERIFY2(underCursor(w).contains("control point rod2.end2"), qPrintable(underCursor(w)));
    click(v, b2);
    hover(v, c1);
    QTRY_VERIFY2(underCursor(w).contains("control point rod3.end1"), qPrintable(underCursor(w)));
    click(v, c1);
    QCOMPARE(int(s.constraints.size()), 3);
    auto pinned = [&](size_t i) {
      const auto& p = s.constraints[i].params.as<core::PointToNailDef>();
      return p.point.body + "." + p.point.point + " " + p.nail;
    };
    QCOMPARE(pinned(0), std::string("rod1.end1 nail1"));
    QCOMPARE(pinned(1), std::string("rod2.end1 nail2"));
    const auto* p2p = s.constraints[2].params.get<core::PointToPointDef>();
    QVERIFY(p2p);
    QCOMPARE(p2p->a.body + "." + p2p->a.point + " " + p2p->b.body + "." + p2p->b.point,
             std::string("rod2.end2 rod3.end1"));
    QVERIFY(waitForSnapshot(w));
    screenshot(v).save(QDir::currentPath() + "/scenario_built.png");

    // 60 s as fast as the machine allows (Simulation > Real-time sync off), Space to play and
    // to pause
    QVERIFY(chooseMenu(w, "Simulation", "Real-time sync"));
    QVERIFY(clickTool(w, "Select / move"));
    w.activateWindow();
    QTRY_VERIFY(w.isActiveWindow());
    v->setFocus();
    QTest::keyClick(v, Qt::Key_Space);
    // it stops at the scene's duration (10 s) and says so; Space plays on past it
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->stoppedAtEnd || !w.simulation().snapshot()->message.empty(), 60000);
    QTRY_VERIFY(!w.isPlaying());
    QCOMPARE(w.simulation().snapshot()->t, w.document().scene().settings.duration);
    QVERIFY(w.statusBar()->currentMessage().startsWith("Paused at the scene's duration"));
    QTest::keyClick(v, Qt::Key_Space);
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->t >= 60.0 || !w.simulation().snapshot()->message.empty(), 120000);
    QTest::keyClick(v, Qt::Key_Space);
    QTRY_VERIFY(!w.simulation().snapshot()->playing);
    auto snap = w.simulation().snapshot();
    QVERIFY2(snap->message.empty(), snap->message.c_str());  // no divergence caught
    // the joints held from 2 s on (20 tau: assembled) in every recorded frame
    ui::SampleCopy frames;
    w.simulation().samples().update(frames);
    const double frame = snap->history.framePeriod;
    QVERIFY(frames.samples.front()->t == 0.0 && frames.samples.back()->t >= 60.0);
    // every frame, and the one Play paused at, at the duration, off the frames' grid
    const double duration = w.document().scene().settings.duration;
    const double atDuration = std::abs(duration / frame - std::round(duration / frame)) > 1e-6 ? 1.0 : 0.0;
    QCOMPARE(double(frames.samples.size() - 1), std::round(frames.samples.back()->t / frame) + atDuration);
    // and the energy, once they hold, only drifts by a sliver of the swing's (semi-implicit
    // Euler dissipates a little; a growing energy is the first sign of a step going unstable)
    double worst = 0.0, e2 = 0.0, eMin = 1e300, eMax = -1e300, swing = 0.0;
    for (const ui::SamplePtr& f : frames.samples) {
      for (const Vec3& x : f->x) QVERIFY(x.allFinite() && x.norm() < 10.0);
      if (f->t < 2.0) continue;
      if (e2 == 0.0) e2 = f->energy.total();
      eMin = std::min(eMin, f->energy.total());
      eMax = std::max(eMax, f->energy.total());
      swing = std::max(swing, f->energy.kinetic);
      QCOMPARE(int(f->deviation.size()), 3);
      for (double d : f->deviation) {
        QVERIFY(d >= 0.0);  // active
        worst = std::max(worst, d);
      }
    }
    qInfo("from 2 s to %.2f s: max |D| %.3g m; energy %.4g J at 2 s, %.4g .. %.4g J, kinetic up to %.4g J", snap->t,
          worst, e2, eMin, eMax, swing);
    QVERIFY2(worst < 1e-6, qPrintable(QString("max |D| %1 m").arg(worst)));
    QVERIFY2(eMax - e2 < 0.01 * swing && e2 - eMin < 0.05 * swing, "the energy drifts");
    const double swung = snap->t;

    // back to real time at 1x; play; grab the swinging pendulum rod at its middle and pull it
    // sideways for half a simulated second: the mouse spring, no edit of the model
    QVERIFY(chooseMenu(w, "Simulation", "Real-time sync"));
    w.activateWindow();
    QTRY_VERIFY(w.isActiveWindow());
    v->setFocus();
    const std::string built = json(s);
    const int commands = w.document().undoStack()->count();
    QTest::keyClick(v, Qt::Key_Space);
    QTRY_VERIFY(v->shownSnapshot()->playing && v->shownSnapshot()->t > swung + 0.2);
    // where the screen shows it now: the press picks in the frame shown (no event is processed
    // in between, so no newer frame is drawn; the rod's middle moves up to 2 m/s, 20 px a frame)
    const QPoint grab = pixel(v, v->shownSnapshot()->bodies[0].x);
    QTest::mousePress(v, Qt::LeftButton, {}, grab);
    QCOMPARE(w.selection().name, std::string("rod1"));
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->mouseActive, 5000);
    const double grabbed = w.simulation().snapshot()->t;
    QPoint at = grab;
    for (int k = 0; k < 8; ++k) QTest::mouseMove(v, at += QPoint(10, 0));
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->t > grabbed + 0.5, 20000);
    QTest::mouseRelease(v, Qt::LeftButton, {}, at);
    QTRY_VERIFY(!w.simulation().snapshot()->mouseActive);
    const double released = w.simulation().snapshot()->t;
    QTest::keyClick(v, Qt::Key_Space);
    QTRY_VERIFY(!w.simulation().snapshot()->playing);
    QCOMPARE(w.document().undoStack()->count(), commands);
    QVERIFY(json(s) == built);
    qInfo("pulled from %.3f s to %.3f s", grabbed, released);

    // the timeline has paged along with the playhead: its context menu's Fit shows the whole
    // run; then right-click it at 1 s
    ui::TimelineView* tv = w.timeline()->view();
    QMenu* menu = contextMenu(tv, QPoint(tv->width() / 2, tv->laneY(0) + 10));
    QVERIFY(menu);
    QVERIFY(chooseFrom(menu, "Fit"));
    QVERIFY(tv->xAt(1.0) > tv->labelWidth() && tv->xAt(swung) < tv->width());
    menu = contextMenu(tv, QPoint(int(std::lround(tv->xAt(1.0))), tv->laneY(0) + 10));
    QVERIFY(menu);
    QAction* joint = nullptr;
    for (QAction* a : menu->actions())
      if (a->text() == "point_to_nail1" && a->menu()) joint = a;
    QVERIFY(p2p);
    hover(menu, menu->actionGeometry(joint).center());
    QTRY_VERIFY(joint->menu()->isVisible());
    QAction* disable = nullptr;
    for (QAction* a : joint->menu()->actions())
      if (a->text().startsWith("Disable at")) disable = a;
    QVERIFY(disable);
    QCOMPARE(disable->text(), QString("Disable at 1 s"));
    QTest::mouseClick(joint->menu(), Qt::LeftButton, {}, joint->menu()->actionGeometry(disable).center());
    QTRY_VERIFY(!QApplication::activePopupWidget());
    QCOMPARE(int(s.events.size()), 1);
    QCOMPARE(s.events[0].action, core::EventAction::Disable);
    QCOMPARE(s.events[0].target, std::string("point_to_nail1"));
    QCOMPARE(s.events[0].time, 1.0);
    QVERIFY(waitForSnapshot(w, 60000));  // the re-simulation from 1 s

    // replay from the start (the transport bar's button, then Space): the pendulum hangs until
    // 1 s and falls from there; no mouse spring in any frame shown
    QTest::mouseClick(w.timeline()->findChild<QToolButton*>("Jump to start"), Qt::LeftButton);
    QTRY_VERIFY(w.simulation().snapshot()->t == 0.0);
    w.activateWindow();
    QTRY_VERIFY(w.isActiveWindow());
    v->setFocus();
    QTest::keyClick(v, Qt::Key_Space);
    const Vec3 nail = s.nails[0].position;
    const double length = s.bodies[0].length;
    bool hung = false;
    for (;;) {
      snap = w.simulation().snapshot();
      QVERIFY(!snap->mouseActive);
      const core::BodyPose& pose = snap->bodies[0];
      const double end = (pose.x + pose.q * Vec3(0, 0, -0.5 * length) - nail).norm();
      if (snap->t >= 0.8 && snap->t < 1.0) {  // pulled to its nail (from 0.1 m: within 1 mm by 8 tau)
        QVERIFY2(end < 1e-3, qPrintable(QString("t = %1 s: end %2 m from its nail").arg(snap->t).arg(end)));
        hung = true;
      }
      if (snap->t >= 2.0) break;
      QTest::qWait(5);
    }
    QTest::keyClick(v, Qt::Key_Space);
    QTRY_VERIFY(!w.simulation().snapshot()->playing);
    QVERIFY(hung);
    snap = w.simulation().snapshot();
    QVERIFY(!snap->constraints[0].active);
    // fallen freely from 1 s: (1/2) g t^2 = 4.9 m at 2 s, the nail would hold it within 0.8 m
    QVERIFY2(snap->bodies[0].x.z() < nail.z() - 3.0, qPrintable(QString::number(snap->bodies[0].x.z())));
    // and where the pull was: recorded again without it, the body far below
    QTest::mouseClick(tv, Qt::LeftButton, {}, QPoint(int(std::lround(tv->xAt(0.5 * (grabbed + released)))), 10));
    QTRY_VERIFY(std::abs(w.simulation().snapshot()->t - 0.5 * (grabbed + released)) < 0.1);
    snap = w.simulation().snapshot();
    QVERIFY(!snap->mouseActive);
    QVERIFY(snap->bodies[0].x.z() < -1000.0);

    // the whole window as the screen shows it, once it has drawn that frame
    QTRY_VERIFY(v->shownSnapshot()->t == snap->t);
    QTest::qWait(100);  // (the status bar and timeline labels follow at display rate)
    w.screen()->grabWindow(w.winId()).save(QDir::currentPath() + "/scenario_end.png");
    w.document().undoStack()->setClean();
  }

  // Editing must not move the tools: the tool bar's Undo keeps its width when the command it
  // would undo gets a (long) name, so the Rod button stays under the cursor.
  void toolsStayPutAsEditsAreMade() {
    ui::MainWindow w;
    w.resize(1280, 800);
    QVERIFY(ready(w));
    ui::ViewportWidget* v = w.viewport();
    QWidget* rod = nullptr;
    for (QToolBar* bar : w.findChildren<QToolBar*>())
      for (QAction* a : bar->actions())
        if (a->text() == "Rod") rod = bar->widgetForAction(a);
    QVERIFY(rod);
    const QPoint before = rod->mapTo(&w, QPoint(0, 0));
    QVERIFY(clickTool(w, "Rod"));
    dragRod(v, Vec3(-0.5, 0, 1.0), Vec3(0.5, 0, 1.0));
    QCOMPARE(int(w.document().scene().bodies.size()), 1);
    QVERIFY(w.document().undoStack()->canUndo());
    QTest::qWait(50);  // the tool bars' layout
    QCOMPARE(rod->mapTo(&w, QPoint(0, 0)), before);
    auto* undo = w.findChild<QAction*>("toolBarUndo");
    QVERIFY(undo && undo->isEnabled());
    QCOMPARE(undo->toolTip(), QString("Undo Add rod"));
    // it undoes
    for (QToolBar* bar : w.findChildren<QToolBar*>())
      if (QWidget* b = bar->widgetForAction(undo)) QTest::mouseClick(b, Qt::LeftButton);
    QVERIFY(w.document().scene().bodies.empty());
    w.document().undoStack()->setClean();
  }

  // Issue 19: "at 1280 px the inspector dock hides the y/z fields". At 1280x800, with a body and
  // with a constraint selected, every field of the inspector lies inside its view across (no
  // sideways scrolling), and each number box is wide enough for the number it shows.
  void inspectorFieldsFitAt1280() {
    ui::MainWindow w;
    w.resize(1280, 800);
    QVERIFY(ready(w));
    ui::ViewportWidget* v = w.viewport();
    QVERIFY(clickTool(w, "Rod"));
    dragRod(v, Vec3(-0.6, 0, 1.2), Vec3(-0.2, 0, 0.5));
    QVERIFY(waitForSnapshot(w));
    QVERIFY(waitForSnapshot(w));
    dragRod(v, Vec3(0.3, 0, 1.2), Vec3(0.8, 0, 0.6));
    QVERIFY(waitForSnapshot(w));
    const core::Scene& s = w.document().scene();
    QCOMPARE(int(s.bodies.size()), 2);
    QVERIFY(clickTool(w, "Hinge"));
    click(v, pixel(v, Vec3(-0.2, 0, 0.5)));
    click(v, pixel(v, Vec3(0.3, 0, 1.2)));
    QCOMPARE(int(s.constraints.size()), 1);
    QVERIFY(clickTool(w, "Select / move"));

    auto* scroll = w.inspector()->findChild<QScrollArea*>();
    QVERIFY(scroll);
    auto check = [&](const QString& what) {
      // the rebuilt form shown and laid out
      QTRY_VERIFY(scroll->widget()->findChildren<QAbstractSpinBox*>().size() >= 3);
      QTRY_VERIFY(std::ranges::all_of(scroll->widget()->findChildren<QAbstractSpinBox*>(),
                                      [](QAbstractSpinBox* b) { return b->isVisible(); }));
      QTest::qWait(50);
      w.screen()->grabWindow(w.winId()).save(QDir::currentPath() + "/inspector_" + what + ".png");
      QVERIFY2(!scroll->horizontalScrollBar()->isVisible(), qPrintable(what + ": the inspector scrolls sideways"));
      for (QAbstractSpinBox* box : scroll->widget()->findChildren<QAbstractSpinBox*>()) {
        const QRect r(box->mapTo(scroll->viewport(), QPoint(0, 0)), box->size());
        QVERIFY2(r.left() >= 0 && r.right() < scroll->viewport()->width(),
                 qPrintable(QString("%1: %2 at x %3..%4 of %5").arg(what, box->objectName()).arg(r.left()).arg(r.right())
                                .arg(scroll->viewport()->width())));
        auto* line = box->findChild<QLineEdit*>();
        const int need = line->fontMetrics().horizontalAdvance(line->text());
        QVERIFY2(need <= line->width() - 4, qPrintable(QString("%1: %2 shows \"%3\" (%4 px) in %5 px")
                                                          .arg(what, box->objectName(), line->text()).arg(need).arg(line->width())));
      }
    };
    // a body: by clicking it (off its middle, where the hinge's assembly arrow runs)
    click(v, pixel(v, Vec3(0.675, 0, 0.75)));
    QVERIFY2(w.selection().name == s.bodies[1].name, w.selection().name.c_str());
    check("body");
    // the hinge: by its name in the outliner
    ui::Outliner* tree = w.outliner();
    const QModelIndex row = w.sceneModel()->indexOf({ui::Selection::Kind::Constraint, s.constraints[0].name});
    QVERIFY(row.isValid());
    tree->scrollTo(row);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(row).center());
    QCOMPARE(w.selection().name, s.constraints[0].name);
    check("hinge");
    w.document().undoStack()->setClean();
  }

  // A menu's items are reached from the keyboard by their underlined letters (Alt+S, then the
  // letter): two items of one menu with the same letter make that letter cycle between them
  // instead of choosing ("Real-time sync" and "Step" shared S, "Speed" and "Jump to end" E).
  void noTwoItemsOfAMenuShareTheirLetter() {
    ui::MainWindow w;
    std::function<void(QMenu*)> check = [&](QMenu* menu) {
      QMap<QChar, QString> owner;
      for (QAction* a : menu->actions()) {
        if (a->isSeparator() || !a->isVisible()) continue;
        const QString text = a->text();
        const qsizetype amp = text.indexOf(QRegularExpression("&[^&]"));
        if (amp >= 0) {
          const QChar key = text[amp + 1].toLower();
          QVERIFY2(!owner.contains(key), qPrintable(QString("%1: \"%2\" and \"%3\" both use %4")
                                                        .arg(menu->title(), owner.value(key), text, key)));
          owner[key] = text;
        }
        if (a->menu()) check(a->menu());
      }
    };
    for (QAction* m : w.menuBar()->actions())
      if (m->menu()) check(m->menu());
  }
};

TETHER_GUI_TEST_MAIN(ScenarioTest)

#include "scenario_test.moc"
