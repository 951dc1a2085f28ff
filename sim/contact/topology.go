package contact

import (
	"slices"

	"drape/sim/buf"
	"drape/sim/parallel"
)

// This file holds the cloth's topology, rebuilt only when its faces
// change (the mesh adapts): the faces around each vertex, the face across
// each edge, the ownership of vertices and edges (Bender & Deul §6: each
// primitive pair tested once), the mean edge length, and which vertices a
// change touched, so that a rebuild after a remesh finds again only what
// the change can have moved; then it has the culler rebuild its patches
// and stars (cull.go).

// clothTopology builds the vertex→face table, the ownership of vertices and
// edges (Bender & Deul §6: each vertex and edge belongs to exactly one
// triangle, the lowest-numbered live face that holds it, so that each
// primitive pair is tested once), the culler's patches, clusters and
// stars (culler.rebuild) and the mean edge length (cellLen: a body grid's least cell
// side, and the scale of the certificates' slack).
//
// All of it only when the faces changed. The mean edge is taken then too,
// not at every call: the cloth stretches by a few per cent between
// remeshes, which moves neither of its uses (the body grids' cells are
// resized only past a factor 3/2, and the slack is capped at a quarter of
// it). Taken at every call it cost 5 % of the adaptive sphere's
// collision phase (0.07 of 1.5 ms a step; docs/notes/contact.md). A run that
// never remeshes keeps its first call's: the full-resolution sphere's
// runs came out the same to the bit, the full curtain's mean PCG
// iterations moved in the fourth digit (81.166 to 81.134, one start of
// four).
func (s *Solver) clothTopology() {
	c := s.c
	nv, nf := len(c.X), len(c.Tris)
	if s.topoNV == nv && slices.Equal(s.topoTris, c.Tris) && s.cull.faceSlots() == nf {
		return
	}
	s.touchedVertices()
	s.topoTris = append(s.topoTris[:0], c.Tris...)
	s.topoNV = nv
	s.vfStart = buf.Grow(s.vfStart, nv+1)
	clear(s.vfStart)
	for _, t := range c.Tris {
		if t[0] < 0 {
			continue
		}
		for _, v := range t {
			s.vfStart[v+1]++
		}
	}
	for i := 1; i <= nv; i++ {
		s.vfStart[i] += s.vfStart[i-1]
	}
	s.vfList = buf.Grow(s.vfList, int(s.vfStart[nv]))
	// Fill in face order, so each vertex's list is sorted and its first
	// face is its owner.
	for f, t := range c.Tris {
		if t[0] < 0 {
			continue
		}
		for _, v := range t {
			s.vfList[s.vfStart[v]] = int32(f)
			s.vfStart[v]++
		}
	}
	for i := nv; i > 0; i-- {
		s.vfStart[i] = s.vfStart[i-1]
	}
	s.vfStart[0] = 0
	s.faceAdjacency()
	for f, t := range c.Tris {
		if t[0] < 0 {
			s.owner[f] = 0
			continue
		}
		if !s.topoAll && !s.vtouch[t[0]] && !s.vtouch[t[1]] && !s.vtouch[t[2]] {
			continue // as it was: no face around its vertices changed
		}
		var o uint8
		for k := 0; k < 3; k++ {
			if s.vfList[s.vfStart[t[k]]] == int32(f) {
				o |= 1 << k
			}
			// Edge (a, b) belongs to the lowest face holding both: read
			// off the adjacency where it names the one other face (or
			// none), searched for where the edge is non-manifold.
			own := true
			switch g := s.adj[f][k]; {
			case g >= 0:
				own = g > int32(f)
			case g == -2:
				a, b := t[k], t[(k+1)%3]
				for _, g := range s.vfList[s.vfStart[a]:s.vfStart[a+1]] {
					if g >= int32(f) {
						break
					}
					u := c.Tris[g]
					if u[0] == b || u[1] == b || u[2] == b {
						own = false
						break
					}
				}
			}
			if own {
				o |= 1 << (3 + k)
			}
		}
		s.owner[f] = o
	}
	s.cull.rebuild()
	s.cellLen = s.meanEdge()
}

// touchedVertices sets s.vtouch, per vertex slot, for the vertices of the
// faces that changed since the last topology (in the old faces or the
// new), s.fsame for the faces that did not, and s.topoAll when
// everything is to be found again (the first build, fewer vertex slots,
// or arrays that must grow). A face none of
// whose vertices is touched keeps its adjacency and ownership: both are
// read off the faces around its vertices only (faceAdjacency, and
// clothTopology's ownership), and those are the same faces with the same
// vertices. After a remesh of the gathering curtain about 2 % of the
// faces change.
func (s *Solver) touchedVertices() {
	c := s.c
	nv, nf := len(c.X), len(c.Tris)
	old := s.topoTris
	s.topoAll = s.topoNV == 0 || nv < s.topoNV || cap(s.adj) < nf || cap(s.owner) < nf
	s.vtouch = buf.Grow(s.vtouch, nv)
	clear(s.vtouch)
	s.fsame = buf.Grow(s.fsame, nf)
	free := [3]int32{-1, -1, -1}
	for f := range max(len(old), nf) {
		a, b := free, free
		if f < len(old) {
			a = old[f]
		}
		if f < nf {
			b = c.Tris[f]
			s.fsame[f] = a == b && b[0] >= 0 && s.topoNV > 0
		}
		if a == b || s.topoAll {
			continue
		}
		for _, t := range [2][3]int32{a, b} {
			if t[0] >= 0 {
				s.vtouch[t[0]], s.vtouch[t[1]], s.vtouch[t[2]] = true, true, true
			}
		}
	}
}

// meanEdge returns the mean length of the cloth's edges at x^n, counting
// each edge once (its owner's), or 1 cm for a cloth without edges, summed
// face by face on one core. (Taken on both cores and summed on one, the
// lengths cost more than on one: 0.11 against 0.07 ms a rebuild on the
// adaptive sphere's 2800 faces, the positions cold after the remesh.)
func (s *Solver) meanEdge() float64 {
	c := s.c
	sum, cnt := 0.0, 0
	for f, t := range c.Tris {
		o := s.owner[f]
		if t[0] < 0 || o&0b111000 == 0 {
			continue
		}
		for k := 0; k < 3; k++ {
			if o&(1<<(3+k)) != 0 {
				sum += c.X[t[k]].Sub(c.X[t[(k+1)%3]]).Norm()
				cnt++
			}
		}
	}
	if cnt > 0 && sum > 0 {
		return sum / float64(cnt)
	}
	return 0.01
}

// faceAdjacency sets s.adj: per face slot, the face across each edge
// (t[k], t[k+1]), or −1 on the boundary and where the edge is not shared
// by exactly one other face with the opposite orientation (a non-manifold
// or inconsistently oriented edge; the faces there then fail the disk test
// of boundaryLoop and are never certified).
func (s *Solver) faceAdjacency() {
	s.adj = buf.Grow(s.adj, len(s.c.Tris))
	s.owner = buf.Grow(s.owner, len(s.c.Tris))
	parallel.ForChunks(len(s.c.Tris), s.adjacencyFn)
}

// adjacencyChunk is faceAdjacency for the faces [lo, hi).
func (s *Solver) adjacencyChunk(_, lo, hi int) {
	c := s.c
	for f := lo; f < hi; f++ {
		t := c.Tris[f]
		if t[0] < 0 {
			s.adj[f] = [3]int32{-1, -1, -1}
			continue
		}
		if !s.topoAll && !s.vtouch[t[0]] && !s.vtouch[t[1]] && !s.vtouch[t[2]] {
			continue // as it was (touchedVertices)
		}
		s.adj[f] = [3]int32{-1, -1, -1}
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			other, n := int32(-1), 0
			for _, g := range s.vfList[s.vfStart[a]:s.vfStart[a+1]] {
				if g == int32(f) {
					continue
				}
				u := c.Tris[g]
				for j := 0; j < 3; j++ {
					if u[j] == b {
						n++
						if u[(j+1)%3] == a {
							other = g
						}
					}
				}
			}
			switch {
			case n == 0:
				s.adj[f][k] = -1 // boundary
			case n == 1 && other >= 0:
				s.adj[f][k] = other
			default:
				s.adj[f][k] = -2 // shared by three faces or more, or oriented alike
			}
		}
	}
}
