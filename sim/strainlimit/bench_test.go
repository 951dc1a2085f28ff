package strainlimit

import (
	"testing"

	"drape/assets"
	"drape/sim/geom"
	"drape/sim/scene"
)

// curtainInput runs the built-in curtain scene (22140 triangles, Bender &
// Deul §7) for steps steps and returns its state as an Input with
// V = v^n (the last step's v^{n+½}), the pinned rail held (InvMass 0).
// When drag > 0 the bottom-left corner moves drag m along each axis in
// this step (0.35 m in all): free (flung: a drag spring that gave way),
// down and away, or held (a pin moved far), up and away.
func curtainInput(tb testing.TB, steps int, drag float64, held bool) (*Input, float64) {
	tb.Helper()
	sc, err := scene.LoadScene(assets.Scenes, "curtain")
	if err != nil {
		tb.Fatal(err)
	}
	s, err := sc.Build()
	if err != nil {
		tb.Fatal(err)
	}
	for k := 0; k < steps; k++ {
		if _, err := s.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	m := s.Mesh
	n := len(m.Pos)
	in := &Input{X0: append([]geom.Vec3(nil), m.Pos...), V: append([]geom.Vec3(nil), m.Vel...), InvMass: make([]float64, n), Rest: append([]geom.Vec2(nil), m.Rest...), Tris: append([][3]int32(nil), m.Tris...)}
	for i := range in.InvMass {
		if m.VertAlive[i] {
			in.InvMass[i] = 1 / s.Mass(i)
		}
	}
	for _, p := range s.Pins() {
		in.InvMass[p.Vertex] = 0
	}
	dt := s.Params().Dt
	if drag > 0 {
		corner := 0
		for i, r := range m.Rest {
			if r.X+r.Y < m.Rest[corner].X+m.Rest[corner].Y {
				corner = i
			}
		}
		if held {
			in.InvMass[corner] = 0
		}
		dir := geom.Vec3{X: -drag, Y: -drag, Z: drag}
		if held {
			// Upwards, so that the held corner stays within 10 % of
			// the rail: down and away would put it 2.02 m from the
			// rail's end, beyond the 1.98 m the 10 % limit allows on
			// the 1.8 m side, and no solution would exist.
			dir.Y = drag
		}
		in.V[corner] = in.V[corner].Add(dir.Scale(1 / dt))
	}
	return in, dt
}

// BenchmarkApply measures Apply on the curtain at full resolution
// (22140 triangles) after 40 steps: hanging (the rail only), and with the
// bottom-left corner moved 0.35 m in one step and free, or moved 5 cm
// (a fast drag, 10 m/s) and held; and hanging with the limit lowered to
// 0.5 %, under its largest strain (0.75 %), so that a few faces near
// the rail are over it: the common case of a step (each sub-benchmark
// restores V before every Apply). Metrics: strain before and after,
// passes, and triangles.
func BenchmarkApply(b *testing.B) {
	for _, c := range []struct {
		name  string
		drag  float64
		held  bool
		limit float64
	}{{"curtain/hanging", 0, false, 0.1}, {"curtain/hanging-limit-0.5%", 0, false, 0.005}, {"curtain/corner-flung-0.2m", 0.2, false, 0.1}, {"curtain/corner-held-0.03m", 0.03, true, 0.1}} {
		b.Run(c.name, func(b *testing.B) {
			in, dt := curtainInput(b, 40, c.drag, c.held)
			v0 := append([]geom.Vec3(nil), in.V...)
			l := NewLimiter()
			p := onParams()
			p.MaxWeft, p.MaxWarp = c.limit, c.limit
			st, err := l.Apply(in, dt, p) // warm
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				copy(in.V, v0)
				if st, err = l.Apply(in, dt, p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(st.MaxStrainBefore, "strain-before")
			b.ReportMetric(st.MaxStrainAfter, "strain-after")
			b.ReportMetric(float64(st.Passes), "passes")
			b.ReportMetric(float64(st.Elements), "elements")
			b.ReportMetric(float64(len(in.Tris)), "tris")
		})
	}
}
