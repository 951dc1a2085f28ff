package app

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGUIDetail uses the Detail toggle as a person would: the hanging
// sheet paused at 1.5 s (its top sags between the pins, compressed), D
// switches the drawn cloth to the detail surface (Loop level 1: four
// faces per simulated face) and the picture changes where the cloth is,
// with the cloth still there and the background untouched; D again goes
// back to the simulation mesh. The screenshots are kept with
// DRAPE_TEST_OUT.
func TestGUIDetail(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	dir := outDir(t)
	state := filepath.Join(dir, "view_detail.json")
	v := startViewer(t, state, "--scene", "hanging", "--speed", "0", "--pause-at", "1.5", "--msaa", "0", "--record-dir", dir)
	st := v.poll("the pause at 1.5 s", func(s State) bool { return s.Paused && s.Frames >= 3 })
	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "windowfocus", "--sync", win)
	key := func(k string) { xdotool(t, "key", "--window", win, k) }
	screenshot := func(prev string) string {
		key("F12")
		s := v.poll("a screenshot", func(s State) bool { return lastShot(s) != prev })
		return lastShot(s)
	}
	plain := screenshot("")
	key("d")
	on := v.poll("the detail surface", func(s State) bool { return s.Detail != nil && s.Detail.Shown })
	if on.Detail.Triangles != 4*st.Triangles {
		t.Errorf("detail triangles %d, want 4 × %d", on.Detail.Triangles, st.Triangles)
	}
	detailed := screenshot(plain)
	t.Logf("detail: %q; screenshots %s, %s", on.Detail.Status, plain, detailed)

	// The box around and below the pins, between the panels (the legend,
	// which the uncoloured detail surface does not have, goes, and the
	// Help panel moves down).
	a, b := readPNG(t, plain), readPNG(t, detailed)
	lit := func(r, g, bl uint32) bool { return (r+g+bl)>>8 > 300 }
	changed, litA, litB, bgChanged := 0, 0, 0, 0
	x0 := int(min(st.Pins[0].Pixel[0], st.Pins[1].Pixel[0])) - 100
	x1 := int(max(st.Pins[0].Pixel[0], st.Pins[1].Pixel[0])) + 100
	y0 := int(min(st.Pins[0].Pixel[1], st.Pins[1].Pixel[1])) - 30
	for y := max(0, y0); y < min(a.Bounds().Dy(), y0+360); y++ {
		for x := max(0, x0); x < min(a.Bounds().Dx(), x1); x++ {
			ra, ga, ba, _ := a.At(x, y).RGBA()
			rb, gb, bb, _ := b.At(x, y).RGBA()
			la, lb := lit(ra, ga, ba), lit(rb, gb, bb)
			if la {
				litA++
			}
			if lb {
				litB++
			}
			diff := absDiff(ra, rb) + absDiff(ga, gb) + absDiff(ba, bb)
			if diff>>8 > 30 {
				changed++
				if !la && !lb {
					bgChanged++
				}
			}
		}
	}
	t.Logf("lit pixels %d plain, %d detailed; %d changed (%d of them dark in both)", litA, litB, changed, bgChanged)
	if litA < 4000 || litB < litA*8/10 || litB > litA*12/10 {
		t.Errorf("cloth pixels: %d plain, %d detailed; want at least 4000 and the same within 20 %%", litA, litB)
	}
	if changed < 1000 {
		t.Errorf("the detail surface changed %d pixels; want at least 1000", changed)
	}
	if bgChanged > changed/5 {
		t.Errorf("%d of the %d changed pixels are dark in both pictures; want the changes on the cloth", bgChanged, changed)
	}

	key("d")
	v.poll("the simulation mesh again", func(s State) bool { return s.Detail == nil })
	v.stopClean()
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
