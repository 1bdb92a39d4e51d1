// tether [SCENE]: the desktop app. Parses arguments, checks that OpenGL 3.3 is available,
// opens the main window; nothing else.
#include <QApplication>
#include <QCommandLineParser>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QScreen>
#include <QTimer>
#include <cstdio>

#include "ui/main_window.h"

namespace {

// A GL 3.3 core context on this display, or why not.
QString probeOpenGL() {
  QOpenGLContext ctx;
  if (!ctx.create()) return QStringLiteral("no OpenGL context can be created on this display");
  QOffscreenSurface surface;
  surface.setFormat(ctx.format());
  surface.create();
  if (!surface.isValid() || !ctx.makeCurrent(&surface)) return QStringLiteral("an OpenGL context cannot be made current");
  const auto v = ctx.format().version();
  ctx.doneCurrent();
  if (v < qMakePair(3, 3))
    return QStringLiteral("OpenGL 3.3 is required, the display offers %1.%2").arg(v.first).arg(v.second);
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  tether::ui::ViewportWidget::requestSurfaceFormat();
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Tether"));
  QApplication::setOrganizationName(QStringLiteral("Tether"));
  QApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Tether: physically based modeling with dynamic constraints"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("scene"), QStringLiteral("A scene file (.json) to open."));
  QCommandLineOption play(QStringLiteral("play"), QStringLiteral("Start the simulation at once."));
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Save the window as a PNG after --seconds and quit."),
                                QStringLiteral("file"));
  QCommandLineOption seconds(QStringLiteral("seconds"), QStringLiteral("Wall seconds before --screenshot (default 2)."),
                             QStringLiteral("s"), QStringLiteral("2"));
  parser.addOptions({play, screenshot, seconds});
  parser.process(app);

  const QString glProblem = probeOpenGL();
  if (!glProblem.isEmpty()) {
    std::fprintf(stderr, "tether: cannot open the 3D viewport: %s (platform \"%s\").\n"
                         "Run it on a desktop with OpenGL 3.3, or under Xvfb with Mesa (see README).\n",
                 qPrintable(glProblem), qPrintable(QGuiApplication::platformName()));
    return 2;
  }

  tether::ui::MainWindow window;
  window.show();
  if (!parser.positionalArguments().isEmpty() && !window.openFile(parser.positionalArguments().first()))
    std::fprintf(stderr, "tether: %s was not opened (see the dialog)\n", qPrintable(parser.positionalArguments().first()));
  // work left by a window that crashed or was killed: offered once the window is up
  if (!parser.isSet(screenshot)) QTimer::singleShot(0, &window, [&window] { window.offerRecovery(); });
  if (parser.isSet(play)) window.play();
  if (parser.isSet(screenshot)) {
    const QString file = parser.value(screenshot);
    QTimer::singleShot(int(1000 * parser.value(seconds).toDouble()), &window, [&window, file] {
      // what the screen shows (QWidget::grab() re-renders GL widgets without their overlay)
      const bool ok = window.screen()->grabWindow(window.winId()).save(file);
      std::fprintf(stderr, ok ? "tether: saved %s\n" : "tether: could not save %s\n", qPrintable(file));
      window.document().undoStack()->setClean();
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return app.exec();
}
