// The open document: a core::Scene, its file, and the undo stack every edit goes through
// (house rule 8) as one of the named commands of ui/commands.h. Edits are validated before they
// land: a change that would make the scene invalid is refused with the reason and the document
// stays as it was.
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <functional>
#include <memory>

#include "core/scene.h"
#include "ui/commands.h"

namespace tether::ui {

class Document : public QObject {
  Q_OBJECT
 public:
  explicit Document(QObject* parent = nullptr);

  const core::Scene& scene() const { return m_scene; }
  long revision() const { return m_revision; }  // increases with every change of the scene
  QUndoStack* undoStack() { return &m_undo; }
  QString filePath() const { return m_path; }
  bool isModified() const { return !m_undo.isClean(); }
  // "name.json*" style title part
  QString displayName() const;
  // The name an untitled document shows ("pendulum.json (example)"); cleared by New and Open.
  void setUntitledName(const QString& name) { m_untitledName = name; emit filePathChanged(m_path); }

  // A further check of a valid edited scene: why it is refused, or empty to let it land (the
  // inspector refuses values that certainly diverge this way).
  using Check = std::function<QString(const core::Scene& after)>;

  // Apply a command as one undo step (it may merge with the one before, see ui/commands.h).
  // Returns false and sets error if the edited scene is invalid, if check refuses it, or if the
  // command is null (what it edits does not exist, or error already says why); then nothing
  // changes.
  bool push(std::unique_ptr<SceneCommand> command, QString* error = nullptr, const Check& check = {});
  // Any edit of the scene as one undoable command named text: the whole scene before and after
  // (SetScene). For scripts and tests; the app's own edits are the named commands.
  bool edit(const QString& text, const std::function<void(core::Scene&)>& change, QString* error = nullptr);
  // End the current merge run (the next edit of the same thing starts a new command).
  void closeMerge() { ++m_mergeEpoch; }
  int mergeEpoch() const { return m_mergeEpoch; }

  // File operations. load() leaves the document untouched when the file is bad.
  bool load(const QString& path, QString& error);
  // The scene read from `path` elsewhere (a worker thread: readSceneWithProgress) becomes the
  // document, as load() does after reading.
  void adopt(core::Scene scene, const QString& path);
  bool save(const QString& path, QString& error);
  void clear();  // a new, empty scene
  // Open recovered work: the scene as a modified document whose file is path (empty:
  // untitled), so Save writes the user's file. Not undoable past this point.
  void recover(const core::Scene& scene, const QString& path);
  // Replace the scene as an undoable command (e.g. "Set initial state").
  void setScene(const core::Scene& scene, const QString& text);

  // A name not yet used by any object of the scene: prefix1, prefix2, ...
  std::string uniqueName(const std::string& prefix) const;

 signals:
  void changed();          // the scene changed (edit, undo, redo, load)
  void loaded();           // a different scene was loaded or created (not an edit)
  void modifiedChanged(bool modified);
  void filePathChanged(const QString& path);

 private:
  friend class SceneCommand;  // applies itself to m_scene, then says so
  void sceneChanged();

  core::Scene m_scene;
  QUndoStack m_undo;
  QString m_path;
  QString m_untitledName;
  long m_revision = 0;
  int m_mergeEpoch = 0;
};

}  // namespace tether::ui
