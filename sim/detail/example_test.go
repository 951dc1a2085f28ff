package detail_test

import (
	"fmt"

	"drape/sim/detail"
	"drape/sim/geom"
)

// A single triangle compressed by 10 % along x buckles out of its plane
// (Tsiknis Fig. 3.1); at rest it stays flat.
func Example() {
	rest := []geom.Vec2{{}, {X: 1}, {X: 0.5, Y: 0.8}}
	frame := func(squeeze float64) *detail.Frame {
		f := &detail.Frame{Rest: rest, Tris: [][3]int32{{0, 1, 2}}}
		for _, r := range rest {
			f.Pos = append(f.Pos, geom.Vec3{X: r.X * (1 - squeeze), Y: r.Y})
		}
		return f
	}
	p := detail.DefaultParams()
	p.Level = 2
	d := detail.NewDetailer(p)
	var s detail.Surface
	for _, sq := range []float64{0, 0.1} {
		st, err := d.Update(frame(sq), &s)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("squeeze %.1f: %d points, %d triangles, buckled: %v\n", sq, len(s.Pos), len(s.Tris), st.MaxD > 0.01)
	}
	// Output:
	// squeeze 0.0: 15 points, 16 triangles, buckled: false
	// squeeze 0.1: 15 points, 16 triangles, buckled: true
}
