// Never lose work: the open document is written every minute (while it has unsaved changes) to
// a recovery file of this window's own under QStandardPaths::AppDataLocation/recovery, never to
// the user's file. The file goes on a clean save, when the document becomes clean again (undo
// back to the saved state, another file opened) and on a clean exit; after a crash it stays.
//
// Each window holds a QLockFile beside its recovery file for as long as that file exists, so a recovery
// file whose lock is stale (its process is gone: killed, crashed, power cut) is exactly the
// work of a window that did not exit cleanly. At start the app offers those (recoverable()).
#pragma once

#include <QDateTime>
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <vector>

#include "core/scene.h"
#include "ui/document.h"

namespace tether::ui {

// One recovery file left by a window that is no longer running, locked by this process while
// it is being offered (so a second Tether starting at the same time does not offer it too).
struct RecoveryFile {
  QString file;          // the recovery file
  QString originalPath;  // the document's file when it was written; empty: untitled
  QDateTime saved;       // when it was written
  std::unique_ptr<QLockFile> lock;
};

class Autosaver : public QObject {
  Q_OBJECT
 public:
  explicit Autosaver(Document& doc, QObject* parent = nullptr);
  ~Autosaver() override;  // a clean exit: the recovery file goes

  // Where recovery files live: AppDataLocation/recovery.
  static QString directory();
  // The interval: TETHER_AUTOSAVE_SECONDS if set (tests), else the setting autosave/seconds,
  // else 60 s. 0 turns autosave off.
  static double intervalSeconds();

  QString file() const { return m_file; }  // this window's recovery file
  // Write the recovery file now if the document has changes not yet written; true if the
  // file holds the document's current changes afterwards (or there are none).
  bool saveNow();
  // Remove this window's recovery file (after a clean save or a deliberate discard).
  void discard();

  // Recovery files left by processes no longer running, newest first, each locked by this
  // process. Files that cannot be read are renamed to "*.broken" (kept, never deleted) and
  // reported in broken as "file: why".
  static std::vector<RecoveryFile> recoverable(QStringList* broken);
  // Read a recovery file's scene; throws std::runtime_error with the reason.
  static core::Scene readScene(const QString& file);
  // Release a recovery file (Later: it is offered again at the next start).
  static void release(RecoveryFile& r);
  // Delete a recovery file (Discard, or once recovered and written to our own).
  static void remove(RecoveryFile& r);

 signals:
  void failed(const QString& why);  // the recovery file could not be written

 private:
  void tick();

  Document& m_doc;
  QString m_file;
  std::unique_ptr<QLockFile> m_lock;
  QTimer m_timer;
  long m_writtenRevision = -1;  // the document revision the file holds
};

}  // namespace tether::ui
