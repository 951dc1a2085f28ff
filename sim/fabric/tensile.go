package fabric

import (
	"fmt"
	"math"

	"drape/sim/cloth"
	"drape/sim/geom"
)

// Strip tensile test geometry: a strip 25 mm wide (ASTM D5035's 1-inch
// strip) with 200 mm between the grips (ISO 13934-1's gauge length). ISO
// 13934-1's 50 mm width, aspect 4, lets the grips' hold on the lateral
// contraction and on the shear of a bias strip reach the gauge: the bias
// slope was off by −2.7 % (tablecloth) and +4.5 % (sweater) there.
const (
	TensileWidth  = 0.025 // m
	TensileLength = 0.2   // m
	tensileStrain = 0.002
)

// TensileResult is one strip tensile test.
type TensileResult struct {
	Dir      Direction
	Slope    float64 // measured small-strain slope F/(W·ε), N/m
	Expected float64 // the modulus along Dir from the elasticity tensor, N/m
	Strain   float64 // gauge strain reached
}

// DirectionalModulus returns the uniaxial modulus E_θ = 1/(aᵀ·C⁻¹·a) of
// material p along the material direction at angle theta from the weft
// (material X), a = (cos²θ, sin²θ, cos θ·sin θ) acting on
// (ε_x, ε_y, γ_xy) with C = p.ElasticityTensor(): the slope of stress
// against strain along θ with the strip free to contract across. At 0 it
// is E_x and at π/2 E_y when ν_xy/E_x = ν_yx/E_y.
func DirectionalModulus(p cloth.Params, theta float64) float64 {
	c := p.ElasticityTensor()
	// Invert the 2×2 normal block; shear is uncoupled.
	det := c[0]*c[4] - c[1]*c[3]
	s11, s12, s22, s33 := c[4]/det, -c[1]/det, c[0]/det, 1/c[8]
	co, si := math.Cos(theta), math.Sin(theta)
	a1, a2, a3 := co*co, si*si, co*si
	return 1 / (a1*a1*s11 + 2*a1*a2*s12 + a2*a2*s22 + a3*a3*s33)
}

// dirAngle is the angle of a strip's long axis from the weft.
func dirAngle(d Direction) float64 {
	switch d {
	case Warp:
		return math.Pi / 2
	case Bias:
		return math.Pi / 4
	}
	return 0
}

// Tensile runs the strip tensile test on material p cut along d: both
// grips (the end rows) are pinned, the far one 0.2 % away, and at rest
// the slope is the force on the far grip along the strip (the sum of its
// pins' reactions, Sim.PinReactions: the load cell) over the width and
// the strain between two gauge lines at a quarter and three quarters of
// the length (an extensometer, clear of the grips' restraint of the
// lateral contraction). Gravity is off: the strip's weight is nothing
// against the grips' pull.
func Tensile(p cloth.Params, d Direction) (TensileResult, error) {
	r := TensileResult{Dir: d, Expected: DirectionalModulus(p, dirAngle(d))}
	const nl, nw = 64, 8
	m, err := strip(d, TensileLength, TensileWidth, 0, nl, nw)
	if err != nil {
		return r, err
	}
	// Start uniformly stretched along the strip: the grips hold that.
	for i := range m.Pos {
		m.Pos[i].Z *= 1 + tensileStrain
	}
	p.Gravity = geom.Vec3{}
	omega := math.Pi / TensileLength * math.Sqrt(r.Expected/p.Density) // first axial mode
	p.Dt = 2 / omega
	p.DampMass, p.DampStiff = 2*omega, 0
	p.Tolerance = 1e-5
	p.MaxIter = 5000
	grip := func(i int) bool {
		a := along(m.Pos[i])
		return a <= 1e-9 || a >= TensileLength*(1+tensileStrain)-1e-9
	}
	s, err := newSim(m, p, grip)
	if err != nil {
		return r, err
	}
	for step := 0; ; step++ {
		if _, err := s.Step(); err != nil {
			return r, err
		}
		if step > 5 && s.MaxSpeed() < 1e-9*omega*TensileLength {
			break
		}
		if step == 400 {
			return r, fmt.Errorf("the strip did not come to rest in 400 steps (%.3g m/s)", s.MaxSpeed())
		}
	}
	var f float64
	reactions := s.PinReactions()
	for k, pn := range s.Pins() {
		if along(m.Pos[pn.Vertex]) > TensileLength/2 { // the far grip
			f += along(reactions[k]) // the grip pulls the cloth along +s
		}
	}
	// Gauge lines: the vertex rows at L/4 and 3L/4 (in material length).
	var g1, g3 float64
	var n1, n3 int
	for i, q := range m.Rest {
		switch s0 := restAlong(d, q); {
		case math.Abs(s0-TensileLength/4) < 1e-9:
			g1 += along(m.Pos[i])
			n1++
		case math.Abs(s0-3*TensileLength/4) < 1e-9:
			g3 += along(m.Pos[i])
			n3++
		}
	}
	r.Strain = (g3/float64(n3)-g1/float64(n1))/(TensileLength/2) - 1
	r.Slope = f / (TensileWidth * r.Strain)
	return r, nil
}
