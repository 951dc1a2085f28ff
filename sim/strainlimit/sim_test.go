package strainlimit

import (
	"errors"
	"math"
	"testing"

	"drape/assets"
	"drape/sim/geom"
	"drape/sim/scene"
)

// TestActiveSetExact: the stitching restricted to the vertices within
// Iterations rings of the responded faces gives the same velocities, bit
// for bit, as the stitching over the whole mesh.
func TestActiveSetExact(t *testing.T) {
	dt := 0.01
	in := sheet(t, 30, 20, true, geom.Vec3{X: 1, Y: 1, Z: 1}, 0, dt, 21)
	pinTop(in)
	in.V[5] = geom.Vec3{X: -2, Y: -3, Z: 1} // one vertex flung 3.7 cm
	full := clone(in)
	st, err := NewLimiter().Apply(in, dt, onParams())
	if err != nil {
		t.Fatal(err)
	}
	stitchEverywhere = true
	defer func() { stitchEverywhere = false }()
	if _, err := NewLimiter().Apply(full, dt, onParams()); err != nil {
		t.Fatal(err)
	}
	if st.Passes == 0 {
		t.Fatal("no stitching pass")
	}
	for i := range in.V {
		if in.V[i] != full.V[i] {
			t.Fatalf("vertex %d: restricted %v, full %v", i, in.V[i], full.V[i])
		}
	}
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
	s, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	m := s.Mesh
	n := len(m.Pos)
	in := &Input{X0: make([]geom.Vec3, n), InvMass: make([]float64, n), Rest: m.Rest, Tris: m.Tris, V: m.Vel}
	l := NewLimiter()
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
		strains = PrincipalStrains(m.Pos, m.Rest, m.Tris, strains)
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
	in := &Input{X0: m.Pos, V: m.Vel, InvMass: make([]float64, len(m.Pos)), Rest: m.Rest, Tris: m.Tris}
	for i := range in.InvMass {
		in.InvMass[i] = 1 / s.Mass(i)
	}
	for _, pn := range s.Pins() {
		in.InvMass[pn.Vertex] = 0
	}
	strain := maxOf(PrincipalStrains(m.Pos, m.Rest, m.Tris, nil))
	p := onParams()
	p.MaxWeft, p.MaxWarp = 0.6*strain, 0.6*strain
	st, err := NewLimiter().Apply(in, s.Params().Dt, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("strain %.5f, limit %.5f: %d faces over, %d passes, ratio after %.6f", strain, p.MaxWeft, st.Elements, st.Passes, st.MaxRatioAfter)
	// Measured: 4 passes; 21 with unweighted stitching (stitchWeight 1).
	if st.Elements < 10 || st.MaxRatioAfter > 1+p.Tolerance || st.Passes > 10 {
		t.Errorf("%d faces over; ratio after %d passes %.6f, want ≤ %g within 10 passes", st.Elements, st.Passes, st.MaxRatioAfter, 1+p.Tolerance)
	}
}
