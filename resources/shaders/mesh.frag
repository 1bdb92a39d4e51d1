#version 330 core
// Bodies (u_lit = 1) under a key and a fill light with a highlight, lit on whichever face is
// seen; arrows and dots (u_lit = 0) in their flat colour.
in vec3 v_normal;
in vec3 v_world;
in vec4 v_color;
uniform vec3 u_eye;
uniform int u_lit;
out vec4 frag;
void main() {
  if (u_lit == 0) { frag = v_color; return; }
  vec3 n = normalize(v_normal);
  vec3 v = normalize(u_eye - v_world);
  if (dot(n, v) < 0.0) n = -n;
  vec3 l = normalize(vec3(0.35, -0.55, 0.75));
  float diff = max(dot(n, l), 0.0);
  float fill = max(dot(n, normalize(vec3(-0.5, 0.3, 0.2))), 0.0);
  float spec = pow(max(dot(n, normalize(l + v)), 0.0), 48.0);
  frag = vec4(v_color.rgb * (0.38 + 0.55 * diff + 0.2 * fill) + 0.25 * spec, v_color.a);
}
