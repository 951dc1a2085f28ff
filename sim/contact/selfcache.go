package contact

import (
	"math"
	"slices"

	"drape/sim/geom"
	"drape/sim/parallel"
)

// selfCache keeps the cloth's own candidate triangle pairs from one
// Resolve to the next (temporal coherence, as the broad phases of Bridson
// et al. §6 and Bender & Deul §6 leave open): the pairs whose proximity
// boxes, grown by a margin m = selfMargin·h, overlapped when the cache was
// built, each with a lower bound d of the distance at that time (x0) of the
// primitive pairs narrowSelf tests between them.
//
// Invariants the reuse relies on (selfProximity):
//   - the faces are the same (compared by content), so the ownership and
//     the primitive pairs of each triangle pair are the same;
//   - in the frame moved by the cloth's mean displacement s since x0 (a
//     translation keeps boxes' overlaps and points' distances), a face
//     whose current proximity box lies inside its grown box has all its
//     overlapping partners of the same kind in the cache (their grown
//     boxes overlapped); the few faces that escaped their grown boxes
//     query a grid of the current boxes on their own, and their cached
//     pairs are skipped;
//   - every point of face f is within drift[f] = max_{i∈f} |x_i − s − x0_i|
//     of where it was in that frame, so the pair's primitive distances are
//     now at least d − drift[f] − drift[g]; a pair with that bound ≥ h has
//     no proximity pair and is not tested, only passed on to the CCD
//     passes with the bound as its cand.d.
//
// A resting, falling or slowly deforming sheet thus rebuilds the cache
// only when many faces have moved by about the margin; in between, the
// proximity stage is one pass over the cached pairs. The pairs are sorted
// by (f, t) within each piece, whatever the grid's cells at build time;
// the escaped faces' pairs come after them, so the order of the pairs
// found (and so of the impulses) depends on the cache's history: the same
// for the same sequence of calls on any number of cores, but a fresh
// solver can order them differently.
type selfCache struct {
	valid bool
	fresh bool // built in this call: d is computed by the narrow phase
	h     float64
	tris  [][3]int32
	x0    []geom.Vec3
	g     grid // the grown boxes
	drift []float64
	// esc: per face, its current box left its grown box (queried on its
	// own); anyEsc: there is one
	esc    []bool
	anyEsc bool
	// changed: the faces differed from the last call's
	changed bool
	cand    [parallel.Chunks][]cand
}

// plainSelf forces the plain query instead of the cache. It is on: the
// cache missed a cloth–cloth collision on the bunny scene (the exact
// oracle of sim/scene's TestContactScenesIntersectionFree found one
// intersecting pair from step 600 of the full run; with the plain query,
// and before the cache, none), and a cache that can miss a collision is
// no cache. Until the bound that lets it skip pairs is found wrong and
// fixed, self-collision pays the plain query (BenchmarkResolveScenes:
// the resting 1800-triangle sheet 2.4 ms instead of 0.4 ms per Resolve).
var plainSelf = true

// maxEscaped: the cache is rebuilt when more than one face in maxEscaped
// has left its grown box; fewer query the grid on their own.
const maxEscaped = 8

// selfMargin is the margin of the cached boxes in units of h. Measured on
// the scene suite's resting and draping sheets (BenchmarkResolveScenes):
// see the commit that set it.
const selfMargin = 1.0

// selfProximity runs the cloth–cloth proximity query of detect over the
// cached candidate pairs, rebuilding the cache first when the faces
// changed, h changed or a face left its grown box (selfCache).
func (s *Solver) selfProximity() {
	c := s.c
	tc := &s.tc
	h := s.p.Thickness
	sameMesh := slices.Equal(tc.tris, c.Tris)
	changedBefore := tc.changed
	tc.changed = !sameMesh
	if plainSelf || !sameMesh && changedBefore {
		// The faces changed in the last call too (an adapting mesh): a
		// cache would be rebuilt every call, dearer than the plain query
		// for its grown boxes. Query the current boxes instead.
		tc.valid = false
		tc.tris = append(tc.tris[:0], c.Tris...)
		s.self.build(selfCellFactor * s.cellLen)
		parallel.ForChunks(len(c.Tris), s.detectS)
		return
	}
	reuse := tc.valid && tc.h == h && sameMesh && len(tc.x0) == len(c.X)
	var shift geom.Vec3
	if reuse {
		// The frame: the mean displacement of the live vertices since x0.
		n := 0
		for i, x := range c.X {
			if s.vfStart[i] < s.vfStart[i+1] {
				shift = shift.Add(x.Sub(tc.x0[i]))
				n++
			}
		}
		if n > 0 {
			shift = shift.Scale(1 / float64(n))
		}
		tc.esc = grow(tc.esc, len(c.Tris))
		nesc, live := 0, 0
		for f, t := range c.Tris {
			tc.esc[f] = false
			if t[0] < 0 {
				continue
			}
			live++
			lo, hi, olo, ohi := s.self.lo[f].Sub(shift), s.self.hi[f].Sub(shift), tc.g.lo[f], tc.g.hi[f]
			if lo.X < olo.X || lo.Y < olo.Y || lo.Z < olo.Z || hi.X > ohi.X || hi.Y > ohi.Y || hi.Z > ohi.Z {
				tc.esc[f] = true
				nesc++
			}
		}
		tc.anyEsc = nesc > 0
		reuse = nesc*maxEscaped <= live
	}
	tc.fresh = !reuse
	nf := len(c.Tris)
	tc.drift = grow(tc.drift, nf)
	if reuse {
		for f, t := range c.Tris {
			if t[0] < 0 {
				continue
			}
			d := 0.0
			for _, v := range t {
				dx := c.X[v].Sub(tc.x0[v]).Sub(shift)
				d = max(d, dx.Dot(dx))
			}
			tc.drift[f] = math.Sqrt(d)
		}
	} else {
		clear(tc.drift)
		tc.valid, tc.h = true, h
		tc.tris = append(tc.tris[:0], c.Tris...)
		tc.x0 = grow(tc.x0, len(c.X))
		copy(tc.x0, c.X)
		m := selfMargin * h
		mv := geom.Vec3{X: m, Y: m, Z: m}
		tc.g.lo, tc.g.hi = grow(tc.g.lo, nf), grow(tc.g.hi, nf)
		for f, t := range c.Tris {
			if t[0] < 0 {
				tc.g.lo[f], tc.g.hi[f] = geom.Vec3{X: 1}, geom.Vec3{}
				continue
			}
			tc.g.lo[f], tc.g.hi[f] = s.self.lo[f].Sub(mv), s.self.hi[f].Add(mv)
		}
		tc.g.build(selfCellFactor*s.cellLen + m)
		parallel.ForChunks(nf, s.detectT)
	}
	parallel.ForChunks(parallel.Chunks, s.detectTC)
	if !tc.fresh && tc.anyEsc {
		// The escaped faces query a grid of the current boxes, as outgrown
		// faces do in the CCD passes: pairs (f, t) with f escaped and t
		// either not escaped or after f.
		s.fquery = tc.esc
		s.self.build(selfCellFactor * s.cellLen)
		parallel.ForChunks(nf, s.detectS)
	}
}

// detectCache lists, for the faces f ∈ [lo, hi), the pairs (f, t), t > f,
// whose grown boxes overlap, sorted by t for each f.
func (s *Solver) detectCache(k, lo, hi int) {
	tc := &s.tc
	g := &tc.g
	list := tc.cand[k][:0]
	for f := lo; f < hi; f++ {
		if s.c.Tris[f][0] < 0 {
			continue
		}
		first := len(list)
		qlo, qhi := g.lo[f], g.hi[f]
		x0, y0, z0 := g.cellOf(qlo)
		x1, y1, z1 := g.cellOf(qhi)
		for ix := x0; ix <= x1; ix++ {
			for iy := y0; iy <= y1; iy++ {
				for iz := z0; iz <= z1; iz++ {
					prev := int32(-1)
					for _, t := range g.bucket(ix, iy, iz) {
						if t == prev {
							continue
						}
						prev = t
						if t > int32(f) && g.pairCell(qlo, qhi, [3]int32{x0, y0, z0}, t, ix, iy, iz) {
							list = append(list, cand{f: int32(f), t: t, body: -1})
						}
					}
				}
			}
		}
		// Insertion sort of f's few pairs by t.
		run := list[first:]
		for i := 1; i < len(run); i++ {
			for j := i; j > 0 && run[j].t < run[j-1].t; j-- {
				run[j], run[j-1] = run[j-1], run[j]
			}
		}
	}
	tc.cand[k] = list
}

// detectCached runs the proximity narrow phase on the cached pairs of
// pieces [lo, hi) (selfCache), writing each piece's pairs to the same
// piece's list, and passes every cached pair on to the CCD passes
// (s.cand) with a lower bound of its distance at x^n. In a fresh cache it stores each pair's
// distance bound at x0: the narrow phase's, or, for faces whose current
// boxes (x^n ∪ x^n + Δt·v, ± h/2) do not overlap, their gap plus h.
func (s *Solver) detectCached(k, lo, hi int) {
	tc := &s.tc
	h := s.p.Thickness
	for l := lo; l < hi; l++ {
		out := &s.chunk[l]
		list := tc.cand[l]
		for i := range list {
			cd := &list[i]
			if !tc.fresh {
				if tc.esc[cd.f] || tc.esc[cd.t] {
					continue // found by the escaped face's query
				}
				if b := cd.d - tc.drift[cd.f] - tc.drift[cd.t]; b >= h {
					s.cand[l] = append(s.cand[l], cand{cd.f, cd.t, -1, b})
					continue
				}
			}
			if gp := boxGap(s.self.lo[cd.f], s.self.hi[cd.f], s.self.lo[cd.t], s.self.hi[cd.t]); gp > 0 {
				if tc.fresh {
					cd.d = gp + h
				}
				// Passed on too (the CCD passes check the boxes), so that
				// the candidate lists keep their length from call to call
				// and, once grown, allocate nothing.
				s.cand[l] = append(s.cand[l], cand{cd.f, cd.t, -1, gp + h})
				continue
			}
			d := s.narrowSelf(out, cd.f, cd.t)
			if tc.fresh {
				cd.d = d
			}
			s.cand[l] = append(s.cand[l], cand{cd.f, cd.t, -1, d})
		}
	}
}
