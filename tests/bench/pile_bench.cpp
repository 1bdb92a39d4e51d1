// A pile of spheres and capsules poured into a box: Tether against Bullet and ODE on the same
// scene in one run (issue 20's benchmark; the peers are a benchmark, not part of the product).
//
//   build/release/tests/bench/pile_bench [--side N] [--seconds T] [--engines tether,bullet,ode]
//                                        [--write-scene FILE]  (Tether's scene, to open in the app)
//
// The scene: N x N x N bodies (default 10: 1 000) on a lattice of 8 cm cells, alternately a
// sphere (radius 3.5 cm) and a capsule (radius 2 cm, 6 cm segment, a random axis), jittered by
// up to 5 mm, released at rest 1 cm above the floor of a box of five planes (floor and four
// walls, 8 N cm wide) under gravity; density 1 000 kg/m^3, friction 0.5, no restitution; the
// same step, dt = 1 ms, for every engine, each with its own contact solver at its defaults
// (Tether: settings as a scene file has them with "contacts": true; Bullet:
// btDiscreteDynamicsWorld with the sequential-impulse solver, 10 iterations, double precision;
// ODE: dWorldQuickStep, 20 iterations, ERP 0.2, CFM 1e-5, up to 4 contacts per pair).
//
// Measured per engine: wall time per step (the median of 100-step windows, and over the whole
// run), and the penetration of the final pose and the largest over the run's last second, both
// taken the same way for every engine: Tether's collision detector (Bullet's narrow phase,
// exact for spheres, capsules and planes) on the engine's body poses.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#define BT_USE_DOUBLE_PRECISION
#include <btBulletDynamicsCommon.h>
#include <ode/ode.h>

#include "core/collision.h"
#include "core/model.h"
#include "core/scene_io.h"
#include "core/simulation.h"

namespace {

using namespace tether::core;

constexpr double kCell = 0.08, kSphereR = 0.035, kCapsuleR = 0.02, kCapsuleL = 0.06, kDensity = 1000.0,
                 kFriction = 0.5, kDt = 1e-3, kG = 9.81;

struct PileBody {
  bool sphere = true;
  Vec3 x = Vec3::Zero();
  Quat q = Quat::Identity();
};

std::vector<PileBody> pile(int side) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<PileBody> out;
  for (int k = 0; k < side; ++k)
    for (int j = 0; j < side; ++j)
      for (int i = 0; i < side; ++i) {
        PileBody b;
        b.sphere = (i + j + k) % 2 == 0;
        b.x = Vec3((i + 0.5) * kCell, (j + 0.5) * kCell, 0.01 + (k + 0.5) * kCell) +
              0.005 * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
        if (!b.sphere) b.q = Quat(Eigen::AngleAxisd(6.3 * u(rng), Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5).normalized()));
        out.push_back(b);
      }
  return out;
}

std::vector<GroundPlane> boxPlanes(int side) {
  const double w = side * kCell;
  return {{.point = Vec3::Zero(), .normal = Vec3::UnitZ()}, {.point = Vec3::Zero(), .normal = Vec3::UnitX()},
          {.point = Vec3(w, w, 0), .normal = -Vec3::UnitX()}, {.point = Vec3::Zero(), .normal = Vec3::UnitY()},
          {.point = Vec3(w, w, 0), .normal = -Vec3::UnitY()}};
}

// The deepest overlap of the poses, by Tether's detector.
double penetration(const std::vector<PileBody>& shapes, const std::vector<std::pair<Vec3, Quat>>& poses, int side) {
  static CollisionDetector detector;
  CollisionQuery q;
  for (size_t i = 0; i < shapes.size(); ++i) {
    CollisionBody b;
    b.shape = shapes[i].sphere ? Shape::Sphere : Shape::Rod;
    b.radius = shapes[i].sphere ? kSphereR : kCapsuleR;
    b.length = kCapsuleL;
    b.x = poses[i].first;
    b.q = poses[i].second;
    q.bodies.push_back(b);
  }
  q.planes = boxPlanes(side);
  double deepest = 0.0;
  for (const ContactManifold& m : detector.detect(q))
    for (const Contact& c : m.contacts) deepest = std::max(deepest, c.depth);
  return deepest;
}

// An engine under test: steps once; reports its poses.
struct Engine {
  std::string name;
  std::function<void()> step;
  std::function<std::vector<std::pair<Vec3, Quat>>()> poses;
};

Scene tetherScene(const std::vector<PileBody>& shapes, int side) {
  Scene s;
  s.settings.dt = kDt;
  s.settings.contacts = true;
  for (size_t i = 0; i < shapes.size(); ++i) {
    BodyDef b;
    b.name = "b" + std::to_string(i);
    b.shape = shapes[i].sphere ? Shape::Sphere : Shape::Rod;
    b.radius = shapes[i].sphere ? kSphereR : kCapsuleR;
    b.length = kCapsuleL;
    b.density = kDensity;
    b.position = shapes[i].x;
    b.orientation = shapes[i].q;
    b.restitution = 0.0;
    b.friction = b.staticFriction = kFriction;
    s.bodies.push_back(b);
  }
  int k = 0;
  for (const GroundPlane& p : boxPlanes(side)) {
    PlaneDef d;
    d.name = "wall" + std::to_string(k++);
    d.point = p.point;
    d.normal = p.normal;
    d.restitution = 0.0;
    d.friction = d.staticFriction = kFriction;
    s.planes.push_back(d);
  }
  return s;
}

Engine tetherEngine(const std::vector<PileBody>& shapes, int side) {
  const Scene s = tetherScene(shapes, side);
  auto sim = std::make_shared<Simulation>(std::make_shared<const Model>(compile(s)));
  return {"Tether", [sim] {
            if (!sim->advanceTo(sim->state().t + kDt).ok) {
              std::fprintf(stderr, "Tether: the run failed at t = %g s\n", sim->state().t);
              std::exit(1);
            }
          },
          [sim] {
            std::vector<std::pair<Vec3, Quat>> out;
            for (const BodyState& b : sim->state().bodies) out.push_back({b.x, b.q});
            return out;
          }};
}

Engine bulletEngine(const std::vector<PileBody>& shapes, int side) {
  struct World {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    btSphereShape sphere{kSphereR};
    btCapsuleShapeZ capsule{kCapsuleR, kCapsuleL};
    std::vector<std::unique_ptr<btStaticPlaneShape>> planeShapes;
    std::vector<std::unique_ptr<btDefaultMotionState>> motion;
    std::vector<std::unique_ptr<btRigidBody>> bodies, planes;
    ~World() {
      for (auto& b : bodies) world.removeRigidBody(b.get());
      for (auto& b : planes) world.removeRigidBody(b.get());
    }
  };
  auto w = std::make_shared<World>();
  w->world.setGravity(btVector3(0, 0, -kG));
  const double pi = 3.14159265358979323846;
  for (const GroundPlane& p : boxPlanes(side)) {
    const btVector3 n(p.normal.x(), p.normal.y(), p.normal.z());
    w->planeShapes.push_back(std::make_unique<btStaticPlaneShape>(n, p.normal.dot(p.point)));
    btRigidBody::btRigidBodyConstructionInfo info(0.0, nullptr, w->planeShapes.back().get());
    info.m_friction = kFriction;
    info.m_restitution = 0.0;
    w->planes.push_back(std::make_unique<btRigidBody>(info));
    w->world.addRigidBody(w->planes.back().get());
  }
  for (const PileBody& b : shapes) {
    btCollisionShape* shape = b.sphere ? static_cast<btCollisionShape*>(&w->sphere) : &w->capsule;
    const double mass = kDensity * (b.sphere ? 4.0 / 3.0 * pi * kSphereR * kSphereR * kSphereR
                                             : pi * kCapsuleR * kCapsuleR * (kCapsuleL + 4.0 / 3.0 * kCapsuleR));
    btVector3 inertia;
    shape->calculateLocalInertia(mass, inertia);
    btTransform t;
    t.setOrigin(btVector3(b.x.x(), b.x.y(), b.x.z()));
    t.setRotation(btQuaternion(b.q.x(), b.q.y(), b.q.z(), b.q.w()));
    w->motion.push_back(std::make_unique<btDefaultMotionState>(t));
    btRigidBody::btRigidBodyConstructionInfo info(mass, w->motion.back().get(), shape, inertia);
    info.m_friction = kFriction;
    info.m_restitution = 0.0;
    w->bodies.push_back(std::make_unique<btRigidBody>(info));
    w->world.addRigidBody(w->bodies.back().get());
  }
  return {"Bullet", [w] { w->world.stepSimulation(kDt, 0); },
          [w] {
            std::vector<std::pair<Vec3, Quat>> out;
            for (const auto& b : w->bodies) {
              const btTransform& t = b->getWorldTransform();
              const btQuaternion r = t.getRotation();
              out.push_back({Vec3(t.getOrigin().x(), t.getOrigin().y(), t.getOrigin().z()), Quat(r.w(), r.x(), r.y(), r.z())});
            }
            return out;
          }};
}

Engine odeEngine(const std::vector<PileBody>& shapes, int side) {
  struct World {
    dWorldID world = nullptr;
    dSpaceID space = nullptr;
    dJointGroupID contacts = nullptr;
    std::vector<dBodyID> bodies;
    ~World() {
      dJointGroupDestroy(contacts);
      dSpaceDestroy(space);
      dWorldDestroy(world);
      dCloseODE();
    }
  };
  dInitODE2(0);
  auto w = std::make_shared<World>();
  w->world = dWorldCreate();
  w->space = dHashSpaceCreate(nullptr);
  w->contacts = dJointGroupCreate(0);
  dWorldSetGravity(w->world, 0, 0, -kG);
  dWorldSetQuickStepNumIterations(w->world, 20);
  dWorldSetERP(w->world, 0.2);
  dWorldSetCFM(w->world, 1e-5);
  for (const GroundPlane& p : boxPlanes(side)) dCreatePlane(w->space, p.normal.x(), p.normal.y(), p.normal.z(), p.normal.dot(p.point));
  for (const PileBody& b : shapes) {
    dBodyID body = dBodyCreate(w->world);
    dMass m;
    dGeomID g;
    if (b.sphere) {
      dMassSetSphere(&m, kDensity, kSphereR);
      g = dCreateSphere(w->space, kSphereR);
    } else {
      dMassSetCapsule(&m, kDensity, 3, kCapsuleR, kCapsuleL);  // along z
      g = dCreateCapsule(w->space, kCapsuleR, kCapsuleL);
    }
    dBodySetMass(body, &m);
    dGeomSetBody(g, body);
    dBodySetPosition(body, b.x.x(), b.x.y(), b.x.z());
    const dQuaternion q{b.q.w(), b.q.x(), b.q.y(), b.q.z()};
    dBodySetQuaternion(body, q);
    w->bodies.push_back(body);
  }
  auto nearCallback = [](void* data, dGeomID a, dGeomID b) {
    World* world = static_cast<World*>(data);
    dContact c[4];
    const int n = dCollide(a, b, 4, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
      c[i].surface.mode = dContactApprox1;
      c[i].surface.mu = kFriction;
      dJointID j = dJointCreateContact(world->world, world->contacts, &c[i]);
      dJointAttach(j, dGeomGetBody(a), dGeomGetBody(b));
    }
  };
  return {"ODE", [w, nearCallback] {
            dSpaceCollide(w->space, w.get(), nearCallback);
            dWorldQuickStep(w->world, kDt);
            dJointGroupEmpty(w->contacts);
          },
          [w] {
            std::vector<std::pair<Vec3, Quat>> out;
            for (dBodyID b : w->bodies) {
              const dReal* p = dBodyGetPosition(b);
              const dReal* q = dBodyGetQuaternion(b);
              out.push_back({Vec3(p[0], p[1], p[2]), Quat(q[0], q[1], q[2], q[3]).normalized()});
            }
            return out;
          }};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int side = 10;
  double seconds = 3.0;
  std::string engines = "tether,bullet,ode", sceneFile;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--side")) side = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--engines")) engines = argv[i + 1];
    else if (!std::strcmp(argv[i], "--write-scene")) sceneFile = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: pile_bench [--side N] [--seconds T] [--engines tether,bullet,ode] [--write-scene FILE]\n");
      return 2;
    }
  }
  if (side < 1 || side > 30 || !(seconds > 0.0)) {
    std::fprintf(stderr, "pile_bench: --side must be 1..30 and --seconds > 0\n");
    return 2;
  }
  const std::vector<PileBody> shapes = pile(side);
  if (!sceneFile.empty()) {
    saveScene(tetherScene(shapes, side), sceneFile);
    std::printf("wrote %s\n", sceneFile.c_str());
    return 0;
  }
  const int steps = static_cast<int>(seconds / kDt + 0.5), lastSecond = std::max(0, steps - static_cast<int>(1.0 / kDt));
  std::printf("pile of %zu spheres and capsules in a box, dt = %g s, %g s simulated\n", shapes.size(), kDt, seconds);
  std::printf("%-8s %22s %18s %22s %24s\n", "engine", "median us/step (100)", "mean us/step", "final penetration mm",
              "max penetration mm (1 s)");
  for (const char* which : {"tether", "bullet", "ode"}) {
    if (engines.find(which) == std::string::npos) continue;
    Engine e = !std::strcmp(which, "tether") ? tetherEngine(shapes, side)
               : !std::strcmp(which, "bullet") ? bulletEngine(shapes, side)
                                               : odeEngine(shapes, side);
    std::vector<double> windows;
    double total = 0.0, window = 0.0, worst = 0.0;
    using Clock = std::chrono::steady_clock;
    for (int k = 0; k < steps; ++k) {
      const auto t0 = Clock::now();
      e.step();
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      total += us;
      window += us;
      if ((k + 1) % 100 == 0) {
        windows.push_back(window / 100.0);
        window = 0.0;
      }
      if (k >= lastSecond && (k - lastSecond) % 20 == 0) worst = std::max(worst, penetration(shapes, e.poses(), side));
    }
    const double final = penetration(shapes, e.poses(), side);
    worst = std::max(worst, final);
    std::printf("%-8s %22.0f %18.0f %22.3f %24.3f\n", e.name.c_str(), median(windows), total / steps, 1e3 * final, 1e3 * worst);
    std::fflush(stdout);
  }
  return 0;
}
