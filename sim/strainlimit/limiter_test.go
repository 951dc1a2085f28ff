package strainlimit

import (
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

// stretchCases are randomly overstretched sheets: 30 % along the weft, 10 %
// along the warp and 2 mm of noise on 2.5 cm elements (max principal
// strain 0.78–12.5 on entry), regular and irregular, free and with the top
// row pinned at rest.
var stretchCases = []struct {
	name           string
	irregular, pin bool
}{
	{"regular", false, false},
	{"regular/pinned", false, true},
	{"irregular", true, false},
	{"irregular/pinned", true, true},
}

// TestLimitHolds: after Apply the largest principal strain of every face is
// at most ε_max(1+Tolerance) + Tolerance ≈ 0.1022 for the 10 % limit and
// Tolerance 0.002, when the passes suffice (at most 200 here; measured
// 9–11 free, 38–42 pinned).
func TestLimitHolds(t *testing.T) {
	for _, c := range stretchCases {
		t.Run(c.name, func(t *testing.T) {
			dt := 0.01
			in := sheet(t, 40, 30, c.irregular, geom.Vec3{X: 1.3, Y: 1.1, Z: 1}, 0.002, dt, 1)
			if c.pin {
				pinTop(in)
			}
			p := onParams()
			p.Passes = 200
			st, err := NewLimiter().Apply(in, dt, p)
			if err != nil {
				t.Fatal(err)
			}
			got := maxOf(PrincipalStrains(endPositions(in, dt), in.Rest, in.Tris, nil))
			want := 1.1*(1+p.Tolerance) - 1 + 1e-12
			t.Logf("strain %.4f → %.5f (ratio %.5f), %d passes, %d stitch iterations, %d constrained edges, %v", st.MaxStrainBefore, got, st.MaxRatioAfter, st.Passes, st.StitchIterations, st.Constrained, st.Time)
			if st.MaxStrainBefore < 0.5 {
				t.Fatalf("case not overstretched: %g", st.MaxStrainBefore)
			}
			if !(got <= want) || !(st.MaxRatioAfter <= 1+p.Tolerance) {
				t.Errorf("max principal strain after = %.6f (ratio %.6f), want ≤ %.6f", got, st.MaxRatioAfter, want)
			}
			if math.Abs(got-st.MaxStrainAfter) > 1e-9 {
				t.Errorf("Stats.MaxStrainAfter = %g, measured %g", st.MaxStrainAfter, got)
			}
		})
	}
}

// TestOrthotropicLimits: with different weft and warp limits the weft and
// warp fibre stretches end within their own limits.
func TestOrthotropicLimits(t *testing.T) {
	dt := 0.01
	in := sheet(t, 30, 20, true, geom.Vec3{X: 1.4, Y: 1.4, Z: 1}, 0.001, dt, 3)
	p := onParams()
	p.MaxWeft, p.MaxWarp, p.Passes = 0.05, 0.25, 200
	if _, err := NewLimiter().Apply(in, dt, p); err != nil {
		t.Fatal(err)
	}
	x := endPositions(in, dt)
	var weft, warp float64
	for _, tr := range in.Tris {
		g, _ := shapeGradients(in.Rest[tr[0]], in.Rest[tr[1]], in.Rest[tr[2]])
		xs := [3]geom.Vec3{x[tr[0]], x[tr[1]], x[tr[2]]}
		f1, f2 := deformation(&xs, &g)
		weft, warp = math.Max(weft, f1.Norm()-1), math.Max(warp, f2.Norm()-1)
	}
	t.Logf("weft %.4f (limit 0.05), warp %.4f (limit 0.25)", weft, warp)
	if weft > 1.05*(1+p.Tolerance)-1+1e-12 || warp > 1.25*(1+p.Tolerance)-1+1e-12 {
		t.Errorf("weft %g, warp %g over limits 0.05, 0.25", weft, warp)
	}
	if warp < 0.2 {
		t.Errorf("warp %g: the looser warp limit was not used", warp)
	}
}

// TestMomentum: with no pinned vertex, Apply keeps the linear momentum
// Σ m·V and the angular momentum Σ m·x^n × V (= Σ m·x^{n+1} × v^{n+½}) of
// the cloth to round-off: relative changes below 1e-12 (measured ~1e-15).
func TestMomentum(t *testing.T) {
	for _, c := range stretchCases {
		if c.pin {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			dt := 0.01
			in := sheet(t, 40, 30, c.irregular, geom.Vec3{X: 1.3, Y: 1.1, Z: 1}, 0.002, dt, 2)
			for i := range in.V { // spin and drift, so there is momentum to keep
				in.V[i] = in.V[i].Add(geom.Vec3{X: 0.3, Y: -1, Z: 2}).Add(geom.Vec3{Z: 1}.Cross(in.X0[i]).Scale(3))
			}
			p0, l0 := momenta(in)
			var scaleP, scaleL float64
			for i, w := range in.InvMass {
				scaleP += in.V[i].Norm() / w
				scaleL += in.X0[i].Norm() * in.V[i].Norm() / w
			}
			st, err := NewLimiter().Apply(in, dt, onParams())
			if err != nil {
				t.Fatal(err)
			}
			p1, l1 := momenta(in)
			dp, dl := p1.Sub(p0).Norm()/scaleP, l1.Sub(l0).Norm()/scaleL
			t.Logf("relative momentum change: linear %.2g, angular %.2g (strain %.3f → %.4f)", dp, dl, st.MaxStrainBefore, st.MaxStrainAfter)
			if dp > 1e-12 || dl > 1e-12 {
				t.Errorf("relative change of linear momentum %g, angular %g, want ≤ 1e-12", dp, dl)
			}
		})
	}
}

// TestOrderIndependent: permuting the face slots gives the same velocities
// bit for bit (the point of "unbiased", Tsiknis fig. 1.1).
func TestOrderIndependent(t *testing.T) {
	for _, c := range stretchCases {
		t.Run(c.name, func(t *testing.T) {
			dt := 0.01
			a := sheet(t, 30, 20, c.irregular, geom.Vec3{X: 1.3, Y: 1.1, Z: 1}, 0.002, dt, 4)
			if c.pin {
				pinTop(a)
			}
			b := clone(a)
			rng := rand.New(rand.NewPCG(9, 9))
			rng.Shuffle(len(b.Tris), func(i, j int) { b.Tris[i], b.Tris[j] = b.Tris[j], b.Tris[i] })
			b.Tris = append(b.Tris, [3]int32{-1, -1, -1}) // a free slot too
			if _, err := NewLimiter().Apply(a, dt, onParams()); err != nil {
				t.Fatal(err)
			}
			if _, err := NewLimiter().Apply(b, dt, onParams()); err != nil {
				t.Fatal(err)
			}
			diff := 0
			for i := range a.V {
				if a.V[i] != b.V[i] {
					diff++
				}
			}
			if diff != 0 {
				t.Errorf("%d of %d velocities differ after permuting the faces", diff, len(a.V))
			}
		})
	}
}

// TestSlackUntouched: a sheet under its limit (stretched 5 % with noise
// that keeps every face below 10 %) leaves V untouched bit for bit, and so
// does Enabled = false on an overstretched one.
func TestSlackUntouched(t *testing.T) {
	dt := 0.01
	in := sheet(t, 30, 20, true, geom.Vec3{X: 1.05, Y: 0.98, Z: 1}, 0.0002, dt, 5)
	pinTopMoving(in)
	ref := clone(in)
	st, err := NewLimiter().Apply(in, dt, onParams())
	if err != nil {
		t.Fatal(err)
	}
	if st.MaxStrainBefore < 0.03 || st.MaxStrainBefore > 0.1 {
		t.Fatalf("case strain %g, want in [0.03, 0.1]", st.MaxStrainBefore)
	}
	for i := range in.V {
		if in.V[i] != ref.V[i] {
			t.Fatalf("vertex %d: V = %v, want %v untouched", i, in.V[i], ref.V[i])
		}
	}
	over := sheet(t, 30, 20, true, geom.Vec3{X: 1.3, Y: 1, Z: 1}, 0.002, dt, 5)
	ref = clone(over)
	p := onParams()
	p.Enabled = false
	if _, err := NewLimiter().Apply(over, dt, p); err != nil {
		t.Fatal(err)
	}
	for i := range over.V {
		if over.V[i] != ref.V[i] {
			t.Fatalf("disabled: vertex %d changed", i)
		}
	}
}

// TestPinsHeld: pinned vertices keep their V exactly, and so their end
// positions.
func TestPinsHeld(t *testing.T) {
	dt := 0.02
	in := sheet(t, 30, 20, false, geom.Vec3{X: 1.3, Y: 1.2, Z: 1}, 0.002, dt, 6)
	pinTop(in)
	// a moving pin too: the bottom-left corner dragged down fast.
	in.InvMass[0], in.V[0] = 0, geom.Vec3{Y: -10}
	ref := clone(in)
	if _, err := NewLimiter().Apply(in, dt, onParams()); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for i, w := range in.InvMass {
		if w == 0 && in.V[i] != ref.V[i] {
			t.Errorf("pinned vertex %d: V = %v, want %v", i, in.V[i], ref.V[i])
		}
		if w > 0 && in.V[i] != ref.V[i] {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no free vertex moved")
	}
}

// TestLargeSteps: the result is finite and within the limit, and the
// kinetic energy does not grow, for time steps from 5 ms to 1 s (the
// input stretch is the same; only V = (x* − x^n)/Δt scales).
func TestLargeSteps(t *testing.T) {
	for _, dt := range []float64{0.005, 0.02, 0.04, 0.2, 1} {
		in := sheet(t, 30, 20, true, geom.Vec3{X: 1.5, Y: 1.2, Z: 1.5}, 0.003, dt, 7)
		pinTop(in)
		ke := func() (e float64) {
			for i, w := range in.InvMass {
				if w > 0 {
					e += 0.5 * in.V[i].Dot(in.V[i]) / w
				}
			}
			return e
		}
		k0 := ke()
		p := onParams()
		p.Passes = 200
		st, err := NewLimiter().Apply(in, dt, p)
		if err != nil {
			t.Fatal(err)
		}
		k1 := ke()
		for i := range in.V {
			if !in.V[i].IsFinite() {
				t.Fatalf("dt %g: non-finite V", dt)
			}
		}
		t.Logf("dt %g: strain %.3f → %.5f, kinetic energy %.3g → %.3g J", dt, st.MaxStrainBefore, st.MaxStrainAfter, k0, k1)
		if st.MaxRatioAfter > 1+p.Tolerance || k1 > k0 {
			t.Errorf("dt %g: ratio %g, kinetic energy %g → %g", dt, st.MaxRatioAfter, k0, k1)
		}
	}
}

// TestNoAllocs: a warm Limiter on an unchanged mesh does not allocate.
func TestNoAllocs(t *testing.T) {
	dt := 0.01
	in := sheet(t, 20, 15, true, geom.Vec3{X: 1.3, Y: 1.1, Z: 1}, 0.002, dt, 8)
	pinTop(in)
	v0 := append([]geom.Vec3(nil), in.V...)
	l := NewLimiter()
	p := onParams()
	p.Passes = 3
	if _, err := l.Apply(in, dt, p); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(5, func() {
		copy(in.V, v0)
		if _, err := l.Apply(in, dt, p); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Apply, want 0", allocs)
	}
}

// TestBadInput: invalid input or parameters give an error and leave V as
// it was.
func TestBadInput(t *testing.T) {
	dt := 0.01
	base := sheet(t, 4, 3, false, geom.Vec3{X: 1.3, Y: 1.1, Z: 1}, 0.002, dt, 9)
	bad := onParams()
	bad.MaxWeft = -1
	cases := []struct {
		name string
		mod  func(in *Input) (float64, Params)
	}{
		{"dt", func(in *Input) (float64, Params) { return 0, onParams() }},
		{"params", func(in *Input) (float64, Params) { return dt, bad }},
		{"lengths", func(in *Input) (float64, Params) { in.InvMass = in.InvMass[1:]; return dt, onParams() }},
		{"index", func(in *Input) (float64, Params) { in.Tris[3][1] = 999; return dt, onParams() }},
		{"repeat", func(in *Input) (float64, Params) { in.Tris[3][1] = in.Tris[3][0]; return dt, onParams() }},
		{"mass", func(in *Input) (float64, Params) { in.InvMass[2] = math.NaN(); return dt, onParams() }},
		{"velocity", func(in *Input) (float64, Params) { in.V[2].X = math.Inf(1); return dt, onParams() }},
		{"edge of three faces", func(in *Input) (float64, Params) {
			// Two faces more on face 0's edge (t0, t1): three or four.
			t := in.Tris[0]
			for k := 1; k <= 2; k++ {
				v := int32(len(in.X0))
				in.X0 = append(in.X0, in.X0[t[2]].Add(geom.Vec3{Z: 0.01 * float64(k)}))
				in.V = append(in.V, geom.Vec3{})
				in.InvMass = append(in.InvMass, in.InvMass[t[2]])
				in.Rest = append(in.Rest, in.Rest[t[2]].Add(geom.Vec2{X: 0.003 * float64(k), Y: 0.002}))
				in.Tris = append(in.Tris, [3]int32{t[0], t[1], v})
			}
			return dt, onParams()
		}},
		{"rest", func(in *Input) (float64, Params) {
			t := in.Tris[0]
			in.Rest[t[1]], in.Rest[t[2]] = in.Rest[t[0]], in.Rest[t[0]]
			return dt, onParams()
		}},
	}
	for _, c := range cases {
		in := clone(base)
		d, p := c.mod(in)
		ref := append([]geom.Vec3(nil), in.V...)
		l := NewLimiter()
		_, err := l.Apply(in, d, p)
		if err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if _, err := l.Apply(in, d, p); err == nil { // the same limiter finds it again
			t.Errorf("%s: no error on the second call", c.name)
		}
		for i := range in.V {
			if in.V[i] != ref[i] && !(math.IsInf(ref[i].X, 0)) {
				t.Errorf("%s: V changed", c.name)
				break
			}
		}
	}
	if _, err := NewLimiter().Apply(nil, dt, onParams()); err == nil {
		t.Error("nil input: no error")
	}
}

// TestRecoverBoundsTheCall: a sheet at rest whose x^n has one vertex
// pulled 12 cm out of it (its faces at up to 162 % strain, as the
// collisions' continuous stage can leave a heap of cloth) and one corner
// at 15 %, which V stretches 15 % more. With Input.Recover the pulled
// faces come in by Recover and no more, so that the vertex moves at about
// Recover·L/Δt (measured 1.7 m/s), while the faces over by less than
// Recover, and those within the limit at x^n, are held to Params' limit
// as without it. Without Recover the pulled vertex snaps back at
// 13.8 m/s.
func TestRecoverBoundsTheCall(t *testing.T) {
	const dt, recover = 0.005, 0.25
	in := sheet(t, 20, 16, false, geom.Vec3{X: 1, Y: 1, Z: 1}, 0, dt, 1)
	clear(in.V)
	pulled := int32(8*21 + 10)
	in.X0[pulled].Z += 0.12
	for i, x := range in.X0 { // the corner x, y < 0.2 m stretched 15 % along x at x^n, and 15 % more by V
		if x.X < 0.2 && x.Y < 0.2 {
			in.X0[i].X *= 1.15
			in.V[i].X = 0.15 * x.X / dt
		}
	}
	e0 := PrincipalStrains(in.X0, in.Rest, in.Tris, nil)
	p := onParams()
	p.Passes = 200
	speed := func(in *Input) float64 { return in.V[pulled].Norm() }

	plain := clone(in)
	if _, err := NewLimiter().Apply(plain, dt, p); err != nil {
		t.Fatal(err)
	}
	got := clone(in)
	got.Recover = recover
	st, err := NewLimiter().Apply(got, dt, p)
	if err != nil {
		t.Fatal(err)
	}
	e1 := PrincipalStrains(endPositions(got, dt), got.Rest, got.Tris, nil)
	tol := func(lim float64) float64 { return (1+lim)*(1+p.Tolerance) - 1 + 1e-9 }
	var most0, most1 float64
	for f := range e1 {
		lim := max(p.MaxWeft, e0[f]-recover)
		if e1[f] > tol(lim) {
			t.Errorf("face %d: strain %.4f → %.4f, over its limit %.4f", f, e0[f], e1[f], lim)
		}
		if e0[f] > p.MaxWeft+recover && e1[f] < e0[f]-recover-0.02 {
			t.Errorf("face %d: strain %.4f → %.4f, taken in by more than Recover %g", f, e0[f], e1[f], recover)
		}
		most0, most1 = max(most0, e0[f]), max(most1, e1[f])
	}
	h := 1.0 / 20
	t.Logf("strain at x^n %.3f → %.3f (%d passes); the pulled vertex's speed %.2f m/s (plain: %.2f; Recover·L/Δt = %.2f)", most0, most1, st.Passes, speed(got), speed(plain), recover*h/dt)
	if most0 < 1.2 {
		t.Fatalf("the case is not overstretched: %.3f", most0)
	}
	if speed(got) > 2*recover*h/dt || speed(plain) < 5*speed(got) {
		t.Errorf("pulled vertex at %.2f m/s with Recover, %.2f without: want at most %.2f, and a fifth of the plain one", speed(got), speed(plain), 2*recover*h/dt)
	}
}

// TestRefStandsInForX0: a sheet at rest at x^n whose corner V stretches
// 40 % along x, with Ref holding that corner stretched 25 % (where the
// cloth's solve left it before CCD's responses stretched it further).
// With Ref and a Recover of almost nothing, no face ends past its strain
// at Ref (or Params' limit, if larger), and the corner stays stretched:
// CCD's stretch is taken out and the solve's is kept. Without Ref the
// same call pulls every face in to Params' 10 %, the limit of a face
// within it at x^n.
func TestRefStandsInForX0(t *testing.T) {
	const dt, recover = 0.005, 1e-9
	in := sheet(t, 20, 16, false, geom.Vec3{X: 1, Y: 1, Z: 1}, 0, dt, 1)
	clear(in.V)
	ref := append([]geom.Vec3(nil), in.X0...)
	for i, x := range in.X0 {
		if x.X < 0.3 && x.Y < 0.3 {
			in.V[i].X = 0.4 * x.X / dt
			ref[i].X *= 1.25
		}
	}
	eRef := PrincipalStrains(ref, in.Rest, in.Tris, nil)
	p := onParams()
	p.Passes = 200
	run := func(ref []geom.Vec3) []float64 {
		got := clone(in)
		got.Recover, got.Ref = recover, ref
		if _, err := NewLimiter().Apply(got, dt, p); err != nil {
			t.Fatal(err)
		}
		return PrincipalStrains(endPositions(got, dt), got.Rest, got.Tris, nil)
	}
	held, pulled := run(ref), run(nil)
	tol := func(lim float64) float64 { return (1+lim)*(1+p.Tolerance) - 1 + 1e-9 }
	var most, mostPulled float64
	for f := range held {
		if lim := max(p.MaxWeft, eRef[f]); held[f] > tol(lim) {
			t.Errorf("face %d: strain %.4f with Ref, over its strain at Ref %.4f", f, held[f], lim)
		}
		if pulled[f] > tol(p.MaxWeft) {
			t.Errorf("face %d: strain %.4f without Ref, over Params' %g", f, pulled[f], p.MaxWeft)
		}
		most, mostPulled = max(most, held[f]), max(mostPulled, pulled[f])
	}
	t.Logf("largest strain: at Ref %.3f, with Ref %.3f, without %.3f", maxOf(eRef), most, mostPulled)
	if most < 0.2 {
		t.Errorf("with Ref the corner came in to %.3f: Ref's strain (%.3f) was not its limit", most, maxOf(eRef))
	}
	short := clone(in)
	short.Ref = ref[:len(ref)-1]
	if _, err := NewLimiter().Apply(short, dt, p); err == nil {
		t.Error("a Ref of the wrong length: no error")
	}
}
