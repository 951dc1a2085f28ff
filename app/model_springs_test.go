package app

import (
	"math"
	"strings"
	"testing"

	"drape/sim/geom"
	"drape/sim/springs"
)

// TestLoopSprings drives the springs-sheet scene through the Loop: the
// Scene panel's model, steps, a parameter edit through CmdSetBlocks
// (valid and rejected), a pin move, a drag, and the particle counts and
// layers the panels show.
func TestLoopSprings(t *testing.T) {
	l := newTestLoop(t, "springs-sheet", true)
	runLoop(t, l)
	s := l.Snapshots().Acquire()
	checkSnapshot(t, s)
	if !s.Springs.On || modelName(s) != "mass-spring cloth (Olson & Rudnick)" {
		t.Fatalf("springs-sheet: Springs.On=%v model %q", s.Springs.On, modelName(s))
	}
	if got := s.Springs.Particles(); got != 17*17 || len(s.Pins) != 2 || plotCount(s) != got {
		t.Fatalf("start: got %d particles, %d pins, plot %d, want 289, 2, 289", got, len(s.Pins), plotCount(s))
	}
	if st := s.Springs.StableStep; !(st > s.Blocks.Springs.Dt) || math.IsInf(st, 0) {
		t.Errorf("stable step %v s, want finite and above the scene's Δt %v s", st, s.Blocks.Springs.Dt)
	}
	s = stepLoopN(t, l, 10)
	if math.Abs(s.Stats.Time-10*s.Blocks.Springs.Dt) > 1e-12 || s.Stats.Err != "" {
		t.Errorf("after 10 steps: t=%v err=%q, want %v and none", s.Stats.Time, s.Stats.Err, 10*s.Blocks.Springs.Dt)
	}

	// Parameters through CmdSetBlocks: applied, or rejected with the old
	// value kept.
	p := s.Blocks.Springs
	p.Damping = 2
	l.Send(setCmd(BlockSprings, Blocks{Springs: p}))
	s = waitFor(t, l, "damping 2", func(s *Snapshot) bool { return s.Blocks.Springs.Damping == 2 })
	bad := p
	bad.MaxLayer = 9
	seq := s.EditSeq
	l.Send(setCmd(BlockSprings, Blocks{Springs: bad}))
	s = waitFor(t, l, "rejection", func(s *Snapshot) bool { return s.EditSeq == seq+1 })
	if !strings.Contains(s.EditErr, "max_layer") || s.Blocks.Springs.MaxLayer != p.MaxLayer {
		t.Errorf("rejected edit: EditErr=%q max_layer %d, want an error naming max_layer and %d kept", s.EditErr, s.Blocks.Springs.MaxLayer, p.MaxLayer)
	}
	if s.Blocks.Held != blockSet(BlockSprings) {
		t.Errorf("the spring cloth's blocks: got %v, want springs only", s.Blocks.Held)
	}
	l.Send(setCmd(BlockParams, Blocks{})) // the FEM block does not exist here
	s = waitFor(t, l, "FEM params rejected", func(s *Snapshot) bool { return s.EditSeq == seq+2 })
	if !strings.Contains(s.EditErr, "no parameter block") {
		t.Errorf("FEM params on the spring cloth: EditErr=%q", s.EditErr)
	}

	// Moving a pin moves its particle at the next step.
	corner := s.Pins[0]
	want := toVec3(corner.Target).Add(geom.Vec3{X: 0.1, Y: 0.05})
	l.Send(Command{Kind: CmdMovePin, Vertex: corner.Slot, Target: want})
	l.Send(Command{Kind: CmdStep})
	s = waitFor(t, l, "moved pin", func(s *Snapshot) bool { return s.Stats.Steps == 11 })
	if got := toVec3(s.Pins[findPin(s, corner.Slot)].Pos); got.Sub(want).Norm() > 1e-6 {
		t.Errorf("moved pin: particle at %v, want %v", got, want)
	}

	// A drag pulls a free particle toward the target.
	free := int32(8 + 8*17) // the centre of the base grid
	d := s.DenseOf[free]
	start := toVec3(s.Vertex(int(d)))
	target := start.Add(geom.Vec3{Z: 0.5})
	l.Send(Command{Kind: CmdDrag, Vertex: free, Target: target})
	s = stepLoopN(t, l, 200)
	if got := toVec3(s.Vertex(int(s.DenseOf[free]))); !(got.Z-start.Z > 0.01) {
		t.Errorf("drag: particle moved from %v to %v, want it pulled toward +Z", start, got)
	}
	l.Send(Command{Kind: CmdRelease})

	// Pinning an interpolated or missing particle is an error event, not
	// a crash.
	l.Send(Command{Kind: CmdPin, Vertex: 1 << 20, Target: geom.Vec3{}})
	waitForEvent(t, l, "does not exist")
}

// stepLoopN takes n single steps of a paused Loop (queued CmdSteps
// collapse into one), waiting for each, and returns the last snapshot.
func stepLoopN(t *testing.T, l *Loop, n int) *Snapshot {
	t.Helper()
	var s *Snapshot
	for range n {
		k := l.Snapshots().Acquire().Stats.Steps
		l.Send(Command{Kind: CmdStep})
		s = waitFor(t, l, "a step", func(s *Snapshot) bool { return s.Stats.Steps > k })
	}
	return s
}

// TestLoopSpringsUnstable: a step far above the stable estimate blows the
// explicit integration up; the Loop stops with the unstable banner's
// message naming the estimate, keeps the last finite state, and Reset
// (which keeps the parameters in force) clears it.
func TestLoopSpringsUnstable(t *testing.T) {
	l := newTestLoop(t, "springs-sheet", true)
	runLoop(t, l)
	s := l.Snapshots().Acquire()
	p := s.Blocks.Springs
	p.Dt = 0.02 // 40× the scene's step, far above StableStep
	p.Correction = 0
	l.Send(setCmd(BlockSprings, Blocks{Springs: p}))
	for i := 0; i < 200 && s.Stats.Err == ""; i++ {
		n := s.Stats.Steps
		l.Send(Command{Kind: CmdStep})
		s = waitFor(t, l, "a step or the error", func(s *Snapshot) bool { return s.Stats.Steps > n || s.Stats.Err != "" })
	}
	if !s.Stats.Paused || !s.Stats.Finite || !strings.Contains(s.Stats.Err, "unstable") || !strings.Contains(s.Stats.Err, "largest stable step") {
		t.Errorf("after blow-up: paused=%v finite=%v err=%q, want paused, finite, an unstable message with the estimate", s.Stats.Paused, s.Stats.Finite, s.Stats.Err)
	}
	for _, x := range s.Pos {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("snapshot after blow-up has non-finite position %v", x)
		}
	}
	if s.Springs.StableStep >= p.Dt {
		t.Errorf("stable step %v s not below the Δt %v s that blew up", s.Springs.StableStep, p.Dt)
	}
	steps := s.Stats.Steps
	l.Send(Command{Kind: CmdSetPaused, Paused: false})
	l.Send(Command{Kind: CmdStep})
	l.Send(Command{Kind: CmdReset})
	s = waitFor(t, l, "reset", func(s *Snapshot) bool { return s.Stats.Err == "" })
	if s.Stats.Steps != 0 || s.Blocks.Springs.Dt != p.Dt || steps == 0 {
		t.Errorf("after reset: steps=%d dt=%v (blew up after %d steps), want 0 and the Δt in force %v", s.Stats.Steps, s.Blocks.Springs.Dt, steps, p.Dt)
	}
}

// TestSpringsSurfaceLayers: on the dynamic pole, which subdivides, the
// surface's FaceGen carries the subdivision layers and the cell-centre
// vertices map to no particle.
func TestSpringsSurfaceLayers(t *testing.T) {
	l := newTestLoop(t, "springs-pole", true)
	m := l.s.(*springsModel)
	for i := 0; i < 400 && m.c.Counts().Depth == 0; i++ {
		if _, err := m.Step(); err != nil {
			t.Fatal(err)
		}
	}
	l.publish(false)
	s := l.Snapshots().Acquire()
	checkSnapshot(t, s)
	depth := s.Springs.Counts.Depth
	if depth == 0 {
		t.Fatal("the dynamic pole did not subdivide in 400 steps")
	}
	maxGen := uint8(0)
	for _, g := range s.FaceGen {
		maxGen = max(maxGen, g)
	}
	if int(maxGen) != depth {
		t.Errorf("deepest FaceGen got=%d, want the depth %d", maxGen, depth)
	}
	if s.Springs.Variant != springs.DynamicSubdivision {
		t.Errorf("variant got=%v", s.Springs.Variant)
	}
}

// TestSaveSpringsScene: the viewer's Save writes a springs scene with the
// parameters in force, which reads back and rebuilds with them; pins set
// in the viewer are not saved (a springs scene has no "pins").
func TestSaveSpringsScene(t *testing.T) {
	l := newTestLoop(t, "springs-small", true)
	p := l.s.Blocks().Springs
	p.KBend, p.CheckInterval = 3.5, 7
	if err := l.s.SetBlocks(Blocks{Springs: p, Held: blockSet(BlockSprings)}); err != nil {
		t.Fatal(err)
	}
	l.apply(Command{Kind: CmdPin, Vertex: 2, Target: geom.Vec3{Y: 1}})
	sc := reloaded(t, l)
	if !sc.IsSprings() || sc.SpringsScene != "small-dynamic" || sc.Springs != p || len(sc.Pins) != 0 {
		t.Errorf("saved scene: model %q springs_scene %q params %+v pins %v, want springs, small-dynamic, %+v, none", sc.Model, sc.SpringsScene, sc.Springs, sc.Pins, p)
	}
	m, err := buildModel(sc)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Blocks().Springs; got != p {
		t.Errorf("rebuilt params got=%+v, want=%+v", got, p)
	}
}
