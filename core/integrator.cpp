#include "core/integrator.h"

#include <algorithm>
#include <cmath>

namespace tether::core {

void normalizeQuaternions(Eigen::VectorXd& y) {
  for (Eigen::Index i = 0; i + kBodyDofs <= y.size(); i += kBodyDofs) {
    auto q = y.segment<4>(i + 3);
    const double n = q.norm();
    if (n > 0.0) q /= n;
  }
}

void stepRK4(const Model& model, const Params& p, double t, double h, StepContext& c) {
  // y' = y + h/6 (k1 + 2 k2 + 2 k3 + k4)
  evaluateDerivative(model, p, t, c.y, c.k[0], c);
  c.ytmp = c.y + (0.5 * h) * c.k[0];
  evaluateDerivative(model, p, t + 0.5 * h, c.ytmp, c.k[1], c);
  c.ytmp = c.y + (0.5 * h) * c.k[1];
  evaluateDerivative(model, p, t + 0.5 * h, c.ytmp, c.k[2], c);
  c.ytmp = c.y + h * c.k[2];
  evaluateDerivative(model, p, t + h, c.ytmp, c.k[3], c);
  c.y += (h / 6.0) * (c.k[0] + 2.0 * c.k[1] + 2.0 * c.k[2] + c.k[3]);
}

void stepSemiImplicitEuler(const Model& model, const Params& p, double t, double h, StepContext& c) {
  evaluateDerivative(model, p, t, c.y, c.k[0], c);
  // kick: momenta
  for (Eigen::Index i = 0; i + kBodyDofs <= c.y.size(); i += kBodyDofs)
    c.y.segment<6>(i + 7) += h * c.k[0].segment<6>(i + 7);
  // drift: positions with the new velocities (inverse inertia at the old orientation)
  for (size_t b = 0; b < model.bodies.size(); ++b) {
    const BodyKinematics& k = c.kin[b];
    if (k.invMass == 0.0) continue;
    const Eigen::Index i = static_cast<Eigen::Index>(b) * kBodyDofs;
    const Vec3 v = k.invMass * Vec3(c.y.segment<3>(i + 7));
    const Vec3 w = k.invI * Vec3(c.y.segment<3>(i + 10));
    c.y.segment<3>(i) += h * v;
    const Quat q(c.y(i + 3), c.y(i + 4), c.y(i + 5), c.y(i + 6));
    const Quat dq = Quat(0.0, w.x(), w.y(), w.z()) * q;
    c.y.segment<4>(i + 3) += (0.5 * h) * Eigen::Vector4d(dq.w(), dq.x(), dq.y(), dq.z());
  }
}

namespace {
// Dormand & Prince (1980) tableau.
constexpr double kC[7] = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
constexpr double kA[7][6] = {
    {},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
// fifth-order weights are row 6 of A; these are (fifth - fourth)
constexpr double kE[7] = {35.0 / 384 - 5179.0 / 57600, 0.0, 500.0 / 1113 - 7571.0 / 16695,
                          125.0 / 192 - 393.0 / 640, -2187.0 / 6784 + 92097.0 / 339200,
                          11.0 / 84 - 187.0 / 2100, -1.0 / 40};
}  // namespace

double stepRK45(const Model& model, const Params& p, double t, double h, double tol, StepContext& c) {
  // (no first-same-as-last reuse: every step starts from f(y) so that a run resumed from a
  // saved State repeats the uninterrupted run bit for bit)
  evaluateDerivative(model, p, t, c.y, c.k[0], c);
  for (int attempt = 0;; ++attempt) {
    for (int s = 1; s < 7; ++s) {
      c.ytmp = c.y;
      for (int j = 0; j < s; ++j)
        if (kA[s][j] != 0.0) c.ytmp += (h * kA[s][j]) * c.k[j];
      evaluateDerivative(model, p, t + kC[s] * h, c.ytmp, c.k[s], c);
    }
    // ytmp is now the fifth-order solution
    c.yerr.setZero(c.y.size());
    for (int j = 0; j < 7; ++j)
      if (kE[j] != 0.0) c.yerr += (h * kE[j]) * c.k[j];
    double err = 0.0;
    for (Eigen::Index i = 0; i < c.y.size(); ++i)
      err = std::max(err, std::abs(c.yerr(i)) / (tol * (1.0 + std::max(std::abs(c.y(i)), std::abs(c.ytmp(i))))));
    if (!std::isfinite(err)) err = 1e10;
    // step-size controller: h_new = h * 0.9 err^(-1/5), limited to [0.2, 5] h
    const double factor = err == 0.0 ? 5.0 : std::clamp(0.9 * std::pow(err, -0.2), 0.2, 5.0);
    if (err <= 1.0 || attempt >= 60 || h < 1e-12) {
      c.y = c.ytmp;
      c.hNext = h * factor;
      return h;
    }
    h *= factor;
  }
}

}  // namespace tether::core
