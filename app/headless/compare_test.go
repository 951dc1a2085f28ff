package headless

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareDrapeBox runs "drape compare" on the built-in drape-box for
// 0.2 s (40 steps, errors every 0.05 s) and checks what holds for any
// such run:
//   - four runs named coarse, fine, refining, coarsening, each with every
//     step done and finite;
//   - vertex counts: coarse and fine constant, fine = the base mesh
//     refined to g_max = 4 (more than the coarse one), refining starting
//     at the coarse count, coarsening at the fine count;
//   - the fine run's errors against itself are exactly 0;
//   - the coarsening run is still inside its fine_hold (0.5 s, --hold), so it is
//     the fine run step for step: its errors are exactly 0 too;
//   - the coarse run's shape and force errors are positive, so larger
//     than the coarsening run's.
//
// Not asserted: that the coarse errors exceed the refining run's. On
// drape-box the curvature criterion refines little (227–281 vertices
// over 5 s) and the two differ by a few per cent, either way.
// The table has a header, a rule and four rows with Mujahid's numbers, and
// the JSON holds the four runs with their fields.
func TestCompareDrapeBox(t *testing.T) {
	res, err := Compare(CompareOptions{Scene: "drape-box", Seconds: 0.2, Sample: 0.05, Hold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Samples != 4 || res.Hold != 0.5 {
		t.Fatalf("samples got=%d, hold got=%v, want 4, 0.5", res.Samples, res.Hold)
	}
	want := []string{"coarse", "fine", "refining", "coarsening"}
	for k, r := range res.Runs {
		if r.Name != want[k] || r.Steps != 40 || !r.Finite || r.Error != "" {
			t.Errorf("run %d: name %q, steps %d, finite %v, error %q; want %q, 40, true, none", k, r.Name, r.Steps, r.Finite, r.Error, want[k])
		}
		if len(r.shape) != res.Samples {
			t.Errorf("%s: %d error samples, want %d", r.Name, len(r.shape), res.Samples)
		}
	}
	c, f, ref, crs := res.Runs[0], res.Runs[1], res.Runs[2], res.Runs[3]
	if c.VertsMin != c.VertsMax || f.VertsMin != f.VertsMax || f.VertsMin <= c.VertsMin {
		t.Errorf("vertices: coarse %d–%d, fine %d–%d; want both constant, fine > coarse", c.VertsMin, c.VertsMax, f.VertsMin, f.VertsMax)
	}
	if ref.verts[0] != c.VertsMin || crs.verts[0] != f.VertsMin {
		t.Errorf("first vertex counts: refining %d, coarsening %d; want %d (coarse), %d (fine)", ref.verts[0], crs.verts[0], c.VertsMin, f.VertsMin)
	}
	for _, r := range []CompareRun{f, crs} {
		if r.ShapeRMS != 0 || r.ShapeMax != 0 || r.ForceRMS != 0 || r.ForceMax != 0 {
			t.Errorf("%s: errors got shape %g/%g, force %g/%g, want all exactly 0", r.Name, r.ShapeRMS, r.ShapeMax, r.ForceRMS, r.ForceMax)
		}
	}
	if !(c.ShapeRMS > 0 && c.ShapeMax >= c.ShapeRMS && c.ForceRMS > 0 && c.ForceMax >= c.ForceRMS) {
		t.Errorf("coarse: errors got shape %g/%g, force %g/%g, want positive, max ≥ RMS", c.ShapeRMS, c.ShapeMax, c.ForceRMS, c.ForceMax)
	}

	var buf bytes.Buffer
	WriteCompareTable(&buf, res)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 8 {
		t.Fatalf("table: %d lines, want 8 (caption, blank, header, rule, 4 rows):\n%s", len(lines), buf.String())
	}
	for k, m := range []string{"| 180 | 400 | +0.1468 |", "| 3200 | 5939 | +0 |", "| 1855 | 400–4689 | +0.0625 |", "| 700 | 5939–1600 | +0.035 |"} {
		row := lines[4+k]
		if !strings.HasPrefix(row, "| "+want[k]+" |") || !strings.HasSuffix(row, m) || strings.Count(row, "|") != 15 {
			t.Errorf("row %d got=%q, want %s … %s with 14 cells", k, row, want[k], m)
		}
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "compare.json")
	if err := WriteJSONFile(file, res); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal(data, &j); err != nil || len(j.Runs) != 4 {
		t.Fatalf("JSON runs: %v, %d runs, want 4", err, len(j.Runs))
	}
	for _, key := range []string{"name", "total_s", "ms_per_step_mean", "ms_per_step_median", "vertices_min", "vertices_max", "vertices_mean",
		"shape_error_rms", "shape_error_max", "force_error_rms", "force_error_max"} {
		if _, ok := j.Runs[3][key]; !ok {
			t.Errorf("JSON run lacks %q", key)
		}
	}
	if err := WriteComparePlots(filepath.Join(dir, "plots"), res); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"vertices.png", "shape_error.png", "force_error.png"} {
		if st, err := os.Stat(filepath.Join(dir, "plots", p)); err != nil || st.Size() < 1000 {
			t.Errorf("plot %s: %v", p, err)
		}
	}
}

// TestCompareErrors: scenes the comparison cannot run are clear errors.
func TestCompareErrors(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.json")
	if err := os.WriteFile(odd, []byte(`{"duration": 1, "mesh": {"kind": "staggered", "width": 1, "height": 1, "nx": 2, "ny": 2}, "adapt": {"g_max": 3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    CompareOptions
		want string
	}{
		{CompareOptions{Scene: "hanging", Sample: 0.1}, `no "adapt" section`},
		{CompareOptions{Scene: odd, Sample: 0.1}, "g_max must be even"},
		{CompareOptions{Scene: "drape-box", Sample: 0}, "sample interval must be positive"},
		{CompareOptions{Scene: "nosuchscene", Sample: 0.1}, "unknown scene"},
	} {
		if _, err := Compare(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got err=%v, want one containing %q", c.o.Scene, err, c.want)
		}
	}
}
