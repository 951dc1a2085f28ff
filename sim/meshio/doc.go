// Package meshio reads and writes cloth meshes: Wavefront OBJ in (ReadOBJ,
// LoadOBJ: world positions, and material coordinates from texture
// coordinates or a planar projection, with errors that name the line) and
// out (WriteOBJ), and PLY out with per-vertex colour (WritePLY). It
// implements no paper; the material-space conventions it fills are those
// of Bender & Deul 2012 §4.2 (X weft, Y warp).
package meshio
