// Package springs is a second cloth model beside the FEM of package cloth:
// Olson & Rudnick's mass-spring cloth with dynamic subdivision ("Dynamic
// Subdivision of Mass-Spring Cloth Simulations", after Hutchinson, Preston &
// Hewitt 1996 and Provot 2001), drape issue 15.
//
// The cloth is a regular grid of particles of the types of §3.1 (active,
// fixed, interpolated; an empty slot is "none") with a subdivision layer
// each; the dense grid doubles its resolution when a subdivision needs a
// deeper layer (§4.1). Structural, shear and bend springs (§3.2) connect
// each particle to its neighbours at its own spacing 2^(m−l), with rest
// lengths from the original positions and stiffness ×2^l at layer l.
// Step integrates by explicit (symplectic) Euler with 2^l substeps per
// animation step for layer-l particles (fig. 2), keeps interpolated
// particles at the midpoint of their parents, applies Provot's correction
// of over-elongated springs with velocities corrected to match, gravity,
// mass-proportional damping, wind and air drag. Dynamic scenes subdivide
// every CheckInterval steps where the angle criterion (§4.2) or the
// hanging-spring criterion (§4.3) fires. Surface turns the grid into
// triangles without cracks at T-junctions (§3.3).
//
// Where the paper is silent or not symmetric, the decisions are written
// next to the code: symmetric springs with the finer view winning and a
// multirate schedule that conserves momentum (rebuild, Step), the masses
// of new particles (subdivide), the turning angle (TurningAngle), the
// vertical plane of the hanging parabola and vertical pairs
// (HangingMidpoint), and the frictionless obstacles (project).
//
// Not done: coarsening (the paper only refines), contact with other
// colliders, self-collision.
package springs
