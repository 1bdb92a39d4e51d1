#include "ui/document.h"

#include <QFileInfo>
#include <new>
#include <set>

#include "core/scene_io.h"
#include "core/validate.h"

namespace tether::ui {

namespace {

// One edit of the scene: the whole scene before and after (exact undo, whatever the edit).
class SceneCommand : public QUndoCommand {
 public:
  SceneCommand(Document* doc, core::Scene before, core::Scene after, const QString& text, int mergeId)
      : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)),
        m_id(mergeId), m_epoch(doc->mergeEpoch()) {}
  void redo() override { m_doc->assign(m_after); }
  void undo() override { m_doc->assign(m_before); }
  int id() const override { return m_id > 0 ? m_id : -1; }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = dynamic_cast<const SceneCommand*>(other);
    if (!o || o->m_id != m_id || o->m_epoch != m_epoch) return false;
    m_after = o->m_after;  // keep the first "before", take the latest "after"
    return true;
  }

 private:
  Document* m_doc;
  core::Scene m_before, m_after;
  int m_id;
  int m_epoch;
};

}  // namespace

Document::Document(QObject* parent) : QObject(parent) {
  connect(&m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

QString Document::displayName() const {
  return m_path.isEmpty() ? QStringLiteral("untitled.json") : QFileInfo(m_path).fileName();
}

void Document::assign(const core::Scene& scene) {
  m_scene = scene;
  ++m_revision;
  emit changed();
}

bool Document::edit(const QString& text, const std::function<void(core::Scene&)>& change, int mergeId,
                    QString* error, const Check& check) {
  core::Scene next = m_scene;
  change(next);
  try {
    core::validateScene(next);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  if (check) {
    const QString refused = check(m_scene, next);
    if (!refused.isEmpty()) {
      if (error) *error = refused;
      return false;
    }
  }
  m_undo.push(new SceneCommand(this, m_scene, std::move(next), text, mergeId));
  return true;
}

void Document::setScene(const core::Scene& scene, const QString& text) {
  m_undo.push(new SceneCommand(this, m_scene, scene, text, 0));
}

bool Document::load(const QString& path, QString& error) {
  core::Scene s;
  try {
    s = core::loadScene(path.toStdString());
  } catch (const std::bad_alloc&) {
    error = path + ": out of memory while reading the scene: it needs more memory than this machine can give "
                   "(the open document is unchanged)";
    return false;
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
    return false;
  }
  m_undo.clear();
  m_path = path;
  m_scene = std::move(s);
  ++m_revision;
  emit filePathChanged(m_path);
  emit loaded();
  emit changed();
  return true;
}

bool Document::save(const QString& path, QString& error) {
  try {
    core::saveScene(m_scene, path.toStdString());
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
    return false;
  }
  if (path != m_path) {
    m_path = path;
    emit filePathChanged(m_path);
  }
  m_undo.setClean();
  return true;
}

void Document::clear() {
  m_undo.clear();
  m_path.clear();
  m_scene = core::Scene{};
  ++m_revision;
  emit filePathChanged(m_path);
  emit loaded();
  emit changed();
}

std::string Document::uniqueName(const std::string& prefix) const {
  std::set<std::string> used;
  for (const auto& b : m_scene.bodies) used.insert(b.name);
  for (const auto& n : m_scene.nails) used.insert(n.name);
  for (const auto& p : m_scene.paths) used.insert(p.name);
  for (const auto& f : m_scene.forces) used.insert(f.name);
  for (const auto& c : m_scene.constraints) used.insert(c.name);
  for (int i = 1;; ++i) {
    const std::string name = prefix + std::to_string(i);
    if (!used.count(name)) return name;
  }
}

}  // namespace tether::ui
