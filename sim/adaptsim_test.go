package sim

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// adaptiveSheet returns a simulation of a staggered w×h m sheet hanging
// from its two top corners in the xy-plane, with adaptivity set up but
// not enabled for automatic steps.
func adaptiveSheet(t testing.TB, nx, ny int, gmax int) *Sim {
	t.Helper()
	m, err := StaggeredGrid(1, 1, nx, ny)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Pos {
		m.Pos[i].Z = 0.01 * math.Sin(7*m.Rest[i].X) * math.Sin(5*m.Rest[i].Y)
	}
	s, err := New(m, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range m.Rest {
		if r.Y == 1 && (r.X == 0 || r.X == 1) {
			if err := s.Pin(int32(i), m.Pos[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := DefaultAdaptParams()
	p.Enabled = false
	p.GMax = gmax
	if err := s.SetAdaptParams(p); err != nil {
		t.Fatal(err)
	}
	return s
}

// randomAdapt runs one adaptation driven by random curvature, so that
// refinement and coarsening both happen everywhere.
func randomAdapt(s *Sim, rng *rand.Rand) {
	m := s.Mesh
	ad := &s.ad
	ad.curv = growTo(ad.curv, len(m.Pos))
	for i := range ad.curv {
		ad.curv[i] = 0
		if rng.IntN(3) == 0 {
			ad.curv[i] = 100 * rng.Float64()
		}
	}
	s.snapshotForAdapt()
	ad.a.ResetChanges()
	ad.a.Adapt(ad.curv, Limits{Base: 5, Max: 50, CoarsenFrac: 0.5, GMax: ad.p.GMax, MaxTris: 100000})
	s.applyChanges(ad.a.Changes())
}

func restAreaSum(m *Mesh) float64 {
	var a float64
	for _, t := range m.Tris {
		if t[0] >= 0 {
			a += RestArea(m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
		}
	}
	return a
}

func momentum(s *Sim) Vec3 {
	var p Vec3
	for i, v := range s.Mesh.Vel {
		if s.Mesh.VertAlive[i] {
			p = p.Add(v.Scale(s.Mass(i)))
		}
	}
	return p
}

func TestAdaptParamsValidate(t *testing.T) {
	ok := DefaultAdaptParams()
	for _, c := range []struct {
		name string
		edit func(p *AdaptParams)
		ok   bool
	}{
		{"default", func(p *AdaptParams) {}, true},
		{"l_gmax below l_base", func(p *AdaptParams) { p.Max = p.Base / 2 }, false},
		{"l_base zero", func(p *AdaptParams) { p.Base = 0 }, false},
		{"l_base NaN", func(p *AdaptParams) { p.Base = math.NaN() }, false},
		{"c = 1", func(p *AdaptParams) { p.CoarsenFrac = 1 }, false},
		{"c = 0", func(p *AdaptParams) { p.CoarsenFrac = 0 }, false},
		{"g_max beyond the 5-bit field", func(p *AdaptParams) { p.GMax = MaxGeneration + 1 }, false},
		{"g_max at the field's limit", func(p *AdaptParams) { p.GMax = MaxGeneration }, true},
		{"interval 0", func(p *AdaptParams) { p.Interval = 0 }, false},
		{"budget exhausting memory", func(p *AdaptParams) { p.MaxTris = MaxAdaptTriangles + 1 }, false},
		{"budget zero", func(p *AdaptParams) { p.MaxTris = 0 }, false},
	} {
		p := ok
		c.edit(&p)
		if err := p.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: Validate got=%v, want ok=%v", c.name, err, c.ok)
		}
	}
	s := adaptiveSheet(t, 4, 4, 6)
	bad := DefaultAdaptParams()
	bad.CoarsenFrac = 2
	if err := s.SetAdaptParams(bad); err == nil {
		t.Errorf("SetAdaptParams(c=2) got=nil, want an error")
	}
	if got := s.AdaptParams().CoarsenFrac; got != DefaultAdaptParams().CoarsenFrac {
		t.Errorf("after a rejected SetAdaptParams: c got=%v, want the old %v", got, DefaultAdaptParams().CoarsenFrac)
	}
}

func TestCurtainBaseMesh(t *testing.T) {
	m, err := StaggeredGrid(2.46, 1.8, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.NumTris(), 820; got != want {
		t.Errorf("base faces got=%d, want=%d", got, want)
	}
	if got, want := countBoundaryEdges(m), 80; got != want {
		t.Errorf("base boundary edges got=%d, want=%d", got, want)
	}
	if got, want := restAreaSum(m), 2.46*1.8; math.Abs(got-want) > 1e-12 {
		t.Errorf("rest area got=%v, want=%v", got, want)
	}
	s, err := New(m, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RefineUniform(6); err != nil {
		t.Fatal(err)
	}
	// Interior faces triple per √3 step; with this Adapter the boundary
	// faces keep within one generation of their neighbours, so each step
	// also trisects the boundary: F₆ = 27·F + 36·B (see the report in
	// adaptsim.go), 22140 + 2880 for the curtain.
	if got, want := m.NumTris(), 27*820+36*80; got != want {
		t.Errorf("after RefineUniform(6): faces got=%d, want=%d", got, want)
	}
	if got, want := s.TotalMass(), DefaultParams().Density*2.46*1.8; math.Abs(got-want) > 1e-12*want {
		t.Errorf("total mass got=%v, want=%v", got, want)
	}
}

func systemsEqual(a, b *blockSystem) string {
	switch {
	case a.n != b.n:
		return "n"
	case !slices.Equal(a.rowPtr, b.rowPtr):
		return "rowPtr"
	case !slices.Equal(a.col, b.col):
		return "col"
	case !slices.Equal(a.diag, b.diag):
		return "diag"
	case !slices.Equal(a.qsum, b.qsum):
		return "qsum"
	case !slices.Equal(a.oppPtr, b.oppPtr):
		return "oppPtr"
	case !slices.Equal(a.oppCol, b.oppCol):
		return "oppCol"
	case !slices.Equal(a.oppQ, b.oppQ):
		return "oppQ"
	case !slices.Equal(a.contribPtr, b.contribPtr):
		return "contribPtr"
	case !slices.Equal(a.contrib, b.contrib):
		return "contrib"
	case !slices.Equal(a.cornerPtr, b.cornerPtr):
		return "cornerPtr"
	case !slices.Equal(a.corners, b.corners):
		return "corners"
	case len(a.val) != len(b.val) || len(a.val32) != len(b.val32) || len(a.oppVal) != len(b.oppVal):
		return "value arrays"
	}
	return ""
}

// TestIncrementalSystemMatches checks that the incrementally updated block
// system equals a full rebuild exactly after each of many random
// adaptations.
func TestIncrementalSystemMatches(t *testing.T) {
	s := adaptiveSheet(t, 5, 5, 6)
	rng := rand.New(rand.NewPCG(1, 2))
	n := 60
	if testing.Short() {
		n = 20
	}
	for k := 0; k < n; k++ {
		randomAdapt(s, rng)
		full := newBlockSystem(s.Mesh, s.Mesh.InteriorEdges())
		if d := systemsEqual(s.sys, full); d != "" {
			t.Fatalf("adaptation %d (%d faces): incremental system differs from the full build in %s", k, s.Mesh.NumTris(), d)
		}
	}
}

// TestAdaptSimConservation runs thousands of random adaptations, with
// steps in between, and checks that total mass and linear momentum are
// conserved exactly (to round-off) by each adaptation and that the lumped
// areas are those a full recomputation gives.
func TestAdaptSimConservation(t *testing.T) {
	s := adaptiveSheet(t, 5, 5, 6)
	rng := rand.New(rand.NewPCG(3, 4))
	mass0 := s.TotalMass()
	n := 2000
	if testing.Short() {
		n = 300
	}
	var ops int
	for k := 0; k < n; k++ {
		if k%10 == 0 {
			if _, err := s.Step(); err != nil {
				t.Fatalf("step after %d adaptations: %v", k, err)
			}
		}
		// Random velocities make every flip and join move momentum.
		for i := range s.Mesh.Vel {
			if s.Mesh.VertAlive[i] && !s.fixed[i] {
				s.Mesh.Vel[i] = Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			}
		}
		p0 := momentum(s)
		randomAdapt(s, rng)
		ch := s.ad.a.Changes()
		ops += len(ch.Faces) + len(ch.RemovedFaces)
		if got := s.TotalMass(); math.Abs(got-mass0) > 1e-12*mass0 {
			t.Fatalf("adaptation %d: total mass got=%.17g, want=%.17g", k, got, mass0)
		}
		if d := momentum(s).Sub(p0).Norm(); d > 1e-12*mass0*10 {
			t.Fatalf("adaptation %d: momentum changed by %g kg·m/s", k, d)
		}
	}
	area := make([]float64, len(s.area))
	for _, t := range s.Mesh.Tris {
		if t[0] >= 0 {
			a := RestArea(s.Mesh.Rest[t[0]], s.Mesh.Rest[t[1]], s.Mesh.Rest[t[2]]) / 3
			for _, v := range t {
				area[v] += a
			}
		}
	}
	for i := range area {
		if math.Abs(area[i]-s.area[i]) > 1e-12 {
			t.Fatalf("vertex %d: lumped area got=%v, want=%v", i, s.area[i], area[i])
		}
	}
	if ops < 1000 {
		t.Errorf("only %d face changes: the test does not exercise adaptation", ops)
	}
	t.Logf("%d adaptations, %d face changes, %d faces at the end", n, ops, s.Mesh.NumTris())
}

// TestSplitConservesMomentumAndEnergy: a lone 1-to-3 split with the
// interpolated velocity conserves Σ m·v by itself and cannot raise the
// kinetic energy (Jensen: |v̄|² ≤ mean |v_i|²); positions are untouched.
func TestSplitConservesMomentumAndEnergy(t *testing.T) {
	s := adaptiveSheet(t, 4, 4, 6)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range s.Mesh.Vel {
		s.Mesh.Vel[i] = Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	pos0 := append([]Vec3(nil), s.Mesh.Pos...)
	p0, e0 := momentum(s), s.KineticEnergy()
	s.snapshotForAdapt()
	s.ad.a.ResetChanges()
	if !s.ad.a.Refine(20) {
		t.Fatal("Refine(20) failed")
	}
	ch := s.ad.a.Changes()
	if len(ch.NewVerts) != 1 {
		t.Fatalf("a lone split made %d vertices, want 1", len(ch.NewVerts))
	}
	s.applyChanges(ch)
	if d := momentum(s).Sub(p0).Norm(); d > 1e-15 {
		t.Errorf("momentum changed by %g", d)
	}
	if e := s.KineticEnergy(); e > e0 {
		t.Errorf("kinetic energy got=%v, want ≤ %v", e, e0)
	}
	for i, p := range pos0 {
		if s.Mesh.Pos[i] != p {
			t.Errorf("vertex %d moved from %v to %v", i, p, s.Mesh.Pos[i])
		}
	}
}

// TestAdaptivePinsFollowRail: uniform refinement of the curtain pins every
// vertex that trisection puts on the pinned top edge, at its interpolated
// target, and the rail stays straight while it gathers.
func TestAdaptivePinsFollowRail(t *testing.T) {
	sc, err := LoadScene(os.DirFS("../assets"), "curtain-adaptive")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RefineUniform(4); err != nil {
		t.Fatal(err)
	}
	m := s.Mesh
	top := 0
	for i, r := range m.Rest {
		if m.VertAlive[i] && r.Y == 1.8 {
			top++
			if s.pinIndex(int32(i)) < 0 {
				t.Fatalf("top vertex %d at x=%v is not pinned", i, r.X)
			}
		}
	}
	if got, want := top, 1+20*3; got != want { // boundary faces end at g−1 = 3: one trisection
		t.Errorf("top-edge vertices got=%d, want=%d", got, want)
	}
	// Halfway through the gather (5 s to 11 s towards x = 0, to a quarter
	// of the width), every pin has moved the same fraction w of the way
	// from its material x to 0.25·x: the rail is compressed uniformly.
	w := math.NaN()
	for _, p := range s.pins {
		tgt := p.Anchor.Add(p.Path.At(8))
		x := m.Rest[p.Vertex].X
		if x == 0 {
			continue
		}
		frac := (tgt.X - (-1.23 + x)) / (0.25*x - x)
		if math.IsNaN(w) {
			w = frac
		}
		if math.Abs(tgt.Y-2) > 1e-12 || math.Abs(frac-w) > 1e-9 || !(w > 0 && w < 1) {
			t.Fatalf("pin of vertex %d (x=%v): target %v is off the rail (fraction %v, others %v)", p.Vertex, x, tgt, frac, w)
		}
	}
}

// TestAdaptiveHangingMatchesFull compares an adaptive hanging sheet with
// the same sheet uniformly refined to g_max: the base vertices, which both
// runs share, stay close.
func TestAdaptiveHangingMatchesFull(t *testing.T) {
	steps := 200
	if testing.Short() {
		steps = 60
	}
	full := adaptiveSheet(t, 6, 6, 4)
	if err := full.RefineUniform(4); err != nil {
		t.Fatal(err)
	}
	ad := adaptiveSheet(t, 6, 6, 4)
	p := ad.AdaptParams()
	p.Enabled, p.Base, p.Max = true, 0.3, 3
	if err := ad.SetAdaptParams(p); err != nil {
		t.Fatal(err)
	}
	// Base vertices keep their slots, which come first: 4 even rows of 7
	// and 3 odd rows of 8.
	const nbase = 7*4 + 8*3
	maxTris := 0
	for i := 0; i < steps; i++ {
		if _, err := full.Step(); err != nil {
			t.Fatal(err)
		}
		if _, err := ad.Step(); err != nil {
			t.Fatal(err)
		}
		maxTris = max(maxTris, ad.Mesh.NumTris())
	}
	var worst float64
	for i := 0; i < nbase; i++ {
		worst = math.Max(worst, full.Mesh.Pos[i].Sub(ad.Mesh.Pos[i]).Norm())
	}
	t.Logf("after %d steps: adaptive %d faces (peak %d), full %d; largest base-vertex distance %.3g m", steps, ad.Mesh.NumTris(), maxTris, full.Mesh.NumTris(), worst)
	if worst > 0.05 {
		t.Errorf("base vertices of the adaptive and full runs differ by up to %v m, want ≤ 0.05 m (5 %% of the sheet)", worst)
	}
	if maxTris <= 6*13 {
		t.Errorf("the adaptive run never refined (peak %d faces)", maxTris)
	}
}

// TestAdaptLongRandomParams changes the adaptive settings at random while
// the sheet swings; the run must stay finite, conserve mass and respect
// the triangle cap.
func TestAdaptLongRandomParams(t *testing.T) {
	s := adaptiveSheet(t, 5, 5, 6)
	rng := rand.New(rand.NewPCG(7, 8))
	mass0 := s.TotalMass()
	steps := 1200
	if testing.Short() {
		steps = 200
	}
	for i := 0; i < steps; i++ {
		if i%40 == 0 {
			base := 0.5 + 10*rng.Float64()
			p := AdaptParams{Enabled: rng.IntN(5) > 0, Base: base, Max: base * (1 + 10*rng.Float64()),
				CoarsenFrac: 0.05 + 0.9*rng.Float64(), GMax: rng.IntN(7), Interval: 1 + rng.IntN(6), MaxTris: 200 + rng.IntN(2000)}
			if err := s.SetAdaptParams(p); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !s.Finite() {
			t.Fatalf("step %d: not finite", i)
		}
		if n, c := s.Mesh.NumTris(), s.AdaptParams().MaxTris; n > c && s.ad.last.Refined > 0 {
			t.Fatalf("step %d: %d faces above the cap %d after a refinement", i, n, c)
		}
	}
	if got := s.TotalMass(); math.Abs(got-mass0) > 1e-12*mass0 {
		t.Errorf("total mass got=%v, want=%v", got, mass0)
	}
}

// BenchmarkAdaptStep times steps of the curtain while it gathers (the
// gather starts at once), adaptivity every 5th step, and reports the
// triangle count and the share of the step time spent adapting.
func BenchmarkAdaptStep(b *testing.B) {
	sc, err := LoadScene(os.DirFS("../assets"), "curtain-adaptive")
	if err != nil {
		b.Fatal(err)
	}
	g := sc.Pins[0].Gather
	g.Start, g.End, g.Back = 0, 1, 0
	s, err := sc.Build()
	if err != nil {
		b.Fatal(err)
	}
	for range 300 { // 1.5 s: the folds have formed
		if _, err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	var adapt, total float64
	tris := 0
	b.ResetTimer()
	for b.Loop() {
		st, err := s.Step()
		if err != nil {
			b.Fatal(err)
		}
		adapt += float64(st.Adapt)
		total += float64(st.Total())
		tris += s.Mesh.NumTris()
	}
	b.ReportMetric(float64(tris)/float64(b.N), "tris")
	b.ReportMetric(adapt/total, "adapt-share")
}
