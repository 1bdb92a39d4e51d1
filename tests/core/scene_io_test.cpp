// Scene files: round trips, and one clear message naming the place for every malformed file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/constraints/distance.h"
#include "core/scene_io.h"

namespace tether::core {
namespace {

std::string errorOf(const std::string& text) {
  try {
    sceneFromJson(text);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "(no error)";
}

// A valid scene to break in controlled ways.
const char* kBase = R"({
  "format": "tether-scene", "version": 1,
  "settings": {"dt": 0.001},
  "bodies": [
    {"name": "rod1", "type": "rod", "length": 1, "radius": 0.02},
    {"name": "ball", "type": "sphere", "radius": 0.1, "position": [1, 0, 0]}
  ],
  "nails": [{"name": "n1", "position": [0, 0, 0]}],
  "constraints": [{"name": "c1", "type": "point_to_nail", "point": "rod1.end1", "nail": "n1"}]
})";

std::string replaced(const std::string& from, const std::string& to) {
  std::string s = kBase;
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(SceneIo, BaseSceneIsValid) { EXPECT_EQ(errorOf(kBase), "(no error)"); }

struct Malformed {
  const char* what;
  std::string text;
  const char* message;
};

void expectMessages(const std::vector<Malformed>& cases) {
  for (const Malformed& c : cases) {
    const std::string got = errorOf(c.text);
    EXPECT_NE(got.find(c.message), std::string::npos) << c.what << ": expected \"" << c.message << "\"\n got \"" << got << "\"";
  }
}

TEST(SceneIo, MalformedFilesGetSpecificMessages) {
  const std::vector<Malformed> cases = {
      {"not json", "{ \"format\": ", "not valid JSON at line 1"},
      {"array at top", "[1, 2]", "(top level): must be a JSON object"},
      {"wrong format", replaced("tether-scene", "other"), "format: must be \"tether-scene\""},
      {"future version", replaced("\"version\": 1", "\"version\": 7"), "version: unsupported version 7"},
      {"unknown top key", replaced("\"settings\"", "\"setings\""), "setings: unknown key"},
      {"nails not array", replaced("\"nails\": [{\"name\": \"n1\", \"position\": [0, 0, 0]}]", "\"nails\": {\"name\": \"n1\"}"),
       "nails: must be an array"},
      {"zero length", replaced("\"length\": 1", "\"length\": 0"), "bodies[0].length: must be > 0 (is 0)"},
      {"negative radius", replaced("\"radius\": 0.1", "\"radius\": -0.1"), "bodies[1].radius: must be > 0"},
      {"unknown shape", replaced("\"type\": \"sphere\"", "\"type\": \"cone\""),
       "bodies[1].type: unknown value \"cone\" (expected one of: rod, sphere, torus, box)"},
      {"missing name", replaced("\"name\": \"ball\", ", ""), "bodies[1].name: is required"},
      {"duplicate name", replaced("\"name\": \"ball\"", "\"name\": \"rod1\""),
       "bodies[1].name: duplicate name \"rod1\""},
      {"short vector", replaced("\"position\": [1, 0, 0]", "\"position\": [1, 0]"),
       "bodies[1].position: must be an array of 3 numbers"},
      {"string in vector", replaced("\"position\": [1, 0, 0]", "\"position\": [1, \"a\", 0]"),
       "bodies[1].position[1]: must be a number"},
      {"infinite number", replaced("\"length\": 1", "\"length\": 1e999"), "not valid JSON at line 5, column 47: the number 1e999 is too large for a double"},
      {"non-unit quaternion", replaced("\"position\": [1, 0, 0]", "\"orientation\": [1, 1, 0, 0]"),
       "bodies[1].orientation: must be a unit quaternion (its norm is 1.41421)"},
      {"unknown body", replaced("\"point\": \"rod1.end1\"", "\"point\": \"rod9.end1\""),
       "constraints[0].point: no body named \"rod9\""},
      {"unknown control point", replaced("rod1.end1", "rod1.tip"),
       "constraints[0].point: body \"rod1\" has no control point \"tip\" (it has: center, end1, end2)"},
      {"unknown nail", replaced("\"nail\": \"n1\"", "\"nail\": \"n2\""), "constraints[0].nail: no nail named \"n2\""},
      {"nail is a body", replaced("\"nail\": \"n1\"", "\"nail\": \"ball\""),
       "constraints[0].nail: \"ball\" is a body, not a nail"},
      {"bad point syntax", replaced("\"point\": \"rod1.end1\"", "\"point\": \"rod1\""),
       "constraints[0].point: \"rod1\" is not a point"},
      {"negative tau", replaced("\"nail\": \"n1\"}", "\"nail\": \"n1\", \"tau\": -1}"),
       "constraints[0].tau: must be > 0 (is -1)"},
      {"unknown constraint type", replaced("point_to_nail", "point_to_moon"),
       "constraints[0].type: unknown value \"point_to_moon\""},
      {"zero dt", replaced("\"dt\": 0.001", "\"dt\": 0"), "settings.dt: must be > 0 (is 0)"},
      {"negative projection tolerance", replaced("\"dt\": 0.001", "\"projection_tolerance\": -1e-7"),
       "settings.projection_tolerance: must be > 0 (is -1e-07)"},
      {"unknown integrator", replaced("\"dt\": 0.001", "\"integrator\": \"verlet\""),
       "settings.integrator: unknown value \"verlet\" (expected one of: rk4, rk45, euler)"},
      {"misspelt body key", replaced("\"radius\": 0.02", "\"raduis\": 0.02"), "bodies[0].raduis: unknown key"},
      {"event without target object", replaced("\"constraints\": [", "\"events\": [{\"time\": 1, \"action\": \"disable\", \"target\": \"c9\"}], \"constraints\": ["),
       "events[0].target: no body, force, constraint or path named \"c9\""},
      {"event negative time", replaced("\"constraints\": [", "\"events\": [{\"time\": -1, \"action\": \"disable\", \"target\": \"c1\"}], \"constraints\": ["),
       "events[0].time: must be >= 0"},
      {"event unknown param", replaced("\"constraints\": [", "\"events\": [{\"time\": 1, \"action\": \"set\", \"target\": \"c1\", \"param\": \"stiffness\", \"value\": 2}], \"constraints\": ["),
       "events[0].param: a constraint has one parameter: \"tau\""},
      {"create a constraint", replaced("\"constraints\": [", "\"events\": [{\"time\": 1, \"action\": \"create\", \"target\": \"c1\"}], \"constraints\": ["),
       "events[0].action: create applies to bodies only"},
      {"spline keyframes out of order", replaced("\"nails\"", "\"paths\": [{\"name\": \"p\", \"type\": \"spline\", \"keyframes\": [{\"t\": 1, \"position\": [0,0,0]}, {\"t\": 0.5, \"position\": [1,0,0]}]}], \"nails\""),
       "paths[0].keyframes[1].t: keyframe times must increase strictly"},
      {"sphere_to_sphere on a rod", replaced("{\"name\": \"c1\", \"type\": \"point_to_nail\", \"point\": \"rod1.end1\", \"nail\": \"n1\"}", "{\"name\": \"c1\", \"type\": \"sphere_to_sphere\", \"body_a\": \"rod1\", \"body_b\": \"ball\"}"),
       "constraints[0].body_a: \"rod1\" is not a sphere"},
      {"orientation zero axis", replaced("{\"name\": \"c1\", \"type\": \"point_to_nail\", \"point\": \"rod1.end1\", \"nail\": \"n1\"}", "{\"name\": \"c1\", \"type\": \"orientation\", \"body\": \"rod1\", \"axis\": [0,0,0], \"direction\": [0,0,1]}"),
       "constraints[0].axis: must not be the zero vector"},
      {"torus tube too fat", replaced("\"type\": \"sphere\", \"radius\": 0.1", "\"type\": \"torus\", \"major_radius\": 0.1, \"minor_radius\": 0.2"),
       "bodies[1].minor_radius: must be smaller than major_radius"},
      {"point-to-point on one body", replaced("{\"name\": \"c1\", \"type\": \"point_to_nail\", \"point\": \"rod1.end1\", \"nail\": \"n1\"}", "{\"name\": \"c1\", \"type\": \"point_to_point\", \"a\": \"rod1.end1\", \"b\": \"rod1.end2\"}"),
       "constraints[0].b: is on the same body as a (\"rod1\")"},
      {"name with a dot", replaced("\"name\": \"ball\"", "\"name\": \"ba.ll\""), "bodies[1].name: must not contain '.' or ':'"},
      {"spring missing stiffness", replaced("\"nails\"", "\"forces\": [{\"name\": \"s\", \"type\": \"spring\", \"a\": \"rod1.end2\", \"b\": \"ball.center\"}], \"nails\""),
       "forces[0].stiffness: is required"},
      {"damping on unknown body", replaced("\"nails\"", "\"forces\": [{\"name\": \"d\", \"type\": \"damping\", \"bodies\": [\"ghost\"], \"linear\": 1}], \"nails\""),
       "forces[0].bodies[0]: no body named \"ghost\""},
  };
  ASSERT_GE(cases.size(), 20u);
  expectMessages(cases);
}

TEST(SceneIo, RoundTripOfEveryExampleIsLossless) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TETHER_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++n;
    const Scene a = loadScene(entry.path().string());
    const std::string text = sceneToJson(a);
    const Scene b = sceneFromJson(text);
    EXPECT_EQ(sceneToJson(b), text) << entry.path();
  }
  EXPECT_GE(n, 8);
}

TEST(SceneIo, RoundTripKeepsEveryField) {
  // a scene that uses every kind of object and optional field
  const char* text = R"({
    "format": "tether-scene", "version": 1,
    "settings": {"gravity": [0.1, 0.2, -9.7], "gravity_on": false, "dt": 0.002, "integrator": "rk45",
                 "default_tau": 0.3, "tolerance": 1e-7, "duration": 3.5, "assembly_time": 1.25,
                 "projection_tolerance": 2.5e-9},
    "bodies": [
      {"name": "r", "type": "rod", "length": 1.5, "radius": 0.03, "density": 700, "fixed": true,
       "position": [1, 2, 3], "orientation": {"axis": [1, 1, 0], "angle_deg": 33},
       "velocity": [0.1, 0, 0], "angular_velocity": [0, 0.2, 0], "points": {"tip": [0, 0.01, 0.7]}},
      {"name": "t", "type": "torus", "major_radius": 0.3, "minor_radius": 0.05, "active": false},
      {"name": "b", "type": "box", "size": [0.1, 0.2, 0.3]},
      {"name": "s", "type": "sphere", "radius": 0.2},
      {"name": "s2", "type": "sphere", "radius": 0.1}
    ],
    "nails": [{"name": "n", "position": [0, 0, 1]}],
    "paths": [
      {"name": "l", "type": "line", "start": [0, 0, 0], "velocity": [1, 0, 0]},
      {"name": "c", "type": "circle", "center": [0, 0, 1], "normal": [0, 0, 1], "u": [1, 0, 0], "radius": 2, "period": -3, "phase": 0.5},
      {"name": "k", "type": "spline", "keyframes": [{"t": 0, "position": [0, 0, 0]}, {"t": 1, "position": [1, 1, 0]}, {"t": 2.5, "position": [0, 2, 1]}]}
    ],
    "forces": [
      {"name": "f1", "type": "spring", "a": "b.corner3", "b": {"body": "s", "local": [0, 0, 0.2]}, "stiffness": 5, "damping": 0.5, "rest_length": 0.2},
      {"name": "f2", "type": "damping", "bodies": ["b"], "linear": 0.1, "angular": 0.01, "enabled": false},
      {"name": "f3", "type": "torsion_spring", "body_a": "t", "axis_a": [0, 0, 1], "body_b": "b", "axis_b": [1, 0, 0], "stiffness": 2, "damping": 0.1, "rest_angle": 1.5707963267948966},
      {"name": "f4", "type": "constant_force", "point": "r.tip", "force": [0, 0, 1]},
      {"name": "f5", "type": "constant_torque", "body": "b", "torque": [0, 1, 0]}
    ],
    "constraints": [
      {"name": "c1", "type": "point_to_nail", "point": "b.top", "nail": "n", "tau": 0.2},
      {"name": "c2", "type": "point_to_point", "a": "b.bottom", "b": "t.east", "enabled": false},
      {"name": "c3", "type": "point_to_path", "point": "s.center", "path": "c"},
      {"name": "c4", "type": "orientation", "body": "b", "axis": [0, 0, 1], "direction": [0, 1, 1]},
      {"name": "c5", "type": "point_on_line", "point": "s.top", "origin": [0, 0, 0], "direction": [1, 1, 1]},
      {"name": "c6", "type": "point_on_plane", "point": "b.corner0", "origin": [0, 0, 0], "normal": [0, 0, 1]},
      {"name": "c7", "type": "sphere_to_sphere", "body_a": "s", "body_b": "s2"},
      {"name": "c8", "type": "distance", "a": "nail:n", "b": "s2.center", "length": 0.7},
      {"name": "c9", "type": "scalar_point_to_nail", "point": "t.west", "nail": "n"}
    ],
    "events": [
      {"time": 0.5, "action": "create", "target": "t"},
      {"time": 1, "action": "disable", "target": "c1"},
      {"time": 1, "action": "set", "target": "f1", "param": "stiffness", "value": 7},
      {"time": 2, "action": "set", "target": "gravity", "param": "acceleration", "value": [0, 0, -1]},
      {"time": 2, "action": "set", "target": "c3", "param": "tau", "value": 0.05},
      {"time": 3, "action": "remove", "target": "s2"}
    ]
  })";
  const Scene a = sceneFromJson(text);
  const std::string once = sceneToJson(a);
  const Scene b = sceneFromJson(once);
  EXPECT_EQ(sceneToJson(b), once);
  EXPECT_EQ(b.bodies[0].points.size(), 1u);
  EXPECT_EQ(b.settings.integrator, IntegratorKind::RK45);
  ASSERT_TRUE(b.settings.assemblyTime.has_value());
  EXPECT_EQ(*b.settings.assemblyTime, 1.25);
  EXPECT_EQ(b.settings.projectionTolerance, 2.5e-9);
  EXPECT_FALSE(b.bodies[1].active);
  EXPECT_EQ(b.forces[0].b.kind, PointRef::Kind::BodyLocal);
  EXPECT_EQ(b.constraints[7].params.as<DistanceDef>().a.kind, PointRef::Kind::Nail);
  EXPECT_EQ(b.events.size(), 6u);
  EXPECT_EQ(b.events[3].value.size(), 3u);
  // the quaternion written by the first save is read back bit for bit
  EXPECT_EQ(a.bodies[0].orientation.coeffs(), b.bodies[0].orientation.coeffs());
}

TEST(SceneIo, FailedSaveLeavesTheOldFileIntact) {
  const std::string dir = std::filesystem::temp_directory_path() / "tether_save_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/scene.json";
  const Scene s = sceneFromJson(kBase);
  saveScene(s, path);
  const Scene back = loadScene(path);
  EXPECT_EQ(sceneToJson(back), sceneToJson(s));
  // saving into a directory that does not exist fails with a message and touches nothing
  EXPECT_THROW(saveScene(s, dir + "/missing/scene.json"), SceneError);
  EXPECT_EQ(sceneToJson(loadScene(path)), sceneToJson(s));
  std::filesystem::remove_all(dir);
}

// What plain json::parse let through (issue 17): each now an error naming the place.
TEST(SceneIo, StrictJsonNamesLineAndColumn) {
  const std::string nul = replaced("\"nails\"", std::string("\"nails\"\0 trailing", 17));
  const std::vector<Malformed> cases = {
      {"key twice", replaced("\"settings\": {\"dt\": 0.001}", "\"settings\": {\"dt\": 0.001, \"dt\": 0.002}"),
       "not valid JSON at line 3, column 29: the key \"dt\" is given twice in one object"},
      {"NUL byte", nul, "not valid JSON at line 8, column 10: a NUL byte"},
      {"underflow", replaced("\"dt\": 0.001", "\"dt\": 1e-400"),
       "not valid JSON at line 3, column 22: the number 1e-400 is too small for a double (it would read as 0)"},
      {"overflow", replaced("\"dt\": 0.001", "\"dt\": -1e400"), "not valid JSON at line 3, column 22: the number -1e400 is too large"},
      {"trailing garbage", std::string(kBase) + "\n}", "not valid JSON at line 11, column 1: syntax error while parsing value - unexpected '}'; expected end of input"},
      {"wrapping integer", replaced("\"dt\": 0.001", "\"dt\": 0.001, \"solver_iterations\": 4294967326"),
       "settings.solver_iterations: must be in 1..100000 (is 4294967326)"},
      {"negative integer", replaced("\"dt\": 0.001", "\"dt\": 0.001, \"max_substeps\": -5"),
       "settings.max_substeps: must be in 1..4096 (is -5)"},
      {"empty key", replaced("\"dt\": 0.001", "\"dt\": 0.001, \"\": 1"), "settings: an empty key \"\""},
      {"unknown key lists the known ones", replaced("\"dt\": 0.001", "\"dt\": 0.001, \"dtt\": 1"),
       "settings.dtt: unknown key (a typo? known here:"},
      {"name with a newline", replaced("\"name\": \"ball\"", "\"name\": \"ba\\nll\""),
       "bodies[1].name: must not contain control characters"},
      {"name with a NUL", replaced("\"name\": \"ball\"", "\"name\": \"ba\\u0000ll\""),
       "bodies[1].name: must not contain control characters"},
  };
  expectMessages(cases);
}

// Saving as a careful editor does: symlinks followed, mode kept, hard links kept.
TEST(SceneIo, SaveKeepsSymlinksModeAndHardLinks) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tether_save_links_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "real");
  const Scene a = sceneFromJson(kBase);
  Scene b = a;
  b.bodies[1].radius = 0.25;
  const fs::path file = dir / "real" / "scene.json", link = dir / "link.json", hard = dir / "hard.json";
  saveScene(a, file.string());
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);  // 0600
  fs::create_symlink(file, link);
  saveScene(b, link.string());
  EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced by a regular file";
  EXPECT_EQ(sceneToJson(loadScene(file.string())), sceneToJson(b)) << "the file the link points to was not replaced";
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_FALSE(fs::exists(file.string() + ".tmp-save"));

  fs::create_hard_link(file, hard);
  saveScene(a, hard.string());
  EXPECT_EQ(fs::hard_link_count(file), 2u);
  EXPECT_EQ(sceneToJson(loadScene(file.string())), sceneToJson(a)) << "the other hard link did not see the save";
  EXPECT_EQ(fs::status(hard).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_FALSE(fs::exists(hard.string() + ".tether-old"));
  fs::remove_all(dir);
}

TEST(SceneIo, MissingFileIsNamed) {
  try {
    loadScene("/nonexistent/x.json");
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/x.json: cannot open file");
  }
}

}  // namespace
}  // namespace tether::core
