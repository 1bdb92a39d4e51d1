#include "ui/export.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImageWriter>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "ui/viewport.h"

namespace tether::ui {

namespace {

// the largest side offered; the GPU's own limit is checked when rendering
constexpr int kMaxSide = 16384;

QString defaultPath(const QString& scenePath, const QString& suffix) {
  const QString lastDir = QSettings().value(QStringLiteral("export/lastDir")).toString();
  const QFileInfo scene(scenePath);
  // the last export's folder, else the scene's if it can be written (not an installed example's)
  const QString dir = !lastDir.isEmpty() && QDir(lastDir).exists()                      ? lastDir
                      : !scenePath.isEmpty() && QFileInfo(scene.absolutePath()).isWritable() ? scene.absolutePath()
                                                                                        : QDir::homePath();
  const QString base = scenePath.isEmpty() ? QStringLiteral("untitled") : scene.completeBaseName();
  return QDir(dir).filePath(base + suffix);
}

// A path a file can be written to: its folder exists and is writable.
bool checkWritable(QWidget* parent, const QString& path) {
  if (path.trimmed().isEmpty()) {
    QMessageBox::warning(parent, QObject::tr("Export"), QObject::tr("Choose a file to export to."));
    return false;
  }
  const QFileInfo dir(QFileInfo(path).absolutePath());
  if (!dir.isDir() || !dir.isWritable()) {
    QMessageBox::warning(parent, QObject::tr("Export"),
                         QObject::tr("Cannot write to %1: the folder %2 %3.")
                             .arg(path, dir.filePath(), dir.isDir() ? QObject::tr("is not writable") : QObject::tr("does not exist")));
    return false;
  }
  return true;
}

bool confirmReplace(QWidget* parent, const QString& path) {
  if (!QFileInfo::exists(path)) return true;
  return QMessageBox::question(parent, QObject::tr("Export"), QObject::tr("%1 exists. Replace it?").arg(QFileInfo(path).fileName()),
                               QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
}

QString sizeText(const QSize& s) { return QStringLiteral("%1×%2").arg(s.width()).arg(s.height()); }

// a path and a Browse… button that opens the file dialog
QWidget* pathRow(QWidget* parent, QLineEdit*& edit, const QString& initial, const QString& filter) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  edit = new QLineEdit(initial, row);
  edit->setObjectName(QStringLiteral("exportPath"));
  edit->setMinimumWidth(360);
  auto* browse = new QPushButton(QObject::tr("Browse…"), row);
  layout->addWidget(edit);
  layout->addWidget(browse);
  QLineEdit* e = edit;
  QObject::connect(browse, &QPushButton::clicked, row, [parent, e, filter] {
    // (the file dialog asks before replacing a file; the dialog's accept() does not ask again)
    const QString p = QFileDialog::getSaveFileName(parent, QObject::tr("Export to"), e->text(), filter);
    if (!p.isEmpty()) e->setText(p);
  });
  return row;
}

// An export dialog's layout: its form above Export and Cancel.
void layOutWithExportButtons(QDialog* dialog, QFormLayout* form) {
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
  buttons->button(QDialogButtonBox::Ok)->setText(QDialog::tr("Export"));
  QObject::connect(buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(dialog);
  layout->addLayout(form);
  layout->addWidget(buttons);
}

}  // namespace

FfmpegLookup findFfmpeg() {
  QString configured = qEnvironmentVariable("TETHER_FFMPEG");
  QString source = QStringLiteral("TETHER_FFMPEG");
  if (configured.isEmpty()) {
    configured = QSettings().value(QStringLiteral("export/ffmpeg")).toString();
    source = QStringLiteral("the setting export/ffmpeg");
  }
  if (!configured.isEmpty()) {
    if (!configured.contains(QLatin1Char('/'))) {
      const QString found = QStandardPaths::findExecutable(configured);
      if (!found.isEmpty()) return {found, {}};
      return {{}, QObject::tr("%1 (named by %2) is not on PATH").arg(configured, source)};
    }
    const QFileInfo fi(configured);
    if (fi.isFile() && fi.isExecutable()) return {fi.absoluteFilePath(), {}};
    return {{}, QObject::tr("%1 (named by %2) %3").arg(configured, source,
                                                       fi.exists() ? QObject::tr("is not executable") : QObject::tr("does not exist"))};
  }
  const QString found = QStandardPaths::findExecutable(QStringLiteral("ffmpeg"));
  if (!found.isEmpty()) return {found, {}};
  return {{}, QObject::tr("ffmpeg is not installed (not on PATH)")};
}

QString framesDir(const QString& videoPath) {
  const QFileInfo fi(videoPath);
  return QDir(fi.absolutePath()).filePath(fi.completeBaseName() + QStringLiteral("_frames"));
}

std::vector<double> frameTimes(double start, double end, int fps) {
  const long n = std::max(1L, std::lround((end - start) * fps));
  std::vector<double> t(static_cast<std::size_t>(n));
  for (long k = 0; k < n; ++k) t[std::size_t(k)] = start + double(k) / fps;
  return t;
}

// ---- size fields with presets ----

class SizeChooser : public QWidget {
 public:
  SizeChooser(const QSize& viewport, const QSize& initial, QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_preset = new QComboBox(this);
    m_preset->setObjectName(QStringLiteral("exportPreset"));
    m_width = new QSpinBox(this);
    m_height = new QSpinBox(this);
    m_width->setObjectName(QStringLiteral("exportWidth"));
    m_height->setObjectName(QStringLiteral("exportHeight"));
    for (QSpinBox* b : {m_width, m_height}) {
      b->setRange(16, kMaxSide);
      b->setSuffix(QStringLiteral(" px"));
    }
    m_width->setValue(initial.width());
    m_height->setValue(initial.height());
    const std::pair<QString, QSize> presets[] = {{tr("Viewport (%1)").arg(sizeText(viewport)), viewport},
                                                 {tr("720p (1280×720)"), {1280, 720}},
                                                 {tr("1080p (1920×1080)"), {1920, 1080}},
                                                 {tr("4K (3840×2160)"), {3840, 2160}}};
    m_preset->addItem(tr("Custom"), QSize());
    for (const auto& [name, s] : presets) m_preset->addItem(name, s);
    layout->addWidget(m_preset);
    layout->addWidget(m_width);
    layout->addWidget(new QLabel(QStringLiteral("×"), this));
    layout->addWidget(m_height);
    syncPreset();
    connect(m_preset, &QComboBox::activated, this, [this](int i) {
      const QSize s = m_preset->itemData(i).toSize();
      if (!s.isValid()) return;
      m_width->setValue(s.width());
      m_height->setValue(s.height());
    });
    connect(m_width, &QSpinBox::valueChanged, this, [this] { syncPreset(); });
    connect(m_height, &QSpinBox::valueChanged, this, [this] { syncPreset(); });
  }
  QSize size() const { return {m_width->value(), m_height->value()}; }

 private:
  void syncPreset() {
    int match = 0;
    for (int i = 1; i < m_preset->count(); ++i)
      if (m_preset->itemData(i).toSize() == size()) match = i;
    m_preset->setCurrentIndex(match);
  }
  QComboBox* m_preset;
  QSpinBox* m_width;
  QSpinBox* m_height;
};

// ---- image ----

ExportImageDialog::ExportImageDialog(const QString& path, const QSize& viewportSize, QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("exportImageDialog"));
  setWindowTitle(tr("Export image"));
  auto* form = new QFormLayout;
  form->addRow(tr("File:"), pathRow(this, m_path, path, tr("PNG image (*.png);;JPEG image (*.jpg *.jpeg)")));
  m_size = new SizeChooser(viewportSize, viewportSize, this);
  form->addRow(tr("Size:"), m_size);
  auto* note = new QLabel(tr("The viewport's picture as it is shown (camera, debug overlay, legend), rendered at this size; "
                             "the height keeps the view's vertical extent."),
                          this);
  note->setWordWrap(true);
  form->addRow(note);
  layOutWithExportButtons(this, form);
}

QString ExportImageDialog::path() const {
  QString p = m_path->text().trimmed();
  const QString suffix = QFileInfo(p).suffix().toLower();
  if (suffix != QStringLiteral("png") && suffix != QStringLiteral("jpg") && suffix != QStringLiteral("jpeg")) p += QStringLiteral(".png");
  return p;
}
QSize ExportImageDialog::size() const { return m_size->size(); }

void ExportImageDialog::accept() {
  if (!checkWritable(this, m_path->text()) || !confirmReplace(this, path())) return;
  QDialog::accept();
}

void exportImage(QWidget* window, ViewportWidget& viewport, const QString& scenePath,
                 const std::function<void(const QString&)>& status) {
  auto* dialog = new ExportImageDialog(defaultPath(scenePath, QStringLiteral(".png")), viewport.size(), window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(dialog, &QDialog::accepted, window, [window, &viewport, dialog, status] {
    const QString path = dialog->path();
    const QSize size = dialog->size();
    QSettings().setValue(QStringLiteral("export/lastDir"), QFileInfo(path).absolutePath());
    QApplication::setOverrideCursor(Qt::WaitCursor);
    QString error;
    const std::shared_ptr<const core::Snapshot> snap = viewport.shownSnapshot();
    const QImage image = snap ? viewport.renderImage(*snap, size, error) : QImage();
    if (!snap) error = QObject::tr("nothing is shown yet");
    if (!image.isNull()) {
      // through a QSaveFile: an existing file is replaced only by a complete picture
      QSaveFile file(path);
      QImageWriter writer(&file, QFileInfo(path).suffix().toLower() == QStringLiteral("png") ? "png" : "jpg");
      if (!file.open(QIODevice::WriteOnly)) error = file.errorString();
      else if (!writer.write(image)) error = writer.errorString();
      else if (!file.commit()) error = file.errorString();
    }
    QApplication::restoreOverrideCursor();
    if (!error.isEmpty()) {
      auto* box = new QMessageBox(QMessageBox::Critical, QObject::tr("Export image"),
                                  QObject::tr("%1 was not written: %2").arg(QFileInfo(path).fileName(), error), QMessageBox::Ok, window);
      box->setObjectName(QStringLiteral("errorBox"));
      box->setAttribute(Qt::WA_DeleteOnClose);
      box->open();
      status(QObject::tr("Image not exported: %1").arg(error));
      return;
    }
    status(QObject::tr("Exported %1 (%2)").arg(path, sizeText(size)));
  });
  dialog->open();
}

// ---- video ----

ExportVideoDialog::ExportVideoDialog(const QString& path, const QSize& viewportSize, const HistoryInfo& history, QWidget* parent)
    : QDialog(parent), m_ffmpeg(findFfmpeg()) {
  setObjectName(QStringLiteral("exportVideoDialog"));
  setWindowTitle(tr("Export video"));
  auto* form = new QFormLayout;
  form->addRow(tr("File:"), pathRow(this, m_path, path, tr("MP4 video (*.mp4);;WebM video (*.webm)")));
  m_format = new QComboBox(this);
  m_format->setObjectName(QStringLiteral("exportFormat"));
  m_format->addItem(tr("MP4 (H.264)"), int(VideoFormat::Mp4));
  m_format->addItem(tr("WebM (VP9)"), int(VideoFormat::WebM));
  m_format->addItem(tr("PNG frames"), int(VideoFormat::PngFrames));
  form->addRow(tr("Format:"), m_format);
  // H.264 and VP9 in yuv420p need even sides
  const QSize even(viewportSize.width() & ~1, viewportSize.height() & ~1);
  m_size = new SizeChooser(even, even, this);
  form->addRow(tr("Size:"), m_size);
  m_fps = new QSpinBox(this);
  m_fps->setObjectName(QStringLiteral("exportFps"));
  m_fps->setRange(1, 240);
  m_fps->setValue(30);
  m_fps->setSuffix(tr(" frames/s"));
  form->addRow(tr("Frame rate:"), m_fps);
  // the range: the loop's when one is set, else everything recorded
  const bool loop = history.loop && history.loopEnd > history.loopStart;
  const double from = loop ? std::max(history.start, history.loopStart) : history.start;
  const double to = loop ? std::min(history.end, history.loopEnd) : history.end;
  m_start = new QDoubleSpinBox(this);
  m_end = new QDoubleSpinBox(this);
  m_start->setObjectName(QStringLiteral("exportStart"));
  m_end->setObjectName(QStringLiteral("exportEnd"));
  for (QDoubleSpinBox* b : {m_start, m_end}) {
    b->setDecimals(3);
    b->setSuffix(QStringLiteral(" s"));
    b->setRange(history.start, history.end);
    b->setSingleStep(history.framePeriod);
  }
  m_start->setValue(from);
  m_end->setValue(to);
  auto* range = new QWidget(this);
  auto* rl = new QHBoxLayout(range);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->addWidget(m_start);
  rl->addWidget(new QLabel(tr("to"), range));
  rl->addWidget(m_end);
  form->addRow(tr("Time range:"), range);
  form->addRow(new QLabel(tr("Recorded: %1 s to %2 s%3")
                              .arg(history.start, 0, 'f', 3)
                              .arg(history.end, 0, 'f', 3)
                              .arg(loop ? tr(" (the range is the loop's)") : QString()),
                          this));
  m_note = new QLabel(this);
  m_note->setObjectName(QStringLiteral("exportNote"));
  m_note->setWordWrap(true);
  form->addRow(m_note);
  layOutWithExportButtons(this, form);
  if (m_ffmpeg.path.isEmpty()) m_format->setCurrentIndex(2);
  connect(m_format, &QComboBox::currentIndexChanged, this, [this] { formatChanged(); });
  connect(m_path, &QLineEdit::textChanged, this, [this] { formatChanged(); });
  formatChanged();
}

void ExportVideoDialog::formatChanged() {
  const auto format = VideoFormat(m_format->currentData().toInt());
  // the file's suffix follows the format
  QString p = m_path->text();
  const QFileInfo fi(p);
  const QString want = format == VideoFormat::WebM ? QStringLiteral("webm") : QStringLiteral("mp4");
  if (format != VideoFormat::PngFrames && (fi.suffix() == QStringLiteral("mp4") || fi.suffix() == QStringLiteral("webm")) &&
      fi.suffix() != want) {
    p.chop(fi.suffix().size());
    QSignalBlocker block(m_path);
    m_path->setText(p + want);
  }
  if (format == VideoFormat::PngFrames)
    m_note->setText(tr("Frames go to %1/ as frame_00001.png, …").arg(framesDir(m_path->text())));
  else if (m_ffmpeg.path.isEmpty())
    m_note->setText(tr("%1: the frames will be written as PNGs to %2/ instead (Debian: apt install ffmpeg).")
                        .arg(m_ffmpeg.why, framesDir(m_path->text())));
  else
    m_note->setText(tr("Encoded by %1.").arg(m_ffmpeg.path));
}

VideoOptions ExportVideoDialog::options() const {
  VideoOptions o;
  o.format = VideoFormat(m_format->currentData().toInt());
  o.path = m_path->text().trimmed();
  const QString suffix = QFileInfo(o.path).suffix().toLower();
  const QString want = o.format == VideoFormat::WebM ? QStringLiteral("webm") : QStringLiteral("mp4");
  if (suffix != want) o.path += QLatin1Char('.') + want;
  o.size = m_size->size();
  o.fps = m_fps->value();
  o.start = std::min(m_start->value(), m_end->value());
  o.end = std::max(m_start->value(), m_end->value());
  return o;
}

void ExportVideoDialog::accept() {
  const VideoOptions o = options();
  if (!checkWritable(this, m_path->text())) return;
  if (o.format != VideoFormat::PngFrames && !m_ffmpeg.path.isEmpty() && !confirmReplace(this, o.path)) return;
  QDialog::accept();
}

VideoExporter::VideoExporter(ViewportWidget& viewport, SimulationController& sim, const VideoOptions& options, QWidget* parent)
    : QObject(parent), m_viewport(viewport), m_sim(sim), m_options(options), m_parent(parent) {}

VideoExporter::~VideoExporter() {
  // destroyed unfinished (the window closed mid-export): stop ffmpeg without reporting to a
  // window that is going away, and remove what was written
  const bool unfinished = !m_finished;
  m_finished = true;
  if (m_ffmpeg) {
    disconnect(m_ffmpeg, nullptr, this, nullptr);
    if (m_ffmpeg->state() != QProcess::NotRunning) {
      m_ffmpeg->kill();
      m_ffmpeg->waitForFinished(3000);
    }
  }
  if (unfinished) cleanUp();
  if (m_progress) m_progress->deleteLater();
}

bool VideoExporter::start(QString& error) {
  m_times = frameTimes(m_options.start, m_options.end, m_options.fps);
  bool encode = m_options.format != VideoFormat::PngFrames;
  if (encode) {
    const FfmpegLookup ff = findFfmpeg();
    if (ff.path.isEmpty()) {
      encode = false;
      m_pngsInstead = true;
      m_note = tr("%1, so the frames were written as PNGs (install ffmpeg to get %2: Debian: apt install ffmpeg). ")
                   .arg(ff.why, m_options.format == VideoFormat::WebM ? tr("WebM") : tr("MP4"));
    }
    m_ffmpegPath = ff.path;
    // yuv420p halves the chroma resolution: both sides must be even
    const QSize even(std::max(2, m_options.size.width() & ~1), std::max(2, m_options.size.height() & ~1));
    if (encode && even != m_options.size) {
      m_note = tr("The size %1 was rounded to %2 (H.264 and VP9 in yuv420p need even sides). ").arg(sizeText(m_options.size), sizeText(even));
      m_options.size = even;
    }
  }
  if (encode) {
    m_output = m_options.path;
    m_partPath = m_output + QStringLiteral(".part");
    QFile::remove(m_partPath);  // a leftover of a crash: ours by its name
    const bool webm = m_options.format == VideoFormat::WebM;
    QStringList args{QStringLiteral("-hide_banner"), QStringLiteral("-loglevel"), QStringLiteral("error"), QStringLiteral("-y"),
                     QStringLiteral("-f"), QStringLiteral("rawvideo"), QStringLiteral("-pix_fmt"), QStringLiteral("rgba"),
                     QStringLiteral("-s"), sizeText(m_options.size).replace(QStringLiteral("×"), QStringLiteral("x")),
                     QStringLiteral("-framerate"), QString::number(m_options.fps), QStringLiteral("-i"), QStringLiteral("pipe:0")};
    if (webm)
      args << QStringLiteral("-c:v") << QStringLiteral("libvpx-vp9") << QStringLiteral("-crf") << QStringLiteral("32")
           << QStringLiteral("-b:v") << QStringLiteral("0") << QStringLiteral("-row-mt") << QStringLiteral("1")
           << QStringLiteral("-deadline") << QStringLiteral("good") << QStringLiteral("-cpu-used") << QStringLiteral("4")
           << QStringLiteral("-pix_fmt") << QStringLiteral("yuv420p") << QStringLiteral("-f") << QStringLiteral("webm");
    else
      args << QStringLiteral("-c:v") << QStringLiteral("libx264") << QStringLiteral("-preset") << QStringLiteral("medium")
           << QStringLiteral("-crf") << QStringLiteral("18") << QStringLiteral("-pix_fmt") << QStringLiteral("yuv420p")
           << QStringLiteral("-movflags") << QStringLiteral("+faststart") << QStringLiteral("-f") << QStringLiteral("mp4");
    args << m_partPath;
    m_ffmpeg = new QProcess(this);
    m_ffmpeg->setProcessChannelMode(QProcess::SeparateChannels);
    m_ffmpeg->setStandardOutputFile(QProcess::nullDevice());
    connect(m_ffmpeg, &QProcess::readyReadStandardError, this, [this] {
      m_ffmpegErrors += m_ffmpeg->readAllStandardError();
      if (m_ffmpegErrors.size() > 16384) m_ffmpegErrors = m_ffmpegErrors.right(16384);
    });
    connect(m_ffmpeg, &QProcess::finished, this, &VideoExporter::ffmpegFinished);
    m_ffmpeg->start(m_ffmpegPath, args);
    if (!m_ffmpeg->waitForStarted(10000)) {
      error = tr("ffmpeg (%1) did not start: %2").arg(m_ffmpegPath, m_ffmpeg->errorString());
      m_finished = true;
      return false;
    }
  } else {
    // a new folder of frames: never into (or over) one that exists
    QString dir = framesDir(m_options.path);
    for (int k = 2; QFileInfo::exists(dir); ++k) dir = framesDir(m_options.path) + QStringLiteral("_%1").arg(k);
    m_output = dir;
    m_framesPart = dir + QStringLiteral(".part");
    QDir(m_framesPart).removeRecursively();
    if (!QDir().mkpath(m_framesPart)) {
      error = tr("cannot make the folder %1").arg(m_framesPart);
      m_finished = true;
      return false;
    }
  }
  m_progress = new QProgressDialog(tr("Rendering frame 1 of %1…").arg(m_times.size()), tr("Cancel"), 0, int(m_times.size()), m_parent);
  m_progress->setObjectName(QStringLiteral("exportProgress"));
  m_progress->setWindowTitle(tr("Export video"));
  m_progress->setWindowModality(Qt::WindowModal);
  m_progress->setAutoClose(false);
  m_progress->setAutoReset(false);
  m_progress->setMinimumDuration(1000);  // only work that takes over a second shows it
  m_progress->setValue(0);
  connect(m_progress, &QProgressDialog::canceled, this, &VideoExporter::cancel);
  m_clock.start();
  m_stepQueued = true;
  QTimer::singleShot(0, this, &VideoExporter::step);
  return true;
}

void VideoExporter::step() {
  m_stepQueued = false;
  if (m_finished || m_allWritten) return;
  if (m_inStep) {
    // (a modal QProgressDialog's setValue runs the event loop: a queued step may land in it)
    m_stepQueued = true;
    QTimer::singleShot(1, this, &VideoExporter::step);
    return;
  }
  struct Guard {
    bool& b;
    explicit Guard(bool& f) : b(f) { b = true; }
    ~Guard() { b = false; }
  } guard(m_inStep);
  if (m_ready.empty()) {
    if (!m_pending && m_requested < m_times.size()) {
      // a few frames at a time from the solver thread
      const std::size_t n = std::min<std::size_t>(8, m_times.size() - m_requested);
      m_pending = m_sim.recordedFrames(std::vector<double>(m_times.begin() + long(m_requested), m_times.begin() + long(m_requested + n)));
      m_requested += n;
    }
    if (m_pending) {
      if (m_pending->wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
        m_stepQueued = true;
        QTimer::singleShot(1, this, &VideoExporter::step);
        return;
      }
      try {
        for (auto& f : m_pending->get()) m_ready.push_back(std::move(f));
      } catch (const std::exception& e) {
        m_pending.reset();
        fail(tr("could not read the recorded frames: %1").arg(QString::fromUtf8(e.what())));
        return;
      }
      m_pending.reset();
    }
  }
  if (m_ready.empty()) return;
  const std::shared_ptr<const core::Snapshot> snap = std::move(m_ready.front());
  m_ready.pop_front();
  if (!snap) {
    fail(tr("nothing is recorded at t = %1 s (the history was cleared?)").arg(m_times[m_next], 0, 'f', 3));
    return;
  }
  QString error;
  const QImage image = m_viewport.renderImage(*snap, m_options.size, error);
  if (image.isNull()) {
    fail(tr("frame %1 could not be rendered: %2").arg(m_next + 1).arg(error));
    return;
  }
  writeFrame(image);
  if (m_finished) return;
  ++m_next;
  if (m_progress) {
    m_progress->setValue(int(m_next));
    m_progress->setLabelText(m_next < m_times.size()
                                 ? tr("Rendering frame %1 of %2 (t = %3 s)…").arg(m_next + 1).arg(m_times.size()).arg(m_times[m_next], 0, 'f', 3)
                                 : tr("Finishing the encoding…"));
    if (m_finished) return;  // cancelled from within setValue's event processing
  }
  if (m_next == m_times.size()) {
    m_allWritten = true;
    if (m_ffmpeg) m_ffmpeg->closeWriteChannel();  // ffmpeg finishes the file and exits
    else done(true, false, {});
    return;
  }
  if (!m_stepQueued) {
    m_stepQueued = true;
    QTimer::singleShot(0, this, &VideoExporter::step);
  }
}

void VideoExporter::writeFrame(const QImage& image) {
  if (m_ffmpeg) {
    // RGBA rows of width * 4 bytes: no padding, what -pix_fmt rgba reads
    const QImage rgba = image.convertToFormat(QImage::Format_RGBA8888);
    if (m_ffmpeg->state() != QProcess::Running) return;  // its finished() says why
    m_ffmpeg->write(reinterpret_cast<const char*>(rgba.constBits()), rgba.sizeInBytes());
    // Hand the whole frame to ffmpeg before the next: waitForBytesWritten feeds the 64 KB pipe
    // as fast as ffmpeg reads (a 1080p frame is 8 MB; left to the event loop, one pipe-full per
    // loop iteration, export ran at 1 frame/s with ffmpeg idle). ffmpeg takes a frame and encodes
    // it on its own threads, so this waits little; Cancel is seen between frames.
    QElapsedTimer stalled;
    stalled.start();
    while (m_ffmpeg->bytesToWrite() > 0 && m_ffmpeg->state() == QProcess::Running) {
      if (m_ffmpeg->waitForBytesWritten(100)) stalled.restart();
      else if (stalled.elapsed() > 60000) {
        fail(tr("ffmpeg stopped reading frames for a minute"));
        return;
      }
    }
    return;
  }
  const QString file = QDir(m_framesPart).filePath(QStringLiteral("frame_%1.png").arg(m_next + 1, 5, 10, QLatin1Char('0')));
  QImageWriter writer(file, "png");
  if (!writer.write(image)) fail(tr("cannot write %1: %2").arg(file, writer.errorString()));
}

void VideoExporter::ffmpegFinished(int code, QProcess::ExitStatus status) {
  if (m_finished) return;
  m_ffmpegErrors += m_ffmpeg->readAllStandardError();
  const QString said = QString::fromLocal8Bit(m_ffmpegErrors).trimmed();
  if (status != QProcess::NormalExit || code != 0 || !m_allWritten) {
    fail(tr("ffmpeg failed (%1)%2")
             .arg(status != QProcess::NormalExit ? tr("it crashed") : tr("exit code %1").arg(code),
                  said.isEmpty() ? QString() : QStringLiteral(":\n") + said));
    return;
  }
  done(true, false, {});
}

void VideoExporter::cancel() {
  if (m_finished) return;
  done(false, true, tr("Video export cancelled: nothing was written."));
}

void VideoExporter::fail(const QString& message) { done(false, false, message); }

void VideoExporter::cleanUp() {
  if (!m_partPath.isEmpty()) QFile::remove(m_partPath);
  if (!m_framesPart.isEmpty()) QDir(m_framesPart).removeRecursively();
}

void VideoExporter::done(bool ok, bool cancelled, const QString& message) {
  if (m_finished) return;
  m_finished = true;
  if (m_ffmpeg && m_ffmpeg->state() != QProcess::NotRunning) {
    // stop the encoder before removing the file it writes
    disconnect(m_ffmpeg, nullptr, this, nullptr);
    m_ffmpeg->kill();
    m_ffmpeg->waitForFinished(3000);
  }
  QString text = message;
  if (ok) {
    // the finished output replaces the name asked for only now
    std::error_code ec;
    const QString from = m_ffmpeg ? m_partPath : m_framesPart;
    if (m_ffmpeg) std::filesystem::remove(m_output.toStdString(), ec);
    ec.clear();
    std::filesystem::rename(from.toStdString(), m_output.toStdString(), ec);
    if (ec) {
      ok = false;
      text = tr("the finished export could not be renamed to %1: %2").arg(m_output, QString::fromStdString(ec.message()));
    } else {
      text = m_note + tr("Exported %1 frames (%2, %3 frames/s, t = %4 to %5 s) to %6 in %7 s.")
                          .arg(m_times.size())
                          .arg(sizeText(m_options.size))
                          .arg(m_options.fps)
                          .arg(m_options.start, 0, 'f', 3)
                          .arg(m_options.end, 0, 'f', 3)
                          .arg(m_ffmpeg ? m_output : m_output + QStringLiteral("/"))
                          .arg(m_clock.elapsed() / 1000.0, 0, 'f', 1);
      if (!m_ffmpeg && m_options.format != VideoFormat::PngFrames)
        text += tr(" To encode them later: ffmpeg -framerate %1 -i %2/frame_%05d.png -c:v libx264 -pix_fmt yuv420p %3")
                    .arg(m_options.fps)
                    .arg(m_output, m_options.path);
    }
  }
  if (!ok) cleanUp();
  if (m_progress) {
    m_progress->blockSignals(true);  // closing it must not read as Cancel
    m_progress->reset();             // (stops its timer: a dialog not shown yet never shows)
    m_progress->close();
    m_progress->deleteLater();
  }
  emit finished(ok, cancelled, text, ok ? m_output : QString());
  deleteLater();
}

void exportVideo(QWidget* window, ViewportWidget& viewport, SimulationController& sim, const QString& scenePath,
                 const std::function<void()>& pause, const std::function<void(const QString&)>& status) {
  pause();  // the recording as it stands: playing on would drop frames while they are read
  const HistoryInfo h = sim.snapshot()->history;
  if (h.frames < 2 || h.end <= h.start) {
    auto* box = new QMessageBox(QMessageBox::Information, QObject::tr("Export video"),
                                QObject::tr("Nothing is recorded yet: play the simulation, then export the recorded range."),
                                QMessageBox::Ok, window);
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    return;
  }
  auto* dialog = new ExportVideoDialog(defaultPath(scenePath, QStringLiteral(".mp4")), viewport.size(), h, window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(dialog, &QDialog::accepted, window, [window, &viewport, &sim, dialog, status] {
    const VideoOptions o = dialog->options();
    QSettings().setValue(QStringLiteral("export/lastDir"), QFileInfo(o.path).absolutePath());
    auto* exporter = new VideoExporter(viewport, sim, o, window);
    exporter->setObjectName(QStringLiteral("videoExporter"));
    auto report = [window, status, exporter](bool ok, bool cancelled, const QString& message) {
      status(message);
      if (ok && !exporter->wrotePngsInstead()) return;
      // a failure, and PNGs instead of a video, also in a box: the user asked for something else
      auto* box = new QMessageBox(ok || cancelled ? QMessageBox::Information : QMessageBox::Critical, QObject::tr("Export video"),
                                  ok || cancelled ? message : QObject::tr("The video was not exported: %1").arg(message),
                                  QMessageBox::Ok, window);
      box->setObjectName(ok || cancelled ? QStringLiteral("exportResultBox") : QStringLiteral("errorBox"));
      box->setAttribute(Qt::WA_DeleteOnClose);
      if (!cancelled) box->open();
      else delete box;
    };
    QObject::connect(exporter, &VideoExporter::finished, window,
                     [report](bool ok, bool cancelled, const QString& message, const QString&) { report(ok, cancelled, message); });
    QString error;
    if (!exporter->start(error)) {
      report(false, false, error);
      exporter->deleteLater();
    }
  });
  dialog->open();
}

}  // namespace tether::ui
