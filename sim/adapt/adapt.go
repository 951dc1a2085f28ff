package adapt

import (
	"fmt"
	"math"
	"slices"

	"drape/sim/geom"
)

// MaxGeneration is the largest generation that the 5-bit field of Gen holds.
const MaxGeneration = 31

const genMask = 1<<5 - 1

// Generation returns the generation g stored in the low 5 bits of a Gen word.
func Generation(gen uint32) int { return int(gen & genMask) }

// mateBit returns the mate bit of odd generation o.
func mateBit(o int) uint32 { return 1 << (5 + uint(o-1)/2) }

// withGen returns gen with its generation field replaced by g.
func withGen(gen uint32, g int) uint32 { return gen&^genMask | uint32(g) }

// Limits are the parameters of the curvature criterion of Bender & Deul §5.
type Limits struct {
	Base        float64 // l_base, refinement limit on |H| for base faces, 1/m
	Max         float64 // l_gmax, refinement limit at generation GMax, 1/m; ≥ Base
	CoarsenFrac float64 // c in (0, 1): coarsen when |H| < c·l_g; dimensionless
	GMax        int     // g_max, deepest generation, in [0, MaxGeneration]
	MaxTris     int     // cap on live faces: no refinement starts once NumTris()+2 > MaxTris
	MinSize     float64 // m, ≥ 0: no split of a face whose children would be smaller than it (Size), and faces below MinSize/coarsenBelow coarsened; 0: none
}

// coarsenBelow: Adapt coarsens a face smaller than Limits.MinSize over
// coarsenBelow, whatever the curvature asks, so that faces refined
// before the bound was set (collisions switched on over a sheet refined
// with them off, a thickness raised) go back to the bound. Not at
// MinSize itself: the cascades and flips of refinements that respect the
// bound leave a few faces below it (TestAdaptMinSize: 1 % of the faces
// below half of it), and coarsening those would undo a refinement the
// next call makes again. Measured in TestAdaptCoarsensBelowMinSize.
const coarsenBelow = 2.0

// Validate returns an error naming the first field that is out of range.
func (l Limits) Validate() error {
	switch {
	case !(l.Base > 0) || math.IsInf(l.Base, 0):
		return fmt.Errorf("base refinement limit l_base must be positive and finite, got %v 1/m", l.Base)
	case !(l.Max >= l.Base) || math.IsInf(l.Max, 0):
		return fmt.Errorf("refinement limit l_gmax must be finite and at least l_base=%v, got %v 1/m", l.Base, l.Max)
	case !(l.CoarsenFrac > 0 && l.CoarsenFrac < 1):
		return fmt.Errorf("coarsening fraction must be in (0, 1), got %v", l.CoarsenFrac)
	case l.GMax < 0 || l.GMax > MaxGeneration:
		return fmt.Errorf("maximum generation must be in [0, %d], got %d", MaxGeneration, l.GMax)
	case l.MaxTris < 1:
		return fmt.Errorf("triangle cap must be at least 1, got %d", l.MaxTris)
	case !(l.MinSize >= 0) || math.IsInf(l.MinSize, 0):
		return fmt.Errorf("smallest face size must be finite and at least 0, got %v m", l.MinSize)
	}
	return nil
}

// RefinementLimit returns l_g = g/gmax·(l_gmax−l_base)+l_base
// (Bender & Deul §5, eq. 12). For gmax = 0 it returns l_base.
func RefinementLimit(g, gmax int, lbase, lgmax float64) float64 {
	if gmax == 0 {
		return lbase
	}
	return float64(g)/float64(gmax)*(lgmax-lbase) + lbase
}

// Changes lists what the Adapter changed since the last ResetChanges. The
// slices are owned by the Adapter and valid until its next call.
type Changes struct {
	Faces        []int32 // live face slots written since the reset (new vertex sets): rebuild their elements and the bending edges of their edges
	RemovedFaces []int32 // face slots freed since the reset and still free (may include slots that were also created in between)
	Verts        []int32 // live vertex slots whose incident faces changed, NewVerts included: recompute lumped masses
	NewVerts     []int32 // live vertex slots created since the reset
	RemovedVerts []int32 // vertex slots freed since the reset and still free
}

// Adapter refines and coarsens a Mesh with the √3 scheme. It owns the
// mesh's topology while in use: do not edit Tris, Adj or Gen behind its back.
type Adapter struct {
	m    *geom.Mesh
	gmax int

	epoch              uint32
	faceMark, vertMark []uint32 // == epoch: slot touched since reset
	newVert            []uint32 // == epoch: vertex slot created since reset
	faceVer            []uint32 // bumped whenever a face slot is freed or reused
	touchedF, touchedV []int32
	ch                 Changes

	cands []faceCand
	ring  []float64 // ringMaxes: max |H| over each vertex's closed one-ring

	held        []uint32 // faceVer+1 of a face slot held by Hold, 0 when not held
	holdV       []uint32 // vertex marks of the hold's margin (≥ holdEpoch)
	holdF       []uint32 // face marks of the hold and its margin (== holdEpoch)
	holdEpoch   uint32
	heldRemoved int // held faces removed since Hold (see HeldRemoved)
}

type faceCand struct {
	f   int32
	ver uint32
}

// NewAdapter returns an Adapter for m that refines up to generation gmax.
// It returns an error if gmax is outside [0, MaxGeneration] or if a live
// face of m already has a generation above gmax.
func NewAdapter(m *geom.Mesh, gmax int) (*Adapter, error) {
	if gmax < 0 || gmax > MaxGeneration {
		return nil, fmt.Errorf("adaptive mesh: maximum generation must be in [0, %d], got %d", MaxGeneration, gmax)
	}
	for f := range m.Tris {
		if m.FaceAlive(f) && Generation(m.Gen[f]) > gmax {
			return nil, fmt.Errorf("adaptive mesh: face %d has generation %d above the maximum %d", f, Generation(m.Gen[f]), gmax)
		}
	}
	a := &Adapter{m: m, gmax: gmax, epoch: 1}
	a.grow()
	return a, nil
}

// IsNew reports whether vertex slot v was created since the last
// ResetChanges.
func (a *Adapter) IsNew(v int32) bool { return a.newVert[v] == a.epoch }

// GMax returns the deepest generation the Adapter creates.
func (a *Adapter) GMax() int { return a.gmax }

func (a *Adapter) grow() {
	for len(a.faceMark) < len(a.m.Tris) {
		a.faceMark = append(a.faceMark, 0)
		a.faceVer = append(a.faceVer, 0)
	}
	for len(a.vertMark) < len(a.m.Pos) {
		a.vertMark = append(a.vertMark, 0)
		a.newVert = append(a.newVert, 0)
	}
}

// ResetChanges starts a new change record.
func (a *Adapter) ResetChanges() {
	a.epoch++
	if a.epoch == 0 { // wrapped: clear the marks once every 2³² resets
		clear(a.faceMark)
		clear(a.vertMark)
		clear(a.newVert)
		a.epoch = 1
	}
	a.touchedF = a.touchedF[:0]
	a.touchedV = a.touchedV[:0]
}

// Changes returns the change record since the last ResetChanges.
func (a *Adapter) Changes() Changes {
	c := &a.ch
	c.Faces, c.RemovedFaces = c.Faces[:0], c.RemovedFaces[:0]
	c.Verts, c.NewVerts, c.RemovedVerts = c.Verts[:0], c.NewVerts[:0], c.RemovedVerts[:0]
	for _, f := range a.touchedF {
		if a.m.FaceAlive(int(f)) {
			c.Faces = append(c.Faces, f)
		} else {
			c.RemovedFaces = append(c.RemovedFaces, f)
		}
	}
	for _, v := range a.touchedV {
		switch {
		case !a.m.VertAlive[v]:
			c.RemovedVerts = append(c.RemovedVerts, v)
		case a.newVert[v] == a.epoch:
			c.Verts = append(c.Verts, v)
			c.NewVerts = append(c.NewVerts, v)
		default:
			c.Verts = append(c.Verts, v)
		}
	}
	return *c
}

func (a *Adapter) touchFace(f int32) {
	if a.faceMark[f] != a.epoch {
		a.faceMark[f] = a.epoch
		a.touchedF = append(a.touchedF, f)
	}
}

func (a *Adapter) touchVert(v int32) {
	if a.vertMark[v] != a.epoch {
		a.vertMark[v] = a.epoch
		a.touchedV = append(a.touchedV, v)
	}
}

func (a *Adapter) addFace(t [3]int32, gen uint32) int32 {
	f := a.m.AddFace(t, gen)
	a.grow()
	a.faceVer[f]++
	a.touchFace(f)
	for _, v := range t {
		a.touchVert(v)
	}
	return f
}

func (a *Adapter) removeFace(f int32) {
	if a.isHeld(f) {
		a.heldRemoved++
	}
	for _, v := range a.m.Tris[f] {
		a.touchVert(v)
	}
	a.faceVer[f]++
	a.touchFace(f)
	a.m.RemoveFace(f)
}

func (a *Adapter) addVertex(p, v geom.Vec3, r geom.Vec2) int32 {
	i := a.m.AddVertex(p, v, r)
	a.grow()
	a.newVert[i] = a.epoch
	a.touchVert(i)
	return i
}

func (a *Adapter) removeVertex(i int32) {
	a.touchVert(i)
	a.m.RemoveVertex(i)
}

func (a *Adapter) gen(f int32) int { return Generation(a.m.Gen[f]) }

// edgeIndex returns j with Tris[g][j] = u and Tris[g][j+1] = w.
func (a *Adapter) edgeIndex(g, u, w int32) int {
	t := a.m.Tris[g]
	for j := 0; j < 3; j++ {
		if t[j] == u && t[(j+1)%3] == w {
			return j
		}
	}
	panic(fmt.Sprintf("sim: face %d has no edge %d→%d", g, u, w))
}

// relink makes face n (if any), across its edge u→w, point at f.
func (a *Adapter) relink(n, u, w, f int32) {
	if n >= 0 {
		a.m.Adj[n][a.edgeIndex(n, u, w)] = f
	}
}

// promoted reports whether f is a promoted boundary face: generation
// 4k+2 with a boundary edge (edge 0; flipped faces of that generation have
// none).
func (a *Adapter) promoted(f int32) bool {
	return a.gen(f)%4 == 2 && a.m.Adj[f][0] < 0
}

// trisectionRole returns 0 for T0, 1 for M and 2 for T2 of a boundary
// trisection (see the package comment on the boundary), −1 for any other
// face. T0 and T2 have their boundary edge at edge 1 or 2, where split
// children have inner edges; M has it at edge 1, where flipped faces have
// the flip edge.
func (a *Adapter) trisectionRole(f int32) int {
	g, adj := a.gen(f), a.m.Adj[f]
	switch {
	case g%4 == 3 && adj[1] < 0:
		return 0
	case g%4 == 3 && adj[2] < 0:
		return 2
	case g%4 == 0 && g > 0 && adj[1] < 0:
		return 1
	}
	return -1
}

// trisectionMid returns M of the boundary trisection that f (T0, M or T2)
// belongs to.
func (a *Adapter) trisectionMid(f int32) int32 {
	switch a.trisectionRole(f) {
	case 0:
		return a.m.Adj[f][2]
	case 2:
		return a.m.Adj[f][1]
	}
	return f
}

// setGen changes the generation of f in place (promotion and demotion of
// boundary faces; the vertices do not change). The version bump drops f
// from candidate lists gathered under its old generation.
func (a *Adapter) setGen(f int32, g int) {
	a.m.Gen[f] = withGen(a.m.Gen[f], g)
	a.faceVer[f]++
}

// Refine refines face f one level: for an even face a 1-to-3 split
// (followed by flips with already-split neighbours), or for a promoted
// boundary face the trisection of its boundary edge; for an odd face the
// split of its mate and the flip of their common edge, or the promotion
// of a boundary child. Neighbours are refined first where the one-generation
// rule requires it. It returns false, changing nothing, when f is not a
// live face or the result would exceed GMax, and false when a face that
// the refinement of f or of a neighbour would make has a rest angle below
// MinAngle: the neighbours that the cascade refined before then stay
// refined, each a complete refinement.
func (a *Adapter) Refine(f int32) bool {
	if f < 0 || int(f) >= len(a.m.Tris) || !a.m.FaceAlive(int(f)) {
		return false
	}
	if !a.canRefine(f) {
		return false
	}
	return a.refine(f)
}

func (a *Adapter) canRefine(f int32) bool {
	g := a.gen(f)
	if g%2 == 0 {
		return g+2 <= a.gmax // a split's children may flip at once to g+2
	}
	return g+1 <= a.gmax
}

// refine is Refine without the checks of Refine itself; it reports
// whether f was refined (see wellShaped for when it is not). Every cascade
// step works on faces of a lower generation than f, so f itself survives
// until its own turn.
func (a *Adapter) refine(f int32) bool {
	g := a.gen(f)
	if g%2 == 1 {
		if a.m.Adj[f][0] < 0 {
			// A boundary child left unpromoted by its split (g_max was
			// lower then).
			a.setGen(f, g+1)
			return true
		}
		mate := a.m.Adj[f][0]
		if a.gen(mate) != g-1 {
			panic(fmt.Sprintf("sim: odd face %d (g=%d) has mate %d of generation %d", f, g, mate, a.gen(mate)))
		}
		return a.refine(mate) // splits the mate, which flips with f
	}
	// Neighbours one generation below must catch up first, or f's children
	// would be two generations above them.
	for i := 0; i < 3; {
		n := a.m.Adj[f][i]
		if n >= 0 && a.gen(n) < g {
			if a.gen(n) != g-1 {
				panic(fmt.Sprintf("sim: faces %d (g=%d) and %d (g=%d) differ by more than one generation", f, g, n, a.gen(n)))
			}
			if !a.refine(n) {
				return false
			}
			continue // re-read Adj[f][i]
		}
		i++
	}
	if !a.wellShaped(f) {
		return false
	}
	if a.promoted(f) {
		a.trisect(f)
	} else {
		a.split(f)
	}
	return true
}

// MinAngle is the smallest rest angle, in degrees, of a face that a
// refinement may make: a split or trisection of an even face whose
// children, or the faces of the flips it does at once, would have a
// smaller angle is not made (wellShaped).
//
// Why. Without vertex smoothing (Kobbelt's α_n = 0, which we keep so that
// a refinement does not move the cloth) the √3 steps of a mesh that is not
// regular thin its worst angles with depth, and a flip between two
// centres whose segment passes beside the common edge makes a face that
// is clockwise in rest: an inverted element, whose corotated forces push
// the cloth inside out. The monkey found it (curtain-adaptive seed 200:
// g_max raised to 18 by a slider, a face of rest area −2.4 mm² at 83 370
// faces, and a blow-up that Δt/16 did not cure), and deep local
// refinement finds it on the jittered test grid from g_max = 12
// (TestAdaptDeepStaysCounterClockwise). A bound at zero would stop the
// inversions alone; a degree keeps the faces that the bound lets through
// away from it. It does not bind on the built-in scenes at their g_max
// (6 at most: every base mesh refined uniformly to g = 6 keeps 7° and
// more), and their golden runs are unchanged; deeper it does (the
// curtain's base at g = 8, RefineUniform).
const MinAngle = 1.0

// wellShaped reports whether every face that refining even face f now
// (split or trisect, with the flips that follow at once) makes has rest
// angles of at least MinAngle degrees. A flip made later, when a
// neighbour is split, is checked by that neighbour's refinement, which
// is then not made; f's children then stay odd faces waiting for a mate.
// Faces of zero rest area (a mesh without material space) pass.
func (a *Adapter) wellShaped(f int32) bool {
	m := a.m
	t := m.Tris[f]
	g := a.gen(f)
	r := func(v int32) geom.Vec2 { return m.Rest[v] }
	if r(t[1]).Sub(r(t[0])).Cross(r(t[2]).Sub(r(t[0]))) == 0 {
		return true // a mesh without material space (geom.NewSurfaceMesh)
	}
	ok := func(p, q, s geom.Vec2) bool { return minAngle(p, q, s) >= MinAngle }
	// flips reports whether odd child (v, w, c) of generation g+1 flips
	// well with the face across v→w, when that is its mate (flipOrPromote).
	flips := func(n int32, v, w, c geom.Vec2) bool {
		if n < 0 || a.gen(n) != g+1 {
			return true
		}
		c2 := r(m.Tris[n][2])
		return ok(v, c2, c) && ok(w, c, c2)
	}
	if a.promoted(f) {
		pa, pb, pc := r(t[0]), r(t[1]), r(t[2])
		p := pa.Add(pb.Sub(pa).Scale(1.0 / 3))
		q := pa.Add(pb.Sub(pa).Scale(2.0 / 3))
		return ok(pc, pa, p) && ok(pc, p, q) && ok(pb, pc, q) &&
			flips(m.Adj[f][2], pc, pa, p) && flips(m.Adj[f][1], pb, pc, q)
	}
	c := r(t[0]).Add(r(t[1])).Add(r(t[2])).Scale(1.0 / 3)
	for i := 0; i < 3; i++ {
		v, w := r(t[i]), r(t[(i+1)%3])
		if !ok(v, w, c) || !flips(m.Adj[f][i], v, w, c) {
			return false
		}
	}
	return true
}

// minAngle returns the smallest angle of rest triangle (p, q, s) in
// degrees (geom.MinAngle), negative when it is clockwise (and 0 when
// degenerate).
func minAngle(p, q, s geom.Vec2) float64 {
	if q.Sub(p).Cross(s.Sub(p)) <= 0 {
		return -geom.MinAngle(p, q, s)
	}
	return geom.MinAngle(p, q, s)
}

// split performs the 1-to-3 split of even face f = (p0, p1, p2) at its
// centroid c into C_i = (p_i, p_{i+1}, c) of generation g+1 (C_1 carries
// the mate bit), then flips C_i with the neighbour across p_i→p_{i+1} when
// that neighbour is an odd face of generation g+1 (their mate edge), or
// promotes C_i when that edge is on the boundary (the first of the two
// boundary steps).
func (a *Adapter) split(f int32) {
	m := a.m
	t := m.Tris[f]
	g := a.gen(f)
	bits := m.Gen[f]
	var nb [3]int32
	for i := 0; i < 3; i++ {
		nb[i] = m.Adj[f][i]
	}
	p0, p1, p2 := t[0], t[1], t[2]
	const third = 1.0 / 3
	c := a.addVertex(
		m.Pos[p0].Add(m.Pos[p1]).Add(m.Pos[p2]).Scale(third),
		m.Vel[p0].Add(m.Vel[p1]).Add(m.Vel[p2]).Scale(third),
		m.Rest[p0].Add(m.Rest[p1]).Add(m.Rest[p2]).Scale(third))
	a.removeFace(f)
	var ch [3]int32
	for i := 0; i < 3; i++ {
		gen := withGen(bits, g+1)
		if i == 1 {
			gen |= mateBit(g + 1)
		}
		ch[i] = a.addFace([3]int32{t[i], t[(i+1)%3], c}, gen)
	}
	for i := 0; i < 3; i++ {
		m.Adj[ch[i]] = [3]int32{nb[i], ch[(i+1)%3], ch[(i+2)%3]}
		a.relink(nb[i], t[(i+1)%3], t[i], ch[i])
	}
	if g+2 > a.gmax {
		return
	}
	for i := 0; i < 3; i++ {
		a.flipOrPromote(ch[i], nb[i])
	}
}

// flipOrPromote finishes the √3 step at odd face c, whose outer edge has
// the face n across it: c is promoted when that edge is on the boundary
// (n < 0) and flipped with n when n is an odd face of c's generation (its
// mate, already split); otherwise c waits for n to be split.
func (a *Adapter) flipOrPromote(c, n int32) {
	switch g := a.gen(c); {
	case n < 0:
		a.setGen(c, g+1)
	case a.gen(n) == g:
		if a.m.Adj[n][0] != c {
			panic(fmt.Sprintf("sim: odd face %d meets new face %d on a non-mate edge", n, c))
		}
		a.flip(c, n)
	}
}

// flip replaces odd mates C1 = (v, w, c1) and C2 = (w, v, c2), which share
// their outer edge v–w, by E_a = (v, c2, c1) and E_b = (w, c1, c2) of
// generation g+1. E_a keeps C1's mate bits and E_b C2's.
func (a *Adapter) flip(c1f, c2f int32) (ea, eb int32) {
	m := a.m
	t1, t2 := m.Tris[c1f], m.Tris[c2f]
	v, w, c1, c2 := t1[0], t1[1], t1[2], t2[2]
	a1, b1 := m.Adj[c1f][1], m.Adj[c1f][2] // across w→c1, c1→v
	a2, b2 := m.Adj[c2f][1], m.Adj[c2f][2] // across v→c2, c2→w
	g1, g2 := m.Gen[c1f], m.Gen[c2f]
	a.removeFace(c1f)
	a.removeFace(c2f)
	ea = a.addFace([3]int32{v, c2, c1}, withGen(g1, Generation(g1)+1))
	eb = a.addFace([3]int32{w, c1, c2}, withGen(g2, Generation(g2)+1))
	m.Adj[ea] = [3]int32{a2, eb, b1}
	m.Adj[eb] = [3]int32{a1, ea, b2}
	a.relink(a2, c2, v, ea)
	a.relink(b1, v, c1, ea)
	a.relink(a1, c1, w, eb)
	a.relink(b2, w, c2, eb)
	return ea, eb
}

// unflip is the inverse of flip: E_a = (v, c2, c1) and its partner
// E_b = (w, c1, c2) across edge 1 become C1 = (v, w, c1) and C2 = (w, v, c2).
// It returns C1, the face derived from ea.
func (a *Adapter) unflip(ea int32) int32 {
	m := a.m
	eb := m.Adj[ea][1]
	ta, tb := m.Tris[ea], m.Tris[eb]
	v, c2, c1, w := ta[0], ta[1], ta[2], tb[0]
	if tb[1] != c1 || tb[2] != c2 || m.Adj[eb][1] != ea {
		panic(fmt.Sprintf("sim: faces %d and %d are not flip partners", ea, eb))
	}
	a2, b1 := m.Adj[ea][0], m.Adj[ea][2]
	a1, b2 := m.Adj[eb][0], m.Adj[eb][2]
	ga, gb := m.Gen[ea], m.Gen[eb]
	a.removeFace(ea)
	a.removeFace(eb)
	k1 := a.addFace([3]int32{v, w, c1}, withGen(ga, Generation(ga)-1))
	k2 := a.addFace([3]int32{w, v, c2}, withGen(gb, Generation(gb)-1))
	m.Adj[k1] = [3]int32{k2, a1, b1}
	m.Adj[k2] = [3]int32{k1, a2, b2}
	a.relink(a1, c1, w, k1)
	a.relink(b1, v, c1, k1)
	a.relink(a2, c2, v, k2)
	a.relink(b2, w, c2, k2)
	return k1
}

// trisect refines promoted boundary face P = (a, b, c), boundary edge
// a→b, by splitting a→b at p = a+(b−a)/3 and q = a+2(b−a)/3 into odd
// T0 = (c, a, p), T2 = (b, c, q) of generation g+1 and final M = (c, p, q)
// of generation g+2 (the second of Kobbelt's boundary steps; Bender & Deul
// fig. 3b), then flips T0 and T2 with their mates if those are split.
// New positions, velocities and rest coordinates are linear along a→b.
func (a *Adapter) trisect(f int32) {
	m := a.m
	t := m.Tris[f]
	va, vb, vc := t[0], t[1], t[2]
	nBC, nCA := m.Adj[f][1], m.Adj[f][2]
	bits := m.Gen[f]
	g := Generation(bits)
	lerp := func(s float64) int32 {
		return a.addVertex(
			m.Pos[va].Add(m.Pos[vb].Sub(m.Pos[va]).Scale(s)),
			m.Vel[va].Add(m.Vel[vb].Sub(m.Vel[va]).Scale(s)),
			m.Rest[va].Add(m.Rest[vb].Sub(m.Rest[va]).Scale(s)))
	}
	p := lerp(1.0 / 3)
	q := lerp(2.0 / 3)
	a.removeFace(f)
	t0 := a.addFace([3]int32{vc, va, p}, withGen(bits, g+1))
	mid := a.addFace([3]int32{vc, p, q}, withGen(bits, g+2))
	t2 := a.addFace([3]int32{vb, vc, q}, withGen(bits, g+1))
	m.Adj[t0] = [3]int32{nCA, -1, mid}
	m.Adj[mid] = [3]int32{t0, -1, t2}
	m.Adj[t2] = [3]int32{nBC, mid, -1}
	a.relink(nCA, va, vc, t0)
	a.relink(nBC, vc, vb, t2)
	if nCA >= 0 {
		a.flipOrPromote(t0, nCA)
	}
	if nBC >= 0 {
		a.flipOrPromote(t2, nBC)
	}
}

// Coarsen undoes the refinement that produced face f: for an odd face the
// 3-to-1 join of f and its siblings (removing their centre) or, for T0 and
// T2 of a boundary trisection, the merge of the trisection; for an even
// face the inverse flip or the demotion of a promoted face followed by that
// join, or for M the merge of its trisection. Each lowers f's place in the
// hierarchy to the even generation below. Faces of higher generation in the
// way are coarsened first, so that adjacent faces still differ by at most
// one generation. It returns false, changing nothing, for generation 0 or
// a dead face.
func (a *Adapter) Coarsen(f int32) bool {
	if f < 0 || int(f) >= len(a.m.Tris) || !a.m.FaceAlive(int(f)) {
		return false
	}
	g := a.gen(f)
	if g == 0 {
		return false
	}
	if g%2 == 0 {
		if a.trisectionRole(f) == 1 {
			a.untrisect(f)
			return true
		}
		f = a.coarsenEven(f)
	}
	a.coarsenOdd(f)
	return true
}

// reduceAcross coarsens the face across edge i of f until its generation
// is at most k. The faces it removes have generations above k ≥ gen(f), so
// f survives.
func (a *Adapter) reduceAcross(f int32, i, k int) {
	for {
		n := a.m.Adj[f][i]
		if n < 0 || a.gen(n) <= k {
			return
		}
		a.coarsenStep(n)
	}
}

// coarsenStep lowers the generation at face f by one (by two for M).
func (a *Adapter) coarsenStep(f int32) {
	switch {
	case a.gen(f)%2 == 1:
		a.coarsenOdd(f)
	case a.trisectionRole(f) == 1:
		a.untrisect(f)
	default:
		a.coarsenEven(f)
	}
}

// coarsenOdd lowers odd face f one generation: the merge of its boundary
// trisection for T0 and T2, the 3-to-1 join for split children.
func (a *Adapter) coarsenOdd(f int32) {
	if a.trisectionRole(f) >= 0 {
		a.untrisect(f)
	} else {
		a.join(f)
	}
}

// coarsenEven undoes the flip or promotion that made even face f (not an
// M) and returns the odd face derived from f.
func (a *Adapter) coarsenEven(f int32) int32 {
	m := a.m
	e := a.gen(f)
	if a.promoted(f) {
		a.reduceAcross(f, 1, e)
		a.reduceAcross(f, 2, e)
		a.setGen(f, e-1)
		return f
	}
	a.reduceAcross(f, 1, e) // the flip partner's descendants
	eb := m.Adj[f][1]
	a.reduceAcross(f, 0, e)
	a.reduceAcross(f, 2, e)
	a.reduceAcross(eb, 0, e)
	a.reduceAcross(eb, 2, e)
	return a.unflip(f)
}

// untrisect merges the boundary trisection T0, M, T2 that f belongs to
// back into its promoted face P = (a, b, c) of generation g(M)−2 after
// unflipping T0 and T2, and returns P. The faces across T0's and T2's
// outer edges are then even faces of P's generation (their unsplit mates)
// or, where two promoted siblings met at a corner of the boundary, odd
// faces one generation above.
func (a *Adapter) untrisect(f int32) int32 {
	m := a.m
	mid := a.trisectionMid(f)
	e := a.gen(mid) - 1 // generation of T0 and T2
	a.reduceAcross(mid, 0, e)
	a.reduceAcross(mid, 2, e)
	t0, t2 := m.Adj[mid][0], m.Adj[mid][2]
	tt0, tm, tt2 := m.Tris[t0], m.Tris[mid], m.Tris[t2]
	vc, va, p := tt0[0], tt0[1], tt0[2]
	q, vb := tm[2], tt2[0]
	if a.gen(t0) != e || a.gen(t2) != e || tm[0] != vc || tm[1] != p || tt2[1] != vc || tt2[2] != q {
		panic(fmt.Sprintf("sim: faces %d, %d, %d are not a boundary trisection", t0, mid, t2))
	}
	nCA, nBC := m.Adj[t0][0], m.Adj[t2][0]
	bits := m.Gen[t0]
	a.removeFace(t0)
	a.removeFace(mid)
	a.removeFace(t2)
	a.removeVertex(p)
	a.removeVertex(q)
	pf := a.addFace([3]int32{va, vb, vc}, withGen(bits, e-1))
	m.Adj[pf] = [3]int32{-1, nBC, nCA}
	a.relink(nBC, vc, vb, pf)
	a.relink(nCA, va, vc, pf)
	return pf
}

// join performs the 3-to-1 join of odd face f and its two siblings after
// bringing the faces across f's inner edges back to f's generation.
func (a *Adapter) join(f int32) {
	m := a.m
	o := a.gen(f)
	a.reduceAcross(f, 1, o)
	a.reduceAcross(f, 2, o)
	s1 := m.Adj[f][1]
	a.reduceAcross(s1, 1, o) // the third sibling, seen from s1
	s2 := m.Adj[f][2]
	sib := [3]int32{f, s1, s2}
	c := m.Tris[f][2]
	k := -1 // the sibling with the mate bit: C_1 of the split
	for i, s := range sib {
		if a.gen(s) != o || m.Tris[s][2] != c {
			panic(fmt.Sprintf("sim: face %d is not a sibling of odd face %d", s, f))
		}
		if m.Gen[s]&mateBit(o) != 0 {
			k = i
		}
	}
	if k < 0 || m.Adj[s1][1] != s2 {
		panic(fmt.Sprintf("sim: odd face %d has an inconsistent sibling set", f))
	}
	ch1 := sib[k]
	ch0, ch2 := m.Adj[ch1][2], m.Adj[ch1][1]
	ch := [3]int32{ch0, ch1, ch2}
	t := [3]int32{m.Tris[ch0][0], m.Tris[ch1][0], m.Tris[ch2][0]}
	var nb [3]int32
	for i := range ch {
		nb[i] = m.Adj[ch[i]][0]
	}
	bits := m.Gen[ch1] &^ mateBit(o)
	for _, s := range ch {
		a.removeFace(s)
	}
	a.removeVertex(c)
	p := a.addFace(t, withGen(bits, o-1))
	m.Adj[p] = nb
	for i := 0; i < 3; i++ {
		a.relink(nb[i], t[(i+1)%3], t[i], p)
	}
}

// coarsenCurv returns the largest |H| over the one-rings of the vertices
// that Coarsen(f) removes: the centre of the final 3-to-1 join, or both
// trisection vertices p and q for a face of a boundary trisection. It
// returns 0 for a base face. ring holds ringMaxes' result.
func (a *Adapter) coarsenCurv(f int32, ring []float64) float64 {
	m := a.m
	g := a.gen(f)
	switch r := a.trisectionRole(f); {
	case g == 0:
		return 0
	case r >= 0:
		mid := a.trisectionMid(f)
		return math.Max(ring[m.Tris[mid][1]], ring[m.Tris[mid][2]])
	}
	return ring[m.Tris[f][2]]
}

// ringMaxes sets a.ring[v] to max |curv| over vertex v and its one-ring
// (every vertex that shares a face with v), in one pass over the faces.
func (a *Adapter) ringMaxes(curv []float64) []float64 {
	m := a.m
	a.ring = slices.Grow(a.ring[:0], len(m.Pos))[:len(m.Pos)]
	clear(a.ring)
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		h := math.Max(math.Abs(curv[t[0]]), math.Max(math.Abs(curv[t[1]]), math.Abs(curv[t[2]])))
		for _, v := range t {
			a.ring[v] = math.Max(a.ring[v], h)
		}
	}
	return a.ring
}

// Adapt applies the curvature criterion of Bender & Deul §5 once over the
// whole mesh and returns how many Coarsen and Refine calls succeeded.
// curv holds |H| or signed H per vertex slot (len(curv) ≥ len(Pos) at the
// call; only |H| is used).
//
// Coarsening comes first: a face of generation g ≥ 1 is coarsened when the
// largest |H| over the one-ring of the vertex its join removes is below
// c·l_{g'}, where g' is the generation the face falls back to (g−1 for odd,
// g−2 for even faces), so that the result is not refined again by the
// same curvature (hysteresis). Then a face that existed after coarsening is
// refined when max |H| over its three vertices exceeds l_g, g is below
// min(limits.GMax, Adapter.GMax), NumTris()+2 ≤ MaxTris and the faces
// its refinement makes are no smaller than limits.MinSize (Size); a face
// smaller than MinSize/coarsenBelow is coarsened whatever its curvature. Cascades may
// refine or coarsen neighbours regardless of their own criterion, as in
// the paper (fig. 4). Invalid limits (see Limits.Validate) change nothing.
//
// Cost: one O(faces) criterion scan for each phase plus the work of the
// operations themselves, which touch only the faces they change.
func (a *Adapter) Adapt(curv []float64, limits Limits) (refined, coarsened int) {
	if limits.Validate() != nil {
		return 0, 0
	}
	m := a.m
	if len(curv) < len(m.Pos) {
		panic("sim: Adapt: len(curv) < len(Pos)")
	}
	gmax := min(limits.GMax, a.gmax)
	lim := func(g int) float64 { return RefinementLimit(g, limits.GMax, limits.Base, limits.Max) }

	ring := a.ringMaxes(curv)
	kept := a.holdMargin()
	a.cands = a.cands[:0]
	for f := range m.Tris {
		if !m.FaceAlive(int(f)) || kept(int32(f)) {
			continue
		}
		g := a.gen(int32(f))
		if g == 0 {
			continue
		}
		back := g - 1
		if g%2 == 0 {
			back = g - 2
		}
		if g > gmax || a.coarsenCurv(int32(f), ring) < limits.CoarsenFrac*lim(back) ||
			limits.MinSize > 0 && Size(m, int32(f)) < limits.MinSize/coarsenBelow {
			a.cands = append(a.cands, faceCand{int32(f), a.faceVer[f]})
		}
	}
	for _, c := range a.cands {
		if a.faceVer[c.f] == c.ver && m.FaceAlive(int(c.f)) && a.Coarsen(c.f) {
			coarsened++
		}
	}

	kept = a.holdMargin() // the mesh the coarsening left
	a.cands = a.cands[:0]
	for f, t := range m.Tris {
		if !m.FaceAlive(f) || kept(int32(f)) {
			continue
		}
		g := a.gen(int32(f))
		if g >= gmax || limits.MinSize > 0 && a.tooSmall(int32(f), g, limits.MinSize) {
			continue
		}
		h := math.Max(math.Abs(curv[t[0]]), math.Max(math.Abs(curv[t[1]]), math.Abs(curv[t[2]])))
		if h > lim(g) {
			a.cands = append(a.cands, faceCand{int32(f), a.faceVer[f]})
		}
	}
	saved := a.gmax
	a.gmax = gmax
	for _, c := range a.cands {
		if m.NumTris()+2 > limits.MaxTris {
			break
		}
		if a.faceVer[c.f] == c.ver && m.FaceAlive(int(c.f)) && a.Refine(c.f) {
			refined++
		}
	}
	a.gmax = saved
	return refined, coarsened
}

// Size returns the size of face f: the altitude of the equilateral
// triangle of its rest area A, √(√3·A). A √3 step divides the area by 3
// and the size by √3: a split makes three children of a third of the
// area (Kobbelt 2000), and the flip that completes it shares two
// children's area between two new faces. For an equilateral face of edge
// a it is its altitude, a·√3/2.
//
// Decision: an area rather than the face's own smallest altitude. The
// shape of a split's children depends on the neighbours the flips join
// them to: bounding the parent's altitude over √3 (refined on a jittered
// grid to g_max = 12) left faces 100 times thinner than the bound.
func Size(m *geom.Mesh, f int32) float64 {
	t := m.Tris[f]
	a, b, c := m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]]
	return math.Sqrt(math.Sqrt(3) * 0.5 * math.Abs(b.Sub(a).Cross(c.Sub(a))))
}

// tooSmall reports whether refining face f of generation g would make
// faces smaller than minSize (> 0): for an even g the split's children
// (Size over √3), for an odd g the flip's faces (about Size, the flip
// does not shrink the area).
func (a *Adapter) tooSmall(f int32, g int, minSize float64) bool {
	size := Size(a.m, f)
	if g%2 == 0 {
		size /= math.Sqrt(3)
	}
	return size < minSize
}

// holdRings is how many vertex rings round the held faces Adapt leaves
// alone as well. The √3 operations cascade: refining a face first refines
// its mate and coarser neighbours, coarsening one first coarsens finer
// neighbours, so an operation started next to a held face can still
// remove it. On TestAdaptHold's random sequences (a fold sweeping over
// held discs, g_max 6) margins of 1, 2 and 3 rings still lost held faces
// and 4 lost none. Guarding each cascade step instead does not work
// without an undo: a cascade's intermediate states (an unflipped pair
// waiting for its join) are not valid meshes to stop in.
const holdRings = 4

// Hold marks the face slots that the following Adapt calls leave alone,
// with a margin of holdRings vertex rings: the faces in contact, after
// Bender & Deul §7's discussion ("we can simply solve this problem by
// preventing a remeshing of all triangles that are in contact"), because
// a flip, a 3-to-1 join or a coarsening moves edges and can push a face
// through what it touches. held is indexed by face slot and read at the
// call; nil or all false releases the hold. A slot freed and reused since
// the call is not held. Refine and Coarsen called directly ignore the hold.
func (a *Adapter) Hold(held []bool) {
	a.held = slices.Grow(a.held[:0], len(a.m.Tris))[:len(a.m.Tris)]
	clear(a.held)
	a.heldRemoved = 0
	for f, h := range held {
		if h && f < len(a.m.Tris) && a.m.FaceAlive(f) {
			a.held[f] = a.faceVer[f] + 1
		}
	}
}

// HeldRemoved returns how many held faces were removed since the last
// Hold (cascades reaching past the margin): counted where faces are
// removed, so that tests and statistics can check that it stays 0.
func (a *Adapter) HeldRemoved() int { return a.heldRemoved }

func (a *Adapter) isHeld(f int32) bool {
	return int(f) < len(a.held) && a.held[f] != 0 && a.held[f] == a.faceVer[f]+1
}

// holdMargin returns the predicate "face f is held or within holdRings
// vertex rings of a held face", for the mesh as it is now.
func (a *Adapter) holdMargin() func(int32) bool {
	m := a.m
	if !slices.ContainsFunc(a.held, func(h uint32) bool { return h != 0 }) {
		return func(int32) bool { return false }
	}
	a.holdEpoch += 2 // ep marks the hold, ep+1 the ring being grown
	if a.holdEpoch >= 1<<31 {
		clear(a.holdV)
		clear(a.holdF)
		a.holdEpoch = 2
	}
	ep := a.holdEpoch
	if n := len(m.Pos) - len(a.holdV); n > 0 {
		a.holdV = append(a.holdV, make([]uint32, n)...)
	}
	if n := len(m.Tris) - len(a.holdF); n > 0 {
		a.holdF = append(a.holdF, make([]uint32, n)...)
	}
	for f, t := range m.Tris {
		if m.FaceAlive(f) && a.isHeld(int32(f)) {
			a.holdF[f] = ep
			for _, v := range t {
				a.holdV[v] = ep
			}
		}
	}
	for r := 0; r < holdRings; r++ {
		for f, t := range m.Tris {
			if !m.FaceAlive(f) || a.holdF[f] == ep {
				continue
			}
			if a.holdV[t[0]] == ep || a.holdV[t[1]] == ep || a.holdV[t[2]] == ep {
				a.holdF[f] = ep
				for _, v := range t {
					if a.holdV[v] != ep {
						a.holdV[v] = ep + 1
					}
				}
			}
		}
		for v, e := range a.holdV {
			if e == ep+1 {
				a.holdV[v] = ep
			}
		}
	}
	return func(f int32) bool { return a.holdF[f] == ep }
}
