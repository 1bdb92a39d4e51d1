#include "core/bench_scenes.h"

#include <cmath>
#include <string>

namespace tether::core {

Scene hangingChain(int n) {
  const double length = 0.1, radius = 0.01, mass = 0.05;
  Scene s;
  s.settings.dt = 1.0 / 240.0;
  s.settings.gravity = Vec3(0, 0, -9.81);
  s.settings.duration = 2.0;
  s.nails.push_back({"nail", Vec3::Zero()});
  const Quat alongX = Quat::FromTwoVectors(Vec3::UnitZ(), Vec3::UnitX());
  for (int i = 0; i < n; ++i) {
    BodyDef b;
    b.name = "rod" + std::to_string(i);
    b.shape = Shape::Rod;
    b.length = length;
    b.radius = radius;
    b.density = mass / (M_PI * radius * radius * length);
    b.position = Vec3((i + 0.5) * length, 0, 0);
    b.orientation = alongX;
    s.bodies.push_back(b);
    ConstraintDef c;
    c.kind = i == 0 ? ConstraintKind::PointToNail : ConstraintKind::PointToPoint;
    c.name = "joint" + std::to_string(i);
    c.a.body = b.name;
    c.a.point = "end1";
    if (i == 0) {
      c.nail = "nail";
    } else {
      c.b = c.a;
      c.a.body = "rod" + std::to_string(i - 1);
      c.a.point = "end2";
    }
    s.constraints.push_back(c);
  }
  return s;
}

}  // namespace tether::core
