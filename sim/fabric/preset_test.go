package fabric

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"drape/sim/cloth"
	"drape/sim/strainlimit"
)

var update = flag.Bool("update", false, "rewrite the derived fields of assets/materials/*.json from their measured data")

// wangMeasured is the "measured" block of a preset from Wang et al. 2011.
type wangMeasured struct {
	Model      string        `json:"model"`
	Fabric     string        `json:"fabric"`
	Density    float64       `json:"density"`
	Stretching [6][4]float64 `json:"stretching"`
	Bending    [3][5]float64 `json:"bending"`
}

func (w wangMeasured) data() Wang2011 {
	return Wang2011{Density: w.Density, Stretch: w.Stretching, Bend: w.Bending}
}

// sig rounds x to 4 significant digits, the precision the presets print.
func sig(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

// TestBuiltin checks that every shipped preset parses, cites a source and
// converts: at least eight, and each one's params set every material key.
func TestBuiltin(t *testing.T) {
	lib, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lib.Names()); n < 8 {
		t.Errorf("%d presets, want at least 8", n)
	}
	for _, name := range lib.Names() {
		p, _ := lib.Lookup(name)
		if len(p.ParamKeys()) != len(PresetParamKeys) {
			t.Errorf("%s: params set %v, want all of %v", name, p.ParamKeys(), PresetParamKeys)
		}
		if p.Title == "" || p.URL == "" || len(p.Conversion) == 0 {
			t.Errorf("%s: title, url and conversion must be filled in", name)
		}
		if !(p.BendWarp > 0 && p.BendWeft > 0) {
			t.Errorf("%s: bending_warp, bending_weft = %v, %v, want both positive", name, p.BendWarp, p.BendWeft)
		}
	}
}

// TestPresetsFromSource re-derives every preset's parameters from its
// measured block (Wang2011.Derive) and checks the file's values agree to
// the 4 digits they are printed with. With -update it rewrites the
// derived fields and the conversion text instead.
func TestPresetsFromSource(t *testing.T) {
	lib, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range lib.Names() {
		p, _ := lib.Lookup(name)
		var m wangMeasured
		if err := json.Unmarshal(p.Measured, &m); err != nil || m.Model != "wang2011" {
			t.Errorf("%s: measured block is not a wang2011 one (%v)", name, err)
			continue
		}
		d, err := m.data().Derive()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if *update {
			writePreset(t, p, m, d)
			continue
		}
		params, strain := p.Values()
		for _, c := range []struct {
			key       string
			got, want float64
		}{
			{"E_x", params.YoungX, d.Ex}, {"E_y", params.YoungY, d.Ey}, {"E_s", params.Shear, d.Es},
			{"nu_xy", params.PoissXY, d.NuXY}, {"nu_yx", params.PoissYX, d.NuYX},
			{"density", params.Density, m.Density}, {"bending", params.Bending, d.Bending},
			{"bending_warp", p.BendWarp, d.BendWarp}, {"bending_weft", p.BendWeft, d.BendWeft},
			{"max_weft", limitOr0(strain, strain.MaxWeft), d.MaxWeft}, {"max_warp", limitOr0(strain, strain.MaxWarp), d.MaxWarp},
		} {
			if math.Abs(c.got-c.want) > 1e-3*math.Abs(c.want)+1e-12 {
				t.Errorf("%s: %s = %v, the conversion gives %v (run go test -run TestPresetsFromSource -update)", name, c.key, c.got, c.want)
			}
		}
	}
}

// limitOr0 reads a strain limit as Derive writes it: 0 for no limit.
func limitOr0(s strainlimit.Params, v float64) float64 {
	if !s.Enabled || v >= noLimit {
		return 0
	}
	return v
}

// noLimit is the strain limit written for a direction without one while
// the other is limited (strainlimit needs both): 10, the table's maximum.
const noLimit = 10

func writePreset(t *testing.T, p *Preset, m wangMeasured, d Derived) {
	t.Helper()
	num := func(x float64) string { return strconv.FormatFloat(sig(x), 'g', -1, 64) }
	var b bytes.Buffer
	str := func(s string) string {
		var q bytes.Buffer
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		return strings.TrimSpace(q.String())
	}
	fmt.Fprintf(&b, "{\n  \"name\": %s,\n  \"title\": %s,\n  \"source\": %s,\n  \"url\": %s,\n", str(p.Name), str(p.Title), str(p.Source), str(p.URL))
	fmt.Fprintf(&b, "  \"params\": {\"E_x\": %s, \"E_y\": %s, \"E_s\": %s, \"nu_xy\": %s, \"nu_yx\": %s, \"density\": %s, \"bending\": %s},\n",
		num(d.Ex), num(d.Ey), num(d.Es), num(d.NuXY), num(d.NuYX), num(m.Density), num(d.Bending))
	if d.MaxWeft > 0 || d.MaxWarp > 0 {
		lim := func(x float64) string {
			if x == 0 {
				return strconv.Itoa(noLimit)
			}
			return num(x)
		}
		fmt.Fprintf(&b, "  \"strain\": {\"enabled\": true, \"max_weft\": %s, \"max_warp\": %s},\n", lim(d.MaxWeft), lim(d.MaxWarp))
	}
	fmt.Fprintf(&b, "  \"bending_warp\": %s,\n  \"bending_weft\": %s,\n", num(d.BendWarp), num(d.BendWeft))
	if p.DC != nil {
		dc, _ := json.Marshal(p.DC)
		fmt.Fprintf(&b, "  \"drape_coefficient\": %s,\n", dc)
	}
	b.WriteString("  \"conversion\": [\n")
	lines := wangConversion(m, d)
	for i, l := range lines {
		sep := ","
		if i == len(lines)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %s%s\n", str(l), sep)
	}
	b.WriteString("  ],\n")
	fmt.Fprintf(&b, "  \"measured\": {\n    \"model\": \"wang2011\",\n    \"fabric\": %s,\n    \"density\": %v,\n    \"stretching\": [\n", str(m.Fabric), m.Density)
	for i, r := range m.Stretching {
		sep := ","
		if i == len(m.Stretching)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "      [%v, %v, %v, %v]%s\n", r[0], r[1], r[2], r[3], sep)
	}
	b.WriteString("    ],\n    \"bending\": [\n")
	for i, r := range m.Bending {
		sep := ","
		if i == len(m.Bending)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "      [%v, %v, %v, %v, %v]%s\n", r[0], r[1], r[2], r[3], r[4], sep)
	}
	b.WriteString("    ]\n  }\n}\n")
	if _, err := ParsePreset(b.Bytes(), p.Name); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("..", "..", "assets", "materials", p.Name+".json")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wangConversion writes out Derive's arithmetic for one fabric.
func wangConversion(m wangMeasured, d Derived) []string {
	f := func(x float64) string { return strconv.FormatFloat(sig(x), 'g', -1, 64) }
	s := m.Stretching
	k := [4]float64{}
	var clamped []string
	for i := range k {
		k[i] = 2 * math.Max(s[0][i], 0)
		if s[0][i] < 0 {
			clamped = append(clamped, fmt.Sprintf("c%d%d", []int{1, 1, 2, 3}[i], []int{1, 2, 2, 3}[i]))
		}
	}
	lines := []string{
		"Source model (Wang et al. 2011, as their simulator and ARCSim read these numbers): stretching rows are (c11, c12, c22, c33), row 0 at zero strain and rows 1-5 at principal stretch 1 + 1/6 along 0°, 22.5°, 45°, 67.5°, 90° from the material u axis (taken as drape's weft, material X); each entry is doubled when used, in the energy density ½·k0·E00² + k1·E00·E11 + ½·k2·E11² + k3·E01², N/m (E the Green strain). Bending rows are hinge stiffnesses k_e of edges along u (row 0: bends the warp), at 45° and along v (row 2: bends the weft), at curvature samples α = 0, 5, 10, 15, 20 1/m, in the hinge energy k_e·l²/(2(A0+A1))·θ²/4.",
		fmt.Sprintf("Membrane (drape's linear model takes the zero-strain tangent): k = 2·max(row 0, 0) = (%s, %s, %s, %s) N/m%s; the plane-stress tensor C has C11 = k0, C12 = k1, C22 = k2, %sso nu_xy = C12/C22 = %s, nu_yx = C12/C11 = %s, E_x = C11 − C12²/C22 = %s N/m, E_y = C22 − C12²/C11 = %s N/m, and E_s = k3/2 = %s N/m (k3·E01² = ½·(k3/2)·γ², γ = 2·E01).",
			f(k[0]), f(k[1]), f(k[2]), f(k[3]), clampNote(clamped), cutNote(k), f(d.NuXY), f(d.NuYX), f(d.Ex), f(d.Ey), f(d.Es)),
		fmt.Sprintf("Bending: the hinge energy summed over an equilateral mesh bent to curvature κ is ½·(k_e/4)·κ² per area in every direction (WangBendScale), so B = k_e/4, taking the mean of the first three curvature samples (α ≤ 10 1/m, radii ≳ 3 cm, the cantilever's and the Cusick drape's range): warp B = ¼·mean(%s, %s, %s) = %s N·m, weft B = ¼·mean(%s, %s, %s) = %s N·m. drape's bending is isotropic (Bergou et al. 2006), so bending = √(B_warp·B_weft) = %s N·m; each direction's bending length is then off by (B_dir/bending)^⅓.",
			f(m.Bending[0][0]), f(m.Bending[0][1]), f(m.Bending[0][2]), f(d.BendWarp), f(m.Bending[2][0]), f(m.Bending[2][1]), f(m.Bending[2][2]), f(d.BendWeft), f(d.Bending)),
	}
	lock := fmt.Sprintf("Strain limits: the tangent stiffness along the weft (c11 of the 0° row) goes from %s to %s N/m at stretch 1/6, along the warp (c22 of the 90° row) from %s to %s N/m; the limit is where it reaches %d× its zero-strain value, ε = %d·k(0)/(6·(k(1/6) − k(0))), and none where that lies beyond ½ or the fabric does not stiffen: ",
		f(k[0]), f(2*math.Max(s[1][0], 0)), f(k[2]), f(2*math.Max(s[5][2], 0)), LockRatio, LockRatio-1)
	limit := func(x float64) string {
		if x == 0 {
			return "none"
		}
		return f(x)
	}
	lock += fmt.Sprintf("weft %s, warp %s.", limit(d.MaxWeft), limit(d.MaxWarp))
	if d.MaxWeft > 0 || d.MaxWarp > 0 {
		lock += fmt.Sprintf(" strainlimit needs both limits, so a direction without one gets %d (its maximum).", noLimit)
	}
	lines = append(lines, lock, "Density: the measured areal density, kg/m², unchanged.")
	return lines
}

func cutNote(k [4]float64) string {
	if lim := MaxPoisson * math.Min(k[0], k[2]); k[1] > lim {
		return fmt.Sprintf("C12 is cut from %s to %s N/m (%g·min(C11, C22)) to keep the Poisson ratios below drape's 0.99, ", strconv.FormatFloat(sig(k[1]), 'g', -1, 64), strconv.FormatFloat(sig(lim), 'g', -1, 64), MaxPoisson)
	}
	return ""
}

func clampNote(c []string) string {
	if len(c) == 0 {
		return ""
	}
	return " (" + strings.Join(c, ", ") + " measured negative at zero strain, clamped to 0 as ARCSim does)"
}

// TestLookupUnknown checks that a bad name lists the presets.
func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("velvet")
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "denim") {
		t.Errorf("Lookup(velvet) = %v, want ErrUnknown listing the presets", err)
	}
}

// TestParsePresetRejects checks the preset file's own errors.
func TestParsePresetRejects(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"name": "x", "source": "s", "params": {"dt": 0.1}}`, `"dt" is not a material key`},
		{`{"name": "y", "source": "s", "params": {}}`, `"name" is "y"`},
		{`{"name": "x", "params": {}}`, `"source" is missing`},
		{`{"name": "x", "source": "s", "params": {"E_x": -1}}`, `E_x must be in`},
		{`{"name": "x", "source": "s", "params": {}, "strain": {"passes": 3}}`, `"passes" is not a limit key`},
		{`{"name": "x", "source": "s", "params": {}, "colour": 1}`, `unknown field "colour"`},
	} {
		if _, err := ParsePreset([]byte(c.data), "x"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePreset(%s) = %v, want an error containing %q", c.data, err, c.want)
		}
	}
}

// TestApplySetsNamedKeys checks that a preset sets every key it names and
// nothing else.
func TestApplySetsNamedKeys(t *testing.T) {
	p, err := ParsePreset([]byte(`{"name": "x", "source": "s", "params": {"E_x": 123, "bending": 1e-6}, "strain": {"enabled": true, "max_warp": 0.2}}`), "x")
	if err != nil {
		t.Fatal(err)
	}
	params, strain := cloth.DefaultParams(), strainlimit.DefaultParams()
	params.Dt, params.YoungY = 0.001, 77
	p.Apply(&params, &strain)
	want, wantS := cloth.DefaultParams(), strainlimit.DefaultParams()
	want.Dt, want.YoungY, want.YoungX, want.Bending = 0.001, 77, 123, 1e-6
	wantS.Enabled, wantS.MaxWarp = true, 0.2
	if params != want || strain != wantS {
		t.Errorf("Apply: got %+v %+v, want %+v %+v", params, strain, want, wantS)
	}
}
