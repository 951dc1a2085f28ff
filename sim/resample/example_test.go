package resample_test

import (
	"fmt"

	"drape/sim/geom"
	"drape/sim/resample"
)

// A 1 m × 1 m sheet of two faces, bent along its diagonal, sampled at a
// vertex (exact), in the flat face, and in the bent one, where (0.25, 0.75)
// has barycentric coordinates ¼, ¼, ½ on corners 0, 2, 3.
func ExampleSampler_Positions() {
	rest := []geom.Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 0, Y: 1}}
	pos := []geom.Vec3{{X: 0, Y: 0, Z: 0}, {X: 1, Y: 0, Z: 0}, {X: 1, Y: 1, Z: 0}, {X: 0, Y: 0.6, Z: 0.8}}
	m, err := geom.NewMesh(pos, rest, [][3]int32{{0, 1, 2}, {0, 2, 3}})
	if err != nil {
		panic(err)
	}
	s := resample.New([]geom.Vec2{{X: 1, Y: 1}, {X: 0.75, Y: 0.25}, {X: 0.25, Y: 0.75}}, 0)
	out := make([]geom.Vec3, s.Len())
	if err := s.Positions(m, out); err != nil {
		panic(err)
	}
	for _, p := range out {
		fmt.Printf("(%.2f, %.2f, %.2f)\n", p.X, p.Y, p.Z)
	}
	// Output:
	// (1.00, 1.00, 0.00)
	// (0.75, 0.25, 0.00)
	// (0.25, 0.55, 0.40)
}
