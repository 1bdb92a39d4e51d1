#include "ui/outliner.h"

#include <QContextMenuEvent>
#include <QHeaderView>
#include <QMenu>

namespace tether::ui {

namespace {
constexpr int kKindRole = Qt::UserRole, kNameRole = Qt::UserRole + 1;
}

Outliner::Outliner(Document& doc, QWidget* parent) : QTreeWidget(parent), m_doc(doc) {
  setColumnCount(2);
  setHeaderLabels({tr("Object"), tr("Type")});
  header()->setSectionResizeMode(0, QHeaderView::Stretch);
  setRootIsDecorated(true);
  connect(&m_doc, &Document::changed, this, &Outliner::rebuild);
  connect(this, &QTreeWidget::itemSelectionChanged, this, [this] {
    if (m_updating) return;
    const auto items = selectedItems();
    Selection s;
    if (!items.isEmpty() && items.first()->data(0, kKindRole).isValid()) {
      s.kind = Selection::Kind(items.first()->data(0, kKindRole).toInt());
      s.name = items.first()->data(0, kNameRole).toString().toStdString();
    }
    m_selection = s;
    emit selected(s);
  });
  rebuild();
}

void Outliner::rebuild() {
  m_updating = true;
  clear();
  const core::Scene& sc = m_doc.scene();
  auto group = [&](const QString& title, int count) {
    auto* g = new QTreeWidgetItem(this, {QStringLiteral("%1 (%2)").arg(title).arg(count)});
    g->setFlags(Qt::ItemIsEnabled);
    g->setExpanded(true);
    return g;
  };
  auto item = [&](QTreeWidgetItem* parent, Selection::Kind k, const std::string& name, const QString& type) {
    auto* it = new QTreeWidgetItem(parent, {QString::fromStdString(name), type});
    it->setData(0, kKindRole, int(k));
    it->setData(0, kNameRole, QString::fromStdString(name));
    if (m_selection.kind == k && m_selection.name == name) it->setSelected(true);
  };
  auto* settings = new QTreeWidgetItem(this, {tr("Settings"), tr("gravity, solver, time step")});
  settings->setData(0, kKindRole, int(Selection::Kind::Settings));
  settings->setData(0, kNameRole, QString());
  if (m_selection.kind == Selection::Kind::Settings) settings->setSelected(true);
  auto* bodies = group(tr("Bodies"), int(sc.bodies.size()));
  for (const auto& b : sc.bodies)
    item(bodies, Selection::Kind::Body, b.name, QString::fromUtf8(core::toString(b.shape)) + (b.fixed ? tr(", fixed") : QString()));
  auto* nails = group(tr("Nails"), int(sc.nails.size()));
  for (const auto& n : sc.nails) item(nails, Selection::Kind::Nail, n.name, tr("nail"));
  auto* paths = group(tr("Paths"), int(sc.paths.size()));
  for (const auto& p : sc.paths) item(paths, Selection::Kind::Path, p.name, QString::fromUtf8(core::toString(p.kind)));
  auto* forces = group(tr("Forces"), int(sc.forces.size()));
  for (const auto& f : sc.forces)
    item(forces, Selection::Kind::Force, f.name, QString::fromUtf8(core::toString(f.kind)) + (f.enabled ? QString() : tr(", off")));
  auto* cons = group(tr("Constraints"), int(sc.constraints.size()));
  for (const auto& c : sc.constraints)
    item(cons, Selection::Kind::Constraint, c.name,
         QString::fromUtf8(core::toString(c.kind)) + (c.enabled ? QString() : tr(", off")));
  auto* events = group(tr("Events"), int(sc.events.size()));
  for (const auto& e : sc.events) {
    auto* it = new QTreeWidgetItem(events, {QStringLiteral("t = %1 s").arg(e.time),
                                            QStringLiteral("%1 %2").arg(QString::fromUtf8(core::toString(e.action)),
                                                                         QString::fromStdString(e.target))});
    it->setFlags(Qt::ItemIsEnabled);
  }
  m_updating = false;
}

void Outliner::setSelection(const Selection& s) {
  if (s == m_selection) return;
  m_selection = s;
  rebuild();
}

void Outliner::contextMenuEvent(QContextMenuEvent* e) {
  QTreeWidgetItem* it = itemAt(viewport()->mapFrom(this, e->pos()));
  if (!it || !it->data(0, kKindRole).isValid() || Selection::Kind(it->data(0, kKindRole).toInt()) == Selection::Kind::Settings)
    return;
  it->setSelected(true);
  QMenu menu;
  menu.addAction(tr("Delete"), this, &Outliner::deleteRequested);
  menu.exec(e->globalPos());
}

}  // namespace tether::ui
