// Package detail is physics-aware subdivision (Tsiknis 2006, ch. 3 and
// App. B): it renders a coarse cloth frame as a fine surface that buckles
// where the coarse mesh is compressed. The coarse mesh is Loop-subdivided
// (1–3 levels, boundary rules of Hoppe et al. 1994; LoopSubdivide,
// LimitPositions, LimitNormals), every fine point x_i is displaced along its
// normal n̂_i by d_i, and d minimises an energy of membrane, bending and
// foundation terms by Gauss–Newton with conjugate gradients and a
// backtracking line search, warm-started from the previous frame
// (Detailer.Update). WriteSurface exports the result as PLY or OBJ.
//
// # Use
//
//	det := detail.NewDetailer(detail.DefaultParams())
//	frame := detail.FrameOf(sim.Mesh, frame) // or from the viewer's snapshot
//	stats, err := det.Update(frame, &surface) // surface: Pos, Normal, Tris
//	err = detail.WriteSurface(w, &surface, det.Rest(), "ply")
//
// One Detailer per goroutine; once warm, an Update on unchanged coarse
// faces allocates nothing (TestNoAllocWarm).
//
// # The energy
//
//	E(d) = ½ Σ_r w_r·max{T_r − S_r(d), 0}²      membrane (eq. 3.1)
//	     + ½ Σ_i (c_i + c₀)·a_i·(Lap_i d)²      bending (eq. 3.2)
//	     + ½ K Σ_i (c_i + c₀)·a_i·d_i²          foundation
//	     − Σ_i g_i·d_i                          seed (imperfection)
//
// x_i are the level-L Loop points (not pushed to the limit surface; the
// limit masks are there for callers that want them), n̂_i the area-weighted
// normals of the undisplaced fine mesh. With EdgeEnergy a row r is a
// coarse edge: S_r the length of the displaced
// fine polyline along it, T_r its rest length L_c scaled by S⁰_r/ℓ_c (the
// undisplaced polyline over the current chord), because Loop smooths even an
// unstrained sheet and eq. 3.1's bare L_c would then buckle a cloth at rest.
// With FaceEnergy a row is every fine edge, T_r = S⁰_r/|F·t̂_r| with F the
// deformation gradient of the coarse face(s) it lies in and t̂_r its material
// direction: the coarse face's metric tensor FᵀF, sampled along all fine
// edges, so the interior of a face is driven as much as its edges (ch. 4's
// proposal). Both targets are multiplied by 1 − c_min (Params.Slack).
// c_i is the compression max{1 − σ_min(F) − c_min, 0} of the coarse
// faces at i (eq. 3.2's max{−ε_c, 0}, averaged over the faces at the
// point as §3 says), a_i the point's rest area, Lap_i the discrete
// Laplacian divided by the rest edge length squared (eq. 3.2's
// Σ_j d_j − m·d_i scaled so that the energy does not depend on the level).
//
// Departures from the thesis, each measured in the tests:
//
//   - The membrane term is one-sided (max{·, 0}): displacements can only
//     lengthen a polyline, so a stretched or unstrained edge must not pull
//     on d; without it a curved but unstrained cloth buckles
//     (TestBuckle: stretched and resting cases).
//   - The foundation term ½K·Σ w_i a_i d_i² holds the fine surface near the
//     Loop surface. Without it a linear d (a tilt) has no bending energy and
//     lengthens every polyline, so the minimiser tilts the whole sheet.
//     K = κ_bend·(2π/λ)⁴ is the stiffness at which a plate on a foundation
//     wrinkles at λ = Params.Wavelength fine edges; in practice the seed
//     pattern (same λ) decides the spacing (TestWrinkleWavelength).
//
// # A continuous locus of minima (no popping)
//
// Tsiknis §3 notes that the minimiser jumps when an edge starts to buckle
// (a pitchfork bifurcation: d = 0 stays a critical point, and on a flat
// sheet Gauss–Newton started at d = 0 never leaves it, since ∂S_r/∂d = 0
// there), and that the physics should be perturbed so the locus of minima
// is continuous. Three things do it here:
//
//  1. Every term that resists the fold (bending, foundation) is scaled by
//     the same compression weight c_i + c₀ that drives it, and the
//     membrane target grows linearly with the compression, so the
//     bifurcation is supercritical: the fold amplitude grows from 0 like
//     the square root of the compression beyond a small threshold set by
//     c₀, with no jump.
//  2. The seed −Σ g_i·d_i, g_i = Seed·h̄·K·c_i·a_i·φ_i, is an imperfection
//     that vanishes with the compression. It turns the pitchfork into an
//     imperfect bifurcation, whose stable branch d*(c) is a continuous
//     function starting at d*(0) = 0 and which has a non-zero gradient at
//     d = 0, so the iteration can leave the flat state. φ is a fixed sum of
//     three plane waves of wavelength λ in material coordinates, so it
//     picks the same side for a fold in every frame and on every adapted
//     mesh.
//  3. The warm start follows the branch from frame to frame.
//
// Params.Slack (c_min = 1 % by default) shifts the onset: compressions
// below c_min, which a hanging FEM cloth shows almost everywhere (on the
// gathered curtain 80 % of the faces have 0 < c < 1 %), give no folds, and
// beyond it the fold still grows from zero amplitude.
//
// TestFoldGrowsContinuously sweeps a compression in small steps and checks
// that the fold amplitude starts at zero, grows monotonically and never
// jumps.
//
// # Warm start across adaptation
//
// Fine points are identified by the exact bits of their material
// coordinates (an odd vertex gets (R_a + R_b)/2 at every level, which does
// not depend on the order of a and b). When the coarse faces change,
// every new fine point that existed before gets its old d; the others
// (those inside or next to faces that were split or joined) start at 0.
//
// # Edge energy against face energy
//
// On the same 12 frames of the gathered curtain (TestCompareEnergies,
// level 2, converged: MaxIter 50, MaxCG 60), the face energy shows the
// coarse edges far less: mean |d| at fine points on coarse edges over mean
// |d| inside coarse faces is 1.10 against 1.62 for the thesis's edge
// energy (1 = no trace of the coarse mesh), and the material length
// deficit of the fine edges in compressed faces (the face metric's
// max{T_e − S_e, 0}/T_e, without the slack) is 0.0039 against 0.0267.
// It needs fewer CG iterations (299 against 586 per frame) on more rows,
// so it costs about the same (789 against 704 ms CPU at level 2, 134
// against 139 ms at level 1). Within the per-frame budget the ratios are
// 1.10 against 1.49 and 0.0044 against 0.0270. DefaultParams uses it.
//
// # Cost
//
// go test -run XXX -bench 'Curtain|Rebuild' -benchtime 12x ./sim/detail/
// (the curtain gathered, 7341 coarse triangles on average over the 12
// frames; CPU time of the process, because 8 jobs shared the 2 cores and
// wall time was 1.5–3× longer, and even CPU times varied by ±20 % between
// runs; every call sees a changed coarse mesh, as after an adaptation):
//
//	                    level 1 (29k fine tris)   level 2 (117k fine tris)
//	face, budget 4×25    74 ms                    339 ms
//	edge, budget 4×25    71 ms                    272 ms
//	face, converged     126 ms                    626 ms
//	edge, converged     147 ms                    687 ms
//	rebuild only         19 ms                     91 ms
//
// The solve runs on the active set (compressed or visibly displaced points
// and three rings around them, about half of the curtain's fine points);
// the cost grows with the fine point count, ×4 per level. This does not
// reach the 33 ms per frame at 10k triangles on this machine: the
// viewer has to run it on its own goroutine and draw the newest finished
// surface (it then lags the simulation by two or three frames at level 1),
// or use it for exports. The time goes to the CG products (the bending
// Laplacian applied twice, one row per membrane term) and, after every
// adaptation, to the rebuild of the fine topology (a third of a frame at
// level 1), which could be made incremental.
//
// The package is pure Go and starts no goroutines, so it never touches
// the simulation's worker pool: the viewer runs it on its own goroutine on
// the snapshot it draws, and it never delays a simulation step.
package detail
