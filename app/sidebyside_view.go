package app

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"drape/render"
	"drape/sim/cloth"
)

// The viewer's side of side by side (sidebyside.go): starting and
// stopping the pair, the split layout, drawing both runs with one camera
// into two viewports, and which run the mouse acts on.

// pairLayout is where side by side draws, in window units (origin top
// left, y down): the two views next to each other right of the sidebar,
// and the strip of plots below them.
type pairLayout struct {
	view  [2][4]float32 // x0, y0, x1, y1 of the left and the right view
	strip [4]float32
}

// stripHeight is the height of the strip below the views at content
// scale 1, in window units, at most a third of the window.
const stripHeight = 170

// splitLayout returns the layout of a window of display size ds whose
// views start at x0 (the sidebar's width; 0 in a recording), with a
// strip of height stripH (capped at a third of the window) at the bottom.
func splitLayout(ds [2]float32, x0, stripH float32) pairLayout {
	stripH = min(stripH, ds[1]/3)
	x0 = min(max(x0, 0), ds[0])
	mid := x0 + (ds[0]-x0)/2
	h := ds[1] - stripH
	return pairLayout{
		view:  [2][4]float32{{x0, 0, mid, h}, {mid, 0, ds[0], h}},
		strip: [4]float32{x0, h, ds[0], ds[1]},
	}
}

// side returns the view under window x (the left one left of the
// middle, the right one from there on).
func (l pairLayout) side(x float32) int {
	if x < l.view[sideRight][0] {
		return sideLeft
	}
	return sideRight
}

// viewSize returns the size of one view, window units.
func (l pairLayout) viewSize() (w, h float32) {
	v := l.view[sideLeft]
	return v[2] - v[0], v[3] - v[1]
}

// pairView is the viewer's side by side state; it belongs to the main
// thread.
type pairView struct {
	p        *sideBySide      // the pair shown; nil: the single view
	starting <-chan pairStart // a pair being built, nil when none
	kind     pairKind         // the pair asked for
	locked   bool             // lock the runs to the same simulated time
	wg       sync.WaitGroup   // every pair's run goroutines
	cloth    [2]*render.ClothRenderer
	obs      [2]obstacleDrawer
	strain   [2]strainColors
	uploaded [2]uint64 // snapshot Seq uploaded to cloth[i]
	strained [2]bool   // that upload carries strain colours
	layout   pairLayout
	status   string // "starting …" while a pair is being built

	// singlePaused is the single run's pause state when side by side
	// went on, restored when it goes off.
	singlePaused bool
	pauseAt      float64 // --pause-at, for the pair --side-by-side starts
}

// split reports whether the viewer shows a pair.
func (v *viewer) split() bool { return v.pair.p != nil }

// pairFrame runs side by side's part of a frame, before anything reads
// the snapshot: it takes in a pair that finished starting (or its error)
// and, while a pair is shown, both runs' newest snapshots and their
// events, making v.snap the right run's. It reports whether a pair is
// shown.
func (v *viewer) pairFrame(now float64) bool {
	pv := &v.pair
	if pv.starting != nil {
		select {
		case r := <-pv.starting:
			pv.starting, pv.status = nil, ""
			if r.err != nil {
				v.report(r.err)
			} else {
				v.enterPair(r.p)
			}
		default:
			v.lastActive = now // keep drawing until it is ready
		}
	}
	p := pv.p
	if p == nil {
		return false
	}
	for _, e := range p.acquire() {
		v.ui.event(e)
	}
	for i, s := range p.snaps {
		if s.Seq != pv.uploaded[i] {
			v.lastActive = now
		}
	}
	v.snap = p.snaps[sideRight]
	pv.layout = splitLayout(v.win.DisplaySize(), v.ui.leftWidth(), stripHeight*v.ui.scale)
	v.ui.pair = v.pairOverlay()
	return true
}

// pairPauseAt returns --pause-at for the first pair, which --side-by-side
// starts, and 0 (none) after it.
func (v *viewer) pairPauseAt() float64 {
	t := v.pair.pauseAt
	v.pair.pauseAt = 0
	return t
}

// togglePair turns side by side on (starting a pair of the running scene
// on a goroutine) or off.
func (v *viewer) togglePair() {
	pv := &v.pair
	switch {
	case pv.p != nil:
		v.leavePair()
	case pv.starting != nil:
	default:
		v.startPair()
	}
}

// startPair starts building a pair of the single run's scene with the
// parameter blocks and adaptivity settings in force.
func (v *viewer) startPair() {
	pv := &v.pair
	s := v.loop.Snapshots().Acquire()
	v.snap = s
	var base *cloth.AdaptParams
	if s.Blocks.Has(BlockAdapt) {
		a := s.Blocks.Adapt
		base = &a
	}
	pv.starting = startPair(pairOptions{src: s.Source, kind: pv.kind, base: base, blocks: s.Blocks,
		paused: s.Stats.Paused, speed: s.Stats.SpeedTarget, locked: pv.locked, pauseAt: v.pairPauseAt()}, &pv.wg)
	pv.status = "starting side by side: building both runs of " + s.Scene + " …"
}

// restartPair replaces the pair shown by a new one of kind k, from the
// right run's scene with its parameter blocks in force (the comparison
// starts again at t = 0).
func (v *viewer) restartPair(k pairKind) {
	pv := &v.pair
	pv.kind = k
	p := pv.p
	if p == nil {
		return
	}
	r := p.snaps[sideRight]
	base := r.Blocks.Adapt // the adaptive run's settings in force
	pv.starting = startPair(pairOptions{src: r.Source, kind: k, base: &base, blocks: r.Blocks,
		paused: r.Stats.Paused, speed: r.Stats.SpeedTarget, locked: pv.locked}, &pv.wg)
	pv.status = "restarting side by side as " + pairNames[k] + " …"
	for _, l := range p.loops { // shown, paused, until the new pair is ready
		l.Send(Command{Kind: CmdSetPaused, Paused: true})
	}
}

// enterPair shows pair p: the single run pauses, and the camera is fitted
// to the split view.
func (v *viewer) enterPair(p *sideBySide) {
	pv := &v.pair
	if pv.p != nil { // a restart: the old pair goes
		v.closePair(false)
	} else {
		pv.singlePaused = v.loop.Snapshots().Acquire().Stats.Paused
		v.loop.Send(Command{Kind: CmdSetPaused, Paused: true})
	}
	for i := range pv.cloth {
		if pv.cloth[i] == nil {
			var err error
			if pv.cloth[i], err = render.NewClothRenderer(); err != nil {
				v.report(fmt.Errorf("side by side: %w", err))
				p.close()
				return
			}
			if pv.obs[i].r, err = render.NewSolidRenderer(); err != nil {
				v.report(fmt.Errorf("side by side: %w", err))
				p.close()
				return
			}
		}
		pv.uploaded[i], pv.obs[i].gen = 0, 0
	}
	pv.p, p.single = p, v.loop
	p.acquire()
	v.snap = p.snaps[sideRight]
	v.resyncEdits(v.snap)
	p.epoch = 0 // fit the camera to the split view in the next frame
	v.notice(fmt.Sprintf("side by side: %s of %s", pairNames[p.kind], v.snap.Scene))
}

// leavePair goes back to the single run, which resumes as it was; a
// scene loaded side by side is loaded into it.
func (v *viewer) leavePair() {
	p := v.pair.p
	if p == nil {
		return
	}
	src := p.snaps[sideRight].Source
	v.closePair(true)
	single := v.loop.Snapshots().Acquire()
	if src != "" && src != single.Source {
		v.loop.Send(Command{Kind: CmdLoadScene, Scene: src})
	}
	v.loop.Send(Command{Kind: CmdSetPaused, Paused: v.pair.singlePaused})
	v.snap = single
	v.resyncEdits(single)
	v.uploadedSeq = 0
	v.cam.Width, v.cam.Height = v.win.DisplaySize()[0], v.win.DisplaySize()[1]
	v.fitCamera(single, false)
	v.win.SetTitle("drape — " + single.Scene)
	v.notice("side by side off")
}

// closePair stops the pair shown (its goroutines end after their step in
// progress; Run waits for them at exit); with renderers it also frees
// its GL objects.
func (v *viewer) closePair(renderers bool) {
	pv := &v.pair
	if pv.p != nil {
		pv.p.close()
		pv.p = nil
	}
	v.ui.pair = nil
	v.in.Hover, v.in.Dragged = -1, -1
	if !renderers {
		return
	}
	for i := range pv.cloth {
		if pv.cloth[i] != nil {
			pv.cloth[i].Delete()
			pv.cloth[i] = nil
		}
		if pv.obs[i].r != nil {
			pv.obs[i].r.Delete()
			pv.obs[i].r = nil
		}
	}
}

// deletePair stops everything side by side runs and waits for it: at the
// viewer's exit.
func (v *viewer) deletePair() {
	v.closePair(true)
	if c := v.pair.starting; c != nil {
		if r := <-c; r.p != nil {
			r.p.close()
		}
	}
	v.pair.wg.Wait()
}

// resyncEdits makes the panels take their values from s at once: the
// edits counted so far were sent to other runs (Snapshot.EditSeq), and
// the plots start again.
func (v *viewer) resyncEdits(s *Snapshot) {
	u := v.ui
	u.editsSent, u.lastEditSeq, u.lastEpoch = s.EditSeq, s.EditSeq, 0
	u.hist = plotHistory{}
	u.adaptScene = ""
}

// pairCamera sizes the camera to one view of the layout for display size
// ds and fits it to both runs when the right run's epoch changed (a new
// pair, a reset, a scene loaded).
func (v *viewer) pairCamera(ds [2]float32) {
	pv := &v.pair
	p := pv.p
	pv.layout = splitLayout(ds, v.ui.leftWidth(), stripHeight*v.ui.scale)
	v.ui.pair.layout = pv.layout
	v.cam.Width, v.cam.Height = pv.layout.viewSize()
	r := p.snaps[sideRight]
	if r.Epoch == p.epoch || r.Seq == 0 {
		return
	}
	initial := p.epoch != 0
	p.epoch = r.Epoch
	v.win.SetTitle("drape — " + r.Scene + " side by side")
	if initial {
		startPairView(&v.cam, r, false, labelsHeight*v.ui.scale)
		return
	}
	lo, hi := v.pairBounds()
	fitUnderLabels(&v.cam, lo, hi, false, labelsHeight*v.ui.scale)
}

// labelsHeight is the height of a view's label (drawPairOverlay) at
// content scale 1, window units: the camera frames the cloth below it.
const labelsHeight = 80

// startPairView is startView for a view of side by side: the scene's
// camera, or the three-quarter view fitted to the cloth (frameBounds,
// with the space it will fall into unless the view follows it) below the
// label of height top.
func startPairView(cam *render.Camera, snap *Snapshot, follows bool, top float32) {
	if snap.Camera != nil {
		setCamera(cam, snap.Camera)
		return
	}
	lo, hi := frameBounds(snap, !follows)
	fitUnderLabels(cam, lo, hi, true, top)
}

// fitUnderLabels frames [lo, hi] in the part of cam's view below its top
// top units (render.Camera.FitBox with fitFill of that part); with
// initial it starts from the three-quarter view. Empty bounds leave cam
// as it is.
func fitUnderLabels(cam *render.Camera, lo, hi mgl32.Vec3, initial bool, top float32) {
	if lo[0] > hi[0] || !(cam.Height > top) {
		return
	}
	if initial {
		cam.Yaw, cam.Pitch = 0.55, 0.45
	}
	cam.FitBox(lo, hi, fitFill*(cam.Height-top)/cam.Height)
	cam.Pan(0, top/2)
}

// pairBounds returns the box that frames both runs (frameBounds of each,
// joined).
func (v *viewer) pairBounds() (lo, hi mgl32.Vec3) {
	p := v.pair.p
	lo, hi = frameBounds(p.snaps[sideLeft], false)
	lo2, hi2 := frameBounds(p.snaps[sideRight], false)
	for a := range 3 {
		lo[a], hi[a] = min(lo[a], lo2[a]), max(hi[a], hi2[a])
	}
	return lo, hi
}

// drawPair draws both runs into their views (viewport and scissor) with
// the one camera, for display size ds and framebuffer size fs.
func (v *viewer) drawPair(ds, fs [2]float32) {
	pv := &v.pair
	if ds[0] <= 0 || ds[1] <= 0 {
		return
	}
	sx, sy := fs[0]/ds[0], fs[1]/ds[1]
	gl.Enable(gl.SCISSOR_TEST)
	for i, s := range pv.p.snaps {
		if s.Seq == 0 {
			continue
		}
		r := pv.layout.view[i]
		x, y := int32(r[0]*sx+0.5), int32((ds[1]-r[3])*sy+0.5)
		w, h := int32((r[2]-r[0])*sx+0.5), int32((r[3]-r[1])*sy+0.5)
		if w <= 0 || h <= 0 {
			continue
		}
		v.uploadSide(i, s)
		gl.Viewport(x, y, w, h)
		gl.Scissor(x, y, w, h)
		hover, dragged := int32(-1), int32(-1)
		if i == pv.p.hoverSide && !v.in.Busy() || i == pv.p.dragSide && v.in.Busy() {
			hover, dragged = v.in.Hover, v.in.Dragged
		}
		v.draw3DWith(pv.cloth[i], &pv.obs[i], s, hover, dragged)
	}
	gl.Disable(gl.SCISSOR_TEST)
	gl.Viewport(0, 0, int32(fs[0]), int32(fs[1]))
}

// uploadSide uploads run i's snapshot s to its renderer when it is new or
// the colours changed.
func (v *viewer) uploadSide(i int, s *Snapshot) {
	pv := &v.pair
	strain := v.ui.toggles.strainColors
	if s.Seq == pv.uploaded[i] && strain == pv.strained[i] {
		return
	}
	m := s.Drawn().mesh()
	if strain {
		m = pv.strain[i].mesh(&s.Surface)
	}
	if err := pv.cloth[i].Upload(m); err != nil {
		fmt.Fprintf(v.o.Stderr, "drape view: %s run, snapshot %d: %v\n", sideName(i), s.Seq, err)
	}
	pv.uploaded[i], pv.strained[i] = s.Seq, strain
}

// pairInput returns the snapshot a mouse button event acts on and points
// the mouse's commands at its run: the run under the cursor for a press,
// the run the drag started on for a release. In the single view it is
// the single run.
func (v *viewer) pairInput(down bool) *Snapshot {
	p := v.pair.p
	if p == nil {
		v.mouse.sink = v.loop
		return v.snap
	}
	if down && !v.in.Busy() {
		p.dragSide = p.hoverSide
	}
	v.mouse.sink = p.sink(p.dragSide)
	return p.snaps[p.dragSide]
}

// pairCursor returns window x in the camera's pixels of the view it acts
// on (the run under the cursor, or the one being dragged on), and that
// run's snapshot, pointing the mouse's commands at the run. In the single
// view it returns x and the single run.
func (v *viewer) pairCursor(x float64) (float64, *Snapshot) {
	p := v.pair.p
	if p == nil {
		v.mouse.sink = v.loop
		return x, v.snap
	}
	side := p.dragSide
	if !v.in.Busy() {
		side = v.pair.layout.side(float32(x))
		p.hoverSide = side
	}
	v.mouse.sink = p.sink(side)
	return x - float64(v.pair.layout.view[side][0]), p.snaps[side]
}

// pairUpdate is Interaction.Update for side by side: the drag's run's
// snapshot and sink.
func (v *viewer) pairUpdate() {
	p := v.pair.p
	if p == nil {
		v.in.Update(v.snap, v.loop)
		return
	}
	v.in.Update(p.snaps[p.dragSide], p.sink(p.dragSide))
}

// pairAct handles the side by side requests of the panels.
func (v *viewer) pairAct(r pairRequest) {
	pv := &v.pair
	if r.toggle {
		v.togglePair()
	}
	if r.lock != nil {
		pv.locked = *r.lock
		if pv.p != nil {
			pv.p.setLocked(pv.locked)
		}
	}
	if r.kind != nil && *r.kind != pv.kind {
		if pv.p != nil {
			v.restartPair(*r.kind)
		} else {
			pv.kind = *r.kind
		}
	}
	if r.edit != nil && pv.p != nil {
		pv.p.edit = *r.edit
	}
}

// errPairRecording is why F9 does nothing side by side.
var errPairRecording = errors.New("recording: F9 records the single view; for a video of side by side use drape record --side-by-side")

// pairOverlay returns what the panels draw over the split view.
func (v *viewer) pairOverlay() *pairOverlay {
	p := v.pair.p
	o := &pairOverlay{layout: v.pair.layout, kind: p.kind, locked: p.locked(), edit: p.edit, ahead: p.ahead(), fps: v.fps}
	for i, s := range p.snaps {
		o.runs[i] = overlayRun{label: runLabel(s.Blocks.Adapt, p.kind), stats: s.Stats, hist: &p.hist[i]}
	}
	o.note = pairNote(p.kind, p.snaps[sideLeft].Blocks.Adapt, p.snaps[sideRight].Blocks.Adapt)
	o.dist, o.distOK = p.dist.result()
	o.history = p.history()
	return o
}

// pairControl returns what the side by side controls show this frame.
func (v *viewer) pairControl() pairControl {
	pv := &v.pair
	c := pairControl{on: pv.p != nil, starting: pv.starting != nil, status: pv.status, kind: pv.kind, locked: pv.locked}
	if p := pv.p; p != nil {
		c.edit, c.edited = p.edit, p.snaps[p.edit]
	}
	return c
}

// SideBySideState is side by side in State: both runs and how they
// compare.
type SideBySideState struct {
	Pair   string  `json:"pair"`   // pairNames
	Locked bool    `json:"locked"` // the runs are locked to the same simulated time
	Edit   string  `json:"edit"`   // the run the Adaptivity panel edits: "left" or "right"
	Ahead  float64 `json:"ahead_s"`
	// Distance is the distance between the two surfaces at the last
	// time both stood at (pairDistance), relative to the cloth's
	// diagonal; DistanceTime is that time, DistanceOf the run whose
	// vertices were measured. All zero, with Measured false, before the
	// first measurement.
	Measured     bool       `json:"distance_measured"`
	DistanceRMS  float64    `json:"distance_rms"`
	DistanceMax  float64    `json:"distance_max"`
	DistanceTime float64    `json:"distance_time"`
	DistanceOf   string     `json:"distance_of"`
	Left         RunState   `json:"left"`
	Right        RunState   `json:"right"`
	Strip        [4]float32 `json:"strip"` // the strip's window rectangle
}

// RunState is one run side by side.
type RunState struct {
	Label         string          `json:"label"`
	Scene         string          `json:"scene"`
	Time          float64         `json:"time"` // simulated, s
	Steps         int             `json:"steps"`
	Vertices      int             `json:"vertices"`
	Triangles     int             `json:"triangles"`
	MsPerStep     float64         `json:"ms_per_step"`      // the last step's wall time
	MsPerStepMean float64         `json:"ms_per_step_mean"` // over the steps since its scene was (re)built
	PCGIterations int             `json:"pcg_iterations"`   // of the last step
	Paused        bool            `json:"paused"`
	Finite        bool            `json:"finite"`
	Error         string          `json:"error"`
	Blocks                        // the parameter blocks in force, as in State
	Pins          []PinState      `json:"pins"`      // pixels in window coordinates
	Obstacles     []ObstacleState `json:"obstacles"` // likewise
	View          [4]float32      `json:"view"`      // the view's window rectangle
}

// pairState adds side by side to st, which then describes the right run
// with its pixels in window coordinates.
func (v *viewer) pairState(st *State) {
	p := v.pair.p
	if p == nil {
		return
	}
	ds := v.win.DisplaySize()
	l := v.pair.layout
	ss := &SideBySideState{Pair: pairNames[p.kind], Locked: p.locked(), Edit: sideName(p.edit), Ahead: finite(p.ahead()), Strip: l.strip}
	if d, ok := p.dist.result(); ok && d.Err == nil {
		ss.Measured, ss.DistanceRMS, ss.DistanceMax, ss.DistanceTime, ss.DistanceOf = true, finite(d.RMS), finite(d.Max), d.Time, sideName(d.Reference)
	}
	for i, s := range p.snaps {
		rs := stateOf(s, &v.cam, v.frames, v.glErrors, -1, nil, v.fps, nil)
		shiftPixels(&rs, l.view[i][0])
		run := RunState{
			Label: runLabel(s.Blocks.Adapt, p.kind), Scene: s.Scene, Time: s.Stats.Time, Steps: s.Stats.Steps,
			Vertices: s.Stats.Vertices, Triangles: s.Stats.Triangles, MsPerStep: stepMs(&s.Stats), MsPerStepMean: millis(s.Stats.StepMean),
			PCGIterations: s.Stats.Iterations, Paused: s.Stats.Paused, Finite: rs.Finite, Error: s.Stats.Err,
			Blocks: s.Blocks, Pins: rs.Pins, Obstacles: rs.Obstacles, View: l.view[i],
		}
		if i == sideLeft {
			ss.Left = run
		} else {
			ss.Right = run
			st.Pins, st.Obstacles = rs.Pins, rs.Obstacles
		}
	}
	st.Window = ds
	st.History = p.history()
	st.StepBusy = p.loops[sideRight].Busy().Seconds()
	st.SideBySide = ss
}

// millis returns d in milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// shiftPixels moves the pins' and obstacles' pixels of st, made with a
// view's camera, by the view's left edge x0 into window coordinates.
func shiftPixels(st *State, x0 float32) {
	for i := range st.Pins {
		st.Pins[i].Pixel[0] += x0
	}
	for i := range st.Obstacles {
		st.Obstacles[i].Pixel[0] += x0
	}
}

// openPair starts side by side as Options ask (--side-by-side, --pair,
// --lock-time); a bad pair name is an error.
func (v *viewer) openPair(o Options) error {
	k, err := parsePair(o.Pair)
	if err != nil {
		return err
	}
	v.pair.kind, v.pair.locked = k, o.LockTime
	if o.SideBySide {
		v.pair.pauseAt = o.PauseAt
		v.startPair()
	}
	return nil
}
