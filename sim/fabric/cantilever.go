package fabric

import (
	"fmt"
	"math"

	"drape/sim/cloth"
	"drape/sim/geom"
)

// Cantilever test geometry (ASTM D1388 option A; Peirce 1930): a strip
// 25 mm wide.
const CantileverWidth = 0.025 // m

// MeshKind selects the cantilever's mesh: a fixed coarse or fine grid, or
// the coarse grid with adaptive √3 refinement on.
type MeshKind int

const (
	Coarse MeshKind = iota
	Fine
	Adaptive
)

func (k MeshKind) String() string {
	return [...]string{"coarse", "fine", "adaptive"}[k]
}

// quadsAlong is the number of grid quads along the overhang per mesh
// kind; the overhang is about 2c, so the quads are c/8 (coarse), c/12
// (fine) and c/4 (adaptive's base, refined to c/36 by 4 generations of
// √3 refinement where the strip bends most). docs/fabrics.md has the
// errors of other sizes.
var quadsAlong = [...]int{Coarse: 16, Fine: 24, Adaptive: 8}

// CantileverResult is one cantilever run.
type CantileverResult struct {
	Dir       Direction
	Mesh      MeshKind
	Overhang  float64 // l at which the tip reached PeirceAngle, m
	C         float64 // measured bending length l/2, m
	CExpected float64 // (k_b/w)^⅓ from the parameters, m
	Solves    int     // static solves the search took
	Triangles int     // of the last solve's final mesh
	TipAngle  float64 // reached at Overhang, rad
}

// BendingLength returns c = (k_b/(ρ·g))^⅓, the bending length that a
// cantilever of stiffness k_b (N·m) and weight ρ·g per area (N/m²) has
// (Peirce 1930: G = W·c³).
func BendingLength(kb, density, g float64) float64 {
	return math.Cbrt(kb / (density * g))
}

// cantilever is a strip of overhang l clamped at the platform edge, at
// rest under gravity scaled by a factor: a Peirce cantilever.
type cantilever struct {
	sim  *cloth.Sim
	dir  Direction
	l    float64 // overhang, m
	base cloth.Params
}

// newCantilever builds the strip of material p cut along d with overhang
// l on a mesh of the given kind: quadsAlong[kind] quads along the
// overhang, two more rows on the platform (pinned: they fix the
// position and the slope at the edge), and about square quads across the
// 25 mm width.
func newCantilever(p cloth.Params, d Direction, kind MeshKind, l float64) (*cantilever, error) {
	n := quadsAlong[kind]
	h := l / float64(n)
	nw := max(2, int(math.Ceil(CantileverWidth/h-0.25)))
	clamp := 2 * h
	m, err := strip(d, l+clamp, CantileverWidth, clamp, n+2, nw)
	if err != nil {
		return nil, err
	}
	p.DampStiff = 0
	p.MaxIter = 5000
	p.Tolerance = 1e-3
	s, err := newSim(m, p, func(i int) bool { return along(m.Pos[i]) <= 1e-9 })
	if err != nil {
		return nil, err
	}
	if kind == Adaptive {
		c := BendingLength(p.Bending, p.Density, p.Gravity.Norm())
		ap := cloth.DefaultAdaptParams()
		ap.Base, ap.Max = 0.5/c, 4/c
		ap.GMax, ap.Interval = 4, 1
		if err := s.SetAdaptParams(ap); err != nil {
			return nil, err
		}
	}
	return &cantilever{sim: s, dir: d, l: l, base: p}, nil
}

// settle sets gravity to factor times the material's and steps to rest,
// then returns the tip angle: the angle below the horizontal of the chord
// from the platform edge to the middle of the free end. The time step and
// mass damping follow the first bending mode of the overhang,
// ω ≈ 3.52·√(k_b/(ρ·l⁴)): Δt = 1/ω and α_M = 1.5·ω damp it within a few
// dozen steps, and change nothing at rest.
func (c *cantilever) settle(factor float64) (float64, error) {
	p := c.base
	p.Gravity = p.Gravity.Scale(factor)
	omega := 3.52 * math.Sqrt(p.Bending/(p.Density*math.Pow(c.l, 4)))
	p.Dt, p.DampMass = 1/omega, 1.5*omega
	if err := c.sim.SetParams(p); err != nil {
		return 0, err
	}
	vTol := 1e-4 * c.l * omega
	for step := 0; ; step++ {
		if _, err := c.sim.Step(); err != nil {
			return 0, err
		}
		if step > 3 && c.sim.MaxSpeed() < vTol {
			break
		}
		if step == 1000 {
			return 0, fmt.Errorf("the strip did not come to rest in 1000 steps (%.3g m/s)", c.sim.MaxSpeed())
		}
	}
	m := c.sim.Mesh
	far := -math.MaxFloat64
	for i := range m.Pos {
		if m.VertAlive[i] {
			far = math.Max(far, restAlong(c.dir, m.Rest[i]))
		}
	}
	var tip geom.Vec3
	var n int
	for i := range m.Pos {
		if m.VertAlive[i] && restAlong(c.dir, m.Rest[i]) > far-1e-9 {
			tip = tip.Add(m.Pos[i])
			n++
		}
	}
	tip = tip.Scale(1 / float64(n))
	return math.Atan2(-tip.Y, along(tip)), nil
}

// restAlong is the long coordinate of a material point of a strip cut
// along d (the inverse of strip's mapping).
func restAlong(d Direction, r geom.Vec2) float64 {
	switch d {
	case Weft:
		return r.X
	case Bias:
		c := math.Cos(math.Pi / 4)
		return c * (r.X + r.Y)
	}
	return r.Y
}

// Cantilever runs the cantilever bending test on material p cut along d
// and returns the bending length it measures: the overhang at which the
// tip touches the 41.5° line, halved (ASTM D1388).
//
// Sliding the strip out until it touches the line is done by
// similarity: for an inextensible strip the tip angle depends only on
// l/c with c = (k_b/(ρ·g))^⅓, so lengthening the overhang by a factor s
// is the same as multiplying gravity by s³. The strip is built once with
// overhang l₀ = 2·c (the bending length k_b implies) and brought to rest
// under gravity scaled by f, each solve starting from the last; the
// secant method on (log f, log tan θ) finds the f at which the tip
// angle is 41.5°, and the overhang at the real gravity is l₀·f^⅓. (The
// membrane strain, ~ρ·g·l/E ≈ 10⁻⁵, is what similarity neglects.)
func Cantilever(p cloth.Params, d Direction, kind MeshKind) (CantileverResult, error) {
	g := p.Gravity.Norm()
	if !(p.Bending > 0) || !(g > 0) {
		return CantileverResult{}, fmt.Errorf("cantilever: needs bending and gravity, got k_b = %v N·m, |g| = %v m/s²", p.Bending, g)
	}
	r := CantileverResult{Dir: d, Mesh: kind, CExpected: BendingLength(p.Bending, p.Density, g)}
	l0 := 2 * r.CExpected
	cs, err := newCantilever(p, d, kind, l0)
	if err != nil {
		return r, err
	}
	f0 := 1.0
	th0, err := cs.settle(f0)
	if err != nil {
		return r, err
	}
	r.Solves++
	// tan θ grows about as l³, i.e. linearly in f.
	f1 := f0 * math.Tan(PeirceAngle) / math.Tan(th0)
	th1 := th0
	for it := 0; it < 8; it++ {
		if th1, err = cs.settle(f1); err != nil {
			return r, err
		}
		r.Solves++
		if math.Abs(th1-PeirceAngle) < 5e-4 {
			break
		}
		x0, x1 := math.Log(f0), math.Log(f1)
		y0, y1 := math.Log(math.Tan(th0)), math.Log(math.Tan(th1))
		f0, th0 = f1, th1
		if y1 == y0 {
			break
		}
		f1 = math.Exp(x1 + (math.Log(math.Tan(PeirceAngle))-y1)*(x1-x0)/(y1-y0))
	}
	r.Overhang = l0 * math.Cbrt(f1)
	r.C, r.TipAngle, r.Triangles = r.Overhang/2, th1, cs.sim.Mesh.NumTris()
	return r, nil
}
