package obstacle

import (
	"math"

	"drape/sim/geom"
)

// Quat is a rotation quaternion W + X·i + Y·j + Z·k. Rotations use unit
// quaternions; the zero value is not a rotation (use Identity).
type Quat struct{ W, X, Y, Z float64 }

// Identity returns the quaternion of no rotation.
func Identity() Quat { return Quat{W: 1} }

// AxisAngle returns the unit quaternion of a right-handed rotation by angle
// radians about axis, (cos ½θ, sin ½θ·â). A zero axis gives the identity.
func AxisAngle(axis geom.Vec3, angle float64) Quat {
	a := axis.Unit()
	if a == (geom.Vec3{}) {
		return Identity()
	}
	s, c := math.Sincos(angle / 2)
	return Quat{c, s * a.X, s * a.Y, s * a.Z}
}

// Mul returns the product q·r: the rotation r followed by q.
func (q Quat) Mul(r Quat) Quat {
	return Quat{
		q.W*r.W - q.X*r.X - q.Y*r.Y - q.Z*r.Z,
		q.W*r.X + q.X*r.W + q.Y*r.Z - q.Z*r.Y,
		q.W*r.Y - q.X*r.Z + q.Y*r.W + q.Z*r.X,
		q.W*r.Z + q.X*r.Y - q.Y*r.X + q.Z*r.W,
	}
}

// Conj returns the conjugate (W, −X, −Y, −Z), the inverse of a unit
// quaternion.
func (q Quat) Conj() Quat { return Quat{q.W, -q.X, -q.Y, -q.Z} }

// Dot returns the 4D dot product of q and r.
func (q Quat) Dot(r Quat) float64 { return q.W*r.W + q.X*r.X + q.Y*r.Y + q.Z*r.Z }

// Normalize returns q/|q|, or the identity when |q| is zero or not finite.
func (q Quat) Normalize() Quat {
	n := math.Sqrt(q.Dot(q))
	if !(n > 0) || math.IsInf(n, 0) {
		return Identity()
	}
	return Quat{q.W / n, q.X / n, q.Y / n, q.Z / n}
}

// Rotate returns q·v·q* for a unit quaternion q, evaluated as
// v + 2w(u×v) + 2u×(u×v) with u = (X, Y, Z).
func (q Quat) Rotate(v geom.Vec3) geom.Vec3 {
	u := geom.Vec3{X: q.X, Y: q.Y, Z: q.Z}
	t := u.Cross(v).Scale(2)
	return v.Add(t.Scale(q.W)).Add(u.Cross(t))
}

// Slerp returns the spherical linear interpolation from q (s = 0) to r
// (s = 1) along the shorter arc (r is negated when q·r < 0, since r and −r
// are the same rotation), so a rotation key more than 180° away from the
// previous one turns the short way. Nearly equal quaternions fall back to
// a normalised linear interpolation.
func Slerp(q, r Quat, s float64) Quat {
	d := q.Dot(r)
	if d < 0 {
		r, d = Quat{-r.W, -r.X, -r.Y, -r.Z}, -d
	}
	if d > 0.9995 {
		return Quat{
			q.W + s*(r.W-q.W), q.X + s*(r.X-q.X), q.Y + s*(r.Y-q.Y), q.Z + s*(r.Z-q.Z),
		}.Normalize()
	}
	th := math.Acos(math.Min(d, 1))
	sin := math.Sin(th)
	a, b := math.Sin((1-s)*th)/sin, math.Sin(s*th)/sin
	return Quat{a*q.W + b*r.W, a*q.X + b*r.X, a*q.Y + b*r.Y, a*q.Z + b*r.Z}
}

// Pose is a rigid transform x ↦ Rot·x + Trans (m).
type Pose struct {
	Rot   Quat
	Trans geom.Vec3
}

// IdentityPose returns the pose that moves nothing.
func IdentityPose() Pose { return Pose{Rot: Identity()} }

// Apply returns Rot·p + Trans.
func (P Pose) Apply(p geom.Vec3) geom.Vec3 { return P.Rot.Rotate(p).Add(P.Trans) }

// ApplyInverse returns Rot*·(p − Trans), the local coordinates of world
// point p.
func (P Pose) ApplyInverse(p geom.Vec3) geom.Vec3 { return P.Rot.Conj().Rotate(p.Sub(P.Trans)) }

// Mul returns the pose P∘Q: Q applied first, then P.
func (P Pose) Mul(Q Pose) Pose {
	return Pose{Rot: P.Rot.Mul(Q.Rot), Trans: P.Rot.Rotate(Q.Trans).Add(P.Trans)}
}

// Inverse returns the pose that undoes P.
func (P Pose) Inverse() Pose {
	c := P.Rot.Conj()
	return Pose{Rot: c, Trans: c.Rotate(P.Trans).Scale(-1)}
}
