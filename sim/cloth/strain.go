package cloth

import (
	"fmt"
	"math"
	"time"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
	"drape/sim/strainlimit"
)

// strainState couples unbiased strain limiting (Tsiknis 2006 ch. 2,
// package strainlimit) to the step: a post-process of phase 4 before the
// collisions' continuous stage, so that the final state is still
// collision-free. Without collisions it runs on its own; with them it
// runs between the collision phase's stages, after the proximity
// impulses and before CCD (Step, phase 4). Decision, measured on the
// gathering adaptive curtain (strain limit 10 %): run before the whole
// collision phase, the limiter left every face within 10.2 %, and the
// proximity impulses then stretched the smallest faces (generation 6,
// 6 mm edges, whose vertices weigh a fraction of their coarse neighbours'
// and so take nearly the whole relative velocity of a contact) to
// 25–61 %, with a handful of cloth–cloth pairs and no CCD hit. After CCD
// responses it runs again, with the continuous stage after it, up to
// strainRounds more times.
type strainState struct {
	p   strainlimit.Params
	lim *strainlimit.Limiter
	in  strainlimit.Input
	// ramp is the strain, dimensionless, added to both stretch limits
	// while a limit switched on or tightened closes in on the cloth's
	// strain (SetStrainParams, strainRamp); 0 otherwise.
	ramp    float64
	strains []float64 // SetStrainParams' scratch: per face slot
	// ref holds, per vertex slot, x^n + Δt·v^{n+½} as the collisions'
	// continuous stage of the step in progress found it (beforeCCD): the
	// strains CCD's responses may not add to (strainLimits).
	ref []geom.Vec3
	// pre is limitStrain's scratch: v^{n+½} before a round after CCD
	// (boundSpeedUp).
	pre []geom.Vec3
}

// strainRamp is how fast a strain limit switched on or tightened closes
// in on a cloth stretched past it, per simulated second: its stretch
// limits start at the cloth's largest strain and come down at this rate
// (SetStrainParams). Taken in one step, the limit snaps the cloth: a 1 m
// sheet pulled to 30 % and switched to a 10 % limit moved at 8.7–10.8 m/s
// in the first step; at 1/s (20 % in 0.2 s) nothing moved faster than
// 3.7 m/s, the pin coming back at HandSpeed (TestStrainLimitTightened).
const strainRamp = 1.0

// StrainParams returns the strain-limiting settings in force.
func (s *Sim) StrainParams() strainlimit.Params { return s.sl.p }

// SetStrainParams validates p and applies it from the next step on. A
// limit switched on or tightened below the cloth's present strain closes
// in on it at strainRamp instead of in one step.
func (s *Sim) SetStrainParams(p strainlimit.Params) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("invalid strain limit: %w", err)
	}
	old := s.sl.p
	s.sl.p = p
	if s.Mesh != nil && p.Enabled && (!old.Enabled || p.MaxWeft < old.MaxWeft || p.MaxWarp < old.MaxWarp) {
		m := s.Mesh
		s.sl.strains = strainlimit.PrincipalStrains(m.Pos, m.Rest, m.Tris, s.sl.strains)
		most := 0.0
		for _, e := range s.sl.strains {
			most = max(most, e)
		}
		s.sl.ramp = max(s.sl.ramp, most-min(p.MaxWeft, p.MaxWarp))
	}
	return nil
}

// StrainRecovery is how fast, in strain per simulated second, the strain
// limit takes in a face that begins a step over it
// (strainlimit.Input.Recover): 0.15 a step at Δt = 5 ms. What puts a face
// there is the collisions' continuous stage, which has the last word in
// a step, a remesh's new face, or a drag; taken in at once, the face's
// corners leave the step at its whole excess over Δt, and halving Δt
// doubles that. Measured on the monkey's tablecloth seed 103 (strain
// limit switched on by a slider, a vertex dragged into a heap of cloth
// on the table, 27 000–55 000 CCD hits a step): with no bound, the CCD
// responses left faces at 120–860 % at the end of each step, the next
// step's limit pulled them back at once, and the kinetic energy doubled
// every two steps until a vertex passed 200 m/s at t = 3.035 s; the
// failsafe's halved steps only raised it (217 up to 550 m/s). Over the
// 18 steps round that time, the fastest vertex moved at 2.4–4.6 m/s at
// 30/s, 2.8–4.6 m/s at 50/s, and 6–20 m/s at 100/s with faces at
// 100–290 % (near the edge); at 10/s the gathering adaptive curtain with
// a 1 % limit kept faces a remesh had made at 2.9–3.3 % after limiting
// (TestStrainLimitAdaptive). At 30/s a face that CCD left at 25 % against
// a 10 % limit is taken in within one 5 ms step, as before; one at 81 %
// (a remesh's new face, TestStrainLimitWithCollisions) over a few.
const StrainRecovery = 30.0

// SafetyStrain is the stretch limit, dimensionless, that holds on weft
// and warp while strain limiting is off: a cloth is never let stretch to
// more than twice its rest length in any direction. In the built-in
// scenes (none has strain limiting on) it acts in a handful of steps, on
// single small faces that contact impulses stretch past it (two-sheets
// 8 steps of 800, curtain-adaptive 2 of 4000, drop-pile and bunny 1
// each; the largest strain before 101–130 %), never in the others
// (largest 0–98 %), and not within the golden runs. Its checks take
// 2.7–6.2 % of a step (the steps' Limit time over whole runs of
// two-sheets, sphere-adaptive, hanging and curtain-adaptive). Decision,
// measured on the monkey's late drags of the gathered curtain
// (sim/monkey TestLateDragsInGather, seed 6, which has no strain limit):
// a free vertex between two pins that the gather squeezed together was
// flung back and forth with its edges at 2–10 and then 25–47 times their
// rest length, and the run blew up at t = 10.71 s (236 m/s); with this
// limit its edges stay within twice their rest length, the fastest
// vertex moves at 5 m/s and the run ends at rest (at 0.5 the limiter ran
// out of passes in those steps). A released strain ε snaps back at about
// ε·√(E/ρ), 100 m/s per unit strain for the default cloth (HandStretch),
// so 1 also keeps a release below the blow-up speed.
const SafetyStrain = 1.0

// untangleStrain is the stretch limit, dimensionless, that holds on weft
// and warp in place of SafetyStrain while the cloth is being untangled
// (untangle: an episode in progress and not held as a runaway) and
// strain limiting is off. The corrections move the crossing vertices at
// up to untangleSpeed times the gain through a crumpled cloth whose
// other layers hold their neighbours, and nothing but SafetyStrain kept
// that from stretching the membrane: traced on the monkey's ground seed
// 600 (self-collision back on after 3.7 s off, 1029 crossing pairs), the
// median face went from 0.1 % to 11.7 % strain in 0.1 s, the 90th
// percentile from 1 % to 40 %, the largest to 100 %; the stretch stayed
// under the layers that trapped it, the ball of cloth boiled at a mean
// 0.2–0.3 m/s for seconds after it was free, and the contours slid over
// the cloth instead of closing (90 % of the crossing pairs new every
// five steps), 60–180 pairs for 1.5 s while the monkey went on dragging.
//
// Decision: the limit of the strain limiter's own default, 10 %, for the
// steps of an episode (on a cloth with pins, only against further
// stretch: untangleRecover); the user's settings when strain limiting
// is on (they chose the fabric's stretch). Measured on drop-pile (strain
// limiting off) with self-collision off for T = 0.76, 0.78, …, 1.06 s
// and then on (693–3371 crossing pairs; 16 runs, 1.5 s each,
// docs/robustness.md): free of crossings within 1 s in 15 runs, against
// 6 with SafetyStrain, 9 with a limit of 20 % and 14 with 5 %; the 90th
// percentile of strain at most 10 % against 28–55 %. The monkey's ground
// seed 600 passes its 40 s.
const untangleStrain = 0.1

// untangleRecover is strainlimit.Input.Recover while untangleLimits
// hold on a cloth with pins: a face already over untangleStrain at the
// step's start keeps its strain and is not pulled in, so that the limit
// keeps the untangling from stretching the cloth further without
// fighting what the pins hold (a pin moved by hand may hold the cloth at
// up to HandStretch, 30 %). Without pins nothing holds a stretch against
// the limiter, and StrainRecovery pulls it in as with strain limiting on.
// Found on the monkey's fold seed 800 (hand pins and the scripted row,
// contact back on with 612 crossing pairs): with StrainRecovery the
// limiter pulled against the pins while the cloth untangled, and
// 170–290 pairs stayed for 1.5 s; with this, 29–48, as with SafetyStrain
// alone (24–58; one run each, a chaotic trajectory). On drop-pile, which
// has no pin, 15 of the 16 runs of untangleStrain's measurement are free
// within 1 s with StrainRecovery and 11 with this value.
const untangleRecover = 1e-9

// safetyLimits and untangleLimits are the limiter's settings while strain
// limiting is off: its defaults with SafetyStrain, or untangleStrain
// while the cloth is being untangled, on weft and warp and no shear
// limit.
var (
	safetyLimits   = stretchOnly(SafetyStrain)
	untangleLimits = stretchOnly(untangleStrain)
)

// stretchOnly returns the limiter's defaults, enabled, with eps on weft
// and warp and no shear limit.
func stretchOnly(eps float64) strainlimit.Params {
	p := strainlimit.DefaultParams()
	p.Enabled = true
	p.MaxWeft, p.MaxWarp, p.MaxShear = eps, eps, math.Pi/2
	return p
}

// strainLimits returns the limits in force for a pass of the step, the
// limiter's Input.Recover and its Input.Ref: the settings, with ramp
// added to the stretch limits while a new limit closes in; with strain
// limiting off, untangleLimits while the cloth is being untangled,
// safetyLimits in the first pass and, in the rounds after CCD's
// responses (afterCCD), untangleLimits against the strains before them.
// The recovery is StrainRecovery·Δt, or untangleRecover while
// untangleLimits hold on a cloth with pins or after CCD.
//
// After CCD. With strain limiting off, the rounds after CCD's responses
// hold every face to the larger of untangleStrain and its strain before
// them (ref, beforeCCD): the responses may stretch no face further than
// the solve left it, past 10 %, and what the solve stretched (a soft
// cloth, a pin) is kept. Why: in a crumpled cloth, the solve relaxes a
// stretch at speed, CCD stops the relaxing vertices against the next
// layer and leaves the stretch in, and the next solve relaxes it again.
// The repulsion springs (repulsion.go) break that for layers within h;
// the layers farther apart, which a thin h leaves to CCD alone, it did
// not. Measured (docs/robustness.md, "A thin cloth that boils"):
//   - drop-pile at h = 0.94 mm (where the monkey's ground seed 600 left
//     the thickness slider; 3 mm by default): CCD's responses added
//     2–9 J a step of membrane energy at x^n + Δt·v^{n+½}, and the pile
//     boiled and sped up, a mean vertex speed of 1.4 m/s at t = 5 s;
//   - drop-pile over eight thicknesses from 0.8 to 1.4 mm, the mean
//     speed over t ∈ (4, 6] s: 0.05–0.53 m/s before, four runs over
//     0.45; 0.05–0.18 with this rule;
//   - at the default 3 mm, eight nudged starts of each, over
//     t ∈ (5, 6] s: bunny boiled in three (0.16–0.29 m/s) before and in
//     none after (0.02–0.08); drop-pile 0.025–0.047 m/s before and
//     0.023–0.175 after (median 0.036 → 0.046), its one cost.
//
// What is left on thin cloth (0.05–0.18 m/s against 0.02–0.06 at 3 mm)
// is compression, which the limiter does not bound: 90 % of the
// membrane energy CCD's responses add to the crumpled ball of ground
// seed 600.
//
// A round after CCD may slow a vertex and turn it, but speed it up by at
// most roundSpeedUp (boundSpeedUp): unbounded, the rounds pumped energy
// into cloth dragged over an obstacle.
func (s *Sim) strainLimits(afterCCD bool) (p strainlimit.Params, recovery float64, ref []geom.Vec3) {
	p, recovery = s.sl.p, StrainRecovery*s.params.Dt
	if !p.Enabled {
		switch un := &s.ct.un; {
		case un.active && !un.runaway:
			if len(s.pins) > 0 {
				recovery = untangleRecover
			}
			return untangleLimits, recovery, nil
		case afterCCD:
			return untangleLimits, untangleRecover, s.sl.ref
		}
		return safetyLimits, recovery, nil
	}
	if s.sl.ramp > 0 {
		p.MaxWeft = min(p.MaxWeft+s.sl.ramp, maxStretchLimit)
		p.MaxWarp = min(p.MaxWarp+s.sl.ramp, maxStretchLimit)
	}
	return p, recovery, nil
}

// beforeCCD keeps x^n + Δt·v^{n+½} in ref for the rounds after CCD's
// responses (strainLimits), when strain limiting is off and the step has
// collisions (without them there is no such round).
func (s *Sim) beforeCCD() {
	if s.sl.p.Enabled || !s.collides() {
		return
	}
	m := s.Mesh
	dt := s.params.Dt
	s.sl.ref = buf.Keep(s.sl.ref, len(m.Pos))
	parallel.ForChunks(len(m.Pos), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			s.sl.ref[i] = m.Pos[i].Add(s.vHalf[i].Scale(dt))
		}
	})
}

// maxStretchLimit is the largest stretch limit strainlimit.Params takes.
const maxStretchLimit = 10

// limitStrain limits the strain of x^{n+1} = x^n + Δt·v^{n+½} by changing
// v^{n+½} (Tsiknis §2.1–2.3). Pinned vertices are held (inverse mass 0);
// the vertex dragged with the mouse stays free, so the mouse spring
// stretches instead of the cloth. afterCCD: a round after CCD's
// responses (strainLimits). On error vHalf is as it was.
func (s *Sim) limitStrain(t1 float64, afterCCD bool) (strainlimit.Stats, error) {
	if s.sl.lim == nil {
		s.sl.lim = strainlimit.NewLimiter()
	}
	m := s.Mesh
	in := &s.sl.in
	in.X0, in.V, in.InvMass, in.Rest, in.Tris = m.Pos, s.vHalf, s.invMass, m.Rest, m.Tris
	p, recovery, ref := s.strainLimits(afterCCD)
	in.Recover, in.Ref = recovery, ref
	if ref != nil {
		s.sl.pre = buf.Keep(s.sl.pre, len(s.vHalf))
		copy(s.sl.pre, s.vHalf)
	}
	st, err := s.sl.lim.Apply(in, s.params.Dt, p)
	if err != nil {
		return st, fmt.Errorf("step %d at t=%.3f s: strain limiting: %v: %w", s.Steps+1, t1, err, ErrUnstable)
	}
	if ref != nil {
		s.boundSpeedUp()
	}
	return st, nil
}

// roundSpeedUp, m/s, is the most a round after CCD's responses may add
// to a vertex's speed (boundSpeedUp): about what relaxing 5 % of stretch
// on a 3 cm edge in one 5 ms step takes (0.05·0.03/0.005 = 0.3 m/s).
//
// Measured (twenty-first session; docs/robustness.md, "Bunny's boil
// back"), the mean vertex speed over t ∈ (3, 5] s of bunny
// from starts nudged by 0.1 µm (Sim.Perturb seeds 1–8), of drop-pile
// over (4, 6] s at eight thicknesses 0.8–1.4 mm, and
// TestDraggedOverBunny's fastest vertex:
//   - 0 (no speed-up at all, the nineteenth session's rule): bunny
//     0.25–0.41 m/s in four starts of eight, and calm in the others;
//     drop-pile 0.048–0.183 m/s (mean 0.106; 0.040–0.144 in
//     the twentieth session's run); the drag 7.6–12.8 m/s;
//   - 0.1: drop-pile 0.040–0.197 m/s (mean 0.124);
//   - 0.3: bunny 0.028–0.079 m/s in all eight; drop-pile 0.034–0.236
//     m/s (mean 0.097); the drag 7.7–12.9 m/s;
//   - 1: the drag at 1.1 times its speed reaches 65 m/s;
//   - unbounded (the eighteenth session's hold): the drag 64–159 m/s
//     over ten speeds of it, and blow-ups.
const roundSpeedUp = 0.3

// boundSpeedUp scales back every vertex that the hold's round after CCD
// (strainLimits with ref) has just sped up by more than roundSpeedUp, to
// its speed before the round (pre) plus roundSpeedUp: the round may slow
// a vertex and turn it, and speed it up only as much as relaxing the
// stretch CCD left takes.
//
// Why a bound. The hold is there so that CCD's responses store no
// stretch in the cloth; it has no energy of its own to give. But the
// limiter meets its limits through global solves (Tsiknis's stitching),
// whose velocity changes reach vertices well away from the faces that
// CCD stretched, and in cloth pressed on an obstacle with thousands of
// CCD hits a step each round's changes met the next round's CCD, step
// after step, and pumped energy in. Found on the monkey's bunny seed 921
// (8 s): a cloth vertex dragged at 23 m/s (the hand following at
// HandSpeed) over the bunny blew up at t = 0.875 s, 556 m/s, no substep
// saving it (TestDraggedOverBunny).
//
// Why not 0. With no speed-up allowed (the nineteenth session's rule), a
// round cannot relax the stretch CCD left where relaxing it means moving
// a vertex that CCD stopped, and crumpled cloth on the bunny boiled
// again in half of its nudged starts (TestCrumpledClothDoesNotBoil).
func (s *Sim) boundSpeedUp() {
	parallel.ForChunks(len(s.vHalf), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			v := s.vHalf[i]
			most := s.sl.pre[i].Norm() + roundSpeedUp
			if n2 := v.Dot(v); n2 > most*most { // the second square root only where it scales
				s.vHalf[i] = v.Scale(most / math.Sqrt(n2))
			}
		}
	})
}

// fillInvMass sets invMass to 1/(ρ·A_p) for free live vertex slots and 0
// for pinned and free slots: the masses the post-processes of phase 4
// weigh their impulses with (Bender & Deul §4.1 lumped masses).
func (s *Sim) fillInvMass() {
	m := s.Mesh
	s.invMass = buf.Keep(s.invMass, len(m.Pos))
	for i := range m.Pos {
		if s.movable(i) {
			s.invMass[i] = 1 / (s.params.Density * s.area[i])
		} else {
			s.invMass[i] = 0
		}
	}
}

// movable reports whether vertex slot i is live, free (not pinned) and
// has mass: one the post-processes of phase 4 may move.
func (s *Sim) movable(i int) bool {
	return s.Mesh.VertAlive[i] && !s.fixed[i] && s.area[i] > 0
}

// strainRounds caps the extra rounds of strain limiting and the
// collisions' continuous stage after the first (Step, phase 4), while
// the continuous stage had CCD hits and the limiter changed a velocity.
// Measured on the gathering adaptive curtain with strain limiting at
// 10 % (TestStrainLimitWithCollisions): after steps with CCD responses,
// 31 faces were over 15 % and the largest at 186 % with no extra round;
// with two, at most one face, the largest at 10.9–29.2 % (it moves with
// the trajectory). An earlier measurement on another trajectory gave
// 62.5 % and 10.9 %.
const strainRounds = 2

// strainPass is one pass of phase 4's strain limiting (limitStrain)
// between the collision stages, the first (first) or a later round: it
// keeps the first pass's stats in st.Strain, with the last pass's
// MaxStrainAfter, adds its time to st.Limit, and reports whether it
// changed a velocity (marked for the solver's next continuous stage).
// With strain limiting off it holds SafetyStrain, and in the later rounds
// no face past its strain before CCD's responses (strainLimits).
func (s *Sim) strainPass(t1 float64, st *StepStats, first bool) (bool, error) {
	t := time.Now()
	sv := s.ct.solver
	sv.Mark()
	lst, err := s.limitStrain(t1, !first)
	if first {
		st.Strain = lst
	}
	st.Strain.MaxStrainAfter = lst.MaxStrainAfter
	st.Limit += time.Since(t)
	return sv.Changed(), err
}
