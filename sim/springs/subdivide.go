package springs

import (
	"cmp"
	"math"
	"slices"

	"drape/sim/geom"
)

// Subdivide refines around particle id (Olson & Rudnick §4.1) and reports
// whether it did. Let l be its layer and d = 2^(m−l−1) the new spacing,
// doubling the dense grid first when l+1 > m:
//
//   - the particle's layer becomes l+1;
//   - the 8 slots at offsets (±d, 0), (0, ±d), (±d, ±d) become active
//     particles of layer l+1: an empty slot gets a new particle, an
//     interpolated one is promoted, an active or fixed one is kept as it is;
//   - the 8 knight slots (±2d, ±d), (±d, ±2d) that are empty become
//     interpolated particles of layer l+1 between the two layer-l
//     neighbours on their grid line.
//
// A new edge particle is the midpoint of the particle and its neighbour 2d
// away, a new diagonal particle the mean of the four corners of its cell:
// x = Σ w_k x_k with Σ w_k = 1, and the same weights give its velocity and
// its rest (original) position. Decision (mass, not in the paper): the new
// particle gets the lumped mass μ = ρ·(hx·hy/4^(l+1)) of its slot in a
// uniform grid of its layer (halved on an edge of the cloth, quartered at
// a corner), and takes w_k·μ from each parent k (interpolated parents pass it
// on to their own parents). Then the total mass, the centre of mass and the
// momentum are unchanged exactly (up to round-off), and uniform subdivision
// ends with exactly the lumped masses of the finer grid: a particle gives
// ¾ of its lumped mass to the 8 slots of each finer layer and keeps ¼. If a
// parent would be left with less than a thousandth of its mass (possible
// only in unusual orders of subdivision) μ is lowered so that it is not.
//
// It refuses (false) when id is interpolated or free, at Params.MaxLayer already,
// was subdivided in the current step, or lacks one of its 8 neighbours at
// spacing 2d inside the grid (cannot happen for the grids New builds).
// The caller must call rebuild afterwards.
func (c *Cloth) subdivide(id int32) bool {
	if c.split[id] == int64(c.steps)+1 {
		return false
	}
	return c.divide(id)
}

// divide is subdivide without the once-per-step rule. Balance (decision,
// not in the paper): a neighbour at spacing 2d that is interpolated (the
// next cell is coarser) is first made a particle by subdividing its parent,
// recursively, so that the funding parents of every new particle are mass
// particles adjacent to it. Then a particle funds only the 8 slots around it
// at each finer layer, ¾ of its lumped mass per layer, Σ ¾·4^−k = 1: no
// mass ever runs out. Without it, funding through interpolated parents
// drained coarse particles next to deep refinement to 1e−37 kg (found by
// TestRandomSubdivisions) and the explicit step blew up.
func (c *Cloth) divide(id int32) bool {
	if !c.massive(id) || int(c.layer[id]) >= c.p.MaxLayer {
		return false
	}
	l := c.layer[id]
	if int(l)+1 > c.m {
		c.regrid()
	}
	{
		D := c.spacing(l)
		for a := int32(-1); a <= 1; a++ {
			for b := int32(-1); b <= 1; b++ {
				if q := c.at(c.gi[id]+a*D, c.gj[id]+b*D); q >= 0 && !c.promote(q) {
					return false
				}
			}
		}
	}
	if int(l)+1 > c.m {
		c.regrid()
	}
	D := c.spacing(l)
	i, j := c.gi[id], c.gj[id]
	nb := func(a, b int32) int32 { return c.at(i+a*D, j+b*D) }
	for a := int32(-1); a <= 1; a++ {
		for b := int32(-1); b <= 1; b++ {
			if c.inGrid(i+a*D, j+b*D) && nb(a, b) < 0 {
				return false
			}
		}
	}
	d := D / 2
	nl := l + 1
	c.layer[id] = nl
	c.split[id] = int64(c.steps) + 1
	for a := int32(-1); a <= 1; a++ {
		for b := int32(-1); b <= 1; b++ {
			si, sj := i+a*d, j+b*d
			if (a == 0 && b == 0) || !c.inGrid(si, sj) {
				continue
			}
			q := c.at(si, sj)
			switch {
			case q >= 0 && c.typ[q] != Interpolated:
				continue
			case q >= 0: // promote
				c.typ[q] = Active
				c.layer[q] = nl
				c.vel[q] = c.velOf(c.par[q][0]).Add(c.velOf(c.par[q][1])).Scale(0.5)
				c.pos[q] = c.pos[c.par[q][0]].Add(c.pos[c.par[q][1]]).Scale(0.5)
				c.mass[q] = c.takeMass(c.par[q][:], []float64{0.5, 0.5}, c.slotMass(si, sj, nl))
				c.par[q] = [2]int32{-1, -1}
			case a == 0 || b == 0:
				c.create(si, sj, nl, []int32{id, nb(a, b)}, []float64{0.5, 0.5})
			default:
				c.create(si, sj, nl, []int32{id, nb(a, 0), nb(0, b), nb(a, b)}, []float64{0.25, 0.25, 0.25, 0.25})
			}
		}
	}
	for _, o := range [8][4]int32{{2, 1, 1, 0}, {2, -1, 1, 0}, {-2, 1, -1, 0}, {-2, -1, -1, 0}, {1, 2, 0, 1}, {-1, 2, 0, 1}, {1, -2, 0, -1}, {-1, -2, 0, -1}} {
		si, sj := i+o[0]*d, j+o[1]*d
		if !c.inGrid(si, sj) || c.at(si, sj) >= 0 {
			continue
		}
		// parents: the two layer-l neighbours on the grid line of the slot
		var pa, pb int32
		if o[2] != 0 {
			pa, pb = nb(o[2], 0), nb(o[2], o[1])
		} else {
			pa, pb = nb(0, o[3]), nb(o[0], o[3])
		}
		x := c.pos[pa].Add(c.pos[pb]).Scale(0.5)
		r := c.rest[pa].Add(c.rest[pb]).Scale(0.5)
		c.slot[int(sj)*c.w+int(si)] = c.newParticle(Interpolated, nl, si, sj, x, geom.Vec3{}, r, 0, [2]int32{pa, pb})
	}
	return true
}

func (c *Cloth) inGrid(i, j int32) bool { return i >= 0 && j >= 0 && int(i) < c.w && int(j) < c.h }

// create adds an active particle of layer l at slot (i, j) as the weighted
// mean of parents (see subdivide).
func (c *Cloth) create(i, j int32, l uint8, parents []int32, w []float64) {
	x, v, r := c.blend(parents, w)
	mass := c.takeMass(parents, w, c.slotMass(i, j, l))
	c.slot[int(j)*c.w+int(i)] = c.newParticle(Active, l, i, j, x, v, r, mass, [2]int32{-1, -1})
}

// blend returns the weighted means Σ w_k·y_k of the positions, velocities
// and rest positions of parents.
func (c *Cloth) blend(parents []int32, w []float64) (x, v, r geom.Vec3) {
	for k, q := range parents {
		x = x.Add(c.pos[q].Scale(w[k]))
		v = v.Add(c.velOf(q).Scale(w[k]))
		r = r.Add(c.rest[q].Scale(w[k]))
	}
	return x, v, r
}

// velOf returns the velocity of particle id; an interpolated particle's is
// the mean of its parents' (it stores none).
func (c *Cloth) velOf(id int32) geom.Vec3 {
	var v geom.Vec3
	c.visitMass(id, 1, func(q int32, w float64) { v = v.Add(c.vel[q].Scale(w)) })
	return v
}

// slotMass returns the lumped mass of slot (i, j) in a uniform grid of layer l.
func (c *Cloth) slotMass(i, j int32, l uint8) float64 {
	f := c.p.Density * c.hx * c.hy / math.Exp2(2*float64(l))
	if i == 0 || int(i) == c.w-1 {
		f /= 2
	}
	if j == 0 || int(j) == c.h-1 {
		f /= 2
	}
	return f
}

// takeMass removes w_k·μ from each parent (through interpolated parents to
// theirs) and returns μ, lowered if needed so that no parent keeps less
// than a thousandth of its mass.
func (c *Cloth) takeMass(parents []int32, w []float64, mu float64) float64 {
	var ids [16]int32
	var ws [16]float64
	n := 0
	for k, q := range parents {
		c.visitMass(q, w[k], func(id int32, wk float64) {
			for t := 0; t < n; t++ {
				if ids[t] == id {
					ws[t] += wk
					return
				}
			}
			if n < len(ids) {
				ids[n], ws[n] = id, wk
				n++
			}
		})
	}
	var sum float64
	for t := 0; t < n; t++ {
		sum += ws[t]
	}
	for t := 0; t < n; t++ {
		ws[t] /= sum // exactly Σ = 1 (deep interpolation chains beyond 16 mass parents are truncated)
		mu = min(mu, 0.999*c.mass[ids[t]]/ws[t])
	}
	for t := 0; t < n; t++ {
		c.mass[ids[t]] -= ws[t] * mu
	}
	return mu
}

// springOffsets are a particle's spring neighbours in units of its spacing,
// with the spring kind.
var springOffsets = [12][3]int32{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {1, 1, 1}, {1, -1, 1}, {-1, 1, 1}, {-1, -1, 1}, {2, 0, 2}, {-2, 0, 2}, {0, 2, 2}, {0, -2, 2}}

// sees reports whether a particle with spacing s sees the slot offset
// (di, dj) away as a spring neighbour.
func sees(di, dj, s int32) bool {
	ai, aj := abs32(di), abs32(dj)
	return (ai == s || ai == 0) && (aj == s || aj == 0) && ai+aj > 0 || ai == 2*s && aj == 0 || ai == 0 && aj == 2*s
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// eachSpring calls f once for every spring (see rebuild): for each pair that
// one end sees at the spacing of its spring layer (c.viewL, viewLayers),
// from the view of the end with the finer one (the lower slot on a tie),
// with that view's layer and kind, in an order that depends on the grid
// only (by the viewing particle's slot, then offset). viewLayers and
// c.ord.sort must have run.
func (c *Cloth) eachSpring(f func(a, b int32, l, kind uint8)) {
	for _, p := range c.ord.ids {
		lp := c.viewL[p]
		s := c.spacing(lp)
		for _, o := range springOffsets {
			di, dj := o[0]*s, o[1]*s
			q := c.at(c.gi[p]+di, c.gj[p]+dj)
			if q < 0 {
				continue
			}
			lq := c.viewL[q]
			if sees(-di, -dj, c.spacing(lq)) && (lq > lp || lq == lp && c.slotOf(q) < c.slotOf(p)) {
				continue // q's view owns the spring
			}
			f(p, q, lp, uint8(o[2]))
		}
	}
}

// viewLayers sets c.viewL, the layer at which each particle sees its
// spring neighbours (eachSpring): its own layer, raised by one for each
// finer spacing d at which every one of its eight neighbours inside the
// grid (±d along an axis and diagonally) is a particle, active or fixed.
//
// Decision (the paper gives a particle the springs of its own layer): a
// particle whose neighbours' subdivisions made the finer grid around it,
// without being subdivided itself, kept the springs of its coarse spacing,
// which span particles the finer springs already join, so a refined region
// was stiffer than the same region refined uniformly and its springs
// depended on the order of the subdivisions (the small cloth ended with
// 109 springs against uniform's 102). Seen at the layer of the grid around
// it, it has the springs a subdivided particle there has, whatever the
// order (TestSpringsIndependentOfOrder). Its own layer, which subdivision,
// coarsening, the criteria and the surface use, does not change.
func (c *Cloth) viewLayers() {
	c.viewL = append(c.viewL[:0], c.layer...)
	for id := range c.pos {
		p := int32(id)
		if !c.massive(p) {
			continue
		}
		for int(c.viewL[p]) < c.m && c.surrounded(p, c.spacing(c.viewL[p]+1)) {
			c.viewL[p]++
		}
	}
}

// surrounded reports whether every slot at offset ±d (along an axis and
// diagonally) from particle p that lies inside the grid holds an active or
// fixed particle.
func (c *Cloth) surrounded(p, d int32) bool {
	for _, o := range around {
		i, j := c.gi[p]+o[0]*d, c.gj[p]+o[1]*d
		if q := c.at(i, j); c.inGrid(i, j) && (q < 0 || !c.massive(q)) {
			return false
		}
	}
	return true
}

// promote makes interpolated particle q a particle by subdividing its
// first parent (recursively) until q becomes active; it reports success.
func (c *Cloth) promote(q int32) bool {
	for guard := 0; c.typ[q] == Interpolated; guard++ {
		if guard > maxLayerCap+1 {
			return false
		}
		pa := c.par[q][0]
		if !c.promote(pa) || !c.divide(pa) {
			return false
		}
	}
	return true
}

// regrid doubles the dense grid's resolution: slot (i, j) moves to (2i, 2j)
// and m grows by one (§4.1). Particle IDs do not change.
func (c *Cloth) regrid() {
	c.m++
	c.w, c.h = 2*c.w-1, 2*c.h-1
	for id := range c.pos {
		c.gi[id] *= 2
		c.gj[id] *= 2
	}
	c.fillSlots()
}

// fillSlots rebuilds the dense grid from the particles' slots.
func (c *Cloth) fillSlots() {
	c.slot = fit(c.slot[:0], c.w*c.h)
	for k := range c.slot {
		c.slot[k] = -1
	}
	for id, t := range c.typ {
		if t != None {
			c.slot[int(c.gj[id])*c.w+int(c.gi[id])] = int32(id)
		}
	}
}

// SubdivideUniform subdivides every active and fixed particle, layer by
// layer, until all have layer ≥ l (bounded by Params.MaxLayer). It returns
// the number of subdivisions.
func (c *Cloth) SubdivideUniform(l int) int {
	n := 0
	for pass := 0; pass <= maxLayerCap; pass++ {
		did := false
		for id := int32(0); id < int32(len(c.pos)); id++ {
			if c.massive(id) && int(c.layer[id]) < l {
				c.split[id] = 0
				if c.subdivide(id) {
					n++
					did = true
				}
			}
		}
		if !did {
			break
		}
	}
	c.rebuild()
	return n
}

// Subdivide refines around particle id now (see subdivide) and reports
// whether it did; for tools and tests.
func (c *Cloth) Subdivide(id int) bool {
	if id < 0 || id >= len(c.pos) {
		return false
	}
	ok := c.subdivide(int32(id))
	if ok {
		c.rebuild()
	}
	return ok
}

// rebuild re-derives the per-layer lists and the springs after a change
// of topology, types or parameters.
//
// Springs (§3.2): every particle p of layer l (interpolated ones included:
// they "contribute spring forces to adjacent particles", §3.1) sees the
// particles at s = 2^(m−l) slots along an axis (structural), diagonally
// (shear) and 2s along an axis (bend); l is its spring layer, finer than
// its own where the finer grid surrounds it (viewLayers). Decision (the paper gathers forces
// per particle, which is not symmetric when the two ends have different
// layers and so does not conserve momentum): every pair seen this way gets
// one spring that acts equally and oppositely on both ends; when its two
// ends see each other as different kinds (a layer-0 particle's structural
// neighbour that sees it back as a layer-1 bend neighbour) the finer view
// wins, so in a refined region the fine springs replace the coarse ones.
// Its stiffness is the kind's constant ×2^(e·l) for the view's layer l, its
// rest length the distance of the rest positions. A force on an
// interpolated end goes half and half to its parents (the virtual work of
// x = (x_a+x_b)/2), which keeps the sum of forces zero.
//
// Schedule (fig. 2, multirate). A particle advances with 2^s substeps per
// step where s, its schedule, is its layer or, if finer, the layer of the
// finest view among the springs acting on it. Decision: the paper steps a
// particle by its own layer only; but a coarse particle at a T-junction
// feels springs ×2^l stiffer from its fine neighbours and has given them
// part of its mass, and with its own, longer substep the explicit
// integration blows up (it did, at layer 5, in TestRandomSubdivisions).
// A spring is evaluated at the substep of the finest schedule among its
// view and the mass particles it moves, so each of its ends receives its
// force for every substep of its own, and a coarser end collects the
// impulses of the fine substeps that make up its own. Springs between
// fixed particles only are dropped.
func (c *Cloth) rebuild() {
	c.stable = 0
	depth := c.Counts().Depth
	var kTab [3][maxLayerCap + 1]float64 // stiffness by kind and layer
	for kind := range kTab {
		for l := range kTab[kind] {
			kTab[kind][l] = c.p.stiffness(uint8(kind), l)
		}
	}
	c.ord.sort(c)
	// particle schedule: its own layer or the finest view of a spring on it
	c.viewLayers()
	c.sched = append(c.sched[:0], c.layer...)
	c.views = c.views[:0]
	c.eachSpring(func(a, b int32, l, kind uint8) {
		c.views = append(c.views, view{a, b, l, kind})
		for _, e := range [2]int32{a, b} {
			if c.typ[e] != Interpolated {
				c.sched[e] = max(c.sched[e], l)
			} else {
				c.visitMass(e, 1, func(id int32, _ float64) { c.sched[id] = max(c.sched[id], l) })
			}
		}
	})
	c.spr = fit(c.spr, depth+1)
	c.act = fit(c.act, depth+1)
	for l := range c.spr {
		c.spr[l].reset()
		c.act[l] = c.act[l][:0]
	}
	c.interp = c.interp[:0]
	for _, id := range c.ord.ids {
		switch c.typ[id] {
		case Active:
			c.act[c.sched[id]] = append(c.act[c.sched[id]], id)
		case Interpolated:
			c.interp = append(c.interp, id)
		}
	}
	// by layer, then slot: a parent is coarser than its child
	slices.SortStableFunc(c.interp, func(a, b int32) int { return cmp.Compare(c.layer[a], c.layer[b]) })
	c.deep = 0
	for _, v := range c.views {
		sched := v.l
		moving := false
		for _, e := range [2]int32{v.a, v.b} {
			if c.typ[e] != Interpolated {
				sched = max(sched, c.sched[e])
				moving = moving || c.typ[e] == Active
				continue
			}
			c.visitMass(e, 1, func(id int32, _ float64) {
				sched = max(sched, c.sched[id])
				moving = moving || c.typ[id] == Active
			})
		}
		if !moving {
			continue
		}
		c.spr[sched].add(v.a, v.b, c.rest[v.a].Sub(c.rest[v.b]).Norm(), kTab[v.kind][v.l], v.kind)
		c.deep = max(c.deep, int(sched))
	}
	for l := range c.act {
		if len(c.act[l]) > 0 {
			c.deep = max(c.deep, l)
		}
	}
	c.ord.build(c)
}
