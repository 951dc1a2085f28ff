package app

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/scene"
)

// pairTestScene is a small adaptive scene (testdata/sidebyside.json):
// 288 base triangles, 2592 at full resolution (g_max 4).
const pairTestScene = "testdata/sidebyside.json"

// TestPairScenes checks the pairs of runs side by side makes of a scene:
// which run adapts, to which g_max and with which criterion, the
// full-resolution run's even generation, the settings in force replacing
// the scene's, and the messages for scenes with nothing to compare.
func TestPairScenes(t *testing.T) {
	load := func(name string) *scene.Scene {
		sc, err := scene.LoadScene(assets.Scenes, name)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	curtain := load("curtain-adaptive")
	odd := curtain.Clone()
	odd.Adapt.GMax = 5
	off := curtain.Clone()
	off.Adapt.Enabled = false
	base := *curtain.Adapt
	base.GMax, base.Max = 4, 40
	for _, c := range []struct {
		name       string
		sc         *scene.Scene
		k          pairKind
		base       *cloth.AdaptParams
		left       func(a cloth.AdaptParams) bool
		right      func(a cloth.AdaptParams) bool
		note, fail string
	}{
		{name: "full | adaptive", sc: curtain, k: pairFullAdaptive,
			left:  func(a cloth.AdaptParams) bool { return !a.Enabled && a.FineStart && a.GMax == 6 },
			right: func(a cloth.AdaptParams) bool { return a.Enabled && !a.FineStart && a.GMax == 6 }},
		{name: "odd g_max", sc: odd, k: pairFullAdaptive, note: "full resolution at 4, adaptive to 5",
			left:  func(a cloth.AdaptParams) bool { return !a.Enabled && a.FineStart && a.GMax == 4 },
			right: func(a cloth.AdaptParams) bool { return a.Enabled && a.GMax == 5 }},
		{name: "adaptivity off in the scene", sc: off, k: pairFullAdaptive,
			left:  func(a cloth.AdaptParams) bool { return !a.Enabled && a.FineStart },
			right: func(a cloth.AdaptParams) bool { return a.Enabled }},
		{name: "two g_max", sc: curtain, k: pairTwoGMax,
			left:  func(a cloth.AdaptParams) bool { return a.Enabled && a.GMax == 5 && a.Base == 3 },
			right: func(a cloth.AdaptParams) bool { return a.Enabled && a.GMax == 6 }},
		{name: "two criteria", sc: curtain, k: pairTwoCriteria,
			left:  func(a cloth.AdaptParams) bool { return a.Enabled && a.GMax == 6 && a.Base == 6 && a.Max == 60 },
			right: func(a cloth.AdaptParams) bool { return a.Enabled && a.Base == 3 && a.Max == 30 }},
		{name: "settings in force", sc: curtain, k: pairFullAdaptive, base: &base,
			left:  func(a cloth.AdaptParams) bool { return !a.Enabled && a.GMax == 4 },
			right: func(a cloth.AdaptParams) bool { return a.Enabled && a.GMax == 4 && a.Max == 40 }},
		{name: "no adapt section", sc: load("curtain"), k: pairFullAdaptive, fail: "does not adapt"},
		{name: "springs", sc: load("springs-sheet"), k: pairFullAdaptive, fail: "mass-spring"},
	} {
		runs, note, err := pairScenes(c.sc, c.k, c.base)
		if c.fail != "" {
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("%s: got error %v, want one saying %q", c.name, err, c.fail)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !c.left(*runs[sideLeft].Adapt) || !c.right(*runs[sideRight].Adapt) {
			t.Errorf("%s: got left %+v, right %+v", c.name, *runs[sideLeft].Adapt, *runs[sideRight].Adapt)
		}
		if !strings.Contains(note, c.note) || (c.note == "") != (note == "") {
			t.Errorf("%s: got note %q, want %q", c.name, note, c.note)
		}
		if *c.sc.Adapt != *load(c.sc.Name).Adapt && c.sc == curtain {
			t.Errorf("%s: pairScenes changed the scene it was given", c.name)
		}
	}
	if _, _, err := pairScenes(curtain, pairKinds, nil); err == nil {
		t.Errorf("an unknown pair: got no error")
	}
}

// TestSplitLayout checks the split view's geometry: two views of equal
// width right of the sidebar, the strip below them, and which view a
// window x falls in.
func TestSplitLayout(t *testing.T) {
	l := splitLayout([2]float32{1280, 800}, 356, 170)
	want := pairLayout{view: [2][4]float32{{356, 0, 818, 630}, {818, 0, 1280, 630}}, strip: [4]float32{356, 630, 1280, 800}}
	if l != want {
		t.Errorf("layout: got=%v, want=%v", l, want)
	}
	if w, h := l.viewSize(); w != 462 || h != 630 {
		t.Errorf("view size: got=%vx%v, want=462x630", w, h)
	}
	for _, c := range []struct {
		x    float32
		side int
	}{{0, sideLeft}, {500, sideLeft}, {817, sideLeft}, {818, sideRight}, {1279, sideRight}} {
		if got := l.side(c.x); got != c.side {
			t.Errorf("side(%v): got=%d, want=%d", c.x, got, c.side)
		}
	}
	if short := splitLayout([2]float32{640, 300}, 0, 170); short.strip[1] != 200 {
		t.Errorf("a short window: strip from y = %v, want 200 (a third of the height)", short.strip[1])
	}
}

// TestSameVertex maps vertices between two meshes of the same cloth by
// material coordinates: a vertex both have maps to itself on the other,
// one the finer mesh alone has maps to the nearest, and a dead or unknown
// vertex to none.
func TestSameVertex(t *testing.T) {
	// from: ids 0..3 at the corners of a unit square plus id 5 at its
	// centre (id 4 is dead); to: the corners only, ids 10..13, in
	// another order.
	from := &Snapshot{Surface: Surface{Pos: make([]float32, 15), Rest: []float32{0, 0, 1, 0, 1, 1, 0, 1, 0.4, 0.45}},
		Slot: []int32{0, 1, 2, 3, 5}, DenseOf: []int32{0, 1, 2, 3, -1, 4}}
	to := &Snapshot{Surface: Surface{Pos: make([]float32, 12), Rest: []float32{1, 1, 0, 0, 0, 1, 1, 0}},
		Slot: []int32{12, 10, 13, 11}}
	for _, c := range []struct {
		v, want int32
		ok      bool
	}{{0, 10, true}, {1, 11, true}, {2, 12, true}, {3, 13, true}, {5, 10, true}, {4, -1, false}, {9, -1, false}, {-1, -1, false}} {
		got, ok := sameVertex(from, to, c.v)
		if got != c.want || ok != c.ok {
			t.Errorf("vertex %d: got=%d,%v, want=%d,%v", c.v, got, ok, c.want, c.ok)
		}
	}
	if _, ok := sameVertex(from, &Snapshot{Surface: Surface{Pos: make([]float32, 3)}, Slot: []int32{0}}, 0); ok {
		t.Errorf("a mesh without material coordinates: got a vertex, want none")
	}
}

// TestMeasureDistance: the same square 2 cm apart is 2 cm away at every
// vertex, RMS and max, relative to the diagonal; measured from the finer
// mesh's vertices, so a coarse surface that lies on a fine one is at
// distance 0 whichever side is which.
func TestMeasureDistance(t *testing.T) {
	square := func(n int, y float32) *surfaceCopy {
		s := &surfaceCopy{t: 1}
		for j := 0; j <= n; j++ {
			for i := 0; i <= n; i++ {
				s.pos = append(s.pos, float32(i)/float32(n), y, float32(j)/float32(n))
			}
		}
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				a := uint32(j*(n+1) + i)
				s.tris = append(s.tris, a, a+1, a+uint32(n)+2, a, a+uint32(n)+2, a+uint32(n)+1)
			}
		}
		return s
	}
	diag := math.Sqrt2
	d := measureDistance(square(4, 0), square(4, 0.02), diag)
	if d.Err != nil || math.Abs(d.RMS-0.02/diag) > 1e-6 || math.Abs(d.Max-0.02/diag) > 1e-6 || d.Time != 1 {
		t.Errorf("2 cm apart: got %+v, want RMS = max = %.6f at t = 1", d, 0.02/diag)
	}
	for _, c := range []struct {
		a, b *surfaceCopy
		ref  int
	}{{square(8, 0), square(2, 0), sideLeft}, {square(2, 0), square(8, 0), sideRight}} {
		d := measureDistance(c.a, c.b, diag)
		if d.Err != nil || d.RMS > 1e-6 || d.Reference != c.ref {
			t.Errorf("a coarse square on a fine one: got %+v, want 0 from the %s run's vertices", d, sideName(c.ref))
		}
	}
}

// testPair makes a pair of pairTestScene with loops that are not running:
// the tests read the commands queued (Loop.queue) and set the snapshots.
func testPair(t *testing.T, k pairKind) *sideBySide {
	t.Helper()
	p, err := newPair(pairOptions{src: pairTestScene, kind: k, paused: true, stepped: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	p.acquire()
	return p
}

// queued returns and clears the commands loop l has not taken yet.
func queued(l *Loop) []Command {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queue
	l.queue = nil
	return q
}

// recordingSink keeps the commands sent to it.
type recordingSink struct{ got []Command }

func (r *recordingSink) Send(c Command) { r.got = append(r.got, c) }

// TestPairSend checks where side by side sends each command: a pin drag
// to both runs, on the other run's vertex at the same material point; the
// adaptivity settings to the run edited, the other getting its own again;
// saving to the right run only; parameters to both runs and the single
// run; and, locked and running, every edit held for the step after the
// one the run ahead is taking.
func TestPairSend(t *testing.T) {
	p := testPair(t, pairFullAdaptive)
	single := &recordingSink{}
	p.single = single
	l, r := p.snaps[sideLeft], p.snaps[sideRight]
	if len(l.Pins) != 2 || len(r.Pins) != 2 || l.NumVerts() <= r.NumVerts() {
		t.Fatalf("the pair: left %d vertices, %d pins; right %d vertices, %d pins; want more on the left, 2 pins each", l.NumVerts(), len(l.Pins), r.NumVerts(), len(r.Pins))
	}
	for _, q := range p.loops {
		queued(q) // the parameter blocks newPair queued
	}
	// A pin moved on the left run reaches the right run's pin at the same
	// corner: the vertex at the same material point.
	pinL := l.Pins[1]
	p.sink(sideLeft).Send(Command{Kind: CmdMovePin, Vertex: pinL.Slot, Target: toVec3(pinL.Target)})
	gotL, gotR := queued(p.loops[sideLeft]), queued(p.loops[sideRight])
	if len(gotL) != 1 || len(gotR) != 1 || gotL[0].Vertex != pinL.Slot {
		t.Fatalf("a pin move: got left %v, right %v", gotL, gotR)
	}
	dl, dr := l.DenseOf[pinL.Slot], r.DenseOf[gotR[0].Vertex]
	if dr < 0 || l.Rest[2*dl] != r.Rest[2*dr] || l.Rest[2*dl+1] != r.Rest[2*dr+1] || findPin(r, gotR[0].Vertex) < 0 {
		t.Errorf("the right run's vertex %d is not the left run's pinned corner %d", gotR[0].Vertex, pinL.Slot)
	}
	if gotL[0].At != 0 || gotR[0].At != 0 {
		t.Errorf("unlocked: got At %v, %v, want 0 (at once)", gotL[0].At, gotR[0].At)
	}
	// Adaptivity edits go to the run edited only.
	p.edit = sideLeft
	a := l.Blocks.Adapt
	a.GMax = 2
	p.sink(-1).Send(setCmd(BlockAdapt, Blocks{Adapt: a}))
	gotL, gotR = queued(p.loops[sideLeft]), queued(p.loops[sideRight])
	if len(gotL) != 1 || gotL[0].Blocks.Adapt != a || len(gotR) != 1 || gotR[0].Blocks.Adapt != r.Blocks.Adapt || len(single.got) != 0 {
		t.Errorf("adaptivity edit of the left run: got left %v, right %v, single %v; want g_max 2 on the left, the right's own settings on the right, none on the single run", gotL, gotR, single.got)
	}
	// Saving writes the right run; parameters reach both and the single run.
	p.sink(-1).Send(Command{Kind: CmdSaveScene, Scene: "x.json"})
	if gotL, gotR = queued(p.loops[sideLeft]), queued(p.loops[sideRight]); len(gotL) != 0 || len(gotR) != 1 {
		t.Errorf("save: got %d commands on the left, %d on the right; want 0 and 1", len(gotL), len(gotR))
	}
	par := l.Blocks.Params
	par.YoungX *= 2
	p.sink(-1).Send(setCmd(BlockParams, Blocks{Params: par}))
	gotL, gotR = queued(p.loops[sideLeft]), queued(p.loops[sideRight])
	if len(gotL) != 1 || len(gotR) != 1 || gotL[0].Blocks.Params != par || gotR[0].Blocks.Params != par || len(single.got) != 1 || single.got[0].Blocks.Params != par {
		t.Errorf("a parameter edit: got left %d, right %d, single %d commands; want the new parameters on all three", len(gotL), len(gotR), len(single.got))
	}
	// Locked and running: held for the step after the one ahead.
	p.snaps[sideRight].Stats.Paused = false
	p.gate.mu.Lock()
	p.gate.t, p.gate.dt = [2]float64{0.5, 0.505}, [2]float64{0.005, 0.005}
	p.gate.mu.Unlock()
	p.setLocked(true)
	p.sink(-1).Send(setCmd(BlockParams, Blocks{Params: par}))
	p.sink(-1).Send(Command{Kind: CmdSetPaused, Paused: true})
	p.sink(-1).Send(Command{Kind: CmdStep})
	gotL, gotR = queued(p.loops[sideLeft]), queued(p.loops[sideRight])
	if len(gotL) != 3 || len(gotR) != 3 || math.Abs(gotL[0].At-0.51) > 1e-12 || gotR[0].At != gotL[0].At || gotL[1].At != gotL[0].At || gotR[1].At != gotL[0].At || gotL[2].At != 0 || gotR[2].At != 0 {
		t.Errorf("locked: got left %v, right %v; want the edit and the pause at t = 0.51 s in both, the step at once", gotL, gotR)
	}
}

// TestLoopHoldsTimedCommands: a command with a time (Command.At) waits
// until the running simulation reaches it, and the edits sent after it
// wait behind it, while commands without one (a step) pass; a paused
// loop, which will not reach the time, applies them at once.
func TestLoopHoldsTimedCommands(t *testing.T) {
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: pairTestScene})
	if err != nil {
		t.Fatal(err)
	}
	s0 := l.Snapshots().Acquire()
	dt, e0 := s0.Stats.Dt, s0.Blocks.Params.YoungX
	p1, p2 := s0.Blocks.Params, s0.Blocks.Params
	p1.YoungX, p2.YoungX = 2*e0, 3*e0
	c1, c2 := setCmd(BlockParams, Blocks{Params: p1}), setCmd(BlockParams, Blocks{Params: p2})
	c1.At, c2.At = 3*dt, dt // c2 due earlier, but sent after
	l.Send(c1)
	l.Send(c2)
	for k := 1; k <= 4; k++ {
		tick(l)            // a turn of Run: the commands due, then a step
		l.applyQueued(nil) // the next turn's commands, due at the new time
		want := e0
		if k >= 3 {
			want = p2.YoungX // both applied in order once t reached 3·Δt
		}
		if got := l.s.Blocks().Params.YoungX; got != want {
			t.Errorf("after step %d (t = %.3f s): E_x = %v, want %v", k, l.s.Time(), got, want)
		}
	}
	c1.At = 10 * dt
	l.Send(c1)
	l.Send(Command{Kind: CmdSetPaused, Paused: true})
	l.applyQueued(nil)
	if got := l.s.Blocks().Params.YoungX; got != p2.YoungX {
		t.Errorf("running, before t = %.3f s: E_x = %v, want %v", c1.At, got, p2.YoungX)
	}
	l.applyQueued(nil)
	if got := l.s.Blocks().Params.YoungX; !l.paused || got != p1.YoungX {
		t.Errorf("paused at t = %.3f s: E_x = %v, want %v at once", l.s.Time(), got, p1.YoungX)
	}
}

// TestLockGate runs a pair as fast as it can: unlocked, the adaptive run
// (288 triangles) runs ahead of the full-resolution one (2592); locked,
// the one ahead waits until they stand at the same time, stays within a
// step of the other, and the distance between the surfaces is measured;
// unlocked again, it runs ahead again.
func TestLockGate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two simulations for seconds")
	}
	var wg sync.WaitGroup
	p, err := newPair(pairOptions{src: pairTestScene, kind: pairFullAdaptive}, &wg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.close(); wg.Wait() }()
	ahead := func() float64 {
		tt, _ := p.gate.times()
		return tt[sideRight] - tt[sideLeft]
	}
	wait := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s (right run %.3f s ahead)", what, ahead())
			}
		}
	}
	wait("the adaptive run to run ahead", func() bool { return ahead() > 0.1 })
	p.setLocked(true)
	wait("the runs to meet", func() bool { return math.Abs(ahead()) < 0.0075 })
	tt, dt := p.gate.times()
	worst := 0.0
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		worst = max(worst, math.Abs(ahead()))
	}
	if worst > 1.5*dt {
		t.Errorf("locked: the runs were %.4f s apart, want at most a step (%v s)", worst, dt)
	}
	if t2, _ := p.gate.times(); t2[sideLeft] < tt[sideLeft]+10*dt {
		t.Errorf("locked: the left run went from %.3f to %.3f s in a second, want it running", tt[sideLeft], t2[sideLeft])
	}
	wait("a distance", func() bool { d, ok := p.dist.result(); return ok && d.Time >= tt[sideLeft] })
	if d, _ := p.dist.result(); d.Err != nil || !(d.RMS >= 0 && d.RMS <= d.Max && d.Max < 0.1) || d.Reference != sideLeft {
		t.Errorf("distance: got %+v, want the full-resolution run's vertices, RMS ≤ max < 10 %% of the diagonal", d)
	}
	p.setLocked(false)
	wait("the adaptive run to run ahead again", func() bool { return ahead() > 0.1 })
}

// TestPairEvents: what both runs say alike (a scene loaded or refused)
// is shown once, as it is; the rest is named by its run.
func TestPairEvents(t *testing.T) {
	var p sideBySide
	refused := errNoPair(&scene.Scene{Name: "hanging"})
	for k, c := range []struct {
		side int
		in   Event
		want string // "" for none shown
	}{
		{sideLeft, Event{Info: "loaded scene sphere-adaptive"}, "loaded scene sphere-adaptive"},
		{sideRight, Event{Info: "loaded scene sphere-adaptive"}, ""},
		{sideRight, Event{Err: refused}, refused.Error()},
		{sideLeft, Event{Err: refused}, ""},
		{sideLeft, Event{Info: "saved scene to x.json"}, "left run: saved scene to x.json"},
		{sideRight, Event{Err: errors.New("pinning: vertex 7 is not alive")}, "right run: pinning: vertex 7 is not alive"},
	} {
		e := p.named(c.side, c.in)
		got := e.Info
		if e.Err != nil {
			got = e.Err.Error()
		}
		if got != c.want {
			t.Errorf("event %d (%s run): got %q, want %q", k, sideName(c.side), got, c.want)
		}
	}
}

// tick does what one turn of Loop.Run does, without pacing or sleeping:
// it applies the commands due, then steps when one asked for it, or when
// running and its gate does not hold it.
func tick(l *Loop) {
	_, stepNow, dirty := l.applyQueued(nil)
	switch {
	case stepNow || !l.paused && (l.gate == nil || !l.gate.Hold(l, l.s.Time())):
		l.step()
	case dirty:
		l.publish(false)
	}
}

// lockedPair returns a locked pair of pairTestScene whose loops the test
// drives (tick), both run to t = 10·Δt.
func lockedPair(t *testing.T) *sideBySide {
	t.Helper()
	p := testPair(t, pairFullAdaptive)
	p.setLocked(true)
	p.sink(-1).Send(Command{Kind: CmdSetPaused, Paused: false})
	for range 10 {
		for _, l := range p.loops {
			tick(l)
		}
	}
	p.acquire()
	if l, r := p.snaps[sideLeft].Stats, p.snaps[sideRight].Stats; l.Paused || r.Paused || l.Steps != 10 || r.Steps != 10 {
		t.Fatalf("the locked pair: left %d steps (paused %v), right %d (paused %v); want 10 each, running", l.Steps, l.Paused, r.Steps, r.Paused)
	}
	return p
}

// TestPairLockedReset: locked and running, an edit made just before a
// reset, while it is held for the next step, applies to both runs before
// the reset (a parameter so set stays), and an edit made just after it,
// while one run has rebuilt and the other not yet, applies at once to
// both rebuilt runs instead of waiting for the old simulated time.
func TestPairLockedReset(t *testing.T) {
	p := lockedPair(t)
	t0 := p.snaps[sideRight].Stats.Time
	par := p.snaps[sideRight].Blocks.Params
	par.Density *= 2
	p.sink(-1).Send(setCmd(BlockParams, Blocks{Params: par}))
	p.sink(-1).Send(Command{Kind: CmdReset})
	for range 2 {
		for _, l := range p.loops {
			tick(l)
		}
	}
	p.acquire()
	for i, s := range p.snaps {
		if s.Blocks.Params.Density != par.Density || s.Stats.Time >= t0 {
			t.Errorf("an edit just before a reset: %s run at t = %.3f s has density %v, want %v after the reset", sideName(i), s.Stats.Time, s.Blocks.Params.Density, par.Density)
		}
	}

	// Run on, then reset: the left run rebuilds first, and the edit made
	// then is timed by the right run, which has not yet.
	for range 10 {
		for _, l := range p.loops {
			tick(l)
		}
	}
	p.acquire()
	p.sink(-1).Send(Command{Kind: CmdReset})
	tick(p.loops[sideLeft])
	p.acquire()
	par.Density *= 2
	p.sink(-1).Send(setCmd(BlockParams, Blocks{Params: par}))
	for range 3 {
		for _, l := range p.loops {
			tick(l)
		}
	}
	p.acquire()
	for i, s := range p.snaps {
		if s.Blocks.Params.Density != par.Density || len(p.loops[i].later) != 0 {
			t.Errorf("an edit just after a reset: %s run at t = %.3f s has density %v (%d commands held), want %v at once", sideName(i), s.Stats.Time, s.Blocks.Params.Density, len(p.loops[i].later), par.Density)
		}
	}
}

// TestPairLockedPause: pausing a locked pair while one run is a step
// ahead pauses both at the same simulated time.
func TestPairLockedPause(t *testing.T) {
	p := lockedPair(t)
	tick(p.loops[sideRight]) // the right run a step ahead
	p.acquire()
	if a, dt := p.ahead(), p.snaps[sideRight].Stats.Dt; math.Abs(a-dt) > dt/2 {
		t.Fatalf("the right run is %.4f s ahead, want a step (%v s)", a, dt)
	}
	p.sink(-1).Send(Command{Kind: CmdSetPaused, Paused: true})
	for range 6 {
		for _, l := range p.loops {
			tick(l)
		}
	}
	p.acquire()
	l, r := p.snaps[sideLeft].Stats, p.snaps[sideRight].Stats
	if !l.Paused || !r.Paused || l.Steps != r.Steps || l.Time != r.Time {
		t.Errorf("paused: left at t = %.4f s (step %d, paused %v), right at t = %.4f s (step %d, paused %v); want both paused at the same time", l.Time, l.Steps, l.Paused, r.Time, r.Steps, r.Paused)
	}
	// Paused, an edit applies at once to both.
	par := p.snaps[sideRight].Blocks.Params
	par.Density *= 2
	p.sink(-1).Send(setCmd(BlockParams, Blocks{Params: par}))
	for _, l := range p.loops {
		tick(l)
	}
	p.acquire()
	for i, s := range p.snaps {
		if s.Blocks.Params.Density != par.Density {
			t.Errorf("an edit while paused: %s run's density %v, want %v", sideName(i), s.Blocks.Params.Density, par.Density)
		}
	}
}

// TestPairUndoDiffering: side by side, Ctrl+Z undoes the person's last
// step in both runs, also where their histories differ: an adaptivity
// edit of one run (the other's copy is a step that changes nothing, so
// that both hold it and a new step clears both redo stacks), and a pin
// that one run alone took. Undo never undoes one step in one run and
// another in the other.
func TestPairUndoDiffering(t *testing.T) {
	p := testPair(t, pairFullAdaptive)
	run := func() {
		for _, l := range p.loops {
			tick(l)
		}
		p.acquire()
	}
	run()
	l0, r0 := p.snaps[sideLeft].Blocks, p.snaps[sideRight].Blocks
	par := r0.Params
	par.Density *= 2
	gestureSink{p.sink(-1), 1}.Send(setCmd(BlockParams, Blocks{Params: par}))
	run()
	a := r0.Adapt
	a.GMax = 2
	gestureSink{p.sink(-1), 2}.Send(setCmd(BlockAdapt, Blocks{Adapt: a}))
	run()
	want := func(what string, lp, rp cloth.Params, ra cloth.AdaptParams) {
		t.Helper()
		l, r := p.snaps[sideLeft].Blocks, p.snaps[sideRight].Blocks
		if l.Params != lp || r.Params != rp || r.Adapt != ra || l.Adapt != l0.Adapt {
			t.Errorf("%s: left density %v, g_max %d; right density %v, g_max %d; want left %v, %d; right %v, %d",
				what, l.Params.Density, l.Adapt.GMax, r.Params.Density, r.Adapt.GMax, lp.Density, l0.Adapt.GMax, rp.Density, ra.GMax)
		}
	}
	want("edited", par, par, a)
	if h := p.history(); h.Undo != 2 || h.UndoLabel != "set g_max generation" {
		t.Errorf("the pair's history: got %+v, want 2 steps, the last setting g_max", h)
	}
	undo, redo := Command{Kind: CmdUndo}, Command{Kind: CmdRedo}
	p.sink(-1).Send(undo)
	run()
	want("undo of the right run's g_max", par, par, r0.Adapt)
	p.sink(-1).Send(undo)
	run()
	want("undo of the density", l0.Params, r0.Params, r0.Adapt)
	p.sink(-1).Send(redo)
	run()
	p.sink(-1).Send(redo)
	run()
	want("redone", par, par, a)

	// A pin only the left run took (the right refused it): undone there
	// alone; the next undo undoes g_max in the right run.
	v := p.snaps[sideLeft].Slot[len(p.snaps[sideLeft].Slot)/2]
	x, _ := p.loops[sideLeft].s.(vertexPositioner).VertexPos(v)
	p.loops[sideLeft].Send(Command{Kind: CmdPin, Vertex: v, Target: x, Gesture: 3})
	run()
	if h := p.history(); h.UndoLabel != fmt.Sprintf("pin vertex %d", v) {
		t.Errorf("after a pin on the left only: the pair's history %+v, want it to undo the pin", h)
	}
	p.sink(-1).Send(undo)
	run()
	if _, ok := pinOf(p.loops[sideLeft], v); ok {
		t.Errorf("undo of the left run's pin: still pinned")
	}
	want("undo of the left run's pin", par, par, a)
	p.sink(-1).Send(undo)
	run()
	want("then undo of g_max", par, par, r0.Adapt)

	// A new step of one run's settings clears what both could redo.
	p.sink(-1).Send(undo)
	run()
	a.GMax = 3
	gestureSink{p.sink(-1), 4}.Send(setCmd(BlockAdapt, Blocks{Adapt: a}))
	run()
	p.sink(-1).Send(redo)
	run()
	want("redo after a new step", l0.Params, r0.Params, a)
	if h := p.history(); h.Redo != 0 {
		t.Errorf("after a new step: the pair's history %+v, want nothing to redo", h)
	}
}
