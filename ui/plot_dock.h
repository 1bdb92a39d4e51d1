// The plot dock (View → Plots): any quantity of the recorded history against time — kinetic,
// potential and total energy, a body's position, velocity and angular velocity components, each
// constraint's |D| and |F| — several at once with a legend and a value axis per unit. The time
// axis spans the recorded range; the playhead is a red vertical line, and clicking or dragging
// in the plot seeks it (SimulationController::seek). "Export CSV…" writes time and every plotted
// column at full resolution.
//
// The data comes from the controller's FrameSampleStore (one sample per recorded frame, made on
// the solver thread): the dock copies what is new four times a second while it is shown, follows
// the history's cuts (a timeline edit re-simulates, Reset clears) by rebuilding, and draws at
// most about two points per pixel column (min-max decimation), so hours of frames stay smooth.
#pragma once

#include <QChartView>
#include <QElapsedTimer>
#include <QLineSeries>
#include <QTimer>
#include <QTreeWidget>
#include <QCategoryAxis>
#include <QValueAxis>
#include <QWidget>
#include <map>
#include <vector>

#include "core/plot_data.h"
#include "ui/frame_samples.h"
#include "ui/simulation_controller.h"

class QLineEdit;
class QPushButton;

namespace tether::ui {

// The chart with the playhead drawn over it; a press or drag inside the plot area asks to seek.
class PlotView : public QChartView {
  Q_OBJECT
 public:
  explicit PlotView(QChart* chart, QWidget* parent = nullptr);
  void setTimeRange(double t0, double t1);
  void setPlayhead(double t);
  double playhead() const { return m_playhead; }
  // the time under a viewport x coordinate, clamped to the time range
  double timeAt(double x) const;
  // the viewport x coordinate of a time (tests click there)
  double xOf(double t) const;

 signals:
  void seekRequested(double t);

 protected:
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void drawForeground(QPainter* painter, const QRectF& rect) override;

 private:
  QRectF plotRect() const;  // the plot area in viewport coordinates
  double m_t0 = 0.0, m_t1 = 1.0;
  double m_playhead = 0.0;
  bool m_scrubbing = false;
};

class PlotDock : public QWidget {
  Q_OBJECT
 public:
  explicit PlotDock(SimulationController& sim, QWidget* parent = nullptr);

  // Poll now: the scene's quantities, new samples, the playhead (the timers call it while shown).
  void refresh();
  // Time plus every plotted column, one row per recorded frame; false with a reason on failure.
  bool exportCsv(const QString& path, QString* error = nullptr);

  QTreeWidget* quantityTree() { return m_tree; }
  PlotView* plotView() { return m_view; }
  QChart* chart() { return m_chart; }
  QPushButton* exportButton() { return m_export; }
  // the drawn series of a quantity (by PlotQuantity::key()), or null if it is not plotted
  QLineSeries* series(const QString& key) const;
  // frames the dock holds (what the plot and the CSV are made of)
  std::size_t frames() const { return m_copy.samples.size(); }
  QStringList plottedKeys() const;

 signals:
  void message(const QString& text);

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override;
  void showEvent(QShowEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  void rebuildTree(const core::SceneGeometry& g);
  void applyFilter(const QString& text);
  void itemChanged(QTreeWidgetItem* item);
  void rebuildSeries();   // the checked set changed: series and axes anew
  void updateData();      // points and ranges from m_copy
  void updatePlayhead();
  void exportDialog();

  SimulationController& m_sim;
  QTreeWidget* m_tree = nullptr;
  QLineEdit* m_filter = nullptr;
  QPushButton* m_export = nullptr;
  QPushButton* m_clear = nullptr;
  QChart* m_chart = nullptr;
  PlotView* m_view = nullptr;
  QValueAxis* m_timeAxis = nullptr;
  QTimer m_dataTimer, m_playheadTimer;

  SampleCopy m_copy;
  const core::SceneGeometry* m_treeGeometry = nullptr;
  std::vector<std::string> m_treeKeys;  // the quantities the tree lists now
  // what is plotted, in the order it was checked (by key): a quantity stays plotted when its
  // object goes from the scene (its recorded frames still have it) until unchecked
  std::vector<core::PlotQuantity> m_plotted;
  struct Drawn {
    core::PlotQuantity quantity;
    QLineSeries* series = nullptr;
    QCategoryAxis* axis = nullptr;  // (ticks labelled by PlotDock: exactTicks)
    // the quantity's values read so far (frames where it has one), so that new frames are
    // read once: samples up to sequence number `read` (of the copy's epoch `epoch`)
    std::vector<double> t, v;
    std::uint64_t epoch = ~std::uint64_t(0), read = 0;
  };
  std::vector<Drawn> m_drawn;
  std::map<std::string, QCategoryAxis*> m_axes;  // per unit
  bool m_dirty = true;  // data to redraw though no sample came (new series, resize)
  double m_decimatedWidth = 0;  // the plot area width (px) the drawn points were decimated for
};

}  // namespace tether::ui
