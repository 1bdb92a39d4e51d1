// Help → Quick start and Help → Keyboard shortcuts: non-modal windows over the main window.
#pragma once

class QWidget;

namespace tether::ui {

// A first session's steps: open an example, build a pendulum, play, pull, edit, save.
void showQuickStart(QWidget* window);
// Every shortcut of the window's actions, grouped by menu, read from the actions themselves
// (so the list is never out of date).
void showKeyboardShortcuts(QWidget* window);

}  // namespace tether::ui
