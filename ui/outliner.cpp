#include "ui/outliner.h"

#include <QContextMenuEvent>
#include <QHeaderView>
#include <QMenu>
#include <QStyledItemDelegate>

namespace tether::ui {

namespace {

// Says why a rename was refused (the model keeps the reason; the editor closes either way).
class NameDelegate : public QStyledItemDelegate {
 public:
  NameDelegate(Outliner* outliner) : QStyledItemDelegate(outliner), m_outliner(outliner) {}
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override {
    QStyledItemDelegate::setModelData(editor, model, index);
    if (!m_outliner->sceneModel()->lastError().isEmpty())
      emit m_outliner->message(QObject::tr("Not renamed: %1").arg(m_outliner->sceneModel()->lastError()));
  }

 private:
  Outliner* m_outliner;
};

}  // namespace

Outliner::Outliner(SceneModel* model, QItemSelectionModel* selection, QWidget* parent)
    : QTreeView(parent), m_model(model) {
  setModel(model);
  setSelectionModel(selection);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::DoubleClicked);
  setItemDelegateForColumn(SceneModel::Name, new NameDelegate(this));
  setRootIsDecorated(true);
  // names whole (what a user looks for and clicks), the type in what is left, elided ("gravity,
  // solver, time step" had squeezed the names to "S..." in the default 250 px dock)
  header()->setStretchLastSection(false);
  header()->setSectionResizeMode(SceneModel::Name, QHeaderView::ResizeToContents);
  header()->setSectionResizeMode(SceneModel::Type, QHeaderView::Stretch);
  header()->setSectionResizeMode(SceneModel::Status, QHeaderView::ResizeToContents);
  // the groups open, as after every add or remove (a model reset closes them)
  const auto openGroups = [this] {
    for (int g = SceneModel::Bodies; g < SceneModel::GroupCount; ++g) expand(m_model->index(g, 0));
  };
  openGroups();
  connect(model, &QAbstractItemModel::modelReset, this, openGroups);
  connect(selection, &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& i) { scrollTo(i); });
}

void Outliner::contextMenuEvent(QContextMenuEvent* e) {
  const QModelIndex i = indexAt(viewport()->mapFrom(this, e->pos()));
  const Selection s = m_model->selectionAt(i);
  if (s.kind == Selection::Kind::None || s.kind == Selection::Kind::Settings) return;
  selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  QMenu menu;
  menu.addAction(tr("Delete"), this, &Outliner::deleteRequested);
  menu.exec(e->globalPos());
}

}  // namespace tether::ui
