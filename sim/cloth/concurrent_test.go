package cloth_test

import (
	"runtime"
	"sync"
	"testing"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/scene"
)

// TestConcurrentSims runs three simulations at once, each stepped on its
// own goroutine as the viewer's side-by-side mode steps two, and compares
// every one's state hash with the same run done alone: bit for bit, on
// one, two and four goroutines. The three share the process's worker pool
// (sim/parallel) and the collision passes' per-piece lists, so a pass of
// one that read another's job, or a sum whose pieces depended on who ran
// them, shows here; under -race the detector checks the pool's hand-over
// as well. The scenes cover the FEM solve (hanging), adaptivity with
// self-collision (curtain-adaptive) and adaptivity with the collision
// pipeline against an obstacle and the repulsion springs in the solve
// (sphere-adaptive).
func TestConcurrentSims(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	steps := 120
	if testing.Short() {
		steps = 30
	}
	runs := []struct {
		scene string
		skip  int  // steps taken before the timed part, alone
		adapt bool // keep adaptivity (curtain-adaptive)
	}{{"hanging", 0, false}, {"curtain-adaptive", 1300, true}, {"sphere-adaptive", 0, true}}
	if testing.Short() {
		runs[1].skip = 0
	}
	// start returns each scene's simulation after its skipped steps.
	start := func() []*cloth.Sim {
		var sims []*cloth.Sim
		for _, r := range runs {
			sc, err := scene.LoadScene(assets.Scenes, r.scene)
			if err != nil {
				t.Fatal(err)
			}
			if r.scene == "curtain-adaptive" {
				sc.Contact.Enabled = false // the golden run's setting: it gathers and refines fast
			}
			s, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			for range r.skip {
				if _, err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			sims = append(sims, s)
		}
		return sims
	}
	step := func(s *cloth.Sim) error {
		for range steps {
			if _, err := s.Step(); err != nil {
				return err
			}
		}
		return nil
	}
	runtime.GOMAXPROCS(2)
	alone := start()
	want := make([]uint64, len(alone))
	for i, s := range alone {
		if err := step(s); err != nil {
			t.Fatalf("%s alone: %v", runs[i].scene, err)
		}
		want[i] = stateHash(s.Mesh)
	}
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		sims := start()
		errs := make([]error, len(sims))
		var wg sync.WaitGroup
		for i, s := range sims {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = step(s)
			}()
		}
		wg.Wait()
		for i, s := range sims {
			if errs[i] != nil {
				t.Errorf("GOMAXPROCS=%d: %s beside the others: %v", procs, runs[i].scene, errs[i])
			} else if got := stateHash(s.Mesh); got != want[i] {
				t.Errorf("GOMAXPROCS=%d: %s beside the others: state hash %#x, want %#x as alone (%d triangles)", procs, runs[i].scene, got, want[i], s.Mesh.NumTris())
			}
		}
	}
}
