package app

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestPlotHistoryCoversTheRun feeds the Stats plots 5000 steps: the
// history must stay within histLen samples and still reach back to the
// start of the run, evenly spaced (Bender & Deul fig. 6 plots the
// triangle count over the whole run), rather than only the last histLen
// steps.
func TestPlotHistoryCoversTheRun(t *testing.T) {
	var u plotHistory
	const n = 5000
	for i := 1; i <= n; i++ {
		var s Snapshot
		s.Stats.Steps, s.Stats.Time, s.Stats.Triangles = i, 0.005*float64(i), 820+i
		s.Stats.Solve = time.Duration(i) * time.Microsecond
		u.observe(&s)
	}
	h := u.time
	if len(h) > histLen || len(h) < histLen/2 || len(u.tris) != len(h) || len(u.ms) != len(h) {
		t.Fatalf("history lengths: time %d, triangles %d, ms %d; want equal, in [%d, %d]", len(h), len(u.tris), len(u.ms), histLen/2, histLen)
	}
	if h[0] > 0.05*0.005*n {
		t.Errorf("history starts at t = %v s, want within the first 5 %% of the %v s run", h[0], 0.005*n)
	}
	dt := h[1] - h[0]
	for i := 1; i < len(h); i++ {
		if d := h[i] - h[i-1]; math.Abs(float64(d-dt)) > 1e-4 {
			t.Fatalf("samples %d–%d are %v s apart, want every %v s", i-1, i, d, dt)
		}
		if want := 820 + float32(h[i])/0.005; math.Abs(float64(u.tris[i]-want)) > 0.5 {
			t.Fatalf("sample %d: triangles %v at t = %v, want %v (series out of step)", i, u.tris[i], h[i], want)
		}
	}
	t.Logf("%d samples, t = %v…%v s, every %v s", len(h), h[0], h[len(h)-1], dt)
}

// TestWiden: a slider's float32 becomes the decimal it shows, and no
// float32 changes on the way (float64(f) would give 2.0999999046325684
// for 2.1).
func TestWiden(t *testing.T) {
	for _, want := range []float64{2.1, 0.1, 1e-3, 3, 0.33, 1000, 2e-4, -9.81} {
		if got := widen(float32(want)); got != want {
			t.Errorf("widen(float32(%v)) = %v", want, got)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		f := math.Float32frombits(rng.Uint32())
		if g := widen(f); float32(g) != f && !(f != f && g != g) {
			t.Fatalf("widen(%v) = %v reads back as %v", f, g, float32(g))
		}
	}
}
