package contact

import (
	"math"
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestLayersLeaveInOrder: six sheets stacked 3 cm apart under the ground
// (a half-space), as a crumpled cloth lies after it fell through the
// ground with collisions off, with no gravity, leave it within 0.25 s
// when collisions are on, and none of them leaves faster than the
// escape's contract allows: the escape is a displacement the cloth does
// not keep (escapeBody, taken back as the cloth does, takeBack), so
// every velocity after the take-back stays near PushSpeed. The stack's
// top at 5 cm, 30 cm and 1 m: the first straddles the 10 cm where the
// escape takes over from the repulsion (escapeBody), the others lie
// wholly in it. Measured: out after 0.085–0.165 s, 0–70 CCD hits, no
// vertex kept faster than 2.03 m/s. Before the escape kept the layers'
// order (the whole overlap a step from 10 cm on), the deeper layers ran
// into the shallower ones on their way out, 18 521–40 743 CCD hits, and
// CCD's impulses handed the escape's velocity to the layers they hit,
// which kept 15–39 m/s.
func TestLayersLeaveInOrder(t *testing.T) {
	simtest.SkipUnderRace(t)
	const (
		layers = 6
		dt     = 0.005
	)
	ground := Body{Normal: geom.Vec3{Z: 1}, Friction: 0.3}
	for _, top := range []float64{0.05, 0.3, 1.0} {
		var c *Cloth
		for k := 0; k < layers; k++ {
			// offset in x and y so that no two layers' vertices line up
			sh := sheet(t, 0.6, 16, 0.003*float64(k), 0.002*float64(k), -top-0.03*float64(k), geom.Vec3{})
			if c == nil {
				c = sh
			} else {
				c = join(c, sh)
			}
		}
		s := NewSolver()
		p := DefaultParams()
		hits, fastest, out := 0, 0.0, math.Inf(1)
		for step := 0; step < 60; step++ {
			st, err := stepExplicit(s, c, []Body{ground}, dt, geom.Vec3{}, p)
			if err != nil {
				t.Fatalf("top %.2f m: step %d: %v", top, step, err)
			}
			takeBack(c, s.Escape())
			hits += st.CCDHits
			low := math.Inf(1)
			for i, x := range c.X {
				low = min(low, x.Z)
				fastest = max(fastest, c.V[i].Norm())
			}
			if math.IsInf(out, 1) && low > -p.Thickness {
				out = dt * float64(step+1)
			}
		}
		n := selfCrossings(c.X, c.Tris)
		t.Logf("top %.2f m: out after %.3f s, fastest %.2f m/s, %d CCD hits, %d crossing pairs", top, out, fastest, hits, n)
		if out > 0.25 {
			t.Errorf("top %.2f m: the stack was out of the ground after %.3f s, want within 0.25 s", top, out)
		}
		if fastest > 1.5*PushSpeed {
			t.Errorf("top %.2f m: a vertex kept %.2f m/s, want at most 1.5·PushSpeed (%g m/s)", top, fastest, 1.5*PushSpeed)
		}
		if n > 0 {
			t.Errorf("top %.2f m: %d pairs of faces cross", top, n)
		}
	}
}

// takeBack takes the escape back from the velocities the cloth keeps, as
// cloth.Sim does after the step's positions: the part of each velocity
// along its escape, up to the escape's length.
func takeBack(c *Cloth, esc []geom.Vec3) {
	for i, e := range esc {
		if n2 := e.Dot(e); n2 > 0 {
			if along := c.V[i].Dot(e) / n2; along > 0 {
				c.V[i] = c.V[i].Sub(e.Scale(min(along, 1)))
			}
		}
	}
}
