package detail

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"drape/sim/geom"
)

// fan returns a closed fan of n triangles around vertex 0 (ring 1…n on the
// unit circle), so vertex 0 is interior with valence n and the ring is the
// boundary.
func fan(n int) ([]geom.Vec3, [][3]int32) {
	pos := []geom.Vec3{{}}
	var tris [][3]int32
	for j := 0; j < n; j++ {
		a := 2 * math.Pi * float64(j) / float64(n)
		pos = append(pos, geom.Vec3{X: math.Cos(a), Y: math.Sin(a)})
		tris = append(tris, [3]int32{0, int32(1 + j), int32(1 + (j+1)%n)})
	}
	return pos, tris
}

// row returns the weights of row i of op as a map column → weight.
func row(op *sparse, i int) map[int32]float64 {
	m := map[int32]float64{}
	for k := op.Ptr[i]; k < op.Ptr[i+1]; k++ {
		m[op.Col[k]] += op.Val[k]
	}
	return m
}

func TestLoopStencils(t *testing.T) {
	for _, tc := range []struct {
		n            int
		centre, ring float64
	}{
		{3, 1 - 3*3.0/16, 3.0 / 16},
		{4, 1 - 4*loopBeta(4), loopBeta(4)},
		{6, 5.0 / 8, 1.0 / 16},
		{7, 1 - 7*loopBeta(7), loopBeta(7)},
	} {
		pos, tris := fan(tc.n)
		var l loopLevel
		if err := buildLoopLevel(&l, len(pos), tris, nil); err != nil {
			t.Fatal(err)
		}
		c := row(&l.op, 0)
		if math.Abs(c[0]-tc.centre) > 1e-15 {
			t.Errorf("n=%d: centre weight got=%v, want=%v", tc.n, c[0], tc.centre)
		}
		for j := 1; j <= tc.n; j++ {
			if math.Abs(c[int32(j)]-tc.ring) > 1e-15 {
				t.Errorf("n=%d: ring weight %d got=%v, want=%v", tc.n, j, c[int32(j)], tc.ring)
			}
		}
		// A ring (boundary) vertex: 3/4 itself, 1/8 each boundary neighbour.
		r := row(&l.op, 1)
		want := map[int32]float64{1: 0.75, 2: 0.125, int32(tc.n): 0.125}
		if tc.n == 3 {
			// the ring vertices are also joined to each other by rim edges only
			want = map[int32]float64{1: 0.75, 2: 0.125, 3: 0.125}
		}
		for k, w := range want {
			if math.Abs(r[k]-w) > 1e-15 {
				t.Errorf("n=%d: boundary even weight on %d got=%v, want=%v", tc.n, k, r[k], w)
			}
		}
		if r[0] != 0 {
			t.Errorf("n=%d: boundary even rule uses the interior vertex (%v)", tc.n, r[0])
		}
		// Odd vertices: spoke (interior) edge 3/8, 3/8, 1/8, 1/8; rim
		// (boundary) edge ½, ½.
		spoke := row(&l.op, len(pos)+int(l.edgeIndex(0, 1)))
		wantS := map[int32]float64{0: 0.375, 1: 0.375, 2: 0.125, int32(tc.n): 0.125}
		for k, w := range wantS {
			if math.Abs(spoke[k]-w) > 1e-15 {
				t.Errorf("n=%d: spoke odd weight on %d got=%v, want=%v", tc.n, k, spoke[k], w)
			}
		}
		rim := row(&l.op, len(pos)+int(l.edgeIndex(1, 2)))
		if len(rim) != 2 || rim[1] != 0.5 || rim[2] != 0.5 {
			t.Errorf("n=%d: rim odd weights got=%v, want=map[1:0.5 2:0.5]", tc.n, rim)
		}
	}
}

func TestLoopCornerFixed(t *testing.T) {
	// The corner of a single triangle keeps its position.
	pos := []geom.Vec3{{}, {X: 1}, {Y: 1}}
	fine, _, err := LoopSubdivide(pos, [][3]int32{{0, 1, 2}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if fine[i] != pos[i] {
			t.Errorf("corner %d moved: got=%v, want=%v", i, fine[i], pos[i])
		}
	}
}

// randomPlane returns m's faces on a random tilted plane through a random
// point, with its unit normal and offset.
func TestPlanarStaysPlanar(t *testing.T) {
	m, err := geom.IrregularGrid(1, 0.7, 60, 3)
	if err != nil {
		t.Fatal(err)
	}
	f := frameOf(m)
	rng := rand.New(rand.NewSource(2))
	nrm := geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Unit()
	u := nrm.Cross(geom.Vec3{X: 1}).Unit()
	v := nrm.Cross(u)
	o := geom.Vec3{X: 0.3, Y: -2, Z: 5}
	for i, r := range f.Rest {
		f.Pos[i] = o.Add(u.Scale(r.X)).Add(v.Scale(r.Y))
	}
	for level := 1; level <= 3; level++ {
		fine, _, err := LoopSubdivide(f.Pos, f.Tris, level)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for _, p := range fine {
			worst = math.Max(worst, math.Abs(p.Sub(o).Dot(nrm)))
		}
		if worst > 1e-13 {
			t.Errorf("level %d: distance from the plane got=%g, want≤1e-13", level, worst)
		}
	}
	// A straight boundary stays straight: on the axis-aligned sheet the
	// fine points of the bottom boundary (rest y = 0) keep y = 0.
	g := sheet(t, 1, 0.5, 7, 4)
	det := NewDetailer(DefaultParams())
	var s Surface
	g.Level = 3
	if _, err := det.Update(g, &s); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, r := range det.Rest() {
		if r.Y == 0 {
			n++
			if det.x[i].Y != 0 || det.x[i].Z != 0 {
				t.Errorf("boundary point %d left the line: %v", i, det.x[i])
			}
		}
	}
	if n != 7*8+1 {
		t.Errorf("boundary points on y=0 got=%d, want=%d", n, 7*8+1)
	}
}

// bumpy returns a closed, randomly perturbed icosphere and an open bumpy
// sheet, the meshes of the limit tests.
func bumpy(t *testing.T) [][2]any {
	rng := rand.New(rand.NewSource(7))
	pos, tris := geom.Icosphere(1)
	for i := range pos {
		pos[i] = pos[i].Scale(1 + 0.1*rng.Float64())
	}
	f := sheet(t, 1, 1, 5, 5)
	for i := range f.Pos {
		f.Pos[i].Z = 0.2 * math.Sin(3*f.Pos[i].X+1) * math.Cos(2*f.Pos[i].Y)
		f.Pos[i].X += 0.03 * rng.NormFloat64()
	}
	return [][2]any{{pos, tris}, {f.Pos, f.Tris}}
}

// TestLimitInvariant checks the limit masks against the subdivision rules:
// the limit point of a vertex is the same before and after a subdivision
// step (it is the left eigenvector of eigenvalue 1 of the local
// subdivision matrix), and so is the limit normal (the tangent masks are
// left eigenvectors too). It also checks that subdividing repeatedly
// brings the vertex to its limit point.
func TestLimitInvariant(t *testing.T) {
	for mi, mesh := range bumpy(t) {
		pos, tris := mesh[0].([]geom.Vec3), mesh[1].([][3]int32)
		lim, err := LimitPositions(pos, tris)
		if err != nil {
			t.Fatal(err)
		}
		nrm, err := LimitNormals(pos, tris)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := newRings(len(pos), tris)
		fine, ftris, err := LoopSubdivide(pos, tris, 1)
		if err != nil {
			t.Fatal(err)
		}
		lim1, _ := LimitPositions(fine, ftris)
		nrm1, _ := LimitNormals(fine, ftris)
		for v := range pos {
			if d := lim1[v].Sub(lim[v]).Norm(); d > 1e-13 {
				t.Errorf("mesh %d vertex %d: limit point moved by %g under subdivision", mi, v, d)
			}
			if _, b := r.ring(int32(v)); !b {
				if c := nrm1[v].Dot(nrm[v]); c < 1-1e-12 {
					t.Errorf("mesh %d vertex %d: limit normal turned, cos=%v", mi, v, c)
				}
			}
		}
		// Repeated subdivision converges to the limit point.
		p, tr := pos, tris
		prev := math.Inf(1)
		for k := 1; k <= 4; k++ {
			p, tr, _ = LoopSubdivide(p, tr, 1)
			worst := 0.0
			for v := range pos {
				worst = math.Max(worst, p[v].Sub(lim[v]).Norm())
			}
			if worst > 0.6*prev {
				t.Errorf("mesh %d level %d: distance to limit %g did not shrink from %g", mi, k, worst, prev)
			}
			prev = worst
		}
	}
	// Regular mask: ½ for the vertex, 1/12 for each of the six neighbours.
	pos, tris := fan(6)
	pos[0] = geom.Vec3{Z: 12}
	lim, _ := LimitPositions(pos, tris)
	if math.Abs(lim[0].Z-6) > 1e-13 {
		t.Errorf("regular limit mask: got=%v, want=6", lim[0].Z)
	}
}

func TestLoopErrors(t *testing.T) {
	pos := []geom.Vec3{{}, {X: 1}, {Y: 1}, {Z: 1}, {Z: -1}}
	for _, tc := range []struct {
		name string
		tris [][3]int32
	}{
		{"out of range", [][3]int32{{0, 1, 7}}},
		{"repeated vertex", [][3]int32{{0, 1, 1}}},
		{"edge in three faces", [][3]int32{{0, 1, 2}, {1, 0, 3}, {0, 1, 4}}},
	} {
		if _, _, err := LoopSubdivide(pos, tc.tris, 1); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, _, err := LoopSubdivide(pos, [][3]int32{{0, 1, 2}}, 4); err == nil {
		t.Error("level 4: no error")
	}
}

// TestFineEdges checks the edges that fineEdges reads off a subdivision
// against a table built from the fine faces: every face corner names its
// edge, each edge appears once, and boundary status and direction agree.
func TestFineEdges(t *testing.T) {
	m, err := geom.IrregularGrid(1, 0.7, 80, 9)
	if err != nil {
		t.Fatal(err)
	}
	f := frameOf(m)
	nv, tris := len(f.Pos), f.Tris
	var l loopLevel
	l.et.build(nv, tris)
	for level := 1; level <= 3; level++ {
		if err := subdivideLevel(&l, nv, tris, nil); err != nil {
			t.Fatal(err)
		}
		var got, want edgeTable
		l.fineEdges(&got)
		nv, tris = nv+l.ne, slices.Clone(l.tris)
		want.build(nv, tris)
		if len(got.keys) != len(want.keys) {
			t.Fatalf("level %d: %d edges, want %d", level, len(got.keys), len(want.keys))
		}
		seen := map[uint64]int{}
		for e, k := range got.keys {
			if prev, ok := seen[k]; ok {
				t.Fatalf("level %d: edge %x listed as %d and %d", level, k, prev, e)
			}
			seen[k] = e
		}
		for fi, tr := range tris {
			for i := 0; i < 3; i++ {
				g, w := got.of[fi][i], want.of[fi][i]
				if k := edgeKey(tr[i], tr[(i+1)%3]); got.keys[g] != k {
					t.Fatalf("level %d face %d corner %d: edge %x, want %x", level, fi, i, got.keys[g], k)
				}
				if got.nface[g] != want.nface[w] || got.dir[g] != want.dir[w] {
					t.Errorf("level %d face %d corner %d: faces %d dir %d, want %d %d", level, fi, i, got.nface[g], got.dir[g], want.nface[w], want.dir[w])
				}
			}
		}
		// The next level subdivides these faces with these edges.
		var next loopLevel
		next.et = got
		l = next
	}
}
