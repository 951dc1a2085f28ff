package app

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"drape/assets"
	"drape/render"
)

// RecordOptions configures Record (the flags of drape record).
type RecordOptions struct {
	Scene   string  // built-in scene name or scene file
	Seconds float64 // simulated time to record, s, > 0
	Out     string  // video file (.mp4, .mov, .mkv) or PNG frame directory
	Width   int     // frame width, pixels (rounded down to even for video)
	Height  int     // frame height, pixels
	FPS     float64 // frames per simulated second, > 0
	MSAA    int     // multisample count; 0 means 4, negative means none
	Detail  int     // draw the physics-aware detail surface at this Loop level (1–3); 0 draws the simulation mesh
	Look    Look    // how the cloth is drawn; the zero value is LookCurvature

	// SideBySide records two runs of the scene next to each other with
	// their labels and the strip of plots (record_sidebyside.go): Pair
	// as drape view's --pair ("" is "full": full resolution and
	// adaptive).
	SideBySide bool
	Pair       string

	// Progress, if not nil, is called after each frame with the frames
	// done and the total.
	Progress func(done, total int)
	Stderr   io.Writer // notices (the PNG fallback); nil means os.Stderr
}

// RecordResult says what Record wrote.
type RecordResult struct {
	Frames int    // frames written
	Kind   string // "ffmpeg" or "png"
	Path   string // the video file or the frame directory
}

// Record renders Seconds of the scene offscreen, in a hidden window, into
// Out: ⌊Seconds·FPS + ½⌋ frames, frame k showing the simulation at the
// first step whose time reaches k/FPS. The camera starts on the scene's
// camera or a fit of the cloth (startView) and follows the cloth when it
// moves out of view (cameraFollow). The simulation is stepped
// synchronously between frames on this thread, so the video depends only
// on the scene and the options, not on the machine's speed. It must be
// called on the main OS thread; it returns render.ErrNoDisplay (wrapped)
// without an X display (Xvfb will do). On a failure the frames written so
// far stay on disk (the MP4 is finalised).
func Record(o RecordOptions) (res RecordResult, err error) {
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	switch {
	case !(o.Seconds > 0) || math.IsInf(o.Seconds, 0):
		return res, fmt.Errorf("recording: seconds must be positive and finite, got %v", o.Seconds)
	case !(o.FPS > 0) || math.IsInf(o.FPS, 0):
		return res, fmt.Errorf("recording: fps must be positive and finite, got %v", o.FPS)
	case o.Width < 2 || o.Height < 2:
		return res, fmt.Errorf("recording: size %dx%d must be at least 2x2", o.Width, o.Height)
	case o.Look < 0 || int(o.Look) >= len(lookNames):
		return res, fmt.Errorf("recording: unknown look %d", int(o.Look))
	case o.SideBySide && o.Detail > 0:
		return res, fmt.Errorf("recording: side by side draws the simulation meshes, not the detail surface")
	}
	w, h := evenDown(o.Width), evenDown(o.Height)
	total := max(1, int(math.Floor(o.Seconds*o.FPS+0.5)))
	// The simulation first: a bad scene fails before a window opens.
	var loop *Loop
	var pair *sideBySide
	if o.SideBySide {
		if pair, err = recordingPair(o); err != nil {
			return res, err
		}
		defer pair.close()
	} else if loop, err = NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: o.Scene, Paused: true}); err != nil {
		return res, err
	}
	win, err := render.NewWindow(render.WindowOptions{Title: "drape record", Width: w, Height: h, Visible: false, Samples: o.MSAA})
	if err != nil {
		return res, err
	}
	defer win.Delete()
	if fs := win.FramebufferSize(); int(fs[0]) < w || int(fs[1]) < h {
		return res, fmt.Errorf("recording: the hidden window's framebuffer is %vx%v, smaller than %dx%d", fs[0], fs[1], w, h)
	}
	var src frameSource
	if pair != nil {
		src, err = newPairFrames(o, pair, w, h) // record_sidebyside.go
	} else {
		src, err = newSceneFrames(o, loop, w, h)
	}
	if err != nil {
		return res, err
	}
	defer src.delete()
	rb, err := render.NewAsyncReadback(w, h)
	if err != nil {
		return res, err
	}
	defer rb.Delete()
	sink, note, err := newSink(o.Out, w, h, o.FPS)
	if err != nil {
		return res, err
	}
	if note != "" {
		fmt.Fprintf(o.Stderr, "drape record: %s\n", note)
	}
	res.Kind, res.Path = sink.Kind(), sink.Path()
	defer func() {
		if cerr := sink.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()

	pix := make([]byte, rb.FrameSize())
	emit := func(got bool) error {
		if !got {
			return nil
		}
		if err := sink.WriteFrame(pix); err != nil {
			return err
		}
		res.Frames++
		if o.Progress != nil {
			o.Progress(res.Frames, total)
		}
		return nil
	}
	for k := 0; k < total; k++ {
		if err := src.frame(k); err != nil {
			return res, err
		}
		got, err := rb.Capture(pix)
		if err != nil {
			return res, err
		}
		if err := emit(got); err != nil {
			return res, err
		}
		win.SwapBuffers()
		win.PollEvents()
	}
	got, err := rb.Flush(pix)
	if err != nil {
		return res, err
	}
	if err := emit(got); err != nil {
		return res, err
	}
	if err := render.CheckGLError(); err != nil {
		return res, fmt.Errorf("recording: %w", err)
	}
	return res, nil
}

// frameSource is what Record draws: one scene (sceneFrames) or two runs
// of it side by side (pairFrames, record_sidebyside.go).
type frameSource interface {
	// frame steps the simulation to frame k's time, t0 + k/FPS (the
	// first step whose time reaches it), and draws frame k into the
	// current framebuffer.
	frame(k int) error
	delete() // frees the GL objects
}

// sceneFrames draws one scene as the viewer's 3D view does.
type sceneFrames struct {
	o      RecordOptions
	loop   *Loop
	snap   *Snapshot
	w, h   int
	cloth  *render.ClothRenderer
	obs    *obstacleDrawer
	shadow *render.ContactShadow // the fabric look's; nil otherwise
	strain strainColors
	det    *syncDetail // --detail; nil otherwise
	cam    render.Camera
	follow cameraFollow
	cr     colorRange
	t0     float64
}

// newSceneFrames makes the renderers for loop's scene, with the camera on
// its first snapshot.
func newSceneFrames(o RecordOptions, loop *Loop, w, h int) (*sceneFrames, error) {
	f := &sceneFrames{o: o, loop: loop, w: w, h: h, cr: colorRange{Auto: true}}
	var err error
	if f.cloth, err = render.NewClothRenderer(); err != nil {
		return nil, err
	}
	sr, err := render.NewSolidRenderer()
	if err != nil {
		f.delete()
		return nil, err
	}
	f.obs = &obstacleDrawer{r: sr}
	if o.Look == LookFabric {
		if f.shadow, err = newContactShadow(); err != nil {
			f.delete()
			return nil, err
		}
	}
	if o.Detail > 0 {
		if f.det, err = newSyncDetail(o.Detail); err != nil {
			f.delete()
			return nil, err
		}
	}
	f.snap = loop.Snapshots().Acquire()
	f.cam = render.NewCamera(float32(w), float32(h))
	startView(&f.cam, f.snap, 0, 0, true)
	f.t0 = f.snap.Stats.Time
	return f, nil
}

func (f *sceneFrames) delete() {
	if f.shadow != nil {
		f.shadow.Delete()
	}
	if f.obs != nil {
		f.obs.r.Delete()
	}
	if f.cloth != nil {
		f.cloth.Delete()
	}
}

func (f *sceneFrames) frame(k int) error {
	o, snap := &f.o, f.snap
	for n := stepsUntil(snap.Stats.Time, f.t0+float64(k)/o.FPS, snap.Stats.Dt); n > 0; n-- {
		f.loop.step()
		snap = f.loop.Snapshots().Acquire()
		if snap.Stats.Err != "" {
			return fmt.Errorf("recording %s: %s", snap.Scene, snap.Stats.Err)
		}
	}
	f.snap = snap
	if k > 0 {
		lo, hi := frameBounds(snap, false)
		f.follow.update(&f.cam, lo, hi, 1/o.FPS)
	}
	f.cr.update(snap.Stats.CurvAbsP98, k == 0)
	mesh := snap.Drawn().mesh()
	if o.Look == LookStrain {
		mesh = f.strain.mesh(&snap.Surface)
	}
	if f.det != nil {
		var err error
		if mesh, err = f.det.mesh(&snap.Surface, snap.Obstacles); err != nil {
			return fmt.Errorf("recording %s: detail: %w", snap.Scene, err)
		}
	}
	if err := f.cloth.Upload(mesh); err != nil {
		return err
	}
	if f.shadow != nil {
		f.shadow.Update(f.cloth, mgl32.Vec3(snap.Lo), mgl32.Vec3(snap.Hi))
	}
	gl.Viewport(0, 0, int32(f.w), int32(f.h))
	return drawScene(f.cloth, f.obs, &f.cam, snap, sceneLook{o.Look, f.cr, f.det != nil, f.shadow})
}

// sceneLook is what drawScene needs to know besides the scene: the look,
// the curvature colour range, whether the cloth drawn is the detail
// surface (which carries no colour scalar), and the fabric look's contact
// shadow, updated for this frame.
type sceneLook struct {
	look     Look
	cr       colorRange
	detailed bool
	shadow   *render.ContactShadow
}

// drawScene draws the background, the obstacles and the cloth of snap in
// look l as the viewer draws its 3D view (baseDrawOptions: curvature on
// cool-warm, grid, pins, obstacles), without any UI. The strain look takes
// the viewer's strain colours; the fabric look leaves out the grid and
// the pins, which have no place in a video of fabric.
func drawScene(cloth *render.ClothRenderer, obs *obstacleDrawer, cam *render.Camera, snap *Snapshot, l sceneLook) error {
	drawBackground(cloth, l.look == LookFabric)
	if snap.Seq == 0 {
		return nil
	}
	d := baseDrawOptions(cam)
	d.RangeMin, d.RangeMax = l.cr.Min, l.cr.Max
	d.PinSize = 13
	for _, p := range snap.Pins {
		d.Pins = append(d.Pins, render.Pin{Pos: p.Pos, State: render.PinIdle})
	}
	switch {
	case l.detailed:
		d.ColorMap = render.ColorMapNone // the detail surface carries no colour scalar
	case l.look == LookStrain:
		d.ColorMap, d.RangeMin, d.RangeMax = render.ColorMapViridis, 0, strainRange(snap.Blocks.Strain)
	}
	if l.look == LookFabric {
		setFabric(&d, cam, sceneClothColor(snap), l.shadow)
		d.Grid, d.ShowPins = false, false
	}
	err := obs.draw(snap, d)
	cloth.Draw(d)
	return err
}
