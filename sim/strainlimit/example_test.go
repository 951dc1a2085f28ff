package strainlimit_test

import (
	"fmt"

	"drape/sim/geom"
	"drape/sim/strainlimit"
)

// A 1 m × 1 m sheet, its left edge pinned, stretched 50 % along the weft
// in one 10 ms step: Apply brings it back to the 10 % limit (within the
// default Tolerance of 0.2 % of the stretch ratio: 1.1 × 1.002 = 1.1022).
func ExampleLimiter_Apply() {
	m, _ := geom.RegularGrid(1, 1, 10, 10)
	dt := 0.01
	in := &strainlimit.Input{
		X0: m.Pos, Rest: m.Rest, Tris: m.Tris,
		V:       make([]geom.Vec3, len(m.Pos)),
		InvMass: make([]float64, len(m.Pos)),
	}
	for i, r := range m.Rest {
		in.InvMass[i] = 100 // 10 g per vertex
		if r.X == 0 {
			in.InvMass[i] = 0 // pinned
		}
		in.V[i] = geom.Vec3{X: 0.5 * r.X / dt}
	}
	l := strainlimit.NewLimiter()
	p := strainlimit.DefaultParams() // 10 % on weft and warp
	p.Enabled = true
	st, err := l.Apply(in, dt, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("strain %.2f → %.3f\n", st.MaxStrainBefore, st.MaxStrainAfter)
	// Output: strain 0.50 → 0.102
}
