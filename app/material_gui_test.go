package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"drape/sim/fabric"
	"drape/sim/scene"
)

// TestGUIFabricPreset picks "denim" from the Material panel's preset menu
// with real X mouse clicks (xdotool): the sliders take the preset's
// values, the simulation gets them, and Ctrl+S saves a scene that names
// the preset and loads back to the same parameters.
func TestGUIFabricPreset(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	v := startViewerIn(t, dir, state, "--paused")
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "windowfocus", "--sync", win)
	var st State
	for i := 0; ; i++ { // a paused viewer draws on input only (idleAfter)
		xdotool(t, "mousemove", "--window", win, strconv.Itoa(700+i%2*10), "400")
		var err error
		if st, err = readState(state); err == nil && st.Frames >= 3 {
			if _, ok := st.Widgets["fabric preset"]; ok {
				break
			}
		}
		if i > 600 {
			t.Fatalf("no fabric preset menu in --state\n%s", v.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	click := func(name string) {
		s := v.poll("the control "+name, func(s State) bool { _, ok := s.Widgets[name]; return ok && s.Frames > st.Frames+2 })
		r := s.Widgets[name]
		xdotool(t, "mousemove", "--window", win, strconv.Itoa(int((r[0]+r[2])/2)), strconv.Itoa(int((r[1]+r[3])/2)))
		time.Sleep(200 * time.Millisecond)
		xdotool(t, "click", "1")
		st = s
	}
	click("fabric preset")
	click("fabric preset: denim")
	denim, err := fabric.Lookup("denim")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := denim.Values()
	got := v.poll("denim's parameters in force", func(s State) bool {
		return s.Params.Density == want.Density && s.Params.Bending == want.Bending && s.Params.YoungY == want.YoungY
	})
	xdotool(t, "key", "--window", win, "ctrl+s")
	v.poll("the save", func(s State) bool {
		for _, m := range s.Messages {
			if strings.Contains(m, "saved scene to") {
				return true
			}
		}
		return false
	})
	file := filepath.Join(dir, defaultSaveFile)
	sc, err := scene.LoadScene(nil, file)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Material != "denim" || sc.Params != got.Params {
		data, _ := os.ReadFile(file)
		t.Errorf("saved material %q params %+v, want denim and %+v\n%s", sc.Material, sc.Params, got.Params, data)
	}
}
