// Package springs is a second cloth model beside the FEM of package cloth:
// Olson & Rudnick's mass-spring cloth with dynamic subdivision ("Dynamic
// Subdivision of Mass-Spring Cloth Simulations", after Hutchinson, Preston &
// Hewitt 1996 and Provot 2001), drape issue 15.
//
// The cloth is a regular grid of particles of the types of §3.1 (active,
// fixed, interpolated; an empty slot is "none") with a subdivision layer
// each; the dense grid doubles its resolution when a subdivision needs a
// deeper layer (§4.1). Structural, shear and bend springs (§3.2) connect
// each particle to its neighbours at its own spacing 2^(m−l) (or at the
// finer spacing of a complete grid around it: viewLayers), with rest
// lengths from the original positions and stiffness ×2^l at layer l.
// Step integrates by explicit (symplectic) Euler with 2^l substeps per
// animation step for layer-l particles (fig. 2), keeps interpolated
// particles at the midpoint of their parents, applies Provot's correction
// of over-elongated springs with velocities corrected to match, gravity,
// mass-proportional damping, wind and air drag. Dynamic scenes subdivide
// every CheckInterval steps where the angle criterion (§4.2) or the
// hanging-spring criterion (§4.3) fires and, beyond the paper, coarsen a
// subdivided block back when its criteria have stayed below
// CoarsenFraction of the threshold for CoarsenChecks checks (coarsen:
// the inverse bookkeeping of subdivision, conserving mass, centre of mass
// and momentum). Surface turns the grid into triangles without cracks at
// T-junctions (§3.3).
//
// Where the paper is silent or not symmetric, the decisions are written
// next to the code: symmetric springs with the finer view winning and a
// multirate schedule that conserves momentum, with a particle at a
// T-junction taking the substep of its finest spring (rebuild, Step), the
// masses of new particles and a 2:1-balanced refinement that keeps them
// positive (subdivide, divide), the springs of a particle the finer grid
// surrounds (viewLayers), the turning angle (TurningAngle), the
// vertical plane of the hanging parabola and vertical pairs
// (HangingMidpoint), the frictionless obstacles (project), and
// coarsening's structure, conservation and hysteresis (coarsen,
// coarsenQuiet).
//
// # Convergence (issue 15, the paper-against-paper question)
//
// Static sag of a 1 m sheet (ρ = 0.1 kg/m²) clamped along its top edge,
// uniform levels 0…3 (TestConvergenceSag): springs with structural k =
// 1000 N/m only, FEM (package cloth) with E = 1000 N/m, ν = 0. Exact:
// ρgL²/(2E) = 0.4905 mm.
//
//	level  particles  springs, k unchanged  springs, k·2^l (paper)  FEM (quads)
//	0      5×5        0.4905 mm             0.4905 mm               0.4907 mm (4×4)
//	1      9×9        0.4905                0.2452                  0.4905 (8×8)
//	2      17×17      0.4905                0.1226                  0.4905 (16×16)
//	3      33×33      0.4905                0.0613                  0.4905 (32×32)
//
// The paper's stiffness ×2^l is the scaling of a 1D chain of springs in
// series; a 2D lattice's sheet stiffness does not depend on its spacing, so
// under refinement the paper's cloth converges to an inextensible sheet
// (the sag halves per level), not to the continuum. With LayerExp = 0 the
// same lattice is exact here. Hanging from two corners instead
// (TestConvergenceCorners, default springs) no discretisation converges: a
// point support in a 2D membrane gives a displacement ∝ log(1/h), and the
// k-unchanged sag grows 22.3, 28.2, 34.6, 40.6 mm, while ×2^l gives 22.3,
// 14.4, 9.2, 5.7 mm.
//
// # Scenes
//
// docs/notes/springs.md has drape bench's tables of the
// four built-in scenes (none, uniform, dynamic as in the paper, dynamic
// with coarsening; DefaultParams, MaxLayer 2); TestSceneTable
// (DRAPE_SPRINGS_TABLE=1) prints the same variants from here. Cost is
// counted as spring evaluations per step (Work: Σ 2^s over the springs),
// which does not depend on the machine.
//
// The vertical sheet hangs in its own plane and never bends enough to fire a
// criterion. On the pole the angle criterion refines everything to the
// maximum layer, as Olson & Rudnick §6 observe, because the draped cloth
// is folded at every scale the grid has: in the uniform run after 2 s,
// 58 % of the base particles turn by more than θ = 30° at the base
// spacing (10 cm), 34 % of the layer-1 ones at 5 cm and 13 % of the
// layer-2 ones at 2.5 cm, and each firing particle refines the 3×3 cells
// around it. The criterion is the paper's (both axes, the particle's own
// spacing), with the turning angle for the angle between the two vectors
// (TurningAngle; read literally, a flat sheet's 180° would fire). But 30°
// at 10 cm, a radius of curvature of about 19 cm, is a low threshold for a
// draped cloth: at 60° dynamic subdivision costs a third (tablecloth) to
// two thirds (pole) of the uniform run (docs/notes/springs.md). Coarsening does not
// change the pole: only 22 % of the base particles turn by less than
// f·θ = 15° at 10 cm and 35 % of the layer-1 ones at 5 cm, and a block
// coarsens only when its centre and its ring are quiet. Where blocks do
// coarsen amid finer ones (the tablecloth's skirt) the cost hardly falls
// either: a particle next to a finer one takes the finer substep
// (rebuild), and the T-junction springs and interpolated particles cost
// about what the removed particles did. Coarsening pays where a whole
// region goes quiet (TestFoldRelaxCoarsens: a relaxed fold goes back to
// the base grid).
//
// The step's cost follows the active particles and springs times their
// substeps: it walks per-layer lists, never the dense grid
// (BenchmarkStepDeepCorner: 100–280 ns per particle substep from 289 to
// 1 050 625 slots); the criteria walk every particle every CheckInterval
// steps, and a check that changes the topology rebuilds the lists.
//
// Not done: contact with other colliders, self-collision.
package springs
