#version 330 core
// Lines one pixel wide (grid, constraint lines, guides, paths, springs, the gizmo), coloured per vertex.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_color;
uniform mat4 u_viewProj;
out vec4 v_color;
void main() { v_color = a_color; gl_Position = u_viewProj * vec4(a_pos, 1.0); }
