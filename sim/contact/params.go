package contact

import (
	"errors"
	"fmt"

	"drape/sim/param"
)

// This file holds Params, the collision settings with their units and
// defaults, and Table, their one schema (JSON keys, ranges, labels), read
// by the scene files, --state and the viewer's Contact panel alike.

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
	// Cull turns on the culling of cloth–cloth pairs (cull.go): pairs of
	// patches inside one cluster certified free of self-intersection, and
	// pairs of primitives that the star and motion bounds prove apart.
	// Off, every pair of cloth faces whose boxes meet goes to the narrow
	// phase: the reference, 1.3 to 2 times the CPU time of a call on the
	// 20000-face benchmarks (BenchmarkResolveCull). The bounds change no
	// result; the certificates also leave out the pairs within h inside a
	// certified cluster (in-plane neighbours, not layers), so with culling
	// on fewer of those are repelled and the runs part (TestCullOff).
	// Default on; the zero value is off.
	Cull bool
}

// DefaultParams returns the defaults of Table: on, self-collision on,
// h = 3 mm, μ = 0.3, 5 CCD passes, at most 100 zone passes, enriched
// zones, culling on.
func DefaultParams() Params {
	var p Params
	Table.SetDefaults(&p)
	return p
}

// Validate returns an error naming the first field out of the range Table
// gives it (a *param.RangeError).
func (p Params) Validate() error { return Table.Validate(&p) }

// MarshalJSON writes p as a JSON object with Table's keys.
func (p Params) MarshalJSON() ([]byte, error) { return Table.Encode(&p) }

// UnmarshalJSON reads a JSON object with Table's keys over p; unknown keys
// are a *param.UnknownKeyError.
func (p *Params) UnmarshalJSON(data []byte) error { return Table.Decode(data, p) }

// Table is the schema of Params: the "contact" block of scene files, saved
// scenes and --state, and the viewer's Contact panel.
var Table = param.Table[Params]{
	{Key: "enabled", Label: "collisions", Doc: "collision handling on (obstacles and, with self_collision, the cloth itself)", Group: "Contact",
		Default: 1, Bool: func(p *Params) *bool { return &p.Enabled }},
	{Key: "self_collision", Label: "self-collision", Doc: "cloth–cloth pairs too (non-adjacent primitives)", Group: "Contact",
		Default: 1, Bool: func(p *Params) *bool { return &p.SelfCollision }},
	{Key: "thickness", Label: "h thickness", Unit: "m", Doc: "proximity distance h within which repulsion acts (Bridson et al. 2002 §7.1)", Group: "Contact",
		Default: 0.003, Min: 1e-5, Max: 0.1, SliderMin: 0.0005, SliderMax: 0.02, Log: true, Format: "%.4f",
		Float: func(p *Params) *float64 { return &p.Thickness }},
	{Key: "friction", Label: "μ cloth–cloth", Doc: "Coulomb friction between cloth layers (each obstacle has its own)", Group: "Contact",
		Default: 0.3, Min: 0, Max: 10, SliderMin: 0, SliderMax: 2, Format: "%.2f",
		Float: func(p *Params) *float64 { return &p.Friction }},
	{Key: "ccd_iterations", Label: "CCD passes", Doc: "passes of continuous collision detection with impulses before impact zones take over", Group: "Contact",
		Default: 5, Min: 1, Max: 1000, SliderMin: 1, SliderMax: 20, Format: "%d",
		Int: func(p *Params) *int { return &p.CCDIterations }},
	{Key: "zone_iterations", Doc: "cap on the impact-zone passes; 0 means 100",
		Default: 100, Min: 0, Max: 100000,
		Int: func(p *Params) *int { return &p.ZoneIterations }},
	{Key: "zones", Label: "zones: 1 = enriched", Doc: "impact zones: 0 rigid (Provot 1997), 1 enriched with three shear modes (Tsiknis 2006 ch. 2)", Group: "Contact",
		Default: float64(EnrichedZones), Min: float64(RigidZones), Max: float64(EnrichedZones), SliderMin: 0, SliderMax: 1, Format: "%d",
		Int: func(p *Params) *int { return (*int)(&p.Zones) }},
	{Key: "cull", Label: "culling", Doc: "cull cloth–cloth pairs by certified clusters, star bounds and motion bounds; off, every pair of faces whose boxes meet is tested (the reference, slower)", Group: "Contact",
		Default: 1, Bool: func(p *Params) *bool { return &p.Cull }},
}

// ErrUnresolved is returned (wrapped) by Resolve when collisions remain
// after the impact-zone passes; the velocities are then restored.
var ErrUnresolved = errors.New("contact: collisions unresolved after the impact-zone passes")

// ErrStopped is returned by Continuous when the function set by SetStop
// asked it to stop (the viewer has a command waiting); End then restores
// the velocities as for any error.
var ErrStopped = errors.New("contact: stopped by the caller")
