// Primitive rigid bodies: analytic mass properties and named control points.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/scene.h"

namespace tether::core {

struct MassProperties {
  double mass = 0.0;             // kg
  Vec3 inertia = Vec3::Zero();   // principal moments about the centre of mass, body axes, kg m^2
};

// Mass and principal inertia of a body from its shape and density (all shapes are symmetric
// about their body axes, so the body-frame inertia tensor is diagonal):
//   rod (solid cylinder, axis z, radius r, length L): m = rho pi r^2 L,
//     Ixx = Iyy = m (3 r^2 + L^2) / 12, Izz = m r^2 / 2
//   sphere (radius r): m = rho 4/3 pi r^3, I = 2/5 m r^2
//   torus (centre-line radius R in the xy plane, tube radius a): m = rho 2 pi^2 R a^2,
//     Izz = m (R^2 + 3/4 a^2), Ixx = Iyy = m (R^2 / 2 + 5/8 a^2)
//   box (extents a, b, c): m = rho a b c, Ixx = m (b^2 + c^2) / 12, and cyclic
MassProperties massProperties(const BodyDef& b);

// The named control points every body of a shape has, in body coordinates:
//   all shapes: center
//   rod: end1 (0,0,-L/2), end2 (0,0,+L/2)
//   sphere: top/bottom (+-z r), right/left (+-x r), back/front (+-y r)
//   box: top/bottom/right/left/back/front face centres, corner0..corner7
//        (corner i has x sign bit 0, y bit 1, z bit 2: 0 = negative side)
//   torus: east/west (+-x R), north/south (+-y R): points on the centre-line circle
std::vector<NamedPoint> shapePoints(const BodyDef& b);

// Look up a control point by name: shape points first, then the body's own points.
std::optional<Vec3> findPoint(const BodyDef& b, const std::string& name);

}  // namespace tether::core
