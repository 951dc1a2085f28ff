package cloth_test

import (
	"fmt"

	"drape/sim/cloth"
	"drape/sim/geom"
)

// A 1 m × 1 m sheet of Bender & Deul's curtain fabric hangs from its top
// edge: the bottom edge sags by ρ·g·L²/(2·E) ≈ 0.49 mm (with ν = 0).
func Example() {
	m, err := geom.RegularGrid(1, 1, 16, 16) // 512 triangles, world = material, z = 0
	if err != nil {
		panic(err)
	}
	p := cloth.DefaultParams()
	p.PoissXY, p.PoissYX = 0, 0
	p.Dt, p.DampMass, p.Tolerance = 0.02, 20, 1e-9 // relax quickly to equilibrium
	s, err := cloth.New(m, p)
	if err != nil {
		panic(err)
	}
	for i, r := range m.Rest {
		if r.Y == 1 {
			s.Pin(int32(i), m.Pos[i])
		}
	}
	for k := 0; k < 200; k++ {
		if _, err := s.Step(); err != nil {
			panic(err)
		}
	}
	fmt.Printf("mass %.3f kg, sag %.3f mm\n", s.TotalMass(), -1000*m.Pos[8].Y)
	// Output: mass 0.100 kg, sag 0.491 mm
}
