package geom

import "fmt"

// StaggeredGrid returns a width × height m rectangle, material space
// [0,width]×[0,height], triangulated by ny+1 rows of vertices at
// y_j = j·height/ny: even rows hold nx+1 vertices at x_i = i·width/nx,
// odd rows nx+2 vertices, at x = 0, (i+½)·width/nx for i < nx, and width.
// Consecutive rows are zipped into 2·nx+1 counter-clockwise triangles, so
// the mesh has ny·(2·nx+1) faces, mostly isosceles with base width/nx and
// height height/ny (near-equilateral when height/ny ≈ 0.87·width/nx),
// and no preferred shear direction. Pos = (Rest.X, Rest.Y, 0).
//
// It exists for the adaptive curtain: Bender & Deul §7 report 22140
// triangles at full resolution, which is 820 base faces refined to
// generation 6 (each √3 step of two generations triples the count:
// 820·3³ = 22140), and 820 = 20·(2·20+1) is StaggeredGrid(…, 20, 20);
// a quad grid cannot make 820 = 2·nx·ny with a sensible aspect ratio.
// nx, ny < 1 or more than MaxTriangles faces is an error.
func StaggeredGrid(width, height float64, nx, ny int) (*Mesh, error) {
	if err := checkRect(width, height); err != nil {
		return nil, fmt.Errorf("staggered grid: %w", err)
	}
	if nx < 1 || ny < 1 {
		return nil, fmt.Errorf("staggered grid: nx and ny must be at least 1, got nx=%d ny=%d", nx, ny)
	}
	if nx > MaxTriangles/ny/3 {
		return nil, fmt.Errorf("staggered grid: nx=%d, ny=%d give more than %d triangles", nx, ny, MaxTriangles)
	}
	var pos []Vec3
	var rest []Vec2
	rows := make([][]int32, ny+1)
	for j := 0; j <= ny; j++ {
		y := height * float64(j) / float64(ny)
		if j == ny {
			y = height
		}
		var xs []float64
		if j%2 == 0 {
			for i := 0; i <= nx; i++ {
				xs = append(xs, width*float64(i)/float64(nx))
			}
		} else {
			xs = append(xs, 0)
			for i := 0; i < nx; i++ {
				xs = append(xs, width*(float64(i)+0.5)/float64(nx))
			}
			xs = append(xs, width)
		}
		xs[len(xs)-1] = width
		for _, x := range xs {
			rows[j] = append(rows[j], int32(len(rest)))
			rest = append(rest, Vec2{x, y})
			pos = append(pos, Vec3{x, y, 0})
		}
	}
	tris := make([][3]int32, 0, ny*(2*nx+1))
	for j := 0; j < ny; j++ {
		lo, up := rows[j], rows[j+1]
		i, k := 0, 0
		for i < len(lo)-1 || k < len(up)-1 {
			// Advance along the row whose next vertex comes first in x.
			if k == len(up)-1 || (i < len(lo)-1 && rest[lo[i+1]].X <= rest[up[k+1]].X) {
				tris = append(tris, [3]int32{lo[i], lo[i+1], up[k]})
				i++
			} else {
				tris = append(tris, [3]int32{lo[i], up[k+1], up[k]})
				k++
			}
		}
	}
	m, err := NewMesh(pos, rest, tris)
	if err != nil {
		return nil, fmt.Errorf("staggered grid: %w", err)
	}
	return m, nil
}
