package obstacle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/contact"
	"drape/sim/geom"
)

// ring returns n points on the circle of radius r in the plane Y = y, at
// lathe's angles θ_j = 2πj/n.
func ring(n int, r, y float64) []geom.Vec3 {
	pos := make([]geom.Vec3, n)
	for j := range pos {
		s, c := math.Sincos(2 * math.Pi * float64(j) / float64(n))
		pos[j] = geom.Vec3{X: r * c, Y: y, Z: r * s}
	}
	return pos
}

// TestCapPolygon checks capPolygon's triangulation of a ring of n points:
// n − 2 triangles with no vertex but the ring's, each facing +Y (up) or
// −Y with positive area, covering the polygon's area exactly, and a
// prism of two rings joined by quads and closed by the two caps a closed
// 2-manifold (V − E + F = 2).
func TestCapPolygon(t *testing.T) {
	for _, n := range []int{3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 28, 36, 72, 100, 256} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			pos := append(ring(n, 1, 0), ring(n, 1, 1)...)
			polyArea := float64(n) / 2 * math.Sin(2*math.Pi/float64(n))
			var all [][3]int32
			for j := int32(0); j < int32(n); j++ { // the prism's sides
				k := (j + 1) % int32(n)
				all = append(all, [3]int32{j, k + int32(n), k}, [3]int32{j, j + int32(n), k + int32(n)})
			}
			for _, up := range []bool{false, true} {
				first := int32(0)
				if up {
					first = int32(n)
				}
				tris := capPolygon(nil, first, n, up)
				if len(tris) != n-2 {
					t.Fatalf("up=%v: got=%d triangles, want=%d", up, len(tris), n-2)
				}
				want := -1.0
				if up {
					want = 1
				}
				area := 0.0
				for _, tr := range tris {
					for _, v := range tr {
						if v < first || v >= first+int32(n) {
							t.Fatalf("up=%v: triangle %v: vertex out of the ring", up, tr)
						}
					}
					a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
					nrm := b.Sub(a).Cross(c.Sub(a))
					if !(nrm.Y*want > 0) {
						t.Fatalf("up=%v: triangle %v: normal %v, want %+g·Y", up, tr, nrm, want)
					}
					area += nrm.Norm() / 2
				}
				if math.Abs(area-polyArea) > 1e-12*polyArea {
					t.Errorf("up=%v: area got=%v, want=%v", up, area, polyArea)
				}
				all = append(all, tris...)
			}
			checkClosedOutward(t, pos, all)
		})
	}
}

// withFanCaps returns the surface of a cylinder obstacle (radius r, caps
// at Y = ±hh) with its flat caps cut as before capPolygon: a fan of n
// triangles from a centre vertex on each, for comparison.
func withFanCaps(o *Obstacle) ([]geom.Vec3, [][3]int32) {
	pos := append([]geom.Vec3(nil), o.LocalVertices()...)
	hh := o.height / 2
	// The caps' rings: the vertices of Y = ±hh nearest the axis, in
	// lathe's order of increasing angle.
	rmin := math.Inf(1)
	for _, p := range pos {
		rmin = math.Min(rmin, math.Hypot(p.X, p.Z))
	}
	inner := func(v int32) bool { return math.Hypot(pos[v].X, pos[v].Z) < rmin*(1+1e-9) }
	var tris [][3]int32
	for _, tr := range o.Tris() {
		if !inner(tr[0]) || !inner(tr[1]) || !inner(tr[2]) {
			tris = append(tris, tr)
		}
	}
	for _, y := range []float64{-hh, hh} {
		var rg []int32
		for i, p := range pos {
			if p.Y == y && inner(int32(i)) {
				rg = append(rg, int32(i))
			}
		}
		c := int32(len(pos))
		pos = append(pos, geom.Vec3{Y: y})
		for j := range rg {
			a, b := rg[j], rg[(j+1)%len(rg)]
			if y > 0 {
				tris = append(tris, [3]int32{a, c, b})
			} else {
				tris = append(tris, [3]int32{c, a, b})
			}
		}
	}
	return pos, tris
}

// capBoxes returns the mean number of top-cap triangles (all three
// vertices at Y = hh) whose axis-aligned boxes meet a cloth face's box:
// a right triangle with legs of edge along X and Z, grown by pad, at a
// random place over the cap (n samples, seeded).
func capBoxes(pos []geom.Vec3, tris [][3]int32, hh, r, edge, pad float64, n int) float64 {
	var lo, hi []geom.Vec3
	for _, tr := range tris {
		a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
		if a.Y != hh || b.Y != hh || c.Y != hh {
			continue
		}
		lo = append(lo, geom.Vec3{X: min(a.X, b.X, c.X), Z: min(a.Z, b.Z, c.Z)})
		hi = append(hi, geom.Vec3{X: max(a.X, b.X, c.X), Z: max(a.Z, b.Z, c.Z)})
	}
	rng := rand.New(rand.NewPCG(43, 3))
	total := 0
	for k := 0; k < n; k++ {
		var x, z float64
		for {
			x, z = r*(2*rng.Float64()-1), r*(2*rng.Float64()-1)
			if x*x+z*z < r*r {
				break
			}
		}
		qlo, qhi := geom.Vec3{X: x - pad, Z: z - pad}, geom.Vec3{X: x + edge + pad, Z: z + edge + pad}
		for i := range lo {
			if lo[i].X <= qhi.X && qlo.X <= hi[i].X && lo[i].Z <= qhi.Z && qlo.Z <= hi[i].Z {
				total++
			}
		}
	}
	return float64(total) / float64(n)
}

// TestCapBoxOverlap checks what capPolygon is for: a face of the
// tablecloth's sheet (3.3 cm edges, boxes grown by h/2 = 1.5 mm) resting
// anywhere on the table top (r = 0.5 m, 72 segments) meets the boxes of
// at most 3.5 cap triangles on average (3.24), and a third or fewer of
// what a centre fan gives (10.7).
func TestCapBoxOverlap(t *testing.T) {
	o := mustBuild(t, Spec{Kind: "cylinder", Radius: 0.5, Height: 0.04})
	hh, edge, pad := o.height/2, 1.6/48, 0.0015
	got := capBoxes(o.LocalVertices(), o.Tris(), hh, o.radius, edge, pad, 20000)
	fpos, ftris := withFanCaps(o)
	fan := capBoxes(fpos, ftris, hh, o.radius, edge, pad, 20000)
	t.Logf("cap triangles met per face box: %.2f (centre fan: %.2f)", got, fan)
	if got > 3.5 || fan < 3*got {
		t.Errorf("cap triangles met per face box: got=%.2f, want ≤ 3.5 and ≤ a third of the fan's %.2f", got, fan)
	}
}

// BenchmarkTableTopContact measures one collision phase (contact.Solver
// Resolve, self-collision off) of the tablecloth's sheet (48 × 48 quads,
// 1.6 m) lying flat 1.5 mm over the table top (radius 0.5 m, height
// 0.04 m), within the thickness h = 3 mm, falling at 0.1 m/s: with the
// cylinder's caps as capPolygon cuts them, and as a centre fan.
func BenchmarkTableTopContact(b *testing.B) {
	o := mustBuild(b, Spec{Kind: "cylinder", Radius: 0.5, Height: 0.04})
	m, err := geom.RegularGrid(1.6, 1.6, 48, 48)
	if err != nil {
		b.Fatal(err)
	}
	c := &contact.Cloth{Tris: m.Tris}
	for _, p := range m.Pos {
		c.X = append(c.X, geom.Vec3{X: p.X - 0.8, Y: o.height/2 + 0.0015, Z: p.Y - 0.8})
		c.V = append(c.V, geom.Vec3{Y: -0.1})
		c.InvMass = append(c.InvMass, 1/(0.2*1.6*1.6/float64(len(m.Pos))))
	}
	v0 := append([]geom.Vec3(nil), c.V...)
	p := contact.DefaultParams()
	p.SelfCollision = false
	fpos, ftris := withFanCaps(o)
	for _, tc := range []struct {
		name string
		pos  []geom.Vec3
		tris [][3]int32
	}{{"caps=halving", o.LocalVertices(), o.Tris()}, {"caps=fan", fpos, ftris}} {
		b.Run(fmt.Sprintf("%s/tris=%d", tc.name, len(tc.tris)), func(b *testing.B) {
			bodies := []contact.Body{{Tris: tc.tris, From: tc.pos, To: tc.pos, Static: true, Friction: 0.4}}
			s := contact.NewSolver()
			var st contact.Stats
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				copy(c.V, v0)
				st, err = s.Resolve(c, bodies, 0.005, p)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Proximity), "pairs")
		})
	}
}
