package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"drape/assets"
	"drape/sim/geom"
	"drape/sim/meshio"
	"drape/sim/scene"
)

// runCLI runs the command line in-process.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCLIErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"duration\": 1,\n  \"mesh\": {\"kind\": \"grid\", \"width\": -1, \"height\": 1, \"nx\": 1, \"ny\": 1}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	syntax := filepath.Join(t.TempDir(), "syntax.json")
	if err := os.WriteFile(syntax, []byte("{\n  \"duration\": 1,\n  oops\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string // substring of the single stderr line
	}{
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"run", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"run", "--steps", "x"}, 2, `invalid value "x"`},
		{[]string{"run", "--steps", "-1"}, 2, "--steps must be non-negative"},
		{[]string{"run", "--every", "0"}, 2, "--every must be at least 1"},
		{[]string{"run", "--format", "stl"}, 2, `--format must be obj or ply, got "stl"`},
		{[]string{"record", "--seconds", "1"}, 2, "--out FILE.mp4|DIR is required"},
		{[]string{"record", "--out", "x.mp4", "--size", "320"}, 2, `--size must be WxH with W, H ≥ 2, got "320"`},
		{[]string{"record", "--out", "x.mp4", "--size", "1x240"}, 2, "--size must be WxH"},
		{[]string{"record", "--out", "x.mp4", "--fps", "0"}, 2, "--fps must be in (0, 1000]"},
		{[]string{"record", "--out", "x.mp4", "--look", "velvet"}, 2, `--look: unknown look "velvet": want curvature, strain, fabric`},
		{[]string{"record", "--out", "x.mp4", "--seconds", "-1"}, 2, "--seconds must be non-negative"},
		{[]string{"record", "--out", "x.mp4", "--scene", "nosuchscene"}, 1, `unknown scene "nosuchscene"`},
		{[]string{"view", "--record-fps", "0"}, 2, "--record-fps must be in (0, 1000]"},
		{[]string{"view", "--pair", "both"}, 2, `--pair must be one of full, gmax, criteria, got "both"`},
		{[]string{"record", "--out", "x.mp4", "--pair", "both"}, 2, `--pair must be one of full, gmax, criteria, got "both"`},
		{[]string{"record", "--out", "x.mp4", "--side-by-side", "--detail", "1"}, 2, "--side-by-side draws the simulation meshes"},
		{[]string{"view", "--max-fps", "-1"}, 2, "--max-fps must be a whole number of frames per second in [0, 1000] (0: no cap), got -1"},
		{[]string{"view", "--max-fps", "5000"}, 2, "--max-fps must be a whole number"},
		{[]string{"view", "--max-fps", "59.94"}, 2, `invalid value "59.94" for flag -max-fps`},
		{[]string{"run", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"run", "--cache", "abc", "--out", "x"}, 2, `--cache must be pc2 or mdd, got "abc"`},
		{[]string{"run", "--cache", "pc2"}, 2, "--cache needs --out DIR"},
		{[]string{"run", "--cache", "mdd", "--out", "x", "--every", "5"}, 2, "--cache writes a point cache at --fps instead of frames: leave out --every, --format and --detail"},
		{[]string{"run", "--cache", "pc2", "--out", "x", "--format", "ply"}, 2, "leave out --every, --format and --detail"},
		{[]string{"run", "--fps", "24"}, 2, "--fps and --cache-mesh need --cache pc2|mdd"},
		{[]string{"run", "--cache-mesh", "base"}, 2, "--fps and --cache-mesh need --cache pc2|mdd"},
		{[]string{"run", "--cache", "pc2", "--out", "x", "--fps", "0"}, 2, "--fps must be in (0, 1000], got 0"},
		{[]string{"run", "--cache", "pc2", "--out", "x", "--fps", "NaN"}, 2, "--fps must be in (0, 1000], got NaN"},
		{[]string{"run", "--cache", "pc2", "--out", "x", "--cache-mesh", ""}, 2, `--cache-mesh must be gmax, base or FILE.obj, got ""`},
		{[]string{"run", "--cache", "pc2", "--out", filepath.Join(t.TempDir(), "c"), "--fps", "500"}, 1, "--fps 500: want a rate in (0, 200], one frame per step of 0.005 s at most"},
		{[]string{"run", "--cache", "pc2", "--out", filepath.Join(t.TempDir(), "c"), "--scene", "sphere-adaptive", "--cache-mesh", "missing.obj"}, 1, "--cache-mesh: loading mesh: open missing.obj"},
		{[]string{"run", "--cache", "pc2", "--out", filepath.Join(t.TempDir(), "c"), "--scene", "springs-small"}, 1, "a point cache samples a FEM cloth's material plane"},
		{[]string{"run", "--scene", "nosuchscene"}, 1, `unknown scene "nosuchscene"`},
		{[]string{"run", "--scene", "missing.json"}, 1, "missing.json"},
		{[]string{"run", "--scene", bad}, 1, "mesh.width must be positive"},
		{[]string{"run", "--scene", syntax}, 1, "line 3, column 3"},
		{[]string{"bench", "--seconds", "-1"}, 2, "--seconds must be non-negative"},
		{[]string{"bench", "--sample", "0"}, 2, "--sample must be positive"},
		{[]string{"bench", "--perturb", "x"}, 2, "perturb"},
		{[]string{"bench", "--scene", "nosuchscene"}, 1, "unknown scene"},
		{[]string{"bench", "--scene", "hanging"}, 1, `no "adapt" section`},
		{[]string{"compare", "--seconds", "-1"}, 2, "--seconds must be non-negative"},
		{[]string{"compare", "--sample", "0"}, 2, "--sample must be positive"},
		{[]string{"compare", "--hold", "NaN"}, 2, "--hold must be finite"},
		{[]string{"compare", "--scene", "hanging"}, 1, `no "adapt" section`},
		{[]string{"view", "--width", "0"}, 2, "--width and --height must be positive"},
		{[]string{"view", "--screenshot", "x.png"}, 2, "--screenshot needs --frames N"},
		{[]string{"view", "--pause-at", "-1"}, 2, "--pause-at must be a non-negative number of seconds"},
		{[]string{"view", "--pause-at", "NaN"}, 2, "--pause-at must be a non-negative number of seconds"},
		{[]string{"--scene", "nosuchscene", "--frames", "1"}, 1, `unknown scene "nosuchscene"`},
		{[]string{"monkey", "--seconds", "0"}, 2, "--seconds must be positive"},
		{[]string{"monkey", "--seeds", "0"}, 2, "--seeds and --check must be at least 1"},
		{[]string{"monkey", "--scene", "nosuchscene"}, 1, `unknown scene "nosuchscene"`},
		{[]string{"monkey", "--scene", "springs-small"}, 1, "mass-spring cloth"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code {
			t.Errorf("%v: exit code got=%v, want=%v (stderr %q)", c.args, code, c.code, stderr)
		}
		if !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "drape") {
			t.Errorf("%v: stderr got=%q, want one line starting with drape and containing %q", c.args, stderr, c.want)
		}
	}
}

// TestCLIMonkey: a short monkey run on the hanging sheet passes, says
// so, prints its run's line and, with --cpuprofile, writes a profile; an
// unwritable profile is a runtime error.
func TestCLIMonkey(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "monkey.prof")
	code, stdout, stderr := runCLI("monkey", "--scene", "hanging", "--seconds", "0.5", "--seeds", "1", "--cpuprofile", prof)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "hanging seed 1:") || !strings.Contains(stdout, "1 runs, no failure") {
		t.Errorf("got code=%d stdout=%q stderr=%q", code, stdout, stderr)
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("--cpuprofile: %v, %v", st, err)
	}
	code, _, stderr = runCLI("monkey", "--scene", "hanging", "--seconds", "0.1", "--seeds", "1", "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir", "p"))
	if code != 1 || !strings.Contains(stderr, "--cpuprofile") {
		t.Errorf("unwritable profile: got code=%d stderr=%q, want 1 and the flag named", code, stderr)
	}
}

func TestCLIUsage(t *testing.T) {
	// Plain "drape" opens the viewer (app.Run), so it is not run here.
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, stdout, stderr := runCLI(args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: got code=%v stderr=%q, want 0 and nothing", args, code, stderr)
		}
		for _, c := range commands {
			if !strings.Contains(stdout, "drape "+c.name) {
				t.Errorf("%v: usage got=%q, want it to list %q", args, stdout, c.name)
			}
		}
	}
	code, stdout, _ := runCLI("run", "-h")
	if code != 0 || !strings.Contains(stdout, "-stats") {
		t.Errorf("run -h: got code=%v stdout=%q, want 0 and the flags", code, stdout)
	}
}

func TestCLIRun(t *testing.T) {
	dir := t.TempDir()
	stats := filepath.Join(dir, "f.json")
	frames := filepath.Join(dir, "frames")
	code, stdout, stderr := runCLI("run", "--scene", "hanging", "--steps", "20", "--stats", stats, "--out", frames, "--every", "10")
	if code != 0 || stderr != "" {
		t.Fatalf("got code=%v stderr=%q, want 0", code, stderr)
	}
	if !strings.Contains(stdout, "hanging: 20 steps") || !strings.Contains(stdout, "step 20/20 (100%)") {
		t.Errorf("stdout got=%q, want progress lines and the summary", stdout)
	}
	got, data := readJSON(t, stats)
	for _, k := range []string{"steps", "dt", "vertices", "triangles", "ms_per_step_mean", "ms_per_step_median", "pcg_iterations_mean", "retried", "total_mass", "max_speed", "finite"} {
		if _, ok := got[k]; !ok {
			t.Errorf("stats: key %q missing in %s", k, data)
		}
	}
	for _, c := range []struct {
		key  string
		want any
	}{{"steps", 20.0}, {"dt", 0.005}, {"vertices", 961.0}, {"triangles", 1800.0}, {"finite", true}} {
		if got[c.key] != c.want {
			t.Errorf("stats %s got=%v, want=%v", c.key, got[c.key], c.want)
		}
	}
	if m, ok := got["total_mass"].(float64); !ok || m <= 0 {
		t.Errorf("stats total_mass got=%v, want a positive number", got["total_mass"])
	}
	entries, err := os.ReadDir(frames)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, ","), "frame_000000.obj,frame_000010.obj,frame_000020.obj"; got != want {
		t.Errorf("frames got=%v, want=%v", got, want)
	}
	first, err := meshio.LoadOBJ(filepath.Join(frames, "frame_000000.obj"))
	if err != nil {
		t.Fatal(err)
	}
	last, err := meshio.LoadOBJ(filepath.Join(frames, "frame_000020.obj"))
	if err != nil {
		t.Fatal(err)
	}
	if first.NumVerts() != 961 || last.NumTris() != 1800 {
		t.Errorf("frames: got %d vertices, %d triangles, want 961, 1800", first.NumVerts(), last.NumTris())
	}
	// The sheet falls: the lowest point of the last frame is below the first's.
	lo0, _ := first.Bounds()
	lo1, _ := last.Bounds()
	if !(lo1.Y < lo0.Y) {
		t.Errorf("lowest y got=%v after 20 steps, want below the initial %v", lo1.Y, lo0.Y)
	}
	// Material coordinates survive the round trip unscaled.
	if _, hi := restExtent(last); hi != (geom.Vec2{X: 1, Y: 1}) {
		t.Errorf("frame material extent got=%v, want {1 1}", hi)
	}
}

// TestCLIRunPLY exports PLY frames and checks them against the OBJ frames
// of the same run read back with meshio.LoadOBJ: same vertex positions (as
// float32) and face count, and a curvature property and colours.
// TestCLIRunCache: "drape run --cache" writes the fixed mesh, the point
// cache and its manifest, and says what it wrote and what it cost.
func TestCLIRunCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	code, stdout, stderr := runCLI("run", "--scene", "hanging", "--steps", "20", "--out", dir, "--cache", "mdd", "--fps", "20")
	if code != 0 || stderr != "" {
		t.Fatalf("got code=%v stderr=%q, want 0", code, stderr)
	}
	if !strings.Contains(stdout, "cache: 3 frames of 961 vertices (own mesh) at 20 fps in "+filepath.Join(dir, "cache.mdd")) || !strings.Contains(stdout, "% of the run's") {
		t.Errorf("stdout got=%q, want the cache line", stdout)
	}
	got, data := readJSON(t, filepath.Join(dir, "cache.json"))
	for _, c := range []struct {
		key  string
		want any
	}{{"mesh", "cache.obj"}, {"cache", "cache.mdd"}, {"format", "mdd"}, {"cache_mesh", "own"}, {"vertices", 961.0}, {"frames", 3.0}, {"fps", 20.0}, {"axes", "y_up"}} {
		if got[c.key] != c.want {
			t.Errorf("cache.json %q got=%v, want=%v in %s", c.key, got[c.key], c.want, data)
		}
	}
	if m, err := meshio.LoadOBJMaterial(filepath.Join(dir, "cache.obj")); err != nil || m.NumVerts() != 961 {
		t.Errorf("cache.obj: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "cache.mdd")); err != nil || st.Size() != 8+3*4+3*961*12 {
		t.Errorf("cache.mdd: %v, want %d bytes (3 frames)", err, 8+3*4+3*961*12)
	}
}

func TestCLIRunPLY(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"obj", "ply"} {
		if code, _, stderr := runCLI("run", "--scene", "hanging", "--steps", "20", "--every", "20", "--format", f, "--out", filepath.Join(dir, f)); code != 0 {
			t.Fatalf("--format %s: code=%v stderr=%q", f, code, stderr)
		}
	}
	obj, err := meshio.LoadOBJ(filepath.Join(dir, "obj", "frame_000020.obj"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "ply", "frame_000020.ply"))
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := strings.Cut(string(data), "end_header\n")
	if !ok || !strings.Contains(head, "element vertex 961\n") || !strings.Contains(head, "element face 1800\n") ||
		!strings.Contains(head, "property float curvature\n") || !strings.Contains(head, "property uchar red\n") {
		t.Fatalf("PLY header got=%q, want 961 vertices, 1800 faces, colour and curvature", head)
	}
	at := map[[3]float32]bool{}
	lines := strings.Split(body, "\n")
	colours := map[string]bool{}
	for _, l := range lines[:961] {
		var p [3]float32
		var rest [7]float64
		if _, err := fmt.Sscan(l, &p[0], &p[1], &p[2], &rest[0], &rest[1], &rest[2], &rest[3], &rest[4], &rest[5], &rest[6]); err != nil {
			t.Fatalf("PLY vertex %q: %v", l, err)
		}
		at[p] = true
		colours[fmt.Sprint(rest[3:6])] = true
	}
	for i, q := range obj.Pos {
		if !at[[3]float32{float32(q.X), float32(q.Y), float32(q.Z)}] {
			t.Fatalf("OBJ vertex %d at %v: not in the PLY", i, q)
		}
	}
	if len(colours) < 10 {
		t.Errorf("PLY has %d distinct colours, want a curvature colour map", len(colours))
	}
}

func restExtent(m *geom.Mesh) (lo, hi geom.Vec2) {
	for i, r := range m.Rest {
		if i == 0 || r.X < lo.X || r.Y < lo.Y {
			lo = geom.Vec2{X: min(lo.X, r.X), Y: min(lo.Y, r.Y)}
		}
		hi = geom.Vec2{X: max(hi.X, r.X), Y: max(hi.Y, r.Y)}
	}
	return lo, hi
}

// benchScene is a small adaptive scene for a fast "drape bench": a
// 0.5 m sheet of 54 base triangles hanging from two corners, g_max = 4.
const benchScene = `{
  "name": "tiny-adaptive", "duration": 1,
  "mesh": { "kind": "staggered", "width": 0.5, "height": 0.5, "nx": 4, "ny": 6 },
  "placement": { "origin": [0, 1, 0], "orientation": "horizontal" },
  "pins": [ { "select": "top-corners" } ],
  "adapt": { "l_base": 0.5, "l_gmax": 5, "g_max": 4, "interval": 2 }
}`

func TestCLIBench(t *testing.T) {
	dir := t.TempDir()
	scene := writeBenchScene(t, dir)
	out, plots := filepath.Join(dir, "bench.json"), filepath.Join(dir, "plots")
	code, stdout, stderr := runCLI("bench", "--scene", scene, "--seconds", "0.1", "--sample", "0.05", "--json", out, "--plot", plots)
	if code != 0 || stderr != "" {
		t.Fatalf("got code=%v stderr=%q", code, stderr)
	}
	if !strings.Contains(stdout, "| full resolution | ") || !strings.Contains(stdout, "| adaptive | ") || !strings.Contains(stdout, "speedup") {
		t.Errorf("table got=%q, want rows for both runs and the speedup", stdout)
	}
	got, data := readJSON(t, out)
	if got["scene"] != "tiny-adaptive" {
		t.Errorf("scene got=%v, want=tiny-adaptive", got["scene"])
	}
	if p, ok := got["perturb"]; ok || strings.Contains(stdout, "perturbed") {
		t.Errorf("perturb got=%v in the JSON, or a perturbed start in %q, without --perturb", p, stdout)
	}
	for _, k := range []string{"speedup", "error_rms_rel", "error_max_rel"} {
		v, ok := got[k].(float64)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Errorf("%s got=%v, want a finite non-negative number", k, got[k])
		}
	}
	// The runs take turns; the surfaces are compared at every 0.05 s
	// that both reached: steps 10 and 20 of 20.
	if got["accuracy_samples"] != 2.0 {
		t.Errorf("accuracy_samples got=%v, want=2", got["accuracy_samples"])
	}
	if v, _ := got["speedup"].(float64); !(v > 0) {
		t.Errorf("speedup got=%v, want > 0", got["speedup"])
	}
	for _, run := range []string{"full", "adaptive"} {
		r, ok := got[run].(map[string]any)
		if !ok {
			t.Fatalf("%s missing in %s", run, data)
		}
		for _, k := range []string{"avg_triangles", "peak_triangles", "ms_per_step_mean", "ms_per_step_median", "adapt_share"} {
			v, ok := r[k].(float64)
			if !ok || math.IsNaN(v) || v < 0 {
				t.Errorf("%s.%s got=%v, want a finite non-negative number", run, k, r[k])
			}
		}
		if share, _ := r["adapt_share"].(float64); share > 1 {
			t.Errorf("%s.adapt_share got=%v, want ≤ 1", run, share)
		}
		if r["finite"] != true {
			t.Errorf("%s.finite got=%v, want true", run, r["finite"])
		}
	}
	full := got["full"].(map[string]any)
	// Two √3 steps make each face nine, boundary faces included (see
	// cloth.Sim.RefineUniform).
	if want := float64(9 * 54); full["avg_triangles"] != want || full["peak_triangles"] != want {
		t.Errorf("full triangles got avg=%v peak=%v, want the base mesh uniformly refined to g_max (%v)", full["avg_triangles"], full["peak_triangles"], want)
	}
	// Triangles × PCG iterations, averaged: the full run has a fixed
	// triangle count, so its figure is that count times its mean
	// iterations; the work ratio is the quotient of the two runs'.
	ad := got["adaptive"].(map[string]any)
	fullWork, adWork := full["triangle_iterations_mean"].(float64), ad["triangle_iterations_mean"].(float64)
	if want := 9 * 54 * full["pcg_iterations_mean"].(float64); math.Abs(fullWork-want) > 1e-9*want {
		t.Errorf("full triangle_iterations_mean got=%v, want=%v", fullWork, want)
	}
	if got, want := got["work_ratio"].(float64), fullWork/adWork; !(adWork > 0) || math.Abs(got-want) > 1e-12*want {
		t.Errorf("work_ratio got=%v, want full/adaptive = %v", got, want)
	}
	// The bound prices the adaptive run's work at the full run's rates.
	num := func(r map[string]any, k string) float64 { v, _ := r[k].(float64); return v }
	fullMs, fullAsm := num(full, "ms_per_step_mean"), num(full, "assemble_ms_mean")
	if !(fullAsm > 0) || !(num(full, "solve_ms_mean") > 0) || fullAsm+num(full, "solve_ms_mean") > fullMs {
		t.Errorf("full assemble_ms_mean=%v solve_ms_mean=%v, want positive parts of ms_per_step_mean=%v", fullAsm, num(full, "solve_ms_mean"), fullMs)
	}
	ideal := fullAsm*num(ad, "avg_triangles")/num(full, "avg_triangles") + (fullMs-fullAsm)*adWork/fullWork + num(ad, "adapt_ms_mean")
	if bound, want := num(got, "speedup_bound"), fullMs/ideal; math.Abs(bound-want) > 1e-9*want {
		t.Errorf("speedup_bound got=%v, want=%v", bound, want)
	}
	// The timeline's windows cover the runs' steps, and their means,
	// weighted by their steps, are the whole runs'.
	tl, _ := got["timeline"].([]any)
	if len(tl) != 1 {
		t.Fatalf("timeline got=%v, want one window for 0.1 s", got["timeline"])
	}
	for _, run := range []string{"full", "adaptive"} {
		r := got[run].(map[string]any)
		var steps, tris, iters, work, ms float64
		for _, w := range tl {
			m := w.(map[string]any)[run].(map[string]any)
			n := num(m, "steps")
			steps += n
			tris += n * num(m, "triangles")
			iters += n * num(m, "pcg_iterations")
			work += n * num(m, "triangle_iterations")
			ms += n * num(m, "ms")
		}
		if steps != 20 {
			t.Errorf("%s: timeline steps %v, want 20", run, steps)
		}
		for _, f := range []struct {
			key       string
			got, want float64
		}{
			{"triangles", tris / steps, num(r, "avg_triangles")},
			{"pcg_iterations", iters / steps, num(r, "pcg_iterations_mean")},
			{"triangle_iterations", work / steps, num(r, "triangle_iterations_mean")},
			{"ms", ms / steps, num(r, "ms_per_step_mean")},
		} {
			if !(f.want > 0) || math.Abs(f.got-f.want) > 1e-9*f.want {
				t.Errorf("%s: timeline %s %v over the run, want the run's %v", run, f.key, f.got, f.want)
			}
		}
	}
	for _, f := range []string{"triangles.png", "pcg_iterations.png", "ms_per_step.png"} {
		fh, err := os.Open(filepath.Join(plots, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(fh); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		fh.Close()
	}
}

func TestEmbeddedScenes(t *testing.T) {
	names := scene.SceneNames(assets.Scenes)
	if got, want := strings.Join(names, ","), "bunny,curtain,curtain-adaptive,drape-box,drop-pile,fold,ground,ground-angled,hanging,hanging-irregular,sphere,sphere-adaptive,springs-pole,springs-sheet,springs-small,springs-tablecloth,tablecloth,two-sheets"; got != want {
		t.Errorf("embedded scenes got=%v, want=%v", got, want)
	}
	for _, n := range names {
		if _, err := scene.LoadScene(assets.Scenes, n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// TestCLIBenchPerturb: --perturb names its seed in the table's heading and
// the JSON, so a figure's start is on record with it.
func TestCLIBenchPerturb(t *testing.T) {
	dir := t.TempDir()
	scene := writeBenchScene(t, dir)
	out := filepath.Join(dir, "bench.json")
	code, stdout, stderr := runCLI("bench", "--scene", scene, "--seconds", "0.05", "--sample", "0.05", "--perturb", "5", "--json", out)
	if code != 0 || stderr != "" {
		t.Fatalf("got code=%v stderr=%q", code, stderr)
	}
	if !strings.Contains(stdout, "start perturbed (--perturb 5)") {
		t.Errorf("table got=%q, want the seed in its heading", stdout)
	}
	got, _ := readJSON(t, out)
	if got["perturb"] != 5.0 {
		t.Errorf("perturb got=%v, want=5", got["perturb"])
	}
}

// TestCLIBenchStarts: --starts N runs the bench from N seeds in a row and
// sums each figure up over them; the JSON holds every start (its seed
// on record) and the spread, whose min, median and max are those of the
// starts' own figures.
func TestCLIBenchStarts(t *testing.T) {
	dir := t.TempDir()
	scene := writeBenchScene(t, dir)
	out := filepath.Join(dir, "bench.json")
	code, stdout, stderr := runCLI("bench", "--scene", scene, "--seconds", "0.05", "--sample", "0.05", "--perturb", "4", "--starts", "3", "--json", out)
	if code != 0 || stderr != "" {
		t.Fatalf("got code=%v stderr=%q", code, stderr)
	}
	for _, want := range []string{"start perturbed (--perturb 4)", "start perturbed (--perturb 6)", "over 3 starts (--perturb 4 to 6", "| adaptive: avg triangles |", "| speedup |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	got, data := readJSON(t, out)
	starts, _ := got["starts"].([]any)
	if len(starts) != 3 {
		t.Fatalf("starts: got %d, want 3\n%s", len(starts), data)
	}
	var speedups []float64
	for k, st := range starts {
		m := st.(map[string]any)
		if m["perturb"] != float64(4+k) {
			t.Errorf("start %d: perturb got=%v, want=%d", k, m["perturb"], 4+k)
		}
		speedups = append(speedups, m["speedup"].(float64))
	}
	sort.Float64s(speedups)
	spread, _ := got["spread"].([]any)
	found := false
	for _, f := range spread {
		m := f.(map[string]any)
		if m["figure"] != "speedup" {
			continue
		}
		found = true
		if m["min"] != speedups[0] || m["median"] != speedups[1] || m["max"] != speedups[2] {
			t.Errorf("speedup spread got=%v, want min, median, max of %v", m, speedups)
		}
	}
	if !found {
		t.Errorf("no speedup in the spread:\n%s", data)
	}

	for _, args := range [][]string{
		{"--starts", "0"},
		{"--starts", "-2"},
		{"--starts", "2", "--plot", dir},
	} {
		code, _, stderr := runCLI(append([]string{"bench", "--scene", scene}, args...)...)
		if code != 2 || !strings.Contains(stderr, "--starts") && !strings.Contains(stderr, "--plot") {
			t.Errorf("%v: got code=%d stderr=%q, want a usage error", args, code, stderr)
		}
	}
	code, _, stderr = runCLI("bench", "--scene", "springs-small", "--seconds", "0.01", "--starts", "2")
	if code == 0 || !strings.Contains(stderr, "springs scene") {
		t.Errorf("springs scene with --starts: got code=%d stderr=%q, want an error", code, stderr)
	}
}

// writeBenchScene writes benchScene into dir and returns its path.
func writeBenchScene(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(path, []byte(benchScene), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readJSON reads the JSON object in path, returning it and the raw bytes
// (for error messages).
func readJSON(t *testing.T, path string) (map[string]any, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", path, err, data)
	}
	return got, data
}

// TestCLIFabricTest checks drape fabric-test: a bad name or flag is a
// usage error that lists the choices, one test on one preset prints its
// table row, and a scene naming a preset runs.
func TestCLIFabricTest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fabric-test", "--material", "velvet"}, `--material: unknown material "velvet" (the presets are blanket, denim,`},
		{[]string{"fabric-test", "--tests", "drop"}, `--tests: unknown test "drop"`},
		{[]string{"fabric-test", "--meshes", "huge"}, `--meshes: unknown mesh "huge"`},
		{[]string{"fabric-test", "--tests", "tensile", "--pictures", "x"}, "--pictures needs the cusick test"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, exitUsage, c.want)
		}
	}
	code, stdout, stderr := runCLI("fabric-test", "--material", "denim", "--tests", "tensile")
	if code != exitOK || !strings.Contains(stdout, "| denim | – | none found | – | 2027 (+0.0 %) | 410.5 (+0.0 %) |") {
		t.Errorf("fabric-test denim tensile: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	file := filepath.Join(t.TempDir(), "denim.json")
	src := `{"duration": 0.01, "material": "denim", "params": {"E_x": 800},
	  "mesh": {"kind": "grid", "width": 0.2, "height": 0.2, "nx": 4, "ny": 4},
	  "pins": [{"select": "top-row"}]}`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("run", "--scene", file, "--steps", "2"); code != exitOK {
		t.Errorf("run with a material scene: exit %d, %s", code, stderr)
	}
}

// TestCLIBenchAll: "drape bench --scene A,B" prints one row per scene and
// writes the rows as JSON; --starts pools each FEM scene's nudged starts
// into its row; --plot is a usage error with a list; --cpuprofile writes
// a profile.
func TestCLIBenchAll(t *testing.T) {
	dir := t.TempDir()
	out, prof := filepath.Join(dir, "all.json"), filepath.Join(dir, "cpu.prof")
	code, stdout, stderr := runCLI("bench", "--scene", "hanging,springs-small", "--seconds", "0.02", "--json", out, "--cpuprofile", prof)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"| hanging | 5 |", "| springs-small (springs) | 0.5 |", "real-time factor"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	m, data := readJSON(t, out)
	if rows, ok := m["scenes"].([]any); !ok || len(rows) != 2 {
		t.Errorf("JSON: want 2 scenes, got %s", data)
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("--cpuprofile: %v, %v", st, err)
	}
	code, stdout, stderr = runCLI("bench", "--scene", "hanging,springs-small", "--seconds", "0.02", "--starts", "2", "--perturb", "3", "--json", out)
	if code != 0 {
		t.Fatalf("--starts 2: exit %d, stderr %q", code, stderr)
	}
	if want := "2 starts of each FEM scene (--perturb 3 to 4;"; !strings.Contains(stdout, want) {
		t.Errorf("--starts 2: stdout lacks %q:\n%s", want, stdout)
	}
	m, data = readJSON(t, out)
	rows, _ := m["scenes"].([]any)
	if len(rows) != 2 {
		t.Fatalf("--starts 2: JSON: want 2 scenes, got %s", data)
	}
	for i, want := range []struct {
		starts, steps float64
	}{{2, 8}, {1, 40}} { // hanging: 2 × 4 steps of 5 ms; springs-small: 40 of 0.5 ms, once
		row, _ := rows[i].(map[string]any)
		if row["starts"] != want.starts || row["steps"] != want.steps {
			t.Errorf("--starts 2: row %d: starts %v, steps %v; want %v, %v", i, row["starts"], row["steps"], want.starts, want.steps)
		}
	}
	code, _, stderr = runCLI("bench", "--scene", "all", "--seconds", "0.01", "--plot", dir)
	if code != 2 || !strings.Contains(stderr, "--scene all") {
		t.Errorf("--plot with all: got code=%d stderr=%q, want a usage error", code, stderr)
	}
}

// TestCapProcs: GOMAXPROCS above the CPUs the process may run on comes
// down to them; a lower one stands.
func TestCapProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	n := runtime.NumCPU()
	runtime.GOMAXPROCS(n + 6)
	capProcs()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Errorf("GOMAXPROCS %d on %d CPUs: capped to %d, want %d", n+6, n, got, n)
	}
	runtime.GOMAXPROCS(1)
	capProcs()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS 1: became %d, want it to stand", got)
	}
}
