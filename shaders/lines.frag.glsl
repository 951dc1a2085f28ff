#version 410 core
// Lines fade out linearly between uFadeStart and uFadeEnd (world distance
// from uCenter in the ground plane), so the grid has no hard edge.
in vec4 vColor;
in vec3 vWorldPos;

uniform vec3 uCenter;
uniform float uFadeStart;
uniform float uFadeEnd;

out vec4 fragColor;

void main() {
    float d = length(vWorldPos.xz - uCenter.xz);
    float fade = 1.0 - smoothstep(uFadeStart, max(uFadeEnd, uFadeStart + 1e-6), d);
    fragColor = vec4(vColor.rgb, vColor.a * fade);
}
