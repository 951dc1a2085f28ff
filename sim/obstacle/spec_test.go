package obstacle

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"drape/sim/geom"
)

func decodeSpec(data []byte) (Spec, error) {
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&s)
	return s, err
}

// TestMotionInterpolation checks the pose at, between, before and after
// the keys: offsets linear, rotations by slerp, held after the last key,
// composed with the orientation and the user offset.
func TestMotionInterpolation(t *testing.T) {
	s, err := decodeSpec([]byte(`{"name": "pusher", "kind": "box", "size": [0.2, 0.4, 0.6],
		"position": [1, 0, 0], "axis": [0, 0, 1], "angle": 90,
		"motion": [{"t": 1, "offset": [0, 0, 0]},
		           {"t": 3, "offset": [0, 2, 0], "axis": [1, 0, 0], "angle": 90},
		           {"t": 4, "offset": [0, 2, -1], "axis": [1, 0, 0], "angle": 90}]}`))
	if err != nil {
		t.Fatal(err)
	}
	o := mustBuild(t, s)
	orient := AxisAngle(geom.Vec3{Z: 1}, math.Pi/2)
	x := geom.Vec3{X: 0.1, Y: 0.2, Z: 0.3} // a box corner, local
	idx := -1
	for i, p := range o.LocalVertices() {
		if near(p, x, 1e-15) {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatal("corner not among the vertices")
	}
	cases := []struct {
		t     float64
		off   geom.Vec3
		angle float64 // about X, after the orientation
	}{
		{-5, geom.Vec3{}, 0},
		{1, geom.Vec3{}, 0},
		{2, geom.Vec3{Y: 1}, math.Pi / 4},
		{2.5, geom.Vec3{Y: 1.5}, 3 * math.Pi / 8},
		{3, geom.Vec3{Y: 2}, math.Pi / 2},
		{3.5, geom.Vec3{Y: 2, Z: -0.5}, math.Pi / 2},
		{4, geom.Vec3{Y: 2, Z: -1}, math.Pi / 2},
		{100, geom.Vec3{Y: 2, Z: -1}, math.Pi / 2},
	}
	user := geom.Vec3{X: 0.01, Y: -0.02, Z: 0.03}
	o.SetOffset(user)
	var buf []geom.Vec3
	for _, c := range cases {
		want := rodrigues(orient.Rotate(x), geom.Vec3{X: 1}, c.angle).Add(geom.Vec3{X: 1}).Add(c.off).Add(user)
		buf = o.Vertices(c.t, buf)
		if got := buf[idx]; !near(got, want, 1e-14) {
			t.Errorf("t=%v: got=%v, want=%v", c.t, got, want)
		}
		// The analytic surface moves with the mesh.
		if d, _ := o.SignedDistance(want, c.t); math.Abs(d) > 1e-14 {
			t.Errorf("t=%v: corner at distance %v from the moved box", c.t, d)
		}
	}
	if !o.Scripted() || !o.Moving(1, 1.01) || !o.Moving(3.99, 4.01) {
		t.Errorf("scripted obstacle: Scripted=%v Moving=%v, %v, want true", o.Scripted(), o.Moving(1, 1.01), o.Moving(3.99, 4.01))
	}
	// From its last move (the key at t = 4; the one at 100 repeats it)
	// on, and before its first key, it is still (once the drag above is
	// settled).
	o.Settle()
	if o.Moving(4, 4.01) || o.Moving(50, 50.01) || o.Moving(200, 200.01) || o.Moving(-1, -0.99) {
		t.Errorf("scripted obstacle moving after its script: %v %v %v, or before it: %v", o.Moving(4, 4.01), o.Moving(50, 50.01), o.Moving(200, 200.01), o.Moving(-1, -0.99))
	}
}

// TestOffsetMoving checks the drag bookkeeping: Moving is true from
// SetOffset until Settle, SettledPose lags Pose by the drag.
func TestOffsetMoving(t *testing.T) {
	o := mustBuild(t, Spec{Kind: "sphere", Radius: 0.1, Position: [3]float64{0, 1, 0}})
	if o.Moving(0, 0.01) {
		t.Fatal("static sphere moving")
	}
	o.SetOffset(geom.Vec3{X: 0.5})
	if !o.Moving(0, 0.01) || !o.Moving(0, 0.01) {
		t.Fatal("dragged sphere not moving (or Moving cleared the flag)")
	}
	if got, want := o.SettledPose(7).Trans, (geom.Vec3{Y: 1}); got != want {
		t.Errorf("settled pose: got=%v, want=%v", got, want)
	}
	if got, want := o.Pose(7).Trans, (geom.Vec3{X: 0.5, Y: 1}); got != want {
		t.Errorf("pose: got=%v, want=%v", got, want)
	}
	if d, _ := o.SignedDistance(geom.Vec3{X: 0.5, Y: 1}, 0); d != -0.1 {
		t.Errorf("distance at the dragged centre: got=%v, want=-0.1", d)
	}
	o.Settle()
	if o.Moving(0, 0.01) || o.Offset() != (geom.Vec3{X: 0.5}) {
		t.Errorf("after Settle: Moving=%v Offset=%v", o.Moving(0, 0.01), o.Offset())
	}
	if lo, hi := o.Bounds(0); lo != (geom.Vec3{X: 0.4, Y: 0.9, Z: -0.1}) || hi != (geom.Vec3{X: 0.6, Y: 1.1, Z: 0.1}) {
		t.Errorf("bounds: got %v %v", lo, hi)
	}
}

// TestBoundsContainVertices checks that Bounds contains every surface
// vertex for rotated, moving obstacles.
func TestBoundsContainVertices(t *testing.T) {
	for _, s := range defaultShapes {
		s.Axis, s.Angle = &[3]float64{1, 2, 3}, 41
		s.Motion = []MotionKey{{T: 0}, {T: 1, Offset: [3]float64{1, 2, 3}, Axis: &[3]float64{0, 0, 1}, Angle: 170}}
		o := mustBuild(t, s)
		for _, tm := range []float64{0, 0.3, 0.77, 2} {
			lo, hi := o.Bounds(tm)
			for _, p := range o.Vertices(tm, nil) {
				if p.X < lo.X || p.Y < lo.Y || p.Z < lo.Z || p.X > hi.X || p.Y > hi.Y || p.Z > hi.Z {
					t.Fatalf("%s t=%v: vertex %v outside bounds %v %v", s.Name, tm, p, lo, hi)
				}
			}
		}
	}
}

func TestSpecDefaults(t *testing.T) {
	o := mustBuild(t, Spec{Kind: "plane"})
	if o.Name() != "plane" || o.Friction != DefaultFriction || o.Tris() != nil || len(o.Vertices(0, nil)) != 0 {
		t.Errorf("plane defaults: name %q, μ %v, %d tris", o.Name(), o.Friction, len(o.Tris()))
	}
	if p, n := o.Plane(0); p != (geom.Vec3{}) || !near(n, geom.Vec3{Y: 1}, 0) {
		t.Errorf("plane: got %v %v", p, n)
	}
	mu := 0.0
	o = mustBuild(t, Spec{Kind: "plane", Friction: &mu, Axis: &[3]float64{1, 0, 0}, Angle: 30})
	if _, n := o.Plane(0); o.Friction != 0 || !near(n, geom.Vec3{Y: math.Cos(math.Pi / 6), Z: math.Sin(math.Pi / 6)}, 1e-15) {
		t.Errorf("tilted frictionless plane: μ %v, n %v", o.Friction, n)
	}
}

// TestSpecErrors is the table of JSON mistakes and the errors they get.
func TestSpecErrors(t *testing.T) {
	cases := []struct{ json, want string }{
		{`{"name": "a", "kind": "cone"}`, `obstacle "a": kind: unknown kind "cone"`},
		{`{"kind": ""}`, `obstacle: kind: unknown kind ""`},
		{`{"name": "b", "kind": "sphere"}`, `obstacle "b": radius must be positive, got 0 m`},
		{`{"name": "b", "kind": "sphere", "radius": -1}`, `obstacle "b": radius must be positive, got -1 m`},
		{`{"name": "b", "kind": "sphere", "radius": 5000}`, `radius must be in [0.0001, 1000] m, got 5000`},
		{`{"kind": "box", "size": [1, 0, 1]}`, `obstacle (box): size[1] must be positive`},
		{`{"kind": "capsule", "radius": 0.1, "height": -2}`, `obstacle (capsule): height must be positive, got -2 m`},
		{`{"kind": "cylinder", "radius": 0.1}`, `obstacle (cylinder): height must be positive`},
		{`{"name": "m", "kind": "mesh"}`, `obstacle "m": file: a mesh obstacle needs an OBJ file`},
		{`{"name": "m", "kind": "mesh", "file": "x.obj", "scale": 0}`, `obstacle "m": scale must be positive`},
		{`{"name": "p", "kind": "plane", "axis": [0, 0, 0]}`, `obstacle "p": axis must not be zero`},
		{`{"name": "p", "kind": "plane", "position": [0, 1e300, 0]}`, `obstacle "p": position must be within ±1e+06 m`},
		{`{"name": "p", "kind": "plane", "friction": -0.1}`, `obstacle "p": friction must be in [0, 10], got -0.1`},
		{`{"name": "p", "kind": "plane", "friction": 11}`, `friction must be in [0, 10], got 11`},
		{`{"name": "s", "kind": "sphere", "radius": 1, "motion": [{"t": 1}, {"t": 1}]}`, `obstacle "s": motion[1].t: times must be strictly increasing, got 1 after 1`},
		{`{"name": "s", "kind": "sphere", "radius": 1, "motion": [{"t": 2}, {"t": 1}]}`, `motion[1].t: times must be strictly increasing`},
		{`{"name": "s", "kind": "sphere", "radius": 1, "motion": [{"t": 0, "axis": [0, 0, 0], "angle": 3}]}`, `obstacle "s": motion[0].axis must not be zero`},
		{`{"name": "s", "kind": "sphere", "radius": 1, "motion": [{"t": 0, "angle": 1e9}]}`, `motion[0].angle must be within ±1e6 degrees`},
	}
	for _, c := range cases {
		s, err := decodeSpec([]byte(c.json))
		if err != nil {
			t.Fatalf("%s: %v", c.json, err)
		}
		err = s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got=%v, want an error containing %q", c.json, err, c.want)
		}
		if _, berr := s.Build(t.TempDir()); berr == nil {
			t.Errorf("%s: Build accepted what Validate rejects", c.json)
		}
	}
	// NaN and Inf cannot be written in JSON; they come from Go callers.
	nan := Spec{Name: "n", Kind: "sphere", Radius: math.NaN()}
	if err := nan.Validate(); err == nil || !strings.Contains(err.Error(), "radius must be finite") {
		t.Errorf("NaN radius: got=%v", err)
	}
	inf := Spec{Name: "n", Kind: "plane", Motion: []MotionKey{{T: math.Inf(1)}}}
	if err := inf.Validate(); err == nil || !strings.Contains(err.Error(), "motion[0].t must be finite") {
		t.Errorf("Inf time: got=%v", err)
	}
	// A missing file is a Build error that names the obstacle.
	_, err := Spec{Name: "m", Kind: "mesh", File: "nope.obj"}.Build(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `obstacle "m": file: open`) {
		t.Errorf("missing file: got=%v", err)
	}
	// A bad file names its line.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad.obj"), []byte("v 0 0 0\nf 1 2 3\n"), 0o644)
	_, err = Spec{Name: "m", Kind: "mesh", File: "bad.obj"}.Build(dir)
	if err == nil || !strings.Contains(err.Error(), `obstacle "m": `) || !strings.Contains(err.Error(), "bad.obj:2: vertex index 2 out of range") {
		t.Errorf("bad file: got=%v", err)
	}
}

func TestBuildFS(t *testing.T) {
	fsys := fstest.MapFS{"scenes/tri.obj": {Data: []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")}}
	o, err := Spec{Kind: "mesh", File: "tri.obj"}.BuildFS(fsys, "scenes")
	if err != nil {
		t.Fatal(err)
	}
	// An open mesh: the side the face faces (+Z) is positive.
	if d, n := o.SignedDistance(geom.Vec3{X: 0.2, Y: 0.2, Z: 0.5}, 0); math.Abs(d-0.5) > 1e-15 || !near(n, geom.Vec3{Z: 1}, 1e-15) {
		t.Errorf("open triangle: got d=%v n=%v, want 0.5 (0,0,1)", d, n)
	}
	if d, _ := o.SignedDistance(geom.Vec3{X: 0.2, Y: 0.2, Z: -0.5}, 0); math.Abs(d+0.5) > 1e-15 {
		t.Errorf("open triangle behind: got d=%v, want -0.5", d)
	}
}

// FuzzSpec decodes arbitrary JSON into a Spec, validates and builds it:
// nothing may panic, and a built obstacle answers finite queries.
func FuzzSpec(f *testing.F) {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "tet.obj"), []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"), 0o644)
	for _, s := range []string{
		`{"kind": "plane"}`,
		`{"kind": "sphere", "radius": 0.5, "position": [0, 1, 0], "friction": 0.5}`,
		`{"kind": "box", "size": [1, 2, 3], "axis": [1, 1, 0], "angle": 30}`,
		`{"kind": "capsule", "radius": 0.1, "height": 1, "motion": [{"t": 0}, {"t": 1, "offset": [1, 0, 0], "angle": 90}]}`,
		`{"kind": "cylinder", "radius": 0.5, "height": 0.05}`,
		`{"kind": "mesh", "file": "tet.obj", "scale": 2}`,
		`{"kind": "mesh", "file": "../tet.obj"}`,
		`{"kind": "sphere", "radius": 1e-4}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeSpec(data)
		if err != nil {
			return
		}
		verr := s.Validate()
		o, err := s.Build(dir)
		if verr != nil {
			if err == nil {
				t.Fatalf("Build accepted an invalid spec: %v", verr)
			}
			return
		}
		if err != nil {
			return // e.g. a missing file
		}
		for _, tm := range []float64{-1, 0, 0.5, 1e3} {
			p := geom.Vec3{X: 0.1, Y: 0.7, Z: -0.3}
			d, n := o.SignedDistance(p, tm)
			if math.IsNaN(d) || !n.IsFinite() || math.Abs(n.Norm()-1) > 1e-9 {
				t.Fatalf("SignedDistance(%v, %v) = %v, %v", p, tm, d, n)
			}
			for _, v := range o.Vertices(tm, nil) {
				if !v.IsFinite() {
					t.Fatalf("vertex %v", v)
				}
			}
			lo, hi := o.Bounds(tm)
			if math.IsNaN(lo.X) || math.IsNaN(lo.Y) || math.IsNaN(lo.Z) || math.IsNaN(hi.X) || math.IsNaN(hi.Y) || math.IsNaN(hi.Z) {
				t.Fatalf("bounds %v %v", lo, hi)
			}
		}
	})
}
