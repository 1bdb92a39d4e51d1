// Opening files and examples as a new user does: the view frames what opens, and the bundled
// examples are not the user's files.
#include "gui_util.h"

#include <QMenuBar>
#include <QSettings>

using namespace tether;
using namespace tether::test;

namespace {

// Every active body's centre is inside the viewport.
bool allInView(ui::ViewportWidget* v, QString& why) {
  const auto snap = v->shownSnapshot();
  if (!snap || !snap->geometry || snap->bodies.empty()) {
    why = "nothing shown";
    return false;
  }
  for (size_t i = 0; i < snap->bodies.size(); ++i) {
    if (!snap->bodies[i].active) continue;
    double x = 0, y = 0;
    if (!v->camera().project(snap->bodies[i].x, x, y) || x < 0 || y < 0 || x > v->width() || y > v->height()) {
      why = QString("%1 at (%2, %3) px is outside %4x%5")
                .arg(QString::fromStdString(snap->geometry->bodies[i].name))
                .arg(x).arg(y).arg(v->width()).arg(v->height());
      return false;
    }
  }
  return true;
}

QAction* exampleAction(ui::MainWindow& w, const QString& text) {
  for (QMenu* m : w.menuBar()->findChildren<QMenu*>())
    if (m->title() == "&Examples")
      for (QAction* a : m->actions())
        if (a->text() == text) return a;
  return nullptr;
}

}  // namespace

class FilesTest : public QObject {
  Q_OBJECT

 private slots:
  // Issue 19: "examples open with the previous camera (the chain between towers shows an empty
  // view; the card house is cut off); Frame all frames the start pose only. Examples open as the
  // bundled files themselves and push the user's files out of Open Recent."
  void anExampleOpensFramedAsAnUntitledCopy() {
    QTemporaryDir dir;
    const QString mine = dir.path() + "/mine.json";
    core::Scene s;
    s.bodies.push_back(ball(Vec3(0, 0, 0.5)));
    core::saveScene(s, mine.toStdString());

    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(mine));
    QVERIFY(waitForSnapshot(w));
    ui::ViewportWidget* v = w.viewport();
    for (const QString& example : {QString("chain between towers"), QString("card house")}) {
      v->camera().set(Vec3(40, -30, 25), 1.5, 0.3, 0.2);  // looking at nothing much
      QAction* open = exampleAction(w, example);
      QVERIFY(open);
      open->trigger();
      QVERIFY(waitForSnapshot(w));
      QString why;
      QTRY_VERIFY2(allInView(v, why), qPrintable(example + ": " + why));
      // an untitled copy: Save asks where; the title says what it is
      QVERIFY(w.document().filePath().isEmpty());
      QVERIFY2(w.windowTitle().contains("(example)"), qPrintable(w.windowTitle()));
    }
    // Open Recent still starts with the user's file and holds neither example
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    QVERIFY(!recent.isEmpty());
    QCOMPARE(recent.first(), QFileInfo(mine).absoluteFilePath());
    for (const QString& r : recent)
      QVERIFY2(!r.endsWith("chain_between_towers.json") && !r.endsWith("card_house.json"), qPrintable(r));

    // the card house assembles into a small house in the middle of where the cards started:
    // Frame all (F) then frames the house as shown, closer than the start pose's frame
    const double startDistance = v->camera().distance();
    w.play();
    QTRY_VERIFY_WITH_TIMEOUT(v->shownSnapshot()->t > 4.0, 60000);
    w.pause();
    QTRY_VERIFY(!v->shownSnapshot()->playing);
    w.activateWindow();
    QTRY_VERIFY(w.isActiveWindow());
    v->setFocus();
    QTest::keyClick(v, Qt::Key_F);
    QString why;
    QVERIFY2(allInView(v, why), qPrintable(why));
    QVERIFY2(v->camera().distance() < 0.8 * startDistance,
             qPrintable(QString("framed from %1 m, the start pose from %2 m").arg(v->camera().distance()).arg(startDistance)));
    w.document().undoStack()->setClean();
  }
};

TETHER_GUI_TEST_MAIN(FilesTest)

#include "files_test.moc"
