#version 410 core
// Anti-aliased disc marker with a dark outline; colour by state.
flat in int vState;

out vec4 fragColor;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r = length(p);
    float w = fwidth(r);
    float alpha = 1.0 - smoothstep(1.0 - w, 1.0, r);
    if (alpha <= 0.0) discard;
    vec3 fill = vState == 0 ? vec3(0.98, 0.78, 0.20)       // pinned: amber
              : vState == 1 ? vec3(1.00, 0.95, 0.60)       // hovered: light
              :               vec3(0.30, 0.90, 1.00);      // dragged: cyan
    float ring = smoothstep(0.62 - w, 0.62, r);
    vec3 color = mix(fill, vec3(0.08, 0.08, 0.09), ring);
    fragColor = vec4(color, alpha);
}
