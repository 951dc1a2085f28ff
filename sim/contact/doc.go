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
// Half-spaces are tested analytically per vertex, spheres and capsules
// per vertex and per face from their core segment (round.go: the solid
// contains its tessellation). The broad phase is one spatial hash per
// object (Teschner et al. 2003; Bender & Deul §6: each object its own cell
// size, its mean edge length, a body's at least the cloth's; cells over
// swept boxes; static bodies built once; each vertex and edge owned by
// exactly one triangle so that each primitive pair is tested once; queries
// in parallel over a read-only table: grid.go, detect.go). Cloth–cloth
// pairs are found per patch of about two dozen faces, in a hash of the
// patch boxes: a patch, or a cluster of patches (groups of four, up to
// eight levels), whose normals stay within a cone and whose projected
// boundary stays simple is certified free of self-intersection and
// contributes no pair (Volino & Magnenat-Thalmann 1994; Provot 1997 §3);
// a certificate holds for all shapes within a slack of the one it was
// made at, so it lasts while the cloth deforms little; the pairs of
// patches not inside one certified cluster are tested triangle by
// triangle (patches.go), except two faces that share a vertex whose star
// keeps its primitives h apart (a bound from the star's projected angles
// and altitudes, stars.go). The proximity query's triangle pairs serve every
// CCD pass of the call (a triangle that outgrows its box adds its new
// pairs once, and a cluster that loses its certificate adds the pairs it
// covered), each with a lower bound of its primitive distances at x^n, so
// that a pair whose relative motion over the step cannot close that
// distance is skipped before any cubic (farOverStep; first by a bound of
// the two patches' motions, patchFar, for all the pairs of a patch pair at
// once, candGroup). IntersectingPairs
// counts intersecting non-adjacent cloth triangles for the UI.
//
// Decisions (where the papers leave a choice; each is argued at its code):
//
//   - Thickness h defaults to 3 mm; the CCD distance tolerance is
//     δ = 10⁻³·h (a coplanarity time counts as a collision when the
//     primitives are within δ then), and a CCD response leaves a gap of
//     0.01·h (response.go).
//   - The proximity repulsion raises the relative normal velocity to
//     0.1·(h − d)/Δt, Bridson et al.'s cap, without their spring-stiffness
//     cap (the package knows no stiffness). The pairs it finds within h,
//     cloth–cloth and with static bodies, are handed out (Solver.Near) so
//     that the cloth puts the spring itself into its next implicit solve
//     (cloth/repulsion.go).
//   - Impulses are applied in sequence (Gauss–Seidel) in a fixed order, so
//     results do not depend on the number of cores. Stacked impulses on one
//     vertex can overshoot (a vertex of a sheet resting on a finely meshed
//     body can leave with a few tenths of a m/s); the implicit solver's
//     resting-contact constraints (Contacts) are meant to take over there.
//   - A zone touching a body moves with the body (its affine velocity
//     field; zero for static bodies and half-spaces); a zone with pinned
//     vertices keeps the pins' velocities and moves rigidly with them
//     (zones.go). Half-spaces do not move.
//   - EnrichedZones is the default: on a two-layer zone sliding at 1 m/s a
//     rigid projection stops the sliding, the enriched one keeps it all
//     (TestZoneModesSliding); both keep the piles of TestDropPile
//     intersection-free.
//   - The velocities Resolve returns are the collision-free average
//     velocities; using them as v^{n+1} too is the caller's simple choice
//     in place of Bridson et al.'s final-velocity solve.
//   - NearFaces marks every face around a vertex within h (a superset), and
//     Contacts lists one entry per vertex–body proximity pair.
package contact
