package adapt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"drape/sim/buf"
	"drape/sim/geom"
)

// gridMesh returns an nx×ny grid of unit-size 1/n cells in rest space
// (world = rest with a wave in z) with alternating diagonals. jitter moves
// interior points by up to jitter·h (irregular mesh) and holes removes the
// two triangles of every cell (i, j) with i%4 == 2 && j%4 == 2.
func gridMesh(t testing.TB, nx, ny int, jitter float64, holes bool, seed uint64) *geom.Mesh {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	h := 1.0 / float64(nx)
	var rest []geom.Vec2
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			r := geom.Vec2{float64(i) * h, float64(j) * h}
			if i > 0 && j > 0 && i < nx && j < ny {
				r.X += jitter * h * (rng.Float64() - 0.5)
				r.Y += jitter * h * (rng.Float64() - 0.5)
			}
			rest = append(rest, r)
		}
	}
	id := func(i, j int) int32 { return int32(j*(nx+1) + i) }
	var tris [][3]int32
	used := make([]bool, len(rest))
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			if holes && i%4 == 2 && j%4 == 2 && i < nx-1 && j < ny-1 {
				continue
			}
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			diag := (i+j)%2 == 0
			if jitter > 0 {
				diag = rng.IntN(2) == 0
			}
			if diag {
				tris = append(tris, [3]int32{a, b, c}, [3]int32{a, c, d})
			} else {
				tris = append(tris, [3]int32{a, b, d}, [3]int32{b, c, d})
			}
			for _, v := range []int32{a, b, c, d} {
				used[v] = true
			}
		}
	}
	pos := make([]geom.Vec3, len(rest))
	for i, r := range rest {
		pos[i] = geom.Vec3{r.X, r.Y, 0.05 * math.Sin(6*r.X) * math.Cos(4*r.Y)}
	}
	m, err := geom.NewMesh(pos, rest, tris)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// baseInfo is what the invariant checks compare against.
type baseInfo struct {
	area     float64
	bnd      [][2]geom.Vec2 // boundary segments of the base mesh, in rest space
	tris     map[[3]int32]bool
	nverts   int
	pos      []geom.Vec3
	restPos  []geom.Vec2
	numTris  int
	peakTris int
	peakVert int
}

func canonTri(t [3]int32) [3]int32 {
	for t[0] > t[1] || t[0] > t[2] {
		t = [3]int32{t[1], t[2], t[0]}
	}
	return t
}

func newBaseInfo(m *geom.Mesh) *baseInfo {
	b := &baseInfo{tris: map[[3]int32]bool{}, nverts: m.NumVerts(), numTris: m.NumTris()}
	for f, t := range m.Tris {
		if t[0] < 0 {
			continue
		}
		b.area += geom.RestArea(m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
		b.tris[canonTri(t)] = true
		for i := 0; i < 3; i++ {
			if m.Adj[f][i] < 0 {
				b.bnd = append(b.bnd, [2]geom.Vec2{m.Rest[t[i]], m.Rest[t[(i+1)%3]]})
			}
		}
	}
	b.pos = append([]geom.Vec3(nil), m.Pos...)
	b.restPos = append([]geom.Vec2(nil), m.Rest...)
	b.peakTris, b.peakVert = len(m.Tris), len(m.Pos)
	return b
}

// onSegment reports whether r lies on segment s (rest space, tolerance
// relative to the segment length).
func onSegment(r geom.Vec2, s [2]geom.Vec2) bool {
	d := s[1].Sub(s[0])
	l2 := d.Norm2()
	u := r.Sub(s[0])
	if math.Abs(d.Cross(u)) > 1e-9*l2 {
		return false
	}
	tt := (u.X*d.X + u.Y*d.Y) / l2
	return tt > -1e-9 && tt < 1+1e-9
}

// checkInvariants returns the first violated invariant of an adaptive mesh.
func checkInvariants(a *Adapter, b *baseInfo) error {
	m := a.m
	nt, nv := 0, 0
	var area float64
	used := make([]bool, len(m.Pos))
	for i, p := range m.Pos {
		if m.VertAlive[i] {
			nv++
			if !p.IsFinite() || !m.Vel[i].IsFinite() || math.IsNaN(m.Rest[i].X+m.Rest[i].Y) {
				return fmt.Errorf("vertex %d is not finite", i)
			}
		}
	}
	for f, t := range m.Tris {
		if t[0] < 0 {
			continue
		}
		nt++
		for _, v := range t {
			if v < 0 || int(v) >= len(m.Pos) || !m.VertAlive[v] {
				return fmt.Errorf("face %d uses dead vertex %d", f, v)
			}
			used[v] = true
		}
		ra := geom.RestArea(m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
		if !(ra > 0) {
			return fmt.Errorf("face %d %v is not counter-clockwise in rest (area %v)", f, t, ra)
		}
		area += ra
		if g := Generation(m.Gen[f]); g > a.gmax {
			return fmt.Errorf("face %d has generation %d > gmax %d", f, g, a.gmax)
		}
	}
	if nt != m.NumTris() || nv != m.NumVerts() {
		return fmt.Errorf("live counts: faces %d (NumTris %d), verts %d (NumVerts %d)", nt, m.NumTris(), nv, m.NumVerts())
	}
	for i := range used {
		if m.VertAlive[i] && !used[i] {
			return fmt.Errorf("vertex %d is alive but in no face", i)
		}
	}
	if math.Abs(area-b.area) > 1e-12*b.area {
		return fmt.Errorf("rest area got=%v, want=%v", area, b.area)
	}
	// Incremental adjacency against adjacency rebuilt from scratch, and
	// manifold vertex fans.
	if err := m.CheckTopology(); err != nil {
		return err
	}
	for f, t := range m.Tris {
		if t[0] < 0 {
			continue
		}
		g := Generation(m.Gen[f])
		for i := 0; i < 3; i++ {
			n := m.Adj[f][i]
			if n < 0 {
				// No T-junctions or cracks: every boundary edge lies on a
				// boundary edge of the base mesh.
				r0, r1 := m.Rest[t[i]], m.Rest[t[(i+1)%3]]
				ok := false
				for _, s := range b.bnd {
					if onSegment(r0, s) && onSegment(r1, s) {
						ok = true
						break
					}
				}
				if !ok {
					return fmt.Errorf("face %d edge %d (%v→%v) is a boundary edge off the base boundary (T-junction or crack)", f, i, r0, r1)
				}
				continue
			}
			if d := g - Generation(m.Gen[n]); d > 1 || d < -1 {
				return fmt.Errorf("adjacent faces %d (g=%d) and %d (g=%d) differ by more than one generation", f, g, n, Generation(m.Gen[n]))
			}
		}
		if err := checkFaceRole(a, int32(f)); err != nil {
			return err
		}
	}
	if len(m.Tris) > b.peakTris || len(m.Pos) > b.peakVert {
		return fmt.Errorf("slots grew beyond the peak live count: %d face slots (peak %d live), %d vertex slots (peak %d live)", len(m.Tris), b.peakTris, len(m.Pos), b.peakVert)
	}
	return nil
}

// checkFaceRole checks live face f against the conventions of its kind
// (see adapt.go): split children and their siblings, flipped faces and
// their partners, promoted boundary faces and boundary trisections.
func checkFaceRole(a *Adapter, f int32) error {
	m := a.m
	t, adj := m.Tris[f], m.Adj[f]
	g := Generation(m.Gen[f])
	if g == 0 {
		return nil
	}
	// Where a face of each kind may have a boundary edge.
	bnd := [3]bool{adj[0] < 0, adj[1] < 0, adj[2] < 0}
	switch r := a.trisectionRole(f); {
	case g%4 == 1 && (bnd[1] || bnd[2]), g%4 == 2 && (bnd[1] || bnd[2]),
		g%4 == 3 && bnd[0]:
		return fmt.Errorf("face %d (g=%d, %v) has a boundary edge where its kind has none", f, g, adj)
	case r == 0 || r == 2:
		mid := a.trisectionMid(f)
		tm := m.Tris[mid]
		if a.trisectionRole(mid) != 1 || Generation(m.Gen[mid]) != g+1 ||
			r == 0 && (tm[0] != t[0] || tm[1] != t[2] || m.Adj[mid][0] != f) ||
			r == 2 && (tm[0] != t[1] || tm[2] != t[2] || m.Adj[mid][2] != f) {
			return fmt.Errorf("trisection face %d (role %d, %v): middle face %d %v does not match", f, r, t, mid, tm)
		}
		if mate := adj[0]; mate < 0 || Generation(m.Gen[mate]) != g-1 {
			return fmt.Errorf("trisection face %d (g=%d): mate %d is not an even face of generation %d", f, g, mate, g-1)
		}
	case r == 1:
		for _, i := range []int{0, 2} {
			n := adj[i]
			if n >= 0 && Generation(m.Gen[n]) == g-1 && a.trisectionRole(n) != i {
				return fmt.Errorf("trisection middle %d: odd face %d across edge %d is not its T%d", f, n, i, i)
			}
		}
	case g%2 == 1:
		if mate := adj[0]; mate >= 0 && Generation(m.Gen[mate]) != g-1 {
			return fmt.Errorf("odd face %d (g=%d): mate %d has generation %d, want %d", f, g, mate, Generation(m.Gen[mate]), g-1)
		}
		s1, s2 := adj[1], adj[2]
		if Generation(m.Gen[s1]) == g && Generation(m.Gen[s2]) == g {
			bits := 0
			for _, s := range []int32{f, s1, s2} {
				if m.Tris[s][2] != t[2] {
					return fmt.Errorf("odd face %d: sibling %d does not share centre %d", f, s, t[2])
				}
				if m.Gen[s]&mateBit(g) != 0 {
					bits++
				}
			}
			if bits != 1 {
				return fmt.Errorf("odd face %d: %d siblings carry the mate bit, want 1", f, bits)
			}
		}
	case a.promoted(f):
		// A split child kept as it is: nothing more to match.
	default:
		p := adj[1]
		if Generation(m.Gen[p]) == g && (m.Adj[p][1] != f || m.Tris[p][1] != t[2] || m.Tris[p][2] != t[1]) {
			return fmt.Errorf("flipped face %d: partner %d does not match", f, p)
		}
	}
	return nil
}

func randomLiveFace(m *geom.Mesh, rng *rand.Rand) int32 {
	for {
		f := int32(rng.IntN(len(m.Tris)))
		if m.Tris[f][0] >= 0 {
			return f
		}
	}
}

func TestAdaptRandomInvariants(t *testing.T) {
	ops, every := 12000, 40
	if testing.Short() {
		ops, every = 3000, 100
	}
	cases := []struct {
		name   string
		mesh   func(t testing.TB) *geom.Mesh
		gmax   int
		minAng float64 // asserted bound, degrees (measured values in the log)
	}{
		{"grid", func(t testing.TB) *geom.Mesh { return gridMesh(t, 6, 5, 0, false, 1) }, 6, 0},
		{"irregular", func(t testing.TB) *geom.Mesh { return gridMesh(t, 7, 6, 0.5, false, 2) }, 6, 0},
		{"holes", func(t testing.TB) *geom.Mesh { return gridMesh(t, 9, 9, 0, true, 3) }, 5, 0},
		{"holes-odd-gmax", func(t testing.TB) *geom.Mesh { return gridMesh(t, 9, 9, 0.3, true, 4) }, 7, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.mesh(t)
			a, err := NewAdapter(m, c.gmax)
			if err != nil {
				t.Fatal(err)
			}
			b := newBaseInfo(m)
			rng := rand.New(rand.NewPCG(7, uint64(len(c.name))))
			minAng := m.MinRestAngle()
			base := minAng
			nr, nc := 0, 0
			for i := 0; i < ops; i++ {
				f := randomLiveFace(m, rng)
				// Grow while small, shrink while large, so the run visits
				// both deep refinement and full coarsening.
				pRefine := 0.6
				if m.NumTris() > 40*b.numTris/3 {
					pRefine = 0.3
				}
				if rng.Float64() < pRefine {
					if a.Refine(f) {
						nr++
					}
				} else if a.Coarsen(f) {
					nc++
				}
				b.peakTris = max(b.peakTris, m.NumTris())
				b.peakVert = max(b.peakVert, m.NumVerts())
				if i%every == 0 || i == ops-1 {
					if err := checkInvariants(a, b); err != nil {
						t.Fatalf("after %d operations: %v", i+1, err)
					}
					minAng = math.Min(minAng, m.MinRestAngle())
				}
			}
			t.Logf("%d refines, %d coarsens ok; faces now %d (peak %d, base %d); min rest angle %.2f° (base mesh %.2f°)", nr, nc, m.NumTris(), b.peakTris, b.numTris, minAng, base)
			if nr == 0 || nc == 0 {
				t.Errorf("random run did nothing: %d refines, %d coarsens", nr, nc)
			}
			if minAng < minAngleBound(base) {
				t.Errorf("min rest angle got=%v°, want ≥ %v°", minAng, minAngleBound(base))
			}
			// Coarsen everything: back to the base mesh.
			coarsenAll(a)
			if err := checkInvariants(a, b); err != nil {
				t.Fatal(err)
			}
			if err := sameAsBase(m, b); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// minAngleBound is the asserted lower bound on rest angles under any
// sequence of operations, as a function of the base mesh's smallest angle.
// Measured (TestAdaptRandomInvariants, TestAdaptMinAngle): regular grids
// keep 15–18° of their 45°, the jittered meshes fell to 0.87° from 24.1°
// at random and to 0.98° from 25.3° by uniform refinement to g = 8, the
// worst ratio being 1/28, before refinements that make angles below
// MinAngle were refused (since then 1.95° and 8.92°: part of the
// uniform refinement is not made). Without vertex smoothing (Kobbelt's
// α_n = 0, which keeps the potential energy from jumping) the √3 splits
// of an irregular mesh keep thinning its worst angles with depth; the boundary
// rule no longer adds slivers of its own (the previous rule, which
// trisected the boundary at every step, took the grids down to 3.4°).
var minAngleBound = func(base float64) float64 { return base / 30 }

func coarsenAll(a *Adapter) {
	for {
		did := false
		for f := range a.m.Tris {
			if a.m.Tris[f][0] >= 0 && Generation(a.m.Gen[f]) > 0 && a.Coarsen(int32(f)) {
				did = true
			}
		}
		if !did {
			return
		}
	}
}

func refineAll(a *Adapter, gmax int) {
	for {
		did := false
		for f := range a.m.Tris {
			if a.m.Tris[f][0] >= 0 && Generation(a.m.Gen[f]) < gmax && a.Refine(int32(f)) {
				did = true
			}
		}
		if !did {
			return
		}
	}
}

func sameAsBase(m *geom.Mesh, b *baseInfo) error {
	if m.NumTris() != b.numTris || m.NumVerts() != b.nverts {
		return fmt.Errorf("counts got=%d faces %d verts, want=%d faces %d verts", m.NumTris(), m.NumVerts(), b.numTris, b.nverts)
	}
	for f, t := range m.Tris {
		if t[0] < 0 {
			continue
		}
		if !b.tris[canonTri(t)] {
			return fmt.Errorf("face %d %v is not a base face", f, t)
		}
		if m.Gen[f] != 0 {
			return fmt.Errorf("face %d: Gen got=%#x, want 0", f, m.Gen[f])
		}
	}
	for i := 0; i < b.nverts; i++ {
		if !m.VertAlive[i] || m.Pos[i] != b.pos[i] || m.Rest[i] != b.restPos[i] {
			return fmt.Errorf("base vertex %d changed: alive=%v pos %v rest %v", i, m.VertAlive[i], m.Pos[i], m.Rest[i])
		}
	}
	return nil
}

func TestAdaptRefineAllCoarsenAll(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *geom.Mesh
		gmax int
	}{
		{"grid", gridMesh(t, 4, 3, 0, false, 1), 6},
		{"irregular", gridMesh(t, 5, 5, 0.5, false, 2), 4},
		{"holes", gridMesh(t, 7, 7, 0, true, 3), 4},
		{"odd-gmax", gridMesh(t, 4, 4, 0.2, false, 5), 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := NewAdapter(c.m, c.gmax)
			if err != nil {
				t.Fatal(err)
			}
			b := newBaseInfo(c.m)
			refineAll(a, c.gmax)
			b.peakTris, b.peakVert = len(c.m.Tris), len(c.m.Pos)
			if err := checkInvariants(a, b); err != nil {
				t.Fatal(err)
			}
			for f, tr := range c.m.Tris {
				if tr[0] >= 0 && Generation(c.m.Gen[f]) < c.gmax-1 {
					t.Fatalf("after refine-all face %d has generation %d, want ≥ %d", f, Generation(c.m.Gen[f]), c.gmax-1)
				}
			}
			t.Logf("refined to %d faces (×%.0f), min rest angle %.2f°", c.m.NumTris(), float64(c.m.NumTris())/float64(b.numTris), c.m.MinRestAngle())
			coarsenAll(a)
			if err := checkInvariants(a, b); err != nil {
				t.Fatal(err)
			}
			if err := sameAsBase(c.m, b); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// uniformStep refines every face that exists at the start once: a √3 step
// of Kobbelt 2000 (interior split + flip; odd boundary faces trisected).
func uniformStep(a *Adapter) {
	var fs []int32
	var vers []uint32
	for f, t := range a.m.Tris {
		if t[0] >= 0 {
			fs = append(fs, int32(f))
			vers = append(vers, a.faceVer[f])
		}
	}
	for i, f := range fs {
		if a.faceVer[f] == vers[i] && a.m.Tris[f][0] >= 0 {
			a.Refine(f)
		}
	}
}

func TestAdaptTwoUniformStepsNine(t *testing.T) {
	pos, tris := geom.Icosphere(1)
	closed, err := geom.NewSurfaceMesh(pos, tris)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    *geom.Mesh
	}{
		{"closed icosphere", closed},
		{"open grid", gridMesh(t, 5, 4, 0, false, 1)},
		{"grid with holes", gridMesh(t, 7, 7, 0, true, 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, _ := NewAdapter(c.m, 8)
			n0 := c.m.NumTris()
			nb0 := c.m.BoundaryEdges()
			uniformStep(a)
			if got := c.m.NumTris(); got != 3*n0 {
				t.Errorf("after one step: faces got=%d, want=%d", got, 3*n0)
			}
			uniformStep(a)
			if got := c.m.NumTris(); got != 9*n0 {
				t.Errorf("after two steps: faces got=%d, want=%d", got, 9*n0)
			}
			if got := c.m.BoundaryEdges(); got != 3*nb0 {
				t.Errorf("after two steps: boundary edges got=%d, want=%d (tri-adic)", got, 3*nb0)
			}
		})
	}
}

func TestGenerationEncoding(t *testing.T) {
	for _, c := range []struct {
		gen  uint32
		want int
	}{{0, 0}, {1, 1}, {31, 31}, {1<<5 | 3, 3}, {0xffffffe0 | 6, 6}} {
		if got := Generation(c.gen); got != c.want {
			t.Errorf("Generation(%#x) got=%d, want=%d", c.gen, got, c.want)
		}
	}
	seen := uint32(0)
	for o := 1; o <= MaxGeneration; o += 2 {
		b := mateBit(o)
		if b&genMask != 0 || b&seen != 0 || b == 0 {
			t.Errorf("mateBit(%d) = %#x overlaps", o, b)
		}
		seen |= b
	}
	m := gridMesh(t, 2, 2, 0, false, 1)
	for _, c := range []struct {
		gmax int
		ok   bool
	}{{-1, false}, {0, true}, {6, true}, {MaxGeneration, true}, {MaxGeneration + 1, false}} {
		_, err := NewAdapter(m, c.gmax)
		if (err == nil) != c.ok {
			t.Errorf("NewAdapter(gmax=%d) err=%v, want ok=%v", c.gmax, err, c.ok)
		}
	}
}

func TestLimits(t *testing.T) {
	good := Limits{Base: 1, Max: 10, CoarsenFrac: 0.5, GMax: 6, MaxTris: 100}
	for _, c := range []struct {
		name string
		edit func(*Limits)
		ok   bool
	}{
		{"good", func(*Limits) {}, true},
		{"max<base", func(l *Limits) { l.Max = 0.5 }, false},
		{"base=0", func(l *Limits) { l.Base = 0 }, false},
		{"c=0", func(l *Limits) { l.CoarsenFrac = 0 }, false},
		{"c=1", func(l *Limits) { l.CoarsenFrac = 1 }, false},
		{"c=NaN", func(l *Limits) { l.CoarsenFrac = math.NaN() }, false},
		{"gmax<0", func(l *Limits) { l.GMax = -1 }, false},
		{"gmax>31", func(l *Limits) { l.GMax = 32 }, false},
		{"maxtris=0", func(l *Limits) { l.MaxTris = 0 }, false},
	} {
		l := good
		c.edit(&l)
		if err := l.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", c.name, err, c.ok)
		}
	}
	for _, c := range []struct {
		g, gmax     int
		lb, lg, out float64
	}{{0, 6, 1, 7, 1}, {6, 6, 1, 7, 7}, {3, 6, 1, 7, 4}, {0, 0, 2, 5, 2}} {
		if got := RefinementLimit(c.g, c.gmax, c.lb, c.lg); got != c.out {
			t.Errorf("RefinementLimit(%d,%d,%v,%v) got=%v, want=%v", c.g, c.gmax, c.lb, c.lg, got, c.out)
		}
	}
}

// waveCurv fills curv with a synthetic |H| field evaluated at rest
// coordinates: a fold along a moving line.
func waveCurv(m *geom.Mesh, curv []float64, phase float64) []float64 {
	if cap(curv) < len(m.Pos) {
		curv = make([]float64, len(m.Pos), 2*len(m.Pos))
	}
	curv = curv[:len(m.Pos)]
	for i, r := range m.Rest {
		d := r.X - 0.5 - 0.3*math.Sin(phase)
		curv[i] = 40 * math.Exp(-d*d/0.005)
	}
	return curv
}

func TestAdaptDriver(t *testing.T) {
	m := gridMesh(t, 8, 8, 0, false, 1)
	a, _ := NewAdapter(m, 6)
	b := newBaseInfo(m)
	lim := Limits{Base: 2, Max: 20, CoarsenFrac: 0.5, GMax: 6, MaxTris: 100000}
	var curv []float64
	for it := 0; it < 30; it++ {
		curv = waveCurv(m, curv, float64(it)*0.2)
		a.ResetChanges()
		r, c := a.Adapt(curv, lim)
		b.peakTris, b.peakVert = max(b.peakTris, len(m.Tris)), max(b.peakVert, len(m.Pos))
		if err := checkInvariants(a, b); err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		ch := a.Changes()
		if (r+c > 0) != (len(ch.Faces)+len(ch.RemovedFaces) > 0) {
			t.Fatalf("iteration %d: %d ops but change record %+v", it, r+c, ch)
		}
		for _, f := range ch.Faces {
			if !m.FaceAlive(int(f)) {
				t.Fatalf("change record lists dead face %d", f)
			}
		}
		for _, v := range ch.NewVerts {
			if !m.VertAlive[v] {
				t.Fatalf("change record lists dead new vertex %d", v)
			}
		}
		if it == 5 {
			curv = waveCurv(m, curv, float64(it)*0.2)
			// Faces on the fold are refined, far ones are not.
			var gNear, gFar int
			for f, tr := range m.Tris {
				if tr[0] < 0 {
					continue
				}
				hmax := math.Max(curv[tr[0]], math.Max(curv[tr[1]], curv[tr[2]]))
				g := Generation(m.Gen[f])
				if hmax > 30 {
					gNear = max(gNear, g)
				}
				if hmax < 1e-3 {
					gFar = max(gFar, g)
				}
			}
			t.Logf("iteration 5: %d faces, max generation near fold %d, far %d", m.NumTris(), gNear, gFar)
			if gNear < 4 || gFar > 1 {
				t.Errorf("generation near fold got=%d (want ≥ 4), far got=%d (want ≤ 1)", gNear, gFar)
			}
		}
	}
	// Flat: everything coarsens back to the base mesh.
	for it := 0; it < 20; it++ {
		curv = curv[:len(m.Pos)]
		clear(curv)
		if r, c := a.Adapt(curv, lim); r+c == 0 {
			break
		}
	}
	if err := sameAsBase(m, b); err != nil {
		t.Fatal(err)
	}
	// Triangle cap.
	lim.MaxTris = m.NumTris() + 20
	curv = waveCurv(m, curv, 0)
	a.Adapt(curv, lim)
	if m.NumTris() > lim.MaxTris+4*lim.GMax {
		t.Errorf("faces got=%d, want ≤ cap %d plus one cascade", m.NumTris(), lim.MaxTris)
	}
}

func TestAdaptMinAngle(t *testing.T) {
	// Uniform refinement to gmax on each test mesh: the smallest angle
	// reachable, logged so that minAngleBound can be checked against it.
	for _, c := range []struct {
		name string
		m    *geom.Mesh
	}{
		{"grid", gridMesh(t, 4, 4, 0, false, 1)},
		{"irregular", gridMesh(t, 5, 5, 0.5, false, 2)},
	} {
		a, _ := NewAdapter(c.m, 8)
		base := c.m.MinRestAngle()
		got := []string{}
		for g := 2; g <= 8; g += 2 {
			refineAll(a, g)
			ang := c.m.MinRestAngle()
			got = append(got, fmt.Sprintf("g=%d: %.2f°", g, ang))
			if ang < minAngleBound(base) {
				t.Errorf("%s g=%d: min angle got=%v°, want ≥ %v°", c.name, g, ang, minAngleBound(base))
			}
		}
		t.Logf("%s (base %.2f°): %v", c.name, base, got)
	}
}

// TestAdaptDeepStaysCounterClockwise refines deep round random points of
// the jittered grid (a third of them within 1 mm of its left edge, where
// the boundary rule trisects), up to g_max 12, 18 and 31, with a random
// coarsening now and then: every face stays counter-clockwise in rest and
// no angle falls below MinAngle (the base mesh's smallest is 24°). Before
// wellShaped, a flip between two centres whose segment passes beside the
// common edge made clockwise faces here at every one of these g_max
// (after 58–119 points); the monkey met one at g_max 18 as a blow-up
// (curtain-adaptive seed 200, MinAngle).
func TestAdaptDeepStaysCounterClockwise(t *testing.T) {
	points := 150
	if testing.Short() {
		points = 120
	}
	faceAt := func(m *geom.Mesh, p geom.Vec2) int32 {
		for f, tr := range m.Tris {
			if tr[0] < 0 {
				continue
			}
			a, b, c := m.Rest[tr[0]], m.Rest[tr[1]], m.Rest[tr[2]]
			if b.Sub(a).Cross(p.Sub(a)) >= 0 && c.Sub(b).Cross(p.Sub(b)) >= 0 && a.Sub(c).Cross(p.Sub(c)) >= 0 {
				return int32(f)
			}
		}
		return -1
	}
	for _, gmax := range []int{12, 18, 31} {
		m := gridMesh(t, 7, 6, 0.5, false, 2)
		a, err := NewAdapter(m, gmax)
		if err != nil {
			t.Fatal(err)
		}
		b := newBaseInfo(m)
		floor := math.Min(MinAngle, m.MinRestAngle())
		rng := rand.New(rand.NewPCG(uint64(gmax), 3))
		deepest, smallest := 0, 180.0
		for it := 0; it < points; it++ {
			p := geom.Vec2{X: rng.Float64(), Y: rng.Float64() * 5 / 6}
			if rng.IntN(3) == 0 {
				p.X = 1e-9 + rng.Float64()*1e-3
			}
			for k := 0; k < 4*gmax; k++ {
				f := faceAt(m, p)
				if f < 0 || a.gen(f) >= gmax {
					break
				}
				ok := a.Refine(f) // false when a face it would make is too thin; the cascade before that stays
				b.peakTris, b.peakVert = max(b.peakTris, m.NumTris()), max(b.peakVert, m.NumVerts())
				if !ok {
					break
				}
				deepest = max(deepest, a.gen(faceAt(m, p)))
			}
			if rng.IntN(4) == 0 {
				for k := 0; k < 200; k++ {
					a.Coarsen(randomLiveFace(m, rng))
				}
			}
			if err := checkInvariants(a, b); err != nil {
				t.Fatalf("g_max %d, point %d: %v", gmax, it, err)
			}
			smallest = math.Min(smallest, m.MinRestAngle())
			if smallest < floor {
				t.Fatalf("g_max %d, point %d: smallest rest angle %.3g°, below %v°", gmax, it, smallest, floor)
			}
		}
		t.Logf("g_max %d: deepest generation reached %d, smallest rest angle %.3g°", gmax, deepest, smallest)
		if deepest < 12 {
			t.Errorf("g_max %d: refinement reached generation %d only; the test no longer goes deep", gmax, deepest)
		}
	}
}

// FuzzAdapt drives random refine/coarsen sequences: each pair of bytes is
// (operation, face slot). The first byte chooses the mesh and g_max.
func FuzzAdapt(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 1, 3})
	f.Add([]byte{3, 0, 0, 0, 5, 0, 9, 1, 0, 0, 3, 0, 7, 1, 2})
	f.Add([]byte("\x05refine-coarsen-refine-coarsen-the-boundary"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 400 {
			return
		}
		var m *geom.Mesh
		switch data[0] % 3 {
		case 0:
			m = gridMesh(t, 3, 2, 0, false, 1)
		case 1:
			m = gridMesh(t, 3, 3, 0.4, false, 2)
		default:
			m = gridMesh(t, 5, 5, 0, true, 3)
		}
		gmax := int(data[0]/3) % 8
		a, err := NewAdapter(m, gmax)
		if err != nil {
			t.Fatal(err)
		}
		b := newBaseInfo(m)
		for i := 1; i+1 < len(data); i += 2 {
			fi := int32(int(data[i+1]) % len(m.Tris))
			if data[i]%2 == 0 {
				a.Refine(fi)
			} else {
				a.Coarsen(fi)
			}
			b.peakTris, b.peakVert = max(b.peakTris, m.NumTris()), max(b.peakVert, m.NumVerts())
			if err := checkInvariants(a, b); err != nil {
				t.Fatalf("after op %d: %v", i/2, err)
			}
		}
		coarsenAll(a)
		if err := sameAsBase(m, b); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkAdapt(b *testing.B) {
	m := gridMesh(b, 50, 50, 0, false, 1) // 5000 faces
	a, _ := NewAdapter(m, 6)
	lim := Limits{Base: 2, Max: 20, CoarsenFrac: 0.5, GMax: 6, MaxTris: 200000}
	var curv []float64
	b.Run("tris="+strconv.Itoa(m.NumTris()), func(b *testing.B) {
		b.ReportAllocs()
		it, faces := 0, 0
		for b.Loop() {
			curv = waveCurv(m, curv, float64(it)*0.05)
			a.ResetChanges()
			a.Adapt(curv, lim)
			faces += m.NumTris()
			it++
		}
		b.ReportMetric(float64(faces)/float64(it), "tris")
	})
}

// TestAdaptHold: faces held by Hold (the faces in contact) are neither
// refined nor coarsened, also by cascades from their neighbours, over a
// moving fold that refines and coarsens all round them; the rest of the
// mesh still adapts.
func TestAdaptHold(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		m := gridMesh(t, 8, 8, 0.2, seed%2 == 0, seed)
		a, _ := NewAdapter(m, 6)
		b := newBaseInfo(m)
		lim := Limits{Base: 2, Max: 20, CoarsenFrac: 0.5, GMax: 6, MaxTris: 100000}
		rng := rand.New(rand.NewPCG(seed, 7))
		var curv []float64
		held := make([]bool, 0)
		ops := 0
		for it := 0; it < 40; it++ {
			curv = waveCurv(m, curv, float64(it)*0.3)
			// Hold the faces whose centroid lies in a disc on the fold's path.
			cx, cy, r := 0.2+0.6*rng.Float64(), 0.2+0.6*rng.Float64(), 0.05+0.1*rng.Float64()
			held = append(held[:0], make([]bool, len(m.Tris))...)
			before := map[int32][3]int32{}
			for f, tr := range m.Tris {
				if !m.FaceAlive(f) {
					continue
				}
				c := m.Rest[tr[0]].Add(m.Rest[tr[1]]).Add(m.Rest[tr[2]]).Scale(1.0 / 3)
				if (c.X-cx)*(c.X-cx)+(c.Y-cy)*(c.Y-cy) < r*r {
					held[f] = true
					before[int32(f)] = tr
				}
			}
			a.Hold(held)
			a.ResetChanges()
			rf, cf := a.Adapt(curv, lim)
			ops += rf + cf
			b.peakTris, b.peakVert = max(b.peakTris, len(m.Tris)), max(b.peakVert, len(m.Pos))
			if err := checkInvariants(a, b); err != nil {
				t.Fatalf("seed %d iteration %d: %v", seed, it, err)
			}
			if n := a.HeldRemoved(); n != 0 {
				t.Fatalf("seed %d iteration %d: %d held faces removed", seed, it, n)
			}
			for f, tr := range before {
				if m.Tris[f] != tr {
					t.Fatalf("seed %d iteration %d: held face %d changed %v → %v", seed, it, f, tr, m.Tris[f])
				}
			}
		}
		if ops == 0 {
			t.Fatalf("seed %d: nothing adapted around the held faces", seed)
		}
	}
}

// faceSizes returns the sizes of m's live faces, sorted: the altitude of
// the equilateral triangle of each face's rest area (Size).
func faceSizes(m *geom.Mesh) []float64 {
	var sizes []float64
	for f, t := range m.Tris {
		if m.FaceAlive(f) {
			a, b, c := m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]]
			sizes = append(sizes, math.Sqrt(math.Sqrt(3)*0.5*math.Abs(b.Sub(a).Cross(c.Sub(a))))) // Size, written out
		}
	}
	slices.Sort(sizes)
	return sizes
}

// TestAdaptMinSize checks Limits.MinSize, the bound on the size of a
// split's children that the cloth sets to the collision thickness: with
// g_max = 31, as the viewer's slider allows, a curvature far above every
// l_g refines a jittered grid (faces of size 0.09 m) until the triangle
// cap stops it, and with the bound it stops where a split would make
// faces smaller than the bound, far below the cap. The bound holds for
// the splits the criterion asks for; a cascade splits the coarser
// neighbours it needs whatever their size, and flips share two children's
// area unevenly, so a few faces end up smaller (so do a few without the
// bound: √3 steps on a jittered grid make slivers): the test asks it of
// 99 % of the faces, within a factor 2.
func TestAdaptMinSize(t *testing.T) {
	const maxTris = 200_000
	for _, minSize := range []float64{0, 0.01, 0.003} {
		m := gridMesh(t, 8, 8, 0.3, false, 3)
		a, _ := NewAdapter(m, MaxGeneration)
		lim := Limits{Base: 0.01, Max: 0.02, CoarsenFrac: 0.5, GMax: MaxGeneration, MaxTris: maxTris, MinSize: minSize}
		var curv []float64
		for it := 0; it < 60; it++ {
			curv = buf.Keep(curv, len(m.Pos))
			for i := range curv {
				curv[i] = 1e3
			}
			if r, _ := a.Adapt(curv, lim); r == 0 {
				break
			}
		}
		sizes := faceSizes(m)
		p1 := sizes[len(sizes)/100]
		t.Logf("MinSize %v: %d faces, face size 1st percentile %.4g m, smallest %.4g m", minSize, len(sizes), p1, sizes[0])
		if capped := len(sizes) > maxTris*9/10; capped != (minSize == 0) {
			t.Errorf("MinSize %v: %d faces against the cap of %d", minSize, len(sizes), maxTris)
		}
		if minSize > 0 && p1 < minSize/2 {
			t.Errorf("MinSize %v: 1st percentile of the face sizes %.4g m, below half the bound", minSize, p1)
		}
	}
}

// TestAdaptCoarsensBelowMinSize: a grid refined without a bound far
// below 1 cm (a sheet refined while collisions were off) is coarsened
// back once Limits.MinSize is 1 cm, with the same curvature still asking
// for every split: within a few calls 99 % of its faces are at least
// MinSize/2 in size (TestAdaptMinSize's measure), and the mesh settles:
// from the fifth call on, each changes at most 0.1 % of the faces.
// Measured: 93 312 faces → 32 004 in two calls, then 4 refinements and 4
// coarsenings per call (a refinement whose cascade splits a neighbour
// below MinSize/coarsenBelow, undone by the next call; see coarsenBelow).
func TestAdaptCoarsensBelowMinSize(t *testing.T) {
	const minSize = 0.01
	m := gridMesh(t, 8, 8, 0.3, false, 3)
	a, _ := NewAdapter(m, MaxGeneration)
	lim := Limits{Base: 0.01, Max: 0.02, CoarsenFrac: 0.5, GMax: 12, MaxTris: 200_000}
	var curv []float64
	adapt := func() (int, int) {
		curv = buf.Keep(curv, len(m.Pos))
		for i := range curv {
			curv[i] = 1e3
		}
		return a.Adapt(curv, lim)
	}
	for range 60 {
		if r, _ := adapt(); r == 0 {
			break
		}
	}
	before := faceSizes(m)
	if p1 := before[len(before)/100]; !(p1 < minSize/coarsenBelow) {
		t.Fatalf("refined without a bound: 1st percentile of the face sizes %.4g m, not below %.4g m: the test checks little", p1, minSize/coarsenBelow)
	}
	lim.MinSize = minSize
	var log []string
	for it := 0; it < 12; it++ {
		r, c := adapt()
		log = append(log, fmt.Sprintf("%d/%d", r, c))
		if it >= 4 && r+c > m.NumTris()/1000 {
			t.Errorf("call %d: %d refinements and %d coarsenings of %d faces: not settled", it+1, r, c, m.NumTris())
		}
	}
	after := faceSizes(m)
	p1 := after[len(after)/100]
	t.Logf("faces %d → %d; 1st percentile of the sizes %.4g → %.4g m; refined/coarsened per call %v", len(before), len(after), before[len(before)/100], p1, log)
	if p1 < minSize/2 {
		t.Errorf("1st percentile of the face sizes %.4g m, below half the bound", p1)
	}
	if err := m.CheckTopology(); err != nil {
		t.Fatal(err)
	}
}
