package cloth

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestUnstableStepLosesNothing drives a sheet into a blow-up with an
// absurd time step for its stiffness and checks that Step reports
// ErrUnstable and leaves the last good state exactly in place: positions,
// velocities, pins (a scripted one included), time and step count.
func TestUnstableStepLosesNothing(t *testing.T) {
	m := simtest.Grid(t, 1, 1, 6, 6, 0, 1)
	p := DefaultParams()
	s, err := New(m, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PinPath(6, &Path{Times: []float64{0, 1}, Offsets: []geom.Vec3{{}, {0, 0, 0.5}}}); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 5; k++ { // some motion, so that velocities are not zero
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	// A vertex thrown at 20 km/s: no substep brings it under the speed
	// limit. (A pin put 100 m away did this once; a new pin that far now
	// travels at HandSpeed, see Pin.)
	if err := s.SetVelocity(0, geom.Vec3{X: 20000}); err != nil {
		t.Fatal(err)
	}
	pos := slices.Clone(m.Pos)
	vel := slices.Clone(m.Vel)
	pins := s.Pins()
	steps, time := s.Steps, s.Time
	_, err = s.Step()
	if err == nil {
		t.Fatal("Step accepted a vertex at 20 km/s")
	}
	if !errors.Is(err, ErrUnstable) {
		t.Errorf("error %v does not wrap ErrUnstable", err)
	}
	if !slices.Equal(pos, m.Pos) || !slices.Equal(vel, m.Vel) {
		t.Error("positions or velocities changed in a failed step")
	}
	if !reflect.DeepEqual(pins, s.Pins()) {
		t.Errorf("pins changed in a failed step: got=%v, want=%v", s.Pins(), pins)
	}
	if s.Steps != steps || s.Time != time {
		t.Errorf("step count, time got=%d, %v, want=%d, %v after a failed step", s.Steps, s.Time, steps, time)
	}
}

// TestEscapeUnderSpeedLimit: the collision phase's escape from deep
// inside a body (contact.EscapeMax) is a velocity that checkVelocity
// counts before commit takes it back, so it must stay well under the
// speed at which a step counts as a blow-up: with it at 200 m/s, a sheet
// 40 m under the ground failed the first step after collisions came
// back on (scene.TestCollisionsBackOnDeepInside).
func TestEscapeUnderSpeedLimit(t *testing.T) {
	if contact.EscapeMax > speedLimit/2 {
		t.Errorf("contact.EscapeMax %g m/s: want at most half of speedLimit, %d m/s", contact.EscapeMax, speedLimit)
	}
}
