package springs

import (
	"math"

	"drape/sim/geom"
)

// Dt returns the animation step in force, s.
func (c *Cloth) Dt() float64 { return c.p.Dt }

// Finite reports whether every position and velocity is finite.
func (c *Cloth) Finite() bool {
	for id := range c.pos {
		if !c.pos[id].IsFinite() || !c.vel[id].IsFinite() {
			return false
		}
	}
	return true
}

// KineticEnergy returns ½·Σ m·|v|², J.
func (c *Cloth) KineticEnergy() float64 {
	var e float64
	for id, m := range c.mass {
		e += m * c.vel[id].Dot(c.vel[id])
	}
	return e / 2
}

// MaxSpeed returns the largest particle speed, m/s.
func (c *Cloth) MaxSpeed() float64 {
	var v2 float64
	for id := range c.vel {
		v2 = max(v2, c.vel[id].Dot(c.vel[id]))
	}
	return math.Sqrt(v2)
}

// Pin is one fixed particle and its target.
type Pin struct {
	ID     int32
	Target geom.Vec3 // m
}

// Pins appends the fixed particles to dst, in ID order, and returns it.
func (c *Cloth) Pins(dst []Pin) []Pin {
	for id, t := range c.typ {
		if t == Fixed {
			dst = append(dst, Pin{int32(id), c.target[id]})
		}
	}
	return dst
}

// Material returns the material coordinates (u, v) ∈ [0, 1]² of particle
// id: its position in the base grid as a fraction of the sheet's edges U and
// V. A rebuilt scene has a particle at the same (u, v) if it is subdivided
// as deep there, so an adapter can name a pinned particle by them.
func (c *Cloth) Material(id int) (u, v float64) {
	return float64(c.gi[id]) / float64(c.w-1), float64(c.gj[id]) / float64(c.h-1)
}

// Nearest returns the ID of the active or fixed particle whose material
// coordinates are nearest to (u, v) (ties: the lower ID), by a walk over the
// particles.
func (c *Cloth) Nearest(u, v float64) int {
	best, bd := -1, math.Inf(1)
	for id := range c.typ {
		if !c.massive(int32(id)) {
			continue
		}
		pu, pv := c.Material(id)
		if d := (pu-u)*(pu-u) + (pv-v)*(pv-v); d < bd {
			best, bd = id, d
		}
	}
	return best
}
