#version 410 core
// Screen-space sized markers (pinned vertices).
layout(location = 0) in vec3 aPos;
layout(location = 1) in float aState;   // 0 normal, 1 hovered, 2 dragged

uniform mat4 uViewProj;
uniform float uSize;                    // diameter in framebuffer pixels

flat out int vState;

void main() {
    vState = int(aState + 0.5);
    gl_Position = uViewProj * vec4(aPos, 1.0);
    gl_PointSize = vState == 0 ? uSize : uSize * 1.5;
}
