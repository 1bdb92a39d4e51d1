#include "ui/scene_model.h"

#include <QApplication>
#include <QColor>
#include <QStyle>
#include <algorithm>

#include "core/constraint_type.h"
#include "ui/commands.h"

namespace tether::ui {

namespace {

// internalId of an index: 0 for a top-level row, 1 + its group for an object's row
constexpr quintptr kTop = 0;

Selection::Kind kindOf(int group) {
  switch (group) {
    case SceneModel::Bodies: return Selection::Kind::Body;
    case SceneModel::Nails: return Selection::Kind::Nail;
    case SceneModel::Planes: return Selection::Kind::Plane;
    case SceneModel::Paths: return Selection::Kind::Path;
    case SceneModel::Forces: return Selection::Kind::Force;
    case SceneModel::Constraints: return Selection::Kind::Constraint;
    case SceneModel::Events: return Selection::Kind::Event;
    default: return Selection::Kind::None;
  }
}

template <typename List>
int rowOf(const List& list, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return int(i);
  return -1;
}

}  // namespace

SceneModel::SceneModel(Document& doc, QObject* parent) : QAbstractItemModel(parent), m_doc(doc) {
  m_counts = counts();
  connect(&m_doc, &Document::changed, this, &SceneModel::sceneChanged);
}

std::array<int, SceneModel::GroupCount> SceneModel::counts() const {
  const core::Scene& s = m_doc.scene();
  return {0, int(s.bodies.size()), int(s.nails.size()), int(s.planes.size()), int(s.paths.size()),
          int(s.forces.size()), int(s.constraints.size()), int(s.events.size())};
}

// An edit that keeps every group's size (a property, a move, a rename) changes rows in place:
// the views keep their selection and scroll. One that adds or removes rows resets the model
// (MainWindow selects the same object again).
void SceneModel::sceneChanged() {
  const auto now = counts();
  if (now == m_counts) {
    for (int g = Bodies; g < GroupCount; ++g)
      if (m_counts[size_t(g)] > 0) {
        const QModelIndex group = index(g, 0);
        emit dataChanged(index(0, 0, group), index(m_counts[size_t(g)] - 1, ColumnCount - 1, group));
      }
    return;
  }
  beginResetModel();
  m_counts = now;
  endResetModel();
}

void SceneModel::setConstraintIssues(std::vector<core::ConstraintIssue> issues) {
  m_issues = std::move(issues);
  if (m_counts[Constraints] > 0) {
    const QModelIndex group = index(Constraints, 0);
    emit dataChanged(index(0, 0, group), index(m_counts[Constraints] - 1, ColumnCount - 1, group));
  }
}

QModelIndex SceneModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= ColumnCount || row < 0) return {};
  if (!parent.isValid()) return row < GroupCount ? createIndex(row, column, kTop) : QModelIndex();
  if (parent.internalId() != kTop || parent.column() != 0) return {};
  const int group = parent.row();
  if (group == Settings || row >= m_counts[size_t(group)]) return {};
  return createIndex(row, column, quintptr(1 + group));
}

QModelIndex SceneModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kTop) return {};
  return createIndex(int(child.internalId() - 1), 0, kTop);
}

int SceneModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return GroupCount;
  if (parent.internalId() != kTop || parent.column() != 0) return 0;
  return m_counts[size_t(parent.row())];
}

int SceneModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant SceneModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name: return tr("Object");
    case Type: return tr("Type");
    case Status: return tr("Status");
    default: return {};
  }
}

Qt::ItemFlags SceneModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  if (index.internalId() == kTop) return index.row() == Settings ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::ItemIsEnabled;
  const int group = int(index.internalId() - 1);
  if (group == Events) return Qt::ItemIsEnabled | Qt::ItemIsSelectable;  // (no name to edit)
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.column() == Name) f |= Qt::ItemIsEditable;
  return f;
}

QVariant SceneModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  if (index.internalId() != kTop) return objectData(int(index.internalId() - 1), index.row(), index.column(), role);
  if (role != Qt::DisplayRole) return {};
  static const char* const titles[] = {"Settings", "Bodies", "Nails", "Ground planes", "Paths", "Forces", "Constraints", "Events"};
  if (index.row() == Settings)
    return index.column() == Name ? tr("Settings") : index.column() == Type ? tr("gravity, solver, time step") : QVariant();
  if (index.column() != Name) return {};
  return QStringLiteral("%1 (%2)").arg(tr(titles[index.row()])).arg(m_counts[size_t(index.row())]);
}

QVariant SceneModel::objectData(int group, int row, int column, int role) const {
  const core::Scene& s = m_doc.scene();
  const size_t r = size_t(row);
  if (group == Events) {
    if (role != Qt::DisplayRole || r >= s.events.size()) return {};
    const core::EventDef& e = s.events[r];
    if (column == Name) return QStringLiteral("t = %1 s").arg(e.time);
    if (column == Type)
      return QStringLiteral("%1 %2").arg(QString::fromUtf8(core::toString(e.action)), QString::fromStdString(e.target));
    return {};
  }
  std::string name;
  QString type, status;
  const core::ConstraintIssue* issue = nullptr;
  switch (group) {
    case Bodies:
      if (r >= s.bodies.size()) return {};
      name = s.bodies[r].name;
      type = QString::fromUtf8(core::toString(s.bodies[r].shape));
      if (s.bodies[r].fixed) status = tr("fixed");
      break;
    case Nails:
      if (r >= s.nails.size()) return {};
      name = s.nails[r].name;
      type = tr("nail");
      break;
    case Planes:
      if (r >= s.planes.size()) return {};
      name = s.planes[r].name;
      type = tr("ground plane");
      if (!s.settings.contacts) status = tr("contacts off");
      break;
    case Paths:
      if (r >= s.paths.size()) return {};
      name = s.paths[r].name;
      type = QString::fromUtf8(core::toString(s.paths[r].kind));
      break;
    case Forces:
      if (r >= s.forces.size()) return {};
      name = s.forces[r].name;
      type = QString::fromUtf8(core::toString(s.forces[r].kind));
      if (!s.forces[r].enabled) status = tr("off");
      break;
    case Constraints: {
      if (r >= s.constraints.size()) return {};
      const core::ConstraintDef& c = s.constraints[r];
      name = c.name;
      type = QString::fromUtf8(c.type().label);
      const auto it = std::find_if(m_issues.begin(), m_issues.end(), [&](const auto& i) { return i.name == c.name; });
      if (it != m_issues.end()) issue = &*it;
      QStringList st;
      if (!c.enabled) st << tr("off");
      if (issue) st << (issue->conflicting ? tr("conflicting") : tr("redundant"));
      status = st.join(QStringLiteral(", "));
      break;
    }
    default: return {};
  }
  switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
      return column == Name ? QString::fromStdString(name) : column == Type ? type : status;
    case Qt::ForegroundRole:
      // the viewport's colours (render::conflictColor, redundantColor), darkened to read as text
      if (issue) return issue->conflicting ? QColor(200, 0, 0) : QColor(170, 100, 0);
      return {};
    case Qt::ToolTipRole:
      if (issue) return QString::fromStdString(issue->reason);
      return {};
    case Qt::DecorationRole:
      if (issue && column == Name) return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
      return {};
    default: return {};
  }
}

bool SceneModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  m_error.clear();
  const Selection s = selectionAt(index);
  if (role != Qt::EditRole || index.column() != Name || s.kind == Selection::Kind::None ||
      s.kind == Selection::Kind::Settings)
    return false;
  const std::string to = value.toString().trimmed().toStdString();
  if (to == s.name) return false;
  return m_doc.push(RenameObject::make(m_doc, objectKind(s.kind), s.name, to, m_error), &m_error);
}

Selection SceneModel::selectionAt(const QModelIndex& index) const {
  if (!index.isValid()) return {};
  if (index.internalId() == kTop)
    return index.row() == Settings ? Selection{Selection::Kind::Settings, {}} : Selection{};
  const int group = int(index.internalId() - 1);
  const Selection::Kind kind = kindOf(group);
  if (kind == Selection::Kind::None) return {};
  if (kind == Selection::Kind::Event) return {kind, std::to_string(index.row())};
  const QModelIndex name = index.siblingAtColumn(Name);
  return {kind, data(name, Qt::DisplayRole).toString().toStdString()};
}

QModelIndex SceneModel::indexOf(const Selection& s) const {
  const core::Scene& sc = m_doc.scene();
  int group = -1, row = -1;
  switch (s.kind) {
    case Selection::Kind::None: return {};
    case Selection::Kind::Settings: return index(Settings, 0);
    case Selection::Kind::Body: group = Bodies; row = rowOf(sc.bodies, s.name); break;
    case Selection::Kind::Nail: group = Nails; row = rowOf(sc.nails, s.name); break;
    case Selection::Kind::Plane: group = Planes; row = rowOf(sc.planes, s.name); break;
    case Selection::Kind::Path: group = Paths; row = rowOf(sc.paths, s.name); break;
    case Selection::Kind::Force: group = Forces; row = rowOf(sc.forces, s.name); break;
    case Selection::Kind::Constraint: group = Constraints; row = rowOf(sc.constraints, s.name); break;
    case Selection::Kind::Event: group = Events; row = eventIndex(s, sc.events.size()); break;
  }
  return row < 0 ? QModelIndex() : index(row, 0, index(group, 0));
}

}  // namespace tether::ui
