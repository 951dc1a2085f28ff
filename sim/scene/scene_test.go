package scene

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
)

// sceneAssets holds the shipped scenes, as the program embeds them.
var sceneAssets = assets.Scenes

// buildScene loads scene name from fsys (nil: a file) and builds it,
// failing the test on an error.
func buildScene(t testing.TB, fsys fs.FS, name string) *cloth.Sim {
	t.Helper()
	sc, err := LoadScene(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

func TestShippedScenes(t *testing.T) {
	names := SceneNames(sceneAssets)
	for _, want := range []string{"curtain", "hanging", "hanging-irregular"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("SceneNames got=%v, want it to contain %q", names, want)
		}
	}
	for _, c := range []struct {
		name            string
		tris, pins      int // 0: only > 0 is checked
		duration        float64
		pathPins        bool
		verticalExtentY float64 // world Y extent after placement, m
	}{
		{"hanging", 1800, 2, 10, false, 0},
		{"hanging-irregular", 0, 2, 10, false, 0},
		{"curtain", 22140, 124, 20, true, 1.8},
	} {
		s, err := LoadScene(sceneAssets, c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if s.Duration != c.duration {
			t.Errorf("%s: duration got=%v, want=%v", c.name, s.Duration, c.duration)
		}
		sim, err := s.Build()
		if err != nil {
			t.Errorf("%s: Build: %v", c.name, err)
			continue
		}
		if got := sim.Mesh.NumTris(); (c.tris != 0 && got != c.tris) || got == 0 {
			t.Errorf("%s: triangles got=%v, want=%v", c.name, got, c.tris)
		}
		pins := sim.Pins()
		if got := len(pins); got != c.pins {
			t.Errorf("%s: pins got=%v, want=%v", c.name, got, c.pins)
		}
		for _, p := range pins {
			if got := p.Path != nil; got != c.pathPins {
				t.Errorf("%s: pin %d has path got=%v, want=%v", c.name, p.Vertex, got, c.pathPins)
				break
			}
		}
		lo, hi := sim.Mesh.Bounds()
		if got := hi.Y - lo.Y; math.Abs(got-c.verticalExtentY) > 1e-9 {
			t.Errorf("%s: world Y extent got=%v, want=%v", c.name, got, c.verticalExtentY)
		}
	}
}

func TestCurtainParams(t *testing.T) {
	s, err := LoadScene(sceneAssets, "curtain")
	if err != nil {
		t.Fatal(err)
	}
	p := s.Params
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"E_x", p.YoungX, 1000}, {"E_y", p.YoungY, 1000}, {"E_s", p.Shear, 1000},
		{"nu_xy", p.PoissXY, 0.33}, {"nu_yx", p.PoissYX, 0.33},
		{"density", p.Density, 0.1}, {"dt", p.Dt, 0.005},
		{"bending (default)", p.Bending, cloth.DefaultParams().Bending},
	} {
		if c.got != c.want {
			t.Errorf("%s got=%v, want=%v", c.name, c.got, c.want)
		}
	}
}

// TestCurtainGather checks the gather paths: still until 5 s, the top row
// spans a quarter of its width at 11 s anchored at the left end, and is
// back in place from 17 s on.
func TestCurtainGather(t *testing.T) {
	sim := buildScene(t, sceneAssets, "curtain")
	pins := sim.Pins()
	span := func(tm float64) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, p := range pins {
			x := p.Anchor.Add(p.Path.At(tm)).X
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		return lo, hi
	}
	for _, c := range []struct {
		t      float64
		lo, hi float64
	}{
		{0, -1.23, 1.23},
		{5, -1.23, 1.23},
		{8, -1.23, -1.23 + 2.46*(0.25+0.75*0.5)}, // smoothstep(½) = ½
		{11, -1.23, -1.23 + 0.25*2.46},
		{14, -1.23, -1.23 + 2.46*(0.25+0.75*0.5)},
		{17, -1.23, 1.23},
		{20, -1.23, 1.23},
	} {
		lo, hi := span(c.t)
		if math.Abs(lo-c.lo) > 1e-9 || math.Abs(hi-c.hi) > 1e-9 {
			t.Errorf("t=%v: top row spans got=[%v, %v], want=[%v, %v]", c.t, lo, hi, c.lo, c.hi)
		}
	}
	// The path moves monotonically from 5 s to 11 s.
	prev := math.Inf(1)
	for tm := 5.0; tm <= 11; tm += 0.05 {
		_, hi := span(tm)
		if hi > prev+1e-12 {
			t.Fatalf("t=%v: right end got=%v after %v, want non-increasing", tm, hi, prev)
		}
		prev = hi
	}
}

// mustParse is a valid base scene that the error cases modify.
const baseScene = `{
  "name": "t", "duration": 1,
  "mesh": {"kind": "grid", "width": 1, "height": 1, "nx": 4, "ny": 4},
  "pins": [{"select": "top-corners"}]
}`

func TestParseSceneErrors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // substrings of the error
	}{
		{"empty", "", []string{"t.json: empty"}},
		{"syntax", "{\n  \"name\": \"x\",\n  \"duration\": 1,,\n}", []string{"t.json: line 3, column 17", "invalid character"}},
		{"truncated", "{\n \"name\": \"x\"", []string{"t.json: line 2"}},
		{"unknown key", "{\n \"duration\": 1,\n \"mesh\": {\"kind\": \"grid\", \"width\": 1, \"height\": 1, \"nx\": 1, \"ny\": 1},\n \"colour\": 3\n}", []string{"line 4, column 2", "unknown key \"colour\""}},
		{"unknown param", strings.Replace(baseScene, `"name"`, `"params": {"youngs": 3}, "name"`, 1), []string{"unknown key \"youngs\""}},
		{"unknown param line", "{\"duration\": 1,\n \"params\": {\"dt\": 0.01,\n   \"E\": 3}}", []string{"line 3, column 4: params: unknown key \"E\" (valid keys: E_x, E_y"}},
		{"at without material", strings.Replace(baseScene, `"top-corners"`, `"top-corners", "at": [0, 0]`, 1), []string{"pins[0].at"}},
		{"material without at", strings.Replace(baseScene, `"top-corners"`, `"material"`, 1), []string{"pins[0].at"}},
		{"target on a row", strings.Replace(baseScene, `"top-corners"`, `"top-row", "target": [0, 0, 0]`, 1), []string{"pins[0].target"}},
		{"remove with path", strings.Replace(baseScene, `"top-corners"`, `"top-row", "remove": true, "path": [{"t": 0, "offset": [0,0,0]}]`, 1), []string{"pins[0].remove"}},
		{"camera distance", strings.Replace(baseScene, `"name"`, `"camera": {"target": [0,0,0], "distance": 0, "yaw": 0, "pitch": 0, "fov_y": 45}, "name"`, 1), []string{"camera.distance"}},
		{"cloth colour out of range", strings.Replace(baseScene, `"name"`, `"cloth_color": [0.5, 1.2, 0], "name"`, 1), []string{"cloth_color must be three numbers in [0, 1]", "[0.5 1.2 0]"}},
		{"cloth colour short", strings.Replace(baseScene, `"name"`, `"cloth_color": [0.5, 1], "name"`, 1), []string{"cloth_color"}},
		{"adapt type", strings.Replace(baseScene, `"name"`, `"adapt": {"g_max": "six"}, "name"`, 1), []string{"adapt: g_max: want an integer"}},
		{"wrong type", strings.Replace(baseScene, `"nx": 4`, `"nx": "four"`, 1), []string{"line 3", "mesh.nx"}},
		{"number too big", strings.Replace(baseScene, `"width": 1`, `"width": 1e999`, 1), []string{"line 3", "mesh.width"}},
		{"trailing data", baseScene + "\n{}", []string{"line 6", "after the scene"}},
		{"negative width", strings.Replace(baseScene, `"width": 1`, `"width": -1`, 1), []string{"mesh.width must be positive"}},
		{"zero height", strings.Replace(baseScene, `"height": 1`, `"height": 0`, 1), []string{"mesh.height"}},
		{"nx zero", strings.Replace(baseScene, `"nx": 4`, `"nx": 0`, 1), []string{"mesh.nx"}},
		{"too many triangles", strings.Replace(baseScene, `"nx": 4, "ny": 4`, `"nx": 2000, "ny": 2000`, 1), []string{"more than 2000000 triangles"}},
		{"irregular count", strings.Replace(baseScene, `"kind": "grid"`, `"kind": "irregular", "triangles": 3000000`, 1), []string{"mesh.triangles"}},
		{"unknown kind", strings.Replace(baseScene, `"grid"`, `"mesh"`, 1), []string{"mesh.kind"}},
		{"obj without file", strings.Replace(baseScene, `"grid"`, `"obj"`, 1), []string{"mesh.file"}},
		{"no duration", strings.Replace(baseScene, `"duration": 1`, `"duration": 0`, 1), []string{"duration"}},
		{"bad orientation", strings.Replace(baseScene, `"pins"`, `"placement": {"orientation": "diagonal"}, "pins"`, 1), []string{"placement.orientation"}},
		{"negative ripple", strings.Replace(baseScene, `"pins"`, `"placement": {"ripple": -0.1}, "pins"`, 1), []string{"placement.ripple"}},
		{"unknown selector", strings.Replace(baseScene, `top-corners`, `top-centre`, 1), []string{"pins[0].select", "top-centre", "top-row"}},
		{"vertices without list", strings.Replace(baseScene, `top-corners`, `vertices`, 1), []string{"pins[0].vertices"}},
		{"path not ascending", strings.Replace(baseScene, `"top-corners"`, `"top-corners", "path": [{"t": 0}, {"t": 2}, {"t": 2}]`, 1), []string{"pins[0].path[2].t", "ascending"}},
		{"path and gather", strings.Replace(baseScene, `"top-corners"`, `"top-corners", "path": [{"t": 0}], "gather": {"end": 1, "fraction": 0.5}`, 1), []string{"either path or gather"}},
		{"gather backwards", strings.Replace(baseScene, `"top-corners"`, `"top-corners", "gather": {"start": 3, "end": 1, "fraction": 0.5}`, 1), []string{"start < end"}},
		{"gather fraction", strings.Replace(baseScene, `"top-corners"`, `"top-corners", "gather": {"start": 0, "end": 1, "fraction": 0}`, 1), []string{"gather.fraction"}},
		{"gather back", strings.Replace(baseScene, `"top-corners"`, `"top-corners", "gather": {"start": 0, "end": 2, "back": 1, "fraction": 0.5}`, 1), []string{"gather.back"}},
		{"negative dt", strings.Replace(baseScene, `"name"`, `"params": {"dt": -0.01}, "name"`, 1), []string{"params: dt"}},
		{"huge dt", strings.Replace(baseScene, `"name"`, `"params": {"dt": 5}, "name"`, 1), []string{"params: dt must be in [1e-06, 0.1] s"}},
		{"negative density", strings.Replace(baseScene, `"name"`, `"params": {"density": -1}, "name"`, 1), []string{"params: density"}},
		{"poisson 1", strings.Replace(baseScene, `"name"`, `"params": {"nu_xy": 1}, "name"`, 1), []string{"params: nu_xy must be in [0, 0.99]"}},
		{"max_iter 0", strings.Replace(baseScene, `"name"`, `"params": {"max_iter": 0}, "name"`, 1), []string{"params: max_iter must be in [1, 100000]"}},
		{"gravity length", strings.Replace(baseScene, `"name"`, `"params": {"gravity": [0, 1]}, "name"`, 1), nil},
		{"NaN literal", strings.Replace(baseScene, `"width": 1`, `"width": NaN`, 1), []string{"line 3", "invalid character"}},
	} {
		s, err := ParseScene([]byte(c.src), "t.json")
		if c.want == nil { // JSON allows short arrays; the case documents that it loads
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || s != nil {
			t.Errorf("%s: got err=%v, want an error", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error got=%q, want it to contain %q", c.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q spans several lines", c.name, err)
		}
	}
}

func TestSceneBuildErrors(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"vertex out of range", strings.Replace(baseScene, `"top-corners"`, `"vertices", "vertices": [0, 25]`, 1), "pins[0]: vertices: 25 is not a vertex"},
		{"negative vertex", strings.Replace(baseScene, `"top-corners"`, `"vertices", "vertices": [-1]`, 1), "-1 is not a vertex"},
	} {
		s, err := ParseScene([]byte(c.src), "t.json")
		if err != nil {
			t.Errorf("%s: ParseScene: %v", c.name, err)
			continue
		}
		if _, err := s.Build(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Build got err=%v, want %q", c.name, err, c.want)
		}
	}
}

func TestSceneSelectors(t *testing.T) {
	// A 4 × 2 grid: vertex (i, j) is slot 5j+i.
	for _, c := range []struct {
		sel  string
		want []int32
	}{
		{"top-row", []int32{10, 11, 12, 13, 14}},
		{"bottom-row", []int32{0, 1, 2, 3, 4}},
		{"left-column", []int32{0, 5, 10}},
		{"right-column", []int32{4, 9, 14}},
		{"top-left", []int32{10}},
		{"top-right", []int32{14}},
		{"bottom-left", []int32{0}},
		{"bottom-right", []int32{4}},
		{"top-corners", []int32{10, 14}},
		{"bottom-corners", []int32{0, 4}},
		{"corners", []int32{0, 4, 10, 14}},
	} {
		src := `{"duration": 1, "mesh": {"kind": "grid", "width": 2, "height": 1, "nx": 4, "ny": 2}, "pins": [{"select": "` + c.sel + `"}]}`
		s, err := ParseScene([]byte(src), "sel.json")
		if err != nil {
			t.Fatal(err)
		}
		sim, err := s.Build()
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		for _, p := range sim.Pins() {
			got = append(got, p.Vertex)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: got=%v, want=%v", c.sel, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: got=%v, want=%v", c.sel, got, c.want)
				break
			}
		}
	}
}

func TestScenePlacement(t *testing.T) {
	for _, c := range []struct {
		placement string
		corner    geom.Vec3 // world position of material (2, 1)
	}{
		{`{"origin": [1, 2, 3]}`, geom.Vec3{3, 3, 3}},
		{`{"origin": [1, 2, 3], "orientation": "vertical"}`, geom.Vec3{3, 3, 3}},
		{`{"origin": [1, 2, 3], "orientation": "horizontal"}`, geom.Vec3{3, 2, 2}},
		{`{"orientation": "vertical", "ripple": 0.01, "wavelength": 8}`, geom.Vec3{2, 1, 0.01}}, // sin(2π·2/8) = 1
	} {
		src := `{"duration": 1, "mesh": {"kind": "grid", "width": 2, "height": 1, "nx": 2, "ny": 1}, "placement": ` + c.placement + `}`
		s, err := ParseScene([]byte(src), "p.json")
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.BuildMesh()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Pos[5]; got.Sub(c.corner).Norm() > 1e-12 {
			t.Errorf("%s: corner got=%v, want=%v", c.placement, got, c.corner)
		}
		if m.Rest[5] != (geom.Vec2{2, 1}) {
			t.Errorf("%s: rest got=%v, want=%v", c.placement, m.Rest[5], geom.Vec2{2, 1})
		}
	}
}

func TestScenePath(t *testing.T) {
	src := strings.Replace(baseScene, `"top-corners"`, `"top-left", "path": [{"t": 1, "offset": [0, 0, 0]}, {"t": 3, "offset": [0, 0.2, 0]}]`, 1)
	s, err := ParseScene([]byte(src), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	p := sim.Pins()[0]
	for _, c := range []struct{ t, y float64 }{{0, 0}, {1, 0}, {2, 0.1}, {3, 0.2}, {9, 0.2}} {
		if got := p.Path.At(c.t).Y; math.Abs(got-c.y) > 1e-12 {
			t.Errorf("offset at t=%v got=%v, want=%v", c.t, got, c.y)
		}
	}
}

func TestLoadScene(t *testing.T) {
	fsys := fstest.MapFS{
		"scenes/a.json": {Data: []byte(baseScene)},
		"scenes/b.json": {Data: []byte(`{"duration": 1, "mesh": {"kind": "obj", "file": "m.obj"}}`)},
		"scenes/m.obj":  {Data: []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")},
		"scenes/c.json": {Data: []byte(`{"duration": 1, "mesh": {"kind": "obj", "file": "nope.obj"}}`)},
	}
	if got, want := strings.Join(SceneNames(fsys), ","), "a,b,c"; got != want {
		t.Errorf("SceneNames got=%v, want=%v", got, want)
	}
	for _, c := range []struct {
		arg     string
		wantErr string // "" for success
	}{
		{"a", ""},
		{"b", ""},
		{"c", "nope.obj"},
		{"zzz", `unknown scene "zzz"`},
		{"../a", "unknown scene"},
		{"testdata/scene_obj.json", ""},
		{"testdata/scene_missing_obj.json", "does-not-exist.obj"},
		{"testdata/scene_unknown_key.json", "testdata/scene_unknown_key.json: line 5, column 13: unknown key \"colour\""},
		{"testdata/scene_syntax.json", "testdata/scene_syntax.json: line 4, column 28"},
		{"testdata/none.json", "no such file"},
	} {
		s, err := LoadScene(fsys, c.arg)
		if err == nil {
			_, err = s.Build()
		}
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.arg, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: got err=%v, want %q", c.arg, err, c.wantErr)
		}
	}
	_, err := LoadScene(fsys, "zzz")
	if err == nil || !strings.Contains(err.Error(), "a, b, c") {
		t.Errorf("unknown scene: got err=%v, want the list of scenes", err)
	}
	if !errors.Is(func() error { _, err := LoadScene(nil, "testdata/none.json"); return err }(), os.ErrNotExist) {
		t.Errorf("missing file: want an error wrapping os.ErrNotExist")
	}
}

func TestSceneOBJPlacement(t *testing.T) {
	s, err := LoadScene(nil, filepath.Join("testdata", "scene_obj.json"))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := sim.Mesh.Bounds()
	if want := (geom.Vec3{0, 1, -1}); lo != want {
		t.Errorf("bounds lo got=%v, want=%v", lo, want)
	}
	if want := (geom.Vec3{2, 1, 0}); hi != want {
		t.Errorf("bounds hi got=%v, want=%v", hi, want)
	}
	if got := len(sim.Pins()); got != 2 {
		t.Errorf("top-row pins got=%v, want=2", got)
	}
}

func FuzzParseScene(f *testing.F) {
	f.Add([]byte(baseScene))
	f.Add([]byte(`{"duration": 20, "mesh": {"kind": "irregular", "width": 1, "height": 1, "triangles": 50}, "pins": [{"select": "top-row", "gather": {"start": 0, "end": 1, "fraction": 0.5}}], "params": {"dt": 0.01}}`))
	f.Add([]byte(`{"duration": 1, "mesh": {"kind": "grid", "width": 1, "height": 1, "nx": 1, "ny": 1}, "pins": [{"select": "vertices", "vertices": [3], "path": [{"t": 0, "offset": [1, 2, 3]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScene(data, "fuzz.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("parsed scene fails Validate: %v", err)
		}
		// Build only small scenes, to keep the fuzzer fast.
		small := (s.Mesh.Kind == "grid" && s.Mesh.NX*s.Mesh.NY <= 400) || (s.Mesh.Kind == "irregular" && s.Mesh.Triangles <= 800)
		if !small {
			return
		}
		if sim, err := s.Build(); err == nil && !sim.Finite() {
			t.Fatalf("built simulation is not finite")
		}
	})
}

func TestSceneAdaptSection(t *testing.T) {
	const head = `{"duration": 1, "mesh": {"kind": "staggered", "width": 1, "height": 1, "nx": 3, "ny": 2}`
	for _, c := range []struct {
		adapt string
		want  string // substring of the error, "" for none
	}{
		{``, ""},
		{`, "adapt": {}`, ""},
		{`, "adapt": {"l_base": 2, "l_gmax": 1}`, "adapt: refinement limit l_gmax"},
		{`, "adapt": {"coarsen": 1}`, "adapt: coarsen must be in"},
		{`, "adapt": {"g_max": 40}`, "adapt: g_max must be in [0, 31]"},
		{`, "adapt": {"interval": 0}`, "adapt: interval must be in [1, 1000] steps"},
		{`, "adapt": {"max_triangles": 1000000000}`, "max_triangles must be in [1, 2000000]"},
		{`, "adapt": {"bogus": 1}`, `unknown key "bogus"`},
		{`, "adapt": {"fine_start": true, "g_max": 3}`, "fine_start refines the base mesh uniformly to g_max, which must be even, got g_max = 3"},
		{`, "adapt": {"fine_hold": -1}`, "fine_hold must be in"},
	} {
		sc, err := ParseScene([]byte(head+c.adapt+"}"), "t.json")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: got error %v, want none", c.adapt, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error got=%v, want one containing %q", c.adapt, err, c.want)
		case err == nil:
			s, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := s.Mesh.NumTris(), 2*(2*3+1); got != want {
				t.Errorf("staggered 3×2: faces got=%d, want=%d", got, want)
			}
			if got, want := s.AdaptParams().Enabled, c.adapt != ""; got != want {
				t.Errorf("%q: adaptivity enabled got=%v, want=%v", c.adapt, got, want)
			}
		}
	}
}
