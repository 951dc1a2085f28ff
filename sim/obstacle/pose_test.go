package obstacle

import (
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

func near(a, b geom.Vec3, tol float64) bool { return a.Sub(b).Norm() <= tol }

func randVec(r *rand.Rand) geom.Vec3 {
	return geom.Vec3{X: 2*r.Float64() - 1, Y: 2*r.Float64() - 1, Z: 2*r.Float64() - 1}
}

// rodrigues rotates v about unit axis k by θ: v cosθ + (k×v) sinθ + k(k·v)(1−cosθ).
func rodrigues(v, k geom.Vec3, th float64) geom.Vec3 {
	k = k.Unit()
	return v.Scale(math.Cos(th)).Add(k.Cross(v).Scale(math.Sin(th))).Add(k.Scale(k.Dot(v) * (1 - math.Cos(th))))
}

func TestQuatRotateMatchesRodrigues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		axis, v := randVec(r), randVec(r)
		th := 4 * math.Pi * (r.Float64() - 0.5)
		got := AxisAngle(axis, th).Rotate(v)
		if want := rodrigues(v, axis, th); !near(got, want, 1e-14) {
			t.Fatalf("rotate %v about %v by %v: got=%v, want=%v", v, axis, th, got, want)
		}
	}
	// Right-handed: +90° about Z takes X to Y.
	if got := AxisAngle(geom.Vec3{Z: 1}, math.Pi/2).Rotate(geom.Vec3{X: 1}); !near(got, geom.Vec3{Y: 1}, 1e-15) {
		t.Errorf("90° about Z of X: got=%v, want (0,1,0)", got)
	}
	if got := AxisAngle(geom.Vec3{}, 1).Rotate(geom.Vec3{X: 1}); got != (geom.Vec3{X: 1}) {
		t.Errorf("zero axis: got=%v, want identity", got)
	}
}

func TestPoseComposeInverse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 100; i++ {
		P := Pose{AxisAngle(randVec(r), 3*r.Float64()), randVec(r)}
		Q := Pose{AxisAngle(randVec(r), 3*r.Float64()), randVec(r)}
		x := randVec(r)
		if got, want := P.Mul(Q).Apply(x), P.Apply(Q.Apply(x)); !near(got, want, 1e-14) {
			t.Fatalf("(P∘Q)x: got=%v, want=%v", got, want)
		}
		if got := P.Inverse().Apply(P.Apply(x)); !near(got, x, 1e-14) {
			t.Fatalf("P⁻¹Px: got=%v, want=%v", got, x)
		}
		if got := P.ApplyInverse(P.Apply(x)); !near(got, x, 1e-14) {
			t.Fatalf("ApplyInverse: got=%v, want=%v", got, x)
		}
	}
}

func TestSlerp(t *testing.T) {
	axis := geom.Vec3{X: 1, Y: 2, Z: 3}
	q0, q1 := AxisAngle(axis, 0.2), AxisAngle(axis, 1.4)
	v := geom.Vec3{X: 1, Y: -1, Z: 0.5}
	for _, s := range []float64{0, 0.25, 0.5, 1} {
		got := Slerp(q0, q1, s).Rotate(v)
		want := rodrigues(v, axis, 0.2+1.2*s)
		if !near(got, want, 1e-14) {
			t.Errorf("s=%v: got=%v, want=%v", s, got, want)
		}
	}
	// Shorter arc: from 0° to 350° about Y goes back by 10°, half-way is −5°.
	got := Slerp(Identity(), AxisAngle(geom.Vec3{Y: 1}, 350*math.Pi/180), 0.5).Rotate(geom.Vec3{X: 1})
	if want := rodrigues(geom.Vec3{X: 1}, geom.Vec3{Y: 1}, -5*math.Pi/180); !near(got, want, 1e-14) {
		t.Errorf("short arc: got=%v, want=%v", got, want)
	}
	// Nearly equal quaternions (the nlerp branch).
	a, b := AxisAngle(axis, 0.3), AxisAngle(axis, 0.3+1e-4)
	if got, want := Slerp(a, b, 0.5).Rotate(v), rodrigues(v, axis, 0.3+0.5e-4); !near(got, want, 1e-12) {
		t.Errorf("nlerp: got=%v, want=%v", got, want)
	}
}
