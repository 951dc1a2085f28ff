package strainlimit

import (
	"fmt"
	"math"
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

// DefaultParams returns Tsiknis's 10 % limit (§2.2) on weft and warp, no
// separate shear limit (π/2), and solver settings measured on overstretched
// sheets (see the package tests and BenchmarkApply).
//
// Iterations 20 and Passes 50, measured on the cases of the stitchWeight
// table (passes to ratio ≤ 1.002 and ms on the 22140-face curtain cases,
// 2 shared cores): 5 iterations: 80–300 passes, hanging 300 (not
// converged); 10: 22–111, hanging 34 / 174 ms; 20: 10–48, hanging 15 /
// 103 ms, flung corner 5 / 24 ms, held corner 12 / 45 ms; 30: 9–42,
// hanging 13 / 112 ms, 6 / 32 ms, 10 / 50 ms. The pinned sheets (pins at
// rest, the rest pulled 30 % away in one step) are the slowest.
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
	return Params{
		Enabled:    true,
		MaxWeft:    0.10,
		MaxWarp:    0.10,
		MaxShear:   math.Pi / 2,
		Iterations: 20,
		Passes:     50,
		Tolerance:  0.002,
	}
}

// Validate returns an error naming the first field out of range.
func (p Params) Validate() error {
	ok := func(v, lo, hi float64) bool { return !math.IsNaN(v) && v >= lo && v <= hi }
	switch {
	case !ok(p.MaxWeft, 1e-6, 10):
		return fmt.Errorf("strain limit: MaxWeft %g must be in (0, 10]", p.MaxWeft)
	case !ok(p.MaxWarp, 1e-6, 10):
		return fmt.Errorf("strain limit: MaxWarp %g must be in (0, 10]", p.MaxWarp)
	case !ok(p.MaxShear, 1e-6, math.Pi/2):
		return fmt.Errorf("strain limit: MaxShear %g rad must be in (0, π/2]", p.MaxShear)
	case p.Iterations < 1 || p.Iterations > 100000:
		return fmt.Errorf("strain limit: Iterations %d must be in [1, 100000]", p.Iterations)
	case p.Passes < 1 || p.Passes > 1000:
		return fmt.Errorf("strain limit: Passes %d must be in [1, 1000]", p.Passes)
	case !ok(p.Tolerance, 0, 0.5):
		return fmt.Errorf("strain limit: Tolerance %g must be in [0, 0.5]", p.Tolerance)
	}
	return nil
}
