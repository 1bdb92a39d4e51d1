#include "core/body.h"

#include <cmath>

namespace tether::core {

MassProperties massProperties(const BodyDef& b) {
  MassProperties mp;
  switch (b.shape) {
    case Shape::Rod: {
      const double r = b.radius, L = b.length;
      mp.mass = b.density * M_PI * r * r * L;
      const double ixx = mp.mass * (3.0 * r * r + L * L) / 12.0;
      mp.inertia = Vec3(ixx, ixx, 0.5 * mp.mass * r * r);
      break;
    }
    case Shape::Sphere: {
      const double r = b.radius;
      mp.mass = b.density * 4.0 / 3.0 * M_PI * r * r * r;
      mp.inertia = Vec3::Constant(0.4 * mp.mass * r * r);
      break;
    }
    case Shape::Torus: {
      const double R = b.majorRadius, a = b.minorRadius;
      mp.mass = b.density * 2.0 * M_PI * M_PI * R * a * a;
      const double ixx = mp.mass * (0.5 * R * R + 0.625 * a * a);
      mp.inertia = Vec3(ixx, ixx, mp.mass * (R * R + 0.75 * a * a));
      break;
    }
    case Shape::Box: {
      const Vec3& s = b.size;
      mp.mass = b.density * s.x() * s.y() * s.z();
      mp.inertia = mp.mass / 12.0 *
                   Vec3(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(), s.x() * s.x() + s.y() * s.y());
      break;
    }
  }
  return mp;
}

std::vector<NamedPoint> shapePoints(const BodyDef& b) {
  std::vector<NamedPoint> pts{{"center", Vec3::Zero()}};
  auto faces = [&](const Vec3& h) {
    pts.push_back({"top", Vec3(0, 0, h.z())});
    pts.push_back({"bottom", Vec3(0, 0, -h.z())});
    pts.push_back({"right", Vec3(h.x(), 0, 0)});
    pts.push_back({"left", Vec3(-h.x(), 0, 0)});
    pts.push_back({"back", Vec3(0, h.y(), 0)});
    pts.push_back({"front", Vec3(0, -h.y(), 0)});
  };
  switch (b.shape) {
    case Shape::Rod:
      pts.push_back({"end1", Vec3(0, 0, -0.5 * b.length)});
      pts.push_back({"end2", Vec3(0, 0, 0.5 * b.length)});
      break;
    case Shape::Sphere: faces(Vec3::Constant(b.radius)); break;
    case Shape::Box: {
      const Vec3 h = 0.5 * b.size;
      faces(h);
      for (int i = 0; i < 8; ++i)
        pts.push_back({"corner" + std::to_string(i),
                       Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z())});
      break;
    }
    case Shape::Torus: {
      const double R = b.majorRadius;
      pts.push_back({"east", Vec3(R, 0, 0)});
      pts.push_back({"west", Vec3(-R, 0, 0)});
      pts.push_back({"north", Vec3(0, R, 0)});
      pts.push_back({"south", Vec3(0, -R, 0)});
      break;
    }
  }
  return pts;
}

std::optional<Vec3> findPoint(const BodyDef& b, const std::string& name) {
  for (const NamedPoint& p : shapePoints(b))
    if (p.name == name) return p.local;
  for (const NamedPoint& p : b.points)
    if (p.name == name) return p.local;
  return std::nullopt;
}

}  // namespace tether::core
