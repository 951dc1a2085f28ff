package contact

import (
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

// This file tests what the impulses conserve: linear and angular
// momentum of cloth–cloth impulses and of impact-zone projections, and
// the normal direction of a frictionless body's impulses.

func momenta(c *Cloth) (p, l geom.Vec3) {
	for i := range c.X {
		if c.InvMass[i] == 0 {
			continue
		}
		m := 1 / c.InvMass[i]
		p = p.Add(c.V[i].Scale(m))
		l = l.Add(c.X[i].Cross(c.V[i]).Scale(m))
	}
	return
}

// twoLayers returns two small sheets 2 mm apart (within h = 3 mm) with
// random velocities small enough that CCD finds nothing, and random masses
// (as on an adaptive mesh).
func twoLayers(t *testing.T, seed uint64, speed float64) *Cloth {
	rng := rand.New(rand.NewPCG(seed, 7))
	a := sheet(t, 0.2, 6, 0, 0, 0, geom.Vec3{})
	b := sheet(t, 0.2, 6, 0.013, 0.007, 0.002, geom.Vec3{})
	c := join(a, b)
	for i := range c.V {
		c.V[i] = geom.Vec3{X: rng.Float64() - 0.5, Y: rng.Float64() - 0.5, Z: rng.Float64() - 0.5}.Scale(speed)
		c.InvMass[i] *= 0.5 + rng.Float64()
	}
	return c
}

// TestSelfImpulseMomentum: cloth–cloth proximity impulses conserve linear
// momentum (with and without friction) and, frictionless, angular momentum
// to round-off (the impulse acts along the line between the two contact
// points).
func TestSelfImpulseMomentum(t *testing.T) {
	for _, mu := range []float64{0, 0.5} {
		c := twoLayers(t, 3, 0.05)
		p0, l0 := momenta(c)
		p := DefaultParams()
		p.Friction = mu
		st, err := NewSolver().Resolve(c, nil, 0.005, p)
		if err != nil {
			t.Fatal(err)
		}
		if st.SelfProximity == 0 || st.CCDHits != 0 {
			t.Fatalf("μ=%v: want proximity pairs and no CCD hit, got %+v", mu, st)
		}
		p1, l1 := momenta(c)
		changed := 0
		for i := range c.V {
			_ = i
		}
		if d := p1.Sub(p0).Norm(); d > 1e-15 {
			t.Errorf("μ=%v: linear momentum changed by %g kg·m/s", mu, d)
		}
		if d := l1.Sub(l0).Norm(); mu == 0 && d > 1e-16 {
			t.Errorf("μ=%v: angular momentum changed by %g kg·m²/s", mu, d)
		}
		_ = changed
		t.Logf("μ=%v: %d pairs, |ΔP|=%.2g, |ΔL|=%.2g", mu, st.SelfProximity, p1.Sub(p0).Norm(), l1.Sub(l0).Norm())
	}
}

// TestFrictionlessBodyImpulse: with μ = 0 every velocity change a static
// body causes is along the body's face normal (a big flat two-triangle body
// under the cloth, vertices within h and falling onto it).
func TestFrictionlessBodyImpulse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	c := sheet(t, 0.3, 8, 0, 0, 0.001, geom.Vec3{})
	for i := range c.V {
		c.V[i] = geom.Vec3{X: rng.Float64() - 0.5, Y: rng.Float64() - 0.5, Z: -rng.Float64()}
	}
	v0 := append([]geom.Vec3{}, c.V...)
	pos := []geom.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 1, Y: 1}, {X: -1, Y: 1}}
	b := Body{Tris: [][3]int32{{0, 1, 2}, {0, 2, 3}}, From: pos, To: pos, Static: true}
	p := DefaultParams()
	st, err := NewSolver().Resolve(c, []Body{b}, 0.005, p)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for i := range c.V {
		d := c.V[i].Sub(v0[i])
		if d.Norm() > 0 {
			moved++
		}
		if math.Hypot(d.X, d.Y) > 1e-12*d.Norm() {
			t.Fatalf("vertex %d: velocity change %v has a tangential part", i, d)
		}
	}
	if moved == 0 {
		t.Fatalf("no vertex was pushed: %+v", st)
	}
	t.Logf("%d vertices pushed, stats %+v", moved, st)
}

// randomZone fills a cloth with n random free vertices (random masses) and
// returns it with the member list.
func randomZone(rng *rand.Rand, n int, flat bool) (*Cloth, []int32) {
	c := &Cloth{}
	var m []int32
	for i := 0; i < n; i++ {
		x := geom.Vec3{X: rng.Float64(), Y: rng.Float64() * 0.5, Z: rng.Float64() * 0.2}
		if flat {
			x.Z = 0.01 * float64(i%2) // two layers, as in a cloth–cloth zone
		}
		c.X = append(c.X, x)
		c.V = append(c.V, geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()})
		c.InvMass = append(c.InvMass, 1/(0.1+rng.Float64()))
		m = append(m, int32(i))
	}
	return c, m
}

// TestZoneProjection: rigid and enriched zones conserve the zone's linear
// and angular momentum to round-off; a rigid zone's velocities are rigid
// ((u_i − u_j)·(x_i − x_j) = 0); an enriched zone's velocities are an
// affine field u = v_c + A·r whose gradient has no stretch along the
// zone's principal axes (the diagonal of A in that frame is zero).
func TestZoneProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for _, mode := range []ZoneMode{RigidZones, EnrichedZones} {
		for trial := 0; trial < 20; trial++ {
			c, m := randomZone(rng, 5+trial, trial%2 == 1)
			s := NewSolver()
			s.c, s.dt = c, 0.005
			s.dirtyNext = make([]bool, len(c.X))
			s.p = DefaultParams()
			s.p.Zones = mode
			p0, l0 := momenta(c)
			s.projectZone(m, -1)
			p1, l1 := momenta(c)
			if d := p1.Sub(p0).Norm(); d > 1e-13*math.Max(1, p0.Norm()) {
				t.Fatalf("%s trial %d: ΔP = %g", mode, trial, d)
			}
			if d := l1.Sub(l0).Norm(); d > 1e-13*math.Max(1, l0.Norm()) {
				t.Fatalf("%s trial %d: ΔL = %g", mode, trial, d)
			}
			// Fit u = v_c + A r by least squares (exact for an affine
			// field) and check it.
			a, xc := fitAffine(c)
			resid := 0.0
			for i := range c.X {
				r := c.X[i].Sub(xc)
				for j := range c.X {
					rel := c.V[i].Sub(c.V[j]).Dot(c.X[i].Sub(c.X[j]))
					if mode == RigidZones && math.Abs(rel) > 1e-10 {
						t.Fatalf("rigid trial %d: (u_i−u_j)·(x_i−x_j) = %g", trial, rel)
					}
				}
				_ = r
			}
			_ = resid
			if mode == EnrichedZones {
				var cm [3][3]float64
				var mass float64
				for i := range c.X {
					mi := 1 / c.InvMass[i]
					mass += mi
					r := c.X[i].Sub(xc)
					rv := [3]float64{r.X, r.Y, r.Z}
					for p := 0; p < 3; p++ {
						for q := 0; q < 3; q++ {
							cm[p][q] += mi * rv[p] * rv[q]
						}
					}
				}
				_, e := geom.SymEigen3(cm)
				for k := 0; k < 3; k++ {
					ae := geom.Vec3{
						X: a[0][0]*e[k].X + a[0][1]*e[k].Y + a[0][2]*e[k].Z,
						Y: a[1][0]*e[k].X + a[1][1]*e[k].Y + a[1][2]*e[k].Z,
						Z: a[2][0]*e[k].X + a[2][1]*e[k].Y + a[2][2]*e[k].Z,
					}
					if st := e[k].Dot(ae); math.Abs(st) > 1e-8 {
						t.Fatalf("enriched trial %d: stretch e_%d·A·e_%d = %g", trial, k, k, st)
					}
				}
			}
		}
	}
}

// fitAffine returns A and the centre of mass x_c of the least-squares fit
// u_i ≈ u_c + A·(x_i − x_c) (mass-weighted).
func fitAffine(c *Cloth) ([3][3]float64, geom.Vec3) {
	var mass float64
	var xc, vc geom.Vec3
	for i := range c.X {
		mi := 1 / c.InvMass[i]
		mass += mi
		xc, vc = xc.Add(c.X[i].Scale(mi)), vc.Add(c.V[i].Scale(mi))
	}
	xc, vc = xc.Scale(1/mass), vc.Scale(1/mass)
	// Normal equations: A·C = P with C = Σ m r rᵀ, P = Σ m u rᵀ.
	var cm, pm [3][3]float64
	for i := range c.X {
		mi := 1 / c.InvMass[i]
		r := c.X[i].Sub(xc)
		u := c.V[i].Sub(vc)
		rv, uv := [3]float64{r.X, r.Y, r.Z}, [3]float64{u.X, u.Y, u.Z}
		for p := 0; p < 3; p++ {
			for q := 0; q < 3; q++ {
				cm[p][q] += mi * rv[p] * rv[q]
				pm[p][q] += mi * uv[p] * rv[q]
			}
		}
	}
	inv := inverse3(cm)
	var a [3][3]float64
	for p := 0; p < 3; p++ {
		for q := 0; q < 3; q++ {
			for k := 0; k < 3; k++ {
				a[p][q] += pm[p][k] * inv[k][q]
			}
		}
	}
	return a, xc
}

func inverse3(m [3][3]float64) [3][3]float64 {
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	var r [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			a, b := (j+1)%3, (j+2)%3
			c, d := (i+1)%3, (i+2)%3
			r[i][j] = (m[a][c]*m[b][d] - m[a][d]*m[b][c]) / det
		}
	}
	return r
}

// TestImpulseCapsLightPoint: a pinned vertex moving at 4 m/s into a face
// whose only free vertex holds weight 6·10⁻⁴ of the contact point (its
// other two pinned). The impulse that stops the approach would move that
// vertex by 4/(6·10⁻⁴) ≈ 6.7 km/s; it moves by at most responseGain
// times the 4 m/s (the same arithmetic as the edge–edge pair of the
// 39 s step of the monkey's bunny seed 411, response.go).
func TestImpulseCapsLightPoint(t *testing.T) {
	s := NewSolver()
	c := &Cloth{V: make([]geom.Vec3, 4), InvMass: []float64{0, 0, 0, 100}}
	c.V[0] = geom.Vec3{Z: -4}
	s.c = c
	s.dirtyNext = make([]bool, 4)
	pr := pair{kind: pairVF, body: -1, ids: [4]int32{0, 1, 2, 3}, w: [4]float64{1, -0.5, -0.4994, -0.0006}, n: geom.Vec3{Z: 1}}
	s.impulse(&pr, 0, 0)
	dv := c.V[3].Norm()
	if dv == 0 {
		t.Fatal("the free vertex did not move: the test checks nothing")
	}
	if dv > responseGain*4*(1+1e-12) {
		t.Errorf("the free vertex at weight 6e-4 took %.1f m/s from a 4 m/s approach, want at most %.0f", dv, responseGain*4)
	}
	t.Logf("free vertex: %.1f m/s", dv)
}
