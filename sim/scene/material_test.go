package scene

import (
	"encoding/json"
	"strings"
	"testing"

	"drape/sim/fabric"
)

const materialScene = `{
  "name": "m", "duration": 1,
  "mesh": {"kind": "grid", "width": 1, "height": 1, "nx": 2, "ny": 2},
  "material": %q,
  "params": {"E_x": 500, "dt": 0.002},
  "strain": {"max_warp": 0.3}
}`

// TestMaterialKey checks the "material" key: the preset sets every key
// it names, the scene's own "params" and "strain" keys override it, and
// the keys neither names keep their defaults.
func TestMaterialKey(t *testing.T) {
	for _, name := range []string{"denim", "jersey"} {
		s, err := ParseScene([]byte(strings.ReplaceAll(materialScene, "%q", `"`+name+`"`)), "m.json")
		if err != nil {
			t.Fatal(err)
		}
		p, err := fabric.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		wantP, wantS := p.Values()
		wantP.YoungX, wantP.Dt = 500, 0.002
		wantS.MaxWarp = 0.3
		if s.Material != name || s.Params != wantP || s.Strain != wantS {
			t.Errorf("%s: got material %q params %+v strain %+v, want %+v %+v", name, s.Material, s.Params, s.Strain, wantP, wantS)
		}
	}
}

// TestMaterialErrors checks that a bad name is reported with its line and
// the list of presets, and that a springs scene takes no material.
func TestMaterialErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{strings.ReplaceAll(materialScene, "%q", `"velvet"`), `line 4, column 3: material: unknown material "velvet" (the presets are blanket, denim,`},
		{`{"name": "s", "duration": 1, "model": "springs", "springs_scene": "sheet", "material": "denim"}`, `"model": "springs" has none`},
	} {
		if _, err := ParseScene([]byte(c.src), "m.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// TestMaterialSave checks that Encode keeps the preset's name and writes
// only the keys that differ from it, and that the file reads back to the
// same scene.
func TestMaterialSave(t *testing.T) {
	s, err := ParseScene([]byte(strings.ReplaceAll(materialScene, "%q", `"jersey"`)), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Material string                     `json:"material"`
		Params   map[string]json.RawMessage `json:"params"`
		Strain   map[string]json.RawMessage `json:"strain"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	_, hasEx := out.Params["E_x"]
	_, hasEy := out.Params["E_y"]
	_, hasDt := out.Params["dt"]
	_, hasWarp := out.Strain["max_warp"]
	_, hasWeft := out.Strain["max_weft"]
	if out.Material != "jersey" || !hasEx || hasEy || !hasDt || !hasWarp || hasWeft {
		t.Errorf("saved material %q, params keys %v, strain keys %v: want jersey with E_x, dt and max_warp but not E_y or max_weft", out.Material, keys(out.Params), keys(out.Strain))
	}
	back, err := ParseScene(data, "saved.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Material != s.Material || back.Params != s.Params || back.Strain != s.Strain {
		t.Errorf("read back %q %+v %+v, want %q %+v %+v", back.Material, back.Params, back.Strain, s.Material, s.Params, s.Strain)
	}
	// Without a material every key is written, as before.
	s.Material = ""
	if data, err = s.Encode(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"material"`) || !strings.Contains(string(data), `"E_y"`) {
		t.Errorf("a scene without a material must write every key and no \"material\":\n%s", data)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	return k
}
