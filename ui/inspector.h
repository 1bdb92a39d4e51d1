// The property inspector: every parameter of the selected object (or of the scene settings)
// with its unit. Entries are range-checked by their widgets and the whole scene is validated
// before an edit lands; a refused edit shows why and the fields revert. Numeric guard rails
// (core/stability.h): an edit that makes a value certainly diverge where none did is refused
// with the reason; one that is merely risky lands and is said (message()); the stability
// warnings of the inspected object show under the fields.
#pragma once

#include <QFormLayout>
#include <QLabel>
#include <QWidget>
#include <cstdint>
#include <functional>

#include "ui/document.h"
#include "ui/selection.h"

class QCheckBox;
class QScrollArea;

namespace tether::ui {

// A parameter a timeline event can change: while the inspector records, an edit of it adds a
// "set" event (enable/disable, create/remove for on/off fields) at the playhead instead.
struct TimedParam {
  enum class Kind { None, Set, Toggle, Exists } kind = Kind::None;
  std::string target;   // the object's name, or "gravity"
  std::string param;    // Set: the event's parameter name
};

class Inspector : public QWidget {
  Q_OBJECT
 public:
  Inspector(Document& doc, QWidget* parent = nullptr);
  bool event(QEvent* e) override;
  void setSelection(const Selection& s);
  const Selection& selection() const { return m_selection; }
  // Where "record changes as events" puts them: the playhead's time, on the frame grid.
  void setPlayheadSource(std::function<double()> f) { m_playhead = std::move(f); }
  // Turn recording of timeline parameters as events on or off (the check box at the top).
  void setRecordEvents(bool on);

 signals:
  void renamed(const Selection& s);  // the inspected object has a new name
  void message(const QString& text);  // for the status bar: an edit landed with a stability warning

 private:
  void rebuild();
  void rebuildForm();  // (rebuild: keeps the keyboard on the field that had it)
  void scheduleRebuild();
  // An edit of the inspected object's property (EditProperty: only that object changes);
  // successive edits of a field that merges are one undo step.
  using Change = std::function<void(core::Scene&)>;
  void apply(const QString& property, const Change& change, bool merges);
  using Timed = TimedParam;
  bool record(const Timed& timed, const std::vector<double>& value, bool on);
  // The command through the document with the stability guard; false: refused (error set).
  bool guardedEdit(std::unique_ptr<SceneCommand> command, QString& error);
  void showStabilityWarnings();

  // field builders: each commits its own edit
  void addHeader(const QString& text);
  // a value's text, wrapped; at least `lines` lines high (a value whose wrapping varies with its
  // digits keeps the fields under it in place)
  void addLabel(const QString& label, const QString& value, int lines = 1);
  void addName();
  void addDouble(const QString& label, const QString& unit, double value, double min, double max,
                 const std::function<void(core::Scene&, double)>& set, int decimals = 4, const Timed& timed = {});
  void addVec3(const QString& label, const QString& unit, const core::Vec3& value,
               const std::function<void(core::Scene&, const core::Vec3&)>& set, const Timed& timed = {});
  void addBool(const QString& label, bool value, const std::function<void(core::Scene&, bool)>& set,
               const Timed& timed = {});
  // a 32-bit mask (a collision group or mask), typed as 0x... or decimal
  void addBits(const QString& label, std::uint32_t value, const std::function<void(core::Scene&, std::uint32_t)>& set);
  void addChoice(const QString& label, const QStringList& options, int current,
                 const std::function<void(core::Scene&, int)>& set);

  void buildBody(const core::BodyDef& b);
  void buildNail(const core::NailDef& n);
  void buildPlane(const core::PlaneDef& p);
  void buildPath(const core::PathDef& p);
  void buildForce(const core::ForceDef& f);
  void buildConstraint(const core::ConstraintDef& c);
  void buildSettings(const core::Settings& s);
  void buildEvent(size_t index, const core::EventDef& e);

  Document& m_doc;
  Selection m_selection;
  QWidget* m_form = nullptr;
  QFormLayout* m_layout = nullptr;
  QLabel* m_error = nullptr;
  int m_errorHeight = 0;  // the room its messages have taken for this selection (sayError)
  void sayError(const QString& text);
  void keepRoom(QLabel* label, int& room);
  void clearError();
  QLabel* m_warning = nullptr;  // the stability warnings of the inspected object
  int m_warningHeight = 0;      // the room they have taken for this selection (as m_errorHeight)
  QScrollArea* m_scroll = nullptr;  // the form's
  Selection m_builtFor;                   // the selection the form was last made for
  int m_keepScroll = 0;                   // where the user last scrolled the form: kept as it is made anew
  QCheckBox* m_recordBox = nullptr;
  std::function<double()> m_playhead;
  QString m_lastError;
  bool m_rebuildPending = false;
};

}  // namespace tether::ui
