package scene

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestSaveReload saves the hanging sheet after the edits a viewer user
// makes — every parameter block changed (with values that need all 17
// digits), adaptivity switched on, one scene pin removed, a new pin at a
// moved target, the camera set — reloads the file, and checks that 50
// steps of the reloaded scene, which refine the mesh, match 50 steps of
// the original with the same edits bit for bit: every position, the
// triangle list and the pins.
func TestSaveReload(t *testing.T) {
	simtest.SkipUnderRace(t)
	const steps = 50
	orig, err := LoadScene(sceneAssets, "hanging")
	if err != nil {
		t.Fatal(err)
	}
	p := orig.Params
	p.Density, p.DampMass, p.Bending = 1.0/3, 0.07, math.Nextafter(2e-5, 1)
	p.Wind, p.AirDrag = geom.Vec3{X: 0.3, Z: -1.0 / 7}, 0.01
	ap := cloth.DefaultAdaptParams()
	ap.Base, ap.Max, ap.GMax, ap.Interval = 0.5, 5, 2, 1
	cam := &Camera{Target: [3]float64{0, 0.5, 0}, Yaw: 30, Pitch: 15, Distance: 2.5, FovY: 45}

	// The original with the edits applied to the running simulation, as
	// the viewer's Loop applies them.
	a, err := orig.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetParams(p); err != nil {
		t.Fatal(err)
	}
	if err := a.SetAdaptParams(ap); err != nil {
		t.Fatal(err)
	}
	pins := a.Pins()
	if len(pins) < 2 {
		t.Fatalf("hanging has %d pins, want at least 2", len(pins))
	}
	removed := pins[0].Vertex
	a.Unpin(removed)
	added := NearestVertex(a.Mesh, geom.Vec2{X: 0.5, Y: 0}) // bottom middle
	target := a.Mesh.Pos[added].Add(geom.Vec3{X: 0.1, Y: 0.05, Z: -0.2})
	if err := a.Pin(added, target); err != nil {
		t.Fatal(err)
	}

	// The saved scene: the same edits recorded as the Loop records them.
	saved := orig.Clone()
	saved.Params, saved.Adapt, saved.Camera = p, &ap, cam
	saved.ClothColor = &[3]float64{0.7, 0.2, 1.0 / 3}
	saved.Pins = append(saved.Pins, PinEdit(a.Mesh, removed, geom.Vec3{}, true), PinEdit(a.Mesh, added, target, false))
	file := filepath.Join(t.TempDir(), "saved.json")
	if err := saved.WriteFile(file); err != nil {
		t.Fatal(err)
	}
	re, err := LoadScene(nil, file)
	if err != nil {
		data, _ := os.ReadFile(file)
		t.Fatalf("reloading %s: %v", data, err)
	}
	if re.Params != p || re.Adapt == nil || *re.Adapt != ap || re.Camera == nil || *re.Camera != *cam ||
		re.ClothColor == nil || *re.ClothColor != *saved.ClothColor {
		t.Fatalf("reloaded blocks differ: params %+v adapt %+v camera %+v cloth colour %v", re.Params, re.Adapt, re.Camera, re.ClothColor)
	}
	b, err := re.Build()
	if err != nil {
		t.Fatal(err)
	}

	tris0 := a.Mesh.NumTris()
	for k := 0; k <= steps; k++ {
		if k > 0 {
			if _, err := a.Step(); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if d := firstDifference(a, b); d != "" {
			t.Fatalf("step %d: %s", k, d)
		}
	}
	if n := a.Mesh.NumTris(); n == tris0 {
		t.Errorf("the run never adapted (%d triangles throughout); the test would not cover adaptation", n)
	}
}

// firstDifference describes the first bitwise difference between the
// states of a and b, or returns "".
func firstDifference(a, b *cloth.Sim) string {
	ma, mb := a.Mesh, b.Mesh
	if len(ma.Pos) != len(mb.Pos) || len(ma.Tris) != len(mb.Tris) {
		return "mesh sizes differ"
	}
	for i := range ma.Pos {
		if ma.VertAlive[i] != mb.VertAlive[i] {
			return "vertex liveness differs"
		}
		pa, pb := ma.Pos[i], mb.Pos[i]
		if ma.VertAlive[i] && (math.Float64bits(pa.X) != math.Float64bits(pb.X) || math.Float64bits(pa.Y) != math.Float64bits(pb.Y) || math.Float64bits(pa.Z) != math.Float64bits(pb.Z)) {
			return "vertex " + itoa(i) + " differs"
		}
	}
	for f := range ma.Tris {
		if ma.Tris[f] != mb.Tris[f] {
			return "face " + itoa(f) + " differs"
		}
	}
	pa, pb := a.Pins(), b.Pins()
	if len(pa) != len(pb) {
		return "pin counts differ"
	}
	for i := range pa {
		if pa[i].Vertex != pb[i].Vertex || pa[i].Target != pb[i].Target {
			return "pin " + itoa(i) + " differs"
		}
	}
	return ""
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestWriteFileFailureKeepsOld checks that a scene that cannot be written
// (its directory is missing, or the target is a directory) gives an
// error and leaves an existing file as it was.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	s, err := LoadScene(sceneAssets, "hanging")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.WriteFile(filepath.Join(dir, "no", "such", "dir", "x.json")); err == nil {
		t.Error("WriteFile into a missing directory: got no error")
	}
	if err := s.WriteFile(dir); err == nil {
		t.Error("WriteFile onto a directory: got no error")
	}
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := s.Clone()
	bad.Params.Dt = math.NaN()
	if err := bad.WriteFile(old); err == nil || !strings.Contains(err.Error(), "dt") {
		t.Errorf("WriteFile of an invalid scene: got err=%v, want one naming dt", err)
	}
	if data, _ := os.ReadFile(old); string(data) != "keep" {
		t.Errorf("failed save changed the old file to %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("failed saves left %d files in the directory, want only old.json", len(entries))
	}
}
