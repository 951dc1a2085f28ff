package geom

import "math"

// Vec3 is a point or direction in world space, in metres (or m/s, N, … as
// the field that holds it documents).
type Vec3 struct{ X, Y, Z float64 }

// Vec2 is a point in the cloth's 2D material space, in metres. X runs along
// the weft, Y along the warp.
type Vec2 struct{ X, Y float64 }

// Add returns a+b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }

// Sub returns a−b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }

// Scale returns s·a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{s * a.X, s * a.Y, s * a.Z} }

// Dot returns a·b.
func (a Vec3) Dot(b Vec3) float64 { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// Cross returns a×b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a.Y*b.Z - a.Z*b.Y, a.Z*b.X - a.X*b.Z, a.X*b.Y - a.Y*b.X}
}

// Norm returns |a|.
func (a Vec3) Norm() float64 { return math.Sqrt(a.Dot(a)) }

// Unit returns a/|a|, or the zero vector when |a| is zero.
func (a Vec3) Unit() Vec3 {
	n := a.Norm()
	if n == 0 {
		return Vec3{}
	}
	return a.Scale(1 / n)
}

// IsFinite reports whether no component is NaN or ±Inf.
func (a Vec3) IsFinite() bool {
	return !math.IsNaN(a.X+a.Y+a.Z) && !math.IsInf(a.X+a.Y+a.Z, 0)
}

// Add returns a+b.
func (a Vec2) Add(b Vec2) Vec2 { return Vec2{a.X + b.X, a.Y + b.Y} }

// Sub returns a−b.
func (a Vec2) Sub(b Vec2) Vec2 { return Vec2{a.X - b.X, a.Y - b.Y} }

// Scale returns s·a.
func (a Vec2) Scale(s float64) Vec2 { return Vec2{s * a.X, s * a.Y} }

// Cross returns the z component of a×b, twice the signed area of the
// triangle (0, a, b).
func (a Vec2) Cross(b Vec2) float64 { return a.X*b.Y - a.Y*b.X }

// Mat3 is a 3×3 matrix in row-major order: M[3*r+c].
type Mat3 [9]float64

// MulVec returns m·v.
func (m *Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v.X + m[1]*v.Y + m[2]*v.Z,
		m[3]*v.X + m[4]*v.Y + m[5]*v.Z,
		m[6]*v.X + m[7]*v.Y + m[8]*v.Z,
	}
}

// Norm2 returns |a|², the squared norm.
func (a Vec2) Norm2() float64 { return a.X*a.X + a.Y*a.Y }
