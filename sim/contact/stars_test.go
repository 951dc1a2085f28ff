package contact

import (
	"math"
	"math/rand"
	"testing"

	"drape/sim/geom"
)

// This file tests the star bound β (stars.go) against the least distance
// between the primitives of random stars, and that it refuses the stars it
// cannot bound.

// fan returns a cloth of one star: vertex 0 and rim vertices 1..k at
// rim[i−1], faces (0, i, i+1) counter-clockwise, closed round vertex 0 or
// open (k−1 faces).
func fan(rim []geom.Vec3, closed bool) *Cloth {
	k := len(rim)
	c := &Cloth{X: append([]geom.Vec3{{}}, rim...)}
	nf := k - 1
	if closed {
		nf = k
	}
	for i := 0; i < nf; i++ {
		c.Tris = append(c.Tris, [3]int32{0, int32(1 + i), int32(1 + (i+1)%k)})
	}
	c.V = make([]geom.Vec3, len(c.X))
	c.InvMass = make([]float64, len(c.X))
	for i := range c.InvMass {
		c.InvMass[i] = 1
	}
	return c
}

// pointSegment and segmentSegment are exact distances written for the
// test (the least distance is at a critical point inside the domain or on
// its border); point–face distances are geom.PointTriangleDistance's,
// tested in geom.
func pointSegment(p, a, b geom.Vec3) float64 {
	e := b.Sub(a)
	t := 0.0
	if l := e.Dot(e); l > 0 {
		t = math.Max(0, math.Min(1, p.Sub(a).Dot(e)/l))
	}
	return p.Sub(a.Add(e.Scale(t))).Norm()
}

func segmentSegment(p0, p1, q0, q1 geom.Vec3) float64 {
	d := math.Min(math.Min(pointSegment(p0, q0, q1), pointSegment(p1, q0, q1)),
		math.Min(pointSegment(q0, p0, p1), pointSegment(q1, p0, p1)))
	u, v, w := p1.Sub(p0), q1.Sub(q0), p0.Sub(q0)
	a, b, c, e, f := u.Dot(u), u.Dot(v), v.Dot(v), u.Dot(w), v.Dot(w)
	if den := a*c - b*b; den > 1e-12*a*c {
		s, t := (b*f-c*e)/den, (a*f-b*e)/den
		if s > 0 && s < 1 && t > 0 && t < 1 {
			d = math.Min(d, p0.Add(u.Scale(s)).Sub(q0.Add(v.Scale(t))).Norm())
		}
	}
	return d
}

// starGap is the least distance between two primitives of c's faces that
// share no vertex: every vertex against every face without it, every edge
// against every edge without a common vertex.
func starGap(c *Cloth) float64 {
	var edges [][2]int32
	for _, t := range c.Tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			dup := false
			for _, e := range edges {
				dup = dup || e == [2]int32{a, b}
			}
			if !dup {
				edges = append(edges, [2]int32{a, b})
			}
		}
	}
	x := c.X
	d := math.Inf(1)
	for v := range x {
		for _, t := range c.Tris {
			if !has(t, int32(v)) {
				d = math.Min(d, geom.PointTriangleDistance(x[v], x[t[0]], x[t[1]], x[t[2]]))
			}
		}
	}
	for i, e := range edges {
		for _, g := range edges[i+1:] {
			if e[0] != g[0] && e[0] != g[1] && e[1] != g[0] && e[1] != g[1] {
				d = math.Min(d, segmentSegment(x[e[0]], x[e[1]], x[g[0]], x[g[1]]))
			}
		}
	}
	return d
}

// starOf returns starBound's β for vertex 0 of c.
func starOf(c *Cloth) float64 {
	s := kernelSolver(c, nil, DefaultParams())
	s.calls = 1
	return s.cull.starBound(0)
}

// TestStarBoundRandom: on 3000 random stars, closed and open, of 3 to 10
// faces with rims at random radii and heights (tilted faces, slivers,
// saddles, folds) in random orientations, β never exceeds the least
// distance between two of the star's primitives that share no vertex,
// computed exactly by the test's own distances. And it is not vacuous:
// β > 0 for many, and on the mild stars (heights within a quarter of the
// radii, angles within a third of even) at least a quarter of that
// distance.
func TestStarBoundRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var bounded, mild, mildBounded int
	worst := math.Inf(1)
	for trial := 0; trial < 3000; trial++ {
		closed := trial%2 == 0
		k := 3 + rng.Intn(8)
		isMild := trial%3 == 0
		span := 2 * math.Pi // the rim's angles, open fans less than a turn
		if !closed {
			span = (0.3 + 1.6*rng.Float64()) * math.Pi
		}
		rot := randomRotation(rng)
		rim := make([]geom.Vec3, k)
		for i := range rim {
			step := span / float64(k)
			if !closed {
				step = span / float64(k-1)
			}
			jit, hz := 0.9, 1.5
			if isMild {
				jit, hz = 0.33, 0.25
			}
			phi := step * (float64(i) + jit*(rng.Float64()-0.5))
			r := 0.3 + rng.Float64()
			z := hz * r * (2*rng.Float64() - 1)
			rim[i] = rot(geom.Vec3{X: r * math.Cos(phi), Y: r * math.Sin(phi), Z: z})
		}
		c := fan(rim, closed)
		b, gap := starOf(c), starGap(c)
		if b > gap*(1+1e-12) {
			t.Fatalf("trial %d (%d faces, closed %v): β %.6g above the least distance %.6g", trial, len(c.Tris), closed, b, gap)
		}
		if b > 0 {
			bounded++
			if isMild {
				worst = math.Min(worst, b/gap)
			}
		}
		if isMild {
			mild++
			if b >= 0.25*gap {
				mildBounded++
			}
		}
	}
	t.Logf("β > 0 on %d of 3000 stars; on the mild ones β ≥ a quarter of the distance on %d of %d (least ratio %.3f)", bounded, mildBounded, mild, worst)
	if bounded < 1000 || mildBounded < mild*9/10 {
		t.Errorf("β > 0 on %d stars, a quarter of the distance on %d of %d mild ones: the bound is too weak to spare any test", bounded, mildBounded, mild)
	}
}

// randomRotation returns a uniformly random rotation.
func randomRotation(rng *rand.Rand) func(geom.Vec3) geom.Vec3 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/l, q[1]/l, q[2]/l, q[3]/l
	return func(p geom.Vec3) geom.Vec3 {
		return geom.Vec3{
			X: (1-2*(y*y+z*z))*p.X + 2*(x*y-w*z)*p.Y + 2*(x*z+w*y)*p.Z,
			Y: 2*(x*y+w*z)*p.X + (1-2*(x*x+z*z))*p.Y + 2*(y*z-w*x)*p.Z,
			Z: 2*(x*z-w*y)*p.X + 2*(y*z+w*x)*p.Y + (1-2*(x*x+y*y))*p.Z,
		}
	}
}

// TestStarBoundRefuses: stars that are not one fan winding once get no
// bound, whatever their distances: a flat rim that goes round twice
// (every projected face positive, but two layers), a rim that doubles
// back (one face flipped), a fan folded shut like a closed book, two fans
// that share only their centre, and a regular star as the control, whose
// bound is near the true distance.
func TestStarBoundRefuses(t *testing.T) {
	ring := func(k int, turns, wobble float64) []geom.Vec3 {
		rim := make([]geom.Vec3, k)
		for i := range rim {
			phi := 2 * math.Pi * turns * float64(i) / float64(k)
			rim[i] = geom.Vec3{X: math.Cos(phi), Y: math.Sin(phi), Z: wobble * math.Sin(2*math.Pi*float64(i)/float64(k))}
		}
		return rim
	}
	regular := fan(ring(6, 1, 0), true)
	if b, gap := starOf(regular), starGap(regular); !(b >= 0.8*gap && b <= gap) {
		t.Fatalf("regular hexagonal star: β %.4g against the least distance %.4g: the control fails", b, gap)
	}
	back := ring(6, 1, 0)
	back[2], back[3] = back[3], back[2] // face (0, 2, 3) runs clockwise
	book := []geom.Vec3{{X: 1}, {X: 0.5, Y: 1, Z: 0.05}, {X: -0.5, Y: 1, Z: 0.1}, {X: -1}, {X: -0.5, Y: 1, Z: -0.1}, {X: 0.5, Y: 1, Z: -0.05}}
	bowtie := fan(ring(5, 1, 0.1), true)
	second := fan(ring(5, 1, 0.1), true)
	for i := range second.X {
		second.X[i] = second.X[i].Add(geom.Vec3{Z: 0.5 * second.X[i].Norm()})
	}
	n := int32(len(bowtie.X))
	for _, t := range second.Tris {
		bowtie.Tris = append(bowtie.Tris, [3]int32{0, t[1] + n - 1, t[2] + n - 1})
	}
	bowtie.X = append(bowtie.X, second.X[1:]...)
	bowtie.V = make([]geom.Vec3, len(bowtie.X))
	bowtie.InvMass = append(bowtie.InvMass, second.InvMass[1:]...)
	for _, tc := range []struct {
		name string
		c    *Cloth
	}{
		{"twice round", fan(ring(9, 2, 0.05), true)},
		{"doubling back", fan(back, true)},
		{"folded shut", fan(book, false)},
		{"two fans", bowtie},
	} {
		if b := starOf(tc.c); b != 0 {
			t.Errorf("%s: β %.4g, want none (least distance %.4g)", tc.name, b, starGap(tc.c))
		}
	}
}
