package render

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/inkyblackness/imgui-go/v4"
)

// ErrNoDisplay is returned by NewWindow when neither DISPLAY nor
// WAYLAND_DISPLAY is set. (go-gl's glfw.Init only logs that case and the
// next glfw call panics, so NewWindow checks first.)
var ErrNoDisplay = errors.New("no display: set DISPLAY or run under xvfb-run")

// WindowOptions configures NewWindow.
type WindowOptions struct {
	Title   string
	Width   int  // client area width in screen coordinates, > 0
	Height  int  // client area height in screen coordinates, > 0
	Visible bool // false creates a hidden window, for headless rendering and recording
	VSync   bool // wait for vertical blank in SwapBuffers (swap interval 1)
	Samples int  // MSAA samples requested; 0 means 4, negative means none. NewWindow falls back to none if refused
}

// Handlers receive input events after they have been forwarded to ImGui.
// Any field may be nil. Key codes, buttons and modifier bits are GLFW's
// (glfw.Key, glfw.MouseButton, glfw.ModifierKey as ints). Coordinates are
// window coordinates: origin top-left, y down, screen units, the same
// convention as Camera.
type Handlers struct {
	MouseButton func(button int, down bool, mods int)
	CursorPos   func(x, y float64)
	Scroll      func(dx, dy float64)
	Key         func(key int, down bool, mods int)
}

// Window is a GLFW window with a current OpenGL 4.1 core,
// forward-compatible context, and the platform half of an ImGui backend:
// it feeds ImGui display size, time and input. All methods must be called
// from the OS thread that created it (the locked main thread).
type Window struct {
	win      *glfw.Window
	samples  int
	handlers Handlers

	io          imgui.IO
	imguiOn     bool
	lastTime    float64
	justPressed [3]bool // clicks shorter than a frame still reach ImGui

	keys keyLatch // key taps shorter than a frame still reach ImGui
}

// keyLatch holds back the release of a key pressed and released between
// two frames, so that ImGui 1.85, which reads KeysDown once per frame,
// still sees the tap: the key stays down for the next frame and is
// released at the one after. Without it a typed value's Enter (xdotool,
// or a quick finger on a slow frame) was lost and the text field kept
// the keyboard.
type keyLatch struct {
	tapped    map[int]bool // pressed since the last frame
	late, due []int        // releases held for the coming frame; to apply at the next
}

// press records that k went down; it cancels a held-back release of k.
func (l *keyLatch) press(k int) {
	if l.tapped == nil {
		l.tapped = map[int]bool{}
	}
	l.tapped[k] = true
	l.late = slices.DeleteFunc(l.late, func(x int) bool { return x == k })
	l.due = slices.DeleteFunc(l.due, func(x int) bool { return x == k })
}

// release reports whether k's release applies now; otherwise it is
// held back until frame has been called twice.
func (l *keyLatch) release(k int) bool {
	if !l.tapped[k] {
		return true
	}
	l.late = append(l.late, k)
	return false
}

// frame starts a frame: it returns the held-back releases now due (valid
// until the next press or release).
func (l *keyLatch) frame() []int {
	due := l.due
	l.due, l.late = l.late, due[:0]
	clear(l.tapped)
	return due
}

// NewWindow initialises GLFW, opens a window with a 4.1 core
// forward-compatible context, makes it current on the calling thread and
// loads the GL function pointers. It asks for opts.Samples (default 4)
// MSAA samples and retries without MSAA if that fails. It returns
// ErrNoDisplay without touching GLFW when no display is configured.
func NewWindow(opts WindowOptions) (w *Window, err error) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, ErrNoDisplay
	}
	if opts.Width <= 0 || opts.Height <= 0 {
		return nil, fmt.Errorf("creating window: size %dx%d must be positive", opts.Width, opts.Height)
	}
	// go-gl's glfw reports platform errors (an unreachable X server, no
	// suitable GLX visual) by panicking in the call after the failure;
	// turn that into an error.
	defer func() {
		if r := recover(); r != nil {
			w, err = nil, fmt.Errorf("creating window: glfw: %v", r)
			glfw.Terminate()
		}
	}()
	if err := glfw.Init(); err != nil {
		return nil, fmt.Errorf("initialising glfw: %w", err)
	}
	samples := opts.Samples
	switch {
	case samples == 0:
		samples = 4
	case samples < 0:
		samples = 0
	}
	win, err := createWindow(opts, samples)
	if err != nil {
		samples = 0
		var err2 error
		if win, err2 = createWindow(opts, 0); err2 != nil {
			glfw.Terminate()
			return nil, fmt.Errorf("creating %dx%d OpenGL 4.1 core window: %w (with MSAA: %v)",
				opts.Width, opts.Height, err2, err)
		}
	}
	win.MakeContextCurrent()
	if err := gl.Init(); err != nil {
		win.Destroy()
		glfw.Terminate()
		return nil, fmt.Errorf("loading OpenGL 4.1 functions: %w", err)
	}
	if opts.VSync {
		glfw.SwapInterval(1)
	} else {
		glfw.SwapInterval(0)
	}
	if samples > 0 {
		gl.Enable(gl.MULTISAMPLE)
	}
	w = &Window{win: win, samples: samples, lastTime: glfw.GetTime()}
	w.installCallbacks()
	return w, nil
}

// createWindow sets the context hints and creates one window.
func createWindow(opts WindowOptions, samples int) (*glfw.Window, error) {
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ContextVersionMajor, 4)
	glfw.WindowHint(glfw.ContextVersionMinor, 1)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	glfw.WindowHint(glfw.Samples, samples)
	glfw.WindowHint(glfw.DepthBits, 24)
	glfw.WindowHint(glfw.ScaleToMonitor, glfw.True)
	visible := glfw.False
	if opts.Visible {
		visible = glfw.True
	}
	glfw.WindowHint(glfw.Visible, visible)
	return glfw.CreateWindow(opts.Width, opts.Height, opts.Title, nil, nil)
}

// installCallbacks routes GLFW input to ImGui (when attached) and then to
// the Handlers.
func (w *Window) installCallbacks() {
	w.win.SetMouseButtonCallback(func(_ *glfw.Window, b glfw.MouseButton, a glfw.Action, mods glfw.ModifierKey) {
		down := a == glfw.Press
		if down && int(b) >= 0 && int(b) < len(w.justPressed) {
			w.justPressed[b] = true
		}
		if h := w.handlers.MouseButton; h != nil {
			h(int(b), down, int(mods))
		}
	})
	w.win.SetCursorPosCallback(func(_ *glfw.Window, x, y float64) {
		if h := w.handlers.CursorPos; h != nil {
			h(x, y)
		}
	})
	w.win.SetScrollCallback(func(_ *glfw.Window, dx, dy float64) {
		if w.imguiOn {
			w.io.AddMouseWheelDelta(float32(dx), float32(dy))
		}
		if h := w.handlers.Scroll; h != nil {
			h(dx, dy)
		}
	})
	w.win.SetKeyCallback(func(_ *glfw.Window, k glfw.Key, _ int, a glfw.Action, mods glfw.ModifierKey) {
		if k == glfw.KeyUnknown || k < 0 {
			return // ImGui's KeysDown has no slot for GLFW's unknown key (-1)
		}
		if w.imguiOn {
			switch a {
			case glfw.Press:
				w.io.KeyPress(int(k))
				w.keys.press(int(k))
			case glfw.Release:
				if w.keys.release(int(k)) {
					w.io.KeyRelease(int(k))
				}
			}
			w.syncModifiers()
		}
		if h := w.handlers.Key; h != nil && a != glfw.Repeat {
			h(int(k), a == glfw.Press, int(mods))
		}
	})
	w.win.SetCharCallback(func(_ *glfw.Window, c rune) {
		if w.imguiOn {
			w.io.AddInputCharacters(string(c))
		}
	})
}

// AttachImGui makes the window the platform backend of io: it fills the
// 1.85 key map with GLFW key codes and forwards input from then on. Call
// it once after imgui.CreateContext.
func (w *Window) AttachImGui(io imgui.IO) {
	w.io = io
	w.imguiOn = true
	for imguiKey, k := range map[int]glfw.Key{
		imgui.KeyTab: glfw.KeyTab, imgui.KeyLeftArrow: glfw.KeyLeft,
		imgui.KeyRightArrow: glfw.KeyRight, imgui.KeyUpArrow: glfw.KeyUp,
		imgui.KeyDownArrow: glfw.KeyDown, imgui.KeyPageUp: glfw.KeyPageUp,
		imgui.KeyPageDown: glfw.KeyPageDown, imgui.KeyHome: glfw.KeyHome,
		imgui.KeyEnd: glfw.KeyEnd, imgui.KeyInsert: glfw.KeyInsert,
		imgui.KeyDelete: glfw.KeyDelete, imgui.KeyBackspace: glfw.KeyBackspace,
		imgui.KeySpace: glfw.KeySpace, imgui.KeyEnter: glfw.KeyEnter,
		imgui.KeyEscape: glfw.KeyEscape, imgui.KeyKeyPadEnter: glfw.KeyKPEnter,
		imgui.KeyA: glfw.KeyA, imgui.KeyC: glfw.KeyC, imgui.KeyV: glfw.KeyV,
		imgui.KeyX: glfw.KeyX, imgui.KeyY: glfw.KeyY, imgui.KeyZ: glfw.KeyZ,
	} {
		io.KeyMap(imguiKey, int(k))
	}
}

// SetHandlers replaces the input handlers.
func (w *Window) SetHandlers(h Handlers) { w.handlers = h }

// NewFrame feeds ImGui (when attached) the display and framebuffer sizes,
// the time since the previous NewFrame (now is in seconds, e.g. Time()),
// the cursor position and the mouse buttons. Call it before imgui.NewFrame.
func (w *Window) NewFrame(now float64) {
	if !w.imguiOn {
		w.lastTime = now
		return
	}
	ds := w.DisplaySize()
	fs := w.FramebufferSize()
	w.io.SetDisplaySize(imgui.Vec2{X: ds[0], Y: ds[1]})
	if ds[0] > 0 && ds[1] > 0 {
		w.io.SetDisplayFrameBufferScale(imgui.Vec2{X: fs[0] / ds[0], Y: fs[1] / ds[1]})
	}
	dt := now - w.lastTime
	if dt <= 0 {
		dt = 1e-6 // ImGui asserts DeltaTime > 0
	}
	w.io.SetDeltaTime(float32(dt))
	w.lastTime = now

	if w.win.GetAttrib(glfw.Focused) != 0 {
		x, y := w.win.GetCursorPos()
		w.io.SetMousePosition(imgui.Vec2{X: float32(x), Y: float32(y)})
	} else {
		w.io.SetMousePosition(imgui.Vec2{X: -math.MaxFloat32, Y: -math.MaxFloat32})
	}
	for i := range w.justPressed {
		down := w.justPressed[i] || w.win.GetMouseButton(glfw.MouseButton(i)) == glfw.Press
		w.io.SetMouseButtonDown(i, down)
		w.justPressed[i] = false
	}
	for _, k := range w.keys.frame() {
		w.io.KeyRelease(k)
	}
	w.syncModifiers()
}

// syncModifiers sets ImGui's modifier flags from its KeysDown.
func (w *Window) syncModifiers() {
	w.io.KeyCtrl(int(glfw.KeyLeftControl), int(glfw.KeyRightControl))
	w.io.KeyShift(int(glfw.KeyLeftShift), int(glfw.KeyRightShift))
	w.io.KeyAlt(int(glfw.KeyLeftAlt), int(glfw.KeyRightAlt))
	w.io.KeySuper(int(glfw.KeyLeftSuper), int(glfw.KeyRightSuper))
}

// Time returns seconds since GLFW was initialised.
func (w *Window) Time() float64 { return glfw.GetTime() }

// PollEvents processes pending window and input events, calling the
// handlers.
func (w *Window) PollEvents() { glfw.PollEvents() }

// WaitEvents sleeps until an event arrives or timeout seconds pass, then
// processes the pending events as PollEvents does.
func (w *Window) WaitEvents(timeout float64) { glfw.WaitEventsTimeout(timeout) }

// ShouldClose reports whether the user asked to close the window.
func (w *Window) ShouldClose() bool { return w.win.ShouldClose() }

// SetShouldClose sets or clears the close flag.
func (w *Window) SetShouldClose(v bool) { w.win.SetShouldClose(v) }

// SetTitle sets the window title.
func (w *Window) SetTitle(title string) { w.win.SetTitle(title) }

// SwapBuffers presents the back buffer. Read pixels before calling it.
func (w *Window) SwapBuffers() { w.win.SwapBuffers() }

// DisplaySize returns the client area size in screen coordinates (the
// units of cursor positions and of Camera.Width/Height).
func (w *Window) DisplaySize() [2]float32 {
	x, y := w.win.GetSize()
	return [2]float32{float32(x), float32(y)}
}

// FramebufferSize returns the framebuffer size in pixels (larger than
// DisplaySize on HiDPI displays); use it for glViewport and readback.
func (w *Window) FramebufferSize() [2]float32 {
	x, y := w.win.GetFramebufferSize()
	return [2]float32{float32(x), float32(y)}
}

// ContentScale returns the monitor content scale (1 on standard displays,
// 2 on typical HiDPI ones), for sizing fonts and markers.
func (w *Window) ContentScale() (x, y float32) { return w.win.GetContentScale() }

// CursorPos returns the cursor position in window coordinates.
func (w *Window) CursorPos() (x, y float64) { return w.win.GetCursorPos() }

// Samples returns the MSAA sample count that was requested successfully,
// 0 when the window fell back to no multisampling.
func (w *Window) Samples() int { return w.samples }

// GLVersion returns the context's GL_VERSION and GL_RENDERER strings.
func (w *Window) GLVersion() (version, renderer string) {
	return gl.GoStr(gl.GetString(gl.VERSION)), gl.GoStr(gl.GetString(gl.RENDERER))
}

// Delete destroys the window and terminates GLFW. The Window must not be
// used after.
func (w *Window) Delete() {
	if w.win != nil {
		w.win.Destroy()
		w.win = nil
	}
	glfw.Terminate()
}
