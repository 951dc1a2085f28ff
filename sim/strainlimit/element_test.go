package strainlimit

import (
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

func randVec(rng *rand.Rand, s float64) geom.Vec3 {
	return geom.Vec3{X: rng.NormFloat64() * s, Y: rng.NormFloat64() * s, Z: rng.NormFloat64() * s}
}

// TestElementResponse: on random stretched triangles with random masses
// (one corner sometimes pinned), one response (eq. 2.6, 2.8) conserves
// the element's linear momentum Σ m_i Δx_i and, as a velocity change
// Δv_i = Δx_i/Δt, its angular momentum Σ m_i x_i × Δv_i, to 1e-12
// relative, and makes |F·q| exactly the target.
func TestElementResponse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lim := limitsOf(onParams())
	for trial := 0; trial < 500; trial++ {
		r := [3]geom.Vec2{{}, {X: 0.02 + 0.01*rng.Float64()}, {X: 0.01 * rng.Float64(), Y: 0.02 + 0.01*rng.Float64()}}
		g, ok := shapeGradients(r[0], r[1], r[2])
		if !ok {
			t.Fatal("degenerate")
		}
		var x [3]geom.Vec3
		for i := range x {
			x[i] = geom.Vec3{X: r[i].X * 1.4, Y: r[i].Y * 1.2}.Add(randVec(rng, 0.004))
		}
		var w [3]float64
		for i := range w {
			w[i] = 1 / (0.001 + 0.01*rng.Float64())
		}
		pinned := trial%5 == 0
		if pinned {
			w[trial%3] = 0
		}
		f1, f2 := deformation(&x, &g)
		ra, q := stretchLimit(f1, f2, lim)
		old := x
		if !respond(&x, &w, &g, q, 1, 1e9) {
			t.Fatalf("trial %d: no response (ratio %g)", trial, ra)
		}
		var p, l geom.Vec3
		var scale float64
		for i := range x {
			if w[i] == 0 {
				if x[i] != old[i] {
					t.Fatalf("trial %d: pinned corner moved", trial)
				}
				continue
			}
			m := 1 / w[i]
			dx := x[i].Sub(old[i])
			p = p.Add(dx.Scale(m))
			l = l.Add(old[i].Cross(dx).Scale(m))
			scale += m * dx.Norm() * (1 + old[i].Norm())
		}
		if !pinned && (p.Norm() > 1e-12*scale || l.Norm() > 1e-12*scale) {
			t.Errorf("trial %d: momentum change linear %g, angular %g (scale %g)", trial, p.Norm(), l.Norm(), scale)
		}
		f1, f2 = deformation(&x, &g)
		if got := f1.Scale(q.X).Add(f2.Scale(q.Y)).Norm(); math.Abs(got-1) > 1e-12 {
			t.Errorf("trial %d: |F·q| = %.15f after the response, want 1 (was %g)", trial, got, ra)
		}
		// limitElement brings the whole element within its limit.
		x = old
		limitElement(&x, &w, &g, 1e9, lim)
		f1, f2 = deformation(&x, &g)
		if r2, _ := stretchLimit(f1, f2, lim); !pinned && r2 > 1+1e-9 {
			t.Errorf("trial %d: ratio %g after limitElement", trial, r2)
		}
	}
}

// TestDeformationJacobians checks the derivatives the limiter uses:
// F = Σ x_i ⊗ ∇N_i reproduces an affine map exactly and Σ ∇N_i = 0; the
// force-estimate row u_e = Δt·∂c_e/∂x_b of c_e = |x_b − x_a|/L_e − 1 (as a
// function of V, x = x^n + Δt·V) against central differences; and the
// largest eigenvalue and eigenvector of sym2Max against the definition.
func TestDeformationJacobians(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		r := [3]geom.Vec2{{X: rng.Float64(), Y: rng.Float64()}, {X: rng.Float64(), Y: rng.Float64()}, {X: rng.Float64(), Y: rng.Float64()}}
		g, ok := shapeGradients(r[0], r[1], r[2])
		if !ok {
			continue
		}
		a, b, o := randVec(rng, 1), randVec(rng, 1), randVec(rng, 1)
		var x [3]geom.Vec3
		for i := range x {
			x[i] = a.Scale(r[i].X).Add(b.Scale(r[i].Y)).Add(o)
		}
		f1, f2 := deformation(&x, &g)
		if f1.Sub(a).Norm() > 1e-9*(1+a.Norm()) || f2.Sub(b).Norm() > 1e-9*(1+b.Norm()) {
			t.Errorf("trial %d: F = [%v %v], want [%v %v]", trial, f1, f2, a, b)
		}
		if s := g[0].Add(g[1]).Add(g[2]); math.Abs(s.X)+math.Abs(s.Y) > 1e-9*math.Sqrt(g[1].Norm2()) {
			t.Errorf("trial %d: Σ∇N = %v", trial, s)
		}
		c11, c22, c12 := rng.Float64(), rng.Float64(), rng.Float64()-0.5
		lam, v := sym2Max(c11, c22, c12)
		av := geom.Vec2{X: c11*v.X + c12*v.Y, Y: c12*v.X + c22*v.Y}
		if av.Sub(v.Scale(lam)).Norm2() > 1e-24 || lam < c11-1e-15 || lam < c22-1e-15 {
			t.Errorf("trial %d: eigenpair %g %v wrong", trial, lam, v)
		}
	}
	// Force-estimate Jacobian on a real edge setup.
	dt := 0.01
	in := sheet(t, 3, 2, false, geom.Vec3{X: 1.3, Y: 1.2, Z: 1}, 0.002, dt, 11)
	l := NewLimiter()
	if err := l.prepare(in, dt); err != nil {
		t.Fatal(err)
	}
	l.in, l.dt, l.lim = in, dt, limitsOf(onParams())
	for v := range l.x {
		l.x[v] = in.X0[v].Add(in.V[v].Scale(dt))
	}
	n := 0
	for e, ed := range l.edges {
		if !l.setupEdge(int32(e)) {
			continue
		}
		n++
		cOf := func(vb geom.Vec3) float64 {
			xb := in.X0[ed.b].Add(vb.Scale(dt))
			return xb.Sub(l.x[ed.a]).Norm()/l.lmax[e] - 1
		}
		const h = 1e-6
		for k, dir := range []geom.Vec3{{X: 1}, {Y: 1}, {Z: 1}} {
			fd := (cOf(in.V[ed.b].Add(dir.Scale(h))) - cOf(in.V[ed.b].Sub(dir.Scale(h)))) / (2 * h)
			an := l.u[e].Dot(dir)
			if math.Abs(fd-an) > 1e-6*(1+math.Abs(an)) {
				t.Errorf("edge %d axis %d: ∂c/∂V_b = %g, finite difference %g", e, k, an, fd)
			}
		}
		if got := l.c[e]; math.Abs(got-cOf(in.V[ed.b])) > 1e-15 {
			t.Errorf("edge %d: c = %g, want %g", e, got, cOf(in.V[ed.b]))
		}
	}
	if n == 0 {
		t.Fatal("no active edge")
	}
}

// TestForceEstimateSolves: the regularised CG of step 1 reduces ‖c‖ on
// a sheet with a few overstretched edges (its linearisation), and its
// impulse conserves linear momentum.
func TestForceEstimateSolves(t *testing.T) {
	dt := 0.01
	in := sheet(t, 20, 15, true, geom.Vec3{X: 1, Y: 1, Z: 1}, 0, dt, 12)
	in.V[100] = geom.Vec3{X: 1, Y: 0.5} // one vertex pulled 1 cm
	l := NewLimiter()
	if err := l.prepare(in, dt); err != nil {
		t.Fatal(err)
	}
	l.in, l.dt, l.lim = in, dt, limitsOf(onParams())
	for v := range l.x {
		l.x[v] = in.X0[v].Add(in.V[v].Scale(dt))
	}
	cNorm := func() (s float64) {
		for _, ed := range l.edges {
			r := in.Rest[ed.b].Sub(in.Rest[ed.a])
			lm := math.Hypot(l.lim.dx*r.X, l.lim.dy*r.Y)
			s += math.Pow(math.Max(0, l.x[ed.b].Sub(l.x[ed.a]).Norm()/lm-1), 2)
		}
		return math.Sqrt(s)
	}
	before := append([]geom.Vec3(nil), l.x...)
	c0 := cNorm()
	l.evaluate() // the faces' ratios, from which the force estimate picks its edges
	l.moved.next()
	na, it := l.forceEstimate(200)
	c1 := cNorm()
	var p geom.Vec3
	for v := range l.x {
		p = p.Add(l.x[v].Sub(before[v]).Scale(1 / in.InvMass[v]))
	}
	t.Logf("%d constrained edges, %d CG iterations, ‖c₊‖ %.3g → %.3g, Σ m Δx = %v", na, it, c0, c1, p)
	if na == 0 || !(c1 < 0.1*c0) {
		t.Errorf("force estimate: ‖c₊‖ %g → %g with %d edges", c0, c1, na)
	}
	if p.Norm() > 1e-15 {
		t.Errorf("force estimate changed linear momentum by %v", p)
	}
}

// TestFaceRatio: the check of every face (faceRatio, from the metric
// alone) gives what the responses' stretchLimit, shearLimit and
// principalStrain give, to 1e-12, on random faces stretched, compressed
// and sheared, with and without a shear limit, with equal and with
// different weft and warp limits.
func TestFaceRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		p := onParams()
		p.MaxWeft, p.MaxWarp = 0.01+0.3*rng.Float64(), 0.01+0.3*rng.Float64()
		if trial%4 < 2 { // equal limits: faceRatio's one-eigenvalue path
			p.MaxWarp = p.MaxWeft
		}
		if trial%2 == 0 {
			p.MaxShear = 0.05 + 1.4*rng.Float64()
		}
		lim := limitsOf(p)
		r := [3]geom.Vec2{{}, {X: 0.02 + 0.01*rng.Float64()}, {X: 0.01 * rng.Float64(), Y: 0.02 + 0.01*rng.Float64()}}
		g, ok := shapeGradients(r[0], r[1], r[2])
		if !ok {
			t.Fatal("degenerate")
		}
		var x [3]geom.Vec3
		sx, sy := 0.5+rng.Float64(), 0.5+rng.Float64()
		for i := range x {
			x[i] = geom.Vec3{X: r[i].X * sx, Y: r[i].Y * sy}.Add(randVec(rng, 0.005))
		}
		f1, f2 := deformation(&x, &g)
		ra, _ := stretchLimit(f1, f2, lim)
		rb, _, _ := shearLimit(f1, f2, lim)
		wantR, wantS := math.Max(ra, rb), principalStrain(f1, f2)
		gotR, gotS := faceRatio(&x, &g, lim)
		if math.Abs(gotR-wantR) > 1e-12*wantR || math.Abs(gotS-wantS) > 1e-12*(1+math.Abs(wantS)) {
			t.Fatalf("trial %d: faceRatio %g, %g; want %g, %g", trial, gotR, gotS, wantR, wantS)
		}
	}
}

// TestShearBelowExact: where shearBelow lets faceRatio skip the shear
// ratio r_b, max(ra, r_b) is ra bit for bit, for metrics whose r_b lies
// from a few ulps to 1 % from ra, either side (the boundary the test of
// c² against k²·a·b decides; without its margin this test fails).
func TestShearBelowExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	skipped := 0
	for trial := 0; trial < 200000; trial++ {
		s := 1.0 // shear limit off, the default
		if trial%3 == 0 {
			s = math.Sin(0.05 + 1.4*rng.Float64())
		}
		a, b := 0.5+rng.Float64(), 0.5+rng.Float64()
		ra := 0.7 + 0.6*rng.Float64()
		// |c| = k·√(ab) puts r_b exactly at ra; move it by a few ulps.
		k := ra*ra*(1+s) - 1
		if !(k > 0 && k < 1) {
			continue
		}
		// A relative distance from 10⁻¹⁶ (a few ulps) to 10⁻², either side.
		d := math.Pow(10, -16+14*rng.Float64())
		if rng.IntN(2) == 0 {
			d = -d
		}
		c := k * math.Sqrt(a*b) * (1 + d)
		if rng.IntN(2) == 0 {
			c = -c
		}
		if !shearBelow(ra, a, b, c, s) {
			continue
		}
		skipped++
		rb := math.Sqrt((2 + 2*math.Abs(c)/math.Sqrt(a*b)) / (2 + 2*s))
		if got := math.Max(ra, rb); got != ra {
			t.Fatalf("trial %d: skipped r_b = %.17g, but max(ra, r_b) = %.17g ≠ ra = %.17g", trial, rb, got, ra)
		}
	}
	t.Logf("%d metrics skipped, all exact", skipped)
	if skipped < 10000 {
		t.Errorf("only %d of the metrics were skipped: the test did not test", skipped)
	}
	// Far from the boundary the skip applies: a face at rest, shear off.
	if !shearBelow(1/1.1, 1, 1, 0, 1) {
		t.Error("a face at rest with the shear limit off should skip r_b")
	}
}
