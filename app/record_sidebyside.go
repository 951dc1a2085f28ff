package app

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"drape/render"
)

// drape record --side-by-side: both runs of a pair (sidebyside.go)
// stepped to each frame's time, so that they always stand at the same
// simulated time (as if locked), drawn next to each other with one
// camera, with the viewer's labels and strip (drawPairOverlay) and the
// distance between the surfaces measured at every frame.

// recordingPair builds the pair RecordOptions ask for, paused, for the
// recorder to step.
func recordingPair(o RecordOptions) (*sideBySide, error) {
	k, err := parsePair(o.Pair)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	return newPair(pairOptions{src: o.Scene, kind: k, paused: true, stepped: true}, nil)
}

// pairFrames draws a pair side by side (frameSource).
type pairFrames struct {
	o      RecordOptions
	p      *sideBySide
	w, h   int
	layout pairLayout
	cloth  [2]*render.ClothRenderer
	obs    [2]*obstacleDrawer
	strain [2]strainColors
	shadow *render.ContactShadow // the fabric look's; nil otherwise
	ui     *overlayUI
	cam    render.Camera
	follow cameraFollow
	cr     colorRange
	t0     float64
	dist   pairDistance
}

// newPairFrames makes the renderers and the overlay's ImGui for pair p,
// with the camera on the right run's first snapshot.
func newPairFrames(o RecordOptions, p *sideBySide, w, h int) (*pairFrames, error) {
	f := &pairFrames{o: o, p: p, w: w, h: h, cr: colorRange{Auto: true}}
	f.layout = splitLayout([2]float32{float32(w), float32(h)}, 0, stripHeight)
	var err error
	for i := range f.cloth {
		if f.cloth[i], err = render.NewClothRenderer(); err != nil {
			f.delete()
			return nil, err
		}
		sr, err := render.NewSolidRenderer()
		if err != nil {
			f.delete()
			return nil, err
		}
		f.obs[i] = &obstacleDrawer{r: sr}
	}
	if o.Look == LookFabric {
		if f.shadow, err = newContactShadow(); err != nil {
			f.delete()
			return nil, err
		}
	}
	if f.ui, err = newOverlayUI(); err != nil {
		f.delete()
		return nil, err
	}
	p.acquire()
	vw, vh := f.layout.viewSize()
	f.cam = render.NewCamera(vw, vh)
	startPairView(&f.cam, p.snaps[sideRight], true, labelsHeight)
	f.t0 = p.snaps[sideRight].Stats.Time
	return f, nil
}

func (f *pairFrames) delete() {
	if f.ui != nil {
		f.ui.delete()
	}
	if f.shadow != nil {
		f.shadow.Delete()
	}
	for i := range f.cloth {
		if f.obs[i] != nil {
			f.obs[i].r.Delete()
		}
		if f.cloth[i] != nil {
			f.cloth[i].Delete()
		}
	}
}

func (f *pairFrames) frame(k int) error {
	o, p := &f.o, f.p
	target := f.t0 + float64(k)/o.FPS
	for i, l := range p.loops {
		s := p.snaps[i]
		for n := stepsUntil(s.Stats.Time, target, s.Stats.Dt); n > 0; n-- {
			l.step()
			s = l.Snapshots().Acquire()
			if s.Stats.Err != "" {
				return fmt.Errorf("recording %s, %s run: %s", s.Scene, sideName(i), s.Stats.Err)
			}
		}
	}
	p.acquire()
	l, r := p.snaps[sideLeft], p.snaps[sideRight]
	if k > 0 {
		lo, hi := frameBounds(l, false)
		lo2, hi2 := frameBounds(r, false)
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], lo2[a]), max(hi[a], hi2[a])
		}
		f.follow.update(&f.cam, lo, hi, 1/o.FPS)
	}
	f.cr.update(r.Stats.CurvAbsP98, k == 0)
	f.dist = measureDistance(&surfaceCopy{t: l.Stats.Time, pos: l.Pos, tris: l.Tris}, &surfaceCopy{t: r.Stats.Time, pos: r.Pos, tris: r.Tris}, restDiagonal(l.Rest))

	gl.Viewport(0, 0, int32(f.w), int32(f.h))
	drawBackground(f.cloth[sideLeft], o.Look == LookFabric) // behind the strip
	gl.Enable(gl.SCISSOR_TEST)
	for i, s := range p.snaps {
		mesh := s.Drawn().mesh()
		if o.Look == LookStrain {
			mesh = f.strain[i].mesh(&s.Surface)
		}
		if err := f.cloth[i].Upload(mesh); err != nil {
			return err
		}
		if f.shadow != nil {
			f.shadow.Update(f.cloth[i], mgl32.Vec3(s.Lo), mgl32.Vec3(s.Hi))
		}
		v := f.layout.view[i]
		x, y := int32(v[0]), int32(float32(f.h)-v[3])
		w, h := int32(v[2]-v[0]), int32(v[3]-v[1])
		gl.Viewport(x, y, w, h)
		gl.Scissor(x, y, w, h)
		if err := drawScene(f.cloth[i], f.obs[i], &f.cam, s, sceneLook{o.Look, f.cr, false, f.shadow}); err != nil {
			return err
		}
	}
	gl.Disable(gl.SCISSOR_TEST)
	gl.Viewport(0, 0, int32(f.w), int32(f.h))
	ov := &pairOverlay{layout: f.layout, kind: p.kind, ahead: p.ahead(), dist: f.dist, distOK: true}
	for i, s := range p.snaps {
		ov.runs[i] = overlayRun{label: runLabel(s.Blocks.Adapt, p.kind), stats: s.Stats, hist: &p.hist[i]}
	}
	ov.note = pairNote(p.kind, l.Blocks.Adapt, r.Blocks.Adapt)
	f.ui.draw(ov, [2]float32{float32(f.w), float32(f.h)}, 1/o.FPS)
	return nil
}
