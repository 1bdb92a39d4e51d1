// The named undo commands every edit of the document is made of (KDE Step and Avogadro keep
// theirs this way): each holds only what it changes (the object before and after, the events it
// adds or removes), so the undo stack of a 2 000-body scene costs what the edits cost, not
// 2 000 bodies per step. Document::push applies a command, validates the scene and refuses it
// (nothing changed) when the scene would be invalid.
//
// Successive edits of one thing merge into one undo step (QUndoCommand::id + mergeWith): the
// moves of one drag, the spin-box steps of one property of one object. A merge run ends at
// Document::closeMerge (a mouse press, a release) so two drags stay two steps.
#pragma once

#include <QUndoCommand>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/scene.h"
#include "core/scene_edit.h"

namespace tether::ui {

class Document;

// One definition of a scene: what a command stores instead of the scene.
using SceneObject = std::variant<core::Settings, core::BodyDef, core::NailDef, core::PathDef, core::ForceDef,
                                 core::ConstraintDef, core::PlaneDef>;

// What an edit is of: the scene settings, or an object by kind and name.
struct EditTarget {
  bool settings = false;
  core::ObjectKind kind = core::ObjectKind::Body;
  std::string name;
  bool operator==(const EditTarget&) const = default;
};

class SceneCommand : public QUndoCommand {
 public:
  SceneCommand(Document& doc, const QString& text);
  void redo() final;
  void undo() final;
  // Merge only commands of one run (Document::closeMerge) whose merge key is the same.
  bool mergeWith(const QUndoCommand* other) final;

  // Change the scene forward / back. revert(apply(s)) == s exactly (undo restores the document
  // bit for bit, and a refused edit leaves nothing behind).
  virtual void apply(core::Scene& s) const = 0;
  virtual void revert(core::Scene& s) const = 0;
  // How many scene definitions, events or poses the command holds: what it costs in memory,
  // whatever the size of the scene (a test holds it to the edit's size).
  virtual size_t storedObjects() const = 0;

 protected:
  // Commands that merge return a nonzero id() and take the later command's end state here.
  virtual bool absorb(const SceneCommand&) { return false; }
  const core::Scene& scene() const;  // the document's, as the command is made

 private:
  Document& m_doc;
  int m_epoch;
};

// Bodies, nails, paths, forces, constraints added at the end of their lists, in this order
// (a constraint tool adds the nail or path it needs with the constraint).
class AddObjects : public SceneCommand {
 public:
  AddObjects(Document& doc, const QString& text, std::vector<SceneObject> objects);
  void apply(core::Scene& s) const override;
  void revert(core::Scene& s) const override;
  size_t storedObjects() const override { return m_objects.size(); }

 private:
  std::vector<SceneObject> m_objects;
};

// A ground plane added at the end of the planes, with settings.contacts turned on (a plane
// acts only with contacts on): one undo step puts both back.
class AddPlane : public SceneCommand {
 public:
  AddPlane(Document& doc, core::PlaneDef plane);
  void apply(core::Scene& s) const override;
  void revert(core::Scene& s) const override;
  size_t storedObjects() const override { return 1; }

 private:
  core::PlaneDef m_plane;
  bool m_contactsBefore;
};

// An object and everything that cannot exist without it (core::removeObject): what was removed
// is kept with its place, so undo puts each back where it was.
class RemoveObject : public SceneCommand {
 public:
  // Null if there is no such object.
  static std::unique_ptr<RemoveObject> make(Document& doc, core::ObjectKind kind, const std::string& name);
  void apply(core::Scene& s) const override;
  void revert(core::Scene& s) const override;
  size_t storedObjects() const override;

 private:
  RemoveObject(Document& doc, const QString& text, core::ObjectKind kind, std::string name);
  core::ObjectKind m_kind;
  std::string m_name;
  size_t m_index = 0;  // the object's place in its list
  std::optional<SceneObject> m_object;  // a body, nail, path or plane (a force or constraint is among its dependants)
  // the dependants, by their place in the list before the removal (ascending)
  std::vector<std::pair<size_t, core::ConstraintDef>> m_constraints;
  std::vector<std::pair<size_t, core::ForceDef>> m_forces;
  std::vector<std::pair<size_t, core::EventDef>> m_events;
  // damping forces that listed a removed body: their body lists before (by force name)
  std::vector<std::pair<std::string, std::vector<std::string>>> m_damping;
};

// A new name for an object and every reference to it (core::renameObject); the new name is
// unused, so renaming back is the exact inverse.
class RenameObject : public SceneCommand {
 public:
  // Null with the reason if `to` is empty or names another object (names are the ids).
  static std::unique_ptr<RenameObject> make(Document& doc, core::ObjectKind kind, const std::string& from,
                                            const std::string& to, QString& error);
  void apply(core::Scene& s) const override { core::renameObject(s, m_kind, m_from, m_to); }
  void revert(core::Scene& s) const override { core::renameObject(s, m_kind, m_to, m_from); }
  size_t storedObjects() const override { return 0; }

 private:
  RenameObject(Document& doc, core::ObjectKind kind, std::string from, std::string to);
  core::ObjectKind m_kind;
  std::string m_from, m_to;
};

// Definitions replaced by edited copies of themselves (names unchanged): the object before and
// after each. The base of the property, event and keyframe edits.
class ReplaceObjects : public SceneCommand {
 public:
  using SceneCommand::SceneCommand;
  void apply(core::Scene& s) const override;
  void revert(core::Scene& s) const override;
  size_t storedObjects() const override { return 2 * m_objects.size(); }

 protected:
  // The target's definition in the document's scene, edited by change (which edits only it,
  // in a scene that holds just it and the settings). False if the target does not exist.
  bool replace(const EditTarget& target, const std::function<void(core::Scene&)>& change);
  std::vector<std::pair<SceneObject, SceneObject>> m_objects;  // before, after
};

// One property of one object (or of the settings), e.g. "Edit density of sphere1". Successive
// edits of the same property of the same object merge (spin-box steps, keyframe drags).
class EditProperty : public ReplaceObjects {
 public:
  // Null if the target does not exist.
  static std::unique_ptr<EditProperty> make(Document& doc, const EditTarget& target, const QString& property,
                                            const std::function<void(core::Scene&)>& change, bool merges = true,
                                            const QString& text = {});
  int id() const override { return m_merges ? 1 : -1; }

 protected:
  bool absorb(const SceneCommand& other) override;

 private:
  EditProperty(Document& doc, const QString& text, const EditTarget& target, const QString& property, bool merges);
  EditTarget m_target;
  QString m_property;
  bool m_merges;
};

// A body put somewhere else ("Move sphere1"): its pose before and after; the moves of one drag
// merge.
class MoveBody : public SceneCommand {
 public:
  // Null if there is no such body.
  static std::unique_ptr<MoveBody> make(Document& doc, const std::string& body, const core::Vec3& position,
                                        const core::Quat& orientation);
  void apply(core::Scene& s) const override { set(s, m_to); }
  void revert(core::Scene& s) const override { set(s, m_from); }
  size_t storedObjects() const override { return 2; }
  int id() const override { return 2; }

 protected:
  bool absorb(const SceneCommand& other) override;

 private:
  struct Pose {
    core::Vec3 position;
    core::Quat orientation;
  };
  MoveBody(Document& doc, std::string body, Pose from, Pose to);
  void set(core::Scene& s, const Pose& p) const;
  std::string m_body;
  Pose m_from, m_to;
};

// Events appended to the timeline.
class AddEvents : public SceneCommand {
 public:
  AddEvents(Document& doc, const QString& text, std::vector<core::EventDef> events);
  void apply(core::Scene& s) const override;
  void revert(core::Scene& s) const override;
  size_t storedObjects() const override { return m_events.size(); }

 private:
  std::vector<core::EventDef> m_events;
};

// Events removed by index (and keyframes of paths, edited as their paths).
class RemoveEvents : public ReplaceObjects {
 public:
  // keyframes: (path, keyframe index) pairs to remove
  RemoveEvents(Document& doc, const QString& text, const std::set<int>& events,
               const std::set<std::pair<std::string, int>>& keyframes);
  void apply(core::Scene& s) const override;
  void revert(core::Scene& s) const override;
  size_t storedObjects() const override { return ReplaceObjects::storedObjects() + m_events.size(); }

 private:
  std::vector<std::pair<size_t, core::EventDef>> m_events;  // ascending index
};

// Events changed in place (by index), with the paths whose keyframes change beside them: the
// timeline's drag of markers, whose steps merge.
class EditEvents : public ReplaceObjects {
 public:
  EditEvents(Document& doc, const QString& text, const std::vector<std::pair<int, core::EventDef>>& events,
             const std::vector<std::pair<std::string, std::function<void(core::PathDef&)>>>& paths, bool merges);
  void apply(core::Scene& s) const override;
  void revert(core::Scene& s) const override;
  size_t storedObjects() const override { return ReplaceObjects::storedObjects() + 2 * m_events.size(); }
  int id() const override { return m_merges ? 3 : -1; }

 protected:
  bool absorb(const SceneCommand& other) override;

 private:
  struct Change {
    size_t index;
    core::EventDef before, after;
  };
  std::vector<Change> m_events;
  bool m_merges;
};

// The whole scene replaced: only where that is the operation (set the initial state from a
// frame; a scripted edit of anything, Document::edit).
class SetScene : public SceneCommand {
 public:
  SetScene(Document& doc, const QString& text, core::Scene before, core::Scene after);
  void apply(core::Scene& s) const override { s = m_after; }
  void revert(core::Scene& s) const override { s = m_before; }
  size_t storedObjects() const override;

 private:
  core::Scene m_before, m_after;
};

}  // namespace tether::ui
