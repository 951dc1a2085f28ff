package app

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"drape/sim/cloth"
	"drape/sim/fabric"
	"drape/sim/scene"
	"drape/sim/strainlimit"
)

// TestWithPreset checks what picking a preset in the Material panel does
// to the sliders: every key the preset names is set, the others (the
// solver's, the scene's forces) stay, an unknown name is an error that
// lists the presets, and moving a slider afterwards counts as an edit.
func TestWithPreset(t *testing.T) {
	params, strain := cloth.DefaultParams(), strainlimit.DefaultParams()
	params.Dt, params.DampMass, strain.Passes = 0.002, 0.7, 9
	p, s, pr, err := withPreset("jersey", params, strain)
	if err != nil {
		t.Fatal(err)
	}
	wantP, wantS := params, strain
	pr.Apply(&wantP, &wantS)
	if p != wantP || s != wantS || p.Dt != 0.002 || p.DampMass != 0.7 || s.Passes != 9 || !s.Enabled {
		t.Errorf("withPreset(jersey): got %+v %+v, want %+v %+v", p, s, wantP, wantS)
	}
	if presetEdited(pr, p, s) {
		t.Error("a freshly applied preset counts as edited")
	}
	p.YoungX *= 2
	if !presetEdited(pr, p, s) {
		t.Error("E_x moved off the preset does not count as edited")
	}
	if _, _, _, err := withPreset("velvet", params, strain); !errors.Is(err, fabric.ErrUnknown) {
		t.Errorf("withPreset(velvet): %v, want fabric.ErrUnknown", err)
	}
}

// TestLoopSaveMaterial picks a preset as the panel does (its parameters
// sent, then Save scene with the picked name) and checks that the saved
// file names the preset, writes only the keys that differ from it, and
// loads back to the parameters in force; the snapshot carries the
// loaded scene's material for the menu.
func TestLoopSaveMaterial(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	runLoop(t, l)
	s := l.Snapshots().Acquire()
	var ui presetUI
	ui.sync(s)
	if ui.name != "" || ui.picked {
		t.Fatalf("hanging has no material, menu shows %+v", ui)
	}
	p, st, _, err := withPreset("denim", s.Blocks.Params, s.Blocks.Strain)
	if err != nil {
		t.Fatal(err)
	}
	p.Bending *= 1.5 // a slider moved after picking
	ui.name, ui.picked = "denim", true
	l.Send(setCmd(BlockParams, Blocks{Params: p}))
	l.Send(setCmd(BlockStrain, Blocks{Strain: st}))
	file := filepath.Join(t.TempDir(), "denim.json")
	m, _ := ui.saved()
	l.Send(Command{Kind: CmdSaveScene, Scene: file, Material: m})
	waitForInfo(t, l, "saved scene to "+file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Material string         `json:"material"`
		Params   map[string]any `json:"params"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	_, hasB := raw.Params["bending"]
	_, hasEy := raw.Params["E_y"]
	if raw.Material != "denim" || !hasB || hasEy {
		t.Errorf("saved material %q, params %v: want denim with bending (moved) but not E_y (the preset's)", raw.Material, raw.Params)
	}
	sc, err := scene.LoadScene(nil, file)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Params != p || sc.Strain != st {
		t.Errorf("loaded %+v %+v, want %+v %+v", sc.Params, sc.Strain, p, st)
	}
	l.Send(Command{Kind: CmdLoadScene, Scene: file})
	s = waitFor(t, l, "the saved scene loaded", func(s *Snapshot) bool { return s.Material == "denim" })
	var fresh presetUI // a viewer opened on the saved scene
	fresh.sync(s)
	if fresh.name != "denim" || fresh.picked {
		t.Errorf("on the saved scene the menu shows %+v, want denim, not picked", fresh)
	}
}
