package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"drape/sim/scene"
)

// waitForInfo waits for an informational event containing substr.
func waitForInfo(t *testing.T, l *Loop, substr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range l.Events() {
			if e.Err != nil {
				t.Fatalf("error event %v while waiting for %q", e.Err, substr)
			}
			if strings.Contains(e.Info, substr) {
				return
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no event containing %q", substr)
}

// TestLoopSaveScene edits a running scene through commands (parameters,
// adaptivity, a pin added and moved, a scene pin removed), saves it with a
// camera, and checks that the file holds all of it and loads; a save to a
// directory that does not exist reports an error and the simulation goes
// on.
func TestLoopSaveScene(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	runLoop(t, l)
	s := l.Snapshots().Acquire()
	if len(s.Pins) != 2 {
		t.Fatalf("hanging: got %d pins, want 2", len(s.Pins))
	}
	p := s.Blocks.Params
	p.Density = 0.125
	ap := shownAdapt(s.Blocks.Adapt)
	ap.Enabled, ap.GMax = true, 3
	l.Send(Command{Kind: CmdSetBlocks, Blocks: Blocks{Params: p, Adapt: ap, Held: blockSet(BlockParams, BlockAdapt)}})
	removed := s.Pins[0].Slot
	l.Send(Command{Kind: CmdUnpin, Vertex: removed})
	v := s.Slot[len(s.Slot)/2]
	at := toVec3(s.Vertex(int(s.DenseOf[v])))
	l.Send(Command{Kind: CmdPin, Vertex: v, Target: at})
	moved := at.Add(toVec3([3]float32{0, 0.25, 0}))
	l.Send(Command{Kind: CmdMovePin, Vertex: v, Target: moved})
	file := filepath.Join(t.TempDir(), "saved.json")
	cam := &scene.Camera{Target: [3]float64{0, 1, 0}, Yaw: 10, Pitch: 20, Distance: 3, FovY: 45}
	l.Send(Command{Kind: CmdSaveScene, Scene: file, Camera: cam})
	waitForInfo(t, l, "saved scene to "+file)

	sc, err := scene.LoadScene(nil, file)
	if err != nil {
		data, _ := os.ReadFile(file)
		t.Fatalf("loading the saved scene: %v\n%s", err, data)
	}
	if sc.Params != p || sc.Adapt == nil || *sc.Adapt != ap || sc.Camera == nil || *sc.Camera != *cam {
		t.Errorf("saved blocks: got params %+v adapt %+v camera %+v, want %+v %+v %+v", sc.Params, sc.Adapt, sc.Camera, p, ap, cam)
	}
	// The scene's own pin entry, then one entry per edited vertex (the
	// move replaced the pin), the removal first.
	if n := len(sc.Pins); n != 3 || !sc.Pins[1].Remove || sc.Pins[2].Target == nil || *sc.Pins[2].Target != [3]float64{moved.X, moved.Y, moved.Z} {
		t.Errorf("saved pins: got %+v, want the scene's, a removal and the moved pin", sc.Pins)
	}
	sim, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := sim.Pins(); len(got) != 2 || got[0].Vertex == removed && got[1].Vertex == removed {
		t.Errorf("rebuilt pins: got %+v, want the kept scene pin and the new one", got)
	}

	bad := filepath.Join(t.TempDir(), "missing", "x.json")
	l.Send(Command{Kind: CmdSaveScene, Scene: bad})
	waitForEvent(t, l, "x.json")
	l.Send(Command{Kind: CmdStep})
	s = waitFor(t, l, "a step after a failed save", func(s *Snapshot) bool { return s.Stats.Steps == 1 })
	if s.Stats.Err != "" || s.Blocks.Params != p {
		t.Errorf("after a failed save: err=%q params %+v, want the simulation as it was", s.Stats.Err, s.Blocks.Params)
	}
}

// The FEM cloth is a Model.
var _ Model = (*femModel)(nil)

// TestSnapshotDrawn checks that a snapshot draws its Detail surface when
// it has one and its simulated Surface otherwise, while picking keeps
// using the simulated surface.
func TestSnapshotDrawn(t *testing.T) {
	var s Snapshot
	s.Pos, s.Tris = []float32{0, 0, 0, 1, 0, 0, 0, 1, 0}, []uint32{0, 1, 2}
	s.Slot, s.DenseOf = []int32{0, 1, 2}, []int32{0, 1, 2}
	if s.Drawn() != &s.Surface {
		t.Error("without Detail: Drawn is not the simulated surface")
	}
	s.Detail.Pos = append(s.Pos, 0.5, 0.5, 0)
	s.Detail.Tris = []uint32{0, 1, 3, 1, 2, 3}
	if s.Drawn() != &s.Detail || s.NumTris() != 1 {
		t.Errorf("with Detail: Drawn=%p (Detail %p), picking surface has %d faces, want Detail and 1", s.Drawn(), &s.Detail, s.NumTris())
	}
}
