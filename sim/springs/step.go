package springs

import (
	"fmt"
	"math"

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
// If the step produces a NaN, an Inf or a speed above 200 m/s, the state is
// restored to what it was before the step and the error wraps ErrUnstable.
func (c *Cloth) Step() error {
	p := &c.p
	n := len(c.pos)
	copy(c.bakPos[:n], c.pos)
	copy(c.bakVel[:n], c.vel)
	for id, t := range c.typ {
		if t == Fixed {
			c.pos[id] = c.target[id]
			c.vel[id] = geom.Vec3{}
		}
		c.imp[id] = geom.Vec3{} // impulses on fixed particles are reactions, never used
	}
	if p.AirDrag > 0 {
		c.normals()
	}
	L := c.deep
	fine := 1 << L
	for s := 0; s < fine; s++ {
		c.interpolate()
		for ls := range c.spr {
			if s%(1<<(L-ls)) == 0 {
				c.springImpulses(&c.spr[ls], p.Dt/math.Exp2(float64(ls)))
			}
		}
		c.pushImpulses()
		for l := range c.act {
			if (s+1)%(1<<(L-l)) == 0 {
				c.advance(c.act[l], p.Dt/math.Exp2(float64(l)))
			}
		}
		if p.Correction > 0 {
			c.interpolate()
			for ls := range c.spr {
				if (s+1)%(1<<(L-ls)) == 0 {
					c.correct(&c.spr[ls], s+1, L)
				}
			}
		}
	}
	c.interpolate()
	if err := c.check(); err != nil {
		copy(c.pos, c.bakPos[:n])
		copy(c.vel, c.bakVel[:n])
		c.interpolate()
		return err
	}
	c.t += p.Dt
	c.steps++
	if c.spec.Variant == DynamicSubdivision && c.steps%p.CheckInterval == 0 {
		if c.refine()+c.coarsenQuiet() > 0 {
			c.rebuild()
		}
	}
	return nil
}

// interpolate puts every interpolated particle at the midpoint of its
// parents, coarser layers first so that a parent is placed before its
// children.
func (c *Cloth) interpolate() {
	for _, id := range c.interp {
		pa := c.par[id]
		c.pos[id] = c.pos[pa[0]].Add(c.pos[pa[1]]).Scale(0.5)
	}
}

// springImpulses adds f·dt to the impulse of both ends of every spring in s.
func (c *Cloth) springImpulses(s *springSet, dt float64) {
	pos, imp := c.pos, c.imp
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

// pushImpulses hands the impulse on each interpolated particle to its two
// parents, children first.
func (c *Cloth) pushImpulses() {
	for k := len(c.interp) - 1; k >= 0; k-- {
		id := c.interp[k]
		j := c.imp[id].Scale(0.5)
		pa := c.par[id]
		c.imp[pa[0]] = c.imp[pa[0]].Add(j)
		c.imp[pa[1]] = c.imp[pa[1]].Add(j)
		c.imp[id] = geom.Vec3{}
	}
}

// advance integrates the given active particles over one substep dt.
func (c *Cloth) advance(ids []int32, dt float64) {
	p := &c.p
	drag := p.AirDrag > 0
	for _, id := range ids {
		m := c.mass[id]
		v := c.vel[id]
		a := p.Gravity.Sub(v.Scale(p.Damping))
		if drag {
			// f = −c_d·A·((v − w)·n)·n with A = m/ρ the particle's area
			nn := c.nrm[id]
			a = a.Sub(nn.Scale(p.AirDrag / p.Density * v.Sub(p.Wind).Dot(nn)))
		}
		if c.drag.on && c.drag.id == id {
			a = a.Add(c.drag.target.Sub(c.pos[id]).Scale(p.DragStiffness / m))
		}
		v = v.Add(a.Scale(dt)).Add(c.imp[id].Scale(1 / m))
		c.imp[id] = geom.Vec3{}
		x := c.pos[id].Add(v.Scale(dt))
		if len(c.spec.Obstacles) > 0 {
			x, v = c.project(x, v)
		}
		c.pos[id], c.vel[id] = x, v
	}
}

// correct applies Provot's correction to the structural and shear springs
// of s (one Gauss–Seidel pass). An end may move only if it is active and
// its substep ends at fine substep e (of 2^L).
func (c *Cloth) correct(s *springSet, e, L int) {
	tau := 1 + c.p.Correction
	for n, a := range s.a {
		if s.kind[n] == bend {
			continue
		}
		b := s.b[n]
		d := c.pos[b].Sub(c.pos[a])
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

// movable returns the inverse mass of id if Provot's correction may move
// it at fine substep e, else 0.
func (c *Cloth) movable(id int32, e, L int) float64 {
	if c.typ[id] != Active || e%(1<<(L-int(c.sched[id]))) != 0 {
		return 0
	}
	return 1 / c.mass[id]
}

// shift moves active particle id by dx (Provot's correction), changes its
// velocity by dx over its substep, and projects it out of the obstacles
// again (the correction may push it in).
func (c *Cloth) shift(id int32, dx geom.Vec3) {
	x := c.pos[id].Add(dx)
	v := c.vel[id].Add(dx.Scale(math.Exp2(float64(c.sched[id])) / c.p.Dt))
	if len(c.spec.Obstacles) > 0 {
		x, v = c.project(x, v)
	}
	c.pos[id], c.vel[id] = x, v
}

// check returns an error wrapping ErrUnstable if a particle's position or
// velocity is not finite or its speed exceeds speedLimit.
func (c *Cloth) check() error {
	for id := range c.pos {
		v := c.vel[id]
		if !c.pos[id].IsFinite() || !v.IsFinite() || v.Dot(v) > speedLimit*speedLimit {
			return fmt.Errorf("springs: step %d at t=%.4g s: particle %d (layer %d) has speed %.3g m/s (limit %d; largest stable step ≈ %.3g s, Δt = %.3g s): %w",
				c.steps+1, c.t+c.p.Dt, id, c.layer[id], v.Norm(), speedLimit, c.StableStep(), c.p.Dt, ErrUnstable)
		}
	}
	return nil
}

// normals computes a unit normal per active particle from its neighbours at
// its own spacing (central differences where both exist, one-sided else).
func (c *Cloth) normals() {
	for _, ids := range c.act {
		for _, id := range ids {
			s := c.spacing(c.layer[id])
			i, j := c.gi[id], c.gj[id]
			du := c.diff(c.at(i+s, j), c.at(i-s, j), id)
			dv := c.diff(c.at(i, j+s), c.at(i, j-s), id)
			c.nrm[id] = du.Cross(dv).Unit()
		}
	}
}

func (c *Cloth) diff(plus, minus, self int32) geom.Vec3 {
	if plus < 0 {
		plus = self
	}
	if minus < 0 {
		minus = self
	}
	return c.pos[plus].Sub(c.pos[minus])
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
