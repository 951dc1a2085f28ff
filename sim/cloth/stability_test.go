package cloth

import (
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestUnstableStepLosesNothing drives a sheet into a blow-up with an
// absurd time step for its stiffness and checks that Step reports
// ErrUnstable and leaves the last good state in place.
func TestUnstableStepLosesNothing(t *testing.T) {
	m := simtest.Grid(t, 1, 1, 6, 6, 0, 1)
	p := DefaultParams()
	s, err := New(m, p)
	if err != nil {
		t.Fatal(err)
	}
	s.Pin(0, m.Pos[0])
	// Yank the pin 100 m in one step: the required speed is 20 km/s.
	if err := s.Pin(0, m.Pos[0].Add(geom.Vec3{100, 0, 0})); err != nil {
		t.Fatal(err)
	}
	before := append([]geom.Vec3(nil), m.Pos...)
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
