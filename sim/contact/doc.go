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
// A newcomer reads this note before the files: the stages, the data they
// pass on, the culling and its switch, a glossary, and which file holds
// what.
//
// # Stages
//
// A step's collision phase is Begin, Proximity, Continuous and End
// (Resolve calls all four; cloth.Sim calls them itself and runs strain
// limiting after Proximity and between repeated calls of Continuous, each
// time bracketed by Mark and Changed so that the CCD passes test again
// what it moved):
//
//   - Begin checks the input, keeps c.V to restore on failure, rebuilds
//     the cloth's topology when its faces changed (topology.go: the faces
//     round each vertex, the face across each edge, the ownership of
//     vertices and edges, then the culler's patches, clusters and stars)
//     and the bodies' grids (solver.go, round.go).
//   - Proximity runs one pass of detect in the proximity mode and applies
//     the repulsion impulses of the pairs within h (response.go), keeping
//     the vertex–body contacts (Contacts) and the pairs within h (Near).
//   - Continuous runs up to Params.CCDIterations passes of detect in the
//     CCD mode, each followed by the impulses of its collisions, then the
//     impact-zone passes (zones.go) until a pass finds nothing.
//   - End restores c.V on an error or a non-finite velocity.
//
// Every pass of detect (candidates.go) does the same four things: the
// boxes of the cloth's vertices and faces over the pass; the candidate
// pairs, triangle against triangle, whose boxes meet; the narrow phase on
// each (narrow.go: vertex–face and edge–edge tests within h at x^n, or on
// the step's trajectories, ccd.go); the pairs found, in a fixed order
// whatever the number of cores. The broad phase is one spatial hash per
// object (Teschner et al. 2003; Bender & Deul §6: each object its own cell
// size, its mean edge length, a body's at least the cloth's; cells over
// swept boxes; static bodies built once; queries in parallel over a
// read-only table: grid.go); cloth–cloth pairs are found per pair of
// patches whose boxes meet, in a hash of the patch boxes, the culler
// leaving some out. Half-spaces are tested analytically per vertex,
// spheres and capsules per vertex and per face from their core segment
// (round.go: the solid contains its tessellation). The
// proximity pass keeps its triangle pairs, with a lower bound d of their
// distances at x^n, as the candidates of the step's CCD passes; a CCD pass
// tests only those with a vertex whose velocity changed since the last
// pass (dirty), adds the pairs of faces whose boxes outgrew their
// candidate boxes and of clusters whose certificate was lost, and leaves
// out those whose motion cannot close d.
//
// # Data
//
// The cloth (Cloth) is x^n, the velocities, the inverse masses and the
// faces, per slot (free slots allowed); a body (Body) is a moving mesh, a
// round body (sphere or capsule, analytic) or a half-space. Between calls
// the Solver keeps the topology, the culler's partition and certificates,
// the static bodies' grids, and the last call's Contacts, Near pairs and
// near faces (NearFaces). Within a call the passes share the per-vertex
// and per-face boxes, the candidate lists (per piece of the parallel
// loops) and the pair lists (pair: up to four points with signed weights,
// a normal, a distance or a time of impact).
//
// # Culling
//
// The cloth–cloth pairs are the expensive ones: a sheet's every face
// meets its neighbours' boxes. The culler (cull.go) is the one place that
// leaves such pairs out: by certificates (a cluster of patches whose
// normals stay within a cone and whose projected boundary stays simple
// cannot intersect itself; Volino & Magnenat-Thalmann 1994, Provot 1997
// §3; patches.go), by star bounds (two faces that share a vertex whose
// star keeps their primitives h apart, from the star's projected angles
// and altitudes; stars.go) and by motion bounds (a candidate pair whose
// relative motion over the step cannot close its distance bound, for a
// whole candidate group, a pair of patches or a pair of faces; cull.go).
// Params.Cull turns it off, and then every pair of cloth faces whose
// boxes meet goes to the narrow phase: the reference. The star and motion
// bounds change no result; a certificate leaves out, besides pairs that
// cannot collide, the pairs within h inside the cluster it certifies
// (in-plane neighbours), so which of those are repelled depends on the
// partition (TestCullOff checks that those are the only differences).
//
// # Glossary
//
//   - h: the thickness (Params.Thickness), the proximity distance. δ =
//     10⁻³·h: the CCD tolerance, primitives closer than δ collide.
//   - primitive pair: vertex–face or edge–edge, sharing no vertex; owner:
//     each vertex and edge belongs to one face, the lowest that holds it,
//     so that each primitive pair is tested once.
//   - candidate pair: two triangles whose boxes meet (cand), with d, a
//     lower bound of their primitives' distances at x^n; candidate group:
//     the run of candidate pairs the proximity pass found in one pair of
//     patches, with the least d (candGroup).
//   - patch: about two dozen faces grown breadth-first, a topological disk
//     (patches.go); cluster: up to four adjacent clusters of the level
//     below, up to eight levels above the patches (level 0).
//   - certificate: a cluster whose faces' normals lie in a cone and whose
//     boundary, projected along its axis, is simple is a graph and cannot
//     intersect itself; certified with a slack ε, it stays so for every
//     shape within ε of its reference (the positions it was certified at,
//     after a common translation), so a step's trajectories within the
//     slack need no new certificate.
//   - star: the faces round a vertex; its rim, the far edges in fan
//     order; β: a lower bound of the distances between the primitives of
//     two of its faces that share only the vertex (stars.go).
//   - motion bound (Lipschitz bound): the most two points of a pair can
//     approach over the step, from their vertices' displacements
//     (selfPairLip) or their patches' (patchesFar); a pair at least d apart
//     with a motion bound below d − 2δ cannot collide (farOverStep).
//   - dirty: a vertex whose velocity changed since the last pass; outgrown:
//     a face whose box left its candidate box.
//   - impact zone: vertices whose remaining collisions are resolved
//     together by projecting their velocities onto rigid (or rigid and
//     shear) motion (zones.go).
//   - tangled: faces that already cross (Untangler); their pairs are not
//     tested, so they can pass back.
//
// # Files
//
//   - solver.go: the API (Cloth, Body, Solver, the stages, Stats), the
//     bodies' preparation; params.go: Params and its table.
//   - topology.go: the cloth's topology, rebuilt when the faces change.
//   - grid.go: the spatial hash of every object.
//   - candidates.go: the boxes and the candidate pairs of every pass.
//   - cull.go: the culler, its switch and the motion bounds; patches.go:
//     the patches, clusters and certificates; stars.go: the star bounds.
//   - narrow.go: the primitive tests of a candidate pair; ccd.go: the
//     coplanarity cubic and its roots; round.go: spheres and capsules;
//     deep.go: cloth inside or across a mesh body.
//   - response.go: impulses and friction; zones.go: impact zones.
//   - intersect.go, untangle.go, untangle_contours.go,
//     untangle_regions.go: counting and undoing intersections
//     (IntersectingPairs, TangleCheck, Untangler).
//
// Decisions (where the papers leave a choice; each is argued at its code):
//
//   - Thickness h defaults to 3 mm; the CCD distance tolerance is
//     δ = 10⁻³·h (a coplanarity time counts as a collision when the
//     primitives are within δ then), and a CCD response leaves a gap of
//     0.01·h (response.go).
//   - The proximity repulsion raises the relative normal velocity to
//     0.1·(h − d)/Δt, Bridson et al.'s cap, without their spring-stiffness
//     cap (the package knows no stiffness), and at most PushSpeed: cloth
//     deeper in a body than that allows is moved out at the same tenth of
//     its overlap a step, up to EscapeSpeed (deeper than 6 m, its depth
//     over EscapeTime, up to EscapeMax), by a displacement the cloth
//     does not keep (Solver.Escape, a split impulse), which keeps the
//     order of layers of cloth inside a body (response.go, escapeBody).
//     A mesh body's triangles see the cloth only within h of
//     them: where the caller asks (Body.Inside), the cloth's vertices
//     inside the body and its faces across it are pairs too, and pass the
//     body's surface outwards (deep.go). The pairs it finds within h,
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
