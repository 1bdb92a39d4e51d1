// What every GUI test file shares: a shown window with its GL context, the front view, clicks
// and typing as a person does them, screenshots read back from the X server.
#pragma once
#include <QApplication>
#include <QDir>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QRandomGenerator>
#include <QScreen>
#include <QTemporaryDir>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <numbers>

#include "core/bench_scenes.h"
#include "core/constraints/distance.h"
#include "core/constraints/hinge.h"
#include "core/constraints/point_to_nail.h"
#include "core/constraints/point_to_point.h"
#include "core/scene_io.h"
#include "ui/main_window.h"


namespace tether::test {

using core::Vec3;

inline QPoint pixel(ui::ViewportWidget* v, const Vec3& w) {
  double x = 0, y = 0;
  v->camera().project(w, x, y);
  return QPoint(int(std::lround(x)), int(std::lround(y)));
}

// front view of the world origin from 4 m: the work plane is y = 0 (x right, z up)
inline void frontView(ui::ViewportWidget* v) {
  v->camera().set(Vec3(0, 0, 0.5), 4.0, -std::numbers::pi / 2, 0.0);
  v->update();
}

inline std::string json(const core::Scene& s) { return core::sceneToJson(s); }

// the viewport as the screen shows it
inline QImage screenshot(ui::ViewportWidget* v) {
  QWidget* top = v->window();
  const QImage whole = top->screen()->grabWindow(top->winId()).toImage();
  const QPoint at = v->mapTo(top, QPoint(0, 0));
  return whole.copy(QRect(at, v->size()));
}

// Play on past the scene's duration, where playing stops by itself (as a user presses Play again).
inline void playOnPastTheEnd(ui::MainWindow& w) {
  const auto snap = w.simulation().snapshot();
  if (snap->stoppedAtEnd && !snap->playing) w.play();
}

inline bool waitForSnapshot(ui::MainWindow& w, int timeoutMs = 10000) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < timeoutMs) {
    if (w.simulation().snapshot()->revision == w.document().revision()) {
      w.viewport()->pollSnapshot();
      QTest::qWait(50);  // a frame drawn from it
      return true;
    }
    QTest::qWait(10);
  }
  return false;
}

// A shown window whose viewport has its GL context, looking at the front.
inline bool ready(ui::MainWindow& w) {
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return false;
  QElapsedTimer t;
  t.start();
  while (!w.viewport()->glReady() && t.elapsed() < 5000) QTest::qWait(10);
  frontView(w.viewport());
  QTest::qWait(50);
  return w.viewport()->glReady();
}

// A door (a box 0.8 x 0.1 x 1 m, 80 kg) on a hinge "hinge" with axis z, at its left face centre
// (0.05, 0, 0.75), to a fixed post (0.1 x 0.1 x 1.2 m at the origin), turning at `spin`.
inline void hingedDoor(core::Scene& s, const Vec3& spin) {
  core::BodyDef door;
  door.name = "door";
  door.shape = core::Shape::Box;
  door.size = Vec3(0.8, 0.1, 1.0);
  door.position = Vec3(0.45, 0, 0.75);
  door.angularVelocity = spin;
  core::BodyDef post = door;
  post.name = "post";
  post.size = Vec3(0.1, 0.1, 1.2);
  post.position = Vec3(0, 0, 0.6);
  post.angularVelocity = Vec3::Zero();
  post.fixed = true;
  s.bodies = {door, post};
  core::HingeDef h;
  h.a = core::PointRef{.body = "door", .point = "left"};
  h.b = core::PointRef{.kind = core::PointRef::Kind::BodyLocal, .body = "post", .local = Vec3(0.05, 0, 0.15)};
  h.axisA = h.axisB = Vec3(0, 0, 1);
  s.constraints.push_back({.name = "hinge", .params = h});
}

// A 0.1 m ball, and a point-to-nail constraint holding its top.
inline core::BodyDef ball(const Vec3& at) {
  core::BodyDef b;
  b.name = "ball";
  b.shape = core::Shape::Sphere;
  b.radius = 0.1;
  b.position = at;
  return b;
}
inline core::ConstraintDef topToNail(const std::string& name, const std::string& nail) {
  core::ConstraintDef c;
  c.name = name;
  core::PointToNailDef cDef;
  cDef.point.body = "ball";
  cDef.point.point = "top";
  cDef.nail = nail;
  c.params = cDef;
  return c;
}

// The action of a context menu's submenu `submenu` whose text starts with `text`, or null.
inline QAction* menuAction(const QMenu& menu, const QString& submenu, const QString& text) {
  for (QAction* a : menu.findChildren<QAction*>())
    if (a->text().startsWith(text) && qobject_cast<QMenu*>(a->parent()) &&
        qobject_cast<QMenu*>(a->parent())->title() == submenu)
      return a;
  return nullptr;
}

// Type text into the inspector's number or text field `field` as a user does (select all,
// type, Return); false if there is no such field.
inline bool typeInto(ui::MainWindow& w, const char* field, const char* text) {
  QWidget* box = w.inspector()->findChild<QDoubleSpinBox*>(field);
  if (!box) box = w.inspector()->findChild<QLineEdit*>(field);
  if (!box) return false;
  box->setFocus();
  QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(box, text);
  QTest::keyClick(box, Qt::Key_Return);
  return true;
}

// The status bar's tool prompt: the tool and what its next click takes.
inline QString prompt(ui::MainWindow& w) {
  auto* l = w.statusBar()->findChild<QLabel*>("toolPrompt");
  return l ? l->text() : QString();
}
// The status bar's "Under the cursor: ..." (a label of its own).
inline QString underCursor(ui::MainWindow& w) {
  auto* l = w.statusBar()->findChild<QLabel*>("hoverName");
  return l ? l->text() : QString();
}

inline void click(ui::ViewportWidget* v, const QPoint& p) {
  QTest::mouseMove(v, p);
  QTest::mousePress(v, Qt::LeftButton, {}, p);
  QTest::mouseRelease(v, Qt::LeftButton, {}, p);
}


}  // namespace tether::test

// main() of a GUI test file: a home of the process's own for settings and recovery files
// (XDG_CONFIG_HOME, XDG_DATA_HOME: tests run side by side and one after another, and none may
// see another's saved settings or autosaved work), the GL surface format before the
// application, then the slots named on the command line (CMake runs one slot per ctest test).
#define TETHER_GUI_TEST_MAIN(TestClass)                           \
  int main(int argc, char** argv) {                               \
    QTemporaryDir home;                                           \
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toUtf8()); \
    qputenv("XDG_DATA_HOME", home.filePath("data").toUtf8());     \
    tether::ui::ViewportWidget::requestSurfaceFormat();           \
    QApplication app(argc, argv);                                 \
    QApplication::setOrganizationName("TetherTest");              \
    QApplication::setApplicationName("TetherGuiTest");            \
    TestClass t;                                                  \
    return QTest::qExec(&t, argc, argv);                          \
  }
