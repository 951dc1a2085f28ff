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
// multirate schedule that conserves momentum, with a particle at a
// T-junction taking the substep of its finest spring (rebuild, Step), the
// masses of new particles and a 2:1-balanced refinement that keeps them
// positive (subdivide, divide), the turning angle (TurningAngle), the
// vertical plane of the hanging parabola and vertical pairs
// (HangingMidpoint), and the frictionless obstacles (project).
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
// The built-in scenes after 2 s with DefaultParams (MaxLayer 2), from
// TestSceneTable (DRAPE_SPRINGS_TABLE=1; ms per step on a shared 2-core
// machine, noisy by a factor of up to 2); the distance is the RMS distance
// of the base particles to the uniform run:
//
//	scene       variant  active  interp.  depth  ms/step  distance
//	sheet       uniform  4223    0        2      1.67     0
//	sheet       none     287     0        0      0.026    14.7 mm
//	sheet       dynamic  287     0        0      0.070    14.7 mm
//	tablecloth  uniform  6557    0        2      3.06     0
//	tablecloth  none     437     0        0      0.049    65.9 mm
//	tablecloth  dynamic  5557    259      2      1.95     49.2 mm
//	pole        uniform  6560    0        2      2.31     0
//	pole        none     440     0        0      0.043    368 mm
//	pole        dynamic  6560    0        2      2.64     244 mm
//	small       uniform  23      0        2      0.004    0
//	small       none     2       0        0      0.000    95.3 mm
//	small       dynamic  23      0        2      0.004    99.9 mm
//
// The tablecloth and pole rows predate commit d343060 (particles moved by
// Provot's correction are projected out of the obstacles again); since
// then the dynamic tablecloth ends with 5534 active and 299 interpolated
// particles at 45.9 mm, the pole at 330 mm (none) and 263 mm (dynamic),
// as README's drape bench table of the springs scenes records.
//
// The vertical sheet hangs in its own plane and never bends enough to fire a
// criterion. On the pole the angle criterion refines everything to the
// maximum layer, as Olson & Rudnick §6 observe (an angle that fires keeps
// firing on the finer particles, which see the same angle), so dynamic costs
// as much as uniform there plus the checks. The step's cost follows the
// active particles and springs (it walks per-layer lists, never the dense
// grid); the criteria walk every particle below MaxLayer every
// CheckInterval steps.
//
// Not done: coarsening (the paper only refines), contact with other
// colliders, self-collision.
package springs
