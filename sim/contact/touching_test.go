package contact

import (
	"testing"

	"drape/sim/geom"
)

// This file tests a pair touching at x^n that crosses later in the step:
// the CCD search goes on past a rejected first time.

// TestTouchingThenCrossing: two triangles within the CCD tolerance δ at
// x^n, separating at the start of the step as the closest points see it,
// whose edges then pass through each other later in the step. The CCD
// reports the first time within δ, t = 0, and a pair touching at x^n that
// is not approaching there is no collision; the crossing later in the same
// step must still be found (the full drop-pile run of sim/scene lost a
// pair of its fourth layer this way at t = 3.765 s). Before the fix
// Resolve left the two triangles intersecting at x^{n+1}.
func TestTouchingThenCrossing(t *testing.T) {
	const dt, gap = 0.005, 2e-6 // gap < δ = 10⁻³·h = 3 µm
	// Triangle 1 lies in z = 0 with edge A along x; triangle 2's first
	// vertex B0 sits gap above the middle of A and slides over triangle 1
	// (−y), while its other two vertices, beyond A (y = 1), sink.
	c := &Cloth{
		X: []geom.Vec3{
			v3(-1, 0, 0), v3(1, 0, 0), v3(0, -1, 0),
			v3(0, 0, gap), v3(0, 1, gap), v3(-0.5, 1, gap),
		},
		V: []geom.Vec3{
			{}, {}, {},
			v3(0, -1, 0), v3(0, 0, -100), v3(0, 0, -100), // a fast swing: the proximity push (0.06 m/s) must not part them first
		},
		InvMass: []float64{100, 100, 100, 100, 100, 100},
		Tris:    [][3]int32{{0, 1, 2}, {3, 4, 5}},
	}
	// The test's own check that the motion as given crosses: without
	// collisions the triangles intersect at the end of the step.
	x1 := func() []geom.Vec3 {
		out := make([]geom.Vec3, len(c.X))
		for i := range c.X {
			out[i] = c.X[i].Add(c.V[i].Scale(dt))
		}
		return out
	}
	if selfCrossings(x1(), c.Tris) == 0 {
		t.Fatal("the test motion does not cross: it tests nothing")
	}
	p := DefaultParams()
	s := NewSolver()
	st, err := s.Resolve(c, nil, dt, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := selfCrossings(x1(), c.Tris); n != 0 {
		t.Errorf("the triangles intersect at x^{n+1} (stats %+v)", st)
	}
}
