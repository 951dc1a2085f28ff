package geom

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MaxTriangles is the largest number of triangles the generators and the
// scene loader accept, a guard against typing one zero too many.
const MaxTriangles = 2_000_000

// checkRect returns an error unless width and height are positive and finite.
func checkRect(width, height float64) error {
	if !(width > 0) || math.IsInf(width, 0) {
		return fmt.Errorf("width must be positive and finite, got %v m", width)
	}
	if !(height > 0) || math.IsInf(height, 0) {
		return fmt.Errorf("height must be positive and finite, got %v m", height)
	}
	return nil
}

// RegularGrid returns a width × height m rectangle, material space
// [0,width]×[0,height], split into nx × ny quads and each quad into two
// triangles, counter-clockwise in material space. The diagonals alternate
// in a checkerboard (quad (i,j) is cut from its lower-left to its upper-right
// corner when i+j is even, from lower-right to upper-left otherwise), so the
// mesh has no preferred shear direction. Vertex (i,j) is slot j·(nx+1)+i
// with Rest = (i·width/nx, j·height/ny) and Pos = (Rest.X, Rest.Y, 0); the
// last row and column lie exactly on width and height.
// The mesh has (nx+1)(ny+1) vertices and 2·nx·ny faces; nx, ny < 1 or more
// than MaxTriangles faces is an error.
func RegularGrid(width, height float64, nx, ny int) (*Mesh, error) {
	if err := checkRect(width, height); err != nil {
		return nil, fmt.Errorf("regular grid: %w", err)
	}
	if nx < 1 || ny < 1 {
		return nil, fmt.Errorf("regular grid: nx and ny must be at least 1, got nx=%d ny=%d", nx, ny)
	}
	if nx > MaxTriangles/2/ny {
		return nil, fmt.Errorf("regular grid: %d×%d quads give more than %d triangles", nx, ny, MaxTriangles)
	}
	coord := func(i, n int, size float64) float64 {
		if i == n {
			return size
		}
		return size * float64(i) / float64(n)
	}
	nv := (nx + 1) * (ny + 1)
	pos := make([]Vec3, 0, nv)
	rest := make([]Vec2, 0, nv)
	for j := 0; j <= ny; j++ {
		y := coord(j, ny, height)
		for i := 0; i <= nx; i++ {
			x := coord(i, nx, width)
			rest = append(rest, Vec2{x, y})
			pos = append(pos, Vec3{x, y, 0})
		}
	}
	tris := make([][3]int32, 0, 2*nx*ny)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			v00 := int32(j*(nx+1) + i)
			v10, v01 := v00+1, v00+int32(nx+1)
			v11 := v01 + 1
			if (i+j)%2 == 0 {
				tris = append(tris, [3]int32{v00, v10, v11}, [3]int32{v00, v11, v01})
			} else {
				tris = append(tris, [3]int32{v00, v10, v01}, [3]int32{v10, v11, v01})
			}
		}
	}
	m, err := NewMesh(pos, rest, tris)
	if err != nil {
		return nil, fmt.Errorf("regular grid: %w", err)
	}
	return m, nil
}

// IrregularGrid returns a Delaunay triangulation of about n triangles
// covering the width × height m rectangle [0,width]×[0,height] in material
// space, with Pos = (Rest.X, Rest.Y, 0).
//
// The points lie on rows of a hexagonal lattice with spacing
// h = √(4·width·height/(√3·n)) (the side of an equilateral triangle of
// area width·height/n), rounded so that whole rows and columns fit: boundary
// points evenly spaced on the four edges (the corners included), interior
// points on every other row shifted by half a spacing, each moved by a
// uniform random jitter of up to 0.15 of the spacing drawn from a PCG
// generator seeded with seed. Consecutive rows are zipped into triangles
// and Lawson edge flips then make the triangulation Delaunay (every
// triangle's circumcircle is empty; the boundary edges are never flipped).
// The result is deterministic for a given (width, height, n, seed).
// The measured minimum angle is 21.9° for (1 m, 1 m, 2000, seed 1); the
// tests assert at least 20° on several sizes and seeds; there are no slivers on the boundary because
// boundary points are not jittered.
// n below 2 or above MaxTriangles is an error.
func IrregularGrid(width, height float64, n int, seed int64) (*Mesh, error) {
	if err := checkRect(width, height); err != nil {
		return nil, fmt.Errorf("irregular grid: %w", err)
	}
	if n < 2 || n > MaxTriangles {
		return nil, fmt.Errorf("irregular grid: triangle count must be in [2, %d], got %d", MaxTriangles, n)
	}
	h := math.Sqrt(4 * width * height / (math.Sqrt(3) * float64(n)))
	kf := math.Max(1, math.Round(width/h))                   // segments along a row
	mf := math.Max(1, math.Round(height/(h*math.Sqrt(3)/2))) // row gaps
	if 2*kf*mf > MaxTriangles {
		return nil, fmt.Errorf("irregular grid: %g × %g m is too elongated for %d triangles (it would need %g)", width, height, n, 2*kf*mf)
	}
	k, m := int(kf), int(mf)
	dx, dy := width/float64(k), height/float64(m)
	jit := 0.15 * math.Min(dx, dy)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x64726170652d6972))
	jitter := func() float64 { return jit * (2*rng.Float64() - 1) }

	var pos []Vec3
	var rest []Vec2
	add := func(x, y float64) int32 {
		rest = append(rest, Vec2{x, y})
		pos = append(pos, Vec3{x, y, 0})
		return int32(len(rest) - 1)
	}
	rows := make([][]int32, m+1) // vertex slots of each row, by increasing x
	for j := 0; j <= m; j++ {
		y := height * float64(j) / float64(m)
		if j == m {
			y = height
		}
		if j == 0 || j == m {
			for i := 0; i <= k; i++ {
				x := width * float64(i) / float64(k)
				if i == k {
					x = width
				}
				rows[j] = append(rows[j], add(x, y))
			}
			continue
		}
		rows[j] = append(rows[j], add(0, y))
		shift := 0.5 * float64(j%2)
		for i := 0; i <= k; i++ {
			x := (float64(i) + shift) * dx
			if x < 0.5*dx || x > width-0.5*dx {
				continue
			}
			rows[j] = append(rows[j], add(x+jitter(), y+jitter()))
		}
		rows[j] = append(rows[j], add(width, y))
	}
	tris := make([][3]int32, 0, 2*k*m+2*m)
	for j := 0; j < m; j++ {
		a, b := rows[j], rows[j+1] // a below b
		i, l := 0, 0
		for i < len(a)-1 || l < len(b)-1 {
			advanceA := l == len(b)-1 ||
				(i < len(a)-1 && rest[a[i+1]].X+rest[a[i]].X < rest[b[l+1]].X+rest[b[l]].X)
			if advanceA {
				tris = append(tris, [3]int32{a[i], a[i+1], b[l]})
				i++
			} else {
				tris = append(tris, [3]int32{a[i], b[l+1], b[l]})
				l++
			}
		}
	}
	delaunayFlips(rest, tris)
	mesh, err := NewMesh(pos, rest, tris)
	if err != nil {
		return nil, fmt.Errorf("irregular grid: %w", err)
	}
	return mesh, nil
}

// inCircle returns a positive value when d lies inside the circumcircle of
// the counter-clockwise triangle (a, b, c), negative outside, zero on it
// (the standard determinant, Guibas & Stolfi 1985).
func inCircle(a, b, c, d Vec2) float64 {
	ax, ay := a.X-d.X, a.Y-d.Y
	bx, by := b.X-d.X, b.Y-d.Y
	cx, cy := c.X-d.X, c.Y-d.Y
	return (ax*ax+ay*ay)*(bx*cy-cx*by) - (bx*bx+by*by)*(ax*cy-cx*ay) + (cx*cx+cy*cy)*(ax*by-bx*ay)
}

// delaunayFlips applies Lawson's algorithm in place: it flips every interior
// edge whose opposite vertex lies strictly inside the neighbouring
// circumcircle (by more than a relative 1e-10, so nearly cocircular quads
// cannot cycle) until none is left. Such a quad is always convex, so each
// flip keeps the triangulation valid and counter-clockwise.
func delaunayFlips(rest []Vec2, tris [][3]int32) {
	type half struct{ f, i int32 }
	for pass := 0; pass < 1000; pass++ {
		edges := make(map[edgeKey]half, 3*len(tris))
		for f, t := range tris {
			for i := 0; i < 3; i++ {
				edges[edgeKey{t[i], t[(i+1)%3]}] = half{int32(f), int32(i)}
			}
		}
		touched := make([]bool, len(tris))
		flips := 0
		for f := range tris {
			for i := 0; i < 3 && !touched[f]; i++ {
				t := tris[f]
				v0, v1, v2 := t[i], t[(i+1)%3], t[(i+2)%3]
				h, ok := edges[edgeKey{v1, v0}]
				if !ok || touched[h.f] {
					continue
				}
				v3 := tris[h.f][(h.i+2)%3]
				a, b, c, d := rest[v0], rest[v1], rest[v2], rest[v3]
				s := b.Sub(a).Norm2() + c.Sub(a).Norm2()
				if inCircle(a, b, c, d) <= 1e-10*s*s {
					continue
				}
				tris[f] = [3]int32{v0, v3, v2}
				tris[h.f] = [3]int32{v3, v1, v2}
				touched[f], touched[h.f] = true, true
				flips++
			}
		}
		if flips == 0 {
			return
		}
	}
}

// Icosphere returns a unit icosphere after s loop-style 1-to-4 subdivisions
// of an icosahedron (10·4^s+2 vertices, 20·4^s faces), as positions and
// outward counter-clockwise faces; no Mesh: it is closed and has no
// material space.
func Icosphere(s int) ([]Vec3, [][3]int32) {
	g := (1 + math.Sqrt(5)) / 2
	pos := []Vec3{{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}}
	for i := range pos {
		pos[i] = pos[i].Unit()
	}
	tris := [][3]int32{{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}}
	for range s {
		mid := map[[2]int32]int32{}
		get := func(a, b int32) int32 {
			k := [2]int32{min(a, b), max(a, b)}
			if i, ok := mid[k]; ok {
				return i
			}
			pos = append(pos, pos[a].Add(pos[b]).Unit())
			mid[k] = int32(len(pos) - 1)
			return mid[k]
		}
		var nt [][3]int32
		for _, t := range tris {
			a, b, c := get(t[0], t[1]), get(t[1], t[2]), get(t[2], t[0])
			nt = append(nt, [3]int32{t[0], a, c}, [3]int32{t[1], b, a}, [3]int32{t[2], c, b}, [3]int32{a, b, c})
		}
		tris = nt
	}
	return pos, tris
}
