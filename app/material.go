package app

import (
	"slices"

	"github.com/inkyblackness/imgui-go/v4"

	"drape/sim/cloth"
	"drape/sim/fabric"
	"drape/sim/strainlimit"
)

// presetUI is the Material panel's fabric preset menu: the preset the
// sliders came from (the scene file's "material", or one picked here) and
// whether the user picked it, so that Save scene names it.
type presetUI struct {
	name   string // "" for none
	scene  string // the scene name was last reset to the material of
	picked bool   // the user picked name since: Save scene writes it
}

// sync resets the menu to the scene's own material when a scene is loaded.
func (p *presetUI) sync(s *Snapshot) {
	if s.Scene != p.scene {
		p.scene, p.name, p.picked = s.Scene, s.Material, false
	}
}

// saved returns the material Save scene should write when the user
// picked one (the empty name for "none"), and false to keep the scene's.
func (p *presetUI) saved() (*string, bool) {
	if !p.picked {
		return nil, false
	}
	n := p.name
	return &n, true
}

// withPreset returns params and strain with the named preset applied
// (fabric.Preset.Apply: the keys it names, nothing else), and the preset.
func withPreset(name string, params cloth.Params, strain strainlimit.Params) (cloth.Params, strainlimit.Params, *fabric.Preset, error) {
	p, err := fabric.Lookup(name)
	if err != nil {
		return params, strain, nil, err
	}
	p.Apply(&params, &strain)
	return params, strain, p, nil
}

// presetEdited reports whether params or strain differ from the preset in
// a key it names: the user moved a slider since picking it.
func presetEdited(p *fabric.Preset, params cloth.Params, strain strainlimit.Params) bool {
	pp, ps, _, _ := withPreset(p.Name, params, strain)
	return pp != params || ps != strain
}

// presetCombo draws the preset menu at the top of the Material panel:
// picking a fabric sets every slider it names (and its strain limits) and
// shows what the fabric is and where its numbers come from.
func (u *uiState) presetCombo(a *uiAction) {
	lib, err := fabric.Builtin()
	if err != nil {
		textDisabled("fabric presets: " + err.Error())
		return
	}
	var cur *fabric.Preset
	preview := "(none)"
	if u.preset.name != "" {
		if cur, err = lib.Lookup(u.preset.name); err == nil {
			preview = cur.Name
			if presetEdited(cur, u.edit.Params, u.edit.Strain) {
				preview += " (edited)"
			}
		}
	}
	if imgui.BeginComboV("fabric preset", preview, 0) {
		if imgui.SelectableV("(none)", u.preset.name == "", 0, imgui.Vec2{}) {
			u.preset.name, u.preset.picked = "", true
		}
		for _, n := range lib.Names() {
			sel := imgui.SelectableV(n, n == u.preset.name, 0, imgui.Vec2{})
			u.mark("fabric preset: " + n)
			if !sel {
				continue
			}
			p, s, _, err := withPreset(n, u.edit.Params, u.edit.Strain)
			if err != nil {
				u.say(err.Error(), true)
				continue
			}
			u.preset.name, u.preset.picked = n, true
			u.edit.Params, u.edit.Strain = p, s
			u.send(BlockParams, a)
			u.send(BlockStrain, a)
		}
		imgui.EndCombo()
	}
	u.mark("fabric preset")
	if cur != nil {
		imgui.PushTextWrapPosV(0)
		imgui.Text(cur.Title)
		textDisabled("source: " + cur.Source)
		if !slices.Contains(cur.StrainKeys(), "enabled") {
			textDisabled("no strain limits: the fabric does not stiffen within the data")
		}
		imgui.PopTextWrapPos()
	}
}
