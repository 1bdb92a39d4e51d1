#include "ui/commands.h"

#include <algorithm>
#include <type_traits>

#include "ui/document.h"

namespace tether::ui {

using core::Scene;

namespace {

template <typename T>
std::vector<T>& listOf(Scene& s) {
  if constexpr (std::is_same_v<T, core::BodyDef>) return s.bodies;
  else if constexpr (std::is_same_v<T, core::NailDef>) return s.nails;
  else if constexpr (std::is_same_v<T, core::PathDef>) return s.paths;
  else if constexpr (std::is_same_v<T, core::ForceDef>) return s.forces;
  else if constexpr (std::is_same_v<T, core::PlaneDef>) return s.planes;
  else return s.constraints;
}

template <typename T>
const std::vector<T>& listOf(const Scene& s) {
  return listOf<T>(const_cast<Scene&>(s));
}

template <typename T>
std::optional<size_t> indexOf(const std::vector<T>& list, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return i;
  return std::nullopt;
}

// The object a target names, with its place in its list.
std::optional<std::pair<size_t, SceneObject>> find(const Scene& s, const EditTarget& t) {
  if (t.settings) return std::pair<size_t, SceneObject>{0, s.settings};
  auto in = [&](const auto& list) -> std::optional<std::pair<size_t, SceneObject>> {
    if (const auto i = indexOf(list, t.name)) return std::pair<size_t, SceneObject>{*i, list[*i]};
    return std::nullopt;
  };
  switch (t.kind) {
    case core::ObjectKind::Body: return in(s.bodies);
    case core::ObjectKind::Nail: return in(s.nails);
    case core::ObjectKind::Path: return in(s.paths);
    case core::ObjectKind::Force: return in(s.forces);
    case core::ObjectKind::Constraint: return in(s.constraints);
    case core::ObjectKind::Plane: return in(s.planes);
  }
  return std::nullopt;
}

// Put a definition in place of the one of its name (the settings in place of the settings).
void put(Scene& s, const SceneObject& o) {
  std::visit([&](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, core::Settings>) s.settings = x;
    else if (const auto i = indexOf(listOf<T>(s), x.name)) listOf<T>(s)[*i] = x;
  }, o);
}

template <typename T>
void insertAt(std::vector<T>& list, const std::vector<std::pair<size_t, T>>& items) {
  for (const auto& [i, x] : items) list.insert(list.begin() + std::ptrdiff_t(i), x);
}

QString name(const std::string& s) { return QString::fromStdString(s); }

// The name of a definition (empty for the settings).
std::string objectName(const SceneObject& o) {
  return std::visit([](const auto& x) -> std::string {
    if constexpr (std::is_same_v<std::decay_t<decltype(x)>, core::Settings>) return {};
    else return x.name;
  }, o);
}

}  // namespace

// ---- SceneCommand

SceneCommand::SceneCommand(Document& doc, const QString& text)
    : QUndoCommand(text), m_doc(doc), m_epoch(doc.mergeEpoch()) {}

const Scene& SceneCommand::scene() const { return m_doc.scene(); }

void SceneCommand::redo() {
  apply(m_doc.m_scene);
  m_doc.sceneChanged();
}

void SceneCommand::undo() {
  revert(m_doc.m_scene);
  m_doc.sceneChanged();
}

bool SceneCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = dynamic_cast<const SceneCommand*>(other);
  return o && o->m_epoch == m_epoch && typeid(*o) == typeid(*this) && absorb(*o);
}

// ---- AddObjects

AddObjects::AddObjects(Document& doc, const QString& text, std::vector<SceneObject> objects)
    : SceneCommand(doc, text), m_objects(std::move(objects)) {}

void AddObjects::apply(Scene& s) const {
  for (const SceneObject& o : m_objects)
    std::visit([&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (!std::is_same_v<T, core::Settings>) listOf<T>(s).push_back(x);
    }, o);
}

void AddObjects::revert(Scene& s) const {
  for (auto it = m_objects.rbegin(); it != m_objects.rend(); ++it)
    std::visit([&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (!std::is_same_v<T, core::Settings>) listOf<T>(s).pop_back();
    }, *it);
}

// ---- AddPlane

AddPlane::AddPlane(Document& doc, core::PlaneDef plane)
    : SceneCommand(doc, QObject::tr("Add ground plane %1").arg(name(plane.name))), m_plane(std::move(plane)),
      m_contactsBefore(scene().settings.contacts) {}

void AddPlane::apply(Scene& s) const {
  s.planes.push_back(m_plane);
  s.settings.contacts = true;
}

void AddPlane::revert(Scene& s) const {
  s.planes.pop_back();
  s.settings.contacts = m_contactsBefore;
}

// ---- RemoveObject

RemoveObject::RemoveObject(Document& doc, const QString& text, core::ObjectKind kind, std::string name)
    : SceneCommand(doc, text), m_kind(kind), m_name(std::move(name)) {}

std::unique_ptr<RemoveObject> RemoveObject::make(Document& doc, core::ObjectKind kind, const std::string& n) {
  const Scene& s = doc.scene();
  const auto found = find(s, {false, kind, n});
  if (!found) return nullptr;
  std::unique_ptr<RemoveObject> c(new RemoveObject(doc, QObject::tr("Delete %1").arg(name(n)), kind, n));
  // What core::removeObject takes with the object lives in the constraints, forces and events:
  // remove from a scene of those (and the object) and keep what went. The bodies, nails and
  // paths are never copied.
  Scene rest;
  rest.constraints = s.constraints;
  rest.forces = s.forces;
  rest.events = s.events;
  if (kind == core::ObjectKind::Body || kind == core::ObjectKind::Nail || kind == core::ObjectKind::Path ||
      kind == core::ObjectKind::Plane) {
    c->m_index = found->first;
    c->m_object = found->second;
    std::visit([&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (!std::is_same_v<T, core::Settings>) listOf<T>(rest).push_back(x);
    }, found->second);
  }
  core::removeObject(rest, kind, n);
  auto gone = [](const auto& before, const auto& after, auto& out) {
    for (size_t i = 0; i < before.size(); ++i)
      if (!indexOf(after, before[i].name)) out.emplace_back(i, before[i]);
  };
  gone(s.constraints, rest.constraints, c->m_constraints);
  gone(s.forces, rest.forces, c->m_forces);
  for (const core::ForceDef& f : s.forces)
    if (const auto i = indexOf(rest.forces, f.name); i && rest.forces[*i].bodies != f.bodies)
      c->m_damping.emplace_back(f.name, f.bodies);
  // events have no names; removal keeps the order of those left
  for (size_t i = 0, j = 0; i < s.events.size(); ++i) {
    if (j < rest.events.size() && rest.events[j] == s.events[i]) ++j;
    else c->m_events.emplace_back(i, s.events[i]);
  }
  return c;
}

void RemoveObject::apply(Scene& s) const { core::removeObject(s, m_kind, m_name); }

void RemoveObject::revert(Scene& s) const {
  if (m_object)
    std::visit([&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (!std::is_same_v<T, core::Settings>)
        listOf<T>(s).insert(listOf<T>(s).begin() + std::ptrdiff_t(m_index), x);
    }, *m_object);
  insertAt(s.constraints, m_constraints);
  insertAt(s.forces, m_forces);
  for (const auto& [force, bodies] : m_damping)
    if (const auto i = indexOf(s.forces, force)) s.forces[*i].bodies = bodies;
  insertAt(s.events, m_events);
}

size_t RemoveObject::storedObjects() const {
  return (m_object ? 1 : 0) + m_constraints.size() + m_forces.size() + m_events.size() + m_damping.size();
}

// ---- RenameObject

RenameObject::RenameObject(Document& doc, core::ObjectKind kind, std::string from, std::string to)
    : SceneCommand(doc, QObject::tr("Rename %1 to %2").arg(name(from), name(to))), m_kind(kind),
      m_from(std::move(from)), m_to(std::move(to)) {}

std::unique_ptr<RenameObject> RenameObject::make(Document& doc, core::ObjectKind kind, const std::string& from,
                                                 const std::string& to, QString& error) {
  if (to.empty()) {
    error = QObject::tr("a name cannot be empty");
    return nullptr;
  }
  const Scene& s = doc.scene();
  if (indexOf(s.bodies, to) || indexOf(s.nails, to) || indexOf(s.paths, to) || indexOf(s.forces, to) ||
      indexOf(s.constraints, to) || indexOf(s.planes, to)) {
    error = QObject::tr("the name \"%1\" is taken").arg(name(to));
    return nullptr;
  }
  return std::unique_ptr<RenameObject>(new RenameObject(doc, kind, from, to));
}

// ---- ReplaceObjects


void ReplaceObjects::apply(Scene& s) const {
  for (const auto& [before, after] : m_objects) put(s, after);
}

void ReplaceObjects::revert(Scene& s) const {
  for (auto it = m_objects.rbegin(); it != m_objects.rend(); ++it) put(s, it->first);
}

bool ReplaceObjects::replace(const EditTarget& target, const std::function<void(Scene&)>& change) {
  const auto found = find(scene(), target);
  if (!found) return false;
  // the edit runs on a scene of the object alone (and the settings it may read)
  Scene one;
  one.settings = scene().settings;
  std::visit([&](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (!std::is_same_v<T, core::Settings>) listOf<T>(one).push_back(x);
  }, found->second);
  change(one);
  SceneObject after = std::visit([&](const auto& x) -> SceneObject {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, core::Settings>) return one.settings;
    else return listOf<T>(one).front();
  }, found->second);
  m_objects.emplace_back(found->second, std::move(after));
  return true;
}

// ---- EditProperty

EditProperty::EditProperty(Document& doc, const QString& text, const EditTarget& target, const QString& property,
                           bool merges)
    : ReplaceObjects(doc, text), m_target(target), m_property(property), m_merges(merges) {}

std::unique_ptr<EditProperty> EditProperty::make(Document& doc, const EditTarget& target, const QString& property,
                                                 const std::function<void(Scene&)>& change, bool merges,
                                                 const QString& text) {
  QString t = text;
  if (t.isEmpty())
    t = target.settings ? QObject::tr("Edit %1").arg(property.toLower())
                        : QObject::tr("Edit %1 of %2").arg(property.toLower(), name(target.name));
  std::unique_ptr<EditProperty> c(new EditProperty(doc, t, target, property, merges));
  if (!c->replace(target, change)) return nullptr;
  return c;
}

bool EditProperty::absorb(const SceneCommand& other) {
  const auto& o = static_cast<const EditProperty&>(other);
  if (!m_merges || !o.m_merges || o.m_target != m_target || o.m_property != m_property) return false;
  m_objects.front().second = o.m_objects.front().second;  // the first "before", the latest "after"
  return true;
}

// ---- MoveBody

MoveBody::MoveBody(Document& doc, std::string body, Pose from, Pose to)
    : SceneCommand(doc, QObject::tr("Move %1").arg(name(body))), m_body(std::move(body)), m_from(from), m_to(to) {}

std::unique_ptr<MoveBody> MoveBody::make(Document& doc, const std::string& body, const core::Vec3& position,
                                         const core::Quat& orientation) {
  const auto i = indexOf(doc.scene().bodies, body);
  if (!i) return nullptr;
  const core::BodyDef& b = doc.scene().bodies[*i];
  return std::unique_ptr<MoveBody>(new MoveBody(doc, body, {b.position, b.orientation}, {position, orientation}));
}

void MoveBody::set(Scene& s, const Pose& p) const {
  if (const auto i = indexOf(s.bodies, m_body)) {
    s.bodies[*i].position = p.position;
    s.bodies[*i].orientation = p.orientation;
  }
}

bool MoveBody::absorb(const SceneCommand& other) {
  const auto& o = static_cast<const MoveBody&>(other);
  if (o.m_body != m_body) return false;
  m_to = o.m_to;
  return true;
}

// ---- AddEvents

AddEvents::AddEvents(Document& doc, const QString& text, std::vector<core::EventDef> events)
    : SceneCommand(doc, text), m_events(std::move(events)) {}

void AddEvents::apply(Scene& s) const { s.events.insert(s.events.end(), m_events.begin(), m_events.end()); }

void AddEvents::revert(Scene& s) const { s.events.resize(s.events.size() - m_events.size()); }

// ---- RemoveEvents

RemoveEvents::RemoveEvents(Document& doc, const QString& text, const std::set<int>& events,
                           const std::set<std::pair<std::string, int>>& keyframes)
    : ReplaceObjects(doc, text) {
  for (int i : events)
    if (i >= 0 && size_t(i) < scene().events.size()) m_events.emplace_back(size_t(i), scene().events[size_t(i)]);
  std::set<std::string> paths;
  for (const auto& [path, k] : keyframes) paths.insert(path);
  for (const std::string& path : paths)
    replace({false, core::ObjectKind::Path, path}, [&](Scene& s) {
      std::vector<core::Keyframe>& keys = s.paths.front().keyframes;
      for (int k = int(keys.size()) - 1; k >= 0; --k)
        if (keyframes.count({path, k})) keys.erase(keys.begin() + k);
    });
}

void RemoveEvents::apply(Scene& s) const {
  for (auto it = m_events.rbegin(); it != m_events.rend(); ++it) s.events.erase(s.events.begin() + std::ptrdiff_t(it->first));
  ReplaceObjects::apply(s);
}

void RemoveEvents::revert(Scene& s) const {
  ReplaceObjects::revert(s);
  insertAt(s.events, m_events);
}

// ---- EditEvents

EditEvents::EditEvents(Document& doc, const QString& text, const std::vector<std::pair<int, core::EventDef>>& events,
                       const std::vector<std::pair<std::string, std::function<void(core::PathDef&)>>>& paths,
                       bool merges)
    : ReplaceObjects(doc, text), m_merges(merges) {
  for (const auto& [i, after] : events)
    if (i >= 0 && size_t(i) < scene().events.size()) m_events.push_back({size_t(i), scene().events[size_t(i)], after});
  for (const auto& p : paths)  // (not a structured binding: clang 14, the sanitizer builds' compiler, cannot capture one)
    replace({false, core::ObjectKind::Path, p.first}, [&p](Scene& s) { p.second(s.paths.front()); });
}

void EditEvents::apply(Scene& s) const {
  for (const Change& c : m_events) s.events[c.index] = c.after;
  ReplaceObjects::apply(s);
}

void EditEvents::revert(Scene& s) const {
  ReplaceObjects::revert(s);
  for (const Change& c : m_events) s.events[c.index] = c.before;
}

bool EditEvents::absorb(const SceneCommand& other) {
  const auto& o = static_cast<const EditEvents&>(other);
  if (!m_merges || !o.m_merges || o.m_events.size() != m_events.size() || o.m_objects.size() != m_objects.size())
    return false;
  for (size_t i = 0; i < m_events.size(); ++i)
    if (o.m_events[i].index != m_events[i].index) return false;
  for (size_t i = 0; i < m_objects.size(); ++i)
    if (objectName(o.m_objects[i].first) != objectName(m_objects[i].first)) return false;
  for (size_t i = 0; i < m_events.size(); ++i) m_events[i].after = o.m_events[i].after;
  for (size_t i = 0; i < m_objects.size(); ++i) m_objects[i].second = o.m_objects[i].second;
  return true;
}

// ---- SetScene

SetScene::SetScene(Document& doc, const QString& text, Scene before, Scene after)
    : SceneCommand(doc, text), m_before(std::move(before)), m_after(std::move(after)) {}

size_t SetScene::storedObjects() const {
  auto count = [](const Scene& s) {
    return 1 + s.bodies.size() + s.nails.size() + s.paths.size() + s.forces.size() + s.constraints.size() +
           s.planes.size() + s.events.size();
  };
  return count(m_before) + count(m_after);
}

}  // namespace tether::ui
