// Package contact holds the collision pipeline of the cloth against
// obstacles and against itself (Bender & Deul 2012 §3 steps 4–6 and §6,
// after Bridson, Fedkiw & Anderson 2002, "Robust treatment of collisions,
// contact and friction for cloth animation"): Solver.Resolve takes the
// cloth at x^n with the velocities v^{n+½} of the implicit solve and makes
// them collision-free over the step, in three stages that treat cloth–body
// and cloth–cloth pairs by the same code (self-collision is a parameter):
//
//  1. proximity at x^n within the thickness h: vertex–face (both ways) and
//     edge–edge pairs, resolved by inelastic and repulsion impulses with
//     Coulomb friction (Bridson et al. §7.1–7.2), mass-weighted so that
//     cloth–cloth impulses conserve momentum, bodies having infinite mass;
//  2. continuous collision detection on the linear trajectories
//     x^n → x^n + Δt·v (the coplanarity cubic of Provot 1997 §3 and
//     Bridson et al. §6.4, solved robustly: ccd.go), with impulses and
//     friction, Params.CCDIterations passes;
//  3. impact zones for what is left (Provot 1997 §4, Bridson et al. §6.3),
//     rigid or enriched with three shear modes (Tsiknis 2006, end of
//     ch. 2), repeated until a CCD pass finds nothing (zones.go).
//
// Half-spaces are tested analytically per vertex. The broad phase is one
// spatial hash per object (Teschner et al. 2003; Bender & Deul §6: each
// object its own cell size, its mean edge length; cells over swept boxes;
// static bodies built once; each vertex and edge owned by exactly one
// triangle so that each primitive pair is tested once; queries in
// parallel over a read-only table: grid.go, detect.go). IntersectingPairs
// counts intersecting non-adjacent cloth triangles for the UI.
package contact
