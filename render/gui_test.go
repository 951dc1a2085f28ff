package render

import (
	"image"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/inkyblackness/imgui-go/v4"
)

// GUI tests need an X display; `make test` runs them under xvfb-run. They
// are named TestGUI* so the Makefile can select them.

// guiWindow opens a hidden window on a locked OS thread, or skips the test
// when there is no display. GLFW on X11 only needs all calls on one
// thread, which LockOSThread gives the test goroutine.
func guiWindow(t *testing.T, w, h int) *Window {
	t.Helper()
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		t.Skip("no display: run under xvfb-run (make test does)")
	}
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	win, err := NewWindow(WindowOptions{Title: "drape test", Width: w, Height: h})
	if err != nil {
		t.Fatalf("NewWindow: %v", err)
	}
	t.Cleanup(win.Delete)
	return win
}

// testSheet returns an n×n grid sheet in the plane y=0.5 spanning [-0.5,0.5]²,
// normals +Y, scalar = x, generation = 1 on the left half.
func testSheet(n int) Mesh {
	var m Mesh
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			x := -0.5 + float32(i)/float32(n)
			z := -0.5 + float32(j)/float32(n)
			m.Pos = append(m.Pos, x, 0.5, z)
			m.Normal = append(m.Normal, 0, 1, 0)
			m.Scalar = append(m.Scalar, x)
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a := uint32(j*(n+1) + i)
			b, c, d := a+1, a+uint32(n)+2, a+uint32(n)+1
			m.Tris = append(m.Tris, a, c, b, a, d, c)
			g := uint8(0)
			if i < n/2 {
				g = 1
			}
			m.FaceGen = append(m.FaceGen, g, g)
		}
	}
	return m
}

func TestGUINoDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	if _, err := NewWindow(WindowOptions{Width: 10, Height: 10}); err != ErrNoDisplay {
		t.Errorf("NewWindow without display: got=%v, want=%v", err, ErrNoDisplay)
	}
}

func TestGUIRenderFrame(t *testing.T) {
	const W, H = 320, 240
	win := guiWindow(t, W, H)

	ctx := imgui.CreateContext(nil)
	defer ctx.Destroy()
	io := imgui.CurrentIO()
	io.SetIniFilename("")
	win.AttachImGui(io)
	gui, err := NewImGuiRenderer(io)
	if err != nil {
		t.Fatalf("NewImGuiRenderer: %v", err)
	}
	defer gui.Delete()
	cloth, err := NewClothRenderer()
	if err != nil {
		t.Fatalf("NewClothRenderer: %v", err)
	}
	defer cloth.Delete()

	if err := cloth.Upload(Mesh{Pos: []float32{0, 0, 0}, Normal: nil}); err == nil {
		t.Errorf("Upload(mismatched Normal): got nil error, want one")
	}
	mesh := testSheet(8)
	if err := cloth.Upload(mesh); err != nil {
		t.Fatalf("Upload: %v", err)
	}

	ds, fs := win.DisplaySize(), win.FramebufferSize()
	cam := NewCamera(ds[0], ds[1])
	cam.Yaw, cam.Pitch = 0, 1.2
	cam.Fit(mgl32.Vec3{-0.5, 0.5, -0.5}, mgl32.Vec3{0.5, 0.5, 0.5})
	opts := DefaultDrawOptions()
	opts.View, opts.Projection = cam.View(), cam.Projection()
	opts.RangeMin, opts.RangeMax = -0.5, 0.5
	opts.Wireframe, opts.WireframeByGen = true, true
	opts.Pins = []Pin{{Pos: mgl32.Vec3{-0.5, 0.5, -0.5}}, {Pos: mgl32.Vec3{0.5, 0.5, -0.5}, State: PinDragged}}

	readback, err := NewAsyncReadback(int(fs[0]), int(fs[1]))
	if err != nil {
		t.Fatalf("NewAsyncReadback: %v", err)
	}
	defer readback.Delete()
	frame := make([]byte, readback.FrameSize())

	var img *image.RGBA
	for f := 0; f < 3; f++ {
		win.PollEvents()
		win.NewFrame(float64(f) / 60)
		imgui.NewFrame()
		imgui.Begin("Panel")
		imgui.Text("hello")
		imgui.End()
		imgui.Render()

		gl.Viewport(0, 0, int32(fs[0]), int32(fs[1]))
		bg := mgl32.Vec3{0.1, 0.1, 0.1}
		cloth.DrawBackground(bg, bg)
		cloth.Draw(opts)
		gui.Render(ds, fs, imgui.RenderedDrawData())
		if err := CheckGLError(); err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
		got, err := readback.Capture(frame)
		if err != nil {
			t.Fatalf("Capture frame %d: %v", f, err)
		}
		if want := f > 0; got != want {
			t.Errorf("Capture frame %d returned a frame: got=%v, want=%v", f, got, want)
		}
		if f == 2 {
			if img, err = ReadPixels(0, 0, int(fs[0]), int(fs[1])); err != nil {
				t.Fatalf("ReadPixels: %v", err)
			}
		}
		win.SwapBuffers()
	}
	if got, err := readback.Flush(frame); err != nil || !got {
		t.Fatalf("Flush: got=(%v,%v), want=(true,nil)", got, err)
	}

	// The async frame (bottom-up) flipped must equal the synchronous one.
	FlipRows(frame, 4*img.Rect.Dx())
	for i := 3; i < len(frame); i += 4 {
		frame[i] = 255 // ReadPixels makes alpha opaque
	}
	if string(frame) != string(img.Pix) {
		t.Errorf("async readback differs from ReadPixels")
	}

	// The cloth covers the centre: not the background colour. The colour
	// map runs from blue (x=-0.5, left) to red (x=+0.5, right).
	at := func(px, py float32) [4]uint8 {
		x, y := int(px*fs[0]/ds[0]), int(py*fs[1]/ds[1])
		o := img.PixOffset(x, y)
		return [4]uint8(img.Pix[o : o+4])
	}
	if c := at(W/2, H/2); c[0] < 40 && c[1] < 40 && c[2] < 40 {
		t.Errorf("centre pixel %v is background, want cloth", c)
	}
	lx, ly, _ := cam.Project(mgl32.Vec3{-0.3, 0.5, 0.1})
	rx, ry, _ := cam.Project(mgl32.Vec3{0.3, 0.5, 0.1})
	if l, r := at(lx, ly), at(rx, ry); !(l[2] > l[0] && r[0] > r[2]) {
		t.Errorf("colour map: left pixel %v should be bluish, right pixel %v reddish", l, r)
	}
	if dir := os.Getenv("DRAPE_TEST_OUT"); dir != "" {
		if err := SavePNG(filepath.Join(dir, "render_frame.png"), img); err != nil {
			t.Error(err)
		}
	}
}
