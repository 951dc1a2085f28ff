package contact

import (
	"math/rand"
	"testing"

	"drape/sim/geom"
)

// TestSelfCacheMatchesFresh: over 60 calls on a sheet folded onto itself
// whose vertices wander (small random steps every call, a few large ones
// sideways across their neighbours,
// a drift of the whole sheet, a change of h and faces renumbered three
// calls in a row), a solver that keeps its
// cloth–cloth candidate cache (selfCache) finds exactly the cloth–cloth
// and cloth–body proximity pairs that a fresh solver finds on the same
// input.
func TestSelfCacheMatchesFresh(t *testing.T) {
	// The cache is off in the pipeline (see plainSelf); this test still
	// checks what it finds against a fresh query.
	defer func(old bool) { plainSelf = old }(plainSelf)
	plainSelf = false
	c := sheet(t, 0.4, 16, 0, 0, 0, geom.Vec3{})
	for i, x := range c.X {
		if x.X > 0 {
			c.X[i] = geom.Vec3{X: -x.X, Y: x.Y, Z: 0.0025}
		}
	}
	bodies := []Body{{Point: geom.Vec3{Z: -0.002}, Normal: geom.Vec3{Z: 1}}}
	rng := rand.New(rand.NewSource(3))
	kept := NewSolver()
	p := DefaultParams()
	reused, escaped := 0, 0
	for step := 0; step < 60; step++ {
		shift := geom.Vec3{X: 0.0007 * float64(step%5), Z: 0.0004}
		for i := range c.X {
			a, az := 0.0006, 0.0006
			if rng.Intn(300) == 0 {
				a, az = 0.06, 0 // a few vertices jump sideways in their layer, over their neighbours
			}
			c.X[i] = c.X[i].Add(shift.Scale(0.2)).Add(geom.Vec3{X: a * (rng.Float64() - 0.5), Y: a * (rng.Float64() - 0.5), Z: az * (rng.Float64() - 0.5)})
			c.V[i] = geom.Vec3{X: 0.2 * (rng.Float64() - 0.5), Y: 0.2 * (rng.Float64() - 0.5), Z: -0.1 + 0.2*(rng.Float64()-0.5)}
		}
		if step == 40 {
			p.Thickness = 0.004
		}
		if step >= 20 && step < 23 {
			// The faces change three calls in a row (a face's vertices
			// rotated, as an adapting mesh renumbers): the cache is
			// rebuilt, then the plain query runs.
			f := c.Tris[step]
			c.Tris[step] = [3]int32{f[1], f[2], f[0]}
		}
		v := append([]geom.Vec3{}, c.V...)
		wasValid := kept.tc.valid
		got, err := kept.Resolve(c, bodies, 0.005, p)
		if err != nil {
			t.Fatal(err)
		}
		if wasValid && !kept.tc.fresh {
			reused++
			if kept.tc.anyEsc {
				escaped++
			}
		}
		copy(c.V, v)
		want, err := NewSolver().Resolve(c, bodies, 0.005, p)
		if err != nil {
			t.Fatal(err)
		}
		copy(c.V, v)
		if got.SelfProximity != want.SelfProximity || got.Proximity != want.Proximity {
			t.Fatalf("step %d: cached solver found %d self and %d body proximity pairs, want=%d and %d", step, got.SelfProximity, got.Proximity, want.SelfProximity, want.Proximity)
		}
		if want.SelfProximity == 0 {
			t.Fatalf("step %d: no self proximity pairs: the test checks nothing", step)
		}
	}
	if reused < 20 || escaped < 5 {
		t.Errorf("the cache was reused in %d of 60 calls, %d times with escaped faces, want=at least 20 and 5 (the test would check nothing)", reused, escaped)
	}
}
