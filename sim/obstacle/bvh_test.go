package obstacle

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"drape/sim/geom"
)

// bruteClosest is the test's reference for meshSDF.closest: every
// triangle in index order, the least squared distance and, among equals,
// the lowest index.
func bruteClosest(p geom.Vec3, pos []geom.Vec3, tris [][3]int32) (float64, int, int, geom.Vec3) {
	best, bestF, bestR := math.Inf(1), -1, 0
	var bestC geom.Vec3
	for f, t := range tris {
		q, r := closestOnTriangle(p, pos[t[0]], pos[t[1]], pos[t[2]])
		if d2 := p.Sub(q).Dot(p.Sub(q)); d2 < best {
			best, bestF, bestR, bestC = d2, f, r, q
		}
	}
	return best, bestF, bestR, bestC
}

// TestClosestMatchesBruteForce checks the hierarchy's search against
// bruteClosest to the bit (distance, triangle, feature and point) on
// meshes made for ties: a flat grid of squares, queried exactly above
// its vertices and edge midpoints, where four to eight triangles are
// equally close and only the lowest index may win; a random soup with
// degenerate and repeated triangles; and the bunny when the reference
// meshes are there. It fails if a box as far as the best is skipped (a
// tie lost to a higher index) or one nearer is (a wrong distance).
func TestClosestMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	type mesh struct {
		name string
		pos  []geom.Vec3
		tris [][3]int32
		pts  []geom.Vec3
	}
	var meshes []mesh

	// A 12 × 12 grid of unit squares in z = 0, cut along alternating
	// diagonals, with its triangles in shuffled order.
	const g = 12
	grid := mesh{name: "grid"}
	for j := 0; j <= g; j++ {
		for i := 0; i <= g; i++ {
			grid.pos = append(grid.pos, geom.Vec3{X: float64(i), Y: float64(j)})
		}
	}
	at := func(i, j int) int32 { return int32(j*(g+1) + i) }
	for j := 0; j < g; j++ {
		for i := 0; i < g; i++ {
			a, b, c, d := at(i, j), at(i+1, j), at(i+1, j+1), at(i, j+1)
			if (i+j)%2 == 0 {
				grid.tris = append(grid.tris, [3]int32{a, b, c}, [3]int32{a, c, d})
			} else {
				grid.tris = append(grid.tris, [3]int32{a, b, d}, [3]int32{b, c, d})
			}
		}
	}
	r.Shuffle(len(grid.tris), func(i, j int) { grid.tris[i], grid.tris[j] = grid.tris[j], grid.tris[i] })
	for _, v := range grid.pos {
		for _, z := range []float64{0, 0.25, -1, 3} {
			grid.pts = append(grid.pts, v.Add(geom.Vec3{Z: z}), v.Add(geom.Vec3{X: 0.5, Z: z}), v.Add(geom.Vec3{Y: 0.5, Z: z}))
		}
	}
	meshes = append(meshes, grid)

	// A soup: random triangles in the unit cube, some degenerate (a
	// repeated corner, three collinear corners) and some repeated.
	soup := mesh{name: "soup"}
	for k := 0; k < 300; k++ {
		n := int32(len(soup.pos))
		a := geom.Vec3{X: r.Float64(), Y: r.Float64(), Z: r.Float64()}
		b := a.Add(geom.Vec3{X: 0.2 * (r.Float64() - 0.5), Y: 0.2 * (r.Float64() - 0.5), Z: 0.2 * (r.Float64() - 0.5)})
		c := a.Add(geom.Vec3{X: 0.2 * (r.Float64() - 0.5), Y: 0.2 * (r.Float64() - 0.5), Z: 0.2 * (r.Float64() - 0.5)})
		switch k % 10 {
		case 0:
			c = b
		case 1:
			c = a.Add(b.Sub(a).Scale(2))
		}
		soup.pos = append(soup.pos, a, b, c)
		soup.tris = append(soup.tris, [3]int32{n, n + 1, n + 2})
		if k%7 == 0 {
			soup.tris = append(soup.tris, [3]int32{n, n + 1, n + 2})
		}
	}
	for k := 0; k < 2000; k++ {
		soup.pts = append(soup.pts, geom.Vec3{X: 1.6*r.Float64() - 0.3, Y: 1.6*r.Float64() - 0.3, Z: 1.6*r.Float64() - 0.3})
	}
	for _, v := range soup.pos[:200] {
		soup.pts = append(soup.pts, v)
	}
	meshes = append(meshes, soup)

	if _, err := os.Stat(filepath.Join(sharedMeshes, "bunny_10k.obj")); err == nil {
		b := bunny(t)
		bm := mesh{name: "bunny", pos: b.LocalVertices(), tris: b.Tris()}
		lo, hi := b.Bounds(0)
		ext := hi.Sub(lo)
		for k := 0; k < 1000; k++ {
			bm.pts = append(bm.pts, lo.Add(geom.Vec3{X: ext.X * (1.4*r.Float64() - 0.2), Y: ext.Y * (1.4*r.Float64() - 0.2), Z: ext.Z * (1.4*r.Float64() - 0.2)}))
		}
		for _, v := range bm.pos[:500] {
			bm.pts = append(bm.pts, v)
		}
		meshes = append(meshes, bm)
	}

	for _, ms := range meshes {
		m := newMeshSDF(ms.pos, ms.tris)
		ties := 0
		for _, p := range ms.pts {
			d2, f, fr, c := m.closest(p)
			w2, wf, wr, wc := bruteClosest(p, ms.pos, ms.tris)
			if d2 != w2 || f != wf || fr != wr || c != wc {
				t.Fatalf("%s: closest to %v: got d²=%v triangle %d feature %d at %v, want %v %d %d %v (brute force)", ms.name, p, d2, f, fr, c, w2, wf, wr, wc)
			}
			for g, tr := range ms.tris {
				if q, _ := closestOnTriangle(p, ms.pos[tr[0]], ms.pos[tr[1]], ms.pos[tr[2]]); g != wf && p.Sub(q).Dot(p.Sub(q)) == w2 {
					ties++
					break
				}
			}
		}
		if ms.name == "grid" && ties < len(ms.pts)/2 {
			t.Errorf("grid: only %d of %d queries have a tie: the test does not test ties", ties, len(ms.pts))
		}
		t.Logf("%s: %d triangles, %d queries, %d with a tie", ms.name, len(ms.tris), len(ms.pts), ties)
	}
}
