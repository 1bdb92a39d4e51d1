// core/constraint_assembly.cpp and core/point_constraint_part.h: the layout of the rows and
// force columns, the incidence lists, M = J W G, and the point pairs' implicit Jacobian.
#include <gtest/gtest.h>

#include <set>

#include "core/constraint_system.h"
#include "test_util.h"

namespace tether::core {
namespace {

// The mixed scene at a generic state (scattered), evaluated; "joint" (index 1) switched off.
std::unique_ptr<Simulation> evaluatedMixedScene(bool orientation) {
  Scene s = test::mixedScene(orientation);
  test::scatter(s, 3);
  s.constraints[1].enabled = false;
  auto sim = test::simulate(s);
  sim->refresh();
  return sim;
}

TEST(Assembly, RowsAndColumnsAreStackedInConstraintOrder) {
  auto sim = evaluatedMixedScene(true);
  const ConstraintAssembly& a = sim->context().system.assembly();
  ASSERT_EQ(a.rows().size(), sim->model().constraints.size());
  int row = 0, col = 0;
  std::vector<int> active;
  for (size_t j = 0; j < a.rows().size(); ++j) {
    if (j == 1) {  // disabled: no rows, no node
      EXPECT_EQ(a.rowOffset()[j], -1);
      EXPECT_EQ(a.colOffset()[j], -1);
      EXPECT_EQ(a.node()[j], -1);
      continue;
    }
    EXPECT_EQ(a.rowOffset()[j], row) << j;
    EXPECT_EQ(a.colOffset()[j], col) << j;
    EXPECT_EQ(a.node()[j], int(active.size())) << j;
    active.push_back(int(j));
    row += a.rows()[j].d;
    col += a.rows()[j].f;
  }
  EXPECT_EQ(a.active(), active);
  EXPECT_EQ(a.rowCount(), row);
  EXPECT_EQ(a.colCount(), col);
  EXPECT_TRUE(a.symmetric());  // every bundled type's force follows virtual work
  // each active constraint's slot is listed once under its body, and nothing else is
  std::set<std::pair<int, int>> expected, listed;
  for (int j : active)
    for (int s = 0; s < a.rows()[size_t(j)].nb; ++s) expected.insert({j, s});
  for (size_t b = 0; b < a.incidence().size(); ++b)
    for (const auto& [j, s] : a.incidence()[b]) {
      EXPECT_EQ(a.rows()[size_t(j)].body[s], int(b));
      EXPECT_TRUE(listed.insert({j, s}).second) << "listed twice: " << j << ", " << s;
    }
  EXPECT_EQ(listed, expected);
}

// The layout number (which tells the block solver to redo its symbolic analysis) changes when
// the active set changes, and only then.
TEST(Assembly, LayoutChangesWithTheActiveSetOnly) {
  auto sim = evaluatedMixedScene(false);
  const ConstraintAssembly& a = sim->context().system.assembly();
  const long before = a.layout();
  sim->refresh();
  EXPECT_EQ(a.layout(), before);
  State st = sim->state();
  st.params.constraintEnabled[1] = 1;
  sim->setState(st);
  sim->refresh();
  EXPECT_NE(a.layout(), before);
  EXPECT_EQ(a.node()[1], 1);
  const long after = a.layout();
  sim->refresh();
  EXPECT_EQ(a.layout(), after);
}

// M, built from the rows' blocks, against J W G formed densely body by body.
TEST(Assembly, MatrixIsTheJacobianTimesTheInverseMassTimesTheForceMap) {
  for (bool orientation : {false, true}) {
    auto sim = evaluatedMixedScene(orientation);
    const ConstraintAssembly& a = sim->context().system.assembly();
    const std::vector<BodyKinematics>& kin = a.kinematics();
    const Eigen::Index nb = Eigen::Index(kin.size());
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(a.rowCount(), 6 * nb), G = Eigen::MatrixXd::Zero(6 * nb, a.colCount());
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(6 * nb, 6 * nb);
    for (Eigen::Index i = 0; i < nb; ++i) {
      W.block<3, 3>(6 * i, 6 * i) = kin[size_t(i)].invMass * Mat3::Identity();
      W.block<3, 3>(6 * i + 3, 6 * i + 3) = kin[size_t(i)].invI;
    }
    for (int j : a.active()) {
      const ConstraintRows& r = a.rows()[size_t(j)];
      for (int s = 0; s < r.nb; ++s) {
        const Eigen::Index b = r.body[s];
        Mat33 Gs, Hs;
        forceMap(r, s, Gs, Hs);
        J.block(a.rowOffset()[size_t(j)], 6 * b, r.d, 3) += r.jlBlock(s).topRows(r.d);
        J.block(a.rowOffset()[size_t(j)], 6 * b + 3, r.d, 3) += r.jaBlock(s).topRows(r.d);
        G.block(6 * b, a.colOffset()[size_t(j)], 3, r.f) += Gs.leftCols(r.f);
        G.block(6 * b + 3, a.colOffset()[size_t(j)], 3, r.f) += Hs.leftCols(r.f);
      }
    }
    const Eigen::MatrixXd expected = J * W * G;
    const Eigen::MatrixXd M(a.matrix());
    ASSERT_EQ(M.rows(), expected.rows());
    ASSERT_EQ(M.cols(), expected.cols());
    EXPECT_LT((M - expected).cwiseAbs().maxCoeff(), 1e-12 * expected.cwiseAbs().maxCoeff())
        << (orientation ? "with orientation" : "");
  }
}

// A point pair's slots are PointConstraintPart slots: sign u (+1 for the second point, -1 for
// the first), arm a = -u r with r the point's offset from its body's centre, and products equal
// to those of the blocks they stand for (Jl = u 1, Ja = [a]x).
TEST(Assembly, PointPartsStandForTheirBlocks) {
  auto sim = evaluatedMixedScene(false);
  const ConstraintAssembly& a = sim->context().system.assembly();
  const Vec3 x(0.3, -1.7, 2.2);
  int slots = 0;
  for (int j : a.active()) {
    const ConstraintRows& r = a.rows()[size_t(j)];
    for (int s = 0; s < r.nb; ++s) {
      const PointConstraintPart& p = r.pointPart;
      if (!p.has(s)) continue;
      ++slots;
      const double u = p.sign(s);
      const Vec3 offset = r.point[u > 0 ? 1 : 0] - a.kinematics()[size_t(r.body[s])].x;
      EXPECT_LT((p.skewArm(s) + u * offset).norm(), 1e-12) << j;
      EXPECT_EQ(p.jlBlock(s), Mat3(u * Mat3::Identity()));
      EXPECT_LT((p.jaBlock(s) + u * skew(offset)).norm(), 1e-12);
      EXPECT_LT((p.jl(s, x) - p.jlBlock(s) * x).norm(), 1e-12);
      EXPECT_LT((p.ja(s, x) - p.jaBlock(s) * x).norm(), 1e-12);
      EXPECT_LT((p.jlT(s, x) - p.jlBlock(s).transpose() * x).norm(), 1e-12);
      EXPECT_LT((p.jaT(s, x) - p.jaBlock(s).transpose() * x).norm(), 1e-12);
      Vec3 F = Vec3::Zero(), T = Vec3::Zero();
      p.addForce(s, x, F, T);
      EXPECT_LT((F - p.jlBlock(s).transpose() * x).norm(), 1e-12);
      EXPECT_LT((T - p.jaBlock(s).transpose() * x).norm(), 1e-12);
      const Vec3 w = a.kinematics()[size_t(r.body[s])].w;
      EXPECT_LT((p.centripetal(s, w) - u * w.cross(w.cross(offset))).norm(), 1e-12);
    }
  }
  EXPECT_EQ(slots, 3);  // the pin's rod end, and the hook's box and ball
}

}  // namespace
}  // namespace tether::core
