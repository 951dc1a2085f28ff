package contact

import (
	"math"
	"sync/atomic"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// This file spares the proximity pass the primitive tests of neighbouring
// faces that cannot be within h of each other.
//
// Most candidate pairs of the self-collision query are neighbours: two
// faces that share a vertex, whose boxes always meet (85–93 % of the
// candidate pairs on frames of the sphere and curtain scenes;
// docs/notes/contact.md, "What the self-collision query spends its time
// on"). Their
// primitive pairs without a shared vertex are within h only where the
// cloth folds sharper than its mesh or its faces are squeezed to slivers,
// and those are contacts (Bridson et al. 2002 §7.1 count every pair of
// primitives that share no vertex within h), so they cannot simply be
// skipped. Instead, a bound per vertex star rules most of them out at
// once.
//
// The bound. Let v be a vertex and its star the faces around it, chained
// by their shared edges into one fan (closed round an interior vertex,
// open at the border). Project the star along n, the area-weighted mean
// of its normals, onto the plane through v. Where every face keeps
// n·N ≥ coneMargin·|N| (N its normal) and the fan winds round v once
// (closed) or less than once (open), the projected faces are
// non-overlapping sectors about v, consecutive ones sharing a ray: face i
// spans the angle θ_i between its two rim vertices, and an open fan leaves
// a gap γ between its last ray and its first. A primitive of one face
// that avoids v (a rim vertex, a rim edge; a spoke ends at v, but then the
// other primitive is a rim vertex or edge) lies at least ρ from v, ρ the
// least distance from v to a face's rim line, and any two primitives
// without a shared vertex lie in directions from v at least
// α = min(θ_i, γ, π/2) apart: between them there is a whole face, or the
// gap. A point p at least ρ from v is at least |p|·sin α ≥ ρ·sin α from
// every point whose direction from v is α or more away from p's, so every
// such pair is at least β = ρ·sin α apart in the projection, and
// projecting shortens distances: β bounds them in space.
//
// Exactness. A pair of faces whose shared vertex's star has β ≥ h would
// find no primitive pair within h, so the proximity pass keeps it as a
// candidate with the distance bound β instead of testing it. The CCD
// passes read that bound as they read narrowSelf's (cand.d): both are
// lower bounds of the same distances, so they rule out pairs whose tests
// would find nothing and no other, and the results are the same to the
// bit.

// maxStar is the most faces a star may have for starBound; a vertex with
// more gets no bound (its pairs are tested). Refinement keeps valences near
// six.
const maxStar = 16

// starBound returns β for vertex v's star at x^n (0: none), measured once
// per call and kept in cl.starMemo: the call's low 32 bits in the high
// half, β as a float32 rounded down in the low (a record would be taken
// for this call's only 2³² calls later, weeks of stepping). Any core may
// ask first: the record is one word, loaded and stored atomically, and
// two cores that measure the same star store the same bits.
func (cl *culler) starBound(v int32) float64 {
	s := cl.s
	stamp := starStamp(s.calls)
	if m := atomic.LoadUint64(&cl.starMemo[v]); m&^0xffffffff == stamp {
		return starBeta(m)
	}
	b := cl.measureStar(v)
	f := float32(b)
	if float64(f) > b {
		f = math.Nextafter32(f, 0)
	}
	atomic.StoreUint64(&cl.starMemo[v], stamp|uint64(math.Float32bits(f)))
	return float64(f)
}

// starStamp is the high half of the starMemo records made in call
// calls, starBeta the β a record holds.
func starStamp(calls int64) uint64 { return uint64(uint32(calls)) << 32 }
func starBeta(m uint64) float64    { return float64(math.Float32frombits(uint32(m))) }

// starRims sets, for every vertex v, its star's rim vertices in
// counter-clockwise order (starRim[vfStart[v]:vfStart[v+1]]: face m of the
// fan is (v, rim[m], rim[m+1])) and the rim's last vertex (starLast[v]:
// rim[0] again when the fan closes round v; −1 when the faces round v are
// not one consistently oriented fan, or too many), by walking the faces'
// adjacency (s.adj). With the topology, when the faces change.
func (cl *culler) starRims() {
	s := cl.s
	nv := len(s.c.X)
	cl.starRim = buf.Grow(cl.starRim, int(s.vfStart[nv]))
	cl.starLast = buf.Grow(cl.starLast, nv)
	cl.starMemo = buf.Grow(cl.starMemo, nv) // any record kept names an earlier call
	parallel.ForChunks(nv, cl.starRimFn)
}

// starRimChunk is starRims for the vertices [lo, hi).
func (cl *culler) starRimChunk(_, lo, hi int) {
	s := cl.s
	tris := s.c.Tris
	// at returns the index of v in face f.
	at := func(f, v int32) int {
		t := tris[f]
		switch v {
		case t[0]:
			return 0
		case t[1]:
			return 1
		}
		return 2
	}
	for v := int32(lo); v < int32(hi); v++ {
		fs := s.vfList[s.vfStart[v]:s.vfStart[v+1]]
		rim := cl.starRim[s.vfStart[v]:s.vfStart[v+1]]
		cl.starLast[v] = -1
		k := len(fs)
		if k < 2 || k > maxStar {
			continue
		}
		// Back from the first face across (v, a) to the fan's start, or
		// round to the first face again.
		f0 := fs[0]
		start := f0
		for n := 0; n < k; n++ {
			g := s.adj[start][at(start, v)]
			if g < 0 || g == f0 {
				break
			}
			start = g
		}
		// Forward across (b, v), listing each face's a.
		f, m := start, 0
		for {
			kv := at(f, v)
			t := tris[f]
			rim[m] = t[(kv+1)%3]
			m++
			g := s.adj[f][(kv+2)%3]
			if g < 0 || g == start || m == k {
				if m == k && (g < 0 || g == start) {
					cl.starLast[v] = t[(kv+2)%3]
				}
				break
			}
			f = g
		}
	}
}

// measureStar computes β for vertex v's star (the file's comment), or 0
// where the star is not one fan that winds once at most, or a face is
// nearly edge-on to n. All in three dimensions: for vectors X, Y from v,
// the projected cross product is (X×Y)·n̂ and the projected dot product
// X·Y − (X·n̂)(Y·n̂); the bound is taken squared, one root at the end.
func (cl *culler) measureStar(v int32) float64 {
	s := cl.s
	last := cl.starLast[v]
	if last < 0 {
		return 0
	}
	rim := cl.starRim[s.vfStart[v]:s.vfStart[v+1]]
	k := len(rim)
	closed := last == rim[0]
	x := s.c.X
	p := x[v]
	var A [maxStar + 1]geom.Vec3
	for m, r := range rim {
		A[m] = x[r].Sub(p)
	}
	A[k] = x[last].Sub(p)
	nr := k + 1 // rim vertices, the first repeated at the end when closed
	var N [maxStar]geom.Vec3
	var n geom.Vec3
	for m := 0; m < k; m++ {
		N[m] = A[m].Cross(A[m+1])
		n = n.Add(N[m])
	}
	ln := n.Norm()
	if !(ln > 0) {
		return 0
	}
	n = n.Scale(1 / ln)
	var h, P2 [maxStar + 1]float64 // heights along n, projected lengths squared
	for m := 0; m < nr; m++ {
		h[m] = A[m].Dot(n)
		P2[m] = A[m].Dot(A[m]) - h[m]*h[m]
	}
	rho2, sin2 := math.Inf(1), 1.0
	for m := 0; m < k; m++ {
		c := N[m].Dot(n) // twice the projected area
		if !(c > 0) || c*c < coneMargin*coneMargin*N[m].Dot(N[m]) {
			return 0
		}
		if dp := A[m].Dot(A[m+1]) - h[m]*h[m+1]; dp > 0 {
			sin2 = min(sin2, c*c/(P2[m]*P2[m+1]))
		}
		e := A[m+1].Sub(A[m])
		he := e.Dot(n)
		rho2 = min(rho2, c*c/(e.Dot(e)-he*he))
	}
	// Winding: no face but those at the first ray may reach its direction
	// (the tolerance counts a near miss as a hit). With w = n̂×D, the
	// projected cross products (X×D)·n̂ and (D×Y)·n̂ are −X·w and Y·w.
	D := A[0]
	w := n.Cross(D)
	for m := 1; m < k; m++ {
		if closed && m == k-1 {
			break
		}
		tol := 1e-9 * (P2[0] + max(P2[m], P2[m+1])) // ≥ 1e-9·|D|·|A|, projected
		if -A[m].Dot(w) >= -tol && A[m+1].Dot(w) >= -tol {
			return 0
		}
	}
	if !closed {
		// The gap, from the last ray counter-clockwise to the first.
		L := A[k]
		cg, dg := -L.Dot(w), L.Dot(D)-h[k]*h[0]
		if cg > 0 && dg > 0 {
			sin2 = min(sin2, cg*cg/(P2[k]*P2[0]))
		}
	}
	b2 := rho2 * sin2
	if !(b2 > 0) || math.IsInf(b2, 0) {
		return 0
	}
	return math.Sqrt(b2) * (1 - 1e-9)
}

// sharedVertex returns a vertex that faces t and u share, or −1.
func sharedVertex(t, u [3]int32) int32 {
	for _, v := range t {
		if has(u, v) {
			return v
		}
	}
	return -1
}
