#include "core/path.h"

#include <algorithm>
#include <cmath>

namespace tether::core {

Path::Path(const PathDef& def) : m_kind(def.kind), m_start(def.start), m_velocity(def.velocity), m_center(def.center) {
  if (m_kind == PathKind::Circle) {
    const Vec3 n = def.normal.normalized();
    m_e1 = (def.u - def.u.dot(n) * n).normalized();
    m_e2 = n.cross(m_e1);
    m_radius = def.radius;
    m_omega = 2.0 * M_PI / def.period;
    m_phase = def.phase;
  }
  if (m_kind == PathKind::Spline) {
    // Natural cubic spline: on [t_i, t_{i+1}] with h_i = t_{i+1} - t_i the second derivative is
    // linear between the knot values M_i; continuity of the first derivative at interior knots
    // gives the tridiagonal system
    //   h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (s_i - s_{i-1}),
    // with slopes s_i = (y_{i+1} - y_i) / h_i and natural ends M_0 = M_{n-1} = 0.
    // Solved by the Thomas algorithm (diagonally dominant, so stable).
    const size_t n = def.keyframes.size();
    for (const Keyframe& k : def.keyframes) {
      m_t.push_back(k.t);
      m_y.push_back(k.position);
    }
    m_m.assign(n, Vec3::Zero());
    if (n > 2) {
      std::vector<double> diag(n, 0.0), upper(n, 0.0);
      std::vector<Vec3> rhs(n, Vec3::Zero());
      for (size_t i = 1; i + 1 < n; ++i) {
        const double h0 = m_t[i] - m_t[i - 1], h1 = m_t[i + 1] - m_t[i];
        const double lower = h0;
        diag[i] = 2.0 * (h0 + h1);
        upper[i] = h1;
        rhs[i] = 6.0 * ((m_y[i + 1] - m_y[i]) / h1 - (m_y[i] - m_y[i - 1]) / h0);
        if (i > 1) {  // eliminate the sub-diagonal entry against row i - 1
          const double w = lower / diag[i - 1];
          diag[i] -= w * upper[i - 1];
          rhs[i] -= w * rhs[i - 1];
        }
      }
      for (size_t i = n - 2; i >= 1; --i) {
        m_m[i] = (rhs[i] - upper[i] * m_m[i + 1]) / diag[i];
        if (i == 1) break;
      }
    }
  }
}

PathSample Path::sample(double t) const {
  PathSample s;
  switch (m_kind) {
    case PathKind::Line:
      s.x = m_start + m_velocity * t;
      s.v = m_velocity;
      break;
    case PathKind::Circle: {
      // x = c + r (cos phi e1 + sin phi e2), phi = phase + omega t
      const double phi = m_phase + m_omega * t, c = std::cos(phi), sn = std::sin(phi);
      s.x = m_center + m_radius * (c * m_e1 + sn * m_e2);
      s.v = m_radius * m_omega * (-sn * m_e1 + c * m_e2);
      s.a = -m_omega * m_omega * (s.x - m_center);
      break;
    }
    case PathKind::Spline: {
      const size_t n = m_t.size();
      // outside the keyframes: straight line with the end slope (natural ends have zero
      // curvature, so this stays C2)
      auto endSlope = [&](size_t i0) {
        const double h = m_t[i0 + 1] - m_t[i0];
        // derivative of the cubic at its left (i0) or right (i0 + 1) end
        return std::pair{(m_y[i0 + 1] - m_y[i0]) / h - h * (2.0 * m_m[i0] + m_m[i0 + 1]) / 6.0,
                         (m_y[i0 + 1] - m_y[i0]) / h + h * (m_m[i0] + 2.0 * m_m[i0 + 1]) / 6.0};
      };
      if (t <= m_t.front()) {
        s.v = endSlope(0).first;
        s.x = m_y.front() + s.v * (t - m_t.front());
        break;
      }
      if (t >= m_t.back()) {
        s.v = endSlope(n - 2).second;
        s.x = m_y.back() + s.v * (t - m_t.back());
        break;
      }
      const size_t i = static_cast<size_t>(std::upper_bound(m_t.begin(), m_t.end(), t) - m_t.begin()) - 1;
      // S(t) = M_i A^3 h^2/6 + M_{i+1} B^3 h^2/6 + (y_i - M_i h^2/6) A + (y_{i+1} - M_{i+1} h^2/6) B,
      // A = (t_{i+1} - t)/h, B = (t - t_i)/h
      const double h = m_t[i + 1] - m_t[i];
      const double A = (m_t[i + 1] - t) / h, B = (t - m_t[i]) / h;
      const Vec3 &M0 = m_m[i], &M1 = m_m[i + 1], &y0 = m_y[i], &y1 = m_y[i + 1];
      s.x = A * y0 + B * y1 + ((A * A * A - A) * M0 + (B * B * B - B) * M1) * (h * h / 6.0);
      s.v = (y1 - y0) / h + ((1.0 - 3.0 * A * A) * M0 + (3.0 * B * B - 1.0) * M1) * (h / 6.0);
      s.a = A * M0 + B * M1;
      break;
    }
  }
  return s;
}

}  // namespace tether::core
