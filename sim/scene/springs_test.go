package scene

import (
	"strings"
	"testing"

	"drape/sim/springs"
)

const springsScene = `{
  "name": "s", "duration": 1,
  "model": "springs",
  "springs_scene": "sheet-dynamic",
  "springs": { "k_structural": 80, "max_layer": 1, "coarsen_fraction": 0.3, "coarsen_checks": 4 }
}`

// TestSpringsScenes: the four shipped springs scenes load, build the
// package's built-in cloth with the scene's parameters, and step.
func TestSpringsScenes(t *testing.T) {
	for _, c := range []struct {
		name      string
		particles int // active + fixed at build
		fixed     int
	}{
		{"springs-sheet", 17 * 17, 2},
		{"springs-tablecloth", 21 * 21, 4},
		{"springs-pole", 21 * 21, 1},
		{"springs-small", 4, 2},
	} {
		s, err := LoadScene(sceneAssets, c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !s.IsSprings() || s.Dt() != s.Springs.Dt {
			t.Errorf("%s: IsSprings=%v Dt=%v, want springs with dt %v", c.name, s.IsSprings(), s.Dt(), s.Springs.Dt)
		}
		if _, err := s.Build(); err == nil {
			t.Errorf("%s: Build (FEM) of a springs scene: no error", c.name)
		}
		cl, err := s.BuildSprings()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := cl.Counts()
		if got := n.Active + n.Fixed; got != c.particles || n.Fixed != c.fixed {
			t.Errorf("%s: particles got=%d (fixed %d), want=%d (fixed %d)", c.name, got, n.Fixed, c.particles, c.fixed)
		}
		if cl.Spec().Variant != springs.DynamicSubdivision {
			t.Errorf("%s: variant got=%v, want dynamic", c.name, cl.Spec().Variant)
		}
		for range 20 {
			if err := cl.Step(); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
	}
}

// TestSpringsSceneParse: the springs block overrides the defaults field by
// field, and Encode writes a springs scene that reads back equal, without
// the FEM keys.
func TestSpringsSceneParse(t *testing.T) {
	s, err := ParseScene([]byte(springsScene), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	want := springs.DefaultParams()
	want.KStructural, want.MaxLayer = 80, 1
	want.CoarsenFraction, want.CoarsenChecks = 0.3, 4
	if s.Springs != want {
		t.Errorf("springs got=%+v, want=%+v", s.Springs, want)
	}
	cl, err := s.BuildSprings()
	if err != nil {
		t.Fatal(err)
	}
	if got := cl.Params(); got != want {
		t.Errorf("cloth params got=%+v, want=%+v", got, want)
	}
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"mesh"`, `"params"`, `"contact"`, `"strain"`} {
		if strings.Contains(string(data), key) {
			t.Errorf("encoded springs scene has %s:\n%s", key, data)
		}
	}
	re, err := ParseScene(data, "re.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if re.Springs != s.Springs || re.Model != s.Model || re.SpringsScene != s.SpringsScene {
		t.Errorf("reloaded got=%+v %q %q, want=%+v %q %q", re.Springs, re.Model, re.SpringsScene, s.Springs, s.Model, s.SpringsScene)
	}
	fem, err := ParseScene([]byte(baseScene), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if fem.IsSprings() || fem.Dt() != fem.Params.Dt {
		t.Errorf("FEM scene: IsSprings=%v Dt=%v", fem.IsSprings(), fem.Dt())
	}
	if _, err := fem.BuildSprings(); err == nil {
		t.Error("BuildSprings of a FEM scene: no error")
	}
}

// TestSpringsSceneErrors: every new key's bad values are clear errors.
func TestSpringsSceneErrors(t *testing.T) {
	rep := func(old, new string) string {
		if !strings.Contains(springsScene, old) {
			t.Fatalf("%q not in the scene", old)
		}
		return strings.Replace(springsScene, old, new, 1)
	}
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"unknown model", rep(`"model": "springs"`, `"model": "rods"`), []string{`model must be "fem" or "springs", got "rods"`}},
		{"springs block on FEM", strings.Replace(baseScene, `"name"`, `"springs": {"dt": 0.001}, "name"`, 1), []string{`line 2, column 3`, `"springs" block applies to "model": "springs" only`}},
		{"springs_scene on FEM", strings.Replace(baseScene, `"name"`, `"springs_scene": "sheet", "name"`, 1), []string{`springs_scene applies to "model": "springs" only`}},
		{"no springs_scene", rep(`"springs_scene": "sheet-dynamic",`, ``), []string{"springs_scene is required", "tablecloth-dynamic"}},
		{"unknown springs_scene", rep(`sheet-dynamic`, `sheet-adaptive`), []string{`springs_scene: springs: unknown scene "sheet-adaptive"`}},
		{"unknown springs key", rep(`"max_layer": 1`, `"max_layers": 1`), []string{"line 5, column 36", `springs: unknown key "max_layers"`, "check_interval"}},
		{"springs type", rep(`"max_layer": 1`, `"max_layer": 1.5`), []string{"springs: max_layer"}},
		{"springs range", rep(`"max_layer": 1`, `"max_layer": 7`), []string{"springs: springs: max_layer must be in [0, 6]"}},
		{"springs dt", rep(`"max_layer": 1`, `"dt": 0`), []string{"springs: springs: dt"}},
		{"coarsen fraction", rep(`"coarsen_fraction": 0.3`, `"coarsen_fraction": 1`), []string{"springs: springs: coarsen_fraction must be in [0, 0.9]"}},
		{"coarsen checks", rep(`"coarsen_checks": 4`, `"coarsen_checks": 0`), []string{"springs: springs: coarsen_checks must be in [1, 1000000], got 0"}},
		{"coarsen checks type", rep(`"coarsen_checks": 4`, `"coarsen_checks": "many"`), []string{"springs: coarsen_checks"}},
		{"springs negative k", rep(`"k_structural": 80`, `"k_structural": -1`), []string{"k_structural"}},
		{"mesh on springs", rep(`"model"`, `"mesh": {"kind": "grid", "width": 1, "height": 1, "nx": 2, "ny": 2}, "model"`), []string{"mesh: a springs scene"}},
		{"pins on springs", rep(`"model"`, `"pins": [{"select": "top-row"}], "model"`), []string{"pins: a springs scene"}},
		{"adapt on springs", rep(`"model"`, `"adapt": {}, "model"`), []string{"adapt: a springs scene"}},
		{"placement on springs", rep(`"model"`, `"placement": {"origin": [0, 1, 0]}, "model"`), []string{"placement: a springs scene"}},
		{"camera on springs", rep(`"model"`, `"camera": {"target": [0,0,0], "distance": -1, "yaw": 0, "pitch": 0, "fov_y": 45}, "model"`), []string{"camera.distance"}},
	} {
		s, err := ParseScene([]byte(c.src), "t.json")
		if err == nil || s != nil {
			t.Errorf("%s: got err=%v, want an error", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error got=%q, want it to contain %q", c.name, err, w)
			}
		}
	}
}
