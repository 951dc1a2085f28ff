package contact

import (
	"math"
	"testing"

	"drape/sim/geom"
)

// This file tests the round bodies (round.go): sheets dropped on an
// analytic sphere and capsule must stay outside their tessellations, a
// moving sphere pushes a sheet without passing through, and frictionless
// impulses stay normal.

// roundSphere returns an analytic sphere body of radius r at c (static)
// and, for the test's own checks, an icosphere of subdivision 3 whose
// vertices lie on it (inside the solid, as the obstacle package's
// tessellation).
func roundSphere(r float64, c geom.Vec3) (Body, Body) {
	return Body{Radius: r, Core: [2]geom.Vec3{c, c}, CoreTo: [2]geom.Vec3{c, c}, Friction: 0.3}, sphereBody(r, 3, c)
}

// TestDropOnRoundBodies drops a sheet of free particles at 10 m/s onto an
// analytic sphere and onto a capsule lying along x (each over the ground),
// and checks at every step with the test's own predicates that no cloth
// vertex is inside the solid (distance to the core below the radius) and,
// for the sphere, that no cloth triangle crosses a 1280-face icosphere
// whose vertices lie on it. The sheet must reach the body (some vertex
// within 1 cm of its surface at some step: the sheet's 6 cm faces lying on
// the capsule keep their vertices the sagitta, 5 mm, above it), and no
// impact zone may be needed.
func TestDropOnRoundBodies(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 60
	}
	ground := Body{Point: geom.Vec3{Z: -0.3}, Normal: geom.Vec3{Z: 1}, Friction: 0.3}
	sphere, mesh := roundSphere(0.3, geom.Vec3{})
	capsule := Body{Radius: 0.1, Core: [2]geom.Vec3{{X: -0.3}, {X: 0.3}}, CoreTo: [2]geom.Vec3{{X: -0.3}, {X: 0.3}}, Friction: 0.3}
	for _, tc := range []struct {
		name  string
		body  Body
		check *Body // the mesh inside the solid, or nil
	}{{"sphere", sphere, &mesh}, {"capsule", capsule, nil}} {
		t.Run(tc.name, func(t *testing.T) {
			c := sheet(t, 1, 16, 0.03, -0.02, 0.35, geom.Vec3{Z: -10})
			bodies := []Body{tc.body, ground}
			s := NewSolver()
			p := DefaultParams()
			p.SelfCollision = false
			var sum Stats
			nearest := math.Inf(1)
			for step := 0; step < steps; step++ {
				st, err := stepExplicit(s, c, bodies, 0.005, gravity, p)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				sum.Proximity += st.Proximity
				sum.CCDHits += st.CCDHits
				sum.Zones += st.Zones
				if st.Zones > 0 {
					t.Logf("step %d: %+v", step, st)
				}
				for i, x := range c.X {
					q, _ := segmentPoint(x, tc.body.Core[0], tc.body.Core[1])
					d := x.Sub(q).Norm() - tc.body.Radius
					nearest = math.Min(nearest, d)
					if d < 0 {
						t.Fatalf("step %d: vertex %d inside the %s by %.3g m", step, i, tc.name, -d)
					}
				}
				if tc.check != nil {
					if n := crossingsWithBody(c.X, c.Tris, tc.check); n > 0 {
						t.Fatalf("step %d: %d cloth triangles cross the sphere's mesh", step, n)
					}
				}
			}
			t.Logf("%s: proximity %d, CCD hits %d, zones %d; nearest vertex over the run %.2f mm off the surface", tc.name, sum.Proximity, sum.CCDHits, sum.Zones, 1e3*nearest)
			if sum.CCDHits == 0 || nearest > 0.01 {
				t.Errorf("the sheet did not reach the %s", tc.name)
			}
			if sum.Zones > 0 {
				t.Errorf("%d impact zones were needed", sum.Zones)
			}
		})
	}
}

// TestMovingRoundSphere pushes an analytic sphere at 5 m/s up through a
// horizontal sheet whose border is pinned (kinematic vertices): it must
// carry the free vertices along, none inside it and no cloth triangle
// across its inscribed mesh, the pins unmoved, and the sheet's top must
// follow the sphere's.
func TestMovingRoundSphere(t *testing.T) {
	c, pinned := borderPinnedSheet(t)
	const r, dt, speed = 0.2, 0.005, 5.0
	centre := geom.Vec3{X: 0.02, Y: -0.03, Z: -0.25}
	s := NewSolver()
	p := DefaultParams()
	var sum Stats
	for step := 0; step < 30; step++ {
		next := centre.Add(geom.Vec3{Z: speed * dt})
		b := Body{Radius: r, Core: [2]geom.Vec3{centre, centre}, CoreTo: [2]geom.Vec3{next, next}, Friction: 0.3}
		st, err := stepExplicit(s, c, []Body{b}, dt, geom.Vec3{}, p)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		sum.CCDHits += st.CCDHits
		sum.Zones += st.Zones
		sum.Proximity += st.Proximity
		centre = next
		mesh := sphereBody(r, 4, centre)
		checkCarried(t, step, c, pinned, func(x geom.Vec3) bool { return x.Sub(centre).Norm() < r }, &mesh)
	}
	top := topZ(c)
	if top < centre.Z+r-0.02 {
		t.Errorf("the cloth's top at %.3f m did not follow the sphere's top at %.3f m", top, centre.Z+r)
	}
	t.Logf("stats over the run: %+v; cloth top %.3f, sphere top %.3f", sum, top, centre.Z+r)
}

// TestRoundFrictionless: with μ = 0, the impulses of a round body change
// each cloth vertex's velocity along contact normals only (radial from the
// core), so the tangential momentum of a sheet sliding over a sphere's top
// is unchanged by a step that stops its fall.
func TestRoundFrictionless(t *testing.T) {
	c := sheet(t, 0.2, 6, 0, 0, 0.3015, geom.Vec3{X: 1, Z: -2})
	b := Body{Radius: 0.3, Core: [2]geom.Vec3{}, CoreTo: [2]geom.Vec3{}}
	before := append([]geom.Vec3{}, c.V...)
	s := NewSolver()
	p := DefaultParams()
	p.SelfCollision = false
	st, err := s.Resolve(c, []Body{b}, 0.005, p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Proximity == 0 {
		t.Fatal("no contact: the test checks nothing")
	}
	changed := 0
	for i := range c.V {
		dv := c.V[i].Sub(before[i])
		if dv.Norm() == 0 {
			continue
		}
		changed++
		// The change must be parallel to some direction from the core
		// through the face points near vertex i: check that it has no
		// component along the sheet's sliding direction beyond what
		// the radial directions of the cap (within 0.1 rad) allow.
		radial := c.X[i].Unit()
		tang := dv.Sub(radial.Scale(dv.Dot(radial)))
		if tang.Norm() > 0.15*dv.Norm() {
			t.Errorf("vertex %d: Δv %v has a tangential part %v", i, dv, tang)
		}
	}
	if changed == 0 {
		t.Error("no velocity changed")
	}
}
