// core/constraint_solvers.cpp: each solver path against the SVD reference (through
// ConstraintSystem's choice of path and each ConstraintSolver alone), the stabilization
// methods' error bounds, Hong et al.'s three-link bar, sequential impulses, and resumability.
#include <gtest/gtest.h>

#include <Eigen/SVD>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/bench_scenes.h"
#include "core/forces.h"
#include "core/integrator.h"
#include "core/scene_io.h"
#include "test_util.h"

namespace tether::core {
namespace {

using test::pt;

// Solve the same state with `kind` and with the dense SVD; return the solve of `kind`.
struct Compared {
  SolvePath path;
  double forceError;  // |Fc - Fc_svd| / |Fc_svd|
  double bodyError;   // largest |F_i - F_i,svd| relative to the largest |F_svd|
  double residual, svdResidual;
};

Compared compare(Scene s, SolverKind kind) {
  s.settings.solver = SolverKind::DenseSvd;
  auto ref = test::simulate(s);
  s.settings.solver = kind;
  auto sim = test::simulate(s);
  ref->refresh();
  sim->refresh();
  const ConstraintSystem &a = sim->context().system, &b = ref->context().system;
  Compared c;
  c.path = a.report().path;
  c.forceError = (a.forces() - b.forces()).norm() / b.forces().norm();
  double scale = 0.0, err = 0.0;
  for (size_t i = 0; i < sim->context().F.size(); ++i) {
    scale = std::max(scale, ref->context().F[i].norm() + ref->context().T[i].norm());
    err = std::max(err, (sim->context().F[i] - ref->context().F[i]).norm() + (sim->context().T[i] - ref->context().T[i]).norm());
  }
  c.bodyError = err / scale;
  c.residual = a.report().residual;
  c.svdResidual = b.report().residual;
  return c;
}

TEST(Solver, SparseEqualsSvdOnWellPosedChainsTreesAndLoops) {
  const std::vector<BenchScene> scenes = {hangingChain(40), hangingTree(5), hangingRing(30)};
  for (const BenchScene& b : scenes)
    for (unsigned seed : {1u, 2u, 3u}) {
      Scene s = b.scene;
      test::scatter(s, seed);
      const Compared c = compare(s, SolverKind::Auto);
      EXPECT_EQ(c.path, SolvePath::BlockLdlt) << b.name;
      EXPECT_LT(c.forceError, 1e-9) << b.name << " seed " << seed;
    }
}

// (the orientation constraint's torque follows virtual work too, so its system is symmetric)
TEST(Solver, SparseEqualsSvdOnMixedConstraintTypes) {
  for (bool orientation : {false, true})
    for (unsigned seed : {4u, 5u, 6u, 7u, 8u}) {
      Scene s = test::mixedScene(orientation);
      test::scatter(s, seed);
      const Compared c = compare(s, SolverKind::Auto);
      EXPECT_EQ(c.path, SolvePath::BlockLdlt);
      EXPECT_LT(c.forceError, 1e-9) << "seed " << seed << (orientation ? " with orientation" : "");
    }
}

Scene twoNails(double apart) {
  Scene s = test::paperScene();
  s.bodies.push_back(test::sphere("ball", Vec3(0.1, 0.2, -0.1)));
  s.nails.push_back({"n1", Vec3(-apart / 2, 0, 0)});
  s.nails.push_back({"n2", Vec3(apart / 2, 0, 0)});
  s.constraints.push_back(test::pointToNail("c1", pt("ball", "center"), "n1"));
  s.constraints.push_back(test::pointToNail("c2", pt("ball", "center"), "n2"));
  return s;
}

TEST(Solver, RankDeficientSystemsGetValidSolutionsOnTheSparsePath) {
  // consistent (two nails at one place): the regularized sparse solve is the minimum-norm
  // solution, so it splits the load like the SVD
  Compared c = compare(twoNails(0.0), SolverKind::Sparse);
  EXPECT_EQ(c.path, SolvePath::Regularized);
  EXPECT_LT(c.forceError, 1e-6);
  EXPECT_LT(c.residual, 1e-6 * (1.0 + c.svdResidual));
  // inconsistent (two nails apart): a least-squares solution; every least-squares solution of
  // M = J W J^T applies the same forces to the bodies (they differ in null(J^T)). The
  // regularized solve carries a large null-space part (B's inconsistent part over lambda),
  // which J^T cancels to within round-off times 1/lambda: a few parts in a million.
  c = compare(twoNails(0.4), SolverKind::Sparse);
  EXPECT_EQ(c.path, SolvePath::Regularized);
  EXPECT_LT(c.bodyError, 1e-5);
  EXPECT_LT(std::abs(c.residual - c.svdResidual), 1e-6 * c.svdResidual);
  // auto hands small singular systems to the SVD
  EXPECT_EQ(compare(twoNails(0.4), SolverKind::Auto).path, SolvePath::DenseSvd);
}

// The compound pendulum from rest, horizontal, 5 s at dt = 1 ms, tau = 0.05 s, alpha = beta = 10:
// the error bound each method keeps (docs/how-it-works.md, "Stabilization").
TEST(Solver, EachStabilizationKeepsItsErrorBound) {
  struct Case {
    IntegratorKind integrator;
    StabilizationKind stabilization;
    bool projection;
    double bound;  // m
    double projectionTolerance = Settings{}.projectionTolerance;  // m, per component
  };
  const std::vector<Case> cases = {
      {IntegratorKind::RK4, StabilizationKind::Tau, false, 1e-8},
      {IntegratorKind::RK4, StabilizationKind::Baumgarte, false, 1e-8},
      {IntegratorKind::RK4, StabilizationKind::Implicit, false, 1e-3},
      {IntegratorKind::SemiImplicitEuler, StabilizationKind::Tau, false, 0.3},
      {IntegratorKind::SemiImplicitEuler, StabilizationKind::Baumgarte, false, 0.5},
      {IntegratorKind::SemiImplicitEuler, StabilizationKind::Implicit, false, 1e-3},
      // with projection: |D| <= sqrt(3) x the tolerance (it bounds each component)
      {IntegratorKind::SemiImplicitEuler, StabilizationKind::Tau, true, 2 * Settings{}.projectionTolerance},
      {IntegratorKind::RK4, StabilizationKind::Tau, true, 2 * Settings{}.projectionTolerance},
      {IntegratorKind::SemiImplicitEuler, StabilizationKind::Tau, true, 2e-10, 1e-10},
      {IntegratorKind::RK4, StabilizationKind::Tau, true, 2e-10, 1e-10},
  };
  for (const Case& k : cases) {
    Scene s = test::compoundPendulum(0.05);
    s.settings.integrator = k.integrator;
    s.settings.stabilization = k.stabilization;
    s.settings.projection = k.projection;
    s.settings.projectionTolerance = k.projectionTolerance;
    auto sim = test::simulate(s);
    double worst = 0.0;
    std::vector<double> dev;
    for (int i = 1; i <= 5000; ++i) {
      ASSERT_TRUE(sim->advanceTo(i * 1e-3).ok);
      sim->deviations(dev);
      worst = std::max({worst, dev[0], dev[1]});
    }
    EXPECT_LT(worst, k.bound) << toString(k.integrator) << " " << toString(k.stabilization)
                              << (k.projection ? " + projection to " + std::to_string(k.projectionTolerance) : "");
  }
}

TEST(Solver, HongThreeLinkBarStaysBounded) {
  const Scene base = loadScene(std::string(TETHER_EXAMPLES_DIR) + "/three_link_bar.json");
  const std::filesystem::path outDir = std::filesystem::current_path() / "hong_three_link_bar";
  std::filesystem::create_directories(outDir);
  for (StabilizationKind method : {StabilizationKind::Implicit, StabilizationKind::Baumgarte})
    for (double dt : {0.01, 0.001}) {
      Scene s = base;
      test::hongSettings(s, method, dt);
      // start assembled: the driven end on its circle
      auto sim = test::simulate(s);
      const std::string file = (outDir / (std::string(toString(method)) + "_dt" + (dt == 0.01 ? "0.01" : "0.001") + ".csv")).string();
      std::ofstream csv(file);
      csv << "t,holonomic,driven\n";
      const int steps = static_cast<int>(std::lround(50.0 / dt));
      std::vector<double> dev;
      double worstHolonomic = 0.0, worstDriven = 0.0;
      for (int i = 1; i <= steps; ++i) {
        ASSERT_TRUE(sim->advanceTo(i * dt).ok) << file;
        sim->deviations(dev);
        const double holonomic = std::max({dev[1], dev[2], dev[3]}), driven = dev[0];
        if (i * dt > 2.0) {  // after the initial assembly
          worstHolonomic = std::max(worstHolonomic, holonomic);
          worstDriven = std::max(worstDriven, driven);
        }
        if (i % std::max(1, static_cast<int>(std::lround(0.01 / dt))) == 0) csv << i * dt << "," << holonomic << "," << driven << "\n";
      }
      // first-order methods: the error scales with dt (and stays bounded for 50 s)
      EXPECT_LT(worstHolonomic, 0.5 * dt) << file;
      EXPECT_LT(worstDriven, 0.5 * dt) << file;
      EXPECT_TRUE(std::filesystem::file_size(file) > 1000) << file;
    }
}

TEST(Solver, SequentialImpulsesConvergeToTheDirectSolution) {
  // one step of SI with many sweeps equals the direct velocity-level step
  Scene s = hangingChain(20).scene;
  test::scatter(s, 9);
  s.settings.projection = false;
  s.settings.integrator = IntegratorKind::SemiImplicitEuler;
  auto direct = test::simulate(s);
  s.settings.solver = SolverKind::SequentialImpulses;
  s.settings.solverIterations = 5000;
  auto si = test::simulate(s);
  ASSERT_TRUE(direct->advanceTo(s.settings.dt).ok);
  ASSERT_TRUE(si->advanceTo(s.settings.dt).ok);
  double err = 0.0, scale = 0.0;
  for (size_t i = 0; i < s.bodies.size(); ++i) {
    err = std::max(err, (si->state().bodies[i].P - direct->state().bodies[i].P).norm());
    scale = std::max(scale, direct->state().bodies[i].P.norm());
  }
  EXPECT_LT(err / scale, 1e-8);
}

TEST(Solver, WarmStartingHelpsSequentialImpulses) {
  // with few sweeps, warm starting (impulses carried from the previous step) holds a chain
  // hanging at rest far better than starting every step from zero: the impulses it needs are
  // the same step after step
  auto run = [](bool warm) {
    Scene s = hangingChain(30).scene;
    const Quat down = Quat::FromTwoVectors(Vec3::UnitZ(), -Vec3::UnitZ());
    for (size_t i = 0; i < s.bodies.size(); ++i) {
      s.bodies[i].position = Vec3(0, 0, -(double(i) + 0.5) * 0.1);
      s.bodies[i].orientation = down;
    }
    s.settings.solver = SolverKind::SequentialImpulses;
    s.settings.solverIterations = 4;
    s.settings.projection = false;
    auto sim = test::simulate(s);
    std::vector<double> dev;
    double worst = 0.0;
    for (int k = 1; k <= 240; ++k) {
      if (!warm) {
        State st = sim->state();
        std::fill(st.memory.impulses.begin(), st.memory.impulses.end(), Vec3::Zero());
        sim->setState(st);
      }
      EXPECT_TRUE(sim->advanceTo(k * s.settings.dt).ok);
      sim->deviations(dev);
      if (k > 120) worst = std::max(worst, *std::max_element(dev.begin(), dev.end()));
    }
    return worst;
  };
  const double cold = run(false), warm = run(true);
  EXPECT_LT(warm, 0.5 * cold) << "warm " << warm << " cold " << cold;
}

TEST(Solver, DefaultSettingsAndSequentialImpulsesResumeBitwise) {
  for (SolverKind k : {SolverKind::Auto, SolverKind::SequentialImpulses}) {
    Scene s = hangingChain(12).scene;  // the defaults: Euler, tau, projection
    s.settings.solver = k;
    auto model = std::make_shared<const Model>(compile(s));
    Simulation whole(model), first(model);
    ASSERT_TRUE(whole.advanceTo(1.0).ok);
    ASSERT_TRUE(first.advanceTo(120 * s.settings.dt).ok);
    Simulation resumed(model, first.state());
    ASSERT_TRUE(resumed.advanceTo(1.0).ok);
    for (size_t i = 0; i < s.bodies.size(); ++i) {
      EXPECT_EQ(std::memcmp(whole.state().bodies[i].x.data(), resumed.state().bodies[i].x.data(), 3 * sizeof(double)), 0);
      EXPECT_EQ(std::memcmp(whole.state().bodies[i].P.data(), resumed.state().bodies[i].P.data(), 3 * sizeof(double)), 0);
    }
  }
}

// Plate2 hangs from fixed plate1 by point-to-point joints at `corners` of its top edge and face
// (corner i of plate1 to corner i + 4 of plate2), turned 0.7 rad about the hinge line and
// swinging about it at 2 rad/s; its corners are `gap` m off plate1's (a residue projection
// leaves; projection is off here so that it stays). Two such joints hold the motion along the
// line between them twice, three hold three directions twice: M = J W J^T is singular but for the
// gap, and the held targets along those directions differ by it.
Scene platesJoinedAtCorners(const std::vector<int>& corners, double gap) {
  Scene s;
  s.settings.projection = false;
  const Vec3 size(0.4, 0.03, 0.36), h = 0.5 * size;
  BodyDef a = test::box("plate1", Vec3(0, 0, 1), size), b = test::box("plate2", Vec3::Zero(), size);
  a.fixed = true;
  const Vec3 hinge1(0, -h.y(), -h.z()), hinge2(0, -h.y(), h.z());  // plate1's, plate2's hinge midpoints
  const Mat3 r = (Eigen::AngleAxisd(gap / size.x(), Vec3::UnitZ()) * Eigen::AngleAxisd(0.7, Vec3::UnitX())).toRotationMatrix();
  b.orientation = Quat(r);
  b.position = a.position + hinge1 - r * hinge2;
  b.angularVelocity = r * Vec3(2.0, 0, 0);
  s.bodies = {a, b};
  for (int i : corners)
    s.constraints.push_back(test::pointToPoint("c" + std::to_string(i), pt("plate1", "corner" + std::to_string(i)),
                                               pt("plate2", "corner" + std::to_string(i + 4))));
  return s;
}

// A hinge made of two corner joints: once both are met, the second keeps its two rows across the
// line between them (ConstraintAssembly::reduceRedundantPairs), and block LDL^T solves the
// step with forces that carry the plate (it passed its pivot test on such an M and answered
// with 1e10 N here, 1e7-1e12 N on the corpus's plates, which lost 10-30 J of 125 J in a minute).
TEST(Solver, ASecondPointJointOnTheSameBodiesKeepsTwoRowsOnceMet) {
  auto sim = test::simulate(platesJoinedAtCorners({0, 1}, 2e-6));
  ASSERT_TRUE(sim->advanceTo(0.002).ok);  // (held from the first step: D1* = -D/h)
  sim->refresh();
  const ConstraintSystem& sys = sim->context().system;
  EXPECT_FALSE(sys.assembly().reduced(0));
  EXPECT_TRUE(sys.assembly().reduced(1));
  EXPECT_EQ(sys.rows()[1].d, 2);
  EXPECT_EQ(sys.report().path, SolvePath::BlockLdlt);
  const double weight = sim->model().bodies[1].mass * 9.81;
  EXPECT_LT(sim->context().F[1].norm(), 20.0 * weight) << "weight " << weight;
  // the two rows are across the hinge line: plate2's corners 4 and 5 differ in its x only
  // (body.h), so its linear rows are +-P with orthonormal rows orthogonal to its x axis
  const ConstraintRows& r = sys.rows()[1];
  const Vec3 hingeLine = sim->state().bodies[1].q * Vec3::UnitX();
  for (int s = 0; s < r.nb; ++s) {
    const Eigen::Matrix<double, 2, 3> P = r.Jl[s].topRows<2>();
    EXPECT_LT((P * hingeLine).norm(), 1e-12) << "slot " << s;
    EXPECT_LT((P * P.transpose() - Eigen::Matrix2d::Identity()).norm(), 1e-12) << "slot " << s;
  }
  // torn open (here: a joint moved 2 cm), the pair has its three rows again
  State st = sim->state();
  st.bodies[1].x += Vec3(0.0, 0.02, 0.0);
  sim->setState(st);
  sim->refresh();
  EXPECT_FALSE(sim->context().system.assembly().reduced(1));
  EXPECT_EQ(sim->context().system.rows()[1].d, 3);
}

// Three corner joints hold three directions twice; the reduction takes one of them, and block
// LDL^T, whose pivot test the remaining M can pass, must count it as singular
// (BlockLdltSolver::nearlySingular): auto takes the SVD, whose forces carry the plate.
TEST(Solver, ANearlySingularSolveCountsAsSingular) {
  auto sim = test::simulate(platesJoinedAtCorners({0, 1, 2}, 2e-6));
  ASSERT_TRUE(sim->advanceTo(0.002).ok);
  sim->refresh();
  const ConstraintSystem& sys = sim->context().system;
  EXPECT_EQ(sys.report().path, SolvePath::DenseSvd);
  BlockLdltSolver block;
  SolveReport report;
  report.rows = sys.assembly().rowCount();
  report.cols = sys.assembly().colCount();
  Eigen::VectorXd fc = Eigen::VectorXd::Zero(report.cols);
  EXPECT_FALSE(block.solve(sys.assembly(), sys.rightHandSide(), fc, report)) << "|fc| " << fc.norm();
  const double weight = sim->model().bodies[1].mass * 9.81;
  EXPECT_LT(sim->context().F[1].norm(), 20.0 * weight) << "weight " << weight;
}

// A symmetric M (every force by virtual work) is solved by its eigendecomposition, which is its
// SVD: the same minimum-norm least-squares forces and the same rank as Eigen's own SVD of M, on
// the card house (52 rows, 6 redundant, still assembling: inconsistent), on a ball held by two
// nails apart (inconsistent) and at one place (consistent), over steps of play.
TEST(Solver, TheSymmetricDenseSolveIsTheSvds) {
  struct Case {
    std::string name;
    Scene scene;
  };
  const std::vector<Case> cases = {{"card house", loadScene(std::string(TETHER_EXAMPLES_DIR) + "/card_house.json")},
                                   {"two nails apart", twoNails(0.4)},
                                   {"two nails at one place", twoNails(0.0)}};
  for (const Case& c : cases) {
    auto sim = test::simulate(c.scene);
    for (double t : {0.0, 0.05, 0.5}) {
      ASSERT_TRUE(sim->advanceTo(t).ok) << c.name;
      sim->refresh();
      const ConstraintSystem& sys = sim->context().system;
      ASSERT_TRUE(sys.assembly().symmetric()) << c.name;
      const Eigen::MatrixXd M(sys.matrix());
      const Eigen::VectorXd& B = sys.rightHandSide();
      Eigen::JacobiSVD<Eigen::MatrixXd> svd(M, Eigen::ComputeThinU | Eigen::ComputeThinV);
      svd.setThreshold(kRankTolerance);
      const Eigen::VectorXd want = svd.solve(-B);
      SolveReport report;
      report.rows = int(M.rows());
      report.cols = int(M.cols());
      Eigen::VectorXd fc;
      DenseSvdSolver dense;
      ASSERT_TRUE(dense.solve(sys.assembly(), B, fc, report));
      EXPECT_EQ(report.path, SolvePath::DenseSvd);
      EXPECT_EQ(report.rank, svd.rank()) << c.name << " t " << t;
      EXPECT_LT(report.rank, report.rows) << c.name << " t " << t;
      EXPECT_LT((fc - want).norm(), 1e-9 * want.norm()) << c.name << " t " << t;
      EXPECT_NEAR(report.residual, (M * want + B).norm(), 1e-9 * B.norm()) << c.name << " t " << t;
    }
  }
}

// Each ConstraintSolver alone on one assembly and B, against DenseSvdSolver (the reference):
// on a well-posed system every path gives the SVD's forces; on a singular one (two nails at one
// place) the fast paths say they cannot, and the regularized path gives the minimum-norm split.
TEST(Solver, EachPathAloneSolvesTheSameSystem) {
  struct Solved {
    bool ok;
    Eigen::VectorXd fc;
    SolveReport report;
  };
  auto solveWith = [](ConstraintSolver& solver, const ConstraintSystem& sys) {
    Solved out;
    out.report.rows = sys.assembly().rowCount();
    out.report.cols = sys.assembly().colCount();
    out.fc.setZero(out.report.cols);
    out.ok = solver.solve(sys.assembly(), sys.rightHandSide(), out.fc, out.report);
    return out;
  };
  for (unsigned seed : {21u, 22u}) {
    Scene s = test::mixedScene(true);
    test::scatter(s, seed);
    auto sim = test::simulate(s);
    sim->refresh();
    const ConstraintSystem& sys = sim->context().system;
    DenseSvdSolver dense;
    const Solved ref = solveWith(dense, sys);
    ASSERT_TRUE(ref.ok);
    EXPECT_EQ(ref.report.path, SolvePath::DenseSvd);
    EXPECT_EQ(ref.report.rank, ref.report.rows);
    EXPECT_LT(ref.report.residual, 1e-9 * sys.rightHandSide().norm());
    BlockLdltSolver block;
    LeastSquaresSolver leastSquares;
    RegularizedSolver regularized;
    const std::pair<ConstraintSolver*, SolvePath> paths[] = {
        {&block, SolvePath::BlockLdlt}, {&leastSquares, SolvePath::SparseLeastSquares}, {&regularized, SolvePath::Regularized}};
    for (const auto& [solver, path] : paths) {
      const Solved got = solveWith(*solver, sys);
      EXPECT_TRUE(got.ok) << toString(path);
      EXPECT_EQ(got.report.path, path);
      EXPECT_LT((got.fc - ref.fc).norm(), (path == SolvePath::Regularized ? 1e-6 : 1e-9) * ref.fc.norm())
          << toString(path) << " seed " << seed;
    }
    EXPECT_TRUE(block.factored());
  }
  // singular: the ball held at one place by two nails
  auto sim = test::simulate(twoNails(0.0));
  sim->refresh();
  const ConstraintSystem& sys = sim->context().system;
  BlockLdltSolver block;
  LeastSquaresSolver leastSquares;
  EXPECT_FALSE(solveWith(block, sys).ok);
  EXPECT_FALSE(block.factored());
  EXPECT_FALSE(solveWith(leastSquares, sys).ok);
  DenseSvdSolver dense;
  const Solved ref = solveWith(dense, sys);
  EXPECT_EQ(ref.report.rank, 3);
  // the minimum-norm solution splits the weight evenly between the nails
  EXPECT_LT((ref.fc.head<3>() - ref.fc.tail<3>()).norm(), 1e-9 * ref.fc.norm());
  RegularizedSolver regularized;
  const Solved reg = solveWith(regularized, sys);
  EXPECT_TRUE(reg.ok);
  EXPECT_LT((reg.fc - ref.fc).norm(), 1e-6 * ref.fc.norm());
}

// The dense solve with constraints met first (DenseSvdSolver::setFirst, which ConstraintSystem
// gives it where held and assembling constraints are solved together): where some Fc meets the
// system (a ball held twice at one place), it is the plain solve; where none does (the ball
// between two nails 0.4 m apart), the first nail's rows are met and the second takes the whole
// miss (the plain solve splits it evenly).
TEST(Solver, TheDenseSolveMeetsTheFirstConstraintsFirstWhereNotAllCanBeMet) {
  const std::vector<std::uint8_t> first = {1, 0};
  for (double apart : {0.0, 0.4}) {
    auto sim = test::simulate(twoNails(apart));
    sim->refresh();
    const ConstraintSystem& sys = sim->context().system;
    const Eigen::MatrixXd M(sys.matrix());
    const Eigen::VectorXd& B = sys.rightHandSide();
    auto solve = [&](const std::vector<std::uint8_t>* f) {
      SolveReport report;
      report.rows = int(M.rows());
      report.cols = int(M.cols());
      Eigen::VectorXd fc;
      DenseSvdSolver dense;
      dense.setFirst(f);
      EXPECT_TRUE(dense.solve(sys.assembly(), B, fc, report));
      EXPECT_NEAR(report.residual, (M * fc + B).norm(), 1e-12 * B.norm());
      return fc;
    };
    const Eigen::VectorXd plain = solve(nullptr), ordered = solve(&first);
    const Eigen::VectorXd missPlain = M * plain + B, miss = M * ordered + B;
    if (apart == 0.0) {
      EXPECT_EQ(ordered, plain);  // (bit for bit: the plain solve meets every row)
      EXPECT_LT(miss.norm(), 1e-9 * B.norm());
    } else {
      EXPECT_NEAR(missPlain.head<3>().norm(), missPlain.tail<3>().norm(), 1e-9 * missPlain.norm());
      EXPECT_LT(miss.head<3>().norm(), 1e-9 * missPlain.norm());
      // the same disagreement between the two, all of it on the second
      EXPECT_LT(((miss.head<3>() - miss.tail<3>()) - (missPlain.head<3>() - missPlain.tail<3>())).norm(),
                1e-9 * missPlain.norm());
    }
  }
}

}  // namespace
}  // namespace tether::core
