package cloth

import (
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// Repulsion springs in the implicit solve.
//
// Bridson, Fedkiw & Anderson 2002 §7.2 repel primitives closer than the
// thickness h by a spring of the cloth's stretch stiffness k, force
// k·(h − d) along the contact normal, applied there as an impulse after the
// solve (contact.Solver's proximity stage keeps that impulse, capped to
// remove a tenth of the overlap per step). drape also puts the spring into
// the next step's implicit solve, for every pair the last collision phase
// found within h (cloth–cloth, and cloth against a static body): the force
// at y = x + (Δt + α_K)·v, as the elastic forces are taken, and its whole
// Jacobian k·(w wᵀ)⊗(n nᵀ) in the matrix, the diagonal blocks with the
// mesh's and the blocks between the pair's points matrix-free
// (pairCoupling), so the solve stays symmetric positive definite and the
// spring conserves linear momentum (Σ w = 0).
//
// Why. With the impulses alone a crumpled cloth never came to rest: in a
// pile the membrane is so stiff against a vertex's mass (ω·Δt ≈ 20 at
// E = 1000 N/m, 5 ms) that the solve relaxes any stretch in one step, the
// relaxing vertices move 1–2 cm through layers a few mm apart, and the
// collision phase stops them, leaving the stretch in. Measured on
// drop-pile at t = 4 s: mean vertex speed 2.4 m/s and 100–1000 J of
// membrane energy, growing, without the springs; 0.04–0.07 m/s and a total
// energy of 0.2–0.4 J with them (bunny: 0.8 → 0.03–0.04 m/s). Only the diagonal blocks in the matrix
// (each point's spring against a fixed partner) did not conserve momentum
// when the springs are much stiffer than the masses: the whole pile slid
// off at 0.4–0.7 m/s.
//
// Decisions. k is the mean of the two Young's moduli (N/m, the membrane's
// stiffness per unit width, Bridson's stretch stiffness): the springs stiffen
// with the material, and no knob is added. A tenth of it took fewer PCG
// iterations on the gathering adaptive curtain (50.6 against 63.2 per step
// over its first 14 s; 45.3 without springs) but left bunny moving at
// 0.78 m/s at t = 4 s and two-sheets at 0.10 (0.04 and 0.02 with k). The pairs are those of x^n of the
// last step with their normals and weights, not searched again at the
// solve (the collision phase that follows catches what they miss). After
// an adaptation that changed the mesh a pair is kept when every point of
// it is a vertex the adaptation neither removed nor made
// (keepPairsAcross): a slot it freed and used again names another vertex.
// The pair then acts on the same vertices with the same weights for one
// step, though a flip or a split may have replaced the face it was
// measured on; the next collision phase finds the pairs on the new mesh.
// Dropping every pair after such an adaptation, as before, took the
// repulsion away for one step in every five while the curtain gathers,
// and its return the step after found the solve far from its warm start:
// the adaptive curtain took 68.6 PCG iterations a step against 59.1 with
// the pairs kept (unperturbed; medians over four starts 62.5 and 58.2,
// docs/notes/contact.md). All pairs are dropped when the step
// before had no collision phase (a pair from before collisions were
// switched off may lie centimetres inside the cloth now, and its spring
// would fling it). Pairs with a moving body are left to the collision
// phase, which pushes with the body.

// pairCoupling is the part of the system matrix that the repulsion
// springs add off the block diagonal: for spring p with rows r_k, weights
// w_k and normal n, kScale·k·(w wᵀ ⊗ n nᵀ) without its diagonal blocks
// (those are in blockSystem.val). The PCG products add it matrix-free,
// since the springs join vertices that the mesh's sparsity pattern does
// not: per product, sigmas computes each spring's σ_p = coef·Σ_k w_k·n·x_{r_k}
// (a parallel pass over the springs), and row(i, x_i) gathers row i's
// part, Σ over its entries (p, k) of w_k·n·σ_p less the springs' blocks
// (i, i), self_i·x_i, in the pass over the rows. A serial scatter over
// the springs in every PCG iteration instead made a step of fold take
// 9.1–9.2 ms against 5.3–6.2 ms (two runs each).
//
// Inside the PCG iterations the σ_p come from parts instead (setParts,
// rowFromParts): the pass that computes s writes each point's part
// w_k·n·s_{r_k} beside its row, and the product's pass sums a spring's
// parts where it needs σ_p. That spares the iteration a third parallel
// pass and its wait (the folded sheet of fold keeps 7000–8000 springs on
// its 961 rows, about 30 points per row), with the same sums in the same
// order, so the same bits: Σ starts at +0 and so is never −0, and adding
// the +0 of a point that is not a row leaves it unchanged.
//
// Only springs with two rows or more are in it: a spring with one row (a
// cloth vertex against a body, or against pinned points) has no block off
// the diagonal, and its part was a rounding residue. Equal springs are
// merged (add): a cloth vertex within h of a vertex or an edge of another
// layer makes a vertex–face pair with every face round that feature, all
// with the same points, weights and normal (contact.testVF), and m of
// them are one spring with its weights scaled by √m, the same matrix up
// to round-off. The PCG's stopping rule still takes apart every row a
// spring acts on (spring), one with a single row too. Measured on
// fold's folded end (steps 2000–2800): 6101 springs a step become 3777,
// with 12,476 points instead of 18,182; and taking the blocks (i, i) out
// once per row (self) instead of once per point took the rows' part of
// the product from 3.51 to 2.34 ns a point (BenchmarkPairCoupling).
// fold's mean step over its 15 s, two interleaved rounds at
// GOMAXPROCS=1: 11.2 → 9.5 ms (docs/notes/performance-history.md).
type pairCoupling struct {
	rows    [][4]int32 // sorted, then −1 (add)
	w       [][4]float64
	n       []geom.Vec3
	mult    []int     // per spring: how many equal springs it stands for (add, merged)
	springs int       // the springs of the step, before merging (Stats.Springs)
	touch   []int32   // the rows of every spring's points, with repeats (add)
	touched []bool    // per row: a spring acts on it, one with a single row too (finish; spring)
	table   []int32   // add's hash table: spring + 1, 0 for an empty slot
	coef    float64   // kScale·k
	sig     []float64 // per spring: σ_p of the current product

	start []int32 // per row, + 1: where its entries begin in ent
	ent   []int32 // 4·p + k for the springs' points, grouped by row
	fill  []int32 // finish's scratch

	x64   []geom.Vec3 // sigmas' vector, for sigmasChunk
	x32   []vec3f32
	sigFn func(k, lo, hi int) // sigmasChunk, made once

	// Per entry of ent, in its order: the spring's normal and the point's
	// weight, copied so that a row's entries are read in one run.
	entN []geom.Vec3
	entW []float64
	// self holds, per row i, the blocks (i, i) of its springs' points,
	// Σ coef·w_k²·n nᵀ: the matrix has them (springK), so the product
	// takes them out of Σ w_k·n·σ_p (row, rowFromParts).
	self []geom.Mat3
	// parts holds, per point 4·p + k, w_k·n·x_{r_k} for the vector of the
	// product in progress (setParts); +0 for a point that is not a row.
	parts []float64
}

// reset empties the springs.
func (pc *pairCoupling) reset() {
	pc.rows, pc.w, pc.n, pc.mult, pc.touch = pc.rows[:0], pc.w[:0], pc.n[:0], pc.mult[:0], pc.touch[:0]
	pc.springs = 0
	clear(pc.table)
}

// add adds the coupling of a spring with rows rows (−1 for none), weights w
// and normal n, merged with an equal one (see pairCoupling): its points
// with a row are sorted by row, and a spring with fewer than two is left
// out.
func (pc *pairCoupling) add(rows [4]int32, w [4]float64, n geom.Vec3) {
	var r [4]int32
	var q [4]float64
	m := 0
	for k, i := range rows {
		if i < 0 {
			continue
		}
		j := m
		for ; j > 0 && r[j-1] > i; j-- {
			r[j], q[j] = r[j-1], q[j-1]
		}
		r[j], q[j] = i, w[k]
		m++
	}
	pc.touch = append(pc.touch, r[:m]...)
	if m < 2 {
		return
	}
	for k := m; k < 4; k++ {
		r[k] = -1
	}
	if len(pc.table) < 4*(len(pc.rows)+1) {
		pc.grow()
	}
	mask := uint64(len(pc.table) - 1)
	for slot := springHash(r, q, n) & mask; ; slot = (slot + 1) & mask {
		p := pc.table[slot] - 1
		if p < 0 {
			pc.table[slot] = int32(len(pc.rows)) + 1
			pc.rows, pc.w, pc.n = append(pc.rows, r), append(pc.w, q), append(pc.n, n)
			pc.mult = append(pc.mult, 1)
			return
		}
		if pc.rows[p] == r && pc.w[p] == q && pc.n[p] == n {
			pc.mult[p]++
			return
		}
	}
}

// grow doubles the hash table of add (at least 64 slots) and inserts the
// springs again.
func (pc *pairCoupling) grow() {
	size := max(64, 2*len(pc.table))
	pc.table = buf.Keep(pc.table, size)
	clear(pc.table)
	mask := uint64(size - 1)
	for p := range pc.rows {
		slot := springHash(pc.rows[p], pc.w[p], pc.n[p]) & mask
		for pc.table[slot] != 0 {
			slot = (slot + 1) & mask
		}
		pc.table[slot] = int32(p) + 1
	}
}

// merged scales the weights of a spring that stands for m equal ones by
// √m, so that its w wᵀ is theirs summed.
func (pc *pairCoupling) merged() {
	for p, m := range pc.mult {
		if m > 1 {
			s := math.Sqrt(float64(m))
			for k := range pc.w[p] {
				pc.w[p][k] *= s
			}
		}
	}
}

// springHash mixes a spring's rows, weights and normal (FNV-1a over
// their bits, its high bits folded into the low ones that the table's
// mask keeps).
func springHash(r [4]int32, q [4]float64, n geom.Vec3) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		h ^= x
		h *= 1099511628211
	}
	for k := range r {
		mix(uint64(uint32(r[k])))
		mix(math.Float64bits(q[k]))
	}
	mix(math.Float64bits(n.X))
	mix(math.Float64bits(n.Y))
	mix(math.Float64bits(n.Z))
	return h ^ h>>29
}

// finish groups the springs' points by row for a system of nrows rows.
func (pc *pairCoupling) finish(nrows int) {
	pc.start = buf.Keep(pc.start, nrows+1)
	clear(pc.start)
	for _, r := range pc.rows {
		for _, i := range r {
			if i >= 0 {
				pc.start[i+1]++
			}
		}
	}
	for i := 0; i < nrows; i++ {
		pc.start[i+1] += pc.start[i]
	}
	pc.ent = buf.Keep(pc.ent, int(pc.start[nrows]))
	pc.fill = append(pc.fill[:0], pc.start[:nrows]...)
	for p, r := range pc.rows {
		for k, i := range r {
			if i >= 0 {
				pc.ent[pc.fill[i]] = int32(4*p + k)
				pc.fill[i]++
			}
		}
	}
	pc.sig = buf.Keep(pc.sig, len(pc.rows))
	pc.entN, pc.entW = buf.Keep(pc.entN, len(pc.ent)), buf.Keep(pc.entW, len(pc.ent))
	for j, pk := range pc.ent {
		pc.entN[j], pc.entW[j] = pc.n[pk>>2], pc.w[pk>>2][pk&3]
	}
	pc.parts = buf.Keep(pc.parts, 4*len(pc.rows))
	clear(pc.parts)
	pc.touched = buf.Keep(pc.touched, nrows)
	clear(pc.touched)
	for _, i := range pc.touch {
		pc.touched[i] = true
	}
	pc.self = buf.Keep(pc.self, nrows)
	for i := range nrows {
		if pc.start[i+1] == pc.start[i] {
			continue // not read (hasRow)
		}
		var d geom.Mat3
		for j := pc.start[i]; j < pc.start[i+1]; j++ {
			addOuter(&d, pc.entN[j], pc.coef*pc.entW[j]*pc.entW[j])
		}
		pc.self[i] = d
	}
}

// active reports whether any spring couples rows.
func (pc *pairCoupling) active() bool { return len(pc.rows) > 0 }

// acting reports whether any spring acts on a row.
func (pc *pairCoupling) acting() bool { return len(pc.touch) > 0 }

// spring reports whether a spring acts on row i, one with no coupling
// (a single row) too: the PCG's stopping rule takes these rows apart
// (pcg.solve).
func (pc *pairCoupling) spring(i int) bool { return pc.touched[i] }

// sigmas sets σ_p for the product with a vector indexed by row: x64, or
// the PCG's float32 x32 when not nil. Its loop is made once, so that the
// PCG iterations allocate nothing.
func (pc *pairCoupling) sigmas(x64 []geom.Vec3, x32 []vec3f32) {
	if pc.sigFn == nil {
		pc.sigFn = pc.sigmasChunk
	}
	pc.x64, pc.x32 = x64, x32
	parallel.ForChunks(len(pc.rows), pc.sigFn)
	pc.x64, pc.x32 = nil, nil
}

// sigmasChunk is sigmas for the springs [lo, hi).
func (pc *pairCoupling) sigmasChunk(_, lo, hi int) {
	x64, x32 := pc.x64, pc.x32
	for p := lo; p < hi; p++ {
		n, w := pc.n[p], &pc.w[p]
		var sum float64
		for k, i := range pc.rows[p] {
			if i < 0 {
				continue
			}
			var v geom.Vec3
			if x32 != nil {
				q := &x32[i]
				v = geom.Vec3{X: float64(q[0]), Y: float64(q[1]), Z: float64(q[2])}
			} else {
				v = x64[i]
			}
			sum += w[k] * n.Dot(v)
		}
		pc.sig[p] = pc.coef * sum
	}
}

// row returns row i's part of the product whose σ_p sigmas set, x_i being
// the product's vector at row i.
func (pc *pairCoupling) row(i int, xi geom.Vec3) geom.Vec3 {
	var e geom.Vec3
	for _, pk := range pc.ent[pc.start[i]:pc.start[i+1]] {
		p, k := pk>>2, pk&3
		e = e.Add(pc.n[p].Scale(pc.w[p][k] * pc.sig[p]))
	}
	return e.Sub(pc.self[i].MulVec(xi))
}

// setParts sets the parts w_k·n·x_i of row i's points, x_i being the
// product's vector at row i (see pairCoupling): what sigmasChunk adds for
// them, in the same expression.
func (pc *pairCoupling) setParts(i int, xi geom.Vec3) {
	lo, hi := pc.start[i], pc.start[i+1]
	ent, entN, entW := pc.ent[lo:hi], pc.entN[lo:hi], pc.entW[lo:hi]
	for j, pk := range ent {
		pc.parts[pk] = entW[j] * entN[j].Dot(xi)
	}
}

// rowFromParts is row for a product whose parts setParts has set for
// every row: σ_p is summed from the spring's parts as sigmasChunk sums
// it, point by point from +0, and then the same expression as row's.
func (pc *pairCoupling) rowFromParts(i int, xi geom.Vec3) geom.Vec3 {
	lo, hi := pc.start[i], pc.start[i+1]
	ent, entN, entW := pc.ent[lo:hi], pc.entN[lo:hi], pc.entW[lo:hi]
	coef := pc.coef
	var e geom.Vec3
	for j, pk := range ent {
		q := pc.parts[pk&^3 : pk&^3+4 : pk&^3+4]
		sig := coef * (0 + q[0] + q[1] + q[2] + q[3])
		e = e.Add(entN[j].Scale(entW[j] * sig))
	}
	return e.Sub(pc.self[i].MulVec(xi))
}

// hasRow reports whether a spring touches row i.
func (pc *pairCoupling) hasRow(i int) bool { return pc.start[i+1] > pc.start[i] }

// repulsionSprings fills springF, springK and sys.coupling from the pairs of
// the last Resolve for the positions y = x + vScale·v (see the file
// comment), kScale being the matrix's stiffness factor, and reports
// whether any spring acts.
func (s *Sim) repulsionSprings(kScale, vScale float64) bool {
	c := &s.ct
	sys := s.sys
	sys.coupling.reset()
	defer sys.coupling.finish(sys.n)
	if len(c.pairs) == 0 || !s.collides() || c.pairsStep != s.commits {
		// No collision phase in the last step (collisions were off, or the
		// step failed after it): its pairs may be far from the cloth now.
		return false
	}
	k := 0.5 * (s.params.YoungX + s.params.YoungY)
	sys.coupling.coef = kScale * k
	m := s.Mesh
	n := len(m.Pos)
	c.springF = buf.Keep(c.springF, n)
	c.springK = buf.Keep(c.springK, n)
	c.springOn = buf.Keep(c.springOn, n)
	clear(c.springF)
	clear(c.springK)
	clear(c.springOn)
	h := c.p.Thickness
	any := false
	for _, pr := range c.pairs {
		g, ok := pr.Offset, true
		for j, v := range pr.Ids {
			if pr.W[j] == 0 {
				continue
			}
			if v < 0 || int(v) >= n || !m.VertAlive[v] {
				ok = false
				break
			}
			g += pr.W[j] * pr.N.Dot(m.Pos[v].Add(m.Vel[v].Scale(vScale)))
		}
		if !ok || g >= h {
			continue
		}
		f := k * (h - g)
		nn := pr.N
		var rows [4]int32
		for j, v := range pr.Ids {
			w := pr.W[j]
			if w == 0 {
				rows[j] = -1
				continue
			}
			rows[j] = sys.row[v]
			c.springF[v] = c.springF[v].Sub(nn.Scale(w * f))
			addOuter(&c.springK[v], nn, k*w*w)
			c.springOn[v] = true
			any = true
		}
		sys.coupling.springs++
		sys.coupling.add(rows, pr.W, nn)
	}
	sys.coupling.merged()
	return any
}

// keepPairsAcross keeps, after an adaptation that changed the mesh, the
// pairs of the last Resolve whose every point is a vertex slot that is
// alive and that the adaptation did not make (newVerts): a slot it freed
// and used again names another vertex, and a freed one none. The others
// are dropped; the next collision phase finds the pairs again.
func (s *Sim) keepPairsAcross(newVerts []int32) {
	c := &s.ct
	if len(c.pairs) == 0 {
		return
	}
	m := s.Mesh
	c.newVert = buf.Keep(c.newVert, len(m.Pos))
	for _, v := range newVerts {
		c.newVert[v] = true
	}
	kept := c.pairs[:0]
	for _, pr := range c.pairs {
		ok := true
		for j, v := range pr.Ids {
			if pr.W[j] == 0 {
				continue
			}
			if v < 0 || int(v) >= len(m.Pos) || !m.VertAlive[v] || c.newVert[v] {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, pr)
		}
	}
	c.pairs = kept
	for _, v := range newVerts {
		c.newVert[v] = false
	}
}

// addOuter adds a·n·nᵀ to m.
func addOuter(m *geom.Mat3, n geom.Vec3, a float64) {
	u := [3]float64{n.X, n.Y, n.Z}
	for r := 0; r < 3; r++ {
		for q := 0; q < 3; q++ {
			m[3*r+q] += a * u[r] * u[q]
		}
	}
}
