package strainlimit

import (
	"testing"

	"drape/sim/geom"
)

// TestActiveSetExact: the stitching restricted to the vertices within
// Iterations rings of the responded faces gives the same velocities, bit
// for bit, as the stitching over the whole mesh. (By default each
// stitching reaches only stitchRings rings, fewer than Iterations, and
// so solves a local problem; here it may reach Iterations rings.)
func TestActiveSetExact(t *testing.T) {
	defer func(r int) { stitchRings = r }(stitchRings)
	stitchRings = 1 << 30
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
