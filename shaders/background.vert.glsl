#version 410 core
// Full-screen triangle from gl_VertexID (draw 3 vertices, no buffers).
out float vY;

void main() {
    vec2 p = vec2((gl_VertexID == 1) ? 3.0 : -1.0, (gl_VertexID == 2) ? 3.0 : -1.0);
    vY = p.y * 0.5 + 0.5;
    gl_Position = vec4(p, 1.0, 1.0);
}
