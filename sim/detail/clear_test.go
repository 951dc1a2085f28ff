package detail

import (
	"math"
	"testing"

	"drape/sim/geom"
)

// ground is the half-space z ≤ z0 as an Obstacle.
func ground(z0 float64) Obstacle {
	inf := math.Inf(1)
	return Obstacle{
		Lo:             geom.Vec3{X: -inf, Y: -inf, Z: -inf},
		Hi:             geom.Vec3{X: inf, Y: inf, Z: z0},
		SignedDistance: func(p geom.Vec3) float64 { return p.Z - z0 },
	}
}

// TestClearOfObstacles: a sheet lying on the ground, compressed, buckles
// both ways without the ground (some fine points go below it, which is
// what makes the test able to fail); with the ground every fine point
// stays on or above it, the folds above it keep their height, and the
// scaled-back displacements are what the next frame starts from.
func TestClearOfObstacles(t *testing.T) {
	f := compressX(sheet(t, 1, 0.5, 10, 5), 0.1)
	var s Surface
	free := NewDetailer(converged())
	st, err := free.Update(f, &s)
	if err != nil {
		t.Fatal(err)
	}
	below, above := 0, 0.0
	for _, p := range s.Pos {
		if p.Z < -1e-9 {
			below++
		}
		above = max(above, p.Z)
	}
	if below == 0 || st.Cleared != 0 {
		t.Fatalf("without the ground: %d fine points below it, %d cleared; want some below and none cleared", below, st.Cleared)
	}

	g := *f
	g.Obstacles = []Obstacle{ground(0)}
	held := NewDetailer(converged())
	for k := 0; k < 3; k++ {
		st, err = held.Update(&g, &s)
		if err != nil {
			t.Fatal(err)
		}
		lowest, top := math.Inf(1), 0.0
		for _, p := range s.Pos {
			lowest = min(lowest, p.Z)
			top = max(top, p.Z)
		}
		if lowest < -1e-9 {
			t.Errorf("Update %d with the ground: a fine point at z = %g", k, lowest)
		}
		if k == 0 && st.Cleared == 0 {
			t.Errorf("Update %d with the ground: no displacement scaled back", k)
		}
		if top < 0.5*above {
			t.Errorf("Update %d with the ground: highest fold %g m against %g m without it", k, top, above)
		}
	}
	t.Logf("without the ground %d of %d fine points below it, highest %.2f mm; with it %d cleared in the last Update", below, len(s.Pos), 1000*above, st.Cleared)

	g.Obstacles = []Obstacle{{Lo: geom.Vec3{X: 1}, Hi: geom.Vec3{}, SignedDistance: ground(0).SignedDistance}}
	if _, err := held.Update(&g, &s); err == nil {
		t.Error("an obstacle with empty bounds was accepted")
	}
	g.Obstacles = []Obstacle{{Lo: ground(0).Lo, Hi: ground(0).Hi}}
	if _, err := held.Update(&g, &s); err == nil {
		t.Error("an obstacle without a signed distance was accepted")
	}
}
