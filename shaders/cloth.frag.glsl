#version 410 core
// Two-sided Blinn-Phong cloth shading with a scalar colour map, or the
// fabric look; the obstacles use it too, with the contact shadow.
in vec3 vWorldPos;
in vec3 vNormal;
in float vScalar;

uniform vec3 uEye;          // camera position, world space
uniform vec3 uLightDir;     // direction towards the key light, world space
uniform int uColorMap;      // 0 flat, 1 diverging cool-warm, 2 viridis
uniform float uRangeMin;    // scalar mapped to the low end of the map
uniform float uRangeMax;    // scalar mapped to the high end of the map
uniform vec3 uFrontColor;   // flat colour of the front side
uniform vec3 uBackColor;    // flat colour of the back side
uniform bool uFabric;       // the fabric look: flat colours, wrapped diffuse, sheen

out vec4 fragColor;

// coolWarm is Moreland's diverging map (2009) through five control points:
// blue (t=0), white-grey (t=0.5), red (t=1).
vec3 coolWarm(float t) {
    const vec3 c0 = vec3(0.230, 0.299, 0.754);
    const vec3 c1 = vec3(0.552, 0.690, 0.996);
    const vec3 c2 = vec3(0.865, 0.865, 0.865);
    const vec3 c3 = vec3(0.958, 0.603, 0.482);
    const vec3 c4 = vec3(0.706, 0.016, 0.150);
    t = clamp(t, 0.0, 1.0) * 4.0;
    if (t < 1.0) return mix(c0, c1, t);
    if (t < 2.0) return mix(c1, c2, t - 1.0);
    if (t < 3.0) return mix(c2, c3, t - 2.0);
    return mix(c3, c4, t - 3.0);
}

// viridis is a polynomial fit of matplotlib's viridis map (Mattias
// Lagergren's degree-6 fit), accurate to about 1/255.
vec3 viridis(float t) {
    const vec3 c0 = vec3(0.2777273272234177, 0.005407344544966578, 0.3340998053353061);
    const vec3 c1 = vec3(0.1050930431085774, 1.404613529898575, 1.384590162594685);
    const vec3 c2 = vec3(-0.3308618287255563, 0.214847559468213, 0.09509516302823659);
    const vec3 c3 = vec3(-4.634230498983486, -5.799100973351585, -19.33244095627987);
    const vec3 c4 = vec3(6.228269936347081, 14.17993336680509, 56.69055260068105);
    const vec3 c5 = vec3(4.776384997670288, -13.74514537774601, -65.35303263337234);
    const vec3 c6 = vec3(-5.435455855934631, 4.645852612178535, 26.3124352495832);
    t = clamp(t, 0.0, 1.0);
    return c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))));
}

// Contact shadow (render.ContactShadow): Ē, the blurred map of
// exp(−(h − h₀)/λ) of the lowest cloth height h over each point.
uniform bool uShadowOn;
uniform sampler2D uShadowMap;
uniform vec4 uShadowRect;   // x0, z0 of the mapped square, 1/side, 1/side (1/m)
uniform vec3 uShadowShape;  // h₀ (m), λ (m), strength

// contactOcclusion returns how much the cloth darkens the surface at p:
// strength · min(1, Ē(p.xz) · exp((p.y − h₀)/λ)).
float contactOcclusion(vec3 p) {
    vec2 uv = (p.xz - uShadowRect.xy) * uShadowRect.zw;
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0)))) return 0.0;
    float e = texture(uShadowMap, uv).r;
    if (!(e > 0.0)) return 0.0; // no cloth near (and 0·∞ would be NaN)
    return uShadowShape.z * min(1.0, e * exp(min((p.y - uShadowShape.x) / uShadowShape.y, 80.0)));
}

void main() {
    vec3 n = normalize(vNormal);
    // Two-sided lighting: light the side facing the viewer.
    if (!gl_FrontFacing) n = -n;

    vec3 base = gl_FrontFacing ? uFrontColor : uBackColor;
    if (uColorMap != 0) {
        // A degenerate range (min == max) maps everything to the middle.
        float span = uRangeMax - uRangeMin;
        float t = abs(span) > 1e-20 ? (vScalar - uRangeMin) / span : 0.5;
        base = uColorMap == 1 ? coolWarm(t) : viridis(t);
        if (!gl_FrontFacing) base *= 0.85;
    }

    vec3 v = normalize(uEye - vWorldPos);
    vec3 l = normalize(uLightDir);
    // Hemispheric ambient: a little brighter from the sky than the ground.
    float hemi = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.10, 0.10, 0.10), vec3(0.24, 0.25, 0.28), hemi);
    // Key light (Lambert + Blinn specular) and a soft fill from the camera.
    float diff = max(dot(n, l), 0.0);
    float fill = 0.22 * max(dot(n, v), 0.0);
    vec3 h = normalize(l + v);
    float spec = diff > 0.0 ? pow(max(dot(n, h), 0.0), 48.0) : 0.0;

    vec3 color = base * (ambient + 0.80 * diff + fill) + vec3(0.10) * spec;
    if (uFabric) {
        // Cloth scatters light around its fibres: diffuse wrapped a little
        // way round the terminator (20°), a broad weak highlight, and a
        // sheen towards grazing angles, lighter than the base colour.
        const float wrap = 0.35;
        float wd = max((dot(n, l) + wrap) / (1.0 + wrap), 0.0);
        float nv = max(dot(n, v), 0.0);
        vec3 sheen = mix(base, vec3(1.0), 0.4) * 0.22 * pow(1.0 - nv, 3.0);
        float soft = pow(max(dot(n, h), 0.0), 12.0);
        color = base * (ambient + 0.9 * wd + 0.4 * fill) + sheen + vec3(0.035) * soft;
    }
    if (uShadowOn) color *= 1.0 - contactOcclusion(vWorldPos);
    // Gamma-ish tone curve so the software and hardware paths look alike.
    color = pow(clamp(color, 0.0, 1.0), vec3(1.0 / 1.1));
    fragColor = vec4(color, 1.0);
}
