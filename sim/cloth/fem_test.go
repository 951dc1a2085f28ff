package cloth

import (
	"math"
	"math/rand"
	"testing"

	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// onBoundary reports whether material point r lies on the edge of [0,w]×[0,h].
func onBoundary(r geom.Vec2, w, h float64) bool {
	const eps = 1e-12
	return r.X < eps || r.Y < eps || r.X > w-eps || r.Y > h-eps
}

// TestPatchUniformStretch is the patch test: a uniform in-plane strain of an
// irregular mesh must give the analytic stress σ = C·ε in every element, so
// every interior node is in equilibrium and the boundary nodes carry the
// traction σ·n·length.
func TestPatchUniformStretch(t *testing.T) {
	const w, h = 1.3, 0.9
	for _, tc := range []struct {
		name          string
		ex, ey, gamma float64 // engineering strains
		p             Params
	}{
		{"isotropic stretch", 0.01, 0.02, 0, DefaultParams()},
		{"orthotropic shear", 0.004, -0.003, 0.01, func() Params {
			p := DefaultParams()
			p.YoungX, p.YoungY, p.Shear, p.PoissXY, p.PoissYX = 3000, 800, 150, 0.4, 0.4*800/3000
			return p
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := simtest.Grid(t, w, h, 9, 7, 0.3, 7)
			// u = (ex·x + γ/2·y, γ/2·x + ey·y): symmetric gradient, no rotation.
			for i, r := range m.Rest {
				m.Pos[i] = geom.Vec3{r.X + tc.ex*r.X + tc.gamma/2*r.Y, r.Y + tc.gamma/2*r.X + tc.ey*r.Y, 0}
			}
			s, err := New(m, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			c := tc.p.ElasticityTensor()
			// Small-strain analytic stress; the corotated element measures
			// the strain of the polar stretch, equal to ε up to O(ε²).
			sx := c[0]*tc.ex + c[1]*tc.ey
			sy := c[3]*tc.ex + c[4]*tc.ey
			txy := c[8] * tc.gamma
			f := make([]geom.Vec3, len(m.Pos))
			s.InternalForces(f)
			scale := math.Max(math.Abs(sx), math.Max(math.Abs(sy), math.Abs(txy))) * w / 9
			var right, top geom.Vec3
			for i, r := range m.Rest {
				if !onBoundary(r, w, h) {
					if got := f[i].Norm(); got > 1e-9*scale {
						t.Errorf("interior vertex %d: |f|=%.3g N, want 0 (scale %.3g)", i, got, scale)
					}
					continue
				}
				// The load that holds the patch is the negative of the
				// internal (restoring) force.
				if r.X > w-1e-12 && r.Y > 1e-12 && r.Y < h-1e-12 {
					right = right.Sub(f[i])
				}
				if r.Y > h-1e-12 && r.X > 1e-12 && r.X < w-1e-12 {
					top = top.Sub(f[i])
				}
			}
			// Interior points of an edge carry (n_edges−1)/n_edges of its
			// traction; the corners carry the rest.
			wantRight := geom.Vec3{sx * h * 6 / 7, txy * h * 6 / 7, 0}
			wantTop := geom.Vec3{txy * w * 8 / 9, sy * w * 8 / 9, 0}
			for _, c := range []struct {
				name      string
				got, want geom.Vec3
			}{{"right edge", right, wantRight}, {"top edge", top, wantTop}} {
				if d := c.got.Sub(c.want).Norm(); d > 1e-9*c.want.Norm() {
					t.Errorf("%s traction: got=%v, want=%v", c.name, c.got, c.want)
				}
			}
		})
	}
}

// isotropic returns parameters with E_x = E_y = E and E_s = E/(2(1+ν)).
func isotropic(e, nu float64) Params {
	p := DefaultParams()
	p.YoungX, p.YoungY, p.Shear, p.PoissXY, p.PoissYX = e, e, e/(2*(1+nu)), nu, nu
	return p
}

// netForceTorque returns Σf and Σ(x−o)×f.
func netForceTorque(pos, f []geom.Vec3, o geom.Vec3) (sum, torque geom.Vec3) {
	for i := range f {
		sum = sum.Add(f[i])
		torque = torque.Add(pos[i].Sub(o).Cross(f[i]))
	}
	return sum, torque
}

// TestRigidMotionInvariance checks that internal forces vanish for any
// rigid motion of the rest shape, and that for any deformation they have
// zero net force and zero net torque, so internal forces conserve linear
// and angular momentum.
//
// The net torque of polar-decomposition corotational forces is
// A·skew(U·σ) per element (U the stretch, σ the stress): zero when U and σ
// commute, which holds for an isotropic C at any strain. For an
// orthotropic C (the paper's curtain, E_s = E, is one) the torque is
// second order in the strain; the last subtest measures that.
func TestRigidMotionInvariance(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	aniso := DefaultParams()
	aniso.YoungX, aniso.YoungY, aniso.Shear, aniso.PoissXY, aniso.PoissYX = 2000, 700, 300, 0.3, 0.3*700/2000
	for _, p := range []Params{DefaultParams(), aniso, isotropic(1000, 0.3)} {
		p.Bending = 1e-3
		for trial := 0; trial < 10; trial++ {
			m := simtest.Grid(t, 1, 0.8, 6, 5, 0.3, int64(trial))
			q := simtest.RandomRotation(rng)
			tr := geom.Vec3{rng.NormFloat64() * 10, rng.NormFloat64() * 10, rng.NormFloat64() * 10}
			for i, r := range m.Rest {
				m.Pos[i] = q.MulVec(geom.Vec3{r.X, r.Y, 0}).Add(tr)
			}
			s, err := New(m, p)
			if err != nil {
				t.Fatal(err)
			}
			f := make([]geom.Vec3, len(m.Pos))
			s.InternalForces(f)
			// Relative to the force a 1 % strain causes on one element.
			scale := p.YoungX * 0.01 * 1.0 / 6
			if got := simtest.MaxNorm(f); got > 1e-9*scale {
				t.Errorf("E=%v/%v/%v trial %d: rigid motion gives |f|max=%.3g N, want < %.3g", p.YoungX, p.YoungY, p.Shear, trial, got, 1e-9*scale)
			}
		}
	}
	t.Run("any deformation, isotropic", func(t *testing.T) {
		for trial := 0; trial < 20; trial++ {
			m := simtest.Grid(t, 1, 0.8, 6, 5, 0.3, int64(trial))
			for i := range m.Pos {
				m.Pos[i] = m.Pos[i].Add(geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(0.05))
			}
			p := isotropic(1000, 0.3)
			p.Bending = 1e-3
			s, _ := New(m, p)
			f := make([]geom.Vec3, len(m.Pos))
			s.InternalForces(f)
			sum, torque := netForceTorque(m.Pos, f, geom.Vec3{0.5, 0.4, 0})
			fs := simtest.MaxNorm(f)
			if sum.Norm() > 1e-12*fs*float64(len(f)) || torque.Norm() > 1e-12*fs*float64(len(f)) {
				t.Errorf("trial %d: net force %v, net torque %v, want 0 (max |f| %.3g N)", trial, sum, torque, fs)
			}
		}
	})
	t.Run("any deformation, orthotropic: net force zero, torque O(strain²)", func(t *testing.T) {
		torqueAt := func(amp float64) (sum, torque, fs float64) {
			m := simtest.Grid(t, 1, 0.8, 6, 5, 0.3, 4)
			r := rand.New(rand.NewSource(9))
			for i := range m.Pos {
				m.Pos[i] = m.Pos[i].Add(geom.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Scale(amp))
			}
			s, _ := New(m, aniso)
			f := make([]geom.Vec3, len(m.Pos))
			s.InternalForces(f)
			sv, tv := netForceTorque(m.Pos, f, geom.Vec3{0.5, 0.4, 0})
			return sv.Norm(), tv.Norm(), simtest.MaxNorm(f)
		}
		s1, t1, f1 := torqueAt(1e-2)
		_, t2, _ := torqueAt(1e-3)
		if s1 > 1e-12*f1*42 {
			t.Errorf("net force %.3g N, want 0 (max |f| %.3g N)", s1, f1)
		}
		if r := t1 / t2; r < 70 || r > 140 {
			t.Errorf("torque ratio for 10× less strain = %.3g (%.3g/%.3g N·m), want ≈ 100 (second order)", r, t1, t2)
		}
	})
}

// stiffness assembles K (elastic + bending) into s.sys.val.
func (s *Sim) stiffness() { s.assemble(1, 0, 0, false) }

// fdJacobianError returns max |K·δ − (f(x) − f(x+δ))| / max|K·δ| over a
// few random directions δ of size eps (central differences).
func fdJacobianError(t *testing.T, s *Sim, rng *rand.Rand, eps float64) float64 {
	t.Helper()
	m := s.Mesh
	n := len(m.Pos)
	s.stiffness()
	kd := make([]geom.Vec3, n)
	fp, fm := make([]geom.Vec3, n), make([]geom.Vec3, n)
	x0 := append([]geom.Vec3(nil), m.Pos...)
	var worst float64
	for trial := 0; trial < 4; trial++ {
		d := make([]geom.Vec3, n)
		for i := range d {
			d[i] = geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(eps)
		}
		// K·δ by slot: the system's rows are the live vertices in band
		// order (numberRows).
		dr, kr := make([]geom.Vec3, s.sys.n), make([]geom.Vec3, s.sys.n)
		for i, v := range s.sys.slot {
			dr[i] = d[v]
		}
		s.sys.mulVec(kr, dr)
		for i, v := range s.sys.slot {
			kd[v] = kr[i]
		}
		for i := range m.Pos {
			m.Pos[i] = x0[i].Add(d[i])
		}
		s.InternalForces(fp)
		for i := range m.Pos {
			m.Pos[i] = x0[i].Sub(d[i])
		}
		s.InternalForces(fm)
		copy(m.Pos, x0)
		var num, den float64
		for i := range kd {
			// −∂f/∂x·δ ≈ −(f(x+δ) − f(x−δ))/2
			fd := fm[i].Sub(fp[i]).Scale(0.5)
			num = math.Max(num, fd.Sub(kd[i]).Norm())
			den = math.Max(den, kd[i].Norm())
		}
		worst = math.Max(worst, num/den)
	}
	return worst
}

// TestStiffnessMatchesFiniteDifferences compares the assembled stiffness K
// with a central-difference Jacobian of the internal forces. The bending
// Hessian is exact everywhere (the energy is quadratic); the corotated
// elastic stiffness K^R = R_P·K_e·R_Pᵀ of Bender & Deul omits the
// derivative of the rotation, which multiplies the element stress, so it is
// exact at any rigidly moved rest state and off by O(strain) elsewhere.
func TestStiffnessMatchesFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	rigid := func(s *Sim) {
		q := simtest.RandomRotation(rng)
		for i, r := range s.Mesh.Rest {
			s.Mesh.Pos[i] = q.MulVec(geom.Vec3{r.X, r.Y, 0}).Add(geom.Vec3{1, 2, 3})
		}
	}
	t.Run("elastic+bending at a rigid rest state", func(t *testing.T) {
		p := DefaultParams()
		p.Bending = 0.05
		s, _ := New(simtest.Grid(t, 1, 1, 5, 5, 0.3, 1), p)
		rigid(s)
		if e := fdJacobianError(t, s, rng, 1e-6); e > 1e-6 {
			t.Errorf("relative Jacobian error %.3g, want < 1e-6", e)
		}
	})
	t.Run("bending on a crumpled sheet", func(t *testing.T) {
		p := DefaultParams()
		p.YoungX, p.YoungY, p.Shear, p.Bending = 1e-12, 1e-12, 1e-12, 1
		s, _ := New(simtest.Grid(t, 1, 1, 5, 5, 0.3, 2), p)
		for i := range s.Mesh.Pos {
			s.Mesh.Pos[i].Z = 0.2 * rng.NormFloat64()
		}
		if e := fdJacobianError(t, s, rng, 1e-6); e > 1e-6 {
			t.Errorf("relative Jacobian error %.3g, want < 1e-6", e)
		}
	})
	t.Run("elastic error is first order in strain", func(t *testing.T) {
		errAt := func(strain float64) float64 {
			s, _ := New(simtest.Grid(t, 1, 1, 5, 5, 0.3, 3), DefaultParams())
			r := rand.New(rand.NewSource(5))
			for i, rr := range s.Mesh.Rest {
				s.Mesh.Pos[i] = geom.Vec3{rr.X, rr.Y, 0}.Add(geom.Vec3{r.NormFloat64(), r.NormFloat64(), 0}.Scale(strain / 5))
			}
			return fdJacobianError(t, s, rand.New(rand.NewSource(6)), 1e-7)
		}
		e1, e2 := errAt(1e-2), errAt(1e-3)
		if e1 > 0.1 {
			t.Errorf("at 1%% strain the relative Jacobian error is %.3g, want < 0.1", e1)
		}
		if r := e1 / e2; r < 5 || r > 20 {
			t.Errorf("error ratio for 10× less strain = %.3g (%.3g/%.3g), want ≈ 10 (first order)", r, e1, e2)
		}
	})
}
