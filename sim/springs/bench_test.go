package springs

import "testing"

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
