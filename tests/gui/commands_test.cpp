// The named undo commands (ui/commands.h) as the app makes them: each holds what its edit
// changes and not the scene, merges what one gesture does into one step, undoes exactly, and a
// refused edit leaves nothing behind.
#include "gui_util.h"

#include "ui/commands.h"
#include "ui/timeline.h"

using namespace tether;
using namespace tether::test;

namespace {

constexpr int kFar = 2000;  // bodies out of view: what a command must not copy

// The ball (its top held by a point-to-nail, a disable event on that) beside 2 000 spheres far
// below the view.
void ballAmongMany(core::Scene& s) {
  s = {};
  for (int i = 0; i < kFar; ++i) {
    core::BodyDef b = ball(Vec3(0.3 * (i % 50), 0, -40.0 - 0.3 * (i / 50)));
    b.name = "far" + std::to_string(i);
    b.fixed = true;
    s.bodies.push_back(b);
  }
  s.bodies.push_back(ball(Vec3(0.5, 0, 0.5)));
  s.nails.push_back({"hook", Vec3(0.5, 0, 1.0)});
  s.constraints.push_back(topToNail("pin", "hook"));
  core::EventDef e;
  e.time = 1.0;
  e.action = core::EventAction::Disable;
  e.target = "pin";
  s.events.push_back(e);
}

const ui::SceneCommand* lastCommand(ui::Document& doc) {
  const QUndoStack* u = doc.undoStack();
  return u->index() > 0 ? dynamic_cast<const ui::SceneCommand*>(u->command(u->index() - 1)) : nullptr;
}

}  // namespace

class CommandsTest : public QObject {
  Q_OBJECT
 private slots:
  // A drag of the ball in 100 mouse moves is one undo step that holds the ball's pose before and
  // after (not the 2 001 bodies), and one undo puts the document back exactly.
  void aHundredStepDragIsOneStepHoldingOnePose() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.document().edit("many", ballAmongMany));
    w.document().undoStack()->clear();
    const std::string before = json(w.document().scene());
    QVERIFY(w.setTool("select"));
    QVERIFY(waitForSnapshot(w));
    ui::ViewportWidget* v = w.viewport();
    QPoint p = pixel(v, Vec3(0.5, 0, 0.45));
    QTest::mousePress(v, Qt::LeftButton, {}, p);
    for (int i = 0; i < 100; ++i) QTest::mouseMove(v, p += QPoint(i % 2, -(i % 3 == 0)));
    QTest::mouseRelease(v, Qt::LeftButton, {}, p);
    QCOMPARE(w.document().undoStack()->count(), 1);
    QCOMPARE(w.document().undoStack()->text(0), QStringLiteral("Move ball"));
    QVERIFY((w.document().scene().bodies.back().position - Vec3(0.5, 0, 0.5)).norm() > 0.05);
    const ui::SceneCommand* c = lastCommand(w.document());
    QVERIFY(c);
    QCOMPARE(int(c->storedObjects()), 2);
    w.document().undoStack()->undo();
    QCOMPARE(json(w.document().scene()), before);
    w.document().undoStack()->redo();
    QVERIFY(json(w.document().scene()) != before);
    w.document().undoStack()->undo();
    QCOMPARE(json(w.document().scene()), before);
  }

  // Every kind of edit the app makes, in a scene of 2 001 bodies: each command holds a handful of
  // definitions, named for what it did, and the whole series undoes back to the start exactly.
  void everyEditHoldsOnlyWhatItChanges() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    ui::Document& doc = w.document();
    QVERIFY(doc.edit("many", ballAmongMany));
    doc.undoStack()->clear();
    std::vector<std::string> states{json(doc.scene())};
    auto step = [&](const QString& text, size_t atMost) {
      const ui::SceneCommand* c = lastCommand(doc);
      QVERIFY2(c, qPrintable(text));
      QVERIFY2(c->text().startsWith(text), qPrintable(c->text()));
      QVERIFY2(c->storedObjects() <= atMost, qPrintable(QStringLiteral("%1 holds %2").arg(text).arg(c->storedObjects())));
      states.push_back(json(doc.scene()));
    };

    // the inspector: three spin-box steps of one field are one "Edit density of ball"
    w.select({ui::Selection::Kind::Body, "ball"});
    auto* density = w.inspector()->findChild<QDoubleSpinBox*>("Density");
    QVERIFY(density);
    for (double d : {1100.0, 1200.0, 1300.0}) {
      density->setValue(d);
      QTest::qWait(10);  // the form rebuilds after each edit
      density = w.inspector()->findChild<QDoubleSpinBox*>("Density");
    }
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.scene().bodies.back().density, 1300.0);
    step(QStringLiteral("Edit density of ball"), 2);

    // a rename follows every reference and holds no definition
    auto* name = w.inspector()->findChild<QLineEdit*>("name");
    QVERIFY(name);
    name->setText("bob");
    emit name->editingFinished();
    QCOMPARE(doc.scene().constraints[0].params.as<core::PointToNailDef>().point.body, std::string("bob"));
    step(QStringLiteral("Rename ball to bob"), 0);

    // a timeline event
    QVERIFY(w.timeline()->view()->addEvent(core::EventAction::Enable, "pin", {}, {}, 2.0));
    step(QStringLiteral("Add enable pin at "), 1);

    // deleting the nail takes the constraint and its two events: kept to be put back in place
    w.select({ui::Selection::Kind::Nail, "hook"});
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text() == QStringLiteral("&Delete")) a->trigger();
    QVERIFY(doc.scene().constraints.empty() && doc.scene().events.empty() && doc.scene().nails.empty());
    step(QStringLiteral("Delete hook"), 4);

    // a nail placed by the tool
    QVERIFY(w.setTool("nail"));
    QVERIFY(waitForSnapshot(w));
    click(w.viewport(), pixel(w.viewport(), Vec3(-0.5, 0, 1.0)));
    QCOMPARE(int(doc.scene().nails.size()), 1);
    step(QStringLiteral("Add nail"), 1);

    QCOMPARE(doc.undoStack()->count(), int(states.size()) - 1);
    for (int i = int(states.size()) - 1; i > 0; --i) {
      QCOMPARE(json(doc.scene()), states[size_t(i)]);
      doc.undoStack()->undo();
    }
    QCOMPARE(json(doc.scene()), states[0]);
    for (size_t i = 1; i < states.size(); ++i) {
      doc.undoStack()->redo();
      QCOMPARE(json(doc.scene()), states[i]);
    }
  }

  // An edit that would make the scene invalid is refused with the reason: the scene, its
  // revision and the undo stack stay as they were.
  void aRefusedCommandLeavesNothing() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    ui::Document& doc = w.document();
    QVERIFY(doc.edit("many", ballAmongMany));
    const std::string before = json(doc.scene());
    const long revision = doc.revision();
    const int count = doc.undoStack()->count();
    QString error;
    QVERIFY(!doc.push(ui::EditProperty::make(doc, {false, core::ObjectKind::Body, "ball"}, "Radius",
                                             [](core::Scene& s) { s.bodies.front().radius = -1; }),
                      &error));
    QVERIFY2(error.contains("bodies[2000].radius"), qPrintable(error));
    QVERIFY(!doc.push(ui::RemoveObject::make(doc, core::ObjectKind::Body, "nobody"), &error));
    QCOMPARE(json(doc.scene()), before);
    QCOMPARE(doc.revision(), revision);
    QCOMPARE(doc.undoStack()->count(), count);
  }
};

TETHER_GUI_TEST_MAIN(CommandsTest)

#include "commands_test.moc"
