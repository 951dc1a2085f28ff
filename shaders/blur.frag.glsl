#version 410 core
// One pass of a separable Gaussian blur of a single-channel texture:
// Σₖ w(k)·T(p + k·dir) / Σₖ w(k) over k = −radius…radius, with
// w(k) = exp(−k²/(2σ²)); texels beyond the edge count as 0.
uniform sampler2D uSource;
uniform ivec2 uDir;    // (1, 0) or (0, 1)
uniform int uRadius;   // taps each side
uniform float uSigma;  // texels

out float fragValue;

void main() {
    ivec2 size = textureSize(uSource, 0);
    ivec2 p = ivec2(gl_FragCoord.xy);
    float sum = 0.0, wsum = 0.0;
    for (int k = -uRadius; k <= uRadius; k++) {
        float w = exp(-float(k * k) / (2.0 * uSigma * uSigma));
        ivec2 q = p + k * uDir;
        wsum += w;
        if (all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, size))) {
            sum += w * texelFetch(uSource, q, 0).r;
        }
    }
    fragValue = sum / wsum;
}
