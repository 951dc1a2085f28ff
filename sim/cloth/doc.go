// Package cloth is Bender & Deul's adaptive finite-element cloth
// (Bender & Deul 2012, §3–§5): the simulation Sim and its Step, its
// parameters, pins and scripted pin paths, the block-sparse system and
// the modified preconditioned conjugate gradient that solves it (Baraff &
// Witkin 1998 §5.3 constraint filtering), the SIMD product kernel, the
// coupling of adaptive refinement to all of them, and the cloth's side of
// contact (§6): the collision phase on v^{n+½}, resting contacts, and the
// repulsion springs of the last collision phase's pairs in the solve
// (Bridson et al. 2002 §7.2; repulsion.go). The element kernels are
// in package fem, the mesh in geom and the topology operations in adapt;
// this package keeps the solver core together because its layout
// invariants are shared and it is the hot path.
//
// # Adaptivity
//
// Adaptive simulation couples the √3 Adapter (package adapt) with the
// integrator, Bender & Deul §3 step 7, §4.1 and §5.
//
// After every Interval-th step the simulation computes the mean curvature
// at every vertex (Meyer et al. 2003, CurvatureWorkspace.MeanCurvature),
// lets the Adapter coarsen and refine by the criterion of §5, and then
// updates only what the change record (Adapter.Changes) names:
//
//   - element rest data (shape-function derivatives, rest area) and the
//     corotated frame of new faces;
//   - lumped areas A_p = ⅓·Σ A_i of touched vertices only (§4.1). Every
//     face hands exactly a third of its rest area to each corner, and the
//     children of a split, flip or trisection tile the parent's rest
//     triangle, so Σ_p A_p = Σ_f A_f is unchanged and the total mass ρ·Σ A_p
//     is conserved to round-off (TestAdaptSimConservation);
//   - velocities of touched vertices so that linear momentum is conserved
//     exactly (see conserveMomentum);
//   - pins and the drag: a vertex that a boundary trisection creates
//     between two pinned vertices is pinned to the linear interpolation of
//     their anchors and paths, so a curtain rail stays straight and moves
//     as one (derivePins); base vertices are never removed, and a pin or
//     drag whose vertex is coarsened away moves to the nearest surviving
//     vertex (updatePins);
//   - the block system: pattern, gather lists and bending sums, row by row
//     for the touched vertices only (updateSystem, bsr_incr.go).
//
// Positions are never smoothed (Kobbelt's α_n = 0): a new vertex is placed
// on the current surface, so refinement does not change the potential
// energy of the membrane, and its velocity is interpolated.
//
// Costs: over the 20 s curtain (drape bench, 4591 triangles on average)
// adaptation took 4.0 % of the step time with the default interval of 5
// (the steps themselves became three times faster since it was 1.9 %);
// at the 11500-triangle peak one adaptation takes about 4 ms, mostly
// serial topology work, with the curvature and the coarsening scan (one
// pass over the faces) under 1 ms. Before the block system was made incremental
// (bsr_incr.go), rebuilding it alone took 9–70 ms at 7900 triangles (other
// jobs were running), several steps' worth, and the adaptation share was
// 6.5–7.5 %.
//
// Triangle cap: the Adapter checks its cap before each refinement, and one
// refinement may cascade into neighbours; the largest overshoot measured
// over 8000 random adaptations with g_max ≤ 8 was 11 triangles. Adapt hands
// the Adapter MaxTris − cascadeReserve(g_max) (294 for g_max = 6), so
// MaxTris is a hard cap (TestAdaptLongRandomParams). Lowering MaxTris below
// the current count stops refinement; it does not force coarsening.
//
// Full resolution and the paper's 22140: with Kobbelt's two-step boundary
// rule (adapt.go) every √3 step triples the face count, boundary included,
// so RefineUniform(6) on the curtain's 820-triangle base mesh gives
// 27·820 = 22140 triangles, the mesh the benchmark compares against. Rail
// edges are then 0.123 m/3 = 4.1 cm long, like the interior's, where the
// earlier rule (trisect at every step) gave 25020 triangles with 4.6 mm
// slivers along the rail.
//
// Minimum angle: refinement without smoothing shrinks angles with depth.
// On the curtain the smallest rest angle goes from 19.5° (base) to 8.0°
// (uniform g = 6; TestCurtainBaseMesh asserts ≥ 7°); over random refine and
// coarsen sequences on jittered meshes the Adapter's tests measured 0.87°
// from 24.1°, on regular grids 15° from 45° (minAngleBound in adapt_test.go
// asserts base/30). Angles come back exactly when the
// mesh coarsens.
package cloth
