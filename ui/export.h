// File → Export image and Export video (issue 19).
//
// An image is the viewport's picture rendered offscreen at the size asked for
// (ViewportWidget::renderImage: the same camera, view options, arrows' legend and axis letters).
// A video is the recorded history sampled at 1/fps over a range (the whole recording, or the loop
// range when one is set), each frame rendered the same way and piped as raw RGBA to ffmpeg
// (found at run time) which encodes MP4 (H.264, yuv420p) or WebM (VP9). Piping rather than
// writing PNGs first: no temporary picture files (a minute of 4K is gigabytes), no PNG
// compression on the UI thread, and ffmpeg encodes on the second core while the next frame
// renders. Without ffmpeg the frames are written as PNGs and the message says so.
//
// Long work runs from the event loop in small pieces (one frame at a time), never in a nested
// loop, under a window-modal QProgressDialog whose Cancel stops it and removes what was written.
// Output goes to a ".part" name first and is renamed at the end, so a failed or cancelled export
// never leaves a partial file and never destroys an existing one.
#pragma once

#include <QDialog>
#include <QElapsedTimer>
#include <QImage>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QProgressDialog>
#include <QSize>
#include <QString>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "ui/simulation_controller.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace tether::ui {

class ViewportWidget;

// Where ffmpeg is. The environment variable TETHER_FFMPEG, else the setting export/ffmpeg,
// names a binary (a path, or a name looked up on PATH); otherwise "ffmpeg" on PATH.
// path is empty when there is none; why then says where it looked.
struct FfmpegLookup {
  QString path;
  QString why;
};
FfmpegLookup findFfmpeg();

enum class VideoFormat { Mp4, WebM, PngFrames };

struct VideoOptions {
  QString path;  // the video file; PNG frames go to a folder beside it (framesDir)
  VideoFormat format = VideoFormat::Mp4;
  QSize size;
  int fps = 30;
  double start = 0.0, end = 0.0;  // s, of the recorded range
};

// The folder PNG frames of `videoPath` go to: "<dir>/<base>_frames".
QString framesDir(const QString& videoPath);
// The frame times: start + k / fps for k = 0 .. n-1, n = round((end - start) fps), at least 1,
// so the video lasts exactly the range.
std::vector<double> frameTimes(double start, double end, int fps);

// Size fields with presets (the viewport's size, 720p, 1080p, 4K) shared by both dialogs.
class SizeChooser;

class ExportImageDialog : public QDialog {
  Q_OBJECT
 public:
  ExportImageDialog(const QString& path, const QSize& viewportSize, QWidget* parent);
  QString path() const;
  QSize size() const;
  void accept() override;  // refuses an unusable path, asks before replacing a file

 private:
  QLineEdit* m_path;
  SizeChooser* m_size;
};

class ExportVideoDialog : public QDialog {
  Q_OBJECT
 public:
  ExportVideoDialog(const QString& path, const QSize& viewportSize, const HistoryInfo& history, QWidget* parent);
  VideoOptions options() const;
  void accept() override;

 private:
  void formatChanged();
  QLineEdit* m_path;
  QComboBox* m_format;
  SizeChooser* m_size;
  QSpinBox* m_fps;
  QDoubleSpinBox* m_start;
  QDoubleSpinBox* m_end;
  QLabel* m_note;
  FfmpegLookup m_ffmpeg;
};

// One video export, driven from the event loop. Deletes itself when done; finished() tells how.
class VideoExporter : public QObject {
  Q_OBJECT
 public:
  VideoExporter(ViewportWidget& viewport, SimulationController& sim, const VideoOptions& options, QWidget* parent);
  ~VideoExporter() override;
  // Starts (ffmpeg, or the frames folder) and returns; false with `error` if it cannot begin.
  bool start(QString& error);
  void cancel();
  // ffmpeg was asked for but not found: the frames were written as PNGs instead
  bool wrotePngsInstead() const { return m_pngsInstead; }

 signals:
  // ok: the output is complete at `output`; cancelled: the user stopped it (nothing left);
  // otherwise failed, and message says why (ffmpeg's own words when it failed).
  void finished(bool ok, bool cancelled, const QString& message, const QString& output);

 private:
  void step();
  void writeFrame(const QImage& image);
  void ffmpegFinished(int code, QProcess::ExitStatus status);
  void fail(const QString& message);
  void cleanUp();  // removes partial output
  void done(bool ok, bool cancelled, const QString& message);

  ViewportWidget& m_viewport;
  SimulationController& m_sim;
  VideoOptions m_options;
  QWidget* m_parent;
  QString m_note;  // said with the result (even sizes, no ffmpeg)
  std::vector<double> m_times;
  std::size_t m_next = 0;            // the next frame to render
  std::size_t m_requested = 0;       // frames asked of the solver thread so far
  std::deque<std::shared_ptr<const core::Snapshot>> m_ready;
  std::optional<std::future<SimulationController::Frames>> m_pending;
  QPointer<QProgressDialog> m_progress;
  QProcess* m_ffmpeg = nullptr;
  QString m_ffmpegPath;
  QByteArray m_ffmpegErrors;
  QString m_partPath;   // the video while it is written
  QString m_framesPart; // the PNG folder while it is written
  QString m_output;     // where the result lands
  bool m_allWritten = false, m_finished = false, m_stepQueued = false, m_pngsInstead = false, m_inStep = false;
  QElapsedTimer m_clock;
};

}  // namespace tether::ui

namespace tether::ui {

// The File menu's commands: the dialog (window-modal, not blocking the event loop), then the
// work; the outcome in the status bar, a failure also in a box. `scenePath` names the default
// file; `pause` stops playing first (a video samples the recording as it stands).
void exportImage(QWidget* window, ViewportWidget& viewport, const QString& scenePath,
                 const std::function<void(const QString&)>& status);
void exportVideo(QWidget* window, ViewportWidget& viewport, SimulationController& sim, const QString& scenePath,
                 const std::function<void()>& pause, const std::function<void(const QString&)>& status);

}  // namespace tether::ui
