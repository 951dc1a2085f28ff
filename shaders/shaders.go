// Package shaders holds drape's GLSL sources (#version 410 core), embedded
// from the .glsl files in this folder so the renderer ships as one binary.
//
// Each program is a vertex/fragment pair. The attribute locations are fixed
// with layout qualifiers in the sources; package render binds its vertex
// arrays to the same numbers.
package shaders

import _ "embed" // for the //go:embed directives below

// ClothVert transforms cloth vertices (location 0 position, 1 normal,
// 2 scalar) into world and clip space.
//
//go:embed cloth.vert.glsl
var ClothVert string

// ClothFrag shades the cloth: two-sided Blinn-Phong (the normal is flipped
// on back faces with gl_FrontFacing) over a base colour that is either flat
// or the per-vertex scalar mapped through a colour map, or, in the fabric
// look, a flat colour with wrapped diffuse light and a sheen. The
// obstacles use it too, with the contact shadow's occlusion (see
// render.ContactShadow).
//
//go:embed cloth.frag.glsl
var ClothFrag string

// WireVert transforms the expanded wireframe line list (location 0
// position, 1 face generation).
//
//go:embed wire.vert.glsl
var WireVert string

// WireFrag colours wireframe lines flat or by refinement generation.
//
//go:embed wire.frag.glsl
var WireFrag string

// LinesVert transforms coloured line vertices (location 0 position,
// 1 RGBA colour), used for the ground grid and axes.
//
//go:embed lines.vert.glsl
var LinesVert string

// LinesFrag draws coloured lines that fade out with distance from the
// camera target.
//
//go:embed lines.frag.glsl
var LinesFrag string

// PointsVert places screen-space sized markers (location 0 position,
// 1 state: 0 normal, 1 hovered, 2 dragged).
//
//go:embed points.vert.glsl
var PointsVert string

// PointsFrag draws each marker as an anti-aliased disc with an outline.
//
//go:embed points.frag.glsl
var PointsFrag string

// BackgroundVert emits a full-screen triangle from gl_VertexID alone (no
// vertex buffer).
//
//go:embed background.vert.glsl
var BackgroundVert string

// BackgroundFrag fills the screen with a vertical two-colour gradient.
//
//go:embed background.frag.glsl
var BackgroundFrag string

// HeightmapVert projects cloth vertices (location 0 position) straight
// down onto the contact shadow's rectangle, passing their height on
// (render.ContactShadow).
//
//go:embed heightmap.vert.glsl
var HeightmapVert string

// HeightmapFrag writes exp(−(y − h₀)/falloff) of the cloth's height y,
// for GL_MAX blending: the lowest cloth over each texel wins.
//
//go:embed heightmap.frag.glsl
var HeightmapFrag string

// BlurFrag is one pass of a separable Gaussian blur of a one-channel
// texture (drawn with BackgroundVert's full-screen triangle).
//
//go:embed blur.frag.glsl
var BlurFrag string

// ImGuiVert transforms Dear ImGui vertices (location 0 position, 1 UV,
// 2 packed RGBA colour) by an orthographic projection.
//
//go:embed imgui.vert.glsl
var ImGuiVert string

// ImGuiFrag multiplies the vertex colour by the bound texture (the font
// atlas or a user image).
//
//go:embed imgui.frag.glsl
var ImGuiFrag string
