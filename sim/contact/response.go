package contact

import (
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
)

// This file holds the response to a pair: the impulse along its normal
// that raises the relative normal velocity to a target, inelastic plus
// repulsion for a proximity pair (Bridson et al. 2002 §7.1) or a small
// separation for a CCD collision, and Coulomb friction on the tangential
// velocity (§7.2), all mass-weighted, bodies having infinite mass.

// pointVel returns the velocity and inverse mass of point k of a pair (a
// body's points have infinite mass).
func (s *Solver) pointVel(pr *pair, k int) (geom.Vec3, float64) {
	id := pr.ids[k]
	if pr.bodyPts&(1<<k) != 0 {
		return s.bodies[pr.body].vel[id], 0
	}
	return s.c.V[id], s.c.InvMass[id]
}

// npoints returns how many of a pair's points are used.
func npoints(pr *pair) int {
	switch pr.kind {
	case pairPoint:
		return 1
	case pairFace:
		return 3
	}
	return 4
}

// impulse raises the relative normal velocity v_N = (Σ w_k v_k)·n of the
// pair to at least target and clamps the relative tangential velocity by
// Coulomb friction (Bridson et al. §7.2): its magnitude drops by μ·Δv_N, to
// no less than zero. The change is an impulse J along the contact applied
// with the pair's weights, v_k += w_k·J/m_k, with
// J = Δv/(Σ w_k²/m_k) so that the relative velocity changes by exactly Δv
// (the mass-weighted form of Bridson et al.'s Ĩ = 2I/(1+Σw²)); Σ w_k = 0
// makes the total momentum change Σ m_k Δv_k = J·Σ w_k vanish for
// cloth–cloth pairs, and with n parallel to the separation of the two
// contact points (proximity) the angular momentum change (Σ w_k x_k)×J
// vanishes too when μ = 0. It returns the normal impulse j = J·n, N·s.
func (s *Solver) impulse(pr *pair, target, mu float64) float64 {
	rel := pr.bv.Scale(-1)
	den := 0.0
	np := npoints(pr)
	for k := 0; k < np; k++ {
		v, im := s.pointVel(pr, k)
		rel = rel.Add(v.Scale(pr.w[k]))
		den += pr.w[k] * pr.w[k] * im
	}
	if den == 0 {
		return 0
	}
	vn := rel.Dot(pr.n)
	dvn := target - vn
	if !(dvn > 0) {
		return 0
	}
	dv := pr.n.Scale(dvn)
	if mu > 0 {
		vt := rel.Sub(pr.n.Scale(vn))
		if m := vt.Norm(); m > 0 {
			dv = dv.Sub(vt.Scale(math.Min(mu*dvn, m) / m))
		}
	}
	j := dv.Scale(1 / den)
	// The largest velocity change of a point, |w_k|/m_k·|J| with
	// |J| = |Δv|/den, is capped at responseGain·|Δv| (see there).
	scale := 1.0
	var most float64
	for k := 0; k < np; k++ {
		if pr.bodyPts&(1<<k) == 0 {
			most = max(most, math.Abs(pr.w[k])*s.c.InvMass[pr.ids[k]])
		}
	}
	if most > responseGain*den {
		scale = responseGain * den / most
		j = j.Scale(scale)
	}
	for k := 0; k < np; k++ {
		if pr.bodyPts&(1<<k) != 0 {
			continue
		}
		id := pr.ids[k]
		if im := s.c.InvMass[id]; im > 0 && pr.w[k] != 0 {
			s.c.V[id] = s.c.V[id].Add(j.Scale(pr.w[k] * im))
			s.dirtyNext[id] = true
		}
	}
	return scale * dvn / den
}

// responseGain caps a pair's impulse (impulse) so that no cloth point's
// velocity changes by more than responseGain times the change Δv of the
// pair's relative velocity. The impulse that changes it by exactly Δv
// moves point k by w_k/m_k·Δv/(Σ w_i²/m_i), which is Δv/w_k when k is the
// only point free to move: on the monkey's bunny seed 411 a cloth edge
// from a dragged pin to a free vertex met an edge of the bunny at
// 6.7·10⁻⁴ of its length from the pin (the other three points infinitely
// heavy), the free vertex took 6.8 km/s from a 4.5 m/s approach, and
// each pass of CCD's responses then found more collisions (33, 116,
// 9519, 77,562, 497,313 over five passes, vertex speeds of 33,000 km/s),
// 39 s of one step before the impact zones gave up (the step then went
// through on a retry). Capped, such a pair is left to the next pass and
// the impact zones, which move it rigidly or give up at once. 10 lets a
// point at weight 0.1 or more take the whole change.
const responseGain = 10.0

// friction returns μ for a pair: the body's, or Params.Friction for
// cloth–cloth.
func (s *Solver) friction(pr *pair) float64 {
	if pr.body >= 0 {
		return s.bs[pr.body].Friction
	}
	return s.p.Friction
}

// repulsionRate is the fraction of the overlap h − d that the proximity
// response removes per step (Bridson et al. §7.2 use 0.1·d/Δt as the cap
// of their spring repulsion).
const repulsionRate = 0.1

// repulse is the proximity response of Bridson et al. §7.1–7.2 for a pair at
// distance d < h at x^n: an inelastic impulse that cancels the approach
// (v_N → max(v_N, 0)) and a repulsion that raises v_N to 0.1·(h − d)/Δt,
// the rate at which a spring of the overlap would part them, with friction
// (impulse). Decision: Bridson et al. cap the repulsion by the impulse
// Δt·k·(h − d) of a spring of the cloth's stiffness k; the contact package
// has no stiffness and uses the cap alone, which removes a tenth of the
// overlap per step whatever the material. The spring itself goes into the
// cloth's next implicit solve (Near; cloth/repulsion.go). It returns the
// normal impulse.
func (s *Solver) repulse(pr *pair) float64 {
	rate := repulsionRate * (s.p.Thickness - pr.d) / s.dt
	j := s.impulse(pr, min(rate, PushSpeed), s.friction(pr))
	if pr.body >= 0 && rate > PushSpeed {
		s.escapeBody(pr, min(rate, max(EscapeSpeed, min(EscapeMax, (s.p.Thickness-pr.d)/EscapeTime))))
	}
	return j
}

// EscapeSpeed caps the speed, m/s, at which cloth deep inside a body
// moves out of it (escapeBody): 15 cm a step at Δt = 5 ms. Measured
// (TestCollisionsBackOnDeepInside): a sheet that fell 9 m through the
// ground while collisions were off (1.4 s) is out 0.44 s after they are
// back on (0.33 s while the escape was the whole overlap a step); at
// 10 m/s it took 0.99 s, and the monkey's two-sheets seed 200 (contact
// off for 1.4 s, part of the sheets deeper still) kept vertices under
// the ground past its 1 s grace. A sheet 3 m down took 1.6 s with
// PushSpeed alone.
const EscapeSpeed = 30.0

// EscapeTime, s, and EscapeMax, m/s: cloth deeper than
// EscapeSpeed·EscapeTime (6 m) escapes at its depth over EscapeTime
// instead of at EscapeSpeed, up to EscapeMax (from 20 m down), so that a
// sheet tens of metres down is out within a second. Found by the monkey
// (two-sheets seed 942 × 60 s, 2026-12-02): collisions off for 3.7 s let
// the sheets fall 34 m through the ground, and at 30 m/s 625 of their
// vertices were still under it 1.05 s after collisions came back on. The
// escape's target, min(0.1·(h − d)/Δt, max(EscapeSpeed, min(EscapeMax,
// (h − d)/EscapeTime))), still grows with the depth, so the layers keep
// their order (see escapeBody); between 6 and 20 m down the layers move
// by 2.5 % of their depth a step at Δt = 5 ms, so two layers 5 cm apart
// move 1.25 mm apart. EscapeMax is half the speed at which the cloth
// counts a step as a blow-up (cloth's speedLimit, 200 m/s), which the
// escape's velocity counts against: without it a sheet 40 m down failed
// its first step at 200 m/s. Measured (TestCollisionsBackOnDeepInside):
// a sheet 40 m down is out 0.77 s after collisions come back on (1.47 s
// at EscapeSpeed alone), one 9 m down in 0.42 s (0.44 s).
const (
	EscapeTime = 0.2
	EscapeMax  = 100.0
)

// escapeBody raises the relative normal velocity of a body pair deeper
// than PushSpeed allows (repulse has raised it to PushSpeed) to target,
// without friction, and keeps the change per cloth vertex (Escape): a
// displacement for this step, not momentum, which the caller takes back
// from the velocity it carries into the next step. It is the split
// impulse of rigid-body engines (Catto's pseudo-velocities). repulse
// calls it where the repulsion's 0.1·(h − d)/Δt passes PushSpeed, an
// overlap of over 10 cm at Δt = 5 ms, so that resting contact never sees
// it, with that same rate as the target, up to EscapeSpeed: the cloth
// moves out by a tenth of its overlap a step, as the repulsion moves it
// (Bridson et al. §7.2), and leaves the body at PushSpeed at most, not
// at the 108 m/s that flung the monkey's ground seed 1. It goes through
// the velocities before the CCD passes, which check it against the rest
// of the cloth like any motion.
//
// Why a tenth, not the whole overlap a step (up to EscapeSpeed), as it
// was from the twelfth session to the nineteenth. A displacement that
// grows with the overlap more slowly than the overlap itself (here
// 0.1·(h − d), and a constant beyond 1.5 m) keeps the order of the
// layers of cloth inside a body: a deeper vertex never ends the step
// shallower than a vertex above it, so no layer runs into another on
// the way out. The whole overlap broke that at 10 cm: a layer 11 cm deep
// jumped to the surface through the layers above it, which moved 1 cm
// or less. In a crumpled ball fallen through the ground while collisions
// were off (the monkey's bunny seed 901: 40 372 faces up to 0.5 m under
// the ground, 663 crossing pairs), CCD and the impact zones stopped its
// layers from each other at a cost of 18–42 s a step; and CCD's
// inelastic impulses handed the escape's velocity on to the layers it
// hit, as velocity they keep (only the vertex given an escape has it
// taken back): six sheets stacked 3 cm apart, 5 cm under the ground,
// left it at up to 39 m/s (TestLayersLeaveInOrder). Measured on the
// bunny's state, its first four steps with collisions back (two runs at
// once on two cores; docs/robustness.md, "The escape keeps the layers'
// order"):
//
//	escape a step                  step times, s        CCD hits        zone vertices
//	whole overlap, ≤ 30 m/s        42, 29, 18, 26       79 748–116 913  9362–11 921
//	whole overlap, ≤ 5 m/s         2.1, 3.1, 3.4, 4.1   304–4464        ≤ 82
//	0.1·(h − d), ≤ 30 m/s (this)   2.7, 5.7, 4.7, 4.0   217–4485        ≤ 677
//	0.2·(h − d) beyond 10 cm       3.2, 6.5, 3.7, 4.4   843–6075        ≤ 274
//	0.5·(h − d) beyond 10 cm       4.2, 19.9, 8.0, 5.5  2514–18 412     ≤ 2964
//
// (the 0.2 and 0.5 rows join the repulsion's 0.1·(h − d) at 10 cm). A
// cap of 5 m/s does as well on the ball but is not order-keeping where
// it meets the repulsion or a faster escape for deeper cloth (a sheet
// 9 m down took 1.85 s at 5 m/s throughout); a tenth needs no constant
// of its own. What is left of the ball's steps is the solve of 40 000
// crumpled faces, retried as substeps at the PCG cap.
func (s *Solver) escapeBody(pr *pair, target float64) {
	if !s.escaped {
		s.escape = buf.Zeroed(s.escape, len(s.c.V))
		s.escaped = true
	}
	var before [4]geom.Vec3
	np := npoints(pr)
	for k := 0; k < np; k++ {
		if pr.bodyPts&(1<<k) == 0 {
			before[k] = s.c.V[pr.ids[k]]
		}
	}
	s.impulse(pr, target, 0)
	for k := 0; k < np; k++ {
		if pr.bodyPts&(1<<k) == 0 {
			id := pr.ids[k]
			s.escape[id] = s.escape[id].Add(s.c.V[id].Sub(before[k]))
		}
	}
}

// Escape returns, per cloth vertex, the velocity that this step's
// proximity stage added to move it out of a body faster than PushSpeed
// (escapeBody), or nil when it added none. The caller moves the cloth
// with it and then takes it back from the velocity it keeps: the part of
// the committed velocity along it, up to its length.
func (s *Solver) Escape() []geom.Vec3 {
	if !s.escaped {
		return nil
	}
	return s.escape
}

// PushSpeed caps the speed, m/s, at which the proximity response
// (repulse) pushes a pair apart. The rate 0.1·(h − d)/Δt passes it only
// for an overlap of more than 10·PushSpeed·Δt (10 cm at Δt = 5 ms), far
// beyond resting contact's millimetres: it is for cloth found deep inside
// a body, after collisions were switched back on over it. Found by the
// monkey (ground, seed 1): a sheet that had fallen 5.4 m through the
// ground with collisions off was pushed up at 108 m/s, and blew up at
// 1500 m/s. Capped, it leaves the ground at PushSpeed, as untangling
// moves crossed layers (cloth's untangleSpeed, also 2 m/s), and comes to
// rest on it; the rest of a deep overlap is undone by a displacement of
// up to EscapeSpeed that the cloth does not keep (escapeBody). Capping
// the repulsion springs of the cloth's solve as well (their overlap at
// PushSpeed·Δt) was not needed for that and changed the gathered
// curtain, whose crushed folds overlap by more than a centimetre:
// TestLateDragsInGather's seed 3 blew up (632 m/s).
// With both capped, 5 m/s instead of 2 flung seed 1's sheet 40 m
// sideways. The golden runs are unchanged.
const PushSpeed = 2.0

// ccdSeparation is the gap, as a fraction of h, that a CCD response leaves
// between the two primitives at the end of the step: the new velocities act
// over the whole step (x^{n+1} = x^n + Δt·v), so raising the relative normal
// velocity to ccdSeparation·h/Δt moves the pair's separation along n from its
// value s_0 ≥ 0 at x^n to s_0 + ccdSeparation·h at x^{n+1} (to first order in
// the rotation of n), whatever the time of impact.
const ccdSeparation = 0.01

// collide is the response to a CCD collision (Bridson et al. §6.4: an
// inelastic impulse with friction, from the current velocities, applied in
// sequence over the collisions, Gauss–Seidel).
func (s *Solver) collide(pr *pair) {
	s.impulse(pr, ccdSeparation*s.p.Thickness/s.dt, s.friction(pr))
}
