package obstacle

import (
	"math"

	"drape/sim/geom"
)

// ChordTolerance is the largest distance between a primitive's analytic
// surface and its tessellation, m, for primitives of radius up to
// MaxExactRadius. Rule: a circle of radius r gets the smallest number n of
// segments (a multiple of 4, at least 16) with sagitta
// r·(1 − cos(π/n)) ≤ ChordTolerance/2, and the profile of a capsule's
// hemisphere the same angular step, so that a quad of the lathe (two
// sagittas across its diagonal) stays within ChordTolerance; a sphere is
// the coarsest icosphere (geom.Icosphere) whose faces' planes are within
// ChordTolerance of the sphere. n is capped at MaxSegments (a sphere at
// level 6, 81920 faces), so larger radii get a chord error of about
// r·(1 − cos(π/MaxSegments)) instead. The vertices lie on the analytic
// surface, so the tessellation is inside the primitive. Flat parts (box
// faces, cylinder caps) are exact.
//
// 1 mm, a third of the default contact thickness: the cloth rests on the
// collision mesh, which is also what is drawn, so the tolerance only
// bounds how far that rest differs from the analytic surface. At 0.5 mm
// the r = 0.5 m sphere of the sphere scenes needed the next icosphere
// level (20480 faces instead of 5120; the coarser one measured 0.54 mm),
// and a collision pass against it cost 2.3–2.7 times as much
// (BenchmarkResolve in sim/contact: 61–77 against 26–29 CPU ms).
const (
	ChordTolerance = 1e-3 // m
	MaxSegments    = 256
	MaxExactRadius = 6.6 // m: r·(1 − cos(π/256)) ≤ ChordTolerance/2
)

// bevel returns the width of the thin band next to a box's or cylinder's
// edges: the vertices on the edge carry the bisector normal and those a
// band away the face normals, so smooth shading stays flat on the faces.
// The band does not change the shape.
func bevel(a ...float64) float64 {
	d := 2e-3
	for _, x := range a {
		d = math.Min(d, x/4)
	}
	return d
}

// segments returns the number of segments of a circle of radius r (see
// ChordTolerance).
func segments(r, tol float64) int {
	n := 16
	for n < MaxSegments && r*(1-math.Cos(math.Pi/float64(n))) > tol/2 {
		n += 4
	}
	return n
}

// tessellate builds the surface mesh of a primitive with chord error at
// most tol (ChordTolerance in Build; the tests vary it).
func (o *Obstacle) tessellate(tol float64) {
	switch o.Kind {
	case Sphere:
		o.tessellateSphere(tol)
	case Box:
		o.tessellateBox()
	case Capsule:
		n := segments(o.radius, tol)
		m := n / 4 // steps per quarter circle of the profile
		hh := o.height / 2
		var prof []profilePoint
		for k := 0; k <= m; k++ { // bottom hemisphere, pole to equator
			phi := -math.Pi/2 + math.Pi/2*float64(k)/float64(m)
			c, s := math.Cos(phi), math.Sin(phi)
			if k == 0 {
				c = 0
			}
			prof = append(prof, profilePoint{o.radius * c, -hh + o.radius*s, c, s})
		}
		start := 0
		if hh == 0 {
			start = 1 // no cylinder: share the equator ring
		}
		for k := start; k <= m; k++ { // top hemisphere, equator to pole
			phi := math.Pi / 2 * float64(k) / float64(m)
			c, s := math.Cos(phi), math.Sin(phi)
			if k == m {
				c = 0
			}
			prof = append(prof, profilePoint{o.radius * c, hh + o.radius*s, c, s})
		}
		o.lathe(prof, n)
	case Cylinder:
		r, hh := o.radius, o.height/2
		d := bevel(r, hh)
		b := math.Sqrt(0.5)
		// No poles: the flat caps close the rings at ρ = r − d (lathe).
		o.lathe([]profilePoint{
			{r - d, -hh, 0, -1},
			{r, -hh, b, -b},
			{r, -hh + d, 1, 0},
			{r, hh - d, 1, 0},
			{r, hh, b, b},
			{r - d, hh, 0, 1},
		}, segments(r, tol))
	}
}

// profilePoint is a point (ρ, y) of a surface of revolution about local Y
// with its normal (nρ, ny).
type profilePoint struct{ rho, y, nrho, ny float64 }

// lathe revolves a profile that runs from the bottom to the top into a
// closed surface with n segments around, triangles counter-clockwise seen
// from outside. An end of the profile on the axis (ρ = 0) is a pole,
// joined to the next ring by a fan; an end off the axis is closed by a
// flat cap over its ring (capPolygon), the profile's normal there being
// (0, ∓1).
func (o *Obstacle) lathe(prof []profilePoint, n int) {
	o.local, o.localNormals, o.tris = nil, nil, nil
	ring := make([]int32, len(prof)) // first vertex of each ring
	for i, q := range prof {
		ring[i] = int32(len(o.local))
		if q.rho == 0 {
			o.local = append(o.local, geom.Vec3{Y: q.y})
			o.localNormals = append(o.localNormals, geom.Vec3{Y: q.ny}.Unit())
			continue
		}
		for j := 0; j < n; j++ {
			s, c := math.Sincos(2 * math.Pi * float64(j) / float64(n))
			o.local = append(o.local, geom.Vec3{X: q.rho * c, Y: q.y, Z: q.rho * s})
			o.localNormals = append(o.localNormals, geom.Vec3{X: q.nrho * c, Y: q.ny, Z: q.nrho * s}.Unit())
		}
	}
	for i := 0; i+1 < len(prof); i++ {
		lo, hi := ring[i], ring[i+1]
		for j := int32(0); j < int32(n); j++ {
			k := (j + 1) % int32(n)
			switch {
			case prof[i].rho == 0:
				o.tris = append(o.tris, [3]int32{lo, hi + j, hi + k})
			case prof[i+1].rho == 0:
				o.tris = append(o.tris, [3]int32{lo + j, hi, lo + k})
			default:
				a, b, c, d := lo+j, lo+k, hi+k, hi+j
				o.tris = append(o.tris, [3]int32{a, c, b}, [3]int32{a, d, c})
			}
		}
	}
	if prof[0].rho != 0 {
		o.tris = capPolygon(o.tris, ring[0], n, false)
	}
	if last := len(prof) - 1; prof[last].rho != 0 {
		o.tris = capPolygon(o.tris, ring[last], n, true)
	}
}

// capPolygon appends to tris a triangulation of the flat, convex ring of
// n ≥ 3 vertices first, first+1, … (lathe's ring: vertex j at angle
// θ_j = 2πj/n, x = ρ·cos θ_j, z = ρ·sin θ_j) without inner vertices,
// facing +Y when up and −Y otherwise: the cap of a cylinder.
//
// The collision pipeline lists a body's triangles by their axis-aligned
// boxes (sim/contact's grid), and tests every cloth face against every
// body triangle whose box meets the face's, so the cap is cut into
// triangles whose boxes overlap little rather than into a fan, whose n
// long thin triangles all meet near the middle. For n ≥ 8 two triangles
// make the quadrilateral of the ring vertices nearest θ = 45°, 135°, 225°
// and 315° (a square with sides along x and z when 8 divides n: each
// triangle's box is the square, the least box a triangle can have for its
// area), and the four circular segments beyond its sides are cut by
// earHalving. A face of the tablecloth's sheet resting on its table top
// (72 segments) then meets 3.2 cap triangles' boxes on average instead
// of the 10.7 of a fan from the centre (TestCapBoxOverlap), and a
// collision phase of that sheet on the table took half the time, with
// 40 % fewer proximity pairs, the fan's spokes having made edge–edge
// pairs under every face (BenchmarkTableTopContact;
// docs/notes/performance-history.md).
func capPolygon(tris [][3]int32, first int32, n int, up bool) [][3]int32 {
	add := func(a, b, c int32) {
		if up { // in increasing θ a triangle faces −Y (x × z = −y)
			a, c = c, a
		}
		tris = append(tris, [3]int32{first + a%int32(n), first + b%int32(n), first + c%int32(n)})
	}
	if n < 8 {
		idx := make([]int32, n)
		for j := range idx {
			idx[j] = int32(j)
		}
		earHalving(idx, add)
		return tris
	}
	var c [5]int32 // the quadrilateral's corners, c[4] = c[0] + n
	for s := 0; s < 4; s++ {
		c[s] = int32(n * (2*s + 1) / 8)
	}
	c[4] = c[0] + int32(n)
	add(c[0], c[1], c[2])
	add(c[0], c[2], c[3])
	for s := 0; s < 4; s++ {
		seg := make([]int32, 0, c[s+1]-c[s]+1)
		for j := c[s]; j <= c[s+1]; j++ {
			seg = append(seg, j)
		}
		earHalving(seg, add)
	}
	return tris
}

// earHalving triangulates the convex polygon idx (vertex indices in order
// round it, at least 3) by cutting the ears at every other vertex, which
// halves the polygon each round (m, ⌈m/2⌉, … down to a triangle; m − 2
// triangles in all): small slivers along the rim first, then ever
// larger and rounder triangles inwards.
func earHalving(idx []int32, add func(a, b, c int32)) {
	for len(idx) > 3 {
		m := len(idx)
		if m == 4 {
			add(idx[0], idx[1], idx[2])
			add(idx[0], idx[2], idx[3])
			return
		}
		// Cut the ear at every odd position k+1, the last one closing
		// the polygon when m is even; with m odd the last vertex has
		// no partner and stays.
		next := make([]int32, 0, m/2+1)
		k := 0
		for ; k+2 < m || (k+2 == m && m%2 == 0); k += 2 {
			add(idx[k], idx[k+1], idx[(k+2)%m])
			next = append(next, idx[k])
		}
		idx = append(next, idx[k:]...)
	}
	add(idx[0], idx[1], idx[2])
}

// tessellateSphere picks the coarsest icosphere within ChordTolerance: the
// deepest point of a face below the sphere is the foot of the centre on
// the face's plane, at depth r·(1 − dist(0, plane)) for the unit icosphere.
func (o *Obstacle) tessellateSphere(tol float64) {
	var pos []geom.Vec3
	var tris [][3]int32
	for s := 0; s <= 6; s++ {
		pos, tris = geom.Icosphere(s)
		if o.radius*(1-minPlaneDistance(pos, tris)) <= tol {
			break
		}
	}
	o.local = make([]geom.Vec3, len(pos))
	o.localNormals = make([]geom.Vec3, len(pos))
	for i, p := range pos {
		n := p.Unit()
		o.local[i] = n.Scale(o.radius)
		o.localNormals[i] = n
	}
	o.tris = tris
}

func minPlaneDistance(pos []geom.Vec3, tris [][3]int32) float64 {
	m := math.Inf(1)
	for _, t := range tris {
		a, b, c := pos[t[0]].Unit(), pos[t[1]].Unit(), pos[t[2]].Unit()
		n := b.Sub(a).Cross(c.Sub(a)).Unit()
		m = math.Min(m, math.Abs(n.Dot(a)))
	}
	return m
}

// tessellateBox splits each face of the box into 3×3 quads along the lines
// ±(h − bevel), so that the vertices on the edges (normal: the mean of the
// faces') are a bevel away from those with the face normal.
func (o *Obstacle) tessellateBox() {
	h := [3]float64{o.half.X, o.half.Y, o.half.Z}
	d := bevel(h[0], h[1], h[2])
	coord := func(axis, i int) float64 {
		return [4]float64{-h[axis], -h[axis] + d, h[axis] - d, h[axis]}[i]
	}
	ids := map[[3]int]int32{}
	o.local, o.localNormals, o.tris = nil, nil, nil
	vert := func(ix [3]int) int32 {
		if id, ok := ids[ix]; ok {
			return id
		}
		id := int32(len(o.local))
		ids[ix] = id
		var p, n [3]float64
		for a := 0; a < 3; a++ {
			p[a] = coord(a, ix[a])
			switch ix[a] {
			case 0:
				n[a] = -1
			case 3:
				n[a] = 1
			}
		}
		o.local = append(o.local, geom.Vec3{X: p[0], Y: p[1], Z: p[2]})
		o.localNormals = append(o.localNormals, geom.Vec3{X: n[0], Y: n[1], Z: n[2]}.Unit())
		return id
	}
	// For each face: the normal axis, its side, and (u, v) with u×v = n.
	faces := []struct{ axis, side, u, v int }{
		{0, 3, 1, 2}, {0, 0, 2, 1},
		{1, 3, 2, 0}, {1, 0, 0, 2},
		{2, 3, 0, 1}, {2, 0, 1, 0},
	}
	for _, f := range faces {
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				at := func(i, j int) int32 {
					var ix [3]int
					ix[f.axis], ix[f.u], ix[f.v] = f.side, i, j
					return vert(ix)
				}
				a, b, c, e := at(i, j), at(i+1, j), at(i+1, j+1), at(i, j+1)
				o.tris = append(o.tris, [3]int32{a, b, c}, [3]int32{a, c, e})
			}
		}
	}
}
