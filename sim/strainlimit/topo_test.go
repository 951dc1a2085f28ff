package strainlimit

import (
	"math"
	"testing"

	"drape/sim/geom"
)

// TestTopologyChange: one Limiter applied to a sequence of different meshes
// (sizes, free face slots, unused vertex slots, as an adaptive mesh has)
// gives exactly what a fresh Limiter gives on each.
func TestTopologyChange(t *testing.T) {
	dt := 0.01
	shared := NewLimiter()
	for k, c := range []struct {
		nx, ny int
		irr    bool
	}{{20, 15, false}, {12, 9, true}, {20, 15, false}, {25, 10, true}} {
		in := sheet(t, c.nx, c.ny, c.irr, geom.Vec3{X: 1.25, Y: 1.05, Z: 1}, 0.002, dt, uint64(k))
		if k%2 == 1 { // free the last face slots and leave an unused vertex slot
			in.Tris[len(in.Tris)-1] = [3]int32{-1, -1, -1}
			in.X0 = append(in.X0, geom.Vec3{X: math.NaN()})
			in.V = append(in.V, geom.Vec3{})
			in.InvMass = append(in.InvMass, 1)
			in.Rest = append(in.Rest, geom.Vec2{})
		}
		a, b := clone(in), clone(in)
		if _, err := shared.Apply(a, dt, onParams()); err != nil {
			t.Fatal(err)
		}
		if _, err := NewLimiter().Apply(b, dt, onParams()); err != nil {
			t.Fatal(err)
		}
		for i := range a.V {
			if a.V[i] != b.V[i] {
				t.Fatalf("mesh %d: vertex %d: reused Limiter %v, fresh %v", k, i, a.V[i], b.V[i])
			}
		}
	}
}

// TestShearLimit: a sheet sheared by 0.3 rad (fibres at rest length) ends
// with every face's fibre angle change within MaxShear = 0.1 rad, to the
// tolerance, with the stretch limit satisfied too.
func TestShearLimit(t *testing.T) {
	dt := 0.01
	in := sheet(t, 20, 15, false, geom.Vec3{X: 1, Y: 1, Z: 1}, 0, dt, 13)
	for i, r := range in.Rest { // x* = (X + tan(0.3)·Y, Y)·cos(0.3)-ish: pure shear
		tgt := geom.Vec3{X: r.X + math.Sin(0.3)*r.Y, Y: math.Cos(0.3) * r.Y, Z: in.X0[i].Z}
		in.V[i] = tgt.Sub(in.X0[i]).Scale(1 / dt)
	}
	p := onParams()
	p.MaxShear, p.Passes = 0.1, 200
	st, err := NewLimiter().Apply(in, dt, p)
	if err != nil {
		t.Fatal(err)
	}
	x := endPositions(in, dt)
	var worst float64
	for _, tr := range in.Tris {
		g, _ := shapeGradients(in.Rest[tr[0]], in.Rest[tr[1]], in.Rest[tr[2]])
		xs := [3]geom.Vec3{x[tr[0]], x[tr[1]], x[tr[2]]}
		f1, f2 := deformation(&xs, &g)
		gamma := math.Asin(math.Abs(f1.Dot(f2)) / (f1.Norm() * f2.Norm()))
		worst = math.Max(worst, gamma)
	}
	t.Logf("shear 0.3 rad → %.4f rad (limit 0.1), %d passes, ratio %.5f, strain %.4f", worst, st.Passes, st.MaxRatioAfter, st.MaxStrainAfter)
	// ratio ≤ 1+tol on the bias diagonal means |cos φ| ≤ (1+tol)²(1+sin γ) − 1.
	want := math.Asin(math.Pow(1+p.Tolerance, 2)*(1+math.Sin(p.MaxShear))-1) + 1e-12
	if worst > want || st.MaxRatioAfter > 1+p.Tolerance {
		t.Errorf("fibre angle change %.5f rad, want ≤ %.5f (ratio %g)", worst, want, st.MaxRatioAfter)
	}
}
