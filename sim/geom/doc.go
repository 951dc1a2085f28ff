// Package geom holds the geometry every cloth model and the collision code
// share: world and material vectors (Vec3, Vec2, Mat3); the triangle Mesh
// stored as structures of arrays with free-listed vertex and face slots and
// face adjacency, so that adaptive refinement can be reverted locally (Li &
// Volkov 2005 §4); the discrete mean curvature and vertex normals that
// drive Bender & Deul's refinement criterion (Meyer, Desbrun, Schröder &
// Barr 2003 §3.3–3.5; Bender & Deul 2012 §5), and the display curvature
// the viewer draws, H averaged over a fixed fraction of the cloth's size in
// material space (DisplayCurvature; normalized convolution, Knutsson &
// Westin 1993); mesh generators (regular, staggered and irregular
// Delaunay grids, the icosphere); and SymEigen3, the eigensolver of
// symmetric 3×3 matrices that the impact zones and the OBJ reader share.
package geom
