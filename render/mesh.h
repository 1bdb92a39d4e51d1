// Unit meshes the renderer instances: every shape is one of these scaled, rotated and moved.
#pragma once

#include <cstdint>
#include <vector>

namespace tether::render {

struct MeshData {
  std::vector<float> vertices;        // x y z nx ny nz per vertex
  std::vector<std::uint32_t> indices;  // triangles
};

MeshData cylinderMesh(int segments, bool caps = true);  // radius 1, z in [-1/2, 1/2]
MeshData sphereMesh(int slices, int stacks);    // radius 1
MeshData boxMesh();                             // [-1/2, 1/2]^3
MeshData coneMesh(int segments, bool cap = true);  // base radius 1 at z = 0, apex at z = 1
MeshData torusMesh(double tubeRatio, int rings, int sides);  // centre-line radius 1 in xy, tube radius tubeRatio

}  // namespace tether::render
