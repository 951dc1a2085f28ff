package cloth

import (
	"math"

	"drape/sim/buf"
	"drape/sim/contact"
	"drape/sim/geom"
)

// untangleState recovers the cloth from self-intersections the collision
// phase did not prevent (a tangled start, a pin or a drag pulled through
// the cloth): intersection contour minimisation (Volino &
// Magnenat-Thalmann 2006; contact.Untangler) in the collision phase of
// the step, with the tangled region exempt from cloth–cloth collisions
// (after Baraff, Witkin & Kass 2003 §3, who flag it). See untangle.
type untangleState struct {
	u       contact.Untangler
	active  bool        // the last check found crossings
	next    int         // the Sim.commits at which the next check is due
	corr    []geom.Vec3 // per vertex slot: the corrective velocity of the (sub)step in progress, m/s, until commit takes it back (takeBackUntangle)
	inSolve []bool      // per vertex slot with a correction: the solve prescribed it (gatherRows); otherwise untangleVelocity adds it to v^{n+½}
	base    []geom.Vec3 // per vertex slot with a correction: v^{n+½} without it, m/s (untangleVelocity, takeBackUntangle)
	had     bool        // corr holds something: an attempt made it and has not committed
	faces   []uint8     // per face slot while active: contact.Crossing, contact.Band or 0 (contact.Cloth.Tangled)
	contour []int32     // per face slot while active: its contour or −1 (contact.Cloth.Contour)
	fails   int         // Failsafes at the last check
	least   int         // the fewest crossing pairs a check of this episode found
	runaway bool        // the crossings ran away this episode: untangling is held (runawayGrowth)
	retry   int         // Retried at the last check
	steps   int         // steps spent untangling
	gain    []float64   // per vertex slot: the gain of its last committed correction (correctionGain)
	trying  []float64   // per vertex slot with a correction: the gain of the attempt in progress
	last    []geom.Vec3 // per vertex slot: its last committed correction, m/s
	lastAt  []int       // per vertex slot: episode+1 when that correction committed, 0 for never
	episode int         // untangling episodes begun (a check that finds crossings after one that found none)

	// Per contour, its rule (untangle_rules.go).
	prev   []int32         // per face slot: its contour at the last check, −1 for none
	record []contourRecord // per contour of the last check
	spare  []contourRecord // contourRules' scratch: the records of this check
	count  []int           // contourRules' scratch: crossing pairs per contour
	pred   []int32         // contourRules' scratch: per contour, the last check's that shares most faces
	share  []int32         // contourRules' scratch: how many
	votes  [][2]int32      // contourRules' scratch: (contour, last check's contour) per face
}

// untangleEvery is the interval, in (sub)steps, of the check for
// crossings while the cloth is untangled. One check
// (contact.Untangler.Find: the face grid and a triangle–triangle test per
// overlapping box pair) costs more than the collision phase itself, which
// certifies most of the cloth free of self-intersection by patches
// instead: measured (2 cores, shared) on sphere-adaptive at 3140
// triangles 4.0–4.5 ms against 3.1 ms for the collision phase and 12 ms
// for the step; on curtain-adaptive at 820 triangles 0.5–0.7 ms against
// 0.25 ms and 1 ms. Every 10 steps cost 3–4 % of the step on
// sphere-adaptive (drape bench, 2 s: 9.00 → 9.35–9.39 ms/step adaptive,
// 75.5 → 78.1–78.5 ms at full resolution); every 25, about 1.5 %
// (estimated from those, not measured). A
// crossing made between checks waits at most 25 steps (0.125 s at
// Δt = 5 ms); the two ways the step itself lets one through, a
// collision failsafe (Failsafes) and a step the substep failsafe
// retried (Retried), trigger a check at the next step.
const untangleEvery = 25

// untangleRings is the band of faces round the intersecting ones that
// passes through itself (contact.Untangler.Rings). Measured with
// untangleEvery = 25 (scene tests): 0 rings left tangled.json with 72
// pairs at 1 s; 1 ring untangled it at 0.495 s and a 5 cm poke of
// two-sheets in 0.105 s; 2 rings let the poke spread (215 pairs at 1 s:
// two resting layers sink through each other in the band).
const untangleRings = 1

// untangleSpeed caps the speed of the corrective displacement, m/s: at
// Δt = 5 ms, 1 cm per step; CCD checks the corrected motion against every
// face outside the contour's band. Measured on drop-pile, self-collision
// off for 0.7 s and back on (239 pairs; scene
// TestSelfCollisionBackOnShrinksPile), with the band split by contour:
// pairs 1 s later 439 at 0.5 m/s, 342 at 1.5, 44 at 2, 532 at 3, and at
// 4 m/s the pile blew apart (6337 pairs at 1.5 s). Before the split, 1
// and 2 m/s made the tangles worse than 0.5 did (docs/robustness.md).
// All of these with the correction taken back after the next solve,
// which undid most of it (see untangle). Measured again with it taken
// back at commit (drop-pile, self-collision off for T = 0.60, 0.61, …,
// 0.90 s and then on, 31 runs, pairs 5 s later; docs/robustness.md):
//
//	speed   runs at 0 (at 1 s)   median   sum    tangled.json at 1 s
//	1 m/s   13 (9)               23       1312   –
//	2 m/s   15 (13)               3        639   0 pairs from 0.555 s
//	3 m/s   19 (15)               0        420   46 pairs
//
// 3 m/s leaves the piles cleaner but not the tangled start, which
// issue 39 asks free within 1 s. 1 m/s is worse on the pile, and on
// the monkey's drape-box seed 110 (683 pairs at most and 3 lasting
// tangles, against 56 and 2); bunny seed 110 keeps 4 lasting tangles
// at either speed. Kept at 2. Measured again with the correction in the
// solve (untangle): at 3 m/s the tangled start is free at 0.585 s (0.270
// at 2), the pile's 31 runs end at 0 in 30 as at 2 but one grows to 648
// pairs (sum 648, against 18), and the monkey's seed 120 keeps lasting
// crossings on ground and drop-pile either way. Kept at 2.
const untangleSpeed = 2.0

// correctionGain and correctionGrowth set a vertex's correction by how long
// its direction has held: the speed untangleSpeed gives (times |g| under
// 1) is multiplied by a gain that grows by correctionGrowth for each
// correction of that vertex that points the same way as its last
// committed one in the same episode (a positive dot product), up to
// correctionGain, and is back at 1 when the direction turns; a new
// episode starts every vertex at 1.
//
// Why. The correction is taken back at commit (takeBackUntangle), so a
// crossing that the cloth's elasticity holds in place stalls where the
// velocity the solve answers a displaced vertex with equals the
// correction. Found on the monkey's ground seed 114 (self-collision off
// 1.1 s, back on at t = 4.93 s): the sheet's edge rolled over two rows of
// faces kept 3–8 crossing pairs for 5 s, with every correction realized
// (0.90–1.04 of it through the collision phase) and the committed
// velocities of the rolled vertices pointing against their corrections
// at about the same speed, step after step (vertex 27: correction
// (−1.4, 0.7, 0.8) m/s, velocity (0.8, 0.2, −1.3) m/s). With the gain
// the roll is free 0.7 s after the switch. A gain that also fell below 1
// where the direction turned (the tenth session's rule per vertex,
// docs/robustness.md) stalled drape-box seed 110: corrections shrank to
// 1 mm a step and drags swept them away. Measured on the drop-pile's 31
// switch-on times (pairs 5 s after; docs/robustness.md): without the
// gain 14 runs end at 0, median 4, sum 673; up to 2, 22 at 0, median 0,
// sum 304; up to 3, 20 and 405; up to 5, 20 and 415. Kept at 2.
// Measured again once the solve prescribed the correction (see untangle),
// which answers that stall at its root: without the gain the pile's 31
// runs read the same (29 at 0, sum 31, against 30 and 18), and so did
// the four monkey runs of the eleventh session's table, but the tangled
// start kept 796 pairs at 1 s (free at 0.270 s with it). Kept.
const (
	correctionGain   = 2.0
	correctionGrowth = 1.2
)

// runawayGrowth and runawaySlack bound an untangling episode: once a
// check finds more than runawayGrowth times the fewest crossing pairs of
// the episode plus runawaySlack, untangling is held until the cloth is
// free of crossings or self-collision goes off, and the collision phase
// treats every face as untangled, which keeps the crossings where they
// are. The band that passes through itself is there to let a tangle
// undo itself; where it covers most of a crumpled sheet it lets the
// whole sheet sink through itself instead. Found by the monkey (hanging
// seed 109: self-collision off for 0.8 s over a sheet refined to 26 888
// faces and crumpled into 0.3 m: 2174 pairs when it came back on, 7618
// three steps later, 364 722 after 15, with steps of 3–5 s). The tangles
// that untangle grow less: the tangled start never, a drop-pile with
// self-collision off for 0.7 s from 239 to at most 1190 pairs under the
// first band rule (docs/robustness.md).
const (
	runawayGrowth = 8
	runawaySlack  = 500
)

// Tangled reports whether the last check found the cloth crossing itself
// (it is then being untangled), and the number of steps that have
// untangled so far.
func (s *Sim) Tangled() (bool, int) { return s.ct.un.active, s.ct.un.steps }

// untangle runs before the solve of every (sub)step (advanceOnce), and
// does its work when self-collision is on; untangleVelocity finishes it
// in the collision phase (Step, phase 4). It
//
//  1. discards the correction of an attempt that failed (a committed
//     one is out of the velocities already: the correction is a
//     displacement of x over one step, not momentum, and commit takes it
//     back from v^{n+1}, takeBackUntangle);
//  2. every untangleEvery (sub)steps while untangled or held
//     (runawayGrowth), every step while tangled or after a failsafe or a
//     retried step, and at once when self-collision (or collisions, with
//     it on) comes back on, finds the pairs of faces that cross at x^n
//     (contact.Untangler.Find);
//  3. where some do, gives every free vertex a corrective velocity along
//     the descent direction of the intersection contour's length,
//     g = −∂L/∂x (Volino & Magnenat-Thalmann 2006 §3.2;
//     contact/untangle.go), with the push of the regions small contours
//     enclose back to their side (Baraff, Witkin & Kass 2003 §3;
//     contact/untangle_regions.go): g·untangleSpeed/max(1, |g|) times
//     the vertex's gain (correctionGain). The solve prescribes it as a
//     change of the vertex's velocity along its direction (gatherRows),
//     from a velocity stopped along it where it moved against it
//     (untangleStop); a vertex whose row the solve already constrains
//     (a resting contact's normal) takes it on v^{n+½} after the solve
//     (untangleVelocity). untangle also hands the collision stages the
//     tangled faces (one ring round the crossing ones) and their
//     contours (contact.Untangler.Contour); the collision phase skips
//     the pairs of two tangled faces of one contour (only those with a
//     crossing face, for a contour that has grown: contourRules), so
//     that the surfaces can move back through each other there. Pairs
//     with every other face, and with the obstacles, are kept: the
//     correction and the pass-through make no crossing outside the band,
//     and the collision phase's CCD sees the corrected velocities.
//
// Decision: per step rather than all at once (the paper iterates its
// displacement), capped at untangleSpeed, a velocity that CCD and the
// impact zones check against everything not tangled. Pinned vertices
// are not moved.
//
// Decision: the correction is a velocity change the implicit solve
// prescribes (Baraff & Witkin 1998 §5.3's one-constraint filter, as for a
// resting contact's normal), not one added to v^{n+½} after the solve,
// as it was until the twelfth session. Added after the solve, a
// correction displaced a few vertices against the stiffness of the
// cloth round them, and the next solve answered with a velocity back
// along it: traced on the monkey's hanging-irregular seed 115 (an edge
// rolled through itself while contact was off), vertex 25 was corrected
// by about 3 m/s a step, 0.78 of it realized, and began every next step
// at 2.6 m/s against it relative to its neighbours; 3–4 crossing pairs
// stayed for 5 s, through the gain. Prescribed in the solve, the
// vertex moves and the cloth round it follows, as it follows a dragged
// pin: that roll is free 0.08 s after contact comes back, the run
// passes, the pile's 31 switch-on times end at 0 after 5 s in 30 runs
// (22 before), sum 18 (304), the tangled start of tangled.json is free
// at 0.270 s (0.480 s) and the poke at 0.030 s, as before
// (docs/robustness.md, twelfth session). The solve's own answer along the
// correction's direction is replaced by it for that step; the
// neighbours keep the momentum the solve gives them. The corrections on
// a contour's two sides were meant to cancel it; on the tangled start
// they do not: the cloth's mean horizontal velocity reaches 3.7 m/s
// while it untangles in the air. Taking that momentum back halved the
// drift over 40 nudged starts but left 8 of them tangled past 1 s, not
// 2 (docs/robustness.md, "The tangled start drifts").
//
// Decision: the correction leaves the velocity when its step commits,
// before the next solve. It used to be taken back after that solve. The
// solve then saw the corrected vertices moving at up to untangleSpeed
// and answered with damping and stiffness against that motion, so that
// each step's displacement came back in the next one. Traced on the
// monkey's drape-box seed 109 (docs/robustness.md): the crossing
// vertices moved 1–7.5 mm back along the last correction in every
// step, and 14–29 pairs stayed for 10 s. Taken back at commit (by the
// whole projection, before the next decision), the drop-pile with
// self-collision off for T = 0.66–0.74 s then on
// (TestSelfCollisionBackOnShrinksPile) left 0, 0, 0, 0, 0, 0 and 1
// pairs 1 s later, against 45, 150, 4, 42, 396, 74 and 412, and the
// tangled start of tangled.json was free at 0.555 s instead of 0.475 s.
//
// Decision: only the part of the correction that the collision phase let
// through is taken back: the committed velocity's change since the
// correction was added (v^{n+1} − base), along the correction, between 0
// and its length. Taking back the part of the whole velocity along it,
// as before, removed corrections the collision phase had already undone:
// on the monkey's drape-box seed 110 (docs/robustness.md) an impact
// zone moved a tangled region rigidly at about 2 m/s, along some of its
// vertices' corrections; each such vertex lost its correction once more
// and began the next step moving against it at up to 2 m/s, relative to
// the region, and 4–17 crossing pairs stayed for 2.6 s. Taken back by
// what passed, the seed is free of crossings 0.5 s after self-collision
// comes back on, and its 60 s pass (a replay test until the twenty-first
// session, whose bound on the strain hold moved the play); the
// pile's seven switch-on times leave 0, 0, 0, 0, 0, 10 and 7 pairs 1 s
// later (a chaotic trajectory: over 31 switch-on times the two take-backs
// are level, docs/robustness.md), and the tangled start is free at
// 0.480 s.
//
// Decision: while an episode is in progress (not held) and strain
// limiting is off, the strain limiter holds untangleStrain (10 %)
// instead of SafetyStrain (strainLimits): the corrections through a
// crumpled cloth stretched it to SafetyStrain, and the stretch, trapped
// under other layers, kept the contours sliding (see untangleStrain).
//
// An untangled cloth costs one Find every untangleEvery steps (see
// there for the figures). Measured: the tangled start of
// scene/testdata/tangled.json (125 crossing pairs, two 512-face sheets
// through each other) is free of crossings 0.105 s after the start
// (0.22 s before untangleStop, 0.30 s before untangleStrain); a vertex of
// two-sheets
// put 5 cm through the upper sheet (18 pairs) is free 0.03 s after
// (scene.TestTangledStartUntangles, TestPokedThroughUntangles).
func (s *Sim) untangle() {
	c := &s.ct
	un := &c.un
	m := s.Mesh
	if un.had { // made by an attempt that failed (a committed one took it back)
		clear(un.corr)
		clear(un.inSolve)
		un.had = false
	}
	if !c.p.Enabled || !c.p.SelfCollision {
		un.active, un.faces = false, un.faces[:0]
		un.prev, un.record = un.prev[:0], un.record[:0]
		un.next = 0 // checked as soon as self-collision is back on
		return
	}
	if !un.active && s.commits < un.next && c.failsafes == un.fails && s.retried == un.retry {
		return
	}
	if un.active && un.runaway && s.commits < un.next {
		// Held (runawayGrowth): nothing is corrected, so a failsafe or
		// a retried step has nothing to add; the check only looks for
		// the cloth free of crossings, every untangleEvery steps.
		return
	}
	un.fails, un.retry = c.failsafes, s.retried
	un.u.Rings = untangleRings
	un.u.Adj = m.Adj // the regions the contours enclose (contact/untangle_regions.go)
	// Faces with a pinned vertex are searched too; only the pinned
	// vertices themselves are not moved (movable, below), so a free layer
	// that a pin went through slides off it. They were once left out (a
	// person may hold a pin through the sheet, and the pin wins): searched
	// with them in the first build, a corner pin dragged through the
	// sheet (the monkey's sphere-adaptive seed 1) never resolved, and the
	// band round it, exempt from cloth–cloth collisions for as long, let
	// the layers resting there sink through each other, 1000 crossing
	// pairs within 4 s. Since then a contour that grows keeps only its
	// crossing faces passing (contourRules) and a runaway is held
	// (runawayGrowth); left out, a pin poked through a free sheet kept its
	// 16 crossing pairs for good, where searched the sheet is free in
	// 0.25 s (TestPinnedPokeUntangles), and the monkey's
	// hanging-irregular seed 600 kept 20–45 pairs for 5.6 s, most between
	// faces next to a pin and the layer it had gone through, where
	// searched it is free 1.5 s after collisions came back on.
	pairs := un.u.Find(m.Pos, m.Tris)
	if pairs == 0 {
		un.active, un.faces = false, un.faces[:0]
		un.prev, un.record = un.prev[:0], un.record[:0]
		un.next = s.commits + untangleEvery
		un.runaway = false
		return
	}
	if !un.active { // a new episode
		un.least, un.runaway = pairs, false
		un.episode++
	}
	un.least = min(un.least, pairs)
	un.active = true
	if un.runaway || pairs > runawayGrowth*un.least+runawaySlack {
		// Held: no band, no correction; the collision phase keeps the
		// crossings as they are until the cloth is free of them or
		// self-collision is switched off.
		un.runaway = true
		un.faces = un.faces[:0]
		un.prev, un.record = un.prev[:0], un.record[:0]
		un.next = s.commits + untangleEvery
		return
	}
	un.steps++
	un.faces = append(un.faces[:0], un.u.Faces()...)
	un.contour = append(un.contour[:0], un.u.Contour()...)
	un.contourRules()
	un.corr = buf.Keep(un.corr, len(m.Pos))
	un.inSolve = buf.Keep(un.inSolve, len(m.Pos))
	un.base = buf.Keep(un.base, len(m.Pos))
	un.gain = buf.Keep(un.gain, len(m.Pos))
	un.trying = buf.Keep(un.trying, len(m.Pos))
	un.last = buf.Keep(un.last, len(m.Pos))
	un.lastAt = buf.Keep(un.lastAt, len(m.Pos))
	for v, g := range un.u.Gradient() {
		if !s.movable(v) {
			continue
		}
		n := g.Norm()
		if !(n > 0) || math.IsInf(n, 0) {
			continue
		}
		d := g.Scale(untangleSpeed / math.Max(1, n))
		k := 1.0 // correctionGain
		if un.lastAt[v] == un.episode+1 && un.last[v].Dot(d) > 0 {
			k = math.Min(un.gain[v]*correctionGrowth, correctionGain)
		}
		d = d.Scale(k)
		un.trying[v] = k
		un.corr[v] = d
	}
	un.had = true
}

// untangleStop returns the speed by which a vertex's velocity vel moves
// against the unit direction n of its untangling correction (0 when it
// does not): gatherRows prescribes the correction's velocity change on
// top of that, so a corrected vertex starts the step at rest along n and
// then moves by the correction, as a colliding pair that the collision
// phase stops inelastically would. takeBackUntangle takes back only the
// correction itself, so the stop stays: the vertex keeps no velocity into
// the tangle.
//
// Why. The collision phase skips the pairs of a contour's tangled faces
// (tangledFaces), so nothing else stops two layers of a tangle moving
// through each other, and a crumpled sheet carries their momentum into
// the tangle step after step. Found by the monkey (ground-angled seed 921
// × 8 s: collisions off for 1.3 s, back on over a sheet 0.75 m under the
// ground): after the escape one contour of 40–70 crossing pairs stayed
// for over 2 s with no input at all. A throwaway hook split each step's
// change of the contour length L (0.35–0.5 m) into its parts, in means
// over 10 steps: the solve's own motion lengthened it by 0.1–1.8 m a
// step, the correction shortened it by 0.07–0.7 m, and the collision
// phase took back the difference but for millimetres, so L stayed. The
// corrections' momentum, which the corrected vertices' neighbours keep,
// meanwhile slid the sheet over flat ground at 3.5–9.8 m/s
// (docs/robustness.md, "A large tangle that stalls with no input"). With
// the stop, and no input after the switch, the sheet is free 0.9 s after
// it and comes to rest (0.02 m/s); the play passes. Only the component
// along the correction is stopped, and only for the vertices a
// correction moves; a vertex whose row a resting contact holds
// (untangleVelocity) gets its correction alone.
func untangleStop(n, vel geom.Vec3) float64 {
	return max(0, -n.Dot(vel))
}

// untangleVelocity sets v^{n+½} and base of each vertex untangle gave a
// correction in this attempt: the solve prescribed it (inSolve), so
// v^{n+½} holds it and base is v^{n+½} without it; or the solve did not
// (its row was constrained otherwise), and it is added now. The
// collision phase calls it before its stages.
func (s *Sim) untangleVelocity() {
	un := &s.ct.un
	if !un.had {
		return
	}
	for v, c := range un.corr {
		if c == (geom.Vec3{}) {
			continue
		}
		if un.inSolve[v] {
			un.base[v] = s.vHalf[v].Sub(c)
			continue
		}
		un.base[v] = s.vHalf[v]
		s.vHalf[v] = s.vHalf[v].Add(c)
	}
}

// takeBackUntangle removes from the committed velocities the corrective
// velocity untangle added in this step, as far as the collision phase
// let it through (see untangle): of the velocity's change since the
// correction was added, the part along the correction, up to its length.
// commit calls it, so that the next step's solve starts from v^{n+1}
// without it.
func (s *Sim) takeBackUntangle() {
	un := &s.ct.un
	if !un.had {
		return
	}
	m := s.Mesh
	for v, c := range un.corr {
		n2 := c.Dot(c)
		if n2 == 0 || v >= len(m.Vel) || !m.VertAlive[v] {
			continue
		}
		if along := m.Vel[v].Sub(un.base[v]).Dot(c) / n2; along > 0 {
			m.Vel[v] = m.Vel[v].Sub(c.Scale(min(along, 1)))
		}
		un.last[v], un.gain[v], un.lastAt[v] = c, un.trying[v], un.episode+1
	}
	clear(un.corr)
	clear(un.inSolve)
	un.had = false
}

// tangledFaces returns the tangled flags for contact.Cloth.Tangled: nil
// when the cloth is not being untangled (or the flags are stale for the
// mesh's face slots).
func (s *Sim) tangledFaces() []uint8 {
	un := &s.ct.un
	if !un.active || len(un.faces) != len(s.Mesh.Tris) {
		return nil
	}
	return un.faces
}

// tangledContours returns the contour of each face slot for
// contact.Cloth.Contour: nil when tangledFaces is nil.
func (s *Sim) tangledContours() []int32 {
	un := &s.ct.un
	if s.tangledFaces() == nil || len(un.contour) != len(s.Mesh.Tris) {
		return nil
	}
	return un.contour
}
