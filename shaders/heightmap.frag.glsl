#version 410 core
// Writes E = exp(−(y − h₀)/falloff) for the cloth at height y; blended
// with GL_MAX, a texel ends up holding E of the lowest cloth over it (0
// where there is none). See render.ContactShadow.
in float vHeight;

uniform vec2 uFalloff; // h₀ (m), falloff height (m)

out float fragE;

void main() {
    fragE = exp(-(vHeight - uFalloff.x) / uFalloff.y);
}
