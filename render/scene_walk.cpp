#include "render/scene_walk.h"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

#include "core/constraint_type.h"

namespace tether::render {

using core::Shape;
using core::Snapshot;

namespace {

Color mix(const Color& a, const Color& b, float t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t, a.a + (b.a - a.a) * t};
}

// A spring from a to b drawn as a coil seen side-on: straight leads of a tenth of its length at
// each end, between them a zig-zag of kZigs strokes 10 px wide across the line of sight (at most
// a third of its length wide). Drawn as a plain line it lay hidden under the grid's lines and
// axes, where snapping puts things (two helpers did not find their springs).
void coil(DebugDraw& out, const Camera& cam, const Vec3& a, const Vec3& b, const Color& c) {
  constexpr int kZigs = 16;
  const Vec3 d = b - a;
  const double len = d.norm();
  Vec3 side = d.cross(cam.forward());
  if (!(len > 1e-12) || !(side.norm() > 1e-6 * len)) {  // (a point, or seen end-on: its line)
    out.segment(a, b, c);
    return;
  }
  side.normalize();
  const double half = std::min(5.0 * cam.pixelSize(0.5 * (a + b)), len / 6.0);
  const Vec3 p0 = a + 0.1 * d, p1 = b - 0.1 * d;
  out.segment(a, p0, c);
  Vec3 prev = p0;
  for (int k = 0; k < kZigs; ++k) {
    const Vec3 q = p0 + (p1 - p0) * ((k + 0.5) / kZigs) + side * (k % 2 ? -half : half);
    out.segment(prev, q, c);
    prev = q;
  }
  out.segment(prev, p1, c);
  out.segment(p1, b, c);
}

}  // namespace

Color constraintColor(int index) {
  // saturated hues, none of them a body colour
  static const Color palette[] = {{0.90f, 0.10f, 0.55f, 1}, {0.10f, 0.75f, 0.20f, 1}, {0.95f, 0.45f, 0.00f, 1},
                                  {0.55f, 0.20f, 0.95f, 1}, {0.00f, 0.70f, 0.80f, 1}, {0.85f, 0.75f, 0.00f, 1},
                                  {0.95f, 0.15f, 0.15f, 1}, {0.20f, 0.35f, 1.00f, 1}};
  const int n = int(sizeof palette / sizeof palette[0]);
  return palette[((index % n) + n) % n];
}

Color bodyColor(Shape shape, bool fixed) {
  if (fixed) return {0.55f, 0.55f, 0.58f, 1};
  switch (shape) {
    case Shape::Rod: return {0.42f, 0.56f, 0.72f, 1};
    case Shape::Sphere: return {0.78f, 0.62f, 0.48f, 1};
    case Shape::Torus: return {0.52f, 0.68f, 0.55f, 1};
    case Shape::Box: return {0.72f, 0.66f, 0.52f, 1};
  }
  return {0.6f, 0.6f, 0.6f, 1};
}

Color backgroundColor() { return {0.90f, 0.91f, 0.93f, 1}; }

// a muted green-grey: ground, apart from the bodies' colours and the background
Color planeColor() { return {0.62f, 0.68f, 0.60f, 1}; }
// dark red-brown: none of the constraint palette's hues
Color contactColor() { return {0.55f, 0.12f, 0.05f, 1}; }
// orange: a push the user applies, apart from the constraints' and contacts' arrows
Color appliedColor() { return {0.95f, 0.55f, 0.05f, 1}; }

double planeSide(const core::PlaneDef& plane, const Snapshot& snap) {
  const Vec3 n = plane.normal.normalized();
  double reach = 0.0;  // the farthest body's distance from plane.point along the plane
  for (const core::BodyPose& p : snap.bodies) {
    if (!p.active) continue;
    const Vec3 d = p.x - plane.point;
    const double r = (d - d.dot(n) * n).norm();
    if (std::isfinite(r)) reach = std::max(reach, r);
  }
  return std::max(20.0, 10.0 * std::ceil((2.0 * reach + 4.0) / 10.0));
}

// pure red and amber: warnings, apart from the palette's hues and the selection's gold
Color conflictColor() { return {1.0f, 0.0f, 0.0f, 1}; }
Color redundantColor() { return {1.0f, 0.62f, 0.0f, 1}; }

DrawnScene drawSnapshot(const Snapshot& snap, const Camera& cam, const ViewOptions& view, const Highlight& hl,
                        DebugDraw& out) {
  DrawnScene drawn;
  const Color bg = backgroundColor();
  out.background(bg);
  if (!snap.geometry) return drawn;
  const core::SceneGeometry& geo = *snap.geometry;
  const Color highlight{1.0f, 0.72f, 0.15f, 1}, hover{1.0f, 0.9f, 0.45f, 1};

  // bodies
  for (size_t i = 0; i < snap.bodies.size() && i < geo.bodies.size(); ++i) {
    const core::BodyPose& p = snap.bodies[i];
    if (!p.active) continue;
    const core::BodyGeometry& b = geo.bodies[i];
    Color c = bodyColor(b.shape, b.fixed);
    if (int(i) == hl.selectedBody) c = mix(c, highlight, 0.75f);
    else if (int(i) == hl.hoverBody) c = mix(c, hover, 0.45f);
    out.shape(b, p.x, p.q, c);
  }
  if (hl.previewRod && (hl.previewTo - hl.previewFrom).norm() > 1e-9) {
    const Vec3 d = hl.previewTo - hl.previewFrom;
    core::BodyGeometry rod;
    rod.shape = Shape::Rod;
    rod.radius = hl.previewRadius;
    rod.length = d.norm();
    out.shape(rod, 0.5 * (hl.previewFrom + hl.previewTo), Quat::FromTwoVectors(Vec3::UnitZ(), d), {0.6f, 0.75f, 0.9f, 1});
  }

  // ground planes: a slab under the surface (its top face is the surface, so a body resting on it
  // shows whole) with a grid of 20 x 20 squares drawn just above it
  for (size_t i = 0; i < geo.planes.size(); ++i) {
    const core::PlaneDef& pl = geo.planes[i];
    const Vec3 n = pl.normal.normalized();
    if (!n.allFinite()) continue;
    const double side = planeSide(pl, snap), thick = side / 400;
    const Quat q = Quat::FromTwoVectors(Vec3::UnitZ(), n);
    core::BodyGeometry slab;
    slab.shape = Shape::Box;
    slab.size = Vec3(side, side, thick);
    const bool selected = int(i) == hl.selectedPlane;
    const Color c = selected ? mix(planeColor(), highlight, 0.6f) : planeColor();
    out.shape(slab, pl.point - 0.5 * thick * n, q, c);
    // the grid's lift off the surface: above the depth buffer's resolution far out on the plane
    // (near = 0.01 d: about 2e-4 d at 6 d away, more at grazing angles), a pixel or two at the target
    const Vec3 u = q * Vec3::UnitX(), v = q * Vec3::UnitY(), lift = 2e-3 * cam.distance() * n;
    const Color lc = mix(c, {0, 0, 0, 1}, 0.3f);
    const int cells = 20;
    for (int k = 0; k <= cells; ++k) {
      const double a = side * (double(k) / cells - 0.5), h = 0.5 * side;
      out.segment(pl.point + lift + a * u - h * v, pl.point + lift + a * u + h * v, lc);
      out.segment(pl.point + lift - h * u + a * v, pl.point + lift + h * u + a * v, lc);
    }
  }

  // an arrow hovering can name, and the legend's kinds
  // (magnitude below the kind's noise floor: round-off, not drawn)
  auto arrow = [&](const Vec3& from, const Vec3& vec, double magnitude, double noise, const Color& c, Segment::Kind kind,
                   int index) {
    const double len = vec.norm();
    if (!(len > 1e-12) || !std::isfinite(len) || magnitude < noise) return;
    out.arrow(from, vec, c);
    drawn.segments.push_back({kind, index, from, from + vec});
    if (kind == Segment::Kind::ConstraintTorque || kind == Segment::Kind::AppliedTorque) drawn.arrowScale.torques = true;
    else if (kind == Segment::Kind::Velocity) drawn.arrowScale.velocities = true;
    else drawn.arrowScale.forces = true;
  };

  // springs: part of the model, drawn in animation mode too
  for (size_t f = 0; f < snap.forces.size() && f < geo.forceKinds.size(); ++f) {
    const core::ForceDraw& d = snap.forces[f];
    if (!d.active || geo.forceKinds[f] != core::ForceKind::Spring) continue;
    coil(out, cam, d.a, d.b, {0.15f, 0.45f, 0.15f, 1});
    drawn.segments.push_back({Segment::Kind::Spring, int(f), d.a, d.b});
  }

  if (view.debugDraw) {
    // arrow scales: the viewport's held ones, or the largest arrow about a fifth of the view
    drawn.arrowScale = view.scale ? *view.scale : chooseArrowScale(snap, view, cam.distance());
    drawn.arrowScale.forces = drawn.arrowScale.torques = drawn.arrowScale.velocities = false;
    const ArrowScale& scale = drawn.arrowScale;

    // nails
    for (size_t i = 0; i < geo.nails.size(); ++i) {
      Color c{0.18f, 0.18f, 0.2f, 1};
      if (int(i) == hl.selectedNail) c = highlight;
      else if (int(i) == hl.hoverNail) c = hover;
      out.point(geo.nails[i].position, int(i) == hl.hoverNail ? 7 : 5, c);
    }
    // paths: the curve, and the point moving on it
    for (size_t i = 0; i < geo.paths.size(); ++i) {
      const auto& curve = geo.paths[i].curve;
      const Color c = int(i) == hl.selectedPath ? highlight : Color{0.35f, 0.35f, 0.45f, 1};
      for (size_t k = 0; k + 1 < curve.size(); ++k) out.segment(curve[k], curve[k + 1], c);
      if (geo.paths[i].closed && curve.size() > 2) out.segment(curve.back(), curve.front(), c);
      if (i < snap.pathPoints.size()) out.point(snap.pathPoints[i], 4, c);
      for (const Vec3& k : geo.paths[i].keyframes) out.point(k, 5, {0.95f, 0.55f, 0.1f, 1});  // keyframe handles
    }
    // constraints: geometry, then forces
    for (size_t j = 0; j < snap.constraints.size(); ++j) {
      const core::ConstraintDraw& c = snap.constraints[j];
      if (!c.active) continue;
      Color col = constraintColor(int(j));
      const bool lit = int(j) == hl.selectedConstraint || int(j) == hl.hoverConstraint;
      const bool conflicting = std::find(hl.conflicting.begin(), hl.conflicting.end(), int(j)) != hl.conflicting.end();
      const bool redundant = std::find(hl.redundant.begin(), hl.redundant.end(), int(j)) != hl.redundant.end();
      if (view.deviationLines) {
        // the line between its two points; not for a turn after its definition's first part (a
        // hinge's axis alignment: its points are the bodies' centres, and the line between them,
        // drawn beside the hinge's own point, is no joint; a helper looked for the joint there)
        const bool firstPart = j == 0 || j >= geo.constraintNames.size() || geo.constraintNames[j - 1] != geo.constraintNames[j];
        if (firstPart || j >= geo.constraintTurns.size() || !geo.constraintTurns[j]) {
          out.segment(c.point[0], c.point[1], conflicting ? conflictColor() : redundant ? redundantColor() : col);
          drawn.segments.push_back({Segment::Kind::ConstraintLine, int(j), c.point[0], c.point[1]});
        }
        // the type's guides (a line, a plane), faded, through the constraint's second point: once
        // per definition, from its first part (a hinge's axis-alignment part drew its axis a
        // second time, through a body's centre, where a helper looked for the joint)
        if (j < geo.constraintDefs.size() && firstPart) {
          const core::ConstraintDef& def = geo.constraintDefs[j];
          if (const auto& guides = def.type().guides) {
            core::GuideContext gc;
            gc.at = c.point[1];
            gc.span = 2.0 * cam.distance();
            gc.orientation = [&](const std::string& body) {
              for (size_t i = 0; i < geo.bodies.size() && i < snap.bodies.size(); ++i)
                if (geo.bodies[i].name == body) return snap.bodies[i].q;
              return core::Quat::Identity();
            };
            for (const core::GuideSegment& s : guides(def.params, gc)) out.segment(s.a, s.b, mix(col, bg, 0.45f));
          }
        }
      }
      if (lit) {
        out.point(c.point[0], 5, highlight);
        out.point(c.point[1], 5, highlight);
      } else if (conflicting || redundant) {
        // the flagged constraint's two points marked, larger than any other dot
        const Color mark = conflicting ? conflictColor() : redundantColor();
        out.point(c.point[0], 6, mark);
        out.point(c.point[1], 6, mark);
      }
      for (int s = 0; s < c.nb; ++s) {
        if (view.constraintForces)
          arrow(c.at[s], c.force[s] / scale.newtonsPerMetre, c.force[s].norm(), scale.forceNoise, col,
                Segment::Kind::ConstraintForce, int(j));
        // a torque beside its force only when it is more than round-off
        if (view.torques && c.torque[s].norm() > 1e-9 * (1 + c.force[s].norm()))
          arrow(snap.bodies[size_t(c.body[s])].x, c.torque[s] / scale.newtonMetresPerMetre, c.torque[s].norm(),
                scale.torqueNoise, mix(col, {0, 0, 0, 1}, 0.35f), Segment::Kind::ConstraintTorque, int(j));
      }
    }
    // constant forces as arrows at their points and constant torques at their
    // bodies' centres (orange); external forces and velocities at the centres of mass
    for (size_t f = 0; f < snap.forces.size(); ++f) {
      const core::ForceDraw& d = snap.forces[f];
      if (!d.active || f >= geo.forceKinds.size()) continue;
      if (geo.forceKinds[f] == core::ForceKind::ConstantForce) {
        arrow(d.a, d.vector / scale.newtonsPerMetre, d.vector.norm(), scale.forceNoise, appliedColor(),
              Segment::Kind::AppliedForce, int(f));
      } else if (geo.forceKinds[f] == core::ForceKind::ConstantTorque) {
        arrow(d.a, d.vector / scale.newtonMetresPerMetre, d.vector.norm(), scale.torqueNoise, appliedColor(),
              Segment::Kind::AppliedTorque, int(f));
      }
    }
    for (size_t i = 0; i < snap.bodies.size(); ++i) {
      const core::BodyPose& p = snap.bodies[i];
      if (!p.active) continue;
      if (view.externalForces)
        arrow(p.x, p.externalForce / scale.newtonsPerMetre, p.externalForce.norm(), scale.forceNoise,
              {0.25f, 0.25f, 0.28f, 1}, Segment::Kind::ExternalForce, int(i));
      if (view.velocities)
        arrow(p.x, p.v / scale.secondsPerMetre, p.v.norm(), scale.velocityNoise, {0.0f, 0.55f, 0.55f, 1},
              Segment::Kind::Velocity, int(i));
    }
    // contacts: the point, and the force on body A from there (out of B or the plane)
    // drawn on top: the arrow enters body A, which would hide it
    if (view.contacts) {
      out.setOnTop(true);
      for (size_t k = 0; k < snap.contacts.size(); ++k) {
        const core::ContactDraw& c = snap.contacts[k];
        out.point(c.at, 4, contactColor());
        arrow(c.at, c.force / scale.newtonsPerMetre, c.force.norm(), scale.forceNoise, contactColor(),
              Segment::Kind::ContactForce, int(k));
      }
      out.setOnTop(false);
    }
    // control points
    if (view.controlPoints)
      for (size_t i = 0; i < snap.bodies.size() && i < geo.bodies.size(); ++i) {
        if (!snap.bodies[i].active) continue;
        for (size_t k = 0; k < geo.bodies[i].points.size(); ++k)
          out.point(core::worldPoint(snap.bodies[i], geo.bodies[i].points[k].local), 3.5, {0.1f, 0.1f, 0.1f, 1});
      }
  }
  // the hovered control point and tool feedback show in every mode
  if (hl.hoverPointBody >= 0 && size_t(hl.hoverPointBody) < geo.bodies.size() &&
      size_t(hl.hoverPoint) < geo.bodies[size_t(hl.hoverPointBody)].points.size())
    out.point(core::worldPoint(snap.bodies[size_t(hl.hoverPointBody)],
                               geo.bodies[size_t(hl.hoverPointBody)].points[size_t(hl.hoverPoint)].local),
              7, highlight);
  if (hl.hoverWorld) out.point(hl.hoverPosition, 4, {0.9f, 0.3f, 0.1f, 1});
  if (hl.preview) out.segment(hl.previewFrom, hl.previewTo, {0.9f, 0.3f, 0.1f, 1});
  if (snap.mouseActive) {
    out.segment(snap.mouseFrom, snap.mouseTo, {0.85f, 0.1f, 0.85f, 1});
    out.point(snap.mouseTo, 4, {0.85f, 0.1f, 0.85f, 1});
  }

  // Looking straight at a vertical work plane (front, side views), the grid lies in it, through
  // the target, where the tools place (a helper in the front view saw the ground grid edge-on and
  // had no sense of scale); its lines on the axes in the gizmo's colours
  if (view.grid && cam.facesVerticalWorkPlane()) {
    const double step = cam.gridStep();
    const int n = 20;
    const Vec3 normal = cam.workPlaneNormal(), c = cam.target();
    const int a = normal.x() != 0.0 ? 1 : 0;  // the horizontal axis in the plane (x, or y facing x)
    const Vec3 u = Vec3::Unit(a), v = Vec3::UnitZ();
    const double cu = std::round(c(a) / step) * step, cv = std::round(c.z() / step) * step;
    const Color gc = mix(bg, {0, 0, 0, 1}, 0.12f);
    const Color axis[3] = {{0.75f, 0.4f, 0.4f, 1}, {0.4f, 0.7f, 0.4f, 1}, {0.4f, 0.5f, 0.8f, 1}};
    const Vec3 off = c - u * c(a) - v * c.z();  // (the plane's own coordinate: the target's)
    for (int k = -n; k <= n; ++k) {
      const double x = cu + k * step, z = cv + k * step;
      // the line at horizontal coordinate x runs up (the z axis's colour where x = 0)
      out.segment(off + x * u + (cv - n * step) * v, off + x * u + (cv + n * step) * v,
                  std::abs(x) < 1e-9 * step ? axis[2] : gc);
      // the line at height z runs across (the horizontal axis's colour where z = 0)
      out.segment(off + (cu - n * step) * u + z * v, off + (cu + n * step) * u + z * v,
                  std::abs(z) < 1e-9 * step ? axis[a] : gc);
    }
  }
  // ground grid in the z = 0 plane, spacing a power of ten near a tenth of the view
  // (a ground plane shows its own grid: this one would fight it for depth where they meet)
  else if (view.grid && geo.planes.empty()) {
    const double step = cam.gridStep();
    const int n = 20;
    const Vec3 c = cam.target();
    const double cx = std::round(c.x() / step) * step, cy = std::round(c.y() / step) * step;
    const Color gc = mix(bg, {0, 0, 0, 1}, 0.12f);
    for (int k = -n; k <= n; ++k) {
      const double x = cx + k * step, y = cy + k * step;
      // the axes in the gizmo's colours: x (the line y = 0) red, y (the line x = 0) green
      out.segment(Vec3(x, cy - n * step, 0), Vec3(x, cy + n * step, 0), std::abs(x) < 1e-9 * step ? Color{0.4f, 0.7f, 0.4f, 1} : gc);
      out.segment(Vec3(cx - n * step, y, 0), Vec3(cx + n * step, y, 0), std::abs(y) < 1e-9 * step ? Color{0.75f, 0.4f, 0.4f, 1} : gc);
    }
  }

  // axis gizmo: the camera's rotation only, in the bottom-left corner, each axis lettered past its tip
  AxisGizmo gizmo;
  gizmo.x = gizmo.y = int(std::lround(8 * view.pixelScale));
  gizmo.size = int(std::lround(90 * view.pixelScale));
  const Vec3 f = cam.forward();
  const glm::mat4 rot = glm::lookAt(glm::vec3(-3 * f.x(), -3 * f.y(), -3 * f.z()), glm::vec3(0), glm::vec3(0, 0, 1));
  gizmo.viewProjection = glm::ortho(-1.4f, 1.4f, -1.4f, 1.4f, 0.1f, 10.0f) * rot;
  gizmo.axes[0] = {0.85f, 0.15f, 0.15f, 1};
  gizmo.axes[1] = {0.1f, 0.65f, 0.1f, 1};
  gizmo.axes[2] = {0.15f, 0.3f, 0.9f, 1};
  out.axes(gizmo);
  // the letters a little darker than their axes, to read as text
  const Color letters[3] = {{200 / 255.f, 40 / 255.f, 40 / 255.f, 1}, {20 / 255.f, 150 / 255.f, 20 / 255.f, 1},
                            {40 / 255.f, 70 / 255.f, 220 / 255.f, 1}};
  for (int a = 0; a < 3; ++a) {
    const glm::vec4 tip = gizmo.viewProjection * glm::vec4(1.2f * float(a == 0), 1.2f * float(a == 1), 1.2f * float(a == 2), 1.0f);
    out.label(gizmo.x + (tip.x + 1) * 0.5 * gizmo.size, cam.height() - (gizmo.y + (tip.y + 1) * 0.5 * gizmo.size),
              std::string(1, char('x' + a)), letters[a]);
  }
  return drawn;
}

}  // namespace tether::render
