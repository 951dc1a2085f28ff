package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStepsUntil(t *testing.T) {
	for _, c := range []struct {
		t, target, dt float64
		want          int
	}{
		{0, 0, 0.005, 0},
		{0, 1.0 / 30, 0.005, 7}, // 6.67 steps
		{0.035, 2.0 / 30, 0.005, 7},
		{0, 0.01, 0.005, 2},                // exact multiple
		{0.1 + 0.2, 0.3 + 0.005, 0.005, 1}, // round-off does not add a step
		{0, 0.0300000001, 0.005, 6},        // within ε of step 6
		{1, 0.5, 0.005, 0},                 // already past
		{0, 1, 0, 0},                       // no dt
	} {
		if got := stepsUntil(c.t, c.target, c.dt); got != c.want {
			t.Errorf("stepsUntil(%v, %v, %v) got=%v, want=%v", c.t, c.target, c.dt, got, c.want)
		}
	}
	// Frame times over 2 s at 30 fps, 5 ms steps: 60 frames, frame k at
	// step ⌈k·6.67⌉, never skipping one.
	tm, steps := 0.0, 0
	for k := 0; k < 60; k++ {
		n := stepsUntil(tm, float64(k)/30, 0.005)
		steps += n
		tm = float64(steps) * 0.005
		if tm < float64(k)/30-1e-9 || tm-float64(k)/30 >= 0.005 {
			t.Fatalf("frame %d at t=%v, want within one step after %v", k, tm, float64(k)/30)
		}
	}
	if steps != 394 {
		t.Errorf("steps for frame 59 got=%v, want=394", steps)
	}
}

// testFrame returns a w×h RGBA frame, rows bottom-up, whose bottom row is
// red and the rest blue, alpha 0 (as GL may leave it).
func testFrame(w, h int) []byte {
	pix := make([]byte, 4*w*h)
	for i := 0; i < w*h; i++ {
		if i < w {
			pix[4*i] = 255
		} else {
			pix[4*i+2] = 255
		}
	}
	return pix
}

func TestPNGSink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s, err := newPNGSink(dir, 6, 4)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.WriteFrame(testFrame(6, 4)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	img := readPNG(t, filepath.Join(dir, "frame_000002.png"))
	// GL's bottom row is the image's last row; alpha is made opaque.
	if r, _, b, a := img.At(0, 3).RGBA(); r != 0xffff || b != 0 || a != 0xffff {
		t.Errorf("bottom row got=%v %v %v, want opaque red", r, b, a)
	}
	if r, _, b, _ := img.At(5, 0).RGBA(); r != 0 || b != 0xffff {
		t.Errorf("top row got=%v %v, want blue", r, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "frame_000003.png")); err == nil {
		t.Errorf("frame_000003.png exists, want 3 frames")
	}
}

func TestPNGSinkUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := newPNGSink(filepath.Join(file, "frames"), 4, 4); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("sink under a file: got err=%v, want not a directory", err)
	}
}

func TestNewSinkWithoutFFmpeg(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	out := filepath.Join(t.TempDir(), "clip.mp4")
	s, note, err := newSink(out, 4, 4, 30)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := strings.TrimSuffix(out, ".mp4")
	if s.Kind() != "png" || s.Path() != want || !strings.Contains(note, "ffmpeg not found") {
		t.Errorf("got kind=%v path=%v note=%q, want png in %v and a note", s.Kind(), s.Path(), note, want)
	}
}

func needFFmpeg(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs ffmpeg")
	}
	for _, b := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skip(b + " not installed (make deps installs it)")
		}
	}
}

func TestFFmpegSink(t *testing.T) {
	needFFmpeg(t)
	out := filepath.Join(t.TempDir(), "x.mp4")
	s, err := newFFmpegSink(out, 16, 8, 30)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := s.WriteFrame(testFrame(16, 8)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n, w, h := probe(t, out); n != 5 || w != 16 || h != 8 {
		t.Errorf("video got %d frames %dx%d, want 5 16x8", n, w, h)
	}
	if _, err := newFFmpegSink(out, 15, 8, 30); err == nil {
		t.Errorf("odd width: got no error")
	}
}

// TestFFmpegSinkFails: ffmpeg cannot write its output, exits, and the
// sink reports ffmpeg's message instead of blocking.
func TestFFmpegSinkFails(t *testing.T) {
	needFFmpeg(t)
	out := filepath.Join(t.TempDir(), "no", "such", "dir", "x.mp4")
	s, err := newFFmpegSink(out, 16, 8, 30)
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	deadline := time.Now().Add(10 * time.Second)
	for werr == nil && time.Now().Before(deadline) {
		werr = s.WriteFrame(testFrame(16, 8))
	}
	cerr := s.Close()
	if werr == nil || !strings.Contains(werr.Error(), "ffmpeg") || !strings.Contains(werr.Error(), "x.mp4") {
		t.Errorf("write error got=%v, want ffmpeg's message naming the file", werr)
	}
	if cerr == nil {
		t.Errorf("close error got=nil, want the exit error")
	}
}

// probe returns the frame count and size of a video's first stream.
func probe(t *testing.T, path string) (frames, w, h int) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,width,height", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "%d,%d,%d", &w, &h, &frames); err != nil {
		t.Fatalf("ffprobe %s: output %q: %v", path, out, err)
	}
	return frames, w, h
}

func TestOutputPath(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p1 := outputPath(dir, "scenes/my curtain.json", ".mp4", now)
	if want := filepath.Join(dir, "drape-my_curtain-20260102-030405.mp4"); p1 != want {
		t.Errorf("got=%v, want=%v", p1, want)
	}
	os.Mkdir(strings.TrimSuffix(p1, ".mp4"), 0o755) // a PNG fallback took the name
	if p2 := outputPath(dir, "scenes/my curtain.json", ".mp4", now); p2 != filepath.Join(dir, "drape-my_curtain-20260102-030405-2.mp4") {
		t.Errorf("second path got=%v, want the -2 suffix", p2)
	}
}

func TestCurvatureColor(t *testing.T) {
	for _, c := range []struct {
		h, half float64
		want    [3]uint8
	}{
		{0, 1, [3]uint8{221, 221, 221}},
		{-1, 1, [3]uint8{59, 76, 192}},
		{5, 1, [3]uint8{180, 4, 38}},
		{0.25, 0, [3]uint8{244, 154, 123}}, // half ≤ 0: ±minAutoRange, so ¾ of the map
	} {
		if got := CurvatureColor(c.h, c.half); got != c.want {
			t.Errorf("CurvatureColor(%v, %v) got=%v, want=%v", c.h, c.half, got, c.want)
		}
	}
}

// failingSink fails from frame fail on and records what it got.
type failingSink struct {
	got    [][]byte
	fail   int
	closed bool
}

func (f *failingSink) WriteFrame(pix []byte) error {
	if len(f.got) >= f.fail {
		return fmt.Errorf("disk full")
	}
	f.got = append(f.got, append([]byte(nil), pix...))
	return nil
}
func (f *failingSink) Close() error { f.closed = true; return nil }
func (f *failingSink) Kind() string { return "test" }
func (f *failingSink) Path() string { return "test" }

func TestAsyncSink(t *testing.T) {
	inner := &failingSink{fail: 100}
	a := newAsyncSink(inner, 4)
	for i := range 10 {
		buf := []byte{byte(i), 0, 0, 0}
		if err := a.WriteFrame(buf); err != nil {
			t.Fatal(err)
		}
		buf[0] = 99 // the caller may reuse its buffer at once
	}
	if err := a.Close(); err != nil || !inner.closed || len(inner.got) != 10 {
		t.Fatalf("got err=%v closed=%v frames=%d, want nil, true, 10", err, inner.closed, len(inner.got))
	}
	for i, g := range inner.got {
		if g[0] != byte(i) {
			t.Errorf("frame %d got=%v, want %d: order or copy broken", i, g[0], i)
		}
	}

	inner = &failingSink{fail: 3}
	a = newAsyncSink(inner, 4)
	var werr error
	for i := 0; i < 50 && werr == nil; i++ {
		werr = a.WriteFrame([]byte{1, 2, 3, 4})
		time.Sleep(time.Millisecond)
	}
	if werr == nil || werr.Error() != "disk full" {
		t.Errorf("write error got=%v, want disk full", werr)
	}
	if err := a.Close(); err == nil || len(inner.got) != 3 || !inner.closed {
		t.Errorf("close got err=%v frames=%d closed=%v, want the error, 3 frames kept, closed", err, len(inner.got), inner.closed)
	}
}
