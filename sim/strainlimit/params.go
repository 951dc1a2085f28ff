package strainlimit

import (
	"math"

	"drape/sim/param"
)

// Params holds the strain limiter's settings. The zero value is not valid
// (limits must be positive); start from DefaultParams.
type Params struct {
	Enabled bool // false: Apply returns at once and leaves V untouched

	MaxWeft  float64 // ε_weft, largest stretch strain along the weft (material X), dimensionless (0.10 = 10 %), in (0, 10]
	MaxWarp  float64 // ε_warp, largest stretch strain along the warp (material Y), dimensionless, in (0, 10]
	MaxShear float64 // γ_max, largest change of the angle between weft and warp fibres, radians, in (0, π/2]; π/2 disables the shear limit

	Iterations int     // CG iteration cap of each global solve (force estimate, each stitching), ≥ 1
	Passes     int     // rounds of element responses + stitching, ≥ 1
	Tolerance  float64 // passes stop once every face's limit ratio is ≤ 1 + Tolerance; dimensionless, in [0, 0.5]
}

// DefaultParams returns Table's defaults: off (a scene turns it on), and
// when on Tsiknis's 10 % limit (§2.2) on weft and warp, no
// separate shear limit (π/2), and solver settings measured on overstretched
// sheets (see the package tests and BenchmarkApply).
//
// Iterations 20 and Passes 50, measured on the cases of the stitchWeight
// table (passes to ratio ≤ 1.002 and ms on the 22140-face curtain cases,
// 2 shared cores): 5 iterations: 80–300 passes, hanging 300 (not
// converged); 10: 22–111, hanging 34 / 174 ms; 20: 10–48, hanging 15 /
// 103 ms, flung corner 5 / 24 ms, held corner 12 / 45 ms; 30: 9–42,
// hanging 13 / 112 ms, 6 / 32 ms, 10 / 50 ms. The pinned sheets (pins at
// rest, the rest pulled 30 % away in one step) are the slowest. (Measured
// with the whole-mesh stitching solved to 1e-6; since stitchRings and
// stitchTol a stitching stops after about 6 iterations on the gathering
// curtain, and 20 is a cap.)
//
// The shear limit is off by default because, measured on a 2400-face sheet
// stretched 30 % × 10 % with noise, MaxShear = 0.2 rad kept the limit
// ratio at 1.29 after 100 passes (the shear and stretch responses undo
// each other through the stitching), while without it the ratio reached
// 1.002 in 22–29 passes (77 with the top row pinned; measured before the
// stitching was weighted, see stitchWeight). With fibres at rest
// length the 10 % principal limit alone already bounds the fibre angle
// change to about 0.21 rad.
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

// UnmarshalJSON reads a JSON object with Table's keys over p.
func (p *Params) UnmarshalJSON(data []byte) error { return Table.Decode(data, p) }

// Table is the schema of Params: the "strain" block of scene files, saved
// scenes and --state, and the viewer's strain-limit controls (group
// "Strain limit").
var Table = param.Table[Params]{
	{Key: "enabled", Label: "strain limiting", Doc: "limit the strain after each solve (Tsiknis 2006 ch. 2)", Group: "Strain limit",
		Bool: func(p *Params) *bool { return &p.Enabled }},
	{Key: "max_weft", Label: "ε weft", Doc: "largest stretch strain along the weft (material X); 0.1 = 10 %", Group: "Strain limit",
		Default: 0.10, Min: 1e-6, Max: 10, SliderMin: 0.005, SliderMax: 1, Log: true, Format: "%.3f",
		Float: func(p *Params) *float64 { return &p.MaxWeft }},
	{Key: "max_warp", Label: "ε warp", Doc: "largest stretch strain along the warp (material Y)", Group: "Strain limit",
		Default: 0.10, Min: 1e-6, Max: 10, SliderMin: 0.005, SliderMax: 1, Log: true, Format: "%.3f",
		Float: func(p *Params) *float64 { return &p.MaxWarp }},
	{Key: "max_shear", Unit: "rad", Doc: "largest change of the weft–warp angle; π/2 (the default) turns the shear limit off",
		Default: math.Pi / 2, Min: 1e-6, Max: math.Pi / 2,
		Float: func(p *Params) *float64 { return &p.MaxShear }},
	{Key: "iterations", Doc: "CG iteration cap of each global solve",
		Default: 20, Min: 1, Max: 100000,
		Int: func(p *Params) *int { return &p.Iterations }},
	{Key: "passes", Doc: "rounds of element responses and stitching",
		Default: 50, Min: 1, Max: 1000,
		Int: func(p *Params) *int { return &p.Passes }},
	{Key: "tolerance", Doc: "passes stop once every face's limit ratio is at most 1 + tolerance",
		Default: 0.002, Min: 0, Max: 0.5,
		Float: func(p *Params) *float64 { return &p.Tolerance }},
}
