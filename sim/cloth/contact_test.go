package cloth_test

import (
	"math"
	"testing"

	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/internal/simtest"
	"drape/sim/obstacle"
)

// groundSheet returns a w × w sheet of n × n quads lying flat at height y
// above a ground plane with friction mu, tilted by theta about X (the
// ground tilted with it), with collisions on.
func groundSheet(t *testing.T, w float64, n int, y, theta, mu float64) *cloth.Sim {
	t.Helper()
	m, err := geom.RegularGrid(w, w, n, n)
	if err != nil {
		t.Fatal(err)
	}
	sin, cos := math.Sincos(theta)
	for i, r := range m.Rest {
		p := geom.Vec3{X: r.X - w/2, Y: y, Z: w/2 - r.Y}
		m.Pos[i] = geom.Vec3{X: p.X, Y: cos*p.Y - sin*p.Z, Z: sin*p.Y + cos*p.Z}
	}
	p := cloth.DefaultParams()
	s, err := cloth.New(m, p)
	if err != nil {
		t.Fatal(err)
	}
	spec := obstacle.Spec{Kind: "plane", Angle: theta * 180 / math.Pi, Axis: &[3]float64{1, 0, 0}, Friction: &mu}
	o, err := spec.Build("")
	if err != nil {
		t.Fatal(err)
	}
	s.SetObstacles([]*obstacle.Obstacle{o})
	cp := s.ContactParams()
	cp.Enabled = true
	cp.SelfCollision = false
	cp.Thickness, cp.Friction, cp.CCDIterations = 0.003, 0.3, 5
	if err := s.SetContactParams(cp); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRestingContact (Bender & Deul §6 with Baraff & Witkin's filter): a
// sheet dropped flat onto the ground comes to rest, the ground carries its
// weight (the normal impulses per second match m·g within 2 %), and it
// does not jitter.
func TestRestingContact(t *testing.T) {
	s := groundSheet(t, 0.5, 16, 0.02, 0, 0.5)
	dt := s.Params().Dt
	weight := s.TotalMass() * 9.81
	steps := int(math.Round(2 / dt))
	last := int(math.Round(1 / dt))
	var impulse float64
	start := make([]geom.Vec3, len(s.Mesh.Pos))
	for i := 1; i <= steps; i++ {
		if _, err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if i == steps-last {
			copy(start, s.Mesh.Pos)
		}
		if i > steps-last {
			impulse += s.RestingImpulse()
			for _, c := range s.LastContacts() {
				impulse += c.Impulse
			}
		}
	}
	ke := s.KineticEnergy()
	var drift float64
	for i, p := range s.Mesh.Pos {
		drift = math.Max(drift, p.Sub(start[i]).Norm())
	}
	force := impulse / (float64(last) * dt)
	t.Logf("after 2 s: kinetic energy %.3g J, normal force %.5g N for a weight of %.5g N (%.2f %%), largest drift over the last second %.3g mm",
		ke, force, weight, 100*(force/weight-1), 1000*drift)
	if ke > 1e-7 {
		t.Errorf("kinetic energy %.3g J after 2 s, want ≤ 1e-7 J (at rest)", ke)
	}
	if math.Abs(force/weight-1) > 0.02 {
		t.Errorf("ground force %.5g N, want the weight %.5g N within 2 %%", force, weight)
	}
	if drift > 1e-4 {
		t.Errorf("a vertex moved %.3g mm over the last second, want ≤ 0.1 mm (no jitter)", 1000*drift)
	}
	for i, p := range s.Mesh.Pos {
		if p.Y < 0 {
			t.Fatalf("vertex %d below the ground: y = %g", i, p.Y)
		}
	}
}

// TestFrictionIncline: a sheet lying on a plane inclined at θ stays put
// when μ > tan θ and slides with acceleration g·(sin θ − μ·cos θ) within 5 %
// when μ < tan θ (Coulomb friction through the resting-contact constraint
// impulse).
func TestFrictionIncline(t *testing.T) {
	theta := 20 * math.Pi / 180
	for _, c := range []struct {
		mu    float64
		stick bool
	}{{0.5, true}, {0.2, false}, {0.1, false}} {
		s := groundSheet(t, 0.3, 10, 0.01, theta, c.mu)
		// Settle onto the plane, then measure the mean velocity along the slope.
		down := geom.Vec3{Y: -math.Sin(theta), Z: math.Cos(theta)} // down the slope: −Y projected onto the plane
		mean := func() float64 {
			var v float64
			for i := range s.Mesh.Vel {
				v += s.Mesh.Vel[i].Dot(down)
			}
			return v / float64(len(s.Mesh.Vel))
		}
		for i := 0; i < 40; i++ {
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		v0, t0 := mean(), s.Time
		for i := 0; i < 100; i++ {
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		a := (mean() - v0) / (s.Time - t0)
		want := 9.81 * (math.Sin(theta) - c.mu*math.Cos(theta))
		t.Logf("μ = %.2f: acceleration along the slope %.4f m/s², analytic %.4f", c.mu, a, math.Max(want, 0))
		if c.stick {
			if math.Abs(mean()) > 1e-3 {
				t.Errorf("μ = %.2f > tan θ: the sheet slides at %.4g m/s", c.mu, mean())
			}
			continue
		}
		if math.Abs(a/want-1) > 0.05 {
			t.Errorf("μ = %.2f: acceleration %.4f m/s², want %.4f within 5 %%", c.mu, a, want)
		}
	}
}

// stackedSheets returns two 0.3 m sheets of 12 × 12 quads, stacked gap
// apart, the top one offset sideways and turned, without gravity or
// damping, with self-collision on (h = 3 mm), and the solve run to
// tolerance tol.
func stackedSheets(t *testing.T, gap, tol float64) (*cloth.Sim, contact.Params) {
	t.Helper()
	const n, w = 12, 0.3
	a, err := geom.RegularGrid(w, w, n, n)
	if err != nil {
		t.Fatal(err)
	}
	var pos []geom.Vec3
	var rest []geom.Vec2
	var tris [][3]int32
	for sheet := 0; sheet < 2; sheet++ {
		base := int32(len(pos))
		sin, cos := math.Sincos(0.3 * float64(sheet))
		for _, r := range a.Rest {
			x, z := r.X-w/2, r.Y-w/2
			x, z = cos*x-sin*z+0.05*float64(sheet), sin*x+cos*z
			pos = append(pos, geom.Vec3{X: x, Y: gap * float64(sheet), Z: z})
			rest = append(rest, r)
		}
		for _, tr := range a.Tris {
			tris = append(tris, [3]int32{tr[0] + base, tr[1] + base, tr[2] + base})
		}
	}
	m, err := geom.NewMesh(pos, rest, tris)
	if err != nil {
		t.Fatal(err)
	}
	p := cloth.DefaultParams()
	p.Gravity, p.DampMass, p.DampStiff = geom.Vec3{}, 0, 0
	p.Tolerance, p.MaxIter = tol, 10000
	s, err := cloth.New(m, p)
	if err != nil {
		t.Fatal(err)
	}
	cp := contact.DefaultParams()
	cp.Enabled, cp.SelfCollision, cp.Thickness = true, true, 0.003
	if err := s.SetContactParams(cp); err != nil {
		t.Fatal(err)
	}
	return s, cp
}

// TestRepulsionSpringsMomentum: two 0.3 m sheets stacked 1 mm apart (inside
// the 3 mm thickness), the top one offset sideways and turned, without
// gravity or damping, with self-collision on. The repulsion springs in the
// solve (repulsion.go) and the collision phase push the sheets apart; the
// total linear momentum must stay zero (every force acts in equal and
// opposite pairs; the solve runs to a residual of 1e-10, which bounds the
// error) and the sheets must part. They part fast, 57 mm in 0.5 s: the 2 mm
// overlap of every pair is a spring of the membrane's stiffness
// (1000 N/m) released. With only the springs' diagonal blocks in the
// matrix the momentum is not conserved (each point answers its spring as
// if its partner stood still, and the partners differ in mass).
func TestRepulsionSpringsMomentum(t *testing.T) {
	simtest.SkipUnderRace(t)
	// The solve's residual bounds the momentum's error.
	s, cp := stackedSheets(t, 0.001, 1e-10)
	momentum := func() geom.Vec3 {
		var q geom.Vec3
		for i, v := range s.Mesh.Vel {
			q = q.Add(v.Scale(s.Mass(i)))
		}
		return q
	}
	var scale, worst float64 // Σ m|v|: the momentum the motion carries
	for i := 1; i <= 100; i++ {
		st, err := s.Step()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if i == 2 && st.Springs == 0 {
			t.Fatalf("step 2: no repulsion spring in the solve of sheets 1 mm apart (h = 3 mm)")
		}
		scale = 0
		for j, v := range s.Mesh.Vel {
			scale += s.Mass(j) * v.Norm()
		}
		if r := momentum().Norm() / scale; r > worst {
			worst = r
		}
	}
	var lo, hi float64 = math.Inf(1), math.Inf(-1)
	half := len(s.Mesh.Pos) / 2
	for i, x := range s.Mesh.Pos {
		if i < half {
			hi = max(hi, x.Y)
		} else {
			lo = min(lo, x.Y)
		}
	}
	t.Logf("after 0.5 s: the sheets' gap %.2f mm (h = 3 mm), kinetic energy %.3g J, Σm|v| %.3g N·s; largest |Σmv|/Σm|v| %.3g", 1000*(lo-hi), s.KineticEnergy(), scale, worst)
	if worst > 1e-4 {
		t.Errorf("total momentum reached %.3g of Σm|v|, want zero (≤ 1e-4: the PCG products run in float32)", worst)
	}
	if !(lo-hi > 0.5*cp.Thickness) {
		t.Errorf("gap between the sheets %.2f mm, want more than h/2 (h = 3 mm)", 1000*(lo-hi))
	}
}

// TestStaleRepulsionPairs: pairs found while collisions were on are not
// used after a step without a collision phase. Two sheets stacked 1 mm
// apart take a step with collisions (their pairs within h are kept),
// collisions go off, the top sheet is moved 5 cm through the bottom one,
// and collisions come back on: the next step must not push the sheets
// back along the old pairs' normals (a spring of 1000 N/m stretched 5 cm
// flung the sheets apart at 8.1 m/s before the check).
func TestStaleRepulsionPairs(t *testing.T) {
	s, cp := stackedSheets(t, 0.001, 1e-3)
	if _, err := s.Step(); err != nil {
		t.Fatal(err)
	}
	off := cp
	off.Enabled = false
	if err := s.SetContactParams(off); err != nil {
		t.Fatal(err)
	}
	half := len(s.Mesh.Pos) / 2
	for i := half; i < len(s.Mesh.Pos); i++ {
		s.Mesh.Pos[i].Y -= 0.05
	}
	for i := range s.Mesh.Vel {
		s.Mesh.Vel[i] = geom.Vec3{}
	}
	if st, err := s.Step(); err != nil || st.Springs != 0 {
		t.Fatalf("step without collisions: %d springs, error %v; want none", st.Springs, err)
	}
	if err := s.SetContactParams(cp); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Step(); err != nil || st.Springs != 0 {
		t.Fatalf("first step with collisions again: %d springs, error %v; want none (the pairs are stale)", st.Springs, err)
	}
	if v := s.MaxSpeed(); v > 0.5 {
		t.Errorf("largest speed %.3g m/s after collisions came back on, want < 0.5 m/s (no spring from the old pairs)", v)
	}
}
