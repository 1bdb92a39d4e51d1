// hong_plot DIR OUT.png: the plot of Hong et al.'s Fig. 2 for Tether's velocity constraint, from
// the four CSVs VelocityConstraint.HongThreeLinkBarDrivenByItsVelocityFor50Seconds writes into DIR
// (implicit and Baumgarte, dt = 0.01 and 0.001; columns t, holonomic_m, nonholonomic_m_per_s,
// integral_m, nonholonomic_end_m_per_s). Four panels laid out as the paper's: (a) implicit 0.01,
// (b) Baumgarte 0.01, (c) implicit 0.001, (d) Baumgarte 0.001; each the holonomic error (the
// joints' largest |D|, m) and the non-holonomic error (the step's mean |g|, m/s) against time on
// a log scale. Renders without a display
// (QT_QPA_PLATFORM=offscreen unless set). scripts/hong_velocity.sh runs it.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QGridLayout>
#include <QImage>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QTextStream>
#include <QValueAxis>
#include <QWidget>
#include <algorithm>
#include <cstdio>

namespace {

struct Columns {
  QList<QPointF> holonomic, nonholonomic;
  bool ok = false;
};

Columns readCsv(const QString& path) {
  Columns c;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return c;
  QTextStream in(&f);
  if (in.readLine() != QStringLiteral("t,holonomic_m,nonholonomic_m_per_s,integral_m,nonholonomic_end_m_per_s")) return c;
  while (!in.atEnd()) {
    const QStringList v = in.readLine().split(',');
    if (v.size() < 3) continue;
    const double t = v[0].toDouble();
    // (a log axis needs positive values: exact zeros are drawn at 1e-16)
    c.holonomic.append({t, std::max(v[1].toDouble(), 1e-16)});
    c.nonholonomic.append({t, std::max(v[2].toDouble(), 1e-16)});
  }
  c.ok = !c.holonomic.isEmpty();
  return c;
}

QChart* panel(const QString& title, const Columns& c) {
  auto* chart = new QChart;
  chart->setTitle(title);
  auto* hol = new QLineSeries;
  hol->setName(QStringLiteral("holonomic: joints' max |D| (m)"));
  hol->append(c.holonomic);
  auto* non = new QLineSeries;
  non->setName(QStringLiteral("non-holonomic: the step's mean |g| (m/s)"));
  non->append(c.nonholonomic);
  chart->addSeries(hol);
  chart->addSeries(non);
  auto* x = new QValueAxis;
  x->setRange(0, 50);
  x->setTickCount(6);
  x->setTitleText(QStringLiteral("t (s)"));
  x->setLabelFormat(QStringLiteral("%.0f"));
  auto* y = new QLogValueAxis;
  y->setRange(1e-12, 1e-1);
  y->setLabelFormat(QStringLiteral("%.0e"));
  y->setTitleText(QStringLiteral("error"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (QLineSeries* s : {hol, non}) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  return chart;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: hong_plot DIR OUT.png\n");
    return 2;
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QString dir = QString::fromLocal8Bit(argv[1]);
  struct Panel {
    const char* file;
    const char* title;
  };
  const Panel panels[] = {{"implicit_dt0.01", "(a) implicit (Hong Eqn. 31), dt = 0.01 s"},
                          {"baumgarte_dt0.01", "(b) Baumgarte with the integral (Eqn. 34), dt = 0.01 s"},
                          {"implicit_dt0.001", "(c) implicit, dt = 0.001 s"},
                          {"baumgarte_dt0.001", "(d) Baumgarte with the integral, dt = 0.001 s"}};
  QWidget window;
  auto* grid = new QGridLayout(&window);
  for (int k = 0; k < 4; ++k) {
    const QString path = dir + '/' + panels[k].file + ".csv";
    const Columns c = readCsv(path);
    if (!c.ok) {
      std::fprintf(stderr, "hong_plot: cannot read %s (or it is not the test's CSV)\n", qPrintable(path));
      return 1;
    }
    auto* view = new QChartView(panel(QString::fromUtf8(panels[k].title), c));
    view->setRenderHint(QPainter::Antialiasing);
    grid->addWidget(view, k / 2, k % 2);
  }
  window.resize(1600, 1000);
  window.show();
  app.processEvents();
  const QImage image = window.grab().toImage();
  if (!image.save(QString::fromLocal8Bit(argv[2]))) {
    std::fprintf(stderr, "hong_plot: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
