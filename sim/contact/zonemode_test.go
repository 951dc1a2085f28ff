package contact

import (
	"math"
	"testing"

	"drape/sim/geom"
)

// This file tests the two impact-zone spaces on sliding layers: a rigid
// zone stops the sliding, an enriched one keeps it.

// TestZoneModesSliding projects one impact zone made of two layers 2 mm
// apart, the top sliding at 1 m/s over the bottom and pressed onto it at
// 0.5 m/s (Tsiknis 2006 ch. 2: rigid zones make layers stick, the shear
// modes let them slide). A rigid zone must stop the sliding (one velocity
// field, no shear); an enriched zone must keep it (the x–z shear mode
// carries the layers' relative motion) while removing the approach (no
// stretch along z), and keep at least as much kinetic energy.
func TestZoneModesSliding(t *testing.T) {
	var slide, ke, press [2]float64
	for m, mode := range []ZoneMode{RigidZones, EnrichedZones} {
		a := sheet(t, 0.1, 4, 0, 0, 0, geom.Vec3{})
		b := sheet(t, 0.1, 4, 0, 0, 0.002, geom.Vec3{X: 1, Z: -0.5})
		c := join(a, b)
		na := len(a.X)
		s := NewSolver()
		s.c, s.dt = c, 0.005
		s.p = DefaultParams()
		s.p.Zones = mode
		s.dirtyNext = make([]bool, len(c.X))
		var all []int32
		for i := range c.X {
			all = append(all, int32(i))
		}
		s.projectZone(all, -1)
		var va, vb geom.Vec3
		for i := range c.V {
			if i < na {
				va = va.Add(c.V[i].Scale(1 / float64(na)))
			} else {
				vb = vb.Add(c.V[i].Scale(1 / float64(len(c.V)-na)))
			}
			ke[m] += 0.5 / c.InvMass[i] * c.V[i].Dot(c.V[i])
		}
		slide[m], press[m] = vb.X-va.X, vb.Z-va.Z
		t.Logf("%s: sliding speed left %.3f m/s of 1, approach left %.3f m/s of 0.5, kinetic energy %.4g J", mode, slide[m], -press[m], ke[m])
	}
	if math.Abs(slide[0]) > 0.01 || math.Abs(press[0]) > 1e-9 { // a rigid rotation about y shears 2 mm layers a little
		t.Errorf("rigid zone: layers still move relative to each other: %.3g, %.3g m/s", slide[0], press[0])
	}
	if math.Abs(slide[1]-1) > 1e-9 || math.Abs(press[1]) > 1e-9 {
		t.Errorf("enriched zone: sliding %.6f m/s (want 1), approach %.3g m/s (want 0)", slide[1], press[1])
	}
	if ke[1] < ke[0] {
		t.Errorf("enriched zone kept less energy than the rigid one: %.4g < %.4g J", ke[1], ke[0])
	}
}
