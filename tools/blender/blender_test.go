// Package blender_test checks drape's exports in the real Blender, run
// headless (blender -b): the point cache of "drape run --cache" through
// load_cache.py, and the changing-topology frame sequence of "drape run
// --out" through load_sequence.py. "make blender-test" installs Debian's
// blender when it is missing and runs these tests; "make test" does not
// (the install is large and slow), and the tests skip, saying so, in -short
// mode or without a blender on PATH.
package blender_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"drape/app/headless"
	"drape/sim/meshio"
)

// blenderTol is how closely Blender's positions must match drape's, m.
const blenderTol = 1e-5

// blender returns the path of the blender binary, or skips the test.
func blender(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the Blender checks run in make blender-test")
	}
	path, err := exec.LookPath("blender")
	if err != nil {
		t.Skip("blender is not on PATH: make blender-test installs Debian's blender and runs this test")
	}
	return path
}

// runBlender runs a script of this directory in Blender, headless and
// without the user's settings, with args after "--".
func runBlender(t *testing.T, bin, script string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-b", "--factory-startup", "--python-exit-code", "1", "--python", script, "--"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("blender %s: %v\n%s", script, err, out)
	}
}

// TestBlenderCache: a sphere-adaptive run exported as a point cache on the
// g_max mesh plays in Blender through load_cache.py: the object has the
// cache's vertex count, the scene the cache's frames and rate, and at
// three frames every vertex of Blender's evaluated mesh is drape's
// position to 1e-5 m, in the mesh's coordinates and, stood up Z up, in
// Blender's world. The 4 s PC2 run is the target of issue 45.
func TestBlenderCache(t *testing.T) {
	bin := blender(t)
	for _, c := range []struct {
		format  meshio.CacheFormat
		seconds float64
	}{
		{meshio.PC2, 4},
		{meshio.MDD, 0.5},
	} {
		t.Run(c.format.String(), func(t *testing.T) {
			dir := t.TempDir()
			o := headless.RunOptions{Scene: "sphere-adaptive", Steps: int(math.Round(c.seconds / 0.005)), Out: dir,
				Cache: c.format, CacheMesh: headless.CacheMeshGMax, FPS: 30}
			if err := headless.Run(o, io.Discard); err != nil {
				t.Fatal(err)
			}
			var man headless.CacheManifest
			readJSON(t, filepath.Join(dir, "cache.json"), &man)
			f, err := os.Open(filepath.Join(dir, man.Cache))
			if err != nil {
				t.Fatal(err)
			}
			pc, err := meshio.ReadPointCache(f, c.format)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if want := int(math.Floor(c.seconds*30+1e-9)) + 1; man.Frames != want || len(pc.Frames) != want || pc.Verts != man.Vertices {
				t.Fatalf("cache: %d frames (manifest %d) of %d vertices (manifest %d), want %d frames", len(pc.Frames), man.Frames, pc.Verts, man.Vertices, want)
			}
			// Frame 0 is the OBJ's positions, to float32.
			if d := maxDiff(objPositions(t, filepath.Join(dir, man.Mesh)), pc.Frames[0]); !(d < 1e-6) {
				t.Errorf("frame 0 differs from cache.obj by %g m", d)
			}
			frames := []int{0, man.Frames / 2, man.Frames - 1}
			expect := struct {
				Frames    []int       `json:"frames"`
				Positions [][]float32 `json:"positions"`
			}{Frames: frames}
			for _, k := range frames {
				expect.Positions = append(expect.Positions, pc.Frames[k])
			}
			writeJSON(t, filepath.Join(dir, "expect.json"), expect)
			runBlender(t, bin, "check_cache.py", dir, filepath.Join(dir, "expect.json"), filepath.Join(dir, "got.json"))
			var got struct {
				Vertices   int     `json:"vertices"`
				FrameStart int     `json:"frame_start"`
				FrameEnd   int     `json:"frame_end"`
				FPS        float64 `json:"fps"`
				Frames     []struct {
					Frame    int     `json:"frame"`
					Vertices int     `json:"vertices"`
					Local    float64 `json:"local"`
					World    float64 `json:"world"`
				} `json:"frames"`
			}
			readJSON(t, filepath.Join(dir, "got.json"), &got)
			if got.Vertices != man.Vertices {
				t.Errorf("Blender's vertices got=%d, want=%d", got.Vertices, man.Vertices)
			}
			if n := got.FrameEnd - got.FrameStart + 1; n != man.Frames {
				t.Errorf("Blender's frames got=%d (%d–%d), want=%d", n, got.FrameStart, got.FrameEnd, man.Frames)
			}
			if math.Abs(got.FPS-30) > 1e-9 {
				t.Errorf("Blender's rate got=%v fps, want=30", got.FPS)
			}
			if len(got.Frames) != len(frames) {
				t.Fatalf("Blender checked %d frames, want %d", len(got.Frames), len(frames))
			}
			for _, fr := range got.Frames {
				if fr.Vertices != man.Vertices || !(fr.Local <= blenderTol) || !(fr.World <= blenderTol) {
					t.Errorf("frame %d: %d vertices, largest difference %g m in the mesh and %g m in the world, want %d and ≤ %g m",
						fr.Frame, fr.Vertices, fr.Local, fr.World, man.Vertices, blenderTol)
				}
				t.Logf("%s frame %d: %d vertices, largest difference %.3g m (mesh), %.3g m (world)", c.format, fr.Frame, fr.Vertices, fr.Local, fr.World)
			}
		})
	}
}

// TestBlenderSequence: an adaptive run's OBJ and PLY frames, whose vertex
// counts differ, play in Blender through load_sequence.py: one object per
// file, and at scene frame start + k exactly file k's object shows, with
// that file's vertex count.
func TestBlenderSequence(t *testing.T) {
	bin := blender(t)
	for _, format := range []string{"obj", "ply"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			o := headless.RunOptions{Scene: "sphere-adaptive", Steps: 120, Out: dir, Every: 20, Format: format,
				Color: func(h, half float64) [3]uint8 { return [3]uint8{128, 128, 128} }}
			if err := headless.Run(o, io.Discard); err != nil {
				t.Fatal(err)
			}
			steps := []int{0, 20, 40, 60, 80, 100, 120}
			verts := map[int]int{}
			for _, s := range steps {
				verts[s] = fileVertices(t, filepath.Join(dir, fmt.Sprintf("frame_%06d.%s", s, format)))
			}
			if verts[0] == verts[120] {
				t.Fatalf("the frames all have %d vertices: the check needs a changing topology", verts[0])
			}
			check := []int{0, 3, 6}
			args := []string{dir, filepath.Join(dir, "got.json"), "0.005"}
			for _, k := range check {
				args = append(args, strconv.Itoa(k))
			}
			runBlender(t, bin, "check_sequence.py", args...)
			var got struct {
				FrameStart int     `json:"frame_start"`
				FrameEnd   int     `json:"frame_end"`
				FPS        float64 `json:"fps"`
				Objects    int     `json:"objects"`
				Frames     []struct {
					Frame int `json:"frame"`
					Shown []struct {
						Name     string `json:"name"`
						Vertices int    `json:"vertices"`
					} `json:"shown"`
				} `json:"frames"`
			}
			readJSON(t, filepath.Join(dir, "got.json"), &got)
			if got.Objects != len(steps) || got.FrameEnd-got.FrameStart+1 != len(steps) {
				t.Errorf("Blender: %d objects, frames %d–%d, want %d of each", got.Objects, got.FrameStart, got.FrameEnd, len(steps))
			}
			if want := 1 / (20 * 0.005); math.Abs(got.FPS-want) > 1e-9 {
				t.Errorf("Blender's rate got=%v fps, want=%v", got.FPS, want)
			}
			for i, fr := range got.Frames {
				s := steps[check[i]]
				want := fmt.Sprintf("frame_%06d", s)
				if len(fr.Shown) != 1 || fr.Shown[0].Name != want || fr.Shown[0].Vertices != verts[s] {
					t.Errorf("frame %d: shown got=%+v, want only %s with %d vertices", fr.Frame, fr.Shown, want, verts[s])
				}
			}
		})
	}
}

// fileVertices returns the vertex count of an OBJ (its v lines) or a PLY
// (its "element vertex N").
func fileVertices(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "element vertex "); ok {
			n, err = strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if line == "end_header" {
			break
		}
		if strings.HasPrefix(line, "v ") {
			n++
		}
	}
	return n
}

// objPositions returns the v lines of an OBJ file as x, y, z triples.
func objPositions(t *testing.T, path string) []float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "v" {
			for _, s := range f[1:] {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, x)
			}
		}
	}
	return out
}

// maxDiff returns the largest |a_i − b_i|, or +Inf for different lengths.
func maxDiff(a []float64, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-float64(b[i])))
	}
	return d
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
