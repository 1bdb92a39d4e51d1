#include "ui/autosave.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>
#include <algorithm>
#include <stdexcept>

#include "core/scene_io.h"

namespace tether::ui {

namespace {

const QString kSuffix = QStringLiteral(".tether-recovery");
constexpr const char* kFormat = "tether-recovery";

std::unique_ptr<QLockFile> makeLock(const QString& file) {
  auto lock = std::make_unique<QLockFile>(file + QStringLiteral(".lock"));
  // stale only when its process is gone: a window may run for days without touching its lock
  lock->setStaleLockTime(0);
  return lock;
}

struct Header {
  QString path;
  QDateTime saved;
  std::string scene;
};

// the recovery file's contents, or throws with what is wrong
Header readHeader(const QString& file) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) throw std::runtime_error(f.errorString().toStdString());
  QJsonParseError err{};
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
  if (doc.isNull())
    throw std::runtime_error("not JSON: " + err.errorString().toStdString() + " at byte " + std::to_string(err.offset));
  const QJsonObject o = doc.object();
  if (o.value(QStringLiteral("format")).toString() != QLatin1String(kFormat))
    throw std::runtime_error("not a Tether recovery file (\"format\" is not \"tether-recovery\")");
  if (!o.value(QStringLiteral("scene")).isString()) throw std::runtime_error("it holds no scene");
  Header h;
  h.path = o.value(QStringLiteral("path")).toString();
  h.saved = QDateTime::fromString(o.value(QStringLiteral("saved")).toString(), Qt::ISODateWithMs);
  if (!h.saved.isValid()) h.saved = QFileInfo(file).lastModified();
  h.scene = o.value(QStringLiteral("scene")).toString().toStdString();
  return h;
}

}  // namespace

QString Autosaver::directory() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/recovery");
}

double Autosaver::intervalSeconds() {
  bool ok = false;
  const double env = qEnvironmentVariable("TETHER_AUTOSAVE_SECONDS").toDouble(&ok);
  if (ok && env >= 0) return env;
  return std::max(0.0, QSettings().value(QStringLiteral("autosave/seconds"), 60.0).toDouble());
}

Autosaver::Autosaver(Document& doc, QObject* parent) : QObject(parent), m_doc(doc) {
  // one file per window and process; the start time keeps a reused pid from colliding with a
  // crashed process's file that has not been offered yet
  static int counter = 0;
  m_file = QStringLiteral("%1/%2-%3-%4%5")
               .arg(directory())
               .arg(QCoreApplication::applicationPid())
               .arg(QDateTime::currentMSecsSinceEpoch())
               .arg(++counter)
               .arg(kSuffix);
  connect(&m_doc, &Document::modifiedChanged, this, [this](bool modified) {
    if (!modified) discard();  // saved, undone back to the saved state, or another file opened
  });
  connect(&m_timer, &QTimer::timeout, this, &Autosaver::tick);
  const double s = intervalSeconds();
  if (s > 0) {
    m_timer.setInterval(std::max(1, int(s * 1000)));
    m_timer.start();
  }
}

Autosaver::~Autosaver() { discard(); }

void Autosaver::tick() {
  if (m_doc.isModified()) saveNow();
  else discard();
}

bool Autosaver::saveNow() {
  if (!m_doc.isModified()) return true;
  if (m_writtenRevision == m_doc.revision() && QFileInfo::exists(m_file)) return true;
  if (!QDir().mkpath(directory())) {
    emit failed(tr("cannot create %1").arg(directory()));
    return false;
  }
  if (!m_lock) {
    m_lock = makeLock(m_file);
    if (!m_lock->tryLock(0)) {
      emit failed(tr("cannot lock %1.lock").arg(m_file));
      m_lock.reset();
      return false;
    }
  }
  QJsonObject o;
  o.insert(QStringLiteral("format"), QLatin1String(kFormat));
  o.insert(QStringLiteral("version"), 1);
  o.insert(QStringLiteral("path"), m_doc.filePath());
  o.insert(QStringLiteral("saved"), QDateTime::currentDateTime().toString(Qt::ISODateWithMs));
  // the scene as the scene writer prints it, byte for byte (not re-encoded by QJson)
  o.insert(QStringLiteral("scene"), QString::fromStdString(core::sceneToJson(m_doc.scene())));
  // written whole or not at all: a crash while writing leaves the previous recovery file
  QSaveFile f(m_file);
  if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0 || !f.commit()) {
    emit failed(tr("cannot write %1: %2").arg(m_file, f.errorString()));
    return false;
  }
  m_writtenRevision = m_doc.revision();
  return true;
}

void Autosaver::discard() {
  if (QFileInfo::exists(m_file)) QFile::remove(m_file);
  m_writtenRevision = -1;
  if (m_lock) {
    m_lock->unlock();
    m_lock.reset();
  }
}

std::vector<RecoveryFile> Autosaver::recoverable(QStringList* broken) {
  std::vector<RecoveryFile> out;
  const QDir dir(directory());
  for (const QFileInfo& fi : dir.entryInfoList({QStringLiteral("*") + kSuffix}, QDir::Files)) {
    RecoveryFile r;
    r.file = fi.absoluteFilePath();
    r.lock = makeLock(r.file);
    // taken only if no running process holds it: its window crashed or was killed
    if (!r.lock->tryLock(0)) continue;
    try {
      const Header h = readHeader(r.file);
      core::sceneFromJson(h.scene);  // a scene that does not load is reported now, not on Recover
      r.originalPath = h.path;
      r.saved = h.saved;
      out.push_back(std::move(r));
    } catch (const std::exception& e) {
      // kept aside under a name that is not offered again, and said so
      QString aside = r.file + QStringLiteral(".broken");
      for (int i = 2; QFileInfo::exists(aside); ++i) aside = r.file + QStringLiteral(".broken%1").arg(i);
      const bool moved = QFile::rename(r.file, aside);
      if (broken)
        broken->push_back(moved ? QObject::tr("%1 (kept as %2): %3").arg(fi.fileName(), aside, QString::fromUtf8(e.what()))
                                : QObject::tr("%1: %2").arg(r.file, QString::fromUtf8(e.what())));
      r.lock->unlock();
    }
  }
  std::sort(out.begin(), out.end(), [](const RecoveryFile& a, const RecoveryFile& b) { return a.saved > b.saved; });
  return out;
}

core::Scene Autosaver::readScene(const QString& file) { return core::sceneFromJson(readHeader(file).scene); }

void Autosaver::release(RecoveryFile& r) {
  if (r.lock) r.lock->unlock();
  r.lock.reset();
}

void Autosaver::remove(RecoveryFile& r) {
  QFile::remove(r.file);
  release(r);
}

}  // namespace tether::ui
