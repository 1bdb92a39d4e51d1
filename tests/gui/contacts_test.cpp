// Contacts in the GUI (issue 20): a ground plane is drawn, listed, edited and deleted as other
// objects are, with undo; the scene settings and the body inspector edit the contact fields and
// refuse bad values with the validator's reason; the debug overlay draws the contact points and
// force arrows (own toggle, |F| on hover; a frame replayed from the history shows those recorded
// with it); a contact
// problem shows in the status bar.
#include "gui_util.h"

#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>

#include "render/picking.h"
#include "ui/scene_model.h"

using namespace tether;
using namespace tether::test;

namespace {

QAction* action(ui::MainWindow& w, const QString& objectName) { return w.findChild<QAction*>(objectName); }

void deleteSelected(ui::MainWindow& w) {
  for (QAction* a : w.findChildren<QAction*>())
    if (a->text() == QStringLiteral("&Delete")) a->trigger();
}

// A visible label of the inspector that says `what`.
QString inspectorSays(ui::MainWindow& w, const QString& what) {
  for (QLabel* l : w.inspector()->findChildren<QLabel*>())
    if (l->isVisible() && l->text().contains(what)) return l->text();
  return {};
}

// Looking down at the origin from 4 m, 35 degrees above the ground (the front view sees a
// floor edge-on).
void obliqueView(ui::ViewportWidget* v) {
  v->camera().set(Vec3(0, 0, 0.2), 4.0, -std::numbers::pi / 2, 0.6);
  v->update();
}

QColor at(ui::ViewportWidget* v, const Vec3& world) { return screenshot(v).pixelColor(pixel(v, world)); }

bool near(const QColor& a, const QColor& b, int tolerance) {
  return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
         std::abs(a.blue() - b.blue()) <= tolerance;
}

// A 24 kg box a little above a floor, contacts on, no bounce.
void boxOnFloor(core::Scene& s) {
  s = {};
  s.settings.contacts = true;
  core::BodyDef b;
  b.name = "box";
  b.shape = core::Shape::Box;
  b.size = Vec3(0.4, 0.3, 0.2);
  b.position = Vec3(0, 0, 0.11);
  b.restitution = 0;
  s.bodies.push_back(b);
  s.planes.push_back({"floor", Vec3::Zero(), Vec3::UnitZ(), 0.0});
}

// The window ready, showing the box on its floor from obliqueView.
bool showBoxOnFloor(ui::MainWindow& w) {
  if (!ready(w) || !w.document().edit("floor", boxOnFloor)) return false;
  obliqueView(w.viewport());
  return waitForSnapshot(w);
}

// The contact force arrows drawn.
std::vector<render::Segment> contactArrows(ui::ViewportWidget* v) {
  std::vector<render::Segment> out;
  for (const render::Segment& s : v->drawnSegments())
    if (s.kind == render::Segment::Kind::ContactForce) out.push_back(s);
  return out;
}

}  // namespace

class ContactsTest : public QObject {
  Q_OBJECT
 private slots:
  // Tools > Ground plane: a floor at z = 0 with contacts on (one undo step), drawn where the
  // background was, listed under "Ground planes" and selected; the inspector edits its point,
  // normal and restitution with undo and refuses a zero normal and a restitution above 1 with the
  // validator's reason; Delete removes it and undo brings it back.
  void groundPlaneIsAddedDrawnEditedAndDeleted() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    ui::Document& doc = w.document();
    ui::ViewportWidget* v = w.viewport();
    obliqueView(v);
    QVERIFY(waitForSnapshot(w));
    const Vec3 onFloor(1.0, 1.5, 0.0);
    const QColor before = at(v, onFloor);
    const QColor bg(int(render::backgroundColor().r * 255), int(render::backgroundColor().g * 255),
                    int(render::backgroundColor().b * 255));
    QVERIFY2(near(before, bg, 30), qPrintable(before.name()));

    QAction* add = action(w, "addGroundPlane");
    QVERIFY(add);
    QVERIFY(!doc.scene().settings.contacts);
    add->trigger();
    QCOMPARE(int(doc.scene().planes.size()), 1);
    const core::PlaneDef& p = doc.scene().planes[0];
    QCOMPARE(p.name, std::string("ground1"));
    QCOMPARE(p.point, Vec3::Zero());
    QCOMPARE(p.normal, Vec3::UnitZ());
    QVERIFY(doc.scene().settings.contacts);
    const ui::Selection plane{ui::Selection::Kind::Plane, "ground1"};
    QCOMPARE(w.inspector()->selection(), plane);
    ui::SceneModel* m = w.sceneModel();
    QCOMPARE(m->rowCount(m->index(ui::SceneModel::Planes, 0)), 1);
    QCOMPARE(w.selectionModel()->currentIndex(), m->indexOf(plane));
    // pressed again: the floor there is selected and said, not doubled (a helper got "ground1" on
    // top of "floor")
    w.select({ui::Selection::Kind::Settings, {}});
    add->trigger();
    QCOMPARE(int(doc.scene().planes.size()), 1);
    QCOMPARE(w.inspector()->selection(), plane);
    QVERIFY2(w.statusBar()->currentMessage().contains("The floor at z = 0 is there already: plane \"ground1\""),
             qPrintable(w.statusBar()->currentMessage()));
    QCOMPARE(m->data(m->indexOf(plane)).toString(), QStringLiteral("ground1"));

    // drawn: the floor's green-grey (shaded: its hue, not the exact colour) where the background
    // was, once not selected
    QVERIFY(waitForSnapshot(w));
    QTRY_VERIFY(!near(at(v, onFloor), bg, 30));
    w.select({});
    QTest::qWait(50);
    const QColor floor = at(v, onFloor);
    QVERIFY2(floor.green() > floor.red() && floor.green() > floor.blue(), qPrintable(floor.name()));

    // one undo step takes both the plane and contacts back
    doc.undoStack()->undo();
    QVERIFY(doc.scene().planes.empty());
    QVERIFY(!doc.scene().settings.contacts);
    QVERIFY(waitForSnapshot(w));
    QTRY_VERIFY(near(at(v, onFloor), bg, 30));
    doc.undoStack()->redo();
    QCOMPARE(int(doc.scene().planes.size()), 1);
    QVERIFY(doc.scene().settings.contacts);
    w.select(plane);

    // the inspector: point, normal, restitution
    QVERIFY(typeInto(w, "Restitution", "0.9"));
    QCOMPARE(doc.scene().planes[0].restitution, 0.9);
    QVERIFY(typeInto(w, "Point.z", "-0.5"));
    QCOMPARE(doc.scene().planes[0].point, Vec3(0, 0, -0.5));
    QVERIFY(typeInto(w, "Normal.x", "1"));
    QCOMPARE(doc.scene().planes[0].normal, Vec3(1, 0, 1));
    const std::string edited = json(doc.scene());
    QVERIFY(typeInto(w, "Restitution", "1.5"));
    QCOMPARE(json(doc.scene()), edited);
    QVERIFY2(!inspectorSays(w, "Not applied: Restitution must be between 0 and 1").isEmpty(),
             qPrintable(inspectorSays(w, "Not applied")));
    QTest::qWait(10);
    QVERIFY(typeInto(w, "Normal.x", "0"));
    QVERIFY(typeInto(w, "Normal.z", "0"));
    QCOMPARE(doc.scene().planes[0].normal, Vec3(0, 0, 1));  // x went to 0; z = 0 was refused
    QVERIFY2(!inspectorSays(w, "Not applied: Normal ").isEmpty(), qPrintable(inspectorSays(w, "Not applied")));
    QTest::qWait(10);  // the form shows the document's values again
    QVERIFY(typeInto(w, "Normal.y", "2"));
    QCOMPARE(doc.scene().planes[0].normal, Vec3(0, 2, 1));
    doc.undoStack()->undo();  // the normal's edits (one merged step) back to +z
    QCOMPARE(doc.scene().planes[0].normal, Vec3::UnitZ());
    doc.undoStack()->undo();  // the point back to 0
    QCOMPARE(doc.scene().planes[0].normal, Vec3::UnitZ());
    QCOMPARE(doc.scene().planes[0].point, Vec3::Zero());
    QCOMPARE(doc.scene().planes[0].restitution, 0.9);

    // renamed in the outliner; the name is taken by no other object
    QVERIFY(m->setData(m->indexOf(plane), "floor"));
    QCOMPARE(doc.scene().planes[0].name, std::string("floor"));

    // deleted, and back
    w.select({ui::Selection::Kind::Plane, "floor"});
    deleteSelected(w);
    QVERIFY(doc.scene().planes.empty());
    QCOMPARE(m->rowCount(m->index(ui::SceneModel::Planes, 0)), 0);
    QVERIFY(waitForSnapshot(w));
    QTRY_VERIFY(near(at(v, onFloor), bg, 30));
    doc.undoStack()->undo();
    QCOMPARE(int(doc.scene().planes.size()), 1);
    QCOMPARE(doc.scene().planes[0].name, std::string("floor"));
    QCOMPARE(doc.scene().planes[0].restitution, 0.9);
    doc.undoStack()->setClean();
  }

  // A ground plane is an object like the others: a click on it selects it (the inspector shows
  // it), hovering names it in the status bar; a click on the sky selects nothing, and one on the
  // box resting on it still takes the box.
  void groundPlaneIsSelectedByClickingIt() {
    ui::MainWindow w;
    QVERIFY(showBoxOnFloor(w));
    QVERIFY(w.setTool("select"));
    ui::ViewportWidget* v = w.viewport();
    const ui::Selection plane{ui::Selection::Kind::Plane, "floor"};
    const QPoint floor = pixel(v, Vec3(1.0, 1.5, 0.0));
    QTest::mouseMove(v, floor);
    auto* hover = w.findChild<QLabel*>(QStringLiteral("hoverName"));
    QVERIFY(hover);
    QTRY_VERIFY2(hover->text().contains(QStringLiteral("ground plane \"floor\"")), qPrintable(hover->text()));
    QTest::mouseClick(v, Qt::LeftButton, {}, floor);
    QTRY_COMPARE(w.inspector()->selection(), plane);
    // the sky: looking along the floor, the first row from the top where the ray misses its square
    v->camera().set(Vec3(0, 0, 0.2), 4.0, -std::numbers::pi / 2, 0.05);
    v->update();
    const auto snap = v->shownSnapshot();
    QVERIFY(snap);
    int sky = -1;
    for (int y = 2; y < v->height() / 2 && sky < 0; y += 2)
      if (!render::pickPlane(*snap, v->camera().ray(v->width() / 2.0, y))) sky = y;
    QVERIFY2(sky >= 0, "no sky above the floor in this view");
    QTest::mouseClick(v, Qt::LeftButton, {}, QPoint(v->width() / 2, sky));
    QTRY_COMPARE(w.inspector()->selection(), ui::Selection{});
    obliqueView(v);
    QTest::mouseClick(v, Qt::LeftButton, {}, pixel(v, Vec3(0.0, 0.0, 0.2)));
    QTRY_COMPARE(w.inspector()->selection(), (ui::Selection{ui::Selection::Kind::Body, "box"}));
    w.document().undoStack()->setClean();
  }

  // The selected plane is drawn in the selection's colour.
  void selectedPlaneIsHighlighted() {
    ui::MainWindow w;
    QVERIFY(showBoxOnFloor(w));
    ui::ViewportWidget* v = w.viewport();
    const Vec3 onFloor(1.0, 1.5, 0.0);
    const QColor plain = at(v, onFloor);
    w.select({ui::Selection::Kind::Plane, "floor"});
    QTest::qWait(50);
    const QColor lit = at(v, onFloor);
    // the selection's gold: more red than the plain floor's green-grey
    QVERIFY2(lit.red() > plain.red() + 20, qPrintable(plain.name() + " " + lit.name()));
    w.document().undoStack()->setClean();
  }

  // Scene settings: "Contacts" on and off, the contact slop (a value past the validator's range
  // refused with its reason). Body: collides, restitution, collision group and mask (typed as
  // hexadecimal or decimal; not a number refused), each an undo step.
  void settingsAndBodyEditContactFields() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    ui::Document& doc = w.document();
    QVERIFY(doc.edit("ball", [](core::Scene& s) { s.bodies.push_back(ball(Vec3(0, 0, 1))); }));
    w.select({ui::Selection::Kind::Settings, {}});
    auto* contacts = w.inspector()->findChild<QCheckBox*>("Contacts");
    QVERIFY(contacts);
    QVERIFY(!contacts->isChecked());
    contacts->click();
    QVERIFY(doc.scene().settings.contacts);
    QVERIFY(typeInto(w, "Contact slop", "0.0001"));
    QCOMPARE(doc.scene().settings.contactSlop, 0.0001);
    const std::string before = json(doc.scene());
    QVERIFY(typeInto(w, "Contact slop", "0.5"));
    QCOMPARE(json(doc.scene()), before);
    QVERIFY2(!inspectorSays(w, "Not applied: Contact slop must be between 0 and 0.01 m").isEmpty(),
             qPrintable(inspectorSays(w, "Not applied")));
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QVERIFY(!doc.scene().settings.contacts);
    QCOMPARE(doc.scene().settings.contactSlop, core::Settings{}.contactSlop);

    w.select({ui::Selection::Kind::Body, "ball"});
    const core::BodyDef& b = doc.scene().bodies[0];
    auto* collides = w.inspector()->findChild<QCheckBox*>("Collides");
    QVERIFY(collides);
    QVERIFY(collides->isChecked());
    collides->click();
    QVERIFY(!doc.scene().bodies[0].collides);
    QVERIFY(typeInto(w, "Restitution", "0.25"));
    QCOMPARE(doc.scene().bodies[0].restitution, 0.25);
    QVERIFY(typeInto(w, "Friction", "0.8"));
    QCOMPARE(doc.scene().bodies[0].friction, 0.8);
    QVERIFY(typeInto(w, "Static friction", "-1"));
    QCOMPARE(doc.scene().bodies[0].staticFriction, core::BodyDef{}.staticFriction);
    QVERIFY2(!inspectorSays(w, "Not applied: Static friction must be between 0 and 10").isEmpty(),
             "a negative friction is refused with the validator's reason");
    QVERIFY(typeInto(w, "Rolling resistance", "0.002"));
    QCOMPARE(doc.scene().bodies[0].rollingResistance, 0.002);
    QVERIFY(typeInto(w, "Rolling resistance", "5"));
    QCOMPARE(doc.scene().bodies[0].rollingResistance, 0.002);
    QVERIFY2(!inspectorSays(w, "Not applied: Rolling resistance must be between 0 and 1").isEmpty(),
             qPrintable(inspectorSays(w, "Not applied")));
    QVERIFY2(inspectorSays(w, "Not applied").endsWith("(typed 5)"), qPrintable(inspectorSays(w, "Not applied")));
    QVERIFY(typeInto(w, "Restitution", "-0.1"));
    QCOMPARE(doc.scene().bodies[0].restitution, 0.25);
    QVERIFY2(!inspectorSays(w, "Not applied: Restitution must be between 0 and 1").isEmpty(),
             qPrintable(inspectorSays(w, "Not applied")));
    QTest::qWait(10);
    QCOMPARE(w.inspector()->findChild<QLineEdit*>("Collision group")->text(), QStringLiteral("0x00000001"));
    QVERIFY(typeInto(w, "Collision group", "0x6"));
    QCOMPARE(doc.scene().bodies[0].collisionGroup, 6u);
    QVERIFY(typeInto(w, "Collision mask", "12"));
    QCOMPARE(doc.scene().bodies[0].collisionMask, 12u);
    QVERIFY(typeInto(w, "Collision mask", "lots"));
    QCOMPARE(doc.scene().bodies[0].collisionMask, 12u);
    QVERIFY(!inspectorSays(w, "Not applied: Collision mask must be a whole number from 0 to 0xffffffff").isEmpty());
    QVERIFY(typeInto(w, "Collision mask", "0x100000000"));
    QCOMPARE(doc.scene().bodies[0].collisionMask, 12u);
    QTest::qWait(10);
    QCOMPARE(w.inspector()->findChild<QLineEdit*>("Collision mask")->text(), QStringLiteral("0x0000000c"));
    for (int i = 0; i < 6; ++i) doc.undoStack()->undo();
    QCOMPARE(b.collides, true);
    QCOMPARE(b.rollingResistance, 0.0);
    QCOMPARE(b.restitution, core::BodyDef{}.restitution);
    QCOMPARE(b.friction, core::BodyDef{}.friction);
    QCOMPARE(b.collisionGroup, 1u);
    QCOMPARE(b.collisionMask, 0xffffffffu);

    // recorded as events at the playhead: unchecking Collides adds "set collides 0", a
    // restitution typed adds "set restitution"; the body's own fields stay as they were
    w.inspector()->setRecordEvents(true);
    QTest::qWait(10);
    collides = w.inspector()->findChild<QCheckBox*>("Collides");
    QVERIFY(collides && collides->isChecked());
    collides->click();
    QVERIFY(typeInto(w, "Restitution", "0.1"));
    w.inspector()->setRecordEvents(false);
    const auto& events = doc.scene().events;
    QCOMPARE(int(events.size()), 2);
    QCOMPARE(events[0].action, core::EventAction::Set);
    QCOMPARE(events[0].target, std::string("ball"));
    QCOMPARE(events[0].param, std::string("collides"));
    QCOMPARE(events[0].value, std::vector<double>{0.0});
    QCOMPARE(events[1].param, std::string("restitution"));
    QCOMPARE(events[1].value, std::vector<double>{0.1});
    QVERIFY(b.collides);
    QCOMPARE(b.restitution, core::BodyDef{}.restitution);
    doc.undoStack()->setClean();
  }

  // A box resting on the floor: four contact points with force arrows in the contacts' colour
  // that carry its weight; hovering one says its bodies and |F|; View > Contacts hides them.
  // A helper's finding: with the form scrolled down, a refusal's message (3 lines) then a shorter
  // one (2 lines) gave the form room back, the form scrolled up under the cursor, and the next
  // value typed ("100" meant for Friction) landed in Restitution. The fields stay put while the
  // messages come, change and go (the message's room stays until another object is selected).
  void refusalsAndWarningsLeaveTheFieldsWhereTheyAre() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    w.resize(1200, 560);  // a form taller than its dock: it scrolls
    ui::Document& doc = w.document();
    QVERIFY(doc.edit("ball", [](core::Scene& s) {
      s.settings.contacts = true;
      s.bodies.push_back(ball(Vec3(0, 0, 1)));
    }));
    w.select({ui::Selection::Kind::Body, "ball"});
    QTRY_VERIFY(w.inspector()->findChild<QDoubleSpinBox*>("Friction"));
    auto* bar = w.inspector()->findChild<QScrollArea*>()->verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    bar->triggerAction(QAbstractSlider::SliderToMaximum);  // (as a user's drag or wheel)
    QTest::qWait(50);
    const auto at = [&] {  // where Friction is on the screen
      auto* f = w.inspector()->findChild<QDoubleSpinBox*>("Friction");
      return f ? f->mapToGlobal(QPoint(0, 0)) : QPoint(-1, -1);
    };
    const QPoint start = at();
    const std::string before = json(doc.scene());
    for (const auto& [field, text] : {std::pair{"Rolling resistance", "5"}, {"Friction", "-1"}, {"Restitution", "7"}}) {
      QVERIFY(typeInto(w, field, text));
      QVERIFY2(!inspectorSays(w, "Not applied").isEmpty(), field);
      QTest::qWait(50);
      QTRY_COMPARE(at(), start);
    }
    QCOMPARE(json(doc.scene()), before);
    QVERIFY(typeInto(w, "Friction", "0.7"));
    QCOMPARE(doc.scene().bodies[0].friction, 0.7);
    QTRY_VERIFY(inspectorSays(w, "Not applied").isEmpty());  // the stale message goes
    QTest::qWait(50);
    QTRY_COMPARE(at(), start);
    // a warning that comes and goes with the value typed (a second helper: the form went to the
    // top, the field 200 px from the mouse): a rolling resistance past the ball's radius, then not
    QVERIFY(typeInto(w, "Rolling resistance", "0.5"));
    QCOMPARE(doc.scene().bodies[0].rollingResistance, 0.5);
    QTRY_VERIFY(!inspectorSays(w, "it never rolls").isEmpty());
    QTest::qWait(50);
    QTRY_COMPARE(at(), start);
    QVERIFY(typeInto(w, "Rolling resistance", "0.002"));
    QCOMPARE(doc.scene().bodies[0].rollingResistance, 0.002);
    QTRY_VERIFY(inspectorSays(w, "it never rolls").isEmpty());
    QTest::qWait(50);
    QTRY_COMPARE(at(), start);
    w.document().undoStack()->setClean();
  }

  void contactArrowsAreDrawnAndSayTheirForce() {
    ui::MainWindow w;
    QVERIFY(showBoxOnFloor(w));
    ui::ViewportWidget* v = w.viewport();
    QVERIFY(contactArrows(v).empty());  // not stepped yet
    w.simulation().play();
    QTRY_VERIFY_WITH_TIMEOUT(w.simulation().snapshot()->t > 1.0, 20000);
    w.simulation().pause();
    QTRY_VERIFY(!w.simulation().snapshot()->playing);
    QTest::qWait(100);
    v->pollSnapshot();
    QTest::qWait(50);
    const auto snap = v->shownSnapshot();
    QCOMPARE(int(snap->contacts.size()), 4);
    const double mg = 0.4 * 0.3 * 0.2 * 1000 * 9.81;
    double sum = 0;
    for (const core::ContactDraw& c : snap->contacts) {
      sum += c.force.z();
      QCOMPARE(c.plane, 0);
      QCOMPARE(c.bodyA, 0);
      QVERIFY(std::abs(c.at.z()) < 1e-3);
    }
    QVERIFY2(std::abs(sum - mg) < 1e-6 * mg, qPrintable(QString::number(sum)));
    const std::vector<render::Segment> arrows = contactArrows(v);
    QVERIFY(!arrows.empty());
    // each arrow starts at its contact, pointing up
    for (const render::Segment& s : arrows) {
      QVERIFY((s.from - snap->contacts[size_t(s.index)].at).norm() < 1e-12);
      QVERIFY(s.to.z() > s.from.z());
    }
    // the arrow's colour on screen at a third of its length (drawn over the box it enters)
    const render::Segment& a = arrows.front();
    const QPoint third = pixel(v, a.from + (a.to - a.from) / 3);
    const render::Color cc = render::contactColor();
    const QColor drawn = screenshot(v).pixelColor(third);
    QVERIFY2(near(drawn, QColor(int(cc.r * 255), int(cc.g * 255), int(cc.b * 255)), 40), qPrintable(drawn.name()));
    // hovering it
    QTest::mouseMove(v, third);
    QTRY_VERIFY(v->hoverText().startsWith("contact box"));
    const double F = snap->contacts[size_t(a.index)].force.norm();
    QVERIFY2(v->hoverText().contains("floor") && v->hoverText().contains(QStringLiteral("|F| = %1 N").arg(F, 0, 'g', 4)),
             qPrintable(v->hoverText()));
    // the toggle
    QAction* toggle = action(w, "contactsOverlay");
    QVERIFY(toggle);
    QVERIFY(toggle->isChecked());
    toggle->trigger();
    QTest::qWait(50);
    v->update();
    QTRY_VERIFY(contactArrows(v).empty());
    toggle->trigger();
    QTRY_VERIFY(!contactArrows(v).empty());
    // a frame replayed from the history shows the contacts recorded with it: the box's four
    // corners carrying its weight, drawn as arrows; stepping on from it draws the new step's
    const double t = snap->t;
    w.simulation().stepBack();
    QTRY_VERIFY(w.simulation().snapshot()->t < t);
    const auto replayed = w.simulation().snapshot();
    QCOMPARE(int(replayed->contacts.size()), 4);
    double replayedSum = 0;
    for (const core::ContactDraw& c : replayed->contacts) replayedSum += c.force.z();
    QVERIFY2(std::abs(replayedSum - mg) < 1e-6 * mg, qPrintable(QString::number(replayedSum)));
    v->pollSnapshot();
    QTRY_VERIFY(!contactArrows(v).empty());
    w.simulation().step();
    QTRY_VERIFY(w.simulation().snapshot()->t > replayed->t);
    QCOMPARE(int(w.simulation().snapshot()->contacts.size()), 4);
    w.document().undoStack()->setClean();
  }

  // A ball of radius 10 cm hung by its top from a nail 15 cm above the floor, so that it reaches
  // 5 cm into it: only a turn of 60 degrees about the nail lifts it out, and its joint holds it
  // where the contact cannot; the status bar says so. (Pinned by its centre, the overlap would
  // be the nail's own: core::PinnedPoint.)
  void contactProblemShowsInTheStatusBar() {
    ui::MainWindow w;
    QVERIFY(ready(w));
    QVERIFY(w.document().edit("pinned", [](core::Scene& s) {
      s = {};
      s.settings.contacts = true;
      s.bodies.push_back(ball(Vec3(0, 0, 0.05)));
      s.nails.push_back({"pin", Vec3(0, 0, 0.15)});
      s.constraints.push_back(topToNail("hold", "pin"));
      s.planes.push_back({"floor", Vec3::Zero(), Vec3::UnitZ(), 0.0});
    }));
    QVERIFY(waitForSnapshot(w));
    w.simulation().step();
    QTRY_VERIFY(!w.simulation().snapshot()->contactProblem.empty());
    QTRY_VERIFY2(w.statusBar()->currentMessage().startsWith("Contacts: contacts of body \"ball\""),
                 qPrintable(w.statusBar()->currentMessage()));
    w.document().undoStack()->setClean();
  }
};

TETHER_GUI_TEST_MAIN(ContactsTest)
#include "contacts_test.moc"
