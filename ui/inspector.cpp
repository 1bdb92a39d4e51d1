#include "ui/inspector.h"

#include <QApplication>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLineEdit>
#include <QRegularExpression>
#include <QWheelEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QStyleOptionSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "core/body.h"
#include "core/constraint_type.h"
#include "core/scene_edit.h"
#include "core/scene_io.h"
#include "core/stability.h"
#include "core/validate.h"

namespace tether::ui {

using core::Scene;
using core::Vec3;

namespace {

constexpr double kBig = 1e9;
constexpr double kDeg = 180.0 / std::numbers::pi;

using core::byName;

QString refText(const core::PointRef& r) { return QString::fromStdString(core::pointRefToString(r)); }

// Orientation as z-y-x Euler angles, degrees: R = Rz(yaw) Ry(pitch) Rx(roll), so
//   R(2,0) = -sin pitch, R(2,1) = cos pitch sin roll, R(2,2) = cos pitch cos roll,
//   R(1,0) = sin yaw cos pitch, R(0,0) = cos yaw cos pitch;
// pitch in [-90, 90]. At pitch +-90 (a rod lying along x: gimbal lock) only yaw -+ roll is
// defined: roll is 0 and yaw = atan2(-R(0,1), R(1,1)). (Eigen's eulerAngles showed a horizontal
// rod as (121.95, 90, 121.95) and (105.3, 90, 105.3) with round-off; it is (0, 90, 0).) Round-off
// below 1e-9 degrees reads 0.
Vec3 toEulerDeg(const core::Quat& q) {
  const core::Mat3 R = q.normalized().toRotationMatrix();
  const double s = std::clamp(-R(2, 0), -1.0, 1.0);
  double roll = 0.0, pitch = std::asin(s), yaw = 0.0;
  if (std::abs(s) < 1.0 - 1e-12) {
    roll = std::atan2(R(2, 1), R(2, 2));
    yaw = std::atan2(R(1, 0), R(0, 0));
  } else {
    pitch = std::copysign(std::numbers::pi / 2, s);
    yaw = std::atan2(-R(0, 1), R(1, 1));
  }
  Vec3 deg = Vec3(roll, pitch, yaw) * kDeg;
  for (int i = 0; i < 3; ++i)
    if (std::abs(deg(i)) < 1e-9) deg(i) = 0.0;
  return deg;
}
core::Quat fromEulerDeg(const Vec3& rpy) {
  const Vec3 r = rpy / kDeg;
  return core::Quat(Eigen::AngleAxisd(r.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(r.y(), Vec3::UnitY()) *
                    Eigen::AngleAxisd(r.x(), Vec3::UnitX()));
}

// The inspector's number field. A plain QDoubleSpinBox (1) takes the mouse wheel whenever the
// pointer is over it, so scrolling the form edited whatever field passed under the pointer
// (a body's density 1000 -> 900, its rotation 0.1 degrees a notch, each an undo entry) and the
// form did not scroll: here the wheel turns a field only while it has the keyboard focus (a
// click, or Tab), else it scrolls the form; and (2) drops what its validator does not know:
// "1e30" typed for a stiffness landed as 130 N/m, "1e400" for a position as 1400 m. Here a
// number in scientific notation is read as such, and one past what the field can hold is
// refused with a message (refused) instead of put back without a word.
// A bare key that is no part of a number (a letter but e, Space, "]") typed in a number field
// runs the window's shortcut as if the viewport had the keyboard: after an edit, a helper's "o"
// for the Sphere tool and Space for Play went to the field, and nothing happened. What can be
// typed into a number (digits, ".", ",", signs, e) stays in the field: a user meant "0.1" for it.
bool passesThroughNumberField(const QKeyEvent* k) {
  if (k->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) return false;
  const QString t = k->text();
  return t.size() == 1 && t.at(0).isPrint() && !QStringLiteral("0123456789.,+-eE").contains(t.at(0));
}

class NumberBox : public QDoubleSpinBox {
 public:
  std::function<void(const QString& typed)> refused;

  NumberBox() { setFocusPolicy(Qt::StrongFocus); }

 protected:
  bool event(QEvent* e) override {
    if (e->type() == QEvent::ShortcutOverride && passesThroughNumberField(static_cast<QKeyEvent*>(e))) {
      e->ignore();  // (not overridden: the shortcut runs; without one, the key comes as a key press)
      return true;
    }
    return QDoubleSpinBox::event(e);
  }
  void wheelEvent(QWheelEvent* e) override {
    if (hasFocus()) QDoubleSpinBox::wheelEvent(e);
    else e->ignore();  // (to the scroll area)
  }
  QValidator::State validate(QString& text, int&) const override {
    const QString t = bare(text);
    if (t.isEmpty() || t == QLatin1String("-") || t == QLatin1String("+")) return QValidator::Intermediate;
    static const QRegularExpression partial(QStringLiteral(R"(^[+-]?(\d+[.,]?\d*|[.,]\d*)([eE][+-]?\d*)?$)"));
    if (!partial.match(t).hasMatch()) return QValidator::Invalid;
    bool ok = false;
    const double v = parse(t, &ok);
    if (!ok || !std::isfinite(v) || v < minimum() || v > maximum()) return QValidator::Intermediate;
    return QValidator::Acceptable;
  }
  double valueFromText(const QString& text) const override { return parse(bare(text), nullptr); }
  // called with what is left typed when editing ends short of an acceptable number
  void fixup(QString& text) const override {
    const QString t = bare(text);
    if (!t.isEmpty() && refused) refused(t);
  }

 private:
  QString bare(QString t) const {
    if (!suffix().isEmpty() && t.endsWith(suffix())) t.chop(suffix().size());
    if (!prefix().isEmpty() && t.startsWith(prefix())) t.remove(0, prefix().size());
    return t.trimmed();
  }
  double parse(const QString& t, bool* ok) const {
    bool good = false;
    double v = locale().toDouble(t, &good);
    if (!good) v = t.toDouble(&good);  // (C: a point where the locale has a comma)
    if (ok) *ok = good;
    return good ? v : value();
  }
};

// A spin box asks for the width of its range's ends: "-1000000000.0000 kg/m³" for the ±1e9 the
// fields take, which would make the form wider than the dock (the fields cut at its right edge,
// the y and z of vectors behind a sideways scroll bar). It needs the width of what it shows (at
// least of "-000.0000"); the layout gives it more where there is room.
void fitWidthToValue(QDoubleSpinBox* sb) {
  const QFontMetrics fm(sb->fontMetrics());
  const QString shown = sb->textFromValue(sb->value()) + sb->suffix();
  const QString typical = QStringLiteral("-000.") + QString(sb->decimals(), QLatin1Char('0')) + sb->suffix();
  const int text = std::max(fm.horizontalAdvance(shown), fm.horizontalAdvance(typical)) + fm.horizontalAdvance(QLatin1Char(' ')) + 2;
  QStyleOptionSpinBox opt;
  opt.initFrom(sb);
  opt.frame = sb->hasFrame();
  opt.buttonSymbols = sb->buttonSymbols();
  opt.subControls = QStyle::SC_SpinBoxFrame | QStyle::SC_SpinBoxEditField;
  if (sb->buttonSymbols() != QAbstractSpinBox::NoButtons) opt.subControls |= QStyle::SC_SpinBoxUp | QStyle::SC_SpinBoxDown;
  const QSize hint = sb->style()->sizeFromContents(QStyle::CT_SpinBox, &opt, QSize(text, sb->sizeHint().height()), sb);
  sb->setMinimumWidth(hint.width());
}

// A validator's refusal of the field being edited, said with the field's label as the range
// checks of the fields say theirs: "bodies[0].friction: must be between 0 and 10 (...) (is -1)"
// reads "Friction must be between 0 and 10 (...) (typed -1)" (a helper found the two styles side
// by side). A refusal about another field, or of another form, is left as it is.
QString inFieldsWords(const QString& label, const QString& error) {
  static const QRegularExpression path(QStringLiteral("^(?:[A-Za-z_]+(?:\\[\\d+\\])?\\.)*([a-z_]+): (.*)$"),
                                       QRegularExpression::DotMatchesEverythingOption);
  const QRegularExpressionMatch m = path.match(error);
  QString key = label.toLower();
  key.replace(QLatin1Char(' '), QLatin1Char('_'));
  if (!m.hasMatch() || m.captured(1) != key) return error;
  QString rest = m.captured(2);
  static const QRegularExpression is(QStringLiteral("\\(is ([^()]*)\\)$"));
  rest.replace(is, QStringLiteral("(typed \\1)"));
  return label + QLatin1Char(' ') + rest;
}
}  // namespace

Inspector::Inspector(Document& doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  m_error = new QLabel(this);
  m_error->setWordWrap(true);
  m_error->setStyleSheet(QStringLiteral("color: #b01010;"));
  m_error->hide();
  m_warning = new QLabel(this);
  m_warning->setObjectName(QStringLiteral("stabilityWarnings"));
  m_warning->setWordWrap(true);
  m_warning->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_warning->setStyleSheet(QStringLiteral("color: #8a5a00;"));
  m_warning->hide();
  auto* scroll = m_scroll = new QScrollArea(this);
  // (rebuild: the form's rows made anew, the scroll bar's range changes as they are laid out,
  // which dropped it to the top: it goes back to where the user last scrolled it)
  connect(scroll->verticalScrollBar(), &QScrollBar::rangeChanged, this,
          [this] { m_scroll->verticalScrollBar()->setValue(m_keepScroll); });
  connect(scroll->verticalScrollBar(), &QScrollBar::actionTriggered, this, [this] {
    QTimer::singleShot(0, this, [this] { m_keepScroll = m_scroll->verticalScrollBar()->value(); });  // (after the action)
  });
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // (its scroll bar always there: appearing when a refusal's message shortened the form's room,
  // it narrowed the form, wrapped labels grew, and the fields moved under the cursor)
  scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  m_form = new QWidget;
  m_layout = new QFormLayout(m_form);
  m_layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  scroll->setWidget(m_form);
  m_recordBox = new QCheckBox(tr("Record changes as events at the playhead"), this);
  m_recordBox->setObjectName(QStringLiteral("recordEvents"));
  m_recordBox->setToolTip(tr("Edits of enabled, exists, tau, spring and damping constants, forces, gravity and a body's "
                             "collides and materials add "
                             "timeline events at the playhead instead of changing the scene"));
  // the refusals and warnings under the form: shown above it, they pushed every field down
  // under the cursor of the user typing into one
  outer->addWidget(m_recordBox);
  outer->addWidget(scroll);
  outer->addWidget(m_error);
  outer->addWidget(m_warning);
  connect(&m_doc, &Document::changed, this, &Inspector::scheduleRebuild);
  rebuild();
}

// A bare key (a digit, ".", a letter, Space) typed where the inspector has the keyboard but no
// field takes it (a label clicked, the form between fields) goes nowhere: the window's one-key
// shortcuts, meant for the viewport, stepped the simulation and turned the view of a user who
// had clicked beside the field they meant to type into.
bool Inspector::event(QEvent* e) {
  if (e->type() == QEvent::ShortcutOverride) {
    const auto* k = static_cast<QKeyEvent*>(e);
    const bool inNumberField = dynamic_cast<NumberBox*>(QApplication::focusWidget()) != nullptr;
    if (!(k->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) && !k->text().isEmpty() &&
        k->text().at(0).isPrint() && !(inNumberField && passesThroughNumberField(k))) {
      e->accept();
      return true;
    }
  }
  return QWidget::event(e);
}

void Inspector::setSelection(const Selection& s) {
  if (s == m_selection) return;
  m_selection = s;
  m_error->hide();
  m_errorHeight = 0;
  m_error->setMinimumHeight(0);
  m_warningHeight = 0;
  m_warning->setMinimumHeight(0);
  rebuild();
}

// A refusal's message under the form. Once one is said for the selection its room stays, as tall
// as the tallest said, until another object is selected: the room growing or going took it from
// or gave it to the scrolled form, which, scrolled down, moved every field under the cursor of
// a user typing into them (a helper's "100" for Friction landed in Restitution).
void Inspector::sayError(const QString& text) {
  m_error->setText(text);
  keepRoom(m_error, m_errorHeight);
}

// Shows a label under the form, as tall as the tallest text it has shown for the selection (room).
void Inspector::keepRoom(QLabel* label, int& room) {
  label->show();
  const int width = std::max(1, contentsRect().width() - layout()->contentsMargins().left() - layout()->contentsMargins().right());
  room = std::max(room, label->heightForWidth(width));
  label->setMinimumHeight(room);
}

void Inspector::clearError() {
  if (m_errorHeight > 0)
    m_error->clear();  // (its room kept: see sayError)
  else
    m_error->hide();
}

// Rebuilding deletes the widgets; never do it inside one of their signals.
void Inspector::scheduleRebuild() {
  if (m_rebuildPending) return;
  m_rebuildPending = true;
  QTimer::singleShot(0, this, [this] {
    m_rebuildPending = false;
    rebuild();
  });
}

void Inspector::setRecordEvents(bool on) { m_recordBox->setChecked(on); }

bool Inspector::record(const Timed& timed, const std::vector<double>& value, bool on) {
  if (!m_recordBox->isChecked() || timed.kind == Timed::Kind::None) return false;
  core::EventDef e;
  e.time = m_playhead ? m_playhead() : 0.0;
  e.target = timed.target;
  switch (timed.kind) {
    case Timed::Kind::Set:
      e.action = core::EventAction::Set;
      e.param = timed.param;
      e.value = value;
      break;
    case Timed::Kind::Toggle: e.action = on ? core::EventAction::Enable : core::EventAction::Disable; break;
    case Timed::Kind::Exists: e.action = on ? core::EventAction::Create : core::EventAction::Remove; break;
    case Timed::Kind::None: break;
  }
  QString error;
  const QString what = tr("Add %1 %2 at %3 s").arg(QString::fromUtf8(core::toString(e.action)),
                                                  QString::fromStdString(e.target)).arg(e.time);
  if (guardedEdit(std::make_unique<AddEvents>(m_doc, what, std::vector<core::EventDef>{e}), error)) clearError();
  else {
    sayError(tr("Not recorded: %1").arg(error));
  }
  scheduleRebuild();  // the field shows the scene's value again
  return true;
}

bool Inspector::guardedEdit(std::unique_ptr<SceneCommand> command, QString& error) {
  // Refuse what makes a value certainly diverge where none did before (a file's old values may
  // stay while other fields change); let risky values land and say so.
  QStringList risky;
  const std::vector<core::StabilityWarning> before = core::stabilityWarnings(m_doc.scene());
  const auto guard = [&risky, &before](const Scene& after) -> QString {
    const std::vector<core::StabilityWarning> fresh = core::newWarnings(before, after);
    for (const core::StabilityWarning& w : fresh)
      if (w.severity == core::StabilitySeverity::Diverges) return QString::fromStdString(w.message);
    for (const core::StabilityWarning& w : fresh) risky << QString::fromStdString(w.message);
    return {};
  };
  if (!m_doc.push(std::move(command), &error, guard)) return false;
  if (!risky.isEmpty()) emit message(tr("Warning: %1").arg(risky.join(QStringLiteral("; "))));
  return true;
}

void Inspector::apply(const QString& property, const Change& change, bool merges) {
  const EditTarget target{m_selection.kind == Selection::Kind::Settings, objectKind(m_selection.kind), m_selection.name};
  QString error;
  std::unique_ptr<SceneCommand> command;
  if (const int i = eventIndex(m_selection, m_doc.scene().events.size()); i >= 0) {
    // an event, by index: the change made to a copy, and the event as it leaves it
    Scene after = m_doc.scene();
    change(after);
    command = std::make_unique<EditEvents>(m_doc, tr("Edit %1 of event").arg(property.toLower()),
                                           std::vector<std::pair<int, core::EventDef>>{{i, after.events[size_t(i)]}},
                                           std::vector<std::pair<std::string, std::function<void(core::PathDef&)>>>{}, merges);
  } else {
    command = EditProperty::make(m_doc, target, property, change, merges);
  }
  if (guardedEdit(std::move(command), error)) {
    clearError();
    return;
  }
  sayError(tr("Not applied: %1").arg(inFieldsWords(property, error)));
  scheduleRebuild();  // back to the document's values
}

// The stability warnings (core/stability.h) of the inspected object: its own values, and the
// events that set them; for the settings, the scene-wide values.
void Inspector::showStabilityWarnings() {
  const Scene& s = m_doc.scene();
  std::string prefix;
  auto indexIn = [&](const auto& list, const char* what) {
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i].name == m_selection.name) prefix = std::string(what) + "[" + std::to_string(i) + "].";
  };
  switch (m_selection.kind) {
    case Selection::Kind::Settings: prefix = "settings."; break;
    case Selection::Kind::Constraint: indexIn(s.constraints, "constraints"); break;
    case Selection::Kind::Force: indexIn(s.forces, "forces"); break;
    case Selection::Kind::Nail: indexIn(s.nails, "nails"); break;
    case Selection::Kind::Body: indexIn(s.bodies, "bodies"); break;
    default: break;
  }
  QStringList lines;
  if (!prefix.empty()) {
    // its own: at the object or one of its fields ("constraints[3]", "constraints[3].tau"), or
    // naming it (a chain's warning names its bodies, nails and distances, and stands at one of its
    // constraints)
    const std::string quoted = "\"" + m_selection.name + "\"";
    const std::string whole = prefix.substr(0, prefix.size() - 1);
    for (const core::StabilityWarning& w : core::stabilityWarnings(s)) {
      bool mine = w.place.rfind(prefix, 0) == 0 || w.place == whole ||
                  (prefix != "settings." && w.message.find(quoted) != std::string::npos);
      // a chain's warning stands at its first constraint: its other joints are told it too (a
      // helper's point_to_point4, marked in the outliner, showed nothing here)
      if (!mine && m_selection.kind == Selection::Kind::Constraint)
        if (const core::ConstraintDef* c = byName(s.constraints, m_selection.name))
          for (const std::string& b : w.bodies) mine = mine || core::constraintUses(*c, core::ObjectKind::Body, b);
      if (!mine && prefix != "settings." && w.place.rfind("events[", 0) == 0) {
        const size_t e = std::stoul(w.place.substr(7));
        mine = e < s.events.size() && s.events[e].target == m_selection.name;
      }
      if (mine)
        lines << (w.severity == core::StabilitySeverity::Diverges ? tr("Diverges: %1") : tr("Warning: %1"))
                     .arg(QString::fromStdString(w.message));
    }
  }
  // (its room kept once taken, as a refusal's: see sayError; a helper's field moved 200 px from
  // under the mouse when a warning came and went with the value typed)
  m_warning->setText(lines.join(QStringLiteral("\n")));
  if (!lines.isEmpty()) keepRoom(m_warning, m_warningHeight);
  else m_warning->setVisible(m_warningHeight > 0);
}

void Inspector::rebuild() {
  // The form is made anew after every edit: the field that had the keyboard (the one edited, on
  // Return; the next, on Tab) gets it back, else it fell to the viewport, where the next value
  // typed ran its shortcuts ("." stepped the simulation, digits changed the view).
  QString focused;  // (a spin box's own line edit is "qt_spinbox_lineedit": the field is its parent)
  QWidget* has = QApplication::focusWidget();
  for (QWidget* f = has && m_form->isAncestorOf(has) ? has : nullptr; f && f != m_form; f = f->parentWidget())
    if (!f->objectName().isEmpty() && !f->objectName().startsWith(QLatin1String("qt_"))) {
      focused = f->objectName();
      break;
    }
  // the form scrolled where it was (its rows removed and made anew, the scroll bar could drop to
  // the top before the new rows were laid out)
  QScrollBar* bar = m_scroll->verticalScrollBar();
  if (m_builtFor != m_selection) m_keepScroll = 0;
  m_builtFor = m_selection;
  rebuildForm();
  bar->setValue(m_keepScroll);
  if (focused.isEmpty()) return;
  for (QWidget* w : m_form->findChildren<QWidget*>(focused))
    if (w->focusPolicy() != Qt::NoFocus) {
      w->setFocus(Qt::OtherFocusReason);
      break;
    }
}

void Inspector::rebuildForm() {
  while (m_layout->rowCount() > 0) m_layout->removeRow(0);
  showStabilityWarnings();
  const Scene& s = m_doc.scene();  // read only: edits go through apply()
  switch (m_selection.kind) {
    case Selection::Kind::None:
      addHeader(tr("Nothing selected"));
      addLabel(QString(), tr("Click an object in the viewport or the outliner."));
      return;
    case Selection::Kind::Settings: buildSettings(s.settings); return;
    case Selection::Kind::Body:
      if (auto* b = byName(s.bodies, m_selection.name)) return buildBody(*b);
      break;
    case Selection::Kind::Nail:
      if (auto* n = byName(s.nails, m_selection.name)) return buildNail(*n);
      break;
    case Selection::Kind::Plane:
      if (auto* p = byName(s.planes, m_selection.name)) return buildPlane(*p);
      break;
    case Selection::Kind::Path:
      if (auto* p = byName(s.paths, m_selection.name)) return buildPath(*p);
      break;
    case Selection::Kind::Force:
      if (auto* f = byName(s.forces, m_selection.name)) return buildForce(*f);
      break;
    case Selection::Kind::Constraint:
      if (auto* c = byName(s.constraints, m_selection.name)) return buildConstraint(*c);
      break;
    case Selection::Kind::Event:
      if (const int i = eventIndex(m_selection, s.events.size()); i >= 0) return buildEvent(size_t(i), s.events[size_t(i)]);
      addHeader(tr("The event no longer exists"));
      return;
  }
  addHeader(tr("%1 no longer exists").arg(QString::fromStdString(m_selection.name)));
}

void Inspector::addHeader(const QString& text) {
  auto* l = new QLabel(QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped()));
  m_layout->addRow(l);
}

void Inspector::addLabel(const QString& label, const QString& value, int lines) {
  auto* v = new QLabel(value);
  v->setObjectName(label);
  v->setWordWrap(true);
  if (lines > 1) {
    v->setMinimumHeight(lines * v->fontMetrics().lineSpacing());
    v->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  }
  v->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_layout->addRow(label, v);
}

void Inspector::addName() {
  auto* e = new QLineEdit(QString::fromStdString(m_selection.name));
  e->setObjectName(QStringLiteral("name"));
  m_layout->addRow(tr("Name"), e);
  connect(e, &QLineEdit::editingFinished, this, [this, e] {
    const std::string to = e->text().trimmed().toStdString();
    const std::string from = m_selection.name;
    if (to == from) return;
    QString error;
    if (m_doc.push(RenameObject::make(m_doc, objectKind(m_selection.kind), from, to, error), &error)) {
      m_selection.name = to;
      clearError();
      emit renamed(m_selection);
    } else {
      sayError(tr("Not applied: %1").arg(error));
    }
    scheduleRebuild();
  });
}

void Inspector::addDouble(const QString& label, const QString& unit, double value, double min, double max,
                          const std::function<void(Scene&, double)>& set, int decimals, const Timed& timed) {
  auto* sb = new NumberBox;
  sb->setDecimals(decimals);
  // The box takes any number, so that what is typed is what is judged: a spin box limited to
  // [min, max] drops a minus sign it cannot accept ("-1" became 1) and puts a value below its
  // minimum back without a word. Out of range, the edit is refused with the range.
  sb->setRange(std::min(min, -kBig), std::max(max, kBig));
  sb->setSingleStep(std::abs(value) > 0 ? std::pow(10.0, std::floor(std::log10(std::abs(value)))) / 10 : 0.1);
  sb->setValue(value);
  sb->setKeyboardTracking(false);
  if (!unit.isEmpty()) sb->setSuffix(QStringLiteral(" ") + unit);
  sb->setObjectName(label);
  fitWidthToValue(sb);
  m_layout->addRow(label, sb);
  const auto rangeText = [min, max, unit]() {
    const QString u = unit.isEmpty() ? QString() : QStringLiteral(" ") + unit;
    return max >= kBig ? tr("at least %1%2").arg(min, 0, 'g', 6).arg(u)
                       : tr("between %1 and %2%3").arg(min, 0, 'g', 6).arg(max, 0, 'g', 6).arg(u);
  };
  sb->refused = [this, label, rangeText](const QString& typed) {
    sayError(tr("Not applied: %1 must be %2 (typed %3)").arg(label, rangeText(), typed));
  };
  connect(sb, &QDoubleSpinBox::valueChanged, this, [this, set, label, timed, min, max, rangeText](double v) {
    if (v < min || v > max) {
      sayError(tr("Not applied: %1 must be %2 (typed %3)").arg(label, rangeText()).arg(v, 0, 'g', 6));
      scheduleRebuild();  // the box shows the document's value again
      return;
    }
    if (record(timed, {v}, true)) return;
    apply(label, [&](Scene& s) { set(s, v); }, true);
  });
}

void Inspector::addVec3(const QString& label, const QString& unit, const Vec3& value,
                        const std::function<void(Scene&, const Vec3&)>& set, const Timed& timed) {
  auto* row = new QWidget;
  auto* h = new QHBoxLayout(row);
  h->setContentsMargins(0, 0, 0, 0);
  h->setSpacing(2);
  QDoubleSpinBox* boxes[3];
  for (int i = 0; i < 3; ++i) {
    auto* sb = new NumberBox;
    sb->setDecimals(4);
    sb->setRange(-kBig, kBig);
    sb->refused = [this, label](const QString& typed) {
      sayError(tr("Not applied: %1 takes values between %2 and %3 (typed %4)").arg(label).arg(-kBig, 0, 'g', 6).arg(kBig, 0, 'g', 6).arg(typed));
    };
    sb->setSingleStep(0.1);
    sb->setValue(value(i));
    sb->setKeyboardTracking(false);
    sb->setButtonSymbols(QAbstractSpinBox::NoButtons);
    sb->setToolTip(QStringLiteral("%1 %2 (%3)").arg(label, QString(QChar('x' + i)), unit));
    sb->setObjectName(QStringLiteral("%1.%2").arg(label, QString(QChar('x' + i))));
    fitWidthToValue(sb);
    boxes[i] = sb;
    h->addWidget(sb);
  }
  if (!unit.isEmpty()) h->addWidget(new QLabel(unit));
  // x, y and z on a row of their own under the label: beside it (the label column is as wide
  // as "Rotation (roll, pitch, yaw)") three numbers do not fit the dock's width
  auto* title = new QLabel(label);
  title->setBuddy(boxes[0]);
  m_layout->addRow(title);
  m_layout->addRow(row);
  for (int i = 0; i < 3; ++i)
    connect(boxes[i], &QDoubleSpinBox::valueChanged, this, [this, boxes, set, label, timed](double) {
      const Vec3 v(boxes[0]->value(), boxes[1]->value(), boxes[2]->value());
      if (record(timed, {v.x(), v.y(), v.z()}, true)) return;
      apply(label, [&](Scene& s) { set(s, v); }, true);
    });
}

void Inspector::addBool(const QString& label, bool value, const std::function<void(Scene&, bool)>& set,
                        const Timed& timed) {
  auto* cb = new QCheckBox;
  cb->setChecked(value);
  cb->setObjectName(label);
  m_layout->addRow(label, cb);
  connect(cb, &QCheckBox::toggled, this, [this, set, label, timed](bool on) {
    if (record(timed, {on ? 1.0 : 0.0}, on)) return;  // (a Set takes 1 or 0: a body's "collides")
    apply(label, [&](Scene& s) { set(s, on); }, false);
  });
}

void Inspector::addBits(const QString& label, std::uint32_t value, const std::function<void(Scene&, std::uint32_t)>& set) {
  auto* e = new QLineEdit(QStringLiteral("0x%1").arg(value, 8, 16, QLatin1Char('0')));
  e->setObjectName(label);
  e->setToolTip(tr("32 bits, as hexadecimal (0x...) or decimal"));
  m_layout->addRow(label, e);
  connect(e, &QLineEdit::editingFinished, this, [this, e, set, label, value] {
    const QString text = e->text().trimmed();
    bool ok = false;
    const qulonglong v = text.toULongLong(&ok, 0);  // base 0: 0x... hexadecimal, else decimal
    if (!ok || v > 0xffffffffull) {
      sayError(tr("Not applied: %1 must be a whole number from 0 to 0xffffffff (typed %2)").arg(label, text));
      scheduleRebuild();
      return;
    }
    if (std::uint32_t(v) == value) return;
    apply(label, [&](Scene& s) { set(s, std::uint32_t(v)); }, false);
  });
}

void Inspector::addChoice(const QString& label, const QStringList& options, int current,
                          const std::function<void(Scene&, int)>& set) {
  auto* c = new QComboBox;
  c->addItems(options);
  c->setCurrentIndex(current);
  c->setObjectName(label);
  m_layout->addRow(label, c);
  connect(c, &QComboBox::currentIndexChanged, this, [this, set, label](int i) {
    apply(label, [&](Scene& s) { set(s, i); }, false);
  });
}

// An event: what it does (its action and target are what it is: delete it and add another to
// change them), when, and a set's value. A helper could not give one an exact time: the timeline
// adds it where the click lands (3.4 s) and a drag moves it by frames (3.026 s).
void Inspector::buildEvent(size_t i, const core::EventDef& e) {
  addHeader(tr("Event"));
  QString what = QStringLiteral("%1 \"%2\"").arg(QString::fromUtf8(core::toString(e.action)), QString::fromStdString(e.target));
  if (e.action == core::EventAction::Set) what += QStringLiteral(" %1").arg(QString::fromStdString(e.param));
  addLabel(tr("Does"), what);
  addDouble(tr("Time"), QStringLiteral("s"), e.time, 0.0, kBig, [i](Scene& s, double v) { s.events[i].time = v; }, 6);
  // (in the parameter's unit: a helper could not tell what a set's value was in)
  QString unit;
  for (const core::ParamSpec& ps : core::settableParams(m_doc.scene(), e.target))
    if (ps.name == e.param) unit = QString::fromUtf8(ps.unit);
  if (e.action == core::EventAction::Set && e.value.size() == 3)
    addVec3(tr("Value"), unit, Vec3(e.value[0], e.value[1], e.value[2]),
            [i](Scene& s, const Vec3& v) { s.events[i].value = {v.x(), v.y(), v.z()}; });
  else if (e.action == core::EventAction::Set && e.value.size() == 1)
    addDouble(tr("Value"), unit, e.value[0], -kBig, kBig, [i](Scene& s, double v) { s.events[i].value = {v}; }, 6);
  addLabel(QString(), tr("Delete (in the outliner or on the timeline) removes it; its marker drags along the timeline."));
}

void Inspector::buildBody(const core::BodyDef& b) {
  const std::string name = b.name;
  auto body = [name](Scene& s) -> core::BodyDef& { return *byName(s.bodies, name); };
  addHeader(tr("%1 body").arg(QString::fromUtf8(core::toString(b.shape))));
  addName();
  const core::MassProperties mp = core::massProperties(b);
  addLabel(tr("Mass"), b.fixed ? tr("fixed (infinite)") : QStringLiteral("%1 kg").arg(mp.mass, 0, 'g', 5));
  // (two lines' room whether it takes one or two: it took one or two as its digits came, every
  // field under it moved under the cursor of a user clicking the next one, and the click fell on
  // a label; non-breaking spaces: a narrow dock wrapped "m²" alone onto a line of its own)
  // (a fixed body's is infinite, as its mass is: a fixed post showed a finite inertia beside its
  // infinite mass, and a helper reported it)
  addLabel(tr("Inertia"),
           b.fixed ? tr("fixed (infinite)")
                   : QStringLiteral("%1, %2, %3\u00a0kg\u00a0m²").arg(mp.inertia.x(), 0, 'g', 4).arg(mp.inertia.y(), 0, 'g', 4).arg(mp.inertia.z(), 0, 'g', 4),
           2);
  addDouble(tr("Density"), QStringLiteral("kg/m³"), b.density, 1e-6, kBig, [=](Scene& s, double v) { body(s).density = v; });
  switch (b.shape) {
    case core::Shape::Rod:
      addDouble(tr("Length"), QStringLiteral("m"), b.length, 1e-4, kBig, [=](Scene& s, double v) { body(s).length = v; });
      addDouble(tr("Radius"), QStringLiteral("m"), b.radius, 1e-5, kBig, [=](Scene& s, double v) { body(s).radius = v; });
      break;
    case core::Shape::Sphere:
      addDouble(tr("Radius"), QStringLiteral("m"), b.radius, 1e-5, kBig, [=](Scene& s, double v) { body(s).radius = v; });
      break;
    case core::Shape::Torus:
      addDouble(tr("Major radius"), QStringLiteral("m"), b.majorRadius, 1e-5, kBig, [=](Scene& s, double v) { body(s).majorRadius = v; });
      addDouble(tr("Minor radius"), QStringLiteral("m"), b.minorRadius, 1e-5, kBig, [=](Scene& s, double v) { body(s).minorRadius = v; });
      break;
    case core::Shape::Box:
      addVec3(tr("Size"), QStringLiteral("m"), b.size, [=](Scene& s, const Vec3& v) { body(s).size = v; });
      break;
  }
  addBool(tr("Fixed"), b.fixed, [=](Scene& s, bool v) { body(s).fixed = v; });
  addBool(tr("Exists at start"), b.active, [=](Scene& s, bool v) { body(s).active = v; },
          {Timed::Kind::Exists, name, {}});
  // (a helper paused at 10 s read these as the body's state then)
  {
    auto* start = new QLabel(tr("Start state, at t = 0:"));
    start->setObjectName(QStringLiteral("startNote"));
    start->setToolTip(tr("Where and how the body starts. The viewport and the Plots show it at the playhead's time."));
    start->setStyleSheet(QStringLiteral("color: #606060;"));
    m_layout->addRow(start);
  }
  addVec3(tr("Position"), QStringLiteral("m"), b.position, [=](Scene& s, const Vec3& v) { body(s).position = v; });
  if (b.shape == core::Shape::Rod) {
    // A rod's ends, as the file's "ends" and the Rod tool give them: one moved, the other stays
    // (its length, centre and axis follow; the turn from the old axis to the new one keeps its
    // roll). A helper could only set the centre, and Length stretched it about its centre off
    // the nail its end was on.
    auto end = [](const core::BodyDef& r, double side) {
      return Vec3(r.position + side * 0.5 * r.length * (r.orientation * Vec3::UnitZ()));
    };
    auto moveEnd = [=](Scene& s, const Vec3& v, double side) {
      core::BodyDef& r = body(s);
      const Vec3 stays = end(r, -side), from = (end(r, side) - stays).normalized(), to = v - stays;
      if (!(to.norm() > 0.0)) return;  // (both ends at one point: left as it was)
      r.orientation = (core::Quat::FromTwoVectors(side * from, side * to) * r.orientation).normalized();
      r.length = to.norm();
      r.position = 0.5 * (stays + v);
    };
    addVec3(tr("End 1"), QStringLiteral("m"), end(b, -1.0), [=](Scene& s, const Vec3& v) { moveEnd(s, v, -1.0); });
    addVec3(tr("End 2"), QStringLiteral("m"), end(b, 1.0), [=](Scene& s, const Vec3& v) { moveEnd(s, v, 1.0); });
  }
  addVec3(tr("Rotation (roll, pitch, yaw)"), QStringLiteral("°"), toEulerDeg(b.orientation),
          [=](Scene& s, const Vec3& v) { body(s).orientation = fromEulerDeg(v); });
  addVec3(tr("Velocity"), QStringLiteral("m/s"), b.velocity, [=](Scene& s, const Vec3& v) { body(s).velocity = v; });
  addVec3(tr("Angular velocity"), QStringLiteral("rad/s"), b.angularVelocity,
          [=](Scene& s, const Vec3& v) { body(s).angularVelocity = v; });
  // contacts (core/contact.h): bodies i and j touch if (group_i & mask_j) and (group_j & mask_i);
  // restitution's range is the validator's (core/validate.cpp), which refuses with the reason
  // (with "Record changes as events" on, these add a set event at the playhead instead)
  auto timed = [&](const char* param) { return Timed{Timed::Kind::Set, name, param}; };
  addBool(tr("Collides"), b.collides, [=](Scene& s, bool v) { body(s).collides = v; }, timed("collides"));
  addDouble(tr("Restitution"), QString(), b.restitution, -kBig, kBig, [=](Scene& s, double v) { body(s).restitution = v; }, 4,
            timed("restitution"));
  addDouble(tr("Friction"), QString(), b.friction, -kBig, kBig, [=](Scene& s, double v) { body(s).friction = v; }, 4,
            timed("friction"));
  addDouble(tr("Static friction"), QString(), b.staticFriction, -kBig, kBig, [=](Scene& s, double v) { body(s).staticFriction = v; },
            4, timed("static_friction"));
  addDouble(tr("Rolling resistance"), QStringLiteral("m"), b.rollingResistance, -kBig, kBig,
            [=](Scene& s, double v) { body(s).rollingResistance = v; }, 4, timed("rolling_resistance"));
  addBits(tr("Collision group"), b.collisionGroup, [=](Scene& s, std::uint32_t v) { body(s).collisionGroup = v; });
  addBits(tr("Collision mask"), b.collisionMask, [=](Scene& s, std::uint32_t v) { body(s).collisionMask = v; });
  QStringList pts;
  for (const auto& p : core::shapePoints(b)) pts << QString::fromStdString(p.name);
  for (const auto& p : b.points) pts << QString::fromStdString(p.name) + QStringLiteral("*");
  addLabel(tr("Control points"), pts.join(QStringLiteral(", ")));
}

void Inspector::buildNail(const core::NailDef& n) {
  const std::string name = n.name;
  addHeader(tr("Nail"));
  addName();
  addVec3(tr("Position"), QStringLiteral("m"), n.position, [=](Scene& s, const Vec3& v) { byName(s.nails, name)->position = v; });
}

void Inspector::buildPlane(const core::PlaneDef& p) {
  const std::string name = p.name;
  auto plane = [name](Scene& s) -> core::PlaneDef& { return *byName(s.planes, name); };
  addHeader(tr("Ground plane"));
  addName();
  if (!m_doc.scene().settings.contacts)
    addLabel(QString(), tr("Contacts are off in the scene settings: bodies pass through this plane."));
  addVec3(tr("Point"), QStringLiteral("m"), p.point, [=](Scene& s, const Vec3& v) { plane(s).point = v; });
  addVec3(tr("Normal"), QString(), p.normal, [=](Scene& s, const Vec3& v) { plane(s).normal = v; });
  // ranges as the validator's (core/validate.cpp), which refuses a bad value with its reason
  addDouble(tr("Restitution"), QString(), p.restitution, -kBig, kBig, [=](Scene& s, double v) { plane(s).restitution = v; });
  addDouble(tr("Friction"), QString(), p.friction, -kBig, kBig, [=](Scene& s, double v) { plane(s).friction = v; });
  addDouble(tr("Static friction"), QString(), p.staticFriction, -kBig, kBig, [=](Scene& s, double v) { plane(s).staticFriction = v; });
  addDouble(tr("Rolling resistance"), QStringLiteral("m"), p.rollingResistance, -kBig, kBig,
            [=](Scene& s, double v) { plane(s).rollingResistance = v; });
}

void Inspector::buildPath(const core::PathDef& p) {
  const std::string name = p.name;
  auto path = [name](Scene& s) -> core::PathDef& { return *byName(s.paths, name); };
  addHeader(tr("Path"));
  addName();
  addChoice(tr("Kind"), {QStringLiteral("line"), QStringLiteral("circle"), QStringLiteral("spline")}, int(p.kind),
            [=](Scene& s, int i) {
              core::PathDef& d = path(s);
              d.kind = core::PathKind(i);
              if (d.kind == core::PathKind::Spline && d.keyframes.size() < 2)
                d.keyframes = {{0.0, d.start}, {1.0, d.start + Vec3(1, 0, 0)}};
            });
  switch (p.kind) {
    case core::PathKind::Line:
      addVec3(tr("Start"), QStringLiteral("m"), p.start, [=](Scene& s, const Vec3& v) { path(s).start = v; });
      addVec3(tr("Velocity"), QStringLiteral("m/s"), p.velocity, [=](Scene& s, const Vec3& v) { path(s).velocity = v; });
      break;
    case core::PathKind::Circle:
      addVec3(tr("Centre"), QStringLiteral("m"), p.center, [=](Scene& s, const Vec3& v) { path(s).center = v; });
      addVec3(tr("Normal"), QString(), p.normal, [=](Scene& s, const Vec3& v) { path(s).normal = v; });
      addVec3(tr("Start direction"), QString(), p.u, [=](Scene& s, const Vec3& v) { path(s).u = v; });
      addDouble(tr("Radius"), QStringLiteral("m"), p.radius, 1e-6, kBig, [=](Scene& s, double v) { path(s).radius = v; });
      addDouble(tr("Period"), QStringLiteral("s"), p.period, -kBig, kBig, [=](Scene& s, double v) { path(s).period = v; });
      addDouble(tr("Phase"), QStringLiteral("rad"), p.phase, -kBig, kBig, [=](Scene& s, double v) { path(s).phase = v; });
      break;
    case core::PathKind::Spline:
      addLabel(tr("Keyframes"), tr("%1 (from t = %2 s to %3 s)")
                                    .arg(p.keyframes.size())
                                    .arg(p.keyframes.empty() ? 0.0 : p.keyframes.front().t)
                                    .arg(p.keyframes.empty() ? 0.0 : p.keyframes.back().t));
      break;
  }
}

void Inspector::buildForce(const core::ForceDef& f) {
  const std::string name = f.name;
  auto force = [name](Scene& s) -> core::ForceDef& { return *byName(s.forces, name); };
  addHeader(tr("%1 force").arg(QString::fromUtf8(core::toString(f.kind))));
  addName();
  addBool(tr("Enabled"), f.enabled, [=](Scene& s, bool v) { force(s).enabled = v; }, {Timed::Kind::Toggle, name, {}});
  auto timed = [&](const char* param) { return Timed{Timed::Kind::Set, name, param}; };
  switch (f.kind) {
    case core::ForceKind::Spring:
      addLabel(tr("Ends"), refText(f.a) + QStringLiteral(" — ") + refText(f.b));
      addDouble(tr("Stiffness"), QStringLiteral("N/m"), f.stiffness, 0, kBig, [=](Scene& s, double v) { force(s).stiffness = v; }, 4, timed("stiffness"));
      addDouble(tr("Damping"), QStringLiteral("N s/m"), f.damping, 0, kBig, [=](Scene& s, double v) { force(s).damping = v; }, 4, timed("damping"));
      addDouble(tr("Rest length"), QStringLiteral("m"), f.restLength, 0, kBig, [=](Scene& s, double v) { force(s).restLength = v; }, 4, timed("rest_length"));
      break;
    case core::ForceKind::Damping: {
      QStringList on;
      for (const std::string& b : f.bodies) on << QString::fromStdString(b);
      addLabel(tr("Bodies"), on.isEmpty() ? tr("every body") : on.join(QStringLiteral(", ")));
    }
      addDouble(tr("Linear"), QStringLiteral("N s/m"), f.linear, 0, kBig, [=](Scene& s, double v) { force(s).linear = v; }, 4, timed("linear"));
      addDouble(tr("Angular"), QStringLiteral("N m s/rad"), f.angular, 0, kBig, [=](Scene& s, double v) { force(s).angular = v; }, 4, timed("angular"));
      break;
    case core::ForceKind::TorsionSpring:
      addLabel(tr("Bodies"), QString::fromStdString(f.bodyA + " — " + f.bodyB));
      addDouble(tr("Stiffness"), QStringLiteral("N m/rad"), f.stiffness, 0, kBig, [=](Scene& s, double v) { force(s).stiffness = v; }, 4, timed("stiffness"));
      addDouble(tr("Damping"), QStringLiteral("N m s/rad"), f.damping, 0, kBig, [=](Scene& s, double v) { force(s).damping = v; }, 4, timed("damping"));
      addDouble(tr("Rest angle"), QStringLiteral("rad"), f.restAngle, -kBig, kBig, [=](Scene& s, double v) { force(s).restAngle = v; }, 4, timed("rest_angle"));
      break;
    case core::ForceKind::ConstantForce:
      addLabel(tr("At"), refText(f.a));
      addVec3(tr("Force"), QStringLiteral("N"), f.vector, [=](Scene& s, const Vec3& v) { force(s).vector = v; }, timed("force"));
      break;
    case core::ForceKind::ConstantTorque:
      addLabel(tr("Body"), QString::fromStdString(f.bodyA));
      addVec3(tr("Torque"), QStringLiteral("N m"), f.vector, [=](Scene& s, const Vec3& v) { force(s).vector = v; }, timed("torque"));
      break;
  }
}

void Inspector::buildConstraint(const core::ConstraintDef& c) {
  const std::string name = c.name;
  auto con = [name](Scene& s) -> core::ConstraintDef& { return *byName(s.constraints, name); };
  addHeader(tr("%1 constraint").arg(QString::fromUtf8(c.type().label)));
  addName();
  addBool(tr("Enabled"), c.enabled, [=](Scene& s, bool v) { con(s).enabled = v; }, {Timed::Kind::Toggle, name, {}});
  addBool(tr("Own tau"), c.tau.has_value(), [=](Scene& s, bool v) {
    if (v) con(s).tau = s.settings.defaultTau;
    else con(s).tau.reset();
  });
  if (c.tau)
    addDouble(tr("Tau"), QStringLiteral("s"), *c.tau, 1e-6, kBig, [=](Scene& s, double v) { con(s).tau = v; }, 4,
              {Timed::Kind::Set, name, "tau"});
  else
    addLabel(tr("Tau"), tr("%1 s (scene default)").arg(m_doc.scene().settings.defaultTau));
  // the type's fields (core/constraint_type.h): references as text, values editable
  const core::ConstraintType& type = c.type();
  for (const core::ConstraintField& f : type.fields) {
    const QString label = tr(f.label);
    using FK = core::ConstraintField::Kind;
    switch (f.kind) {
      case FK::BodyPoint:
      case FK::AnyPoint: addLabel(label, refText(f.point(c))); break;
      case FK::Nail:
      case FK::Path:
      case FK::Body: addLabel(label, QString::fromStdString(f.name(c))); break;
      case FK::Direction:
      case FK::Position:
        addVec3(label, f.kind == FK::Position ? QStringLiteral("m") : QString(), f.vector(c),
                [=](Scene& s, const Vec3& v) { f.vector(con(s)) = v; });
        break;
      case FK::Length:
        addDouble(label, QStringLiteral("m"), f.number(c), 1e-6, kBig, [=](Scene& s, double v) { f.number(con(s)) = v; });
        break;
    }
  }
}

void Inspector::buildSettings(const core::Settings& st) {
  addHeader(tr("Scene settings"));
  addVec3(tr("Gravity"), QStringLiteral("m/s²"), st.gravity, [](Scene& s, const Vec3& v) { s.settings.gravity = v; },
          {Timed::Kind::Set, "gravity", "acceleration"});
  addBool(tr("Gravity on"), st.gravityOn, [](Scene& s, bool v) { s.settings.gravityOn = v; }, {Timed::Kind::Toggle, "gravity", {}});
  addDouble(tr("Time step"), QStringLiteral("s"), st.dt, 1e-7, 1.0, [](Scene& s, double v) { s.settings.dt = v; }, 6);
  addChoice(tr("Integrator"), {QStringLiteral("rk4"), QStringLiteral("rk45"), QStringLiteral("euler")}, int(st.integrator),
            [](Scene& s, int i) { s.settings.integrator = core::IntegratorKind(i); });
  addChoice(tr("Solver"), {QStringLiteral("auto"), QStringLiteral("dense-svd"), QStringLiteral("sparse"), QStringLiteral("sequential-impulses")},
            int(st.solver), [](Scene& s, int i) { s.settings.solver = core::SolverKind(i); });
  addChoice(tr("Stabilization"), {QStringLiteral("tau"), QStringLiteral("baumgarte"), QStringLiteral("implicit")},
            int(st.stabilization), [](Scene& s, int i) { s.settings.stabilization = core::StabilizationKind(i); });
  addDouble(tr("Default tau"), QStringLiteral("s"), st.defaultTau, 1e-6, kBig, [](Scene& s, double v) { s.settings.defaultTau = v; });
  addDouble(tr("Baumgarte alpha"), QStringLiteral("1/s"), st.baumgarteAlpha, 0, kBig, [](Scene& s, double v) { s.settings.baumgarteAlpha = v; });
  addDouble(tr("Baumgarte beta"), QStringLiteral("1/s"), st.baumgarteBeta, 0, kBig, [](Scene& s, double v) { s.settings.baumgarteBeta = v; });
  addBool(tr("Projection"), st.projection, [](Scene& s, bool v) { s.settings.projection = v; });
  addDouble(tr("Projection tolerance"), QStringLiteral("m"), st.projectionTolerance, 1e-14, 1,
            [](Scene& s, double v) { s.settings.projectionTolerance = v; }, 12);
  addDouble(tr("Solver iterations"), QString(), st.solverIterations, 1, 10000,
            [](Scene& s, double v) { s.settings.solverIterations = int(std::lround(v)); }, 0);
  addDouble(tr("Max substeps"), QString(), st.maxSubsteps, 1, 4096,
            [](Scene& s, double v) { s.settings.maxSubsteps = int(std::lround(v)); }, 0);
  addDouble(tr("RK45 tolerance"), QString(), st.tolerance, 1e-14, 1, [](Scene& s, double v) { s.settings.tolerance = v; }, 12);
  addDouble(tr("Duration"), QStringLiteral("s"), st.duration, 1e-6, kBig, [](Scene& s, double v) { s.settings.duration = v; });
  addBool(tr("Contacts"), st.contacts, [](Scene& s, bool v) { s.settings.contacts = v; });
  addDouble(tr("Contact slop"), QStringLiteral("m"), st.contactSlop, -kBig, kBig,
            [](Scene& s, double v) { s.settings.contactSlop = v; }, 9);
}

}  // namespace tether::ui
