package scene

import (
	"fmt"
	"math"
	"testing"

	"drape/sim/internal/exact"
)

// TestSelfCollisionBackOnShrinksPile: drop-pile falls for T s with
// self-collision off, so that its strip piles onto the ground through
// itself, and self-collision is switched back on, as a person does with
// the switch (issue 39's monkey: the commonest lasting tangle). 1 s
// later the tangle must have shrunk below a fraction of what it was.
// Before untangling's band was split by contour
// (contact/untangle_contours.go) and its correction raised to 2 m/s, the
// tangle at T = 0.7 s grew to 1004 pairs at 1 s; with them it was 44,
// and at T = 0.72 s 442 (from 373). With a contour that grows switched to
// the crossing-only rule (cloth/untangle_rules.go) they are 12 and 91.
func TestSelfCollisionBackOnShrinksPile(t *testing.T) {
	if raceEnabled {
		t.Skip("long physics run; it runs without the race detector")
	}
	for _, c := range []struct {
		off  float64 // seconds with self-collision off
		frac int     // the tangle must shrink below 1/frac of its start
	}{
		{0.70, 10}, // 239 pairs → 12
		{0.72, 2},  // 373 pairs → 91
	} {
		t.Run(fmt.Sprintf("T=%.2f", c.off), func(t *testing.T) {
			sc, err := LoadScene(sceneAssets, "drop-pile")
			if err != nil {
				t.Fatal(err)
			}
			sim, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			cp := sim.ContactParams()
			cp.SelfCollision = false
			if err := sim.SetContactParams(cp); err != nil {
				t.Fatal(err)
			}
			dt := sim.Params().Dt
			for i := 0; i < int(math.Round(c.off/dt)); i++ {
				if _, err := sim.Step(); err != nil {
					t.Fatalf("t=%.3f s: %v", sim.Time, err)
				}
			}
			cp.SelfCollision = true
			if err := sim.SetContactParams(cp); err != nil {
				t.Fatal(err)
			}
			before := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
			if before < 100 {
				t.Fatalf("only %d intersecting pairs when self-collision comes back: the test checks little", before)
			}
			for i := 0; i < int(math.Round(1/dt)); i++ {
				if _, err := sim.Step(); err != nil {
					t.Fatalf("t=%.3f s: %v", sim.Time, err)
				}
			}
			if !sim.Finite() {
				t.Fatal("the pile blew up")
			}
			n := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
			if c.frac*n >= before {
				t.Errorf("1 s after self-collision came back: got=%d intersecting pairs, want < %d (1/%d of %d)", n, (before+c.frac-1)/c.frac, c.frac, before)
			}
			t.Logf("intersecting pairs: %d when self-collision came back, %d 1 s later", before, n)
		})
	}
}
