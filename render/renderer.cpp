#include "render/renderer.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <glm/gtc/type_ptr.hpp>
#include <map>
#include <optional>

#include "render/mesh.h"
#include "render/shaders.h"

namespace tether::render {

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

// One instanced mesh: its geometry and a per-frame instance buffer.
struct GpuMesh {
  GLuint vao = 0, vbo = 0, ebo = 0, ibo = 0;
  GLsizei count = 0;
  std::vector<Instance> lit, flat, top;  // this frame's instances: shaded, unshaded, unshaded on top

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

  // this frame's batches
  Color background;
  std::vector<LineVertex> lines;
  struct Arrow {
    Vec3 from, vector;
    Color color;
  };
  std::vector<Arrow> arrows;  // made into meshes once their number (the level of detail) is known
  std::vector<Arrow> arrowsOnTop;
  std::optional<AxisGizmo> gizmo;

  GpuMesh& torus(double ratio) {
    const int key = std::clamp(int(std::lround(ratio * 1000)), 1, 1000);
    auto it = tori.find(key);
    if (it == tori.end()) {
      it = tori.emplace(key, GpuMesh{}).first;
      it->second.create(torusMesh(key / 1000.0, 40, 16));
    }
    return it->second;
  }
  template <typename F>
  void forEachMesh(F f) {
    for (GpuMesh* m : {&cylinder, &sphere, &box, &shaft, &head, &dotMesh, &thinRod, &thinHead}) f(*m);
    for (auto& [k, m] : tori) f(m);
  }
};

Renderer::Renderer() : m_gpu(std::make_unique<Gpu>()) {}
Renderer::~Renderer() = default;  // GL objects are freed by release() while the context is current

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
  g.forEachMesh([](GpuMesh& m) { m.destroy(); });
  g.tori.clear();
  glDeleteVertexArrays(1, &g.lineVao);
  glDeleteBuffers(1, &g.lineVbo);
  glDeleteProgram(g.meshProgram);
  glDeleteProgram(g.lineProgram);
  m_ready = false;
}

void Renderer::finish() { glFinish(); }

void Renderer::draw(const Snapshot& snap, const Camera& cam, const ViewOptions& view, const Highlight& hl) {
  m_drawn = {};
  m_labels.clear();
  if (!m_ready) return;
  Gpu& g = *m_gpu;
  g.forEachMesh([](GpuMesh& m) { m.lit.clear(), m.flat.clear(), m.top.clear(); });
  g.lines.clear();
  g.arrows.clear();
  g.arrowsOnTop.clear();
  m_onTop = false;
  g.gizmo.reset();
  m_camera = &cam;
  m_pixelScale = view.pixelScale;
  m_drawn = drawSnapshot(snap, cam, view, hl, *this);
  flush();
  m_camera = nullptr;
}

void Renderer::background(const Color& c) { m_gpu->background = c; }

// each shape its unit mesh (render/mesh.h) scaled to its dimensions; small on screen, fewer sides
void Renderer::shape(const core::BodyGeometry& b, const Vec3& x, const Quat& q, const Color& c) {
  Gpu& g = *m_gpu;
  switch (b.shape) {
    case Shape::Rod:
      // fewer sides where the rod is under 3 pixels thick
      (b.radius < 3 * m_camera->pixelSize(x) ? g.thinRod : g.cylinder)
          .lit.push_back(instance(q, x, Vec3(b.radius, b.radius, b.length), c));
      break;
    case Shape::Sphere:
      // the dot's mesh where the radius is under 4 pixels
      (b.radius < 4 * m_camera->pixelSize(x) ? g.dotMesh : g.sphere).lit.push_back(instance(q, x, Vec3::Constant(b.radius), c));
      break;
    case Shape::Box: g.box.lit.push_back(instance(q, x, b.size, c)); break;
    case Shape::Torus:
      g.torus(b.minorRadius / b.majorRadius).lit.push_back(instance(q, x, Vec3::Constant(b.majorRadius), c));
      break;
  }
}

void Renderer::segment(const Vec3& a, const Vec3& b, const Color& c) { line(m_gpu->lines, a, b, c); }

void Renderer::arrow(const Vec3& from, const Vec3& vector, const Color& c) {
  (m_onTop ? m_gpu->arrowsOnTop : m_gpu->arrows).push_back({from, vector, c});
}

void Renderer::point(const Vec3& at, double radiusPixels, const Color& c) {
  (m_onTop ? m_gpu->dotMesh.top : m_gpu->dotMesh.flat).push_back(instance(Quat::Identity(), at, Vec3::Constant(radiusPixels * m_pixelScale * m_camera->pixelSize(at)), c));
}

void Renderer::label(double px, double py, const std::string& text, const Color& c) { m_labels.push_back({px, py, text, c}); }

void Renderer::axes(const AxisGizmo& gizmo) { m_gpu->gizmo = gizmo; }

void Renderer::flush() {
  Gpu& g = *m_gpu;
  const Camera& cam = *m_camera;
  glViewport(0, 0, cam.width(), cam.height());
  glClearColor(g.background.r, g.background.g, g.background.b, 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

  // arrows: a shaft and a cone head of constant screen width. Level of detail: with hundreds
  // of arrows (a 1000-link chain) the shafts are lines and the heads four-sided, which keeps
  // software rendering (llvmpipe) interactive; a few arrows get round solid shafts.
  const bool manyArrows = g.arrows.size() + g.arrowsOnTop.size() > 256;
  for (const bool onTop : {false, true})
  for (const Gpu::Arrow& a : onTop ? g.arrowsOnTop : g.arrows) {
    const double len = a.vector.norm();
    const Vec3 dir = a.vector / len;
    const double w = kArrowShaftPixels * m_pixelScale * cam.pixelSize(a.from);
    const double head = arrowHeadLength(len, w);
    const Quat q = Quat::FromTwoVectors(Vec3::UnitZ(), dir);
    const double shaft = len - head;
    // (on top: always solid, there being no on-top lines)
    if (manyArrows && !onTop) {
      line(g.lines, a.from, a.from + shaft * dir, a.color);
      g.thinHead.flat.push_back(instance(q, a.from + shaft * dir, Vec3(2.6 * w, 2.6 * w, head), a.color));
    } else {
      (onTop ? g.shaft.top : g.shaft.flat).push_back(instance(q, a.from + 0.5 * shaft * dir, Vec3(w, w, shaft), a.color));
      (onTop ? g.head.top : g.head.flat).push_back(instance(q, a.from + shaft * dir, Vec3(2.6 * w, 2.6 * w, head), a.color));
    }
  }

  // shaded meshes, unshaded meshes, lines
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
    g.forEachMesh([&](GpuMesh& m) { m.drawInstances(lit ? m.lit : m.flat); });
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
  // on top: over everything drawn so far, in depth among themselves
  bool anyOnTop = false;
  g.forEachMesh([&](GpuMesh& m) { anyOnTop = anyOnTop || !m.top.empty(); });
  if (anyOnTop) {
    glClear(GL_DEPTH_BUFFER_BIT);
    glUseProgram(g.meshProgram);
    glUniform1i(g.meshLit, 0);
    g.forEachMesh([&](GpuMesh& m) { m.drawInstances(m.top); });
  }

  // the gizmo over the scene, in its own square
  if (g.gizmo) {
    glViewport(g.gizmo->x, g.gizmo->y, g.gizmo->size, g.gizmo->size);
    glClear(GL_DEPTH_BUFFER_BIT);
    g.lines.clear();
    for (int a = 0; a < 3; ++a) line(g.lines, Vec3::Zero(), Vec3::Unit(a), g.gizmo->axes[a]);
    drawLines(g.gizmo->viewProjection);
    glViewport(0, 0, cam.width(), cam.height());
  }
  // leave the state as found, for whoever paints next (QPainter overlays)
  glDisable(GL_DEPTH_TEST);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
  glUseProgram(0);
}

}  // namespace tether::render
