package springs_test

import (
	"fmt"

	"drape/sim/springs"
)

// Example runs the 2×2 cloth of fig. 5 with dynamic subdivision for a quarter of a
// second (the hanging-spring criterion refines it to layer 2) and draws it.
func Example() {
	spec, err := springs.Scene("small-dynamic")
	if err != nil {
		panic(err)
	}
	c, err := springs.New(spec, springs.DefaultParams())
	if err != nil {
		panic(err)
	}
	for c.Time() < 0.25 {
		if err := c.Step(); err != nil {
			panic(err)
		}
	}
	var s springs.Surface
	c.Surface(&s)
	n := c.Counts()
	fmt.Printf("active %d, fixed %d, interpolated %d, depth %d, %d triangles\n", n.Active, n.Fixed, n.Interpolated, n.Depth, len(s.Tris))
	// Output:
	// active 23, fixed 2, interpolated 0, depth 2, 32 triangles
}
