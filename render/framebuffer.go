package render

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// Framebuffer is an offscreen render target of a fixed size: an FBO with
// an RGBA8 colour renderbuffer and a 24-bit depth renderbuffer. With
// samples > 1 the drawn FBO is multisampled, and Resolve blits it
// (glBlitFramebuffer) into a second, single-sample FBO that can be read
// back; otherwise the drawn FBO is read directly.
//
// Use:
//
//	restore := fb.Bind() // draw here; viewport is 0, 0, w, h
//	… draw …
//	fb.Resolve()         // the readable FBO is now GL_READ_FRAMEBUFFER
//	… ReadPixels / AsyncReadback.Capture …
//	restore()            // framebuffers and viewport as before Bind
type Framebuffer struct {
	w, h, samples int
	fbo           uint32    // drawn into
	rb            [2]uint32 // colour and depth renderbuffers of fbo
	resolve       uint32    // single-sample FBO for readback; 0 when fbo is single-sample
	resolveColor  uint32    // colour renderbuffer of resolve
}

// NewFramebuffer creates a w×h render target with samples MSAA samples
// (≤ 1 means none; clamped to GL_MAX_SAMPLES). It leaves the bound
// framebuffers and renderbuffer as it found them.
func NewFramebuffer(w, h, samples int) (*Framebuffer, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("framebuffer: empty %dx%d size", w, h)
	}
	var maxSize, maxSamples int32
	gl.GetIntegerv(gl.MAX_RENDERBUFFER_SIZE, &maxSize)
	gl.GetIntegerv(gl.MAX_SAMPLES, &maxSamples)
	if maxSize > 0 && (w > int(maxSize) || h > int(maxSize)) {
		return nil, fmt.Errorf("framebuffer: %dx%d exceeds the GL limit of %d pixels a side", w, h, maxSize)
	}
	if samples <= 1 {
		samples = 0
	}
	samples = min(samples, int(maxSamples))
	if samples <= 1 {
		samples = 0
	}
	f := &Framebuffer{w: w, h: h, samples: samples}

	var lastDraw, lastRead, lastRB int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &lastDraw)
	gl.GetIntegerv(gl.READ_FRAMEBUFFER_BINDING, &lastRead)
	gl.GetIntegerv(gl.RENDERBUFFER_BINDING, &lastRB)
	defer func() {
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(lastDraw))
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, uint32(lastRead))
		gl.BindRenderbuffer(gl.RENDERBUFFER, uint32(lastRB))
	}()

	var err error
	if f.fbo, f.rb[0], f.rb[1], err = newFBO(w, h, samples, true); err != nil {
		f.Delete()
		return nil, err
	}
	if samples > 0 {
		if f.resolve, f.resolveColor, _, err = newFBO(w, h, 0, false); err != nil {
			f.Delete()
			return nil, err
		}
	}
	if err := CheckGLError(); err != nil {
		f.Delete()
		return nil, fmt.Errorf("creating %dx%d framebuffer: %w", w, h, err)
	}
	return f, nil
}

// newFBO creates an FBO with an RGBA8 colour renderbuffer and, with
// depth, a DEPTH_COMPONENT24 one, multisampled when samples > 0. It leaves
// the FBO bound to GL_FRAMEBUFFER.
func newFBO(w, h, samples int, depth bool) (fbo, color, depthRB uint32, err error) {
	storage := func(format uint32) uint32 {
		var id uint32
		gl.GenRenderbuffers(1, &id)
		gl.BindRenderbuffer(gl.RENDERBUFFER, id)
		if samples > 0 {
			gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, int32(samples), format, int32(w), int32(h))
		} else {
			gl.RenderbufferStorage(gl.RENDERBUFFER, format, int32(w), int32(h))
		}
		return id
	}
	gl.GenFramebuffers(1, &fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
	color = storage(gl.RGBA8)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, color)
	if depth {
		depthRB = storage(gl.DEPTH_COMPONENT24)
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, depthRB)
	}
	if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		return fbo, color, depthRB, fmt.Errorf("framebuffer %dx%d (%d samples) incomplete: status 0x%x", w, h, samples, st)
	}
	return fbo, color, depthRB, nil
}

// Size returns the width and height in pixels.
func (f *Framebuffer) Size() (w, h int) { return f.w, f.h }

// Samples returns the MSAA sample count, 0 for none.
func (f *Framebuffer) Samples() int { return f.samples }

// Bind makes f the draw and read framebuffer and sets the viewport to
// cover it. The returned function restores the framebuffer bindings and
// the viewport that were current before.
func (f *Framebuffer) Bind() (restore func()) {
	var lastDraw, lastRead int32
	var vp [4]int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &lastDraw)
	gl.GetIntegerv(gl.READ_FRAMEBUFFER_BINDING, &lastRead)
	gl.GetIntegerv(gl.VIEWPORT, &vp[0])
	gl.BindFramebuffer(gl.FRAMEBUFFER, f.fbo)
	gl.Viewport(0, 0, int32(f.w), int32(f.h))
	return func() {
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(lastDraw))
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, uint32(lastRead))
		gl.Viewport(vp[0], vp[1], vp[2], vp[3])
	}
}

// Resolve makes the single-sample image of what was drawn into f the
// GL_READ_FRAMEBUFFER, so that ReadPixels and AsyncReadback.Capture (which
// read the bound read framebuffer) read it. A multisampled f is first
// blitted into its resolve FBO (with the scissor test off, which would
// clip the blit); the draw framebuffer binding is left as it was.
func (f *Framebuffer) Resolve() {
	if f.resolve == 0 {
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, f.fbo)
		return
	}
	var lastDraw int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &lastDraw)
	scissor := gl.IsEnabled(gl.SCISSOR_TEST)
	gl.Disable(gl.SCISSOR_TEST)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, f.fbo)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, f.resolve)
	gl.BlitFramebuffer(0, 0, int32(f.w), int32(f.h), 0, 0, int32(f.w), int32(f.h), gl.COLOR_BUFFER_BIT, gl.NEAREST)
	if scissor {
		gl.Enable(gl.SCISSOR_TEST)
	}
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(lastDraw))
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, f.resolve)
}

// Delete releases the framebuffers and renderbuffers. It is safe to call
// more than once.
func (f *Framebuffer) Delete() {
	for _, id := range []*uint32{&f.fbo, &f.resolve} {
		if *id != 0 {
			gl.DeleteFramebuffers(1, id)
			*id = 0
		}
	}
	for _, id := range []*uint32{&f.rb[0], &f.rb[1], &f.resolveColor} {
		if *id != 0 {
			gl.DeleteRenderbuffers(1, id)
			*id = 0
		}
	}
}
