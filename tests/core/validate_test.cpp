// core/validate.cpp: every rule refuses a scene that breaks it with one message naming the place
// and the problem ("constraints[1].tau: must be > 0 (is 0)"), a scene using every kind of object
// passes, and each range admits its bound and refuses the value just past it. (The file reader
// and its own messages, which also run these rules: scene_io_test.cpp. The stable-bound warnings:
// core/stability.cpp, stability_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "core/scene_io.h"
#include "core/validate.h"
#include "test_util.h"

namespace tether::core {
namespace {

using test::def;
using test::localRef;
using test::nailRef;
using test::pt;

EventDef event(double time, EventAction action, const std::string& target, const std::string& param = "",
               std::vector<double> value = {}) {
  EventDef e;
  e.time = time;
  e.action = action;
  e.target = target;
  e.param = param;
  e.value = std::move(value);
  return e;
}

// A valid scene with every kind of object: each shape, a fixed body, nails, every path, force and
// constraint type and every event action. The cases below break it one rule at a time. Indices:
//   bodies     0 rod, 1 ball (sphere), 2 ring (torus), 3 crate (box, user point "hook"), 4 ball2, 5 ground (fixed box)
//   nails      0 n1, 1 n2
//   paths      0 line, 1 circle, 2 spline
//   forces     0 spring, 1 drag (damping), 2 twist (torsion spring), 3 push (constant force), 4 turn (constant torque)
//   constraints, in the table's order: 0 pin (point-to-nail), 1 joint (point-to-point), 2 ride (point-to-path),
//     3 upright (orientation), 4 rail (point-on-line), 5 floor (point-on-plane), 6 touch (sphere-to-sphere),
//     7 tether (distance), 8 sling (scalar point-to-nail), 9 door (hinge)
//   events     0 create ring, 1 remove ball2, 2 disable pin, 3 enable spring, 4 set spring.stiffness,
//              5 set joint.tau, 6 set circle.speed, 7 disable gravity, 8 set gravity.acceleration, 9 set push.force
Scene everything() {
  Scene s;
  s.bodies.push_back(test::rod("rod", Vec3(0, 0, 1), Vec3(1, 0, 1)));
  s.bodies.push_back(test::sphere("ball", Vec3(2, 0, 1)));
  BodyDef ring;
  ring.name = "ring";
  ring.shape = Shape::Torus;
  ring.position = Vec3(3, 0, 1);
  ring.active = false;
  s.bodies.push_back(ring);
  BodyDef crate;
  crate.name = "crate";
  crate.shape = Shape::Box;
  crate.position = Vec3(4, 0, 1);
  crate.points.push_back({"hook", Vec3(0.1, 0.1, 0.2)});
  s.bodies.push_back(crate);
  s.bodies.push_back(test::sphere("ball2", Vec3(2, 0, 1.3)));
  BodyDef ground;
  ground.name = "ground";
  ground.shape = Shape::Box;
  ground.fixed = true;
  ground.position = Vec3(4, 0, 0.5);
  s.bodies.push_back(ground);

  s.nails.push_back({"n1", Vec3(0, 0, 1)});
  s.nails.push_back({"n2", Vec3(3, 0, 2)});

  PathDef line;
  line.name = "line";
  line.kind = PathKind::Line;
  line.velocity = Vec3(0.1, 0, 0);
  s.paths.push_back(line);
  PathDef circle;
  circle.name = "circle";
  circle.kind = PathKind::Circle;
  circle.center = Vec3(2, 0, 1);
  circle.radius = 0.5;
  s.paths.push_back(circle);
  PathDef spline;
  spline.name = "spline";
  spline.kind = PathKind::Spline;
  spline.keyframes = {{0.0, Vec3(0, 0, 0)}, {1.0, Vec3(1, 0, 0)}, {2.0, Vec3(1, 1, 0)}};
  s.paths.push_back(spline);

  s.forces.push_back(test::springToNail("spring", "n2", pt("ball", "top"), 20.0, 0.1));
  ForceDef drag;
  drag.name = "drag";
  drag.kind = ForceKind::Damping;
  drag.bodies = {"rod", "ball"};
  drag.linear = 0.1;
  drag.angular = 0.01;
  s.forces.push_back(drag);
  ForceDef twist;
  twist.name = "twist";
  twist.kind = ForceKind::TorsionSpring;
  twist.bodyA = "crate";
  twist.bodyB = "ring";
  twist.axisA = Vec3::UnitZ();
  twist.axisB = Vec3::UnitX();
  twist.restAngle = 1.0;
  s.forces.push_back(twist);
  ForceDef push;
  push.name = "push";
  push.kind = ForceKind::ConstantForce;
  push.a = pt("rod", "end2");
  push.vector = Vec3(0, 0, 1);
  s.forces.push_back(push);
  ForceDef turn;
  turn.name = "turn";
  turn.kind = ForceKind::ConstantTorque;
  turn.bodyA = "ball";
  turn.vector = Vec3(0, 0.1, 0);
  s.forces.push_back(turn);

  s.constraints.push_back(test::pointToNail("pin", pt("rod", "end1"), "n1"));
  s.constraints.push_back(test::pointToPoint("joint", pt("rod", "end2"), pt("crate", "hook")));
  s.constraints.push_back({.name = "ride", .tau = 0.2, .params = PointToPathDef{.point = pt("ball", "center"), .path = "circle"}});
  s.constraints.push_back(
      {.name = "upright", .params = OrientationDef{.body = "crate", .axis = Vec3::UnitZ(), .direction = Vec3(0, 0.1, 1)}});
  s.constraints.push_back(
      {.name = "rail", .params = PointOnLineDef{.point = pt("ball2", "top"), .origin = Vec3(2, 0, 0), .direction = Vec3(0, 0, 1)}});
  s.constraints.push_back(
      {.name = "floor", .params = PointOnPlaneDef{.point = pt("crate", "corner0"), .origin = Vec3::Zero(), .normal = Vec3::UnitZ()}});
  s.constraints.push_back({.name = "touch", .params = SphereToSphereDef{.bodyA = "ball", .bodyB = "ball2"}});
  s.constraints.push_back({.name = "tether", .params = DistanceDef{.a = nailRef("n2"), .b = pt("ring", "east"), .length = 0.8}});
  s.constraints.push_back({.name = "sling", .params = ScalarPointToNailDef{.point = pt("ring", "west"), .nail = "n2"}});
  s.constraints.push_back({.name = "door",
                           .params = HingeDef{.a = pt("ground", "top"),
                                              .b = localRef("crate", Vec3(0, 0, -0.1)),
                                              .axisA = Vec3::UnitZ(),
                                              .axisB = Vec3::UnitZ()}});

  s.events.push_back(event(0.5, EventAction::Create, "ring"));
  s.events.push_back(event(3.0, EventAction::Remove, "ball2"));
  s.events.push_back(event(1.0, EventAction::Disable, "pin"));
  s.events.push_back(event(1.0, EventAction::Enable, "spring"));
  s.events.push_back(event(1.0, EventAction::Set, "spring", "stiffness", {30.0}));
  s.events.push_back(event(2.0, EventAction::Set, "joint", "tau", {0.2}));
  s.events.push_back(event(2.0, EventAction::Set, "circle", "speed", {0.5}));
  s.events.push_back(event(2.0, EventAction::Disable, "gravity"));
  s.events.push_back(event(2.5, EventAction::Set, "gravity", "acceleration", {0.0, 0.0, -1.0}));
  s.events.push_back(event(3.0, EventAction::Set, "push", "force", {1.0, 0.0, 0.0}));
  return s;
}

std::string errorOf(const Scene& s) {
  try {
    validateScene(s);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "(no error)";
}

// One broken rule: the edit of everything() and the message it must get (in full; a message
// ending in "..." only has to start with what precedes it).
struct Case {
  const char* what;
  std::function<void(Scene&)> edit;
  std::string message;
};

void expectErrors(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    Scene s = everything();
    c.edit(s);
    const std::string got = errorOf(s);
    const bool prefix = c.message.size() > 3 && c.message.compare(c.message.size() - 3, 3, "...") == 0;
    if (prefix)
      EXPECT_EQ(got.substr(0, c.message.size() - 3), c.message.substr(0, c.message.size() - 3)) << c.what;
    else
      EXPECT_EQ(got, c.message) << c.what;
  }
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(Validate, ASceneWithEveryKindOfObjectIsValid) {
  const Scene s = everything();
  EXPECT_EQ(errorOf(s), "(no error)");
  EXPECT_NO_THROW(compile(s));
  EXPECT_EQ(errorOf(Scene{}), "(no error)");  // the empty scene of File > New
  // every constraint type and every event action is present
  std::set<const ConstraintType*> kinds;
  for (const ConstraintDef& c : s.constraints) kinds.insert(&c.type());
  EXPECT_EQ(kinds.size(), 10u);
  std::set<EventAction> actions;
  for (const EventDef& e : s.events) actions.insert(e.action);
  EXPECT_EQ(actions.size(), 5u);
}

TEST(Validate, SettingsOutOfRangeAreNamed) {
  expectErrors({
      {"dt 0", [](Scene& s) { s.settings.dt = 0; }, "settings.dt: must be > 0 (is 0)"},
      {"dt NaN", [](Scene& s) { s.settings.dt = kNaN; }, "settings.dt: must be > 0 (is nan)"},
      {"dt 11 s", [](Scene& s) { s.settings.dt = 11; }, "settings.dt: must be between 1e-09 and 10 s (is 11)"},
      {"default tau negative", [](Scene& s) { s.settings.defaultTau = -1; }, "settings.default_tau: must be > 0 (is -1)"},
      {"default tau 2e9", [](Scene& s) { s.settings.defaultTau = 2e9; },
       "settings.default_tau: must be between 1e-09 and 1e+09 s (is 2e+09)"},
      {"tolerance 0", [](Scene& s) { s.settings.tolerance = 0; }, "settings.tolerance: must be > 0 (is 0)"},
      {"tolerance 2", [](Scene& s) { s.settings.tolerance = 2; },
       "settings.tolerance: must be between 1e-14 and 1 (doubles resolve no finer) (is 2)"},
      {"projection tolerance 1e-13", [](Scene& s) { s.settings.projectionTolerance = 1e-13; },
       "settings.projection_tolerance: must be between 1e-12 and 1 m (is 1e-13)"},
      {"duration 0", [](Scene& s) { s.settings.duration = 0; }, "settings.duration: must be > 0 (is 0)"},
      {"too many steps", [](Scene& s) { s.settings.dt = 0.5; s.settings.duration = 5.0001e7; },
       "settings.duration: 5.0001e+07 s at dt = 0.5 s is 1.00002e+08 steps, more than the 1e+08 one run may take; "
       "shorten it or raise dt"},
      {"assembly time negative", [](Scene& s) { s.settings.assemblyTime = -1; },
       "settings.assembly_time: must be between 0 and 1e+09 s (is -1)"},
      {"gravity infinite", [](Scene& s) { s.settings.gravity = Vec3(0, 0, -kInf); }, "settings.gravity: must be finite"},
      {"gravity NaN", [](Scene& s) { s.settings.gravity = Vec3(kNaN, 0, 0); }, "settings.gravity: must be finite"},
      {"alpha negative", [](Scene& s) { s.settings.baumgarteAlpha = -1; },
       "settings.baumgarte_alpha: must be between 0 and 1e+06 1/s (is -1)"},
      {"beta 2e6", [](Scene& s) { s.settings.baumgarteBeta = 2e6; },
       "settings.baumgarte_beta: must be between 0 and 1e+06 1/s (is 2e+06)"},
      {"no solver sweeps", [](Scene& s) { s.settings.solverIterations = 0; }, "settings.solver_iterations: must be in 1..100000"},
      {"no substeps", [](Scene& s) { s.settings.maxSubsteps = 0; }, "settings.max_substeps: must be in 1..4096"},
      {"5000 substeps", [](Scene& s) { s.settings.maxSubsteps = 5000; }, "settings.max_substeps: must be in 1..4096"},
  });
}

TEST(Validate, NamesMustBeNonEmptyPrintableUnreservedAndUnique) {
  expectErrors({
      {"empty body name", [](Scene& s) { s.bodies[1].name = ""; }, "bodies[1].name: must not be empty"},
      {"tab in a nail's name", [](Scene& s) { s.nails[1].name = "n\t2"; },
       "nails[1].name: must not contain control characters (a newline, tab or NUL byte)"},
      {"DEL in a path's name", [](Scene& s) { s.paths[2].name = "spl\x7fine"; },
       "paths[2].name: must not contain control characters (a newline, tab or NUL byte)"},
      {"dot", [](Scene& s) { s.forces[3].name = "pu.sh"; }, "forces[3].name: must not contain '.' or ':'"},
      {"colon", [](Scene& s) { s.constraints[4].name = "nail:rail"; }, "constraints[4].name: must not contain '.' or ':'"},
      {"reserved", [](Scene& s) { s.bodies[4].name = "gravity"; }, "bodies[4].name: \"gravity\" is reserved"},
      // names are one namespace: the second user of a name is named, with the first one's kind
      {"a nail named like a body", [](Scene& s) { s.nails[0].name = "rod"; },
       "nails[0].name: duplicate name \"rod\" (already used by a body)"},
      {"a constraint named like a force", [](Scene& s) { s.constraints[9].name = "drag"; },
       "constraints[9].name: duplicate name \"drag\" (already used by a force)"},
      {"two paths", [](Scene& s) { s.paths[2].name = "line"; }, "paths[2].name: duplicate name \"line\" (already used by a path)"},
  });
}

TEST(Validate, BodiesOutOfRangeAreNamedByTheirShapesKeys) {
  expectErrors({
      {"density 0", [](Scene& s) { s.bodies[0].density = 0; }, "bodies[0].density: must be > 0 (is 0)"},
      {"density 2e12", [](Scene& s) { s.bodies[1].density = 2e12; },
       "bodies[1].density: must be between 1e-09 and 1e+12 kg/m^3 (is 2e+12)"},
      {"rod length negative", [](Scene& s) { s.bodies[0].length = -1; }, "bodies[0].length: must be > 0 (is -1)"},
      {"rod radius NaN", [](Scene& s) { s.bodies[0].radius = kNaN; }, "bodies[0].radius: must be > 0 (is nan)"},
      {"sphere radius 0", [](Scene& s) { s.bodies[1].radius = 0; }, "bodies[1].radius: must be > 0 (is 0)"},
      {"torus major radius 0", [](Scene& s) { s.bodies[2].majorRadius = 0; }, "bodies[2].major_radius: must be > 0 (is 0)"},
      {"torus minor radius 2e9", [](Scene& s) { s.bodies[2].minorRadius = 2e9; },
       "bodies[2].minor_radius: must be between 1e-09 and 1e+09 m (is 2e+09)"},
      {"torus tube as thick as the ring", [](Scene& s) { s.bodies[2].minorRadius = s.bodies[2].majorRadius; },
       "bodies[2].minor_radius: must be smaller than major_radius"},
      {"box without depth", [](Scene& s) { s.bodies[3].size.y() = 0; }, "bodies[3].size[1]: must be > 0 (is 0)"},
      {"box height negative", [](Scene& s) { s.bodies[3].size.z() = -0.2; }, "bodies[3].size[2]: must be > 0 (is -0.2)"},
      // a sphere's unused rod and torus fields are not checked
      {"a sphere's length", [](Scene& s) { s.bodies[1].length = -1; s.bodies[1].minorRadius = 5; }, "(no error)"},
      {"velocity", [](Scene& s) { s.bodies[1].velocity.x() = -2e9; },
       "bodies[1].velocity[0]: must be between -1e+09 and 1e+09 m/s (is -2e+09)"},
      {"orientation not unit", [](Scene& s) { s.bodies[3].orientation = Quat(1, 1, 0, 0); },
       "bodies[3].orientation: must be a unit quaternion"},
      {"user point without a name", [](Scene& s) { s.bodies[3].points.push_back({"", Vec3::Zero()}); },
       "bodies[3].points: a point name must not be empty"},
      {"user point shadowing the shape's", [](Scene& s) { s.bodies[3].points[0].name = "corner3"; },
       "bodies[3].points.corner3: shadows the box's own control point"},
      {"user point twice", [](Scene& s) { s.bodies[3].points.push_back({"hook", Vec3::Zero()}); },
       "bodies[3].points.hook: duplicate point name"},
      {"user point far out", [](Scene& s) { s.bodies[3].points[0].local.x() = 2e9; },
       "bodies[3].points.hook[0]: must be between -1e+09 and 1e+09 m (is 2e+09)"},
      {"nail far out", [](Scene& s) { s.nails[1].position.y() = -2e9; },
       "nails[1].position[1]: must be between -1e+09 and 1e+09 m (is -2e+09)"},
  });
}

TEST(Validate, PathsOutOfRangeAreNamed) {
  expectErrors({
      {"line start", [](Scene& s) { s.paths[0].start.z() = 2e9; }, "paths[0].start[2]: must be between -1e+09 and 1e+09 m (is 2e+09)"},
      {"line speed", [](Scene& s) { s.paths[0].velocity.x() = 2e9; },
       "paths[0].velocity[0]: must be between -1e+09 and 1e+09 m/s (is 2e+09)"},
      {"circle centre", [](Scene& s) { s.paths[1].center.y() = kNaN; },
       "paths[1].center[1]: must be between -1e+09 and 1e+09 m (is nan)"},
      {"circle radius 0", [](Scene& s) { s.paths[1].radius = 0; }, "paths[1].radius: must be > 0 (is 0)"},
      {"circle period 0", [](Scene& s) { s.paths[1].period = 0; }, "paths[1].period: must not be 0"},
      {"circle period too short, backwards", [](Scene& s) { s.paths[1].period = -1e-10; },
       "paths[1].period: must be between 1e-09 and 1e+09 s (in magnitude) (is 1e-10)"},
      {"circle phase", [](Scene& s) { s.paths[1].phase = 2e6; }, "paths[1].phase: must be between -1e+06 and 1e+06 rad (is 2e+06)"},
      {"circle normal zero", [](Scene& s) { s.paths[1].normal = Vec3::Zero(); }, "paths[1].normal: must not be the zero vector"},
      {"circle normal overflowing", [](Scene& s) { s.paths[1].normal = Vec3(1e200, 0, 0); },
       "paths[1].normal[0]: must be between -1e+09 and 1e+09 (is 1e+200)"},
      {"circle u zero", [](Scene& s) { s.paths[1].u = Vec3::Zero(); }, "paths[1].u: must not be the zero vector"},
      {"circle u along the normal", [](Scene& s) { s.paths[1].u = Vec3(0, 0, -3); }, "paths[1].u: must not be parallel to normal"},
      {"spline of one keyframe", [](Scene& s) { s.paths[2].keyframes.resize(1); }, "paths[2].keyframes: needs at least 2 keyframes"},
      {"spline keyframe time", [](Scene& s) { s.paths[2].keyframes[2].t = 2e9; },
       "paths[2].keyframes[2].t: must be between -1e+09 and 1e+09 s (is 2e+09)"},
      {"spline keyframe position", [](Scene& s) { s.paths[2].keyframes[0].position.x() = -kInf; },
       "paths[2].keyframes[0].position[0]: must be between -1e+09 and 1e+09 m (is -inf)"},
      {"spline keyframes out of order", [](Scene& s) { s.paths[2].keyframes[2].t = 0.5; },
       "paths[2].keyframes[2].t: keyframe times must increase strictly (by at least 1e-9 s)"},
      {"spline keyframes at one time", [](Scene& s) { s.paths[2].keyframes[1].t = 0.0; },
       "paths[2].keyframes[1].t: keyframe times must increase strictly (by at least 1e-9 s)"},
  });
}

TEST(Validate, ForcesOutOfRangeOrPointingNowhereAreNamed) {
  expectErrors({
      // values, each under its own key
      {"stiffness 2e12", [](Scene& s) { s.forces[0].stiffness = 2e12; },
       "forces[0].stiffness: must be between -1e+12 and 1e+12 (is 2e+12)"},
      {"damping NaN", [](Scene& s) { s.forces[0].damping = kNaN; }, "forces[0].damping: must be between -1e+12 and 1e+12 (is nan)"},
      {"rest length 2e9", [](Scene& s) { s.forces[0].restLength = 2e9; },
       "forces[0].rest_length: must be between -1e+09 and 1e+09 m (is 2e+09)"},
      {"linear damping 2e12", [](Scene& s) { s.forces[1].linear = 2e12; },
       "forces[1].linear: must be between -1e+12 and 1e+12 N s/m (is 2e+12)"},
      {"angular damping 2e12", [](Scene& s) { s.forces[1].angular = 2e12; },
       "forces[1].angular: must be between -1e+12 and 1e+12 N m s/rad (is 2e+12)"},
      {"constant force", [](Scene& s) { s.forces[3].vector.y() = 2e12; },
       "forces[3].force[1]: must be between -1e+12 and 1e+12 (is 2e+12)"},
      {"constant torque", [](Scene& s) { s.forces[4].vector.x() = -2e12; },
       "forces[4].torque[0]: must be between -1e+12 and 1e+12 (is -2e+12)"},
      {"spring end a far out", [](Scene& s) { s.forces[0].a = localRef("rod", Vec3(2e9, 0, 0)); },
       "forces[0].a.local[0]: must be between -1e+09 and 1e+09 m (is 2e+09)"},
      {"spring end b far out", [](Scene& s) { s.forces[0].b = localRef("ball", Vec3(0, 2e9, 0)); },
       "forces[0].b.local[1]: must be between -1e+09 and 1e+09 m (is 2e+09)"},
      {"constant force's point far out", [](Scene& s) { s.forces[3].a = localRef("rod", Vec3(0, 0, 2e9)); },
       "forces[3].point.local[2]: must be between -1e+09 and 1e+09 m (is 2e+09)"},
      // springs
      {"spring to a missing nail", [](Scene& s) { s.forces[0].a = nailRef("n9"); }, "forces[0].a: no nail named \"n9\""},
      {"spring to a missing body", [](Scene& s) { s.forces[0].b = pt("ghost", "center"); }, "forces[0].b: no body named \"ghost\""},
      {"spring to a nail that is a path", [](Scene& s) { s.forces[0].a = nailRef("line"); },
       "forces[0].a: \"line\" is a path, not a nail"},
      {"negative stiffness", [](Scene& s) { s.forces[0].stiffness = -1; }, "forces[0].stiffness: must be >= 0"},
      {"negative damping", [](Scene& s) { s.forces[0].damping = -1; }, "forces[0].damping: must be >= 0"},
      {"negative rest length", [](Scene& s) { s.forces[0].restLength = -0.1; }, "forces[0].rest_length: must be >= 0"},
      // viscous damping
      {"damping on a nail", [](Scene& s) { s.forces[1].bodies[1] = "n1"; }, "forces[1].bodies[1]: \"n1\" is a nail, not a body"},
      {"negative linear damping", [](Scene& s) { s.forces[1].linear = -0.1; }, "forces[1].linear: must be >= 0"},
      {"negative angular damping", [](Scene& s) { s.forces[1].angular = -0.1; }, "forces[1].angular: must be >= 0"},
      // torsion springs
      {"torsion on a missing body", [](Scene& s) { s.forces[2].bodyA = "ghost"; }, "forces[2].body_a: no body named \"ghost\""},
      {"torsion on a constraint", [](Scene& s) { s.forces[2].bodyB = "pin"; },
       "forces[2].body_b: \"pin\" is a constraint, not a body"},
      {"torsion of a body with itself", [](Scene& s) { s.forces[2].bodyB = "crate"; }, "forces[2].body_b: must differ from body_a"},
      {"torsion axis a zero", [](Scene& s) { s.forces[2].axisA = Vec3::Zero(); }, "forces[2].axis_a: must not be the zero vector"},
      {"torsion axis b zero", [](Scene& s) { s.forces[2].axisB = Vec3(1e-13, 0, 0); }, "forces[2].axis_b: must not be the zero vector"},
      {"negative torsion stiffness", [](Scene& s) { s.forces[2].stiffness = -1; }, "forces[2].stiffness: must be >= 0"},
      {"negative torsion damping", [](Scene& s) { s.forces[2].damping = -1; }, "forces[2].damping: must be >= 0"},
      {"rest angle negative", [](Scene& s) { s.forces[2].restAngle = -0.1; }, "forces[2].rest_angle: must be in [0, pi]"},
      {"rest angle past pi", [](Scene& s) { s.forces[2].restAngle = 3.2; }, "forces[2].rest_angle: must be in [0, pi]"},
      // constant force and torque
      {"constant force at a nail", [](Scene& s) { s.forces[3].a = nailRef("n1"); }, "forces[3].point: must be a point on a body"},
      {"constant force at a missing point", [](Scene& s) { s.forces[3].a = pt("rod", "tip"); },
       "forces[3].point: body \"rod\" has no control point \"tip\" (it has: center, end1, end2)"},
      {"constant torque on a missing body", [](Scene& s) { s.forces[4].bodyA = "ghost"; }, "forces[4].body: no body named \"ghost\""},
  });
}

TEST(Validate, ConstraintFieldsAreCheckedByTheirKind) {
  expectErrors({
      {"tau 0", [](Scene& s) { s.constraints[1].tau = 0.0; }, "constraints[1].tau: must be > 0 (is 0)"},
      {"tau 2e9", [](Scene& s) { s.constraints[2].tau = 2e9; }, "constraints[2].tau: must be between 1e-09 and 1e+09 s (is 2e+09)"},
      // a body point: the control point exists (the list includes the body's own points), the
      // body exists, a local point is in range, and it is not a nail or path
      {"missing control point", [](Scene& s) { def<PointToPointDef>(s.constraints[1]).b = pt("crate", "lid"); },
       "constraints[1].b: body \"crate\" has no control point \"lid\" (it has: center, top, bottom, right, left, back, "
       "front, corner0, corner1, corner2, corner3, corner4, corner5, corner6, corner7, hook)"},
      {"missing body", [](Scene& s) { def<PointToNailDef>(s.constraints[0]).point = pt("ghost", "center"); }, "constraints[0].point: no body named \"ghost\""},
      {"local point on a missing body", [](Scene& s) { def<HingeDef>(s.constraints[9]).b = localRef("ghost", Vec3::Zero()); },
       "constraints[9].b: no body named \"ghost\""},
      {"a point that is a nail", [](Scene& s) { def<PointOnLineDef>(s.constraints[4]).point = nailRef("n1"); },
       "constraints[4].point: must be a point on a body (to hold it at a fixed or moving point, use point-to-nail or "
       "point-to-path, or join it to a fixed body)"},
      {"any point: a missing nail", [](Scene& s) { def<DistanceDef>(s.constraints[7]).a = nailRef("n9"); }, "constraints[7].a: no nail named \"n9\""},
      // references by kind
      {"nail missing", [](Scene& s) { def<PointToNailDef>(s.constraints[0]).nail = "n9"; }, "constraints[0].nail: no nail named \"n9\""},
      {"nail is a body", [](Scene& s) { def<ScalarPointToNailDef>(s.constraints[8]).nail = "rod"; }, "constraints[8].nail: \"rod\" is a body, not a nail"},
      {"path is a nail", [](Scene& s) { def<PointToPathDef>(s.constraints[2]).path = "n1"; }, "constraints[2].path: \"n1\" is a nail, not a path"},
      {"body is a force", [](Scene& s) { def<OrientationDef>(s.constraints[3]).body = "drag"; }, "constraints[3].body: \"drag\" is a force, not a body"},
      // values by kind
      {"direction zero", [](Scene& s) { def<OrientationDef>(s.constraints[3]).axis = Vec3::Zero(); }, "constraints[3].axis: must not be the zero vector"},
      {"hinge axis in b zero", [](Scene& s) { def<HingeDef>(s.constraints[9]).axisB = Vec3::Zero(); },
       "constraints[9].axis_b: must not be the zero vector"},
      {"plane normal NaN", [](Scene& s) { def<PointOnPlaneDef>(s.constraints[5]).normal = Vec3(0, kNaN, 1); },
       "constraints[5].normal[1]: must be between -1e+09 and 1e+09 (is nan)"},
      {"position far out", [](Scene& s) { def<PointOnPlaneDef>(s.constraints[5]).origin.z() = 2e9; },
       "constraints[5].origin[2]: must be between -1e+09 and 1e+09 m (is 2e+09)"},
      {"length 0", [](Scene& s) { def<DistanceDef>(s.constraints[7]).length = 0; }, "constraints[7].length: must be > 0 (is 0)"},
      {"length 2e9", [](Scene& s) { def<DistanceDef>(s.constraints[7]).length = 2e9; },
       "constraints[7].length: must be between 1e-09 and 1e+09 m (is 2e+09)"},
      // then the type's own check (core/constraints/)
      {"point-to-point on one body", [](Scene& s) { def<PointToPointDef>(s.constraints[1]).b = pt("rod", "center"); },
       "constraints[1].b: is on the same body as a (\"rod\")"},
  });
}

// What a set event may change on each kind of target, with the unit the inspector and the
// timeline show beside its value.
TEST(Validate, EachTargetsSettableParametersHaveTheirUnits) {
  Scene s;
  s.bodies.push_back(test::sphere("ball", Vec3::Zero()));
  s.bodies.push_back(test::sphere("other", Vec3(1, 0, 0)));
  ForceDef spring;
  spring.name = "spring";
  spring.kind = ForceKind::Spring;
  s.forces.push_back(spring);
  const auto unitOf = [&](const std::string& target, const std::string& param) {
    for (const ParamSpec& p : settableParams(s, target))
      if (p.name == param) return std::to_string(p.size) + " " + p.unit;
    return std::string("(none)");
  };
  EXPECT_EQ(unitOf("ball", "rolling_resistance"), "1 m");
  EXPECT_EQ(unitOf("ball", "friction"), "1 ");
  EXPECT_EQ(unitOf("spring", "stiffness"), "1 N/m");
  EXPECT_EQ(unitOf("gravity", "acceleration"), "3 m/s²");
  EXPECT_EQ(unitOf("nothing", "tau"), "(none)");
  EXPECT_EQ(unitOf("ball", "stiffness"), "(none)");
}

// A parameter's value at a time: the scene's until a set event changes it (the last one at or
// before the time, by time, not by file order), for each kind of target.
TEST(Validate, AParametersValueAtATimeIsTheLastSetBeforeIt) {
  Scene s;
  s.bodies.push_back(test::sphere("ball", Vec3::Zero()));
  s.bodies[0].friction = 0.3;
  ForceDef push;
  push.name = "push";
  push.kind = ForceKind::ConstantForce;
  push.vector = Vec3(1, 2, 3);
  s.forces.push_back(push);
  s.constraints.push_back({.name = "pin", .params = PointToNailDef{}});
  s.settings.defaultTau = 0.2;
  s.events.push_back({.time = 2.0, .action = EventAction::Set, .target = "ball", .param = "friction", .value = {0.7}});
  s.events.push_back({.time = 1.0, .action = EventAction::Set, .target = "ball", .param = "friction", .value = {0.5}});
  s.events.push_back({.time = 1.0, .action = EventAction::Set, .target = "gravity", .param = "acceleration", .value = {0, 0, -1}});
  EXPECT_EQ(paramValueAt(s, "ball", "friction", 0.5), std::vector<double>{0.3});
  EXPECT_EQ(paramValueAt(s, "ball", "friction", 1.0), std::vector<double>{0.5});
  EXPECT_EQ(paramValueAt(s, "ball", "friction", 1.5), std::vector<double>{0.5});
  EXPECT_EQ(paramValueAt(s, "ball", "friction", 3.0), std::vector<double>{0.7});
  EXPECT_EQ(paramValueAt(s, "push", "force", 0.0), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(paramValueAt(s, "pin", "tau", 0.0), std::vector<double>{0.2});
  EXPECT_EQ(paramValueAt(s, "gravity", "acceleration", 0.0), (std::vector<double>{0, 0, -9.81}));
  EXPECT_EQ(paramValueAt(s, "gravity", "acceleration", 1.0), (std::vector<double>{0, 0, -1}));
  EXPECT_TRUE(paramValueAt(s, "ball", "stiffness", 0.0).empty());
  EXPECT_TRUE(paramValueAt(s, "nothing", "tau", 0.0).empty());
}

TEST(Validate, EventsMustFitTheirTargets) {
  expectErrors({
      {"time negative", [](Scene& s) { s.events[2].time = -1; }, "events[2].time: must be >= 0"},
      {"time NaN", [](Scene& s) { s.events[2].time = kNaN; }, "events[2].time: must be >= 0"},
      {"time 2e9", [](Scene& s) { s.events[2].time = 2e9; }, "events[2].time: must be between 0 and 1e+09 s (is 2e+09)"},
      {"value 2e12", [](Scene& s) { s.events[4].value = {2e12}; }, "events[4].value: must be between -1e+12 and 1e+12 (is 2e+12)"},
      {"no such target", [](Scene& s) { s.events[3].target = "ghost"; },
       "events[3].target: no body, force, constraint or path named \"ghost\""},
      // gravity
      {"create gravity", [](Scene& s) { s.events[7].action = EventAction::Create; },
       "events[7].action: gravity can be enabled, disabled or set, not created or removed"},
      {"remove gravity", [](Scene& s) { s.events[7].action = EventAction::Remove; },
       "events[7].action: gravity can be enabled, disabled or set, not created or removed"},
      {"gravity's unknown parameter", [](Scene& s) { s.events[8].param = "strength"; },
       "events[8].param: gravity has one parameter: \"acceleration\""},
      {"gravity set to a number", [](Scene& s) { s.events[8].value = {9.81}; }, "events[8].value: must be an array of 3 numbers"},
      // create and remove: bodies only
      {"create a constraint", [](Scene& s) { s.events[0].target = "joint"; }, "events[0].action: create applies to bodies only"},
      {"remove a nail", [](Scene& s) { s.events[1].target = "n1"; }, "events[1].action: remove applies to bodies only"},
      // enable and disable: forces, constraints (and gravity)
      {"enable a body", [](Scene& s) { s.events[3].target = "ball"; },
       "events[3].action: enable applies to forces, constraints and gravity"},
      {"disable a path", [](Scene& s) { s.events[2].target = "circle"; },
       "events[2].action: disable applies to forces, constraints and gravity"},
      // set: a path's speed
      {"a path's unknown parameter", [](Scene& s) { s.events[6].param = "tau"; }, "events[6].param: a path has one parameter: \"speed\""},
      {"a path's speed as a vector", [](Scene& s) { s.events[6].value = {1, 2, 3}; }, "events[6].value: must be a number"},
      {"a path's speed negative", [](Scene& s) { s.events[6].value = {-0.5}; }, "events[6].value: speed must be >= 0"},
      // set: a constraint's tau
      {"a constraint's unknown parameter", [](Scene& s) { s.events[5].param = "stiffness"; },
       "events[5].param: a constraint has one parameter: \"tau\""},
      {"a constraint's tau missing", [](Scene& s) { s.events[5].value.clear(); }, "events[5].value: must be a number"},
      {"a constraint's tau 0", [](Scene& s) { s.events[5].value = {0.0}; }, "events[5].value: tau must be > 0"},
      {"a constraint's tau 1e-10", [](Scene& s) { s.events[5].value = {1e-10}; },
       "events[5].value: must be between 1e-09 and 1e+09 s (is 1e-10)"},
      // set: a force's parameters (settableParams)
      {"a spring's unknown parameter", [](Scene& s) { s.events[4].param = "length"; },
       "events[4].param: a spring has no parameter \"length\" (it has: stiffness, damping, rest_length)"},
      {"a spring's stiffness negative", [](Scene& s) { s.events[4].value = {-1.0}; }, "events[4].value: must be >= 0"},
      {"a spring's stiffness as a vector", [](Scene& s) { s.events[4].value = {1, 2, 3}; }, "events[4].value: must be a number"},
      {"a constant force as a number", [](Scene& s) { s.events[9].value = {1.0}; }, "events[9].value: must be an array of 3 numbers"},
      {"a constant force negative (fine: a direction)", [](Scene& s) { s.events[9].value = {-1.0, -2.0, 0.0}; }, "(no error)"},
      // set: nothing else
      {"set a body's stiffness", [](Scene& s) { s.events[4].target = "ball"; },
       "events[4].param: a body has no parameter \"stiffness\" (it has: collides, restitution, friction, static_friction, rolling_resistance)"},
      {"set a body's friction past 10", [](Scene& s) { s.events[4].target = "ball"; s.events[4].param = "friction"; },
       "events[4].value: must be between 0 and 10 (Coulomb's coefficient: 0 slides freely) (is 30)"},
      {"set a nail", [](Scene& s) { s.events[4].target = "n2"; },
       "events[4].target: set applies to bodies, forces, constraints, paths and gravity"},
  });
}

// What "set" events may change per force kind, and every one of them is accepted on each force
// of everything() with a value of its size.
TEST(Validate, SettableParametersOfEachForceKind) {
  auto names = [](ForceKind k) {
    std::string out;
    for (const ParamSpec& p : settableParams(k)) out += std::string(out.empty() ? "" : " ") + p.name + "/" + std::to_string(p.size);
    return out;
  };
  EXPECT_EQ(names(ForceKind::Spring), "stiffness/1 damping/1 rest_length/1");
  EXPECT_EQ(names(ForceKind::Damping), "linear/1 angular/1");
  EXPECT_EQ(names(ForceKind::TorsionSpring), "stiffness/1 damping/1 rest_angle/1");
  EXPECT_EQ(names(ForceKind::ConstantForce), "force/3");
  EXPECT_EQ(names(ForceKind::ConstantTorque), "torque/3");
  const Scene base = everything();
  for (const ForceDef& f : base.forces)
    for (const ParamSpec& p : settableParams(f.kind)) {
      Scene s = base;
      s.events.push_back(event(1.0, EventAction::Set, f.name, p.name, std::vector<double>(size_t(p.size), 0.5)));
      EXPECT_EQ(errorOf(s), "(no error)") << f.name << "." << p.name;
    }
}

// (moved from scene_io_test.cpp, as scene edits instead of file text: every message is
// validate.cpp's)
// Values whose derived quantities leave what a double or the solver can handle (validate.h, Limits).
TEST(Validate, AbsurdValuesAreRefusedWithTheirRange) {
  expectErrors({
      {"tiny box", [](Scene& s) { s.bodies[3].size.x() = 1e-300; }, "bodies[3].size[0]: must be between 1e-09 and 1e+09 m (is 1e-300)"},
      {"huge rod", [](Scene& s) { s.bodies[0].length = 1e12; }, "bodies[0].length: must be between 1e-09 and 1e+09 m (is 1e+12)"},
      {"density 1e-300", [](Scene& s) { s.bodies[1].density = 1e-300; },
       "bodies[1].density: must be between 1e-09 and 1e+12 kg/m^3 (is 1e-300)"},
      {"far away", [](Scene& s) { s.bodies[1].position.x() = 1e300; },
       "bodies[1].position[0]: must be between -1e+09 and 1e+09 m (is 1e+300)"},
      {"spinning absurdly", [](Scene& s) { s.bodies[1].angularVelocity.z() = 1e12; },
       "bodies[1].angular_velocity[2]: must be between -1e+09 and 1e+09 rad/s (is 1e+12)"},
      {"tau 1e-300", [](Scene& s) { s.constraints[0].tau = 1e-300; }, "constraints[0].tau: must be between 1e-09 and 1e+09 s (is 1e-300)"},
      {"dt 1e-12", [](Scene& s) { s.settings.dt = 1e-12; }, "settings.dt: must be between 1e-09 and 10 s (is 1e-12)"},
      {"dt 1e300", [](Scene& s) { s.settings.dt = 1e300; }, "settings.dt: must be between 1e-09 and 10 s (is 1e+300)"},
      {"rk45 tolerance 1e-300", [](Scene& s) { s.settings.tolerance = 1e-300; }, "settings.tolerance: must be between 1e-14 and 1..."},
      {"duration 1e6 at 1 ms", [](Scene& s) { s.settings.duration = 1e6; },
       "settings.duration: 1e+06 s at dt = 0.001 s is 1e+09 steps, more than the 1e+08 one run may take..."},
      {"duration 1e300", [](Scene& s) { s.settings.duration = 1e300; },
       "settings.duration: must be between 1e-09 and 1e+09 s (is 1e+300)"},
      {"gravity of a neutron star", [](Scene& s) { s.settings.gravity.z() = -1e12; },
       "settings.gravity[2]: must be between -1e+06 and 1e+06 m/s^2 (is -1e+12)"},
      {"nail far away", [](Scene& s) { s.nails[0].position.x() = 1e15; },
       "nails[0].position[0]: must be between -1e+09 and 1e+09 m (is 1e+15)"},
      {"direction whose norm overflows", [](Scene& s) { def<PointOnLineDef>(s.constraints[4]).direction = Vec3(1e200, 1e200, 0); },
       "constraints[4].direction[0]: must be between -1e+09 and 1e+09 (is 1e+200)"},
      {"local point far out, named as in the file", [](Scene& s) { def<PointToNailDef>(s.constraints[0]).point = localRef("rod", Vec3(0, 0, 1e300)); },
       "constraints[0].point.local[2]: must be between -1e+09 and 1e+09 m (is 1e+300)"},
      {"gravity set by an event", [](Scene& s) { s.events[8].value = {0, 0, -2e6}; },
       "events[8].value[2]: must be between -1e+06 and 1e+06 m/s^2 (is -2e+06)"},
  });
}

// (moved from scene_io_test.cpp, as a scene edit)
// A body joined by more constraints than the solver can take in reasonable time (validate.h).
// Every constraint counts, disabled ones too; a fixed body takes any number.
TEST(Validate, AHubWithTooManyConstraintsIsRefusedWithTheReason) {
  Scene s = everything();  // "ball" has two already: ride and touch
  for (int i = 0; i < 399; ++i) {
    ConstraintDef c = test::pointToNail("c" + std::to_string(i), pt("ball", "center"), "n1");
    c.enabled = i % 2 == 0;
    s.constraints.push_back(c);
  }
  EXPECT_EQ(errorOf(s),
            "bodies[1]: body \"ball\" is joined by 401 constraints, more than the 400 one moving body may take: "
            "constraints that share a body couple pairwise, so the solver's work grows with the cube of their number; "
            "join the parts through intermediate bodies, or make the body fixed");
  s.constraints.pop_back();
  EXPECT_EQ(errorOf(s), "(no error)");
  s.constraints.push_back(test::pointToNail("last", pt("ball", "center"), "n1"));
  s.bodies[1].fixed = true;
  EXPECT_EQ(errorOf(s), "(no error)");
}

// Each range admits its bound and refuses the value just past it (validate.h, Limits).
TEST(Validate, EachRangeAdmitsItsBoundAndRefusesJustPastIt) {
  struct Edge {
    const char* place;
    std::function<void(Scene&, double)> set;
    double inside, outside;
  };
  const double pi = M_PI;
  const std::vector<Edge> edges = {
      {"settings.dt", [](Scene& s, double v) { s.settings.dt = v; }, 10.0, 10.000001},
      {"settings.dt", [](Scene& s, double v) { s.settings.dt = v; s.settings.duration = 1e-3; }, 1e-9, 0.999e-9},
      {"settings.default_tau", [](Scene& s, double v) { s.settings.defaultTau = v; }, 1e9, 1.000001e9},
      {"settings.tolerance", [](Scene& s, double v) { s.settings.tolerance = v; }, 1e-14, 0.999e-14},
      {"settings.projection_tolerance", [](Scene& s, double v) { s.settings.projectionTolerance = v; }, 1.0, 1.000001},
      {"settings.duration", [](Scene& s, double v) { s.settings.dt = 0.5; s.settings.duration = v; }, 5e7, 5.0000001e7},
      {"settings.assembly_time", [](Scene& s, double v) { s.settings.assemblyTime = v; }, 0.0, -1e-300},
      {"settings.gravity[0]", [](Scene& s, double v) { s.settings.gravity.x() = v; }, -1e6, -1.000001e6},
      {"settings.baumgarte_beta", [](Scene& s, double v) { s.settings.baumgarteBeta = v; }, 1e6, 1.000001e6},
      {"settings.solver_iterations", [](Scene& s, double v) { s.settings.solverIterations = int(v); }, 100000, 100001},
      {"settings.max_substeps", [](Scene& s, double v) { s.settings.maxSubsteps = int(v); }, 4096, 4097},
      {"bodies[1].density", [](Scene& s, double v) { s.bodies[1].density = v; }, 1e12, 1.000001e12},
      {"bodies[1].radius", [](Scene& s, double v) { s.bodies[1].radius = v; }, 1e-9, 0.999e-9},
      {"bodies[1].position[2]", [](Scene& s, double v) { s.bodies[1].position.z() = v; }, 1e9, 1.000001e9},
      {"bodies[1].orientation",
       [](Scene& s, double v) { s.bodies[1].orientation = Quat(v, 0, 0, 0); }, 1.0 + 0.9e-6, 1.0 + 1.1e-6},
      {"paths[1].phase", [](Scene& s, double v) { s.paths[1].phase = v; }, -1e6, -1.000001e6},
      {"paths[2].keyframes[1].t", [](Scene& s, double v) { s.paths[2].keyframes[1].t = v; }, 1e-9, 0.99e-9},
      {"forces[2].rest_angle", [](Scene& s, double v) { s.forces[2].restAngle = v; }, pi, std::nextafter(pi, 4.0)},
      {"forces[0].stiffness", [](Scene& s, double v) { s.forces[0].stiffness = v; }, 0.0, -1e-300},
      {"constraints[2].tau", [](Scene& s, double v) { s.constraints[2].tau = v; }, 1e-9, 0.999e-9},
      {"events[0].time", [](Scene& s, double v) { s.events[0].time = v; }, 1e9, 1.000001e9},
      {"events[0].time", [](Scene& s, double v) { s.events[0].time = v; }, 0.0, -1e-300},
      {"events[6].value", [](Scene& s, double v) { s.events[6].value = {v}; }, 0.0, -1e-300},
      {"events[4].value", [](Scene& s, double v) { s.events[4].value = {v}; }, 0.0, -1e-300},
  };
  for (const Edge& e : edges) {
    Scene in = everything(), out = everything();
    e.set(in, e.inside);
    e.set(out, e.outside);
    EXPECT_EQ(errorOf(in), "(no error)") << e.place << " = " << e.inside;
    const std::string got = errorOf(out);
    EXPECT_EQ(got.substr(0, std::string(e.place).size() + 2), std::string(e.place) + ": ") << e.place << " = " << e.outside << ": " << got;
  }
}

// checkStepCount, which the CLI's --until uses too, names the place it is given.
TEST(Validate, StepCountIsLimitedAtTheNamedPlace) {
  EXPECT_NO_THROW(checkStepCount(5e7, 0.5, "until"));  // 1e8 steps exactly
  try {
    checkStepCount(2.0, 1e-8, "until");
    FAIL() << "2e8 steps accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "until: 2 s at dt = 1e-08 s is 2e+08 steps, more than the 1e+08 one run may take; shorten it or raise dt");
  }
}

}  // namespace
}  // namespace tether::core
