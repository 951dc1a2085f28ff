package springs

import (
	"fmt"
	"testing"
)

// BenchmarkStep measures one animation step of each built-in scene variant
// after 1 s of simulated time (so a dynamic scene has subdivided), with the
// default parameters (Δt = 0.5 ms, MaxLayer 2). Metrics: active particles and
// ms per step.
func BenchmarkStep(b *testing.B) {
	for _, name := range []string{"sheet", "sheet-uniform", "sheet-dynamic", "tablecloth", "tablecloth-uniform", "tablecloth-dynamic", "pole-uniform", "pole-dynamic"} {
		b.Run(name, func(b *testing.B) {
			s, _ := Scene(name)
			c, err := New(s, DefaultParams())
			if err != nil {
				b.Fatal(err)
			}
			for c.Time() < 1 {
				if err := c.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := c.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.Counts().Active), "particles")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/step")
		})
	}
}

// BenchmarkStepDeepCorner measures one step of a 17×17 sheet hanging from
// two corners whose free corner is subdivided down to layer d: the dense
// grid grows as 4^d (to 1025×1025 slots at d = 6) while the particles grow
// by about 80 per layer. Metrics: the particle substeps per step Σ 2^s over
// active particles (s their schedule), ns per particle substep and the
// dense grid's slots; the step's cost follows the first, not the last.
func BenchmarkStepDeepCorner(b *testing.B) {
	for _, d := range []int{0, 2, 4, 6} {
		b.Run(fmt.Sprintf("layer=%d", d), func(b *testing.B) {
			p := DefaultParams()
			p.MaxLayer = d
			p.Dt = 1e-4
			s, _ := Scene("sheet")
			c, err := New(s, p)
			if err != nil {
				b.Fatal(err)
			}
			corner := int32(16*17 + 16)
			for c.layer[corner] < uint8(d) {
				c.split[corner] = 0
				if !c.Subdivide(int(corner)) {
					b.Fatal("refused")
				}
			}
			var work int
			for l, ids := range c.act {
				work += len(ids) << l
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := c.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(work), "particle-substeps")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(work), "ns/particle-substep")
			b.ReportMetric(float64(len(c.slot)), "slots")
		})
	}
}
