#include "ui/help.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QMainWindow>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <functional>

namespace tether::ui {

namespace {

// A dialog that closes itself when done (deleted on close) and does not block the window.
QDialog* helpWindow(QWidget* window, const char* objectName, const QString& title, QWidget* content) {
  auto* d = new QDialog(window);
  d->setObjectName(QString::fromLatin1(objectName));
  d->setWindowTitle(title);
  d->setAttribute(Qt::WA_DeleteOnClose);
  auto* layout = new QVBoxLayout(d);
  layout->addWidget(content);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, d);
  QObject::connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::close);
  layout->addWidget(buttons);
  d->resize(640, 560);
  d->show();
  // take the keyboard, so Esc closes it at once (without a window manager, as under Xvfb, a new
  // window is not given the focus: Esc went to the main window)
  d->raise();
  d->activateWindow();
  return d;
}

// The menu path of an action ("Simulation › Speed"), found through the menus that hold it.
QString menuPath(QAction* a) {
  QStringList path;
  for (QObject* p = a->parent(); p; p = p->parent()) {
    auto* m = qobject_cast<QMenu*>(p);
    if (!m) break;
    path.prepend(m->title().remove(QLatin1Char('&')));
  }
  return path.join(QStringLiteral(" › "));
}

}  // namespace

void showQuickStart(QWidget* window) {
  auto* text = new QTextBrowser;
  text->setOpenExternalLinks(false);
  text->setHtml(QObject::tr(
      "<h2>Quick start</h2>"
      "<h3>1. Watch an example</h3>"
      "<p><b>File › Examples</b> opens a bundled model. <b>Space</b> plays and pauses; the timeline at the "
      "bottom scrubs through what was played. Arrows show the constraint forces; hover one for its size.</p>"
      "<h3>2. Build a pendulum</h3>"
      "<ol><li><b>Nail</b> tool (<b>N</b>): click where the pivot goes.</li>"
      "<li><b>Rod</b> tool (<b>R</b>): press where the rod's top goes and drag to its bottom.</li>"
      "<li><b>Point to nail</b> tool (<b>Ctrl+1</b>): click the rod's top end (a control point), then the nail. "
      "The status bar always says what the next click takes and what is under the cursor.</li>"
      "<li><b>Space</b>: the rod swings from the nail. Constraints pull their points together, so parts "
      "placed apart assemble themselves.</li></ol>"
      "<h3>3. Play with it</h3>"
      "<p>While it plays, drag the rod with the <b>Select</b> tool (<b>S</b>): a spring pulls it to the cursor. "
      "Paused, dragging a body moves its start pose. <b>Ctrl+R</b> resets to the start.</p>"
      "<h3>4. Edit</h3>"
      "<p>Select a body, nail or constraint (click it, or pick it in the outliner) and change its numbers in the "
      "inspector. Every change can be undone (<b>Ctrl+Z</b>). The <b>Spring</b>, <b>Torsion spring</b>, "
      "<b>Damping</b>, <b>Constant force</b> and <b>Constant torque</b> tools add forces as their tips say. "
      "Right-click the timeline to add an event at that "
      "time: switch a constraint off, change gravity, ...</p>"
      "<h3>5. Look around</h3>"
      "<p>Right-drag orbits, middle-drag (or Shift+right-drag) pans, the wheel zooms toward the cursor; <b>F</b> frames everything, "
      "<b>1</b>–<b>7</b> are the standard views. <b>D</b> switches the debug overlay off for a clean animation.</p>"
      "<h3>6. Keep it</h3>"
      "<p><b>Ctrl+S</b> saves the scene as JSON; <b>tether-cli run</b> plays a saved scene without the window. "
      "<b>Help › Keyboard shortcuts</b> lists every key.</p>"));
  helpWindow(window, "quickStart", QObject::tr("Quick start"), text);
}

void showKeyboardShortcuts(QWidget* window) {
  auto* table = new QTableWidget(0, 3);
  table->setObjectName(QStringLiteral("shortcutTable"));
  table->setHorizontalHeaderLabels({QObject::tr("Keys"), QObject::tr("Action"), QObject::tr("Menu")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  // the window's menus in menu-bar order, each menu's actions in their order (submenus included)
  auto* mw = qobject_cast<QMainWindow*>(window);
  QList<QAction*> actions;
  std::function<void(QMenu*)> walk = [&](QMenu* m) {
    for (QAction* a : m->actions()) {
      if (a->menu()) walk(a->menu());
      else if (!a->shortcut().isEmpty() && !actions.contains(a)) actions.append(a);
    }
  };
  if (mw)
    for (QAction* top : mw->menuBar()->actions())
      if (top->menu()) walk(top->menu());
  for (QAction* a : actions) {
    const int row = table->rowCount();
    table->insertRow(row);
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    table->setItem(row, 0, new QTableWidgetItem(keys.join(QStringLiteral(", "))));
    table->setItem(row, 1, new QTableWidgetItem(a->text().remove(QLatin1Char('&'))));
    table->setItem(row, 2, new QTableWidgetItem(menuPath(a)));
  }
  // and what the mouse does in the viewport (no actions to read them from)
  const std::pair<QString, QString> mouse[] = {
      {QObject::tr("Right-drag"), QObject::tr("Orbit the view")},
      {QObject::tr("Middle-drag, Shift+right-drag"), QObject::tr("Pan the view")},
      {QObject::tr("Wheel"), QObject::tr("Zoom toward what the cursor points at")},
      {QObject::tr("Esc"), QObject::tr("Cancel a tool's first click or a drag")},
      {QObject::tr("Tab, Shift+Tab"), QObject::tr("Step through the control points and nails on one spot under the cursor")},
  };
  for (const auto& [keys, what] : mouse) {
    const int row = table->rowCount();
    table->insertRow(row);
    table->setItem(row, 0, new QTableWidgetItem(keys));
    table->setItem(row, 1, new QTableWidgetItem(what));
    table->setItem(row, 2, new QTableWidgetItem(QObject::tr("Viewport")));
  }
  table->resizeColumnsToContents();
  table->horizontalHeader()->setStretchLastSection(true);
  helpWindow(window, "keyboardShortcuts", QObject::tr("Keyboard shortcuts"), table);
}

}  // namespace tether::ui
