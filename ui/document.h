// The open document: a core::Scene, its file, and the undo stack every edit goes through
// (house rule 8). Edits are validated before they land: a change that would make the scene
// invalid is refused with the reason and the document stays as it was.
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <functional>

#include "core/scene.h"

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

  // A further check of a valid edited scene against the scene before: why it is refused, or
  // empty to let it land (the inspector refuses values that certainly diverge this way).
  using Check = std::function<QString(const core::Scene& before, const core::Scene& after)>;

  // Apply an edit as one undoable command named text. Edits with the same nonzero mergeId in
  // a row merge into one command (drags, spin-box steps). Returns false and sets error if the
  // edited scene is invalid, or if check refuses it; then nothing changes.
  bool edit(const QString& text, const std::function<void(core::Scene&)>& change, int mergeId = 0,
            QString* error = nullptr, const Check& check = {});
  // End the current merge run (the next edit with the same id starts a new command).
  void closeMerge() { ++m_mergeEpoch; }

  // File operations. load() leaves the document untouched when the file is bad.
  bool load(const QString& path, QString& error);
  bool save(const QString& path, QString& error);
  void clear();  // a new, empty scene
  // Replace the scene as an undoable command (e.g. "Set initial state").
  void setScene(const core::Scene& scene, const QString& text);

  // A name not yet used by any object of the scene: prefix1, prefix2, ...
  std::string uniqueName(const std::string& prefix) const;

  // Used by the undo commands.
  void assign(const core::Scene& scene);
  int mergeEpoch() const { return m_mergeEpoch; }

 signals:
  void changed();          // the scene changed (edit, undo, redo, load)
  void loaded();           // a different scene was loaded or created (not an edit)
  void modifiedChanged(bool modified);
  void filePathChanged(const QString& path);

 private:
  core::Scene m_scene;
  QUndoStack m_undo;
  QString m_path;
  long m_revision = 0;
  int m_mergeEpoch = 0;
};

}  // namespace tether::ui
