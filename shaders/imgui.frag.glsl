#version 410 core
// Dear ImGui fragments: vertex colour times the RGBA texture.
in vec2 vUV;
in vec4 vColor;

uniform sampler2D uTexture;

out vec4 fragColor;

void main() {
    fragColor = vColor * texture(uTexture, vUV);
}
