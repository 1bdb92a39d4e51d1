// The scene outliner: a tree view of the SceneModel (settings, bodies, nails, paths, forces,
// constraints and events) sharing the window's selection model, so selecting a row selects the
// object everywhere. A name is renamed in place (F2 or a double click: an undoable rename);
// constraints tether-cli check flags (conflicting, redundant) show in red / amber with a warning
// icon and the reason as tool tip.
#pragma once

#include <QTreeView>

#include "ui/scene_model.h"

namespace tether::ui {

class Outliner : public QTreeView {
  Q_OBJECT
 public:
  Outliner(SceneModel* model, QItemSelectionModel* selection, QWidget* parent = nullptr);
  SceneModel* sceneModel() const { return m_model; }

 signals:
  void deleteRequested();
  void message(const QString& text);  // a refused rename, with the reason

 protected:
  void contextMenuEvent(QContextMenuEvent* e) override;

 private:
  SceneModel* m_model;
};

}  // namespace tether::ui
