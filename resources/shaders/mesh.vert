#version 330 core
// Bodies, arrows and dots: a unit mesh (render/mesh.h) drawn instanced, each instance scaled,
// then turned by a unit quaternion, then moved, in its own colour.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 i_rot;     // unit quaternion (x, y, z, w)
layout(location = 3) in vec3 i_pos;
layout(location = 4) in vec3 i_scale;
layout(location = 5) in vec4 i_color;
uniform mat4 u_viewProj;
out vec3 v_normal;
out vec3 v_world;
out vec4 v_color;
vec3 qrot(vec4 q, vec3 v) { return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }
void main() {
  vec3 p = qrot(i_rot, a_pos * i_scale) + i_pos;
  v_world = p;
  v_normal = qrot(i_rot, normalize(a_normal / i_scale));  // exact for scale-then-rotate
  v_color = i_color;
  gl_Position = u_viewProj * vec4(p, 1.0);
}
