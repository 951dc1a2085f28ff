package headless

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestBenchAll: "drape bench --scene A,B" runs each scene for the same
// simulated time, a FEM and a spring cloth alike, and reports Δt over
// the mean step as the real-time factor; with a clock that moves 1 ms
// per reading every step takes 1 ms.
func TestBenchAll(t *testing.T) {
	var clock time.Time
	now := func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	res, err := BenchAll(BenchOptions{Scene: "hanging,springs-sheet", Seconds: 0.2, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scenes) != 2 {
		t.Fatalf("got %d rows, want 2", len(res.Scenes))
	}
	for _, c := range []struct {
		scene, model string
		steps        int
		realTime     float64
	}{
		{"hanging", "fem", 40, 5},              // Δt 5 ms
		{"springs-sheet", "springs", 400, 0.5}, // Δt 0.5 ms
	} {
		var f *SceneFigures
		for i := range res.Scenes {
			if res.Scenes[i].Scene == c.scene {
				f = &res.Scenes[i]
			}
		}
		if f == nil {
			t.Fatalf("no row for %s in %+v", c.scene, res.Scenes)
		}
		if f.Model != c.model || f.Steps != c.steps || !f.Finite || f.MsPerStepMean != 1 || f.MsPerStepMedian != 1 {
			t.Errorf("%s: got model %s, %d steps, finite %v, %v/%v ms; want %s, %d, true, 1/1 ms",
				c.scene, f.Model, f.Steps, f.Finite, f.MsPerStepMean, f.MsPerStepMedian, c.model, c.steps)
		}
		if d := f.RealTime - c.realTime; d < -1e-9 || d > 1e-9 {
			t.Errorf("%s: real-time factor got=%v, want=%v", c.scene, f.RealTime, c.realTime)
		}
		if c.model == "fem" && (f.PCGIterations <= 0 || f.SolveShare <= 0) {
			t.Errorf("%s: PCG iterations %v, solve share %v; want some of each (the share is of the fake clock's time)", c.scene, f.PCGIterations, f.SolveShare)
		}
	}
	var out bytes.Buffer
	WriteBenchAllTable(&out, res)
	if !strings.Contains(out.String(), "| hanging | 5 |") || !strings.Contains(out.String(), "| springs-sheet (springs) | 0.5 |") {
		t.Errorf("table:\n%s", out.String())
	}
	if _, err := BenchAll(BenchOptions{Scene: "hanging,no-such-scene", Seconds: 0.01}); err == nil {
		t.Error("an unknown scene in the list: no error")
	}
}
