package app

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
)

// TestLoopCommands drives a paused hanging sheet through the commands the
// UI sends and checks each one's effect on the published snapshots.
func TestLoopCommands(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	stop := runLoop(t, l)
	s := l.Snapshots().Acquire()
	if s.Stats.Steps != 0 || !s.Stats.Paused || len(s.Pins) != 2 {
		t.Fatalf("start: got steps=%d paused=%v pins=%d, want 0, true, 2", s.Stats.Steps, s.Stats.Paused, len(s.Pins))
	}
	corner := s.Pins[0]

	l.Send(Command{Kind: CmdStep})
	waitFor(t, l, "one step", func(s *Snapshot) bool { return s.Stats.Steps == 1 })

	// Moving a pin: the target and, after a step, the vertex follow, at
	// cloth.HandSpeed.
	from := toVec3(corner.Target)
	goal := geom.Vec3{X: from.X + 0.2, Y: from.Y + 0.1, Z: from.Z}
	l.Send(Command{Kind: CmdMovePin, Vertex: corner.Slot, Target: goal})
	l.Send(Command{Kind: CmdStep})
	s = waitFor(t, l, "moved pin", func(s *Snapshot) bool { return s.Stats.Steps == 2 })
	p := s.Pins[findPin(s, corner.Slot)]
	d := goal.Sub(from)
	want := from.Add(d.Scale(cloth.HandSpeed * s.Stats.Dt / d.Norm()))
	if got := toVec3(p.Pos); got.Sub(want).Norm() > 1e-5 {
		t.Errorf("pinned vertex after move: got=%v, want=%v (%g m/s towards %v)", got, want, cloth.HandSpeed, goal)
	}

	// Pin toggling.
	l.Send(Command{Kind: CmdUnpin, Vertex: corner.Slot})
	waitFor(t, l, "unpinned", func(s *Snapshot) bool { return len(s.Pins) == 1 })
	l.Send(Command{Kind: CmdPin, Vertex: 0, Target: toVec3(s.Vertex(int(s.DenseOf[0])))})
	waitFor(t, l, "pinned vertex 0", func(s *Snapshot) bool { return len(s.Pins) == 2 && s.Pins[0].Slot == 0 })

	// Parameters: a valid change is applied, an invalid one reported and
	// the old value kept.
	p2 := s.Blocks.Params
	p2.Density = 0.2
	l.Send(setCmd(BlockParams, Blocks{Params: p2}))
	waitFor(t, l, "density 0.2", func(s *Snapshot) bool { return s.Blocks.Params.Density == 0.2 })
	bad := p2
	bad.PoissXY = 1.5
	seq := l.Snapshots().Acquire().EditSeq
	l.Send(setCmd(BlockParams, Blocks{Params: bad}))
	rej := waitFor(t, l, "parameters answered", func(s *Snapshot) bool { return s.EditSeq == seq+1 })
	if !strings.Contains(rej.EditErr, "params settings rejected") || !strings.Contains(rej.EditErr, "nu_xy") {
		t.Errorf("rejected parameters: got EditErr=%q, want it to name nu_xy", rej.EditErr)
	}
	if got := rej.Blocks.Params.PoissXY; got != p2.PoissXY {
		t.Errorf("rejected parameters applied: nu_xy got=%v, want=%v", got, p2.PoissXY)
	}
	if ev := l.Events(); len(ev) != 0 {
		t.Errorf("a rejected edit also sent events %v; the snapshot is its one channel", ev)
	}

	// A bad scene file keeps the running scene.
	l.Send(Command{Kind: CmdLoadScene, Scene: "no/such/scene.json"})
	waitForEvent(t, l, "scene.json")
	if s := l.Snapshots().Acquire(); s.Scene != "hanging" || s.Stats.Steps < 2 {
		t.Errorf("after a bad load: got scene %q at step %d, want hanging still running", s.Scene, s.Stats.Steps)
	}

	// Reset keeps the edited parameters and starts a new epoch.
	epoch := l.Snapshots().Acquire().Epoch
	l.Send(Command{Kind: CmdReset})
	s = waitFor(t, l, "reset", func(s *Snapshot) bool { return s.Epoch == epoch+1 })
	if s.Stats.Steps != 0 || s.Blocks.Params.Density != 0.2 || len(s.Pins) != 2 {
		t.Errorf("after reset: got steps=%d density=%v pins=%d, want 0, 0.2, 2", s.Stats.Steps, s.Blocks.Params.Density, len(s.Pins))
	}

	// Resume: steps advance on their own.
	l.Send(Command{Kind: CmdSetSpeed, Speed: 0})
	l.Send(Command{Kind: CmdSetPaused, Paused: false})
	waitFor(t, l, "running", func(s *Snapshot) bool { return s.Stats.Steps >= 5 && !s.Stats.Paused })

	// Scene change.
	l.Send(Command{Kind: CmdLoadScene, Scene: "hanging-irregular"})
	waitFor(t, l, "scene change", func(s *Snapshot) bool { return s.Scene != "hanging" })
	stop()
}

// TestLoopAdapt sends adaptivity settings to a hanging sheet, which has
// none of its own, and checks that they are applied between steps: the
// sim's AdaptParams change, and once the sheet has curved the mesh
// refines. An invalid edit (l_gmax < l_base) is reported in the snapshot
// and leaves the settings in force; a valid one clears the error; Reset
// keeps the settings and a scene load takes the scene's.
func TestLoopAdapt(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	runLoop(t, l)
	s := l.Snapshots().Acquire()
	if s.Blocks.Adapt != (cloth.AdaptParams{}) || s.EditErr != "" || s.EditSeq != 0 {
		t.Fatalf("start: got adapt=%+v err=%q seq=%d, want none", s.Blocks.Adapt, s.EditErr, s.EditSeq)
	}
	tris0 := s.Stats.Triangles

	// CmdSteps sent in one batch take one step, so step one at a time.
	stepTo := func(n int) *Snapshot {
		for k := l.Snapshots().Acquire().Stats.Steps; k < n; k++ {
			l.Send(Command{Kind: CmdStep})
			waitFor(t, l, "a step", func(s *Snapshot) bool { return s.Stats.Steps == k+1 })
		}
		return l.Snapshots().Acquire()
	}

	// Let the sheet swing down and curve, still unrefined.
	s = stepTo(20)
	if s.Stats.Triangles != tris0 {
		t.Fatalf("without adaptivity: got %d triangles, want %d", s.Stats.Triangles, tris0)
	}

	ap := cloth.DefaultAdaptParams()
	ap.Base, ap.Max, ap.GMax, ap.Interval = 0.5, 5, 2, 1
	l.Send(setCmd(BlockAdapt, Blocks{Adapt: ap}))
	s = waitFor(t, l, "settings applied", func(s *Snapshot) bool { return s.EditSeq == 1 })
	if s.Blocks.Adapt != ap || s.EditErr != "" || s.Stats.Steps != 20 {
		t.Errorf("after setting adapt: got adapt=%+v err=%q steps=%d, want %+v, no error, no step taken", s.Blocks.Adapt, s.EditErr, s.Stats.Steps, ap)
	}
	s = stepTo(23)
	if s.Stats.Triangles <= tris0 || s.Stats.LastAdapt.Refined == 0 {
		t.Errorf("after enabling on a curved sheet: got %d triangles, %d refined, want more than %d triangles", s.Stats.Triangles, s.Stats.LastAdapt.Refined, tris0)
	}
	maxGen := uint8(0)
	for _, g := range s.FaceGen {
		maxGen = max(maxGen, g)
	}
	if maxGen == 0 || int(maxGen) > ap.GMax {
		t.Errorf("deepest generation: got=%d, want in [1, %d]", maxGen, ap.GMax)
	}

	bad := ap
	bad.Max = bad.Base / 2
	l.Send(setCmd(BlockAdapt, Blocks{Adapt: bad}))
	s = waitFor(t, l, "rejected settings", func(s *Snapshot) bool { return s.EditSeq == 2 })
	if !strings.Contains(s.EditErr, "settings rejected") || !strings.Contains(s.EditErr, "l_gmax") || s.Blocks.Adapt != ap {
		t.Errorf("after l_gmax < l_base: got err=%q adapt=%+v, want an adaptivity error and %+v kept", s.EditErr, s.Blocks.Adapt, ap)
	}
	if !s.Stats.Finite || s.Stats.Err != "" {
		t.Errorf("a rejected edit disturbed the simulation: finite=%v err=%q", s.Stats.Finite, s.Stats.Err)
	}

	off := ap
	off.Enabled = false
	l.Send(setCmd(BlockAdapt, Blocks{Adapt: off}))
	s = waitFor(t, l, "switched off", func(s *Snapshot) bool { return s.EditSeq == 3 })
	if s.EditErr != "" || s.Blocks.Adapt != off {
		t.Errorf("after a valid edit: got err=%q adapt=%+v, want no error and %+v", s.EditErr, s.Blocks.Adapt, off)
	}

	epoch := s.Epoch
	l.Send(Command{Kind: CmdReset})
	s = waitFor(t, l, "reset", func(s *Snapshot) bool { return s.Epoch == epoch+1 })
	if s.Blocks.Adapt != off {
		t.Errorf("after reset: got adapt=%+v, want the settings in force %+v", s.Blocks.Adapt, off)
	}

	l.Send(Command{Kind: CmdLoadScene, Scene: "curtain-adaptive"})
	s = waitFor(t, l, "curtain-adaptive", func(s *Snapshot) bool { return s.Scene == "curtain-adaptive" })
	if want := cloth.DefaultAdaptParams(); s.Blocks.Adapt != want {
		t.Errorf("after loading curtain-adaptive: got adapt=%+v, want the scene's %+v", s.Blocks.Adapt, want)
	}
}

// waitForEvent waits for an error event containing substr.
func waitForEvent(t *testing.T, l *Loop, substr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range l.Events() {
			if e.Err != nil && strings.Contains(e.Err.Error(), substr) {
				return
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no error event containing %q", substr)
}

// TestLoopUnstable sets gravity to 10⁴ m/s², the largest the table
// allows, and strain limiting on at its loosest (10, eleven times the
// rest length: off, cloth.SafetyStrain would hold the sheet within
// twice its length, and it hangs on at that gravity): within 20 steps
// the free vertices pass the simulation's speed limit (a drag can no
// longer do that: its anchor moves at cloth.HandSpeed), the step fails
// with cloth.ErrUnstable even after the substep failsafe, and the loop
// must pause, keep the last good (finite) state and report the error
// until Reset.
func TestLoopUnstable(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	runLoop(t, l)
	s := l.Snapshots().Acquire()
	sp := s.Blocks.Strain
	sp.Enabled, sp.MaxWeft, sp.MaxWarp = true, 10, 10
	l.Send(setCmd(BlockStrain, Blocks{Strain: sp}))
	waitFor(t, l, "the strain limit", func(s *Snapshot) bool { return s.Blocks.Strain == sp })
	p := s.Blocks.Params
	p.Gravity = geom.Vec3{Y: -1e4}
	l.Send(setCmd(BlockParams, Blocks{Params: p}))
	waitFor(t, l, "the gravity", func(s *Snapshot) bool { return s.Blocks.Params.Gravity == p.Gravity })
	for i := 0; i < 40 && s.Stats.Err == ""; i++ { // one step at a time: steps sent together are one
		steps := s.Stats.Steps
		l.Send(Command{Kind: CmdStep})
		s = waitFor(t, l, "a step", func(s *Snapshot) bool { return s.Stats.Steps > steps || s.Stats.Err != "" })
	}
	if s.Stats.Err == "" {
		t.Fatalf("no error after %d steps at 10⁴ m/s²", s.Stats.Steps)
	}
	if !s.Stats.Paused || !s.Stats.Finite || !strings.Contains(s.Stats.Err, "unstable") {
		t.Errorf("after blow-up: got paused=%v finite=%v err=%q, want paused, finite, an unstable message", s.Stats.Paused, s.Stats.Finite, s.Stats.Err)
	}
	for _, x := range s.Pos {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("snapshot after blow-up has non-finite position %v", x)
		}
	}
	// Resume is refused; Reset clears the error.
	l.Send(Command{Kind: CmdSetPaused, Paused: false})
	l.Send(Command{Kind: CmdReset})
	s = waitFor(t, l, "reset", func(s *Snapshot) bool { return s.Stats.Err == "" })
	if !s.Stats.Paused || s.Stats.Steps != 0 {
		t.Errorf("after reset: got paused=%v steps=%d, want paused at step 0", s.Stats.Paused, s.Stats.Steps)
	}
}

// TestLoopPauseAt: the simulation pauses itself once at the requested
// simulated time, exactly on the step that reaches it, and runs on when
// resumed.
func TestLoopPauseAt(t *testing.T) {
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: "hanging", PauseAt: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	defer runLoop(t, l)()
	s := waitFor(t, l, "the pause", func(s *Snapshot) bool { return s.Stats.Paused })
	if s.Stats.Steps != 20 || math.Abs(s.Stats.Time-0.1) > 1e-9 {
		t.Errorf("paused at: got step %d, t=%v s, want step 20, t=0.1 s (Δt = 5 ms)", s.Stats.Steps, s.Stats.Time)
	}
	l.Send(Command{Kind: CmdSetPaused, Paused: false})
	waitFor(t, l, "stepping on", func(s *Snapshot) bool { return s.Stats.Steps > 25 && !s.Stats.Paused })
}

// TestLoopBadScene: NewLoop reports a missing scene.
func TestLoopBadScene(t *testing.T) {
	_, err := NewLoop(LoopOptions{Scene: "nonexistent-scene"})
	if err == nil || !strings.Contains(err.Error(), "nonexistent-scene") {
		t.Errorf("NewLoop(nonexistent): got=%v, want an error naming the scene", err)
	}
}

// TestPacer feeds the pacer a synthetic timeline.
func TestPacer(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }
	const dt = 0.005
	for _, c := range []struct {
		name  string
		speed float64
		now   time.Time
		t     float64 // simulated time before the step, s
		want  time.Duration
	}{
		{"unpaced", 0, ms(0), 10, 0},
		{"real time, first step anchors", 1, ms(0), 0, 0},
		{"real time, next step due in 5 ms", 1, ms(0), dt, 5 * time.Millisecond},
		{"real time, on schedule", 1, ms(5), dt, 0},
		{"real time, 2 ms early", 1, ms(8), 2 * dt, 2 * time.Millisecond},
		{"half speed waits twice as long", 0.5, ms(0), dt, 10 * time.Millisecond},
	} {
		p := pacer{speed: c.speed}
		p.wait(t0, 0, dt) // anchor at t0, simulated time 0
		if got := p.wait(c.now, c.t, dt); got != c.want && !(c.want == 0 && got <= 0) {
			t.Errorf("%s: got=%v, want=%v", c.name, got, c.want)
		}
	}

	// A simulation that is far behind (each step takes 50 ms of wall time
	// at 5 ms of simulated time) is re-anchored rather than allowed to
	// bank the lost time: after it speeds up again it must wait, not burst.
	p := pacer{speed: 1}
	p.wait(t0, 0, dt)
	simT := 0.0
	for i := 1; i <= 10; i++ {
		simT += dt
		p.wait(ms(50*float64(i)), simT, dt)
	}
	now := ms(500)
	burst := 0
	for p.wait(now, simT, dt) <= 0 && burst < 100 {
		simT += dt
		burst++
	}
	if burst > maxCatchUpSteps+1 {
		t.Errorf("catch-up burst: got=%d steps, want at most %d", burst, maxCatchUpSteps+1)
	}
}

// TestWeightedPercentile checks the quantile used by the automatic colour
// range: with equal weights it is the plain percentile; with weights, a
// crowd of light vertices (a refined fold) does not decide it.
func TestWeightedPercentile(t *testing.T) {
	x := make([]weighted, 101)
	for i := range x {
		x[i] = weighted{float32(100 - i), 1}
	}
	for _, c := range []struct {
		q    float64
		want float32
	}{{0, 0}, {0.5, 50}, {0.98, 98}, {1, 100}} {
		if got := weightedPercentile(append([]weighted(nil), x...), c.q); got != c.want {
			t.Errorf("weightedPercentile(%v): got=%v, want=%v", c.q, got, c.want)
		}
	}
	if got := weightedPercentile(nil, 0.5); got != 0 {
		t.Errorf("weightedPercentile(empty): got=%v, want=0", got)
	}
	// 100 coarse vertices at |H| = 1 (weight 1 each) and 100 fine ones at
	// |H| = 10 (weight 0.01): by count the 98th percentile is 10, by area 1.
	var y []weighted
	for i := 0; i < 100; i++ {
		y = append(y, weighted{1, 1})
	}
	for i := 0; i < 100; i++ {
		y = append(y, weighted{10, 0.01})
	}
	if got := weightedPercentile(y, 0.98); got != 1 {
		t.Errorf("weightedPercentile(graded): got=%v, want=1", got)
	}
	// The selection against a sort and a scan, on random values with
	// repeats, zero weights and NaNs, at quantiles that land on the
	// boundaries between values.
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(40)
		z := make([]weighted, n)
		for i := range z {
			z[i] = weighted{float32(rng.IntN(8)), float32(rng.IntN(3))}
			if rng.IntN(20) == 0 {
				z[i].v = float32(math.NaN())
			}
		}
		q := float64(rng.IntN(11)) / 10
		ref := append([]weighted(nil), z...)
		slices.SortFunc(ref, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
		var total float64
		for _, e := range ref {
			total += float64(e.w)
		}
		want, acc := ref[len(ref)-1].v, 0.0
		for _, e := range ref {
			acc += float64(e.w)
			if acc >= q*total {
				want = e.v
				break
			}
		}
		if got := weightedPercentile(z, q); cmp.Compare(got, want) != 0 {
			t.Fatalf("weightedPercentile(%v, %v): got=%v, want=%v (by sorting)", ref, q, got, want)
		}
	}
}

var _ = errors.Is

// TestLoopBusy: Busy is 0 between steps and the time since the step
// began while one runs (the loop's clock), for --state's step_busy_s.
func TestLoopBusy(t *testing.T) {
	var l Loop
	clock := time.Unix(100, 0)
	l.now = func() time.Time { return clock }
	if b := l.Busy(); b != 0 {
		t.Errorf("Busy between steps: got=%v, want=0", b)
	}
	l.stepping.Store(clock.UnixNano())
	clock = clock.Add(3 * time.Second)
	if b := l.Busy(); b != 3*time.Second {
		t.Errorf("Busy 3 s into a step: got=%v, want=3s", b)
	}
}

// TestPublishReusesCurvature: a step whose last snapshot the viewer has
// not taken publishes the curvature of the one before (Loop.publish,
// femModel.Surface's reuse) with the new positions; a step after the
// viewer took it, and the snapshot made before the loop sleeps, carry the
// curvature of their own state.
func TestPublishReusesCurvature(t *testing.T) {
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: "hanging", Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	f := l.s.(*femModel)
	for range 30 { // the sheet swings: its curvature changes step to step
		l.step()
		l.buf.Acquire()
	}
	fresh := func() []float32 { // the curvature of the state now, computed anew
		var tmp Snapshot
		f.Surface(&tmp, false)
		return tmp.Curv
	}
	l.step() // taken before: computed
	a := fresh()
	l.step() // not taken: reused
	if !l.stale {
		t.Fatal("the second step's publish did not reuse the curvature")
	}
	b := l.buf.Acquire()
	got := slices.Clone(b.Curv)
	if !slices.Equal(got, a) {
		t.Errorf("the reusing snapshot's curvature is not the step before's")
	}
	if now := fresh(); slices.Equal(now, a) {
		t.Fatal("the curvature did not change in a step: the test tests nothing")
	} else {
		l.step() // taken: computed
		if c := l.buf.Acquire(); l.stale || !slices.Equal(c.Curv, fresh()) {
			t.Errorf("after the viewer took the last snapshot, the next one's curvature is not its own")
		}
	}
	l.step()
	l.step() // not taken: reused
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l.sleep(ctx, time.Hour) // the loop going idle publishes in full
	if d := l.buf.Acquire(); l.stale || !slices.Equal(d.Curv, fresh()) {
		t.Errorf("the snapshot published before sleeping does not carry its own curvature")
	}
}

// TestTangledWait: the count of crossing pairs for the snapshot comes
// once a second while it is cheap, and takes at most 1/tangledSpacing of
// the time where it is not (0.32 s on 195 128 faces).
func TestTangledWait(t *testing.T) {
	for _, c := range []struct{ cost, want time.Duration }{
		{5 * time.Millisecond, time.Second},
		{50 * time.Millisecond, time.Second},
		{320 * time.Millisecond, 6400 * time.Millisecond},
	} {
		if got := tangledWait(c.cost); got != c.want {
			t.Errorf("a count that took %v: next after %v, want %v", c.cost, got, c.want)
		}
	}
}

// TestLoopDragOverReset: a cloth drag whose gesture began before a reset
// does nothing to the rebuilt cloth and reports nothing, until it ends;
// the next drag works. sphere-adaptive is stepped until its mesh has
// refined past the base mesh's slots, and the drag takes a slot the
// rebuilt (base) mesh does not have: before, each move reported
// "dragging: vertex N does not exist" (the viewer monkey, seed 45).
func TestLoopDragOverReset(t *testing.T) {
	l := newTestLoop(t, "sphere-adaptive", true)
	base := len(l.s.(*femModel).sim.Mesh.Pos)
	var v int32 = -1
	for i := 0; i < 2000 && v < 0; i++ {
		l.step()
		m := l.s.(*femModel).sim.Mesh
		for j := len(m.Pos) - 1; j >= base; j-- {
			if m.VertAlive[j] {
				v = int32(j)
				break
			}
		}
	}
	if v < 0 {
		t.Fatal("the mesh never refined past its base mesh's slots")
	}
	target := l.s.(*femModel).sim.Mesh.Pos[v].Add(geom.Vec3{Y: 0.05})
	l.apply(Command{Kind: CmdDrag, Vertex: v, Target: target})
	l.apply(Command{Kind: CmdReset})
	if n := len(l.s.(*femModel).sim.Mesh.Pos); int(v) < n {
		t.Fatalf("vertex %d is still a slot of the rebuilt mesh (%d)", v, n)
	}
	for range 3 {
		l.apply(Command{Kind: CmdDrag, Vertex: v, Target: target})
	}
	for _, e := range l.Events() {
		if e.Err != nil {
			t.Errorf("a drag begun before the reset: %v", e.Err)
		}
	}
	// A new gesture after the release is taken again: on a vertex that
	// does not exist it reports.
	l.apply(Command{Kind: CmdRelease})
	l.apply(Command{Kind: CmdDrag, Vertex: v, Target: target})
	if ev := l.Events(); len(ev) != 1 || ev[0].Err == nil {
		t.Errorf("a new drag on a missing vertex: events %v, want its error", ev)
	}
}
