package springs

import (
	"fmt"
	"math"

	"drape/sim/geom"
	"drape/sim/param"
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

	// Coarsening (not in the paper; see coarsen). A subdivided particle
	// goes back one layer when it and the particles its subdivision made
	// have stayed quiet, every turning angle below CoarsenFraction·θ, for
	// CoarsenChecks checks in a row.
	CoarsenFraction float64 // f, fraction of θ below which a particle is quiet, 0…0.9; 0 disables coarsening; dimensionless
	CoarsenChecks   int     // n, checks in a row a block must stay quiet before it coarsens, ≥ 1

	DragStiffness float64 // stiffness of the spring that pulls a dragged particle to the cursor, N/m
}

// DefaultParams returns a light cotton-like sheet (the hanging coefficient
// h = 45 N below k_structural = 50 N/m makes l = 0.9·|A₀−B₀|, so a spring must
// be compressed by more than 10 % before it can hang, and a flat sheet at rest
// never fires) (ρ = 0.1 kg/m², the
// FEM curtain's density) with stiff structural springs, a 0.5 ms step that
// is stable up to layer 2 on the built-in scenes (see StableStep), Provot's
// 10 % elongation bound, gravity along −Y and no wind: the defaults of ParamTable.
func DefaultParams() Params {
	var p Params
	ParamTable.SetDefaults(&p)
	return p
}

// ParamTable is the schema of Params (package param): for every field its JSON
// key in a scene's "springs" block, viewer label, unit, default, valid
// range, slider range and viewer group ("Springs"). DefaultParams,
// Validate and the JSON codec come from it.
var ParamTable = param.Table[Params]{
	{Key: "k_structural", Label: "k structural", Unit: "N/m", Doc: "structural spring constant at layer 0 (§3.2)", Group: "Springs",
		Default: 50, Min: 0, Max: 1e6, SliderMin: 1, SliderMax: 1e4, Log: true, Format: "%.1f",
		Float: func(p *Params) *float64 { return &p.KStructural }},
	{Key: "k_shear", Label: "k shear", Unit: "N/m", Doc: "shear spring constant at layer 0 (§3.2)", Group: "Springs",
		Default: 10, Min: 0, Max: 1e6, SliderMin: 0.1, SliderMax: 1e4, Log: true, Format: "%.2f",
		Float: func(p *Params) *float64 { return &p.KShear }},
	{Key: "k_bend", Label: "k bend", Unit: "N/m", Doc: "bend spring constant at layer 0 (§3.2)", Group: "Springs",
		Default: 2, Min: 0, Max: 1e6, SliderMin: 0.01, SliderMax: 1e3, Log: true, Format: "%.3f",
		Float: func(p *Params) *float64 { return &p.KBend }},
	{Key: "k_layer_exp", Label: "k layer exponent", Doc: "stiffness at layer l is k·2^(e·l); 1 = Olson & Rudnick, 0 = unchanged", Group: "Springs",
		Default: 1, Min: 0, Max: 2, SliderMin: 0, SliderMax: 2, Format: "%.2f",
		Float: func(p *Params) *float64 { return &p.LayerExp }},
	{Key: "density", Label: "ρ density", Unit: "kg/m²", Doc: "mass per rest area", Group: "Springs",
		Default: 0.1, Min: 1e-4, Max: 100, SliderMin: 0.005, SliderMax: 2, Log: true, Format: "%.3f",
		Float: func(p *Params) *float64 { return &p.Density }},
	{Key: "damping", Label: "c damping", Unit: "1/s", Doc: "mass-proportional damping F = −c·m·v", Group: "Springs",
		Default: 0.5, Min: 0, Max: 1e3, SliderMin: 0, SliderMax: 20, Format: "%.2f",
		Float: func(p *Params) *float64 { return &p.Damping }},
	{Key: "correction", Label: "τ correction", Doc: "Provot's maximum elongation τ of structural and shear springs; 0 disables", Group: "Springs",
		Default: 0.1, Min: 0, Max: 10, SliderMin: 0, SliderMax: 1, Format: "%.3f",
		Float: func(p *Params) *float64 { return &p.Correction }},
	{Key: "dt", Label: "Δt step", Unit: "s", Doc: "animation step; layer-l particles take 2^l substeps of Δt/2^l", Group: "Springs",
		Default: 5e-4, Min: 1e-6, Max: 0.1, SliderMin: 1e-5, SliderMax: 0.01, Log: true, Format: "%.5f",
		Float: func(p *Params) *float64 { return &p.Dt }},
	{Key: "gravity", Unit: "m/s²", Doc: "gravitational acceleration",
		DefVec: [3]float64{0, -9.81, 0}, Min: 0, Max: 1e3,
		Vec: func(p *Params) *geom.Vec3 { return &p.Gravity }},
	{Key: "wind", Unit: "m/s", Doc: "uniform wind velocity (acts through air_drag)",
		Min: 0, Max: 1e3,
		Vec: func(p *Params) *geom.Vec3 { return &p.Wind }},
	{Key: "air_drag", Label: "air drag", Unit: "N·s/m³", Doc: "normal air drag per area per relative normal speed; 0 disables drag and wind", Group: "Springs",
		Min: 0, Max: 1e4, SliderMin: 0, SliderMax: 10, Format: "%.3f",
		Float: func(p *Params) *float64 { return &p.AirDrag }},
	{Key: "angle_deg", Label: "θ angle", Unit: "deg", Doc: "angle criterion (§4.2): threshold on the turning angle; 0 disables", Group: "Subdivision",
		Default: 30, Min: 0, Max: 180, SliderMin: 0, SliderMax: 90, Format: "%.1f",
		Float: func(p *Params) *float64 { return &p.AngleDeg }},
	{Key: "hanging", Label: "h hanging", Unit: "N", Doc: "hanging coefficient h (§4.3): arc length l = h·|A₀−B₀|/k; 0 disables", Group: "Subdivision",
		Default: 45, Min: 0, Max: 1e8, SliderMin: 0, SliderMax: 1e3, Format: "%.1f",
		Float: func(p *Params) *float64 { return &p.Hanging }},
	{Key: "max_layer", Label: "max layer", Doc: "deepest subdivision layer", Group: "Subdivision",
		Default: 2, Min: 0, Max: maxLayerCap, SliderMin: 0, SliderMax: maxLayerCap, Format: "%d",
		Int: func(p *Params) *int { return &p.MaxLayer }},
	{Key: "check_interval", Label: "check interval", Doc: "steps between two checks of the criteria", Group: "Subdivision",
		Default: 10, Min: 1, Max: 1e6, SliderMin: 1, SliderMax: 100, Log: true, Format: "%d",
		Int: func(p *Params) *int { return &p.CheckInterval }},
	{Key: "coarsen_fraction", Label: "coarsen below", Doc: "coarsen a block whose turning angles stay below this fraction of θ (at its own and at the coarser spacing); 0 disables", Group: "Subdivision",
		Default: 0.5, Min: 0, Max: 0.9, SliderMin: 0, SliderMax: 0.9, Format: "%.2f",
		Float: func(p *Params) *float64 { return &p.CoarsenFraction }},
	{Key: "coarsen_checks", Label: "coarsen after", Doc: "checks in a row a block must stay quiet before it coarsens", Group: "Subdivision",
		Default: 10, Min: 1, Max: 1e6, SliderMin: 1, SliderMax: 1000, Log: true, Format: "%d",
		Int: func(p *Params) *int { return &p.CoarsenChecks }},
	{Key: "drag_stiffness", Label: "mouse spring", Unit: "N/m", Doc: "stiffness of the spring that pulls a dragged particle to the cursor",
		Default: 2, Min: 0, Max: 1e6, SliderMin: 0.1, SliderMax: 1e3, Log: true, Format: "%.1f",
		Float: func(p *Params) *float64 { return &p.DragStiffness }},
}

// Validate returns a *param.RangeError naming the first field (in ParamTable
// order) that is out of range or not finite.
func (p Params) Validate() error {
	if err := ParamTable.Validate(&p); err != nil {
		return fmt.Errorf("springs: %w", err)
	}
	return nil
}

// MarshalJSON writes p as a JSON object with ParamTable's keys.
func (p Params) MarshalJSON() ([]byte, error) { return ParamTable.Encode(&p) }

// UnmarshalJSON overrides the fields of p whose keys the object holds
// (ParamTable); unknown keys are a *param.UnknownKeyError. It does not validate.
func (p *Params) UnmarshalJSON(data []byte) error { return ParamTable.Decode(data, p) }

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
