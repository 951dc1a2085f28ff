package geom

import "testing"

func TestPointTriangleDistance(t *testing.T) {
	a, b, c := Vec3{0, 0, 0}, Vec3{1, 0, 0}, Vec3{0, 1, 0}
	for _, k := range []struct {
		p    [3]float64
		want float64
	}{
		{[3]float64{0.2, 0.2, 0.5}, 0.5},            // above the face
		{[3]float64{-1, -1, 0}, 1.4142135623730951}, // vertex a region
		{[3]float64{0.5, -2, 0}, 2},                 // edge ab region
		{[3]float64{1, 1, 0}, 0.7071067811865476},   // edge bc region
		{[3]float64{0.1, 0.1, 0}, 0},                // inside
	} {
		got := PointTriangleDistance(Vec3{k.p[0], k.p[1], k.p[2]}, a, b, c)
		if d := got - k.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("distance from %v got=%v, want=%v", k.p, got, k.want)
		}
	}
}
