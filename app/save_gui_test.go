package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"drape/sim/scene"
)

// TestGUISaveScene presses Ctrl+S in a paused viewer with a real X
// keyboard event (xdotool). First saved-scene.json is a directory, so the
// save fails: the error is shown (State.Messages), the directory is left
// alone and the viewer goes on. Then, with the directory gone, Ctrl+S
// writes the scene: it loads, has the parameters in force, the scene's
// pins and the camera, and Ctrl+S did not also take a single step (plain
// S does).
func TestGUISaveScene(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	target := filepath.Join(dir, defaultSaveFile)
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	v := startViewerIn(t, dir, state, "--paused")
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "windowfocus", "--sync", win)
	// A paused viewer stops drawing after a second without input (see
	// idleAfter); on a loaded machine that can come before the first
	// --state write, so move the mouse over it until one is written.
	for i := 0; ; i++ {
		xdotool(t, "mousemove", "--window", win, strconv.Itoa(700+i%2*10), "400")
		if s, err := readState(state); err == nil && s.Frames >= 3 {
			break
		}
		if i > 600 {
			t.Fatalf("no --state written\n%s", v.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	hasMsg := func(s State, sub string) bool {
		for _, m := range s.Messages {
			if strings.Contains(m, sub) {
				return true
			}
		}
		return false
	}

	xdotool(t, "key", "--window", win, "ctrl+s")
	failed := v.poll("the failed save", func(s State) bool { return hasMsg(s, "saving scene to "+defaultSaveFile) })
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		t.Errorf("the failed save touched %s: %v", target, err)
	}
	if failed.Steps != 0 || !failed.Finite || failed.Error != "" {
		t.Errorf("after a failed save: steps=%d finite=%v error=%q, want 0, true, none", failed.Steps, failed.Finite, failed.Error)
	}

	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	xdotool(t, "key", "--window", win, "ctrl+s")
	saved := v.poll("the save", func(s State) bool { return hasMsg(s, "saved scene to "+defaultSaveFile) })
	sc, err := scene.LoadScene(nil, target)
	if err != nil {
		t.Fatalf("loading the saved scene: %v", err)
	}
	if sc.Params != saved.Params {
		t.Errorf("saved params %+v, want those in force %+v", sc.Params, saved.Params)
	}
	if sc.Camera == nil || !(sc.Camera.Distance > 0) || len(sc.Pins) != 1 || sc.Pins[0].Select != "top-corners" || sc.Adapt != nil {
		t.Errorf("saved scene: camera %+v pins %+v adapt %+v, want a camera, hanging's pins, no adaptivity", sc.Camera, sc.Pins, sc.Adapt)
	}
	if saved.Steps != 0 {
		t.Errorf("Ctrl+S took %d steps, want none", saved.Steps)
	}
	xdotool(t, "key", "--window", win, "s")
	v.poll("a single step", func(s State) bool { return s.Steps == 1 })
	v.stop()
}
