package detail

import (
	"testing"

	"drape/sim/geom"
)

// frameOf compacts the live slots of m into a new Frame.
func frameOf(m *geom.Mesh) *Frame { return FrameOf(m, nil) }

// sheet returns a flat nx×ny grid of size w×h in the z = 0 plane with
// material coordinates equal to (x, y).
func sheet(t testing.TB, w, h float64, nx, ny int) *Frame {
	t.Helper()
	m, err := geom.RegularGrid(w, h, nx, ny)
	if err != nil {
		t.Fatal(err)
	}
	f := frameOf(m)
	for i, r := range f.Rest {
		f.Pos[i] = geom.Vec3{X: r.X, Y: r.Y}
	}
	return f
}

// compressX returns f with x positions scaled by 1 − s.
func compressX(f *Frame, s float64) *Frame {
	g := &Frame{Rest: f.Rest, Tris: f.Tris, Level: f.Level}
	g.Pos = make([]geom.Vec3, len(f.Pos))
	for i, p := range f.Pos {
		g.Pos[i] = geom.Vec3{X: p.X * (1 - s), Y: p.Y, Z: p.Z}
	}
	return g
}

// activateAll makes every fine point, bending row and membrane row active,
// for the tests that call energy, gradient and gnApply directly with
// arbitrary vectors: the local numbering of the system is then the global
// one.
func (d *Detailer) activateAll() {
	d.allActive = true
	d.activeSet()
	d.allActive = false
}
