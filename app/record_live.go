package app

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"drape/render"
)

// Live recording (F9 or the Record button) in the viewer.
//
// Frames are taken at a fixed rate of simulated time: frame k shows the
// first snapshot whose time reaches t0 + k/fps. To make sure no frame
// time is skipped however fast the simulation runs, and that the video
// is the same on any machine, the recorder takes the simulation's clock:
// it pauses the loop (CmdSetPaused) and advances it itself, one CmdStep
// at a time, exactly as many steps as reach the next frame time
// (stepsUntil, shared with drape record), then captures that frame. The
// simulation thus runs as fast as rendering and encoding allow, faster or
// slower than real time, and the video always plays at real time. (The
// loop takes one step per batch of commands, so steps are sent one by one
// as each completes; the render thread waits for them at most
// maxStepWait per frame, so the window stays responsive with slow
// scenes.) Pause (Space) holds the recording; Reset or a new scene ends
// it. When recording stops, the pause state from before is restored.
//
// Pixels come back through render.AsyncReadback (two PBOs), so the
// render thread never waits for the GPU: each frame arrives one capture
// late and the last is flushed on stop. Encoding runs on its own
// goroutine (asyncSink), so it overlaps rendering and stepping.
//
// The frame size is chosen in the Record panel (recSize). At "window
// size" the window's framebuffer is captured, with or without the panels.
// At any other size each due frame is first drawn offscreen into a
// render.Framebuffer of that size, with the camera's aspect ratio set to
// it, and read back from there; the window is then drawn as usual. Such
// a video shows the 3D view only: the panels are laid out for the window,
// so they are included at window size only.

// GLFW key codes of the recording shortcuts.
const (
	keyF9  = 298 // start / stop recording
	keyF12 = 301 // screenshot
)

// recPresets are the recording sizes the Record panel offers; 0×0 is the
// window's framebuffer and −1×−1 the custom size.
var recPresets = []struct {
	name string
	w, h int
}{
	{"window size", 0, 0},
	{"1280x720", 1280, 720},
	{"1920x1080", 1920, 1080},
	{"640x480", 640, 480},
	{"custom", -1, -1},
}

// maxRecSide is the largest custom width or height offered, pixels.
const maxRecSide = 8192

// recSize is the recording size chosen in the Record panel. It lives in
// the liveRecorder (main thread) and the panel edits it in place.
type recSize struct {
	preset int      // index into recPresets
	custom [2]int32 // custom width and height, pixels
}

// newRecSize returns the choice for a w×h size: the matching preset, the
// window for 0×0, else custom w×h.
func newRecSize(w, h int) recSize {
	s := recSize{custom: [2]int32{1280, 720}}
	if w <= 0 || h <= 0 {
		return s
	}
	for i, p := range recPresets {
		if p.w == w && p.h == h {
			s.preset = i
			return s
		}
	}
	s.preset = len(recPresets) - 1
	s.custom = [2]int32{int32(w), int32(h)}
	return s
}

// frameSize returns the chosen frame size, rounded down to even and
// clamped to [2, maxRecSide], or 0, 0 for the window's framebuffer.
func (s recSize) frameSize() (w, h int) {
	p := recPresets[s.preset]
	w, h = p.w, p.h
	if w < 0 {
		w, h = int(s.custom[0]), int(s.custom[1])
	}
	if w == 0 {
		return 0, 0
	}
	return evenDown(min(max(w, 2), maxRecSide)), evenDown(min(max(h, 2), maxRecSide))
}

// maxStepWait is how long one render frame may wait for the simulation
// while recording before it draws anyway (and captures nothing).
const maxStepWait = 12 * time.Millisecond

// liveRecorder is the viewer's recording state; it belongs to the main
// thread.
type liveRecorder struct {
	dir  string  // output directory
	fps  float64 // frames per simulated second
	size recSize // frame size for the next recording
	msaa int     // MSAA samples of the offscreen target

	active    bool
	starting  bool // waiting for the pause to reach a snapshot
	hold      bool // paused by the user while recording
	sink      frameSink
	rb        *render.AsyncReadback
	fb        *render.Framebuffer // offscreen target; nil when capturing the window
	pix       []byte
	w, h      int     // frame size, framebuffer pixels (even)
	epoch     uint64  // scene epoch being recorded
	t0        float64 // simulated time of frame 0, s
	k         int     // index of the next frame to capture
	target    int     // Stats.Steps the simulation must reach for frame k
	sentAt    int     // Stats.Steps when the last CmdStep was sent; −1 for none
	due       bool    // this render frame shows frame k: capture it
	frames    int     // frames written to the sink
	broken    bool    // the sink failed: write nothing more
	wall0     time.Time
	wasPaused bool
}

// recStatus is what the Record panel and the indicator show.
type recStatus struct {
	active, hold bool
	kind, path   string
	frames       int
	video        float64  // s of video recorded (frames/fps)
	wall         float64  // s since the recording started
	ffmpeg       bool     // ffmpeg is on PATH
	fps          float64  // frames per simulated second
	size         *recSize // the size choice, edited by the Record panel
	w, h         int      // size being recorded (while active)
	offscreen    bool     // recording through an offscreen target
}

// newLiveRecorder returns an idle recorder writing to dir at fps frames
// per simulated second, at w×h pixels (0×0: the window's size) drawn with
// msaa samples when offscreen.
func newLiveRecorder(dir string, fps float64, w, h, msaa int) *liveRecorder {
	if fps <= 0 {
		fps = 30
	}
	if dir == "" {
		dir = "."
	}
	return &liveRecorder{dir: dir, fps: fps, size: newRecSize(w, h), msaa: msaa}
}

func (r *liveRecorder) status() recStatus {
	s := recStatus{active: r.active, hold: r.hold, frames: r.frames, video: float64(r.frames) / r.fps, fps: r.fps,
		size: &r.size, w: r.w, h: r.h, offscreen: r.fb != nil}
	if r.sink != nil {
		s.kind, s.path = r.sink.Kind(), r.sink.Path()
	}
	if r.active {
		s.wall = time.Since(r.wall0).Seconds()
	}
	_, err := exec.LookPath("ffmpeg")
	s.ffmpeg = err == nil
	return s
}

// outputPath returns a new file name in dir: drape-SCENE-YYYYMMDD-HHMMSS
// plus ext, with -2, -3, … if that exists (also as a directory without
// the extension, where a PNG fallback would go).
func outputPath(dir, scene, ext string, now time.Time) string {
	base := "drape-" + strings.Map(func(c rune) rune {
		if c == '/' || c == '\\' || c == ' ' {
			return '_'
		}
		return c
	}, filepath.Base(strings.TrimSuffix(scene, filepath.Ext(scene)))) + "-" + now.Format("20060102-150405")
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		p := filepath.Join(dir, name)
		_, err1 := os.Stat(p + ext)
		_, err2 := os.Stat(p)
		if errors.Is(err1, os.ErrNotExist) && errors.Is(err2, os.ErrNotExist) {
			return p + ext
		}
	}
}

// start begins a recording at the chosen size, or of the fbw×fbh window
// framebuffer (rounded down to even) when the choice is the window. It
// returns a notice for the UI, or an error when nothing could be started
// (the viewer goes on).
func (r *liveRecorder) start(v *viewer, fbw, fbh int) (string, error) {
	w, h := r.size.frameSize()
	offscreen := w > 0
	if !offscreen {
		w, h = evenDown(fbw), evenDown(fbh)
		if w < 2 || h < 2 {
			return "", fmt.Errorf("recording: the window is too small (%dx%d)", fbw, fbh)
		}
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return "", fmt.Errorf("recording: %w", err)
	}
	var fb *render.Framebuffer
	if offscreen {
		var err error
		if fb, err = render.NewFramebuffer(w, h, r.msaa); err != nil {
			return "", fmt.Errorf("recording: %w", err)
		}
	}
	deleteFB := func() {
		if fb != nil {
			fb.Delete()
		}
	}
	sink, note, err := newSink(outputPath(r.dir, v.snap.Scene, ".mp4", time.Now()), w, h, r.fps)
	if err != nil {
		deleteFB()
		return "", err
	}
	rb, err := render.NewAsyncReadback(w, h)
	if err != nil {
		deleteFB()
		sink.Close()
		return "", err
	}
	sink = newAsyncSink(sink, rb.FrameSize())
	*r = liveRecorder{dir: r.dir, fps: r.fps, size: r.size, msaa: r.msaa, active: true, starting: true, sink: sink, rb: rb, fb: fb,
		pix: make([]byte, rb.FrameSize()), w: w, h: h, sentAt: -1, wall0: time.Now(), wasPaused: v.snap.Stats.Paused}
	v.loop.Send(Command{Kind: CmdSetPaused, Paused: true})
	msg := fmt.Sprintf("recording %dx%d at %g fps to %s", w, h, r.fps, sink.Path())
	if sink.Kind() == "ffmpeg" {
		msg += " (ffmpeg, H.264)"
	} else {
		msg += " (PNG sequence)"
	}
	if offscreen {
		msg += "; offscreen, 3D view only"
	}
	if note != "" {
		msg = note + "; " + msg
	}
	return msg, nil
}

// advance drives the simulation towards the next frame time and sets due
// when the snapshot in v.snap shows it. It returns why recording must
// stop ("" to go on).
func (r *liveRecorder) advance(v *viewer) string {
	r.due = false
	snap := v.snap
	if r.starting {
		if !snap.Stats.Paused {
			return ""
		}
		r.starting = false
		r.epoch, r.t0, r.target = snap.Epoch, snap.Stats.Time, snap.Stats.Steps
	}
	switch {
	case snap.Epoch != r.epoch:
		return "recording stopped: the scene was reset or replaced"
	case snap.Stats.Err != "":
		return "recording stopped: the simulation stopped"
	case r.hold:
		return ""
	}
	deadline := time.Now().Add(maxStepWait)
	for snap.Stats.Steps < r.target {
		if r.sentAt != snap.Stats.Steps {
			v.loop.Send(Command{Kind: CmdStep})
			r.sentAt = snap.Stats.Steps
		}
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(200 * time.Microsecond)
		snap = v.loop.Snapshots().Acquire()
		v.snap = snap
		if snap.Epoch != r.epoch || snap.Stats.Err != "" {
			return r.advance(v)
		}
	}
	r.due = true
	return ""
}

// capture reads the frame just drawn, if it is due, and schedules the
// next one. Call it after drawing and before SwapBuffers.
func (r *liveRecorder) capture(snap *Snapshot) error {
	if !r.due {
		return nil
	}
	r.due = false
	got, err := r.rb.Capture(r.pix)
	if err != nil {
		return err
	}
	if got {
		if err := r.sink.WriteFrame(r.pix); err != nil {
			r.broken = true
			return err
		}
		r.frames++
	}
	r.k++
	r.target = snap.Stats.Steps + stepsUntil(snap.Stats.Time, r.t0+float64(r.k)/r.fps, snap.Stats.Dt)
	return nil
}

// stop ends the recording: the last frame is flushed, the sink closed
// (the MP4 finalised) and the simulation's pause state restored. It
// returns the summary and the first error.
func (r *liveRecorder) stop(v *viewer) (string, error) {
	if !r.active {
		return "", nil
	}
	var errs []error
	if got, err := r.rb.Flush(r.pix); err != nil {
		errs = append(errs, err)
	} else if got && !r.broken {
		if err := r.sink.WriteFrame(r.pix); err != nil {
			errs = append(errs, err)
		} else {
			r.frames++
		}
	}
	if err := r.sink.Close(); err != nil && !r.broken { // a broken sink's error was reported already
		errs = append(errs, err)
	}
	r.rb.Delete()
	if r.fb != nil {
		r.fb.Delete()
	}
	r.active, r.rb, r.fb = false, nil, nil
	v.loop.Send(Command{Kind: CmdSetPaused, Paused: r.wasPaused})
	err := errors.Join(errs...)
	if r.broken || err != nil {
		return fmt.Sprintf("recording failed after %d frames; %s keeps what was written", r.frames, r.sink.Path()), err
	}
	return fmt.Sprintf("recorded %d frames (%.2f s of video) to %s", r.frames, float64(r.frames)/r.fps, r.sink.Path()), nil
}
