package contact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// This file tests the certificates (patches.go) with the test's own
// intersection predicate over the step, on random and adversarial shapes
// and a hierarchy; the partition, ownership and topology after changes of
// the faces against a build from scratch; the traces and the certificates
// kept across rebuilds; and patchFar's bound.

// certifiedPatches builds the solver's topology and patches for c over a
// step of dt and certifies every patch for c's velocities.
func certifiedPatches(c *Cloth, dt float64) *Solver {
	s := NewSolver()
	s.c, s.dt, s.p = c, dt, DefaultParams()
	s.clothTopology()
	s.cull.certifyPatches(true)
	return s
}

// crossesOverStep reports whether two faces of `faces` that share no
// vertex intersect at any of 33 instants of the step (the test's own
// predicate, triTri, independent of the certificate).
func crossesOverStep(c *Cloth, faces []int32, dt float64) bool {
	x := make([]geom.Vec3, len(c.X))
	for k := 0; k <= 32; k++ {
		tau := float64(k) / 32
		for i := range x {
			x[i] = c.X[i].Add(c.V[i].Scale(tau * dt))
		}
		for i, f := range faces {
			t := c.Tris[f]
			for _, g := range faces[i+1:] {
				u := c.Tris[g]
				if has(u, t[0]) || has(u, t[1]) || has(u, t[2]) {
					continue
				}
				if triTri([3]geom.Vec3{x[t[0]], x[t[1]], x[t[2]]}, [3]geom.Vec3{x[u[0]], x[u[1]], x[u[2]]}) {
					return true
				}
			}
		}
	}
	return false
}

// TestCertificateRandom deforms sheets of 288 faces by random smooth
// fields, from gentle waves to crumples that fold the sheet through
// itself, with random velocities, and checks every certified cluster of
// every level (patches and the groups of patches above them) with the
// test's own predicate: no two of its faces that share no vertex intersect
// at any of 33 instants of the step. It also requires that the draw
// exercises both outcomes on the first two levels: clusters certified,
// and clusters that intersect themselves (which must then not be).
func TestCertificateRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const dt = 0.005
	trials := 80
	if testing.Short() {
		trials = 25
	}
	var certified, tangled, checked [maxLevels]int // per level of the hierarchy
	for trial := 0; trial < trials; trial++ {
		c := sheet(t, 0.3, 12, 0, 0, 0, geom.Vec3{})
		amp := 0.3 * math.Pow(rng.Float64(), 4) // up to the sheet's size: folds through itself
		var waves [4][5]float64
		for i := range waves {
			waves[i] = [5]float64{rng.NormFloat64() * 30, rng.NormFloat64() * 30, rng.Float64() * 7, rng.NormFloat64(), rng.NormFloat64()}
		}
		field := func(x geom.Vec3) geom.Vec3 {
			var d geom.Vec3
			for k, w := range waves {
				s := math.Sin(w[0]*x.X + w[1]*x.Y + w[2])
				switch k % 3 {
				case 0:
					d.Z += s
				case 1:
					d.X += w[3] * s
					d.Z += w[4] * s
				default:
					d.Y += w[3] * s
					d.Z += w[4] * s
				}
			}
			return d
		}
		vamp := 10 * math.Pow(rng.Float64(), 3) // m/s: up to 5 cm over the step
		var vw [3]float64
		for i := range vw {
			vw[i] = rng.NormFloat64() * 20
		}
		for i, x := range c.X {
			c.X[i] = x.Add(field(x).Scale(amp))
			c.V[i] = geom.Vec3{
				X: math.Sin(vw[0]*x.X+vw[1]*x.Y) + 0.3*rng.NormFloat64(),
				Y: math.Cos(vw[1]*x.X+vw[2]*x.Y) + 0.3*rng.NormFloat64(),
				Z: math.Sin(vw[2]*x.X-vw[0]*x.Y) + 0.3*rng.NormFloat64(),
			}.Scale(vamp)
		}
		s := certifiedPatches(c, dt)
		ps := &s.cull.ps
		for lv := range ps.levels {
			L := &ps.levels[lv]
			for id := int32(0); id < int32(len(L.start)-1); id++ {
				fs := L.faces[L.start[id]:L.start[id+1]]
				crosses := crossesOverStep(c, fs, dt)
				checked[lv]++
				if crosses {
					tangled[lv]++
				}
				if !L.safe[id] {
					continue
				}
				certified[lv]++
				if crosses {
					t.Fatalf("trial %d (amplitude %.3f m, speed %.2f m/s): cluster %d of level %d is certified but its faces intersect during the step", trial, amp, vamp, id, lv)
				}
			}
		}
	}
	for lv := range checked {
		t.Logf("level %d: %d clusters, %d certified, %d intersecting themselves during the step", lv, checked[lv], certified[lv], tangled[lv])
	}
	if certified[0] < checked[0]/6 || tangled[0] == 0 || certified[1] == 0 || tangled[1] == 0 {
		t.Errorf("the draw does not exercise the certificates: %v of %v certified, %v tangled", certified, checked, tangled)
	}
}

// strip returns a strip of 2·n triangles (n quads, one row) with corner
// positions pos(i, j), i ∈ [0, n], j ∈ {0, 1}, at rest, with mass as sheet's.
func strip(n int, pos func(i, j int) geom.Vec3) *Cloth {
	c := &Cloth{}
	for i := 0; i <= n; i++ {
		for j := 0; j < 2; j++ {
			c.X = append(c.X, pos(i, j))
			c.V = append(c.V, geom.Vec3{})
			c.InvMass = append(c.InvMass, 100)
		}
	}
	for i := 0; i < n; i++ {
		a, b, cc, d := int32(2*i), int32(2*i+2), int32(2*i+3), int32(2*i+1)
		c.Tris = append(c.Tris, [3]int32{a, cc, b}, [3]int32{a, d, cc})
	}
	return c
}

// TestCertificateAdversarial builds patches whose normals all lie in a
// narrow cone about +z but which are no graphs over the plane, so that
// only the boundary test can reject them: a strip wound one and a fifth
// turns round a helix whose height is not monotone (the second turn cuts
// through the first, which the test's own predicate confirms), a plain
// spiral ramp (monotone height: no intersection, but overlapping itself in
// projection, which the certificate cannot tell from the first), and a
// fan of triangles round one vertex spanning 400° (its faces all share
// that vertex, so no pair of them counts, but it is no graph). None may be
// certified; the same fan opened to 300° and rising must be (so the test
// can fail both ways).
func TestCertificateAdversarial(t *testing.T) {
	const dt = 0.005
	const r, w = 0.1, 0.02
	helix := func(height func(th float64) float64) *Cloth {
		const n = 12 // 24 faces: one patch
		return strip(n, func(i, j int) geom.Vec3 {
			th := 2.4 * math.Pi * float64(i) / n
			rr := r + w*float64(j)
			return geom.Vec3{X: rr * math.Cos(th), Y: rr * math.Sin(th), Z: height(th)}
		})
	}
	fan := func(deg float64, k int) *Cloth {
		c := &Cloth{X: []geom.Vec3{{}}, V: []geom.Vec3{{}}, InvMass: []float64{100}}
		for i := 0; i <= k; i++ {
			th := deg * math.Pi / 180 * float64(i) / float64(k)
			c.X = append(c.X, geom.Vec3{X: r * math.Cos(th), Y: r * math.Sin(th), Z: 0.002 * float64(i)})
			c.V = append(c.V, geom.Vec3{Z: 0.1 * float64(i)})
			c.InvMass = append(c.InvMass, 100)
		}
		for i := 1; i <= k; i++ {
			c.Tris = append(c.Tris, [3]int32{0, int32(i), int32(i + 1)})
		}
		return c
	}
	for _, tc := range []struct {
		name    string
		c       *Cloth
		crosses bool
		want    bool
	}{
		{"helix cutting through itself", helix(func(th float64) float64 { return 0.002 * (th - 1.2*math.Pi) * (th - 1.2*math.Pi) }), true, false},
		{"spiral ramp", helix(func(th float64) float64 { return 0.002 * th }), false, false},
		{"fan of 400°", fan(400, 8), false, false},
		{"fan of 300°", fan(300, 6), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			all := make([]int32, len(c.Tris))
			for i := range all {
				all[i] = int32(i)
			}
			if got := crossesOverStep(c, all, dt); got != tc.crosses {
				t.Fatalf("the test shape intersects itself: %v, want %v", got, tc.crosses)
			}
			s := certifiedPatches(c, dt)
			ps := &s.cull.ps
			if len(ps.start)-1 != 1 {
				t.Fatalf("%d patches, want the whole shape in one", len(ps.start)-1)
			}
			// The normals lie in a narrow cone: only the boundary can
			// reject the patch.
			for f, tri := range c.Tris {
				if n := c.X[tri[1]].Sub(c.X[tri[0]]).Cross(c.X[tri[2]].Sub(c.X[tri[0]])).Unit(); n.Z < 0.9 {
					t.Fatalf("face %d normal %v: not in the cone the test means", f, n)
				}
			}
			if ps.levels[0].safe[0] != tc.want {
				t.Errorf("certified: %v, want %v", ps.levels[0].safe[0], tc.want)
			}
		})
	}
}

// TestCertificateHierarchy winds a strip of 96 faces one and a fifth turns
// round a helix that cuts through itself (as in TestCertificateAdversarial,
// normals within a narrow cone about +z): each 24-face patch is a short
// arc of it, a graph, and must be certified; the clusters above that hold
// the crossing turns must not be, and the pairs across them must stay
// candidates (culler.culled false).
func TestCertificateHierarchy(t *testing.T) {
	const dt, r, w, n = 0.005, 0.1, 0.02, 48
	c := strip(n, func(i, j int) geom.Vec3 {
		th := 2.4 * math.Pi * float64(i) / n
		rr := r + w*float64(j)
		return geom.Vec3{X: rr * math.Cos(th), Y: rr * math.Sin(th), Z: 0.002 * (th - 1.2*math.Pi) * (th - 1.2*math.Pi)}
	})
	all := make([]int32, len(c.Tris))
	for i := range all {
		all[i] = int32(i)
	}
	if !crossesOverStep(c, all, dt) {
		t.Fatal("the helix does not cut through itself: the test checks nothing")
	}
	s := certifiedPatches(c, dt)
	ps := &s.cull.ps
	if len(ps.levels) < 2 {
		t.Fatalf("%d levels, want patches and a level above", len(ps.levels))
	}
	for p, ok := range ps.levels[0].safe {
		if !ok {
			t.Errorf("patch %d (an arc of the helix) is not certified", p)
		}
	}
	for lv := 1; lv < len(ps.levels); lv++ {
		L := &ps.levels[lv]
		for id, ok := range L.safe {
			if fs := L.faces[L.start[id]:L.start[id+1]]; ok && crossesOverStep(c, fs, dt) {
				t.Errorf("level %d cluster %d is certified but cuts through itself", lv, id)
			}
		}
	}
	// The first and last faces overlap in projection (the turns cross):
	// their pair must not be culled.
	if s.cull.culled(0, int32(len(c.Tris)-1)) {
		t.Error("the pair of the two ends is culled")
	}
}

// TestFoldOver closes a free-particle sheet (no internal forces) like a
// book: its right half, wavy, turns about the y axis at 12 rad/s from 150°
// onto the left half and keeps pressing into it for 60 steps with
// self-collision. The certificates cull the halves' smooth interiors while
// the layers meet, and no two cloth triangles that share no vertex may
// intersect at any step (the test's brute-force predicate).
func TestFoldOver(t *testing.T) {
	c := foldingBook(t)
	s := NewSolver()
	p := DefaultParams()
	var sum Stats
	certified := 0 // patch certificates over the run
	for step := 0; step < 60; step++ {
		st, err := stepExplicit(s, c, nil, 0.005, geom.Vec3{}, p)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		sum.SelfProximity += st.SelfProximity
		sum.CCDHits += st.CCDHits
		sum.Zones += st.Zones
		if n := selfCrossings(c.X, c.Tris); n > 0 {
			t.Fatalf("step %d: %d intersecting pairs (stats %+v)", step, n, st)
		}
		for p := range s.cull.ps.levels[0].safe {
			if s.cull.ps.levels[0].safe[p] {
				certified++
			}
		}
	}
	t.Logf("self proximity %d, CCD hits %d, zones %d; %d patch certificates over the run (%d patches)", sum.SelfProximity, sum.CCDHits, sum.Zones, certified, len(s.cull.ps.levels[0].safe))
	if sum.CCDHits == 0 || sum.SelfProximity == 0 || certified == 0 {
		t.Error("the layers never met, or nothing was certified: the test checks nothing")
	}
}

// TestRecertify: a patch certified for the velocities of the proximity
// pass must be certified again when a later pass changes them. A flat
// strip of 24 faces (one patch) is at rest in the proximity pass, so
// certified; then its last quad is given a velocity that drives it through
// the strip's middle (as a large impulse would), marked as changed: the
// next CCD pass must find the collision instead of culling the pairs
// under the stale certificate.
func TestRecertify(t *testing.T) {
	const w = 0.02
	c := strip(12, func(i, j int) geom.Vec3 {
		z := 0.0
		if i >= 11 {
			z = 0.01 // the last quad raised a little
		}
		return geom.Vec3{X: w * float64(i), Y: w * float64(j), Z: z}
	})
	p := DefaultParams()
	s := kernelSolver(c, nil, p)
	s.mode = modeProximity
	s.detect()
	if !s.cull.ps.levels[0].safe[0] {
		t.Fatal("the resting strip is not certified: the test checks nothing")
	}
	// The last quad (vertices 22–25) swings back over the strip and down
	// through it within the step, tilting as it goes.
	for v := 22; v < 26; v++ {
		dz := -0.03
		if v%2 == 1 {
			dz = -0.01
		}
		c.V[v] = geom.Vec3{X: -0.12, Z: dz}.Scale(1 / s.dt)
		s.dirtyNext[v] = true
	}
	all := make([]int32, len(c.Tris))
	for i := range all {
		all[i] = int32(i)
	}
	if !crossesOverStep(c, all, s.dt) {
		t.Fatal("the swing does not cross the strip: the test checks nothing")
	}
	s.mode = modeCCD
	s.useDirty = true
	if n := s.detect(); n == 0 {
		t.Error("the CCD pass found no collision: the stale certificate culled it")
	}
	if s.cull.ps.levels[0].safe[0] {
		t.Error("the patch is still certified")
	}
}

// TestOwnership checks that every vertex and every edge of the cloth is
// owned by exactly one of its faces, the lowest slot that holds it (§6:
// each primitive pair tested once), against a brute-force count over the
// faces, on a sheet with free slots, faces flipped against their
// neighbours and an edge shared by three faces, before and after the
// faces change.
func TestOwnership(t *testing.T) {
	c := sheet(t, 1, 6, 0, 0, 0, geom.Vec3{})
	// Free slots, a fin on the edge of face 10 (three faces on it), a
	// flipped face.
	c.Tris[3] = [3]int32{-1, -1, -1}
	c.Tris[20] = [3]int32{-1, -1, -1}
	t10 := c.Tris[10]
	c.X = append(c.X, geom.Vec3{Z: 0.1})
	c.V = append(c.V, geom.Vec3{})
	c.InvMass = append(c.InvMass, 1)
	c.Tris = append(c.Tris, [3]int32{t10[0], t10[1], int32(len(c.X) - 1)})
	c.Tris[30] = [3]int32{c.Tris[30][0], c.Tris[30][2], c.Tris[30][1]}
	check := func(s *Solver) {
		t.Helper()
		lowest := map[[2]int32]int32{}
		for f, tri := range c.Tris {
			if tri[0] < 0 {
				continue
			}
			for k := 0; k < 3; k++ {
				e := [2]int32{min(tri[k], tri[(k+1)%3]), max(tri[k], tri[(k+1)%3])}
				if g, ok := lowest[e]; !ok || int32(f) < g {
					lowest[e] = int32(f)
				}
				v := [2]int32{tri[k], -1}
				if g, ok := lowest[v]; !ok || int32(f) < g {
					lowest[v] = int32(f)
				}
			}
		}
		for f, tri := range c.Tris {
			if tri[0] < 0 {
				if s.owner[f] != 0 {
					t.Errorf("free slot %d owns %06b", f, s.owner[f])
				}
				continue
			}
			for k := 0; k < 3; k++ {
				e := [2]int32{min(tri[k], tri[(k+1)%3]), max(tri[k], tri[(k+1)%3])}
				if got, want := s.owner[f]&(1<<(3+k)) != 0, lowest[e] == int32(f); got != want {
					t.Errorf("face %d edge %v: owned %v, want %v", f, e, got, want)
				}
				if got, want := s.owner[f]&(1<<k) != 0, lowest[[2]int32{tri[k], -1}] == int32(f); got != want {
					t.Errorf("face %d vertex %d: owned %v, want %v", f, tri[k], got, want)
				}
			}
		}
	}
	s := certifiedPatches(c, 0.005)
	check(s)
	// The faces change (as when the mesh adapts): the fin goes, a slot
	// comes back, another is freed.
	c.Tris = c.Tris[:len(c.Tris)-1]
	c.Tris[3] = [3]int32{c.Tris[2][0], c.Tris[2][2], c.Tris[2][1]}
	c.Tris[40] = [3]int32{-1, -1, -1}
	s.clothTopology()
	check(s)
}

// TestPatchFarSound checks patchFar against the largest relative
// displacement over the step of any two vertices of the two faces (the
// largest of any two of their points): a pair it rules out must stay more
// than 2δ inside the distance given, for velocities with a common motion,
// a rotation and per-vertex noise. It fails if a patch's radius is left
// out of the bound.
func TestPatchFarSound(t *testing.T) {
	c := sheet(t, 1, 30, 0, 0, 0, geom.Vec3{})
	rng := rand.New(rand.NewPCG(3, 0))
	for i, x := range c.X {
		c.V[i] = geom.Vec3{X: 0.3 - 2*x.Y, Y: 0.1 + 2*x.X, Z: -1}.Add(geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Scale(0.05))
	}
	p := DefaultParams()
	p.SelfCollision = true
	s := kernelSolver(c, nil, p)
	np := len(s.cull.ps.start) - 1
	s.cull.pmove, s.cull.prad = buf.Grow(s.cull.pmove, np), buf.Grow(s.cull.prad, np)
	s.cull.patchMotionChunk(0, 0, np)
	ruled := 0
	for n := 0; n < 200000; n++ {
		f, g := int32(rng.IntN(len(c.Tris))), int32(rng.IntN(len(c.Tris)))
		d := 0.01 * rng.Float64()
		if !s.cull.patchFar(f, g, d) {
			continue
		}
		ruled++
		for _, i := range c.Tris[f] {
			for _, j := range c.Tris[g] {
				if m := c.V[i].Sub(c.V[j]).Norm() * s.dt; m > d-2*s.delta {
					t.Fatalf("faces %d, %d ruled out at d = %g m, but vertices %d and %d move %g m apart over the step", f, g, d, i, j, m)
				}
			}
		}
	}
	if ruled < 1000 {
		t.Fatalf("only %d of the pairs ruled out: the test tests little", ruled)
	}
	t.Logf("%d pairs ruled out", ruled)
}

// TestTopologyAfterChanges: after every change of the faces the solver
// finds again only the adjacency and ownership of the faces around the
// changed ones (touchedVertices); they must equal those of a solver
// built from scratch on the same faces. About 1,800 random changes in 500
// rounds on a 12×12 sheet: faces freed, free slots filled with new
// faces, edges flipped, faces split by a new vertex (√3 refinement's
// first half), fins added on an edge (three faces on it), a face turned
// over.
func TestTopologyAfterChanges(t *testing.T) {
	c := sheet(t, 1, 12, 0, 0, 0, geom.Vec3{})
	rng := rand.New(rand.NewPCG(5, 13))
	p := DefaultParams()
	s := kernelSolver(c, nil, p)
	liveFace := func() int {
		for {
			if f := rng.IntN(len(c.Tris)); c.Tris[f][0] >= 0 {
				return f
			}
		}
	}
	newVertex := func(x geom.Vec3) int32 {
		c.X = append(c.X, x)
		c.V = append(c.V, geom.Vec3{})
		c.InvMass = append(c.InvMass, 1)
		return int32(len(c.X) - 1)
	}
	changed, incremental := 0, 0
	for round := 0; round < 500; round++ {
		for op := 0; op < 4; op++ {
			f := liveFace()
			t0 := c.Tris[f]
			switch rng.IntN(6) {
			case 0: // free it
				c.Tris[f] = [3]int32{-1, -1, -1}
			case 1: // fill a free slot, or add a face, on three vertices of a live one and a neighbour's
				g := liveFace()
				nt := [3]int32{t0[0], t0[1], c.Tris[g][2]}
				if nt[2] == nt[0] || nt[2] == nt[1] {
					continue
				}
				placed := false
				for h := range c.Tris {
					if c.Tris[h][0] < 0 {
						c.Tris[h], placed = nt, true
						break
					}
				}
				if !placed {
					c.Tris = append(c.Tris, nt)
				}
			case 2: // flip the edge to its neighbour across edge 0
				s.c = c
				g := s.adj[f][0]
				if g < 0 || int(g) >= len(c.Tris) || c.Tris[g][0] < 0 {
					continue
				}
				a, b, x := t0[0], t0[1], t0[2]
				u := c.Tris[g]
				y := u[0] + u[1] + u[2] - a - b
				if y == x || !has(u, a) || !has(u, b) {
					continue
				}
				c.Tris[f], c.Tris[g] = [3]int32{x, a, y}, [3]int32{y, b, x}
			case 3: // split by a new vertex at its centroid
				m := c.X[t0[0]].Add(c.X[t0[1]]).Add(c.X[t0[2]]).Scale(1.0 / 3)
				v := newVertex(m)
				c.Tris[f] = [3]int32{t0[0], t0[1], v}
				c.Tris = append(c.Tris, [3]int32{t0[1], t0[2], v}, [3]int32{t0[2], t0[0], v})
			case 4: // a fin on edge 0
				v := newVertex(c.X[t0[0]].Add(geom.Vec3{Z: 0.05}))
				c.Tris = append(c.Tris, [3]int32{t0[0], t0[1], v})
			case 5: // turned over
				c.Tris[f] = [3]int32{t0[0], t0[2], t0[1]}
			}
			changed++
		}
		s.c = c
		room := cap(s.adj) >= len(c.Tris) && cap(s.owner) >= len(c.Tris)
		s.clothTopology()
		if !s.topoAll {
			incremental++
		} else if room {
			t.Fatalf("round %d: everything found again with room in the arrays", round)
		}
		fresh := kernelSolver(c, nil, p)
		for f := range c.Tris {
			if s.adj[f] != fresh.adj[f] || s.owner[f] != fresh.owner[f] {
				t.Fatalf("round %d, face %d %v: adjacency %v and ownership %06b, from scratch %v and %06b",
					round, f, c.Tris[f], s.adj[f], s.owner[f], fresh.adj[f], fresh.owner[f])
			}
		}
	}
	t.Logf("%d changes, %d rounds found incrementally, %d faces, %d vertices at the end", changed, incremental, len(c.Tris), len(c.X))
	if incremental < 400 {
		t.Errorf("only %d of 500 rounds incremental: the test checks too little", incremental)
	}
}

// TestTracedShapes checks the clusters above the patches, whose boundary
// loops and vertex lists are traced only when a certificate first needs
// them (trace): on a sheet rolled into a tight tube at one end (clusters
// there are no graphs) and gently waved elsewhere, every cluster whose
// children are all certified is traced and the others are not; each
// trace is the cluster's own, checked by the test's own reading of the
// faces (every step of the loop a boundary edge, each once; the vertex
// slots in the order the faces name them first), and lies in the arena
// of the piece that certifies the cluster; a change of the faces drops
// every trace.
func TestTracedShapes(t *testing.T) {
	const dt = 0.005
	c := sheet(t, 1, 32, 0, 0, 0, geom.Vec3{})
	for i, x := range c.X {
		if x.X > 0.2 { // rolled about the line x = 0.2, radius 2 cm
			a := (x.X - 0.2) / 0.02
			c.X[i] = geom.Vec3{X: 0.2 + 0.02*math.Sin(a), Y: x.Y, Z: 0.02 * (1 - math.Cos(a))}
		} else {
			c.X[i].Z = 0.01 * math.Sin(9*x.X+5*x.Y)
		}
	}
	s := certifiedPatches(c, dt)
	ps := &s.cull.ps
	if len(ps.levels) < 3 {
		t.Fatalf("%d levels, want at least three", len(ps.levels))
	}
	traced, untraced := 0, 0
	for lv := 1; lv < len(ps.levels); lv++ {
		L, below := &ps.levels[lv], &ps.levels[lv-1]
		nc := len(L.start) - 1
		for id := int32(0); id < int32(nc); id++ {
			kidsSafe := true
			for _, x := range L.kids[L.kidStart[id]:L.kidStart[id+1]] {
				kidsSafe = kidsSafe && below.safe[x]
			}
			at := L.at[id]
			if at.piece < 0 {
				untraced++
				if kidsSafe {
					t.Errorf("level %d cluster %d: its children are certified but it was not traced", lv, id)
				}
				continue
			}
			traced++
			if !kidsSafe {
				t.Errorf("level %d cluster %d: traced though a child is not certified", lv, id)
			}
			checkShape(t, s, lv, id)
		}
	}
	t.Logf("%d clusters above the patches traced, %d not", traced, untraced)
	if traced == 0 || untraced == 0 {
		t.Errorf("traced %d, untraced %d: the sheet exercises only one outcome", traced, untraced)
	}
	// A change of the faces rebuilds the hierarchy: the clusters that hold
	// a changed face lose their traces, and those that keep a certificate
	// (keepClusters) keep a trace that is still their own.
	c.Tris[0], c.Tris[1] = [3]int32{-1, -1, -1}, [3]int32{-1, -1, -1}
	s.clothTopology()
	kept := 0
	for lv := 1; lv < len(ps.levels); lv++ {
		L := &ps.levels[lv]
		for id, at := range L.at[:len(L.start)-1] {
			if at.piece < 0 {
				continue
			}
			kept++
			if fs := L.faces[L.start[id]:L.start[id+1]]; slices.Contains(fs, 0) || slices.Contains(fs, 1) {
				t.Errorf("level %d cluster %d: holds a changed face and is still traced", lv, id)
			}
			if !(L.eps[id] > 0) {
				t.Errorf("level %d cluster %d: traced after the change without a certificate", lv, id)
			}
			checkShape(t, s, lv, int32(id))
		}
	}
	if kept == 0 {
		t.Errorf("no trace kept across the change: the test checks too little")
	}
}

// checkShape checks the boundary loop and vertex slots of cluster id of
// level lv (traced, if above level 0) against the test's own reading of
// its faces: every step of the loop a boundary edge, each once; the
// vertex slots in the order the faces name them first. Above level 0 the
// trace must lie in the arena of the piece that certifies the cluster.
func checkShape(t *testing.T, s *Solver, lv int, id int32) {
	t.Helper()
	c, L := s.c, &s.cull.ps.levels[lv]
	nc := len(L.start) - 1
	if lv > 0 {
		if k := int(L.at[id].piece); k != parallel.PieceOf(int(id), nc) {
			t.Errorf("level %d cluster %d of %d: traced in piece %d's arena", lv, id, nc, k)
		}
	}
	loop, verts, ref := s.cull.shape(lv, id)
	fs := L.faces[L.start[id]:L.start[id+1]]
	// The cluster's vertex slots in the order its faces name them
	// first, and its boundary: edges whose reverse no face of it has.
	var want []int32
	seen := map[int32]bool{}
	edges := map[[2]int32]bool{}
	for _, f := range fs {
		tr := c.Tris[f]
		for j := 0; j < 3; j++ {
			if !seen[tr[j]] {
				seen[tr[j]] = true
				want = append(want, tr[j])
			}
			edges[[2]int32{tr[j], tr[(j+1)%3]}] = true
		}
	}
	nb := 0
	for e := range edges {
		if !edges[[2]int32{e[1], e[0]}] {
			nb++
		}
	}
	if !slices.Equal(verts, want) || len(ref) != len(verts) {
		t.Errorf("level %d cluster %d: vertex slots %v (%d references), want %v", lv, id, verts, len(ref), want)
	}
	if len(loop) == 0 { // no disk, by boundaryLoop: check that by V − E + F and the boundary's branching
		out := map[int32]int{}
		undirected := 0
		for e := range edges {
			if !edges[[2]int32{e[1], e[0]}] {
				out[e[0]]++
				undirected += 2
			} else {
				undirected++
			}
		}
		branched := false
		for _, n := range out {
			branched = branched || n > 1
		}
		if nb > 0 && !branched && len(want)-undirected/2+len(fs) == 1 {
			t.Errorf("level %d cluster %d: a disk with no loop traced", lv, id)
		}
		return
	}
	if len(loop) != nb {
		t.Errorf("level %d cluster %d: loop of %d vertices, %d boundary edges", lv, id, len(loop), nb)
		return
	}
	for i, u := range loop {
		v := loop[(i+1)%len(loop)]
		if !edges[[2]int32{u, v}] || edges[[2]int32{v, u}] {
			t.Errorf("level %d cluster %d: loop step %d→%d is no boundary edge of it", lv, id, u, v)
		}
	}
}

// TestKeptClusters remeshes a gently waved, resting sheet at random (faces
// split at their centroids, edges flipped where the quad is convex,
// faces freed, fins added on edges, which leave the faces beside them as
// they were but make their clusters no disks) and checks after every
// rebuild that the partition is one (every live face in one patch; each
// cluster the union of its children; the labels agree), and that every
// certificate, whether kept across the rebuild by keepClusters or made
// afresh, belongs to its cluster: the boundary loop and vertex slots are
// the cluster's own (the test's reading, checkShape, and boundaryLoop's
// now), the reference is the vertices' positions (the sheet does not
// move, so any other cluster's would differ), and the slack is the one a
// certificate made now would have, to the bit.
func TestKeptClusters(t *testing.T) {
	c := sheet(t, 1, 24, 0, 0, 0, geom.Vec3{})
	for i, x := range c.X {
		c.X[i].Z = 0.02 * math.Sin(4*x.X+3*x.Y)
	}
	rng := rand.New(rand.NewPCG(3, 7))
	s := certifiedPatches(c, 0.005)
	keptCerts, freshCerts := 0, 0
	for round := 0; round < 300; round++ {
		for op := rng.IntN(3); op >= 0; op-- {
			f := rng.IntN(len(c.Tris))
			t0 := c.Tris[f]
			if t0[0] < 0 {
				continue
			}
			switch r := rng.IntN(41); {
			case r < 16: // split at the centroid
				v := int32(len(c.X))
				c.X = append(c.X, c.X[t0[0]].Add(c.X[t0[1]]).Add(c.X[t0[2]]).Scale(1.0/3))
				c.V = append(c.V, geom.Vec3{})
				c.InvMass = append(c.InvMass, c.InvMass[t0[0]])
				c.Tris[f] = [3]int32{t0[0], t0[1], v}
				c.Tris = append(c.Tris, [3]int32{t0[1], t0[2], v}, [3]int32{t0[2], t0[0], v})
			case r < 36: // flip edge 0
				g := s.adj[f][0]
				if g < 0 {
					continue
				}
				u := c.Tris[g]
				a, b, x := t0[0], t0[1], t0[2]
				y := u[0] + u[1] + u[2] - a - b
				nf, ng := [3]int32{x, a, y}, [3]int32{y, b, x}
				if !facesUp(c, nf) || !facesUp(c, ng) {
					continue // a flip in a quad that is not convex would fold the sheet
				}
				c.Tris[f], c.Tris[g] = nf, ng
			case r < 40: // freed
				c.Tris[f] = [3]int32{-1, -1, -1}
			default: // a fin on edge 0: the faces on either side stay as they were, but the edge is no longer manifold
				v := int32(len(c.X))
				c.X = append(c.X, c.X[t0[0]].Add(geom.Vec3{Z: 0.01}))
				c.V = append(c.V, geom.Vec3{})
				c.InvMass = append(c.InvMass, c.InvMass[t0[0]])
				c.Tris = append(c.Tris, [3]int32{t0[0], t0[1], v})
			}
		}
		s.calls++
		s.clothTopology()
		s.cull.certifyPatches(true)
		checkPartition(t, s)
		for lv := range s.cull.ps.levels {
			L := &s.cull.ps.levels[lv]
			for id := int32(0); id < int32(len(L.start)-1); id++ {
				if !(L.eps[id] > 0) {
					continue
				}
				if L.refCall[id] < s.calls {
					keptCerts++
				} else {
					freshCerts++
				}
				checkShape(t, s, lv, id)
				loop, verts, ref := s.cull.shape(lv, id)
				// boundaryLoop's reading now: it also refuses a cluster
				// with a non-manifold edge, which the test's reading
				// does not see.
				var sc loopScratch
				sc.size(len(c.X))
				if now := s.cull.boundaryLoop(&sc, nil, lv, id); !slices.Equal(now, loop) || !slices.Equal(sc.seen, verts) {
					t.Fatalf("round %d: level %d cluster %d: loop %v and vertex slots %v, found now %v and %v", round, lv, id, loop, verts, now, sc.seen)
				}
				for i, v := range verts {
					if ref[i] != c.X[v] {
						t.Fatalf("round %d: level %d cluster %d: reference of vertex %d is %v, the vertex is at %v", round, lv, id, v, ref[i], c.X[v])
					}
				}
				if eps := s.cull.certifyShape(0, lv, id); eps != L.eps[id] {
					t.Fatalf("round %d: level %d cluster %d: slack %g, certified now %g", round, lv, id, L.eps[id], eps)
				}
			}
		}
		if t.Failed() {
			t.Fatalf("round %d", round)
		}
	}
	t.Logf("%d certificates kept across rebuilds, %d made afresh; %d faces at the end", keptCerts, freshCerts, len(c.Tris))
	if keptCerts < 3*freshCerts {
		t.Errorf("%d certificates kept, %d made afresh: a rebuild should keep most", keptCerts, freshCerts)
	}
}

// facesUp reports whether face t's normal points up, well within the
// certificates' cone (TestKeptClusters' sheet is gently waved).
func facesUp(c *Cloth, t [3]int32) bool {
	n := c.X[t[1]].Sub(c.X[t[0]]).Cross(c.X[t[2]].Sub(c.X[t[0]]))
	return n.Z > 0.5*n.Norm()
}

// checkPartition checks that s's patches hold every live face once and
// no free slot, and that every cluster above them is the union of its
// children, with labels that agree.
func checkPartition(t *testing.T, s *Solver) {
	t.Helper()
	ps := &s.cull.ps
	seen := make([]int, len(s.c.Tris))
	for p := int32(0); p < int32(len(ps.start)-1); p++ {
		for _, f := range ps.patchFaces(p) {
			seen[f]++
			if ps.of[f] != p {
				t.Fatalf("face %d listed in patch %d, labelled %d", f, p, ps.of[f])
			}
		}
	}
	for f, tr := range s.c.Tris {
		if live := tr[0] >= 0; live && seen[f] != 1 || !live && (seen[f] != 0 || ps.of[f] != -1) {
			t.Fatalf("face %d %v: in %d patches, labelled %d", f, tr, seen[f], ps.of[f])
		}
	}
	for lv := 1; lv < len(ps.levels); lv++ {
		L, below := &ps.levels[lv], &ps.levels[lv-1]
		for id := int32(0); id < int32(len(L.start)-1); id++ {
			var union []int32
			for _, x := range L.kids[L.kidStart[id]:L.kidStart[id+1]] {
				union = append(union, below.faces[below.start[x]:below.start[x+1]]...)
			}
			slices.Sort(union)
			fs := L.faces[L.start[id]:L.start[id+1]]
			if !slices.Equal(union, fs) {
				t.Fatalf("level %d cluster %d: faces %v, its children's %v", lv, id, fs, union)
			}
			for _, f := range fs {
				if L.label[f] != id || L.ofPatch[ps.of[f]] != id {
					t.Fatalf("level %d cluster %d: face %d labelled %d, its patch %d", lv, id, f, L.label[f], L.ofPatch[ps.of[f]])
				}
			}
		}
	}
}
