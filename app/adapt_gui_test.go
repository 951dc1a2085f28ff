package app

import (
	"image"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"drape/render"
)

// TestGUIAdaptive uses the viewer on the adaptive curtain as a person
// would (Bender & Deul §5 and fig. 6). While the curtain gathers and
// refines, a free vertex dragged with the mouse stays held. Paused, F12
// saves the frame without and then with the wireframe (W), whose edges
// must add the colours of several generations. The g_max slider, dragged
// to 0, coarsens the mesh back to its 820 base triangles, and the
// triangle plot then spans the rise and the fall. With the checkbox off
// and g_max 4 typed in, the reset curtain folds without refining until
// the box is ticked again, and then refines to generation 4 at most.
func TestGUIAdaptive(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	dir := outDir(t)
	state := filepath.Join(dir, "view_adaptive.json")
	// Without self-collision: faces in contact are held (adapt.Adapter.Hold),
	// so the gathered curtain would not coarsen to its base with g_max 0.
	v := startViewer(t, state, "--scene", "testdata/curtain-adaptive-noself.json", "--speed", "0", "--msaa", "0", "--record-dir", dir)
	st := v.poll("the first state", func(s State) bool {
		_, ok := s.Widgets["g_max"]
		return s.Frames >= 3 && ok && len(s.Pins) > 10
	})
	if st.Triangles != 820 || !st.Adapt.Enabled || st.Adapt.GMax != 6 {
		t.Fatalf("start: got %d triangles, adapt %+v, want the 820 base triangles, adaptivity on, g_max 6", st.Triangles, st.Adapt)
	}
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "windowfocus", "--sync", win)
	itoa := strconv.Itoa
	key := func(k string) { xdotool(t, "key", "--window", win, k) }
	move := func(x, y int) { xdotool(t, "mousemove", "--window", win, itoa(x), itoa(y)) }
	// settle waits for a state drawn a few frames after the last input:
	// the viewer sees X events between frames, and ImGui acts on them
	// in the next frame.
	settle := func() State {
		cur, err := readState(state)
		if err != nil {
			t.Fatal(err)
		}
		return v.poll("a fresh frame", func(s State) bool { return s.Frames > cur.Frames+3 })
	}
	// A message line appears at the top of the sidebar after a
	// screenshot and moves the panels down, so controls are looked up in
	// a settled state.
	widget := func(name string) [4]float32 {
		s := settle()
		r, ok := s.Widgets[name]
		if !ok {
			t.Fatalf("control %q not on screen: %v", name, s.Widgets)
		}
		return r
	}
	click := func(name string, fx float32) {
		r := widget(name)
		move(int(r[0]+fx*(r[2]-r[0])), int((r[1]+r[3])/2))
		time.Sleep(200 * time.Millisecond)
		xdotool(t, "click", "1")
	}
	screenshot := func(prev string) string {
		key("F12")
		s := v.poll("a screenshot", func(s State) bool { return lastShot(s) != prev })
		return lastShot(s)
	}

	// The curtain gathers from 5 s on; by then its folds are refined.
	st = v.poll("refinement", func(s State) bool { return s.Triangles > 2500 && s.MaxGen >= 4 })
	t.Logf("refined: t = %.2f s, %d triangles, generations up to %d", st.Time, st.Triangles, st.MaxGen)

	// Drag a free vertex well below the rail while the mesh adapts.
	xs := make([]float32, 0, len(st.Pins))
	var railY float32
	for _, p := range st.Pins {
		xs = append(xs, p.Pixel[0])
		railY = max(railY, p.Pixel[1])
	}
	slices.Sort(xs)
	x, y := int(xs[len(xs)/2]), int(railY)+150
	move(x, y)
	v.poll("the hover", func(s State) bool { return s.Frames > st.Frames+3 })
	xdotool(t, "mousedown", "1")
	grab := v.poll("the grab", func(s State) bool { return s.Dragged >= 0 })
	tris := map[int]bool{grab.Triangles: true}
	for i := 1; i <= 20; i++ {
		move(x+4*i, y+2*i)
		time.Sleep(60 * time.Millisecond)
		s, err := readState(state)
		if err != nil {
			continue
		}
		if s.Dragged < 0 {
			t.Fatalf("drag lost at t = %.2f s (%d triangles)", s.Time, s.Triangles)
		}
		tris[s.Triangles] = true
	}
	xdotool(t, "mouseup", "1")
	end := v.poll("the release", func(s State) bool { return s.Dragged == -1 })
	if len(tris) < 2 || !end.Finite {
		t.Errorf("drag: saw triangle counts %v while dragging (want the mesh to change under the cursor), finite=%v", tris, end.Finite)
	}

	// Paused, a screenshot without and one with the wireframe (W): the
	// second adds edges in the generation colours. The pins' markers and
	// the curvature colours share some of those colours, which the
	// difference cancels.
	key("space")
	v.poll("the pause", func(s State) bool { return s.Paused })
	plain := screenshot("")
	key("w")
	wired := screenshot(plain)
	before, after := generationPixels(readPNG(t, plain)), generationPixels(readPNG(t, wired))
	var added [6]int
	seen := 0
	for g := range added {
		added[g] = after[g] - before[g]
		if added[g] >= 100 {
			seen++
		}
	}
	t.Logf("%s → %s: pixels added per generation colour 1..6: %v", plain, wired, added)
	if seen < 3 {
		t.Errorf("wireframe by generation: pixels added in the colours of generations 1..6 got=%v, want at least 100 of three of them", added)
	}
	key("space")

	// g_max to 0 with the slider: everything coarsens back.
	click("g_max", 0.01)
	v.poll("g_max 0 and the base mesh", func(s State) bool {
		return s.Adapt.GMax == 0 && s.Triangles == 820 && s.MaxGen == 0
	})
	time.Sleep(500 * time.Millisecond) // a few more samples at 820
	shot := screenshot(wired)
	span := plotSpan(readPNG(t, shot), widget("triangles plot"))
	t.Logf("%s: the triangle plot's line spans %.2f of its height", shot, span)
	if span < 0.5 {
		t.Errorf("triangle plot: the line spans %.2f of the plot's height, want ≥ 0.5 (up to the peak and back to 820)", span)
	}

	// Adaptivity off and g_max 4 typed in (Ctrl+click), then Reset (R),
	// which keeps the settings: the curtain gathers and folds again
	// without refining, until the box is ticked.
	click("adaptive", 0.05)
	v.poll("adaptivity off", func(s State) bool { return !s.Adapt.Enabled })
	// Typed while paused: the gathered curtain with self-collision keeps
	// both cores busy, and frames slower than the key taps lose the
	// Ctrl of Ctrl+A on a loaded machine.
	key("space")
	v.poll("the pause to type", func(s State) bool { return s.Paused })
	xdotool(t, "keydown", "ctrl")
	click("g_max", 0.5)
	xdotool(t, "keyup", "ctrl")
	time.Sleep(300 * time.Millisecond)
	xdotool(t, "key", "--delay", "150", "ctrl+a", "4", "Return")
	v.poll("g_max 4", func(s State) bool { return s.Adapt.GMax == 4 })
	key("space")
	v.poll("running again", func(s State) bool { return !s.Paused })
	// "4" applies as it is typed; Return leaves the text field, which
	// until then takes the keys.
	four := settle()
	// The coarse curtain steps fast, so poll for fewer steps than before
	// rather than for an early time; pause in the folded phase (Space)
	// to tick the box before it opens again.
	key("r")
	v.poll("the reset", func(s State) bool { return s.Steps < four.Steps })
	v.poll("the gather", func(s State) bool { return s.Time > 6.5 })
	key("space")
	off := v.poll("the pause", func(s State) bool { return s.Paused })
	if off.Triangles != 820 || off.Adapt.Enabled || off.Adapt.GMax != 4 || off.Time > 9 {
		t.Errorf("gathered with adaptivity off: got %d triangles at t = %.2f s, adapt %+v, want 820 before 9 s, off, g_max 4",
			off.Triangles, off.Time, off.Adapt)
	}
	click("adaptive", 0.05)
	v.poll("adaptivity on", func(s State) bool { return s.Adapt.Enabled })
	key("space")
	on := v.poll("refinement with adaptivity on", func(s State) bool { return s.Triangles > 820 })
	on = v.poll("a few adaptations", func(s State) bool { return s.Steps > on.Steps+50 })
	if on.MaxGen > 4 || on.MaxGen == 0 {
		t.Errorf("adaptivity on with g_max 4: deepest generation %d, want 1..4", on.MaxGen)
	}
	t.Logf("g_max 4: %d triangles at t = %.2f s", on.Triangles, on.Time)

	v.stop()
	final, err := readState(state)
	if err != nil {
		t.Fatal(err)
	}
	if !final.Finite || final.GLErrors != 0 {
		t.Errorf("at exit: finite=%v gl_errors=%d (%s)", final.Finite, final.GLErrors, final.Error)
	}
}

// lastShot returns the path of the last screenshot the messages report.
func lastShot(s State) string {
	shot := ""
	for _, m := range s.Messages {
		if p, ok := strings.CutPrefix(m, "saved screenshot "); ok {
			shot = p
		}
	}
	return shot
}

// generationPixels counts, in the 3D view between the side panels, the
// pixels whose colour is that of wireframe generation g = 1..6 (the
// palette at the wire's alpha of 0.85 over the cloth, within 40 per
// channel).
func generationPixels(img image.Image) [6]int {
	var n [6]int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := 360; x < b.Max.X-330; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := [3]float32{float32(r >> 8), float32(g >> 8), float32(bl >> 8)}
			for k, p := range render.GenerationColors {
				near := true
				for i := range 3 {
					if abs32(c[i]-255*p[i]) > 40 {
						near = false
					}
				}
				if near {
					n[k]++
					break
				}
			}
		}
	}
	return n
}

// plotSpan returns the fraction of the plot rectangle r's height (below
// its caption) that ImGui's grey plot line covers.
func plotSpan(img image.Image, r [4]float32) float64 {
	top, bottom := int(r[1])+20, int(r[3])-2
	lo, hi := bottom, top
	for y := top; y < bottom; y++ {
		for x := int(r[0]) + 2; x < int(r[2])-2; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			c := [3]int{int(cr >> 8), int(cg >> 8), int(cb >> 8)}
			if c[0] > 120 && c[0] < 190 && absInt(c[0]-c[1]) < 10 && absInt(c[1]-c[2]) < 10 {
				lo, hi = min(lo, y), max(hi, y)
			}
		}
	}
	if hi < lo {
		return 0
	}
	return float64(hi-lo) / float64(bottom-top)
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
