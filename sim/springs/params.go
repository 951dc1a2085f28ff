package springs

import (
	"fmt"
	"math"

	"drape/sim/geom"
)

// Params holds every tunable of the spring cloth. Step reads it at the start
// of each animation step, so a value set between steps with SetParams takes
// effect at once. The zero value is not valid; start from DefaultParams.
type Params struct {
	// Spring constants at layer 0 (Olson & Rudnick §3.2, Provot 2001). A
	// spring generated at layer l has stiffness k·2^(LayerExp·l).
	KStructural float64 // k of the ±1 springs along a grid axis, N/m
	KShear      float64 // k of the diagonal springs, N/m
	KBend       float64 // k of the ±2 springs along a grid axis, N/m
	LayerExp    float64 // exponent e of the stiffness scaling 2^(e·l); 1 is the paper's ×2^l, 0 keeps k unchanged; dimensionless

	Density    float64 // ρ, mass per rest area, kg/m²
	Damping    float64 // c, mass-proportional damping F = −c·m·v, 1/s
	Correction float64 // τ, Provot's maximum elongation of structural and shear springs (0.1 = 10 %); 0 disables the correction; dimensionless

	Dt float64 // Δt, animation step, s; layer-l particles take 2^l substeps of Δt/2^l

	Gravity geom.Vec3 // gravitational acceleration, m/s²
	Wind    geom.Vec3 // uniform wind velocity, m/s
	AirDrag float64   // normal air drag: force per area per normal relative speed, N·s/m³; 0 disables drag and wind

	// Dynamic subdivision (§4). Only scenes of the dynamic variant check the
	// criteria; MaxLayer also bounds the uniform variant.
	AngleDeg      float64 // θ, angle criterion (§4.2): subdivide where the turning angle along a grid axis exceeds θ, degrees; 0 disables it
	Hanging       float64 // h, hanging coefficient (§4.3): arc length l = h·|A₀−B₀|/k, N; 0 disables the hanging-spring criterion
	MaxLayer      int     // deepest subdivision layer, 0…6
	CheckInterval int     // steps between two checks of the criteria, ≥ 1

	DragStiffness float64 // stiffness of the spring that pulls a dragged particle to the cursor, N/m
}

// DefaultParams returns a light cotton-like sheet (the hanging coefficient
// h = 45 N below k_structural = 50 N/m makes l = 0.9·|A₀−B₀|, so a spring must
// be compressed by more than 10 % before it can hang, and a flat sheet at rest
// never fires) (ρ = 0.1 kg/m², the
// FEM curtain's density) with stiff structural springs, a 0.5 ms step that
// is stable up to layer 2 on the built-in scenes (see StableStep), Provot's
// 10 % elongation bound, gravity along −Y and no wind.
func DefaultParams() Params {
	p := Params{}
	for _, f := range Fields {
		*f.ptr(&p) = f.Default
	}
	p.Gravity = geom.Vec3{Y: -9.81}
	p.MaxLayer = 2
	p.CheckInterval = 10
	return p
}

// Field describes one scalar parameter: its JSON key, unit, default, range
// and meaning. Fields is the single table the defaults, Validate and (later)
// the scene loader and the sliders read; it converts directly to the
// generic sim/param table once that package lands. The integer fields
// MaxLayer and CheckInterval and the vectors Gravity and Wind are not in it
// and are checked by Validate directly.
type Field struct {
	Key      string // JSON key in a scene's "springs" block
	Unit     string
	Default  float64
	Min, Max float64 // closed range
	Log      bool    // a slider should be logarithmic
	Doc      string
	ptr      func(p *Params) *float64
}

// Get returns the field's value in p.
func (f Field) Get(p Params) float64 { return *f.ptr(&p) }

// Set stores v in the field of p (unchecked; call Validate).
func (f Field) Set(p *Params, v float64) { *f.ptr(p) = v }

// Fields is the table of scalar parameters, in the order a panel shows them.
var Fields = []Field{
	{"k_structural", "N/m", 50, 0, 1e6, true, "structural spring constant at layer 0", func(p *Params) *float64 { return &p.KStructural }},
	{"k_shear", "N/m", 10, 0, 1e6, true, "shear spring constant at layer 0", func(p *Params) *float64 { return &p.KShear }},
	{"k_bend", "N/m", 2, 0, 1e6, true, "bend spring constant at layer 0", func(p *Params) *float64 { return &p.KBend }},
	{"k_layer_exp", "", 1, 0, 2, false, "stiffness at layer l is k·2^(e·l); 1 = Olson & Rudnick", func(p *Params) *float64 { return &p.LayerExp }},
	{"density", "kg/m²", 0.1, 1e-4, 100, true, "mass per rest area", func(p *Params) *float64 { return &p.Density }},
	{"damping", "1/s", 0.5, 0, 1e3, false, "mass-proportional damping F = −c·m·v", func(p *Params) *float64 { return &p.Damping }},
	{"correction", "", 0.1, 0, 10, false, "Provot's maximum elongation τ; 0 disables", func(p *Params) *float64 { return &p.Correction }},
	{"dt", "s", 5e-4, 1e-6, 0.1, true, "animation step", func(p *Params) *float64 { return &p.Dt }},
	{"air_drag", "N·s/m³", 0, 0, 1e4, false, "normal air drag per area per relative normal speed", func(p *Params) *float64 { return &p.AirDrag }},
	{"angle_deg", "deg", 30, 0, 180, false, "angle criterion threshold on the turning angle; 0 disables", func(p *Params) *float64 { return &p.AngleDeg }},
	{"hanging", "N", 45, 0, 1e8, true, "hanging coefficient h: l = h·|A₀−B₀|/k; 0 disables", func(p *Params) *float64 { return &p.Hanging }},
	{"drag_stiffness", "N/m", 2, 0, 1e6, true, "mouse drag spring", func(p *Params) *float64 { return &p.DragStiffness }},
}

// Validate returns an error naming the first field that is out of range
// or not finite.
func (p Params) Validate() error {
	for _, f := range Fields {
		v := f.Get(p)
		if math.IsNaN(v) || v < f.Min || v > f.Max {
			return fmt.Errorf("springs: %s = %g %s is outside [%g, %g]", f.Key, v, f.Unit, f.Min, f.Max)
		}
	}
	if p.MaxLayer < 0 || p.MaxLayer > maxLayerCap {
		return fmt.Errorf("springs: max_layer = %d is outside [0, %d]", p.MaxLayer, maxLayerCap)
	}
	if p.CheckInterval < 1 || p.CheckInterval > 1e6 {
		return fmt.Errorf("springs: check_interval = %d is outside [1, 1e6]", p.CheckInterval)
	}
	if !p.Gravity.IsFinite() || p.Gravity.Norm() > 1e3 {
		return fmt.Errorf("springs: |gravity| = %g m/s² is outside [0, 1e3]", p.Gravity.Norm())
	}
	if !p.Wind.IsFinite() || p.Wind.Norm() > 1e3 {
		return fmt.Errorf("springs: |wind| = %g m/s is outside [0, 1e3]", p.Wind.Norm())
	}
	return nil
}

// maxLayerCap bounds MaxLayer: 2^6 = 64 substeps per step and a dense grid
// 64 times finer than the base grid along each axis.
const maxLayerCap = 6

// stiffness returns the base constant of a spring kind scaled to layer l.
func (p *Params) stiffness(kind uint8, l int) float64 {
	var k float64
	switch kind {
	case structural:
		k = p.KStructural
	case shear:
		k = p.KShear
	default:
		k = p.KBend
	}
	return k * math.Exp2(p.LayerExp*float64(l))
}
