package headless

import (
	"math"
	"testing"

	"drape/sim/geom"
)

// TestPerturbStart: --perturb nudges every live vertex by a fraction of a
// micrometre, the same for the same seed, differently for another, and
// leaves free slots alone.
func TestPerturbStart(t *testing.T) {
	m, err := geom.RegularGrid(1, 1, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	m.VertAlive[5] = false // a free slot
	orig := append([]geom.Vec3(nil), m.Pos...)
	nudged := func(seed int64) []geom.Vec3 {
		copy(m.Pos, orig)
		perturbStart(m, seed)
		return append([]geom.Vec3(nil), m.Pos...)
	}
	a, b, c := nudged(1), nudged(1), nudged(2)
	for i := range orig {
		d := a[i].Sub(orig[i])
		switch {
		case !m.VertAlive[i]:
			if d != (geom.Vec3{}) {
				t.Errorf("free slot %d moved by %v", i, d)
			}
		case d == (geom.Vec3{}):
			t.Errorf("vertex %d not moved", i)
		case max(math.Abs(d.X), math.Abs(d.Y), math.Abs(d.Z)) > 6*perturbSize:
			t.Errorf("vertex %d moved by %v, more than 6 standard deviations", i, d)
		case a[i] != b[i]:
			t.Errorf("vertex %d: seed 1 gave %v, then %v", i, a[i], b[i])
		case a[i] == c[i]:
			t.Errorf("vertex %d: seeds 1 and 2 gave the same %v", i, a[i])
		}
	}
}
