// Package exact is an independent, exact intersection oracle for the tests
// of the collision code (Bender & Deul 2012 §6; Bridson, Fedkiw & Anderson
// 2002 state the invariant it checks: no intersections at the end of every
// step). It shares no code with sim/contact and favours obvious
// correctness over speed: every decision is a sign of an orientation
// determinant (orient2d, orient3d) evaluated exactly — a floating-point
// filter with Shewchuk's error bound; then the same float expression when
// none of its operations rounded (checked with TwoSum and fma), which
// settles exactly coplanar input such as a flat sheet cheaply; then
// big.Float arithmetic whose accuracy the library reports; then big.Rat —
// and the geometric tests are
// built from those signs alone, with the degenerate cases (touching,
// coplanar, collinear, zero-area triangles) handled by reduction to
// segments and to the three coordinate projections.
//
// It holds TrianglesIntersect, SelfIntersections and MeshIntersections
// (broad phase by a uniform grid of its own), PointInsideMesh (exact ray
// parity), BelowPlane, and a Checker that counts cloth vertices inside
// obstacles and intersecting triangle pairs for scene tests.
package exact
