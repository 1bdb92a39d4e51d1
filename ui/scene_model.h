// The document's scene as a Qt item model (Qt's model/view, as KDE Step's WorldModel): the
// settings, then groups of bodies, nails, ground planes, paths, forces, constraints and events, each object a
// row with columns name / type / status. The outliner is a view of it, and the window's one
// QItemSelectionModel over it is what is selected (MainWindow::select). Names are editable in
// place: setData renames through the undo stack (RenameObject). Constraints `check` finds
// conflicting or redundant carry the mark (colour, icon, the reason as tool tip).
#pragma once

#include <QAbstractItemModel>
#include <array>
#include <vector>

#include "core/constraint_issues.h"
#include "ui/document.h"
#include "ui/selection.h"

namespace tether::ui {

class SceneModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column { Name, Type, Status, ColumnCount };
  // The top-level rows: the settings, then one group per kind of object.
  enum Group { Settings, Bodies, Nails, Planes, Paths, Forces, Constraints, Events, GroupCount };

  explicit SceneModel(Document& doc, QObject* parent = nullptr);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  // The object a row is (None for groups and events) and the row of an object (invalid if it
  // does not exist), column 0.
  Selection selectionAt(const QModelIndex& index) const;
  QModelIndex indexOf(const Selection& s) const;
  void setConstraintIssues(std::vector<core::ConstraintIssue> issues);
  // Why the last setData was refused (a taken or empty name, an invalid scene).
  const QString& lastError() const { return m_error; }

 private:
  void sceneChanged();
  std::array<int, GroupCount> counts() const;
  QVariant objectData(int group, int row, int column, int role) const;

  Document& m_doc;
  std::array<int, GroupCount> m_counts{};  // the rows the views know of, per group
  std::vector<core::ConstraintIssue> m_issues;
  QString m_error;
};

}  // namespace tether::ui
