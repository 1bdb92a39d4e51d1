#include "core/block_ldlt.h"

#include <gtest/gtest.h>

#include <random>

namespace tether::core {
namespace {

// A random symmetric positive definite block matrix on the given graph: A = B B^T restricted
// to the pattern is not SPD in general, so build it as sum over edges of G_e G_e^T-style
// couplings (a Gram matrix of random per-edge "bodies"), plus a diagonal shift.
struct Problem {
  int n;
  std::vector<std::pair<int, int>> edges;
};

void fill(BlockLdlt& f, Eigen::MatrixXd& dense, const Problem& p, std::mt19937& rng) {
  std::normal_distribution<double> g;
  dense.setZero(3 * p.n, 3 * p.n);
  f.setZero();
  auto rnd = [&] {
    Mat3 m;
    for (int i = 0; i < 9; ++i) m(i / 3, i % 3) = g(rng);
    return m;
  };
  for (size_t e = 0; e < p.edges.size(); ++e) {
    // a "body" shared by the two constraints: rows Ja, Jb; contributes [Ja; Jb] [Ja; Jb]^T
    const auto [a, b] = p.edges[e];
    const Mat3 Ja = rnd(), Jb = rnd();
    f.diag(a) += Ja * Ja.transpose();
    f.diag(b) += Jb * Jb.transpose();
    f.addOffDiag(int(e), Ja * Jb.transpose());
    dense.block<3, 3>(3 * a, 3 * a) += Ja * Ja.transpose();
    dense.block<3, 3>(3 * b, 3 * b) += Jb * Jb.transpose();
    dense.block<3, 3>(3 * a, 3 * b) += Ja * Jb.transpose();
    dense.block<3, 3>(3 * b, 3 * a) += Jb * Ja.transpose();
  }
  for (int a = 0; a < p.n; ++a) {
    const Mat3 J = rnd();
    f.diag(a) += J * J.transpose();
    dense.block<3, 3>(3 * a, 3 * a) += J * J.transpose();
  }
}

void check(const Problem& p, int expectedFill) {
  std::mt19937 rng(42);
  BlockLdlt f;
  f.analyze(p.n, p.edges);
  if (expectedFill >= 0) EXPECT_EQ(f.fillBlocks(), expectedFill);
  Eigen::MatrixXd dense;
  fill(f, dense, p, rng);
  ASSERT_TRUE(f.factorize());
  Eigen::VectorXd b = Eigen::VectorXd::Random(3 * p.n), x = b;
  f.solve(x);
  const Eigen::VectorXd ref = dense.ldlt().solve(b);
  EXPECT_LT((x - ref).norm() / ref.norm(), 1e-10);
  Eigen::VectorXd y;
  f.multiply(x, y);
  EXPECT_LT((y - b).norm() / b.norm(), 1e-10);
  // two right-hand sides in one pass: each as its own solve gives it (to rounding)
  const Eigen::VectorXd b2 = Eigen::VectorXd::Random(3 * p.n);
  Eigen::VectorXd one = b, two = b2, alone = b2;
  f.solve(one, two);
  f.solve(alone);
  EXPECT_LT((one - x).norm() / x.norm(), 1e-14);
  EXPECT_LT((two - alone).norm() / alone.norm(), 1e-14);
}

TEST(BlockLdlt, ChainHasNoFill) {
  Problem p{200, {}};
  for (int i = 0; i + 1 < 200; ++i) p.edges.push_back({i, i + 1});
  // shuffle the labels so the ordering must find the chain itself
  std::vector<int> perm(200);
  for (int i = 0; i < 200; ++i) perm[size_t(i)] = (i * 77) % 200;
  for (auto& [a, b] : p.edges) {
    a = perm[size_t(a)];
    b = perm[size_t(b)];
  }
  check(p, 0);
}

// The ordering eliminates a chain from both ends in turn, so that consecutive columns of the
// factorization belong to independent branches (see BlockLdlt::analyze).
TEST(BlockLdlt, ChainIsEliminatedFromBothEndsInTurn) {
  const int n = 9;
  Problem p{n, {}};
  for (int i = 0; i + 1 < n; ++i) p.edges.push_back({i, i + 1});
  BlockLdlt f;
  f.analyze(n, p.edges);
  EXPECT_EQ(f.fillBlocks(), 0);
  // node i from the front goes at 2i, node i from the back at 2i + 1, the middle one last
  for (int i = 0; i < n / 2; ++i) {
    EXPECT_EQ(f.position(i), 2 * i) << i;
    EXPECT_EQ(f.position(n - 1 - i), 2 * i + 1) << i;
  }
  EXPECT_EQ(f.position(n / 2), n - 1);
}

TEST(BlockLdlt, TreeHasNoFill) {
  // a binary tree of bodies with a constraint per edge: constraints sharing a body form
  // cliques of 3 (parent joint + two child joints); eliminating leaves first adds nothing
  Problem p{0, {}};
  const int depth = 7;
  const int bodies = (1 << depth) - 1;  // body b has children 2b+1, 2b+2; joint c = child body - 1
  p.n = bodies - 1;
  for (int b = 0; b < bodies; ++b) {
    std::vector<int> joints;
    if (b > 0) joints.push_back(b - 1);
    for (int c : {2 * b + 1, 2 * b + 2})
      if (c < bodies) joints.push_back(c - 1);
    for (size_t x = 0; x < joints.size(); ++x)
      for (size_t y = x + 1; y < joints.size(); ++y) p.edges.push_back({joints[x], joints[y]});
  }
  check(p, 0);
}

TEST(BlockLdlt, LoopGetsFillAndStaysExact) {
  Problem p{100, {}};
  for (int i = 0; i < 100; ++i) p.edges.push_back({i, (i + 1) % 100});
  check(p, -1);
  BlockLdlt f;
  f.analyze(p.n, p.edges);
  EXPECT_GT(f.fillBlocks(), 0);
  EXPECT_LT(f.fillBlocks(), 200);  // a ring fills one line, not the whole matrix
}

TEST(BlockLdlt, SingularMatrixIsReported) {
  Problem p{2, {{0, 1}}};
  BlockLdlt f;
  f.analyze(2, p.edges);
  f.setZero();
  const Mat3 J = Mat3::Identity();
  f.diag(0) += J;
  f.diag(1) += J;
  f.addOffDiag(0, J);  // [[I, I], [I, I]]: rank 3
  EXPECT_FALSE(f.factorize());
}

// The pivot test is against each block row's own diagonal (kPivotTolerance): a pair of rows
// dependent but for 1e-11 of their size is singular whatever else the matrix holds (against the
// largest entry, 1e-12 of it, it passed), and a row of a body 1e14 times heavier than another
// (its diagonal 1e-14 of theirs) is not.
TEST(BlockLdlt, ThePivotTestIsAgainstTheRowsOwnDiagonal) {
  Problem p{2, {{0, 1}}};
  {
    BlockLdlt f;
    f.analyze(2, p.edges);
    f.setZero();
    f.diag(0) += Mat3::Identity();
    f.diag(1) += (1.0 + 1e-11) * Mat3::Identity();
    f.addOffDiag(0, Mat3::Identity());  // [[I, I], [I, (1 + 1e-11) I]]: pivot 1e-11
    EXPECT_FALSE(f.factorize());
  }
  {
    BlockLdlt f;
    f.analyze(2, p.edges);
    f.setZero();
    f.diag(0) += Mat3::Identity();
    f.diag(1) += 1e-14 * Mat3::Identity();  // unjoined (the edge's block is zero)
    ASSERT_TRUE(f.factorize());
    Eigen::VectorXd x(6);
    x << 1, 2, 3, 1e-14, 2e-14, 3e-14;
    f.solve(x);
    EXPECT_NEAR(x(0), 1.0, 1e-12);
    EXPECT_NEAR(x(5), 3.0, 1e-12);
  }
}

}  // namespace
}  // namespace tether::core
