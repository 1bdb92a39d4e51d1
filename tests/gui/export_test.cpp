// File → Export image / Export video and the progress dialogs with Cancel (issue 19), driven
// through the menu actions and the dialogs' fields as a person does; the results read back
// from disk (QImage, ffprobe).
#include <QComboBox>
#include <QDialogButtonBox>
#include <QPointer>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSpinBox>

#include "gui_util.h"
#include "render/scene_walk.h"
#include "ui/export.h"

using namespace tether;
using namespace tether::test;

namespace {

QAction* action(ui::MainWindow& w, const char* name) {
  for (QAction* a : w.findChildren<QAction*>())
    if (a->objectName() == QLatin1String(name)) return a;
  return nullptr;
}

// the visible dialog `name` of the window (opened by a menu action), or null after a wait
QDialog* dialog(ui::MainWindow& w, const char* name) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < 5000) {
    for (QDialog* d : w.findChildren<QDialog*>(QLatin1String(name)))
      if (d->isVisible()) return d;
    QTest::qWait(20);
  }
  return nullptr;
}

// select the field's text and type over it, as a person does
void typeOver(QWidget* field, const QString& text) {
  field->setFocus();
  QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(field, text);
}
bool typeField(QDialog* d, const char* name, const QString& text) {
  QWidget* f = d->findChild<QWidget*>(QLatin1String(name));
  if (!f) return false;
  typeOver(f, text);
  return true;
}

void clickExport(QDialog* d) {
  QPushButton* ok = d->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
  QTest::mouseClick(ok, Qt::LeftButton);
}

// ffprobe's key=value report of the first video stream, frames counted
QMap<QString, QString> probe(const QString& file) {
  QProcess p;
  p.start(QStringLiteral("ffprobe"), {"-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                     "stream=codec_name,width,height,pix_fmt,nb_read_frames", "-of",
                                     "default=noprint_wrappers=1", file});
  p.waitForFinished(60000);
  QMap<QString, QString> out;
  for (const QString& line : QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts)) {
    const int eq = line.indexOf('=');
    if (eq > 0) out[line.left(eq)] = line.mid(eq + 1).trimmed();
  }
  return out;
}

// pixels whose colour has the proportions of `c` (a shaded body keeps its hue, not its value)
int hueMatches(const QImage& img, const render::Color& c) {
  const double cs = c.r + c.g + c.b;
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QColor p = img.pixelColor(x, y);
      const double s = p.red() + p.green() + p.blue();
      if (s < 60) continue;
      if (std::abs(p.red() / s - c.r / cs) < 0.02 && std::abs(p.green() / s - c.g / cs) < 0.02 &&
          std::abs(p.blue() / s - c.b / cs) < 0.02)
        ++n;
    }
  return n;
}

int exactMatches(const QImage& img, const render::Color& c, const QRect& area) {
  int n = 0;
  for (int y = area.top(); y <= area.bottom(); ++y)
    for (int x = area.left(); x <= area.right(); ++x) {
      if (!img.rect().contains(x, y)) continue;
      const QColor p = img.pixelColor(x, y);
      if (std::abs(p.red() - int(c.r * 255)) <= 3 && std::abs(p.green() - int(c.g * 255)) <= 3 &&
          std::abs(p.blue() - int(c.b * 255)) <= 3)
        ++n;
    }
  return n;
}

// The compound pendulum played (as fast as the machine goes) until t >= seconds, then paused.
bool recorded(ui::MainWindow& w, double seconds) {
  if (!ready(w) || !w.openFile(ui::MainWindow::examplesDir() + "/compound_pendulum.json")) return false;
  if (!waitForSnapshot(w)) return false;
  w.simulation().setRealTime(false);
  w.play();
  QElapsedTimer t;
  t.start();
  while (w.simulation().snapshot()->t < seconds && t.elapsed() < 60000) QTest::qWait(20);
  w.pause();
  while (w.simulation().snapshot()->playing && t.elapsed() < 60000) QTest::qWait(20);
  return w.simulation().snapshot()->t >= seconds && !w.simulation().snapshot()->playing;
}

// Export video… with these fields; the dialog accepted. Empty format: keep the dialog's.
bool startVideoExport(ui::MainWindow& w, const QString& path, int width, int height, double start, double end,
                      bool chooseMp4 = true) {
  QAction* a = action(w, "exportVideo");
  if (!a) return false;
  a->trigger();
  QDialog* d = dialog(w, "exportVideoDialog");
  if (!d) return false;
  if (chooseMp4) {
    auto* format = d->findChild<QComboBox*>("exportFormat");
    format->setFocus();
    QTest::keyClick(format, Qt::Key_Home);  // the first: MP4
  }
  if (!typeField(d, "exportPath", path) || !typeField(d, "exportWidth", QString::number(width)) ||
      !typeField(d, "exportHeight", QString::number(height)) || !typeField(d, "exportStart", QString::number(start)) ||
      !typeField(d, "exportEnd", QString::number(end)) || !typeField(d, "exportFps", "30"))
    return false;
  clickExport(d);
  return true;
}

bool exporting(ui::MainWindow& w) { return w.findChild<ui::VideoExporter*>() != nullptr; }

}  // namespace

class ExportTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qunsetenv("TETHER_FFMPEG");
  }

  // File → Export image at 640×360 (the viewport is another size): a PNG of that size with the
  // rods' colour, the constraint-force arrow's colour at the nail where the chosen size's
  // camera puts it, and the legend's white box in the bottom-right corner.
  void exportImageAtChosenSize() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/compound_pendulum.json"));
    QVERIFY(waitForSnapshot(w));
    w.play();
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->t >= 0.5, 30000);
    w.pause();
    QTRY_VERIFY(!w.simulation().snapshot()->playing);
    QVERIFY(waitForSnapshot(w));
    QVERIFY(w.viewport()->size() != QSize(640, 360));

    QTemporaryDir dir;
    const QString file = dir.filePath("pendulum.png");
    QAction* a = action(w, "exportImage");
    QVERIFY(a);
    a->trigger();
    QDialog* d = dialog(w, "exportImageDialog");
    QVERIFY(d);
    QVERIFY(typeField(d, "exportPath", file));
    QVERIFY(typeField(d, "exportWidth", "640"));
    QVERIFY(typeField(d, "exportHeight", "360"));
    clickExport(d);
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(file), 20000);
    QTRY_VERIFY(!d->isVisible() || d->result() == QDialog::Accepted);

    QImage img(file);
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), QSize(640, 360));
    img.save(QDir::currentPath() + "/export_image.png");
    const int rod = hueMatches(img, render::bodyColor(core::Shape::Rod, false));
    QVERIFY2(rod > 200, qPrintable(QString("%1 rod-coloured pixels").arg(rod)));
    // the nail's constraint arrow where the 640×360 camera projects the nail
    render::Camera cam = w.viewport()->camera();
    cam.resize(640, 360);
    double nx = 0, ny = 0;
    QVERIFY(cam.project(w.document().scene().nails[0].position, nx, ny));
    const int arrow = exactMatches(img, render::constraintColor(0), QRect(int(nx) - 30, int(ny) - 30, 61, 61));
    QVERIFY2(arrow > 5, qPrintable(QString("%1 arrow pixels at the nail (%2, %3)").arg(arrow).arg(nx).arg(ny)));
    // the legend: its white box bottom right
    int white = 0;
    for (int y = 300; y < 360; ++y)
      for (int x = 440; x < 640; ++x) white += img.pixelColor(x, y).lightness() > 240 ? 1 : 0;
    QVERIFY2(white > 1000, qPrintable(QString("%1 legend pixels").arg(white)));
    QVERIFY(w.statusBar()->currentMessage().contains("640×360"));
  }

  // An unwritable place: a box names the problem, nothing else happens.
  void exportImageToMissingFolderSaysWhy() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/compound_pendulum.json"));
    QVERIFY(waitForSnapshot(w));
    action(w, "exportImage")->trigger();
    QDialog* d = dialog(w, "exportImageDialog");
    QVERIFY(d);
    QVERIFY(typeField(d, "exportPath", "/nonexistent-folder/x.png"));
    QTimer::singleShot(300, [] {
      auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
      QVERIFY(box);
      QVERIFY2(box->text().contains("/nonexistent-folder") && box->text().contains("does not exist"), qPrintable(box->text()));
      box->accept();
    });
    clickExport(d);
    QVERIFY(d->isVisible());  // still open to fix the path
    d->reject();
  }

  // Export video: 1 s at 30 frames/s, 320×240 MP4: ffprobe reads 30 H.264 yuv420p frames of
  // that size; no partial file is left beside it.
  void exportVideoMp4() {
    ui::MainWindow w;
    QVERIFY(recorded(w, 1.2));
    QTemporaryDir dir;
    const QString file = dir.filePath("pendulum.mp4");
    QVERIFY(startVideoExport(w, file, 320, 240, 0.0, 1.0));
    QTRY_VERIFY_WITH_TIMEOUT(!exporting(w), 120000);
    QVERIFY2(QFileInfo::exists(file), qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(w.statusBar()->currentMessage().contains("Exported 30 frames"));
    const QMap<QString, QString> info = probe(file);
    QCOMPARE(info.value("codec_name"), QString("h264"));
    QCOMPARE(info.value("pix_fmt"), QString("yuv420p"));
    QCOMPARE(info.value("width"), QString("320"));
    QCOMPARE(info.value("height"), QString("240"));
    QCOMPARE(info.value("nb_read_frames"), QString("30"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot), QStringList{"pendulum.mp4"});
  }

  // WebM (VP9) and an odd size: rounded to even sides, and said so.
  void exportVideoWebmOddSize() {
    ui::MainWindow w;
    QVERIFY(recorded(w, 0.6));
    QTemporaryDir dir;
    const QString file = dir.filePath("pendulum.webm");
    action(w, "exportVideo")->trigger();
    QDialog* d = dialog(w, "exportVideoDialog");
    QVERIFY(d);
    auto* format = d->findChild<QComboBox*>("exportFormat");
    format->setFocus();
    QTest::keyClick(format, Qt::Key_Home);
    QTest::keyClick(format, Qt::Key_Down);  // WebM
    QCOMPARE(format->currentText(), QString("WebM (VP9)"));
    QVERIFY(typeField(d, "exportPath", file));
    QVERIFY(typeField(d, "exportWidth", "201"));
    QVERIFY(typeField(d, "exportHeight", "151"));
    QVERIFY(typeField(d, "exportStart", "0"));
    QVERIFY(typeField(d, "exportEnd", "0.5"));
    clickExport(d);
    QTRY_VERIFY_WITH_TIMEOUT(!exporting(w), 120000);
    QVERIFY2(QFileInfo::exists(file), qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(w.statusBar()->currentMessage().contains("rounded to 200×150"));
    const QMap<QString, QString> info = probe(file);
    QCOMPARE(info.value("codec_name"), QString("vp9"));
    QCOMPARE(info.value("width"), QString("200"));
    QCOMPARE(info.value("height"), QString("150"));
    QCOMPARE(info.value("nb_read_frames"), QString("15"));
  }

  // Without ffmpeg (TETHER_FFMPEG names a missing binary) an MP4 export writes PNG frames of
  // the chosen size and the message says so, naming the missing binary.
  void exportVideoWithoutFfmpegWritesPngs() {
    qputenv("TETHER_FFMPEG", "/nonexistent/ffmpeg");
    ui::MainWindow w;
    QVERIFY(recorded(w, 1.2));
    QTemporaryDir dir;
    const QString file = dir.filePath("pendulum.mp4");
    QVERIFY(startVideoExport(w, file, 320, 240, 0.0, 1.0));
    QTRY_VERIFY_WITH_TIMEOUT(!exporting(w), 120000);
    qunsetenv("TETHER_FFMPEG");
    QVERIFY(!QFileInfo::exists(file));
    const QDir frames(dir.filePath("pendulum_frames"));
    QVERIFY(frames.exists());
    const QStringList pngs = frames.entryList({"*.png"}, QDir::Files, QDir::Name);
    QCOMPARE(pngs.size(), 30);
    QCOMPARE(pngs.first(), QString("frame_00001.png"));
    QCOMPARE(QImage(frames.filePath(pngs.last())).size(), QSize(320, 240));
    auto* box = w.findChild<QMessageBox*>("exportResultBox");
    QVERIFY(box);
    QVERIFY2(box->text().contains("/nonexistent/ffmpeg") && box->text().contains("PNG") &&
                 box->text().contains("pendulum_frames"),
             qPrintable(box->text()));
    QVERIFY(w.statusBar()->currentMessage().contains("PNG"));
  }

  // Cancel in the progress dialog mid-export stops it and leaves nothing: no video, no
  // ".part", and (without ffmpeg) no frames folder.
  void cancelVideoExportLeavesNothing() {
    ui::MainWindow w;
    QVERIFY(recorded(w, 4.0));
    for (bool withFfmpeg : {true, false}) {
      if (!withFfmpeg) qputenv("TETHER_FFMPEG", "/nonexistent/ffmpeg");
      QTemporaryDir dir;
      QVERIFY(startVideoExport(w, dir.filePath("long.mp4"), 1280, 720, 0.0, 4.0));
      QPointer<QProgressDialog> progress;  // (deleted when it closes)
      QTRY_VERIFY_WITH_TIMEOUT((progress = w.findChild<QProgressDialog*>("exportProgress")) && progress->isVisible() &&
                                   progress->value() >= 3,
                               60000);
      // something partial is there (ffmpeg opens its output once it has started), and more to come
      QTRY_VERIFY_WITH_TIMEOUT(!QDir(dir.path()).isEmpty(), 20000);
      QVERIFY(exporting(w));
      QVERIFY(progress->value() < progress->maximum());
      QTest::mouseClick(progress->findChild<QPushButton*>(), Qt::LeftButton);
      QTRY_VERIFY_WITH_TIMEOUT(!exporting(w), 10000);
      QTest::qWait(500);
      QVERIFY2(QDir(dir.path()).isEmpty(), qPrintable(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).join(", ")));
      QVERIFY(w.statusBar()->currentMessage().contains("cancelled"));
      qunsetenv("TETHER_FFMPEG");
    }
  }

  // A timeline edit early in a long recording re-simulates up to the playhead: after a second
  // a progress dialog shows how far it got, and "Stop here" stops it, leaving a shorter
  // recording that ends where it stopped, shown, paused, and playable on from there.
  void resimulationShowsProgressAndStops() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/card_house.json"));  // ~ms per step: slow
    QVERIFY(waitForSnapshot(w));
    w.simulation().setRealTime(false);
    w.play();
    QTest::qWait(4000);
    // (a sanitizer build plays it ten times slower: record at least 0.3 s however long it takes)
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->t > 0.3, 120000);
    w.pause();
    QTRY_VERIFY(!w.simulation().snapshot()->playing);
    const double end = w.simulation().snapshot()->t;
    QVERIFY2(end > 0.2, qPrintable(QString("recorded %1 s").arg(end)));

    // an event early on (as moving a marker there does): everything after it is simulated again
    QVERIFY(w.document().edit("add event", [](core::Scene& s) {
      core::EventDef e;
      e.time = 0.02;
      e.action = core::EventAction::Disable;
      e.target = "gravity";
      s.events.push_back(e);
    }));
    QPointer<QProgressDialog> progress;  // (deleted when it closes)
    QTRY_VERIFY_WITH_TIMEOUT((progress = w.findChild<QProgressDialog*>("resimulationProgress")) && progress->isVisible(), 10000);
    QVERIFY(w.simulation().snapshot()->resimulation.active);
    QVERIFY(progress);
    QTest::mouseClick(progress->findChild<QPushButton*>(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!w.simulation().snapshot()->resimulation.active &&
                                 w.simulation().snapshot()->revision == w.document().revision(),
                             10000);
    QTRY_VERIFY(!progress || !progress->isVisible());
    const auto snap = w.simulation().snapshot();
    QVERIFY2(snap->history.end < end - 0.05, qPrintable(QString("history ends at %1 of %2").arg(snap->history.end).arg(end)));
    QVERIFY(snap->history.end > 0.02);
    QVERIFY(std::abs(snap->t - snap->history.end) < 1e-9);
    QVERIFY(!snap->playing);
    QVERIFY2(QString::fromStdString(snap->message).contains("stopped"), snap->message.c_str());
    // a valid recording: every frame from the start to where it stopped, and playable on
    const double period = snap->history.framePeriod;
    QCOMPARE(double(snap->history.frames), std::round((snap->history.end - snap->history.start) / period) + 1);
    w.simulation().step();
    QTRY_VERIFY(w.simulation().snapshot()->history.end > snap->history.end + 0.5 * period);
  }

  // Opening a scene that takes over a second to read shows a progress dialog; Cancel returns
  // at once and leaves the open document as it was. (A 200 000-link chain, ~123 MB: about 1.7 s
  // on an idle machine. The 60 000 links it had read in 0.5 s there, and the dialog showed only
  // while other tests slowed the read.)
  void openLargeSceneShowsProgressAndCancels() {
    QTemporaryDir dir;
    const QString big = dir.filePath("chain.json");
    core::saveScene(core::hangingChain(200000).scene, big.toStdString());
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/compound_pendulum.json"));
    QVERIFY(waitForSnapshot(w));
    const std::string before = json(w.document().scene());
    const long revision = w.document().revision();
    // openFile returns when the read ends or is cancelled: the click comes from a timer
    bool clicked = false;
    qint64 shownAt = 0;
    QElapsedTimer shownAfter;
    QTimer clicker;
    clicker.setInterval(50);
    connect(&clicker, &QTimer::timeout, [&] {
      auto* p = w.findChild<QProgressDialog*>("loadProgress");
      if (!p || !p->isVisible() || clicked) return;
      clicked = true;
      shownAt = shownAfter.elapsed();
      QTest::mouseClick(p->findChild<QPushButton*>(), Qt::LeftButton);
    });
    clicker.start();
    shownAfter.start();
    const bool opened = w.openFile(big);
    clicker.stop();
    QVERIFY(clicked);
    QVERIFY2(shownAt >= 950, qPrintable(QString("shown after %1 ms").arg(shownAt)));  // not before a second
    QVERIFY(!opened);
    QCOMPARE(w.document().revision(), revision);
    QVERIFY(json(w.document().scene()) == before);
    QVERIFY(w.statusBar()->currentMessage().contains("cancelled"));
    QVERIFY(w.openFile(ui::MainWindow::examplesDir() + "/pendulum.json"));
  }
};

TETHER_GUI_TEST_MAIN(ExportTest)
#include "export_test.moc"
