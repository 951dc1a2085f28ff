package headless

import (
	"math"
	"testing"
	"time"
)

// TestTimeline: each step falls in the window its end lies in (a step
// ending on a window's end in that window, whatever the round-off of
// i·dt), the means are over that window's steps, and a run that stopped
// early has empty windows after its last step.
func TestTimeline(t *testing.T) {
	side := func(steps int, base float64) *benchSide {
		b := &benchSide{}
		for i := 1; i <= steps; i++ {
			// Step i: 100+i triangles, i iterations, 2i springs, i ms,
			// i/10 ms of collisions, shifted by base.
			b.rec.wall = append(b.rec.wall, time.Duration((base+float64(i))*float64(time.Millisecond)))
			b.rec.collide = append(b.rec.collide, time.Duration((base+float64(i))*float64(time.Millisecond)/10))
			b.rec.iters = append(b.rec.iters, int(base)+i)
			b.run.tris = append(b.run.tris, 100+int(base)+i)
			b.run.sprs = append(b.run.sprs, 2*(int(base)+i))
		}
		return b
	}
	mean := func(lo, hi int, base, add float64) float64 { // of base+i+add over steps lo..hi
		return base + add + 0.5*float64(lo+hi)
	}
	for _, c := range []struct {
		dt, span    float64
		full, ad    int
		wantWindows int
		split       [][2]int // per window: first and last step, 1-based
	}{
		// Steps end at 0.25, 0.5, …: steps 1–4 end in (0, 1], 5–8 in (1, 2].
		{0.25, 1, 10, 6, 3, [][2]int{{1, 4}, {5, 8}, {9, 12}}},
		// 3·0.1 is 0.30000000000000004 in float64: step 3 still ends the
		// first window of 0.3 s.
		{0.1, 0.3, 9, 9, 3, [][2]int{{1, 3}, {4, 6}, {7, 9}}},
	} {
		full, ad := side(c.full, 0), side(c.ad, 1000)
		got := timeline(full, ad, c.dt, c.span)
		if len(got) != c.wantWindows {
			t.Fatalf("dt %v span %v: %d windows, want %d", c.dt, c.span, len(got), c.wantWindows)
		}
		for k, w := range got {
			if w.From != float64(k)*c.span || w.To != float64(k+1)*c.span {
				t.Errorf("window %d: (%v, %v], want (%v, %v]", k, w.From, w.To, float64(k)*c.span, float64(k+1)*c.span)
			}
			for _, r := range []struct {
				name  string
				m     WindowMeans
				steps int
				base  float64
			}{{"full", w.Full, c.full, 0}, {"adaptive", w.Adaptive, c.ad, 1000}} {
				lo, hi := c.split[k][0], min(c.split[k][1], r.steps)
				if hi < lo {
					if r.m != (WindowMeans{}) {
						t.Errorf("%s window %d: %+v, want empty (the run stopped at step %d)", r.name, k, r.m, r.steps)
					}
					continue
				}
				if r.m.Steps != hi-lo+1 {
					t.Errorf("%s window %d: %d steps, want %d (steps %d–%d)", r.name, k, r.m.Steps, hi-lo+1, lo, hi)
					continue
				}
				var triIters float64
				for i := lo; i <= hi; i++ {
					triIters += (100 + r.base + float64(i)) * (r.base + float64(i))
				}
				triIters /= float64(hi - lo + 1)
				for _, f := range []struct {
					name      string
					got, want float64
				}{
					{"triangles", r.m.Triangles, mean(lo, hi, r.base, 100)},
					{"iterations", r.m.PCGIterations, mean(lo, hi, r.base, 0)},
					{"triangles × iterations", r.m.TriIters, triIters},
					{"springs", r.m.Springs, 2 * mean(lo, hi, r.base, 0)},
					{"ms", r.m.Ms, mean(lo, hi, r.base, 0)},
					{"collision ms", r.m.CollideMs, mean(lo, hi, r.base, 0) / 10},
				} {
					if math.Abs(f.got-f.want) > 1e-9*math.Abs(f.want) {
						t.Errorf("%s window %d: %s %v, want %v", r.name, k, f.name, f.got, f.want)
					}
				}
			}
		}
	}
}
