// The force legend and the overlay of issue 19, driven as a person would in a real window under
// Xvfb: a legend of round values that holds still over a swinging pendulum, the space station's
// round-off arrows not drawn once it rests, the View menu's fixed scale (held, and saved for the
// next session), and a conflicting constraint pair marked in the viewport and the outliner with
// the reason where the pointer rests.
#include <QMenuBar>
#include <QToolTip>
#include <QWheelEvent>

#include "gui_util.h"
#include "render/overlay.h"
#include "render/scene_walk.h"

using namespace tether;
using namespace tether::test;

namespace {

// a 1 m rod hanging from a nail by its end, released horizontal: the tension swings from 0 at
// the turning points to 3 m g at the bottom, every 0.82 s
const char* kPendulum = R"({
  "format": "tether-scene", "version": 1,
  "settings": {"dt": 0.001, "integrator": "rk4", "default_tau": 0.1},
  "bodies": [{"name": "rod", "type": "rod", "radius": 0.02, "ends": [[0, 0, 1.5], [1, 0, 1.5]]}],
  "nails": [{"name": "nail", "position": [0, 0, 1.5]}],
  "constraints": [{"name": "hang", "type": "point_to_nail", "point": "rod.end1", "nail": "nail"}]
})";

// a ball held by two nails 0.6 m apart: the pair conflicts (the centre cannot be at both);
// a second ball on a nail of its own is fine
const char* kConflict = R"({
  "format": "tether-scene", "version": 1,
  "settings": {"gravity_on": false},
  "bodies": [{"name": "ball", "type": "sphere", "radius": 0.1, "position": [0, 0, 0.9]},
             {"name": "free", "type": "sphere", "radius": 0.1, "position": [1.2, 0, 0.2]}],
  "nails": [{"name": "n1", "position": [-0.3, 0, 0.5]}, {"name": "n2", "position": [0.3, 0, 0.5]},
            {"name": "n3", "position": [1.2, 0, 0.2]}],
  "constraints": [{"name": "left", "type": "point_to_nail", "point": "ball.center", "nail": "n1"},
                  {"name": "right", "type": "point_to_nail", "point": "ball.center", "nail": "n2"},
                  {"name": "alone", "type": "point_to_nail", "point": "free.center", "nail": "n3"}]
})";

QString writeScene(const QTemporaryDir& dir, const char* name, const char* text) {
  const QString path = dir.filePath(QString::fromLatin1(name));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(text);
  return path;
}

// mantissa 1, 2 or 5: a value of the 1-2-5 ladder
bool round125(double v) {
  if (!(v > 0)) return false;
  const double m = v / std::pow(10.0, std::floor(std::log10(v) + 1e-9));
  return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9;
}

const ui::ViewportWidget::LegendRow* legendRow(ui::ViewportWidget* v, const QString& kind) {
  for (const auto& r : v->legend())
    if (r.kind == kind) return &r;
  return nullptr;
}

bool waitForTime(ui::MainWindow& w, double t, int timeoutMs = 20000) {
  QElapsedTimer timer;
  timer.start();
  while (w.simulation().snapshot()->t < t) {
    if (timer.elapsed() > timeoutMs) return false;
    QTest::qWait(10);
  }
  QTest::qWait(60);  // frames drawn from it
  return true;
}

// Click a menu bar's menu and then its item, as a person does.
bool clickMenuItem(ui::MainWindow& w, const QString& menuTitle, const QString& objectName) {
  QMenuBar* bar = w.menuBar();
  for (QAction* m : bar->actions()) {
    if (!m->menu() || m->text().remove(QLatin1Char('&')) != menuTitle) continue;
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(m).center());
    QMenu* menu = m->menu();
    if (!QTest::qWaitFor([&] { return menu->isVisible(); }, 2000)) return false;
    for (QAction* a : menu->actions())
      if (a->objectName() == objectName) {
        QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(a).center());
        return QTest::qWaitFor([&] { return !menu->isVisible(); }, 2000);
      }
    menu->close();
  }
  return false;
}

void wheel(ui::ViewportWidget* v, int notches) {
  const QPointF at(v->width() / 2.0, v->height() / 2.0);
  QWheelEvent e(at, v->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(v, &e);
}

int forceArrows(ui::ViewportWidget* v) {
  int n = 0;
  for (const render::Segment& s : v->drawnSegments()) n += s.kind == render::Segment::Kind::ConstraintForce;
  return n;
}

}  // namespace

class OverlayTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // settings of their own: the fixed scale must not leak into the other GUI tests
    QCoreApplication::setApplicationName(QStringLiteral("TetherOverlayTest"));
    QSettings().clear();
  }
  void cleanup() { QSettings().clear(); }

  // A steady swing: the tension runs from 0 to 3 m g and back twice a second, yet the legend
  // reads one round value ("50 N", not "34.2 N") frame after frame, and the arrows keep the
  // scale it stands for.
  void legendIsRoundAndSteadyOnASwingingPendulum() {
    QTemporaryDir dir;
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(writeScene(dir, "pendulum.json", kPendulum)));
    QVERIFY(waitForSnapshot(w));
    frontView(w.viewport());
    w.play();
    QVERIFY(waitForTime(w, 1.0));  // past the first bottom
    ui::ViewportWidget* v = w.viewport();
    QVERIFY(legendRow(v, "force"));
    const double value = legendRow(v, "force")->value, scale = v->arrowScales().force.unitsPerMetre();
    const QString text = legendRow(v, "force")->text;
    QVERIFY2(round125(value), qPrintable(text));
    QCOMPARE(text, QString::fromStdString(render::formatQuantity(value, "N")));
    double lowest = 1e300, highest = 0;
    const long frames0 = v->framesDrawn();
    const double t0 = w.simulation().snapshot()->t;
    while (w.simulation().snapshot()->t < t0 + 3.0) {
      QTest::qWait(15);
      const auto snap = v->shownSnapshot();
      if (snap->constraints.empty()) continue;
      const double f = snap->constraints[0].force[0].norm();
      lowest = std::min(lowest, f);
      highest = std::max(highest, f);
      const auto* row = legendRow(v, "force");
      QVERIFY(row);
      QCOMPARE(row->value, value);
      QCOMPARE(row->text, text);
      QCOMPARE(v->arrowScales().force.unitsPerMetre(), scale);
    }
    // (Mesa in software on a loaded 2-core machine draws 13-60 frames a second)
    QVERIFY2(v->framesDrawn() - frames0 > 20, qPrintable(QString::number(v->framesDrawn() - frames0)));
    // it did swing: the force went from near 0 to near 3 m g while the legend held
    QVERIFY2(lowest < 0.2 * highest, qPrintable(QStringLiteral("%1 .. %2 N").arg(lowest).arg(highest)));
    // and the bar stands for what the arrows are drawn at
    const double metresPerPixel = v->camera().pixelSize(v->camera().target());
    QVERIFY(std::abs(legendRow(v, "force")->pixels * metresPerPixel * scale - value) < 1e-9 * value);
    w.pause();
  }

  // The scale is learnt per run: after Reset and an edit that makes the forces 10 000 times
  // smaller, the legend follows the new run (it kept the largest force since the file was
  // opened: after a blow-up to 1e17 N, Undo and Reset left a legend no arrow could reach).
  void legendRelearnsAfterResetAndAnEdit() {
    QTemporaryDir dir;
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(writeScene(dir, "pendulum.json", kPendulum)));
    QVERIFY(waitForSnapshot(w));
    frontView(w.viewport());
    ui::ViewportWidget* v = w.viewport();
    w.play();
    QVERIFY(waitForTime(w, 1.0));
    w.pause();
    QTRY_VERIFY(!w.simulation().snapshot()->playing);
    const double heavy = v->arrowScales().force.reference();
    QVERIFY2(heavy > 1.0, qPrintable(QString::number(heavy)));
    w.simulation().reset();
    QVERIFY(w.document().edit("lighter", [](core::Scene& s) { s.bodies[0].density *= 1e-4; }));
    QVERIFY(waitForSnapshot(w));
    w.play();
    QVERIFY(waitForTime(w, 1.0));
    w.pause();
    const double light = v->arrowScales().force.reference();
    QVERIFY2(light > 0 && light < 1e-3 * heavy, qPrintable(QStringLiteral("%1 N after %2 N").arg(light).arg(heavy)));
    const auto* row = legendRow(v, "force");
    QVERIFY(row && row->value < 1e-2 * heavy);
  }

  // The space station docks (kilonewtons while it assembles) and then rests: its constraint
  // forces fall to round-off (1e-6 N and below), which a per-frame scale drew full length. Now
  // no force arrow is drawn and the legend keeps the scale of the motion.
  void spaceStationNoiseArrowsAreNotDrawn() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/space_station.json"));
    w.simulation().setRealTime(false);
    w.play();
    QVERIFY(waitForTime(w, 1.0));
    QVERIFY2(forceArrows(w.viewport()) > 0, "arrows while it docks");
    QVERIFY(waitForTime(w, 4.0, 90000));
    w.pause();
    QTest::qWait(100);
    ui::ViewportWidget* v = w.viewport();
    const auto snap = v->shownSnapshot();
    double largest = 0;
    for (const core::ConstraintDraw& c : snap->constraints)
      for (int s = 0; s < c.nb; ++s) largest = std::max(largest, c.force[s].norm());
    QVERIFY2(largest > 0 && largest < 1e-4, qPrintable(QString::number(largest)));  // it rests: only round-off is left
    QCOMPARE(forceArrows(v), 0);
    const auto* row = legendRow(v, "force");
    QVERIFY(row);
    QVERIFY2(row->value >= 0.1, qPrintable(row->text));  // not a micronewton scale
    // and on the screen: no pixel of a constraint's colour near the hub
    const QImage shot = screenshot(v);
    const QPoint hub = pixel(v, snap->bodies[0].x);
    int coloured = 0;
    for (int dy = -60; dy <= 60; ++dy)
      for (int dx = -60; dx <= 60; ++dx) {
        const QPoint p = hub + QPoint(dx, dy);
        if (!shot.rect().contains(p)) continue;
        const QColor c = shot.pixelColor(p);
        for (int j = 0; j < int(snap->constraints.size()); ++j) {
          const render::Color k = render::constraintColor(j);
          if (std::abs(c.red() - int(k.r * 255)) + std::abs(c.green() - int(k.g * 255)) + std::abs(c.blue() - int(k.b * 255)) < 12)
            ++coloured;
        }
      }
    QVERIFY2(coloured < 5, qPrintable(QString::number(coloured)));
  }

  // View → Fix arrow scale holds the scale where zooming out ten times would choose another,
  // saves it, and the next session starts with it.
  void fixedScaleHoldsAndIsSaved() {
    QTemporaryDir dir;
    const QString path = writeScene(dir, "pendulum.json", kPendulum);
    double fixed = 0;
    {
      ui::MainWindow w;
      QVERIFY(ready(w));
      QVERIFY(w.openFile(path));
      QVERIFY(waitForSnapshot(w));
      frontView(w.viewport());
      w.play();
      QVERIFY(waitForTime(w, 1.0));
      w.pause();
      QTest::qWait(100);
      ui::ViewportWidget* v = w.viewport();
      fixed = v->arrowScales().force.unitsPerMetre();
      QVERIFY(!v->fixedArrowScale());
      QVERIFY(clickMenuItem(w, "View", "fixArrowScale"));
      QVERIFY(v->fixedArrowScale());
      QVERIFY(w.findChild<QAction*>("fixArrowScale")->isChecked());
      QCOMPARE(QSettings().value("view/fixedArrowScale").toBool(), true);
      QCOMPARE(QSettings().value("view/fixedNewtonsPerMetre").toDouble(), fixed);
      wheel(v, -15);  // 11x farther: the arrows a tenth as long on screen
      QTest::qWait(100);
      QCOMPARE(v->arrowScales().force.unitsPerMetre(), fixed);
      const auto* row = legendRow(v, "force");
      QVERIFY(row && round125(row->value));
      QVERIFY2(v->legend().size() >= 1, "legend shown");
      // unfixed, the same view chooses another scale: the fixed one was held, not left alone
      QVERIFY(clickMenuItem(w, "View", "fixArrowScale"));
      QVERIFY(!v->fixedArrowScale());
      QCOMPARE(QSettings().value("view/fixedArrowScale").toBool(), false);
      v->update();
      QTest::qWait(100);
      QVERIFY2(v->arrowScales().force.unitsPerMetre() < fixed / 4,
               qPrintable(QStringLiteral("%1 vs %2").arg(v->arrowScales().force.unitsPerMetre()).arg(fixed)));
      // fixed again, at the value it now shows
      QVERIFY(clickMenuItem(w, "View", "fixArrowScale"));
      fixed = v->arrowScales().force.unitsPerMetre();
      QCOMPARE(QSettings().value("view/fixedNewtonsPerMetre").toDouble(), fixed);
      // ] with a fixed scale: one notch down the 1-2-5 ladder (longer arrows)
      w.activateWindow();
      QTRY_VERIFY(w.isActiveWindow());
      QTest::keyClick(v, Qt::Key_BracketRight);
      QCOMPARE(v->arrowScales().force.unitsPerMetre(), render::niceStep(fixed, -1));
      QTest::keyClick(v, Qt::Key_BracketLeft);
      QCOMPARE(v->arrowScales().force.unitsPerMetre(), fixed);
      w.document().undoStack()->setClean();
    }
    // the next session
    ui::MainWindow w2;
    QVERIFY(ready(w2));
    QVERIFY(w2.viewport()->fixedArrowScale());
    QVERIFY(w2.findChild<QAction*>("fixArrowScale")->isChecked());
    QVERIFY(w2.openFile(path));
    QVERIFY(waitForSnapshot(w2));
    frontView(w2.viewport());
    w2.play();
    QVERIFY(waitForTime(w2, 1.0));
    w2.pause();
    QCOMPARE(w2.viewport()->arrowScales().force.unitsPerMetre(), fixed);
  }

  // A conflicting pair (one ball, two nails apart) is marked in the flag's colour in the
  // viewport and in the outliner, the reason shows where the pointer rests on either; the
  // constraint that is fine is not marked.
  void conflictingPairIsHighlighted() {
    QTemporaryDir dir;
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(writeScene(dir, "conflict.json", kConflict)));
    QVERIFY(waitForSnapshot(w));
    frontView(w.viewport());
    QTRY_COMPARE(w.constraintIssuesRevision(), w.document().revision());
    QVERIFY(waitForSnapshot(w));
    ui::ViewportWidget* v = w.viewport();
    v->update();
    QTest::qWait(100);

    // viewport: the conflict colour at both nails of the pair, none at the third
    const QImage shot = screenshot(v);
    const render::Color red = render::conflictColor();
    auto marked = [&](const Vec3& at) {
      const QPoint c = pixel(v, at);
      int n = 0;
      for (int dy = -4; dy <= 4; ++dy)
        for (int dx = -4; dx <= 4; ++dx) {
          const QColor p = shot.pixelColor(c + QPoint(dx, dy));
          n += std::abs(p.red() - int(red.r * 255)) < 12 && p.green() < 20 && p.blue() < 20;
        }
      return n;
    };
    QVERIFY2(marked(Vec3(-0.3, 0, 0.5)) > 5, "n1 marked");
    QVERIFY2(marked(Vec3(0.3, 0, 0.5)) > 5, "n2 marked");
    QCOMPARE(marked(Vec3(1.2, 0, 0.2)), 0);

    // viewport: hovering the left constraint's line shows its reason
    const Vec3 mid = 0.5 * (Vec3(0, 0, 0.9) + Vec3(-0.3, 0, 0.5));
    QTest::mouseMove(v, pixel(v, mid));
    QTRY_VERIFY(!v->hoverText().isEmpty());
    QVERIFY2(v->hoverText().startsWith("left"), qPrintable(v->hoverText()));
    QVERIFY2(v->hoverText().contains(QStringLiteral("ball.center – nail:n1")), qPrintable(v->hoverText()));  // what it joins
    QVERIFY2(v->hoverText().contains("Conflicting") && v->hoverText().contains("\"right\""), qPrintable(v->hoverText()));

    // outliner: the pair in the flag's colour with the reason as tool tip; "alone" plain
    ui::Outliner* o = w.outliner();
    ui::SceneModel* m = w.sceneModel();
    auto find = [&](const char* name) { return m->indexOf({ui::Selection::Kind::Constraint, name}); };
    for (const char* name : {"left", "right"}) {
      const QModelIndex it = find(name);
      QVERIFY(it.isValid());
      QCOMPARE(it.data(Qt::ForegroundRole).value<QColor>(), QColor(200, 0, 0));
      QVERIFY(it.siblingAtColumn(ui::SceneModel::Status).data().toString().contains("conflicting"));
      o->scrollTo(it);
      const QPoint at = o->visualRect(it).center();
      QHelpEvent help(QEvent::ToolTip, at, o->viewport()->mapToGlobal(at));
      QApplication::sendEvent(o->viewport(), &help);
      QTRY_VERIFY(QToolTip::isVisible());
      QVERIFY2(QToolTip::text().startsWith("Conflicting"), qPrintable(QToolTip::text()));
      QVERIFY2(QToolTip::text().contains(QStringLiteral("\"%1\"").arg(name == QString("left") ? "right" : "left")),
               qPrintable(QToolTip::text()));
      QToolTip::hideText();
    }
    const QModelIndex alone = find("alone");
    QVERIFY(alone.isValid());
    QVERIFY(alone.data(Qt::ToolTipRole).toString().isEmpty());
    QVERIFY(alone.data(Qt::ForegroundRole).value<QColor>() != QColor(200, 0, 0));

    // moving n2 onto n1 resolves the conflict (redundant now): the marks follow the edit
    QVERIFY(w.document().edit("move n2", [](core::Scene& s) { s.nails[1].position = s.nails[0].position; }));
    QTRY_COMPARE(w.constraintIssuesRevision(), w.document().revision());
    QVERIFY(find("left").isValid());
    QTRY_COMPARE(find("left").data(Qt::ForegroundRole).value<QColor>(), QColor(170, 100, 0));
    QVERIFY(find("left").data(Qt::ToolTipRole).toString().startsWith("Redundant"));
    w.document().undoStack()->setClean();
  }

  // A hinge is drawn as two parts of one name (its point's force arrow, its axis's torque arrow):
  // hovering the torque arrow said "|F| = 0 N, |D| = 0" while the force arrow beside it said 68 N
  // (a helper's door). Each arrow now says the whole hinge's |F|, |D| and |T|.
  void aHingesTwoArrowsSayTheSameNumbers() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    ui::ViewportWidget* v = w.viewport();
    QVERIFY(w.document().edit("door", [](core::Scene& s) { hingedDoor(s, Vec3::Zero()); }));
    QVERIFY(waitForSnapshot(w));
    v->camera().set(Vec3(0.3, 0, 0.6), 3.0, -std::numbers::pi / 2 + 0.5, 0.4);
    v->update();
    // (at rest the hinge holds the door's weight: a force at its point, a torque about its axis)
    QTRY_VERIFY(std::any_of(v->drawnSegments().begin(), v->drawnSegments().end(),
                            [](const render::Segment& s) { return s.kind == render::Segment::Kind::ConstraintTorque; }));
    QStringList said;
    const std::vector<render::Segment> drawn = v->drawnSegments();  // (a copy: each repaint makes them anew)
    for (const render::Segment& s : drawn) {
      if (s.kind != render::Segment::Kind::ConstraintForce && s.kind != render::Segment::Kind::ConstraintTorque) continue;
      const QPoint at = pixel(v, s.from + 0.8 * (s.to - s.from));
      QTest::mouseMove(v, at + QPoint(30, 30));
      QTest::mouseMove(v, at);
      QTRY_VERIFY2(v->hoverText().startsWith("hinge"), qPrintable(v->hoverText()));
      said << v->hoverText();
    }
    QCOMPARE(said.size(), 2);
    QCOMPARE(said[0], said[1]);
    QVERIFY2(said[0].contains("|T| = ") && !said[0].contains("|F| = 0 N"), qPrintable(said[0]));
    w.document().undoStack()->setClean();
  }
};

TETHER_GUI_TEST_MAIN(OverlayTest)
#include "overlay_test.moc"
