package fabric

import (
	"fmt"
	"math"
)

// Wang2011 is one fabric of the database of Wang, O'Brien & Ramamoorthi,
// "Data-driven elastic models for cloth: modeling and measurement",
// ACM Trans. Graph. 30(4):71 (SIGGRAPH 2011), in the units their
// simulator (and ARCSim, which reads the same files) uses:
//
//   - Density, kg/m².
//   - Stretch[0] = (c11, c12, c22, c33) at zero strain; Stretch[1..5] the
//     same at principal Green strain 1/6 along 0°, 22.5°, 45°, 67.5° and
//     90° from the material u axis. Between the samples the model
//     interpolates linearly, and each entry is doubled when used
//     (ARCSim dde.cpp, evaluate_stretching_sample), in the energy density
//     ψ = ½·k0·E₀₀² + k1·E₀₀·E₁₁ + ½·k2·E₁₁² + k3·E₀₁², N/m (E the Green
//     strain).
//   - Bend[row][col], the hinge stiffness k_e of edges along u (row 0),
//     at 45° (row 1) and along v (row 2), at curvature samples
//     α = |θ|·l/(A₀+A₁)/2 = 0, 5, 10, 15, 20 1/m (col), in the hinge
//     energy k_e·l²/(2(A₀+A₁))·θ²/4 (ARCSim physics.cpp, bending_energy).
type Wang2011 struct {
	Density float64
	Stretch [6][4]float64
	Bend    [3][5]float64
}

// WangBendScale is B/k_e, the plate bending stiffness B (½·B·κ² per area
// for a cylinder of curvature κ) that the hinge energy of Wang2011 gives
// per unit hinge stiffness on an equilateral mesh, in every orientation:
// summing k_e·l²/(2(A₀+A₁))·θ²/4 over the edges of a lattice wrapped onto
// cylinders gives ½·(k_e/4)·κ² per area (measured 0.2486 with 200 rings,
// the deficit being the disc's boundary; see TestWangBendScale).
const WangBendScale = 0.25

// Derived is what a Wang2011 fabric becomes in drape's linear model.
type Derived struct {
	Ex, Ey, Es, NuXY, NuYX float64 // N/m, N/m, N/m, -, -
	BendWarp, BendWeft     float64 // B per direction, N·m
	Bending                float64 // √(BendWarp·BendWeft), N·m
	MaxWeft, MaxWarp       float64 // strain limits; 0: the fabric does not lock within the data
}

// MaxPoisson caps the Poisson ratios a conversion produces.
const MaxPoisson = 0.95

// LockRatio is the stiffening that counts as locking: the strain limit
// of a direction is the Green strain at which the measured tangent
// stiffness reaches LockRatio times its zero-strain value.
const LockRatio = 5

// Derive converts a Wang2011 fabric to drape's parameters:
//
//   - Membrane: the zero-strain tensor k = 2·max(Stretch[0], 0) (ARCSim
//     clamps negative entries to 0 and doubles them) is the plane-stress
//     tensor C of cloth.Params.ElasticityTensor with C₁₁ = k0, C₁₂ = k1,
//     C₂₂ = k2, and E_s = k3/2 (ψ has k3·E₀₁² = ½·(k3/2)·γ² with γ = 2E₀₁).
//     C₁₂ is cut to MaxPoisson·min(C₁₁, C₂₂), since drape's ratios stay
//     below 0.99. Inverting C: ν_xy = C₁₂/C₂₂, ν_yx = C₁₂/C₁₁, E_x = C₁₁ − C₁₂²/C₂₂,
//     E_y = C₂₂ − C₁₂²/C₁₁. The u axis is taken as drape's weft (material
//     X), v as the warp.
//   - Bending: the hinge stiffness of a direction is the mean of its first
//     three curvature samples (α ≤ 10 1/m, curvature radii ≳ 3 cm: the
//     range of the cantilever and the Cusick drape), times WangBendScale.
//     Edges along u bend the warp: row 0 is the warp, row 2 the weft.
//     drape's bending is isotropic (Bergou et al. 2006), so k_b is the
//     geometric mean of the two, which splits the ratio evenly: each
//     direction's bending length is then off by (B_dir/k_b)^⅓.
//   - Strain limits: along the weft (0° sample, c11) and the warp (90°,
//     c22), the tangent stiffness k(ε) = k(0) + (k(⅙) − k(0))·6ε reaches
//     LockRatio·k(0) at ε = (LockRatio − 1)·k(0)/(6·(k(⅙) − k(0))); a
//     direction that does not get there within ε ≤ ½ has no limit (0).
func (w Wang2011) Derive() (Derived, error) {
	var d Derived
	k := w.Stretch[0]
	for i := range k {
		k[i] = 2 * math.Max(k[i], 0)
	}
	c11, c12, c22 := k[0], k[1], k[2]
	if !(c11 > 0 && c22 > 0 && c11*c22 > c12*c12) {
		return d, fmt.Errorf("zero-strain stretch tensor (%g, %g, %g) is not positive definite", c11, c12, c22)
	}
	// drape's Poisson ratios lie in [0, 0.99) (cloth.ParamTable); a
	// coupling beyond MaxPoisson·min(C₁₁, C₂₂) is cut to it.
	c12 = math.Min(c12, MaxPoisson*math.Min(c11, c22))
	d.NuXY, d.NuYX = c12/c22, c12/c11
	d.Ex, d.Ey = c11-c12*c12/c22, c22-c12*c12/c11
	d.Es = k[3] / 2
	mean3 := func(r [5]float64) float64 { return (r[0] + r[1] + r[2]) / 3 * WangBendScale }
	d.BendWarp, d.BendWeft = mean3(w.Bend[0]), mean3(w.Bend[2])
	d.Bending = math.Sqrt(d.BendWarp * d.BendWeft)
	lock := func(k0, k1 float64) float64 {
		k0, k1 = 2*math.Max(k0, 0), 2*math.Max(k1, 0)
		if !(k1 > k0) || k0 == 0 {
			return 0
		}
		e := (LockRatio - 1) * k0 / (6 * (k1 - k0))
		if e > 0.5 {
			return 0
		}
		return e
	}
	d.MaxWeft = lock(w.Stretch[0][0], w.Stretch[1][0])
	d.MaxWarp = lock(w.Stretch[0][2], w.Stretch[5][2])
	return d, nil
}
