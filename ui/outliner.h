// The scene outliner: settings, bodies, nails, paths, forces, constraints and events of the
// document as a tree; selecting an item selects the object.
#pragma once

#include <QTreeWidget>

#include "ui/document.h"
#include "ui/selection.h"

namespace tether::ui {

class Outliner : public QTreeWidget {
  Q_OBJECT
 public:
  Outliner(Document& doc, QWidget* parent = nullptr);
  void setSelection(const Selection& s);  // highlight without emitting selected()
  void rebuild();

 signals:
  void selected(const Selection& s);
  void deleteRequested();

 protected:
  void contextMenuEvent(QContextMenuEvent* e) override;

 private:
  Document& m_doc;
  Selection m_selection;
  bool m_updating = false;
};

}  // namespace tether::ui
