package app

import (
	"context"
	"errors"
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
	gotL, gotR = queued(p.loops[sideLeft]), queued(p.loops[sideRight])
	if len(gotL) != 2 || math.Abs(gotL[0].At-0.51) > 1e-12 || gotR[0].At != gotL[0].At || gotL[1].At != 0 {
		t.Errorf("locked: got left %v, right %v; want the edit at t = 0.51 s in both, the pause at once", gotL, gotR)
	}
}

// TestLoopHoldsTimedCommands: a command with a time (Command.At) waits
// until the simulation reaches it, and the edits sent after it wait
// behind it, while commands without one (a step) pass.
func TestLoopHoldsTimedCommands(t *testing.T) {
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: pairTestScene, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	s0 := l.Snapshots().Acquire()
	dt := s0.Stats.Dt
	p1, p2 := s0.Blocks.Params, s0.Blocks.Params
	p1.YoungX, p2.YoungX = 2*s0.Blocks.Params.YoungX, 3*s0.Blocks.Params.YoungX
	c1, c2 := setCmd(BlockParams, Blocks{Params: p1}), setCmd(BlockParams, Blocks{Params: p2})
	c1.At, c2.At = 3*dt, dt // c2 due earlier, but sent after
	l.Send(c1)
	l.Send(c2)
	step := func() *Snapshot {
		want := l.Snapshots().Acquire().Stats.Steps + 1
		l.Send(Command{Kind: CmdStep})
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if s := l.Snapshots().Acquire(); s.Stats.Steps >= want {
				time.Sleep(20 * time.Millisecond) // the publish after the commands that came due
				return l.Snapshots().Acquire()
			}
		}
		t.Fatalf("no step")
		return nil
	}
	for k := 1; k <= 4; k++ {
		s := step()
		want := s0.Blocks.Params.YoungX
		switch {
		case k == 3:
			want = p2.YoungX // both applied in order once t reached 3·dt
		case k > 3:
			want = p2.YoungX
		}
		if s.Blocks.Params.YoungX != want {
			t.Errorf("after step %d (t = %.3f s): E_x = %v, want %v", k, s.Stats.Time, s.Blocks.Params.YoungX, want)
		}
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
