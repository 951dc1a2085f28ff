package contact

import (
	"math"
	"testing"

	"drape/sim/geom"
)

// This file tests Coulomb friction against its analytic outcome: a sheet
// on an incline sticks or slides with acceleration g(sin θ − μ cos θ).

// TestIncline puts a small sheet on a plane inclined at θ = 30° (a
// half-space and, separately, a two-triangle mesh body) and integrates
// gravity explicitly for 1 s: with μ = 0.7 > tan θ the sheet must stick
// (mean displacement under 1 mm), with μ = 0.3 and 0 it must slide with
// acceleration g(sin θ − μ cos θ) within 5 %.
func TestIncline(t *testing.T) {
	th := 30 * math.Pi / 180
	n := geom.Vec3{X: -math.Sin(th), Z: math.Cos(th)} // plane normal
	down := geom.Vec3{X: -math.Cos(th), Z: -math.Sin(th)}
	side := geom.Vec3{Y: 1}
	const g, T, dt = 9.81, 1.0, 0.005
	for _, kind := range []string{"half-space", "mesh"} {
		for _, mu := range []float64{0.7, 0.3, 0} {
			var body Body
			if kind == "half-space" {
				body = Body{Normal: n, Friction: mu}
			} else {
				var pos []geom.Vec3
				for _, q := range [][2]float64{{-5, -5}, {5, -5}, {5, 5}, {-5, 5}} {
					pos = append(pos, down.Scale(-q[0]).Add(side.Scale(q[1])))
				}
				body = Body{Tris: [][3]int32{{0, 1, 2}, {0, 2, 3}}, From: pos, To: pos, Static: true, Friction: mu}
			}
			c := sheet(t, 0.1, 4, 0, 0, 0, geom.Vec3{})
			for i, x := range c.X {
				c.X[i] = down.Scale(-x.X).Add(side.Scale(x.Y)).Add(n.Scale(0.5 * DefaultParams().Thickness))
			}
			x0 := append([]geom.Vec3{}, c.X...)
			s := NewSolver()
			p := DefaultParams()
			p.SelfCollision = false
			steps := int(math.Round(T / dt))
			for k := 0; k < steps; k++ {
				if _, err := stepExplicit(s, c, []Body{body}, dt, geom.Vec3{Z: -g}, p); err != nil {
					t.Fatal(err)
				}
			}
			var disp, vel float64
			for i := range c.X {
				disp += c.X[i].Sub(x0[i]).Dot(down)
				vel += c.V[i].Dot(down)
			}
			disp /= float64(len(c.X))
			vel /= float64(len(c.X))
			want := g * (math.Sin(th) - mu*math.Cos(th))
			if mu > math.Tan(th) {
				if math.Abs(disp) > 1e-3 {
					t.Errorf("%s μ=%v: slid %.4g m, want it to stick", kind, mu, disp)
				}
				continue
			}
			// x = ½at² from rest; v = a·t.
			aDisp, aVel := 2*disp/(T*T), vel/T
			if math.Abs(aDisp-want) > 0.05*want || math.Abs(aVel-want) > 0.05*want {
				t.Errorf("%s μ=%v: acceleration %.4g (from displacement), %.4g (from velocity), want %.4g", kind, mu, aDisp, aVel, want)
			}
			t.Logf("%s μ=%v: a = %.4g / %.4g m/s², want %.4g", kind, mu, aDisp, aVel, want)
		}
	}
}
