package contact

import (
	"errors"
	"fmt"
	"math"
)

// ZoneMode selects the velocity space an impact zone is projected onto.
type ZoneMode int

const (
	// RigidZones projects a zone's velocities onto rigid motion (Provot
	// 1997 §4; Bridson, Fedkiw & Anderson 2002 §6.3): 6 modes.
	RigidZones ZoneMode = iota
	// EnrichedZones adds the three shear modes of Tsiknis 2006 (end of
	// ch. 2) to the rigid ones: 9 modes, no scaling.
	EnrichedZones
)

// String returns "rigid" or "enriched".
func (z ZoneMode) String() string {
	switch z {
	case RigidZones:
		return "rigid"
	case EnrichedZones:
		return "enriched"
	}
	return fmt.Sprintf("ZoneMode(%d)", int(z))
}

// Params are the collision settings, applied by Resolve.
type Params struct {
	// Enabled turns the whole pipeline on; when false Resolve returns at once
	// and leaves the velocities alone.
	Enabled bool
	// SelfCollision adds cloth–cloth pairs (non-adjacent primitives: sharing
	// no vertex) to every stage.
	SelfCollision bool
	// Thickness h, m: the proximity distance of Bridson et al. §7.1 within
	// which repulsion acts. Default 3 mm: below the 5–10 mm edges of the
	// 22140-triangle curtain and sphere scenes (so a vertex's repulsion
	// reaches only its close neighbours across a fold) and above what a
	// 5 ms step moves a resting vertex. Must be > 0.
	Thickness float64
	// Friction μ for cloth–cloth contact (Coulomb; bodies carry their own).
	// Dimensionless, ≥ 0.
	Friction float64
	// CCDIterations is the number of CCD-and-impulse passes before impact
	// zones take over (Bridson et al. §6.4: "a few"). ≥ 1; default 5.
	CCDIterations int
	// ZoneIterations caps the impact-zone passes; when CCD still finds a
	// collision after them Resolve fails with ErrUnresolved. 0 means the
	// default (100).
	ZoneIterations int
	// Zones is the impact-zone space, RigidZones or EnrichedZones.
	Zones ZoneMode
}

// DefaultParams returns the defaults: on, self-collision on, h = 3 mm,
// μ = 0.3, 5 CCD passes, at most 100 zone passes, enriched zones.
func DefaultParams() Params {
	return Params{
		Enabled:        true,
		SelfCollision:  true,
		Thickness:      0.003,
		Friction:       0.3,
		CCDIterations:  5,
		ZoneIterations: 100,
		Zones:          EnrichedZones,
	}
}

// Validate returns an error naming the first field out of range.
func (p Params) Validate() error {
	switch {
	case !(p.Thickness > 0) || math.IsInf(p.Thickness, 0):
		return fmt.Errorf("contact: thickness %g m: must be positive and finite", p.Thickness)
	case !(p.Friction >= 0) || math.IsInf(p.Friction, 0):
		return fmt.Errorf("contact: friction %g: must be ≥ 0 and finite", p.Friction)
	case p.CCDIterations < 1 || p.CCDIterations > 1000:
		return fmt.Errorf("contact: CCD iterations %d: must be in [1, 1000]", p.CCDIterations)
	case p.ZoneIterations < 0 || p.ZoneIterations > 100000:
		return fmt.Errorf("contact: zone iterations %d: must be in [0, 100000]", p.ZoneIterations)
	case p.Zones != RigidZones && p.Zones != EnrichedZones:
		return fmt.Errorf("contact: zone mode %d: must be RigidZones or EnrichedZones", int(p.Zones))
	}
	return nil
}

// ErrUnresolved is returned (wrapped) by Resolve when collisions remain
// after the impact-zone passes; the velocities are then restored.
var ErrUnresolved = errors.New("contact: collisions unresolved after the impact-zone passes")
