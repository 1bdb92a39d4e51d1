// Progress with Cancel for the solver's long work the UI does not drive itself: the
// re-simulation after a timeline edit (SimulationController rewinds to the first changed event
// and simulates up to where the playhead was, publishing how far it got). A window-modal
// QProgressDialog appears when it has run for a second; Cancel stops the solver where it is,
// which leaves the history ending there (a valid, shorter recording) and the frame there shown.
#pragma once

#include <QObject>
#include <QString>
#include <optional>
#include <QPointer>
#include <QProgressDialog>
#include <QTimer>

#include "ui/simulation_controller.h"

namespace tether::ui {

// Reads a scene file (core::loadScene: parse and validate) on a worker thread. The window
// takes no input meanwhile, as if it were busy; when reading takes over a second a window-modal
// progress dialog with Cancel appears. The scene, or nothing with `error` saying why (empty
// when the user cancelled: the open document is then untouched).
std::optional<core::Scene> readSceneWithProgress(QWidget* window, const QString& path, QString& error);

class ResimulationProgress : public QObject {
  Q_OBJECT
 public:
  ResimulationProgress(SimulationController& sim, QWidget* window);

 private:
  void poll();
  void pollOnce();

  SimulationController& m_sim;
  QWidget* m_window;
  QTimer m_timer;
  QPointer<QProgressDialog> m_dialog;
  long m_id = 0;  // the re-simulation the dialog is for
  bool m_polling = false;
};

}  // namespace tether::ui
