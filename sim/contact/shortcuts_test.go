package contact

import (
	"math"
	"slices"
	"testing"

	"drape/sim/geom"
)

// This file tests that the bounds that must change no result change none
// (whole runs to the bit with Solver.testNoBounds), and some invariants
// of the cluster hierarchy, the mean edge, and a round body's distances
// kept for one call.

// foldingBook is TestFoldOver's sheet: its wavy right half turns at 12
// rad/s about the y axis from 150° onto the left half.
func foldingBook(t *testing.T) *Cloth {
	return book(t, 0.6, 14, func(x, y float64) float64 { return 0.01 * math.Sin(13*y) * math.Cos(9*x) })
}

// book returns a w × w m sheet of 2·n² triangles at z = 0.2, its heights
// raised by wave(x, y), folded along x = 0 like a book: its right half
// turned by 150° about the y axis and turning at 12 rad/s onto the left
// half.
func book(t *testing.T, w float64, n int, wave func(x, y float64) float64) *Cloth {
	c := sheet(t, w, n, 0, 0, 0.2, geom.Vec3{})
	const omega = 12.0
	th := 150 * math.Pi / 180
	for i, x := range c.X {
		wv := wave(x.X, x.Y)
		if x.X <= 1e-9 {
			c.X[i].Z += wv
			continue
		}
		// Rotate by th about the y axis through the origin (x = 0, z = 0.2).
		rx, rz := x.X*math.Cos(th), x.X*math.Sin(th)
		c.X[i] = geom.Vec3{X: rx, Y: x.Y, Z: 0.2 + rz + wv}
		// Velocity of the rotation closing the book: ω × r, about −y.
		c.V[i] = geom.Vec3{X: omega * rz, Z: -omega * rx}.Scale(-1)
	}
	return c
}

// TestShortcutsChangeNothing runs three scenes with and without the
// shortcuts that Solver.testNoBounds turns off — the culler's motion
// bounds in the CCD passes (a patch pair's candidate pairs ruled out
// together, candGroup; a pair by its patches' motion, patchFar; by its
// vertices', pairFar), the proximity pass keeping neighbouring faces
// with their star's bound untested (starBound), and taking a round
// body's distances to the faces from the proximity pass — the
// certificates culling in both, and requires the
// same positions to the bit at every step. The scenes, 60 steps each:
// the book of TestFoldOver closing (self-collision, CCD hits), a wavy
// sheet dropped onto a sphere at 3 m/s and pressed into it, and a
// crumpled sheet squeezed further (crumpled: stars on both sides of h).
// It fails when a group's bound is not the least of its pairs' (the
// largest, say: pairs that collide are skipped), and when a star's bound
// exceeds its faces' distances (1.5 or three times β: near neighbours
// within h go untested); distances kept from an earlier call are
// TestRoundDistanceOfThisCall's.
func TestShortcutsChangeNothing(t *testing.T) {
	ball := Body{Radius: 0.25, Core: [2]geom.Vec3{{Z: -0.3}, {Z: -0.3}}, CoreTo: [2]geom.Vec3{{Z: -0.3}, {Z: -0.3}}, Friction: 0.3}
	scenes := []struct {
		name   string
		cloth  func() *Cloth
		bodies []Body
		g      geom.Vec3
		stars  bool // the scene is there for the star bounds, not for CCD hits
	}{
		{"book", func() *Cloth { return foldingBook(t) }, nil, geom.Vec3{}, false},
		{"sphere", func() *Cloth {
			c := sheet(t, 0.8, 16, 0, 0, 0.02, geom.Vec3{Z: -3})
			for i, x := range c.X {
				c.X[i].Z += 0.02 * math.Sin(11*x.X) * math.Cos(7*x.Y)
			}
			return c
		}, []Body{ball}, geom.Vec3{Z: -9.81}, false},
		{"crumple", func() *Cloth { return crumpled(t) }, nil, geom.Vec3{}, true},
	}
	for _, sc := range scenes {
		var runs [2][][]geom.Vec3
		var hits, skipped, prox, above, below int
		for r, off := range []bool{false, true} {
			c := sc.cloth()
			s := NewSolver()
			s.testNoBounds = off
			p := DefaultParams()
			for step := 0; step < 60; step++ {
				st, err := stepExplicit(s, c, sc.bodies, 0.005, sc.g, p)
				if err != nil {
					t.Fatalf("%s, shortcuts off %v, step %d: %v", sc.name, off, step, err)
				}
				runs[r] = append(runs[r], slices.Clone(c.X))
				if !off {
					hits += st.CCDHits
					skipped += s.groupsFar()
					prox += st.SelfProximity
					a, b := s.starsOfCall()
					above, below = above+a, below+b
				}
			}
		}
		for step := range runs[0] {
			if !slices.Equal(runs[0][step], runs[1][step]) {
				t.Fatalf("%s: the positions differ at step %d", sc.name, step)
			}
		}
		t.Logf("%s: %d CCD hits, %d candidate groups that patchesFar rules out with the velocities at the end of each call, %d self-proximity pairs, %d stars measured with β ≥ h and %d with 0 < β < h",
			sc.name, hits, skipped, prox, above, below)
		switch {
		case !sc.stars && hits == 0:
			t.Errorf("%s: no CCD hit: the comparison checks nothing", sc.name)
		case sc.stars && (prox == 0 || above == 0 || below == 0):
			t.Errorf("%s: no self-proximity pair or no star on either side of h: the comparison checks nothing", sc.name)
		}
	}
}

// crumpled is a 0.2 m sheet of 7 mm edges squeezed to half its width
// into folds 2.5 mm high every 11 mm, its sides closing at 0.3 m/s: faces
// tilted up to 55°, neighbours across the folds' crests within h and
// stars whose bound straddles it.
func crumpled(t *testing.T) *Cloth {
	m, err := geom.RegularGrid(0.2, 0.2, 28, 28)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cloth{Tris: m.Tris}
	for _, p := range m.Pos {
		x := 0.5 * (p.X - 0.1)
		c.X = append(c.X, geom.Vec3{X: x, Y: p.Y - 0.1, Z: 0.0025 * math.Sin(2*math.Pi*x/0.011)})
		c.V = append(c.V, geom.Vec3{X: -3 * x})
		c.InvMass = append(c.InvMass, 1/(0.1*0.04/float64(len(m.Pos))))
	}
	return c
}

// starsOfCall counts the stars starBound measured in the last call with
// β ≥ h and with 0 < β < h.
func (s *Solver) starsOfCall() (above, below int) {
	stamp := starStamp(s.calls)
	for _, m := range s.cull.starMemo {
		if m&^0xffffffff != stamp {
			continue
		}
		switch b := starBeta(m); {
		case b >= s.p.Thickness:
			above++
		case b > 0:
			below++
		}
	}
	return above, below
}

// groupsFar counts the candidate groups of the last call that patchesFar
// rules out with the current velocities.
func (s *Solver) groupsFar() int {
	n := 0
	for l := range s.candGroups {
		for _, gr := range s.candGroups[l] {
			if s.cull.patchesFar(gr.p, gr.q, gr.d) {
				n++
			}
		}
	}
	return n
}

// TestClusterKids: each cluster's list of children (kids, which
// childrenSafe reads) holds exactly the clusters of the level below that
// its faces belong to, each once and in order, on the book of
// TestFoldOver.
func TestClusterKids(t *testing.T) {
	c := foldingBook(t)
	s := kernelSolver(c, nil, DefaultParams())
	if len(s.cull.ps.levels) < 3 {
		t.Fatalf("%d levels: the test checks too little", len(s.cull.ps.levels))
	}
	for lv := 1; lv < len(s.cull.ps.levels); lv++ {
		L, below := &s.cull.ps.levels[lv], &s.cull.ps.levels[lv-1]
		for id := 0; id+1 < len(L.start); id++ {
			var want []int32
			for _, f := range L.faces[L.start[id]:L.start[id+1]] {
				want = append(want, below.label[f])
			}
			slices.Sort(want)
			want = slices.Compact(want)
			if got := L.kids[L.kidStart[id]:L.kidStart[id+1]]; !slices.Equal(got, want) {
				t.Fatalf("level %d, cluster %d: kids %v, its faces' clusters %v", lv, id, got, want)
			}
		}
	}
}

// TestMeanEdgeSerialSum: meanEdge, whose lengths are taken on all cores,
// adds them in face order, as one core would, to the bit, on a wavy sheet.
func TestMeanEdgeSerialSum(t *testing.T) {
	c := foldingBook(t)
	s := kernelSolver(c, nil, DefaultParams())
	sum, n := 0.0, 0
	for f, tr := range c.Tris {
		for k := 0; k < 3; k++ {
			if s.owner[f]&(1<<(3+k)) != 0 {
				sum += c.X[tr[k]].Sub(c.X[tr[(k+1)%3]]).Norm()
				n++
			}
		}
	}
	if got, want := s.meanEdge(), sum/float64(n); got != want {
		t.Errorf("meanEdge %.17g, the serial sum %.17g", got, want)
	}
}

// TestRoundDistanceOfThisCall: the distances to a round body that the
// proximity pass keeps for the CCD passes must be this call's. One large
// triangle (0.45 m) and a 5 cm sphere: in the first call the triangle lies
// in a corner of the sphere's box, 28 mm from the sphere, and the
// proximity pass measures it. In the second it hovers 12 mm over the
// sphere's top at rest, out of the proximity pass's reach, and is then
// given 4 m/s down between the stages (as strain limiting does):
// 20 mm in the step, so that the sphere would poke through its middle
// (its vertices are far from the sphere: only the face test can stop it).
// Read from the first call, 28 mm would rule the motion out; the triangle
// must stay outside the sphere.
func TestRoundDistanceOfThisCall(t *testing.T) {
	const r = 0.05
	ball := []Body{{Radius: r, Core: [2]geom.Vec3{{}, {}}, CoreTo: [2]geom.Vec3{{}, {}}}}
	const a = 0.045
	c := &Cloth{
		X:       []geom.Vec3{{X: a, Y: a, Z: a}, {X: 0.5, Y: a, Z: a}, {X: a, Y: 0.5, Z: a}},
		V:       make([]geom.Vec3, 3),
		InvMass: []float64{100, 100, 100},
		Tris:    [][3]int32{{0, 1, 2}},
	}
	s := NewSolver()
	p := DefaultParams()
	const dt = 0.005
	if _, err := s.Resolve(c, ball, dt, p); err != nil {
		t.Fatal(err)
	}
	if d := s.bodies[0].faceD0[0]; math.Abs(d-0.028) > 0.001 {
		t.Fatalf("first call: the face's distance %.4g m, not the 28 mm the test means", d)
	}
	const z = r + 0.012
	c.X = []geom.Vec3{{X: -0.25, Y: -0.25, Z: z}, {X: 0.25, Y: -0.25, Z: z}, {X: 0, Y: 0.3, Z: z}}
	if err := s.Begin(c, ball, dt, p); err != nil {
		t.Fatal(err)
	}
	s.Proximity()
	prox := s.bodies[0].faceD0Call[0] // the call the face's distance was from, after the proximity pass
	s.Mark()
	for i := range c.V {
		c.V[i] = geom.Vec3{Z: -4}
	}
	s.Changed()
	if _, err := s.End(s.Continuous()); err != nil {
		t.Fatal(err)
	}
	if prox == s.calls {
		t.Fatal("second call: the proximity pass measured the face: the test checks nothing")
	}
	for i := range c.X {
		c.X[i] = c.X[i].Add(c.V[i].Scale(dt))
	}
	_, _, w := segmentTriangle(geom.Vec3{}, geom.Vec3{}, c.X[0], c.X[1], c.X[2])
	q := c.X[0].Scale(w[0]).Add(c.X[1].Scale(w[1])).Add(c.X[2].Scale(w[2]))
	if d := q.Norm(); d < r {
		t.Errorf("the sphere pokes %.2f mm through the triangle", 1e3*(r-d))
	}
}
