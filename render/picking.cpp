#include "render/picking.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "render/scene_walk.h"

namespace tether::render {

using core::BodyGeometry;
using core::BodyPose;
using core::Shape;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// |o + t d| = r: t^2 + 2 (o.d) t + |o|^2 - r^2 = 0 (d unit); the smaller positive root
double raySphere(const Vec3& o, const Vec3& d, double r) {
  const double b = o.dot(d), c = o.squaredNorm() - r * r;
  const double disc = b * b - c;
  if (disc < 0) return kInf;
  const double s = std::sqrt(disc);
  if (-b - s > 0) return -b - s;
  if (-b + s > 0) return -b + s;
  return kInf;
}

// slab method on the box |x_i| <= h_i
double rayBox(const Vec3& o, const Vec3& d, const Vec3& h) {
  double t0 = -kInf, t1 = kInf;
  for (int i = 0; i < 3; ++i) {
    if (std::abs(d(i)) < 1e-15) {
      if (std::abs(o(i)) > h(i)) return kInf;
      continue;
    }
    double a = (-h(i) - o(i)) / d(i), b = (h(i) - o(i)) / d(i);
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
  }
  if (t0 > t1 || t1 <= 0) return kInf;
  return t0 > 0 ? t0 : t1;
}

// solid cylinder x^2 + y^2 <= r^2, |z| <= L/2: the side (a quadratic in t) and both caps
double rayCylinder(const Vec3& o, const Vec3& d, double r, double L) {
  double best = kInf;
  const double a = d.x() * d.x() + d.y() * d.y();
  if (a > 1e-15) {
    const double b = o.x() * d.x() + o.y() * d.y(), c = o.x() * o.x() + o.y() * o.y() - r * r;
    const double disc = b * b - a * c;
    if (disc >= 0)
      for (double t : {(-b - std::sqrt(disc)) / a, (-b + std::sqrt(disc)) / a})
        if (t > 0 && std::abs(o.z() + t * d.z()) <= 0.5 * L) best = std::min(best, t);
  }
  if (std::abs(d.z()) > 1e-15)
    for (double zc : {-0.5 * L, 0.5 * L}) {
      const double t = (zc - o.z()) / d.z();
      const Vec3 p = o + t * d;
      if (t > 0 && p.x() * p.x() + p.y() * p.y() <= r * r) best = std::min(best, t);
    }
  return best;
}

// torus (centre-line radius R in the xy plane, tube radius a): sphere tracing its signed
// distance f(p) = |(|p_xy| - R, p_z)| - a, from where the ray enters its bounding sphere
double rayTorus(const Vec3& o, const Vec3& d, double R, double a) {
  double t = raySphere(o, d, R + a);
  if (t == kInf) return kInf;
  if (o.norm() < R + a) t = 0;
  for (int i = 0; i < 200 && t < 4 * (R + a) + o.norm(); ++i) {
    const Vec3 p = o + t * d;
    const double q = std::hypot(std::hypot(p.x(), p.y()) - R, p.z()) - a;
    if (q < 1e-6 * (R + a)) return t > 0 ? t : kInf;
    t += q;
  }
  return kInf;
}

double screenDistance(const Camera& c, const Vec3& w, double px, double py) {
  double x, y;
  if (!c.project(w, x, y)) return kInf;
  return std::hypot(x - px, y - py);
}

}  // namespace

std::optional<double> intersectBody(const BodyGeometry& g, const BodyPose& pose, const Ray& ray) {
  // into body coordinates: o = R^T (origin - x), d = R^T direction
  const Vec3 o = pose.q.conjugate() * (ray.origin - pose.x);
  const Vec3 d = pose.q.conjugate() * ray.direction;
  double t = kInf;
  switch (g.shape) {
    case Shape::Rod: t = rayCylinder(o, d, g.radius, g.length); break;
    case Shape::Sphere: t = raySphere(o, d, g.radius); break;
    case Shape::Box: t = rayBox(o, d, 0.5 * g.size); break;
    case Shape::Torus: t = rayTorus(o, d, g.majorRadius, g.minorRadius); break;
  }
  if (t == kInf) return std::nullopt;
  return t;
}

Hit pickBody(const core::Snapshot& s, const Ray& ray) {
  Hit h;
  h.distance = kInf;
  for (size_t i = 0; i < s.bodies.size() && i < s.geometry->bodies.size(); ++i) {
    if (!s.bodies[i].active) continue;
    const auto t = intersectBody(s.geometry->bodies[i], s.bodies[i], ray);
    if (t && *t < h.distance) {
      h.kind = Hit::Kind::Body;
      h.index = int(i);
      h.distance = *t;
      h.position = ray.origin + *t * ray.direction;
    }
  }
  return h;
}

Hit pickPlane(const core::Snapshot& s, const Ray& ray) {
  Hit h;
  h.distance = kInf;
  for (size_t i = 0; i < s.geometry->planes.size(); ++i) {
    const core::PlaneDef& pl = s.geometry->planes[i];
    const Vec3 n = pl.normal.normalized();
    Vec3 at;
    if (!n.allFinite() || !hitPlane(ray, pl.point, n, at)) continue;
    const double t = (at - ray.origin).norm();  // (the ray's direction is a unit vector)
    if (t >= h.distance) continue;
    // on the square drawn for it: its sides along the images of x and y (as the renderer turns it)
    const Vec3 d = at - pl.point;
    const Quat q = Quat::FromTwoVectors(Vec3::UnitZ(), n);
    const double half = 0.5 * planeSide(pl, s);
    if (std::abs(d.dot(q * Vec3::UnitX())) > half || std::abs(d.dot(q * Vec3::UnitY())) > half) continue;
    h.kind = Hit::Kind::Plane;
    h.index = int(i);
    h.distance = t;
    h.position = pl.point + d;
  }
  return h;
}

// Rays through rings of pixels around the cursor, nearest ring first. A ring of radius r with
// n rays leaves gaps of 2 pi r / n pixels between them; 2 pi 6 / 24 ~ 1.6 px, so anything wider
// than two pixels on screen within the radius is met by some ray. 4 rings x 24 rays: ~100 ray
// casts per pick, a few microseconds per body, only on a click or a mouse move.
Hit pickBodyNear(const core::Snapshot& s, const Camera& c, double px, double py, double radius) {
  if (Hit h = pickBody(s, c.ray(px, py))) return h;
  constexpr int kRays = 24;
  const int rings = std::max(1, int(std::ceil(radius / 1.5)));
  for (int ring = 1; ring <= rings; ++ring) {
    const double r = radius * ring / rings;
    Hit best;
    best.distance = kInf;
    for (int k = 0; k < kRays; ++k) {
      const double a = 2 * std::numbers::pi * (k + 0.5 * (ring % 2)) / kRays;  // alternate rings offset by half a gap
      const Hit h = pickBody(s, c.ray(px + r * std::cos(a), py + r * std::sin(a)));
      if (h && h.distance < best.distance) best = h;
    }
    if (best) return best;
  }
  return {};
}

std::vector<Hit> controlPointsWithin(const core::Snapshot& s, const Camera& c, double px, double py, double radius) {
  std::vector<Hit> out;
  for (size_t i = 0; i < s.bodies.size() && i < s.geometry->bodies.size(); ++i) {
    if (!s.bodies[i].active) continue;
    const auto& pts = s.geometry->bodies[i].points;
    for (size_t k = 0; k < pts.size(); ++k) {
      const Vec3 w = core::worldPoint(s.bodies[i], pts[k].local);
      const double dist = screenDistance(c, w, px, py);
      if (dist <= radius) out.push_back({Hit::Kind::ControlPoint, int(i), int(k), w, dist});
    }
  }
  return out;
}

Hit pickControlPoint(const core::Snapshot& s, const Camera& c, double px, double py, double radius, int avoid) {
  Hit h;
  h.distance = radius;
  double bestDepth = kInf, bestOff = kInf;
  for (const Hit& p : controlPointsWithin(s, c, px, py, radius)) {
    const double depth = (p.position - c.eye()).norm();
    const double off = s.geometry->bodies[size_t(p.index)].points[size_t(p.point)].local.norm();
    // a point not on `avoid` anywhere within the radius before one on it (two rods drawn end to
    // end: the second's end could not be clicked to join it to the first's; a helper's hinge, its
    // second click on the fixed box's centre, took the first body's point a pixel nearer again,
    // and the hinge was refused: Tab still reaches that one, ui ToolContext::targetAt); then the
    // nearest on screen; among coincident ones of one body the nearest its centre (in the front
    // view a ball's front pole hid its centre: a spring a user hooked to the middle of the ball
    // pulled at its front, turning it out of the picture), of others the nearest the eye
    const bool sameBody = h.kind == Hit::Kind::ControlPoint && h.index == p.index;
    const bool bestAvoided = h.kind == Hit::Kind::ControlPoint && h.index == avoid;
    if (h.kind == Hit::Kind::ControlPoint && bestAvoided != (p.index == avoid)) {
      if (bestAvoided) {
        h = p;
        bestDepth = depth;
        bestOff = off;
      }
      continue;
    }
    const bool closer = sameBody ? off < bestOff - 1e-12 : depth < bestDepth;
    if (p.distance < h.distance - 0.5 || (p.distance <= h.distance + 0.5 && closer)) {
      h = p;
      bestDepth = depth;
      bestOff = off;
    }
  }
  return h;
}

namespace {

// Offer point w (index, sub-index) to a screen-space search: it wins if it is within the best
// distance so far (h.distance starts at the search radius).
void offer(Hit& h, Hit::Kind kind, int index, int point, const Vec3& w, const Camera& c, double px, double py) {
  const double dist = screenDistance(c, w, px, py);
  if (dist > h.distance) return;
  h.kind = kind;
  h.index = index;
  h.point = point;
  h.distance = dist;
  h.position = w;
}

}  // namespace

Hit pickNail(const core::Snapshot& s, const Camera& c, double px, double py, double radius) {
  Hit h;
  h.distance = radius;
  for (size_t i = 0; i < s.geometry->nails.size(); ++i)
    offer(h, Hit::Kind::Nail, int(i), -1, s.geometry->nails[i].position, c, px, py);
  return h;
}

Hit pickKeyframe(const core::Snapshot& s, const Camera& c, double px, double py, double radius) {
  Hit h;
  h.distance = radius;
  for (size_t i = 0; i < s.geometry->paths.size(); ++i) {
    const auto& keys = s.geometry->paths[i].keyframes;
    for (size_t k = 0; k < keys.size(); ++k) offer(h, Hit::Kind::Keyframe, int(i), int(k), keys[k], c, px, py);
  }
  return h;
}

Hit pickPathPoint(const core::Snapshot& s, const Camera& c, double px, double py, double radius) {
  Hit h;
  h.distance = radius;
  for (size_t i = 0; i < s.pathPoints.size(); ++i) offer(h, Hit::Kind::PathPoint, int(i), -1, s.pathPoints[i], c, px, py);
  return h;
}

Hit pickSegment(const std::vector<Segment>& segs, const Camera& c, double px, double py, double radius) {
  Hit h;
  h.distance = radius;
  for (size_t i = 0; i < segs.size(); ++i) {
    double ax, ay, bx, by;
    if (!c.project(segs[i].from, ax, ay) || !c.project(segs[i].to, bx, by)) continue;
    // distance from the cursor to the screen segment a-b
    const double vx = bx - ax, vy = by - ay, l2 = vx * vx + vy * vy;
    const double u = l2 > 0 ? std::clamp(((px - ax) * vx + (py - ay) * vy) / l2, 0.0, 1.0) : 0.0;
    const double dist = std::hypot(ax + u * vx - px, ay + u * vy - py);
    if (dist <= h.distance) {
      h.kind = Hit::Kind::Segment;
      h.index = int(i);
      h.distance = dist;
      h.position = segs[i].from + u * (segs[i].to - segs[i].from);
    }
  }
  return h;
}

}  // namespace tether::render
