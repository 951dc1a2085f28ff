package contact

import (
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

// This file tests the CCD narrow phase (ccd.go): times of impact of
// vertex–face and edge–edge motions against hand-computed values, random
// crossings against their analytic times, and motions kept apart by a slab
// (no false positives).

func v3(x, y, z float64) geom.Vec3 { return geom.Vec3{X: x, Y: y, Z: z} }

// TestVertexFaceCCD checks the time of impact of a table of vertex–face
// motions over the step against hand-computed values, including roots at
// t = 0 and t = 1, a grazing double root, coplanar motion and misses.
func TestVertexFaceCCD(t *testing.T) {
	a, b, c := v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0)
	z := geom.Vec3{}
	const delta = 1e-6
	for _, tc := range []struct {
		name       string
		p, dp      geom.Vec3
		da, db, dc geom.Vec3
		a, b, c    geom.Vec3
		hit        bool
		want       float64
	}{
		{name: "head-on", p: v3(0.2, 0.2, 1), dp: v3(0, 0, -2), hit: true, want: 0.5},
		{name: "beside", p: v3(2, 2, 1), dp: v3(0, 0, -2)},
		{name: "separated static", p: v3(0.2, 0.2, 0.5)},
		{name: "root at t=1", p: v3(0.2, 0.2, 1), dp: v3(0, 0, -1), hit: true, want: 1},
		{name: "stops short of t=1", p: v3(0.2, 0.2, 1), dp: v3(0, 0, -0.99)},
		{name: "root at t=0", p: v3(0.2, 0.2, 0), dp: v3(0, 0, -1), hit: true, want: 0},
		{name: "through an edge", p: v3(0.5, 0, 1), dp: v3(0, 0, -2), hit: true, want: 0.5},
		{name: "through a corner", p: v3(1, 0, -1), dp: v3(0, 0, 4), hit: true, want: 0.25},
		{name: "face moves onto vertex", p: v3(0.2, 0.2, 0), a: v3(0, 0, -0.5), b: v3(1, 0, -0.5), c: v3(0, 1, -0.5),
			da: v3(0, 0, 1), db: v3(0, 0, 1), dc: v3(0, 0, 1), hit: true, want: 0.5},
		{name: "both move, meet at 0.25", p: v3(0.2, 0.2, 1), dp: v3(0, 0, -2), a: v3(0, 0, -1), b: v3(1, 0, -1), c: v3(0, 1, -1),
			da: v3(0, 0, 6), db: v3(0, 0, 6), dc: v3(0, 0, 6), hit: true, want: 0.25},
		// Grazing: the face tilts about the x axis (c.z = −1 + 2t) while the
		// vertex (0.2, 0.1+0.2t, 0.4(t−½)) touches its plane at t = ½ only:
		// the cubic is −0.4(t−½)² times a constant, a double root.
		{name: "grazing double root", p: v3(0.2, 0.1, -0.2), dp: v3(0, 0.2, 0.4), c: v3(0, 1, -1), dc: v3(0, 0, 2), hit: true, want: 0.5},
		{name: "near-graze miss", p: v3(0.2, 0.1, -0.21), dp: v3(0, 0.2, 0.4), c: v3(0, 1, -1), dc: v3(0, 0, 2)},
		{name: "coplanar slide in", p: v3(2, 0.2, 0), dp: v3(-3, 0, 0), hit: true, want: 0.4},
		{name: "coplanar slide away", p: v3(2, 2, 0), dp: v3(1, 0, 0)},
		{name: "parallel to plane above", p: v3(-1, 0.2, 0.1), dp: v3(3, 0, 0)},
	} {
		ta, tb, tcc := a, b, c
		if tc.a != z || tc.b != z || tc.c != z {
			if tc.a != z || tc.b != z {
				ta, tb = tc.a, tc.b
			}
			if tc.c != z {
				tcc = tc.c
			}
		}
		got, hit := vertexFaceCCD(tc.p, tc.dp, ta, tc.da, tb, tc.db, tcc, tc.dc, delta, -1)
		if hit != tc.hit || hit && math.Abs(got-tc.want) > 1e-5 {
			t.Errorf("%s: got hit=%v t=%v, want hit=%v t=%v", tc.name, hit, got, tc.hit, tc.want)
		}
	}
}

// TestEdgeEdgeCCD is TestVertexFaceCCD for two edges, with parallel and
// coplanar cases.
func TestEdgeEdgeCCD(t *testing.T) {
	p0, p1 := v3(0, 0, 0), v3(1, 0, 0)
	const delta = 1e-6
	for _, tc := range []struct {
		name   string
		q0, q1 geom.Vec3
		dq     geom.Vec3
		dp1    geom.Vec3
		hit    bool
		want   float64
	}{
		{name: "crossing", q0: v3(0.5, -0.5, 1), q1: v3(0.5, 0.5, 1), dq: v3(0, 0, -2), hit: true, want: 0.5},
		{name: "beside", q0: v3(2, -0.5, 1), q1: v3(2, 0.5, 1), dq: v3(0, 0, -2)},
		{name: "separated static", q0: v3(0.5, -0.5, 0.1), q1: v3(0.5, 0.5, 0.1)},
		{name: "root at t=1", q0: v3(0.5, -0.5, 1), q1: v3(0.5, 0.5, 1), dq: v3(0, 0, -1), hit: true, want: 1},
		{name: "root at t=0", q0: v3(0.5, -0.5, 0), q1: v3(0.5, 0.5, 0), dq: v3(0, 0, -1), hit: true, want: 0},
		{name: "skew miss above end", q0: v3(1.5, -0.5, 1), q1: v3(1.5, 0.5, 1), dq: v3(0, 0, -2)},
		{name: "parallel overlapping", q0: v3(0.2, 0, 1), q1: v3(1.2, 0, 1), dq: v3(0, 0, -2), hit: true, want: 0.5},
		{name: "parallel disjoint", q0: v3(2, 0, 1), q1: v3(3, 0, 1), dq: v3(0, 0, -2)},
		{name: "parallel end to end", q0: v3(3, 0, 0), q1: v3(4, 0, 0), dq: v3(-4, 0, 0), hit: true, want: 0.5},
		{name: "coplanar end hits edge", q0: v3(0.5, 1, 0), q1: v3(0.5, 2, 0), dq: v3(0, -2, 0), hit: true, want: 0.5},
		{name: "coplanar moving apart", q0: v3(0.5, 1, 0), q1: v3(0.5, 2, 0), dq: v3(0, 2, 0)},
		// Edge A swings about p0 (p1 rises through z=0 at t=½) under a
		// static edge B at z=0.25: B crosses A's sweep where x·… meets it.
		{name: "rotating edge", q0: v3(0.5, -0.5, 0.25), q1: v3(0.5, 0.5, 0.25), dp1: v3(0, 0, 1), hit: true, want: 0.5},
	} {
		got, hit := edgeEdgeCCD(p0, geom.Vec3{}, p1, tc.dp1, tc.q0, tc.dq, tc.q1, tc.dq, delta, -1)
		if hit != tc.hit || hit && math.Abs(got-tc.want) > 1e-5 {
			t.Errorf("%s: got hit=%v t=%v, want hit=%v t=%v", tc.name, hit, got, tc.hit, tc.want)
		}
	}
}

// TestCCDRandom: a vertex crossing the plane of a static triangle inside it
// is found at the analytic time; primitives whose motions stay on two sides
// of a slab never hit (no false positives).
func TestCCDRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := func() float64 { return rng.Float64() }
	for i := 0; i < 2000; i++ {
		a, b, c := v3(r(), r(), 0), v3(r(), r(), 0), v3(r(), r(), 0)
		// A point inside the triangle, then a vertex path through it.
		u, w := r(), r()
		if u+w > 1 {
			u, w = 1-u, 1-w
		}
		q := a.Scale(1 - u - w).Add(b.Scale(u)).Add(c.Scale(w))
		tc := 0.05 + 0.9*r()
		dir := v3(r()-0.5, r()-0.5, -0.2-r())
		p := q.Sub(dir.Scale(tc))
		got, hit := vertexFaceCCD(p, dir, a, geom.Vec3{}, b, geom.Vec3{}, c, geom.Vec3{}, 1e-9, -1)
		if !hit || math.Abs(got-tc) > 1e-6 {
			t.Fatalf("case %d: got hit=%v t=%v, want %v", i, hit, got, tc)
		}
		// Separated: vertex and edge above z = 0.01, face and the other edge
		// below z = 0, both at the start and the end.
		up := func() geom.Vec3 { return v3(r(), r(), 0.01+r()) }
		dn := func() geom.Vec3 { return v3(r(), r(), -r()) }
		p0, p1, f0, f1, f2 := up(), up(), dn(), dn(), dn()
		g0, g1, g2 := dn(), dn(), dn()
		if _, hit := vertexFaceCCD(p0, p1.Sub(p0), f0, g0.Sub(f0), f1, g1.Sub(f1), f2, g2.Sub(f2), 1e-6, -1); hit {
			t.Fatalf("case %d: separated vertex–face reported a hit", i)
		}
		e0, e1, h0, h1 := up(), up(), up(), up()
		if _, hit := edgeEdgeCCD(e0, h0.Sub(e0), e1, h1.Sub(e1), f0, g0.Sub(f0), f1, g1.Sub(f1), 1e-6, -1); hit {
			t.Fatalf("case %d: separated edge–edge reported a hit", i)
		}
	}
}
