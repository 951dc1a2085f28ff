package app

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestGUISideBySide uses side by side (sidebyside.go) as a person would,
// through the real X mouse and keyboard (xdotool), on a small adaptive
// sheet run as fast as it can: the Scene panel's box turns it on, and
// both views draw the cloth; a pin dragged on the left view moves the
// same corner's pin in both runs; a modulus typed into the Material panel
// reaches both runs; the lock brings the run ahead back to the other's
// time and keeps it there, with the distance between the surfaces
// measured, and unlocked the adaptive run runs ahead again; turned off,
// the single run has the modulus too. --state reports both runs
// throughout.
func TestGUISideBySide(t *testing.T) {
	abs, err := filepath.Abs(pairTestScene)
	if err != nil {
		t.Fatal(err)
	}
	u := startUndo(t, "--scene", abs, "--speed", "0") // history_gui_test.go
	// The box, then both runs: the full-resolution one at 2592
	// triangles.
	// Locked from the start for the screenshot, so that both cloths
	// show the same moment: unlocked, the adaptive run was up to 2.5 s
	// ahead when the screenshot was taken, swung down with its dark back
	// face to the camera, which clothPixels does not count (2 failures
	// in 9 runs).
	u.click("lock time", 0.1)
	u.click("side by side", 0.1)
	st := u.poll("both runs", func(s State) bool {
		return s.SideBySide != nil && s.SideBySide.Locked && math.Abs(s.SideBySide.Ahead) <= 0.05 &&
			s.SideBySide.Left.Triangles == 2592 && s.SideBySide.Right.Steps > 10 && s.SideBySide.Left.Steps > 10
	})
	ss := st.SideBySide
	t.Logf("left %q: t = %.2f s, %d triangles, %.1f ms/step; right %q: t = %.2f s, %d triangles, %.1f ms/step",
		ss.Left.Label, ss.Left.Time, ss.Left.Triangles, ss.Left.MsPerStepMean, ss.Right.Label, ss.Right.Time, ss.Right.Triangles, ss.Right.MsPerStepMean)
	if ss.Pair != pairNames[pairFullAdaptive] || ss.Left.Adapt.Enabled || !ss.Right.Adapt.Enabled || ss.Right.Triangles >= 2592 ||
		!(ss.Left.MsPerStepMean > 0) || !(ss.Right.MsPerStepMean > 0) || len(ss.Left.Pins) != 2 || len(ss.Right.Pins) != 2 {
		t.Fatalf("side by side: got %+v, want full resolution (2592 triangles) on the left, adaptive on the right, ms/step and two pins each", ss)
	}

	// Both views draw the cloth: pixels of its colours in each, below its
	// label.
	u.key("F12")
	shot := lastShot(u.poll("a screenshot", func(s State) bool { return lastShot(s) != "" }))
	if !filepath.IsAbs(shot) {
		shot = filepath.Join(filepath.Dir(u.state), shot) // the viewer's working directory
	}
	img := readPNG(t, shot)
	if data, err := os.ReadFile(shot); err == nil { // kept with DRAPE_TEST_OUT
		os.WriteFile(filepath.Join(outDir(t), "view_sidebyside.png"), data, 0o644)
	}
	for i, run := range []RunState{ss.Left, ss.Right} {
		v := run.View
		v[1] += labelsHeight
		n := clothPixels(img, v, run.Pins)
		t.Logf("the %s view: %d pixels of the cloth", sideName(i), n)
		if n < 400 {
			t.Errorf("the %s view %v: %d pixels of the cloth, want at least 400", sideName(i), v, n)
		}
	}
	u.click("lock time", 0.1)
	u.poll("unlocked", func(s State) bool { return s.SideBySide != nil && !s.SideBySide.Locked })

	// Drag the left run's left pin 60 px right and 40 px down: the pin at
	// the same corner of the right run follows to the same target.
	pin := ss.Left.Pins[0]
	for _, p := range ss.Left.Pins {
		if p.Pixel[0] < pin.Pixel[0] {
			pin = p
		}
	}
	same := func(s *SideBySideState) (PinState, bool) { // the right run's pin at the dragged corner
		for _, p := range s.Right.Pins {
			if d := sub3(p.Target, pin.Target); d < 1e-4 {
				return p, true
			}
		}
		return PinState{}, false
	}
	if _, ok := same(ss); !ok || !pin.OnScreen {
		t.Fatalf("the left pin %+v: on screen %v; no right pin at its target (%+v)", pin, pin.OnScreen, ss.Right.Pins)
	}
	rpin, _ := same(ss)
	x, y := int(pin.Pixel[0]+0.5), int(pin.Pixel[1]+0.5)
	u.move(x, y)
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "mousedown", "1")
	u.poll("the grab", func(s State) bool { return s.SideBySide != nil && s.Dragged >= 0 || s.Frames > st.Frames+30 })
	for i := 1; i <= 10; i++ {
		u.move(x+6*i, y+4*i)
		time.Sleep(40 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "mouseup", "1")
	moved := u.poll("both pins to move", func(s State) bool {
		if s.SideBySide == nil {
			return false
		}
		var l, r PinState
		for _, p := range s.SideBySide.Left.Pins {
			if p.ID == pin.ID {
				l = p
			}
		}
		for _, p := range s.SideBySide.Right.Pins {
			if p.ID == rpin.ID {
				r = p
			}
		}
		return sub3(l.Target, pin.Target) > 0.05 && sub3(l.Target, r.Target) < 1e-5
	})
	t.Logf("pin %d (left) and %d (right): target %v → %v", pin.ID, rpin.ID, pin.Target, moved.SideBySide.Right.Pins)

	// Type E_x = 2500 into the Material panel (Ctrl+click), paused so
	// that slow frames do not lose the keys.
	u.key("space")
	u.poll("the pause", func(s State) bool {
		return s.SideBySide != nil && s.SideBySide.Left.Paused && s.SideBySide.Right.Paused
	})
	reveal := func(name, wheel string) { // scroll the sidebar (wheel "5" down, "4" up) until name is in view
		for i := 0; ; i++ {
			if _, ok := u.settle().Widgets[name]; ok {
				return
			}
			if i > 30 {
				t.Fatalf("the control %q never came into view", name)
			}
			u.move(170, 500)
			xdotool(t, "click", wheel)
		}
	}
	reveal("material: E_x", "5") // below the fold with the Adaptivity section open
	xdotool(t, "keydown", "ctrl")
	u.click("material: E_x", 0.5)
	xdotool(t, "keyup", "ctrl")
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "key", "--delay", "150", "ctrl+a", "2", "5", "0", "0", "Return") // applied as typed: 2, 25, 250, 2500
	u.poll("E_x 2500 in both runs", func(s State) bool {
		return s.SideBySide != nil && s.SideBySide.Left.Params.YoungX == 2500 && s.SideBySide.Right.Params.YoungX == 2500
	})
	u.key("space")
	st = u.poll("running, the adaptive run ahead", func(s State) bool {
		return s.SideBySide != nil && !s.SideBySide.Right.Paused && s.SideBySide.Ahead > 0.1
	})

	// Lock: the run ahead waits for the other, and they stay together.
	dt := st.Params.Dt
	reveal("lock time", "4")
	u.click("lock time", 0.1)
	st = u.poll("the runs locked together", func(s State) bool {
		return s.SideBySide != nil && s.SideBySide.Locked && math.Abs(s.SideBySide.Ahead) <= 1.5*dt
	})
	locked := st.SideBySide.Left.Time
	worst := 0.0
	last := u.poll("a distance measured locked, and the runs on", func(s State) bool {
		if s.SideBySide == nil {
			return false
		}
		worst = max(worst, math.Abs(s.SideBySide.Ahead))
		return s.SideBySide.Measured && s.SideBySide.DistanceTime > locked && s.SideBySide.Left.Time > locked+20*dt
	})
	t.Logf("locked from t = %.3f s to %.3f s: at most %.4f s apart; distance RMS %.3g, max %.3g of the diagonal at t = %.3f s",
		locked, last.SideBySide.Left.Time, worst, last.SideBySide.DistanceRMS, last.SideBySide.DistanceMax, last.SideBySide.DistanceTime)
	if worst > 1.5*dt {
		t.Errorf("locked: the runs were %.4f s apart, want at most a step (%v s)", worst, dt)
	}
	// The runs took the pin drag at different times, so their shapes
	// differ, but not by more than the cloth's size.
	if d := last.SideBySide; d.DistanceOf != "left" || !(d.DistanceRMS > 0) || d.DistanceRMS > d.DistanceMax || d.DistanceMax > 1 {
		t.Errorf("distance: got RMS %v, max %v of the %s run's vertices; want 0 < RMS ≤ max < 1, of the left run's", d.DistanceRMS, d.DistanceMax, d.DistanceOf)
	}
	u.click("lock time", 0.1)
	u.poll("unlocked, the adaptive run ahead again", func(s State) bool {
		return s.SideBySide != nil && !s.SideBySide.Locked && s.SideBySide.Ahead > 0.1
	})

	// Off: the single run, with the modulus typed side by side.
	u.click("side by side", 0.1)
	off := u.poll("the single view", func(s State) bool { return s.SideBySide == nil && !s.Paused })
	u.poll("the single run stepping", func(s State) bool { return s.SideBySide == nil && s.Steps > off.Steps+5 })
	if off.Params.YoungX != 2500 {
		t.Errorf("the single run after side by side: E_x = %v, want 2500", off.Params.YoungX)
	}
	final := u.v.stopClean()
	if !final.Finite {
		t.Errorf("not finite at exit: %s", final.Error)
	}
}

// sub3 returns |a − b|.
func sub3(a, b [3]float32) float64 {
	return math.Sqrt(float64((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2])))
}

// clothPixels counts the pixels of img in the window rectangle r (x0,
// y0, x1, y1) that lie in a 3×3 block of the cloth's colours, light or
// saturated (the cool-warm map); the background and the grid are dark
// grey, and the axis lines, though saturated, are too thin for a block.
// Pin markers (yellow) are left out.
func clothPixels(img image.Image, r [4]float32, pins []PinState) int {
	cloth := func(x, y int) bool {
		cr, cg, cb, _ := img.At(x, y).RGBA()
		a, b, c := int(cr>>8), int(cg>>8), int(cb>>8)
		return a+b+c > 450 || max(a, b, c)-min(a, b, c) > 60
	}
	n := 0
	for y := int(r[1]) + 1; y < int(r[3])-1; y++ {
	pixel:
		for x := int(r[0]) + 1; x < int(r[2])-1; x++ {
			for _, p := range pins {
				if dx, dy := float32(x)-p.Pixel[0], float32(y)-p.Pixel[1]; dx*dx+dy*dy < 15*15 {
					continue pixel
				}
			}
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if !cloth(x+dx, y+dy) {
						continue pixel
					}
				}
			}
			n++
		}
	}
	return n
}
