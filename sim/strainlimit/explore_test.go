package strainlimit

import (
	"testing"

	"drape/sim/geom"
)

func TestExplore(t *testing.T) {
	for _, irr := range []bool{false, true} {
		for _, pin := range []bool{false, true} {
			for _, passes := range []int{8, 30, 100} {
				for _, sh := range []float64{0.2, 1.5} {
					dt := 0.01
					in := sheet(t, 40, 30, irr, geom.Vec3{X: 1.3, Y: 1.1, Z: 1}, 0.002, dt, 1)
					if pin {
						pinTop(in)
					}
					p := DefaultParams()
					p.Passes = passes
					p.MaxShear = sh
					st, err := NewLimiter().Apply(in, dt, p)
					s := PrincipalStrains(endPositions(in, dt), in.Rest, in.Tris, nil)
					t.Logf("irr=%v pin=%v passes=%d sh=%g ratio=%.4f strain=%.4f passes=%d it=%d %v err=%v max=%g", irr, pin, passes, sh, st.MaxRatioAfter, st.MaxStrainAfter, st.Passes, st.StitchIterations, st.Time, err, maxOf(s))
				}
			}
		}
	}
}
