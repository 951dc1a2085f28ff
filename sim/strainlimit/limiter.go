package strainlimit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// forceReg is ρ of the regularised force estimate (J·M⁻¹·Jᵀ + ρ·diag)·λ = −c
// (see the package doc: rank deficiency).
const forceReg = 1e-3

// stitchWeight is the weight, in the stitching's least squares, of the
// edge vectors of an element that responded, against 1 for one within its
// limit: min Σ_f w_f·Σ_edges |(x_b − x_a) − (x̃_b^f − x̃_a^f)|². Tsiknis's
// eq. 2.10 has w_f = 1. An element at its limit is (in the limit of
// strain limiting) infinitely stiff and one within it is soft, so the
// soft ones should absorb the misfit; with equal weights the stitching
// gives back half of every correction to the unresponsive neighbours,
// and the hanging curtain near its rail even drifted away from the limit
// (ratio 1.0023 after one pass, 1.0037 after five). Measured passes for
// weights 1, 3, 10, 30 (cases as in the overRelax table, with the
// whole-mesh stitching): hanging curtain 69, 26, 19, 13; held corner 76,
// 30, 14, 10; pinned sheets 78/95, 51/60, 40/46, 38/42.
//
// 30 was used until 2026-11-26; with the local stitching (stitchRings,
// stitchTol) the passes of BenchmarkApply's cases for weights 30, 80,
// 100, 130 and 160 were: held corner 15, 11, 11, 11, 10; flung corner 7
// in all; the hanging curtain limited to 0.5 % 13, 12, 13, 18, 19 (and
// 27 at 200); TestLimitHolds' sheets at 30 and 80: 11/48/10/38 and
// 11/46/9/38. On the gathering adaptive curtain (TestStrainFigures' "on"
// case, 1800 steps) the 484 steps with faces over the limit took 5.59
// passes each at 30, 4.86 at 80, 4.90 at 100. 80 sits below the rise
// that the hanging curtain shows from 130 on. Every column of
// TestChainOrder's strip still takes a share of the stretch (2.5–10 %).
// The largest strain right after a remeshing step (new faces start from
// the positions the old mesh left; the next step's limiter acts on them)
// is an event that moves with the trajectory: 15.6–18.9 % at weights 30,
// 60, 70, 100 and 120, 39.5–39.8 % at 80 and 90 (two such steps over 20 %
// in the 1800); after every other step it is 10.2 % at all of them.
// (All of this with 6 rings throughout; with fineRings, 17.1 % at 80.)
const stitchWeight = 80.0

// One force estimate (step 1) is made per call, as Tsiknis makes. More
// rounds, each linearised at the previous one's result (Newton steps on
// the edge constraints), did not pay: measured on the curtain with its
// bottom-left corner held 0.35 m away after one step (strain 16.9 on
// entry; a feasible target), after 200 passes 1, 5, 20 and 50 rounds
// left 0.119, 0.120, 0.119 and 0.118. (The active set of step 1 holds
// only the edges already over the limit, so each round reaches only one
// more ring of elements.)

// overMargin: a face whose limit ratio on entry is at most 1 − overMargin
// and none of whose corners has moved since cannot respond (it is within
// its limit by far more than the round-off between faceRatio and the
// element's own check), nor can any of its edges be over its limit (an
// edge's ratio |x_b − x_a|/L_e is |F·u|/|D·u| for its rest vector u, at
// most the face's largest), so Apply skips it in the force estimate and
// in the first pass (see everyFace).
const overMargin = 1e-6

// forceTol and stitchTol are the CG stopping tolerances: relative
// residual norms of the force estimate and of each stitching solve. A
// stitching need not be solved closely: the passes that follow check
// every face it moved and correct what it left. Measured on the gathering
// adaptive curtain (10 % limit, collisions, 1800 steps as in
// TestStrainFigures; stitchRings 6):
// stitchTol 1e-6, 1e-3 and 1e-2 took 20, 16.4 and 6.3 CG iterations per
// pass and 4.9, 5.0 and 4.7 passes per call that had any, and 4.25,
// 3.88 and 3.12 s of strain limiting in all; BenchmarkApply's cases took
// the same passes but the flung corner (5 → 7).
const (
	forceTol  = 1e-4
	stitchTol = 1e-2
)

// Input is the state Apply works on. Slices are indexed by vertex slot
// and must have the same length; slots that no face uses are ignored.
type Input struct {
	X0      []geom.Vec3 // x^n per vertex slot, m
	V       []geom.Vec3 // v^{n+½} in and out, m/s (x^{n+1} = x^n + Δt·V)
	InvMass []float64   // 1/m per vertex slot, 1/kg; 0 = pinned (held: its V is not changed)
	Rest    []geom.Vec2 // material coordinates per slot, m (X weft, Y warp)
	Tris    [][3]int32  // 3 vertex slots per face slot; t[0] < 0 = free slot
	// Recover, when positive, bounds how much strain one Apply takes out
	// of a face that is already over its limit at X0: such a face's
	// stretch limits are its strain at X0 less Recover (never below
	// Params' own), so that it closes in on the limit over several calls
	// instead of in one. Zero: every face is brought within Params'
	// limits at once, however far over it starts.
	//
	// The limit holds x^{n+1}, and V carries what it takes into the
	// next step: a face at strain ε over its limit at X0 leaves the call
	// with its corners moving apart at ε·L/Δt, 55 m/s for ε = 8.5 on a
	// 3.3 cm face in a 5 ms step, and halving Δt doubles it. Measured on
	// the monkey's tablecloth seed 103 (strain limit switched on, then a
	// vertex dragged into a heap of cloth on the table: 27 000–55 000
	// CCD hits a step): the continuous collision stage left faces at
	// 120–860 % strain at the end of each step, the next step's limit
	// pulled them back at once, and the kinetic energy doubled every two
	// steps until a vertex passed 200 m/s at t = 3.035 s; the failsafe's
	// halved steps only raised the speed (217, 329, 438, 516, 550 m/s).
	// The cloth decides the bound (cloth.StrainRecovery).
	Recover float64
	// Ref, when set (a position per vertex slot), stands in for X0 in
	// Recover's rule: a face over its limit has its strain at Ref, less
	// Recover, as its limits. The cloth's rounds after the collisions'
	// continuous stage set it to x^n + Δt·V before that stage, so that
	// CCD's responses stretch no face further than the solve left it
	// (the cloth's strainLimits).
	Ref []geom.Vec3
}

// Stats reports one Apply.
type Stats struct {
	Constrained      int           // edges over their limit in the global force estimate (step 1)
	Elements         int           // faces over their limit that responded in the first pass (step 2)
	Passes           int           // element-response + stitching passes made
	ForceIterations  int           // CG iterations of the force estimate
	StitchIterations int           // CG iterations of all stitching solves
	MaxStrainBefore  float64       // largest principal strain σ_max − 1 of any face at x^n + Δt·V on entry (0 when every face is compressed)
	MaxStrainAfter   float64       // the same on exit
	MaxRatioAfter    float64       // largest limit ratio on exit (≤ 1 + Tolerance when the passes sufficed; 1 = at the limit)
	Time             time.Duration // wall time of Apply
}

// edgeFace names the face slot f that holds an edge and the corners of
// the edge's vertices a and b in it.
type edgeFace struct {
	f      int32
	ka, kb uint8
}

// edge is a mesh edge a < b with the (one or two) faces that hold it.
type edge struct {
	a, b int32
	nf   int32
	ef   [2]edgeFace
}

// half is one face's edge, for sorting into edges.
type half struct {
	a, b   int32
	f      int32
	ka, kb uint8
}

// adj is an edge at a vertex: the edge, the other vertex and the sign s of
// the vertex in the edge vector x_b − x_a (+1 for b, −1 for a).
type adj struct {
	e, o int32
	s    float64
}

// Limiter holds the work buffers of unbiased strain limiting, reused
// from call to call, and the edge topology built from the last Tris it
// saw (rebuilt when Tris changes, as on an adaptive mesh). A Limiter is
// not safe for concurrent use.
type Limiter struct {
	valid   Params      // the last parameters that validated
	tris    [][3]int32  // the faces the topology below was built for
	rest    []geom.Vec2 // the Rest and InvMass that grad, wf and hf were made from
	invMass []float64
	faces   []int32 // live face slots
	halfs   []half
	sorted  []half // the halves sorted by (a, b, f)
	edges   []edge
	vOff    []int32 // vertex v's edges are vAdj[vOff[v]:vOff[v+1]], in edge order
	vAdj    []adj

	grad [][3]geom.Vec2 // per face slot: shape-function gradients
	xt   [][3]geom.Vec3 // per face slot: the element's corners after its response
	wf   [][3]float64   // per face slot: the corners' inverse masses
	hf   []float64      // per face slot: longest rest edge, m
	fe   [][3]int32     // per face slot: its three edges
	resp []bool         // per face slot: responded in this pass (its stitching weight is then stitchWeight, else 1)
	fr   []float64      // per face slot: limit ratio at l.x when last evaluated
	fs   []float64      // per face slot: largest principal strain at l.x when last evaluated
	flim []limits       // per face slot: its limits in this call, when relaxed (Input.Recover)

	reach   marks   // per vertex: reached by the last activeSet
	front   []int32 // activeSet's rings
	next    []int32
	active  []int32 // vertices the stitching works on, increasing
	freach  marks   // per face slot: reached by the last candidates
	cand    []int32 // faces the next element pass works on
	moved   marks   // per vertex: moved by this call
	taken   marks   // per edge: taken by the force estimate
	aedges  []int32 // the force estimate's edges over their limit, increasing
	avert   []int32 // their ends
	act     []bool  // per edge: in aedges
	partial bool    // evaluate recomputes only the faces with a moved corner

	used []bool      // per vertex: in some live face
	xs   []geom.Vec3 // per vertex: x* = x^n + Δt·V on entry
	x    []geom.Vec3 // per vertex: current positions
	y    []geom.Vec3 // per vertex: M⁻¹Jᵀλ (step 1)

	// The stitching's system on the active set, indexed by the position i
	// of a vertex in l.active (loc[v] = i): row i of the weighted
	// Laplacian is sd[i]·p_i − Σ_k rowW[k]·p_{rowCol[k]} over
	// k ∈ [rowOff[i], rowOff[i+1]), one entry per edge at the vertex in
	// adjacency order; an edge to a vertex outside the set or pinned
	// points at slot len(l.active), where sp is always zero.
	loc    []int32     // per vertex: index in l.active (valid where l.reach marks it)
	rowOff []int32     // per active vertex + 1
	rowCol []int32     // per row entry
	rowW   []float64   // per row entry: Σ_{f∋e} w_f
	sd     []float64   // per active vertex: Laplacian diagonal (0 = pinned or unused: not solved for)
	sx     []geom.Vec3 // per active vertex: the correction δ
	sr     []geom.Vec3 // per active vertex: CG residual, search direction (+ the zero slot), product, preconditioned residual
	sp     []geom.Vec3
	sap    []geom.Vec3
	sz     []geom.Vec3

	lmax []float64   // per edge: rest length at the limit, m (set for the edges the force estimate examined)
	u    []geom.Vec3 // per edge in aedges: Δt·∂c/∂x_b
	c    []float64
	diag []float64
	lam  []float64
	r    []float64
	z    []float64
	p    []float64
	ap   []float64

	fill []int32 // per vertex + 1: scratch of build

	parts [2]parallel.Partials

	// per-call state read by the loop bodies below
	in      *Input
	dt      float64
	lim     limits
	relaxed bool // some face's limits in flim are above lim (Input.Recover)

	evalFaces, respondFaces, edgeGap, lapApply, relaxFaces func(k, lo, hi int)
}

// NewLimiter returns a Limiter with empty buffers; they grow on the first
// Apply and are reused after.
func NewLimiter() *Limiter {
	l := &Limiter{}
	l.evalFaces = l.evalFacesChunk
	l.respondFaces = l.respondFacesChunk
	l.edgeGap = l.edgeGapChunk
	l.lapApply = l.lapApplyChunk
	l.relaxFaces = l.relaxFacesChunk
	return l
}

// marks flags items by stamp: item i is marked while at[i] equals the
// stamp, so that next unmarks them all at once.
type marks struct {
	at    []uint32
	stamp uint32
}

// reset sizes the marks for n items, none marked.
func (m *marks) reset(n int) {
	m.at = buf.Grow(m.at, n)
	clear(m.at)
	m.stamp = 0
}

// next unmarks every item: a new stamp, and when it wraps to 0 the marks
// are cleared, so that no old mark equals a new stamp.
func (m *marks) next() {
	m.stamp++
	if m.stamp == 0 {
		clear(m.at)
		m.stamp = 1
	}
}

// has reports whether item i is marked.
func (m *marks) has(i int32) bool { return m.at[i] == m.stamp }

// mark marks item i and reports whether it was unmarked.
func (m *marks) mark(i int32) bool {
	if m.at[i] == m.stamp {
		return false
	}
	m.at[i] = m.stamp
	return true
}

// Apply limits the strain of the cloth in (Tsiknis ch. 2; see the package
// doc for the three steps and the decisions taken) by changing in.V, so
// that x^{n+1} = x^n + Δt·V has every face within p's limits to
// p.Tolerance where p.Passes suffice. Pinned vertices (InvMass 0) keep their
// V exactly. When p.Enabled is false, or no face is over its limit by more
// than p.Tolerance, V is not touched (bit for bit). On error (invalid
// parameters or input, a non-finite result) V is as it was on entry.
// Once warm on an unchanged mesh it does not allocate.
func (l *Limiter) Apply(in *Input, dt float64, p Params) (Stats, error) {
	t0 := time.Now()
	var st Stats
	if !p.Enabled {
		return st, nil
	}
	if p != l.valid { // validating through the table allocates; once per setting
		if err := p.Validate(); err != nil {
			return st, err
		}
		l.valid = p
	}
	if err := l.prepare(in, dt); err != nil {
		return st, err
	}
	l.in, l.dt, l.lim = in, dt, limitsOf(p)
	l.relaxed = false
	defer func() { l.in = nil }()

	// The entry check at x* (set by prepare).
	copy(l.x, l.xs)
	l.partial = false
	ratio, strain := l.evaluate()
	if ratio > 1+p.Tolerance && in.Recover > 0 && l.relax() {
		ratio, strain = l.evaluate()
	}
	st.MaxStrainBefore, st.MaxStrainAfter, st.MaxRatioAfter = strain, strain, ratio
	if !(ratio > 1+p.Tolerance) {
		st.Time = time.Since(t0)
		if math.IsNaN(ratio) {
			return st, errors.New("strain limit: non-finite positions on entry")
		}
		return st, nil
	}

	l.moved.next()
	st.Constrained, st.ForceIterations = l.forceEstimate(p.Iterations)
	l.firstCandidates()
	clear(l.resp)
	for pass := 0; pass < p.Passes; pass++ {
		r, n := l.responses()
		if pass == 0 {
			st.Elements = n
		}
		if !(r > 1+p.Tolerance) {
			break
		}
		st.Passes++
		rings := stitchRings
		if r < 1+fineRatio {
			rings = fineRings
		}
		st.StitchIterations += l.stitch(p.Iterations, rings)
		l.candidates()
	}
	l.partial = !l.gauge() && !everyFace
	st.MaxRatioAfter, st.MaxStrainAfter = l.evaluate()
	if math.IsNaN(st.MaxRatioAfter) || math.IsInf(st.MaxRatioAfter, 0) {
		st.Time = time.Since(t0)
		return st, errors.New("strain limit: non-finite result; velocities left unchanged")
	}
	l.writeBack()
	st.Time = time.Since(t0)
	return st, nil
}

// prepare checks the input, (re)builds the topology when Tris changed and
// sets x* = x^n + Δt·V (l.xs).
func (l *Limiter) prepare(in *Input, dt float64) error {
	if in == nil {
		return errors.New("strain limit: nil input")
	}
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("strain limit: time step %g s must be positive and finite", dt)
	}
	n := len(in.X0)
	if len(in.V) != n || len(in.InvMass) != n || len(in.Rest) != n {
		return fmt.Errorf("strain limit: slice lengths differ: X0 %d, V %d, InvMass %d, Rest %d", n, len(in.V), len(in.InvMass), len(in.Rest))
	}
	if in.Ref != nil && len(in.Ref) != n {
		return fmt.Errorf("strain limit: slice lengths differ: X0 %d, Ref %d", n, len(in.Ref))
	}
	// Tris equal to the last call's were checked when the topology was
	// built from them, and InvMass equal to the last call's when the face
	// constants were made: each is checked again only when it changed.
	same := slices.Equal(l.tris, in.Tris) && len(l.used) == n
	if !same {
		if err := checkTris(in.Tris, n); err != nil {
			l.tris = l.tris[:0]
			return err
		}
		if err := l.build(in.Tris, n); err != nil {
			l.tris = l.tris[:0]
			return err
		}
	}
	// The face constants depend on Tris, Rest and InvMass only: made again
	// when one of them changed since the last call (on an adaptive mesh
	// every few steps; the collision phase calls up to three times a step).
	fresh := same && slices.Equal(l.rest, in.Rest) && slices.Equal(l.invMass, in.InvMass)
	// One pass over the vertices checks them and sets x* = x^n + Δt·V.
	for v := 0; v < n; v++ {
		if !l.used[v] {
			continue
		}
		if w := in.InvMass[v]; !fresh && (!(w >= 0) || math.IsInf(w, 0)) {
			return fmt.Errorf("strain limit: vertex %d: inverse mass %g must be finite and ≥ 0", v, w)
		}
		if !in.X0[v].IsFinite() || !in.V[v].IsFinite() {
			return fmt.Errorf("strain limit: vertex %d: position or velocity not finite", v)
		}
		l.xs[v] = in.X0[v].Add(in.V[v].Scale(dt))
	}
	if fresh {
		return nil
	}
	l.rest, l.invMass = l.rest[:0], l.invMass[:0]
	for _, f := range l.faces {
		t := in.Tris[f]
		g, ok := shapeGradients(in.Rest[t[0]], in.Rest[t[1]], in.Rest[t[2]])
		if !ok {
			return fmt.Errorf("strain limit: face %d: degenerate rest triangle", f)
		}
		l.grad[f] = g
		l.wf[f] = [3]float64{in.InvMass[t[0]], in.InvMass[t[1]], in.InvMass[t[2]]}
		r0, r1, r2 := in.Rest[t[0]], in.Rest[t[1]], in.Rest[t[2]]
		l.hf[f] = math.Sqrt(max(r1.Sub(r0).Norm2(), r2.Sub(r1).Norm2(), r0.Sub(r2).Norm2()))
	}
	l.rest, l.invMass = append(l.rest, in.Rest...), append(l.invMass, in.InvMass...)
	return nil
}

// checkTris reports the first face slot of tris that names a vertex
// outside [0, n) or repeats one.
func checkTris(tris [][3]int32, n int) error {
	for f, t := range tris {
		if t[0] < 0 {
			continue
		}
		for k := 0; k < 3; k++ {
			if t[k] < 0 || int(t[k]) >= n {
				return fmt.Errorf("strain limit: face %d: vertex %d out of range [0, %d)", f, t[k], n)
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return fmt.Errorf("strain limit: face %d repeats a vertex: %v", f, t)
		}
	}
	return nil
}

// build makes the edge list (sorted by vertex pair, so that it does not
// depend on the order of the faces), each edge's faces, and the vertex →
// edge adjacency, and sizes the buffers.
func (l *Limiter) build(tris [][3]int32, n int) error {
	l.tris = append(l.tris[:0], tris...)
	l.faces = l.faces[:0]
	l.halfs = l.halfs[:0]
	for f, t := range tris {
		if t[0] < 0 {
			continue
		}
		l.faces = append(l.faces, int32(f))
		for k := 0; k < 3; k++ {
			ka, kb := uint8(k), uint8((k+1)%3)
			a, b := t[ka], t[kb]
			if a > b {
				a, b, ka, kb = b, a, kb, ka
			}
			l.halfs = append(l.halfs, half{a: a, b: b, f: int32(f), ka: ka, kb: kb})
		}
	}
	// Sort the halves by (a, b, f): a counting sort by a, stable, so each
	// bucket keeps the faces' order, then a stable insertion sort by b
	// within each bucket (a vertex has a handful of edges). The topology
	// is rebuilt after every adaptation; on the gathering adaptive
	// curtain (1800 steps, 129 rebuilds) build took 0.12 s of CPU with
	// this against 0.36 s with slices.SortFunc.
	cnt := buf.Grow(l.fill, n+1)
	clear(cnt)
	for _, h := range l.halfs {
		cnt[h.a+1]++
	}
	for v := 0; v < n; v++ {
		cnt[v+1] += cnt[v]
	}
	l.sorted = buf.Grow(l.sorted, len(l.halfs))
	for _, h := range l.halfs {
		l.sorted[cnt[h.a]] = h
		cnt[h.a]++
	}
	for v, lo := 0, int32(0); v < n; v++ { // bucket v is sorted[lo:cnt[v]]
		hi := cnt[v]
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && l.sorted[j].b < l.sorted[j-1].b; j-- {
				l.sorted[j], l.sorted[j-1] = l.sorted[j-1], l.sorted[j]
			}
		}
		lo = hi
	}
	l.fill = cnt
	l.edges = l.edges[:0]
	for _, h := range l.sorted {
		ef := edgeFace{f: h.f, ka: h.ka, kb: h.kb}
		if k := len(l.edges) - 1; k >= 0 && l.edges[k].a == h.a && l.edges[k].b == h.b {
			if l.edges[k].nf == 2 {
				return fmt.Errorf("strain limit: edge (%d, %d) has more than two faces", h.a, h.b)
			}
			l.edges[k].ef[1] = ef
			l.edges[k].nf = 2
			continue
		}
		l.edges = append(l.edges, edge{a: h.a, b: h.b, nf: 1, ef: [2]edgeFace{ef}})
	}
	l.fe = buf.Grow(l.fe, len(tris))
	for e, ed := range l.edges {
		for j := int32(0); j < ed.nf; j++ {
			ef := ed.ef[j]
			k := ef.ka // the face's edge k joins corners k and k+1
			if (ef.ka+1)%3 != ef.kb {
				k = ef.kb
			}
			l.fe[ef.f][k] = int32(e)
		}
	}
	l.vOff = buf.Grow(l.vOff, n+1)
	clear(l.vOff)
	for _, e := range l.edges {
		l.vOff[e.a+1]++
		l.vOff[e.b+1]++
	}
	for v := 0; v < n; v++ {
		l.vOff[v+1] += l.vOff[v]
	}
	l.vAdj = buf.Grow(l.vAdj, int(l.vOff[n]))
	l.used = buf.Grow(l.used, n)
	clear(l.used)
	cur := buf.Grow(l.fill, n) // per-vertex fill counts
	clear(cur)
	for i, e := range l.edges {
		ia := int(l.vOff[e.a]) + int(cur[e.a])
		l.vAdj[ia] = adj{e: int32(i), o: e.b, s: -1}
		cur[e.a]++
		ib := int(l.vOff[e.b]) + int(cur[e.b])
		l.vAdj[ib] = adj{e: int32(i), o: e.a, s: 1}
		cur[e.b]++
		l.used[e.a], l.used[e.b] = true, true
	}
	l.fill = cur
	nf, ne := len(tris), len(l.edges)
	l.grad = buf.Grow(l.grad, nf)
	l.xt = buf.Grow(l.xt, nf)
	l.wf = buf.Grow(l.wf, nf)
	l.hf = buf.Grow(l.hf, nf)
	l.resp = buf.Grow(l.resp, nf)
	l.fr = buf.Grow(l.fr, nf)
	l.fs = buf.Grow(l.fs, nf)
	l.moved.reset(n)
	l.taken.reset(ne)
	l.aedges = l.aedges[:0]
	l.reach.reset(n)
	l.freach.reset(nf)
	for _, s := range []*[]geom.Vec3{&l.xs, &l.x, &l.y} {
		*s = buf.Grow(*s, n)
	}
	l.loc = buf.Grow(l.loc, n)
	for _, s := range []*[]float64{&l.lmax, &l.c, &l.diag, &l.lam, &l.r, &l.z, &l.p, &l.ap} {
		*s = buf.Grow(*s, ne)
	}
	l.u = buf.Grow(l.u, ne)
	l.act = buf.Grow(l.act, ne)
	clear(l.act)
	return nil
}

// evaluate returns the largest limit ratio and principal strain over the
// faces at l.x, and keeps each face's in l.fr and l.fs. With l.partial it
// computes them again only for the faces with a corner this call has
// moved and takes the others' from l.fr and l.fs (the same numbers: their
// corners are where they were).
func (l *Limiter) evaluate() (ratio, strain float64) {
	parallel.ForChunks(len(l.faces), l.evalFaces)
	for k := range l.parts[0] {
		ratio = math.Max(ratio, l.parts[0][k][0])
		strain = math.Max(strain, l.parts[0][k][1])
		if math.IsNaN(l.parts[0][k][0]) {
			ratio = math.NaN()
		}
	}
	return ratio, strain
}

func (l *Limiter) evalFacesChunk(k, lo, hi int) {
	var ratio, strain float64
	for _, f := range l.faces[lo:hi] {
		t := l.tris[f]
		r, s := l.fr[f], l.fs[f]
		if !l.partial || l.moved.has(t[0]) || l.moved.has(t[1]) || l.moved.has(t[2]) {
			xs := [3]geom.Vec3{l.x[t[0]], l.x[t[1]], l.x[t[2]]}
			r, s = faceRatio(&xs, &l.grad[f], l.faceLimits(f))
			l.fr[f], l.fs[f] = r, s
		}
		if math.IsNaN(r) || math.IsNaN(s) {
			ratio = math.NaN()
			break
		}
		ratio, strain = math.Max(ratio, r), math.Max(strain, s)
	}
	l.parts[0][k][0], l.parts[0][k][1] = ratio, strain
}

// faceLimits returns face slot f's limits in this call: Params', or
// those Input.Recover relaxed.
func (l *Limiter) faceLimits(f int32) limits {
	if l.relaxed {
		return l.flim[f]
	}
	return l.lim
}

// relax sets every live face's limits in l.flim (Input.Recover): a face
// over its limit at x* (l.fr, from the entry check) whose largest
// principal strain ε₀ at X0 is over a stretch limit by more than Recover
// gets 1 + ε₀ − Recover in its place; the others keep Params' limits (a
// face within them at x* is not moved for its own sake). It reports whether any
// face was relaxed (l.relaxed), and clears l.partial: the faces' ratios
// are to be evaluated again.
func (l *Limiter) relax() bool {
	l.flim = buf.Keep(l.flim, len(l.in.Tris))
	parallel.ForChunks(len(l.faces), l.relaxFaces)
	l.relaxed = false
	for k := range l.parts[0] {
		l.relaxed = l.relaxed || l.parts[0][k][0] > 0
	}
	l.partial = false
	return l.relaxed
}

func (l *Limiter) relaxFacesChunk(k, lo, hi int) {
	x0, recover := l.in.X0, l.in.Recover
	if l.in.Ref != nil {
		x0 = l.in.Ref
	}
	n := 0
	for _, f := range l.faces[lo:hi] {
		lim := l.lim
		if !(l.fr[f] > 1) { // within its limit at x*: nothing to relax
			l.flim[f] = lim
			continue
		}
		t := l.tris[f]
		xs := [3]geom.Vec3{x0[t[0]], x0[t[1]], x0[t[2]]}
		_, s := faceRatio(&xs, &l.grad[f], l.lim)
		if d := 1 + s - recover; d > lim.dx || d > lim.dy {
			lim.dx, lim.dy = max(lim.dx, d), max(lim.dy, d)
			n++
		}
		l.flim[f] = lim
	}
	l.parts[0][k][0] = float64(n)
}

// responses runs step 2 (Tsiknis §2.2.1) on the candidate faces l.cand at
// l.x, each alone, into l.xt, and returns the largest limit ratio before
// the responses and the number of faces that responded. The first pass
// takes the faces that may be over their limit (firstCandidates); later
// ones only those that the last stitching moved (candidates): every other
// face was within its limit when last seen (a face that responded has its
// corners in the stitching's active set) and has not moved since, so its
// ratio is ≤ 1 and its x̃ = x, and the result is the same as over all
// faces. Only the faces that responded have an x̃ in l.xt that the
// stitching reads (l.resp).
func (l *Limiter) responses() (float64, int) {
	parallel.ForChunks(len(l.cand), l.respondFaces)
	var ratio float64
	var n int
	for k := range l.parts[0] {
		ratio = math.Max(ratio, l.parts[0][k][0])
		n += int(l.parts[0][k][1])
	}
	return ratio, n
}

func (l *Limiter) respondFacesChunk(k, lo, hi int) {
	var ratio float64
	var n int
	for _, f := range l.cand[lo:hi] {
		t := l.tris[f]
		xt := [3]geom.Vec3{l.x[t[0]], l.x[t[1]], l.x[t[2]]}
		// The check from the metric alone first: a face within its limit
		// by overMargin cannot respond, and most candidates are.
		lim := l.faceLimits(f)
		r, _ := faceRatio(&xt, &l.grad[f], lim)
		moved := false
		if !(r <= 1-overMargin) || everyFace {
			r, moved = limitElement(&xt, &l.wf[f], &l.grad[f], l.hf[f], lim)
			l.xt[f] = xt
		}
		l.resp[f] = moved
		ratio = math.Max(ratio, r)
		if moved {
			n++
		}
	}
	l.parts[0][k][0], l.parts[0][k][1] = ratio, float64(n)
}

// forceEstimate is step 1 (Tsiknis §2.1, eq. 2.1–2.4): it solves
// (J·M⁻¹·Jᵀ + ρ·diag)·λ = −c by Jacobi-preconditioned CG for the edges
// over their limit at l.x and moves l.x by Δt·M⁻¹·Jᵀλ. J_e = Δt·∂c_e/∂x
// with c_e = |x_b − x_a|/L_e − 1, L_e = |D·(X_b − X_a)| the edge's rest
// length at its limit: ∂c_e/∂x_b = −∂c_e/∂x_a = û_e/L_e. Each row's
// gradients sum to zero and point along the edge, so the impulse Jᵀλ
// conserves linear momentum exactly and, about x*, angular momentum. It
// returns the number of constrained edges and the CG iterations.
//
// Only the edges of faces over 1 − overMargin on entry (l.fr) are
// examined, and the CG runs on the list of those over their limit
// (l.aedges, increasing): every other edge is within its limit, so its
// λ, residual and search direction stay exactly zero, and the sums over
// the list add the same nonzero terms in the same order as sums over all
// edges would.
func (l *Limiter) forceEstimate(maxIter int) (int, int) {
	l.taken.next()
	for _, e := range l.aedges { // the last call's
		l.act[e] = false
	}
	l.aedges = l.aedges[:0]
	for _, f := range l.faces {
		if !(l.fr[f] <= 1-overMargin) || everyFace {
			for _, e := range l.fe[f] {
				if l.taken.mark(e) {
					l.aedges = append(l.aedges, e)
				}
			}
		}
	}
	slices.Sort(l.aedges)
	k := 0
	for _, e := range l.aedges {
		if l.setupEdge(e) {
			l.aedges[k] = e
			k++
		}
	}
	l.aedges = l.aedges[:k]
	if k == 0 {
		return 0, 0
	}
	l.avert = l.avert[:0]
	for _, e := range l.aedges {
		l.act[e] = true
		for _, v := range [2]int32{l.edges[e].a, l.edges[e].b} {
			if l.moved.mark(v) {
				l.avert = append(l.avert, v)
			}
		}
	}
	// λ = 0, r = −c, z = r/diag, p = z.
	var rz, rr0 float64
	for _, e := range l.aedges {
		l.lam[e] = 0
		l.r[e] = -l.c[e]
		l.z[e] = l.r[e] / ((1 + forceReg) * l.diag[e])
		l.p[e] = l.z[e]
		rz += l.r[e] * l.z[e]
		rr0 += l.r[e] * l.r[e]
	}
	it := 0
	rr := rr0
	for ; it < maxIter && rr > forceTol*forceTol*rr0 && rz > 0; it++ {
		l.applyJMJ(l.p, l.ap)
		var pap float64
		for _, e := range l.aedges {
			pap += l.p[e] * l.ap[e]
		}
		if !(pap > 0) {
			break
		}
		a := rz / pap
		var rzn float64
		rr = 0
		for _, e := range l.aedges {
			l.lam[e] += a * l.p[e]
			l.r[e] -= a * l.ap[e]
			l.z[e] = l.r[e] / ((1 + forceReg) * l.diag[e])
			rzn += l.r[e] * l.z[e]
			rr += l.r[e] * l.r[e]
		}
		b := rzn / rz
		rz = rzn
		for _, e := range l.aedges {
			l.p[e] = l.z[e] + b*l.p[e]
		}
	}
	// x += Δt·M⁻¹·Jᵀλ (eq. 2.4).
	l.jtlOf(l.lam)
	for _, v := range l.avert {
		l.x[v] = l.x[v].Add(l.y[v].Scale(l.dt))
	}
	return k, it
}

// setupEdge computes edge e's limit length, and, when the edge is over it
// and not between two pinned vertices, its constraint value, gradient and
// Jacobi diagonal; it reports whether it is.
func (l *Limiter) setupEdge(e int32) bool {
	in := l.in
	ed := &l.edges[e]
	r := in.Rest[ed.b].Sub(in.Rest[ed.a])
	lim := l.lim
	if l.relaxed { // the more lenient of its faces' limits
		for k := range ed.nf {
			fl := l.flim[ed.ef[k].f]
			lim.dx, lim.dy = max(lim.dx, fl.dx), max(lim.dy, fl.dy)
		}
	}
	lm := math.Hypot(lim.dx*r.X, lim.dy*r.Y)
	l.lmax[e] = lm
	d := l.x[ed.b].Sub(l.x[ed.a])
	ln := d.Norm()
	wa, wb := in.InvMass[ed.a], in.InvMass[ed.b]
	if !(ln > lm && wa+wb > 0) {
		return false
	}
	l.c[e] = ln/lm - 1
	l.u[e] = d.Scale(l.dt / (lm * ln))
	l.diag[e] = l.u[e].Dot(l.u[e]) * (wa + wb)
	return true
}

// jtlOf sets l.y = M⁻¹·Jᵀ·lam at the ends of the edges in l.aedges
// (l.avert; it is zero elsewhere), gathered per vertex in edge order.
func (l *Limiter) jtlOf(lam []float64) {
	for _, v := range l.avert {
		var s geom.Vec3
		if w := l.in.InvMass[v]; w > 0 {
			for _, a := range l.vAdj[l.vOff[v]:l.vOff[v+1]] {
				if l.act[a.e] {
					s = s.Add(l.u[a.e].Scale(a.s * lam[a.e]))
				}
			}
			s = s.Scale(w)
		}
		l.y[v] = s
	}
}

// applyJMJ sets out = (J·M⁻¹·Jᵀ + ρ·diag)·in on the edges in l.aedges.
func (l *Limiter) applyJMJ(in, out []float64) {
	l.jtlOf(in)
	for _, e := range l.aedges {
		ed := &l.edges[e]
		out[e] = l.u[e].Dot(l.y[ed.b].Sub(l.y[ed.a])) + forceReg*l.diag[e]*in[e]
	}
}

// stitch is step 3 (Tsiknis §2.3, eq. 2.10, with face weights w_f, see
// stitchWeight): it moves l.x to the positions that minimise
// Σ_faces w_f·Σ_edges |(x_b − x_a) − (x̃_b^f − x̃_a^f)|², pinned vertices
// held. The normal equations are L·x = Σ_e s·t_e with L the graph
// Laplacian with edge weights Σ_{f∋e} w_f and t_e = Σ_f w_f·(x̃_b^f − x̃_a^f);
// CG solves for the correction δ, L·δ = g, from δ = 0, where
// g_v = Σ_e s·Σ_f w_f·[(x̃_b^f − x̃_a^f) − (x_b − x_a)] is exactly zero
// around faces that did not respond. It returns the CG
// iterations.
func (l *Limiter) stitch(maxIter, rings int) int {
	l.activeSet(min(maxIter, rings))
	l.stitchSystem()
	na := len(l.active)
	var rz, rr0 float64
	for i := 0; i < na; i++ {
		rz += l.sr[i].Dot(l.sz[i])
		rr0 += l.sr[i].Dot(l.sr[i])
	}
	it := 0
	rr := rr0
	for ; it < maxIter && rr > stitchTol*stitchTol*rr0 && rz > 0; it++ {
		if na < serialRows {
			l.lapApplyChunk(0, 0, na)
		} else {
			parallel.ForChunks(na, l.lapApply) // sap = L·sp
		}
		var pap float64
		for i := 0; i < na; i++ {
			pap += l.sp[i].Dot(l.sap[i])
		}
		if !(pap > 0) {
			break
		}
		a := rz / pap
		var rzn float64
		rr = 0
		for i := 0; i < na; i++ {
			if l.sd[i] == 0 {
				continue
			}
			l.sx[i] = l.sx[i].Add(l.sp[i].Scale(a))
			l.sr[i] = l.sr[i].Sub(l.sap[i].Scale(a))
			l.sz[i] = l.sr[i].Scale(1 / l.sd[i])
			rzn += l.sr[i].Dot(l.sz[i])
			rr += l.sr[i].Dot(l.sr[i])
		}
		b := rzn / rz
		rz = rzn
		for i := 0; i < na; i++ {
			l.sp[i] = l.sz[i].Add(l.sp[i].Scale(b))
		}
	}
	for i, v := range l.active {
		if l.sd[i] != 0 {
			l.x[v] = l.x[v].Add(l.sx[i])
			l.moved.mark(v)
		}
	}
	return it
}

// serialRows is the active-set size below which the stitching's rows and
// Laplacian product run on the calling goroutine; from it on they run in
// parallel (each row is its own, so the result is the same bit for bit).
// The step waits for the limiter, so the other core is idle meanwhile.
// Measured 2026-11-26 on 2 cores, the gathering adaptive curtain (active
// sets of about 830 vertices; the steps with faces over the limit, 4
// interleaved runs each): 4.36 ms of limiting per such step with 4096,
// 3.81 ms with 256 (medians). 64 was no better than 256 in one run each.
// (A variable for TestSkippingExact.)
var serialRows = 256

// stitchSystem builds the stitching's rows on l.active (see the fields)
// and its first CG vectors: sr = g, sz = g/sd, sp = sz, sx = 0.
func (l *Limiter) stitchSystem() {
	na := len(l.active)
	l.rowOff = buf.Grow(l.rowOff, na+1)
	l.rowOff[0] = 0
	for i, v := range l.active {
		l.loc[v] = int32(i)
		k := l.rowOff[i]
		if l.used[v] && l.in.InvMass[v] != 0 {
			k += l.vOff[v+1] - l.vOff[v]
		}
		l.rowOff[i+1] = k
	}
	nnz := int(l.rowOff[na])
	l.rowCol = buf.Grow(l.rowCol, nnz)
	l.rowW = buf.Grow(l.rowW, nnz)
	l.sd = buf.Grow(l.sd, na)
	for _, s := range []*[]geom.Vec3{&l.sx, &l.sr, &l.sap, &l.sz} {
		*s = buf.Grow(*s, na)
	}
	l.sp = buf.Grow(l.sp, na+1)
	l.sp[na] = geom.Vec3{}
	if na < serialRows {
		l.edgeGapChunk(0, 0, na)
	} else {
		parallel.ForChunks(na, l.edgeGap)
	}
}

// firstCandidates sets l.cand to the faces the first pass must examine
// (see candidates for their order): those over 1 − overMargin on entry
// and those with a corner the force estimate moved (see overMargin);
// with everyFace, every face.
func (l *Limiter) firstCandidates() {
	if everyFace {
		l.cand = append(l.cand[:0], l.faces...)
		return
	}
	l.freach.next()
	l.cand = l.cand[:0]
	for _, f := range l.faces {
		if !(l.fr[f] <= 1-overMargin) {
			l.freach.mark(f)
			l.cand = append(l.cand, f)
		}
	}
	l.facesAround(l.avert)
}

// everyFace makes Apply examine every face in the force estimate and the
// first pass, run every candidate's element response and check every face
// on exit, as it did before it skipped the faces that cannot be over
// their limit (for the test that the skipping changes nothing).
var everyFace = false

// candidates sets l.cand to the faces with a corner in the stitching's
// active set (the only ones it can have moved). Their order is that of
// the walk, and no result depends on it: each face's response is its
// own, the responses' maximum and count do not depend on the order, and
// activeSet sorts the vertices it gathers from the faces that responded.
// (Sorting them took a tenth of the limiter's time on the gathering
// adaptive curtain.)
func (l *Limiter) candidates() {
	l.freach.next()
	l.cand = l.cand[:0]
	l.facesAround(l.active)
}

// facesAround appends to l.cand the faces at the vertices vs not marked
// in l.freach, and marks them.
func (l *Limiter) facesAround(vs []int32) {
	for _, v := range vs {
		for _, a := range l.vAdj[l.vOff[v]:l.vOff[v+1]] {
			ed := &l.edges[a.e]
			for i := int32(0); i < ed.nf; i++ {
				if f := ed.ef[i].f; l.freach.mark(f) {
					l.cand = append(l.cand, f)
				}
			}
		}
	}
}

// stitchEverywhere makes activeSet take every vertex (for the test that
// the restriction changes nothing).
var stitchEverywhere = false

// stitchRings bounds how far each stitching reaches: it solves for the
// vertices within min(stitchRings, Params.Iterations) edge rings of the
// corners of the faces that responded and holds the others where they
// are (a Dirichlet boundary), a local version of eq. 2.10. With as many
// rings as CG iterations this is the whole-mesh stitching exactly (see
// activeSet); with fewer, the correction of a pass stays nearer the faces
// that made it, and the passes that follow correct what it left. Measured
// (2026-11-25, 2 cores, one run each, with stitchTol 1e-6 and before the
// faces' check was made cheaper; rings 20 = exact): the gathering
// adaptive curtain with the 10 % limit and collisions, 1800 steps (the
// "on" case of sim/scene's TestStrainFigures with DRAPE_FIGURES=9), spent
// 13.2 s in strain limiting with 20 rings, 7.2 s with 10, 5.2 s with 8,
// 4.5–5.0 s with 6, 4.4 s with 5 and 3.9 s with 3 (the step: 12.1, 8.0,
// 6.3, 6.1–6.7, 6.2, 6.4 ms); BenchmarkApply's 0.5 %-limited hanging
// curtain 108 → 49 ms (15 → 13 passes), flung corner 15 → 7.4 ms (5
// passes both), held corner 27 → 17 ms (12 → 15 passes), 20 rings → 6. Below 5 rings the strip of TestChainOrder no
// longer gives every column a share of the stretch (3 rings left two
// columns at 1.000; 5–8 rings give 2.3–10 %, the exact stitching
// 1.8–9.1 %), so 6 it is.
var stitchRings = 6

// fineRings is the reach of a stitching after a pass whose largest limit
// ratio was below 1 + fineRatio. The passes that finish the job (on the
// gathering adaptive curtain a step's last passes take the largest ratio
// from about 1.01 to the tolerance, 1.002, each moving the same 30–40
// faces by fractions of a millimetre, over about 660 vertices at 6
// rings) need less reach than those that make the large corrections; a
// ratio over 1.2 (strain 32 % against a 10 % limit) still gets
// stitchRings. Measured on the gathering adaptive curtain (2026-11-26, 2
// cores; the share of the step that strain limiting takes, scratch runs
// of TestStrainFigures' "on" case, the configurations taking turns):
//
//	below ratio   rings   share of the step
//	(none)        6       17.8–19.6 %
//	1.01          3       17.6–17.9 %
//	1.02          3       16.9–17.0 %
//	1.05          3       14.6–16.2 %
//	1.1           3       15.0–15.6 %
//	1.2           3       14.0–15.3 %
//	1.05          2       14.5–15.5 %
//	1.1           2       13.9–14.0 %
//	1.2           2       12.3–12.7 %
//
// The passes of a limited step went from 4.86 to 4.93; BenchmarkApply's
// cases took 14 instead of 11 (held corner), 7 (flung) and 13 instead of
// 12 (0.5 % limit), at the same or a smaller share of the step (the
// figures are in docs/notes/strain-limiting.md). Every column of
// TestChainOrder's strip keeps a share of the stretch (2.4–10 %), and
// TestLimitHolds' sheets take the
// passes they took. (fineRings is a variable for TestActiveSetExact.)
const fineRatio = 0.2

var fineRings = 2

// activeSet sets l.active to the vertices within rings edge rings of the
// corners of the faces that responded, in increasing order. The
// stitching's right-hand side is zero outside the responded faces'
// corners, and each CG iteration spreads the iterates by one ring
// (one Laplacian product), so after at most rings iterations they are zero
// outside this set: the CG restricted to it computes the same numbers,
// sums included (they add the same nonzero terms in the same order), at
// a cost proportional to the set instead of the mesh.
func (l *Limiter) activeSet(rings int) {
	if stitchEverywhere {
		rings = len(l.reach.at)
	}
	l.reach.next()
	l.front = l.front[:0]
	for _, f := range l.cand { // the faces that responded are among them
		if !l.resp[f] {
			continue
		}
		for _, v := range l.tris[f] {
			if l.reach.mark(v) {
				l.front = append(l.front, v)
			}
		}
	}
	l.active = append(l.active[:0], l.front...)
	for r := 0; r < rings && len(l.front) > 0; r++ {
		l.next = l.next[:0]
		for _, v := range l.front {
			for _, a := range l.vAdj[l.vOff[v]:l.vOff[v+1]] {
				if l.reach.mark(a.o) {
					l.next = append(l.next, a.o)
					l.active = append(l.active, a.o)
				}
			}
		}
		l.front, l.next = l.next, l.front
	}
	// In increasing order: by a scan of the marks where that is cheaper
	// than sorting (about a nanosecond per vertex of the mesh against
	// tens per vertex of the set).
	if 32*len(l.active) > len(l.reach.at) {
		l.active = l.active[:0]
		for v, m := range l.reach.at {
			if m == l.reach.stamp {
				l.active = append(l.active, int32(v))
			}
		}
		return
	}
	slices.Sort(l.active)
}

// edgeGapChunk computes, per active vertex in edge order, the stitching's
// right-hand side g, its row of the Laplacian and Jacobi diagonal (0 for
// pinned and unused vertices, which the CG skips) and the first search
// direction.
func (l *Limiter) edgeGapChunk(_, lo, hi int) {
	na := int32(len(l.active))
	for i := lo; i < hi; i++ {
		v := l.active[i]
		l.sx[i], l.sr[i], l.sd[i], l.sz[i], l.sp[i] = geom.Vec3{}, geom.Vec3{}, 0, geom.Vec3{}, geom.Vec3{}
		if !l.used[v] || l.in.InvMass[v] == 0 {
			continue
		}
		var g geom.Vec3
		var d float64
		k := l.rowOff[i]
		for _, a := range l.vAdj[l.vOff[v]:l.vOff[v+1]] {
			ed := &l.edges[a.e]
			var t, cur geom.Vec3
			var we float64
			term := false
			for j := int32(0); j < ed.nf; j++ {
				ef := ed.ef[j]
				if !l.resp[ef.f] { // x̃ = x: no term, weight 1
					we++
					continue
				}
				if !term { // most edges of the set have no responded face
					cur, term = l.x[ed.b].Sub(l.x[ed.a]), true
				}
				xt := &l.xt[ef.f]
				t = t.Add(xt[ef.kb].Sub(xt[ef.ka]).Sub(cur).Scale(stitchWeight))
				we += stitchWeight
			}
			if term {
				g = g.Add(t.Scale(a.s))
			}
			d += we
			col := na
			if o := a.o; l.reach.has(o) && l.used[o] && l.in.InvMass[o] != 0 {
				col = l.loc[o]
			}
			l.rowCol[k], l.rowW[k] = col, we
			k++
		}
		l.sr[i], l.sd[i] = g, d
		l.sz[i] = g.Scale(1 / d)
		l.sp[i] = l.sz[i]
	}
}

// lapApplyChunk sets sap = L·sp on the free active vertices (sp is 0 on
// pinned ones, which the Dirichlet condition holds, and outside the
// active set, the zero slot).
func (l *Limiter) lapApplyChunk(_, lo, hi int) {
	for i := lo; i < hi; i++ {
		if l.sd[i] == 0 {
			l.sap[i] = geom.Vec3{}
			continue
		}
		var s geom.Vec3
		pv := l.sp[i]
		for k := l.rowOff[i]; k < l.rowOff[i+1]; k++ {
			s = s.Add(pv.Sub(l.sp[l.rowCol[k]]).Scale(l.rowW[k]))
		}
		l.sap[i] = s
	}
}

// writeBack sets V = (x − x^n)/Δt on the free vertices of the faces.
//
// gauge, when no vertex is pinned, fixes the stitching's gauge (see the
// package doc) and reports that it did: it translates x so that Σ m·x is
// that of the entry's x^n + Δt·V (linear momentum), then rotates x
// rigidly about its centre of mass so that Σ m·x^n × V is the entry's
// (angular momentum). A rigid motion of x^{n+1} changes no strain. The
// rotation θ solves
// L(θ) = L₀ by Newton's method with the exact Jacobian at θ = 0,
// ∂L/∂θ = −Σ m·[x^n]×·[x − c]×/Δt, and Rodrigues' formula; it stops
// when the change of L is below 1e-15 of Σ m·|x^n|·|V| (round-off), at
// most restoreIters times.
func (l *Limiter) gauge() bool {
	for v, u := range l.used {
		if u && l.in.InvMass[v] == 0 {
			return false
		}
	}
	l.restoreMomentum()
	return true
}

func (l *Limiter) writeBack() {
	in := l.in
	for v := range l.x {
		if l.used[v] && in.InvMass[v] > 0 {
			in.V[v] = l.x[v].Sub(in.X0[v]).Scale(1 / l.dt)
		}
	}
}

// restoreIters caps the Newton iterations of the angular-momentum gauge.
const restoreIters = 6

func (l *Limiter) restoreMomentum() {
	in := l.in
	var mt, scale float64
	var p0, p1, l0 geom.Vec3
	for v, u := range l.used {
		if !u {
			continue
		}
		m := 1 / in.InvMass[v]
		mt += m
		p0 = p0.Add(l.xs[v].Scale(m))
		p1 = p1.Add(l.x[v].Scale(m))
		l0 = l0.Add(in.X0[v].Cross(in.V[v]).Scale(m))
		scale += m * in.X0[v].Norm() * in.V[v].Norm()
	}
	if !(mt > 0) {
		return
	}
	shift := p0.Sub(p1).Scale(1 / mt)
	c := p0.Scale(1 / mt)
	for v, u := range l.used {
		if u {
			l.x[v] = l.x[v].Add(shift)
		}
	}
	for it := 0; it < restoreIters; it++ {
		var lx geom.Vec3
		var a geom.Mat3
		for v, u := range l.used {
			if !u {
				continue
			}
			m := 1 / in.InvMass[v]
			x0 := in.X0[v]
			lx = lx.Add(x0.Cross(l.x[v].Sub(x0).Scale(1 / l.dt)).Scale(m))
			// −[x0]×[r]× = (x0·r)·I − r·x0ᵀ
			r := l.x[v].Sub(c)
			k := m / l.dt
			d := x0.Dot(r)
			a[0] += k * (d - r.X*x0.X)
			a[1] -= k * r.X * x0.Y
			a[2] -= k * r.X * x0.Z
			a[3] -= k * r.Y * x0.X
			a[4] += k * (d - r.Y*x0.Y)
			a[5] -= k * r.Y * x0.Z
			a[6] -= k * r.Z * x0.X
			a[7] -= k * r.Z * x0.Y
			a[8] += k * (d - r.Z*x0.Z)
		}
		dl := l0.Sub(lx)
		if !(dl.Norm() > 1e-15*scale) {
			return
		}
		th, ok := solve3(a, dl)
		if !ok {
			return
		}
		for v, u := range l.used {
			if u {
				l.x[v] = c.Add(rotate(l.x[v].Sub(c), th))
			}
		}
	}
}

// rotate returns r rotated by the rotation vector th (axis th/|th|, angle
// |th|) by Rodrigues' formula.
func rotate(r, th geom.Vec3) geom.Vec3 {
	ang := th.Norm()
	if ang == 0 {
		return r
	}
	k := th.Scale(1 / ang)
	s, co := math.Sincos(ang)
	return r.Scale(co).Add(k.Cross(r).Scale(s)).Add(k.Scale(k.Dot(r) * (1 - co)))
}

// solve3 solves the 3×3 system a·x = b (row-major a) by Cramer's rule;
// ok is false when a is singular relative to its size.
func solve3(a geom.Mat3, b geom.Vec3) (geom.Vec3, bool) {
	r0 := geom.Vec3{X: a[0], Y: a[1], Z: a[2]}
	r1 := geom.Vec3{X: a[3], Y: a[4], Z: a[5]}
	r2 := geom.Vec3{X: a[6], Y: a[7], Z: a[8]}
	c0, c1, c2 := r1.Cross(r2), r2.Cross(r0), r0.Cross(r1)
	det := r0.Dot(c0)
	scale := r0.Norm() * r1.Norm() * r2.Norm()
	if !(math.Abs(det) > 1e-12*scale) {
		return geom.Vec3{}, false
	}
	// a⁻¹ = [c0 c1 c2]/det (columns), so x = (c0·b_x + c1·b_y + c2·b_z)/det.
	x := c0.Scale(b.X).Add(c1.Scale(b.Y)).Add(c2.Scale(b.Z)).Scale(1 / det)
	return x, true
}
