// The scene as a Qt item model (ui/scene_model.h): it keeps Qt's model rules through every kind
// of edit (QAbstractItemModelTester), its selection is the one the outliner, the viewport and
// the inspector share, and a name edited in the outliner is an undoable rename.
#include "gui_util.h"

#include <QAbstractItemModelTester>
#include <QTreeView>

#include "ui/outliner.h"

#include "ui/scene_model.h"

using namespace tether;
using namespace tether::test;

namespace {

// The ball held by a nail, and a nail on its own.
void ballOnAHook(core::Scene& s) {
  s = {};
  s.bodies.push_back(ball(Vec3(0.5, 0, 0.5)));
  s.nails.push_back({"hook", Vec3(0.5, 0, 0.9)});
  s.nails.push_back({"spare", Vec3(-0.5, 0, 0.9)});
  s.constraints.push_back(topToNail("pin", "hook"));
}

}  // namespace

class SceneModelTest : public QObject {
  Q_OBJECT
 private slots:
  // Adds, removes, property edits, renames, undo and redo, marks and a file opened: the tester
  // checks every signal and answer of the model against Qt's rules.
  void keepsQtsModelRules() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QAbstractItemModelTester tester(w.sceneModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    ui::Document& doc = w.document();
    QVERIFY(doc.edit("hook", ballOnAHook));
    QVERIFY(w.setTool("sphere"));
    QVERIFY(waitForSnapshot(w));
    click(w.viewport(), pixel(w.viewport(), Vec3(-0.5, 0, 0.3)));
    QCOMPARE(int(doc.scene().bodies.size()), 2);
    QCOMPARE(w.sceneModel()->rowCount(w.sceneModel()->index(ui::SceneModel::Bodies, 0)), 2);
    w.select({ui::Selection::Kind::Body, "ball"});
    QVERIFY(typeInto(w, "Density", "2000"));
    QVERIFY(w.sceneModel()->setData(w.sceneModel()->indexOf({ui::Selection::Kind::Body, "ball"}), "bob"));
    QVERIFY(!w.sceneModel()->setData(w.sceneModel()->indexOf({ui::Selection::Kind::Body, "bob"}), "hook"));
    QVERIFY(w.sceneModel()->lastError().contains("taken"));
    w.select({ui::Selection::Kind::Nail, "hook"});
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text() == QStringLiteral("&Delete")) a->trigger();
    QVERIFY(doc.scene().constraints.empty());
    while (doc.undoStack()->canUndo()) doc.undoStack()->undo();
    while (doc.undoStack()->canRedo()) doc.undoStack()->redo();
    QTRY_COMPARE(w.constraintIssuesRevision(), doc.revision());
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/compound_pendulum.json"));
    QTRY_COMPARE(w.constraintIssuesRevision(), doc.revision());
    doc.undoStack()->setClean();
  }

  // Select in one, the others follow: a click on the ball in the viewport selects its row in
  // the outliner and fills the inspector; a click on a row selects in the viewport; an edit that
  // adds rows keeps the selection.
  void oneSelectionForOutlinerViewportAndInspector() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.document().edit("hook", ballOnAHook));
    ui::SceneModel* m = w.sceneModel();
    ui::Outliner* o = w.outliner();
    QCOMPARE(o->selectionModel(), w.selectionModel());

    QVERIFY(w.setTool("select"));
    QVERIFY(waitForSnapshot(w));
    click(w.viewport(), pixel(w.viewport(), Vec3(0.5, 0, 0.5)));
    const ui::Selection picked{ui::Selection::Kind::Body, "ball"};
    QCOMPARE(w.viewport()->selection(), picked);
    QCOMPARE(w.selectionModel()->currentIndex(), m->indexOf(picked));
    QCOMPARE(w.inspector()->selection(), picked);

    const QModelIndex spare = m->indexOf({ui::Selection::Kind::Nail, "spare"});
    o->scrollTo(spare);
    QTest::mouseClick(o->viewport(), Qt::LeftButton, {}, o->visualRect(spare).center());
    const ui::Selection nail{ui::Selection::Kind::Nail, "spare"};
    QCOMPARE(w.viewport()->selection(), nail);
    QCOMPARE(w.inspector()->selection(), nail);
    QCOMPARE(w.selection(), nail);

    // a body added elsewhere (rows inserted): the nail stays selected in all three
    QVERIFY(w.document().edit("another", [](core::Scene& s) { s.bodies.insert(s.bodies.begin(), ball(Vec3(1, 0, 0))); s.bodies[0].name = "first"; }));
    QCOMPARE(w.selectionModel()->currentIndex(), m->indexOf(nail));
    QVERIFY(w.selectionModel()->isSelected(m->indexOf(nail)));
    QCOMPARE(w.inspector()->selection(), nail);
    w.document().undoStack()->setClean();
  }

  // F2 on a row, a new name, Return: the object and every reference to it are renamed as one
  // undo step, and the selection follows the name; a taken name is refused on the status bar.
  void renameInTheOutliner() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.document().edit("hook", ballOnAHook));
    ui::Outliner* o = w.outliner();
    ui::SceneModel* m = w.sceneModel();
    w.select({ui::Selection::Kind::Body, "ball"});
    auto rename = [&](const char* to) {
      o->setFocus();
      QTest::keyClick(o, Qt::Key_F2);
      auto* editor = o->findChild<QLineEdit*>();
      QVERIFY(editor);
      QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
      QTest::keyClicks(editor, to);
      QTest::keyClick(editor, Qt::Key_Return);
      QTest::qWait(10);
    };
    const int before = w.document().undoStack()->count();
    rename("bob");
    QCOMPARE(w.document().scene().bodies[0].name, std::string("bob"));
    QCOMPARE(w.document().scene().constraints[0].params.as<core::PointToNailDef>().point.body, std::string("bob"));
    QCOMPARE(w.document().undoStack()->count(), before + 1);
    QCOMPARE(w.document().undoStack()->text(before), QStringLiteral("Rename ball to bob"));
    const ui::Selection bob{ui::Selection::Kind::Body, "bob"};
    QCOMPARE(w.selectionModel()->currentIndex(), m->indexOf(bob));
    QCOMPARE(w.inspector()->selection(), bob);
    QCOMPARE(w.viewport()->selection(), bob);

    rename("hook");
    QCOMPARE(w.document().scene().bodies[0].name, std::string("bob"));
    QVERIFY2(w.statusBar()->currentMessage().contains("taken"), qPrintable(w.statusBar()->currentMessage()));
    w.document().undoStack()->undo();
    QCOMPARE(w.document().scene().bodies[0].name, std::string("ball"));
    w.document().undoStack()->setClean();
  }

  // At the default window size (1280 x 800) every object's name shows whole in the outliner:
  // the name column was squeezed to "S..." and "B..." beside "gravity, solver, time step".
  void outlinerShowsNamesWhole() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1280, 800);
    // names as the tools make them
    QVERIFY(w.document().edit("names", [](core::Scene& s) {
      ballOnAHook(s);
      s.bodies[0].name = "sphere12";
      s.constraints[0] = topToNail("point_to_nail12", "hook");
      s.constraints[0].params.as<core::PointToNailDef>().point.body = "sphere12";
    }));
    QVERIFY(waitForSnapshot(w));
    QTreeView* tree = w.outliner();
    QTest::qWait(50);
    const QAbstractItemModel* m = tree->model();
    int checked = 0;
    for (int g = 0; g < m->rowCount(); ++g) {
      const QModelIndex group = m->index(g, 0);
      std::vector<QModelIndex> rows{group};
      for (int r = 0; r < m->rowCount(group); ++r) rows.push_back(m->index(r, 0, group));
      for (const QModelIndex& i : rows) {
        const QString text = i.data().toString();
        const int icon = i.data(Qt::DecorationRole).isNull() ? 0 : tree->iconSize().width() + 6;
        const int need = tree->fontMetrics().horizontalAdvance(text) + icon;
        QVERIFY2(tree->visualRect(i).width() >= need,
                 qPrintable(QStringLiteral("\"%1\" needs %2 px, has %3").arg(text).arg(need).arg(tree->visualRect(i).width())));
        ++checked;
      }
    }
    QVERIFY(checked > 8);
  }
};

TETHER_GUI_TEST_MAIN(SceneModelTest)

#include "scene_model_test.moc"
