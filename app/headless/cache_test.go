package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/meshio"
	"drape/sim/resample"
	"drape/sim/scene"
)

func TestFrameSteps(t *testing.T) {
	for _, c := range []struct {
		steps   int
		dt, fps float64
		want    []int  // nil: see n, first, last
		n       int    // frames
		err     string // want in the error, "" for none
	}{
		{10, 0.005, 200, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 11, ""},
		{20, 0.005, 30, []int{0, 7, 13, 20}, 4, ""}, // 1/30 s = 6.67 steps: the nearest step
		{800, 0.005, 30, nil, 121, ""},
		{5, 0.01, 24, []int{0, 4}, 2, ""}, // 1/24 s = 4.17 steps
		{10, 0.005, 201, nil, 0, "--fps 201: want a rate in (0, 200]"},
		{10, 0.005, 0, nil, 0, "--fps 0"},
	} {
		got, err := frameSteps(c.steps, c.dt, c.fps)
		name := fmt.Sprintf("%d steps of %g s at %g fps", c.steps, c.dt, c.fps)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got err=%v, want %q", name, err, c.err)
			}
			continue
		}
		if err != nil || len(got) != c.n || got[0] != 0 || got[len(got)-1] > c.steps {
			t.Errorf("%s: got=%v (err %v), want %d frames from step 0 to at most %d", name, got, err, c.n, c.steps)
			continue
		}
		for k, s := range got {
			if math.Abs(float64(s)*c.dt-float64(k)/c.fps) > c.dt/2+1e-12 {
				t.Errorf("%s: frame %d at step %d (%g s), want within dt/2 of %g s", name, k, s, float64(s)*c.dt, float64(k)/c.fps)
			}
		}
		if c.want != nil && fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got=%v, want=%v", name, got, c.want)
		}
	}
}

// readCache reads the point cache and the manifest of a "drape run
// --cache" directory.
func readCache(t *testing.T, dir string) (CacheManifest, meshio.PointCache) {
	t.Helper()
	var man CacheManifest
	data, err := os.ReadFile(filepath.Join(dir, "cache.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	format, err := meshio.ParseCacheFormat(man.Format)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, man.Cache))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pc, err := meshio.ReadPointCache(f, format)
	if err != nil {
		t.Fatal(err)
	}
	return man, pc
}

// TestRunCacheOwnMesh: a run that does not adapt writes its own mesh and
// positions: every cached frame is the positions of an independent run of
// the same scene at the frame's step, rounded to float32, bit for bit, and
// cache.obj is its mesh at step 0.
func TestRunCacheOwnMesh(t *testing.T) {
	for _, format := range []meshio.CacheFormat{meshio.PC2, meshio.MDD} {
		dir := t.TempDir()
		o := RunOptions{Scene: "hanging", Steps: 30, Out: dir, Cache: format, CacheMesh: CacheMeshGMax, FPS: 40}
		if err := Run(o, io.Discard); err != nil {
			t.Fatal(err)
		}
		man, pc := readCache(t, dir)
		_, s := buildScene(t, "hanging")
		if man.CacheMesh != "own" || man.Vertices != s.Mesh.NumVerts() || man.Frames != 7 || len(pc.Frames) != 7 {
			t.Fatalf("%v: manifest %+v, %d frames read; want the own mesh of %d vertices, 7 frames", format, man, len(pc.Frames), s.Mesh.NumVerts())
		}
		pos, vt := objVertices(t, filepath.Join(dir, man.Mesh))
		if len(pos) != len(s.Mesh.Pos) {
			t.Fatalf("%v: cache.obj has %d vertices, want %d", format, len(pos), len(s.Mesh.Pos))
		}
		for v := range pos {
			if pos[v] != s.Mesh.Pos[v] || vt[v] != s.Mesh.Rest[v] {
				t.Fatalf("%v: cache.obj vertex %d got=%v %v, want=%v %v", format, v, pos[v], vt[v], s.Mesh.Pos[v], s.Mesh.Rest[v])
			}
		}
		step := 0
		for k, fr := range pc.Frames {
			for ; step < man.Steps[k]; step++ {
				if _, err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			for v, p := range s.Mesh.Pos {
				want := [3]float32{float32(p.X), float32(p.Y), float32(p.Z)}
				if got := [3]float32(fr[3*v : 3*v+3]); got != want {
					t.Fatalf("%v frame %d (step %d) vertex %d: got=%v, want=%v", format, k, step, v, got, want)
				}
			}
		}
	}
}

// buildScene loads the built-in scene name and builds its simulation.
func buildScene(t testing.TB, name string) (*scene.Scene, *cloth.Sim) {
	t.Helper()
	sc, err := scene.LoadScene(assets.Scenes, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	return sc, s
}

// objVertices returns the v and vt lines of an OBJ file, in file order.
func objVertices(t *testing.T, path string) ([]geom.Vec3, []geom.Vec2) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pos []geom.Vec3
	var vt []geom.Vec2
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		x := make([]float64, len(f))
		for i := 1; i < len(f) && (f[0] == "v" || f[0] == "vt"); i++ {
			if x[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case len(f) == 4 && f[0] == "v":
			pos = append(pos, geom.Vec3{X: x[1], Y: x[2], Z: x[3]})
		case len(f) == 3 && f[0] == "vt":
			vt = append(vt, geom.Vec2{X: x[1], Y: x[2]})
		}
	}
	return pos, vt
}

// gmaxPoints returns the material points of the scene's uniform g_max
// mesh (cacheMesh's), in its vertex order.
func gmaxPoints(t testing.TB, sc *scene.Scene, s *cloth.Sim) []geom.Vec2 {
	t.Helper()
	m, name, err := cacheMesh(CacheMeshGMax, sc, s)
	if err != nil || name != CacheMeshGMax {
		t.Fatalf("cacheMesh: %v (%q)", err, name)
	}
	var pts []geom.Vec2
	for v, alive := range m.VertAlive {
		if alive {
			pts = append(pts, m.Rest[v])
		}
	}
	return pts
}

// fullRun returns sphere-adaptive at full resolution, as "drape bench"
// builds it: refined uniformly to g_max, adaptivity off.
func fullRun(t testing.TB, sc *scene.Scene) *cloth.Sim {
	t.Helper()
	full, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	off := *sc.Adapt
	off.Enabled = false
	if err := full.SetAdaptParams(off); err != nil {
		t.Fatal(err)
	}
	if err := full.RefineUniform(sc.Adapt.GMax); err != nil {
		t.Fatal(err)
	}
	return full
}

// TestCacheFullResolutionExact: sampled at the g_max mesh's material
// points, a full-resolution run (the one "drape bench" compares with)
// gives its own vertices' positions exactly, after steps that moved them.
func TestCacheFullResolutionExact(t *testing.T) {
	sc, s := buildScene(t, "sphere-adaptive")
	pts := gmaxPoints(t, sc, s)
	full := fullRun(t, sc)
	for i := 0; i < 10; i++ {
		if _, err := full.Step(); err != nil {
			t.Fatal(err)
		}
	}
	at := map[geom.Vec2]geom.Vec3{}
	for v, alive := range full.Mesh.VertAlive {
		if alive {
			at[full.Mesh.Rest[v]] = full.Mesh.Pos[v]
		}
	}
	if len(at) != len(pts) {
		t.Fatalf("the full run has %d vertices, the g_max mesh %d", len(at), len(pts))
	}
	out := make([]geom.Vec3, len(pts))
	if err := resample.New(pts, 0).Positions(full.Mesh, out); err != nil {
		t.Fatal(err)
	}
	for k, p := range pts {
		if want, ok := at[p]; !ok || out[k] != want {
			t.Fatalf("point %d %v: got=%v, want=%v exactly (a vertex of the full run: %v)", k, p, out[k], want, ok)
		}
	}
}

// TestCacheAdaptive: on an adaptive run, every cached point lies on the
// adaptive surface of its step to round-off (an independent
// point-to-triangle distance, geom.SurfaceGrid), the file holds those
// points rounded to float32, and cache.obj is the g_max mesh at frame 0.
func TestCacheAdaptive(t *testing.T) {
	sc, s := buildScene(t, "sphere-adaptive")
	const steps = 150 // 0.75 s: the cloth has reached the sphere and refined
	dir := t.TempDir()
	o := RunOptions{Out: dir, Cache: meshio.MDD, CacheMesh: CacheMeshGMax, FPS: 40, Now: time.Now}
	c, err := newCacheExport(o, sc, s, steps)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := restBounds(s.Mesh)
	diag := hi.Sub(lo).Norm()
	var want [][]float32
	var tris []int
	check := func(i int) {
		if err := c.frame(i); err != nil {
			t.Fatal(err)
		}
		if len(want) == c.w.Frames() {
			return
		}
		g := geom.NewSurfaceGrid(s.Mesh)
		worst := 0.0
		fr := make([]float32, 0, 3*len(c.pos))
		for _, p := range c.pos {
			worst = math.Max(worst, g.Distance(p))
			fr = append(fr, float32(p.X), float32(p.Y), float32(p.Z))
		}
		if !(worst <= 1e-12*diag) {
			t.Errorf("step %d (%d triangles): a cached point lies %g m off the adaptive surface, want ≤ %g", i, s.Mesh.NumTris(), worst, 1e-12*diag)
		}
		want = append(want, fr)
		tris = append(tris, s.Mesh.NumTris())
	}
	check(0)
	for i := 1; i <= steps; i++ {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
		check(i)
	}
	if _, err := c.close(); err != nil {
		t.Fatal(err)
	}
	if tris[0] == tris[len(tris)-1] {
		t.Errorf("the run did not adapt (%d triangles throughout): the test needs it to", tris[0])
	}
	man, pc := readCache(t, dir)
	if len(pc.Frames) != len(want) || man.Frames != len(want) || len(want) != 31 || pc.Verts != 11191 {
		t.Fatalf("cache: %d frames (manifest %d) of %d vertices, want %d = 31 frames of 11191", len(pc.Frames), man.Frames, pc.Verts, len(want))
	}
	for k := range want {
		if got := pc.Times[k]; got != float32(float64(man.Steps[k])*man.Dt) {
			t.Errorf("frame %d: time got=%v, want step %d × %g s", k, got, man.Steps[k], man.Dt)
		}
		for i := range want[k] {
			if pc.Frames[k][i] != want[k][i] {
				t.Fatalf("frame %d value %d: got=%v, want=%v", k, i, pc.Frames[k][i], want[k][i])
			}
		}
	}
	obj, err := meshio.LoadOBJMaterial(filepath.Join(dir, man.Mesh))
	if err != nil {
		t.Fatal(err)
	}
	pts := gmaxPoints(t, sc, s)
	if obj.NumVerts() != len(pts) || obj.NumTris() != 22140 {
		t.Fatalf("cache.obj: %d vertices, %d faces, want %d and 22140", obj.NumVerts(), obj.NumTris(), len(pts))
	}
	// The cache's vertex order is the file's (ReadOBJ's is that of first
	// use by a face).
	pos, vt := objVertices(t, filepath.Join(dir, man.Mesh))
	for v, p := range pos {
		if vt[v] != pts[v] || float32(p.X) != want[0][3*v] || float32(p.Y) != want[0][3*v+1] || float32(p.Z) != want[0][3*v+2] {
			t.Fatalf("cache.obj vertex %d: %v at %v, want frame 0's %v at %v", v, p, vt[v], want[0][3*v:3*v+3], pts[v])
		}
	}
}

// TestRunCacheUserMesh: a user's OBJ whose vt are material coordinates,
// written with 6 decimals and a little larger than the cloth, is sampled
// (its edge vertices take the cloth's edge); one that reaches well
// outside the cloth is an error that says so.
func TestRunCacheUserMesh(t *testing.T) {
	for _, c := range []struct {
		scale float64 // of the cloth's material rectangle about its centre
		err   string
	}{
		{1.0002, ""},
		{1.01, "outside the cloth"},
	} {
		dir := t.TempDir()
		user := filepath.Join(dir, "user.obj")
		var b strings.Builder
		const nx, ny = 7, 5
		for j := 0; j <= ny; j++ {
			for i := 0; i <= nx; i++ {
				u := 1.23 + c.scale*2.46*(float64(i)/nx-0.5)
				v := 0.9 + c.scale*1.8*(float64(j)/ny-0.5)
				fmt.Fprintf(&b, "v %d %d 0\nvt %.6f %.6f\n", i, j, u, v)
			}
		}
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				a := j*(nx+1) + i + 1
				fmt.Fprintf(&b, "f %d/%d %d/%d %d/%d %d/%d\n", a, a, a+1, a+1, a+nx+2, a+nx+2, a+nx+1, a+nx+1)
			}
		}
		if err := os.WriteFile(user, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		err := Run(RunOptions{Scene: "sphere-adaptive", Steps: 20, Out: out, Cache: meshio.PC2, CacheMesh: user, FPS: 30, Now: time.Now}, io.Discard)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("scale %v: got err=%v, want %q", c.scale, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("scale %v: %v", c.scale, err)
		}
		man, pc := readCache(t, out)
		if man.CacheMesh != user || pc.Verts != (nx+1)*(ny+1) || len(pc.Frames) != 4 {
			t.Errorf("scale %v: manifest %+v, %d vertices × %d frames, want %d × 4", c.scale, man, pc.Verts, len(pc.Frames), (nx+1)*(ny+1))
		}
	}
}

// TestCacheAccuracy measures how far the cache of an adaptive run lies
// from the full-resolution run at the same times, on sphere-adaptive, in
// two figures relative to the cloth's material diagonal: point to point
// (each g_max vertex of the full run against the cache's point at the
// same material coordinates: what a renderer sees move) and point to
// surface ("drape bench"'s accuracy figure: each full-resolution vertex to
// the adaptive surface, which forgives sliding within the surface). The
// cache's RMS must stay within 2× bench's.
// DRAPE_CACHE_SECONDS sets the simulated time (default 0.3 s, where a
// sampling error shows most against the runs' drift; docs/export.md
// gives the 4 s figures).
func TestCacheAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two sphere-adaptive runs, one at full resolution")
	}
	seconds := 0.3
	if v := os.Getenv("DRAPE_CACHE_SECONDS"); v != "" {
		var err error
		if seconds, err = strconv.ParseFloat(v, 64); err != nil {
			t.Fatal(err)
		}
	}
	sc, ad := buildScene(t, "sphere-adaptive")
	full := fullRun(t, sc)
	pts := gmaxPoints(t, sc, ad)
	slot := map[geom.Vec2]int32{}
	for v, alive := range full.Mesh.VertAlive {
		if alive {
			slot[full.Mesh.Rest[v]] = int32(v)
		}
	}
	lo, hi := restBounds(full.Mesh)
	diag := hi.Sub(lo).Norm()
	steps := int(math.Round(seconds / sc.Params.Dt))
	frames, err := frameSteps(steps, sc.Params.Dt, 30)
	if err != nil {
		t.Fatal(err)
	}
	smp := resample.New(pts, cacheTolExact*diag)
	out := make([]geom.Vec3, len(pts))
	var ptSq, ptMax, sfSq, sfMax float64
	n := 0
	step := 0
	for _, fs := range frames[1:] {
		for ; step < fs; step++ {
			if _, err := full.Step(); err != nil {
				t.Fatal(err)
			}
			if _, err := ad.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if err := smp.Positions(ad.Mesh, out); err != nil {
			t.Fatal(err)
		}
		g := geom.NewSurfaceGrid(ad.Mesh)
		for k, p := range pts {
			x := full.Mesh.Pos[slot[p]]
			d := out[k].Sub(x).Norm()
			ptSq += d * d
			ptMax = math.Max(ptMax, d)
			s := g.Distance(x)
			sfSq += s * s
			sfMax = math.Max(sfMax, s)
			n++
		}
	}
	ptRMS, sfRMS := math.Sqrt(ptSq/float64(n))/diag, math.Sqrt(sfSq/float64(n))/diag
	t.Logf("sphere-adaptive, %g s, %d frames at 30 fps: cache to full run point to point RMS %.3g, max %.3g; bench's point to surface RMS %.3g, max %.3g (÷ diagonal %.3g m)",
		seconds, len(frames)-1, ptRMS, ptMax/diag, sfRMS, sfMax/diag, diag)
	// Measured 1.2× at 0.3 s, 1.4× at 1 s and at 4 s (docs/export.md):
	// the cache adds the run's sliding within its surface to bench's
	// figure, not more. Interpolating with the weights of the wrong
	// corners gives 2.9× at 0.3 s.
	if !(ptRMS <= 2*sfRMS) {
		t.Errorf("point-to-point RMS %.3g is more than 2× bench's point-to-surface RMS %.3g", ptRMS, sfRMS)
	}
}
