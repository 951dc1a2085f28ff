package detail

import (
	"fmt"
	"math"
	"slices"

	"drape/sim/buf"
	"drape/sim/geom"
)

// sparse is a row-compressed linear operator: row i is
// Σ_k Val[k]·x[Col[k]] for k in [Ptr[i], Ptr[i+1]).
type sparse struct {
	Ptr []int32
	Col []int32
	Val []float64
}

func (s *sparse) rows() int { return len(s.Ptr) - 1 }

func (s *sparse) reset() {
	s.Ptr = append(s.Ptr[:0], 0)
	s.Col = s.Col[:0]
	s.Val = s.Val[:0]
}

func (s *sparse) add(c int32, w float64) {
	s.Col = append(s.Col, c)
	s.Val = append(s.Val, w)
}

func (s *sparse) endRow() { s.Ptr = append(s.Ptr, int32(len(s.Col))) }

// apply3 writes dst[i] = Σ_k Val[k]·src[Col[k]].
func (s *sparse) apply3(dst, src []geom.Vec3) {
	for i := 0; i+1 < len(s.Ptr); i++ {
		var p geom.Vec3
		for k := s.Ptr[i]; k < s.Ptr[i+1]; k++ {
			w := s.Val[k]
			q := src[s.Col[k]]
			p.X += w * q.X
			p.Y += w * q.Y
			p.Z += w * q.Z
		}
		dst[i] = p
	}
}

// loopLevel is one step of Loop subdivision (Loop 1987) of a triangle mesh
// with boundary: the operator that maps the nv coarse positions to the
// nv+ne fine ones (even vertices first, in the coarse order, then one odd
// vertex per edge in edge order), the fine faces, and the fine vertex of
// every coarse edge, for walking coarse edges down the levels.
type loopLevel struct {
	nv, ne  int
	op      sparse     // (nv+ne) rows over nv columns
	edges   []uint64   // sorted edge keys lo<<32 | hi (et.keys)
	tris    [][3]int32 // fine faces, 4 per coarse face, same orientation
	parent  []int32    // coarse face of each fine face (index into this level's input faces)
	restMid [][2]int32 // endpoints of odd vertex nv+e: rest = (R[a]+R[b])/2

	et edgeTable // the input faces' edges
	// scratch, reused by the next build
	opp            [][2]int32
	valence, nbPtr []int32
	nbnd           []int8
	bnb            [][2]int32
	faces, nb      []int32
}

func edgeKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(uint32(b))
}

// edgeIndex returns the index of edge (a, b) in l.edges, or −1; l.et must
// have been built (edgeTable.build: sorted keys).
func (l *loopLevel) edgeIndex(a, b int32) int32 {
	i, ok := slices.BinarySearch(l.edges, edgeKey(a, b))
	if !ok {
		return -1
	}
	return int32(i)
}

// loopBeta returns Loop's interior even weight β_n =
// (1/n)(5/8 − (3/8 + ¼·cos(2π/n))²), so that the vertex keeps 1 − n·β_n.
// For n = 6 it is 1/16 (centre 5/8), for n = 3 it is 3/16.
func loopBeta(n int) float64 {
	c := 3.0/8 + 0.25*math.Cos(2*math.Pi/float64(n))
	return (5.0/8 - c*c) / float64(n)
}

// buildLoopLevel subdivides the faces tris over nv vertices once. Rules
// (Loop 1987; Hoppe et al. 1994 for the boundary):
//
//   - odd vertex of an interior edge (a, b) with opposite vertices c, d:
//     3/8·(a + b) + 1/8·(c + d); of a boundary edge: ½·(a + b);
//   - even interior vertex of valence n: (1 − n·β_n)·v + β_n·Σ neighbours;
//   - even boundary vertex with exactly two boundary neighbours a, b:
//     3/4·v + 1/8·(a + b), so a straight boundary stays straight and the
//     boundary curve is the cubic B-spline of the boundary polygon;
//   - any other vertex (a corner: corner[v] set, or in a single face; or a
//     vertex where two boundary fans meet) stays where it is, so the
//     corners of a sheet are kept (Hoppe et al. 1994's corner rule).
//
// corner may be nil or shorter than nv (missing entries are false). An
// edge shared by more than two faces is an error.
func buildLoopLevel(l *loopLevel, nv int, tris [][3]int32, corner []bool) error {
	l.et.build(nv, tris)
	return subdivideLevel(l, nv, tris, corner)
}

// subdivideLevel is buildLoopLevel with the edges of tris already in l.et
// (built, or read off the level above by fineEdges).
func subdivideLevel(l *loopLevel, nv int, tris [][3]int32, corner []bool) error {
	nf := len(tris)
	// Edges, with up to two opposite vertices each.
	keys := l.et.keys
	l.nv, l.ne = nv, len(keys)
	l.edges = keys
	ne := len(keys)
	for e, n := range l.et.nface {
		if n > 2 {
			return fmt.Errorf("edge (%d,%d) is shared by more than two faces", int32(keys[e]>>32), int32(uint32(keys[e])))
		}
	}
	opp := buf.Grow(l.opp, ne)
	cnt := l.et.nface // counted again while filling opp, to the same values
	clear(cnt)
	for f, t := range tris {
		for i := 0; i < 3; i++ {
			e := l.et.of[f][i]
			opp[e][cnt[e]] = t[(i+2)%3]
			cnt[e]++
		}
	}
	// Per vertex: neighbour count and boundary neighbours.
	valence := buf.Grow(l.valence, nv)
	nbnd := buf.Grow(l.nbnd, nv)
	bnb := buf.Grow(l.bnb, nv)
	clear(valence)
	clear(nbnd)
	for e, k := range keys {
		a, b := int32(k>>32), int32(uint32(k))
		valence[a]++
		valence[b]++
		if cnt[e] == 1 {
			for _, p := range [2][2]int32{{a, b}, {b, a}} {
				if nbnd[p[0]] < 2 {
					bnb[p[0]][nbnd[p[0]]] = p[1]
				}
				nbnd[p[0]]++
			}
		}
	}
	faces := buf.Grow(l.faces, nv) // faces per vertex, to find corners
	clear(faces)
	for _, t := range tris {
		for _, v := range t {
			faces[v]++
		}
	}
	// Neighbour lists (CSR) for the even rule.
	nbPtr := buf.Grow(l.nbPtr, nv+1)
	nbPtr[0] = 0
	for v := 0; v < nv; v++ {
		nbPtr[v+1] = nbPtr[v] + valence[v]
	}
	nb := buf.Grow(l.nb, int(nbPtr[nv]))
	cur := valence // the valences are in nbPtr now: reuse as fill cursors
	copy(cur, nbPtr[:nv])
	for _, k := range keys {
		a, b := int32(k>>32), int32(uint32(k))
		nb[cur[a]] = b
		cur[a]++
		nb[cur[b]] = a
		cur[b]++
	}
	l.opp, l.valence, l.nbnd, l.bnb, l.faces, l.nbPtr, l.nb = opp, valence, nbnd, bnb, faces, nbPtr, nb
	l.op.reset()
	l.op.Ptr = slices.Grow(l.op.Ptr, nv+ne)
	l.op.Col = slices.Grow(l.op.Col, 2*len(nb)+nv+4*ne)
	l.op.Val = slices.Grow(l.op.Val, 2*len(nb)+nv+4*ne)
	for v := 0; v < nv; v++ {
		n := int(nbPtr[v+1] - nbPtr[v])
		switch {
		case nbnd[v] == 0 && n >= 3:
			b := loopBeta(n)
			l.op.add(int32(v), 1-float64(n)*b)
			for _, u := range nb[nbPtr[v]:nbPtr[v+1]] {
				l.op.add(u, b)
			}
		case nbnd[v] == 2 && faces[v] >= 2 && (v >= len(corner) || !corner[v]):
			l.op.add(int32(v), 0.75)
			l.op.add(bnb[v][0], 0.125)
			l.op.add(bnb[v][1], 0.125)
		default:
			l.op.add(int32(v), 1)
		}
		l.op.endRow()
	}
	l.restMid = slices.Grow(l.restMid[:0], ne)
	for e, k := range keys {
		a, b := int32(k>>32), int32(uint32(k))
		l.restMid = append(l.restMid, [2]int32{a, b})
		if cnt[e] == 2 {
			l.op.add(a, 0.375)
			l.op.add(b, 0.375)
			l.op.add(opp[e][0], 0.125)
			l.op.add(opp[e][1], 0.125)
		} else {
			l.op.add(a, 0.5)
			l.op.add(b, 0.5)
		}
		l.op.endRow()
	}
	// Fine faces: three corner faces and the middle one, same orientation.
	l.tris = slices.Grow(l.tris[:0], 4*nf)
	l.parent = slices.Grow(l.parent[:0], 4*nf)
	for f, t := range tris {
		m0 := int32(nv) + l.et.of[f][0] // on edge t0–t1
		m1 := int32(nv) + l.et.of[f][1] // t1–t2
		m2 := int32(nv) + l.et.of[f][2] // t2–t0
		l.tris = append(l.tris,
			[3]int32{t[0], m0, m2},
			[3]int32{t[1], m1, m0},
			[3]int32{t[2], m2, m1},
			[3]int32{m0, m1, m2})
		l.parent = append(l.parent, int32(f), int32(f), int32(f), int32(f))
	}
	return nil
}

// LoopSubdivide returns the positions and faces of levels steps of Loop
// subdivision of the mesh (pos, tris), with the boundary rules of
// buildLoopLevel (only single-face vertices are corners here; the Detailer
// also keeps the sheet's corners found in material space). tris: 3 vertex indices per face, every vertex in some
// face, each edge in at most two faces. It is the plain scheme that
// Detailer.Update displaces (Tsiknis §3).
func LoopSubdivide(pos []geom.Vec3, tris [][3]int32, levels int) ([]geom.Vec3, [][3]int32, error) {
	if levels < 0 || levels > MaxLevel {
		return nil, nil, fmt.Errorf("detail: level %d outside [0, %d]", levels, MaxLevel)
	}
	if err := checkFaces(len(pos), tris); err != nil {
		return nil, nil, err
	}
	p := slices.Clone(pos)
	t := tris
	for i := 0; i < levels; i++ {
		var l loopLevel
		if err := buildLoopLevel(&l, len(p), t, nil); err != nil {
			return nil, nil, fmt.Errorf("detail: level %d: %w", i+1, err)
		}
		q := make([]geom.Vec3, l.op.rows())
		l.op.apply3(q, p)
		p, t = q, l.tris
	}
	return p, slices.Clone(t), nil
}

// restCorners marks the boundary vertices where the boundary turns by more
// than 30° in material space (the corners of a sheet), which subdivision
// keeps in place. et must hold the edges of the faces. It returns corner
// and scratch (3 per vertex) grown to size, for reuse.
func restCorners(rest []geom.Vec2, et *edgeTable, corner []bool, scratch []int32) ([]bool, []int32) {
	// Boundary edges are the directed edges whose reverse is absent: the
	// edges that faces run one way only (et.dir 1: lo → hi, 2: hi → lo).
	nv := len(rest)
	corner = buf.Grow(corner, nv)
	clear(corner)
	scratch = buf.Grow(scratch, 3*nv)
	clear(scratch)
	in, out, nb := scratch[:nv], scratch[nv:2*nv], scratch[2*nv:] // boundary predecessor + 1, successor + 1, boundary edges
	for e, k := range et.keys {
		a, b := int32(k>>32), int32(uint32(k))
		switch et.dir[e] {
		case 2:
			a, b = b, a
		case 3:
			continue
		}
		out[a] = b + 1
		in[b] = a + 1
		nb[a]++
		nb[b]++
	}
	cos30 := math.Cos(math.Pi / 6)
	for v := range rest {
		if nb[v] != 2 || in[v] == 0 || out[v] == 0 {
			continue
		}
		a := rest[v].Sub(rest[in[v]-1])
		b := rest[out[v]-1].Sub(rest[v])
		c := (a.X*b.X + a.Y*b.Y) / math.Sqrt(a.Norm2()*b.Norm2())
		corner[v] = c < cos30
	}
	return corner, scratch
}

// checkFaces reports indices out of range and degenerate faces.
func checkFaces(nv int, tris [][3]int32) error {
	for f, t := range tris {
		for _, v := range t {
			if v < 0 || int(v) >= nv {
				return fmt.Errorf("detail: face %d: vertex %d out of range [0, %d)", f, v, nv)
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
			return fmt.Errorf("detail: face %d repeats a vertex: %v", f, t)
		}
	}
	return nil
}

// LimitPositions returns the points of the Loop limit surface at the
// vertices of (pos, tris) (Loop 1987; Hoppe et al. 1994): an interior vertex
// of valence n goes to (1 − n·χ)·v + χ·Σ neighbours with
// χ = 1/(3/(8β_n) + n) (the regular mask is ½ and 1/12), a boundary vertex
// to 2/3·v + 1/6·(a + b) along its two boundary neighbours, and a corner
// stays.
func LimitPositions(pos []geom.Vec3, tris [][3]int32) ([]geom.Vec3, error) {
	r, err := newRings(len(pos), tris)
	if err != nil {
		return nil, err
	}
	out := make([]geom.Vec3, len(pos))
	for v := range pos {
		ring, boundary := r.ring(int32(v))
		n := len(ring)
		switch {
		case !boundary && n >= 3:
			chi := 1 / (3/(8*loopBeta(n)) + float64(n))
			p := pos[v].Scale(1 - float64(n)*chi)
			for _, u := range ring {
				p = p.Add(pos[u].Scale(chi))
			}
			out[v] = p
		case boundary && n >= 3:
			out[v] = pos[v].Scale(2.0 / 3).Add(pos[ring[0]].Add(pos[ring[n-1]]).Scale(1.0 / 6))
		default:
			out[v] = pos[v]
		}
	}
	return out, nil
}

// LimitNormals returns the unit normals of the Loop limit surface at the
// vertices of (pos, tris): at an interior vertex of valence n with ordered
// ring p_0 … p_{n−1}, the cross product of the tangent masks
// t₁ = Σ cos(2πj/n)·p_j and t₂ = Σ sin(2πj/n)·p_j (Loop 1987; Hoppe et al.
// 1994 §3.3). At boundary vertices and corners it returns the area-weighted
// normal of the vertex's faces (the exact boundary tangent masks are not
// implemented). Orientation follows the faces' winding. A vertex whose
// normal vanishes gets the zero vector.
func LimitNormals(pos []geom.Vec3, tris [][3]int32) ([]geom.Vec3, error) {
	r, err := newRings(len(pos), tris)
	if err != nil {
		return nil, err
	}
	out := make([]geom.Vec3, len(pos))
	areaNormals(pos, tris, out)
	for v := range pos {
		ring, boundary := r.ring(int32(v))
		n := len(ring)
		if boundary || n < 3 {
			continue
		}
		var t1, t2 geom.Vec3
		for j, u := range ring {
			a := 2 * math.Pi * float64(j) / float64(n)
			t1 = t1.Add(pos[u].Scale(math.Cos(a)))
			t2 = t2.Add(pos[u].Scale(math.Sin(a)))
		}
		out[v] = unitOrZero(t1.Cross(t2))
	}
	return out, nil
}

// areaNormals writes the area-weighted unit vertex normals of (pos, tris).
func areaNormals(pos []geom.Vec3, tris [][3]int32, out []geom.Vec3) {
	clear(out)
	for _, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		n := b.Sub(a).Cross(c.Sub(a))
		out[t[0]] = out[t[0]].Add(n)
		out[t[1]] = out[t[1]].Add(n)
		out[t[2]] = out[t[2]].Add(n)
	}
	for i := range out {
		out[i] = unitOrZero(out[i])
	}
}

func unitOrZero(v geom.Vec3) geom.Vec3 {
	n := v.Norm()
	if !(n > 0) || math.IsInf(n, 0) {
		return geom.Vec3{}
	}
	return v.Scale(1 / n)
}

// rings holds, per vertex, the counter-clockwise successor map of its faces
// (in face (a, b, c) the ring of a goes b → c), to walk ordered 1-rings.
type rings struct {
	ptr  []int32
	from []int32
	to   []int32
}

func newRings(nv int, tris [][3]int32) (*rings, error) {
	if err := checkFaces(nv, tris); err != nil {
		return nil, err
	}
	r := &rings{ptr: make([]int32, nv+1)}
	for _, t := range tris {
		for _, v := range t {
			r.ptr[v+1]++
		}
	}
	for v := 0; v < nv; v++ {
		r.ptr[v+1] += r.ptr[v]
	}
	r.from = make([]int32, r.ptr[nv])
	r.to = make([]int32, r.ptr[nv])
	fill := slices.Clone(r.ptr[:nv])
	for _, t := range tris {
		for i, v := range t {
			r.from[fill[v]] = t[(i+1)%3]
			r.to[fill[v]] = t[(i+2)%3]
			fill[v]++
		}
	}
	return r, nil
}

// ring returns the ordered 1-ring of v and whether v is on the boundary.
// For a boundary vertex the ring runs from one boundary neighbour to the
// other. A vertex whose faces do not form one fan gets its unordered
// neighbours and boundary = true.
func (r *rings) ring(v int32) ([]int32, bool) {
	from := r.from[r.ptr[v]:r.ptr[v+1]]
	to := r.to[r.ptr[v]:r.ptr[v+1]]
	n := len(from)
	if n == 0 {
		return nil, true
	}
	// A start with no predecessor (nothing maps to it) is a boundary start.
	start := from[0]
	boundary := false
	for _, f := range from {
		if !slices.Contains(to, f) {
			start, boundary = f, true
			break
		}
	}
	ring := []int32{start}
	cur := start
	for len(ring) <= n {
		i := slices.Index(from, cur)
		if i < 0 {
			break
		}
		cur = to[i]
		if cur == start {
			break
		}
		ring = append(ring, cur)
	}
	want := n
	if boundary {
		want = n + 1
	}
	if len(ring) != want {
		return ring, true
	}
	return ring, boundary
}
