package cloth_test

import (
	"testing"
	"time"

	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/geom"
)

// TestFailsafeHoldsScriptedPins drives a scripted pin on the lower of two
// stacked sheets up into the upper one at 2 m/s. The upper sheet is held
// whole by scripted pins that stay put, so nothing can give way: the
// steps where they meet end in the collision failsafe (the free vertices
// held still for the step). Such a step is taken again with every pin
// held (cloth's errBlocked), and a pin so held falls behind its path.
// Checked with contact.IntersectingPairs over every face (the pinned ones
// too): the cloth never crosses itself. Without the hold the pin went on
// through the upper sheet and the cloth blew up (1970 m/s at step 15),
// as the gather's pins went through free cloth held by the failsafe in
// the viewer monkey's curtain-adaptive run (app.TestReplayCurtainMonkey).
func TestFailsafeHoldsScriptedPins(t *testing.T) {
	s, _ := stackedSheets(t, 0.03, 1e-8)
	const n = 13 // vertices per row of each sheet (stackedSheets: 12 × 12 cells)
	top := int32(n * n)
	still := &cloth.Path{Times: []float64{0}, Offsets: []geom.Vec3{{}}}
	for v := top; v < 2*top; v++ {
		if err := s.PinPath(v, still); err != nil {
			t.Fatal(err)
		}
	}
	mid := int32(n*(n/2) + n/2)
	path := &cloth.Path{Times: []float64{0, 0.1}, Offsets: []geom.Vec3{{}, {Y: 0.2}}}
	if err := s.PinPath(mid, path); err != nil {
		t.Fatal(err)
	}
	from := s.Mesh.Pos[mid]
	worst, behind := 0, 0.0
	var slowest, heldWall, heldTotal time.Duration
	held := 0
	for i := 0; i < 60; i++ {
		w0 := time.Now()
		st, err := s.Step()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		w := time.Since(w0)
		slowest = max(slowest, w)
		if st.Held > 0 {
			held++
			heldWall += w
			heldTotal += st.Total()
		}
		m := s.Mesh
		worst = max(worst, contact.IntersectingPairs(m.Pos, m.Tris))
		behind = max(behind, from.Add(path.At(s.Time)).Sub(m.Pos[mid]).Norm())
	}
	m := s.Mesh
	t.Logf("pin at y = %.3f m (path's end %.3f, the upper sheet at 0.03); %d failsafe steps; most behind its path %.3f m; most intersecting pairs %d; slowest step %v",
		m.Pos[mid].Y, from.Y+0.2, s.Failsafes(), behind, worst, slowest)
	t.Logf("%d steps held: their stats' total %v of %v wall", held, heldTotal, heldWall)
	if s.Failsafes() == 0 && behind == 0 {
		t.Fatalf("no step ended in the failsafe or held the pin: the test does not exercise the hold")
	}
	if worst > 0 {
		t.Errorf("the scripted pin went through the upper sheet: up to %d intersecting triangle pairs (every face counted)", worst)
	}
	if held == 0 {
		t.Errorf("no step's stats say it was held (StepStats.Held), yet the pin fell %.3f m behind its path", behind)
	} else if heldTotal < heldWall*7/10 {
		// The attempt given up is most of a held step's work; without it
		// in the stats they read 0.41 of the held steps' wall time.
		t.Errorf("the held steps' stats account for %v of their %v wall time: the given-up attempts' work is missing", heldTotal, heldWall)
	}
}
