package app

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The TestGUI* tests run the real viewer binary in the X display given by
// DISPLAY (make test runs them under xvfb-run with Mesa's software
// OpenGL) and use it as a person would: they look at a screenshot and
// drag a pin with the mouse through xdotool. They skip without a display.
// Set DRAPE_TEST_OUT to a directory to keep the screenshots.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// viewerBinary builds the drape command once per test run.
func viewerBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "drape-gui-test")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "drape")
		cmd := exec.Command("go", "build", "-o", binPath, "drape")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building drape: %v\n%s", buildErr, binPath)
	}
	return binPath
}

func needDisplay(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no display: run under xvfb-run (make test does)")
	}
}

// needXdotool skips the test when xdotool, which sends the X input
// events, is not installed.
func needXdotool(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Skip("xdotool not installed (make deps installs it)")
	}
}

// outDir returns DRAPE_TEST_OUT or a temporary directory.
func outDir(t *testing.T) string {
	if d := os.Getenv("DRAPE_TEST_OUT"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

func readState(path string) (State, error) {
	var st State
	data, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(data, &st)
}

// TestViewNoDisplay: without a display the viewer says so in one line and
// exits 1.
func TestViewNoDisplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	cmd := exec.Command(viewerBinary(t), "view")
	cmd.Env = append(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	want := "drape view: no display: set DISPLAY or run under xvfb-run\n"
	if code != 1 || stderr.String() != want {
		t.Errorf("drape view without display: got code %d, stderr %q; want 1, %q", code, stderr.String(), want)
	}
}

// runViewer runs "drape view --state STATE ARGS" to the end (ARGS must
// include --frames) and returns the state it wrote and its stderr.
func runViewer(t *testing.T, state string, args ...string) (State, string) {
	t.Helper()
	cmd := exec.Command(viewerBinary(t), append([]string{"view", "--state", state}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("drape view: %v\n%s", err, stderr.String())
	}
	st, err := readState(state)
	if err != nil {
		t.Fatal(err)
	}
	return st, stderr.String()
}

// TestGUIScreenshot renders the default scene for a while and checks the
// screenshot: the cloth is there and coloured by curvature, the panels are
// drawn, and no OpenGL error happened.
func TestGUIScreenshot(t *testing.T) {
	needDisplay(t)
	dir := outDir(t)
	shot, state := filepath.Join(dir, "view_screenshot.png"), filepath.Join(dir, "view_screenshot.json")
	// The simulation runs as fast as it can and pauses itself at t = 1.5 s,
	// so the pose does not depend on how fast this machine steps and
	// draws: the sheet swings, and at some moments (t = 1.0 s, for one) it
	// is edge-on to the camera.
	st, stderr := runViewer(t, state, "--scene", "hanging", "--frames", "90",
		"--speed", "0", "--pause-at", "1.5", "--screenshot", shot)
	if st.GLErrors != 0 || strings.Contains(stderr, "GL error") {
		t.Errorf("OpenGL errors: got=%d (stderr %q), want=0", st.GLErrors, stderr)
	}
	if !st.Finite || st.Steps != 300 || !st.Paused || st.Frames != 90 || len(st.Pins) != 2 {
		t.Errorf("state: got finite=%v steps=%d paused=%v frames=%d pins=%d, want finite, 300 (paused at 1.5 s), 90, 2", st.Finite, st.Steps, st.Paused, st.Frames, len(st.Pins))
	}
	img := readPNG(t, shot)
	b := img.Bounds()
	if b.Dx() != int(st.Window[0]) || b.Dy() != int(st.Window[1]) {
		t.Errorf("screenshot size: got=%v, want=%v", b.Size(), st.Window)
	}
	rgb := func(x, y int) (r, g, bl int) {
		r32, g32, b32, _ := img.At(x, y).RGBA()
		return int(r32 >> 8), int(g32 >> 8), int(b32 >> 8)
	}
	// The cloth hangs from its pins: look at a box around and below them,
	// count lit pixels (the background there is dark, about (30, 32, 38))
	// and saturated ones (the curvature map; the background and grid are
	// grey). Measured at 1.5 s: about 70000 lit and 16000 coloured.
	x0 := int(min(st.Pins[0].Pixel[0], st.Pins[1].Pixel[0])) - 100
	x1 := int(max(st.Pins[0].Pixel[0], st.Pins[1].Pixel[0])) + 100
	y0 := int(min(st.Pins[0].Pixel[1], st.Pins[1].Pixel[1])) - 30
	y1 := y0 + 360
	lit, coloured := 0, 0
	for y := max(0, y0); y < min(b.Dy(), y1); y++ {
		for x := max(0, x0); x < min(b.Dx(), x1); x++ {
			r, g, bl := rgb(x, y)
			if r+g+bl > 300 {
				lit++
				if max(r, g, bl)-min(r, g, bl) > 35 {
					coloured++
				}
			}
		}
	}
	t.Logf("cloth box %dx%d: %d lit, %d coloured pixels", x1-x0, y1-y0, lit, coloured)
	if lit < 4000 {
		t.Errorf("cloth not visible: %d lit pixels around the pins, want at least 4000", lit)
	}
	if coloured < 200 {
		t.Errorf("cloth not coloured by curvature: %d saturated pixels, want at least 200", coloured)
	}
	// The sidebar: dark panel background with light text.
	text, panel := 0, 0
	for y := 40; y < b.Dy()-40; y++ {
		for x := 12; x < 340; x++ {
			r, g, bl := rgb(x, y)
			switch {
			case r > 190 && g > 190 && bl > 190:
				text++
			case r < 60 && g < 60 && bl < 70:
				panel++
			}
		}
	}
	t.Logf("sidebar: %d text pixels, %d panel pixels", text, panel)
	if text < 1000 || panel < 50000 {
		t.Errorf("ImGui sidebar not drawn: %d text and %d panel pixels, want at least 1000 and 50000", text, panel)
	}
}

// xdotool runs xdotool with args and returns its trimmed output.
func xdotool(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("xdotool", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestGUIDragPin starts the viewer, finds the left pinned corner's pixel
// in the periodically written --state, drags it with a real X mouse
// (xdotool) 120 px right and 60 px down, and checks that the pin's target
// moved right and down in the world and that the pinned vertex is drawn
// where the mouse was released. It then closes the viewer with SIGTERM and
// checks the clean exit and that no OpenGL error was reported.
func TestGUIDragPin(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	dir := outDir(t)
	state := filepath.Join(dir, "view_drag.json")
	v := startViewer(t, state)
	st := v.poll("the first state", func(s State) bool { return s.Frames >= 6 && len(s.Pins) == 2 && s.Pins[0].OnScreen })
	pin := st.Pins[0]
	for _, p := range st.Pins {
		if p.Pixel[0] < pin.Pixel[0] {
			pin = p
		}
	}
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	x, y := int(pin.Pixel[0]+0.5), int(pin.Pixel[1]+0.5)
	const dx, dy = 120, 60
	itoa := strconv.Itoa
	xdotool(t, "mousemove", "--window", win, itoa(x), itoa(y))
	v.poll("the hover", func(s State) bool { return s.Frames > st.Frames+3 })
	xdotool(t, "mousedown", "1")
	v.poll("the grab", func(s State) bool { return s.Dragged == pin.ID })
	const steps = 12
	for i := 1; i <= steps; i++ {
		xdotool(t, "mousemove", "--window", win, itoa(x+dx*i/steps), itoa(y+dy*i/steps))
		time.Sleep(30 * time.Millisecond)
	}
	moved := func(s State) (PinState, bool) {
		for _, p := range s.Pins {
			if p.ID == pin.ID {
				return p, p.Target != pin.Target
			}
		}
		return PinState{}, false
	}
	// Wait until the vertex has reached the released cursor position.
	after := v.poll("the pin to follow the mouse", func(s State) bool {
		p, ok := moved(s)
		return ok && abs32(p.Pixel[0]-float32(x+dx)) < 6 && abs32(p.Pixel[1]-float32(y+dy)) < 6
	})
	xdotool(t, "mouseup", "1")
	v.poll("the release", func(s State) bool { return s.Dragged == -1 && s.Frames > after.Frames })
	p, _ := moved(after)
	t.Logf("pin %d: target %v -> %v, pixel %v -> %v", pin.ID, pin.Target, p.Target, pin.Pixel, p.Pixel)
	// The camera looks at the sheet from the front right and above: a
	// drag right and down on screen moves the target towards +X and −Y.
	if !(p.Target[0] > pin.Target[0]+0.05) || !(p.Target[1] < pin.Target[1]-0.02) {
		t.Errorf("pin target moved from %v to %v, want right (+x) and down (−y)", pin.Target, p.Target)
	}

	final := v.stopClean()
	if !final.Finite {
		t.Errorf("simulation not finite at exit: %s", final.Error)
	}
}

// liveViewer is a running drape view process writing --state.
type liveViewer struct {
	t      *testing.T
	cmd    *exec.Cmd
	state  string
	stderr *bytes.Buffer
	exited chan struct{}
	err    error // set before exited is closed
}

// startViewer starts drape view on hanging with --state every 3 frames
// and extra args; it is killed at the end of the test if still running.
func startViewer(t *testing.T, state string, args ...string) *liveViewer {
	t.Helper()
	return startViewerIn(t, "", state, args...)
}

// startViewerIn is startViewer with working directory dir ("" for the
// test's).
func startViewerIn(t *testing.T, dir, state string, args ...string) *liveViewer {
	t.Helper()
	os.Remove(state)
	v := &liveViewer{t: t, state: state, stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	v.cmd = exec.Command(viewerBinary(t), append([]string{"view", "--scene", "hanging", "--state", state, "--state-every", "3"}, args...)...)
	v.cmd.Dir = dir
	v.cmd.Stderr = v.stderr
	if err := v.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { v.err = v.cmd.Wait(); close(v.exited) }()
	t.Cleanup(func() {
		select {
		case <-v.exited:
		default:
			v.cmd.Process.Kill()
			<-v.exited
		}
	})
	return v
}

// poll waits until the state satisfies ok.
func (v *liveViewer) poll(what string, ok func(State) bool) State {
	v.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-v.exited:
			v.t.Fatalf("viewer exited while waiting for %s: %v\n%s", what, v.err, v.stderr.String())
		default:
		}
		if st, err := readState(v.state); err == nil && ok(st) {
			return st
		}
		time.Sleep(100 * time.Millisecond)
	}
	v.t.Fatalf("timed out waiting for %s\n%s", what, v.stderr.String())
	return State{}
}

// stop sends SIGTERM, checks the clean exit and returns stderr.
func (v *liveViewer) stop() string {
	v.t.Helper()
	v.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-v.exited:
	case <-time.After(30 * time.Second):
		v.t.Fatalf("viewer did not exit after SIGTERM")
	}
	if v.err != nil {
		v.t.Errorf("viewer exit: %v\n%s", v.err, v.stderr.String())
	}
	if strings.Contains(v.stderr.String(), "GL error") {
		v.t.Errorf("OpenGL errors: %s", v.stderr.String())
	}
	return v.stderr.String()
}

// stopClean stops the viewer (stop) and returns the state it wrote last,
// failing the test if it counted any OpenGL error.
func (v *liveViewer) stopClean() State {
	v.t.Helper()
	stderr := v.stop()
	final, err := readState(v.state)
	if err != nil {
		v.t.Fatal(err)
	}
	if final.GLErrors != 0 || strings.Contains(stderr, "GL error") {
		v.t.Errorf("OpenGL errors: got=%d, want=0\n%s", final.GLErrors, stderr)
	}
	return final
}

// readPNG decodes the PNG file at path or fails the test.
func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return img
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// TestGUIUnstable opens a scene whose gravity (10⁴ m/s², with Δt = 20 ms)
// accelerates the free vertices past the simulation's speed limit within a
// few steps (its strain limit at the loosest, 10: with strain limiting
// off, cloth.SafetyStrain holds the sheet and it hangs on, at 9 m/s at
// most): the viewer must keep running,
// stop stepping, keep drawing the last good state and show the error in a
// red banner with Reset, and report the state as not finite.
func TestGUIUnstable(t *testing.T) {
	needDisplay(t)
	dir := outDir(t)
	scene := filepath.Join(t.TempDir(), "unstable.json")
	src := `{"name": "unstable", "duration": 1,
	  "mesh": {"kind": "grid", "width": 1, "height": 1, "nx": 10, "ny": 10},
	  "placement": {"origin": [-0.5, 1.5, 0.5], "orientation": "horizontal"},
	  "pins": [{"select": "top-corners"}],
	  "params": {"gravity": [0, -1e4, 0], "dt": 0.02},
	  "strain": {"enabled": true, "max_weft": 10, "max_warp": 10}}`
	if err := os.WriteFile(scene, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	shot, state := filepath.Join(dir, "view_unstable.png"), filepath.Join(dir, "view_unstable.json")
	st, _ := runViewer(t, state, "--scene", scene, "--frames", "20", "--screenshot", shot, "--msaa", "0")
	if st.Finite || !st.Paused || st.Steps > 10 || !strings.Contains(st.Error, "unstable") || st.GLErrors != 0 {
		t.Errorf("state: got finite=%v paused=%v steps=%d error=%q gl_errors=%d, want false, true, ≤ 10, an unstable message, 0",
			st.Finite, st.Paused, st.Steps, st.Error, st.GLErrors)
	}
	rows, red := bannerRows(readPNG(t, shot))
	t.Logf("banner: %d rows, %d dark red pixels at the top", rows, red)
	if rows < bannerMinRows {
		t.Errorf("error banner not drawn: %d rows at the top mostly dark red (%d such pixels), want at least %d", rows, red, bannerMinRows)
	}
}

// bannerMinRows is how many rows of the top of the 3D area, mostly of
// the error banner's dark red, show the banner (bannerRows).
const bannerMinRows = 10

// bannerRows counts the rows of the top 150 pixels of the 3D area (between
// the side panels) of which at least 60 % are the error banner's dark red
// background, and all such pixels there. The banner spans the area's
// width; cloth in the curvature colours' dark red end does not fill rows
// that way. Counting pixels alone failed the viewer monkey once in CI
// (hanging, seed 39: 5268 dark red pixels on the cloth the final view
// was fitted to, no banner, no error in the state; a passing run of the
// same seed had 1515).
func bannerRows(img image.Image) (rows, red int) {
	b := img.Bounds()
	x0, x1 := 360, b.Dx()-330
	for y := 0; y < min(150, b.Dy()); y++ {
		n := 0
		for x := x0; x < x1; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 90 && g>>8 < 40 && bl>>8 < 40 {
				n++
			}
		}
		red += n
		if x1 > x0 && 10*n >= 6*(x1-x0) {
			rows++
		}
	}
	return rows, red
}

// TestGUIBadSceneFile types a path that does not exist into the Scene
// panel's file box and clicks Load: the error must be shown and the
// running scene must keep running.
func TestGUIBadSceneFile(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	dir := outDir(t)
	state := filepath.Join(dir, "view_badscene.json")
	v := startViewer(t, state, "--msaa", "0")
	st := v.poll("the first state", func(s State) bool { return s.Frames >= 3 })
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "windowfocus", "--sync", win)
	// Panel layout at content scale 1: the file box and its Load button
	// are on the second row of the Scene section (panels.go).
	xdotool(t, "mousemove", "--window", win, "100", "99")
	v.poll("the cursor", func(s State) bool { return s.Frames > st.Frames+3 })
	xdotool(t, "click", "1")
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "type", "--delay", "30", "no/such/scene.json")
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "mousemove", "--window", win, "285", "99")
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "click", "1")
	after := v.poll("the error message", func(s State) bool {
		for _, m := range s.Messages {
			if strings.Contains(m, "no/such/scene.json") {
				return true
			}
		}
		return false
	})
	v.poll("the scene to keep running", func(s State) bool {
		return s.Scene == "hanging" && s.Steps > after.Steps+5 && s.Finite
	})
	v.stop()
}

// TestGUIIdle: a paused viewer with nothing happening stops drawing (it
// draws none; the test allows one frame per idleWait and a few more), and
// a mouse move brings the full rate back at once.
func TestGUIIdle(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	state := filepath.Join(outDir(t), "view_idle.json")
	v := startViewer(t, state, "--paused", "--msaa", "0", "--state-every", "1")
	v.poll("the first state", func(s State) bool { return s.Frames >= 3 && s.Paused })
	time.Sleep(time.Duration(1.5 * idleAfter * float64(time.Second)))
	frames := func() int {
		s, err := readState(state)
		if err != nil {
			t.Fatal(err)
		}
		return s.Frames
	}
	f0 := frames()
	time.Sleep(2 * time.Second)
	quiet := frames() - f0
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	f0, t0 := frames(), time.Now()
	for i := 0; i < 20; i++ {
		xdotool(t, "mousemove", "--window", win, strconv.Itoa(600+10*i), "400")
		time.Sleep(50 * time.Millisecond)
	}
	busy := float64(frames()-f0) / time.Since(t0).Seconds()
	t.Logf("%d frames in 2 s idle, %.0f frames/s while the mouse moves", quiet, busy)
	if max := int(2/idleWait) + 3; quiet > max {
		t.Errorf("idle: %d frames in 2 s, want at most %d (none are drawn when idle)", quiet, max)
	}
	if busy < 10 || busy < float64(quiet) {
		t.Errorf("mouse moves: %.0f frames/s, want at least 10 and above the idle %d frames in 2 s", busy, quiet)
	}
	v.stop()
}
