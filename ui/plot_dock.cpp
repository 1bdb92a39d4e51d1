#include "ui/plot_dock.h"

#include <QFileDialog>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLegendMarker>
#include <QLineEdit>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace tether::ui {

namespace {

constexpr int kKeyRole = Qt::UserRole + 1;
constexpr int kDataMs = 250;      // new samples at most 4 times a second: the solver's frames are 60 Hz
constexpr int kPlayheadMs = 40;   // the playhead at 25 Hz

QString label(const core::PlotQuantity& q) {
  return QStringLiteral("%1 (%2)").arg(QString::fromStdString(q.label), QString::fromStdString(q.unit));
}

// RFC 4180: quote a field holding a separator, a quote or a line break
QString csvField(const QString& s) {
  if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')) &&
      !s.contains(QLatin1Char('\r')))
    return s;
  QString q = s;
  q.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + q + QLatin1Char('"');
}

// a round tick spacing (1, 2 or 5 times a power of ten) giving about `ticks` intervals over span
double niceStep(double span, int ticks) {
  if (!(span > 0)) return 1.0;
  const double raw = span / ticks;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

// A tick label's printf format: as many significant digits as tell ticks `step` apart at the
// range's magnitude (a spinning rod's 665.2421 J, steady to 1e-4, read "665.2" at every tick
// with %.4g; t = 1000.5 s read "1e+03" with %.3g), at least 3.
QString labelFormat(double lo, double hi, double step) {
  const double big = std::max(std::abs(lo), std::abs(hi));
  const int digits = big > step ? int(std::floor(std::log10(big)) - std::floor(std::log10(step))) + 1 : 1;
  return QStringLiteral("%.%1g").arg(std::clamp(digits, 3, 15));
}

// ticks on round numbers while the range stays exactly what it shows (the recorded range)
void roundTicks(QValueAxis* axis, double lo, double hi, int ticks) {
  // never let the old interval meet the new range (or the reverse): a range a million times the
  // interval would lay out a million ticks. Fixed ticks while both change.
  const double step = niceStep(hi - lo, ticks);
  axis->setTickType(QValueAxis::TicksFixed);
  axis->setRange(lo, hi);
  axis->setTickAnchor(0.0);
  axis->setTickInterval(step);
  axis->setLabelFormat(labelFormat(lo, hi, step));
  axis->setTickType(QValueAxis::TicksDynamic);
}

// A value axis's ticks at exact multiples k step, labelled here: the chart's own ticks add the
// step up from the first, and on a helper's cradle the one at zero read "-2.78e-16".
void exactTicks(QCategoryAxis* axis, double lo, double hi, int ticks) {
  const double step = niceStep(hi - lo, ticks);
  const QByteArray format = labelFormat(lo, hi, step).toLatin1();
  for (const QString& l : axis->categoriesLabels()) axis->remove(l);
  axis->setRange(lo, hi);
  axis->setStartValue(lo);
  axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  for (double k = std::ceil(lo / step); k * step <= hi; k += 1.0) {
    const double v = k * step + 0.0;  // (+ 0.0: k = -0 gives -0, which reads "-0")
    axis->append(QString::asprintf(format.constData(), v), v);
  }
}

// what a value axis measures, by its unit
QString axisTitle(const std::string& unit) {
  static const std::map<std::string, const char*> kWhat = {{"J", "energy"},  {"m", "length"},
                                                          {"m/s", "velocity"}, {"rad/s", "angular velocity"},
                                                          {"N", "force"},    {"rad", "angle"}};
  const auto it = kWhat.find(unit);
  const QString u = QString::fromStdString(unit);
  return it == kWhat.end() ? u : QStringLiteral("%1 (%2)").arg(QString::fromLatin1(it->second), u);
}

QString number(double v) {
  // the shortest text that reads back as the same double
  return std::isnan(v) ? QString() : QString::number(v, 'g', QLocale::FloatingPointShortest);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// PlotView

PlotView::PlotView(QChart* chart, QWidget* parent) : QChartView(chart, parent) {
  setRenderHint(QPainter::Antialiasing);
  setRubberBand(QChartView::NoRubberBand);
  setCursor(Qt::IBeamCursor);
  setToolTip(tr("Click or drag to move the playhead"));
}

QRectF PlotView::plotRect() const {
  const QRectF area = chart()->plotArea();  // chart coordinates
  return QRectF(mapFromScene(chart()->mapToScene(area.topLeft())), mapFromScene(chart()->mapToScene(area.bottomRight())));
}

void PlotView::setTimeRange(double t0, double t1) {
  m_t0 = t0;
  m_t1 = t1;
  viewport()->update();
}

void PlotView::setPlayhead(double t) {
  if (t == m_playhead) return;
  m_playhead = t;
  viewport()->update();
}

double PlotView::timeAt(double x) const {
  const QRectF r = plotRect();
  if (r.width() <= 0) return m_t0;
  const double u = std::clamp((x - r.left()) / r.width(), 0.0, 1.0);
  return m_t0 + u * (m_t1 - m_t0);
}

double PlotView::xOf(double t) const {
  const QRectF r = plotRect();
  return r.left() + (m_t1 > m_t0 ? (t - m_t0) / (m_t1 - m_t0) : 0.0) * r.width();
}

void PlotView::mousePressEvent(QMouseEvent* e) {
  // the legend toggles series: leave presses outside the plot area to the chart
  if (e->button() == Qt::LeftButton && plotRect().contains(e->position())) {
    m_scrubbing = true;
    emit seekRequested(timeAt(e->position().x()));
    e->accept();
    return;
  }
  QChartView::mousePressEvent(e);
}

void PlotView::mouseMoveEvent(QMouseEvent* e) {
  if (m_scrubbing) {
    emit seekRequested(timeAt(e->position().x()));
    e->accept();
    return;
  }
  QChartView::mouseMoveEvent(e);
}

void PlotView::mouseReleaseEvent(QMouseEvent* e) {
  if (m_scrubbing && e->button() == Qt::LeftButton) {
    m_scrubbing = false;
    e->accept();
    return;
  }
  QChartView::mouseReleaseEvent(e);
}

void PlotView::drawForeground(QPainter* painter, const QRectF& rect) {
  QChartView::drawForeground(painter, rect);
  if (!(m_t1 > m_t0)) return;
  const QRectF area = chart()->plotArea();
  const double u = (m_playhead - m_t0) / (m_t1 - m_t0);
  if (u < -1e-9 || u > 1 + 1e-9) return;
  const QPointF top = chart()->mapToScene(QPointF(area.left() + u * area.width(), area.top()));
  const QPointF bottom = chart()->mapToScene(QPointF(area.left() + u * area.width(), area.bottom()));
  painter->save();
  painter->setPen(QPen(QColor(220, 30, 30), 1.5));  // the timeline's playhead red
  painter->drawLine(top, bottom);
  painter->restore();
}

// ---------------------------------------------------------------------------------------------
// PlotDock

PlotDock::PlotDock(SimulationController& sim, QWidget* parent) : QWidget(parent), m_sim(sim) {
  m_filter = new QLineEdit(this);
  m_filter->setObjectName(QStringLiteral("plotFilter"));
  m_filter->setPlaceholderText(tr("Filter quantities"));
  m_filter->setClearButtonEnabled(true);
  m_tree = new QTreeWidget(this);
  m_tree->setObjectName(QStringLiteral("plotQuantities"));
  m_tree->setHeaderHidden(true);
  m_tree->setMinimumWidth(150);
  m_tree->setToolTip(tr("Check the quantities to plot (Space or double-click toggles)"));
  m_clear = new QPushButton(tr("Clear"), this);
  m_clear->setToolTip(tr("Plot nothing"));
  m_export = new QPushButton(tr("Export CSV…"), this);
  m_export->setObjectName(QStringLiteral("plotExportCsv"));
  m_export->setToolTip(tr("Write time and every plotted quantity, one row per recorded frame"));
  m_export->setEnabled(false);

  m_chart = new QChart();
  m_chart->legend()->setAlignment(Qt::AlignTop);
  m_chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
  QFont legendFont = m_chart->legend()->font();
  legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
  m_chart->legend()->setFont(legendFont);
  m_chart->setMargins(QMargins(2, 2, 2, 2));
  m_chart->layout()->setContentsMargins(0, 0, 0, 0);
  m_chart->setBackgroundRoundness(0);
  m_timeAxis = new QValueAxis(m_chart);
  m_timeAxis->setTitleText(tr("t (s)"));
  m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
  m_view = new PlotView(m_chart, this);
  m_view->setObjectName(QStringLiteral("plotView"));
  m_view->setMinimumSize(240, 160);

  auto* left = new QWidget(this);
  auto* ll = new QVBoxLayout(left);
  ll->setContentsMargins(0, 0, 0, 0);
  ll->addWidget(m_filter);
  ll->addWidget(m_tree);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_clear);
  buttons->addWidget(m_export);
  ll->addLayout(buttons);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(m_view);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setSizes({170, 700});
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(split);

  // Space toggles the current quantity, as in any list of check boxes, rather than the window's
  // Play shortcut
  m_tree->installEventFilter(this);
  connect(m_filter, &QLineEdit::textChanged, this, &PlotDock::applyFilter);
  connect(m_tree, &QTreeWidget::itemChanged, this, &PlotDock::itemChanged);
  // double-click or Return on a quantity toggles it (Space does already, as for any check box)
  connect(m_tree, &QTreeWidget::itemActivated, this, [](QTreeWidgetItem* item) {
    if (item->flags() & Qt::ItemIsUserCheckable)
      item->setCheckState(0, item->checkState(0) == Qt::Checked ? Qt::Unchecked : Qt::Checked);
  });
  connect(m_clear, &QPushButton::clicked, this, [this] {
    m_plotted.clear();
    const QSignalBlocker block(m_tree);
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
      if ((*it)->flags() & Qt::ItemIsUserCheckable) (*it)->setCheckState(0, Qt::Unchecked);
    rebuildSeries();
  });
  connect(m_export, &QPushButton::clicked, this, &PlotDock::exportDialog);
  connect(m_view, &PlotView::seekRequested, this, [this](double t) {
    m_sim.seek(t);
    // show where it goes at once: the recorded frame nearest t (what seek shows)
    if (!m_copy.samples.empty()) {
      auto it = std::lower_bound(m_copy.samples.begin(), m_copy.samples.end(), t,
                                 [](const SamplePtr& s, double v) { return s->t < v; });
      if (it == m_copy.samples.end()) --it;
      else if (it != m_copy.samples.begin() && t - (*std::prev(it))->t <= (*it)->t - t) --it;
      m_view->setPlayhead((*it)->t);
    }
  });

  m_dataTimer.setInterval(kDataMs);
  connect(&m_dataTimer, &QTimer::timeout, this, [this] {
    if (isVisible()) refresh();
  });
  m_playheadTimer.setInterval(kPlayheadMs);
  connect(&m_playheadTimer, &QTimer::timeout, this, [this] {
    if (isVisible()) updatePlayhead();
  });
  m_dataTimer.start();
  m_playheadTimer.start();
  rebuildSeries();
}

bool PlotDock::eventFilter(QObject* watched, QEvent* e) {
  if (watched == m_tree && e->type() == QEvent::ShortcutOverride) {
    auto* k = static_cast<QKeyEvent*>(e);
    if (k->key() == Qt::Key_Space && k->modifiers() == Qt::NoModifier) {
      e->accept();
      return true;
    }
  }
  return QWidget::eventFilter(watched, e);
}

void PlotDock::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  refresh();
}

void PlotDock::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  m_dirty = true;  // the decimation depends on the width
}

void PlotDock::refresh() {
  const auto snap = m_sim.snapshot();
  if (snap->geometry && snap->geometry.get() != m_treeGeometry) rebuildTree(*snap->geometry);
  const auto u = m_sim.samples().update(m_copy);
  // the chart lays its plot area out after a resize, often after the refresh the resize asked
  // for: decimate again when the width has moved on from the one the points were made for
  const double w = m_chart->plotArea().width();
  const bool widthMoved = w > 0 && std::abs(w - m_decimatedWidth) > 0.02 * w;
  if (u != FrameSampleStore::Update::None || m_dirty || widthMoved) updateData();
  updatePlayhead();
}

void PlotDock::updatePlayhead() { m_view->setPlayhead(m_sim.snapshot()->t); }

void PlotDock::rebuildTree(const core::SceneGeometry& g) {
  m_treeGeometry = &g;
  const std::vector<core::PlotQuantity> qs = core::plotQuantities(g);
  std::vector<std::string> keys;
  for (const auto& q : qs) keys.push_back(q.key());
  if (keys == m_treeKeys) return;  // a recompile that kept every name: keep the tree as it is
  m_treeKeys = keys;
  const QSignalBlocker block(m_tree);
  m_tree->clear();
  auto group = [&](const QString& text) {
    auto* item = new QTreeWidgetItem(m_tree, {text});
    item->setFlags(Qt::ItemIsEnabled);
    item->setExpanded(true);
    return item;
  };
  QTreeWidgetItem* energy = group(tr("Energy"));
  QTreeWidgetItem* bodies = g.bodies.empty() ? nullptr : group(tr("Bodies"));
  QTreeWidgetItem* constraints = g.constraintNames.empty() ? nullptr : group(tr("Constraints"));
  std::map<std::string, QTreeWidgetItem*> objects;
  for (const core::PlotQuantity& q : qs) {
    QTreeWidgetItem* parent = energy;
    // under "Energy" the word is redundant: "Kinetic (J)"
    QString text = QString::fromStdString(q.label.substr(0, q.label.find(' '))) +
                   QStringLiteral(" (%1)").arg(QString::fromStdString(q.unit));
    if (q.kind != core::PlotQuantity::Kind::Kinetic && q.kind != core::PlotQuantity::Kind::Potential &&
        q.kind != core::PlotQuantity::Kind::Total) {
      const bool body = q.kind == core::PlotQuantity::Kind::Body;
      QTreeWidgetItem*& obj = objects[(body ? "b:" : "c:") + q.object];
      if (!obj) {
        obj = new QTreeWidgetItem(body ? bodies : constraints, {QString::fromStdString(q.object)});
        obj->setFlags(Qt::ItemIsEnabled);
        // open when there are few: in a small scene one sees every quantity at once
        obj->setExpanded(objects.size() <= 3);
      }
      parent = obj;
      // under its object the object's name is redundant: "z (m)", "|D| (m)"
      text = QString::fromStdString(q.label.substr(q.object.size() + 1)) + QStringLiteral(" (%1)").arg(QString::fromStdString(q.unit));
    }
    auto* item = new QTreeWidgetItem(parent, {text});
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
    item->setData(0, kKeyRole, QString::fromStdString(q.key()));
    item->setToolTip(0, label(q));
    const bool on = std::any_of(m_plotted.begin(), m_plotted.end(), [&](const core::PlotQuantity& p) { return p == q; });
    item->setCheckState(0, on ? Qt::Checked : Qt::Unchecked);
    // keep the newest label and unit of what is plotted
    for (auto& p : m_plotted)
      if (p == q) p = q;
  }
  applyFilter(m_filter->text());
  // what the scene no longer has (another file opened, a body removed or renamed) is no longer
  // plotted: its series and legend entry go with its row
  const std::size_t plotted = m_plotted.size();
  std::erase_if(m_plotted, [&](const core::PlotQuantity& p) { return std::find(qs.begin(), qs.end(), p) == qs.end(); });
  if (m_plotted.size() != plotted) rebuildSeries();
}

void PlotDock::applyFilter(const QString& text) {
  // a leaf shows when its full label contains the text; a group when any of its leaves shows
  std::function<bool(QTreeWidgetItem*)> apply = [&](QTreeWidgetItem* item) {
    if (item->childCount() == 0) {
      const bool show = text.isEmpty() || item->toolTip(0).contains(text, Qt::CaseInsensitive);
      item->setHidden(!show);
      return show;
    }
    bool any = false;
    for (int i = 0; i < item->childCount(); ++i) any = apply(item->child(i)) || any;
    item->setHidden(!any);
    if (any && !text.isEmpty()) item->setExpanded(true);
    return any;
  };
  for (int i = 0; i < m_tree->topLevelItemCount(); ++i) apply(m_tree->topLevelItem(i));
}

void PlotDock::itemChanged(QTreeWidgetItem* item) {
  const std::string key = item->data(0, kKeyRole).toString().toStdString();
  if (key.empty() || !m_treeGeometry) return;
  const bool on = item->checkState(0) == Qt::Checked;
  auto it = std::find_if(m_plotted.begin(), m_plotted.end(), [&](const core::PlotQuantity& p) { return p.key() == key; });
  if (on && it == m_plotted.end()) {
    for (const core::PlotQuantity& q : core::plotQuantities(*m_treeGeometry))
      if (q.key() == key) m_plotted.push_back(q);
  } else if (!on && it != m_plotted.end()) {
    m_plotted.erase(it);
  } else {
    return;
  }
  rebuildSeries();
}

void PlotDock::rebuildSeries() {
  for (Drawn& d : m_drawn) {
    m_chart->removeSeries(d.series);
    delete d.series;
  }
  m_drawn.clear();
  for (auto& [unit, axis] : m_axes) {
    m_chart->removeAxis(axis);
    delete axis;
  }
  m_axes.clear();
  int units = 0;
  for (const core::PlotQuantity& q : m_plotted) {
    QCategoryAxis*& axis = m_axes[q.unit];
    if (!axis) {
      // one value axis per unit: the first on the left, the next on the right, and so on
      axis = new QCategoryAxis(m_chart);
      axis->setTitleText(axisTitle(q.unit));
      m_chart->addAxis(axis, units++ % 2 == 0 ? Qt::AlignLeft : Qt::AlignRight);
    }
    auto* s = new QLineSeries(m_chart);
    s->setName(label(q));
    s->setObjectName(QString::fromStdString(q.key()));
    m_chart->addSeries(s);
    s->attachAxis(m_timeAxis);
    s->attachAxis(axis);
    Drawn d;
    d.quantity = q;
    d.series = s;
    d.axis = axis;
    m_drawn.push_back(std::move(d));
  }
  m_chart->legend()->setVisible(!m_drawn.empty());
  m_export->setEnabled(!m_plotted.empty());
  m_chart->setTitle(m_plotted.empty() ? tr("Check quantities on the left to plot them against time") : QString());
  m_dirty = true;
  updateData();
}

void PlotDock::updateData() {
  m_dirty = false;
  const auto& samples = m_copy.samples;
  double t0 = samples.empty() ? 0.0 : samples.front()->t;
  double t1 = samples.empty() ? 1.0 : samples.back()->t;
  if (!(t1 > t0)) t1 = t0 + m_sim.snapshot()->history.framePeriod;
  roundTicks(m_timeAxis, t0, t1, std::max(2, int(m_chart->plotArea().width() / 90)));
  m_view->setTimeRange(t0, t1);

  // about one bucket per pixel column of the plot area: min and max each
  const int buckets = std::max(16, int(m_chart->plotArea().width() > 0 ? m_chart->plotArea().width() : m_view->width()));
  m_decimatedWidth = m_chart->plotArea().width();
  std::map<QCategoryAxis*, std::pair<double, double>> ranges;
  std::vector<double> dx, dy;
  QList<QPointF> points;
  for (Drawn& d : m_drawn) {
    if (d.epoch != m_copy.epoch) {
      // the history was cut (a re-simulation, Reset): read everything again
      d.t.clear();
      d.v.clear();
      d.epoch = m_copy.epoch;
      d.read = m_copy.first;
    }
    // the oldest frames dropped (the history's memory bound): their values go too
    if (!samples.empty()) {
      const auto keep = std::lower_bound(d.t.begin(), d.t.end(), samples.front()->t);
      d.v.erase(d.v.begin(), d.v.begin() + (keep - d.t.begin()));
      d.t.erase(d.t.begin(), keep);
    }
    // only the frames not read yet
    core::PlotReader read(d.quantity);
    const std::uint64_t end = m_copy.first + samples.size();
    for (std::uint64_t k = std::max(d.read, m_copy.first); k < end; ++k) {
      const core::FrameSample& s = *samples[size_t(k - m_copy.first)];
      const double v = read(s);
      if (std::isfinite(v)) {
        d.t.push_back(s.t);
        d.v.push_back(v);
      }
    }
    d.read = end;
    const std::vector<double>& x = d.t;
    const std::vector<double>& y = d.v;
    core::decimateMinMax(x, y, buckets, dx, dy);
    points.resize(qsizetype(dx.size()));
    auto& [lo, hi] = ranges.try_emplace(d.axis, std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity()).first->second;
    for (size_t i = 0; i < dx.size(); ++i) {
      points[qsizetype(i)] = QPointF(dx[i], dy[i]);
      lo = std::min(lo, dy[i]);
      hi = std::max(hi, dy[i]);
    }
    d.series->replace(points);
  }
  for (auto& [axis, r] : ranges) {
    auto [lo, hi] = r;
    if (!(lo <= hi)) lo = 0.0, hi = 1.0;  // nothing recorded yet
    // Round-off is not a motion: a range narrower than the last bits of its values (1e-9 of
    // them, and 1e-12 in all: a helper's front-view y of ~4e-16 m filled the chart as if it
    // swung, and its ticks and title were lost) is shown as a band around them, as a constant is.
    const double least = std::max(1e-9 * std::max(std::abs(lo), std::abs(hi)), 1e-12);
    if (hi - lo < least) {
      const double mid = 0.5 * (lo + hi), band = std::max(least, 0.05 * std::abs(mid) + 1e-6);
      lo = mid - 0.5 * band;
      hi = mid + 0.5 * band;
    }
    const double pad = 0.05 * (hi - lo);  // a margin of 5 %
    exactTicks(axis, lo - pad, hi + pad, std::max(2, int(m_chart->plotArea().height() / 45)));
  }
}

QLineSeries* PlotDock::series(const QString& key) const {
  for (const Drawn& d : m_drawn)
    if (QString::fromStdString(d.quantity.key()) == key) return d.series;
  return nullptr;
}

QStringList PlotDock::plottedKeys() const {
  QStringList out;
  for (const auto& q : m_plotted) out << QString::fromStdString(q.key());
  return out;
}

bool PlotDock::exportCsv(const QString& path, QString* error) {
  m_sim.samples().update(m_copy);  // everything recorded up to now
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
    if (error) *error = f.errorString();
    return false;
  }
  QStringList header{QStringLiteral("t (s)")};
  std::vector<core::PlotReader> readers;
  for (const core::PlotQuantity& q : m_plotted) {
    header << csvField(label(q));
    readers.emplace_back(q);
  }
  QByteArray out = header.join(QLatin1Char(',')).toUtf8() + '\n';
  for (const SamplePtr& s : m_copy.samples) {
    QStringList row{number(s->t)};
    for (core::PlotReader& r : readers) row << number(r(*s));
    out += row.join(QLatin1Char(',')).toUtf8() + '\n';
  }
  f.write(out);
  if (!f.commit()) {
    if (error) *error = f.errorString();
    return false;
  }
  return true;
}

void PlotDock::exportDialog() {
  if (m_plotted.empty()) {
    emit message(tr("Check a quantity to plot first: the CSV holds what is plotted"));
    return;
  }
  const QString path = QFileDialog::getSaveFileName(this, tr("Export plotted data"), QStringLiteral("plot.csv"),
                                                    tr("CSV files (*.csv);;All files (*)"));
  if (path.isEmpty()) return;
  QString why;
  if (!exportCsv(path, &why)) {
    QMessageBox::warning(this, tr("Export CSV"), tr("Cannot write %1: %2").arg(path, why));
    return;
  }
  emit message(tr("Wrote %1 frames of %2 quantities to %3").arg(m_copy.samples.size()).arg(m_plotted.size()).arg(path));
}

}  // namespace tether::ui
