package app

// framePacer caps the render rate at a number of frames per second by
// deadlines: frame k may start at t₀ + k/fps, so the rate holds on average
// however long each frame and each sleep take. Catch-up is capped at one
// frame: a frame that finds itself more than a frame late (a hitch, an
// idle wait) restarts the schedule from now instead of rushing frames to
// make up the time (STYLE.md: time is an argument, Ebitengine's clock).
type framePacer struct {
	period  float64 // s per frame; 0: no cap
	next    float64 // when the next frame may start, s on the caller's clock
	started bool
}

// newFramePacer returns a pacer for fps frames per second; fps ≤ 0 means
// no cap.
func newFramePacer(fps int) framePacer {
	if fps <= 0 {
		return framePacer{}
	}
	return framePacer{period: 1 / float64(fps)}
}

// delay returns how long to wait, s, before starting the next frame when
// a frame has just ended at time now (s, any clock that only goes
// forward); 0 without a cap.
func (p *framePacer) delay(now float64) float64 {
	if !(p.period > 0) {
		return 0
	}
	p.next += p.period
	if !p.started || p.next < now-p.period {
		p.next, p.started = now, true
	}
	return max(0, p.next-now)
}
