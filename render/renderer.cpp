#include "render/renderer.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "core/constraint_type.h"
#include "render/mesh.h"
#include "render/shaders.h"

namespace tether::render {

using core::Quat;
using core::Shape;
using core::Snapshot;

namespace {

struct Instance {
  float rot[4];
  float pos[3];
  float scale[3];
  float color[4];
};

struct LineVertex {
  float pos[3];
  float color[4];
};

GLuint compile(GLenum type, const char* file, std::string& error) {
  const char* src = shaderSource(file);
  if (!src) {
    error = std::string(file) + ": no such shader in resources/shaders/";
    return 0;
  }
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    error = std::string(file) + ": shader compile error: " + log;
    glDeleteShader(s);
    return 0;
  }
  return s;
}

GLuint link(const char* vs, const char* fs, std::string& error) {
  const GLuint v = compile(GL_VERTEX_SHADER, vs, error);
  if (!v) return 0;
  const GLuint f = compile(GL_FRAGMENT_SHADER, fs, error);
  if (!f) {
    glDeleteShader(v);
    return 0;
  }
  const GLuint p = glCreateProgram();
  glAttachShader(p, v);
  glAttachShader(p, f);
  glLinkProgram(p);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetProgramInfoLog(p, sizeof log, nullptr, log);
    error = std::string("shader link error: ") + log;
    glDeleteProgram(p);
    return 0;
  }
  return p;
}

Color mix(const Color& a, const Color& b, float t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t, a.a + (b.a - a.a) * t};
}

}  // namespace

// One instanced mesh: its geometry and a per-frame instance buffer.
struct GpuMesh {
  GLuint vao = 0, vbo = 0, ebo = 0, ibo = 0;
  GLsizei count = 0;
  std::vector<Instance> lit, flat;  // this frame's instances, shaded and unshaded

  void create(const MeshData& d) {
    glGenVertexArrays(1, &vao);
    glGenBuffers(1, &vbo);
    glGenBuffers(1, &ebo);
    glGenBuffers(1, &ibo);
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(d.vertices.size() * sizeof(float)), d.vertices.data(), GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), reinterpret_cast<void*>(3 * sizeof(float)));
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(d.indices.size() * sizeof(std::uint32_t)), d.indices.data(),
                 GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, ibo);
    const GLsizei stride = sizeof(Instance);
    const int sizes[4] = {4, 3, 3, 4};
    size_t offset = 0;
    for (int a = 0; a < 4; ++a) {
      glEnableVertexAttribArray(GLuint(2 + a));
      glVertexAttribPointer(GLuint(2 + a), sizes[a], GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(offset));
      glVertexAttribDivisor(GLuint(2 + a), 1);
      offset += size_t(sizes[a]) * sizeof(float);
    }
    glBindVertexArray(0);
    count = GLsizei(d.indices.size());
  }
  void destroy() {
    if (!vao) return;
    glDeleteVertexArrays(1, &vao);
    GLuint b[3] = {vbo, ebo, ibo};
    glDeleteBuffers(3, b);
    vao = 0;
  }
  void drawInstances(const std::vector<Instance>& inst) const {
    if (inst.empty()) return;
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, ibo);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(inst.size() * sizeof(Instance)), inst.data(), GL_STREAM_DRAW);
    glDrawElementsInstanced(GL_TRIANGLES, count, GL_UNSIGNED_INT, nullptr, GLsizei(inst.size()));
  }
};

struct Renderer::Gpu {
  GLuint meshProgram = 0, lineProgram = 0;
  GLint meshViewProj = -1, meshEye = -1, meshLit = -1, lineViewProj = -1;
  GpuMesh cylinder, sphere, box;
  GpuMesh shaft, head, dotMesh;  // low-poly meshes for arrows and dots (thin on screen: 8 sides suffice)
  GpuMesh thinRod;               // level of detail: rods a few pixels wide (the 1000-link chain)
  GpuMesh thinHead;              // level of detail: arrow heads when there are many arrows
  std::map<int, GpuMesh> tori;  // by tube ratio in thousandths
  GLuint lineVao = 0, lineVbo = 0;
  std::vector<LineVertex> lines;

  GpuMesh& torus(double ratio) {
    const int key = std::clamp(int(std::lround(ratio * 1000)), 1, 1000);
    auto it = tori.find(key);
    if (it == tori.end()) {
      it = tori.emplace(key, GpuMesh{}).first;
      it->second.create(torusMesh(key / 1000.0, 40, 16));
    }
    return it->second;
  }
};

Renderer::Renderer() : m_gpu(std::make_unique<Gpu>()) {}
Renderer::~Renderer() = default;  // GL objects are freed by release() while the context is current

Color Renderer::constraintColor(int index) {
  // saturated hues, none of them a body colour
  static const Color palette[] = {{0.90f, 0.10f, 0.55f, 1}, {0.10f, 0.75f, 0.20f, 1}, {0.95f, 0.45f, 0.00f, 1},
                                  {0.55f, 0.20f, 0.95f, 1}, {0.00f, 0.70f, 0.80f, 1}, {0.85f, 0.75f, 0.00f, 1},
                                  {0.95f, 0.15f, 0.15f, 1}, {0.20f, 0.35f, 1.00f, 1}};
  const int n = int(sizeof palette / sizeof palette[0]);
  return palette[((index % n) + n) % n];
}

Color Renderer::bodyColor(Shape shape, bool fixed) {
  if (fixed) return {0.55f, 0.55f, 0.58f, 1};
  switch (shape) {
    case Shape::Rod: return {0.42f, 0.56f, 0.72f, 1};
    case Shape::Sphere: return {0.78f, 0.62f, 0.48f, 1};
    case Shape::Torus: return {0.52f, 0.68f, 0.55f, 1};
    case Shape::Box: return {0.72f, 0.66f, 0.52f, 1};
  }
  return {0.6f, 0.6f, 0.6f, 1};
}

Color Renderer::backgroundColor() { return {0.90f, 0.91f, 0.93f, 1}; }

bool Renderer::initialize(std::string& error) {
  if (m_ready) return true;
  if (epoxy_gl_version() < 33) {
    error = "OpenGL 3.3 or newer is required; the context offers " + std::to_string(epoxy_gl_version() / 10) + "." +
            std::to_string(epoxy_gl_version() % 10);
    return false;
  }
  Gpu& g = *m_gpu;
  g.meshProgram = link("mesh.vert", "mesh.frag", error);
  if (!g.meshProgram) return false;
  g.lineProgram = link("line.vert", "line.frag", error);
  if (!g.lineProgram) return false;
  g.meshViewProj = glGetUniformLocation(g.meshProgram, "u_viewProj");
  g.meshEye = glGetUniformLocation(g.meshProgram, "u_eye");
  g.meshLit = glGetUniformLocation(g.meshProgram, "u_lit");
  g.lineViewProj = glGetUniformLocation(g.lineProgram, "u_viewProj");
  g.cylinder.create(cylinderMesh(16));
  g.sphere.create(sphereMesh(20, 12));
  g.box.create(boxMesh());
  g.shaft.create(cylinderMesh(6, false));
  g.thinRod.create(cylinderMesh(6, false));
  g.thinHead.create(coneMesh(4, false));
  g.head.create(coneMesh(8));
  g.dotMesh.create(sphereMesh(8, 6));
  glGenVertexArrays(1, &g.lineVao);
  glGenBuffers(1, &g.lineVbo);
  glBindVertexArray(g.lineVao);
  glBindBuffer(GL_ARRAY_BUFFER, g.lineVbo);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(LineVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(LineVertex), reinterpret_cast<void*>(3 * sizeof(float)));
  glBindVertexArray(0);
  if (glGetError() != GL_NO_ERROR) {
    error = "OpenGL error while creating the renderer's buffers";
    return false;
  }
  m_ready = true;
  return true;
}

std::string Renderer::glVersion() const {
  const GLubyte* v = glGetString(GL_VERSION);
  const GLubyte* r = glGetString(GL_RENDERER);
  return std::string(v ? reinterpret_cast<const char*>(v) : "?") + " (" +
         (r ? reinterpret_cast<const char*>(r) : "?") + ")";
}

void Renderer::release() {
  if (!m_ready) return;
  Gpu& g = *m_gpu;
  g.cylinder.destroy();
  g.sphere.destroy();
  g.box.destroy();
  g.shaft.destroy();
  g.thinRod.destroy();
  g.thinHead.destroy();
  g.head.destroy();
  g.dotMesh.destroy();
  for (auto& [k, m] : g.tori) m.destroy();
  g.tori.clear();
  glDeleteVertexArrays(1, &g.lineVao);
  glDeleteBuffers(1, &g.lineVbo);
  glDeleteProgram(g.meshProgram);
  glDeleteProgram(g.lineProgram);
  m_ready = false;
}

void Renderer::finish() { glFinish(); }

namespace {

Instance instance(const Quat& q, const Vec3& p, const Vec3& s, const Color& c) {
  Instance i{};
  i.rot[0] = float(q.x()); i.rot[1] = float(q.y()); i.rot[2] = float(q.z()); i.rot[3] = float(q.w());
  i.pos[0] = float(p.x()); i.pos[1] = float(p.y()); i.pos[2] = float(p.z());
  i.scale[0] = float(s.x()); i.scale[1] = float(s.y()); i.scale[2] = float(s.z());
  i.color[0] = c.r; i.color[1] = c.g; i.color[2] = c.b; i.color[3] = c.a;
  return i;
}

void line(std::vector<LineVertex>& out, const Vec3& a, const Vec3& b, const Color& c) {
  out.push_back({{float(a.x()), float(a.y()), float(a.z())}, {c.r, c.g, c.b, c.a}});
  out.push_back({{float(b.x()), float(b.y()), float(b.z())}, {c.r, c.g, c.b, c.a}});
}

}  // namespace

void Renderer::draw(const Snapshot& snap, const Camera& cam, const ViewOptions& view, const Highlight& hl) {
  m_segments.clear();
  m_gizmo.clear();
  m_scale.forces = m_scale.torques = m_scale.velocities = false;
  const Color bg = backgroundColor();
  glViewport(0, 0, cam.width(), cam.height());
  glClearColor(bg.r, bg.g, bg.b, 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  if (!m_ready || !snap.geometry) return;
  Gpu& g = *m_gpu;
  const core::SceneGeometry& geo = *snap.geometry;
  for (GpuMesh* m : {&g.cylinder, &g.sphere, &g.box, &g.shaft, &g.head, &g.dotMesh, &g.thinRod, &g.thinHead}) m->lit.clear(), m->flat.clear();
  for (auto& [k, m] : g.tori) m.lit.clear(), m.flat.clear();
  g.lines.clear();

  const Color highlight{1.0f, 0.72f, 0.15f, 1}, hover{1.0f, 0.9f, 0.45f, 1};
  const bool debug = view.debugDraw;

  // bodies
  for (size_t i = 0; i < snap.bodies.size() && i < geo.bodies.size(); ++i) {
    const core::BodyPose& p = snap.bodies[i];
    if (!p.active) continue;
    const core::BodyGeometry& b = geo.bodies[i];
    Color c = bodyColor(b.shape, b.fixed);
    if (int(i) == hl.selectedBody) c = mix(c, highlight, 0.75f);
    else if (int(i) == hl.hoverBody) c = mix(c, hover, 0.45f);
    switch (b.shape) {
      case Shape::Rod:
        // fewer sides where the rod is under 3 pixels thick
        (b.radius < 3 * cam.pixelSize(p.x) ? g.thinRod : g.cylinder)
            .lit.push_back(instance(p.q, p.x, Vec3(b.radius, b.radius, b.length), c));
        break;
      case Shape::Sphere:
        (b.radius < 4 * cam.pixelSize(p.x) ? g.dotMesh : g.sphere)
            .lit.push_back(instance(p.q, p.x, Vec3::Constant(b.radius), c));
        break;
      case Shape::Box: g.box.lit.push_back(instance(p.q, p.x, b.size, c)); break;
      case Shape::Torus:
        g.torus(b.minorRadius / b.majorRadius).lit.push_back(instance(p.q, p.x, Vec3::Constant(b.majorRadius), c));
        break;
    }
  }
  if (hl.previewRod && (hl.previewTo - hl.previewFrom).norm() > 1e-9) {
    const Vec3 d = hl.previewTo - hl.previewFrom;
    g.cylinder.lit.push_back(instance(Quat::FromTwoVectors(Vec3::UnitZ(), d), 0.5 * (hl.previewFrom + hl.previewTo),
                                      Vec3(hl.previewRadius, hl.previewRadius, d.norm()), {0.6f, 0.75f, 0.9f, 1}));
  }

  // a dot of constant screen size
  auto dot = [&](const Vec3& at, double pixels, const Color& c) {
    g.dotMesh.flat.push_back(instance(Quat::Identity(), at, Vec3::Constant(pixels * cam.pixelSize(at)), c));
  };

  // arrows: a shaft and a cone head of constant screen width. Level of detail: with hundreds
  // of arrows (a 1000-link chain) the shafts are lines and the heads four-sided, which keeps
  // software rendering (llvmpipe) interactive; a few arrows get round solid shafts.
  size_t arrowCount = 0;
  for (const core::ConstraintDraw& c : snap.constraints) arrowCount += c.active ? size_t(c.nb) : 0;
  const bool manyArrows = arrowCount > 256;
  auto arrow = [&](const Vec3& from, const Vec3& vec, const Color& c, Segment::Kind kind, int index) {
    const double len = vec.norm();
    if (!(len > 1e-12) || !std::isfinite(len)) return;
    const Vec3 dir = vec / len;
    const double w = 1.6 * cam.pixelSize(from);
    const double head = std::min(0.35 * len, 7.0 * w);
    const Quat q = Quat::FromTwoVectors(Vec3::UnitZ(), dir);
    const double shaft = len - head;
    if (manyArrows) {
      line(g.lines, from, from + shaft * dir, c);
      g.thinHead.flat.push_back(instance(q, from + shaft * dir, Vec3(2.6 * w, 2.6 * w, head), c));
    } else {
      g.shaft.flat.push_back(instance(q, from + 0.5 * shaft * dir, Vec3(w, w, shaft), c));
      g.head.flat.push_back(instance(q, from + shaft * dir, Vec3(2.6 * w, 2.6 * w, head), c));
    }
    m_segments.push_back({kind, index, from, from + vec});
    if (kind == Segment::Kind::ConstraintTorque) m_scale.torques = true;
    else if (kind == Segment::Kind::Velocity) m_scale.velocities = true;
    else m_scale.forces = true;
  };

  if (debug) {
    // arrow scales: the largest arrow about a fifth of the view, in round numbers
    m_scale = chooseArrowScale(snap, view, cam.distance());

    // nails
    for (size_t i = 0; i < geo.nails.size(); ++i) {
      Color c{0.18f, 0.18f, 0.2f, 1};
      if (int(i) == hl.selectedNail) c = highlight;
      else if (int(i) == hl.hoverNail) c = hover;
      dot(geo.nails[i].position, int(i) == hl.hoverNail ? 7 : 5, c);
    }
    // paths: the curve, and the point moving on it
    for (size_t i = 0; i < geo.paths.size(); ++i) {
      const auto& curve = geo.paths[i].curve;
      const Color c = int(i) == hl.selectedPath ? highlight : Color{0.35f, 0.35f, 0.45f, 1};
      for (size_t k = 0; k + 1 < curve.size(); ++k) line(g.lines, curve[k], curve[k + 1], c);
      if (geo.paths[i].closed && curve.size() > 2) line(g.lines, curve.back(), curve.front(), c);
      if (i < snap.pathPoints.size()) dot(snap.pathPoints[i], 4, c);
      for (const Vec3& k : geo.paths[i].keyframes) dot(k, 5, {0.95f, 0.55f, 0.1f, 1});  // keyframe handles
    }
    // constraints: geometry, then forces
    for (size_t j = 0; j < snap.constraints.size(); ++j) {
      const core::ConstraintDraw& c = snap.constraints[j];
      if (!c.active) continue;
      Color col = constraintColor(int(j));
      const bool lit = int(j) == hl.selectedConstraint || int(j) == hl.hoverConstraint;
      if (view.deviationLines) {
        line(g.lines, c.point[0], c.point[1], col);
        m_segments.push_back({Segment::Kind::ConstraintLine, int(j), c.point[0], c.point[1]});
        // the type's guides (a line, a plane), faded, through the constraint's second point
        if (j < geo.constraintDefs.size()) {
          const core::ConstraintDef& def = geo.constraintDefs[j];
          if (const auto& guides = core::constraintType(def.kind).guides) {
            core::GuideContext gc;
            gc.at = c.point[1];
            gc.span = 2.0 * cam.distance();
            gc.orientation = [&](const std::string& body) {
              for (size_t i = 0; i < geo.bodies.size() && i < snap.bodies.size(); ++i)
                if (geo.bodies[i].name == body) return snap.bodies[i].q;
              return core::Quat::Identity();
            };
            for (const core::GuideSegment& s : guides(def, gc)) line(g.lines, s.a, s.b, mix(col, bg, 0.45f));
          }
        }
      }
      if (lit) {
        dot(c.point[0], 5, highlight);
        dot(c.point[1], 5, highlight);
      }
      for (int s = 0; s < c.nb; ++s) {
        if (view.constraintForces)
          arrow(c.at[s], c.force[s] / m_scale.newtonsPerMetre, col, Segment::Kind::ConstraintForce, int(j));
        if (view.torques && c.torque[s].norm() > 1e-9 * (1 + c.force[s].norm()))
          arrow(snap.bodies[size_t(c.body[s])].x, c.torque[s] / m_scale.newtonMetresPerMetre, mix(col, {0, 0, 0, 1}, 0.35f),
                Segment::Kind::ConstraintTorque, int(j));
      }
    }
    // springs as lines; external forces and velocities at the centres of mass
    for (size_t f = 0; f < snap.forces.size(); ++f) {
      const core::ForceDraw& d = snap.forces[f];
      if (!d.active || f >= geo.forceKinds.size()) continue;
      if (geo.forceKinds[f] == core::ForceKind::Spring) {
        line(g.lines, d.a, d.b, {0.15f, 0.45f, 0.15f, 1});
        m_segments.push_back({Segment::Kind::Spring, int(f), d.a, d.b});
      }
    }
    for (size_t i = 0; i < snap.bodies.size(); ++i) {
      const core::BodyPose& p = snap.bodies[i];
      if (!p.active) continue;
      if (view.externalForces)
        arrow(p.x, p.externalForce / m_scale.newtonsPerMetre, {0.25f, 0.25f, 0.28f, 1}, Segment::Kind::ExternalForce,
              int(i));
      if (view.velocities)
        arrow(p.x, p.v / m_scale.secondsPerMetre, {0.0f, 0.55f, 0.55f, 1}, Segment::Kind::Velocity, int(i));
    }
    // control points
    if (view.controlPoints)
      for (size_t i = 0; i < snap.bodies.size() && i < geo.bodies.size(); ++i) {
        if (!snap.bodies[i].active) continue;
        for (size_t k = 0; k < geo.bodies[i].points.size(); ++k)
          dot(core::worldPoint(snap.bodies[i], geo.bodies[i].points[k].local), 3.5, {0.1f, 0.1f, 0.1f, 1});
      }
  }
  // the hovered control point and tool feedback show in every mode
  if (hl.hoverPointBody >= 0 && size_t(hl.hoverPointBody) < geo.bodies.size() &&
      size_t(hl.hoverPoint) < geo.bodies[size_t(hl.hoverPointBody)].points.size())
    dot(core::worldPoint(snap.bodies[size_t(hl.hoverPointBody)],
                         geo.bodies[size_t(hl.hoverPointBody)].points[size_t(hl.hoverPoint)].local),
        7, highlight);
  if (hl.hoverWorld) dot(hl.hoverPosition, 4, {0.9f, 0.3f, 0.1f, 1});
  if (hl.preview) line(g.lines, hl.previewFrom, hl.previewTo, {0.9f, 0.3f, 0.1f, 1});
  if (snap.mouseActive) {
    line(g.lines, snap.mouseFrom, snap.mouseTo, {0.85f, 0.1f, 0.85f, 1});
    dot(snap.mouseTo, 4, {0.85f, 0.1f, 0.85f, 1});
  }

  // ground grid in the z = 0 plane, spacing a power of ten near a tenth of the view
  if (view.grid) {
    const double step = std::pow(10.0, std::floor(std::log10(std::max(cam.distance() * 0.15, 1e-3))));
    const int n = 20;
    const Vec3 c = cam.target();
    const double cx = std::round(c.x() / step) * step, cy = std::round(c.y() / step) * step;
    const Color gc = mix(bg, {0, 0, 0, 1}, 0.12f);
    for (int k = -n; k <= n; ++k) {
      const double x = cx + k * step, y = cy + k * step;
      line(g.lines, Vec3(x, cy - n * step, 0), Vec3(x, cy + n * step, 0), std::abs(x) < 1e-9 * step ? Color{0.75f, 0.4f, 0.4f, 1} : gc);
      line(g.lines, Vec3(cx - n * step, y, 0), Vec3(cx + n * step, y, 0), std::abs(y) < 1e-9 * step ? Color{0.4f, 0.7f, 0.4f, 1} : gc);
    }
  }

  // draw: shaded meshes, unshaded overlay meshes, lines
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  const glm::mat4 vp = cam.viewProjection();
  const Vec3 eye = cam.eye();
  glUseProgram(g.meshProgram);
  glUniformMatrix4fv(g.meshViewProj, 1, GL_FALSE, glm::value_ptr(vp));
  glUniform3f(g.meshEye, float(eye.x()), float(eye.y()), float(eye.z()));
  for (int lit : {1, 0}) {
    glUniform1i(g.meshLit, lit);
    for (GpuMesh* m : {&g.cylinder, &g.sphere, &g.box, &g.shaft, &g.head, &g.dotMesh, &g.thinRod, &g.thinHead})
      m->drawInstances(lit ? m->lit : m->flat);
    for (auto& [k, m] : g.tori) m.drawInstances(lit ? m.lit : m.flat);
  }
  auto drawLines = [&](const glm::mat4& matrix) {
    if (g.lines.empty()) return;
    glUseProgram(g.lineProgram);
    glUniformMatrix4fv(g.lineViewProj, 1, GL_FALSE, glm::value_ptr(matrix));
    glBindVertexArray(g.lineVao);
    glBindBuffer(GL_ARRAY_BUFFER, g.lineVbo);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(g.lines.size() * sizeof(LineVertex)), g.lines.data(), GL_STREAM_DRAW);
    glDrawArrays(GL_LINES, 0, GLsizei(g.lines.size()));
  };
  drawLines(vp);

  // axis gizmo: the camera's rotation only, in a corner
  {
    const int size = 90;
    glViewport(8, 8, size, size);
    glClear(GL_DEPTH_BUFFER_BIT);
    const Vec3 f = cam.forward();
    const glm::mat4 rot = glm::lookAt(glm::vec3(-3 * f.x(), -3 * f.y(), -3 * f.z()), glm::vec3(0), glm::vec3(0, 0, 1));
    const glm::mat4 m = glm::ortho(-1.4f, 1.4f, -1.4f, 1.4f, 0.1f, 10.0f) * rot;
    g.lines.clear();
    const Color axes[3] = {{0.85f, 0.15f, 0.15f, 1}, {0.1f, 0.65f, 0.1f, 1}, {0.15f, 0.3f, 0.9f, 1}};
    for (int a = 0; a < 3; ++a) {
      line(g.lines, Vec3::Zero(), Vec3::Unit(a), axes[a]);
      const glm::vec4 tip = m * glm::vec4(1.2f * float(a == 0), 1.2f * float(a == 1), 1.2f * float(a == 2), 1.0f);
      m_gizmo.push_back({char('x' + a), 8 + (tip.x + 1) * 0.5 * size, cam.height() - (8 + (tip.y + 1) * 0.5 * size)});
    }
    drawLines(m);
    glViewport(0, 0, cam.width(), cam.height());
  }
  // leave the state as found, for whoever paints next (QPainter overlays)
  glDisable(GL_DEPTH_TEST);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
  glUseProgram(0);
}

}  // namespace tether::render
