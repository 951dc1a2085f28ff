package contact

import (
	"errors"
	"math"
	"strings"
	"testing"

	"drape/sim/geom"
)

// This file tests the public API's contracts: no allocation once warm,
// the faces NearFaces marks, IntersectingPairs and TangleCheck against the
// test's own count, and the errors of bad parameters and input.

// TestNoAllocWarm: once warm, Resolve allocates nothing (a sheet draped
// over a sphere mesh with self-collision and a ground plane; a moving
// sphere mesh; a moving round sphere; culling off).
func TestNoAllocWarm(t *testing.T) {
	c := sheet(t, 1, 20, 0, 0, 0.302, geom.Vec3{Z: -1})
	bodies := []Body{sphereBody(0.3, 3, geom.Vec3{}), {Point: geom.Vec3{Z: -0.5}, Normal: geom.Vec3{Z: 1}}}
	v := append([]geom.Vec3{}, c.V...)
	s := NewSolver()
	p := DefaultParams()
	run := func() {
		copy(c.V, v)
		if _, err := s.Resolve(c, bodies, 0.005, p); err != nil {
			t.Fatal(err)
		}
	}
	run()
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("Resolve allocates %v times per call once warm", n)
	}
	// A moving body whose caller hands in a different (equal) Tris slice
	// every call, as a scripted obstacle may.
	mv := sphereBody(0.3, 3, geom.Vec3{})
	mv.Static = false
	to := make([]geom.Vec3, len(mv.From))
	for i, x := range mv.From {
		to[i] = x.Add(geom.Vec3{X: 0.01})
	}
	mv.To = to
	trisB := append([][3]int32{}, mv.Tris...)
	k := 0
	bodies[0] = mv
	run2 := func() {
		k++
		if k%2 == 0 {
			bodies[0].Tris = trisB
		} else {
			bodies[0].Tris = mv.Tris
		}
		run()
	}
	run2()
	run2()
	if n := testing.AllocsPerRun(5, run2); n != 0 {
		t.Errorf("Resolve with a moving body allocates %v times per call once warm", n)
	}
	// A round body (a moving sphere from its core) instead of the mesh.
	bodies[0] = Body{Radius: 0.3, Core: [2]geom.Vec3{{}, {}}, CoreTo: [2]geom.Vec3{{X: 0.01}, {X: 0.01}}, Friction: 0.3}
	run()
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("Resolve with a round body allocates %v times per call once warm", n)
	}
	// The same with culling off (Params.Cull).
	p.Cull = false
	run()
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("Resolve with culling off allocates %v times per call once warm", n)
	}
}

// TestNearFaces: faces of a sheet lying just above a body (within h) are
// near; those far from it are not.
func TestNearFaces(t *testing.T) {
	c := sheet(t, 1, 10, 0, 0, 0.001, geom.Vec3{})
	pos := []geom.Vec3{{X: -0.5, Y: -0.5}, {X: 0, Y: -0.5}, {X: 0, Y: 0.5}, {X: -0.5, Y: 0.5}}
	b := Body{Tris: [][3]int32{{0, 1, 2}, {0, 2, 3}}, From: pos, To: pos, Static: true}
	s := NewSolver()
	p := DefaultParams()
	if _, err := s.Resolve(c, []Body{b}, 0.005, p); err != nil {
		t.Fatal(err)
	}
	near := s.NearFaces(nil)
	if len(near) != len(c.Tris) {
		t.Fatalf("got %d flags for %d faces", len(near), len(c.Tris))
	}
	for f, tr := range c.Tris {
		cx := (c.X[tr[0]].X + c.X[tr[1]].X + c.X[tr[2]].X) / 3
		switch {
		case cx < -0.1 && !near[f]:
			t.Errorf("face %d over the body (x=%.2f) is not near", f, cx)
		case cx > 0.25 && near[f]:
			t.Errorf("face %d away from the body (x=%.2f) is near", f, cx)
		}
	}
	if len(s.Contacts()) == 0 {
		t.Error("no contacts recorded")
	}
	for _, ct := range s.Contacts() {
		if ct.Body != 0 || math.Abs(ct.Normal.Z-1) > 1e-9 || ct.Impulse < 0 {
			t.Errorf("contact %+v: want body 0, normal +z, impulse ≥ 0", ct)
		}
	}
}

// crossingSheets returns a flat sheet a and the cloth c of a and a second
// sheet tilted through it.
func crossingSheets(t *testing.T) (a, c *Cloth) {
	a = sheet(t, 0.5, 6, 0, 0, 0.1, geom.Vec3{})
	b := sheet(t, 0.5, 6, 0, 0, 0.1, geom.Vec3{})
	for i := range b.X {
		y := b.X[i].Y
		b.X[i].Y, b.X[i].Z = 0.8*y, 0.1+0.6*y+0.013
	}
	return a, join(a, b)
}

// TestIntersectingPairs counts crossings of two sheets against the test's
// brute force, and none on a flat or folded-apart sheet.
func TestIntersectingPairs(t *testing.T) {
	a, c := crossingSheets(t)
	got, want := IntersectingPairs(c.X, c.Tris), selfCrossings(c.X, c.Tris)
	if got != want || got == 0 {
		t.Errorf("crossing sheets: got %d pairs, brute force %d", got, want)
	}
	if n := IntersectingPairs(a.X, a.Tris); n != 0 {
		t.Errorf("flat sheet: %d pairs", n)
	}
	if n := IntersectingPairs(nil, nil); n != 0 {
		t.Errorf("empty: %d", n)
	}
}

// TestBadInput: bad parameters and input give errors that name the
// problem, leave the velocities as they were, and never panic.
func TestBadInput(t *testing.T) {
	good := DefaultParams()
	for _, tc := range []struct {
		name   string
		modify func(*Params)
		want   string
	}{
		{"thickness", func(p *Params) { p.Thickness = 0 }, "thickness"},
		{"thickness NaN", func(p *Params) { p.Thickness = math.NaN() }, "thickness"},
		{"friction", func(p *Params) { p.Friction = -1 }, "friction"},
		{"iterations", func(p *Params) { p.CCDIterations = 0 }, "ccd_iterations"},
		{"zones", func(p *Params) { p.Zones = 7 }, "zones"},
	} {
		p := good
		tc.modify(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %q", tc.name, err, tc.want)
		}
	}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	c := sheet(t, 0.2, 2, 0, 0, 0, geom.Vec3{Z: -1})
	v0 := append([]geom.Vec3{}, c.V...)
	s := NewSolver()
	cases := []struct {
		name   string
		bodies []Body
		dt     float64
		mod    func()
		undo   func()
		want   string
	}{
		{"dt", nil, 0, func() {}, func() {}, "time step"},
		{"nan x", nil, 0.005, func() { c.X[1].X = math.NaN() }, func() { c.X[1].X = 0.1 - 0.1 }, "not finite"},
		{"index", nil, 0.005, func() { c.Tris[0][1] = 99 }, func() { c.Tris[0][1] = 1 }, "out of range"},
		{"plane", []Body{{Normal: geom.Vec3{}}}, 0.005, func() {}, func() {}, "half-space"},
		{"body lengths", []Body{{Tris: [][3]int32{{0, 1, 2}}, From: make([]geom.Vec3, 3)}}, 0.005, func() {}, func() {}, "positions"},
	}
	for _, tc := range cases {
		x1 := c.X[1]
		t1 := c.Tris[0]
		tc.mod()
		_, err := s.Resolve(c, tc.bodies, tc.dt, good)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %q", tc.name, err, tc.want)
		}
		for i := range c.V {
			if c.V[i] != v0[i] {
				t.Errorf("%s: velocity %d changed", tc.name, i)
			}
		}
		c.X[1], c.Tris[0] = x1, t1
	}
	// Unresolvable: two pinned (kinematic) triangles passing through each
	// other cannot be separated; Resolve reports ErrUnresolved and
	// restores the velocities.
	k := &Cloth{
		X:       []geom.Vec3{{X: 0, Y: 0, Z: 0}, {X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 0}, {X: 0.2, Y: 0.2, Z: 0.1}, {X: 0.3, Y: 0.2, Z: 0.1}, {X: 0.2, Y: 0.3, Z: 0.1}},
		V:       []geom.Vec3{{}, {}, {}, {Z: -40}, {Z: -40}, {Z: -40}},
		InvMass: []float64{0, 0, 0, 0, 0, 0},
		Tris:    [][3]int32{{0, 1, 2}, {3, 4, 5}},
	}
	kv := append([]geom.Vec3{}, k.V...)
	_, err := s.Resolve(k, nil, 0.005, good)
	if !errors.Is(err, ErrUnresolved) {
		t.Errorf("kinematic crossing: got %v, want ErrUnresolved", err)
	}
	for i := range k.V {
		if k.V[i] != kv[i] {
			t.Errorf("kinematic crossing: velocity %d changed", i)
		}
	}
	// Disabled: nothing happens.
	off := good
	off.Enabled = false
	if st, err := s.Resolve(k, nil, 0.005, off); err != nil || st.CCDHits != 0 {
		t.Errorf("disabled: %+v, %v", st, err)
	}
}

// TestTangleCheckFind: on two sheets that cross, Find reports for every
// face of a set that crosses the cloth its lowest-numbered crossing face,
// as the test's brute force finds them, stops at the limit, and skips
// free and out-of-range slots in the set.
func TestTangleCheckFind(t *testing.T) {
	a, c := crossingSheets(t)
	x, tris := c.X, c.Tris
	tri := func(f int) [3]geom.Vec3 { u := tris[f]; return [3]geom.Vec3{x[u[0]], x[u[1]], x[u[2]]} }
	var set []int32
	want := map[int32]int32{} // face of the set → its lowest crossing face
	for f := 0; f < len(tris); f += 2 {
		set = append(set, int32(f))
		for g := range tris {
			u := tris[g]
			if g == f || has(u, tris[f][0]) || has(u, tris[f][1]) || has(u, tris[f][2]) {
				continue
			}
			if triTri(tri(f), tri(g)) {
				want[int32(f)] = int32(g)
				break
			}
		}
	}
	if len(want) < 4 {
		t.Fatalf("only %d faces of the set cross: the test does not test", len(want))
	}
	set = append(set, -1, int32(len(tris)+5))
	var tc TangleCheck
	got := tc.Find(x, tris, set, len(tris))
	if len(got) != len(want) {
		t.Errorf("Find gave %d pairs, brute force %d", len(got), len(want))
	}
	for _, pr := range got {
		if g, ok := want[pr[0]]; !ok || g != pr[1] {
			t.Errorf("pair %v: brute force gives %v (%v)", pr, g, ok)
		}
	}
	if got := tc.Find(x, tris, set, 3); len(got) != 3 {
		t.Errorf("limit 3: %d pairs", len(got))
	}
	if got := tc.Find(a.X, a.Tris, []int32{0, 1, 2}, 10); got != nil {
		t.Errorf("flat sheet: %v", got)
	}
}

// TestTangleCheckFindBody: FindBody reports for every face of a set that
// crosses a body (a separate surface) its lowest-numbered crossing body
// face, as the test's brute force finds them, and finds a crossing with
// a body face far larger than the set (looked up only over the set's
// box).
func TestTangleCheckFindBody(t *testing.T) {
	a := sheet(t, 0.5, 6, 0, 0, 0.1, geom.Vec3{})
	b := sheet(t, 0.5, 6, 0, 0, 0.1, geom.Vec3{})
	for i := range b.X {
		y := b.X[i].Y
		b.X[i].Y, b.X[i].Z = 0.8*y, 0.1+0.6*y+0.013
	}
	tri := func(x []geom.Vec3, u [3]int32) [3]geom.Vec3 { return [3]geom.Vec3{x[u[0]], x[u[1]], x[u[2]]} }
	var set []int32
	want := map[int32]int32{}
	for f := range a.Tris {
		set = append(set, int32(f))
		for g, u := range b.Tris {
			if triTri(tri(a.X, a.Tris[f]), tri(b.X, u)) {
				want[int32(f)] = int32(g)
				break
			}
		}
	}
	if len(want) < 4 {
		t.Fatalf("only %d faces cross the body: the test does not test", len(want))
	}
	var tc TangleCheck
	got := tc.FindBody(a.X, a.Tris, set, b.X, b.Tris, len(a.Tris))
	if len(got) != len(want) {
		t.Errorf("FindBody gave %d pairs, brute force %d", len(got), len(want))
	}
	for _, pr := range got {
		if g, ok := want[pr[0]]; !ok || g != pr[1] {
			t.Errorf("pair %v: brute force gives %v (%v)", pr, g, ok)
		}
	}
	// One body face 200 m across, standing through the sheet's middle.
	big := []geom.Vec3{{X: -100, Y: 0.03, Z: -100}, {X: 100, Y: 0.03, Z: -100}, {X: 0, Y: 0.03, Z: 100}}
	if got := tc.FindBody(a.X, a.Tris, set, big, [][3]int32{{0, 1, 2}}, len(a.Tris)); len(got) == 0 {
		t.Error("a body face far larger than the sheet, through it: no pair")
	}
	if got := tc.FindBody(a.X, a.Tris, set, big, [][3]int32{{0, 2, 1}}, 2); len(got) != 2 {
		t.Errorf("limit 2: %d pairs", len(got))
	}
}
