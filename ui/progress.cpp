#include "ui/progress.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <new>

#include "core/scene_io.h"

namespace tether::ui {

namespace {
// A read the user cancelled, still running: waited for when the window goes (a parse cannot
// be interrupted; it only reads its own copy of the path).
class AbandonedRead : public QObject {
 public:
  AbandonedRead(std::future<core::Scene> f, QObject* parent) : QObject(parent), m_future(std::move(f)) {}
  ~AbandonedRead() override {
    if (m_future.valid()) m_future.wait();
  }

 private:
  std::future<core::Scene> m_future;
};
}  // namespace

std::optional<core::Scene> readSceneWithProgress(QWidget* window, const QString& path, QString& error) {
  error.clear();
  std::future<core::Scene> read = std::async(std::launch::async, [file = path.toStdString()] { return core::loadScene(file); });
  QProgressDialog dialog(QObject::tr("Reading %1 (%2 MB)…").arg(QFileInfo(path).fileName()).arg(QFileInfo(path).size() / 1e6, 0, 'f', 1),
                         QObject::tr("Cancel"), 0, 0, window);
  dialog.setObjectName(QStringLiteral("loadProgress"));
  dialog.setWindowTitle(QObject::tr("Opening"));
  dialog.setWindowModality(Qt::WindowModal);
  dialog.setMinimumDuration(1000);  // only a read that takes over a second shows it
  dialog.setValue(0);
  while (read.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
    if (dialog.wasCanceled()) {
      new AbandonedRead(std::move(read), window);
      return std::nullopt;
    }
    // until the dialog shows, clicks and keys wait (as while any busy window): the document
    // must not change under the read; once it shows it blocks the window, and Cancel works
    QCoreApplication::processEvents(dialog.isVisible() ? QEventLoop::AllEvents : QEventLoop::ExcludeUserInputEvents, 20);
  }
  try {
    return read.get();
  } catch (const std::bad_alloc&) {
    error = path + QObject::tr(": out of memory while reading the scene: it needs more memory than this machine can give "
                               "(the open document is unchanged)");
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  return std::nullopt;
}

ResimulationProgress::ResimulationProgress(SimulationController& sim, QWidget* window)
    : QObject(window), m_sim(sim), m_window(window) {
  m_timer.setInterval(50);
  connect(&m_timer, &QTimer::timeout, this, &ResimulationProgress::poll);
  m_timer.start();
}

void ResimulationProgress::poll() {
  // (a modal QProgressDialog's setValue runs the event loop, where this timer may fire again)
  if (m_polling) return;
  m_polling = true;
  pollOnce();
  m_polling = false;
}

void ResimulationProgress::pollOnce() {
  const std::shared_ptr<const ControllerSnapshot> snap = m_sim.snapshot();
  const ResimulationInfo& r = snap->resimulation;
  if (!r.active || r.id != m_id) {
    if (m_dialog) {
      m_dialog->blockSignals(true);  // closing is not a Cancel
      m_dialog->reset();             // (stops its timer: a dialog not shown yet never shows)
      m_dialog->close();
      m_dialog->deleteLater();
      m_dialog = nullptr;
    }
  }
  if (!r.active) return;
  if (!m_dialog) {
    m_id = r.id;
    m_dialog = new QProgressDialog(m_window);
    m_dialog->setObjectName(QStringLiteral("resimulationProgress"));
    m_dialog->setWindowTitle(tr("Re-simulating"));
    m_dialog->setCancelButtonText(tr("Stop here"));
    m_dialog->setRange(0, 1000);
    m_dialog->setWindowModality(Qt::WindowModal);
    m_dialog->setAutoClose(false);
    m_dialog->setAutoReset(false);
    m_dialog->setMinimumDuration(1000);  // only a re-simulation that takes over a second shows it
    m_dialog->setValue(0);
    const long id = m_id;
    connect(m_dialog, &QProgressDialog::canceled, this, [this, id] {
      m_sim.cancelResimulation(id);
      if (m_dialog) m_dialog->setLabelText(tr("Stopping…"));
    });
  }
  if (m_dialog->wasCanceled()) return;
  const double span = std::max(r.to - r.from, 1e-12);
  const double done = std::clamp((snap->t - r.from) / span, 0.0, 1.0);
  m_dialog->setValue(std::min(999, int(std::lround(1000 * done))));
  m_dialog->setLabelText(tr("Re-simulating after the timeline edit: t = %1 s of %2 s.\n"
                            "Stop here keeps the frames up to where it got.")
                             .arg(snap->t, 0, 'f', 2)
                             .arg(r.to, 0, 'f', 2));
}

}  // namespace tether::ui
