package cloth

import (
	"math"
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// quasiStatic returns parameters that make implicit Euler relax a sheet to
// equilibrium in a few dozen steps (heavy mass damping, tight solves).
func quasiStatic(nu float64) Params {
	p := DefaultParams()
	p.PoissXY, p.PoissYX = nu, nu
	p.Dt = 0.02
	p.DampMass = 20
	p.Tolerance = 1e-9
	p.MaxIter = 5000
	return p
}

// settle steps s until every vertex is slower than vmin (m/s).
func settle(t *testing.T, s *Sim, maxSteps int, vmin float64) {
	t.Helper()
	for k := 0; k < maxSteps; k++ {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if k > 5 && s.MaxSpeed() < vmin {
			return
		}
	}
	t.Fatalf("not settled after %d steps: max speed %.3g m/s", maxSteps, s.MaxSpeed())
}

// delaunaySag is hangingSag on an irregular Delaunay mesh (IrregularGrid)
// of about tris triangles, with ν = 0.
func delaunaySag(t *testing.T, tris int) float64 {
	m, err := geom.IrregularGrid(1, 1, tris, 3)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(m, quasiStatic(0))
	if err != nil {
		t.Fatal(err)
	}
	var bottom []int
	for i, r := range m.Rest {
		if r.Y > 1-1e-12 {
			s.Pin(int32(i), m.Pos[i])
		}
		if r.Y < 1e-12 {
			bottom = append(bottom, i)
		}
	}
	settle(t, s, 500, 1e-9)
	var sag float64
	for _, i := range bottom {
		sag -= m.Pos[i].Y
	}
	return sag / float64(len(bottom))
}

// hangingSag returns the mean downward displacement of the bottom edge of
// a 1 m × 1 m sheet in the xy-plane clamped along its top edge, after it
// settles under gravity.
func hangingSag(t *testing.T, n int, jitter, nu float64) float64 {
	m := simtest.Grid(t, 1, 1, n, n, jitter, 1)
	s, err := New(m, quasiStatic(nu))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range m.Rest {
		if r.Y > 1-1e-12 {
			s.Pin(int32(i), m.Pos[i])
		}
	}
	settle(t, s, 500, 1e-9)
	var sag float64
	for i := 0; i <= n; i++ { // the bottom row, rest y = 0
		sag -= m.Pos[i].Y
	}
	return sag / float64(n+1)
}

// TestStaticsHangingSagConverges checks the sag of a sheet hanging from
// its top edge as the mesh is refined. With ν = 0 the plane-stress
// solution is that of a bar under its own weight (ε_x = 0 everywhere, so
// the clamp does not disturb it), u_y(bottom) = ρ·g·L²/(2·E_y), which
// linear elements reach at second order; on jittered
// meshes and with ν = 0.33 (no closed form) successive differences must
// shrink.
func TestStaticsHangingSagConverges(t *testing.T) {
	simtest.SkipUnderRace(t)
	ns := []int{4, 8, 16, 32}
	if testing.Short() {
		ns = ns[:3]
	}
	p := DefaultParams()
	exact := p.Density * 9.81 * 1 / (2 * p.YoungY)
	var errs []float64
	for _, n := range ns {
		errs = append(errs, math.Abs(hangingSag(t, n, 0, 0)-exact))
	}
	// Second order would give 4 per halving; the solver tolerance adds
	// noise of about 1e-8 m, so allow 2.5 per step and ask for the overall
	// slope.
	for i := 1; i < len(errs); i++ {
		if r := errs[i-1] / errs[i]; r < 2.5 {
			t.Errorf("regular mesh, ν=0: error ratio %d→%d = %.3g, want ≥ 2.5; errors %v", ns[i-1], ns[i], r, errs)
		}
	}
	if r := errs[0] / errs[len(errs)-1]; r < 0.5*math.Pow(4, float64(len(errs)-1)) {
		t.Errorf("regular mesh, ν=0: error fell only %.3g× from n=%d to n=%d, want second order; errors %v", r, ns[0], ns[len(ns)-1], errs)
	}
	if e := errs[len(errs)-1] / exact; e > 0.01 {
		t.Errorf("finest regular mesh off the analytic sag by %.3g%%, want < 1%%", 100*e)
	}
	var derrs []float64
	for _, n := range []int{100, 400, 1600, 6400}[:len(ns)] {
		derrs = append(derrs, math.Abs(delaunaySag(t, n)-exact))
	}
	for i := 1; i < len(derrs); i++ {
		if !(derrs[i] < derrs[i-1]) {
			t.Errorf("Delaunay mesh ν=0: error does not shrink under refinement: %v", derrs)
		}
	}
	if e := derrs[len(derrs)-1] / exact; e > 0.01 {
		t.Errorf("finest Delaunay mesh off the analytic sag by %.3g%%, want < 1%%", 100*e)
	}
	for _, c := range []struct {
		name       string
		jitter, nu float64
	}{{"regular ν=0.33", 0, 0.33}, {"irregular ν=0", 0.3, 0}, {"irregular ν=0.33", 0.3, 0.33}} {
		var sags, diffs []float64
		for _, n := range ns {
			sags = append(sags, hangingSag(t, n, c.jitter, c.nu))
		}
		for i := 1; i < len(sags); i++ {
			diffs = append(diffs, math.Abs(sags[i]-sags[i-1]))
		}
		for i := 1; i < len(diffs); i++ {
			if !(diffs[i] < diffs[i-1]) {
				t.Errorf("%s: successive sag differences do not shrink: sags %v", c.name, sags)
			}
		}
	}
}

// TestStaticsPinReactions hangs a horizontal sheet from two corners, lets
// it settle into its 3D drape, and checks that the pins' reactions add up
// to the sheet's weight (and have no net horizontal part).
func TestStaticsPinReactions(t *testing.T) {
	simtest.SkipUnderRace(t)
	for _, c := range []struct {
		name   string
		jitter float64
	}{{"regular", 0}, {"irregular", 0.3}} {
		t.Run(c.name, func(t *testing.T) {
			const n = 12
			m := simtest.Grid(t, 1, 1, n, n, c.jitter, 5)
			for i, r := range m.Rest {
				m.Pos[i] = geom.Vec3{r.X, 1, -r.Y}
			}
			p := quasiStatic(0.33)
			p.Bending = 1e-4
			p.DampMass = 5 // about critical for the sheet's pendulum mode, √(g/L)≈3/s
			s, err := New(m, p)
			if err != nil {
				t.Fatal(err)
			}
			s.Pin(0, m.Pos[0])
			s.Pin(n, m.Pos[n])
			settle(t, s, 3000, 1e-6)
			var sum geom.Vec3
			for _, r := range s.PinReactions() {
				sum = sum.Add(r)
			}
			w := s.TotalMass() * 9.81
			if d := math.Abs(sum.Y-w) / w; d > 0.01 {
				t.Errorf("vertical reaction %.6g N, want weight %.6g N (off by %.3g%%)", sum.Y, w, 100*d)
			}
			if h := math.Hypot(sum.X, sum.Z); h > 0.01*w {
				t.Errorf("net horizontal reaction %.3g N, want ≈ 0 (weight %.3g N)", h, w)
			}
			if lo, _ := m.Bounds(); lo.Y > 0.5 {
				t.Errorf("sheet did not drape: lowest point y=%.3g m", lo.Y)
			}
		})
	}
}
