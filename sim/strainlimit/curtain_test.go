package strainlimit_test

// The tests here run the FEM cloth (sim/cloth imports this package, so
// they live in the external test package).

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
	"drape/sim/strainlimit"
)

// onParams returns DefaultParams with the limiter on.
func onParams() strainlimit.Params {
	p := strainlimit.DefaultParams()
	p.Enabled = true
	return p
}

func maxOf(s []float64) float64 {
	m := math.Inf(-1)
	for _, v := range s {
		m = math.Max(m, v)
	}
	return m
}

// limitedCurtain runs the curtain scene on an nx × ny grid at time step dt
// for steps steps, with strain limiting after every step when on, the way
// cloth.Step's phase 4 will call it: X0 = x^n saved before the step,
// V = v^{n+½} (Mesh.Vel after the step), pinned vertices held. With the
// curtain not adaptive, applying after Step and writing x^{n+1} = x^n + Δt·V
// back is exactly phase 4. It returns the largest principal strain and
// kinetic energy seen, and the error that stopped the run, if any.
func limitedCurtain(t *testing.T, nx, ny int, dt float64, steps int, on, drag bool) (maxStrain, maxKE float64, err error) {
	sc, err := scene.LoadScene(assets.Scenes, "curtain")
	if err != nil {
		t.Fatal(err)
	}
	sc.Mesh.NX, sc.Mesh.NY = nx, ny
	sc.Params.Dt = dt
	sc.Contact.Enabled = false // strain limiting alone
	s, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	m := s.Mesh
	n := len(m.Pos)
	in := &strainlimit.Input{X0: make([]geom.Vec3, n), InvMass: make([]float64, n), Rest: m.Rest, Tris: m.Tris, V: m.Vel}
	l := strainlimit.NewLimiter()
	p := onParams()
	var strains []float64
	if drag { // the bottom-left corner dragged 1 m down and out (mouse drag spring)
		corner := 0
		for i, r := range m.Rest {
			if r.X+r.Y < m.Rest[corner].X+m.Rest[corner].Y {
				corner = i
			}
		}
		if err := s.Drag(int32(corner), m.Pos[corner].Add(geom.Vec3{X: -0.5, Y: -0.7, Z: 0.5})); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < steps; k++ {
		copy(in.X0, m.Pos)
		if _, err := s.Step(); err != nil {
			return maxStrain, maxKE, err
		}
		if on {
			for i := range in.InvMass {
				in.InvMass[i] = 1 / s.Mass(i)
			}
			for _, pn := range s.Pins() {
				in.InvMass[pn.Vertex] = 0
			}
			if _, err := l.Apply(in, dt, p); err != nil {
				t.Fatal(err)
			}
			for i := range m.Pos {
				m.Pos[i] = in.X0[i].Add(m.Vel[i].Scale(dt))
			}
			for _, pn := range s.Pins() {
				m.Pos[pn.Vertex] = pn.Target
			}
		}
		strains = strainlimit.PrincipalStrains(m.Pos, m.Rest, m.Tris, strains)
		maxStrain = math.Max(maxStrain, maxOf(strains))
		maxKE = math.Max(maxKE, s.KineticEnergy())
		if !s.Finite() {
			return maxStrain, maxKE, errors.New("not finite")
		}
	}
	return maxStrain, maxKE, nil
}

// TestCurtainLargeSteps: the curtain (41 × 30 quads, 2460 faces, the
// scene's soft 1000 N/m moduli) for 1.2 s at Δt = 5, 20 and 40 ms, with
// and without strain limiting. With it the strain stays within the limit
// (0.1022) and the run finite with bounded kinetic energy; the log says
// what happens without. Hanging alone the curtain strains only 0.4 %, so
// its bottom-left corner is also dragged (cloth.Sim.Drag's spring) 1 m
// away.
func TestCurtainLargeSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the curtain twelve times")
	}
	for _, drag := range []bool{false, true} {
		for _, dt := range []float64{0.005, 0.02, 0.04} {
			steps := int(math.Round(1.2 / dt))
			s0, k0, e0 := limitedCurtain(t, 41, 30, dt, steps, false, drag)
			s1, k1, e1 := limitedCurtain(t, 41, 30, dt, steps, true, drag)
			t.Logf("drag %v, Δt %g s, %d steps: without limiting max strain %.4f, max KE %.3g J, err %v; with: %.4f, %.3g J, err %v", drag, dt, steps, s0, k0, e0, s1, k1, e1)
			if e1 != nil || s1 > 1.1*1.002-1+1e-9 || !(k1 < 10) {
				t.Errorf("drag %v, Δt %g: with limiting strain %g, kinetic energy %g, err %v", drag, dt, s1, k1, e1)
			}
		}
	}
}

// TestHangingConverges: the curtain (41 × 30 quads, moduli 50 N/m)
// hanging after 0.2 s, limited to 60 % of the strain it has near its rail (many faces
// just over the limit, two corners of the top row's faces pinned), reaches
// the tolerance within 10 passes. This is the kind of case where
// unweighted stitching converged slowly or drifted (see stitchWeight).
func TestHangingConverges(t *testing.T) {
	sc, err := scene.LoadScene(assets.Scenes, "curtain")
	if err != nil {
		t.Fatal(err)
	}
	sc.Mesh.NX, sc.Mesh.NY = 41, 30
	sc.Params.YoungX, sc.Params.YoungY, sc.Params.Shear = 50, 50, 50 // 20 times softer: strain ≈ 5 %
	sc.Contact.Enabled = false                                       // strain limiting alone
	s, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 40; k++ {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	m := s.Mesh
	in := &strainlimit.Input{X0: m.Pos, V: m.Vel, InvMass: make([]float64, len(m.Pos)), Rest: m.Rest, Tris: m.Tris}
	for i := range in.InvMass {
		in.InvMass[i] = 1 / s.Mass(i)
	}
	for _, pn := range s.Pins() {
		in.InvMass[pn.Vertex] = 0
	}
	strain := maxOf(strainlimit.PrincipalStrains(m.Pos, m.Rest, m.Tris, nil))
	p := onParams()
	p.MaxWeft, p.MaxWarp = 0.6*strain, 0.6*strain
	st, err := strainlimit.NewLimiter().Apply(in, s.Params().Dt, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("strain %.5f, limit %.5f: %d faces over, %d passes, ratio after %.6f", strain, p.MaxWeft, st.Elements, st.Passes, st.MaxRatioAfter)
	// Measured: 4 passes; 21 with unweighted stitching (stitchWeight 1).
	if st.Elements < 10 || st.MaxRatioAfter > 1+p.Tolerance || st.Passes > 10 {
		t.Errorf("%d faces over; ratio after %d passes %.6f, want ≤ %g within 10 passes", st.Elements, st.Passes, st.MaxRatioAfter, 1+p.Tolerance)
	}
}

// curtainInput runs the built-in curtain scene (22140 triangles, Bender &
// Deul §7) for steps steps and returns its state as an strainlimit.Input with
// V = v^n (the last step's v^{n+½}), the pinned rail held (InvMass 0).
// When drag > 0 the bottom-left corner moves drag m along each axis in
// this step (0.35 m in all): free (flung: a drag spring that gave way),
// down and away, or held (a pin moved far), up and away. It also returns
// the simulation, which later steps leave the Input as it is.
func curtainInput(tb testing.TB, steps int, drag float64, held bool) (*strainlimit.Input, float64, *cloth.Sim) {
	tb.Helper()
	sc, err := scene.LoadScene(assets.Scenes, "curtain")
	if err != nil {
		tb.Fatal(err)
	}
	sc.Contact.Enabled = false // strain limiting alone
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
	in := &strainlimit.Input{X0: append([]geom.Vec3(nil), m.Pos...), V: append([]geom.Vec3(nil), m.Vel...), InvMass: make([]float64, n), Rest: append([]geom.Vec2(nil), m.Rest...), Tris: append([][3]int32(nil), m.Tris...)}
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
	return in, dt, s
}

// BenchmarkApply measures Apply on the curtain at full resolution
// (22140 triangles) after 40 steps: hanging (the rail only), and with the
// bottom-left corner moved 0.35 m in one step and free, or moved 5 cm
// (a fast drag, 10 m/s) and held; and hanging with the limit lowered to
// 0.5 %, under its largest strain (0.75 %), so that a few faces near
// the rail are over it: the common case of a step (each sub-benchmark
// restores V before every Apply). Issue 14's target is a share of the
// step, so each Apply alternates with a step of the same curtain
// (collisions and limiter off, steps 41 on; the Input stays at step
// 40): step-ms and apply-ms are the medians of the two, share-% their
// ratio, all from one run, on the same cores at the same moments (ns/op
// is a step and an Apply together).
// Further metrics: strain before and after, passes, and triangles. The
// /recover cases set Input.Recover as the cloth does (0.15:
// cloth.StrainRecovery at Δt = 5 ms), for what relaxing costs.
func BenchmarkApply(b *testing.B) {
	for _, c := range []struct {
		name    string
		drag    float64
		held    bool
		limit   float64
		recover float64 // Input.Recover: the cloth's, StrainRecovery·Δt, or none
	}{{"curtain/hanging", 0, false, 0.1, 0}, {"curtain/hanging-limit-0.5%", 0, false, 0.005, 0}, {"curtain/corner-flung-0.2m", 0.2, false, 0.1, 0}, {"curtain/corner-held-0.03m", 0.03, true, 0.1, 0},
		{"curtain/hanging-limit-0.5%/recover", 0, false, 0.005, 0.15}, {"curtain/corner-held-0.03m/recover", 0.03, true, 0.1, 0.15}} {
		b.Run(c.name, func(b *testing.B) {
			in, dt, sim := curtainInput(b, 40, c.drag, c.held)
			in.Recover = c.recover
			v0 := append([]geom.Vec3(nil), in.V...)
			l := strainlimit.NewLimiter()
			p := onParams()
			p.MaxWeft, p.MaxWarp = c.limit, c.limit
			st, err := l.Apply(in, dt, p) // warm
			if err != nil {
				b.Fatal(err)
			}
			apply := make([]float64, b.N)
			step := make([]float64, b.N)
			b.ResetTimer() // no ReportAllocs: the step allocates; TestNoAllocs checks Apply
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := sim.Step(); err != nil {
					b.Fatal(err)
				}
				step[i] = float64(time.Since(t0).Microseconds()) / 1000
				copy(in.V, v0)
				t0 = time.Now()
				if st, err = l.Apply(in, dt, p); err != nil {
					b.Fatal(err)
				}
				apply[i] = float64(time.Since(t0).Microseconds()) / 1000
			}
			b.StopTimer()
			ma, ms := median(apply), median(step)
			b.ReportMetric(ma, "apply-ms")
			b.ReportMetric(ms, "step-ms")
			b.ReportMetric(100*ma/ms, "share-%")
			b.ReportMetric(st.MaxStrainBefore, "strain-before")
			b.ReportMetric(st.MaxStrainAfter, "strain-after")
			b.ReportMetric(float64(st.Passes), "passes")
			b.ReportMetric(float64(st.Elements), "elements")
			b.ReportMetric(float64(len(in.Tris)), "tris")
		})
	}
}

// median returns the median of s (reordering it).
func median(s []float64) float64 {
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// BenchmarkCurtainAtLimit runs the curtain (22140 triangles, no
// collisions) with strain limiting at 0.5 %, under its largest hanging
// strain (0.75 %), so that every step's solve stretches the faces along
// the rail over the limit again and the limiter works in every step: the
// running counterpart of BenchmarkApply's hanging-limit case. ns/op is
// the whole step; limit-ms the limiter's part of it, after 40 steps to
// settle.
func BenchmarkCurtainAtLimit(b *testing.B) {
	sc, err := scene.LoadScene(assets.Scenes, "curtain")
	if err != nil {
		b.Fatal(err)
	}
	sc.Contact.Enabled = false
	sc.Strain = onParams()
	sc.Strain.MaxWeft, sc.Strain.MaxWarp = 0.005, 0.005
	s, err := sc.Build()
	if err != nil {
		b.Fatal(err)
	}
	for k := 0; k < 40; k++ {
		if _, err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
	var limit float64
	passes := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := s.Step()
		if err != nil {
			b.Fatal(err)
		}
		limit += st.Limit.Seconds() * 1000
		passes += st.Strain.Passes
	}
	b.ReportMetric(limit/float64(b.N), "limit-ms")
	b.ReportMetric(float64(passes)/float64(b.N), "passes")
}
