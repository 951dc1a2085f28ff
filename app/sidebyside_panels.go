package app

import (
	"fmt"
	"math"

	"github.com/inkyblackness/imgui-go/v4"

	"drape/render"
)

// Side by side's ImGui (sidebyside.go): its controls in the Scene panel,
// and the overlays of the split view, which drape record --side-by-side
// draws too: a label per view (which run, its simulated time, ms per
// step, triangles, PCG iterations) and the strip below them with both
// runs' ms/step and triangle count over simulated time (Bender & Deul
// fig. 6, live), how far the faster run is ahead and the distance between
// the two surfaces.

// pairRequest is what the side by side controls asked for in one frame.
type pairRequest struct {
	toggle bool      // turn side by side on or off
	lock   *bool     // lock (or unlock) the runs to the same simulated time
	kind   *pairKind // show this pair (a new comparison from t = 0)
	edit   *int      // the run the Adaptivity panel edits
}

// pairControl is what the viewer tells the side by side controls each
// frame.
type pairControl struct {
	on, starting bool
	status       string // while starting
	kind         pairKind
	locked       bool
	edit         int
	edited       *Snapshot // the run the Adaptivity panel edits; nil in the single view
}

// pairOverlay is what the overlays of the split view show.
type pairOverlay struct {
	layout pairLayout
	kind   pairKind
	locked bool
	edit   int
	ahead  float64 // s the right run is ahead of the left
	fps    float64 // render rate; 0 in a recording
	runs   [2]overlayRun
	note   string
	dist   pairDistance
	distOK bool
	// history is what the Undo and Redo buttons change back in both
	// runs (sideBySide.history).
	history HistoryInfo
	// reserve is the width at the strip's right end left to the
	// viewer's colour legend, window units.
	reserve float32
}

// overlayRun is one run in pairOverlay.
type overlayRun struct {
	label string
	stats Stats
	hist  *plotHistory
}

// pairColors are the two runs' colours in the labels and plots
// (Okabe–Ito orange and sky blue: apart for colour-blind readers, and
// from the cool-warm cloth).
var pairColors = [2]imgui.Vec4{{X: 0.90, Y: 0.62, Z: 0, W: 1}, {X: 0.34, Y: 0.71, Z: 0.91, W: 1}}

// pairControls are side by side's controls at the end of the Scene
// panel: the switch, the pair, the lock and, side by side, which run the
// Adaptivity panel edits.
func (u *uiState) pairControls(a *uiAction) {
	c := &u.pairCtl
	on := c.on || c.starting
	if imgui.Checkbox("side by side", &on) {
		a.pair.toggle = true
	}
	u.mark("side by side")
	imgui.SameLine()
	locked := c.locked
	if imgui.Checkbox("lock time", &locked) {
		a.pair.lock = &locked
	}
	u.mark("lock time")
	if imgui.IsItemHovered() {
		imgui.SetTooltip("both runs at the same simulated time: the faster one waits;\nedits reach both at the same step, and the surfaces' distance is measured")
	}
	k := int32(c.kind)
	if imgui.ComboV("pair", &k, pairNames[:], -1) {
		pk := pairKind(k)
		a.pair.kind = &pk
	}
	u.mark("pair")
	switch {
	case c.starting:
		textDisabled(c.status)
	case c.on:
		textDisabled("Adaptivity below edits the run:")
		for i := range 2 {
			if i > 0 {
				imgui.SameLine()
			}
			if imgui.RadioButton(sideName(i)+"##edit", c.edit == i) && c.edit != i {
				e := i
				a.pair.edit = &e
			}
			u.mark("edit " + sideName(i))
		}
	}
}

// adaptSnapshot returns the snapshot the Adaptivity panel shows and
// edits: side by side the run chosen in the Scene panel, else s.
func (u *uiState) adaptSnapshot(s *Snapshot) *Snapshot {
	if e := u.pairCtl.edited; u.pair != nil && e != nil {
		return e
	}
	return s
}

// drawPairOverlay draws the labels of both views and the strip below
// them (pairOverlay) at content scale sc.
func drawPairOverlay(o *pairOverlay, sc float32) {
	flags := imgui.WindowFlagsNoMove | imgui.WindowFlagsNoResize | imgui.WindowFlagsNoCollapse | imgui.WindowFlagsNoTitleBar |
		imgui.WindowFlagsAlwaysAutoResize | imgui.WindowFlagsNoFocusOnAppearing | imgui.WindowFlagsNoInputs | imgui.WindowFlagsNoSavedSettings
	for i := range o.runs {
		r := &o.runs[i]
		v := o.layout.view[i]
		imgui.SetNextWindowPosV(imgui.Vec2{X: v[0] + margin*sc, Y: v[1] + margin*sc}, imgui.ConditionAlways, imgui.Vec2{})
		imgui.SetNextWindowBgAlpha(0.7)
		if imgui.BeginV("##run "+sideName(i), nil, flags) {
			st := &r.stats
			imgui.PushStyleColor(imgui.StyleColorText, pairColors[i])
			imgui.Text(r.label)
			imgui.PopStyleColor()
			// The mean since the scene was (re)loaded: the last step's
			// time jumps from step to step (adaptation, collisions) and
			// could not be read or compared; the strip plots each step.
			imgui.Textf("t = %6.2f s   %7.1f ms/step mean", st.Time, millis(st.StepMean))
			imgui.Textf("%6d triangles   %4d PCG iterations", st.Triangles, st.Iterations)
			if st.Err != "" {
				imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.45, Z: 0.40, W: 1})
				imgui.PushTextWrapPosV(imgui.CursorPosX() + 300*sc)
				imgui.Text(st.Err)
				imgui.PopTextWrapPos()
				imgui.PopStyleColor()
			}
		}
		imgui.End()
	}
	s := o.layout.strip
	imgui.SetNextWindowPosV(imgui.Vec2{X: s[0], Y: s[1]}, imgui.ConditionAlways, imgui.Vec2{})
	imgui.SetNextWindowSizeV(imgui.Vec2{X: max(s[2]-s[0]-o.reserve, 1), Y: s[3] - s[1]}, imgui.ConditionAlways)
	strip := imgui.WindowFlagsNoMove | imgui.WindowFlagsNoResize | imgui.WindowFlagsNoCollapse | imgui.WindowFlagsNoTitleBar |
		imgui.WindowFlagsNoScrollbar | imgui.WindowFlagsNoSavedSettings | imgui.WindowFlagsNoFocusOnAppearing
	if imgui.BeginV("##pair strip", nil, strip) {
		imgui.Text(pairTimeLine(o))
		if o.note != "" {
			imgui.SameLine()
			textDisabled(o.note)
		}
		textDisabled(pairDistanceLine(o))
		avail := imgui.ContentRegionAvail()
		w := (avail.X - 8*sc) / 2
		h := avail.Y
		if w > 40 && h > 30 {
			var ts, ms, tris [2][]float32
			for i := range o.runs {
				ts[i], ms[i], tris[i] = o.runs[i].hist.time, o.runs[i].hist.ms, o.runs[i].hist.tris
			}
			p := imgui.CursorScreenPos()
			plotPair(p, imgui.Vec2{X: w, Y: h}, ts, ms, true, "ms per step (log)", sc)
			plotPair(imgui.Vec2{X: p.X + w + 8*sc, Y: p.Y}, imgui.Vec2{X: w, Y: h}, ts, tris, true, "triangles (log)", sc)
			imgui.Dummy(imgui.Vec2{X: 2*w + 8*sc, Y: h})
		}
	}
	imgui.End()
}

// pairTimeLine says where the two runs stand in simulated time.
func pairTimeLine(o *pairOverlay) string {
	l, r := &o.runs[sideLeft].stats, &o.runs[sideRight].stats
	half := max(l.Dt, r.Dt) / 2
	fps := ""
	if o.fps > 0 {
		fps = fmt.Sprintf("render %.0f fps   ", o.fps)
	}
	switch {
	case o.locked && math.Abs(o.ahead) <= 3*half: // the faster waits a step ahead
		return fmt.Sprintf("%slocked at t = %.2f s", fps, min(l.Time, r.Time))
	case math.Abs(o.ahead) <= half:
		return fmt.Sprintf("%sboth at t = %.2f s", fps, r.Time)
	case o.ahead > 0:
		return fmt.Sprintf("%sright run %.2f s ahead", fps, o.ahead)
	}
	return fmt.Sprintf("%sleft run %.2f s ahead", fps, -o.ahead)
}

// pairDistanceLine gives the distance between the two surfaces at the
// last time both stood at (the bench's accuracy measure).
func pairDistanceLine(o *pairOverlay) string {
	d := o.dist
	switch {
	case !o.distOK:
		return "surface distance: measured when both runs stand at the same time (lock time)"
	case d.Err != nil:
		return d.Err.Error()
	}
	return fmt.Sprintf("surface distance: RMS %.3g %%, max %.3g %% of the cloth diagonal (t = %.2f s, %s run's vertices)",
		100*d.RMS, 100*d.Max, d.Time, sideName(d.Reference))
}

// plotPair draws both runs' series (ts[i], ys[i]) over simulated time
// from 0 in a box at p of size sz, on a log scale with log, titled title,
// in the runs' colours (pairColors), with the time span beside the title
// and the range of the values at the top right, where they fit.
func plotPair(p, sz imgui.Vec2, ts, ys [2][]float32, log bool, title string, sc float32) {
	dl := imgui.WindowDrawList()
	q := imgui.Vec2{X: p.X + sz.X, Y: p.Y + sz.Y}
	dl.AddRectFilled(p, q, imgui.PackedColorFromVec4(imgui.Vec4{X: 0.05, Y: 0.05, Z: 0.06, W: 0.8}))
	f := func(v float32) float32 {
		if log {
			return float32(math.Log10(float64(max(v, 1e-3))))
		}
		return v
	}
	tmax := float32(0)
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for i := range ys {
		for k, v := range ys[i] {
			lo, hi = min(lo, f(v)), max(hi, f(v))
			tmax = max(tmax, ts[i][k])
		}
	}
	text := imgui.PackedColorFromVec4(imgui.CurrentStyle().Color(imgui.StyleColorTextDisabled))
	dl.AddText(imgui.Vec2{X: p.X + 4*sc, Y: p.Y + 2*sc}, text, title)
	if lo > hi || !(tmax > 0) {
		return
	}
	pad := max(0.12*(hi-lo), 1e-3)
	lo, hi = lo-pad, hi+pad
	top := p.Y + 18*sc // below the title
	x := func(t float32) float32 { return p.X + sz.X*t/tmax }
	y := func(v float32) float32 { return q.Y - (q.Y-top)*(f(v)-lo)/(hi-lo) }
	for i := range ys {
		c := imgui.PackedColorFromVec4(pairColors[i])
		for k := 1; k < len(ys[i]); k++ {
			dl.AddLineV(imgui.Vec2{X: x(ts[i][k-1]), Y: y(ys[i][k-1])}, imgui.Vec2{X: x(ts[i][k]), Y: y(ys[i][k])}, c, 1.5*sc)
		}
	}
	val := func(v float32) string {
		if log {
			v = float32(math.Pow(10, float64(v)))
		}
		return fmt.Sprintf("%.3g", v)
	}
	span := fmt.Sprintf("  t = 0…%.1f s", tmax)
	rng := fmt.Sprintf("%s…%s", val(lo+pad), val(hi-pad))
	w := imgui.CalcTextSize(title, false, 0).X
	if ws := imgui.CalcTextSize(span, false, 0).X; w+ws+8*sc < sz.X {
		dl.AddText(imgui.Vec2{X: p.X + 4*sc + w, Y: p.Y + 2*sc}, text, span)
		w += ws
	}
	if wr := imgui.CalcTextSize(rng, false, 0).X; w+wr+24*sc < sz.X {
		dl.AddText(imgui.Vec2{X: q.X - wr - 4*sc, Y: p.Y + 2*sc}, text, rng)
	}
}

// overlayUI draws side by side's overlays into a window without input:
// drape record's ImGui (record_sidebyside.go).
type overlayUI struct {
	ctx *imgui.Context
	io  imgui.IO
	gui *render.ImGuiRenderer
}

// newOverlayUI makes an ImGui context with the viewer's font and style
// at content scale 1, and its renderer; it needs a current GL context.
func newOverlayUI() (*overlayUI, error) {
	u := &overlayUI{ctx: imgui.CreateContext(nil)}
	u.io = imgui.CurrentIO()
	u.io.SetIniFilename("")
	setupStyle(u.io, 1)
	var err error
	if u.gui, err = render.NewImGuiRenderer(u.io); err != nil {
		u.ctx.Destroy()
		return nil, err
	}
	return u, nil
}

// draw draws o over the current framebuffer of size ds (pixels), dt
// seconds after the previous frame.
func (u *overlayUI) draw(o *pairOverlay, ds [2]float32, dt float64) {
	u.io.SetDisplaySize(imgui.Vec2{X: ds[0], Y: ds[1]})
	u.io.SetDeltaTime(float32(max(dt, 1e-6)))
	imgui.NewFrame()
	drawPairOverlay(o, 1)
	imgui.Render()
	u.gui.Render(ds, ds, imgui.RenderedDrawData())
}

func (u *overlayUI) delete() {
	u.gui.Delete()
	u.ctx.Destroy()
}
