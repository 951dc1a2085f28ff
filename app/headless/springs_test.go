package headless

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSprings: drape run on a springs scene steps the spring cloth,
// writes OBJ frames of its surface and statistics with the particle
// count, and refuses PLY frames.
func TestRunSprings(t *testing.T) {
	dir := t.TempDir()
	stats := filepath.Join(dir, "stats.json")
	var out bytes.Buffer
	err := Run(RunOptions{Scene: "springs-sheet", Steps: 40, Out: dir, Every: 20, Format: "obj", Stats: stats}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "springs-sheet (mass-spring cloth, sheet-dynamic): 40 steps") || !strings.Contains(out.String(), "289 particles") {
		t.Errorf("summary: %q", out.String())
	}
	var st RunStats
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if st.Steps != 40 || st.Vertices != 289 || st.Triangles != 2*16*16 || !st.Finite || st.Dt != 5e-4 {
		t.Errorf("stats: %+v, want 40 steps, 289 particles, 512 triangles, finite, dt 0.5 ms", st)
	}
	if st.TotalMass == nil || *st.TotalMass < 0.0999 || *st.TotalMass > 0.1001 {
		t.Errorf("total mass %v, want ρ·A = 0.1 kg", st.TotalMass)
	}
	for _, f := range []string{"frame_000000.obj", "frame_000020.obj", "frame_000040.obj"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if v, fc := strings.Count(string(data), "\nv ")+1, strings.Count(string(data), "\nf "); v != 289 || fc != 512 {
			t.Errorf("%s: %d vertices, %d faces, want 289, 512", f, v, fc)
		}
	}
	err = Run(RunOptions{Scene: "springs-sheet", Steps: 1, Out: dir, Every: 1, Format: "ply"}, &out)
	if err == nil || !strings.Contains(err.Error(), "PLY") {
		t.Errorf("PLY frames of a springs scene: got err=%v", err)
	}
}

// TestRunSpringsUnstable: a step far above the stable one is reported as
// a blow-up with the stable step estimate.
func TestRunSpringsUnstable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	src := `{"name": "fast", "duration": 1, "model": "springs", "springs_scene": "sheet", "springs": {"dt": 0.03, "correction": 0}}`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Run(RunOptions{Scene: file, Steps: 300}, &out)
	if err == nil || !strings.Contains(err.Error(), "unstable") || !strings.Contains(err.Error(), "largest stable step is estimated") {
		t.Errorf("got err=%v, want a blow-up with the stable step", err)
	}
}

// TestBenchSprings: bench on a springs scene runs the three variants of
// the paper and dynamic subdivision with coarsening for the same time; the
// uniform run is the reference (distance 0), is the deepest, and has the
// most particles. With coarsen_fraction 0 the coarsening run is left out.
func TestBenchSprings(t *testing.T) {
	res, err := Bench(BenchOptions{Scene: "springs-small", Seconds: 0.2, Sample: 0.05}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Springs
	if b == nil || len(b.Runs) != 4 || b.Base != "small" {
		t.Fatalf("result: %+v", res)
	}
	by := map[string]SpringsBenchRun{}
	for _, r := range b.Runs {
		by[r.Variant] = r
		if r.Steps != 400 || !r.Finite {
			t.Errorf("%s: %d steps finite=%v, want 400 and finite", r.Variant, r.Steps, r.Finite)
		}
	}
	u, n, d := by["uniform"], by["none"], by["dynamic"]
	if u.DistanceRMS != 0 || u.Depth != 2 || n.Depth != 0 || u.Particles != 25 || n.Particles != 4 {
		t.Errorf("uniform %+v, none %+v: want the uniform run at depth 2 with 25 particles and distance 0, none at depth 0 with 4", u, n)
	}
	if !(n.DistanceRMS > 0) || d.Particles < n.Particles {
		t.Errorf("none %+v, dynamic %+v: want a distance to uniform and dynamic at least as many particles", n, d)
	}
	var tbl bytes.Buffer
	WriteBenchTable(&tbl, res)
	for _, want := range []string{"| uniform | 25 |", "| dynamic+coarsening |", "\ndynamic vs uniform", "\ndynamic+coarsening vs uniform"} {
		if !strings.Contains(tbl.String(), want) {
			t.Errorf("table has no %q:\n%s", want, tbl.String())
		}
	}
	if err := WriteBenchPlots(t.TempDir(), res); err == nil {
		t.Error("bench plots of a springs scene: no error")
	}

	file := filepath.Join(t.TempDir(), "nocoarsen.json")
	src := `{"name": "nc", "duration": 1, "model": "springs", "springs_scene": "small-dynamic", "springs": {"coarsen_fraction": 0}}`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Bench(BenchOptions{Scene: file, Seconds: 0.05, Sample: 0.05}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res.Springs.Runs {
		names = append(names, r.Variant)
	}
	if got := strings.Join(names, " "); got != "none uniform dynamic" {
		t.Errorf("coarsen_fraction 0: runs %q, want none uniform dynamic", got)
	}
}
