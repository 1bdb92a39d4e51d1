// tether-cli as a user runs it: output, CSV format, exit codes 0 / 2 / 3.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

struct Result {
  int code = -1;
  std::string out;  // stdout and stderr
};

// a shell command line's output and exit code
Result shell(const std::string& line) {
  Result r;
  const std::string cmd = line + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

Result cli(const std::string& args) { return shell(std::string(TETHER_CLI) + " " + args); }

std::string example(const char* name) { return std::string(TETHER_EXAMPLES_DIR) + "/" + name + ".json"; }

std::string tempFile(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(Cli, RunPrintsASummary) {
  const Result r = cli("run " + example("compound_pendulum") + " --until 2");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* s : {"steps: 2000", "final time: 2 s", "energy: start", "energy range: lowest", "pin", "joint",
                        "max |D| after assembly"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

// A constraint switched off and on again shortly before the end is measured from its first
// assembly: the summary names that time, not the second one (which lies past the end).
TEST(Cli, RunSummaryMeasuresAReEnabledConstraintFromItsFirstAssembly) {
  const std::string path = tempFile("tether_reenabled.json", R"({"format": "tether-scene", "version": 1,
    "settings": {"default_tau": 0.05},
    "bodies": [{"name": "ball", "type": "sphere", "radius": 0.1, "position": [0, 0, 1]}],
    "nails": [{"name": "n", "position": [0, 0, 1]}],
    "constraints": [{"name": "hold", "type": "point_to_nail", "point": "ball.center", "nail": "n"}],
    "events": [{"time": 1, "action": "disable", "target": "hold"}, {"time": 1.9, "action": "enable", "target": "hold"}]})");
  const Result r = cli("run " + path + " --until 2 --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("(from t = 0.75 s)"), std::string::npos) << r.out;
  std::filesystem::remove(path);
}

// run says what check would, with a drive followed to --until rather than the scene's duration:
// the bar's end (0.36 m from the nail, its reach 0.1 to 0.5 m) is drawn along a line at 0.05 m/s
// and leaves the reach where (0.3 + 0.05 t)^2 + 0.2^2 = 0.5^2, at t = 3.17 s: past a 1 s run,
// within a 4 s one.
TEST(Cli, RunWarnsOfADriveOutOfReachWithinItsUntil) {
  const std::string path = tempFile("tether_reach.json", R"({"format": "tether-scene", "version": 1,
    "settings": {"gravity_on": false, "duration": 1},
    "bodies": [{"name": "rod1", "type": "rod", "ends": [[0, 0, 1], [0.3, 0, 1]], "radius": 0.01},
               {"name": "rod2", "type": "rod", "ends": [[0.3, 0, 1], [0.3, 0.2, 1]], "radius": 0.01}],
    "nails": [{"name": "pivot", "position": [0, 0, 1]}],
    "paths": [{"name": "pull", "type": "line", "start": [0.3, 0.2, 1], "velocity": [0.05, 0, 0]}],
    "constraints": [{"name": "pin", "type": "point_to_nail", "point": "rod1.end1", "nail": "pivot"},
                    {"name": "knee", "type": "point_to_point", "a": "rod1.end2", "b": "rod2.end1"},
                    {"name": "drv", "type": "point_to_path", "point": "rod2.end2", "path": "pull"}]})");
  const std::string said = "tether-cli: warning: constraints[2].path: constraint \"drv\" drives a point of \"rod2\" along "
                           "path \"pull\" out of reach at t = 3.17 s";
  EXPECT_EQ(cli("run " + path + " --quiet").out.find(said), std::string::npos);
  EXPECT_EQ(cli("check " + path).out.find("out of reach"), std::string::npos);
  const Result r = cli("run " + path + " --until 4 --quiet");
  EXPECT_NE(r.out.find(said), std::string::npos) << r.out;
  std::filesystem::remove(path);
}

TEST(Cli, CsvHasOneRowPerBodyPerWrittenStep) {
  const std::string csv = (std::filesystem::temp_directory_path() / "tether_cli_test.csv").string();
  const Result r = cli("run " + example("compound_pendulum") + " --until 0.1 --dt 0.01 --integrator rk45 --csv " + csv +
                       " --every 2");
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz");
  int rows = 0;
  std::string last;
  while (std::getline(in, line)) {
    ++rows;
    last = line;
  }
  EXPECT_EQ(rows, 2 * 6);  // t = 0, 0.02, 0.04, 0.06, 0.08, 0.1; two bodies
  EXPECT_EQ(last.rfind("0.1,lower,", 0), 0u) << last;
  std::filesystem::remove(csv);
}

TEST(Cli, CheckReportsTheConstraintSystem) {
  const Result r = cli("check " + example("compound_pendulum"));
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("constraint system at t = 0: 6 x 6, rank 6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conflicting constraints: none"), std::string::npos) << r.out;
}

// A scene whose only constraint comes on later (an event) has nothing to solve at the start:
// check says so instead of "auto: none, because ;".
TEST(Cli, CheckWithNothingActiveSaysSo) {
  const std::string path = tempFile("tether_nothing_active.json", R"({"format": "tether-scene", "version": 1,
    "bodies": [{"name": "ball", "type": "sphere", "radius": 0.1, "position": [0, 0, 1]}],
    "nails": [{"name": "n", "position": [0, 0, 2]}],
    "constraints": [{"name": "hang", "type": "point_to_nail", "point": "ball.center", "nail": "n", "enabled": false}]})");
  const Result r = cli("check " + path);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("solver: auto: nothing to solve at the start (no constraint active)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("because ;"), std::string::npos) << r.out;
  std::filesystem::remove(path);
}

TEST(Cli, CheckWarnsAboutTwoOrientationConstraintsOnOneBody) {
  const std::string path = tempFile("tether_two_orient.json", R"({"format": "tether-scene", "version": 1,
    "bodies": [{"name": "hub", "type": "box", "size": [1, 1, 1]}],
    "constraints": [
      {"name": "up", "type": "orientation", "body": "hub", "axis": [0, 0, 1], "direction": [0, 0, 1]},
      {"name": "east", "type": "orientation", "body": "hub", "axis": [1, 0, 0], "direction": [1, 0, 0]}]})");
  const Result r = cli("check " + path);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("warning: body \"hub\" has 2 orientation constraints"), std::string::npos) << r.out;
  EXPECT_EQ(cli("check " + example("space_station")).out.find("warning"), std::string::npos);
  std::filesystem::remove(path);
}

// Guard rails (core/stability.h): check prints a warning naming the place, the limit and the
// fix; run says the same on stderr and runs anyway.
TEST(Cli, CheckAndRunWarnAboutATauTheStepCannotFollow) {
  const std::string path = tempFile("tether_short_tau.json", R"({"format": "tether-scene", "version": 1,
    "settings": {"dt": 0.001, "integrator": "euler"},
    "bodies": [{"name": "rod", "type": "rod", "radius": 0.02, "ends": [[0.3, 0.2, 1.8], [1.3, 0.2, 1.9]]}],
    "nails": [{"name": "nail", "position": [0, 0, 2]}],
    "constraints": [{"name": "hang", "type": "point_to_nail", "point": "rod.end1", "nail": "nail", "tau": 0.0001}]})");
  Result r = cli("check " + path);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: constraints[0].tau: 0.0001 s of constraint \"hang\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("blow up; use a tau of at least 0.003 s"), std::string::npos) << r.out;
  // RK4 at a 10 times shorter step follows it: no warning
  r = cli("check " + path + " --integrator rk4 --dt 0.00001");
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  r = cli("run " + path + " --until 0.05");
  EXPECT_NE(r.out.find("tether-cli: warning: constraints[0].tau: 0.0001 s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("steps:"), std::string::npos) << r.out;  // it ran
  std::filesystem::remove(path);
}

// Contacts that cannot be met with the joints (a ball hung by its top so low that it reaches 5 cm
// into the floor: only a 60 degree turn about the nail lifts it out) are said in the summary: how
// many steps, from when to when, and the message naming the body.
TEST(Cli, RunSaysWhenContactsCannotBeMetWithTheJoints) {
  // a ball of radius 0.1 m hung by its top from a nail at height z, the ball just below it
  const auto hungBall = [](const std::string& name, const char* z, const char* centre) {
    return tempFile(name, std::string(R"({"format": "tether-scene", "version": 1, "settings": {"contacts": true},
      "bodies": [{"name": "ball", "type": "sphere", "radius": 0.1, "position": [0, 0, )") + centre + R"(]}],
      "nails": [{"name": "pin", "position": [0, 0, )" + z + R"(]}],
      "planes": [{"name": "floor", "point": [0, 0, 0], "normal": [0, 0, 1], "restitution": 0}],
      "constraints": [{"name": "hold", "type": "point_to_nail", "point": "ball.top", "nail": "pin"}]})");
  };
  const std::string low = hungBall("tether_hung_into_floor.json", "0.15", "0.05");
  Result r = cli("run " + low + " --until 0.5 --quiet");
  EXPECT_EQ(r.code, 0) << r.out;  // said, not a failure: the run goes on with the joints holding
  EXPECT_NE(r.out.find("CONTACTS NOT MET in 500 of 500 steps, from t = 0.001 s to 0.5 s: contacts of body \"ball\""),
            std::string::npos)
      << r.out;
  // the same ball hung above the floor: nothing said
  const std::string high = hungBall("tether_hung_above_floor.json", "0.3", "0.2");
  r = cli("run " + high + " --until 0.5 --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("steps: 500"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("CONTACTS"), std::string::npos) << r.out;
  std::filesystem::remove(low);
  std::filesystem::remove(high);
}

TEST(Cli, BadInputExitsWith2AndNamesTheProblem) {
  const std::string bad = tempFile("tether_bad.json", R"({"format": "tether-scene", "version": 1,
    "bodies": [{"name": "r", "type": "rod", "length": -1}]})");
  Result r = cli("run " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bodies[0].length: must be > 0"), std::string::npos) << r.out;
  r = cli("check /nonexistent/scene.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("cannot open file"), std::string::npos);
  r = cli("run " + example("pendulum") + " --integrator leapfrog");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--integrator: must be rk4, rk45 or euler"), std::string::npos);
  r = cli("run " + example("pendulum") + " --dt -1");
  EXPECT_EQ(r.code, 2);
  r = cli("run " + example("pendulum") + " --projection-tolerance 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--projection-tolerance: must be a number between 1e-12 and 1 (m)"), std::string::npos);
  r = cli("fly " + example("pendulum"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown command"), std::string::npos);
  std::filesystem::remove(bad);
}

// Issue 17: no silent no-op, no lost output reported as success, no hang without a word.
// runs tether-cli ARGS; expects the exit code and a message in its output
void expectExit(const std::string& args, int code, const std::string& message) {
  const Result r = cli(args);
  EXPECT_EQ(r.code, code) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << args << "\nexpected: " << message << "\n" << r.out;
}

TEST(Cli, RunsThatWouldTakeNoStepOrForeverAreRefused) {
  const std::string pendulum = example("pendulum");
  expectExit("run " + pendulum + " --until 1e-12", 2, "--until: must be a number between 1e-9 and 1e9 (s): a shorter run would take no step");
  expectExit("run " + pendulum + " --until 1e6", 2, "until: 1e+06 s at dt = 0.001 s is 1e+09 steps, more than the 1e+08 one run may take");
  expectExit("run " + pendulum + " --dt 1e-300", 2, "--dt: must be a number between 1e-9 and 10 (s)");
  expectExit("check /dev/zero", 2, "/dev/zero: not valid JSON at line 1, column 1: a NUL byte");
  expectExit("run " + pendulum + " --until nan", 2, "--until: must be a number (s)");
  expectExit("run " + pendulum + " --until 0x10", 2, "--until: must be a number (s)");
  expectExit("run " + pendulum + " --csv ''", 2, "--csv: needs a file name");
  expectExit("run " + pendulum + " --quiet 1", 2, "unexpected argument \"1\"");
  expectExit("run " + pendulum + " --foo", 2, "unknown option \"--foo\" for run");
  // --until is the run's length: the file's duration / dt (10 s / 1e-8 s) does not apply
  expectExit("run " + pendulum + " --dt 1e-8 --until 1e-5 --quiet", 0, "steps: 1000 ");
  // rk45 on a model too stiff for it (damping 1e11 1/s on 3.6e-13 kg links) would take 10^9
  // steps per output step: it stops and says so (it ran for ever before)
  expectExit("run " + std::string(TETHER_TEST_DATA_DIR) + "/fuzz-regressions/torus_density_1e-9.json --until 1 --integrator rk45",
             3, "rk45 crawls at t = ");
}

// --energy-csv: per written step the energy (as the summary counts it) and the largest |D|. A
// rod pinned at its end, let go from horizontal (rk4, undamped), keeps its energy, its pin holds,
// and the last row is the summary's end energy.
TEST(Cli, EnergyCsvHasOneRowPerWrittenStep) {
  const std::string scene = tempFile("tether_cli_energy.json", R"({"format": "tether-scene", "version": 1,
    "bodies": [{"name": "rod", "type": "rod", "ends": [[0, 0, 0], [0.8, 0.3, 0]]}],
    "nails": [{"name": "n", "position": [0, 0, 0]}],
    "constraints": [{"name": "pin", "type": "point_to_nail", "point": "rod.end1", "nail": "n"}]})");
  const std::string csv = (std::filesystem::temp_directory_path() / "tether_cli_energy.csv").string();
  const Result r = cli("run " + scene + " --until 1 --integrator rk4 --quiet --energy-csv " + csv + " --every 100");
  ASSERT_EQ(r.code, 0) << r.out;
  // (the energy's zero is the nail's height: gravity's energy is -m g . x)
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t,kinetic,gravity,springs,total,max_deviation");
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, ',');) v.push_back(std::stod(f));
    ASSERT_EQ(v.size(), 6u) << line;
    rows.push_back(v);
  }
  ASSERT_EQ(rows.size(), 11u);  // t = 0, 0.1, ..., 1
  EXPECT_DOUBLE_EQ(rows.back()[0], 1.0);
  const double swing = rows[5][1];  // J: kinetic, mid-swing
  EXPECT_GT(swing, 1.0);
  for (const auto& v : rows) {
    EXPECT_NEAR(v[1] + v[2] + v[3], v[4], 1e-9 * swing);
    EXPECT_NEAR(v[4], rows[0][4], 1e-6 * swing);
    EXPECT_LT(v[5], 1e-6);
  }
  const size_t end = r.out.find(", end ");
  ASSERT_NE(end, std::string::npos) << r.out;
  EXPECT_NEAR(std::stod(r.out.substr(end + 6)), rows.back()[4], 1e-8 * std::abs(rows.back()[4])) << r.out;
  // one file for both outputs is refused
  expectExit("run " + scene + " --until 0.01 --csv " + csv + " --energy-csv " + csv, 2,
             "--csv and --energy-csv name the same file");
  // so is one file not yet written, spelled two ways (equivalent() needs it to exist)
  const std::filesystem::path tmp = std::filesystem::temp_directory_path();
  const std::string fresh = (tmp / "tether_cli_not_yet.csv").string();
  std::filesystem::remove(fresh);
  expectExit("run " + scene + " --until 0.01 --csv " + fresh + " --energy-csv " + (tmp / "." / "tether_cli_not_yet.csv").string(),
             2, "--csv and --energy-csv name the same file");
  EXPECT_FALSE(std::filesystem::exists(fresh));
  std::filesystem::remove(csv);
  std::filesystem::remove(scene);
}

TEST(Cli, OutputThatCannotBeWrittenIsAnError) {
  expectExit("run " + example("pendulum") + " --until 1 --csv /dev/full", 4, "/dev/full: writing the CSV failed");
  expectExit("run " + example("pendulum") + " --until 1 --energy-csv /dev/full", 4,
             "/dev/full: writing the energy CSV failed");
  // (cli() sends stderr where stdout goes, so only the exit code can be seen here)
  EXPECT_EQ(cli("check " + example("pendulum") + " >/dev/full").code, 4);
  // --csv naming the scene itself would overwrite it: refused, the scene intact
  const std::string scene = (std::filesystem::temp_directory_path() / "tether_csv_self.json").string();
  std::filesystem::copy_file(example("pendulum"), scene, std::filesystem::copy_options::overwrite_existing);
  const auto before = std::filesystem::file_size(scene);
  expectExit("run " + scene + " --until 0.01 --csv " + scene, 2, "is the scene file itself: it would be overwritten");
  EXPECT_EQ(std::filesystem::file_size(scene), before);
  std::filesystem::remove(scene);
}

TEST(Cli, CsvQuotesNamesPerRfc4180) {
  std::ifstream in(example("pendulum"));
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  // rename the body "rod" to: a,"b"
  for (const char* from : {"\"name\": \"rod\"", "\"rod.end1\""}) {
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at + std::string(from).find("rod"), 3, "a,\\\"b\\\"");
  }
  const std::string scene = tempFile("tether_csv_names.json", text);
  const std::string csv = (std::filesystem::temp_directory_path() / "tether_csv_names.csv").string();
  const Result r = cli("run " + scene + " --until 0.002 --quiet --csv " + csv);
  ASSERT_EQ(r.code, 0) << r.out << text;
  std::ifstream rows(csv);
  std::string line;
  std::getline(rows, line);
  std::getline(rows, line);
  EXPECT_EQ(line.rfind("0,\"a,\"\"b\"\"\",0.", 0), 0u) << line;
  std::filesystem::remove(scene);
  std::filesystem::remove(csv);
}

TEST(Cli, InterruptEndsTheRunWithTheCsvSoFarAndASummary) {
  const std::string csv = (std::filesystem::temp_directory_path() / "tether_cli_interrupt.csv").string();
  // the shell sends SIGINT to the run after 1 s
  const Result r = cli("run " + example("card_house") + " --until 1000 --quiet --csv " + csv +
                       " & pid=$!; sleep 1; kill -INT $pid; wait $pid");
  EXPECT_EQ(r.code, 130) << r.out;
  EXPECT_NE(r.out.find("INTERRUPTED: interrupted at t = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("energy: start"), std::string::npos) << r.out;
  std::ifstream in(csv);
  std::string line, last;
  int rows = 0;
  while (std::getline(in, line)) ++rows, last = line;
  EXPECT_GT(rows, 10);
  EXPECT_EQ(std::count(last.begin(), last.end(), ','), 14) << "the last row was cut: " << last;
  std::filesystem::remove(csv);
}

// `timeout -s INT` signals the run and then its whole process group: two SIGINTs at once are one
// Ctrl+C: the summary is printed (a second one later still ends a step that takes too long).
TEST(Cli, TwoInterruptsAtOnceAreOneCtrlC) {
  const std::string run = "run " + example("card_house") + " --until 1000 --quiet";
  // (the second 50 ms after the first, which the run has handled by then: before, it ended the
  // process without a summary every time)
  const Result once = cli(run + " & pid=$!; sleep 1; kill -INT $pid; sleep 0.05; kill -INT $pid; wait $pid");
  EXPECT_EQ(once.code, 130) << once.out;
  EXPECT_NE(once.out.find("INTERRUPTED: interrupted at t = "), std::string::npos) << once.out;
  // (whether its second lands after the first was handled is a race: before, about half the
  // runs ended without a summary)
  for (int i = 0; i < 3; ++i) {
    const Result timedOut = shell("timeout -s INT 0.2 " + std::string(TETHER_CLI) + " " + run);
    EXPECT_EQ(timedOut.code, 124) << timedOut.out;  // timeout's own code when it sent the signal
    EXPECT_NE(timedOut.out.find("INTERRUPTED: interrupted at t = "), std::string::npos) << i << "\n" << timedOut.out;
  }
}

TEST(Cli, DivergenceExitsWith3) {
  const std::string stiff = tempFile("tether_stiff.json", R"({"format": "tether-scene", "version": 1,
    "settings": {"dt": 0.01, "integrator": "euler", "gravity_on": false},
    "bodies": [{"name": "ball", "type": "sphere", "radius": 0.01, "position": [1, 0, 0]},
               {"name": "other", "type": "sphere", "radius": 0.1, "position": [5, 0, 0]}],
    "nails": [{"name": "n", "position": [0, 0, 0]}, {"name": "far", "position": [5, 0, 1]}],
    "forces": [{"name": "s", "type": "spring", "a": "nail:n", "b": "ball.center", "stiffness": 1e12}],
    "constraints": [{"name": "slow", "type": "point_to_nail", "point": "other.center", "nail": "far", "tau": 50}]})");
  const Result r = cli("run " + stiff + " --until 100");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("diverged"), std::string::npos);
  // it blew up before its one constraint assembled: no deviation was measured, and the summary says so
  EXPECT_NE(r.out.find("slow  not assembled before the end"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max |D| after assembly: none measured (no constraint was assembled before the end)"),
            std::string::npos)
      << r.out;
  std::filesystem::remove(stiff);
}

}  // namespace
