package cloth_test

import (
	"errors"
	"slices"
	"testing"

	"drape/sim/cloth"
)

// TestStepInterrupted: Sim.SetInterrupt on two sheets stacked within the
// contact thickness, so that a step runs the solve, the proximity stage
// and CCD passes.
//
//   - The polls of one step come once per PCG iteration, after the solve,
//     after the proximity stage and before every CCD pass: the latency of
//     an interrupt is one iteration or one pass.
//   - A step interrupted at any of its polls returns ErrInterrupted and
//     leaves positions, velocities, time and step count exactly as before
//     (what the viewer's Loop relies on to apply a command and take the
//     step again); a poll past the last does not interrupt.
//   - Two simulations interrupted at the same poll and stepped on stay
//     equal to the bit (what a journal's replay relies on, app/journal.go).
func TestStepInterrupted(t *testing.T) {
	sheets := func() *cloth.Sim {
		s, _ := stackedSheets(t, 0.001, 1e-10)
		for range 3 {
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	polls := 0
	counter := func() bool { polls++; return false }
	s := sheets()
	s.SetInterrupt(counter)
	st, err := s.Step()
	if err != nil {
		t.Fatal(err)
	}
	if st.Substeps > 0 || st.Contact.Iterations == 0 || st.Iterations == 0 {
		t.Fatalf("the step took %d substeps, %d PCG iterations and %d CCD passes; the test needs none, some and some", st.Substeps, st.Iterations, st.Contact.Iterations)
	}
	if want := st.Iterations + 2 + st.Contact.Iterations; polls != want {
		t.Fatalf("%d polls in a step of %d PCG iterations and %d CCD passes, want %d", polls, st.Iterations, st.Contact.Iterations, want)
	}
	n := polls

	at := func(k int) func() bool {
		i := 0
		return func() bool { i++; return i == k }
	}
	for _, k := range []int{1, st.Iterations / 2, st.Iterations, st.Iterations + 1, st.Iterations + 2, n, n + 1} {
		a, b := sheets(), sheets()
		pos, vel := slices.Clone(a.Mesh.Pos), slices.Clone(a.Mesh.Vel)
		time, steps := a.Time, a.Steps
		a.SetInterrupt(at(k))
		b.SetInterrupt(at(k))
		_, errA := a.Step()
		_, errB := b.Step()
		if k > n {
			if errA != nil || a.Steps != steps+1 {
				t.Fatalf("poll %d of %d: %v, steps %d → %d; want the step taken", k, n, errA, steps, a.Steps)
			}
			continue
		}
		if !errors.Is(errA, cloth.ErrInterrupted) || !errors.Is(errB, cloth.ErrInterrupted) {
			t.Fatalf("interrupted at poll %d of %d: %v, %v; want ErrInterrupted", k, n, errA, errB)
		}
		if !slices.Equal(a.Mesh.Pos, pos) || !slices.Equal(a.Mesh.Vel, vel) || a.Time != time || a.Steps != steps {
			t.Fatalf("interrupted at poll %d of %d: the state changed (t %g → %g, steps %d → %d)", k, n, time, a.Time, steps, a.Steps)
		}
		a.SetInterrupt(nil)
		b.SetInterrupt(nil)
		for range 2 {
			if _, err := a.Step(); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(a.Mesh.Pos, b.Mesh.Pos) || !slices.Equal(a.Mesh.Vel, b.Mesh.Vel) {
			t.Fatalf("interrupted at poll %d of %d: two equal simulations differ two steps later", k, n)
		}
	}
}
