package strainlimit

import (
	"testing"

	"drape/sim/geom"
)

// TestActiveSetExact: the stitching restricted to the vertices within
// Iterations rings of the responded faces gives the same velocities, bit
// for bit, as the stitching over the whole mesh. (By default each
// stitching reaches only stitchRings or fineRings rings, fewer than
// Iterations, and so solves a local problem; here it may reach Iterations
// rings.)
func TestActiveSetExact(t *testing.T) {
	defer func(r, f int) { stitchRings, fineRings = r, f }(stitchRings, fineRings)
	stitchRings, fineRings = 1<<30, 1<<30
	dt := 0.01
	in := sheet(t, 30, 20, true, geom.Vec3{X: 1, Y: 1, Z: 1}, 0, dt, 21)
	pinTop(in)
	in.V[5] = geom.Vec3{X: -2, Y: -3, Z: 1} // one vertex flung 3.7 cm
	full := clone(in)
	st, err := NewLimiter().Apply(in, dt, onParams())
	if err != nil {
		t.Fatal(err)
	}
	stitchEverywhere = true
	defer func() { stitchEverywhere = false }()
	if _, err := NewLimiter().Apply(full, dt, onParams()); err != nil {
		t.Fatal(err)
	}
	if st.Passes == 0 {
		t.Fatal("no stitching pass")
	}
	for i := range in.V {
		if in.V[i] != full.V[i] {
			t.Fatalf("vertex %d: restricted %v, full %v", i, in.V[i], full.V[i])
		}
	}
}

// TestSkippingExact: skipping the faces that cannot be over their limit
// (the force estimate's edges, the first pass, the element responses and
// the check on exit; see overMargin) and stitching in parallel give the
// same velocities and statistics, bit for bit, as examining every face
// and stitching serially, on a pinned sheet with one vertex flung, a free
// sheet stretched everywhere (the gauge moves every vertex), a sheet
// whose faces sit just under the limit, and one Limiter reused across
// those calls against a fresh one each time (state left from a call must
// not leak into the next).
func TestSkippingExact(t *testing.T) {
	dt := 0.01
	flung := sheet(t, 30, 20, true, geom.Vec3{X: 1, Y: 1, Z: 1}, 0, dt, 21)
	pinTop(flung)
	flung.V[5] = geom.Vec3{X: -2, Y: -3, Z: 1}
	free := sheet(t, 12, 10, true, geom.Vec3{X: 1.2, Y: 1.05, Z: 1}, 0.001, dt, 22)
	near := sheet(t, 20, 16, false, geom.Vec3{X: 1.097, Y: 1.097, Z: 1}, 0, dt, 23)
	pinTop(near)
	near.V[40] = near.V[40].Add(geom.Vec3{X: 0.3, Z: 0.2})
	cases := []struct {
		name string
		in   *Input
	}{{"flung", flung}, {"free", free}, {"near", near}, {"flung again", flung}}
	defer func(n int) { serialRows = n }(serialRows)
	reused := NewLimiter()
	for _, c := range cases {
		skip, every, fresh := clone(c.in), clone(c.in), clone(c.in)
		serialRows = 0 // every stitching in parallel
		st, err := reused.Apply(skip, dt, onParams())
		if err != nil {
			t.Fatal(err)
		}
		stf, err := NewLimiter().Apply(fresh, dt, onParams())
		if err != nil {
			t.Fatal(err)
		}
		everyFace, serialRows = true, 1<<30
		ste, err := NewLimiter().Apply(every, dt, onParams())
		everyFace = false
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d elements, %d passes, %d constrained, strain %.4f → %.4f", c.name, st.Elements, st.Passes, st.Constrained, st.MaxStrainBefore, st.MaxStrainAfter)
		if st.Passes == 0 {
			t.Errorf("%s: no pass; the case tests nothing", c.name)
		}
		st.Time, ste.Time, stf.Time = 0, 0, 0
		if st != ste || st != stf {
			t.Errorf("%s: stats %+v, examining every face %+v, fresh limiter %+v", c.name, st, ste, stf)
		}
		for i := range skip.V {
			if skip.V[i] != every.V[i] || skip.V[i] != fresh.V[i] {
				t.Fatalf("%s: vertex %d: %v, examining every face %v, fresh limiter %v", c.name, i, skip.V[i], every.V[i], fresh.V[i])
			}
		}
	}
}
