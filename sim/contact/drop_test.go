package contact

import (
	"fmt"
	"math"
	"testing"

	"drape/sim/geom"
)

// This file drops sheets of free particles onto meshes, the ground and
// each other, and checks every step with the test's own predicates that
// no vertex is inside a body and no two triangles cross.

var gravity = geom.Vec3{Z: -9.81}

// TestDropOnBodies drops a sheet of free particles (no internal forces: the
// hardest case for collisions, since nothing holds the triangles together)
// at 10 m/s onto a sphere mesh, a box mesh and the ground, and checks at
// every step with the test's own predicates that no cloth vertex is inside
// the body and no cloth triangle crosses a body triangle.
func TestDropOnBodies(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 60
	}
	ground := Body{Point: geom.Vec3{Z: -0.3}, Normal: geom.Vec3{Z: 1}, Friction: 0.3}
	for _, tc := range []struct {
		name string
		body Body
	}{
		{"sphere", sphereBody(0.3, 2, geom.Vec3{})},
		{"box", boxBody(geom.Vec3{X: -0.25, Y: -0.2, Z: -0.3}, geom.Vec3{X: 0.2, Y: 0.25, Z: 0.1})},
		{"ground", ground},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sheet(t, 1, 16, 0.03, -0.02, 0.35, geom.Vec3{Z: -10})
			bodies := []Body{tc.body}
			if tc.body.Tris != nil {
				bodies = append(bodies, ground)
			}
			s := NewSolver()
			p := DefaultParams()
			p.SelfCollision = false
			var sum Stats
			defer func() {
				t.Logf("%s: proximity %d, CCD hits %d, zones %d", tc.name, sum.Proximity, sum.CCDHits, sum.Zones)
				// The impulses alone resolve a sheet against one convex
				// body: impact zones are the last resort.
				if sum.Zones > 0 {
					t.Errorf("%s: %d impact zones were needed", tc.name, sum.Zones)
				}
			}()
			for step := 0; step < steps; step++ {
				st, err := stepExplicit(s, c, bodies, 0.005, gravity, p)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				sum.Proximity += st.Proximity
				sum.CCDHits += st.CCDHits
				sum.Zones += st.Zones
				for i, x := range c.X {
					if tc.body.Tris == nil {
						if x.Z < -0.3 {
							t.Fatalf("step %d: vertex %d below the ground: z=%v", step, i, x.Z)
						}
						continue
					}
					if insideConvex(&tc.body, x, 0) {
						t.Fatalf("step %d: vertex %d inside the %s at %v", step, i, tc.name, x)
					}
				}
				if tc.body.Tris != nil {
					if n := crossingsWithBody(c.X, c.Tris, &tc.body); n > 0 {
						t.Fatalf("step %d: %d cloth triangles cross the %s (stats %+v)", step, n, tc.name, st)
					}
				}
			}
		})
	}
}

// TestDropPile drops two overlapping sheets 2 cm apart onto the ground with
// self-collision on, for both zone modes: no two non-adjacent cloth
// triangles may intersect at any step (the test's brute-force check).
func TestDropPile(t *testing.T) {
	steps := 100
	if testing.Short() {
		steps = 50
	}
	for _, tc := range []struct {
		mode ZoneMode
		ccd  int
	}{{RigidZones, 5}, {EnrichedZones, 5}, {RigidZones, 1}, {EnrichedZones, 1}} {
		mode := tc.mode
		t.Run(fmt.Sprintf("%s/ccd=%d", mode, tc.ccd), func(t *testing.T) {
			a := sheet(t, 0.6, 10, 0, 0, 0.05, geom.Vec3{Z: -3})
			b := sheet(t, 0.6, 10, 0.1, 0.07, 0.07, geom.Vec3{X: -0.5, Z: -5})
			d := sheet(t, 0.5, 9, -0.05, 0.02, 0.1, geom.Vec3{X: 2, Y: -1, Z: -12})
			c := join(join(a, b), d)
			ground := Body{Point: geom.Vec3{}, Normal: geom.Vec3{Z: 1}, Friction: 0.5}
			s := NewSolver()
			p := DefaultParams()
			p.Zones = mode
			p.CCDIterations = tc.ccd
			zones, prox, hits := 0, 0, 0
			for step := 0; step < steps; step++ {
				st, err := stepExplicit(s, c, []Body{ground}, 0.005, gravity, p)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				zones += st.Zones
				prox += st.SelfProximity
				hits += st.CCDHits
				if n := selfCrossings(c.X, c.Tris); n > 0 {
					t.Fatalf("step %d: %d intersecting cloth triangle pairs (stats %+v)", step, n, st)
				}
				for i, x := range c.X {
					if x.Z < 0 {
						t.Fatalf("step %d: vertex %d below the ground", step, i)
					}
				}
			}
			t.Logf("%s: self proximity %d, CCD hits %d, zones %d over the run", mode, prox, hits, zones)
			if tc.ccd == 1 && zones == 0 {
				t.Error("one CCD pass left no impact zone: the zone passes went untested")
			}
		})
	}
}

// TestTangle starts two sheets crossing each other (intersecting from the
// first step) and checks that 100 steps with self-collision stay finite.
func TestTangle(t *testing.T) {
	a := sheet(t, 0.5, 8, 0, 0, 0.1, geom.Vec3{})
	b := sheet(t, 0.5, 8, 0, 0, 0.1, geom.Vec3{})
	// Tilt b about the x axis so that it cuts through a.
	for i := range b.X {
		y := b.X[i].Y
		b.X[i].Y, b.X[i].Z = 0.8*y, 0.1+0.6*y+0.013
	}
	c := join(a, b)
	if n := IntersectingPairs(c.X, c.Tris); n == 0 {
		t.Fatal("the tangle does not start tangled")
	}
	ground := Body{Normal: geom.Vec3{Z: 1}, Friction: 0.5}
	s := NewSolver()
	p := DefaultParams()
	fails := 0
	for step := 0; step < 100; step++ {
		if _, err := stepExplicit(s, c, []Body{ground}, 0.005, gravity, p); err != nil {
			fails++
		}
		for i := range c.X {
			if !c.X[i].IsFinite() || !c.V[i].IsFinite() || c.V[i].Norm() > 100 {
				t.Fatalf("step %d: vertex %d: x=%v v=%v", step, i, c.X[i], c.V[i])
			}
		}
	}
	t.Logf("tangle: %d of 100 steps unresolved, %d intersecting pairs at the end", fails, IntersectingPairs(c.X, c.Tris))
}

// TestMovingSphere pushes a sphere mesh at 5 m/s up through a horizontal
// sheet whose border is pinned (kinematic vertices, InvMass 0): the sphere
// must carry the free vertices along, never letting one inside or a
// triangle cross it; the pinned vertices must not move.
func TestMovingSphere(t *testing.T) {
	c, pinned := borderPinnedSheet(t)
	pos, tris := geom.Icosphere(2)
	const r, dt, speed = 0.2, 0.005, 5.0
	at := func(z float64) []geom.Vec3 {
		out := make([]geom.Vec3, len(pos))
		for i, p := range pos {
			out[i] = p.Scale(r).Add(geom.Vec3{X: 0.02, Y: -0.03, Z: z})
		}
		return out
	}
	s := NewSolver()
	p := DefaultParams()
	z := -0.25
	var sum Stats
	for step := 0; step < 30; step++ {
		b := Body{Tris: tris, From: at(z), To: at(z + speed*dt), Friction: 0.3}
		st, err := stepExplicit(s, c, []Body{b}, dt, geom.Vec3{}, p)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		sum.CCDHits += st.CCDHits
		sum.Zones += st.Zones
		sum.Proximity += st.Proximity
		z += speed * dt
		checkCarried(t, step, c, pinned, func(x geom.Vec3) bool { return insideConvex(&b, x, 0) }, &b)
	}
	top := topZ(c)
	if top < z+r-0.02 {
		t.Errorf("the cloth's top at %.3f m did not follow the sphere's top at %.3f m", top, z+r)
	}
	t.Logf("stats over the run: %+v; cloth top %.3f, sphere top %.3f", sum, top, z+r)
}

// TestThinBox drops a sheet at 3 m/s onto a 1 cm thick box with Δt = 20 ms
// (15 cm per step against 1 cm of box): nothing may tunnel through.
func TestThinBox(t *testing.T) {
	box := boxBody(geom.Vec3{X: -0.3, Y: -0.3, Z: -0.01}, geom.Vec3{X: 0.3, Y: 0.3, Z: 0})
	c := sheet(t, 0.4, 8, 0.01, 0.02, 0.1, geom.Vec3{Z: -3})
	s := NewSolver()
	p := DefaultParams()
	for step := 0; step < 20; step++ {
		if _, err := stepExplicit(s, c, []Body{box}, 0.02, gravity, p); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		for i, x := range c.X {
			if x.Z < 0 {
				t.Fatalf("step %d: vertex %d went through the box top: z = %v", step, i, x.Z)
			}
		}
		if n := crossingsWithBody(c.X, c.Tris, &box); n > 0 {
			t.Fatalf("step %d: %d cloth triangles cross the box", step, n)
		}
	}
}

// borderPinnedSheet returns a 1 m horizontal sheet of 16 × 16 quads whose
// border vertices are pinned (InvMass 0), and its positions at the start.
func borderPinnedSheet(t *testing.T) (*Cloth, []geom.Vec3) {
	t.Helper()
	c := sheet(t, 1, 16, 0, 0, 0, geom.Vec3{})
	for i, x := range c.X {
		if math.Abs(x.X) > 0.49 || math.Abs(x.Y) > 0.49 {
			c.InvMass[i] = 0
		}
	}
	return c, append([]geom.Vec3{}, c.X...)
}

// checkCarried fails the test when, after a step of a body pushed through
// a pinned sheet, a pinned vertex moved, a vertex is inside the body, or a
// cloth triangle crosses the body's mesh.
func checkCarried(t *testing.T, step int, c *Cloth, pinned []geom.Vec3, inside func(geom.Vec3) bool, mesh *Body) {
	t.Helper()
	for i, x := range c.X {
		if c.InvMass[i] == 0 && x != pinned[i] {
			t.Fatalf("step %d: pinned vertex %d moved", step, i)
		}
		if inside(x) {
			t.Fatalf("step %d: vertex %d inside the sphere", step, i)
		}
	}
	if n := crossingsWithBody(c.X, c.Tris, mesh); n > 0 {
		t.Fatalf("step %d: %d cloth triangles cross the sphere", step, n)
	}
}

// topZ returns the largest z of the cloth's vertices.
func topZ(c *Cloth) float64 {
	top := math.Inf(-1)
	for _, x := range c.X {
		top = math.Max(top, x.Z)
	}
	return top
}

// TestDirtyPassBoxes: a CCD pass over the changed velocities recomputes
// only the boxes of the vertices whose velocity changed and of their faces
// (detect). A call ends with a pass that found nothing, after which no
// velocity changes, so every box must then equal one computed afresh from
// the final velocities, in calls that took several passes too.
func TestDirtyPassBoxes(t *testing.T) {
	a := sheet(t, 0.6, 10, 0, 0, 0.05, geom.Vec3{Z: -3})
	b := sheet(t, 0.6, 10, 0.1, 0.07, 0.07, geom.Vec3{X: -0.5, Z: -5})
	d := sheet(t, 0.5, 9, -0.05, 0.02, 0.1, geom.Vec3{X: 2, Y: -1, Z: -12})
	c := join(join(a, b), d)
	bodies := []Body{{Point: geom.Vec3{}, Normal: geom.Vec3{Z: 1}, Friction: 0.5}}
	s := NewSolver()
	p := DefaultParams()
	const dt = 0.005
	several := 0
	for step := 0; step < 60; step++ {
		for i := range c.V {
			if c.InvMass[i] > 0 {
				c.V[i] = c.V[i].Add(gravity.Scale(dt))
			}
		}
		st, err := s.Resolve(c, bodies, dt, p)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if st.Iterations > 1 {
			several++
		}
		e := 0.5 * s.delta
		ext := geom.Vec3{X: e, Y: e, Z: e}
		pad := geom.Vec3{X: s.delta, Y: s.delta, Z: s.delta}
		for i, x := range c.X {
			y := x.Add(c.V[i].Scale(dt))
			lo := geom.Vec3{X: math.Min(x.X, y.X), Y: math.Min(x.Y, y.Y), Z: math.Min(x.Z, y.Z)}
			hi := geom.Vec3{X: math.Max(x.X, y.X), Y: math.Max(x.Y, y.Y), Z: math.Max(x.Z, y.Z)}
			if s.swLo[i] != lo || s.swHi[i] != hi || s.plo[i] != lo.Sub(ext) || s.phi[i] != hi.Add(ext) {
				t.Fatalf("step %d (%d passes): vertex %d's box %v–%v, afresh %v–%v", step, st.Iterations, i, s.swLo[i], s.swHi[i], lo, hi)
			}
		}
		for f, tr := range c.Tris {
			lo, hi := s.swLo[tr[0]], s.swHi[tr[0]]
			for _, v := range tr[1:] {
				lo = geom.Vec3{X: math.Min(lo.X, s.swLo[v].X), Y: math.Min(lo.Y, s.swLo[v].Y), Z: math.Min(lo.Z, s.swLo[v].Z)}
				hi = geom.Vec3{X: math.Max(hi.X, s.swHi[v].X), Y: math.Max(hi.Y, s.swHi[v].Y), Z: math.Max(hi.Z, s.swHi[v].Z)}
			}
			if s.self.lo[f] != lo.Sub(pad) || s.self.hi[f] != hi.Add(pad) {
				t.Fatalf("step %d (%d passes): face %d's box %v–%v, afresh %v–%v", step, st.Iterations, f, s.self.lo[f], s.self.hi[f], lo.Sub(pad), hi.Add(pad))
			}
		}
		for i := range c.X {
			c.X[i] = c.X[i].Add(c.V[i].Scale(dt))
		}
	}
	t.Logf("%d of 60 calls took more than one pass", several)
	if several == 0 {
		t.Error("no call took a second pass: the passes over changed velocities went untested")
	}
}
