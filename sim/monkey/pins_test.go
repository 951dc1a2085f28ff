package monkey

import (
	"math"
	"math/rand/v2"
	"testing"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/internal/exact"
	"drape/sim/internal/simtest"
)

// TestPinsKeepApart drags the gathered curtain's top pins sideways by
// hand, as the viewer monkey did before its 3380 m/s blow-up, and lets
// the scripted gather (from t = 5 s) run into them: no step may fail, no
// intersection may last, and no pin without a path may come nearer to
// another pin than cloth.PinGap times their rest distance (or than it
// was). Seed 3 blew up at 883 m/s when the gather's pins passed through
// the held ones (before cloth.Sim.apart); seed 9 at 4810 m/s when a pin
// that adaptation inserted between a held and a gathered pin took half
// the gather's path (before derivePins gave it none); seed 12 at 251 m/s
// when held pins were pushed out of the gather's way along the line
// between pins, down off the rod into the cloth (before apart carried
// them along instead).
func TestPinsKeepApart(t *testing.T) {
	simtest.SkipUnderRace(t)
	seeds := []uint64{3, 9, 12}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		r := sceneRun(t, "curtain-adaptive", seed, 1)
		s := r.sim
		// gap checks apart's rule: a pin without a path never ends a step
		// nearer to another pin than PinGap times their rest distance,
		// unless it is no nearer than it was at the step before. A held
		// pin squeezed between two that close in (the gather's on one
		// side, another held pin or a dragged one on the other) cannot
		// keep both gaps; apart then lets one shrink, and squeeze is how
		// far: seed 12 came to 0.98 of the gap.
		const squeeze = 0.5
		last := map[[2]int32]float64{}
		gap := func() {
			pins := s.Pins()
			pinGap := s.PinGaps()
			now := map[[2]int32]float64{}
			for _, p := range pins {
				if p.Path != nil {
					continue
				}
				for _, q := range pins {
					if q.Vertex == p.Vertex {
						continue
					}
					k := [2]int32{p.Vertex, q.Vertex}
					d := p.Target.Sub(q.Target).Norm()
					now[k] = d
					rest := pinGap(p.Vertex, q.Vertex)
					if was, ok := last[k]; ok && d < squeeze*rest && d < was-1e-9 {
						t.Fatalf("seed %d t=%.3f: pin %d came to %.3g m from pin %d (from %.3g; PinGap allows %.3g)", seed, s.Time, p.Vertex, d, q.Vertex, was, rest)
					}
				}
			}
			last = now
		}
		for i := 0; i < 200; i++ {
			r.step()
		}
		for g := 0; g < 8 && r.res.Blowups == 0; g++ {
			pins := s.Pins()
			p := pins[r.rng.IntN(len(pins))]
			dx := 0.2 + 0.5*r.rng.Float64()
			if r.rng.IntN(2) == 0 {
				dx = -dx
			}
			dz := 0.2 * (r.rng.Float64() - 0.5)
			speed := 1 + 4*r.rng.Float64()
			r.dragPin(p.Vertex, p.Target, geom.Vec3{X: dx, Z: dz}, math.Abs(dx)/speed)
			for i := 0; i < 60; i++ {
				r.step()
			}
		}
		for s.Time < 7 && r.res.Blowups == 0 {
			r.step()
			gap()
		}
		r.check()
		if !r.res.OK() {
			t.Errorf("seed %d: %v", seed, r.res)
		}
	}
}

// TestObstacleLeash: seed 12 on drape-box drags the box up and away from
// the cloth's pinned corner at 3 m/s in its first second. Friction held
// the cloth on the box, the edges to the pin stretched to 9.8 times their
// rest length and the cloth blew up at 425 m/s at t = 0.67 s, before a
// dragged obstacle waited for the cloth it carries (cloth.Sim's
// carriedStretch).
func TestObstacleLeash(t *testing.T) {
	simtest.SkipUnderRace(t)
	res, err := Run(Config{Scenes: assets.Scenes, Scene: "drape-box", Seed: 12, Seconds: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Error(res)
	}
}

// TestLowPCGCap: the monkey's seed 7 on ground-angled moved the PCG
// iteration cap to 15; the solves stopped unconverged (residuals 20–1000
// times the tolerance), and the collision phase spent 2.4–3.8 s a step
// stopping the motion they made. An unconverged solve now fails the step
// for the failsafe, down to Δt/4 (cloth.pcgSlack): after 100 steps of the
// hanging sheet with the cap at 15, no vertex is more than 0.5 m from the
// run with the default cap (0.18 m measured; 2.51 m, the sheet thrown
// about, when the unconverged solves were taken).
func TestLowPCGCap(t *testing.T) {
	simtest.SkipUnderRace(t)
	var sims [2]*cloth.Sim
	for k := range sims {
		r := &run{cfg: Config{Scenes: assets.Scenes}, rng: rand.New(rand.NewPCG(1, 1)), res: &Result{}}
		if err := r.load("hanging"); err != nil {
			t.Fatal(err)
		}
		sims[k] = r.sim
	}
	p := sims[1].Params()
	p.MaxIter = 15
	if err := sims[1].SetParams(p); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		for _, s := range sims {
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := sims[0].Mesh, sims[1].Mesh
	worst := 0.0
	for v := range a.Pos {
		if a.VertAlive[v] {
			worst = max(worst, a.Pos[v].Sub(b.Pos[v]).Norm())
		}
	}
	t.Logf("cap 15 against 1000 after 100 steps: %.3g m apart at most, %d steps retried (%d at the cap)", worst, sims[1].Retried(), sims[1].RetriedAtCap())
	if worst > 0.5 {
		t.Errorf("with the PCG cap at 15 the sheet is %.3g m from the converged run (want ≤ 0.5)", worst)
	}
	if n := sims[1].Retried(); n == 0 || sims[1].RetriedAtCap() != n {
		t.Errorf("%d steps retried, %d of them counted at the cap: want some, all at the cap", n, sims[1].RetriedAtCap())
	}
}

// TestTightTolerance: a tolerance slider set tighter than the default
// does not make the failsafe halve steps whose solve reached the default
// accuracy at the cap (cloth.defaultTolerance). The monkey's seed 1 on
// ground set 1.7e-5; its solves stopped at the cap of 1000 with residuals
// 6e-4–8e-4, and 89 steps were halved for it, tripling their cost.
func TestTightTolerance(t *testing.T) {
	r := &run{cfg: Config{Scenes: assets.Scenes}, rng: rand.New(rand.NewPCG(1, 1)), res: &Result{}}
	if err := r.load("hanging"); err != nil {
		t.Fatal(err)
	}
	s := r.sim
	p := s.Params()
	p.Tolerance, p.MaxIter = 1e-6, 40
	if err := s.SetParams(p); err != nil {
		t.Fatal(err)
	}
	capped := 0
	for i := 0; i < 50; i++ {
		st, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		if st.Iterations == p.MaxIter && st.Substeps == 0 {
			capped++
		}
	}
	t.Logf("%d of 50 steps stopped at the cap of %d and were taken; %d retried", capped, p.MaxIter, s.Retried())
	if capped == 0 || s.Retried() > 0 {
		t.Errorf("%d steps taken at the cap, %d retried: want the solves stopped at the cap taken, none retried", capped, s.Retried())
	}
}

// TestLateDragsInGather drags and unpins the curtain's top pins late in
// the gather (from t = 7–9 s, the rings bunched to a quarter of their
// rest spacing), as the viewer monkey did before its 391 m/s blow-up at
// t = 8.85 s. Seeds 2, 3 and 4 blew up (322, 4540 and 42 000 m/s): a pin
// held by hand between two of the gather's pins was carried by the
// farther, slower one, since every pin of a gathered row is nearer than
// the gap, and the nearer one ran through it; the triangle between the
// three turned inside out and flung the free vertex below them. apart
// now lets the nearest pin that comes too near decide. Seed 6 then still
// blew up at t = 10.71 s (236 m/s): a free vertex between two pins the
// gather had squeezed 2 mm apart was flung back and forth with its
// edges at 2–10 and then 25–47 times their rest length (the scene has
// no strain limit); cloth.SafetyStrain now holds every cloth within
// twice its rest length. Seeds 3 and 4 found the first cause again and
// run only with DRAPE_LONG set.
func TestLateDragsInGather(t *testing.T) {
	simtest.SkipUnderRace(t)
	seeds := []uint64{2, 6}
	if testing.Short() {
		seeds = seeds[:1]
	} else if simtest.Long() {
		seeds = []uint64{2, 3, 4, 6}
	}
	for _, seed := range seeds {
		r := sceneRun(t, "curtain-adaptive", seed, 7)
		s := r.sim
		start := 7 + 2*r.rng.Float64()
		for s.Time < start {
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		for g := 0; g < 6 && r.res.Blowups == 0; g++ {
			pins := s.Pins()
			p := pins[r.rng.IntN(len(pins))]
			if r.rng.IntN(3) == 0 {
				s.Unpin(p.Vertex)
				for i := 0; i < 20; i++ {
					r.step()
				}
				continue
			}
			dx := 0.2 + 0.5*r.rng.Float64()
			if r.rng.IntN(2) == 0 {
				dx = -dx
			}
			dy := 0.2 * (r.rng.Float64() - 0.5)
			dur := math.Abs(dx) / (1 + 4*r.rng.Float64())
			r.dragPin(p.Vertex, s.Mesh.Pos[p.Vertex], geom.Vec3{X: dx, Y: dy}, dur)
			for i := 0; i < 30; i++ {
				r.step()
			}
		}
		for s.Time < start+2.5 && r.res.Blowups == 0 {
			r.step()
		}
		r.check()
		if !r.res.OK() {
			t.Errorf("seed %d: %v", seed, r.res)
		}
	}
}

// sceneRun loads a scene for a test driving it by hand, its random
// stream (seed, stream), checked every 10 steps with 1 s of grace.
func sceneRun(t *testing.T, scene string, seed, stream uint64) *run {
	t.Helper()
	r := &run{cfg: Config{Scenes: assets.Scenes, CheckEvery: 10, Grace: 1}, rng: rand.New(rand.NewPCG(seed, stream)), res: &Result{}}
	if err := r.load(scene); err != nil {
		t.Fatal(err)
	}
	r.tangledSince, r.insideSince = -1, -1
	return r
}

// dragPin moves the pin of vertex v by hand from from to from + off in
// dur seconds, a step at a time, until a step blows up or adaptation
// takes the vertex (the hand lets go).
func (r *run) dragPin(v int32, from, off geom.Vec3, dur float64) {
	s := r.sim
	for t0 := s.Time; s.Time-t0 < dur && r.res.Blowups == 0; {
		u := (s.Time - t0 + s.Params().Dt) / dur
		if err := s.Pin(v, from.Add(off.Scale(u))); err != nil {
			return
		}
		r.step()
	}
}

// TestHandPinsThroughFailsafe plays the hanging sheet with pins set on
// random vertices and moved by hand, one or two at a time to goals up to
// 2.2 m away (each travels at cloth.HandSpeed, so two move at once), and
// checks with the exact oracle, counting every face (those of pinned
// vertices too, as the viewer's tangled count does), that the cloth never
// crosses itself. Seed 7 (stream 99) met the collision failsafe at
// t = 6.19 s while two hand pins were moving: the free vertices were
// held still for the step, the pins moved on and went through them: 6
// crossing pairs, 1 of them for good (the viewer monkey's hanging run in
// CI ended the same way with 60). The failsafe now holds the hands too
// (cloth's errBlocked).
func TestHandPinsThroughFailsafe(t *testing.T) {
	simtest.SkipUnderRace(t)
	gestures := 24
	if testing.Short() {
		t.Skip("long physics run (about 15 s); it runs without -short")
	}
	r := sceneRun(t, "hanging", 7, 99)
	s := r.sim
	for i := 0; i < 100; i++ {
		r.step()
	}
	worst, at := 0, 0.0
	for g := 0; g < gestures && r.res.Blowups == 0; g++ {
		pins := s.Pins()
		if r.rng.IntN(5) == 0 || len(pins) == 0 {
			if r.rng.IntN(2) == 0 && len(pins) > 1 {
				s.Unpin(pins[r.rng.IntN(len(pins))].Vertex)
			} else {
				v := int32(r.rng.IntN(len(s.Mesh.Pos)))
				if err := s.Pin(v, s.Mesh.Pos[v]); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		steps := func(n int) {
			for i := 0; i < n; i++ {
				r.step()
				if p := allFacePairs(s.Mesh); p > worst {
					worst, at = p, s.Time
				}
			}
		}
		for k := 0; k < 1+r.rng.IntN(2); k++ {
			v := pins[r.rng.IntN(len(pins))].Vertex
			mag := 0.2 + 2.0*r.rng.Float64()*r.rng.Float64()
			if err := s.Pin(v, s.Mesh.Pos[v].Add(randomDir(r.rng).Scale(mag))); err != nil {
				t.Fatal(err)
			}
			steps(r.rng.IntN(20))
		}
		steps(10 + r.rng.IntN(70))
	}
	t.Logf("t = %.2f s, %d collision failsafe steps, most crossing pairs %d", s.Time, s.Failsafes(), worst)
	if worst > 0 || !r.res.OK() {
		t.Errorf("the cloth crossed itself: %d pairs at t = %.3f s (every face counted); failures %v", worst, at, r.res.Failures)
	}
}

// allFacePairs counts the intersecting pairs of m's live faces that share
// no vertex with the exact oracle, faces with a pinned vertex included.
func allFacePairs(m *geom.Mesh) int {
	tris := make([][3]int32, 0, len(m.Tris))
	for f, t := range m.Tris {
		if m.FaceAlive(f) {
			tris = append(tris, t)
		}
	}
	return exact.NewChecker(nil, nil).Check(m.Pos, tris, true).SelfPairs
}
