package scene

import (
	"math"
	"sort"
	"testing"

	"drape/sim/cloth"
	"drape/sim/internal/exact"
	"drape/sim/internal/simtest"
	"drape/sim/strainlimit"
)

// TestSelfCollisionBackOnShrinksPile: drop-pile falls for T s with
// self-collision off, so that its strip piles onto the ground through
// itself, and self-collision is switched back on, as a person does with
// the switch (issue 39's monkey: the commonest lasting tangle). 1 s
// later, summed over seven switch-on times T from 0.66 to 0.74 s (1887
// pairs at the switch), at most pileLeft crossing pairs may be left:
// issue 39 asks for none once untangling has had 1 s.
//
// One T alone does not measure untangling: the pile is chaotic, and the
// count 1 s later moves by an order of magnitude with the smallest
// change of trajectory; the sum over seven is steadier, but not steady:
// it read 1, then 17 and 23 after two changes (the take-back of what
// passed, and a step rule not kept) that left the 31 switch-on times of
// docs/robustness.md level or better (runs at 0 after 5 s: 15, 14, 17;
// with the gain, 22).
// Measured per T (pairs at switch-on → 1 s later), with each vertex's
// correction grown while its direction holds (cloth.correctionGain):
// 0.66 s 101 → 0, 0.68 s 187 → 0, 0.69 s 208 → 0, 0.70 s 239 → 0,
// 0.71 s 270 → 0, 0.72 s 373 → 0, 0.74 s 509 → 0: none in all. Without
// the gain, taken back at commit as far as it passed
// (cloth.takeBackUntangle): 0, 0, 0, 0, 0, 10 and 7, 17 in all. By its
// whole projection on the velocity (ninth session): 0, 0, 0, 0, 0, 0,
// 1. Taken back after the next solve, as before: 45, 150, 4, 42, 396,
// 74, 412, 1123 in all (the test then asked only for fewer than at the
// switch); before the regions of small contours
// (contact/untangle_regions.go), 760; before the band was split by
// contour (contact/untangle_contours.go), T = 0.70 s alone went 239 →
// 1004.
func TestSelfCollisionBackOnShrinksPile(t *testing.T) {
	simtest.SkipUnderRace(t)
	var before, after int
	for _, off := range []float64{0.66, 0.68, 0.69, 0.70, 0.71, 0.72, 0.74} { // seconds with self-collision off
		sim := pileSwitchedOn(t, off)
		dt := sim.Params().Dt
		b := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
		if b < 100 {
			t.Fatalf("T=%.2f: only %d intersecting pairs when self-collision comes back: the test checks little", off, b)
		}
		for i := 0; i < int(math.Round(1/dt)); i++ {
			if _, err := sim.Step(); err != nil {
				t.Fatalf("T=%.2f, t=%.3f s: %v", off, sim.Time, err)
			}
		}
		if !sim.Finite() {
			t.Fatalf("T=%.2f: the pile blew up", off)
		}
		a := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
		t.Logf("T=%.2f: intersecting pairs: %d when self-collision came back, %d 1 s later", off, b, a)
		before += b
		after += a
	}
	if after > pileLeft {
		t.Errorf("1 s after self-collision came back: got=%d intersecting pairs in all (%d when it came back), want at most %d", after, before, pileLeft)
	}
}

// pileLeft is the most crossing pairs TestSelfCollisionBackOnShrinksPile
// accepts 1 s after the switch, over its seven piles: measured 1–23 (see
// there; 17 now); the slack is for the trajectory's chaos, far below the
// 1123 that the correction taken back after the next solve left.
const pileLeft = 40

// TestLargePileUntanglesUnstretched: drop-pile with self-collision off
// for longer (T = 0.86 and 0.92 s: 1448 and 2075 crossing pairs at the
// switch, the large tangles of issue 39's monkey) untangles within 1 s,
// and while it does, nine faces in ten stay within the untangling strain
// limit (cloth.untangleStrain, 10 %; drop-pile has strain limiting off)
// and a little slack. With SafetyStrain alone in force (the limit set
// to 1) the 90th percentile reached 30 and 38 %, and T = 0.92 kept 8
// pairs at 1 s (docs/robustness.md, "Untangling within a strain
// limit").
func TestLargePileUntanglesUnstretched(t *testing.T) {
	simtest.SkipUnderRace(t)
	const p90Max = 0.11
	for _, off := range []float64{0.86, 0.92} {
		sim := pileSwitchedOn(t, off)
		dt := sim.Params().Dt
		b := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
		if b < 1000 {
			t.Fatalf("T=%.2f: only %d intersecting pairs when self-collision comes back: not a large tangle", off, b)
		}
		worst := 0.0
		for i := 1; i <= int(math.Round(1/dt)); i++ {
			if _, err := sim.Step(); err != nil {
				t.Fatalf("T=%.2f, t=%.3f s: %v", off, sim.Time, err)
			}
			st := strainlimit.PrincipalStrains(sim.Mesh.Pos, sim.Mesh.Rest, sim.Mesh.Tris, nil)
			sort.Float64s(st)
			worst = max(worst, st[len(st)*9/10])
		}
		a := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
		t.Logf("T=%.2f: %d intersecting pairs when self-collision came back, %d 1 s later; 90th percentile of the largest principal strain at most %.1f %%", off, b, a, 100*worst)
		if a > 0 {
			t.Errorf("T=%.2f: %d intersecting pairs 1 s after self-collision came back (%d then)", off, a, b)
		}
		if worst > p90Max {
			t.Errorf("T=%.2f: a tenth of the faces stretched by %.1f %% while untangling, want at most %.0f %%", off, 100*worst, 100*p90Max)
		}
	}
}

// TestTightFoldsUntangle: drop-pile with self-collision off for T = 0.79
// and 0.85 s is free of crossings 1 s after it comes back on. Both were
// among the piles that stayed crossed longest while untangling saw only
// the pairs that share no vertex: 28 and 8 pairs 1 s after the switch,
// and both still crossed 2.5 s after it; with the tight pairs on their
// contours (contact/untangle_tight.go) they are free 0.30 and 0.075 s
// after it (docs/robustness.md, "Tight folds").
func TestTightFoldsUntangle(t *testing.T) {
	simtest.SkipUnderRace(t)
	for _, off := range []float64{0.79, 0.85} {
		sim := pileSwitchedOn(t, off)
		dt := sim.Params().Dt
		b := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
		for i := 0; i < int(math.Round(1/dt)); i++ {
			if _, err := sim.Step(); err != nil {
				t.Fatalf("T=%.2f, t=%.3f s: %v", off, sim.Time, err)
			}
		}
		a := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
		t.Logf("T=%.2f: %d intersecting pairs when self-collision came back, %d 1 s later", off, b, a)
		if b == 0 || a > 0 {
			t.Errorf("T=%.2f: %d intersecting pairs when self-collision came back, %d 1 s later; want some, then none", off, b, a)
		}
	}
}

// pileSwitchedOn returns drop-pile run for off s with self-collision off,
// with self-collision just switched back on.
func pileSwitchedOn(t *testing.T, off float64) *cloth.Sim {
	t.Helper()
	sim := buildScene(t, sceneAssets, "drop-pile")
	cp := sim.ContactParams()
	cp.SelfCollision = false
	if err := sim.SetContactParams(cp); err != nil {
		t.Fatal(err)
	}
	dt := sim.Params().Dt
	for i := 0; i < int(math.Round(off/dt)); i++ {
		if _, err := sim.Step(); err != nil {
			t.Fatalf("T=%.2f, t=%.3f s: %v", off, sim.Time, err)
		}
	}
	cp.SelfCollision = true
	if err := sim.SetContactParams(cp); err != nil {
		t.Fatal(err)
	}
	return sim
}
