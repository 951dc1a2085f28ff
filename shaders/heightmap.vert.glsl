#version 410 core
// Cloth seen from straight above for the contact shadow's height map:
// world x and z map to the map's rectangle, the height is passed on.
layout(location = 0) in vec3 aPos;

uniform vec4 uRect; // x0, z0 of the rectangle covered, then 1/width, 1/depth, 1/m

out float vHeight;

void main() {
    vHeight = aPos.y;
    vec2 uv = (aPos.xz - uRect.xy) * uRect.zw;
    gl_Position = vec4(2.0 * uv - 1.0, 0.0, 1.0);
}
