#version 410 core
// Cloth surface: world-space position and normal, per-vertex scalar.
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in float aScalar;

uniform mat4 uModel;
uniform mat4 uViewProj;

out vec3 vWorldPos;
out vec3 vNormal;
out float vScalar;

void main() {
    vec4 world = uModel * vec4(aPos, 1.0);
    vWorldPos = world.xyz;
    // uModel is a rigid transform or a uniform scale, so its upper 3x3
    // transforms normals correctly up to length; the fragment shader
    // normalises.
    vNormal = mat3(uModel) * aNormal;
    vScalar = aScalar;
    gl_Position = uViewProj * world;
}
