package contact

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"drape/sim/geom"
)

// TestGridHugeBox: a query box far larger than the grid's cells (the
// viewer monkey's tablecloth freeze: faces' boxes 160 m long against
// cells of 5–9 cm) finds the same triangles as comparing every box,
// and ends: visiting its cells one by one, 10⁵ along each axis, would
// not. Smaller boxes, answered by the cells, are checked against the
// same reference.
func TestGridHugeBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var g grid
	for i := 0; i < 300; i++ {
		c := geom.Vec3{X: 0.1 * rng.Float64(), Y: 0.1 * rng.Float64(), Z: 0.1 * rng.Float64()}
		e := geom.Vec3{X: 0.004 * rng.Float64(), Y: 0.004 * rng.Float64(), Z: 0.004 * rng.Float64()}
		if i%50 == 7 { // not in the grid
			g.lo, g.hi = append(g.lo, c.Add(e)), append(g.hi, c)
			continue
		}
		g.lo, g.hi = append(g.lo, c), append(g.hi, c.Add(e))
	}
	g.build(0.001)
	reference := func(lo, hi geom.Vec3) []int32 {
		var out []int32
		for i := range g.lo {
			if g.lo[i].X <= g.hi[i].X && boxesMeet(lo, hi, g.lo[i], g.hi[i]) {
				out = append(out, int32(i))
			}
		}
		return out
	}
	type query struct{ lo, hi geom.Vec3 }
	queries := []query{
		{geom.Vec3{X: -50, Y: -50, Z: -50}, geom.Vec3{X: 50, Y: 50, Z: 50}},          // 10⁵ cells an axis
		{geom.Vec3{X: -3, Y: 0.02, Z: -1e9}, geom.Vec3{X: 0.05, Y: 0.06, Z: 1e9}},    // beyond int32 cells
		{geom.Vec3{X: 0.01, Y: 0.01, Z: 0.01}, geom.Vec3{X: 0.03, Y: 0.02, Z: 0.04}}, // by the cells
		{geom.Vec3{X: 0.05, Y: 0.05, Z: 0.05}, geom.Vec3{X: 0.052, Y: 0.051, Z: 0.05}},
	}
	done := make(chan [][]int32, 1)
	go func() {
		var res [][]int32
		for _, q := range queries {
			var got []int32
			for t := range g.overlapping(q.lo, q.hi) {
				got = append(got, t)
			}
			res = append(res, got)
		}
		done <- res
	}()
	select {
	case res := <-done:
		for k, q := range queries {
			got := slices.Clone(res[k])
			slices.Sort(got)
			want := reference(q.lo, q.hi)
			if !slices.Equal(got, want) {
				t.Errorf("query %d (%v–%v): %d triangles %v, want %d %v", k, q.lo, q.hi, len(got), got, len(want), want)
			}
			if k == 0 && len(want) < 250 {
				t.Errorf("query %d finds %d triangles, want every one in the grid: the test checks little", k, len(want))
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the queries did not end within 30 s: a huge box is visited cell by cell")
	}
}
