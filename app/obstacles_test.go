package app

import (
	"math"
	"path/filepath"
	"testing"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/obstacle"
)

// TestLoopMoveObstacle drags the sphere of testdata/sphere-push.json
// through the hanging sheet with CmdMoveObstacle while the loop runs: the
// obstacle reaches the offset asked for (at no more than
// cloth.HandSpeed), the snapshot draws it there, the cloth in its
// way is pushed behind it, no cloth vertex ends inside it, and a saved
// scene puts it at its dragged position.
func TestLoopMoveObstacle(t *testing.T) {
	l := newTestLoop(t, filepath.Join("testdata", "sphere-push.json"), true)
	s := l.Snapshots().Acquire()
	if len(s.Obstacles) != 2 || s.Obstacles[0].Name != "ball" || s.Obstacles[0].Kind != obstacle.Sphere ||
		s.Obstacles[1].Kind != obstacle.Plane || s.ObstacleGen == 0 {
		t.Fatalf("obstacles: got %d, gen %d, want the ball and the ground", len(s.Obstacles), s.ObstacleGen)
	}
	ball := s.Obstacles[0]
	if c := ball.Center; math.Abs(float64(c[2])-0.3) > 1e-3 || len(ball.Tris) == 0 || len(ball.Pos) != len(ball.Normal) {
		t.Fatalf("ball drawn at %v with %d faces, want its centre at z = 0.3", c, len(ball.Tris)/3)
	}
	minZ := func(s *Snapshot) float32 {
		z := float32(math.Inf(1))
		for i := 0; i < s.NumVerts(); i++ {
			z = min(z, s.Vertex(i)[2])
		}
		return z
	}
	z0 := minZ(s)
	gen := s.ObstacleGen

	stop := runLoop(t, l)
	// Let the sheet settle a little, then push the ball 0.6 m along −z,
	// through the sheet's plane z = 0.
	l.Send(Command{Kind: CmdSetSpeed, Speed: 0})
	l.Send(Command{Kind: CmdSetPaused, Paused: false})
	waitFor(t, l, "a few steps", func(s *Snapshot) bool { return s.Stats.Steps >= 20 })
	target := geom.Vec3{Z: -0.6}
	l.Send(Command{Kind: CmdMoveObstacle, Obstacle: 0, Target: target})
	start := l.Snapshots().Acquire().Stats.Steps
	s = waitFor(t, l, "the ball at its target", func(s *Snapshot) bool {
		return len(s.Obstacles) == 2 && s.Obstacles[0].Offset[2] == float32(target.Z)
	})
	steps := s.Stats.Steps - start
	minSteps := int(0.6 / (cloth.HandSpeed * s.Stats.Dt))
	if steps < minSteps {
		t.Errorf("the ball took %d steps for 0.6 m, want at least %d (%g m/s at most)", steps, minSteps, cloth.HandSpeed)
	}
	if s.ObstacleGen == gen || math.Abs(float64(s.Obstacles[0].Center[2])+0.3) > 1e-3 {
		t.Errorf("ball drawn at %v (gen %d → %d), want its centre at z = −0.3", s.Obstacles[0].Center, gen, s.ObstacleGen)
	}
	s = waitFor(t, l, "a few more steps", func(s *Snapshot) bool { return s.Stats.Steps >= start+steps+20 })
	stop()

	z1 := minZ(s)
	t.Logf("cloth min z: %.3f m before, %.3f m after the ball passed to z = −0.3 m (%d steps)", z0, z1, steps)
	// The ball's back is at z = −0.45; the sheet is draped over its front
	// (at most the ball's radius in front of its centre).
	if z1 > -0.3 {
		t.Errorf("cloth not pushed: min z got=%.3f, want ≤ −0.3", z1)
	}
	if !s.Stats.Finite || s.Stats.Err != "" {
		t.Fatalf("simulation failed: %s", s.Stats.Err)
	}
	obs := l.s.(*femModel).sim.Obstacles()[0]
	worst := math.Inf(1)
	for i := 0; i < s.NumVerts(); i++ {
		d, _ := obs.SignedDistance(toVec3(s.Vertex(i)), s.Stats.Time)
		worst = min(worst, d)
	}
	if worst < -1e-3 {
		t.Errorf("a cloth vertex is %.2g m inside the ball, want none deeper than 1 mm", -worst)
	}
	sc := l.SavedScene(nil)
	if p := sc.Obstacles[0].Position; p != [3]float64{0, 1.25, 0.3 - 0.6} {
		t.Errorf("saved ball position: got=%v, want=[0 1.25 -0.3]", p)
	}
	if sc.Contact != s.Blocks.Contact {
		t.Errorf("saved contact block: got=%+v, want=%+v", sc.Contact, s.Blocks.Contact)
	}

	// A bad index is an event; nothing moves.
	l.paused = true
	l.apply(Command{Kind: CmdMoveObstacle, Obstacle: 5, Target: geom.Vec3{X: 1}})
	if ev := l.Events(); len(ev) != 1 || ev[0].Err == nil {
		t.Errorf("moving obstacle 5 of 2: got events %v, want one error", ev)
	}
}

// TestLoopSetContact: the Contact panel's edits go through
// CmdSetBlocks like the other blocks: a valid one is in force in the
// next snapshot, an invalid one (h = 0) is answered in EditErr and the
// settings in force stay; Reset keeps the edit.
func TestLoopSetContact(t *testing.T) {
	l := newTestLoop(t, filepath.Join("testdata", "sphere-push.json"), true)
	runLoop(t, l)
	s := l.Snapshots().Acquire()
	p := s.Blocks.Contact
	p.Thickness, p.CCDIterations = 0.005, 7
	l.Send(setCmd(BlockContact, Blocks{Contact: p}))
	s = waitFor(t, l, "the edit", func(s *Snapshot) bool { return s.EditSeq == 1 })
	if s.Blocks.Contact != p || s.EditErr != "" {
		t.Errorf("contact after a valid edit: got %+v (%q), want %+v", s.Blocks.Contact, s.EditErr, p)
	}
	bad := p
	bad.Thickness = 0
	l.Send(setCmd(BlockContact, Blocks{Contact: bad}))
	s = waitFor(t, l, "the rejection", func(s *Snapshot) bool { return s.EditSeq == 2 })
	if s.Blocks.Contact != p || s.EditErr == "" {
		t.Errorf("contact after h = 0: got %+v, EditErr %q, want %+v kept and an error", s.Blocks.Contact, s.EditErr, p)
	}
	epoch := s.Epoch
	l.Send(Command{Kind: CmdReset})
	s = waitFor(t, l, "the reset", func(s *Snapshot) bool { return s.Epoch == epoch+1 })
	if s.Blocks.Contact != p {
		t.Errorf("contact after Reset: got %+v, want the edit %+v", s.Blocks.Contact, p)
	}
}

// TestObstacleSnapshotCheap: while nothing moves, filling a snapshot
// copies no obstacle geometry (ObstacleGen stays, no allocation once the
// three buffers hold it); a move takes a new gen and redraws the ball
// there.
func TestObstacleSnapshotCheap(t *testing.T) {
	l := newTestLoop(t, filepath.Join("testdata", "sphere-push.json"), true)
	gen := l.Snapshots().Acquire().ObstacleGen
	for range 6 {
		l.publish(false)
	}
	f := l.s.(*femModel)
	fill := func() {
		dst := l.buf.Writable()
		f.obs.fill(dst, f.sim.Obstacles(), f.sim.Time)
		l.buf.Publish()
	}
	if a := testing.AllocsPerRun(50, fill); a != 0 {
		t.Errorf("allocations per obstacle fill with static obstacles: got=%v, want=0", a)
	}
	if s := l.Snapshots().Acquire(); s.ObstacleGen != gen {
		t.Errorf("ObstacleGen changed without motion: %d → %d", gen, s.ObstacleGen)
	}
	if err := l.s.MoveObstacle(0, geom.Vec3{X: 0.25}); err != nil {
		t.Fatal(err)
	}
	l.publish(false)
	s := l.Snapshots().Acquire()
	if s.ObstacleGen == gen || math.Abs(float64(s.Obstacles[0].Center[0])-0.25) > 1e-3 || s.Obstacles[0].Offset[0] != 0.25 {
		t.Errorf("after a move: gen %d → %d, ball centre %v, offset %v; want a new gen and the ball at x = 0.25", gen, s.ObstacleGen, s.Obstacles[0].Center, s.Obstacles[0].Offset)
	}
	for _, off := range []geom.Vec3{{X: math.NaN()}, {Y: 1e9}} {
		if err := l.s.MoveObstacle(0, off); err == nil {
			t.Errorf("MoveObstacle(0, %v): got nil, want an error", off)
		}
	}
}

// BenchmarkObstacleFill measures what the obstacles add to a snapshot on
// sphere-adaptive (an icosphere of 2562 vertices and the ground square):
// nothing to copy while they stand still, a rebuild and copy while one is
// dragged.
func BenchmarkObstacleFill(b *testing.B) {
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: "sphere-adaptive", Paused: true})
	if err != nil {
		b.Fatal(err)
	}
	f := l.s.(*femModel)
	fill := func() {
		f.obs.fill(l.buf.Writable(), f.sim.Obstacles(), f.sim.Time)
		l.buf.Publish()
	}
	b.Run("static", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fill()
		}
	})
	b.Run("moving", func(b *testing.B) {
		b.ReportAllocs()
		x := 0.0
		for b.Loop() {
			x += 1e-3
			f.MoveObstacle(0, geom.Vec3{X: x})
			fill()
		}
	})
}
