package app

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/inkyblackness/imgui-go/v4"

	"drape/assets"
	"drape/render"
	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/detail"
	"drape/sim/param"
	"drape/sim/scene"
	"drape/sim/strainlimit"
)

// This file holds every imgui call of the viewer (STYLE.md: keep the
// archived binding behind small functions). Panels read the snapshot and
// the UI state and return a uiAction; the viewer turns actions into
// Commands. Layout: a sidebar on the left (Scene, Material, Solver,
// Display, and a slot for the adaptivity controls), Stats and the colour
// legend on the right, Help at the bottom, an error banner at the top.

// Panel geometry in screen units at content scale 1.
const (
	sideW   = 340 // left sidebar width
	statsW  = 310 // right column width
	margin  = 8
	histLen = 600 // samples in the Stats plots at most
)

// uiAction is what the user asked for in one frame.
type uiAction struct {
	togglePause, step, reset, fit, resetView bool
	record, screenshot                       bool     // toggle recording (F9); save a screenshot (F12)
	speed                                    *float64 // new real-time factor target
	scene                                    string   // scene to load
	save                                     bool     // save the running scene to uiState.saveFile (Ctrl+S)

	// blocks are the parameter blocks edited this frame, whole values,
	// for one CmdSetBlocks (uiState.send); none held: no edit.
	blocks Blocks

	undo, redo bool // undo the last change, redo the last undone (Ctrl+Z, Ctrl+Shift+Z; history.go)

	pair pairRequest // side by side (sidebyside_panels.go)
}

// defaultSaveFile is where Save scene writes when the file box is empty,
// relative to the working directory.
const defaultSaveFile = "saved-scene.json"

// toggles are the display switches.
type toggles struct {
	wireframe, wireByGen, grid, pins, help bool
	obstacles                              bool // draw the obstacles (O)
	detail                                 bool // draw the physics-aware detail surface (D)
	detailLevel                            int32
	detailLine                             string // the detail worker's status, set by the viewer
	hideUIInVideo                          bool   // recordings show the 3D view only, without panels
	colorMap                               render.ColorMap
	strainColors                           bool // colour by the largest principal strain (with colorMap viridis) instead of mean curvature
	fabric                                 bool // the fabric look (LookFabric; colorMap none)
}

// uiState is the panels' own state: the edited copy of the parameter
// blocks, display toggles, messages and the plot history.
type uiState struct {
	scale   float32
	toggles toggles
	crange  colorRange

	// edit is the controls' copy of the parameter blocks: re-synced from
	// snapshots once every sent edit is answered (observe; the
	// Adaptivity panel's block by adaptivityPanel), and sent block by
	// block as the person edits it (send).
	edit         Blocks
	editsSent    uint64  // CmdSetBlocks sent; compared with Snapshot.EditSeq
	lastEditSeq  uint64  // Snapshot.EditSeq last seen, to report each rejection once
	speed        float32 // real-time factor target shown
	asFast       bool
	speedSynced  bool
	scenes       []string
	sceneFile    string
	saveFile     string // where Save scene writes; defaultSaveFile when empty
	message      string // last command error, shown in red until dismissed
	messageIsErr bool
	messageLog   []string
	lastEpoch    uint64
	hist         plotHistory           // the Stats panel's plots (sidebyside.go)
	pair         *pairOverlay          // side by side's overlays; nil in the single view (sidebyside_panels.go)
	pairCtl      pairControl           // side by side's controls (sidebyside_panels.go)
	widgets      map[string][4]float32 // screen rectangles of named controls this frame (State.Widgets)
	legendH      float32               // legend window height in the previous frame, for stacking Help above it
	statsBottom  float32               // the Stats panel's lower edge in this frame, for keeping Help below it
	detailDrawn  bool                  // the cloth drawn is the detail surface, which has no colour map (set by the viewer)
	rec          recStatus
	maxFPS       int        // the render rate cap (--max-fps), frames per second; 0: none
	clothColor   [3]float32 // the fabric look's cloth colour (Material panel), RGB as displayed
	colorScene   string     // the scene clothColor was last reset to the colour of
	colorPicked  bool       // the user picked clothColor since: Save scene writes it
	adaptScene   string     // the scene the Adaptivity section's open state was set for
	preset       presetUI   // the Material panel's fabric preset menu (material.go)
	gesture      uint64     // the undo history's gesture of the control held (history.go); 0 when none is
}

func newUIState(scale float32) *uiState {
	u := &uiState{scale: scale, scenes: scene.SceneNames(assets.Scenes)}
	u.toggles = toggles{grid: true, pins: true, obstacles: true, help: true, wireByGen: true, hideUIInVideo: true, colorMap: render.ColorMapCoolWarm, detailLevel: 1}
	u.crange = colorRange{Auto: true, Min: -1, Max: 1}
	return u
}

func (u *uiState) leftWidth() float32  { return (sideW + 2*margin) * u.scale }
func (u *uiState) rightWidth() float32 { return (statsW + 2*margin) * u.scale }
func (u *uiState) sideWidth() float32  { return u.leftWidth() + u.rightWidth() }

// setupStyle loads the panel font at 15 px × scale and sets a dark,
// slightly translucent theme scaled for HiDPI.
func setupStyle(io imgui.IO, scale float32) {
	var b imgui.GlyphRangesBuilder
	b.AddExisting(io.Fonts().GlyphRangesDefault())
	b.Add(0x0370, 0x03FF) // Greek: ν ρ α Δ
	b.Add(0x2000, 0x22FF) // punctuation, sub/superscripts, arrows, math (·, −, ×, ≤)
	b.Add(0x25CF, 0x25CF) // ● (recording indicator)
	ranges := b.Build()   // must outlive the atlas build; kept for the process lifetime
	io.Fonts().AddFontFromMemoryTTFV(assets.UIFont, 15*scale, imgui.DefaultFontConfig, ranges.GlyphRanges)
	imgui.StyleColorsDark()
	st := imgui.CurrentStyle()
	st.ScaleAllSizes(scale)
	st.SetWindowRounding(6 * scale)
	st.SetFrameRounding(3 * scale)
	st.SetGrabRounding(3 * scale)
	st.SetWindowBorderSize(0)
	st.SetItemSpacing(imgui.Vec2{X: 8 * scale, Y: 5 * scale})
	st.SetColor(imgui.StyleColorWindowBg, imgui.Vec4{X: 0.09, Y: 0.10, Z: 0.12, W: 0.90})
	st.SetColor(imgui.StyleColorTitleBgActive, imgui.Vec4{X: 0.16, Y: 0.29, Z: 0.48, W: 1})
	st.SetColor(imgui.StyleColorHeader, imgui.Vec4{X: 0.20, Y: 0.25, Z: 0.33, W: 0.8})
}

// event records a Loop event for display.
func (u *uiState) event(e Event) {
	if e.Err != nil {
		u.say(e.Err.Error(), true)
	} else {
		u.say(e.Info, false)
	}
}

// say shows msg in the message line (red when isErr) and logs it for
// --state.
func (u *uiState) say(msg string, isErr bool) {
	u.message, u.messageIsErr = msg, isErr
	u.messageLog = append(u.messageLog, u.message)
	if n := len(u.messageLog); n > 100 { // keep the last 100 for --state
		u.messageLog = append(u.messageLog[:0], u.messageLog[n-100:]...)
	}
}

// observe takes in a new snapshot: history samples, colour range,
// re-synced parameters.
func (u *uiState) observe(s *Snapshot) {
	first := s.Epoch != u.lastEpoch
	if first {
		u.lastEpoch = s.Epoch
	}
	if s.EditSeq != u.lastEditSeq {
		u.lastEditSeq = s.EditSeq
		if s.EditErr != "" {
			u.say(s.EditErr, true)
		}
	}
	// Re-sync once every sent edit is answered: an accepted edit is then
	// in s.Blocks, a rejected one is replaced by the values in force. The
	// Adaptivity panel re-syncs its block itself (adaptivityPanel).
	if s.EditSeq >= u.editsSent && !imgui.IsAnyItemActive() {
		u.edit = u.edit.Only(blockSet(BlockAdapt)).With(s.Blocks.Without(BlockAdapt))
	}
	if s.Scene != u.colorScene {
		u.colorScene, u.colorPicked = s.Scene, false
		u.clothColor = sceneClothColor(s)
	}
	u.preset.sync(s)
	if !u.speedSynced {
		u.speed, u.asFast = float32(s.Stats.SpeedTarget), s.Stats.SpeedTarget == 0
		if u.asFast {
			u.speed = 1
		}
		u.speedSynced = true
	}
	u.crange.update(s.Stats.CurvAbsP98, first)
	u.hist.observe(s)
}

// mark records the rectangle of the last item as the widget name, for
// --state (State.Widgets): scripts and the GUI tests click controls by
// name rather than by a layout they would have to know.
func (u *uiState) mark(name string) {
	lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
	wlo, wsz := imgui.WindowPos(), imgui.WindowSize()
	if !imgui.IsItemVisible() || lo.Y < wlo.Y || hi.Y > wlo.Y+wsz.Y {
		return // scrolled (partly) out of its window
	}
	u.widgets[name] = [4]float32{lo.X, lo.Y, hi.X, hi.Y}
}

// panels builds every window for this frame.
func (u *uiState) panels(s *Snapshot, fps float64, ds [2]float32, in *Interaction) uiAction {
	var a uiAction
	sc := u.scale
	if u.widgets == nil {
		u.widgets = map[string][4]float32{}
	}
	clear(u.widgets)
	u.releaseGesture() // panels_history.go
	imgui.SetNextWindowPosV(imgui.Vec2{X: margin * sc, Y: margin * sc}, imgui.ConditionAlways, imgui.Vec2{})
	imgui.SetNextWindowSizeV(imgui.Vec2{X: sideW * sc, Y: ds[1] - 2*margin*sc}, imgui.ConditionAlways)
	if imgui.BeginV("drape", nil, imgui.WindowFlagsNoMove|imgui.WindowFlagsNoResize|imgui.WindowFlagsNoCollapse) {
		imgui.PushItemWidth(-150 * sc)
		u.messageLine()
		u.scenePanel(s, &a)
		if s.Springs.On {
			u.springsPanel(s, &a) // panels_springs.go
		} else {
			// Adaptivity second: at the default 1280×800 it sat below the
			// fold, under five other sections.
			u.adaptivityPanel(u.adaptSnapshot(s), &a) // side by side: the run chosen
			u.contactPanel(s, &a)
			u.materialPanel(&a)
			u.solverPanel(&a)
		}
		u.displayPanel(&a)
		u.recordPanel(&a)
		imgui.PopItemWidth()
	}
	imgui.End()

	if u.pair != nil {
		// Side by side: each view's label and the strip below them take
		// the place of Stats and Help; the legend stands at the strip's
		// right end.
		if u.toggles.colorMap != render.ColorMapNone {
			u.pair.reserve = (statsW + margin) * sc
		}
		drawPairOverlay(u.pair, sc)
		u.legend(ds)
	} else {
		imgui.SetNextWindowPosV(imgui.Vec2{X: ds[0] - (statsW+margin)*sc, Y: margin * sc}, imgui.ConditionAlways, imgui.Vec2{})
		imgui.SetNextWindowSizeV(imgui.Vec2{X: statsW * sc, Y: 0}, imgui.ConditionAlways)
		if imgui.BeginV("Stats", nil, imgui.WindowFlagsNoMove|imgui.WindowFlagsNoResize|imgui.WindowFlagsNoCollapse|imgui.WindowFlagsAlwaysAutoResize) {
			u.statsPanel(s, fps, in)
			u.statsBottom = imgui.WindowPos().Y + imgui.WindowHeight()
		}
		imgui.End()
		u.legend(ds)
		if u.toggles.help {
			u.helpPanel(ds)
		}
	}
	if s.Stats.Err != "" {
		u.errorBanner(s, ds, &a)
	}
	if u.rec.active {
		u.recIndicator(ds)
	}
	return a
}

// recordPanel holds the recording and screenshot controls.
func (u *uiState) recordPanel(a *uiAction) {
	if !imgui.CollapsingHeaderV("Record", imgui.TreeNodeFlagsDefaultOpen) {
		return
	}
	r := &u.rec
	label := "Record (F9)"
	if r.active {
		label = "Stop recording (F9)"
	}
	if imgui.Button(label) {
		a.record = true
	}
	imgui.SameLine()
	if imgui.Button("Screenshot (F12)") {
		a.screenshot = true
	}
	u.recSizeCombo()
	atWindow := true
	if r.size != nil {
		w, _ := r.size.frameSize()
		atWindow = w == 0
	}
	if atWindow {
		imgui.Checkbox("hide panels in the video", &u.toggles.hideUIInVideo)
	}
	switch {
	case r.active && r.kind == "ffmpeg":
		textDisabled("encoding H.264 MP4 with ffmpeg")
	case r.active:
		textDisabled("writing a PNG sequence (no ffmpeg)")
	case r.ffmpeg:
		textDisabled("ffmpeg found: records H.264 MP4")
	default:
		textDisabled("ffmpeg not on PATH: records PNG frames")
	}
	switch {
	case r.active:
		textDisabled(fmt.Sprintf("%dx%d, %g frames per simulated s", r.w, r.h, r.fps))
	case atWindow:
		textDisabled(fmt.Sprintf("window size, %g frames per simulated s", r.fps))
	default:
		textDisabled(fmt.Sprintf("3D view only (panels: window size), %g frames per simulated s", r.fps))
	}
}

// recSizeCombo chooses the recording size: a preset or a custom W×H,
// rounded down to even. While recording it only shows the size.
func (u *uiState) recSizeCombo() {
	s := u.rec.size
	if s == nil || u.rec.active {
		return
	}
	preview := recPresets[s.preset].name
	if w, h := s.frameSize(); recPresets[s.preset].w < 0 {
		preview = fmt.Sprintf("custom %dx%d", w, h)
	}
	imgui.SetNextItemWidth(160 * u.scale)
	if imgui.BeginCombo("video size", preview) {
		for i, p := range recPresets {
			if imgui.SelectableV(p.name, i == s.preset, 0, imgui.Vec2{}) {
				s.preset = i
			}
		}
		imgui.EndCombo()
	}
	if recPresets[s.preset].w < 0 {
		for i, label := range []string{"width##rec", "height##rec"} {
			imgui.SetNextItemWidth(110 * u.scale)
			if imgui.InputIntV(label, &s.custom[i], 2, 100, 0) {
				s.custom[i] = int32(min(max(int(s.custom[i]), 2), maxRecSide))
			}
			if i == 0 {
				imgui.SameLine()
			}
		}
	}
}

// recIndicator shows recording state, video time and frame count at the
// top of the 3D view.
func (u *uiState) recIndicator(ds [2]float32) {
	sc := u.scale
	x := u.leftWidth() + (ds[0]-u.sideWidth())/2
	imgui.SetNextWindowPosV(imgui.Vec2{X: x, Y: margin * sc}, imgui.ConditionAlways, imgui.Vec2{X: 0.5, Y: 0})
	imgui.PushStyleColor(imgui.StyleColorWindowBg, imgui.Vec4{X: 0.35, Y: 0.05, Z: 0.05, W: 0.9})
	flags := imgui.WindowFlagsNoMove | imgui.WindowFlagsNoResize | imgui.WindowFlagsNoCollapse | imgui.WindowFlagsAlwaysAutoResize | imgui.WindowFlagsNoTitleBar | imgui.WindowFlagsNoFocusOnAppearing
	if imgui.BeginV("##recording", nil, flags) {
		r := &u.rec
		state := "REC"
		if r.hold {
			state = "REC (held: Space resumes)"
		}
		imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.35, Z: 0.3, W: 1})
		imgui.Text("● " + state)
		imgui.PopStyleColor()
		imgui.SameLine()
		imgui.Textf("%02d:%04.1f video  %d frames  %.0f s elapsed", int(r.video)/60, math.Mod(r.video, 60), r.frames, r.wall)
		textDisabled(r.path)
	}
	imgui.End()
	imgui.PopStyleColor()
}

// messageLine shows the last event (red for errors) with a dismiss
// button.
func (u *uiState) messageLine() {
	if u.message == "" {
		return
	}
	col := imgui.Vec4{X: 0.55, Y: 0.85, Z: 0.55, W: 1}
	if u.messageIsErr {
		col = imgui.Vec4{X: 1, Y: 0.45, Z: 0.40, W: 1}
	}
	imgui.PushStyleColor(imgui.StyleColorText, col)
	imgui.PushTextWrapPosV(0)
	imgui.Text(u.message)
	imgui.PopTextWrapPos()
	imgui.PopStyleColor()
	if imgui.Button("Dismiss") {
		u.message = ""
	}
	imgui.Separator()
}

func (u *uiState) scenePanel(s *Snapshot, a *uiAction) {
	if !imgui.CollapsingHeaderV("Scene", imgui.TreeNodeFlagsDefaultOpen) {
		return
	}
	// The preview shows the running scene, also when it came from a file.
	if imgui.BeginComboV("built-in scene", s.Scene, 0) {
		for _, n := range u.scenes {
			if imgui.SelectableV(n, n == s.Scene, 0, imgui.Vec2{}) {
				a.scene = n
			}
			u.mark("scene: " + n)
		}
		imgui.EndCombo()
	}
	u.mark("built-in scene")
	imgui.InputTextWithHint("scene file", "path/to/scene.json", &u.sceneFile)
	imgui.SameLine()
	if imgui.Button("Load") && u.sceneFile != "" {
		a.scene = u.sceneFile
	}
	imgui.InputTextWithHint("save as", defaultSaveFile, &u.saveFile)
	u.mark("save file")
	imgui.SameLine()
	if imgui.Button("Save scene…") {
		a.save = true
	}
	u.mark("save scene")
	label := "Pause (Space)"
	if s.Stats.Paused {
		label = "Play (Space)"
	}
	if imgui.ButtonV(label, imgui.Vec2{X: 110 * u.scale}) {
		a.togglePause = true
	}
	imgui.SameLine()
	if imgui.Button("Step (S)") {
		a.step = true
	}
	imgui.SameLine()
	if imgui.Button("Reset (R)") {
		a.reset = true
	}
	u.historyButtons(s, a) // panels_history.go
	u.pairControls(a)      // sidebyside_panels.go
	imgui.Textf("%s   t = %.2f s   step %d", s.Scene, s.Stats.Time, s.Stats.Steps)
	imgui.Textf("model: %s", modelName(s))
	if len(s.Obstacles) > 0 {
		textDisabled("obstacles (Shift + drag moves one):")
		for i := range s.Obstacles {
			o := &s.Obstacles[i]
			imgui.Textf("  %-10s %-8s μ = %.2f", o.Name, o.Kind, o.Friction)
		}
	}
}

// contactPanel edits the collision settings (contact.Table, group
// "Contact": collisions on/off, self-collision, the thickness h, the
// cloth–cloth friction, the CCD passes, the impact-zone kind) and shows
// what the last step's collision handling did. Every change sends the
// whole value; a rejected one is reported in the message line and the
// controls re-sync to the settings in force. It opens when a scene with
// obstacles is loaded.
func (u *uiState) contactPanel(s *Snapshot, a *uiAction) {
	if !imgui.CollapsingHeaderV("Contact", boolFlag(len(s.Obstacles) > 0 || s.Blocks.Contact.SelfCollision, imgui.TreeNodeFlagsDefaultOpen)) {
		return
	}
	if tableControls(contact.Table, "Contact", &u.edit.Contact, func(key string) {
		if key == "enabled" {
			u.mark("collisions")
		}
	}) {
		u.send(BlockContact, a)
	}
	st := &s.Stats
	c := st.Contact
	imgui.Textf("contacts    %5d body  %5d self pairs", c.Proximity, c.SelfProximity)
	imgui.Textf("springs     %5d in the solve", st.Springs)
	imgui.Textf("CCD hits    %5d in %d passes", c.CCDHits, c.Iterations)
	imgui.Textf("impact zones %4d (%d vertices)", c.Zones, c.ZoneVertices)
	if st.Tangled > 0 {
		// A cloth that starts tangled (a bad OBJ, a vertex dragged
		// through) stays finite but may stay tangled: say so.
		imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.55, Z: 0.3, W: 1})
		imgui.Textf("intersecting %4d triangle pairs", st.Tangled)
		imgui.PopStyleColor()
	} else {
		imgui.Textf("intersecting %4d triangle pairs", st.Tangled)
	}
	if st.Retried > 0 {
		imgui.Textf("failsafe    %5d steps taken again in halves", st.Retried)
		if st.RetriedAtCap > 0 {
			imgui.Textf("            %5d of them: PCG stopped at its cap", st.RetriedAtCap)
		}
	}
	share := 0.0
	if total := st.Total(); total > 0 {
		share = 100 * float64(st.Collide) / float64(total)
	}
	imgui.Textf("collisions  %6.1f ms/step  (%.0f %%)", millis(st.Collide), share)
}

// boolFlag returns f when on, else 0.
func boolFlag(on bool, f imgui.TreeNodeFlags) imgui.TreeNodeFlags {
	if on {
		return f
	}
	return 0
}

// sliderF64 edits a float64 through a float32 slider and reports a change.
func sliderF64(label string, v *float64, lo, hi float32, format string, log bool) bool {
	f := float32(*v)
	var flags imgui.SliderFlags = imgui.SliderFlagsAlwaysClamp
	if log {
		flags |= imgui.SliderFlagsLogarithmic
	}
	if imgui.SliderFloatV(label, &f, lo, hi, format, flags) {
		*v = widen(f)
		return true
	}
	return false
}

// widen returns the float64 of the shortest decimal that reads back as f,
// so that a slider set to 2.1 sets 2.1, not float64(float32(2.1)) =
// 2.0999999046325684, which a parameter's error message and a saved
// scene would show.
func widen(f float32) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil { // FormatFloat's output, ±Inf and NaN too, always parses
		return float64(f)
	}
	return v
}

// tableControls draws a control for every field of table t in the
// sidebar group, editing v, and reports a change: a slider over the field's
// slider range for numbers, a checkbox for booleans (vectors have none).
// after, if not nil, is called after each control with the field's key,
// for notes and widget marks that belong to one field.
func tableControls[T any](t param.Table[T], group string, v *T, after func(key string)) bool {
	ch := false
	for _, f := range t.Group(group) {
		label := f.Name()
		switch {
		case f.Float != nil:
			ch = sliderF64(label, f.Float(v), float32(f.SliderMin), float32(f.SliderMax), f.Format, f.Log) || ch
		case f.Int != nil:
			i := int32(*f.Int(v))
			flags := imgui.SliderFlagsAlwaysClamp
			if f.Log {
				flags |= imgui.SliderFlagsLogarithmic
			}
			if imgui.SliderIntV(label, &i, int32(f.SliderMin), int32(f.SliderMax), f.Format, flags) {
				*f.Int(v), ch = int(i), true
			}
		case f.Bool != nil:
			ch = imgui.Checkbox(label, f.Bool(v)) || ch
		}
		if after != nil {
			after(f.Key)
		}
	}
	return ch
}

// materialPanel edits the fields of cloth.ParamTable in group "Material",
// under the fabric preset menu (presetCombo).
func (u *uiState) materialPanel(a *uiAction) {
	if !imgui.CollapsingHeaderV("Material", imgui.TreeNodeFlagsDefaultOpen) {
		return
	}
	u.presetCombo(a)
	if tableControls(cloth.ParamTable, "Material", &u.edit.Params, func(key string) { u.mark("material: " + key) }) {
		u.send(BlockParams, a)
	}
	u.clothColorEdit()
	// Strain limiting (Tsiknis ch. 2): the switch and the limits per
	// material direction; "strain" in the colour menu shows the result.
	if tableControls(strainlimit.Table, "Strain limit", &u.edit.Strain, func(key string) {
		if key == "enabled" {
			u.mark("strain limiting")
		}
	}) {
		u.send(BlockStrain, a)
	}
}

// send puts block k of the edited copy into this frame's edit (a.blocks),
// the whole block; the controls keep showing it until the simulation
// answers (Snapshot.EditSeq). The blocks edited in one frame go in one
// command, which the simulation answers once.
func (u *uiState) send(k Block, a *uiAction) {
	u.edit.Held |= blockSet(k)
	if a.blocks.Held == 0 {
		u.editsSent++
	}
	a.blocks = a.blocks.With(u.edit.Only(blockSet(k)))
}

// solverPanel edits the fields of cloth.ParamTable in group "Solver" and
// the pacing.
func (u *uiState) solverPanel(a *uiAction) {
	if !imgui.CollapsingHeaderV("Solver", imgui.TreeNodeFlagsDefaultOpen) {
		return
	}
	if tableControls(cloth.ParamTable, "Solver", &u.edit.Params, nil) {
		u.send(BlockParams, a)
	}
	u.pacingControls(a)
}

// pacingControls edit the real-time factor target.
func (u *uiState) pacingControls(a *uiAction) {
	changed := imgui.Checkbox("as fast as possible", &u.asFast)
	if imgui.SliderFloatV("speed (× real time)", &u.speed, 0.05, 4, "%.2f", imgui.SliderFlagsLogarithmic|imgui.SliderFlagsAlwaysClamp) {
		changed, u.asFast = true, false
	}
	if changed {
		sp := float64(u.speed)
		if u.asFast {
			sp = 0
		}
		a.speed = &sp
	}
}

// generationKey shows which wireframe colour is which refinement
// generation: a swatch per generation 0..6 with its number.
func (u *uiState) generationKey() {
	textDisabled("wireframe colour by generation:")
	sz := imgui.TextLineHeight()
	dl := imgui.WindowDrawList()
	for g := 0; g <= 6; g++ {
		if g > 0 {
			imgui.SameLineV(0, 10*u.scale)
		}
		p := imgui.CursorScreenPos()
		q := imgui.Vec2{X: p.X + sz, Y: p.Y + sz}
		if g == 0 { // the plain wire: faint and dark, so an outlined dark box
			dl.AddRectFilled(p, q, imgui.PackedColorFromVec4(imgui.Vec4{X: 0.12, Y: 0.12, Z: 0.14, W: 1}))
			dl.AddRect(p, q, imgui.PackedColorFromVec4(imgui.CurrentStyle().Color(imgui.StyleColorTextDisabled)))
		} else {
			k := render.GenerationColors[(g-1)%len(render.GenerationColors)]
			dl.AddRectFilled(p, q, imgui.PackedColorFromVec4(imgui.Vec4{X: k[0], Y: k[1], Z: k[2], W: 1}))
		}
		imgui.Dummy(imgui.Vec2{X: sz, Y: sz})
		imgui.SameLineV(0, 2*u.scale)
		imgui.Text(strconv.Itoa(g))
	}
}

func (u *uiState) displayPanel(a *uiAction) {
	if !imgui.CollapsingHeaderV("Display", imgui.TreeNodeFlagsDefaultOpen) {
		return
	}
	t := &u.toggles
	imgui.Checkbox("wireframe (W)", &t.wireframe)
	u.mark("wireframe")
	if t.wireframe {
		imgui.SameLine()
		imgui.Checkbox("by generation", &t.wireByGen)
	}
	imgui.Checkbox("pins (P)", &t.pins)
	imgui.SameLine()
	imgui.Checkbox("ground grid (G)", &t.grid)
	imgui.Checkbox("obstacles (O)", &t.obstacles)
	imgui.Checkbox("detail (D)", &t.detail)
	u.mark("detail")
	if t.detail {
		imgui.SameLine()
		imgui.PushItemWidth(80 * u.scale)
		imgui.SliderInt("level", &t.detailLevel, 1, detail.MaxLevel)
		imgui.PopItemWidth()
		textDisabled(t.detailLine)
	}
	maps := []string{"flat (two-sided)", "mean curvature: cool-warm", "mean curvature: viridis", "largest principal strain", "fabric (for videos)"}
	cm := int32(t.colorMode())
	if imgui.ComboV("colour (C)", &cm, maps, -1) {
		t.setColorMode(int(cm))
	}
	if imgui.Button("Fit view (F)") {
		a.fit = true
	}
	imgui.SameLine()
	if imgui.Button("Reset view") {
		a.resetView = true
	}
}

// shownAdapt returns the settings the panel shows for the settings in
// force p: p itself, or DefaultAdaptParams switched off when the scene has
// none (the zero value, which does not validate), so that ticking the box
// starts from the tuned defaults.
func shownAdapt(p cloth.AdaptParams) cloth.AdaptParams {
	if p == (cloth.AdaptParams{}) {
		p = cloth.DefaultAdaptParams()
		p.Enabled = false
	}
	return p
}

// adaptivityPanel edits the adaptive remeshing settings (Bender & Deul
// §5): l_base, l_gmax, the coarsening fraction c, g_max, the adaptation
// interval and the triangle cap. Every change sends the whole block
// (uiState.send); the simulation validates it between steps and either applies
// it or keeps the running settings and publishes the error
// (Snapshot.EditErr), which is shown here with the rejected edit until the
// user fixes or reverts it. Once every sent edit is answered without an
// error the controls re-sync from the snapshot, so a scene load shows the
// scene's settings. The section opens when a scene that adapts is
// loaded and closes when one that does not is.
func (u *uiState) adaptivityPanel(s *Snapshot, a *uiAction) {
	inForce := shownAdapt(s.Blocks.Adapt)
	if s.EditSeq >= u.editsSent && s.EditErr == "" && !imgui.IsAnyItemActive() {
		u.edit.take(BlockAdapt, &Blocks{Adapt: inForce})
	}
	// Open or closed as the scene adapts or not when a scene is loaded,
	// and then as the user leaves it: following the setting every frame
	// (TreeNodeFlagsDefaultOpen does, until the header is first clicked)
	// closed the section under the mouse when its checkbox was unticked.
	if s.Scene != u.adaptScene {
		u.adaptScene = s.Scene
		imgui.SetNextItemOpen(s.Blocks.Adapt.Enabled, imgui.ConditionAlways)
	}
	if !imgui.CollapsingHeader("Adaptivity") {
		return
	}
	p := &u.edit.Adapt
	ch := tableControls(cloth.AdaptTable, "Adaptivity", p, func(key string) {
		switch key {
		case "enabled":
			u.mark("adaptive")
		case "g_max":
			u.mark("g_max")
			// √3 refinement triples the face count every two generations.
			textDisabled(fmt.Sprintf("  up to ×%.3g triangles where refined", math.Pow(3, float64(p.GMax)/2)))
		}
	})
	if ch {
		u.send(BlockAdapt, a)
	}
	if s.EditErr != "" && *p != inForce {
		imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.45, Z: 0.40, W: 1})
		imgui.PushTextWrapPosV(0)
		imgui.Text(s.EditErr + "; the settings in force are kept.")
		imgui.PopTextWrapPos()
		imgui.PopStyleColor()
		if imgui.Button("Revert to the settings in force") {
			*p = inForce
		}
	}
	la := s.Stats.LastAdapt
	imgui.Textf("last adaptation: %d refined, %d coarsened", la.Refined, la.Coarsened)
	imgui.Textf("  %.1f ms;  %d triangles", millis(la.Duration), s.Stats.Triangles)
	if la.Undone > 0 {
		textDisabled(fmt.Sprintf("  %d undone so far: their faces crossed the cloth", la.Undone))
	}
	if t := u.toggles; t.wireframe && t.wireByGen {
		u.generationKey()
	} else {
		textDisabled("W shows the wireframe by generation")
	}
}

func (u *uiState) statsPanel(s *Snapshot, fps float64, in *Interaction) {
	st := &s.Stats
	ms := millis
	total := ms(st.Total())
	imgui.Textf("render      %6.1f fps  (%s)", fps, fpsCap(u.maxFPS))
	sps, rtf := st.StepsPerSec, st.RealTimeFactor
	if st.Paused {
		sps, rtf = 0, 0
	}
	target := "max"
	if st.SpeedTarget > 0 {
		target = fmt.Sprintf("%.2g×", st.SpeedTarget)
	}
	imgui.Textf("simulation  %6.1f steps/s", sps)
	imgui.Textf("real time   %6.2f×  (target %s)", rtf, target)
	if s.Springs.On {
		imgui.Textf("step        %6.1f ms", total)
		springsStats(s) // panels_springs.go
	} else {
		if st.Collide > 0 {
			imgui.Textf("step        %6.1f ms  (collisions %.0f %%)", total, 100*ms(st.Collide)/total)
			imgui.Textf("  asm %5.1f  solve %5.1f  coll %5.1f  other %4.1f", ms(st.Assemble), ms(st.Solve), ms(st.Collide), total-ms(st.Assemble+st.Solve+st.Collide))
		} else {
			imgui.Textf("step        %6.1f ms", total)
			imgui.Textf("  assembly %5.1f  solve %5.1f  other %5.1f", ms(st.Assemble), ms(st.Solve), total-ms(st.Assemble+st.Solve))
		}
		imgui.Textf("  + snapshot (curvature, normals) %4.1f", ms(st.Snapshot))
		imgui.Textf("PCG         %6d iterations", st.Iterations)
	}
	imgui.Textf("mesh        %6d vertices  %6d tris", st.Vertices, st.Triangles)
	imgui.Textf("kinetic E   %9.3g J", st.KineticEnergy)
	if in.Obstacle >= 0 && in.Obstacle < len(s.Obstacles) {
		imgui.Textf("dragging obstacle %s", s.Obstacles[in.Obstacle].Name)
	} else if in.Dragged >= 0 {
		imgui.Textf("dragging vertex %d", in.Dragged)
	} else if in.Hover >= 0 {
		imgui.Textf("vertex %d under cursor", in.Hover)
	} else {
		textDisabled("hover a vertex to inspect it")
	}
	w := imgui.ContentRegionAvail().X
	if h := &u.hist; len(h.ms) > 1 {
		t0, t1 := h.time[0], h.time[len(h.time)-1]
		hi := float32(0)
		for _, v := range h.ms {
			hi = max(hi, v)
		}
		imgui.PlotLinesV("##ms", h.ms, 0, fmt.Sprintf("ms/step, t = %.1f…%.1f s", t0, t1), 0, hi*1.15, imgui.Vec2{X: w, Y: 60 * u.scale})
		lo, hiT := h.tris[0], h.tris[0]
		for _, v := range h.tris {
			lo, hiT = min(lo, v), max(hiT, v)
		}
		pad := max(1, 0.1*(hiT-lo))
		imgui.PlotLinesV("##tris", h.tris, 0, plotLabel(s), lo-pad, hiT+pad, imgui.Vec2{X: w, Y: 50 * u.scale})
		u.mark("triangles plot")
	}
}

// legend draws the colour bar of the curvature map with its range, and
// the automatic/manual range control; none while the cloth is drawn
// uncoloured (no map, or the detail surface).
func (u *uiState) legend(ds [2]float32) {
	sc := u.scale
	cm := u.toggles.colorMap
	if cm == render.ColorMapNone || u.detailDrawn {
		u.legendH = 0
		return
	}
	imgui.SetNextWindowPosV(imgui.Vec2{X: ds[0] - margin*sc, Y: ds[1] - margin*sc}, imgui.ConditionAlways, imgui.Vec2{X: 1, Y: 1})
	imgui.SetNextWindowSizeV(imgui.Vec2{X: statsW * sc, Y: 0}, imgui.ConditionAlways)
	title := "Mean curvature H (1/m)"
	if u.toggles.strainColors {
		title = "Largest principal strain (%)"
	}
	if imgui.BeginV(title, nil, imgui.WindowFlagsNoMove|imgui.WindowFlagsNoResize|imgui.WindowFlagsNoCollapse|imgui.WindowFlagsAlwaysAutoResize) {
		w := imgui.ContentRegionAvail().X
		h := 16 * sc
		p := imgui.CursorScreenPos()
		dl := imgui.WindowDrawList()
		const segs = 24
		for i := 0; i < segs; i++ {
			t0, t1 := float32(i)/segs, float32(i+1)/segs
			c0, c1 := packRGB(mapColor(cm, t0)), packRGB(mapColor(cm, t1))
			x0, x1 := p.X+w*t0, p.X+w*t1
			dl.AddRectFilledMultiColor(imgui.Vec2{X: x0, Y: p.Y}, imgui.Vec2{X: x1 + 0.5, Y: p.Y + h}, c0, c1, c1, c0)
		}
		imgui.Dummy(imgui.Vec2{X: w, Y: h})
		r := &u.crange
		lo, hi := fmt.Sprintf("%.3g", r.Min), fmt.Sprintf("%.3g", r.Max)
		mid := fmt.Sprintf("%.3g", 0.5*(r.Min+r.Max))
		if u.toggles.strainColors {
			top := 100 * strainRange(u.edit.Strain)
			lo, mid, hi = "0", fmt.Sprintf("%.3g (limit)", top/2), fmt.Sprintf("%.3g", top)
		}
		imgui.Text(lo)
		imgui.SameLineV(w/2-imgui.CalcTextSize(mid, false, 0).X/2, 0)
		imgui.Text(mid)
		imgui.SameLineV(w-imgui.CalcTextSize(hi, false, 0).X, 0)
		imgui.Text(hi)
		if !u.toggles.strainColors {
			imgui.Checkbox("automatic range (±98th pct of |H|)", &r.Auto)
		}
		if !r.Auto && !u.toggles.strainColors {
			imgui.PushItemWidth(w * 0.62)
			if imgui.DragFloatRange2V("range", &r.Min, &r.Max, 0.05, -1000, 1000, "%.2f", "%.2f", 0) && r.Min > r.Max {
				r.Min, r.Max = r.Max, r.Min
			}
			imgui.PopItemWidth()
		}
		u.legendH = imgui.WindowHeight()
	}
	imgui.End()
}

// fpsCap describes the render rate cap for the Stats panel.
func fpsCap(maxFPS int) string {
	if maxFPS <= 0 {
		return "no cap, vsync off"
	}
	return fmt.Sprintf("cap %d", maxFPS)
}

// packRGB packs an RGB colour in [0,1] as an opaque ImGui colour.
func packRGB(c [3]float32) imgui.PackedColor {
	return imgui.PackedColorFromVec4(imgui.Vec4{X: c[0], Y: c[1], Z: c[2], W: 1})
}

// helpLines are the controls the Help panel lists (the README's quick
// tour has the same in a table).
var helpLines = [][2]string{
	{"left drag", "orbit"},
	{"right/middle drag", "pan"},
	{"wheel", "zoom"},
	{"drag a pin", "move its target"},
	{"drag the cloth", "pull a vertex"},
	{"Ctrl + click", "pin / unpin vertex"},
	{"Space", "pause / resume"},
	{"S", "single step"},
	{"R", "reset (keeps params)"},
	{"Shift + drag", "move an obstacle"},
	{"W / G / P / O", "wire/grid/pins/obstacles"},
	{"C / F", "colour map / fit view"},
	{"F9 / F12", "record / screenshot"},
	{"Ctrl + S", "save scene"},
	{"Ctrl + Z", "undo (+ Shift: redo)"},
	{"D / H", "detail / hide this help"},
}

// helpLimits are the limits a person meets when dragging (cloth.HandSpeed,
// cloth.HandStretch, cloth.PinGap, cloth.ObstacleClearance,
// cloth.SafetyStrain, contact.EscapeSpeed, EscapeTime, EscapeMax and
// PushSpeed), for the Help panel: what keeps a drag from blowing the
// cloth up.
var helpLimits = []string{
	fmt.Sprintf("pins (a new one too), dragged vertices and obstacles follow the mouse at %g m/s at most", cloth.HandSpeed),
	fmt.Sprintf("a pin stops where it would stretch the cloth to another pin, or next to it, by %.0f %% (%.0f %% of the strain limit when on)", 100*cloth.HandStretch, 100*cloth.HandLimitShare),
	"a pin stops at the surface of an obstacle; one left inside while collisions were off goes out when they come back on",
	fmt.Sprintf("a pin comes no nearer to another than %.0f %% of the cloth between them; a moving pin pushes it along", 100*cloth.PinGap),
	fmt.Sprintf("an obstacle stops %.0f cm from another and from the ground, and, dragged while paused, at the cloth", 100*cloth.ObstacleClearance),
	"an obstacle waits while the cloth it carries is stretched past the pins' limit",
	fmt.Sprintf("with strain limiting off, no part of the cloth stretches past %.0f %% (twice its length)", 100*cloth.SafetyStrain),
	fmt.Sprintf("cloth found inside an obstacle (collisions switched back on over it) moves out by a tenth of its depth a step, at up to %g m/s (deeper than %g m, its depth in %g s, up to %g m/s), and leaves it at %g m/s at most; in a box, a table or a mesh each piece leaves by one side, and faces caught across an edge slide off", contact.EscapeSpeed, contact.EscapeSpeed*contact.EscapeTime, contact.EscapeTime, contact.EscapeMax, contact.PushSpeed),
}

// helpPanel sits in the right column between Stats and the legend, so it
// covers none of the 3D view and none of Stats: where the column is too
// short for it (1280×800 with the Stats plots), it is as tall as the
// room between them and scrolls.
func (u *uiState) helpPanel(ds [2]float32) {
	sc := u.scale
	bottom := ds[1] - 2*margin*sc - u.legendH
	room := max(bottom-u.statsBottom-margin*sc, 80*sc)
	imgui.SetNextWindowPosV(imgui.Vec2{X: ds[0] - margin*sc, Y: bottom}, imgui.ConditionAlways, imgui.Vec2{X: 1, Y: 1})
	imgui.SetNextWindowSizeV(imgui.Vec2{X: statsW * sc, Y: 0}, imgui.ConditionAlways)
	imgui.SetNextWindowSizeConstraints(imgui.Vec2{X: statsW * sc, Y: 0}, imgui.Vec2{X: statsW * sc, Y: room})
	if imgui.BeginV("Help (H)", &u.toggles.help, imgui.WindowFlagsNoMove|imgui.WindowFlagsNoResize|imgui.WindowFlagsAlwaysAutoResize|imgui.WindowFlagsNoFocusOnAppearing) {
		for _, l := range helpLines {
			imgui.Text(l[0])
			imgui.SameLineV(140*sc, 0)
			textDisabled(l[1])
		}
		imgui.Text("drag limits")
		imgui.SameLineV(140*sc, 0)
		textDisabled("hover to read")
		if imgui.IsItemHovered() {
			imgui.SetTooltip(strings.Join(helpLimits, "\n"))
		}
	}
	imgui.End()
}

// errorBanner shows why the simulation stopped, with Reset.
func (u *uiState) errorBanner(s *Snapshot, ds [2]float32, a *uiAction) {
	sc := u.scale
	free := ds[0] - u.sideWidth()
	x := u.leftWidth() + free/2
	imgui.SetNextWindowPosV(imgui.Vec2{X: x, Y: margin * sc}, imgui.ConditionAlways, imgui.Vec2{X: 0.5, Y: 0})
	imgui.SetNextWindowSizeV(imgui.Vec2{X: float32(math.Max(200, float64(free-2*margin*sc))), Y: 0}, imgui.ConditionAlways)
	imgui.PushStyleColor(imgui.StyleColorWindowBg, imgui.Vec4{X: 0.45, Y: 0.08, Z: 0.08, W: 0.95})
	if imgui.BeginV("Simulation stopped", nil, imgui.WindowFlagsNoMove|imgui.WindowFlagsNoResize|imgui.WindowFlagsNoCollapse|imgui.WindowFlagsAlwaysAutoResize) {
		imgui.PushTextWrapPosV(0)
		imgui.Text(s.Stats.Err)
		imgui.PopTextWrapPos()
		imgui.Text("Showing the last good state.")
		if imgui.Button("Reset") {
			a.reset = true
		}
	}
	imgui.End()
	imgui.PopStyleColor()
}

// textDisabled draws text in the style's dimmed colour (imgui-go v4 does
// not wrap ImGui::TextDisabled).
func textDisabled(text string) {
	imgui.PushStyleColor(imgui.StyleColorText, imgui.CurrentStyle().Color(imgui.StyleColorTextDisabled))
	imgui.Text(text)
	imgui.PopStyleColor()
}

// colorModes is the number of entries of the colour menu (C cycles them).
const colorModes = 5

// colorMode returns the colour menu's entry: 0 flat, 1 and 2 mean
// curvature (cool-warm, viridis), 3 the largest principal strain, 4 the
// fabric look.
func (t *toggles) colorMode() int {
	switch {
	case t.fabric:
		return 4
	case t.strainColors:
		return 3
	}
	return int(t.colorMap)
}

// setColorMode selects entry m of the colour menu (see colorMode).
func (t *toggles) setColorMode(m int) {
	m = (m%colorModes + colorModes) % colorModes
	t.strainColors, t.fabric = m == 3, m == 4
	switch {
	case t.strainColors:
		t.colorMap = render.ColorMapViridis
	case t.fabric:
		t.colorMap = render.ColorMapNone
	default:
		t.colorMap = render.ColorMap(m)
	}
}

// clothColorEdit is the fabric look's colour picker (Material panel, or
// the Springs panel for the spring cloth, which has none).
func (u *uiState) clothColorEdit() {
	if imgui.ColorEdit3V("cloth colour", &u.clothColor, imgui.ColorEditFlagsNoInputs) {
		u.colorPicked = true
	}
	u.mark("cloth colour")
	if !u.toggles.fabric {
		imgui.SameLine()
		textDisabled("(fabric look: C)")
	}
}
