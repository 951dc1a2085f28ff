package app

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The TestGUIUndo* tests use the undo history (history.go) as a person
// would, through the real X keyboard and mouse (xdotool): each kind of
// change is made with the mouse, undone with Ctrl+Z and redone with
// Ctrl+Shift+Z (or Ctrl+Y, or the buttons), and --state must show the
// exact values before and after each time.

// undoSession is a running viewer the TestGUIUndo* tests type and click
// into.
type undoSession struct {
	t     *testing.T
	v     *liveViewer
	win   string
	state string
}

// startUndo starts the viewer with args in a temporary directory and
// waits for its first --state (moving the mouse: a paused viewer draws on
// input only).
func startUndo(t *testing.T, args ...string) *undoSession {
	t.Helper()
	needDisplay(t)
	needXdotool(t)
	dir := t.TempDir()
	u := &undoSession{t: t, state: filepath.Join(dir, "state.json")}
	u.v = startViewerIn(t, dir, u.state, append([]string{"--msaa", "0"}, args...)...)
	for i := 0; ; i++ {
		select {
		case <-u.v.exited:
			t.Fatalf("the viewer exited: %v\n%s", u.v.err, u.v.stderr.String())
		default:
		}
		if u.win == "" { // not xdotool search --sync: it would wait forever for a viewer that failed
			if out, err := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^drape").Output(); err == nil {
				if f := strings.Fields(string(out)); len(f) > 0 {
					u.win = f[0]
					xdotool(t, "windowfocus", "--sync", u.win)
				}
			}
		}
		if u.win != "" {
			u.move(700+i%2*10, 400) // a paused viewer draws on input only
			if s, err := readState(u.state); err == nil && s.Frames >= 3 {
				break
			}
		}
		if i > 600 {
			t.Fatalf("no --state written\n%s", u.v.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return u
}

func (u *undoSession) key(k string) { xdotool(u.t, "key", "--window", u.win, k) }

func (u *undoSession) move(x, y int) {
	xdotool(u.t, "mousemove", "--window", u.win, strconv.Itoa(x), strconv.Itoa(y))
}

// settle returns a state drawn a few frames after the last input, moving
// the mouse over an empty corner of the view to keep a paused viewer
// drawing.
func (u *undoSession) settle() State {
	u.t.Helper()
	cur, err := readState(u.state)
	if err != nil {
		u.t.Fatal(err)
	}
	for i := 0; ; i++ {
		u.move(900+i%2*10, 760)
		if s, err := readState(u.state); err == nil && s.Frames > cur.Frames+3 {
			return s
		}
		if i > 600 {
			u.t.Fatalf("the viewer stopped drawing\n%s", u.v.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// poll waits for a state that satisfies ok.
func (u *undoSession) poll(what string, ok func(State) bool) State {
	u.t.Helper()
	return u.v.poll(what, ok)
}

// widget returns the rectangle of the named control in a settled state.
func (u *undoSession) widget(name string) [4]float32 {
	u.t.Helper()
	s := u.settle()
	r, ok := s.Widgets[name]
	if !ok {
		u.t.Fatalf("control %q not on screen: %v", name, s.Widgets)
	}
	return r
}

// click clicks the named control at the fraction fx of its width.
func (u *undoSession) click(name string, fx float32) {
	r := u.widget(name)
	u.move(int(r[0]+fx*(r[2]-r[0])), int((r[1]+r[3])/2))
	time.Sleep(200 * time.Millisecond)
	xdotool(u.t, "click", "1")
}

// history waits for the history to hold undo and redo steps.
func (u *undoSession) history(what string, undo, redo int) State {
	u.t.Helper()
	return u.poll(what, func(s State) bool { return s.History.Undo == undo && s.History.Redo == redo })
}

// TestGUIUndoSettings drags a Material slider (one step, though it sends
// many values), undoes and redoes it with the keys and the buttons, across
// a Reset (which keeps the settings and is no step itself), and then
// loads a scene from the Scene panel and undoes the load: hanging comes
// back as edited, and the step before it undoes too.
func TestGUIUndoSettings(t *testing.T) {
	u := startUndo(t, "--scene", "hanging", "--paused")
	st := u.settle()
	e0 := st.Params.YoungX

	// Drag the E_x slider to the right in steps: several values in force
	// on the way, one step of history at the release.
	r := u.widget("material: E_x")
	y := int((r[1] + r[3]) / 2)
	x0, x1 := int(r[0]+0.3*(r[2]-r[0])), int(r[0]+0.8*(r[2]-r[0]))
	u.move(x0, y)
	time.Sleep(200 * time.Millisecond)
	xdotool(t, "mousedown", "1")
	seen := map[float64]bool{}
	for i := 1; i <= 12; i++ {
		u.move(x0+(x1-x0)*i/12, y)
		time.Sleep(200 * time.Millisecond)
		if s, err := readState(u.state); err == nil {
			seen[s.Params.YoungX] = true
		}
	}
	xdotool(t, "mouseup", "1")
	time.Sleep(300 * time.Millisecond)
	dragged := u.settle()
	e1 := dragged.Params.YoungX
	delete(seen, e0)
	t.Logf("E_x %g → %g; values in force during the drag: %d", e0, e1, len(seen))
	if e1 == e0 || len(seen) < 2 {
		t.Fatalf("slider drag: E_x %g → %g with %d values on the way, want a change through several", e0, e1, len(seen))
	}
	if h := dragged.History; h.Undo != 1 || h.Redo != 0 || h.UndoLabel != "set E_x weft" {
		t.Errorf("after the drag: history %+v, want one step \"set E_x weft\"", h)
	}

	// expect waits for what after an undo or redo: the history's steps
	// and E_x exactly as in want.
	expect := func(what string, undo, redo int, want State) State {
		t.Helper()
		s := u.history(what, undo, redo)
		if s.Params != want.Params {
			t.Errorf("%s: E_x got=%g, want=%g (params %+v, want %+v)", what, s.Params.YoungX, want.Params.YoungX, s.Params, want.Params)
		}
		return s
	}
	u.key("ctrl+z")
	expect("Ctrl+Z", 0, 1, st)
	u.key("ctrl+shift+z")
	expect("Ctrl+Shift+Z", 1, 0, dragged)

	// Across a Reset: a few steps, R, and Ctrl+Z still takes E_x back;
	// Ctrl+Y redoes.
	u.key("s")
	u.key("s")
	u.poll("two steps", func(s State) bool { return s.Steps == 2 })
	u.key("r")
	s := u.poll("the reset", func(s State) bool { return s.Steps == 0 })
	if s.Params != dragged.Params || s.History.Undo != 1 {
		t.Errorf("after Reset: E_x %g, history %+v, want E_x %g kept and its step", s.Params.YoungX, s.History, e1)
	}
	u.key("ctrl+z")
	expect("Ctrl+Z after Reset", 0, 1, st)
	u.key("ctrl+y")
	expect("Ctrl+Y", 1, 0, dragged)

	// The buttons: Undo, then Redo, then Redo again, greyed out, does
	// nothing.
	u.click("undo", 0.5)
	expect("the Undo button", 0, 1, st)
	u.click("redo", 0.5)
	expect("the Redo button", 1, 0, dragged)
	u.click("redo", 0.5)
	if s = u.settle(); s.History.Undo != 1 || s.History.Redo != 0 || s.Params != dragged.Params {
		t.Errorf("the greyed Redo button: history %+v, E_x %g, want nothing changed", s.History, s.Params.YoungX)
	}

	// Load ground from the Scene panel; undo brings hanging back with E_x
	// as dragged, and the step before undoes too; redoing both loads
	// ground again with its own parameters.
	u.click("built-in scene", 0.5)
	u.click("scene: ground", 0.5)
	ground := u.poll("ground", func(s State) bool { return s.Scene == "ground" && s.History.Undo == 2 })
	if ground.History.UndoLabel != "load scene ground" {
		t.Errorf("after the load: history %+v, want the load to undo", ground.History)
	}
	u.key("ctrl+z")
	s = u.poll("hanging back", func(s State) bool { return s.Scene == "hanging" })
	if s.Params != dragged.Params || s.History.Undo != 1 || s.History.Redo != 1 || len(s.Pins) != 2 {
		t.Errorf("undo of the load: E_x %g, %d pins, history %+v, want hanging as edited (E_x %g, two pins) with the drag's step to undo",
			s.Params.YoungX, len(s.Pins), s.History, e1)
	}
	u.key("ctrl+z")
	expect("the undo before the load", 0, 2, st)
	u.key("ctrl+shift+z")
	expect("the redo before the load", 1, 1, dragged)
	u.key("ctrl+shift+z")
	s = u.poll("ground again", func(s State) bool { return s.Scene == "ground" && s.History.Undo == 2 })
	if s.Params != ground.Params {
		t.Errorf("redo of the load: params %+v, want ground's %+v", s.Params, ground.Params)
	}
	u.v.stopClean()
}

// TestGUIUndoPins unpins a corner (Ctrl + click), drags the other pin and
// pins a vertex of the hanging sheet (Ctrl + click), undoing and redoing
// each with the keys: the pins come back at exactly their targets. A
// Reset then puts the scene's pins back and leaves no pin step to undo.
func TestGUIUndoPins(t *testing.T) {
	u := startUndo(t, "--scene", "hanging", "--speed", "0", "--pause-at", "1.5")
	u.poll("the sheet hanging", func(s State) bool {
		return s.Paused && s.Steps > 0 && len(s.Pins) == 2 && s.Pins[0].OnScreen && s.Pins[1].OnScreen
	})
	st := u.settle()
	left, right := st.Pins[0], st.Pins[1]
	if right.Pixel[0] < left.Pixel[0] {
		left, right = right, left
	}
	pinOf := func(s State, id int32) (PinState, bool) {
		for _, p := range s.Pins {
			if p.ID == id {
				return p, true
			}
		}
		return PinState{}, false
	}
	ctrlClick := func(x, y float32) {
		u.move(int(x+0.5), int(y+0.5))
		time.Sleep(300 * time.Millisecond)
		xdotool(t, "keydown", "ctrl", "click", "1", "keyup", "ctrl")
	}

	// Unpin the left corner, undo, redo, undo.
	ctrlClick(left.Pixel[0], left.Pixel[1])
	u.poll("the unpin", func(s State) bool { _, ok := pinOf(s, left.ID); return !ok && s.History.Undo == 1 })
	u.key("ctrl+z")
	s := u.poll("the pin back", func(s State) bool { _, ok := pinOf(s, left.ID); return ok })
	if p, _ := pinOf(s, left.ID); p.Target != left.Target || s.History.Undo != 0 || s.History.Redo != 1 {
		t.Errorf("Ctrl+Z of the unpin: target %v, history %+v, want %v and the unpin to redo", p.Target, s.History, left.Target)
	}
	u.key("ctrl+shift+z")
	u.poll("unpinned again", func(s State) bool { _, ok := pinOf(s, left.ID); return !ok })
	u.key("ctrl+z")
	u.poll("pinned again", func(s State) bool { _, ok := pinOf(s, left.ID); return ok && s.History.Redo == 1 })

	// Drag the right pin: one step for the whole drag.
	st = u.settle()
	right, _ = pinOf(st, right.ID)
	x, y := int(right.Pixel[0]+0.5), int(right.Pixel[1]+0.5)
	u.move(x, y)
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "mousedown", "1")
	u.poll("the grab", func(s State) bool { return s.Dragged == right.ID })
	for i := 1; i <= 10; i++ {
		u.move(x+8*i, y+4*i)
		time.Sleep(60 * time.Millisecond)
	}
	xdotool(t, "mouseup", "1")
	u.poll("the release", func(s State) bool { return s.Dragged == -1 })
	dragged := u.settle()
	moved, _ := pinOf(dragged, right.ID)
	if moved.Target == right.Target || dragged.History.Undo != 1 || dragged.History.Redo != 0 {
		t.Fatalf("pin drag: target %v → %v, history %+v, want a move and one step", right.Target, moved.Target, dragged.History)
	}
	u.key("ctrl+z")
	s = u.history("the drag's undo", 0, 1)
	if p, _ := pinOf(s, right.ID); p.Target != right.Target {
		t.Errorf("Ctrl+Z of the drag: target got=%v, want=%v", p.Target, right.Target)
	}
	u.key("ctrl+shift+z")
	s = u.history("the drag's redo", 1, 0)
	if p, _ := pinOf(s, right.ID); p.Target != moved.Target {
		t.Errorf("Ctrl+Shift+Z of the drag: target got=%v, want=%v", p.Target, moved.Target)
	}

	// Pin a vertex of the cloth below the middle of the pins.
	u.settle()
	ctrlClick((left.Pixel[0]+right.Pixel[0])/2, (left.Pixel[1]+right.Pixel[1])/2+110)
	added := u.poll("a third pin", func(s State) bool { return len(s.Pins) == 3 && s.History.Undo == 2 })
	var third PinState
	for _, p := range added.Pins {
		if p.ID != left.ID && p.ID != right.ID {
			third = p
		}
	}
	u.key("ctrl+z")
	u.poll("the third pin gone", func(s State) bool { return len(s.Pins) == 2 })
	u.key("ctrl+shift+z")
	s = u.poll("the third pin back", func(s State) bool { return len(s.Pins) == 3 })
	if p, ok := pinOf(s, third.ID); !ok || p.Target != third.Target {
		t.Errorf("redo of the pin: got %+v, want vertex %d at %v", p, third.ID, third.Target)
	}

	// Reset: the scene's pins, and no pin step left to undo.
	u.key("r")
	s = u.poll("the reset", func(s State) bool { return s.Steps == 0 && len(s.Pins) == 2 })
	if s.History.Undo != 0 || s.History.Redo != 0 {
		t.Errorf("after Reset: history %+v, want the pin steps gone with the pins", s.History)
	}
	if p, _ := pinOf(s, right.ID); p.Target != right.Target {
		t.Errorf("after Reset: the dragged pin at %v, want the scene's %v", p.Target, right.Target)
	}
	u.v.stopClean()
}

// TestGUIUndoObstacle drags the ball of testdata/sphere-push.json with
// Shift + left drag while paused: one step, undone to where it was and
// redone to exactly where it was dragged.
func TestGUIUndoObstacle(t *testing.T) {
	scene, err := filepath.Abs(filepath.Join("testdata", "sphere-push.json")) // the viewer runs in a temporary directory
	if err != nil {
		t.Fatal(err)
	}
	u := startUndo(t, "--scene", scene, "--paused")
	st := u.poll("the ball", func(s State) bool { return len(s.Obstacles) == 2 && s.Obstacles[0].OnScreen })
	ball := st.Obstacles[0]
	bx, by := int(ball.Pixel[0]), int(ball.Pixel[1])
	u.move(bx, by)
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "keydown", "shift")
	xdotool(t, "mousedown", "1")
	u.poll("the grab", func(s State) bool { return s.DraggedObstacle == 0 })
	for i := 1; i <= 10; i++ {
		u.move(bx-10*i, by)
		time.Sleep(50 * time.Millisecond)
	}
	xdotool(t, "mouseup", "1")
	xdotool(t, "keyup", "shift")
	u.poll("the release", func(s State) bool { return s.DraggedObstacle == -1 })
	dragged := u.settle()
	off := dragged.Obstacles[0].Offset
	if off == ball.Offset || dragged.History.Undo != 1 || dragged.History.UndoLabel != "move ball" {
		t.Fatalf("ball drag: offset %v → %v, history %+v, want a move and one step \"move ball\"", ball.Offset, off, dragged.History)
	}
	u.key("ctrl+z")
	s := u.history("the undo", 0, 1)
	if got := s.Obstacles[0].Offset; got != ball.Offset {
		t.Errorf("Ctrl+Z: offset got=%v, want=%v", got, ball.Offset)
	}
	u.key("ctrl+shift+z")
	s = u.history("the redo", 1, 0)
	if got := s.Obstacles[0].Offset; got != off {
		t.Errorf("Ctrl+Shift+Z: offset got=%v, want=%v", got, off)
	}
	if s.Steps != st.Steps {
		t.Errorf("undo and redo stepped the paused simulation: %d → %d steps", st.Steps, s.Steps)
	}
	u.v.stopClean()
}
