package simtest

import (
	"math"
	"math/rand"
	"testing"

	"drape/sim/geom"
)

// Grid returns a w×h sheet of nx×ny quads with alternating diagonals in
// the plane z = 0 (world = material), interior vertices jittered by up to
// jitter times the cell size (0 for a regular grid).
func Grid(t testing.TB, w, h float64, nx, ny int, jitter float64, seed int64) *geom.Mesh {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	var pos []geom.Vec3
	var rest []geom.Vec2
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			x, y := w*float64(i)/float64(nx), h*float64(j)/float64(ny)
			if i > 0 && i < nx && j > 0 && j < ny {
				x += jitter * w / float64(nx) * (2*rng.Float64() - 1)
				y += jitter * h / float64(ny) * (2*rng.Float64() - 1)
			}
			rest = append(rest, geom.Vec2{x, y})
			pos = append(pos, geom.Vec3{x, y, 0})
		}
	}
	var tris [][3]int32
	id := func(i, j int) int32 { return int32(j*(nx+1) + i) }
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			if (i+j)%2 == 0 {
				tris = append(tris, [3]int32{a, b, c}, [3]int32{a, c, d})
			} else {
				tris = append(tris, [3]int32{a, b, d}, [3]int32{b, c, d})
			}
		}
	}
	m, err := geom.NewMesh(pos, rest, tris)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// RandomRotation returns a uniformly random-ish rotation matrix.
func RandomRotation(rng *rand.Rand) geom.Mat3 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return geom.Mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

func MaxNorm(v []geom.Vec3) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, x.Norm())
	}
	return m
}
