package contact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"drape/sim/geom"
)

// crumpledPatch is a 5 × 5 grid of vertices 1 cm apart, triangulated,
// with every vertex moved at random by up to 1.5 cm in x and y and 1 cm
// in z: a patch crumpled through itself, whose faces cross both faces
// far off on the mesh and faces next to them.
func crumpledPatch(rng *rand.Rand) ([]geom.Vec3, [][3]int32) {
	const n, h = 5, 0.01
	x := make([]geom.Vec3, 0, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			x = append(x, geom.Vec3{
				X: float64(i)*h + 1.5*h*(2*rng.Float64()-1),
				Y: float64(j)*h + 1.5*h*(2*rng.Float64()-1),
				Z: h * (2*rng.Float64() - 1),
			})
		}
	}
	var tris [][3]int32
	for j := 0; j < n-1; j++ {
		for i := 0; i < n-1; i++ {
			v := int32(j*n + i)
			tris = append(tris, [3]int32{v, v + 1, v + n + 1}, [3]int32{v, v + n + 1, v + n})
		}
	}
	return x, tris
}

// brutePairs lists the pairs of tris (f < g) that share no vertex and
// cross, and those that share exactly one vertex and cross (tight), by
// the test's own loop over all pairs.
func brutePairs(x []geom.Vec3, tris [][3]int32) (crossing, tight [][2]int32) {
	for f, t := range tris {
		for g := f + 1; g < len(tris); g++ {
			u := tris[g]
			shared := 0
			for _, a := range t {
				for _, b := range u {
					if a == b {
						shared++
					}
				}
			}
			p := [2]int32{int32(f), int32(g)}
			switch {
			case shared == 0 && trianglesIntersect(x[t[0]], x[t[1]], x[t[2]], x[u[0]], x[u[1]], x[u[2]]):
				crossing = append(crossing, p)
			case shared == 1 && tightCrossing(x, t, u):
				tight = append(tight, p)
			}
		}
	}
	return crossing, tight
}

// joined returns the tight pairs that join, face by face, a crossing
// pair: the faces of the crossing pairs, and then of every tight pair
// with a face among them, until none is added.
func joined(crossing, tight [][2]int32) [][2]int32 {
	on := map[int32]bool{}
	for _, p := range crossing {
		on[p[0]], on[p[1]] = true, true
	}
	in := make([]bool, len(tight))
	var out [][2]int32
	for grew := true; grew; {
		grew = false
		for i, p := range tight {
			if !in[i] && (on[p[0]] || on[p[1]]) {
				in[i], grew = true, true
				on[p[0]], on[p[1]] = true, true
				out = append(out, p)
			}
		}
	}
	return out
}

// TestTightPairsCloseTheContour: on patches crumpled through themselves,
// Find counts and lists only the pairs that share no vertex (as the
// oracle does), and adds to their contours the tight pairs that join
// them, and no others: their faces are Crossing, on the contour of the
// pairs they join, and their segments are in the length. A patch with
// tight pairs and no crossing pair has nothing tangled.
func TestTightPairsCloseTheContour(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var u Untangler
	seen, left, alone := 0, 0, 0
	for trial := 0; trial < 2000 && (seen < 40 || alone < 5); trial++ {
		x, tris := crumpledPatch(rng)
		crossing, tight := brutePairs(x, tris)
		n := u.Find(x, tris)
		if n != len(crossing) || len(u.Pairs()) != n {
			t.Fatalf("trial %d: Find %d pairs (Pairs %d), want the %d that share no vertex", trial, n, len(u.Pairs()), len(crossing))
		}
		if n == 0 {
			if len(tight) > 0 {
				alone++
				if len(u.pairs) != 0 || u.Length() != 0 {
					t.Errorf("trial %d: tight pairs alone: %d pairs kept, length %v; want none", trial, len(u.pairs), u.Length())
				}
			}
			continue
		}
		want := joined(crossing, tight)
		if len(want) == 0 {
			continue
		}
		seen++
		left += len(tight) - len(want)
		got := u.pairs[u.crossing:]
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d tight pairs on the contours, want %d (of %d)", trial, len(got), len(want), len(tight))
		}
		wantLen := 0.0
		for _, p := range crossing {
			wantLen += ContourLength(x, tris[p[0]], tris[p[1]])
		}
		c := u.Contour()
		for _, p := range want {
			if !slices.Contains(got, p) {
				t.Fatalf("trial %d: tight pair %v missing", trial, p)
			}
			l, _ := tightLength(x, tris[p[0]], tris[p[1]])
			wantLen += l
			if u.Faces()[p[0]] != Crossing || u.Faces()[p[1]] != Crossing || c[p[0]] < 0 || c[p[0]] != c[p[1]] {
				t.Errorf("trial %d: tight pair %v: flags %d %d, contours %d %d", trial, p, u.Faces()[p[0]], u.Faces()[p[1]], c[p[0]], c[p[1]])
			}
		}
		if math.Abs(u.Length()-wantLen) > 1e-12 {
			t.Errorf("trial %d: length %v, want %v", trial, u.Length(), wantLen)
		}
	}
	if seen < 20 || left == 0 || alone == 0 {
		t.Fatalf("%d patches with tight pairs on a contour, %d tight pairs left off one, %d patches with tight pairs alone; want at least 20, some and some", seen, left, alone)
	}
	t.Logf("%d patches with tight pairs on a contour; %d tight pairs joined none; %d patches with tight pairs alone", seen, left, alone)
}

// tightLength is the length of the segment of a tight pair, from their
// common corner to the end point farthest from it (0 when they do not
// cross), and whether an end point's normal term is clamped.
func tightLength(x []geom.Vec3, t, u [3]int32) (float64, bool) {
	if !tightCrossing(x, t, u) {
		return 0, false
	}
	var pts [6]endPoint
	v, n := tightEnds(x, t, u, &pts)
	l, clamp := 0.0, false
	for _, e := range pts[:n] {
		l = max(l, e.p.Sub(x[v]).Norm())
		clamp = clamp || math.Abs(e.n.Unit().Dot(e.e.Unit())) < 1/gradClamp
	}
	return l, clamp
}

// TestTightGradient checks tightGradient against central differences of
// the segment's length on random pairs of triangles with a common
// corner that cross, and that a step along it shortens the segment.
func TestTightGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tris := [][3]int32{{0, 1, 2}, {0, 3, 4}}
	checked := 0
	for trial := 0; trial < 2000 && checked < 60; trial++ {
		x := make([]geom.Vec3, 5)
		for i := range x {
			x[i] = geom.Vec3{X: rng.Float64()*2 - 1, Y: rng.Float64()*2 - 1, Z: rng.Float64()*2 - 1}
		}
		l0, clamp := tightLength(x, tris[0], tris[1])
		if l0 < 0.05 || clamp {
			continue
		}
		var pts [6]endPoint
		v, n := tightEnds(x, tris[0], tris[1], &pts)
		g := make([]geom.Vec3, len(x))
		if l := tightGradient(x, v, pts[:n], g); math.Abs(l-l0) > 1e-12 {
			t.Fatalf("trial %d: tightGradient's length %v, want %v", trial, l, l0)
		}
		const eps = 1e-6
		ok := true
		for w := range x {
			for c := 0; c < 3; c++ {
				xp := append([]geom.Vec3(nil), x...)
				xm := append([]geom.Vec3(nil), x...)
				add(&xp[w], c, eps)
				add(&xm[w], c, -eps)
				lp, _ := tightLength(xp, tris[0], tris[1])
				lm, _ := tightLength(xm, tris[0], tris[1])
				if lp == 0 || lm == 0 {
					ok = false
					continue
				}
				fd := -(lp - lm) / (2 * eps)
				if got := comp(g[w], c); math.Abs(got-fd) > 1e-5*(1+math.Abs(fd)) {
					t.Errorf("trial %d: vertex %d axis %d: gradient %v, central difference %v", trial, w, c, got, fd)
				}
			}
		}
		if !ok {
			continue
		}
		const step = 1e-4
		g2 := 0.0
		xs := append([]geom.Vec3(nil), x...)
		for w := range xs {
			xs[w] = xs[w].Add(g[w].Scale(step))
			g2 += g[w].Dot(g[w])
		}
		if l1, _ := tightLength(xs, tris[0], tris[1]); !(l1 < l0) || math.Abs((l0-l1)-step*g2) > 0.1*step*g2 {
			t.Errorf("trial %d: a step of %g along the gradient: length %v → %v, want a decrease of about %v", trial, step, l0, l1, step*g2)
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d configurations checked", checked)
	}
}
