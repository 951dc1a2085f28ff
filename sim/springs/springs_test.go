package springs

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"drape/sim/geom"
)

// quiet returns parameters with no gravity, damping, drag or correction.
func quiet() Params {
	p := DefaultParams()
	p.Gravity = geom.Vec3{}
	p.Damping = 0
	p.Correction = 0
	p.MaxLayer = 4
	return p
}

// flatSheet returns a horizontal side×side sheet of n×n base particles with
// no fixed particles.
func flatSheet(n int, side float64) Spec {
	return Spec{Name: "flat", NX: n, NY: n, U: geom.Vec3{X: side}, V: geom.Vec3{Z: side}}
}

// tjunctions subdivides a few particles of c so that the grid holds three
// layers and interpolated particles (T-junctions).
func tjunctions(t *testing.T, c *Cloth) {
	t.Helper()
	for _, id := range []int{12, 13, 30} {
		if !c.Subdivide(id) {
			t.Fatalf("Subdivide(%d) refused", id)
		}
	}
	// subdivide a layer-1 particle once more
	for id := range c.pos {
		if c.layer[id] == 1 && c.typ[id] == Active && c.Subdivide(id) {
			break
		}
	}
	n := c.Counts()
	if n.Interpolated == 0 || n.Depth != 2 {
		t.Fatalf("setup: %+v, want interpolated particles and depth 2", n)
	}
}

func perturb(c *Cloth, rng *rand.Rand, amp float64) {
	for id := range c.pos {
		c.pos[id] = c.pos[id].Add(geom.Vec3{X: amp * rng.NormFloat64(), Y: amp * rng.NormFloat64(), Z: amp * rng.NormFloat64()})
		c.vel[id] = geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}
	}
	c.interpolate()
}

// TestSpringForcesSumToZero: the internal spring forces of a subdivided grid
// with three layers and T-junctions, at a random configuration, sum to zero
// over the mass particles (Newton's third law across layers, §3.2).
func TestSpringForcesSumToZero(t *testing.T) {
	c, err := New(flatSheet(7, 1), quiet())
	if err != nil {
		t.Fatal(err)
	}
	tjunctions(t, c)
	perturb(c, rand.New(rand.NewSource(1)), 0.02)
	var scale float64
	imp := make([]geom.Vec3, len(c.pos))
	for l := range c.spr {
		springImpulses(&c.spr[l], c.pos, imp, 1)
	}
	pushImpulses(imp, c.interp, c.par)
	var sum geom.Vec3
	for id, j := range imp {
		if c.typ[id] == Interpolated && j != (geom.Vec3{}) {
			t.Fatalf("interpolated particle %d kept an impulse %v", id, j)
		}
		sum = sum.Add(j)
		scale = max(scale, j.Norm())
	}
	if scale == 0 {
		t.Fatal("no spring force at all")
	}
	if sum.Norm() > 1e-13*scale*float64(len(c.pos)) {
		t.Errorf("Σ spring forces = %v, want 0 (largest force %g N)", sum, scale)
	}
}

// TestMomentumConserved: with no external force and no Provot correction,
// the multirate step conserves the total momentum of a subdivided cloth
// with random velocities to round-off, because every spring impulse reaches
// both ends within their own substeps.
func TestMomentumConserved(t *testing.T) {
	c, err := New(flatSheet(7, 1), quiet())
	if err != nil {
		t.Fatal(err)
	}
	tjunctions(t, c)
	perturb(c, rand.New(rand.NewSource(2)), 0.01)
	q0 := c.Momentum()
	for range 200 {
		if err := c.Step(); err != nil {
			t.Fatal(err)
		}
	}
	m, _ := c.Mass()
	if d := c.Momentum().Sub(q0).Norm(); d > 1e-12*m {
		t.Errorf("momentum changed by %g kg·m/s, want < %g", d, 1e-12*m)
	}
}

// TestFreeFall: a subdivided sheet with its springs off (layers fall at
// slightly different rates, ½g·Δ_l·t apart, so springs would be stretched)
// falls under gravity and each
// layer-l particle advances exactly once per substep Δ_l = Δt/2^l, so after N
// steps v = g·t and the drop is g·Δ_l²·n(n+1)/2 with n = N·2^l (symplectic
// Euler), which is ½g·t² + ½g·Δ_l·t.
func TestFreeFall(t *testing.T) {
	p := quiet()
	p.Gravity = geom.Vec3{Y: -9.81}
	p.KStructural, p.KShear, p.KBend = 0, 0, 0
	c, err := New(flatSheet(7, 1), p)
	if err != nil {
		t.Fatal(err)
	}
	tjunctions(t, c)
	y0 := make([]float64, len(c.pos))
	for id := range c.pos {
		y0[id] = c.pos[id].Y
	}
	const N = 100
	for range N {
		if err := c.Step(); err != nil {
			t.Fatal(err)
		}
	}
	tt := N * p.Dt
	seen := map[int]bool{}
	for id := range c.pos {
		if c.typ[id] != Active {
			continue
		}
		l := int(c.sched[id])
		seen[l] = true
		dl := p.Dt / math.Exp2(float64(l))
		n := float64(N) * math.Exp2(float64(l))
		want := -9.81 * dl * dl * n * (n + 1) / 2
		if got := c.pos[id].Y - y0[id]; math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Fatalf("particle %d layer %d dropped %.15g m, want %.15g (½gt² = %.6g)", id, l, got, want, 9.81*tt*tt/2)
		}
		if got := c.vel[id].Y; math.Abs(got+9.81*tt) > 1e-9 {
			t.Fatalf("particle %d layer %d: v = %.15g, want %.15g", id, l, got, -9.81*tt)
		}
	}
	if len(seen) != 3 {
		t.Errorf("layers seen %v, want 0, 1, 2", seen)
	}
}

// TestSpringPeriod: one free particle of mass m on a single structural spring
// of stiffness k to a fixed particle (the other springs off) oscillates along
// the spring with period 2π·√(m/k); symplectic Euler's period error is
// O((ωΔt)²), under 0.1 % here.
func TestSpringPeriod(t *testing.T) {
	for _, tc := range []struct {
		k     float64
		layer int // subdivide everything first: stiffness ×2^l, masses /4^l
	}{{50, 0}, {200, 0}, {50, 1}} {
		p := quiet()
		p.KStructural, p.KShear, p.KBend = tc.k, 0, 0
		p.Dt = 1e-4
		s := Spec{NX: 2, NY: 2, U: geom.Vec3{X: 1}, V: geom.Vec3{Z: 1}, Fixed: [][2]int{{0, 0}, {0, 1}, {1, 1}}}
		c, err := New(s, p)
		if err != nil {
			t.Fatal(err)
		}
		// The free particle is base (1, 0), ID 1. With layer 1 the springs
		// form a chain; measure on the coarse particle, moving along x with
		// the chain (0,0)–(½,0)–(1,0) of two 2k springs, and (1,½) pinned by
		// making the subdivided grid's other particles fixed.
		c.SubdivideUniform(tc.layer)
		if tc.layer > 0 {
			for id := range c.pos {
				if id != 1 && c.typ[id] == Active {
					c.typ[id] = Fixed
					c.target[id] = c.pos[id]
				}
			}
			c.rebuild()
		}
		m := c.mass[1]
		kEff := tc.k * math.Exp2(float64(tc.layer)) // spring to (½, 0) or to (0, 0)
		want := 2 * math.Pi * math.Sqrt(m/kEff)
		c.pos[1] = c.pos[1].Add(geom.Vec3{X: 1e-3})
		x0 := c.rest[1].X
		var cross []float64
		prev := c.pos[1].X - x0
		for c.t < 4*want {
			if err := c.Step(); err != nil {
				t.Fatal(err)
			}
			cur := c.pos[1].X - x0
			if prev > 0 && cur <= 0 {
				cross = append(cross, c.t-p.Dt*cur/(cur-prev))
			}
			prev = cur
		}
		if len(cross) < 3 {
			t.Fatalf("k=%g: %d down-crossings", tc.k, len(cross))
		}
		got := (cross[len(cross)-1] - cross[0]) / float64(len(cross)-1)
		if math.Abs(got-want) > 1e-3*want {
			t.Errorf("k=%g layer %d: period %.6g s, want 2π√(m/k) = %.6g s", tc.k, tc.layer, got, want)
		}
	}
}

// maxStrain returns the largest |x_b−x_a|/r over structural and shear springs.
func maxStrain(c *Cloth) float64 {
	var worst float64
	for _, s := range c.spr {
		for n, a := range s.a {
			if s.kind[n] != bend {
				worst = max(worst, c.pos[s.b[n]].Sub(c.pos[a]).Norm()/s.rest[n])
			}
		}
	}
	return worst
}

// TestProvotBoundsElongation: a soft sheet hanging from two corners stretches
// far beyond 10 % without the correction and stays near (1+τ) with it (one
// Gauss–Seidel pass per substep leaves a small excess where springs share
// particles).
func TestProvotBoundsElongation(t *testing.T) {
	for _, tau := range []float64{0, 0.1} {
		p := DefaultParams()
		p.KStructural, p.KShear, p.KBend = 2, 0.5, 0.1
		p.Correction = tau
		s, _ := Scene("sheet")
		c, err := New(s, p)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for range 2000 {
			if err := c.Step(); err != nil {
				t.Fatal(err)
			}
			worst = max(worst, maxStrain(c))
		}
		t.Logf("τ = %g: largest strain %.4f", tau, worst)
		if tau == 0 && worst < 1.3 {
			t.Errorf("without correction the strain reached only %.3f; the test needs a softer sheet", worst)
		}
		if tau > 0 && worst > 1+1.5*tau {
			t.Errorf("τ = %g: strain reached %.4f, want ≤ %.3f", tau, worst, 1+1.5*tau)
		}
	}
}

// TestCriteriaFlat: neither criterion fires on a flat sheet at rest, in any
// orientation, with the default parameters.
func TestCriteriaFlat(t *testing.T) {
	for _, s := range []Spec{flatSheet(9, 1), {NX: 9, NY: 9, U: geom.Vec3{X: 1}, V: geom.Vec3{Y: -1}}, {NX: 9, NY: 9, U: geom.Vec3{X: 0.6, Y: 0.8}, V: geom.Vec3{Z: 1}}} {
		c, err := New(s, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		if n := c.refine(); n != 0 {
			t.Errorf("U=%v V=%v: %d subdivisions on a flat sheet, want 0", s.U, s.V, n)
		}
	}
}

// TestAngleCriterionFold: a sheet folded by 40° (threshold 30°) along the
// column i = 4 is
// subdivided at the particles of the crease, and only there (the angle
// criterion, §4.2).
func TestAngleCriterionFold(t *testing.T) {
	p := DefaultParams()
	p.Hanging = 0
	c, err := New(flatSheet(9, 1), p)
	if err != nil {
		t.Fatal(err)
	}
	fold := 40 * math.Pi / 180
	for id := range c.pos {
		x := c.pos[id]
		if x.X > 0.5 {
			r := x.X - 0.5
			c.pos[id] = geom.Vec3{X: 0.5 + r*math.Cos(fold), Y: r * math.Sin(fold), Z: x.Z}
		}
	}
	if n := c.refine(); n != 9 {
		t.Errorf("%d subdivisions, want 9 (the crease column)", n)
	}
	for id := range c.pos {
		if c.layer[id] > 0 && c.typ[id] != Interpolated && c.split[id] > 0 && c.gi[id] != 4*2 {
			t.Errorf("particle %d at slot (%d, %d) subdivided off the crease", id, c.gi[id], c.gj[id])
		}
	}
}

// TestHangingCriterion: in the 2×2 "small" scene, whose fixed edge is held
// closer than its rest length, only the hanging-spring criterion can fire
// (no particle has two neighbours along an axis), and it does, at the two
// fixed particles; with h = 0 nothing fires.
func TestHangingCriterion(t *testing.T) {
	for _, h := range []float64{0, 45} {
		p := DefaultParams()
		p.Hanging = h
		s, _ := Scene("small-dynamic")
		c, err := New(s, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Step(); err != nil { // pins jump to their targets
			t.Fatal(err)
		}
		n := c.refine()
		want := 0
		if h > 0 {
			want = 2
		}
		if n != want {
			t.Errorf("h = %g: %d subdivisions, want %d", h, n, want)
		}
		for id := range 4 {
			if h > 0 && (c.typ[id] == Fixed) != (c.layer[id] == 1) {
				t.Errorf("h = %g: particle %d (type %d) has layer %d", h, id, c.typ[id], c.layer[id])
			}
		}
	}
}

// TestHangingThreshold: for the two fixed particles of "small", held c apart,
// a symmetric parabola f(s) = α·s·(s−c) turns at its midpoint by
// θ = 2·atan(α·c/2); choosing h so that the arc l = h·r/k belongs to θ = 30° ∓ 3°
// the criterion (threshold 30°) must stay quiet below and fire above.
func TestHangingThreshold(t *testing.T) {
	const cgap = 0.2
	for _, tc := range []struct {
		deg  float64
		fire bool
	}{{27, false}, {33, true}, {60, true}, {5, false}} {
		p := DefaultParams()
		p.AngleDeg = 30
		s, _ := Scene("small-dynamic")
		th := tc.deg * math.Pi / 180
		alpha := 2 * math.Tan(th/2) / cgap
		l := ArcLength(alpha, cgap, 0)
		p.Hanging = l * p.KStructural / 0.5 // rest length 0.5 m
		c, err := New(s, p)
		if err != nil {
			t.Fatal(err)
		}
		c.pos[0], c.pos[1] = s.Targets[0], s.Targets[1]
		if got := c.exceeds(0, 0, p.AngleDeg*math.Pi/180); got != tc.fire {
			t.Errorf("θ = %g°: fires = %v, want %v", tc.deg, got, tc.fire)
		}
	}
}

// simpson integrates f over [a, b] with n (even) intervals.
func simpson(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

// TestHangingSolve: the parabola of HangingMidpoint has arc length l (checked
// by an independent Simpson quadrature of √(1+f'²)) for pairs at any height
// difference and orientation, a vertical pair (whose limit curve A–M–B has
// length l) included, and M moves with the cloth: M(A+t, B+t) = M(A, B)+t,
// and rotating A, B about the gravity axis rotates M.
func TestHangingSolve(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	g := geom.Vec3{Y: -9.81}
	for k := range 300 {
		a := geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}
		d := geom.Vec3{X: rng.NormFloat64(), Y: 3 * rng.NormFloat64(), Z: rng.NormFloat64()}.Scale(0.1)
		if k%10 == 0 {
			d = geom.Vec3{Y: d.Y} // vertical
		}
		b := a.Add(d)
		chord := d.Norm()
		l := chord * (1 + 3*rng.Float64())
		m, ok := HangingMidpoint(a, b, l, g)
		if !ok {
			t.Fatalf("pair %d: no midpoint for l = %g > chord %g", k, l, chord)
		}
		bs := math.Hypot(d.X, d.Z)
		if bs == 0 {
			if got := m.Sub(a).Norm() + b.Sub(m).Norm(); math.Abs(got-l) > 1e-12*l {
				t.Errorf("vertical pair %d: |M−A|+|B−M| = %.15g, want l = %.15g", k, got, l)
			}
		} else {
			alpha := HangingAlpha(bs, d.Y, l)
			beta := d.Y/bs - alpha*bs
			arc := simpson(func(s float64) float64 { u := 2*alpha*s + beta; return math.Sqrt(1 + u*u) }, 0, bs, 20000)
			if math.Abs(arc-l) > 1e-7*l {
				t.Errorf("pair %d: arc length %.12g, want l = %.12g (α = %g)", k, arc, l, alpha)
			}
			if got := ArcLength(alpha, bs, d.Y); math.Abs(got-l) > 1e-10*l {
				t.Errorf("pair %d: ArcLength %.15g, want %.15g", k, got, l)
			}
			// M is the parabola's point at s = B_s/2
			dm := m.Sub(a)
			if e := math.Abs(math.Hypot(dm.X, dm.Z)-bs/2) + math.Abs(dm.Y-(alpha*bs*bs/4+beta*bs/2)); e > 1e-9 {
				t.Errorf("pair %d: M off the parabola's midpoint by %g m", k, e)
			}
			if m.Sub(a).Dot(geom.Vec3{Y: 1}) > math.Max(0, d.Y)/2+1e-12 {
				t.Errorf("pair %d: midpoint above the chord", k)
			}
		}
		shift := geom.Vec3{X: 5, Y: -2, Z: 3}
		m2, _ := HangingMidpoint(a.Add(shift), b.Add(shift), l, g)
		if e := m2.Sub(m.Add(shift)).Norm(); e > 1e-9*(1+l) {
			t.Errorf("pair %d: translated midpoint off by %g m", k, e)
		}
		rot := func(v geom.Vec3) geom.Vec3 { return geom.Vec3{X: 0.6*v.X - 0.8*v.Z, Y: v.Y, Z: 0.8*v.X + 0.6*v.Z} }
		m3, _ := HangingMidpoint(rot(a), rot(b), l, g)
		if e := m3.Sub(rot(m)).Norm(); e > 1e-9*(1+l) {
			t.Errorf("pair %d: rotated midpoint off by %g m", k, e)
		}
	}
	if _, ok := HangingMidpoint(geom.Vec3{}, geom.Vec3{X: 1}, 0.9, g); ok {
		t.Error("a taut pair (l < chord) hangs")
	}
}

// TestBlowUpKeepsState: a step far beyond the stable step blows up; Step
// returns ErrUnstable and leaves positions, velocities, time and step count
// as they were before it.
func TestBlowUpKeepsState(t *testing.T) {
	p := DefaultParams()
	p.KStructural = 1e5
	p.Correction = 0
	p.Dt = 0.01
	s, _ := Scene("sheet-uniform")
	c, err := New(s, p)
	if err != nil {
		t.Fatal(err)
	}
	if c.StableStep() > p.Dt/10 {
		t.Fatalf("StableStep %g is not far below Δt %g", c.StableStep(), p.Dt)
	}
	for k := 0; k < 1000; k++ {
		pos := append([]geom.Vec3(nil), c.pos...)
		vel := append([]geom.Vec3(nil), c.vel...)
		tm, n := c.Time(), c.Steps()
		err := c.Step()
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrUnstable) {
			t.Fatalf("error %v does not wrap ErrUnstable", err)
		}
		for id := range pos {
			if pos[id] != c.pos[id] || vel[id] != c.vel[id] {
				t.Fatalf("particle %d changed by the failed step: %v → %v", id, pos[id], c.pos[id])
			}
		}
		if c.Time() != tm || c.Steps() != n {
			t.Fatalf("time/steps changed: %g/%d → %g/%d", tm, n, c.Time(), c.Steps())
		}
		t.Logf("blew up at step %d: %v", k+1, err)
		return
	}
	t.Fatal("no blow-up in 1000 steps")
}

// TestDeterministic: two runs of a dynamic scene give bit-identical
// positions (the spring sets are sorted, so map order does not leak in).
func TestDeterministic(t *testing.T) {
	run := func() []geom.Vec3 {
		s, _ := Scene("small-dynamic")
		c, err := New(s, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		for range 500 {
			if err := c.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return c.pos
	}
	a, b := run(), run()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d particles", len(a), len(b))
	}
	for id := range a {
		if a[id] != b[id] {
			t.Fatalf("particle %d: %v vs %v", id, a[id], b[id])
		}
	}
}

// TestValidate: every field's bounds are enforced, and bad specs are errors.
func TestValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, f := range ParamTable {
		if f.Float == nil {
			continue
		}
		for _, v := range []float64{f.Min - 1, f.Max * 2, math.NaN()} {
			p := DefaultParams()
			*f.Float(&p) = v
			if v >= f.Min && v <= f.Max {
				continue
			}
			if p.Validate() == nil {
				t.Errorf("%s = %g accepted", f.Key, v)
			}
		}
	}
	p := DefaultParams()
	p.MaxLayer = 7
	if p.Validate() == nil {
		t.Error("max_layer 7 accepted")
	}
	for _, s := range []Spec{{NX: 1, NY: 5, U: geom.Vec3{X: 1}, V: geom.Vec3{Y: 1}}, {NX: 3, NY: 3, U: geom.Vec3{X: 1}, V: geom.Vec3{X: 2}}, {NX: 3, NY: 3, U: geom.Vec3{X: 1}, V: geom.Vec3{Y: 1}, Fixed: [][2]int{{3, 0}}}} {
		if _, err := New(s, DefaultParams()); err == nil {
			t.Errorf("spec %+v accepted", s)
		}
	}
	if _, err := Scene("nope"); err == nil {
		t.Error("unknown scene accepted")
	}
	c, _ := New(flatSheet(3, 1), DefaultParams())
	if c.Pin(99, geom.Vec3{}) == nil || c.Pin(0, geom.Vec3{X: math.Inf(1)}) == nil || c.Drag(-1, geom.Vec3{}) == nil {
		t.Error("bad pin/drag accepted")
	}
}

// TestMaterialNearest: Nearest inverts Material for every particle that is
// not interpolated, in a subdivided grid.
func TestMaterialNearest(t *testing.T) {
	c, _ := New(flatSheet(7, 1), quiet())
	tjunctions(t, c)
	for id := range c.pos {
		if c.typ[id] == Interpolated {
			continue
		}
		u, v := c.Material(id)
		if got := c.Nearest(u, v); got != id {
			t.Fatalf("Nearest(Material(%d)) = %d", id, got)
		}
	}
}

// TestSpringOwnership: after subdividing the centre particle P of a 5×5
// grid, P (layer 1) and its old neighbour Q (layer 0, 2d away) are joined by
// one spring only, P's view of Q: a bend spring of stiffness k_bend·2 (not
// Q's structural k); and Q is joined to the new midpoint between them by a
// structural spring k_structural·2 (the midpoint's view, which Q cannot see).
func TestSpringOwnership(t *testing.T) {
	p := quiet()
	c, _ := New(flatSheet(5, 1), p)
	const P, Q = 12, 13
	if !c.Subdivide(P) {
		t.Fatal("refused")
	}
	mid := c.at((c.gi[P]+c.gi[Q])/2, c.gj[P])
	var pq, qm []string
	for _, s := range c.spr {
		for n, a := range s.a {
			b := s.b[n]
			desc := fmt.Sprintf("kind %d k %g", s.kind[n], s.k[n])
			if a == P && b == Q || a == Q && b == P {
				pq = append(pq, desc)
			}
			if a == Q && b == mid || a == mid && b == Q {
				qm = append(qm, desc)
			}
		}
	}
	if want := fmt.Sprintf("kind %d k %g", bend, 2*p.KBend); len(pq) != 1 || pq[0] != want {
		t.Errorf("springs P–Q: %v, want [%s]", pq, want)
	}
	if want := fmt.Sprintf("kind %d k %g", structural, 2*p.KStructural); len(qm) != 1 || qm[0] != want {
		t.Errorf("springs Q–midpoint: %v, want [%s]", qm, want)
	}
}

// TestWindDrag: a flat horizontal sheet in a wind w with normal air drag c_d
// and no gravity moves as a whole along its normal, each substep multiplying
// the normal relative speed by (1 − Δt·c_d/ρ) (f = −c_d·A·((v−w)·n)·n with
// A = m/ρ), so after N steps v_n = w_n·(1 − (1 − Δt·c_d/ρ)^N); the wind's
// tangential part does nothing.
func TestWindDrag(t *testing.T) {
	p := quiet()
	p.AirDrag = 0.05
	p.Wind = geom.Vec3{X: 3, Y: 2}
	c, err := New(flatSheet(5, 1), p)
	if err != nil {
		t.Fatal(err)
	}
	const N = 200
	for range N {
		if err := c.Step(); err != nil {
			t.Fatal(err)
		}
	}
	want := 2 * (1 - math.Pow(1-p.Dt*p.AirDrag/p.Density, N))
	for id := range c.pos {
		v := c.vel[id]
		if math.Abs(v.Y-want) > 1e-9 || math.Abs(v.X) > 1e-12 || math.Abs(v.Z) > 1e-12 {
			t.Fatalf("particle %d: v = %v, want (0, %.12g, 0)", id, v, want)
		}
	}
}

// TestObstacles: after 1 s no particle of the tablecloth is inside the table
// and none of the pole scene inside the pole (project), while without the
// obstacles particles do pass through those volumes.
func TestObstacles(t *testing.T) {
	inside := func(c *Cloth, o Obstacle) int {
		n := 0
		for id := range c.pos {
			if c.typ[id] != Active {
				continue // interpolated particles are midpoints and may cut a corner
			}
			x := c.pos[id].Sub(o.Center)
			switch o.Kind {
			case Table:
				if math.Abs(x.X) < o.Size.X-1e-9 && math.Abs(x.Y) < o.Size.Y-1e-9 && math.Abs(x.Z) < o.Size.Z-1e-9 {
					n++
				}
			case Pole:
				if x.Y < -1e-9 && math.Hypot(x.X, x.Z) < o.Size.X-1e-9 {
					n++
				}
			}
		}
		return n
	}
	for _, name := range []string{"tablecloth", "pole"} {
		for _, on := range []bool{true, false} {
			s, _ := Scene(name)
			o := s.Obstacles[0]
			if !on {
				s.Obstacles = nil
			}
			c, err := New(s, DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			worst := 0
			for c.Time() < 1 {
				if err := c.Step(); err != nil {
					t.Fatal(err)
				}
				worst = max(worst, inside(c, o))
			}
			if on && worst > 0 || !on && worst == 0 {
				t.Errorf("%s, obstacle %v: up to %d particles inside", name, on, worst)
			}
		}
	}
}
