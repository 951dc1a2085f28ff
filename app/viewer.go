package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/inkyblackness/imgui-go/v4"

	"drape/assets"
	"drape/render"
)

// DefaultScene is the scene drape view opens without --scene: "hanging"
// (1 800 triangles, about 7 ms per step here) runs near real time, so the
// first thing a user sees moves and responds at once. The 22k-triangle
// curtain (about 150 ms per step) is one click away in the Scene panel;
// the viewer stays responsive with it too, because rendering never waits
// for the simulation.
const DefaultScene = "hanging"

// Options configures Run (the flags of drape view).
type Options struct {
	Scene  string  // built-in scene name or scene file
	Width  int     // window width, screen units
	Height int     // window height, screen units
	Speed  float64 // real-time factor target; 0 means as fast as possible
	Paused bool    // start paused
	// PauseAt > 0 pauses the simulation once when it reaches this
	// simulated time, s (see LoopOptions.PauseAt).
	PauseAt float64

	Frames     int    // > 0: render this many frames, then exit (automation)
	Screenshot string // with Frames: save the final frame as PNG here
	State      string // write State here at exit (and every StateEvery frames)
	StateEvery int    // > 0: also write State every this many frames
	MaxFPS     int    // render rate cap, frames per second; 0 means none, with vsync off (DefaultOptions: 60)
	MSAA       int    // multisample count; 0 means 4, negative means none (software GL renders about twice as fast without)

	RecordDir string // where F9 recordings and F12 screenshots go; "" means the working directory
	// Journal, if not "", is the file the simulation's journal is
	// written to (journal.go; a single view only), for ReplayJournal.
	Journal   string
	RecordFPS float64 // recording rate, frames per simulated second; 0 means 30
	// RecordWidth×RecordHeight is the initial recording size in pixels
	// (the Record panel changes it); 0×0 means the window's framebuffer.
	// Any other size is drawn offscreen and shows the 3D view only.
	RecordWidth, RecordHeight int

	Stderr io.Writer // GL errors and warnings; nil means os.Stderr

	// SideBySide opens the viewer side by side (sidebyside.go) on Pair
	// ("full", "gmax" or "criteria"; "" is "full"), and LockTime locks
	// the two runs to the same simulated time.
	SideBySide bool
	Pair       string
	LockTime   bool
}

// DefaultOptions returns the default scene in a 1280×800 window at real
// time, drawn at 60 frames per second at most.
func DefaultOptions() Options {
	return Options{Scene: DefaultScene, Width: 1280, Height: 800, Speed: 1, MaxFPS: 60}
}

// Run opens the viewer and returns when the window is closed, Frames
// frames were drawn, or SIGINT/SIGTERM arrives; the simulation goroutine
// has stopped by then. It must be called on the main OS thread (package
// main locks it in init). It returns render.ErrNoDisplay (wrapped) when
// there is no display, and the scene's error if it cannot be loaded.
func Run(o Options) error {
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Frames < 0 || o.StateEvery < 0 {
		return fmt.Errorf("frames and state interval must be non-negative")
	}
	if o.MaxFPS < 0 {
		return fmt.Errorf("the frame rate cap must be non-negative (0: none), got %d", o.MaxFPS)
	}
	if o.Screenshot != "" && o.Frames == 0 {
		return fmt.Errorf("--screenshot needs --frames N")
	}
	var journal io.Writer
	if o.Journal != "" {
		f, err := os.Create(o.Journal)
		if err != nil {
			return err
		}
		defer f.Close()
		journal = f
	}
	// Fail on a bad scene before opening a window.
	loop, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: o.Scene, Speed: o.Speed, Paused: o.Paused, PauseAt: o.PauseAt, Journal: journal})
	if err != nil {
		return err
	}
	win, err := render.NewWindow(render.WindowOptions{
		Title: "drape — " + o.Scene, Width: o.Width, Height: o.Height, Visible: true, VSync: o.MaxFPS > 0, Samples: o.MSAA,
	})
	if err != nil {
		return err
	}
	defer win.Delete()

	v, err := newViewer(win, loop, o)
	if err != nil {
		return err
	}
	defer v.delete()
	if err := v.openPair(o); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		loop.Run(ctx)
	}()
	// Closing the window, or a signal, ends the frame loop; then the
	// simulation goroutine is cancelled and waited for.
	defer wg.Wait()
	defer cancel()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)

	return v.run(sig)
}

// viewer is the render loop's state. Everything in it belongs to the
// main OS thread.
type viewer struct {
	o     Options
	win   *render.Window
	loop  *Loop
	imctx *imgui.Context
	io    imgui.IO
	gui   *render.ImGuiRenderer
	cloth *render.ClothRenderer
	obs   obstacleDrawer
	det   *detailWorker // physics-aware detail (Tsiknis ch. 3), started on first use

	// shadow is the fabric look's contact shadow, made on first use;
	// shadowErr is why it could not be (the look then goes without).
	shadow    *render.ContactShadow
	shadowErr error

	strain             strainColors // the strain colour mode's scalar
	uploadedStrain     bool         // the uploaded mesh carries strain colours
	requestedSeq       uint64       // snapshot last handed to det
	requestedLevel     int
	uploadedDetailSeq  uint64 // det result last uploaded; 0: the snapshot's own surface is uploaded
	uploadedDetailTris int    // its triangles

	cam     render.Camera
	in      *Interaction
	gest    gestures    // gesture ids for the undo history (history.go)
	mouse   gestureSink // the loop, stamping the current mouse gesture's commands
	ui      *uiState
	snap    *Snapshot // the snapshot being drawn, valid until the next Acquire
	pinSize float32   // pin marker size, pixels
	pins    []render.Pin
	epoch   uint64 // epoch the camera was last fitted for

	rec         *liveRecorder
	shot        bool // save a screenshot after this frame (F12)
	uploadedSeq uint64
	frames      int
	glErrors    int
	pace        framePacer
	fps         float64 // smoothed render frames per second
	lastFrame   float64 // win.Time() at the previous frame
	lastActive  float64 // win.Time() of the last input, window event or new snapshot
	lastSeq     uint64  // snapshot drawn in the previous frame

	pair pairView // side by side (sidebyside_view.go)
}

// A paused viewer that has seen no input, window event or new snapshot
// for idleAfter seconds stops drawing and waits for events, looking up
// every idleWait seconds (for a signal): nothing on screen changes, and
// under software OpenGL (Xvfb, Mesa) each frame takes a good part of a
// core. Any event (input, resize, expose) brings the full rate back.
const (
	idleAfter = 1.0
	idleWait  = 0.25
)

func newViewer(win *render.Window, loop *Loop, o Options) (*viewer, error) {
	v := &viewer{o: o, win: win, loop: loop, in: NewInteraction(), rec: newLiveRecorder(o.RecordDir, o.RecordFPS, o.RecordWidth, o.RecordHeight, win.Samples())}
	v.imctx = imgui.CreateContext(nil)
	v.io = imgui.CurrentIO()
	v.io.SetIniFilename("")
	sx, _ := win.ContentScale()
	if !(sx > 0) {
		sx = 1
	}
	setupStyle(v.io, sx)
	win.AttachImGui(v.io)
	var err error
	if v.gui, err = render.NewImGuiRenderer(v.io); err != nil {
		v.imctx.Destroy()
		return nil, err
	}
	if v.cloth, err = render.NewClothRenderer(); err != nil {
		v.gui.Delete()
		v.imctx.Destroy()
		return nil, err
	}
	if v.obs.r, err = render.NewSolidRenderer(); err != nil {
		v.cloth.Delete()
		v.gui.Delete()
		v.imctx.Destroy()
		return nil, err
	}
	v.pinSize = 13 * sx
	ds := win.DisplaySize()
	v.cam = render.NewCamera(ds[0], ds[1])
	v.ui = newUIState(sx)
	v.ui.maxFPS = o.MaxFPS
	v.snap = loop.Snapshots().Acquire()
	v.mouse.sink = loop
	win.SetHandlers(render.Handlers{
		MouseButton: func(b int, down bool, mods int) {
			v.lastActive = v.win.Time()
			if down && !v.in.Busy() { // a press starts a gesture: one step of the undo history
				v.mouse.id = v.gest.next()
			}
			snap := v.pairInput(down) // side by side: the run under the cursor
			v.in.MouseButton(b, down, mods, v.io.WantCaptureMouse(), &v.cam, snap, v.mouse)
		},
		CursorPos: func(x, y float64) {
			v.lastActive = v.win.Time()
			x, snap := v.pairCursor(x) // side by side: in the view under the cursor
			v.in.CursorPos(x, y, v.io.WantCaptureMouse(), &v.cam, snap, v.mouse)
		},
		Scroll: func(_, dy float64) {
			v.lastActive = v.win.Time()
			v.in.Scroll(dy, v.io.WantCaptureMouse(), &v.cam)
		},
		Key: func(k int, down bool, mods int) {
			v.lastActive = v.win.Time()
			if down && !v.io.WantTextInput() {
				v.key(k, mods)
			}
		},
	})
	return v, nil
}

func (v *viewer) delete() {
	v.deletePair()
	if v.det != nil {
		v.det.Close()
	}
	if v.shadow != nil {
		v.shadow.Delete()
	}
	v.obs.r.Delete()
	v.cloth.Delete()
	v.gui.Delete()
	v.imctx.Destroy()
}

// run is the frame loop.
func (v *viewer) run(sig <-chan os.Signal) error {
	v.pace = newFramePacer(v.o.MaxFPS)
	v.lastFrame = v.win.Time()
	var errs []error
	for {
		quiet := false // idle, and no event came: the frame on screen stands
		if v.idle() {
			t0 := v.win.Time()
			v.win.WaitEvents(idleWait)
			if v.win.Time()-t0 < 0.9*idleWait { // woken by an event (a resize, an expose, …)
				v.lastActive = v.win.Time()
			} else {
				quiet = v.lastActive < t0
			}
		} else {
			v.win.PollEvents()
		}
		select {
		case <-sig:
			v.win.SetShouldClose(true)
		default:
		}
		if v.win.ShouldClose() {
			break
		}
		if quiet {
			continue
		}
		last := v.o.Frames > 0 && v.frames+1 >= v.o.Frames
		if err := v.frame(last); err != nil {
			errs = append(errs, err)
		}
		v.frames++
		if v.o.State != "" && v.o.StateEvery > 0 && v.frames%v.o.StateEvery == 0 {
			if err := writeState(v.o.State, v.state()); err != nil {
				fmt.Fprintf(v.o.Stderr, "drape view: %v\n", err)
			}
		}
		v.win.SwapBuffers()
		if last {
			break
		}
		// Cap the frame rate (--max-fps): Xvfb and some drivers ignore
		// the swap interval, and a render loop spinning at hundreds of
		// fps would take CPU from the simulation.
		if rest := v.pace.delay(v.win.Time()); rest > 0 {
			time.Sleep(time.Duration(rest * float64(time.Second)))
		}
	}
	v.stopRecording("")
	if v.o.State != "" {
		if err := writeState(v.o.State, v.state()); err != nil {
			errs = append(errs, err)
		}
	}
	if v.glErrors > 0 {
		fmt.Fprintf(v.o.Stderr, "drape view: %d OpenGL errors during the run\n", v.glErrors)
	}
	return errors.Join(errs...)
}

// idle reports whether the loop may wait for events (see idleAfter): the
// simulation is paused, nothing is being recorded or dragged, the viewer
// is not rendering a fixed number of frames for a script, and nothing has
// happened for idleAfter seconds.
func (v *viewer) idle() bool {
	return v.o.Frames == 0 && v.snap.Stats.Paused && !v.rec.active && v.in.Dragged < 0 && v.in.Obstacle < 0 &&
		v.win.Time()-v.lastActive > idleAfter
}

// state returns the --state contents for the current frame.
func (v *viewer) state() State {
	st := stateOf(v.snap, &v.cam, v.frames, v.glErrors, v.in.Dragged, v.ui.messageLog, v.fps, v.ui.widgets)
	if t := &v.ui.toggles; t.detail {
		st.Detail = &DetailState{Shown: v.detailShown(), Triangles: v.uploadedDetailTris, Status: t.detailLine}
	}
	st.DraggedObstacle = v.in.Obstacle
	st.StepBusy = v.loop.Busy().Seconds()
	_, st.GLRenderer = v.win.GLVersion()
	v.pairState(&st) // side by side: both runs
	return st
}

// frame draws one frame; with screenshot it also reads it back and saves
// it (before SwapBuffers).
func (v *viewer) frame(screenshot bool) error {
	now := v.win.Time()
	if dt := now - v.lastFrame; dt > 0 && dt < idleAfter { // not across an idle pause
		a := math.Min(1, dt/0.5) // about half a second of smoothing
		v.fps += a * (1/dt - v.fps)
	}
	v.lastFrame = now

	v.snap = v.loop.Snapshots().Acquire()
	split := v.pairFrame(now) // side by side: v.snap is the right run's
	if v.snap.Seq != v.lastSeq {
		v.lastSeq, v.lastActive = v.snap.Seq, now
	}
	if v.rec.active {
		if why := v.rec.advance(v); why != "" {
			v.stopRecording(why)
		}
	}
	snap := v.snap
	for _, e := range v.loop.Events() {
		v.ui.event(e)
	}
	v.in.HideObstacles = !v.ui.toggles.obstacles
	v.pairUpdate()
	if v.ui.toggles.strainColors != v.uploadedStrain {
		v.uploadedSeq = 0 // the colour scalar changes: upload again
	}
	if snap.Seq != v.uploadedSeq {
		v.uploadedStrain = v.ui.toggles.strainColors
		if !v.detailShown() && !split { // side by side uploads both runs as it draws them
			m := snap.Drawn().mesh()
			if v.uploadedStrain {
				m = v.strain.mesh(&snap.Surface)
			}
			if err := v.cloth.Upload(m); err != nil {
				fmt.Fprintf(v.o.Stderr, "drape view: snapshot %d: %v\n", snap.Seq, err)
			}
		}
		v.uploadedSeq = snap.Seq
		v.ui.observe(snap)
	}
	if !split {
		v.updateDetail(snap)
	}

	ds, fs := v.win.DisplaySize(), v.win.FramebufferSize()
	v.cam.Width, v.cam.Height = ds[0], ds[1]
	if split {
		v.pairCamera(ds)
	} else if snap.Epoch != v.epoch {
		startView(&v.cam, snap, v.ui.leftWidth(), v.ui.rightWidth(), false)
		v.epoch = snap.Epoch
		v.win.SetTitle("drape — " + snap.Scene)
	}

	if v.rec.active && v.rec.fb == nil && (evenDown(int(fs[0])) != v.rec.w || evenDown(int(fs[1])) != v.rec.h) {
		v.stopRecording("recording stopped: the window was resized")
	}
	v.ui.rec = v.rec.status()
	v.ui.pairCtl = v.pairControl()
	v.win.NewFrame(now)
	imgui.NewFrame()
	act := v.ui.panels(snap, v.fps, ds, v.in)
	imgui.Render()
	v.act(act, snap)

	if v.rec.active && v.rec.fb != nil && v.rec.due {
		v.captureOffscreen(snap)
	}
	gl.Viewport(0, 0, int32(fs[0]), int32(fs[1]))
	drawBackground(v.cloth, v.ui.toggles.fabric)
	if v.split() { // not split: side by side may have gone on or off in act
		v.drawPair(ds, fs)
	} else if ds[0] > 0 && ds[1] > 0 && snap.Seq > 0 {
		v.draw3D(snap)
	}
	windowRec := v.rec.active && v.rec.fb == nil
	if windowRec && v.ui.toggles.hideUIInVideo {
		v.captureFrame(snap)
	}
	v.gui.Render(ds, fs, imgui.RenderedDrawData())
	if windowRec && !v.ui.toggles.hideUIInVideo {
		v.captureFrame(snap)
	}
	if err := render.CheckGLError(); err != nil {
		v.glErrors++
		fmt.Fprintf(v.o.Stderr, "drape view: frame %d: %v\n", v.frames, err)
	}
	if v.shot {
		v.shot = false
		path := outputPath(v.rec.dir, snap.Scene, ".png", time.Now())
		if err := render.Screenshot(path, int(fs[0]), int(fs[1])); err != nil {
			v.report(err)
		} else {
			v.notice("saved screenshot " + path)
		}
	}
	if screenshot && v.o.Screenshot != "" {
		if err := render.Screenshot(v.o.Screenshot, int(fs[0]), int(fs[1])); err != nil {
			return err
		}
	}
	return nil
}

// draw3D draws the obstacles (unless hidden, O) and the cloth of snap.
func (v *viewer) draw3D(snap *Snapshot) {
	v.draw3DWith(v.cloth, &v.obs, snap, v.in.Hover, v.in.Dragged)
}

// draw3DWith draws snap with the renderers c (its cloth uploaded) and
// obs, marking the vertices hover and dragged (−1: none); side by side
// draws each run with its own (sidebyside_view.go).
func (v *viewer) draw3DWith(c *render.ClothRenderer, obs *obstacleDrawer, snap *Snapshot, hover, dragged int32) {
	d := v.drawOptionsFor(snap, hover, dragged)
	if d.Fabric {
		d.Shadow = v.contactShadow(c, snap)
	}
	if v.ui.toggles.obstacles {
		if err := obs.draw(snap, d); err != nil {
			fmt.Fprintf(v.o.Stderr, "drape view: snapshot %d: obstacles: %v\n", snap.Seq, err)
		}
	}
	c.Draw(d)
}

// contactShadow returns the fabric look's contact shadow with the cloth
// drawn now rendered into it, making it on first use; nil when it cannot
// be made (reported once; the look then goes without).
func (v *viewer) contactShadow(c *render.ClothRenderer, snap *Snapshot) *render.ContactShadow {
	if v.shadow == nil && v.shadowErr == nil {
		if v.shadow, v.shadowErr = newContactShadow(); v.shadowErr != nil {
			v.report(fmt.Errorf("fabric look without its contact shadow: %w", v.shadowErr))
		}
	}
	if v.shadow == nil {
		return nil
	}
	v.shadow.Update(c, mgl32.Vec3(snap.Lo), mgl32.Vec3(snap.Hi))
	return v.shadow
}

// drawOptions returns the render options for snap from the UI toggles.
func (v *viewer) drawOptions(snap *Snapshot) render.DrawOptions {
	return v.drawOptionsFor(snap, v.in.Hover, v.in.Dragged)
}

// drawOptionsFor is drawOptions with the hovered and dragged vertices of
// snap's run (−1: none).
func (v *viewer) drawOptionsFor(snap *Snapshot, hover, dragged int32) render.DrawOptions {
	d := baseDrawOptions(&v.cam)
	d.PinSize = v.pinSize
	t := &v.ui.toggles
	d.ColorMap = t.colorMap
	if v.detailShown() {
		d.ColorMap = render.ColorMapNone // the detail surface carries no curvature
	}
	d.RangeMin, d.RangeMax = v.ui.crange.Min, v.ui.crange.Max
	if t.strainColors {
		d.RangeMin, d.RangeMax = 0, strainRange(snap.Blocks.Strain)
	}
	if t.fabric {
		setFabric(&d, &v.cam, v.ui.clothColor, nil) // draw3D adds the contact shadow
	}
	d.Wireframe, d.WireframeByGen = t.wireframe, t.wireByGen
	d.Grid, d.ShowPins = t.grid, t.pins
	// Markers: every pin, plus the hovered or dragged free vertex.
	v.pins = v.pins[:0]
	for _, p := range snap.Pins {
		st := render.PinIdle
		switch p.Slot {
		case dragged:
			st = render.PinDragged
		case hover:
			st = render.PinHovered
		}
		v.pins = append(v.pins, render.Pin{Pos: p.Pos, State: st})
	}
	for _, slot := range []int32{dragged, hover} {
		if slot < 0 || int(slot) >= len(snap.DenseOf) || snap.DenseOf[slot] < 0 || findPin(snap, slot) >= 0 {
			continue
		}
		st := render.PinHovered
		if slot == dragged {
			st = render.PinDragged
		}
		v.pins = append(v.pins, render.Pin{Pos: snap.Vertex(int(snap.DenseOf[slot])), State: st})
		d.ShowPins = true
	}
	d.Pins = v.pins
	return d
}

// fitCamera frames the cloth and the obstacles it touches (frameBounds,
// fitView with the panels' widths); initial starts from the scene's
// camera or the three-quarter view (startView).
func (v *viewer) fitCamera(snap *Snapshot, initial bool) {
	if v.split() && !initial {
		lo, hi := v.pairBounds()
		fitUnderLabels(&v.cam, lo, hi, false, labelsHeight*v.ui.scale)
		return
	}
	if initial {
		startView(&v.cam, snap, v.ui.leftWidth(), v.ui.rightWidth(), false)
		return
	}
	lo, hi := frameBounds(snap, false)
	fitView(&v.cam, lo, hi, false, v.ui.leftWidth(), v.ui.rightWidth())
}

// updateDetail hands new snapshots to the detail worker while Detail is
// on and uploads its newest result; switching Detail off puts the
// snapshot's own surface back.
func (v *viewer) updateDetail(snap *Snapshot) {
	t := &v.ui.toggles
	defer func() { v.ui.detailDrawn = v.detailShown() }()
	if !t.detail {
		if v.uploadedDetailSeq != 0 {
			v.uploadedDetailSeq = 0
			if err := v.cloth.Upload(snap.Drawn().mesh()); err != nil {
				fmt.Fprintf(v.o.Stderr, "drape view: snapshot %d: %v\n", snap.Seq, err)
			}
		}
		return
	}
	if v.det == nil {
		v.det = newDetailWorker()
	}
	if snap.Seq != 0 && (snap.Seq != v.requestedSeq || int(t.detailLevel) != v.requestedLevel) {
		v.det.Request(&snap.Surface, snap.Obstacles, snap.Seq, int(t.detailLevel))
		v.requestedSeq, v.requestedLevel = snap.Seq, int(t.detailLevel)
		v.lastActive = v.win.Time() // keep drawing until the result arrives
	}
	m, seq, err, took := v.det.Result()
	t.detailLine = detailStatus(seq, snap.Seq, err, took, len(m.Tris)/3)
	if seq != 0 && seq != v.uploadedDetailSeq {
		if err := v.cloth.Upload(m); err != nil {
			fmt.Fprintf(v.o.Stderr, "drape view: detail of snapshot %d: %v\n", seq, err)
		}
		v.uploadedDetailSeq, v.uploadedDetailTris = seq, len(m.Tris)/3
	}
	if seq != snap.Seq {
		v.lastActive = v.win.Time() // a newer result is on its way
	}
}

// detailShown reports whether the cloth drawn is the detail worker's.
func (v *viewer) detailShown() bool { return v.ui.toggles.detail && v.uploadedDetailSeq != 0 }

// key handles the keyboard shortcuts listed in the Help panel.
func (v *viewer) key(k, mods int) {
	snap := v.snap
	t := &v.ui.toggles
	switch k {
	case keySpace:
		v.act(uiAction{togglePause: true}, snap)
	case keyS:
		if mods&modControl != 0 {
			v.act(uiAction{save: true}, snap)
		} else {
			v.act(uiAction{step: true}, snap)
		}
	case keyR:
		v.act(uiAction{reset: true}, snap)
	case keyZ, keyY: // Ctrl+Z undo; Ctrl+Shift+Z and Ctrl+Y redo (history.go)
		if mods&modControl != 0 && !v.in.Busy() && !anyItemActive() {
			redo := k == keyY || mods&modShift != 0
			v.act(uiAction{undo: !redo, redo: redo}, snap)
		}
	case keyW:
		t.wireframe = !t.wireframe
	case keyG:
		t.grid = !t.grid
	case keyP:
		t.pins = !t.pins
	case keyO:
		t.obstacles = !t.obstacles
	case keyD:
		t.detail = !t.detail
	case keyC:
		t.setColorMode(t.colorMode() + 1)
	case keyF:
		v.fitCamera(snap, false)
	case keyH:
		t.help = !t.help
	case keyF9:
		v.act(uiAction{record: true}, snap)
	case keyF12:
		v.act(uiAction{screenshot: true}, snap)
	}
}

// captureFrame hands the frame just drawn to the recorder; a failure
// stops the recording and is reported, and the viewer goes on.
func (v *viewer) captureFrame(snap *Snapshot) {
	if err := v.rec.capture(snap); err != nil {
		v.report(err)
		v.stopRecording("")
	}
}

// captureOffscreen draws the 3D view of snap into the recorder's
// offscreen target, with the camera's aspect ratio set to the recording
// size, and captures it. The framebuffer bindings, the viewport and the
// camera are restored afterwards, so the window is then drawn as usual.
func (v *viewer) captureOffscreen(snap *Snapshot) {
	fb := v.rec.fb
	w, h := fb.Size()
	restore := fb.Bind()
	cam := v.cam
	v.cam.Width, v.cam.Height = float32(w), float32(h)
	drawBackground(v.cloth, v.ui.toggles.fabric)
	if snap.Seq > 0 {
		v.draw3D(snap)
	}
	v.cam = cam
	fb.Resolve()
	v.captureFrame(snap) // may stop the recording and delete fb; restore does not use it
	restore()
}

// toggleRecording starts or stops a recording of the window or, at a
// chosen size, of the offscreen 3D view.
func (v *viewer) toggleRecording() {
	if v.rec.active {
		v.stopRecording("")
		return
	}
	fs := v.win.FramebufferSize()
	msg, err := v.rec.start(v, int(fs[0]), int(fs[1]))
	if err != nil {
		v.report(err)
		return
	}
	v.notice(msg)
}

// stopRecording ends a running recording, if any, and reports why (when
// why is not "") and what was written.
func (v *viewer) stopRecording(why string) {
	if !v.rec.active {
		return
	}
	msg, err := v.rec.stop(v)
	if why != "" {
		msg = why + "; " + msg
	}
	v.notice(msg)
	if err != nil {
		v.report(err)
	}
}

// notice shows an informational message in the UI and on stderr.
func (v *viewer) notice(msg string) {
	v.ui.event(Event{Info: msg})
	fmt.Fprintf(v.o.Stderr, "drape view: %s\n", msg)
}

// report shows an error in the UI and on stderr.
func (v *viewer) report(err error) {
	v.ui.event(Event{Err: err})
	fmt.Fprintf(v.o.Stderr, "drape view: %v\n", err)
}

// act sends the commands for the UI's requests.
func (v *viewer) act(a uiAction, snap *Snapshot) {
	var l commandSink = v.loop
	if v.split() {
		l = v.pair.p.sink(-1) // both runs (sidebyside.go)
	}
	v.pairAct(a.pair)
	// While recording, the recorder steps the simulation: pause holds the
	// recording and single steps are ignored.
	switch {
	case a.togglePause && v.rec.active:
		v.rec.hold = !v.rec.hold
	case a.togglePause:
		l.Send(Command{Kind: CmdSetPaused, Paused: !snap.Stats.Paused})
	}
	if a.step && !v.rec.active {
		l.Send(Command{Kind: CmdSetPaused, Paused: true})
		l.Send(Command{Kind: CmdStep})
	}
	if a.record && v.split() {
		v.report(errPairRecording)
	} else if a.record {
		v.toggleRecording()
	}
	if a.screenshot {
		v.shot = true
	}
	if a.reset {
		l.Send(Command{Kind: CmdReset})
	}
	if a.undo {
		l.Send(Command{Kind: CmdUndo})
	}
	if a.redo {
		l.Send(Command{Kind: CmdRedo})
	}
	ed := gestureSink{l, v.editGesture(a)} // the edits of one held control are one step of the undo history
	if a.blocks.Held != 0 {
		ed.Send(Command{Kind: CmdSetBlocks, Blocks: a.blocks})
	}
	if a.speed != nil {
		l.Send(Command{Kind: CmdSetSpeed, Speed: *a.speed})
	}
	if a.scene != "" {
		ed.Send(Command{Kind: CmdLoadScene, Scene: a.scene})
	}
	if a.save {
		path := v.ui.saveFile
		if path == "" {
			path = defaultSaveFile
		}
		c := Command{Kind: CmdSaveScene, Scene: path, Camera: sceneCamera(&v.cam)}
		if v.ui.colorPicked {
			col := v.ui.clothColor
			c.ClothColor = &[3]float64{float64(col[0]), float64(col[1]), float64(col[2])}
		}
		if m, ok := v.ui.preset.saved(); ok {
			c.Material = m
		}
		l.Send(c)
	}
	if a.fit {
		v.fitCamera(snap, false)
	}
	if a.resetView {
		v.fitCamera(snap, true)
	}
}
