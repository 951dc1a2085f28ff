package app

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestGUISprings uses the viewer on the mass-spring tablecloth (Olson &
// Rudnick fig. 6, dynamic subdivision): the Springs panel is there with
// its Δt slider, the four fixed particles are drawn, the cloth subdivides
// while it drapes (the deepest layer reaches the wireframe's generation
// colours through FaceGen), and a particle dragged with the mouse stays
// held while the cloth keeps stepping, finite.
func TestGUISprings(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	dir := outDir(t)
	state := filepath.Join(dir, "view_springs.json")
	v := startViewer(t, state, "--scene", "springs-tablecloth", "--speed", "0", "--msaa", "0")
	st := v.poll("the first state", func(s State) bool {
		_, ok := s.Widgets["springs dt"]
		return s.Frames >= 3 && ok && len(s.Pins) == 4
	})
	if st.Scene != "springs-tablecloth" || !st.Finite || !st.Has(BlockSprings) || st.Springs.MaxLayer != 2 {
		t.Fatalf("start: scene %q finite %v springs %+v", st.Scene, st.Finite, st.Springs)
	}
	st = v.poll("subdivision", func(s State) bool { return s.MaxGen >= 1 })
	t.Logf("subdivided: t = %.2f s, %d vertices, %d triangles, layers up to %d", st.Time, st.Vertices, st.Triangles, st.MaxGen)

	win := strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "windowfocus", "--sync", win)
	itoa := strconv.Itoa
	move := func(x, y int) { xdotool(t, "mousemove", "--window", win, itoa(x), itoa(y)) }
	// The centre particle lies between the four fixed ones.
	var cx, cy float32
	for _, p := range st.Pins {
		cx += p.Pixel[0] / 4
		cy += p.Pixel[1] / 4
	}
	x, y := int(cx), int(cy)
	move(x, y)
	v.poll("the hover", func(s State) bool { return s.Frames > st.Frames+3 })
	xdotool(t, "mousedown", "1")
	grab := v.poll("the grab", func(s State) bool { return s.Dragged >= 0 })
	for i := 1; i <= 15; i++ {
		move(x, y-6*i)
		time.Sleep(60 * time.Millisecond)
		if s, err := readState(state); err == nil && s.Dragged != grab.Dragged {
			t.Fatalf("drag of particle %d lost at t = %.2f s", grab.Dragged, s.Time)
		}
	}
	xdotool(t, "mouseup", "1")
	end := v.poll("the release", func(s State) bool { return s.Dragged == -1 })
	if !end.Finite || end.Steps <= grab.Steps || end.Error != "" {
		t.Errorf("after the drag: finite=%v steps %d→%d error %q", end.Finite, grab.Steps, end.Steps, end.Error)
	}
}
