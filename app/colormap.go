package app

import (
	"math"

	"drape/render"
)

// The colour maps of shaders/cloth.frag.glsl, evaluated on the CPU for the
// legend. Keep them in step with the shader.

// coolWarmStops are Moreland's (2009) diverging map at t = 0, ¼, ½, ¾, 1,
// linearly interpolated, as in the shader.
var coolWarmStops = [5][3]float32{
	{0.230, 0.299, 0.754},
	{0.552, 0.690, 0.996},
	{0.865, 0.865, 0.865},
	{0.958, 0.603, 0.482},
	{0.706, 0.016, 0.150},
}

// viridisCoef are the degree-6 polynomial coefficients of viridis used by
// the shader (c0 + t·(c1 + t·(… c6))).
var viridisCoef = [7][3]float64{
	{0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
	{0.1050930431085774, 1.404613529898575, 1.384590162594685},
	{-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
	{-4.634230498983486, -5.799100973351585, -19.33244095627987},
	{6.228269936347081, 14.17993336680509, 56.69055260068105},
	{4.776384997670288, -13.74514537774601, -65.35303263337234},
	{-5.435455855934631, 4.645852612178535, 26.3124352495832},
}

// mapColor returns the RGB colour in [0,1] of t ∈ [0,1] (clamped) under
// map cm; mid grey for render.ColorMapNone.
func mapColor(cm render.ColorMap, t float32) [3]float32 {
	t = max(0, min(1, t))
	switch cm {
	case render.ColorMapCoolWarm:
		x := t * 4
		k := min(int(x), 3)
		f := x - float32(k)
		a, b := coolWarmStops[k], coolWarmStops[k+1]
		return [3]float32{a[0] + (b[0]-a[0])*f, a[1] + (b[1]-a[1])*f, a[2] + (b[2]-a[2])*f}
	case render.ColorMapViridis:
		var c [3]float32
		for i := range 3 {
			v := 0.0
			for k := 6; k >= 0; k-- {
				v = v*float64(t) + viridisCoef[k][i]
			}
			c[i] = float32(math.Max(0, math.Min(1, v)))
		}
		return c
	}
	return [3]float32{0.6, 0.6, 0.6}
}

// minAutoRange is the smallest half-width of the automatic curvature
// range, 1/m: a flat sheet has |H| ≈ 0 up to round-off, and stretching
// that noise over the whole colour map would paint a flat cloth in
// random colours. 0.5/m is the curvature of a fold of radius 1 m.
const minAutoRange = 0.5

// colorRange is the curvature range the colour map spans. Automatic mode
// follows ±(98th percentile of |H|), symmetric so that H = 0 stays at the
// map's neutral middle, smoothed over frames so it does not flicker.
type colorRange struct {
	Auto     bool
	Min, Max float32 // 1/m; in automatic mode the current smoothed range
}

// update moves an automatic range towards ±max(p98, minAutoRange) by a
// fraction of the gap each frame (an exponential filter, time constant
// about 10 frames). A non-finite percentile is ignored.
func (r *colorRange) update(p98 float32, firstOfEpoch bool) {
	if !r.Auto || math.IsNaN(float64(p98)) || math.IsInf(float64(p98), 0) {
		return
	}
	target := max(p98, minAutoRange)
	half := r.Max
	if firstOfEpoch || !(half > 0) {
		half = target
	} else {
		half += 0.1 * (target - half)
	}
	r.Min, r.Max = -half, half
}
