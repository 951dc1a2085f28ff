package exact_test

import (
	"fmt"

	"drape/sim/geom"
	"drape/sim/internal/exact"
)

func ExampleTrianglesIntersect() {
	a := [3]geom.Vec3{{X: 0, Y: 0, Z: 0}, {X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 0}}
	touching := [3]geom.Vec3{{X: 1, Y: 0, Z: 0}, {X: 2, Y: 0, Z: 1}, {X: 2, Y: 1, Z: 1}}
	above := [3]geom.Vec3{{X: 0, Y: 0, Z: 1e-300}, {X: 1, Y: 0, Z: 1e-300}, {X: 0, Y: 1, Z: 1e-300}}
	fmt.Println(exact.TrianglesIntersect(a, touching), exact.TrianglesIntersect(a, above))
	// Output: true false
}
