package contact

import (
	"math"
	"testing"

	"drape/sim/geom"
)

// This file tests the regions a contour encloses (untangle_regions.go).

// poked returns a 1 m sheet of 12 × 12 squares (lower) with its middle
// vertex raised to 6 cm and its neighbours to ring, through coarse flat
// sheets (2 × 2 squares, offset so that no vertex lies on an edge) at
// the heights zs; the joined cloth, the lower sheet's middle vertex and
// the joined cloth's adjacency.
func poked(t *testing.T, ring float64, zs ...float64) (c *Cloth, mid int32, adj [][3]int32) {
	t.Helper()
	c = sheet(t, 1, 12, 0, 0, 0, geom.Vec3{})
	// The middle vertex: of those within 0.1 m of the centre, the one with
	// the fewest faces (the grid's diagonals alternate: 4 or 8), so that
	// the contours cross few faces.
	valence := make([]int, len(c.X))
	for _, tr := range c.Tris {
		for _, v := range tr {
			valence[v]++
		}
	}
	mid = -1
	for i, p := range c.X {
		if math.Hypot(p.X, p.Y) < 0.1 && (mid < 0 || valence[i] < valence[mid]) {
			mid = int32(i)
		}
	}
	c.X[mid].Z = 0.06
	for _, tr := range c.Tris {
		for k, v := range tr {
			if v == mid {
				c.X[tr[(k+1)%3]].Z, c.X[tr[(k+2)%3]].Z = ring, ring
			}
		}
	}
	for i, z := range zs {
		c = join(c, sheet(t, 1, 1, 0.26+0.011*float64(i), -0.2+0.017*float64(i), z, geom.Vec3{}))
	}
	m, err := geom.NewSurfaceMesh(c.X, c.Tris)
	if err != nil {
		t.Fatal(err)
	}
	return c, mid, m.Adj
}

// regionPush returns what the regions add to the gradient of Find: the
// gradient with adj less the gradient without it.
func regionPush(c *Cloth, adj [][3]int32) ([]geom.Vec3, *Untangler) {
	var plain Untangler
	plain.Find(c.X, c.Tris)
	g := append([]geom.Vec3(nil), plain.Gradient()...)
	u := &Untangler{Adj: adj}
	u.Find(c.X, c.Tris)
	for v := range g {
		g[v] = u.Gradient()[v].Sub(g[v])
	}
	return g, u
}

// TestUntanglerRegions: a vertex poked through a sheet 2 cm above it is
// a region its contour encloses, pushed back down and flagged to pass
// through; the vertices outside it get no push. Without the adjacency,
// or where two sheets cross along a line from boundary to boundary,
// nothing is enclosed.
func TestUntanglerRegions(t *testing.T) {
	c, mid, adj := poked(t, 0, 0.02)
	push, u := regionPush(c, adj)
	t.Logf("%d pairs, %d enclosed regions; the poked vertex's push %v", len(u.Pairs()), u.Enclosed(), push[mid])
	if u.Enclosed() != 1 {
		t.Fatalf("Enclosed() = %d, want 1 (the poked vertex)", u.Enclosed())
	}
	if !(push[mid].Z < -0.9) {
		t.Errorf("the poked vertex's push %v, want down", push[mid])
	}
	for v, p := range push {
		if int32(v) != mid && p != (geom.Vec3{}) {
			t.Errorf("vertex %d outside the region pushed by %v", v, p)
		}
	}
	for f, tr := range c.Tris {
		if (tr[0] == mid || tr[1] == mid || tr[2] == mid) && u.Faces()[f] != Crossing {
			t.Errorf("face %d round the poked vertex flagged %d, want Crossing", f, u.Faces()[f])
		}
	}

	// Without the adjacency: no region.
	u.Adj = nil
	u.Find(c.X, c.Tris)
	if u.Enclosed() != 0 {
		t.Errorf("without Adj: Enclosed() = %d, want 0", u.Enclosed())
	}

	// A tilted sheet through a flat one, along a line from edge to edge:
	// both sides of the cut reach the boundary.
	lo := sheet(t, 1, 12, 0, 0, 0, geom.Vec3{})
	for i, p := range lo.X {
		lo.X[i].Z = 0.2 * p.X
	}
	tc := join(lo, sheet(t, 1, 2, 0.013, 0.007, 0.02, geom.Vec3{}))
	m, err := geom.NewSurfaceMesh(tc.X, tc.Tris)
	if err != nil {
		t.Fatal(err)
	}
	u.Adj = m.Adj
	if u.Find(tc.X, tc.Tris) == 0 {
		t.Fatal("the tilted sheet does not cross the flat one")
	}
	if u.Enclosed() != 0 {
		t.Errorf("sheets crossing from boundary to boundary: Enclosed() = %d, want 0", u.Enclosed())
	}
}

// TestUntanglerNestedRegions: a vertex raised through two sheets, 2 and
// 4.5 cm above the foot, with its neighbours (the ring) raised between them, makes
// two contours and nested regions: the ring of neighbours, wrong only
// for the lower sheet, and the vertex, above both. The ring goes down,
// by the edges that lead out of it to the foot; the edges between the
// ring and the vertex say nothing (the vertex is on the wrong side too),
// and the vertex gets no push of its own.
func TestUntanglerNestedRegions(t *testing.T) {
	c, mid, adj := poked(t, 0.03, 0.02, 0.045)
	push, u := regionPush(c, adj)
	t.Logf("%d pairs, %d enclosed regions", len(u.Pairs()), u.Enclosed())
	ring := 0
	for v, p := range c.X {
		if p.Z == 0.03 {
			ring++
			if !(push[v].Z < -0.5) {
				t.Errorf("ring vertex %d: push %v, want down", v, push[v])
			}
		}
	}
	if ring == 0 {
		t.Fatal("no ring vertex")
	}
	if push[mid] != (geom.Vec3{}) {
		t.Errorf("the raised vertex, above both sheets, pushed by %v; want nothing", push[mid])
	}
}

// TestPokeUntanglesByRegions: steps along the contour gradient with the
// enclosed regions pushed free the poke of TestUntanglerRegions, with
// the poked vertex under the sheet, in fewer steps than the gradient
// alone.
func TestPokeUntanglesByRegions(t *testing.T) {
	c, mid, adj := poked(t, 0.06, 0.02)
	x := append([]geom.Vec3(nil), c.X...)
	alone := descend(x, c.Tris, 0.002, 1000)
	nAlone := IntersectingPairs(x, c.Tris)
	x = append(x[:0], c.X...)
	both := descendRegions(x, c.Tris, adj, 0.002, 1000)
	n := IntersectingPairs(x, c.Tris)
	t.Logf("steps of 2 mm to no crossing: gradient alone %d (%d pairs left), with regions %d (%d left); poked vertex at z=%.4f", alone, nAlone, both, n, x[mid].Z)
	if n != 0 {
		t.Fatalf("with regions: still %d crossing pairs", n)
	}
	cc := *c
	cc.X = x
	if above := upperZ(&cc, len(c.Tris)-2, x[mid]); !(x[mid].Z < above) {
		t.Errorf("the poked vertex ended at z=%.4f, above the sheet (%.4f): untangled to the wrong side", x[mid].Z, above)
	}
	if !(both < alone) {
		t.Errorf("with regions %d steps, gradient alone %d: want fewer", both, alone)
	}
}
