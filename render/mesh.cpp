#include "render/mesh.h"

#include <cmath>
#include <numbers>

namespace tether::render {

namespace {
constexpr double kTwoPi = 2.0 * std::numbers::pi;

void vertex(MeshData& m, double x, double y, double z, double nx, double ny, double nz) {
  for (double v : {x, y, z, nx, ny, nz}) m.vertices.push_back(float(v));
}
std::uint32_t count(const MeshData& m) { return std::uint32_t(m.vertices.size() / 6); }
void quad(MeshData& m, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  for (std::uint32_t i : {a, b, c, a, c, d}) m.indices.push_back(i);
}
// a flat disc at height z facing nz (+1 or -1)
void disc(MeshData& m, int segments, double z, double nz, double radius) {
  const std::uint32_t centre = count(m);
  vertex(m, 0, 0, z, 0, 0, nz);
  for (int i = 0; i <= segments; ++i) {
    const double a = kTwoPi * i / segments;
    vertex(m, radius * std::cos(a), radius * std::sin(a), z, 0, 0, nz);
  }
  for (int i = 0; i < segments; ++i) {
    const std::uint32_t p = centre + 1 + std::uint32_t(i);
    if (nz > 0) for (std::uint32_t k : {centre, p, p + 1}) m.indices.push_back(k);
    else for (std::uint32_t k : {centre, p + 1, p}) m.indices.push_back(k);
  }
}
}  // namespace

MeshData cylinderMesh(int segments, bool caps) {
  MeshData m;
  for (int i = 0; i <= segments; ++i) {
    const double a = kTwoPi * i / segments, c = std::cos(a), s = std::sin(a);
    vertex(m, c, s, -0.5, c, s, 0);
    vertex(m, c, s, 0.5, c, s, 0);
  }
  for (int i = 0; i < segments; ++i) {
    const std::uint32_t b = std::uint32_t(2 * i);
    quad(m, b, b + 2, b + 3, b + 1);
  }
  if (caps) {
    disc(m, segments, -0.5, -1, 1.0);
    disc(m, segments, 0.5, 1, 1.0);
  }
  return m;
}

MeshData sphereMesh(int slices, int stacks) {
  MeshData m;
  for (int j = 0; j <= stacks; ++j) {
    const double th = std::numbers::pi * j / stacks;
    for (int i = 0; i <= slices; ++i) {
      const double ph = kTwoPi * i / slices;
      const double x = std::sin(th) * std::cos(ph), y = std::sin(th) * std::sin(ph), z = -std::cos(th);
      vertex(m, x, y, z, x, y, z);
    }
  }
  const std::uint32_t row = std::uint32_t(slices + 1);
  for (int j = 0; j < stacks; ++j)
    for (int i = 0; i < slices; ++i) {
      const std::uint32_t a = std::uint32_t(j) * row + std::uint32_t(i);
      quad(m, a, a + 1, a + 1 + row, a + row);
    }
  return m;
}

MeshData boxMesh() {
  MeshData m;
  // six faces, four vertices each, normal along +-axis k
  for (int k = 0; k < 3; ++k)
    for (double s : {-1.0, 1.0}) {
      const int u = (k + 1) % 3, v = (k + 2) % 3;
      const std::uint32_t b = count(m);
      const double corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
      for (const auto& c : corners) {
        double p[3], n[3] = {0, 0, 0};
        p[k] = 0.5 * s;
        p[u] = 0.5 * c[0];
        p[v] = 0.5 * c[1] * s;  // flip the winding with the side so every face points out
        n[k] = s;
        vertex(m, p[0], p[1], p[2], n[0], n[1], n[2]);
      }
      quad(m, b, b + 1, b + 2, b + 3);
    }
  return m;
}

MeshData coneMesh(int segments, bool cap) {
  MeshData m;
  // side normal of a cone with slope radius 1 over height 1: (cos a, sin a, 1) / sqrt 2
  const double k = 1.0 / std::sqrt(2.0);
  for (int i = 0; i <= segments; ++i) {
    const double a = kTwoPi * i / segments, c = std::cos(a), s = std::sin(a);
    vertex(m, c, s, 0, c * k, s * k, k);
    vertex(m, 0, 0, 1, c * k, s * k, k);
  }
  for (int i = 0; i < segments; ++i) {
    const std::uint32_t b = std::uint32_t(2 * i);
    for (std::uint32_t x : {b, b + 2, b + 1}) m.indices.push_back(x);
  }
  if (cap) disc(m, segments, 0.0, -1, 1.0);
  return m;
}

MeshData torusMesh(double r, int rings, int sides) {
  MeshData m;
  for (int i = 0; i <= rings; ++i) {
    const double u = kTwoPi * i / rings, cu = std::cos(u), su = std::sin(u);
    for (int j = 0; j <= sides; ++j) {
      const double v = kTwoPi * j / sides, cv = std::cos(v), sv = std::sin(v);
      vertex(m, (1 + r * cv) * cu, (1 + r * cv) * su, r * sv, cv * cu, cv * su, sv);
    }
  }
  const std::uint32_t row = std::uint32_t(sides + 1);
  for (int i = 0; i < rings; ++i)
    for (int j = 0; j < sides; ++j) {
      const std::uint32_t a = std::uint32_t(i) * row + std::uint32_t(j);
      quad(m, a, a + row, a + row + 1, a + 1);
    }
  return m;
}

}  // namespace tether::render
