// Package meshio reads and writes cloth meshes: Wavefront OBJ in (ReadOBJ,
// LoadOBJ: world positions, and material coordinates from texture
// coordinates or a planar projection, with errors that name the line;
// ReadOBJMaterial for a mesh whose vt are a cloth's material coordinates
// as they are; ReadOBJSoup, the same syntax read as a triangle soup, for
// obstacles) and out (WriteOBJ), ASCII PLY with per-vertex colour and
// raw and display curvature out (WritePLY) and back in (ReadPLY), and
// point caches, a fixed vertex list's positions frame
// after frame, in 3ds Max's PC2 and LightWave's MDD formats
// (PointCacheWriter, frame by frame; ReadPointCache). It implements no
// paper; the material-space conventions it fills are those of Bender &
// Deul 2012 §4.2 (X weft, Y warp).
package meshio
