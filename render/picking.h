// Picking: what is under the cursor. Bodies by exact ray-shape intersection in body
// coordinates; control points, nails, path points and drawn segments (arrows, constraint lines)
// by screen distance in pixels. Pure math on a core::Snapshot.
#pragma once

#include <optional>
#include <vector>

#include "core/snapshot.h"
#include "render/camera.h"

namespace tether::render {

// Ray parameter of the first hit of a body, if any.
std::optional<double> intersectBody(const core::BodyGeometry& g, const core::BodyPose& pose, const Ray& ray);

struct Hit {
  enum class Kind { None, Body, Nail, ControlPoint, PathPoint, Keyframe, Segment, Plane };
  Kind kind = Kind::None;
  int index = -1;       // body, nail, path, segment or ground plane index
  int point = -1;       // ControlPoint: index into the body's geometry points; Keyframe: its index
  Vec3 position = Vec3::Zero();  // world: the hit on the surface, or the point picked
  double distance = 0;  // ray parameter (Body) or pixels (others)
  explicit operator bool() const { return kind != Kind::None; }
};

// The nearest body the ray hits (inactive bodies are skipped).
Hit pickBody(const core::Snapshot& s, const Ray& ray);
// The nearest ground plane the ray meets on its drawn square (planeSide wide, render/scene_walk.h),
// from either side; distance is the ray parameter.
Hit pickPlane(const core::Snapshot& s, const Ray& ray);
// The body under pixel (px, py), or else the body nearest to it on screen within radius pixels:
// a thin rod a few pixels wide, moving or not, is picked by a click beside it. position is on the
// body's surface (where the ray nearest to the cursor hits it); distance is the ray parameter.
Hit pickBodyNear(const core::Snapshot& s, const Camera& c, double px, double py, double radius);
// The nearest control point within radius pixels of (px, py). Among points on one spot, one not
// on body `avoid` (a constraint's second click: the first's body) wins.
Hit pickControlPoint(const core::Snapshot& s, const Camera& c, double px, double py, double radius, int avoid = -1);
// Every control point within radius pixels of (px, py), in no order (a spot where several meet:
// a tool's Tab steps through them).
std::vector<Hit> controlPointsWithin(const core::Snapshot& s, const Camera& c, double px, double py, double radius);
// The nearest nail within radius pixels.
Hit pickNail(const core::Snapshot& s, const Camera& c, double px, double py, double radius);
// The nearest keyframe handle of a spline path within radius pixels (index = path).
Hit pickKeyframe(const core::Snapshot& s, const Camera& c, double px, double py, double radius);
// The nearest path's moving point within radius pixels.
Hit pickPathPoint(const core::Snapshot& s, const Camera& c, double px, double py, double radius);

// A drawn segment (an arrow or a constraint line) that hovering can name.
struct Segment {
  enum class Kind { ConstraintForce, ConstraintTorque, ConstraintLine, ExternalForce, Velocity, Spring, ContactForce, AppliedForce,
                    AppliedTorque };  // (Applied: a constant force or torque, index its force)
  Kind kind = Kind::ConstraintForce;
  int index = -1;   // constraint, body, force or contact (Snapshot::contacts) index
  Vec3 from = Vec3::Zero(), to = Vec3::Zero();
};
Hit pickSegment(const std::vector<Segment>& segments, const Camera& c, double px, double py, double radius);

}  // namespace tether::render
