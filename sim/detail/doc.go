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
// faces allocates nothing (TestNoAllocWarm), and one on changed faces
// rebuilds into the previous topology's storage.
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
// # Obstacles
//
// A frame may carry the bodies the cloth collides with (Frame.Obstacles,
// ObstacleAt for a sim/obstacle body at a pose). Tsiknis ch. 3 tests a
// step's displacements at the full step and scales them back to where the
// fine mesh is intersection-free; after the solve, each fine point whose
// displacement carries it into a body is scaled back along its normal
// until it is out (or no deeper than its Loop point; clear.go has the
// decisions), and the scaled displacement is what the next frame starts
// from. Only obstacles are tested, not the cloth against itself. Without
// it, the wrinkles of the ground-angled scene's sheet, landing, dipped
// 20 mm into the ground at step 100 (TestRunDetailClearOfObstacles in
// app/headless fails so). It costs a signed distance per displaced fine
// point inside a body's bounds: nothing measurable for planes and
// spheres, 3–4 ms more per Update at level 1 on the bunny scene (3,500
// triangles at 2.5 s; 6.5–7.5 ms against 3.5–3.8, the bunny's distance
// field being a mesh query), measured 2026-11-26 with a scratch test.
//
// # Edge energy against face energy
//
// On the same 12 frames of the gathered curtain (TestCompareEnergies,
// level 2, converged: MaxIter 50, MaxCG 60), the face energy shows the
// coarse edges far less: mean |d| at fine points on coarse edges over mean
// |d| inside coarse faces is 1.08 against 1.41 for the thesis's edge
// energy (1 = no trace of the coarse mesh), and the material length
// deficit of the fine edges in compressed faces (the face metric's
// max{T_e − S_e, 0}/T_e, without the slack) is 0.0041 against 0.0271.
// It needs fewer CG iterations (297 against 568 per frame) on more rows,
// so it costs less (361 against 515 ms CPU at level 2, 100 against 158 ms
// at level 1). Within the per-frame budget (4 × 12) the ratios are 1.07
// against 1.32 and 0.0048 against 0.0268. DefaultParams uses it. (The
// code before issue 17's speed-up gives the same ratios and deficits; the
// times are the new code's.)
//
// # Cost
//
//	go test -run '^$' -bench Viewer -benchtime 12x ./sim/detail/
//
// BenchmarkViewer details the gathered curtains at their peak, one 30 fps
// frame after another, with DefaultParams; the adaptive curtain's faces
// change in every frame, so every Update also rebuilds its fine topology.
// CPU ms per Update, median of 3 runs interleaved with the code before
// issue 17's work (another job used about 1.2 of the 2 cores throughout,
// load 3–4.5, and CPU times varied by ±20 % between runs):
//
//	                                     level 1     level 2     level 3
//	adaptive curtain, 9,800 triangles     36 (103)   124 (559)   539 (2380)
//	2,000-triangle curtain               5.0 (11.5)  14 (41)      43 (175)
//
// The fine points grow 4× per level, the cost 3–4.4× (measured). BenchmarkRebuild (7,000 triangles, the rebuild after an
// adaptation, the warm-start transfer and one CG step) takes 6.9 ms at
// level 1 and 27 ms at level 2 (21 and 81 before). At level 1 on the
// adaptive curtain the time goes to the bending product in the CG
// iterations (a quarter of it), the rebuild (a fifth), the energy
// evaluations of the line search (an eighth), the active set with its
// membrane targets (an eighth) and the Loop surface and normals.
//
// BenchmarkWhileSimulating steps the simulation flat out on another
// goroutine meanwhile, as the viewer's loop does when it cannot keep real
// time; the simulation's worker pool keeps both cores busy, so the detail
// shares them with it. It details, with the viewer's parameters
// (DefaultParams and ViewerTimeLimit), either the recorded peak frames,
// 1/30 s of simulated time apart as above ("recorded": every adaptive
// frame has new faces, so every Update rebuilds), or what the viewer's
// worker gets ("live": the newest state the running simulation has
// published, taken as soon as the previous Update is done; the fine
// topology is rebuilt only when an adaptation changed the faces in
// between). With nothing else on the machine (2026-11-26, `-bench
// WhileSimulating -benchtime 30x` or 60x; the simulation goes on from
// where the benchmarks before left it, so each run sees another stretch
// of the gathered curtain), the median Update was ready after (90th
// percentile in brackets):
//
//	                                      live                     recorded
//	adaptive curtain, level 1 (22 runs)   21.9–26.2 (26–43)        24.7–24.8 (27–30)  (2 runs)
//	  without the time limit (8 runs)     25.0–34.4 (35–54)        31.7–39.4 (42–52)  (6 runs)
//	2,000-triangle curtain, level 2       8.8–12.0 (12–18) (2)     15.9–16.8 (21–23)  (2 runs)
//	  without the time limit (8 runs)     7.5–18.4 (10–29)         16.9–18.6 (21–28)  (5 runs)
//
// So issue 17's 33 ms per frame holds for the median Update in every run
// and case. At level 1 it holds because of the time limit (see
// ViewerTimeLimit for what it costs the surface: within the spread
// between runs); the Updates that rebuild the fine topology (13–20 % of
// them live, one step apart) take one iteration after a rebuild of 17–30
// ms and make the 90th percentile, over a frame in 6 of the 22 runs: then
// the viewer draws the previous surface for one more frame. Live, the
// gathered adaptive curtain's step took 53–87 ms beside the detail, so
// consecutive Updates were one step apart; the 2,000-triangle curtain's
// took 5–7 ms, and they were 1.4–2.7 steps apart, closer than the
// recorded frames' 6.7. Where the cloth still moves (right after the
// gathering) the warm start leaves more to do: without the limit the
// 2,000-triangle curtain's live Updates took 7.5–9.3 ms later on and
// 16.5–18.4 ms right after. The simulation never waits for the detail,
// but shares the cores with it: with the limit the detail takes 17–25 ms
// of CPU per Update instead of 25–34, and BenchmarkSimulationDelay, which
// takes turns of 10 steps with and without the detail in the same
// stretch, found the step 1.13–1.18× as long with it (4 runs, `-benchtime
// 8x`); sim-step-ms against sim-alone-ms of BenchmarkWhileSimulating
// (alone: 10 steps before and after) moves with the state as much.
//
// The package is pure Go and starts no goroutines, and it does not use
// the simulation's worker pool (sim/parallel): that pool runs one loop at
// a time, so the detail's loops would hold up the simulation's, and the
// simulation already keeps both cores busy. The viewer runs it on its own
// goroutine on the snapshot it draws: a simulation step never waits for
// it, though the two share the CPU.
package detail
