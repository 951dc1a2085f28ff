#version 410 core
// Wireframe colour: flat, or by refinement generation through a small
// qualitative palette (generation 0 stays the flat colour).
in float vGen;

uniform int uByGen;        // 1: colour by generation
uniform vec4 uColor;       // flat colour (and generation 0), with alpha

out vec4 fragColor;

// Colours of generations 1..6 (render.GenerationColors).
uniform vec3 uPalette[6];

void main() {
    int g = int(vGen + 0.5);
    if (uByGen == 0 || g <= 0) {
        fragColor = uColor;
        return;
    }
    fragColor = vec4(uPalette[(g - 1) % 6], 0.85);
}
