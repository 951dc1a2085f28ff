package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"testing"

	"drape/assets"
)

// TestCurtainStability runs Bender & Deul's curtain (§7; 22140 triangles)
// for 2000 steps at Δt = 5 ms (rest, then the pins start gathering it at
// 5 s) and for 200 steps at Δt = 20 ms from t = 5 s (while gathering),
// requiring finite states and a bounded kinetic energy: no more than the
// potential energy the whole curtain could release by falling its own
// height, m·g·H, far above anything the slow rail motion can inject.
func TestCurtainStability(t *testing.T) {
	if testing.Short() {
		t.Skip("long physics run; see the full (non -short) suite")
	}
	for _, c := range []struct {
		dt    float64
		steps int
		start float64
	}{{0.005, 2000, 0}, {0.02, 200, 5}} {
		t.Run(fmt.Sprintf("dt=%v", c.dt), func(t *testing.T) {
			sc, err := LoadScene(assets.Scenes, "curtain")
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

// positionsHash returns an FNV-1a hash of the bits of all live positions.
func positionsHash(m *Mesh) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i, p := range m.Pos {
		if !m.VertAlive[i] {
			continue
		}
		for _, x := range [3]float64{p.X, p.Y, p.Z} {
			u := math.Float64bits(x)
			for k := range b {
				b[k] = byte(u >> (8 * k))
			}
			h.Write(b[:])
		}
	}
	return h.Sum64()
}

// TestDeterminism checks that a fixed scene gives bit-identical positions
// whatever the number of cores: parallel loops cut work into a fixed
// number of chunks and add partial sums in chunk order.
func TestDeterminism(t *testing.T) {
	run := func(procs int) uint64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		sc, err := LoadScene(assets.Scenes, "hanging")
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
		return positionsHash(s.Mesh)
	}
	h1, h2, h4 := run(1), run(2), run(4)
	if h1 != h2 || h1 != h4 {
		t.Errorf("position hashes differ with the core count: 1→%x 2→%x 4→%x", h1, h2, h4)
	}
}

// TestUnstableStepLosesNothing drives a sheet into a blow-up with an
// absurd time step for its stiffness and checks that Step reports
// ErrUnstable and leaves the last good state in place.
func TestUnstableStepLosesNothing(t *testing.T) {
	m := testGrid(t, 1, 1, 6, 6, 0, 1)
	p := DefaultParams()
	s, err := New(m, p)
	if err != nil {
		t.Fatal(err)
	}
	s.Pin(0, m.Pos[0])
	// Yank the pin 100 m in one step: the required speed is 20 km/s.
	if err := s.Pin(0, m.Pos[0].Add(Vec3{100, 0, 0})); err != nil {
		t.Fatal(err)
	}
	before := append([]Vec3(nil), m.Pos...)
	steps := s.Steps
	_, err = s.Step()
	if err == nil {
		t.Fatal("Step accepted a 20 km/s pin jump")
	}
	if !errorsIs(err, ErrUnstable) {
		t.Errorf("error %v does not wrap ErrUnstable", err)
	}
	for i := range before {
		if m.Pos[i] != before[i] {
			t.Fatalf("vertex %d moved from %v to %v in a failed step", i, before[i], m.Pos[i])
		}
	}
	if s.Steps != steps {
		t.Errorf("step count advanced to %d after a failed step", s.Steps)
	}
}
