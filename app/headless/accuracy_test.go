package headless

import (
	"math"
	"strings"
	"testing"

	"drape/assets"
	"drape/sim/geom"
	"drape/sim/scene"
)

// TestFullResolution: the full-resolution run of an adaptive scene is
// its base mesh refined uniformly to the generation asked for, with
// adaptivity off, and the scene itself is left as it was; a scene
// without adaptivity or an odd generation has none.
func TestFullResolution(t *testing.T) {
	sc, err := scene.LoadScene(assets.Scenes, "drape-box")
	if err != nil {
		t.Fatal(err)
	}
	full, err := FullResolution(sc, 2)
	if err != nil {
		t.Fatal(err)
	}
	s, err := full.Build()
	if err != nil {
		t.Fatal(err)
	}
	base, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Mesh.NumTris(), 3*base.Mesh.NumTris(); got != want || s.AdaptParams().Enabled || !sc.Adapt.Enabled || sc.Adapt.FineStart {
		t.Errorf("drape-box at generation 2: got %d triangles, adaptivity %v (scene's %+v), want %d (√3 twice: ×3) and off, the scene unchanged",
			got, s.AdaptParams().Enabled, *sc.Adapt, want)
	}
	plain, err := scene.LoadScene(assets.Scenes, "curtain")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sc   *scene.Scene
		g    int
		want string
	}{{plain, 2, "no \"adapt\" section"}, {sc, 3, "even generation"}, {sc, -2, "even generation"}} {
		if _, err := FullResolution(c.sc, c.g); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s at %d: got error %v, want one saying %q", c.sc.Name, c.g, err, c.want)
		}
	}
}

// TestSurfaceDistance: the distances of points 1, 2 and 3 cm above a
// square, added over two calls, have RMS √(14/3) cm and max 3 cm; the
// zero value has none.
func TestSurfaceDistance(t *testing.T) {
	m, err := geom.NewSurfaceMesh([]geom.Vec3{{}, {X: 1}, {X: 1, Z: 1}, {Z: 1}}, [][3]int32{{0, 2, 1}, {0, 3, 2}})
	if err != nil {
		t.Fatal(err)
	}
	g := geom.NewSurfaceGrid(m)
	var d SurfaceDistance
	if rms, worst := d.Relative(1); rms != 0 || worst != 0 || d.Count() != 0 {
		t.Errorf("nothing added: got %v, %v, count %d, want zeros", rms, worst, d.Count())
	}
	d.Add(g, []geom.Vec3{{X: 0.5, Y: 0.01, Z: 0.5}, {X: 0.2, Y: -0.02, Z: 0.7}})
	d.Add(g, []geom.Vec3{{X: 0.9, Y: 0.03, Z: 0.1}})
	rms, worst := d.Relative(2)
	if want := math.Sqrt(14.0/3) / 100 / 2; math.Abs(rms-want) > 1e-12 || math.Abs(worst-0.015) > 1e-12 || d.Count() != 3 {
		t.Errorf("got RMS %v, max %v, count %d; want %v, 0.015, 3", rms, worst, d.Count(), want)
	}
	if rms, worst := d.Relative(0); rms != 0 || worst != 0 {
		t.Errorf("diagonal 0: got %v, %v, want zeros", rms, worst)
	}
}
