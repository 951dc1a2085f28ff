package obstacle

import (
	"math"

	"drape/sim/geom"
)

// Obstacle is a rigid body the cloth collides with: a shape (Kind), a pose
// that may follow a scripted motion, a user offset (the viewer's mouse
// drag) and a friction coefficient. Its surface is available both as an
// analytic signed distance (SignedDistance) and as a closed, outward-facing
// triangle mesh (Tris with Vertices), which the collision pipeline and the
// renderer use.
//
// The world pose at time t is
//
//	x_world = R_m(t)·R_o·x_local + position + offset_m(t) + offset_user,
//
// with R_o the orientation, (R_m, offset_m) the scripted motion
// interpolated between its keys, and offset_user the drag (SetOffset).
//
// A step from t_n to t_{n+1} sees the obstacle move from
// VerticesAt(SettledPose(t_n)) to VerticesAt(Pose(t_{n+1})) (scripted
// motion and drag together), after which the simulation calls Settle;
// an obstacle with Moving() false may keep its hashed triangles.
//
// An Obstacle is not safe for concurrent use when SetOffset or Settle
// runs; the queries (Vertices, SignedDistance, …) may run concurrently
// with each other. The queries at a given pose (SignedDistanceAt,
// BoundsAt, VerticesAt) read only the shape, which never changes, so they
// may also run while SetOffset or Settle does (the viewer's detail worker
// keeps testing a snapshot's obstacles while the simulation moves them).
type Obstacle struct {
	Kind     Kind
	Friction float64 // Coulomb μ between cloth and this obstacle

	name    string
	base    Pose
	keys    []key
	offset  geom.Vec3 // user offset (drag), m
	settled geom.Vec3 // offset at the last Settle

	radius float64   // sphere, capsule, cylinder, m
	height float64   // capsule (segment length), cylinder (full height), m
	half   geom.Vec3 // box half extents, m

	local        []geom.Vec3 // surface vertices in local coordinates
	localNormals []geom.Vec3 // unit vertex normals in local coordinates
	tris         [][3]int32
	sdf          *meshSDF // Mesh only
	lo, hi       geom.Vec3
}

type key struct {
	t   float64
	off geom.Vec3
	rot Quat
}

// Name returns the obstacle's name (its kind when the spec gave none).
func (o *Obstacle) Name() string { return o.name }

// Tris returns the obstacle's surface as triangles, 3 indices per face into
// LocalVertices (and into the slices Vertices and Normals return),
// counter-clockwise seen from outside. For the primitives the surface is
// closed and its vertices lie on the analytic surface, so the mesh is
// inside it by at most the chord error (see ChordTolerance); for a Mesh it
// is the file's faces. Nil for a Plane. The slice is shared: do not modify.
func (o *Obstacle) Tris() [][3]int32 { return o.tris }

// LocalVertices returns the surface vertices in local coordinates (shared:
// do not modify).
func (o *Obstacle) LocalVertices() []geom.Vec3 { return o.local }

// NumVerts returns len(LocalVertices()).
func (o *Obstacle) NumVerts() int { return len(o.local) }

// Offset returns the user offset (the viewer's drag), m.
func (o *Obstacle) Offset() geom.Vec3 { return o.offset }

// SetOffset sets the user offset, a translation added to the scripted pose
// from now on. The collision pipeline sees the change as motion between
// the pose at the last Settle (SettledPose) and the current one (Pose).
func (o *Obstacle) SetOffset(off geom.Vec3) { o.offset = off }

// Scripted reports whether the obstacle has a scripted motion (at least two
// keys; a single key is a constant pose).
func (o *Obstacle) Scripted() bool { return len(o.keys) > 1 }

// Moving reports whether the obstacle moves during the step from t0 to
// t1: its pose at t1 (Pose) differs from its pose at t0 with the offset of
// the last Settle (SettledPose), because its script moves it then or its
// offset changed (SetOffset) since. A scripted obstacle is still before
// its first key and after its last one, so cloth can rest on it there (the
// resting contacts of package cloth need a still obstacle). It does not
// change any state; the simulation calls Settle once it has used the new
// pose, at the end of a step. A still obstacle may be hashed once and
// reused.
func (o *Obstacle) Moving(t0, t1 float64) bool { return o.SettledPose(t0) != o.Pose(t1) }

// Settle records the current offset as the settled one: the pose at the
// start of the next step. Call it at the end of each step.
func (o *Obstacle) Settle() { o.settled = o.offset }

// motion returns the scripted offset and rotation at time t: linear
// interpolation of the offsets and slerp of the rotations between the keys
// around t; the first key before it, the last after it; none without keys.
func (o *Obstacle) motion(t float64) (geom.Vec3, Quat) {
	n := len(o.keys)
	switch {
	case n == 0:
		return geom.Vec3{}, Identity()
	case !(t > o.keys[0].t): // also NaN
		return o.keys[0].off, o.keys[0].rot
	case t >= o.keys[n-1].t:
		return o.keys[n-1].off, o.keys[n-1].rot
	}
	// Binary search for the last key with time ≤ t.
	i, j := 0, n-1
	for j-i > 1 {
		m := (i + j) / 2
		if o.keys[m].t <= t {
			i = m
		} else {
			j = m
		}
	}
	a, b := o.keys[i], o.keys[j]
	s := (t - a.t) / (b.t - a.t)
	off := a.off.Add(b.off.Sub(a.off).Scale(s))
	return off, Slerp(a.rot, b.rot, s)
}

// Pose returns the world pose at time t with the current user offset.
func (o *Obstacle) Pose(t float64) Pose { return o.poseWith(t, o.offset) }

// SettledPose returns the world pose at time t with the offset as of the
// last Settle: the pose at the start of a step during which the user
// dragged the obstacle.
func (o *Obstacle) SettledPose(t float64) Pose { return o.poseWith(t, o.settled) }

func (o *Obstacle) poseWith(t float64, user geom.Vec3) Pose {
	off, rot := o.motion(t)
	return Pose{Rot: rot.Mul(o.base.Rot).Normalize(), Trans: o.base.Trans.Add(off).Add(user)}
}

// Vertices returns the world positions of the surface vertices at time t,
// appended to dst[:0] (pass the previous result to avoid allocating). Empty
// for a Plane.
func (o *Obstacle) Vertices(t float64, dst []geom.Vec3) []geom.Vec3 {
	return o.VerticesAt(o.Pose(t), dst)
}

// VerticesAt returns the surface vertices moved by pose P, appended to
// dst[:0].
func (o *Obstacle) VerticesAt(P Pose, dst []geom.Vec3) []geom.Vec3 {
	dst = dst[:0]
	for _, p := range o.local {
		dst = append(dst, P.Apply(p))
	}
	return dst
}

// Normals returns unit vertex normals in world space at time t for drawing,
// appended to dst[:0]: the analytic surface normal for the primitives
// (the bisector of the faces' normals on a box's or cylinder's edges) and
// the angle-weighted face normals for a Mesh.
func (o *Obstacle) Normals(t float64, dst []geom.Vec3) []geom.Vec3 {
	P := o.Pose(t)
	dst = dst[:0]
	for _, n := range o.localNormals {
		dst = append(dst, P.Rot.Rotate(n))
	}
	return dst
}

// Plane returns a point on a Plane obstacle and its unit outward normal at
// time t (the solid is the side opposite the normal). For other kinds it
// returns the pose's origin and rotated local +Y.
func (o *Obstacle) Plane(t float64) (point, normal geom.Vec3) {
	P := o.Pose(t)
	return P.Trans, P.Rot.Rotate(geom.Vec3{Y: 1})
}

// Core returns, for a round obstacle, the segment whose points within
// radius make up the solid, in world coordinates at pose P: a Sphere's
// centre (a = b), a Capsule's axis from end to end. ok is false for the
// other kinds. Since the tessellation's vertices lie on the surface of
// these convex solids (Tris), anything outside the analytic solid is
// outside the mesh: the contact pipeline handles them from the core alone.
func (o *Obstacle) Core(P Pose) (a, b geom.Vec3, radius float64, ok bool) {
	switch o.Kind {
	case Sphere:
		return P.Trans, P.Trans, o.radius, true
	case Capsule:
		e := geom.Vec3{Y: o.height / 2}
		return P.Apply(e.Scale(-1)), P.Apply(e), o.radius, true
	}
	return geom.Vec3{}, geom.Vec3{}, 0, false
}

// SignedDistance returns the signed distance d from world point p to the
// obstacle's surface at time t, m (negative inside), and the unit outward
// normal n of the surface at the closest point, which is the gradient of d
// wherever d is differentiable. The primitives are analytic (the exact
// surface, not its tessellation); a Mesh uses its triangles (see meshSDF).
// Degenerate cases: on a medial point (the centre of a sphere, the axis
// of a cylinder inside it) n is one of the equally close normals.
func (o *Obstacle) SignedDistance(p geom.Vec3, t float64) (float64, geom.Vec3) {
	return o.SignedDistanceAt(o.Pose(t), p)
}

// SignedDistanceAt is SignedDistance with the obstacle at pose P.
func (o *Obstacle) SignedDistanceAt(P Pose, p geom.Vec3) (float64, geom.Vec3) {
	d, n := o.localDistance(P.ApplyInverse(p))
	return d, P.Rot.Rotate(n)
}

// Bounds returns an axis-aligned box that contains the obstacle at time t:
// the world box around the rotated local bounding box (exact for a sphere
// and for unrotated boxes). A Plane returns an infinite box.
func (o *Obstacle) Bounds(t float64) (lo, hi geom.Vec3) {
	return o.BoundsAt(o.Pose(t))
}

// BoundsAt is Bounds with the obstacle at pose P.
func (o *Obstacle) BoundsAt(P Pose) (lo, hi geom.Vec3) {
	if o.Kind == Plane {
		inf := math.Inf(1)
		return geom.Vec3{X: -inf, Y: -inf, Z: -inf}, geom.Vec3{X: inf, Y: inf, Z: inf}
	}
	if o.Kind == Sphere {
		r := geom.Vec3{X: o.radius, Y: o.radius, Z: o.radius}
		return P.Trans.Sub(r), P.Trans.Add(r)
	}
	c := o.lo.Add(o.hi).Scale(0.5)
	h := o.hi.Sub(o.lo).Scale(0.5)
	wc := P.Apply(c)
	// |R|·h: the half extents of the rotated box.
	ex := P.Rot.Rotate(geom.Vec3{X: 1})
	ey := P.Rot.Rotate(geom.Vec3{Y: 1})
	ez := P.Rot.Rotate(geom.Vec3{Z: 1})
	e := geom.Vec3{
		X: math.Abs(ex.X)*h.X + math.Abs(ey.X)*h.Y + math.Abs(ez.X)*h.Z,
		Y: math.Abs(ex.Y)*h.X + math.Abs(ey.Y)*h.Y + math.Abs(ez.Y)*h.Z,
		Z: math.Abs(ex.Z)*h.X + math.Abs(ey.Z)*h.Y + math.Abs(ez.Z)*h.Z,
	}
	// Round-off margin so that rotated vertices stay inside.
	e = e.Add(geom.Vec3{X: 1, Y: 1, Z: 1}.Scale(1e-12 * (1 + h.Norm() + wc.Norm())))
	return wc.Sub(e), wc.Add(e)
}

func (o *Obstacle) computeLocalBounds() {
	switch o.Kind {
	case Plane:
		return
	case Sphere:
		r := geom.Vec3{X: o.radius, Y: o.radius, Z: o.radius}
		o.lo, o.hi = r.Scale(-1), r
		return
	case Box:
		o.lo, o.hi = o.half.Scale(-1), o.half
		return
	case Capsule:
		e := geom.Vec3{X: o.radius, Y: o.radius + o.height/2, Z: o.radius}
		o.lo, o.hi = e.Scale(-1), e
		return
	case Cylinder:
		e := geom.Vec3{X: o.radius, Y: o.height / 2, Z: o.radius}
		o.lo, o.hi = e.Scale(-1), e
		return
	}
	o.lo, o.hi = o.local[0], o.local[0]
	for _, p := range o.local {
		o.lo = geom.Vec3{X: math.Min(o.lo.X, p.X), Y: math.Min(o.lo.Y, p.Y), Z: math.Min(o.lo.Z, p.Z)}
		o.hi = geom.Vec3{X: math.Max(o.hi.X, p.X), Y: math.Max(o.hi.Y, p.Y), Z: math.Max(o.hi.Z, p.Z)}
	}
}
