package contact

import (
	"math"
	"slices"
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/exact"
	"drape/sim/internal/simtest"
)

// This file tests the culler's switch (Params.Cull) against its claims:
// with culling off nothing is culled, both settings keep a run free of
// self-intersection by the exact oracle (sim/internal/exact), and from
// the same state the two find the same proximity pairs and CCD hits but
// for those the certificates drop.

// TestCullOff runs four self-collision scenes with culling on and off,
// each its own trajectory, and checks every step with the exact oracle:
// no two cloth faces that share no vertex intersect, no vertex below the
// ground. Along the culling run it then probes every call: two more
// solvers, culling on and off, take a copy of the same state through the
// proximity stage and, from the same velocities after it (the culling
// solver's), through the first CCD pass, which tests every candidate
// pair. The proofs say what must agree:
//
//   - off, every pair of faces whose boxes meet is a candidate pair (the
//     test's own count over all face pairs) and no patch pair is culled;
//   - the star and motion bounds lose nothing, so every proximity pair
//     and every CCD hit that culling finds, the reference finds, equal to
//     the bit (pair, weights, normal, distance or time);
//   - a certificate drops only pairs inside the cluster it certifies, so
//     every pair the reference finds and culling does not joins two faces
//     of one certified cluster (read off the culler's levels). These are
//     the in-plane neighbours within h whose repulsion depends on the
//     partition (patches.go); the fine book has thousands of them a call.
//
// The trajectories are not compared: the proximity impulses are applied
// in sequence, so one pair more or less changes the velocities in the
// last bits and the runs part (TestShortcutsChangeNothing compares whole
// runs to the bit with the exact bounds alone turned off).
//
// It fails when a bound culls a pair within reach (a star's β or a
// patch's motion radius too small: pairs culling loses that are not in a
// certified cluster), when culling off still culls (no pair dropped in
// the fine book, a patch pair culled, fewer candidates than box pairs),
// and when a run intersects itself.
func TestCullOff(t *testing.T) {
	simtest.SkipUnderRace(t)
	ground := Body{Normal: geom.Vec3{Z: 1}, Friction: 0.5}
	scenes := []struct {
		name   string
		cloth  func() *Cloth
		bodies []Body
		g      geom.Vec3
		steps  int
	}{
		{"book", func() *Cloth { return foldingBook(t) }, nil, geom.Vec3{}, 50},
		{"fine-book", func() *Cloth { return fineBook(t) }, nil, geom.Vec3{}, 20},
		{"crumple", func() *Cloth { return crumpled(t) }, nil, geom.Vec3{}, 40},
		{"pile", func() *Cloth {
			a := sheet(t, 0.6, 10, 0, 0, 0.05, geom.Vec3{Z: -3})
			b := sheet(t, 0.6, 10, 0.1, 0.07, 0.07, geom.Vec3{X: -0.5, Z: -5})
			d := sheet(t, 0.5, 9, -0.05, 0.02, 0.1, geom.Vec3{X: 2, Y: -1, Z: -12})
			return join(join(a, b), d)
		}, []Body{ground}, gravity, 60},
	}
	const dt = 0.005
	on, off := DefaultParams(), DefaultParams()
	off.Cull = false
	for _, sc := range scenes {
		t.Run(sc.name, func(t *testing.T) {
			var tally cullTally
			for _, p := range []Params{on, off} {
				c := sc.cloth()
				s := NewSolver()
				var probeOn, probeOff *Solver
				if p.Cull {
					probeOn, probeOff = NewSolver(), NewSolver()
				}
				for step := 0; step < sc.steps; step++ {
					if p.Cull {
						// The state the step starts from, velocities
						// after gravity, as stepExplicit hands it over.
						probe := cloneCloth(c)
						for i := range probe.V {
							if probe.InvMass[i] > 0 {
								probe.V[i] = probe.V[i].Add(sc.g.Scale(dt))
							}
						}
						if err := compareCull(t, &tally, probeOn, probeOff, probe, sc.bodies, dt, on, off); err != nil {
							t.Fatalf("step %d: %v", step, err)
						}
						if t.Failed() {
							t.Fatalf("step %d", step)
						}
					}
					if _, err := stepExplicit(s, c, sc.bodies, dt, sc.g, p); err != nil {
						t.Fatalf("cull %v, step %d: %v", p.Cull, step, err)
					}
					if x := exact.SelfIntersections(c.X, c.Tris); len(x) > 0 {
						t.Fatalf("cull %v, step %d: %d pairs of faces intersect, the first %v", p.Cull, step, len(x), x[0])
					}
					for i, x := range c.X {
						if len(sc.bodies) > 0 && exact.BelowPlane(x, ground.Point, ground.Normal) {
							t.Fatalf("cull %v, step %d: vertex %d below the ground", p.Cull, step, i)
						}
					}
				}
			}
			t.Logf("over %d calls: %d candidate pairs with culling, %d without; %d proximity pairs found by both, %d by the reference alone (all in certified clusters); %d CCD hits found by both, %d by the reference alone",
				sc.steps, tally.candOn, tally.candOff, tally.proxBoth, tally.proxDropped, tally.hitsBoth, tally.hitsDropped)
			if tally.proxBoth == 0 || tally.candOn >= tally.candOff {
				t.Error("no proximity pair, or culling culled no candidate pair: the comparison checks nothing")
			}
			if (sc.name == "book" || sc.name == "pile") && tally.hitsBoth == 0 {
				t.Error("no CCD hit: the comparison of the CCD passes checks nothing")
			}
			if sc.name == "fine-book" && tally.proxDropped == 0 {
				t.Error("the fine book's in-plane neighbours within h were all found with culling on: the certificates culled none, or culling off culled them too")
			}
		})
	}
}

// cullTally adds up what compareCull saw over a run.
type cullTally struct {
	candOn, candOff       int // cloth–cloth candidate pairs of the proximity stage
	proxBoth, proxDropped int // cloth–cloth proximity pairs: found by both, by the reference alone
	hitsBoth, hitsDropped int // CCD hits of the first pass, likewise
}

// compareCull takes copies of cloth c (x^n, v^{n+½}) through one call's
// proximity stage with solver sOn (parameters pOn, culling) and sOff
// (pOff, not), then through the first CCD pass from the velocities sOn
// left, and checks what TestCullOff lists.
func compareCull(t *testing.T, tally *cullTally, sOn, sOff *Solver, c *Cloth, bodies []Body, dt float64, pOn, pOff Params) error {
	t.Helper()
	cOn, cOff := cloneCloth(c), cloneCloth(c)
	if err := sOn.Begin(cOn, bodies, dt, pOn); err != nil {
		return err
	}
	if err := sOff.Begin(cOff, bodies, dt, pOff); err != nil {
		return err
	}
	sOn.Proximity()
	sOff.Proximity()
	nOn, nOff := selfCands(sOn), selfCands(sOff)
	tally.candOn += nOn
	tally.candOff += nOff
	if want := boxPairs(sOff); nOff != want {
		t.Errorf("culling off: %d cloth–cloth candidate pairs, but %d pairs of faces whose boxes meet", nOff, want)
	}
	for l := range sOff.pq.culled {
		if len(sOff.pq.culled[l]) > 0 {
			t.Errorf("culling off: %d patch pairs culled", len(sOff.pq.culled[l]))
		}
	}
	both, dropped := comparePairs(t, sOn, selfPairs(sOn), selfPairs(sOff), "proximity pair")
	tally.proxBoth += both
	tally.proxDropped += dropped

	copy(cOff.V, cOn.V)
	for _, s := range []*Solver{sOn, sOff} {
		// The first pass of collisions: every candidate pair tested.
		s.mode, s.zones.active, s.useDirty = modeCCD, false, false
		s.detect()
	}
	both, dropped = comparePairs(t, sOn, selfPairs(sOn), selfPairs(sOff), "CCD hit")
	tally.hitsBoth += both
	tally.hitsDropped += dropped
	if _, err := sOn.End(nil); err != nil {
		return err
	}
	_, err := sOff.End(nil)
	return err
}

// comparePairs checks that every pair of got (culling) is in want (the
// reference), to the bit, and that every pair of want not in got joins two
// faces of one cluster that sOn certified. It returns the number found by
// both and by want alone.
func comparePairs(t *testing.T, sOn *Solver, got, want []pair, what string) (both, dropped int) {
	t.Helper()
	own := ownersOf(sOn.c.Tris)
	left := map[pair]int{}
	for _, pr := range want {
		left[pr]++
	}
	for _, pr := range got {
		if left[pr] == 0 {
			t.Errorf("culling found %s %+v, the reference did not", what, pr)
			continue
		}
		left[pr]--
		both++
	}
	for pr, n := range left {
		if n == 0 {
			continue
		}
		dropped += n
		f, g := own.pairFaces(&pr)
		if f < 0 || g < 0 || !inCertifiedCluster(&sOn.cull, f, g) {
			t.Errorf("culling lost %s %+v (faces %d and %d), which no certified cluster holds", what, pr, f, g)
		}
	}
	return both, dropped
}

// selfPairs returns the cloth–cloth pairs of s's last pass, in order.
func selfPairs(s *Solver) []pair {
	var out []pair
	for k := range s.chunk {
		for _, pr := range s.chunk[k] {
			if pr.body < 0 {
				out = append(out, pr)
			}
		}
	}
	return out
}

// selfCands returns the number of cloth–cloth candidate pairs of s's
// proximity stage.
func selfCands(s *Solver) int {
	n := 0
	for k := range s.cand {
		for _, cd := range s.cand[k] {
			if cd.body < 0 {
				n++
			}
		}
	}
	return n
}

// boxPairs counts the pairs of distinct live cloth faces whose boxes of
// s's last pass (s.self) meet, by brute force.
func boxPairs(s *Solver) int {
	n := 0
	lo, hi, tris := s.self.lo, s.self.hi, s.c.Tris
	for f := range tris {
		if tris[f][0] < 0 {
			continue
		}
		for g := f + 1; g < len(tris); g++ {
			if tris[g][0] >= 0 && boxesOverlap(lo[f], hi[f], lo[g], hi[g]) {
				n++
			}
		}
	}
	return n
}

// owners is the test's own reading of which face owns each primitive:
// the lowest live face that holds the vertex, the edge or the three
// vertices (sorted).
type owners map[[3]int32]int32

// ownersOf lists the owners of the primitives of faces tris.
func ownersOf(tris [][3]int32) owners {
	o := owners{}
	add := func(k [3]int32, f int) {
		slices.Sort(k[:])
		if _, ok := o[k]; !ok {
			o[k] = int32(f)
		}
	}
	for f, t := range tris {
		if t[0] < 0 {
			continue
		}
		add(t, f)
		for k := 0; k < 3; k++ {
			add([3]int32{-1, -1, t[k]}, f)
			add([3]int32{-1, t[k], t[(k+1)%3]}, f)
		}
	}
	return o
}

// pairFaces returns the faces whose triangle pair the narrow phase tested
// to find pr (narrowSelf): the faces that own its primitives, and for a
// vertex–face pair the face itself.
func (o owners) pairFaces(pr *pair) (int32, int32) {
	of := func(k [3]int32) int32 {
		slices.Sort(k[:])
		if f, ok := o[k]; ok {
			return f
		}
		return -1
	}
	id := pr.ids
	if pr.kind == pairVF {
		return of([3]int32{-1, -1, id[0]}), of([3]int32{id[1], id[2], id[3]})
	}
	return of([3]int32{-1, id[0], id[1]}), of([3]int32{-1, id[2], id[3]})
}

// inCertifiedCluster reports whether faces f and g lie in one cluster
// that cl holds certified, at some level, read off its levels.
func inCertifiedCluster(cl *culler, f, g int32) bool {
	for lv := range cl.ps.levels {
		L := &cl.ps.levels[lv]
		if a := L.label[f]; a >= 0 && a == L.label[g] && L.safe[a] {
			return true
		}
	}
	return false
}

// cloneCloth returns a copy of c that shares nothing with it.
func cloneCloth(c *Cloth) *Cloth {
	return &Cloth{X: slices.Clone(c.X), V: slices.Clone(c.V), InvMass: slices.Clone(c.InvMass), Tris: slices.Clone(c.Tris), Tangled: slices.Clone(c.Tangled)}
}

// fineBook is foldingBook at a finer scale: a 6 cm sheet of 2.5 mm
// edges, below h = 3 mm, so that in-plane neighbours one ring apart lie
// within h all over it.
func fineBook(t *testing.T) *Cloth {
	return book(t, 0.06, 24, func(x, y float64) float64 { return 0.002 * math.Sin(80*y) * math.Cos(55*x) })
}
