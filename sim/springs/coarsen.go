package springs

import (
	"cmp"
	"math/bits"
	"slices"

	"drape/sim/geom"
)

// Coarsening is not in Olson & Rudnick, who only refine (§6 notes that the
// angle criterion then refines up to the maximum layer). It is the inverse
// bookkeeping of subdivide, and it relies on the structure subdivide builds.
// With d = 2^(m−L) the spacing of layer L and the birth layer of a slot the
// smallest L at which both its coordinates are multiples of 2^(m−L) (a
// particle's layer is never below its slot's birth layer; a layer above it
// means the particle has been subdivided):
//
//   - R1: an active or fixed particle of layer L has its 8 neighbours at
//     spacing 2^(m−L) (any type), §4.1;
//   - R2: a subdivided particle's 8 neighbours at its own spacing, and at the
//     spacing of each layer it passed through, are active or fixed (divide
//     makes its ring active and, balance, promotes the neighbours at the
//     old spacing first);
//   - R3: an interpolated particle lies on the slot midway between its two
//     parents, which are active or fixed and d apart from it at its layer L
//     (its slot's birth layer), along the one axis on which its coordinate
//     is an odd multiple of d; a slot odd on both axes is never interpolated;
//   - R4: an active or fixed particle of birth L ≥ 1 is in the ring of a
//     subdivided particle: one of its 8 neighbours at spacing d has a birth
//     layer below L and a layer ≥ L ("justifies" it);
//   - R5: an interpolated particle of layer L is seen, as in R1, by an
//     active or fixed particle of layer L among its 8 neighbours at spacing d.
//
// Each particle of birth L ≥ 1 is funded (see subdivide) by the same
// particles whenever it is made: the two at ±d on its odd axis, or the four
// corners at (±d, ±d) when both are odd, with weights ½ or ¼. So a
// particle's mass is its base lumped mass less what the particles that exist
// now took from it, whatever the order of subdivisions and coarsenings, and
// the mass bound of subdivide (no particle runs out) holds with coarsening.

// around are the 8 neighbour offsets of a slot, in units of a spacing.
var around = [8][2]int32{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}}

// birth returns the birth layer of particle id's slot: m − (the number of
// trailing zero bits of both grid coordinates, at most m); 0 for a base
// particle.
func (c *Cloth) birth(id int32) uint8 {
	tz := bits.TrailingZeros32(uint32(c.gi[id] | c.gj[id]))
	return uint8(c.m - min(tz, c.m))
}

// justified reports whether particle q of birth L has, among its 8
// neighbours at spacing 2^(m−L), an active or fixed particle other than
// except with a birth layer below L and a layer ≥ L (R4).
func (c *Cloth) justified(q, except int32) bool {
	L := c.birth(q)
	d := c.spacing(L)
	for _, o := range around {
		p := c.at(c.gi[q]+o[0]*d, c.gj[q]+o[1]*d)
		if p >= 0 && p != except && c.massive(p) && c.birth(p) < L && c.layer[p] >= L {
			return true
		}
	}
	return false
}

// seen reports whether an active or fixed particle of layer L, other than
// the ones skip reports, is among the 8 neighbours of particle q at spacing
// 2^(m−L) (R1, R5).
func (c *Cloth) seen(q int32, L uint8, skip func(int32) bool) bool {
	d := c.spacing(L)
	for _, o := range around {
		r := c.at(c.gi[q]+o[0]*d, c.gj[q]+o[1]*d)
		if r >= 0 && c.massive(r) && c.layer[r] == L && !skip(r) {
			return true
		}
	}
	return false
}

// hasChild reports whether an interpolated particle has q as a parent: by
// R3 it would lie 2^(m−L') slots from q along an axis for some L' above q's
// layer.
func (c *Cloth) hasChild(q int32) bool {
	for s := c.spacing(c.layer[q]) / 2; s >= 1; s /= 2 {
		for _, o := range around[:4] {
			r := c.at(c.gi[q]+o[0]*s, c.gj[q]+o[1]*s)
			if r >= 0 && c.typ[r] == Interpolated && (c.par[r][0] == q || c.par[r][1] == q) {
				return true
			}
		}
	}
	return false
}

// coarsen undoes a subdivision of particle id (layer L → L−1), the inverse
// of divide, and reports whether it did. Let d = 2^(m−L) and D = 2d. The
// ring of id (its 8 neighbours at d) splits into particles another
// subdivided particle still justifies (R4), which stay as they are, and
// the others, which go: each is removed (its ID freed, its slot emptied),
// or, if an active or fixed particle of layer L that stays still sees it
// (R1), turned back into an interpolated particle between its two funders
// (possible on an axis only, R3). Then every interpolated particle of layer
// L within 2d of id that nothing sees any more (R5: the knights divide made)
// is removed.
//
// It refuses (false, nothing changed) unless id is active or fixed and
// subdivided (layer above its slot's birth layer), and every particle that
// would go is active (not fixed, not dragged), has layer L (is not itself
// subdivided), has no neighbour at spacing d of a layer above L (which
// would need it, R2), is nobody's parent (R3), and has been quiet for at
// least need checks (refine). These are the conditions under which the
// result again satisfies R1–R5; the finest subdivided particle always
// meets the structural ones, so coarsening finest first undoes any
// sequence of subdivisions.
//
// Mass, centre of mass and momentum (conserved exactly, to round-off).
// A particle q that goes gives its mass m_q back to its funders f with the
// weights w_f it took it with (see subdivide), each at the funder's own
// position and velocity. That carries m_q·x̄ and m_q·v̄, where x̄ = Σ w_f·x_f
// and v̄ = Σ w_f·v_f are where q would be and how it would move if it were
// interpolated; its detail m_q·(x_q − x̄) and m_q·(v_q − v̄) is what
// subdivision cannot see. Decision: the summed detail of all the particles
// that go is handed to the active funders of this coarsening as one uniform
// shift δx = Σ m_q·(x_q − x̄)/M, δv = Σ m_q·(v_q − v̄)/M (M their mass after
// receiving), the smallest change in the mass norm that conserves the first
// moment and the momentum. A freshly subdivided block has no detail, so
// refining and coarsening back restores the grid, masses, positions and
// velocities exactly (to round-off). A block coarsens only when its turning
// angles are below f·θ (refine), where the detail is small: for a surface of
// curvature κ a midpoint lies about κ·d²/2 off its funders' chord.
// Coarsening refuses if no funder is active (the detail would have nowhere
// to go).
//
// It clears id's once-per-step mark (split). The caller must call compact
// and rebuild afterwards.
func (c *Cloth) coarsen(id int32, need int32) bool {
	if !c.massive(id) {
		return false
	}
	L := c.layer[id]
	if L == 0 || L <= c.birth(id) {
		return false
	}
	d := c.spacing(L)
	D := 2 * d
	i, j := c.gi[id], c.gj[id]
	type loss struct {
		q    int32
		f    [4]int32 // funders, f[:nf]
		nf   int
		keep bool // turned back into an interpolated particle
	}
	var gone [8]loss
	n := 0
	for _, o := range around {
		si, sj := i+o[0]*d, j+o[1]*d
		if !c.inGrid(si, sj) {
			continue
		}
		q := c.at(si, sj)
		if q < 0 || !c.massive(q) {
			return false // not a ring divide made (R1, R2 broken)
		}
		if c.justified(q, id) {
			continue
		}
		if c.typ[q] != Active || c.layer[q] != L || c.quiet[q] < need || c.drag.on && c.drag.id == q || c.hasChild(q) {
			return false
		}
		for _, r := range around {
			if x := c.at(si+r[0]*d, sj+r[1]*d); x >= 0 && c.layer[x] > L {
				return false
			}
		}
		// its funders, in divide's order: id and the neighbour D away on
		// an axis, or id and the three other corners of the cell
		g := loss{q: q, nf: 2}
		offs := [4][2]int32{{0, 0}, o}
		if o[0] != 0 && o[1] != 0 {
			g.nf, offs = 4, [4][2]int32{{0, 0}, {o[0], 0}, {0, o[1]}, o}
		}
		for k, f := range offs[:g.nf] {
			g.f[k] = c.at(i+f[0]*D, j+f[1]*D)
			if g.f[k] < 0 || !c.massive(g.f[k]) {
				return false // R2 broken
			}
		}
		gone[n] = g
		n++
	}
	going := func(r int32) bool {
		if r == id {
			return true
		}
		for _, g := range gone[:n] {
			if g.q == r {
				return true
			}
		}
		return false
	}
	active := false
	for k := range gone[:n] {
		g := &gone[k]
		g.keep = c.seen(g.q, L, going)
		if g.keep && g.nf != 2 {
			return false // a diagonal slot cannot be interpolated (R3)
		}
		for _, f := range g.f[:g.nf] {
			active = active || c.typ[f] == Active
		}
	}
	if n > 0 && !active {
		return false
	}

	c.layer[id] = L - 1
	c.quiet[id] = 0
	c.split[id] = 0
	var dx, dv geom.Vec3
	var recv []int32
	for _, g := range gone[:n] {
		q, fs := g.q, g.f[:g.nf]
		w := weights[g.nf]
		x, v, _ := c.blend(fs, w)
		m := c.mass[q]
		dx = dx.Add(c.pos[q].Sub(x).Scale(m))
		dv = dv.Add(c.vel[q].Sub(v).Scale(m))
		for k, f := range fs {
			c.mass[f] += w[k] * m
			if c.typ[f] == Active && !slices.Contains(recv, f) {
				recv = append(recv, f)
			}
		}
		if g.keep {
			c.typ[q], c.mass[q], c.vel[q], c.pos[q] = Interpolated, 0, geom.Vec3{}, x
			c.par[q] = [2]int32{fs[0], fs[1]}
			c.quiet[q] = 0
		} else {
			c.release(q)
		}
	}
	var M float64
	for _, f := range recv {
		M += c.mass[f]
	}
	for _, f := range recv {
		c.pos[f] = c.pos[f].Add(dx.Scale(1 / M))
		c.vel[f] = c.vel[f].Add(dv.Scale(1 / M))
	}
	// knights (R5): interpolated particles of layer L within 2d of id
	none := func(int32) bool { return false }
	for a := int32(-2); a <= 2; a++ {
		for b := int32(-2); b <= 2; b++ {
			r := c.at(i+a*d, j+b*d)
			if r >= 0 && c.typ[r] == Interpolated && c.layer[r] == L && !c.seen(r, L, none) {
				c.release(r)
			}
		}
	}
	return true
}

// weights are the funding weights of a particle with 2 or 4 funders.
var weights = [5][]float64{2: {0.5, 0.5}, 4: {0.25, 0.25, 0.25, 0.25}}

// release frees particle q: its slot empties and its ID becomes None.
func (c *Cloth) release(q int32) {
	c.slot[int(c.gj[q])*c.w+int(c.gi[q])] = -1
	c.typ[q], c.mass[q], c.vel[q], c.layer[q] = None, 0, geom.Vec3{}, 0
	c.par[q], c.quiet[q], c.split[q] = [2]int32{-1, -1}, 0, 0
	c.free = append(c.free, q)
}

// compact drops the free IDs at the end of the arrays and halves the dense
// grid while no particle is as deep as it (the inverse of regrid).
func (c *Cloth) compact() {
	n := len(c.pos)
	for n > 0 && c.typ[n-1] == None {
		n--
	}
	if n < len(c.pos) {
		c.resize(n)
		c.free = slices.DeleteFunc(c.free, func(id int32) bool { return int(id) >= n })
	}
	for c.m > 0 && c.Counts().Depth < c.m {
		c.m--
		c.w, c.h = (c.w+1)/2, (c.h+1)/2
		for id := range c.pos {
			c.gi[id] /= 2 // exact for every particle: none is of birth m
			c.gj[id] /= 2
		}
		c.fillSlots()
	}
}

// coarsenQuiet coarsens, finest layer first, every subdivided particle that
// refine has found quiet for CoarsenChecks checks in a row, with the
// particles its coarsening removes (coarsen); it returns the number of
// coarsenings. A particle subdivided in this step is left alone.
//
// Hysteresis (decision). A particle is quiet when no turning angle reaches
// f·θ at its own spacing nor, if it is subdivided, at the spacing it had
// before (the angles refine would test after coarsening), f =
// CoarsenFraction ≤ 0.9. So a block that coarsens is refined again only if
// an angle grows from below f·θ to above θ, by a factor 1/f (2 by default),
// and only after n = CoarsenChecks quiet checks (n·CheckInterval·Δt: 50 ms
// by default) may it coarsen, so refinement and coarsening cannot
// alternate from check to check. For a smooth surface the angle at the
// coarser spacing is twice that at the finer, so the coarser test decides.
func (c *Cloth) coarsenQuiet() int {
	if c.p.CoarsenFraction <= 0 {
		return 0
	}
	need := int32(c.p.CoarsenChecks)
	var todo []int32
	for id := range c.pos {
		p := int32(id)
		if c.massive(p) && c.layer[p] > c.birth(p) && c.quiet[p] >= need && c.split[p] != int64(c.steps)+1 {
			todo = append(todo, p)
		}
	}
	slices.SortStableFunc(todo, func(a, b int32) int { return cmp.Compare(c.layer[b], c.layer[a]) })
	n := 0
	for _, p := range todo {
		if c.coarsen(p, need) {
			n++
		}
	}
	if n > 0 {
		c.compact()
	}
	return n
}

// Coarsen undoes a subdivision of particle id now, regardless of the
// criteria (see coarsen), and reports whether it did; for tools and tests.
func (c *Cloth) Coarsen(id int) bool {
	if id < 0 || id >= len(c.pos) {
		return false
	}
	ok := c.coarsen(int32(id), 0)
	if ok {
		c.compact()
		c.rebuild()
	}
	return ok
}
