#version 410 core
// Wireframe colour: flat, or by refinement generation through a small
// qualitative palette (generation 0 stays the flat colour).
in float vGen;

uniform int uByGen;        // 1: colour by generation
uniform vec4 uColor;       // flat colour (and generation 0), with alpha

out vec4 fragColor;

// Palette for generations 1..6 (Okabe-Ito, readable on light and dark).
const vec3 palette[6] = vec3[6](
    vec3(0.902, 0.624, 0.000),  // orange
    vec3(0.337, 0.706, 0.914),  // sky blue
    vec3(0.000, 0.620, 0.451),  // green
    vec3(0.941, 0.894, 0.259),  // yellow
    vec3(0.835, 0.369, 0.000),  // vermillion
    vec3(0.800, 0.475, 0.655)   // purple
);

void main() {
    int g = int(vGen + 0.5);
    if (uByGen == 0 || g <= 0) {
        fragColor = uColor;
        return;
    }
    fragColor = vec4(palette[(g - 1) % 6], 0.85);
}
