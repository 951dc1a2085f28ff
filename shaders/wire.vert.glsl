#version 410 core
// Wireframe as an expanded line list: two vertices per edge, three edges per
// face, each vertex carrying its face's refinement generation.
layout(location = 0) in vec3 aPos;
layout(location = 1) in float aGen;

uniform mat4 uModel;
uniform mat4 uViewProj;

out float vGen;

void main() {
    vGen = aGen;
    gl_Position = uViewProj * (uModel * vec4(aPos, 1.0));
}
