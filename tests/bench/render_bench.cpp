// Frames per second of the viewport drawing 1000 bodies with their force arrows, in a real
// window (run it under xvfb-run for the Mesa llvmpipe figure). Not a test: a measurement.
//
//   xvfb-run -a -s "-screen 0 1600x1000x24" build/release/tests/bench/render_bench [bodies] [frames] [paused|bodies]
//
// The 1000-link hanging chain of tether-cli bench plays (solver thread running in real time, new
// snapshots every frame); each frame is one paint of the viewport ending in glFinish, so its
// time includes building and uploading the instances, drawing and the text overlay. Prints the
// median paint time, the frames per second it allows, and the frames per second actually shown
// with the event loop and the solver sharing the machine.
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTest>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/bench_scenes.h"
#include "ui/main_window.h"

int main(int argc, char** argv) {
  tether::ui::ViewportWidget::requestSurfaceFormat();
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
  const std::string mode = argc > 3 ? argv[3] : "";
  const bool paused = mode == "paused" || mode == "bodies" || mode == "noarrows";
  // "bodies": animation mode (bodies only, no overlay), to separate the arrows' cost
  if (mode == "bodies") v->viewOptions().debugDraw = false;
  if (mode == "noarrows") v->viewOptions().constraintForces = false;
  if (paused) w.pause();  // the solver idle: the machine is the renderer's alone
  v->frameAll();
  v->setTiming(true);
  std::vector<double> ms;
  QElapsedTimer all;
  all.start();
  for (int i = 0; i < frames; ++i) {
    const long before = v->framesDrawn();
    v->update();
    while (v->framesDrawn() == before) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    ms.push_back(v->lastFrameMs());
  }
  const double wall = all.nsecsElapsed() * 1e-9;
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf("render_bench (%s%s): %d bodies, %zu constraint-force arrows (debug draw), viewport %dx%d, %s\n",
              paused ? "solver paused" : "solver playing in real time", mode == "bodies" ? ", animation mode" : "",
              bodies,
              size_t(std::count_if(v->shownSnapshot()->constraints.begin(), v->shownSnapshot()->constraints.end(),
                                   [](const auto& c) { return c.active; })) * 2,
              v->width(), v->height(), qPrintable(QString::fromStdString(v->glError().isEmpty() ? "GL ok" : v->glError().toStdString())));
  std::printf("frame time: median %.2f ms (p10 %.2f, p90 %.2f) -> %.1f fps; %d frames in %.2f s wall (%.1f fps with the event loop)\n",
              median, ms[ms.size() / 10], ms[ms.size() * 9 / 10], 1000.0 / median, frames, wall, frames / wall);
  w.pause();
  w.document().undoStack()->setClean();
  return 0;
}
