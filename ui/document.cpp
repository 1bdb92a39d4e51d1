#include "ui/document.h"

#include <QFileInfo>
#include <new>
#include <set>

#include "core/scene_io.h"
#include "core/validate.h"

namespace tether::ui {

Document::Document(QObject* parent) : QObject(parent) {
  connect(&m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

QString Document::displayName() const {
  if (!m_path.isEmpty()) return QFileInfo(m_path).fileName();
  return m_untitledName.isEmpty() ? QStringLiteral("untitled.json") : m_untitledName;
}

void Document::sceneChanged() {
  ++m_revision;
  emit changed();
}

bool Document::push(std::unique_ptr<SceneCommand> command, QString* error, const Check& check) {
  if (!command) {  // (a factory that refused it may have said why already)
    if (error && error->isEmpty()) *error = tr("what it edits no longer exists");
    return false;
  }
  // tried on the document's scene itself and taken back: nothing is copied, and the command
  // lands through the undo stack (which applies it again)
  command->apply(m_scene);
  QString refused;
  try {
    core::validateScene(m_scene);
  } catch (const std::exception& e) {
    refused = QString::fromStdString(e.what());
  }
  if (refused.isEmpty() && check) refused = check(m_scene);
  command->revert(m_scene);
  if (!refused.isEmpty()) {
    if (error) *error = refused;
    return false;
  }
  m_undo.push(command.release());
  return true;
}

bool Document::edit(const QString& text, const std::function<void(core::Scene&)>& change, QString* error) {
  core::Scene next = m_scene;
  change(next);
  return push(std::make_unique<SetScene>(*this, text, m_scene, std::move(next)), error);
}

void Document::setScene(const core::Scene& scene, const QString& text) {
  m_undo.push(new SetScene(*this, text, m_scene, scene));
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
  adopt(std::move(s), path);
  return true;
}

void Document::adopt(core::Scene scene, const QString& path) {
  m_undo.clear();
  m_path = path;
  m_untitledName.clear();
  m_scene = std::move(scene);
  ++m_revision;
  emit filePathChanged(m_path);
  emit loaded();
  emit changed();
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
  m_untitledName.clear();
  m_scene = core::Scene{};
  ++m_revision;
  emit filePathChanged(m_path);
  emit loaded();
  emit changed();
}

void Document::recover(const core::Scene& scene, const QString& path) {
  m_undo.clear();
  m_path = path;
  m_scene = scene;
  ++m_revision;
  emit filePathChanged(m_path);
  emit loaded();
  emit changed();
  m_undo.resetClean();  // differs from the file on disk: modified until saved
}

std::string Document::uniqueName(const std::string& prefix) const {
  std::set<std::string> used;
  for (const auto& b : m_scene.bodies) used.insert(b.name);
  for (const auto& n : m_scene.nails) used.insert(n.name);
  for (const auto& p : m_scene.paths) used.insert(p.name);
  for (const auto& f : m_scene.forces) used.insert(f.name);
  for (const auto& c : m_scene.constraints) used.insert(c.name);
  for (const auto& p : m_scene.planes) used.insert(p.name);
  for (int i = 1;; ++i) {
    const std::string name = prefix + std::to_string(i);
    if (!used.count(name)) return name;
  }
}

}  // namespace tether::ui
