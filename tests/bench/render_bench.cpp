// Frames per second of the viewport drawing 1000 bodies with their force arrows, in a real
// window (run it under xvfb-run for the Mesa llvmpipe figure). Not a test: a measurement.
//
//   xvfb-run -a -s "-screen 0 1600x1000x24" build/release/tests/bench/render_bench [bodies] [frames]
//
// The 1000-link hanging chain of tether-cli bench plays (solver thread running, new snapshots
// every frame); each frame is one synchronous repaint of the viewport with glFinish, so the
// time includes uploading the instances, drawing and the overlay. Prints the median frame time
// and the frames per second it allows.
#include <QApplication>
#include <QElapsedTimer>
#include <QSurfaceFormat>
#include <QTest>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/bench_scenes.h"
#include "ui/main_window.h"

int main(int argc, char** argv) {
  QSurfaceFormat fmt;
  fmt.setVersion(3, 3);
  fmt.setProfile(QSurfaceFormat::CoreProfile);
  fmt.setDepthBufferSize(24);
  QSurfaceFormat::setDefaultFormat(fmt);
  QApplication app(argc, argv);
  const int bodies = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int frames = argc > 2 ? std::atoi(argv[2]) : 200;

  tether::ui::MainWindow w;
  w.resize(1280, 800);
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return 1;
  tether::core::Scene scene = tether::core::hangingChain(bodies).scene;
  w.document().edit("bench", [&](tether::core::Scene& s) { s = scene; });
  w.play();
  auto* v = w.viewport();
  while (w.simulation().snapshot()->bodies.size() != size_t(bodies) || w.simulation().snapshot()->t < 0.5) QTest::qWait(20);
  v->frameAll();
  v->setTiming(true);
  std::vector<double> ms;
  QElapsedTimer all;
  all.start();
  for (int i = 0; i < frames; ++i) {
    QElapsedTimer t;
    t.start();
    v->repaint();
    ms.push_back(t.nsecsElapsed() * 1e-6);
    QCoreApplication::processEvents();
  }
  const double wall = all.nsecsElapsed() * 1e-9;
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf("render_bench: %d bodies, %zu arrows drawn, viewport %dx%d, %s\n", bodies,
              size_t(std::count_if(v->shownSnapshot()->constraints.begin(), v->shownSnapshot()->constraints.end(),
                                   [](const auto& c) { return c.active; })) * 2,
              v->width(), v->height(), qPrintable(QString::fromStdString(v->glError().isEmpty() ? "GL ok" : v->glError().toStdString())));
  std::printf("frame time: median %.2f ms (p10 %.2f, p90 %.2f) -> %.1f fps; %d frames in %.2f s wall (%.1f fps with the event loop)\n",
              median, ms[ms.size() / 10], ms[ms.size() * 9 / 10], 1000.0 / median, frames, wall, frames / wall);
  w.pause();
  w.document().undoStack()->setClean();
  return 0;
}
