// Package strainlimit is Tsiknis's unbiased strain limiting (Tsiknis 2006,
// ch. 2 and App. A): a post-process on the average velocity v^{n+½} of a
// time step that keeps every triangle's stretch below a limit, independent
// of the order in which elements are visited, and stable at any time step.
//
// Limiter.Apply works on the predicted positions x* = x^n + Δt·v^{n+½} in
// three steps, each of which sees all elements at once:
//
//  1. global force estimate (§2.1, eq. 2.1–2.4): edge constraints
//     c_e = |x_b − x_a|/L_e − 1 on the edges longer than their limit L_e,
//     one linearised Lagrange-multiplier solve J·M⁻¹·Jᵀ·λ = −c with
//     J = Δt·∂c/∂x by Jacobi-preconditioned CG, and the impulse Jᵀλ applied
//     to velocities and positions. Pinned vertices have M⁻¹ = 0 (infinite
//     mass), which is the pin constraint of eq. 2.2 solved exactly;
//  2. element-by-element responses (§2.2.1, eq. 2.5–2.8, App. A): every
//     triangle over its limit moves its corners by x_i += α·β_i/m_i·d̂ along
//     its direction of largest strain d̂ = Σβ_i x_i, which conserves the
//     element's linear and angular momentum exactly; each element is
//     computed alone (in parallel), so no order exists;
//  3. global stitching (§2.3, eq. 2.10): the positions whose edge vectors
//     are closest in least squares to the elements' edge vectors, pinned
//     vertices held, solved by CG on the (weighted) graph Laplacian.
//
// Steps 2 and 3 are repeated (Params.Passes) until every face is within
// Params.Tolerance of its limit, because stitching averages a shrunk face
// with its unshrunk neighbours and so gives back part of the correction.
// v^{n+½} is then (x^{n+1} − x^n)/Δt.
//
// # Orthotropic limits
//
// Tsiknis notes that the limit may depend on the direction of strain in
// parameter space. Here the stretch limit of material direction u is
// ℓ(u) = |D·u| with D = diag(1+ε_weft, 1+ε_warp): the admissible
// deformation gradients are those with max_u |F·u|/|D·u| ≤ 1, i.e. the
// largest eigenvalue of D⁻¹·FᵀF·D⁻¹ at most 1. This is exact (a 2×2
// eigenproblem), it is Tsiknis's criterion for ε_weft = ε_warp, and its
// eigenvector gives the direction q of eq. 2.5. Shear is limited
// separately: the angle between the deformed weft and warp fibres may
// differ from 90° by at most MaxShear; the response then shortens the
// stretched bias diagonal q = e₁/|F·e₁| ± e₂/|F·e₂| with the same
// momentum-preserving formulas.
//
// # Decisions where the thesis is silent
//
//   - One velocity. The thesis updates positions (α, eq. 2.6) and
//     velocities (γ, eq. 2.7) separately. Here positions are
//     x^n + Δt·v^{n+½}, so the position update is applied as the velocity
//     change α·β_i/(m_i·Δt)·d̂ and the final velocity is the average
//     velocity, as in Bridson et al. 2002; the strain rate along d̂ is then
//     at most the rate that brought the element to its limit. The γ
//     update would move the positions off the limit again and is not used.
//   - Weighted stitching. In eq. 2.10 the edge vectors of elements that
//     responded weigh stitchWeight = 80 times those of elements within
//     their limit, which then absorb the misfit (elements at the limit
//     act as stiff, the others as soft). Unweighted stitching gave back
//     half of every correction and, on the hanging curtain with a limit
//     just under its strain, drifted away from the limit; measurements
//     at stitchWeight and overRelax. The element targets are exact.
//   - Element iterations. One response makes the stretch along q exactly
//     the limit, but the largest stretch may then point elsewhere (another
//     principal direction, shear); each element repeats the response up to
//     elemIters times, still alone and momentum-preserving.
//   - Rank deficiency of J·M⁻¹·Jᵀ (more violated edges than degrees of
//     freedom, edges between pinned vertices): the system is regularised
//     as (J·M⁻¹·Jᵀ + ρ·diag)·λ = −c, ρ = forceReg, which makes it positive
//     definite; step 1 is only an estimate that steps 2–3 correct.
//   - Local stitching. Eq. 2.10 is one least-squares problem over the
//     whole mesh; here each pass solves it near the faces that responded
//     (stitchRings) and only roughly (stitchTol), and the passes, which
//     check every face the stitching moved, make up the difference. This
//     costs a few more passes in some cases and 30–70 % of the time in
//     the measured ones; on TestChainOrder's strip every column still
//     takes a share of the stretch (2.3–10 % against 1.8–9.1 % with the
//     exact stitching).
//   - Gauge of the stitching. With no pinned vertex the least-squares
//     positions are defined up to a translation; Apply picks the one that
//     keeps the total linear momentum, and then removes the angular
//     momentum change with a rigid rotation velocity ω×(x^n − x_cm), so
//     both momenta of an unpinned cloth are conserved to round-off.
//   - Faces already over the limit at x^n. The thesis brings every face
//     within its limit at x^{n+1}, and with one velocity (above) what that
//     takes stays in v^{n+1}: a face ε over its limit at x^n leaves the
//     call with its corners parting at ε·L/Δt. Input.Recover bounds what
//     one call takes out of such a face, so that a face a collision
//     response or a remesh left far over closes in over several steps
//     (measurements at cloth.StrainRecovery).
//
// # Cost
//
// A call whose faces are all within the limit only checks them (one
// parallel pass over the faces, from the metric FᵀF alone; the faces'
// rest-shape constants are made again only when Tris, Rest or InvMass
// changed). Otherwise the work is local. The force estimate examines only
// the edges of faces over 1 − overMargin on entry and solves on those
// over their limit; the first pass examines those faces and the ones the
// estimate moved; each stitching solves only for the vertices within
// stitchRings = 6 edge rings of the faces that responded (fineRings = 2
// once the largest limit ratio is below 1 + fineRatio), holding the
// others (a local eq. 2.10; with as many rings as CG iterations it is
// the whole-mesh solve exactly, TestActiveSetExact), to a loose
// tolerance (stitchTol), in parallel from serialRows vertices; each
// later pass re-examines only the faces the stitching moved; every pass
// checks a face from the metric before its element response; the check
// on exit recomputes only the faces with a moved corner. The skips change no bit of the
// result (TestSkippingExact); the local stitching is measured at its
// constants. The check of a face reads its ratio and strain off one
// eigenvalue of FᵀF when the weft and warp limits are equal, and skips
// the shear ratio when it is certainly below the stretch ratio
// (shearBelow); prepare checks Tris and InvMass again only when they
// changed, and sets x* in its one pass over the vertices.
//
// BenchmarkApply on the 22140-face curtain alternates each Apply with a
// step of the same curtain (2 cores; medians of 20 of each per run, 3
// runs, 2026-11-26, taking turns with the code before stitchWeight 80 and
// the cheaper checks and with the code before fineRings, in brackets in
// that order): within the limit 3.1–3.3 % of the step (3.6–4.1, 3.1–3.4
// %); a corner flung 0.2 m (8 faces over) 6.0–6.2 % (7.2–7.5, 7.4–7.7 %),
// 7 passes; a corner held 3 cm away 13.4–14.5 % (14.2–16.6, 12.0–12.9 %),
// 14 passes (15, 11); the hanging curtain limited to 0.5 % (49 faces along
// the rail over) 73–84 % (78–85, 79–81 %), 13 passes (13, 12). The
// gathering adaptive curtain with collisions spends 12.3–12.9 % of its
// step here (21.4–22.0, 17.9–18.1 %; 29–32 % before the skips of an
// earlier stop, two thirds before the local stitching).
//
// Everything is summed over canonical orders (edges sorted by vertex pair,
// vertex adjacency from the sorted edges, fixed-chunk reductions), so the
// result does not depend on the order of the faces, bit for bit.
package strainlimit
