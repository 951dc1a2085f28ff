package cloth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/contact"
	"drape/sim/geom"
)

// TestPairCouplingProduct checks pairCoupling's product (sigmas, row)
// against the dense
// product of Σ_p coef·(w wᵀ)⊗(n nᵀ) without its diagonal blocks, on
// random springs over a few rows (shared rows, and points that are not
// rows).
func TestPairCouplingProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const nrows = 7
	var pc pairCoupling
	pc.reset()
	pc.coef = 2.5
	for p := 0; p < 12; p++ {
		var r [4]int32
		var w [4]float64
		for k := range r {
			r[k] = int32(rng.IntN(nrows+1)) - 1 // −1: not a row
			w[k] = rng.Float64()*2 - 1
		}
		n := geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Unit()
		pc.rows, pc.w, pc.n = append(pc.rows, r), append(pc.w, w), append(pc.n, n)
	}
	x := normalVecs(rng, nrows)
	pc.finish(nrows)
	pc.sigmas(x, nil)
	got := make([]geom.Vec3, nrows)
	for i := range got {
		if pc.hasRow(i) {
			got[i] = pc.row(i, x[i])
		}
	}
	want := make([]geom.Vec3, nrows)
	for p, r := range pc.rows {
		for a, i := range r {
			for b, j := range r {
				if i < 0 || j < 0 || a == b {
					continue
				}
				// Block (i, j) of the spring, applied to x_j. Two points of
				// one spring on the same row make a diagonal block, which is
				// the matrix's, not the coupling's, only when a == b.
				n := pc.n[p]
				want[i] = want[i].Add(n.Scale(pc.coef * pc.w[p][a] * pc.w[p][b] * n.Dot(x[j])))
			}
		}
	}
	for i := range want {
		if d := got[i].Sub(want[i]).Norm(); d > 1e-12*(1+want[i].Norm()) {
			t.Errorf("row %d: got %v, want %v", i, got[i], want[i])
		}
	}
	// The PCG's float32 vectors (x is rounded to float32, so within 1e-6).
	x32 := make([]vec3f32, nrows)
	for i, v := range x {
		x32[i] = vec3f32{float32(v.X), float32(v.Y), float32(v.Z)}
	}
	pc.sigmas(nil, x32)
	for i := range want {
		if !pc.hasRow(i) {
			continue
		}
		if d := pc.row(i, x[i]).Sub(want[i]).Norm(); d > 1e-6*(1+want[i].Norm()) {
			t.Errorf("row %d from float32: got %v, want %v", i, pc.row(i, x[i]), want[i])
		}
	}
}

// normalVecs returns n vectors of standard normal components.
func normalVecs(rng *rand.Rand, n int) []geom.Vec3 {
	x := make([]geom.Vec3, n)
	for i := range x {
		x[i] = geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}
	}
	return x
}

// TestPairCouplingMerge checks pairCoupling.add: springs added with
// repeats (the same points, weights and normal, listed in another order)
// and springs with a single row give the dense product of every spring
// added, each repeat counted, from fewer springs.
func TestPairCouplingMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nrows = 9
	type spring struct {
		r [4]int32
		w [4]float64
		n geom.Vec3
	}
	var all []spring
	for p := 0; p < 40; p++ {
		var sp spring
		for k := range sp.r {
			sp.r[k] = int32(rng.IntN(nrows+1)) - 1 // −1: not a row
			sp.w[k] = rng.Float64()*2 - 1
		}
		sp.n = geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Unit()
		for c := rng.IntN(4); c >= 0; c-- { // the spring and up to 3 repeats
			perm := rng.Perm(4)
			var q spring
			q.n = sp.n
			for k, j := range perm {
				q.r[k], q.w[k] = sp.r[j], sp.w[j]
			}
			all = append(all, q)
		}
	}
	var pc pairCoupling
	pc.reset()
	pc.coef = 2.5
	for _, sp := range all {
		pc.add(sp.r, sp.w, sp.n)
	}
	pc.merged()
	if len(pc.rows) >= len(all)/2 {
		t.Fatalf("%d springs from %d added: repeats not merged", len(pc.rows), len(all))
	}
	x := normalVecs(rng, nrows)
	pc.finish(nrows)
	pc.sigmas(x, nil)
	want := make([]geom.Vec3, nrows)
	for _, sp := range all {
		for a, i := range sp.r {
			for b, j := range sp.r {
				if i < 0 || j < 0 || a == b {
					continue
				}
				want[i] = want[i].Add(sp.n.Scale(pc.coef * sp.w[a] * sp.w[b] * sp.n.Dot(x[j])))
			}
		}
	}
	for i := range want {
		var got geom.Vec3
		if pc.hasRow(i) {
			got = pc.row(i, x[i])
		}
		if d := got.Sub(want[i]).Norm(); d > 1e-12*(1+want[i].Norm()) {
			t.Errorf("row %d: got %v, want %v", i, got, want[i])
		}
	}
}

// TestPCGPartsToOwnTolerance checks the stopping rule of pcg.solve when
// repulsion springs are in the system: the rows the springs act on and
// the other rows each reach the tolerance relative to their own part of
// δ₀. The springs' forces here (k·(h − g) ≈ 1000 N/m · 9 mm ≈ 9 N on four
// vertices of a hanging sheet whose vertices weigh about 0.007 N) make
// nearly all of δ₀, as a few springs did on the gathering curtain
// (89–96 %); a rule on the whole δ₀ stops when the springs' rows have
// converged and leaves the rest of the cloth up to √(δ₀/δ₀_rest) times
// less accurate (this test measured 0.071 against 0.0009 for the sheet's
// rows, after 15 iterations instead of 52, when it stopped on the whole
// δ₀). The residuals are recomputed here from A·Δv in float64, not taken
// from the solver's recurrence.
func TestPCGPartsToOwnTolerance(t *testing.T) {
	s := benchSheet(t, 24, 24)
	cp := contact.DefaultParams()
	cp.Enabled, cp.SelfCollision = true, true
	if err := s.SetContactParams(cp); err != nil {
		t.Fatal(err)
	}
	// Two vertex–vertex springs between grid neighbours in the middle of
	// the sheet, pushing them apart along z.
	m := s.Mesh
	h := cp.Thickness
	for _, ab := range [][2]int32{{300, 301}, {350, 375}} {
		a, b := ab[0], ab[1]
		g := m.Pos[a].Z - m.Pos[b].Z
		s.ct.pairs = append(s.ct.pairs, contact.NearPair{
			Ids: [4]int32{a, b, -1, -1}, W: [4]float64{1, -1, 0, 0},
			N: geom.Vec3{Z: 1}, Offset: -g - 2*h, // gap −2h: 3h of overlap
		})
	}
	s.ct.pairsStep = s.Steps
	p := s.params
	s.assembleStep()
	if !s.sys.coupling.active() {
		t.Fatal("no spring in the system")
	}
	s.gatherRows(false)
	it, res := s.solver.solve(s.sys, s.rhs, s.rowDv, s.rowZ, s.rowKind, s.rowN, p.Tolerance, p.MaxIter)
	if it == 0 || it >= p.MaxIter {
		t.Fatalf("%d iterations", it)
	}

	sys := s.sys
	ax := make([]geom.Vec3, sys.n)
	sys.mulVec(ax, s.rowDv)
	var d0, d, d0s, ds float64 // δ₀ and rᵀP⁻¹r of the rest and of the spring rows
	for i := 0; i < sys.n; i++ {
		k := s.rowKind[i]
		if k == rowFixed {
			continue
		}
		pinv := inverse3(&sys.val[sys.diag[i]])
		bi := filter(k, s.rowN[i], s.rhs[i])
		ri := filter(k, s.rowN[i], s.rhs[i].Sub(ax[i]))
		if sys.coupling.hasRow(i) {
			d0s += bi.Dot(pinv.MulVec(bi))
			ds += ri.Dot(pinv.MulVec(ri))
		} else {
			d0 += bi.Dot(pinv.MulVec(bi))
			d += ri.Dot(pinv.MulVec(ri))
		}
	}
	share := d0s / (d0 + d0s)
	rest, springs := math.Sqrt(d/d0), math.Sqrt(ds/d0s)
	t.Logf("%d iterations; springs' share of δ₀ %.4f; relative residual: rest %.3g, spring rows %.3g (solver says %.3g)", it, share, rest, springs, res)
	if share < 0.9 {
		t.Fatalf("the springs make only %.3f of δ₀: the test does not test the rule", share)
	}
	// 1.5: the solver tracks the residual by recurrence in float32
	// products, which drifts a little from the true residual.
	if rest > 1.5*p.Tolerance || springs > 1.5*p.Tolerance {
		t.Errorf("relative residual %.3g (rest) and %.3g (spring rows), want both ≤ %g", rest, springs, p.Tolerance)
	}
}

// TestKeepPairsAcross: after an adaptation the repulsion pairs whose
// points are all vertices it neither removed nor made stay for the next
// solve, the others go, and a slot made by one adaptation is an old
// vertex to the next.
func TestKeepPairsAcross(t *testing.T) {
	m, err := geom.RegularGrid(1, 1, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	s := &Sim{Mesh: m}
	m.VertAlive[8] = false // removed by the adaptation
	pairs := []contact.NearPair{
		{Ids: [4]int32{0, 1, 2, 3}, W: [4]float64{1, -0.2, -0.3, -0.5}},      // untouched: kept
		{Ids: [4]int32{4, 5, 6, -1}, W: [4]float64{1, -0.5, -0.5, 0}},        // an edge–vertex pair with a point left out: kept
		{Ids: [4]int32{7, 8, 9, 10}, W: [4]float64{1, -0.2, -0.3, -0.5}},     // a removed vertex: dropped
		{Ids: [4]int32{11, 12, 13, 14}, W: [4]float64{0.5, 0.5, -0.5, -0.5}}, // a new vertex: dropped
		{Ids: [4]int32{15, -1, -1, -1}, W: [4]float64{1}},                    // against a body: kept
	}
	s.ct.pairs = append([]contact.NearPair(nil), pairs...)
	s.keepPairsAcross([]int32{12})
	want := []contact.NearPair{pairs[0], pairs[1], pairs[4]}
	if len(s.ct.pairs) != len(want) {
		t.Fatalf("kept %v, want %v", s.ct.pairs, want)
	}
	for i := range want {
		if s.ct.pairs[i] != want[i] {
			t.Errorf("pair %d: %v, want %v", i, s.ct.pairs[i], want[i])
		}
	}
	// The next adaptation made nothing: the vertex made before is old now.
	s.ct.pairs = append(s.ct.pairs[:0], pairs[3])
	s.keepPairsAcross(nil)
	if len(s.ct.pairs) != 1 {
		t.Errorf("pairs %v after an adaptation that made no vertex, want %v kept", s.ct.pairs, pairs[3])
	}
}

// foldedSprings returns the repulsion springs of a sheet of n×n rows
// folded onto itself along its middle row, as fold's sheet is: every row
// of the lower half meets the faces and edges of the upper half around
// its mirror image in vertex–face and edge–edge springs (weights summing
// to 0, normals near the fold's), listed in the order of their first
// row. For n = 31, 5104 springs with 20416 points, all rows; fold's
// sheet at t = 4 s has 5571 springs with 16376 points on its 961 rows
// (1475 springs with two rows, 2958 with three, 1138 with four).
// Shuffling the springs' order made no difference to
// BenchmarkPairCoupling.
func foldedSprings(n int, rng *rand.Rand) *pairCoupling {
	var pc pairCoupling
	pc.reset()
	pc.coef = 2500
	at := func(i, j int) int32 { return int32(i*n + j) }
	add := func(r [4]int32, w [4]float64) {
		nrm := geom.Vec3{X: 0.2 * rng.NormFloat64(), Y: 1, Z: 0.2 * rng.NormFloat64()}.Unit()
		pc.rows, pc.w, pc.n = append(pc.rows, r), append(pc.w, w), append(pc.n, nrm)
	}
	bary := func() (float64, float64) {
		u, v := rng.Float64(), rng.Float64()
		if u+v > 1 {
			u, v = 1-u, 1-v
		}
		return u, v
	}
	for i := 0; i < n/2; i++ {
		m := n - 1 - i // the mirror row, above
		for j := 1; j+1 < n; j++ {
			for _, d := range [][2]int{{0, 0}, {-1, 0}, {0, -1}} {
				// A vertex below against a face above, and back.
				if a, b := m+d[0], j+d[1]; a >= 1 {
					u, v := bary()
					add([4]int32{at(i, j), at(a, b), at(a, b+1), at(a-1, b)}, [4]float64{1, -(1 - u - v), -u, -v})
				}
				if a, b := i-d[0], j+d[1]; a+1 < n/2 {
					u, v := bary()
					add([4]int32{at(m, j), at(a, b), at(a, b+1), at(a+1, b)}, [4]float64{1, -(1 - u - v), -u, -v})
				}
			}
			for _, d := range [][2]int{{0, 0}, {-1, 0}, {0, -1}} { // edge–edge, along and across
				a, b := m+d[0], j+d[1]
				if a < 1 {
					continue
				}
				s, t := rng.Float64(), rng.Float64()
				add([4]int32{at(i, j), at(i, j+1), at(a, b), at(a-1, b)}, [4]float64{1 - s, s, -(1 - t), -t})
				s, t = rng.Float64(), rng.Float64()
				add([4]int32{at(i, j), at(i+1, j), at(a, b), at(a, b+1)}, [4]float64{1 - s, s, -(1 - t), -t})
			}
		}
	}
	pc.finish(n * n)
	return &pc
}

// BenchmarkPairCoupling measures the repulsion springs' share of one PCG
// product on a folded sheet (foldedSprings), per spring point: the parts
// (setParts on every row, in the update pass), the rows' sums
// (rowFromParts on every row, in the direction pass), and both, on one
// goroutine. In fold's last second these two make 39 % of the CPU
// profile, seven times the sparse product blockRows32
// (docs/notes/performance-history.md).
func BenchmarkPairCoupling(b *testing.B) {
	const n = 31
	rng := rand.New(rand.NewPCG(3, 4))
	pc := foldedSprings(n, rng)
	x := make([]geom.Vec3, n*n)
	for i := range x {
		x[i] = geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}
	}
	parts := func() {
		for i := range x {
			if pc.hasRow(i) {
				pc.setParts(i, x[i])
			}
		}
	}
	var sink geom.Vec3
	rows := func() {
		for i := range x {
			if pc.hasRow(i) {
				sink = sink.Add(pc.rowFromParts(i, x[i]))
			}
		}
	}
	for _, c := range []struct {
		name string
		fn   func()
	}{{"parts", parts}, {"rows", rows}, {"product", func() { parts(); rows() }}} {
		b.Run(fmt.Sprintf("rows=%d/springs=%d/%s", n*n, len(pc.rows), c.name), func(b *testing.B) {
			b.ReportAllocs()
			for k := 0; k < b.N; k++ {
				c.fn()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pc.ent)), "ns/point")
		})
	}
	couplingSink = sink
}

var couplingSink geom.Vec3
