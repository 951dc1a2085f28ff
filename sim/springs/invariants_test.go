package springs

import (
	"math"
	"math/rand"
	"testing"

	"drape/sim/geom"
)

// checkInvariants verifies the grid and the surface of c:
//   - slot ↔ ID consistency, types, parents of interpolated particles;
//   - every interpolated particle massless, and every other particle keeps
//     at least the lumped mass its slot would have in a uniform grid of the
//     deepest layer (the funding budget of subdivide: no mass runs out);
//   - every active or fixed particle of layer l has all its 8 neighbours at
//     spacing 2^(m−l) that lie inside the grid (§4.1);
//   - if flat (positions = rest, a planar sheet), the surface triangles tile
//     the sheet: their areas sum to its area and every edge is shared by two
//     triangles except the edges on the sheet's boundary (no cracks at
//     T-junctions, no overlaps).
func checkInvariants(t *testing.T, c *Cloth, flat bool) {
	t.Helper()
	for k, id := range c.slot {
		if id >= 0 && (int(c.gj[id])*c.w+int(c.gi[id]) != k) {
			t.Fatalf("slot %d holds %d whose slot is (%d, %d)", k, id, c.gi[id], c.gj[id])
		}
	}
	for id := range c.pos {
		if c.at(c.gi[id], c.gj[id]) != int32(id) {
			t.Fatalf("particle %d not in its slot", id)
		}
		switch c.typ[id] {
		case Interpolated:
			if c.mass[id] != 0 || c.par[id][0] < 0 || c.par[id][0] >= int32(id) || c.par[id][1] >= int32(id) {
				t.Fatalf("interpolated %d: mass %g parents %v", id, c.mass[id], c.par[id])
			}
		default:
			if floor := c.slotMass(c.gi[id], c.gj[id], uint8(c.m)); !(c.mass[id] >= (1-1e-9)*floor) {
				t.Fatalf("particle %d (type %d, layer %d) has mass %g < %g", id, c.typ[id], c.layer[id], c.mass[id], floor)
			}
			s := c.spacing(c.layer[id])
			for a := int32(-1); a <= 1; a++ {
				for b := int32(-1); b <= 1; b++ {
					i, j := c.gi[id]+a*s, c.gj[id]+b*s
					if c.inGrid(i, j) && c.at(i, j) < 0 {
						t.Fatalf("particle %d layer %d misses its neighbour at (%d, %d)", id, c.layer[id], i, j)
					}
				}
			}
		}
	}
	if !flat {
		return
	}
	var srf Surface
	c.Surface(&srf)
	var area float64
	edges := map[[2]int32]int{}
	for _, tr := range srf.Tris {
		a := geom.TriangleArea(srf.Pos[tr[0]], srf.Pos[tr[1]], srf.Pos[tr[2]])
		if !(a > 0) {
			t.Fatalf("degenerate triangle %v", tr)
		}
		area += a
		for e := range 3 {
			u, v := tr[e], tr[(e+1)%3]
			edges[[2]int32{min(u, v), max(u, v)}]++
		}
	}
	want := c.spec.U.Cross(c.spec.V).Norm()
	if math.Abs(area-want) > 1e-9*want {
		t.Fatalf("surface area %.12g, want %.12g", area, want)
	}
	for e, n := range edges {
		onBoundary := func(id int32) bool {
			if id < 0 || srf.ID[id] < 0 {
				return false
			}
			q := srf.ID[id]
			return c.gi[q] == 0 || c.gj[q] == 0 || int(c.gi[q]) == c.w-1 || int(c.gj[q]) == c.h-1
		}
		bnd := onBoundary(e[0]) && onBoundary(e[1]) && (c.gi[srf.ID[e[0]]] == c.gi[srf.ID[e[1]]] || c.gj[srf.ID[e[0]]] == c.gj[srf.ID[e[1]]])
		if bnd && n != 1 || !bnd && n != 2 {
			t.Fatalf("edge %v is shared by %d triangles (boundary %v)", e, n, bnd)
		}
	}
}

// TestRandomSubdivisions: 300 subdivisions at random particles, up to layer
// 5 (the dense grid doubles five times), keep the invariants of
// checkInvariants, and each leaves the total mass, the centre of mass and
// the momentum unchanged to round-off. Run on the flat sheet at rest (the
// surface check) and on a moving, deformed one.
func TestRandomSubdivisions(t *testing.T) {
	for _, moving := range []bool{false, true} {
		p := DefaultParams()
		p.MaxLayer = 5
		s := flatSheet(5, 1)
		s.Fixed = [][2]int{{0, 0}, {4, 0}}
		c, err := New(s, p)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewSource(4))
		done, want := 0, 300
		if testing.Short() {
			want = 60
		}
		for k := 0; k < 3000 && done < want; k++ {
			if moving && k%10 == 0 {
				for range 3 {
					if err := c.Step(); err != nil {
						t.Fatal(err)
					}
				}
			}
			id := rng.Intn(len(c.pos))
			c.interpolate()
			m0, x0 := c.Mass()
			q0 := c.Momentum()
			if !c.Subdivide(id) {
				continue
			}
			done++
			m1, x1 := c.Mass()
			if math.Abs(m1-m0) > 1e-13*m0 || x1.Sub(x0).Norm() > 1e-14 || c.Momentum().Sub(q0).Norm() > 1e-15*(1+q0.Norm()) {
				t.Fatalf("subdivision %d of %d: mass %.17g → %.17g, centre %v → %v, momentum %v → %v", done, id, m0, m1, x0, x1, q0, c.Momentum())
			}
			checkInvariants(t, c, !moving)
		}
		n := c.Counts()
		t.Logf("moving=%v: %d subdivisions, %+v, grid %d×%d", moving, done, n, c.w, c.h)
		if done < want || n.Depth < 3 {
			t.Errorf("only %d subdivisions, depth %d", done, n.Depth)
		}
	}
}

// TestUniformLumpedMasses: uniform subdivision of an n×n grid to layer l ends
// with exactly the lumped masses of a native grid with (n−1)·2^l+1 particles
// a side (see subdivide).
func TestUniformLumpedMasses(t *testing.T) {
	p := DefaultParams()
	p.MaxLayer = 3
	c, _ := New(flatSheet(4, 1), p)
	c.SubdivideUniform(3)
	nat, _ := New(flatSheet(25, 1), p)
	for id := range c.pos {
		q := nat.at(c.gi[id], c.gj[id])
		if math.Abs(c.mass[id]-nat.mass[q]) > 1e-15 {
			t.Fatalf("particle %d at (%d, %d): mass %g, native %g", id, c.gi[id], c.gj[id], c.mass[id], nat.mass[q])
		}
	}
}

// TestUniformMatchesNative: an n×n sheet uniformly subdivided to layer 1
// moves like a native (2n−1)×(2n−1) sheet with the constants ×2 and the
// step Δt/2: after 1 s of hanging from two corners the positions agree to
// 1e−9 m (they differ only by the order of floating-point sums; Provot's
// correction is off because its Gauss–Seidel order follows particle IDs).
func TestUniformMatchesNative(t *testing.T) {
	p := DefaultParams()
	p.Correction = 0
	p.MaxLayer = 1
	s := Spec{NX: 5, NY: 5, Origin: geom.Vec3{Y: 1}, U: geom.Vec3{X: 1}, V: geom.Vec3{Z: 1}, Fixed: [][2]int{{0, 0}, {4, 0}}, Variant: UniformSubdivision}
	c, err := New(s, p)
	if err != nil {
		t.Fatal(err)
	}
	q := p
	q.KStructural *= 2
	q.KShear *= 2
	q.KBend *= 2
	q.Dt /= 2
	ns := Spec{NX: 9, NY: 9, Origin: s.Origin, U: s.U, V: s.V, Fixed: [][2]int{{0, 0}, {8, 0}}}
	nat, err := New(ns, q)
	if err != nil {
		t.Fatal(err)
	}
	for c.Time() < 1-1e-9 {
		if err := c.Step(); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := nat.Step(); err != nil {
				t.Fatal(err)
			}
		}
	}
	var worst, moved float64
	for id := range c.pos {
		d := c.pos[id].Sub(nat.pos[nat.at(c.gi[id], c.gj[id])]).Norm()
		worst = max(worst, d)
		moved = max(moved, c.pos[id].Sub(c.rest[id]).Norm())
	}
	t.Logf("largest difference %.3g m (largest displacement %.3g m)", worst, moved)
	if worst > 1e-9 || moved < 0.1 {
		t.Errorf("largest difference %.3g m, want ≤ 1e-9 (moved %.3g m)", worst, moved)
	}
}
