// What the GUI draws: an immutable picture of a simulation at one instant (ARCHITECTURE.md,
// "Threads"). The solver thread fills a Snapshot after each frame's steps and publishes it; the
// viewport draws it holding no lock. The parts that change only when the scene is recompiled
// (shapes, control points, nails, path curves, names) live in a shared SceneGeometry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/contact_draw.h"
#include "core/forces.h"
#include "core/model.h"
#include "core/simulation.h"

namespace tether::core {

struct BodyGeometry {
  std::string name;
  Shape shape = Shape::Rod;
  double length = 1.0, radius = 0.05;            // rod, sphere: m
  double majorRadius = 0.2, minorRadius = 0.04;  // torus: m
  Vec3 size = Vec3::Ones();                      // box extents: m
  bool fixed = false;
  std::vector<NamedPoint> points;                // every control point: the shape's, then the user's
};

struct PathGeometry {
  std::string name;
  std::vector<Vec3> curve;     // the path's trace, world, m
  bool closed = false;
  std::vector<Vec3> keyframes; // spline: the keyframes' positions (draggable handles), m
};

struct SceneGeometry {
  std::vector<BodyGeometry> bodies;              // Model body order
  std::vector<NailDef> nails;
  std::vector<PlaneDef> planes;                  // the ground planes (contacts), scene order
  std::vector<PathGeometry> paths;               // Model path order
  // per runtime constraint (Model order: a definition's parts each have an entry)
  std::vector<std::string> constraintNames;
  std::vector<ConstraintDef> constraintDefs;     // the definition (its type draws guides from it)
  std::vector<std::uint8_t> constraintTurns;     // its deviation is a turn (rad): its two points are the bodies' centres
  std::vector<std::string> forceNames;
  std::vector<ForceKind> forceKinds;
};

// Builds the geometry of a scene compiled into model (same scene).
std::shared_ptr<const SceneGeometry> sceneGeometry(const Scene& scene, const Model& model);

struct BodyPose {
  bool active = true;
  Vec3 x = Vec3::Zero();           // centre of mass, m
  Quat q = Quat::Identity();       // body -> world
  Vec3 v = Vec3::Zero();           // m/s
  Vec3 w = Vec3::Zero();           // rad/s
  Vec3 externalForce = Vec3::Zero();  // net applied force (gravity, springs, ...), N
};

struct ConstraintDraw {
  bool active = false;
  double deviation = -1.0;         // |D|, units of the constraint; -1 inactive
  Vec3 point[2];                   // the constraint's two points (e.g. body point and nail), m
  int nb = 0;                      // bodies it pushes
  int body[2] = {-1, -1};
  Vec3 at[2];                      // where the force on body[s] acts, m
  Vec3 force[2];                   // force on body[s], N
  Vec3 torque[2];                  // torque on body[s] not explained by force at at[s], N m
};

struct ForceDraw {
  bool active = false;
  Vec3 a = Vec3::Zero(), b = Vec3::Zero();  // spring ends / application point, m
  Vec3 vector = Vec3::Zero();      // constant force N or torque N m
};

struct Snapshot {
  std::shared_ptr<const SceneGeometry> geometry;
  long revision = 0;               // the document revision this snapshot reflects
  double t = 0.0;                  // s
  long steps = 0;                  // integrator steps since the last load or reset
  double stepsPerSecond = 0.0;     // measured by the publisher
  bool playing = false;
  std::string message;             // e.g. why the simulation paused
  std::vector<BodyPose> bodies;
  std::vector<ConstraintDraw> constraints;
  std::vector<ForceDraw> forces;
  std::vector<Vec3> pathPoints;    // each path's moving point now, m
  // the contacts of the last step the simulation took, and its contact problem ("" if none); for
  // a frame replayed from the GUI's history, the contacts recorded with it (no problem text)
  std::vector<ContactDraw> contacts;
  std::string contactProblem;
  // the first step that needed more substeps than max_substeps allows, in words with the fix
  // (SubstepShortfall::first; "" if none yet)
  std::string substepShortfall;
  Energy energy;
  double maxDeviation = 0.0;       // over active constraints
  bool mouseActive = false;        // the mouse spring, from its body point to the target
  Vec3 mouseFrom = Vec3::Zero(), mouseTo = Vec3::Zero();
};

// Evaluates the simulation at its current state (Simulation::refresh) and fills out from it.
void fillSnapshot(Simulation& sim, std::shared_ptr<const SceneGeometry> geometry, Snapshot& out);
// The contacts of the simulation's last step, as drawn (and recorded with a frame).
void contactDraws(const Simulation& sim, std::vector<ContactDraw>& out);

// World position of a body's local point in a pose.
inline Vec3 worldPoint(const BodyPose& p, const Vec3& local) { return p.x + p.q * local; }

}  // namespace tether::core
