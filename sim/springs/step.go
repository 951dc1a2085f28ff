package springs

import (
	"fmt"
	"math"
	"slices"

	"drape/sim/geom"
)

// Step advances the cloth by one animation step Δt = Params.Dt (Olson &
// Rudnick fig. 2) and then, every CheckInterval steps of a dynamic scene,
// subdivides where the criteria of §4.2–4.3 fire (refine) and coarsens
// the blocks that have stayed quiet (coarsenQuiet).
//
// Let L be the deepest layer. The step is cut into 2^L fine substeps of
// h = Δt/2^L; a particle of layer l owns every 2^(L−l)-th of them, a substep
// of Δ_l = Δt/2^l (l is its schedule: its layer, or finer at a T-junction,
// see rebuild). In fine substep s:
//
//  1. interpolated particles are put at the midpoint of their parents;
//  2. each spring scheduled at layer ls (see rebuild) whose substep starts
//     at s adds the impulse f·Δ_ls to both ends, f = k·(|x_b−x_a|−r)·u;
//  3. impulses on interpolated particles go half and half to their parents;
//  4. each active particle whose substep ends after s advances once by
//     symplectic Euler: v += (J + (m·g − c·m·v + f_air + f_drag)·Δ_l)/m,
//     x += v·Δ_l, and is projected out of obstacles;
//  5. Provot's correction (Provot 2001 §5) on the structural and shear
//     springs whose substep ends: an elongation beyond (1+τ)·r is removed by
//     moving the ends that just advanced, inversely to their masses, and
//     their velocities change by the same displacement over Δ_l.
//
// A particle thus advances exactly once per substep of its own and receives
// every spring impulse of that interval, so with Correction = 0 (and no
// gravity, damping, drag or fixed particles) the momentum is conserved to
// round-off across layers. Provot's correction moves only the ends that just
// advanced, so across layers it does not conserve momentum exactly.
//
// Air drag uses normals computed once per animation step from the grid
// neighbours (decision: cheaper than per substep, and the normal turns
// little in Δt).
//
// The substeps run on the step's copy of the particles in slot order
// (stepOrder). If the step produces a NaN, an Inf or a speed above 200 m/s,
// the copy is not written back, so the particles keep their state before
// the step, and the error wraps ErrUnstable.
func (c *Cloth) Step() error {
	p := &c.p
	o := &c.ord
	o.gather(c)
	if p.AirDrag > 0 {
		c.normals()
	}
	drag := int32(-1) // coarsening never removes the dragged particle (coarsen)
	if c.drag.on && int(c.drag.id) < len(o.idx) {
		drag = o.idx[c.drag.id]
	}
	L := c.deep
	fine := 1 << L
	for s := 0; s < fine; s++ {
		interpolate(o.pos, o.interp, o.par)
		for ls := range o.spr {
			if s%(1<<(L-ls)) == 0 {
				springImpulses(&o.spr[ls], o.pos, o.imp, p.Dt/math.Exp2(float64(ls)))
			}
		}
		pushImpulses(o.imp, o.interp, o.par)
		for l := range o.act {
			if (s+1)%(1<<(L-l)) == 0 {
				c.advance(o.act[l], p.Dt/math.Exp2(float64(l)), drag)
			}
		}
		if p.Correction > 0 {
			interpolate(o.pos, o.interp, o.par)
			for ls := range o.spr {
				if (s+1)%(1<<(L-ls)) == 0 {
					c.correct(&o.spr[ls], s+1, L)
				}
			}
		}
	}
	interpolate(o.pos, o.interp, o.par)
	if err := c.check(); err != nil {
		return err // the particles keep the state before the step
	}
	o.scatter(c)
	c.t += p.Dt
	c.steps++
	if c.spec.Variant == DynamicSubdivision && c.steps%p.CheckInterval == 0 {
		if c.refine()+c.coarsenQuiet() > 0 {
			c.rebuild()
		}
	}
	return nil
}

// stepOrder is the step's working copy of the live particles, in dense-grid
// slot order (row by row), with the lists and springs of rebuild renumbered
// to it. Step gathers positions and velocities into it, runs the substeps
// on it, and scatters them back to the particle IDs only if the step
// succeeds.
//
// Decision: IDs are handed out as particles are made and reused as they
// are freed, so in ID order the same grid, reached uniformly or by
// dynamic subdivision in some order, was stepped in different orders:
// Provot's correction is a Gauss–Seidel pass, so the motion itself
// depended on the history of subdivision (TestSpringsIndependentOfOrder
// now checks that the same grid from the same state steps bit for bit
// alike; with the particles in ID order it fails, a particle 8 mm from
// where the uniform sheet's is after 20 steps), and neighbours lay far
// apart in memory. In slot order the step depends on the grid only. The
// fully refined dynamic pole, which has the uniform run's springs, took
// 6–9 % longer per step than the uniform one before, and between 2 %
// longer and 9 % shorter after (the median step over 5 s, 20 steps of each
// in turn, five runs each; the two cloths lie differently, so their
// corrections and obstacle projections differ too); the uniform run's own
// step did not change measurably.
type stepOrder struct {
	ids  []int32  // particle ID at step index k
	idx  []int32  // step index of each ID, −1 for a free ID
	keys []uint64 // sort's scratch

	pos, vel, imp, nrm []geom.Vec3
	mass               []float64
	typ, sched         []uint8
	par                [][2]int32 // step indices of an interpolated particle's parents

	act    [][]int32   // c.act in step indices
	interp []int32     // c.interp in step indices, in its order
	spr    []springSet // c.spr with step-index ends
}

// sort lists the live particles' IDs in slot order (by sorting them, not
// by walking the dense grid, whose size grows as 4^depth).
func (o *stepOrder) sort(c *Cloth) {
	o.keys = o.keys[:0]
	for id, t := range c.typ {
		if t != None {
			o.keys = append(o.keys, uint64(c.slotOf(int32(id)))<<32|uint64(id))
		}
	}
	slices.Sort(o.keys)
	o.ids = o.ids[:0]
	for _, k := range o.keys {
		o.ids = append(o.ids, int32(uint32(k)))
	}
}

// build renumbers rebuild's lists and springs to the order sort made.
func (o *stepOrder) build(c *Cloth) {
	n := len(o.ids)
	o.idx = fit(o.idx[:0], len(c.pos))
	for id := range o.idx {
		o.idx[id] = -1
	}
	o.pos, o.vel, o.imp, o.nrm = fit(o.pos, n), fit(o.vel, n), fit(o.imp, n), fit(o.nrm, n)
	o.mass, o.typ, o.sched, o.par = fit(o.mass, n), fit(o.typ, n), fit(o.sched, n), fit(o.par, n)
	for k, id := range o.ids {
		o.idx[id] = int32(k)
	}
	for k, id := range o.ids {
		o.mass[k], o.typ[k], o.sched[k] = c.mass[id], c.typ[id], c.sched[id]
		o.par[k] = [2]int32{-1, -1}
		if c.typ[id] == Interpolated {
			o.par[k] = [2]int32{o.idx[c.par[id][0]], o.idx[c.par[id][1]]}
		}
	}
	o.act = fit(o.act, len(c.act))
	for l, ids := range c.act {
		o.act[l] = o.act[l][:0]
		for _, id := range ids {
			o.act[l] = append(o.act[l], o.idx[id])
		}
	}
	o.interp = o.interp[:0]
	for _, id := range c.interp {
		o.interp = append(o.interp, o.idx[id])
	}
	o.spr = fit(o.spr, len(c.spr))
	for l := range c.spr {
		s, d := &c.spr[l], &o.spr[l]
		d.reset()
		for k, a := range s.a {
			d.add(o.idx[a], o.idx[s.b[k]], s.rest[k], s.k[k], s.kind[k])
		}
	}
}

// gather copies the particles' positions and velocities into the step
// order, puts fixed particles at their targets at rest, and clears the
// impulses (those on fixed particles are reactions, never used).
func (o *stepOrder) gather(c *Cloth) {
	for k, id := range o.ids {
		if o.typ[k] == Fixed {
			o.pos[k], o.vel[k] = c.target[id], geom.Vec3{}
		} else {
			o.pos[k], o.vel[k] = c.pos[id], c.vel[id]
		}
		o.imp[k] = geom.Vec3{}
	}
}

// scatter copies the step order's positions and velocities back to the
// particles.
func (o *stepOrder) scatter(c *Cloth) {
	for k, id := range o.ids {
		c.pos[id], c.vel[id] = o.pos[k], o.vel[k]
	}
}

// interpolate puts every interpolated particle of list at the midpoint of
// its parents par, coarser layers first so that a parent is placed before
// its children (list is c.interp, or its step-order copy, with the
// matching positions and parents).
func interpolate(pos []geom.Vec3, list []int32, par [][2]int32) {
	for _, id := range list {
		pa := par[id]
		pos[id] = pos[pa[0]].Add(pos[pa[1]]).Scale(0.5)
	}
}

// interpolate puts every interpolated particle at the midpoint of its
// parents.
func (c *Cloth) interpolate() { interpolate(c.pos, c.interp, c.par) }

// springImpulses adds f·dt to the impulse of both ends of every spring in s.
func springImpulses(s *springSet, pos, imp []geom.Vec3, dt float64) {
	for n, a := range s.a {
		b := s.b[n]
		d := pos[b].Sub(pos[a])
		l := d.Norm()
		if l == 0 {
			continue
		}
		j := d.Scale(s.k[n] * (l - s.rest[n]) / l * dt)
		imp[a] = imp[a].Add(j)
		imp[b] = imp[b].Sub(j)
	}
}

// pushImpulses hands the impulse on each interpolated particle of list to
// its two parents par, children first.
func pushImpulses(imp []geom.Vec3, list []int32, par [][2]int32) {
	for k := len(list) - 1; k >= 0; k-- {
		id := list[k]
		j := imp[id].Scale(0.5)
		pa := par[id]
		imp[pa[0]] = imp[pa[0]].Add(j)
		imp[pa[1]] = imp[pa[1]].Add(j)
		imp[id] = geom.Vec3{}
	}
}

// advance integrates the active particles ks (step indices) over one
// substep dt; drag is the step index of the dragged particle, −1 if none.
func (c *Cloth) advance(ks []int32, dt float64, drag int32) {
	p := &c.p
	o := &c.ord
	air := p.AirDrag > 0
	for _, k := range ks {
		m := o.mass[k]
		v := o.vel[k]
		a := p.Gravity.Sub(v.Scale(p.Damping))
		if air {
			// f = −c_d·A·((v − w)·n)·n with A = m/ρ the particle's area
			nn := o.nrm[k]
			a = a.Sub(nn.Scale(p.AirDrag / p.Density * v.Sub(p.Wind).Dot(nn)))
		}
		if k == drag {
			a = a.Add(c.drag.target.Sub(o.pos[k]).Scale(p.DragStiffness / m))
		}
		v = v.Add(a.Scale(dt)).Add(o.imp[k].Scale(1 / m))
		o.imp[k] = geom.Vec3{}
		x := o.pos[k].Add(v.Scale(dt))
		if len(c.spec.Obstacles) > 0 {
			x, v = c.project(x, v)
		}
		o.pos[k], o.vel[k] = x, v
	}
}

// correct applies Provot's correction to the structural and shear springs
// of s (step indices; one Gauss–Seidel pass). An end may move only if it
// is active and its substep ends at fine substep e (of 2^L).
func (c *Cloth) correct(s *springSet, e, L int) {
	o := &c.ord
	tau := 1 + c.p.Correction
	for n, a := range s.a {
		if s.kind[n] == bend {
			continue
		}
		b := s.b[n]
		d := o.pos[b].Sub(o.pos[a])
		l := d.Norm()
		excess := l - tau*s.rest[n]
		if excess <= 0 {
			continue
		}
		wa, wb := c.movable(a, e, L), c.movable(b, e, L)
		if wa+wb == 0 {
			continue
		}
		u := d.Scale(excess / (l * (wa + wb)))
		if wa > 0 {
			c.shift(a, u.Scale(wa))
		}
		if wb > 0 {
			c.shift(b, u.Scale(-wb))
		}
	}
}

// movable returns the inverse mass of the particle at step index k if
// Provot's correction may move it at fine substep e, else 0.
func (c *Cloth) movable(k int32, e, L int) float64 {
	o := &c.ord
	if o.typ[k] != Active || e%(1<<(L-int(o.sched[k]))) != 0 {
		return 0
	}
	return 1 / o.mass[k]
}

// shift moves the active particle at step index k by dx (Provot's
// correction), changes its velocity by dx over its substep, and projects
// it out of the obstacles again (the correction may push it in).
func (c *Cloth) shift(k int32, dx geom.Vec3) {
	o := &c.ord
	x := o.pos[k].Add(dx)
	v := o.vel[k].Add(dx.Scale(math.Exp2(float64(o.sched[k])) / c.p.Dt))
	if len(c.spec.Obstacles) > 0 {
		x, v = c.project(x, v)
	}
	o.pos[k], o.vel[k] = x, v
}

// check returns an error wrapping ErrUnstable if a particle's position or
// velocity in the step order is not finite or its speed exceeds
// speedLimit.
func (c *Cloth) check() error {
	o := &c.ord
	for k, v := range o.vel {
		if !o.pos[k].IsFinite() || !v.IsFinite() || v.Dot(v) > speedLimit*speedLimit {
			id := o.ids[k]
			return fmt.Errorf("springs: step %d at t=%.4g s: particle %d (layer %d) has speed %.3g m/s (limit %d; largest stable step ≈ %.3g s, Δt = %.3g s): %w",
				c.steps+1, c.t+c.p.Dt, id, c.layer[id], v.Norm(), speedLimit, c.StableStep(), c.p.Dt, ErrUnstable)
		}
	}
	return nil
}

// normals computes a unit normal per active particle (in the step order)
// from its neighbours at its own spacing (central differences where both
// exist, one-sided else), at the positions gather set.
func (c *Cloth) normals() {
	o := &c.ord
	for _, ks := range o.act {
		for _, k := range ks {
			id := o.ids[k]
			s := c.spacing(c.layer[id])
			i, j := c.gi[id], c.gj[id]
			du := c.diff(c.at(i+s, j), c.at(i-s, j), id)
			dv := c.diff(c.at(i, j+s), c.at(i, j-s), id)
			o.nrm[k] = du.Cross(dv).Unit()
		}
	}
}

// diff returns the difference of the step-order positions of particles
// plus and minus (IDs; self where one is −1).
func (c *Cloth) diff(plus, minus, self int32) geom.Vec3 {
	if plus < 0 {
		plus = self
	}
	if minus < 0 {
		minus = self
	}
	o := &c.ord
	return o.pos[o.idx[plus]].Sub(o.pos[o.idx[minus]])
}

// project moves x out of every obstacle to the nearest point of its surface
// and removes the velocity component into the surface (a perfectly
// inelastic, frictionless contact). Decision: a stand-in for the contact
// package, enough for the tablecloth and pole scenes; a particle already deep
// inside a table leaves through the nearest face.
func (c *Cloth) project(x, v geom.Vec3) (geom.Vec3, geom.Vec3) {
	for _, o := range c.spec.Obstacles {
		var n geom.Vec3
		switch o.Kind {
		case Table:
			d := x.Sub(o.Center)
			px, py, pz := o.Size.X-math.Abs(d.X), o.Size.Y-math.Abs(d.Y), o.Size.Z-math.Abs(d.Z)
			if px <= 0 || py <= 0 || pz <= 0 {
				continue
			}
			switch {
			case py <= px && py <= pz:
				n = geom.Vec3{Y: math.Copysign(1, d.Y)}
				x.Y += n.Y * py
			case px <= pz:
				n = geom.Vec3{X: math.Copysign(1, d.X)}
				x.X += n.X * px
			default:
				n = geom.Vec3{Z: math.Copysign(1, d.Z)}
				x.Z += n.Z * pz
			}
		case Pole:
			if x.Y > o.Center.Y {
				continue
			}
			r := geom.Vec3{X: x.X - o.Center.X, Z: x.Z - o.Center.Z}
			rn := r.Norm()
			pen := o.Size.X - rn
			if pen <= 0 {
				continue
			}
			if top := o.Center.Y - x.Y; top < pen {
				n = geom.Vec3{Y: 1}
				x.Y = o.Center.Y
			} else {
				if rn == 0 {
					r, rn = geom.Vec3{X: 1}, 1
				}
				n = r.Scale(1 / rn)
				x = x.Add(n.Scale(pen))
			}
		}
		if vn := v.Dot(n); vn < 0 {
			v = v.Sub(n.Scale(vn))
		}
	}
	return x, v
}
