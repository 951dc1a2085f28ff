package app

import (
	"math"
	"testing"
)

// TestFramePacer runs the pacer on a synthetic clock (no sleeping): each
// frame takes render seconds, then the loop waits what delay says, plus
// oversleep (a sleep that wakes late). Over 10 s it must draw fps frames
// a second when frames are fast, as many as it can when they are slow,
// and after one 0.5 s hitch start at most one frame without waiting
// (catch-up capped at a frame).
func TestFramePacer(t *testing.T) {
	for _, c := range []struct {
		name                string
		fps                 int
		render, oversleep   float64 // s
		hitchAt             float64 // s; 0: none
		wantRate, tolerance float64 // frames per second
	}{
		{"60 fps, fast frames", 60, 0.002, 0, 0, 60, 0.2},
		{"60 fps, sleeps wake 1 ms late", 60, 0.002, 0.001, 0, 60, 0.2},
		{"30 fps", 30, 0.010, 0.0005, 0, 30, 0.2},
		{"60 fps, 25 ms frames", 60, 0.025, 0, 0, 40, 0.2},
		{"60 fps, one 0.5 s hitch", 60, 0.002, 0, 3, 60 - 0.5*60/10, 0.5},
		{"no cap", 0, 0.004, 0, 0, 250, 0.2},
	} {
		p := newFramePacer(c.fps)
		now, frames, rushed := 0.0, 0, 0
		hitched := false
		for now < 10 {
			now += c.render
			if c.hitchAt > 0 && !hitched && now >= c.hitchAt {
				now += 0.5
				hitched = true
				rushed = -1 // the frame right after the hitch may start at once
			}
			frames++
			d := p.delay(now)
			if d < 0 || math.IsNaN(d) {
				t.Fatalf("%s: delay got=%v, want ≥ 0", c.name, d)
			}
			if hitched && d == 0 && c.fps > 0 {
				rushed++
			}
			if d > 0 {
				now += d + c.oversleep
			}
		}
		rate := float64(frames) / now
		if math.Abs(rate-c.wantRate) > c.tolerance {
			t.Errorf("%s: rate got=%.2f fps, want=%.2f ± %.2f", c.name, rate, c.wantRate, c.tolerance)
		}
		if rushed > 0 {
			t.Errorf("%s: %d frames after the hitch started without waiting, want ≤ 1", c.name, rushed+1)
		}
	}
}
