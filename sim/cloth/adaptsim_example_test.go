package cloth_test

import (
	"fmt"

	"drape/sim/cloth"
	"drape/sim/geom"
)

// A curtain's base mesh is refined uniformly to g_max = 6, the
// full-resolution mesh that the adaptive simulation approximates, and a
// second copy is set up to adapt every 5th step. Refinement moves no
// vertex and conserves the mass.
func ExampleSim_SetAdaptParams() {
	newCurtain := func() *cloth.Sim {
		m, err := geom.StaggeredGrid(2.46, 1.8, 20, 20)
		if err != nil {
			panic(err)
		}
		s, err := cloth.New(m, cloth.DefaultParams())
		if err != nil {
			panic(err)
		}
		return s
	}
	full := newCurtain()
	fmt.Printf("base: %d triangles, %.4f kg\n", full.Mesh.NumTris(), full.TotalMass())
	if err := full.RefineUniform(6); err != nil {
		panic(err)
	}
	fmt.Printf("full resolution: %d triangles, %.4f kg\n", full.Mesh.NumTris(), full.TotalMass())

	adaptive := newCurtain()
	p := cloth.DefaultAdaptParams() // g_max = 6, every 5th step
	p.CoarsenFrac = 1.5
	fmt.Println(adaptive.SetAdaptParams(p))
	p.CoarsenFrac = 0.5
	fmt.Println(adaptive.SetAdaptParams(p), adaptive.AdaptParams().Interval)
	// Output:
	// base: 820 triangles, 0.4428 kg
	// full resolution: 22140 triangles, 0.4428 kg
	// adaptivity: coarsen must be in [0.001, 0.999], got 1.5
	// <nil> 5
}
