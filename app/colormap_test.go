package app

import (
	"math"
	"testing"

	"drape/render"
)

func TestMapColor(t *testing.T) {
	for _, c := range []struct {
		cm   render.ColorMap
		t    float32
		want [3]float32
	}{
		{render.ColorMapCoolWarm, 0, coolWarmStops[0]},
		{render.ColorMapCoolWarm, 0.5, coolWarmStops[2]},
		{render.ColorMapCoolWarm, 1, coolWarmStops[4]},
		{render.ColorMapCoolWarm, -3, coolWarmStops[0]}, // clamped
		{render.ColorMapCoolWarm, 0.125, [3]float32{0.391, 0.4945, 0.875}},
		{render.ColorMapViridis, 0, [3]float32{0.267, 0.005, 0.329}}, // matplotlib viridis(0) = #440154
		{render.ColorMapViridis, 1, [3]float32{0.993, 0.906, 0.144}}, // viridis(1) = #fde725
	} {
		got := mapColor(c.cm, c.t)
		for k := range got {
			if math.Abs(float64(got[k]-c.want[k])) > 0.015 {
				t.Errorf("mapColor(%v, %v): got=%v, want=%v", c.cm, c.t, got, c.want)
				break
			}
		}
	}
}

func TestColorRange(t *testing.T) {
	r := colorRange{Auto: true, Min: -1, Max: 1}
	r.update(0.01, true) // a flat sheet: floored, not stretched over noise
	if r.Min != -minAutoRange || r.Max != minAutoRange {
		t.Errorf("flat sheet: got=[%v, %v], want=±%v", r.Min, r.Max, minAutoRange)
	}
	r.update(10, false) // smoothed towards ±10
	if !(r.Max > minAutoRange && r.Max < 10 && r.Min == -r.Max) {
		t.Errorf("after one update towards 10: got=[%v, %v], want symmetric, between %v and 10", r.Min, r.Max, minAutoRange)
	}
	for range 200 {
		r.update(10, false)
	}
	if math.Abs(float64(r.Max-10)) > 1e-3 {
		t.Errorf("converged range: got=%v, want=10", r.Max)
	}
	r.update(float32(math.NaN()), false)
	if r.Max != r.Max {
		t.Errorf("NaN percentile poisoned the range")
	}
	m := colorRange{Auto: false, Min: -2, Max: 3}
	m.update(10, true)
	if m.Min != -2 || m.Max != 3 {
		t.Errorf("manual range changed: got=[%v, %v]", m.Min, m.Max)
	}
}
