package app

import (
	"math"
	"sync/atomic"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/obstacle"

	"github.com/go-gl/mathgl/mgl32"
)

// planeSquare is the side of the square that stands for an infinite
// Plane obstacle in the viewer, m: beyond the ±3 m ground grid, so the
// grid lies on it, and centred below the cloth (snapped to planeSnap) so
// that it stays under a cloth that slides away.
const (
	planeSquare = 12.0
	planeSnap   = 1.0
)

// obstacleGens hands out Snapshot.ObstacleGen values: unique across
// models, so a snapshot buffer filled by an earlier scene's model never
// looks up to date for a new one.
var obstacleGens atomic.Uint64

// obstacleCache keeps the obstacles' drawn surfaces (float32, world
// coordinates) between snapshots and rebuilds one only when its pose (or,
// for a Plane, the snapped point below the cloth) changed: a static
// obstacle costs nothing per step, and a snapshot buffer that already
// holds the current geometry (same gen) is not copied into again.
type obstacleCache struct {
	gen   uint64
	keys  []obstacleKey
	items []ObstacleInfo
	verts []geom.Vec3 // scratch for Obstacle.Vertices
	norms []geom.Vec3 // scratch for Obstacle.Normals
}

// obstacleKey is what an obstacle's drawn surface depends on.
type obstacleKey struct {
	pose   obstacle.Pose
	centre geom.Vec3 // Plane: the square's centre
	valid  bool
}

// fill writes the obstacles at time t into dst (dst.Lo and dst.Hi, the
// cloth's bounds, must be set), updating the cache first.
func (c *obstacleCache) fill(dst *Snapshot, obs []*obstacle.Obstacle, t float64) {
	if len(obs) == 0 {
		dst.Obstacles, dst.ObstacleGen = dst.Obstacles[:0], 0
		return
	}
	c.update(obs, t, dst.Lo, dst.Hi)
	if dst.ObstacleGen == c.gen && len(dst.Obstacles) == len(c.items) {
		return
	}
	dst.Obstacles = buf.Grow(dst.Obstacles, len(c.items))
	for i := range c.items {
		src, d := &c.items[i], &dst.Obstacles[i]
		d.Name, d.Kind, d.Friction, d.Offset, d.Center = src.Name, src.Kind, src.Friction, src.Offset, src.Center
		d.Shape, d.Pose = src.Shape, src.Pose
		d.Pos = append(d.Pos[:0], src.Pos...)
		d.Normal = append(d.Normal[:0], src.Normal...)
		d.Tris = append(d.Tris[:0], src.Tris...)
	}
	dst.ObstacleGen = c.gen
}

// update rebuilds the cached surfaces whose key changed and takes a new
// gen if any did. lo, hi are the cloth's bounds (lo > hi when empty).
func (c *obstacleCache) update(obs []*obstacle.Obstacle, t float64, lo, hi [3]float32) {
	if len(c.items) != len(obs) {
		c.items = make([]ObstacleInfo, len(obs))
		c.keys = make([]obstacleKey, len(obs))
	}
	below := geom.Vec3{}
	if lo[0] <= hi[0] {
		below = geom.Vec3{X: float64(lo[0]+hi[0]) / 2, Y: float64(lo[1]+hi[1]) / 2, Z: float64(lo[2]+hi[2]) / 2}
	}
	changed := false
	for i, o := range obs {
		k := obstacleKey{pose: o.Pose(t), valid: true}
		var n geom.Vec3
		if o.Kind == obstacle.Plane {
			var p geom.Vec3
			p, n = o.Plane(t)
			k.centre = planeCentre(p, n, below)
		}
		if k == c.keys[i] {
			continue
		}
		c.keys[i], changed = k, true
		it := &c.items[i]
		off := o.Offset()
		it.Name, it.Kind, it.Friction = o.Name(), o.Kind, o.Friction
		it.Shape, it.Pose = o, k.pose
		it.Offset = [3]float32{float32(off.X), float32(off.Y), float32(off.Z)}
		if o.Kind == obstacle.Plane {
			it.Pos, it.Normal, it.Tris = planeSurface(it.Pos[:0], it.Normal[:0], it.Tris[:0], k.centre, n)
		} else {
			c.verts = o.Vertices(t, c.verts)
			c.norms = o.Normals(t, c.norms)
			it.Pos, it.Normal = appendVec3s(it.Pos[:0], c.verts), appendVec3s(it.Normal[:0], c.norms)
			it.Tris = it.Tris[:0]
			for _, f := range o.Tris() {
				it.Tris = append(it.Tris, uint32(f[0]), uint32(f[1]), uint32(f[2]))
			}
		}
		it.Center = boundsCentre(it.Pos)
	}
	if changed || c.gen == 0 {
		c.gen = obstacleGens.Add(1)
	}
}

// planeCentre returns the point of the plane through p with unit normal n
// below q (q projected along n), with its coordinates rounded to
// planeSnap and projected back onto the plane, so that the square moves
// only when the cloth has moved a metre.
func planeCentre(p, n, q geom.Vec3) geom.Vec3 {
	snap := func(x float64) float64 { return math.Round(x/planeSnap) * planeSnap }
	c := q.Sub(n.Scale(q.Sub(p).Dot(n)))
	c = geom.Vec3{X: snap(c.X), Y: snap(c.Y), Z: snap(c.Z)}
	return c.Sub(n.Scale(c.Sub(p).Dot(n)))
}

// planeSurface appends the square of side planeSquare centred at c in the
// plane with unit normal n: 4 vertices, 2 faces counter-clockwise seen
// from the side n points to.
func planeSurface(pos, nrm []float32, tris []uint32, c, n geom.Vec3) ([]float32, []float32, []uint32) {
	ref := geom.Vec3{X: 1}
	if math.Abs(n.X) > 0.9 {
		ref = geom.Vec3{Z: 1}
	}
	u := n.Cross(ref)
	u = u.Scale(planeSquare / 2 / u.Norm())
	w := n.Cross(u) // u × w = n, so (−u−w, u−w, u+w, −u+w) runs counter-clockwise about n
	for _, s := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		p := c.Add(u.Scale(s[0])).Add(w.Scale(s[1]))
		pos = append(pos, float32(p.X), float32(p.Y), float32(p.Z))
		nrm = append(nrm, float32(n.X), float32(n.Y), float32(n.Z))
	}
	return pos, nrm, append(tris, 0, 1, 2, 0, 2, 3)
}

func appendVec3s(dst []float32, v []geom.Vec3) []float32 {
	for _, p := range v {
		dst = append(dst, float32(p.X), float32(p.Y), float32(p.Z))
	}
	return dst
}

// boundsCentre returns the centre of the bounding box of the points pos
// (x, y, z each), or the origin for none.
func boundsCentre(pos []float32) [3]float32 {
	if len(pos) < 3 {
		return [3]float32{}
	}
	lo, hi := [3]float32(pos[:3]), [3]float32(pos[:3])
	for i := 0; i+2 < len(pos); i += 3 {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], pos[i+k]), max(hi[k], pos[i+k])
		}
	}
	return mgl32.Vec3(lo).Add(mgl32.Vec3(hi)).Mul(0.5)
}
