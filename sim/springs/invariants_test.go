package springs

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"drape/sim/geom"
)

// checkInvariants verifies the grid, the lists, the springs and the
// surface of c:
//   - slot ↔ ID consistency; free IDs (None) have no slot and no mass and
//     are exactly those of the free list;
//   - the structure coarsen relies on (R1–R5 in coarsen.go): a particle's
//     layer is at least its slot's birth layer; an active or fixed particle
//     has its 8 neighbours at its spacing (R1), a subdivided one its
//     neighbours at each spacing from its birth layer to its layer as
//     active or fixed particles (R2) and one of birth L ≥ 1 a justifying
//     neighbour (R4); an interpolated particle has layer = birth layer, is
//     massless, sits midway between its two parents on its one odd axis,
//     which are active or fixed (R3), and is seen (R5);
//   - every active or fixed particle keeps at least the lumped mass its slot
//     would have in a uniform grid of the deepest layer (the funding budget
//     of subdivide: no mass runs out);
//   - the per-layer lists hold every active particle once and the
//     interpolated ones with parents first;
//   - springs: one spring for every pair of live particles one of which
//     sees the other at its spacing (and no other), unless neither end
//     moves, with the rest length of the rest positions;
//   - if flat (positions = rest, a planar sheet), the surface triangles tile
//     the sheet: their areas sum to its area and every edge is shared by two
//     triangles except the edges on the sheet's boundary (no cracks at
//     T-junctions, no overlaps).
func checkInvariants(t *testing.T, c *Cloth, flat bool) {
	t.Helper()
	for k, id := range c.slot {
		if id >= 0 && (c.typ[id] == None || int(c.gj[id])*c.w+int(c.gi[id]) != k) {
			t.Fatalf("slot %d holds %d (type %d) whose slot is (%d, %d)", k, id, c.typ[id], c.gi[id], c.gj[id])
		}
	}
	if len(c.slot) != c.w*c.h || (c.w-1)%(c.spec.NX-1) != 0 || (c.w-1)/(c.spec.NX-1) != 1<<c.m {
		t.Fatalf("dense grid %d×%d (%d slots) for depth %d", c.w, c.h, len(c.slot), c.m)
	}
	free := map[int32]bool{}
	for _, id := range c.free {
		if c.typ[id] != None || free[id] {
			t.Fatalf("free list %v: %d has type %d or repeats", c.free, id, c.typ[id])
		}
		free[id] = true
	}
	seenAt := func(q int32, s int32) bool { // an active or fixed particle s slots away sees q
		for _, o := range around {
			r := c.at(c.gi[q]+o[0]*s, c.gj[q]+o[1]*s)
			if r >= 0 && c.massive(r) && c.spacing(c.layer[r]) == s {
				return true
			}
		}
		return false
	}
	for id := range c.pos {
		q := int32(id)
		if c.typ[q] == None {
			if !free[q] || c.mass[q] != 0 {
				t.Fatalf("free ID %d: in free list %v, mass %g", q, free[q], c.mass[q])
			}
			continue
		}
		if free[q] {
			t.Fatalf("particle %d (type %d) is in the free list", q, c.typ[q])
		}
		if c.at(c.gi[q], c.gj[q]) != q {
			t.Fatalf("particle %d not in its slot", q)
		}
		b, L := c.birth(q), c.layer[q]
		if L < b {
			t.Fatalf("particle %d: layer %d below its birth layer %d", q, L, b)
		}
		switch c.typ[q] {
		case Interpolated:
			d := c.spacing(L)
			oi, oj := c.gi[q]/d%2 != 0, c.gj[q]/d%2 != 0
			var pa, pb int32
			if oi && !oj {
				pa, pb = c.at(c.gi[q]-d, c.gj[q]), c.at(c.gi[q]+d, c.gj[q])
			} else if oj && !oi {
				pa, pb = c.at(c.gi[q], c.gj[q]-d), c.at(c.gi[q], c.gj[q]+d)
			}
			par := c.par[q]
			if c.mass[q] != 0 || L != b || b == 0 || pa < 0 || pb < 0 || !c.massive(pa) || !c.massive(pb) ||
				!(par == [2]int32{pa, pb} || par == [2]int32{pb, pa}) {
				t.Fatalf("interpolated %d (layer %d, birth %d): mass %g parents %v, want %d and %d, active or fixed (R3)", q, L, b, c.mass[q], par, pa, pb)
			}
			if !seenAt(q, d) {
				t.Fatalf("interpolated %d (layer %d) is seen by no particle (R5)", q, L)
			}
		default:
			if floor := c.slotMass(c.gi[q], c.gj[q], uint8(c.m)); !(c.mass[q] >= (1-1e-9)*floor) {
				t.Fatalf("particle %d (type %d, layer %d) has mass %g < %g", q, c.typ[q], L, c.mass[q], floor)
			}
			for k := b; k <= L; k++ {
				s := c.spacing(k)
				for _, o := range around {
					i, j := c.gi[q]+o[0]*s, c.gj[q]+o[1]*s
					if !c.inGrid(i, j) {
						continue
					}
					r := c.at(i, j)
					if r < 0 || k < L && !c.massive(r) || k == L && L > b && !c.massive(r) {
						t.Fatalf("particle %d (layer %d, birth %d) has %d at (%d, %d), spacing %d (R1, R2)", q, L, b, r, i, j, s)
					}
				}
			}
			if b > 0 && !c.justified(q, -1) {
				t.Fatalf("particle %d (layer %d, birth %d) is in no subdivided particle's ring (R4)", q, L, b)
			}
		}
	}
	inList := map[int32]int{}
	for _, ids := range c.act {
		for _, id := range ids {
			inList[id]++
		}
	}
	for id, t0 := range c.typ {
		if n := inList[int32(id)]; t0 == Active && n != 1 || t0 != Active && n != 0 {
			t.Fatalf("particle %d (type %d) is %d times in the active lists", id, t0, n)
		}
	}
	for k, id := range c.interp {
		if c.typ[id] != Interpolated || k > 0 && c.layer[c.interp[k-1]] > c.layer[id] {
			t.Fatalf("interpolated list %v out of order at %d", c.interp, k)
		}
	}
	if n := c.Counts(); len(c.interp) != n.Interpolated {
		t.Fatalf("%d interpolated particles listed, %d exist", len(c.interp), n.Interpolated)
	}
	checkSprings(t, c)
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

// checkSprings verifies that c's springs are one per pair of live particles
// one of which sees the other at its own spacing (springOffsets; the
// finer spacing of the grid around it where that grid is complete), that no
// spring joins other pairs or repeats, that only pairs where no end moves
// lack one, and that rest lengths are those of the rest positions.
func checkSprings(t *testing.T, c *Cloth) {
	t.Helper()
	pair := func(a, b int32) uint64 { return uint64(min(a, b))<<32 | uint64(max(a, b)) }
	var want, got []uint64
	for id := range c.pos {
		p := int32(id)
		if c.typ[p] == None {
			continue
		}
		s := c.spacing(c.layer[p])
		// A particle that the finer grid surrounds sees at its spacing
		// (viewLayers).
		for c.massive(p) && s > 1 {
			d, full := s/2, true
			for _, o := range around {
				i, j := c.gi[p]+o[0]*d, c.gj[p]+o[1]*d
				if q := c.at(i, j); c.inGrid(i, j) && (q < 0 || !c.massive(q)) {
					full = false
				}
			}
			if !full {
				break
			}
			s = d
		}
		for _, o := range springOffsets {
			if q := c.at(c.gi[p]+o[0]*s, c.gj[p]+o[1]*s); q >= 0 {
				want = append(want, pair(p, q))
			}
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	for _, set := range c.spr {
		for n, a := range set.a {
			b := set.b[n]
			if c.typ[a] == None || c.typ[b] == None {
				t.Fatalf("spring %d–%d joins a free ID", a, b)
			}
			if r := c.rest[a].Sub(c.rest[b]).Norm(); math.Abs(set.rest[n]-r) > 1e-12*r {
				t.Fatalf("spring %d–%d: rest %g, want %g", a, b, set.rest[n], r)
			}
			got = append(got, pair(a, b))
		}
	}
	slices.Sort(got)
	moves := func(id int32) bool {
		m := false
		c.visitMass(id, 1, func(q int32, _ float64) { m = m || c.typ[q] == Active })
		return m
	}
	k := 0
	for n, e := range got {
		if n > 0 && got[n-1] == e {
			t.Fatalf("spring %d–%d repeated", e>>32, uint32(e))
		}
		for k < len(want) && want[k] < e {
			if a, b := int32(want[k]>>32), int32(uint32(want[k])); moves(a) || moves(b) {
				t.Fatalf("pair %d–%d (types %d %d, layers %d %d) has no spring", a, b, c.typ[a], c.typ[b], c.layer[a], c.layer[b])
			}
			k++
		}
		if k == len(want) || want[k] != e {
			t.Fatalf("spring %d–%d joins particles that do not see each other", e>>32, uint32(e))
		}
		k++
	}
	for ; k < len(want); k++ {
		if a, b := int32(want[k]>>32), int32(uint32(want[k])); moves(a) || moves(b) {
			t.Fatalf("pair %d–%d has no spring", a, b)
		}
	}
}

// TestSpringsIndependentOfOrder: a sheet subdivided particle by particle in
// random orders until its grid is complete at the deepest layer (some
// particles still below it, surrounded by the particles their neighbours'
// subdivisions made) has the springs of the uniformly subdivided sheet —
// the same pairs of grid slots, kinds, stiffnesses and rest lengths —
// however the subdivisions went (viewLayers: such a particle has the finer
// springs, not those of its own coarser spacing). Given the uniform sheet's
// state slot by slot, it then steps exactly as the uniform sheet does, bit
// for bit (stepOrder: the step's order follows the grid, not the particle
// IDs that the order of subdivision handed out).
func TestSpringsIndependentOfOrder(t *testing.T) {
	p := DefaultParams()
	p.MaxLayer = 2
	type spring struct {
		ai, aj, bi, bj int32
		kind           uint8
		k, rest        float64
	}
	springsOf := func(c *Cloth) []spring {
		var out []spring
		for _, set := range c.spr {
			for n, a := range set.a {
				b := set.b[n]
				ai, aj, bi, bj := c.gi[a], c.gj[a], c.gi[b], c.gj[b]
				if bi < ai || bi == ai && bj < aj {
					ai, aj, bi, bj = bi, bj, ai, aj
				}
				out = append(out, spring{ai, aj, bi, bj, set.kind[n], set.k[n], set.rest[n]})
			}
		}
		slices.SortFunc(out, func(x, y spring) int {
			for _, d := range [4]int32{x.ai - y.ai, x.aj - y.aj, x.bi - y.bi, x.bj - y.bj} {
				if d != 0 {
					return int(d)
				}
			}
			return int(x.kind) - int(y.kind)
		})
		return out
	}
	s := flatSheet(3, 1)
	s.Fixed = [][2]int{{0, 0}, {2, 0}}
	uni, err := New(s, p)
	if err != nil {
		t.Fatal(err)
	}
	uni.SubdivideUniform(p.MaxLayer)
	want := springsOf(uni)
	// sameSteps gives c the state of a uniform sheet (perturbed), slot by
	// slot, steps both 20 times and returns the first slot whose position
	// then differs, or −1.
	sameSteps := func(c *Cloth) (slot int, got, want geom.Vec3) {
		u, err := New(s, p)
		if err != nil {
			t.Fatal(err)
		}
		u.SubdivideUniform(p.MaxLayer)
		perturb(u, rand.New(rand.NewSource(3)), 0.01)
		for id := range u.vel {
			u.vel[id] = u.vel[id].Scale(0.01)
		}
		for k, id := range u.slot {
			if id >= 0 {
				q := c.slot[k]
				c.pos[q], c.vel[q], c.mass[q], c.target[q] = u.pos[id], u.vel[id], u.mass[id], u.target[id]
			}
		}
		c.rebuild()
		for range 20 {
			if err := u.Step(); err != nil {
				t.Fatal(err)
			}
			if err := c.Step(); err != nil {
				t.Fatal(err)
			}
		}
		for k, id := range u.slot {
			if id >= 0 && u.pos[id] != c.pos[c.slot[k]] {
				return k, c.pos[c.slot[k]], u.pos[id]
			}
		}
		return -1, geom.Vec3{}, geom.Vec3{}
	}
	rng := rand.New(rand.NewSource(9))
	belowAll := 0
	for trial := 0; trial < 20; trial++ {
		c, err := New(s, p)
		if err != nil {
			t.Fatal(err)
		}
		full := uni.Counts()
		below := 0 // particles left below the deepest layer when the grid is complete
		for k := 0; k < 5000; k++ {
			if n := c.Counts(); n.Active+n.Fixed == full.Active+full.Fixed && n.Interpolated == 0 {
				break
			}
			c.Subdivide(rng.Intn(len(c.pos)))
		}
		if n := c.Counts(); n.Active+n.Fixed != full.Active+full.Fixed || n.Interpolated != 0 {
			t.Fatalf("trial %d: %+v against uniform's %+v", trial, n, full)
		}
		for id := range c.pos {
			if c.massive(int32(id)) && int(c.layer[id]) < p.MaxLayer {
				below++
			}
		}
		belowAll += below
		got := springsOf(c)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d particles below the deepest layer): %d springs against uniform's %d (first difference at %v)", trial, below, len(got), len(want), firstDiff(got, want))
		}
		if k, got, want := sameSteps(c); k >= 0 {
			t.Fatalf("trial %d: after 20 steps from the same state, slot %d is at %v, in the uniform sheet at %v", trial, k, got, want)
		}
	}
	t.Logf("%d particles left below the deepest layer over the trials, each with the springs of the grid around it", belowAll)
	if belowAll == 0 {
		t.Error("every particle was subdivided to the deepest layer: the test checks nothing")
	}
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
