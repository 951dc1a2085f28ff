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

// TestBenchAllStarts: with --starts each FEM scene's row pools its
// starts' steps (a spring scene runs once), and poolSides' figures are
// those of the steps together: the mean and the median over all of them,
// and the range of the starts' own means.
func TestBenchAllStarts(t *testing.T) {
	var clock time.Time
	now := func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	res, err := BenchAll(BenchOptions{Scene: "hanging,springs-sheet", Seconds: 0.1, Starts: 3, Perturb: 5, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if res.Starts != 3 || res.Perturb != 5 || len(res.Scenes) != 2 {
		t.Fatalf("got %d starts from %d, %d rows; want 3 from 5, 2 rows", res.Starts, res.Perturb, len(res.Scenes))
	}
	if f := res.Scenes[0]; f.Scene != "hanging" || f.Starts != 3 || f.Steps != 60 || f.MeanLo != 1 || f.MeanHi != 1 {
		t.Errorf("hanging: %d starts, %d steps, means %v–%v; want 3, 60, 1–1", f.Starts, f.Steps, f.MeanLo, f.MeanHi)
	}
	if f := res.Scenes[1]; f.Scene != "springs-sheet" || f.Starts != 1 || f.Steps != 200 {
		t.Errorf("springs-sheet: %d starts, %d steps; want 1, 200", f.Starts, f.Steps)
	}
	var out bytes.Buffer
	WriteBenchAllTable(&out, res)
	if !strings.Contains(out.String(), "3 starts of each FEM scene (--perturb 5 to 7;") || !strings.Contains(out.String(), "| hanging | 5 | 1800 | 1.00 (1.00–1.00) |") {
		t.Errorf("table:\n%s", out.String())
	}

	_, s := buildScene(t, "hanging")
	side := func(ms ...int) *benchSide {
		b := &benchSide{s: s}
		for _, m := range ms {
			b.rec.wall = append(b.rec.wall, time.Duration(m)*time.Millisecond)
			b.rec.iters = append(b.rec.iters, m)
			b.rec.adapt = append(b.rec.adapt, 0)
			b.rec.collide = append(b.rec.collide, time.Duration(m)*time.Millisecond/2)
			b.triSum += 100
		}
		b.run.PeakTriangles = 100 * len(ms)
		return b
	}
	r, lo, hi := poolSides([]*benchSide{side(1, 3), side(8), side(2, 2, 2)})
	if r.Steps != 6 || r.MsPerStepMean != 3 || r.MsPerStepMedian != 2 || r.PCGIterations != 3 || lo != 2 || hi != 8 {
		t.Errorf("pooled: %d steps, mean %v, median %v, PCG %v, means %v–%v; want 6, 3, 2, 3, 2–8", r.Steps, r.MsPerStepMean, r.MsPerStepMedian, r.PCGIterations, lo, hi)
	}
	if r.CollideShare != 0.5 || r.AvgTriangles != 100 || r.PeakTriangles != 300 || !r.Finite {
		t.Errorf("pooled: collision share %v, triangles %v (peak %d), finite %v; want 0.5, 100 (300), true", r.CollideShare, r.AvgTriangles, r.PeakTriangles, r.Finite)
	}
}
