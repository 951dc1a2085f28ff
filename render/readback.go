package render

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// ReadPixels reads the w×h rectangle at framebuffer pixel (x, y) (origin
// bottom-left, as GL counts) of the current read buffer into a new RGBA
// image with rows top-down. Call it after drawing and before SwapBuffers.
// Pixel pack alignment is set to 1 and restored. Alpha is set to 255: the
// window is opaque whatever blending left in the alpha channel, and
// image.RGBA is premultiplied, so a low alpha would distort the colours.
func ReadPixels(x, y, w, h int) (*image.RGBA, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("reading pixels: empty %dx%d rectangle", w, h)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var lastPack, lastPBO int32
	gl.GetIntegerv(gl.PACK_ALIGNMENT, &lastPack)
	gl.GetIntegerv(gl.PIXEL_PACK_BUFFER_BINDING, &lastPBO)
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(int32(x), int32(y), int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&img.Pix[0]))
	gl.PixelStorei(gl.PACK_ALIGNMENT, lastPack)
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, uint32(lastPBO))
	if err := CheckGLError(); err != nil {
		return nil, fmt.Errorf("reading %dx%d pixels: %w", w, h, err)
	}
	FlipRows(img.Pix, w*4)
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img, nil
}

// FlipRows reverses the order of the rows of stride bytes in pix in
// place, turning GL's bottom-up rows into image rows (top-down) and back.
// A trailing partial row is left alone.
func FlipRows(pix []byte, stride int) {
	if stride <= 0 {
		return
	}
	rows := len(pix) / stride
	tmp := make([]byte, stride)
	for i, j := 0, rows-1; i < j; i, j = i+1, j-1 {
		a := pix[i*stride : (i+1)*stride]
		b := pix[j*stride : (j+1)*stride]
		copy(tmp, a)
		copy(a, b)
		copy(b, tmp)
	}
}

// SavePNG writes img to path as a PNG file.
func SavePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("saving screenshot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("encoding screenshot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("saving screenshot %s: %w", path, err)
	}
	return nil
}

// Screenshot reads the whole w×h framebuffer and saves it as a PNG at
// path.
func Screenshot(path string, w, h int) error {
	img, err := ReadPixels(0, 0, w, h)
	if err != nil {
		return err
	}
	return SavePNG(path, img)
}

// AsyncReadback reads frames through two pixel buffer objects so the CPU
// never waits for the GPU: each Capture starts an asynchronous read of the
// current frame into one PBO and maps the other, which holds the frame
// captured one call earlier. Frames therefore come out one call late;
// Flush returns the last one. Pixels are RGBA8 with alpha as GL left it,
// rows bottom-up (GL order; flip them, or give ffmpeg -vf vflip).
type AsyncReadback struct {
	w, h    int
	pbo     [2]uint32
	next    int  // index of the PBO the next Capture reads into
	pending bool // the other PBO holds a frame not yet returned
}

// NewAsyncReadback creates the two PBOs for w×h frames.
func NewAsyncReadback(w, h int) (*AsyncReadback, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("async readback: empty %dx%d frame", w, h)
	}
	r := &AsyncReadback{w: w, h: h}
	var last int32
	gl.GetIntegerv(gl.PIXEL_PACK_BUFFER_BINDING, &last)
	gl.GenBuffers(2, &r.pbo[0])
	for _, id := range r.pbo {
		gl.BindBuffer(gl.PIXEL_PACK_BUFFER, id)
		gl.BufferData(gl.PIXEL_PACK_BUFFER, r.FrameSize(), nil, gl.STREAM_READ)
	}
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, uint32(last))
	if err := CheckGLError(); err != nil {
		r.Delete()
		return nil, fmt.Errorf("creating %dx%d readback buffers: %w", w, h, err)
	}
	return r, nil
}

// Size returns the frame width and height in pixels.
func (r *AsyncReadback) Size() (w, h int) { return r.w, r.h }

// FrameSize returns the bytes of one frame, 4·w·h.
func (r *AsyncReadback) FrameSize() int { return 4 * r.w * r.h }

// Capture starts reading the bottom-left w×h pixels of the current read
// buffer (call it before SwapBuffers) and, if an earlier capture is
// pending, copies that frame into dst and returns true. dst must hold
// FrameSize bytes.
func (r *AsyncReadback) Capture(dst []byte) (bool, error) {
	if len(dst) < r.FrameSize() {
		return false, fmt.Errorf("async readback: dst holds %d bytes, want %d", len(dst), r.FrameSize())
	}
	var lastPack, lastPBO int32
	gl.GetIntegerv(gl.PACK_ALIGNMENT, &lastPack)
	gl.GetIntegerv(gl.PIXEL_PACK_BUFFER_BINDING, &lastPBO)
	defer func() {
		gl.PixelStorei(gl.PACK_ALIGNMENT, lastPack)
		gl.BindBuffer(gl.PIXEL_PACK_BUFFER, uint32(lastPBO))
	}()

	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, r.pbo[r.next])
	gl.ReadPixels(0, 0, int32(r.w), int32(r.h), gl.RGBA, gl.UNSIGNED_BYTE, nil) // nil: offset 0 into the bound PBO
	got := false
	var err error
	if r.pending {
		got, err = r.mapInto(r.pbo[1-r.next], dst)
	}
	r.pending = true
	r.next = 1 - r.next
	if err == nil {
		err = CheckGLError()
	}
	return got, err
}

// Flush copies the last pending frame into dst and returns true, or false
// if nothing is pending. Call it once after the last Capture.
func (r *AsyncReadback) Flush(dst []byte) (bool, error) {
	if !r.pending {
		return false, nil
	}
	if len(dst) < r.FrameSize() {
		return false, fmt.Errorf("async readback: dst holds %d bytes, want %d", len(dst), r.FrameSize())
	}
	var lastPBO int32
	gl.GetIntegerv(gl.PIXEL_PACK_BUFFER_BINDING, &lastPBO)
	defer gl.BindBuffer(gl.PIXEL_PACK_BUFFER, uint32(lastPBO))
	r.pending = false
	return r.mapInto(r.pbo[1-r.next], dst)
}

// mapInto maps PBO id for reading and copies one frame into dst.
func (r *AsyncReadback) mapInto(id uint32, dst []byte) (bool, error) {
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, id)
	n := r.FrameSize()
	p := gl.MapBufferRange(gl.PIXEL_PACK_BUFFER, 0, n, gl.MAP_READ_BIT)
	if p == nil {
		return false, fmt.Errorf("async readback: mapping pixel buffer failed: %v", CheckGLError())
	}
	copy(dst[:n], unsafe.Slice((*byte)(p), n))
	if !gl.UnmapBuffer(gl.PIXEL_PACK_BUFFER) {
		return false, fmt.Errorf("async readback: pixel buffer contents lost while mapped")
	}
	return true, nil
}

// Delete releases the PBOs.
func (r *AsyncReadback) Delete() {
	if r.pbo[0] != 0 || r.pbo[1] != 0 {
		gl.DeleteBuffers(2, &r.pbo[0])
		r.pbo = [2]uint32{}
	}
	r.pending = false
}
