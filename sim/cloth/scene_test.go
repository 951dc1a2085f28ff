package cloth_test

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"drape/assets"
	"drape/sim/internal/simtest"
	"drape/sim/scene"
)

// TestAdaptivePinsFollowRail: uniform refinement of the curtain pins every
// vertex that trisection puts on the pinned top edge, at its interpolated
// target, and the rail stays straight while it gathers.
func TestAdaptivePinsFollowRail(t *testing.T) {
	sc, err := scene.LoadScene(assets.Scenes, "curtain-adaptive")
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
	pins := s.Pins()
	pinned := map[int32]bool{}
	for _, p := range pins {
		pinned[p.Vertex] = true
	}
	top := 0
	for i, r := range m.Rest {
		if m.VertAlive[i] && r.Y == 1.8 {
			top++
			if !pinned[int32(i)] {
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
	for _, p := range pins {
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

// BenchmarkAdaptStep times steps of the curtain while it gathers (the
// gather starts at once), adaptivity every 5th step, and reports the
// triangle count and the share of the step time spent adapting.
func BenchmarkAdaptStep(b *testing.B) {
	sc, err := scene.LoadScene(assets.Scenes, "curtain-adaptive")
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

// TestCurtainStability runs Bender & Deul's curtain (§7; 22140 triangles)
// for 1200 steps at Δt = 5 ms from t = 4 s (1 s at rest, then the pins
// gather it from 5 s; DRAPE_LONG=1: 2000 steps from 0) and for 200 steps
// at Δt = 20 ms from t = 5 s (while gathering), requiring finite states
// and a bounded kinetic energy: no more than the potential energy the
// whole curtain could release by falling its own height, m·g·H, far above
// anything the slow rail motion can inject.
func TestCurtainStability(t *testing.T) {
	if testing.Short() {
		t.Skip("long physics run; see the full (non -short) suite")
	}
	type run struct {
		dt    float64
		steps int
		start float64
	}
	runs := []run{{0.005, 1200, 4}, {0.02, 200, 5}}
	if simtest.Long() {
		runs[0] = run{0.005, 2000, 0}
	}
	for _, c := range runs {
		t.Run(fmt.Sprintf("dt=%v", c.dt), func(t *testing.T) {
			sc, err := scene.LoadScene(assets.Scenes, "curtain")
			if err != nil {
				t.Fatal(err)
			}
			s, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			p := s.Params()
			p.Dt = c.dt
			if err := s.SetParams(p); err != nil {
				t.Fatal(err)
			}
			s.Time = c.start
			lo, hi := s.Mesh.Bounds()
			bound := s.TotalMass() * 9.81 * (hi.Y - lo.Y)
			var maxKE float64
			for k := 0; k < c.steps; k++ {
				if _, err := s.Step(); err != nil {
					t.Fatalf("step %d: %v", k, err)
				}
				ke := s.KineticEnergy()
				maxKE = math.Max(maxKE, ke)
				if !(ke <= bound) || !s.Finite() {
					t.Fatalf("step %d (t=%.2f s): kinetic energy %.3g J (bound %.3g J), finite=%v", k, s.Time, ke, bound, s.Finite())
				}
			}
			t.Logf("max kinetic energy %.3g J (bound %.3g J), max speed at end %.3g m/s", maxKE, bound, s.MaxSpeed())
		})
	}
}

// TestDeterminism checks that a fixed scene gives bit-identical positions
// whatever the number of cores: parallel loops cut work into a fixed
// number of chunks and add partial sums in chunk order.
func TestDeterminism(t *testing.T) {
	run := func(procs int) uint64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		sc, err := scene.LoadScene(assets.Scenes, "hanging")
		if err != nil {
			t.Fatal(err)
		}
		s, err := sc.Build()
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 100; k++ {
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return stateHash(s.Mesh)
	}
	h1, h2, h4 := run(1), run(2), run(4)
	if h1 != h2 || h1 != h4 {
		t.Errorf("position hashes differ with the core count: 1→%x 2→%x 4→%x", h1, h2, h4)
	}
}
