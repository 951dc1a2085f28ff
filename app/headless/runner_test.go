package headless

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
)

// fakeStepper fails with failErr at step failAt.
type fakeStepper struct {
	n, failAt int
	failErr   error
}

func (f *fakeStepper) Step() (cloth.StepStats, error) {
	f.n++
	if f.n == f.failAt {
		return cloth.StepStats{}, fmt.Errorf("residual blew up: %w", f.failErr)
	}
	return cloth.StepStats{Iterations: 7}, nil
}

func TestRecorderSummary(t *testing.T) {
	for _, c := range []struct {
		ms                   []int
		iters                []int
		mean, median, itMean float64
	}{
		{nil, nil, 0, 0, 0},
		{[]int{3}, []int{10}, 3, 3, 10},
		{[]int{1, 2, 9}, []int{1, 2, 3}, 4, 2, 2},
		{[]int{4, 1, 2, 9}, []int{0, 0, 0, 4}, 4, 3, 1},
	} {
		var r recorder
		for i, ms := range c.ms {
			r.add(time.Duration(ms)*time.Millisecond, cloth.StepStats{Iterations: c.iters[i]})
		}
		mean, median, it := r.summary()
		if mean != c.mean || median != c.median || it != c.itMean {
			t.Errorf("%v: got=(%v, %v, %v), want=(%v, %v, %v)", c.ms, mean, median, it, c.mean, c.median, c.itMean)
		}
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := &lineProgress{w: &b, unit: "step"}
	for i := 0; i <= 200; i++ {
		p.Update(i, 200)
	}
	if got := strings.Count(b.String(), "\n"); got != 10 {
		t.Errorf("line progress lines got=%v, want=10:\n%s", got, b.String())
	}
	b.Reset()
	bar := &barProgress{w: &b, last: -1, unit: "step"}
	bar.Update(0, 4)
	bar.Update(2, 4)
	bar.Done()
	if got, want := b.String(), "\r["+strings.Repeat(".", 40)+"]   0% step 0/4\r["+strings.Repeat("#", 20)+strings.Repeat(".", 20)+"]  50% step 2/4\n"; got != want {
		t.Errorf("bar got=%q, want=%q", got, want)
	}
}

func TestStepLoop(t *testing.T) {
	// A synthetic clock: every call advances 2 ms.
	clock := time.Unix(0, 0)
	now := func() time.Time { clock = clock.Add(2 * time.Millisecond); return clock }
	for _, c := range []struct {
		failAt, steps, done int
		unstable            bool
	}{
		{0, 5, 5, false},
		{3, 5, 2, true},
		{1, 5, 0, true},
	} {
		var rec recorder
		after := 0
		done, err := stepLoop(&fakeStepper{failAt: c.failAt, failErr: cloth.ErrUnstable}, c.steps, now, &rec, func(int) error { after++; return nil })
		if done != c.done || after != c.done || len(rec.wall) != c.done {
			t.Errorf("failAt=%d: done, after, recorded got=%d, %d, %d, want=%d", c.failAt, done, after, len(rec.wall), c.done)
		}
		if got := errors.Is(err, cloth.ErrUnstable); got != c.unstable {
			t.Errorf("failAt=%d: unstable got=%v, want=%v (err %v)", c.failAt, got, c.unstable, err)
		}
		if mean, _, it := rec.summary(); c.done > 0 && (mean != 2 || it != 7) {
			t.Errorf("failAt=%d: mean ms, iterations got=%v, %v, want=2, 7", c.failAt, mean, it)
		}
	}
	stop := errors.New("disk full")
	done, err := stepLoop(&fakeStepper{}, 5, now, &recorder{}, func(i int) error {
		if i == 2 {
			return stop
		}
		return nil
	})
	if done != 2 || !errors.Is(err, stop) {
		t.Errorf("after error: got done=%d err=%v, want 2 and %v", done, err, stop)
	}
}

func TestStatsOfUnstable(t *testing.T) {
	scene, err := scene.LoadScene(assets.Scenes, "hanging")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scene.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err    error
		finite bool
	}{
		{nil, true},
		{fmt.Errorf("step 3: %w", cloth.ErrUnstable), false},
		{errors.New("disk full"), true},
	} {
		st := statsOf("hanging", s, &recorder{}, c.err)
		if st.Finite != c.finite {
			t.Errorf("%v: finite got=%v, want=%v", c.err, st.Finite, c.finite)
		}
		if _, err := json.Marshal(st); err != nil {
			t.Errorf("%v: stats do not encode: %v", c.err, err)
		}
	}
	// Non-finite state encodes as null instead of failing.
	s.Mesh.Vel[0] = geom.Vec3{X: math.NaN()}
	st := statsOf("hanging", s, &recorder{}, nil)
	data, err := json.Marshal(st)
	if err != nil || st.Finite || !strings.Contains(string(data), `"max_speed":null`) {
		t.Errorf("NaN velocity: got %s, err=%v, want finite=false and max_speed null", data, err)
	}
}

// TestRunDetail: drape run --out --detail 1 writes the physics-aware
// detail surface (four faces per simulated face at Loop level 1) instead
// of the simulation mesh.
func TestRunDetail(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	for _, detail := range []int{0, 1} {
		sub := filepath.Join(dir, fmt.Sprint(detail))
		if err := Run(RunOptions{Scene: "hanging", Steps: 10, Every: 10, Out: sub, Format: "obj", Detail: detail}, &out); err != nil {
			t.Fatal(err)
		}
	}
	faces := func(path string) int {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "\nf ")
	}
	plain, detailed := faces(filepath.Join(dir, "0", "frame_000010.obj")), faces(filepath.Join(dir, "1", "frame_000010.obj"))
	if plain == 0 || detailed != 4*plain {
		t.Errorf("faces: mesh %d, detail %d, want four times as many", plain, detailed)
	}
}

// TestRunDetailClearOfObstacles: the detail surface that drape run writes
// stays out of the scene's obstacles. The ground-angled scene's sheet
// lands on the ground at an angle and wrinkles; without the ground in the
// detail's frame, the surface of step 100 dips 20 mm into it. Its Loop
// surface, a convex combination of vertices above the ground, is above it,
// so every detailed vertex must be.
func TestRunDetailClearOfObstacles(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	if err := Run(RunOptions{Scene: "ground-angled", Steps: 100, Every: 50, Out: dir, Format: "obj", Detail: 1}, &out); err != nil {
		t.Fatal(err)
	}
	for _, step := range []int{50, 100} {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("frame_%06d.obj", step)))
		if err != nil {
			t.Fatal(err)
		}
		lowest, n := math.Inf(1), 0
		for _, line := range strings.Split(string(data), "\n") {
			var x, y, z float64
			if _, err := fmt.Sscanf(line, "v %g %g %g", &x, &y, &z); err == nil {
				lowest = min(lowest, y)
				n++
			}
		}
		t.Logf("step %d: %d vertices, lowest y %.3g mm", step, n, 1000*lowest)
		if n == 0 || lowest < -1e-6 {
			t.Errorf("step %d: %d vertices, lowest at y = %g m, below the ground", step, n, lowest)
		}
	}
}
