package cloth

import (
	"fmt"

	"drape/sim/geom"
)

// Params holds every tunable of the cloth model and the integrator. The
// simulation reads it at the start of each step, so a new value set between
// steps with Sim.SetParams takes effect without rebuilding the mesh.
// The zero value is not valid; start from DefaultParams.
type Params struct {
	// Orthotropic membrane elasticity (Bender & Deul §4.2). The sheet is
	// treated as a 2D continuum, so moduli are per unit thickness: N/m.
	YoungX  float64 // E_x, Young's modulus along the weft (material X), N/m
	YoungY  float64 // E_y, Young's modulus along the warp (material Y), N/m
	Shear   float64 // E_s, in-plane shear modulus, N/m
	PoissXY float64 // ν_xy, contraction along Y under stretch along X, dimensionless, [0, 1)
	PoissYX float64 // ν_yx, contraction along X under stretch along Y, dimensionless, [0, 1)

	Density float64 // ρ, mass per rest area, kg/m²
	Bending float64 // k_b, isometric bending stiffness (Bergou et al. 2006), N·m; 0 disables bending

	// Rayleigh damping D = α_M·M + α_K·K.
	DampMass  float64 // α_M, 1/s
	DampStiff float64 // α_K, s

	Dt        float64 // Δt, time step, s
	Tolerance float64 // PCG stops when the preconditioned residual falls below Tolerance² times its start value; dimensionless
	MaxIter   int     // PCG iteration cap per step

	Gravity geom.Vec3 // gravitational acceleration, m/s²
	Wind    geom.Vec3 // uniform wind velocity, m/s
	AirDrag float64   // normal air drag coefficient: force per area per normal relative speed, N·s/m³; 0 disables drag and wind

	DragStiffness float64 // stiffness of the spring that pulls a dragged free vertex to the cursor, N/m
}

// DefaultParams returns the curtain material of Bender & Deul §7
// (E_x = E_y = E_s = 1000 N/m, ν = 0.33, ρ = 0.1 kg/m², Δt = 5 ms) with
// light damping and bending, gravity along −Y, and no wind.
func DefaultParams() Params {
	return Params{
		YoungX: 1000, YoungY: 1000, Shear: 1000,
		PoissXY: 0.33, PoissYX: 0.33,
		Density:   0.1,
		Bending:   2e-5,
		DampMass:  0.05,
		DampStiff: 0.002,
		Dt:        0.005,
		Tolerance: 1e-3,
		MaxIter:   1000,
		Gravity:   geom.Vec3{0, -9.81, 0},

		DragStiffness: 50,
	}
}

// Validate returns an error naming the first field that is out of range.
// Each field has a range (see paramRanges) wide enough for any fabric and
// far beyond it, but finite, so a slip of the slider or a typo in a scene
// file (E = 1e30, g = 1e300) is reported instead of silently losing all
// precision in the solver. The Poisson ratios must also give a positive
// definite elasticity tensor (see ElasticityTensor).
func (p Params) Validate() error {
	for _, r := range p.ranges() {
		if !(r.v >= r.min && r.v <= r.max) {
			return fmt.Errorf("%s must be in [%g, %g], got %v", r.name, r.min, r.max, r.v)
		}
	}
	if c := p.ElasticityTensor(); !(c[0] > 0 && c[0]*c[4]-c[1]*c[3] > 0) {
		return fmt.Errorf("elasticity tensor is not positive definite for E_x=%v E_y=%v nu_xy=%v nu_yx=%v: lower the Poisson ratios", p.YoungX, p.YoungY, p.PoissXY, p.PoissYX)
	}
	if p.MaxIter < 1 || p.MaxIter > 100000 {
		return fmt.Errorf("iteration cap must be in [1, 100000], got %d", p.MaxIter)
	}
	return nil
}

// paramRange is one field's allowed closed interval.
type paramRange struct {
	name     string
	v        float64
	min, max float64
}

// ranges lists every float field with its name (as scene files and the
// UI label it, with units) and allowed interval. NaN fails every check.
func (p Params) ranges() []paramRange {
	return []paramRange{
		{"E_x (N/m)", p.YoungX, 1e-12, 1e8},
		{"E_y (N/m)", p.YoungY, 1e-12, 1e8},
		{"E_s (N/m)", p.Shear, 1e-12, 1e8},
		{"nu_xy", p.PoissXY, 0, 0.99},
		{"nu_yx", p.PoissYX, 0, 0.99},
		{"density (kg/m²)", p.Density, 1e-6, 1e3},
		{"bending stiffness (N·m)", p.Bending, 0, 1e3},
		{"mass damping alpha_M (1/s)", p.DampMass, 0, 1e4},
		{"stiffness damping alpha_K (s)", p.DampStiff, 0, 10},
		{"dt (s)", p.Dt, 1e-6, 0.1},
		{"tolerance", p.Tolerance, 1e-12, 0.5},
		{"|gravity| (m/s²)", p.Gravity.Norm(), 0, 1e4},
		{"|wind| (m/s)", p.Wind.Norm(), 0, 1e3},
		{"air drag (N·s/m³)", p.AirDrag, 0, 1e4},
		{"drag stiffness (N/m)", p.DragStiffness, 0, 1e8},
	}
}

// ElasticityTensor returns the orthotropic plane-stress tensor C of
// Bender & Deul §4.2 acting on (ε_x, ε_y, γ_xy), row-major:
//
//	C = 1/(1−ν_xy ν_yx) · [E_x, E_x ν_yx, 0; E_y ν_xy, E_y, 0; 0, 0, E_s·(1−ν_xy ν_yx)]
//
// The paper's off-diagonal entries E_x ν_yx and E_y ν_xy agree only when
// the reciprocity relation ν_xy/E_x = ν_yx/E_y holds. An elastic energy,
// and a symmetric stiffness matrix for conjugate gradients, need C
// symmetric, so both are replaced by their mean; for reciprocal (in
// particular isotropic) parameters this is exactly the paper's C.
func (p Params) ElasticityTensor() geom.Mat3 {
	d := 1 - p.PoissXY*p.PoissYX
	off := 0.5 * (p.YoungX*p.PoissYX + p.YoungY*p.PoissXY) / d
	return geom.Mat3{
		p.YoungX / d, off, 0,
		off, p.YoungY / d, 0,
		0, 0, p.Shear,
	}
}
