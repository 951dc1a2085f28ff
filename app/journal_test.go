package app

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/contact"
	"drape/sim/geom"
)

// TestJournalReplaysRun plays the hanging sheet in a running Loop the way
// the viewer drives it (commands sent from another goroutine at wall-clock
// times while the loop steps as fast as it can: a pin set and dragged, a
// vertex pulled, a parameter changed, a pause, single steps, a reset) with
// its journal on, then replays the journal (ReplayJournal): the replay
// must end on the live run's step, time, kinetic energy and every vertex
// position to the bit. It fails if a command is journalled at the wrong
// step count, lost, or does not survive its JSON.
func TestJournalReplaysRun(t *testing.T) {
	var jr bytes.Buffer
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: "hanging", Journal: &jr})
	if err != nil {
		t.Fatal(err)
	}
	stop := runLoop(t, l)
	rng := rand.New(rand.NewPCG(1, 2))
	s := waitFor(t, l, "some steps", func(s *Snapshot) bool { return s.Stats.Steps >= 20 })
	v := int32(s.Slot[len(s.Slot)/2])
	at := toVec3(s.Vertex(len(s.Slot) / 2))
	l.Send(Command{Kind: CmdPin, Vertex: v, Target: at})
	for i := 0; i < 15; i++ {
		at = at.Add(geom.Vec3{X: 0.02 * (rng.Float64() - 0.5), Y: 0.02, Z: 0.03 * rng.Float64()})
		l.Send(Command{Kind: CmdMovePin, Vertex: v, Target: at})
		time.Sleep(time.Duration(2+rng.IntN(10)) * time.Millisecond)
	}
	w := int32(s.Slot[len(s.Slot)/3])
	for i := 0; i < 10; i++ {
		l.Send(Command{Kind: CmdDrag, Vertex: w, Target: toVec3(s.Vertex(len(s.Slot) / 3)).Add(geom.Vec3{Z: 0.01 * float64(i)})})
		time.Sleep(3 * time.Millisecond)
	}
	l.Send(Command{Kind: CmdRelease})
	p := s.Blocks.Params
	p.Density *= 1.5
	l.Send(setCmd(BlockParams, Blocks{Params: p}))
	l.Send(Command{Kind: CmdSetPaused, Paused: true})
	l.Send(Command{Kind: CmdStep})
	l.Send(Command{Kind: CmdStep})
	time.Sleep(20 * time.Millisecond)
	l.Send(Command{Kind: CmdSetPaused, Paused: false})
	time.Sleep(50 * time.Millisecond)
	l.Send(Command{Kind: CmdUnpin, Vertex: v})
	time.Sleep(30 * time.Millisecond)
	epoch := l.Snapshots().Acquire().Epoch
	l.Send(Command{Kind: CmdReset})
	time.Sleep(30 * time.Millisecond)
	l.Send(Command{Kind: CmdMovePin, Vertex: s.Pins[0].Slot, Target: toVec3(s.Pins[0].Target).Add(geom.Vec3{X: 0.1})})
	waitFor(t, l, "steps after the reset", func(s *Snapshot) bool { return s.Epoch > epoch && s.Stats.Steps >= 30 })
	stop()

	live := snapshotOf(l)
	rep, err := ReplayJournal(strings.NewReader(jr.String()), assets.Scenes, nil)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	t.Logf("journal: %d lines; replayed %d steps and %d commands; live run: %d steps since its reset, t = %.3f s",
		strings.Count(jr.String(), "\n"), rep.Steps, rep.Commands, live.Stats.Steps, live.Stats.Time)
	if rep.Commands < 12 {
		t.Errorf("replayed %d commands, want at least the 12 sent that are not coalesced", rep.Commands)
	}
	sameRun(t, l, rep.Loop)
}

// sameRun fails t unless the stopped loops live and again (its replay)
// end at the same step, time and epoch with the same kinetic energy,
// vertex positions and pin count, to the bit.
func sameRun(t *testing.T, live, again *Loop) {
	t.Helper()
	a, b := snapshotOf(again), snapshotOf(live)
	if a.Stats.Steps != b.Stats.Steps || a.Stats.Time != b.Stats.Time || a.Epoch != b.Epoch {
		t.Fatalf("replay ends at step %d, t = %v, epoch %d; the live run at step %d, t = %v, epoch %d",
			a.Stats.Steps, a.Stats.Time, a.Epoch, b.Stats.Steps, b.Stats.Time, b.Epoch)
	}
	if ka, kb := again.s.KineticEnergy(), live.s.KineticEnergy(); ka != kb {
		t.Errorf("kinetic energy: replay %v, live %v", ka, kb)
	}
	if len(a.Pos) != len(b.Pos) {
		t.Fatalf("replay has %d vertices, the live run %d", len(a.Pos)/3, len(b.Pos)/3)
	}
	for i := range b.Pos {
		if a.Pos[i] != b.Pos[i] {
			t.Fatalf("vertex %d: replay %v, live %v", i/3, a.Pos[i-i%3:i-i%3+3], b.Pos[i-i%3:i-i%3+3])
		}
	}
	if len(a.Pins) != len(b.Pins) {
		t.Errorf("replay has %d pins, the live run %d", len(a.Pins), len(b.Pins))
	}
}

// snapshotOf publishes a stopped loop's state in full and returns it.
func snapshotOf(l *Loop) *Snapshot {
	l.publish(false)
	return l.Snapshots().Acquire()
}

// TestReplayJournalErrors: a journal that is not one is an error, never
// a panic.
func TestReplayJournalErrors(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "empty"},
		{"no head", `{"steps":3}` + "\n", "head"},
		{"bad scene", `{"scene":"no-such-scene","gomaxprocs":1}` + "\n", "no-such-scene"},
		{"bad line", `{"scene":"hanging","gomaxprocs":1}` + "\n{\n", "line 2"},
		{"steps back", `{"scene":"hanging","gomaxprocs":1}` + "\n" + `{"steps":4}` + "\n" + `{"steps":2}` + "\n", "line 3"},
	} {
		_, err := ReplayJournal(strings.NewReader(c.text), assets.Scenes, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %q", c.name, err, c.want)
		}
	}
}

// TestReplay replays the journal DRAPE_REPLAY names (drape view
// --journal FILE; the viewer monkey keeps one per scene; FILE.gz is
// read through gzip), logging every
// DRAPE_REPLAY_EVERY steps (default 20) the simulated time, the
// intersecting cloth triangle pairs, the pins and the kinetic energy, and
// every command. Without DRAPE_REPLAY it is skipped: a tool to trace a
// viewer run at the simulation level, step for step.
func TestReplay(t *testing.T) {
	path := os.Getenv("DRAPE_REPLAY")
	if path == "" {
		t.Skip("DRAPE_REPLAY names no journal")
	}
	every := 20
	if s := os.Getenv("DRAPE_REPLAY_EVERY"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("DRAPE_REPLAY_EVERY=%q: want a positive number of steps", s)
		}
		every = n
	}
	f, err := openJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	rep, err := ReplayJournal(f, assets.Scenes, func(l *Loop) error {
		if n++; n%every == 0 {
			s := snapshotOf(l)
			var pins []string
			for _, p := range s.Pins {
				pins = append(pins, strconv.Itoa(int(p.Slot)))
			}
			t.Logf("step %6d  epoch %d  t %8.3f s  tangled %4d  pins %s  kinetic %.4g J  %s",
				n, s.Epoch, s.Stats.Time, contactPairs(l), strings.Join(pins, ","), l.s.KineticEnergy(), s.Stats.Err)
		}
		return nil
	})
	if rep.Warning != "" {
		t.Log(rep.Warning)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replayed %d steps and %d commands", rep.Steps, rep.Commands)
}

// contactPairs counts the intersecting cloth triangle pairs of a FEM
// loop's cloth now (−1 for the mass-spring model).
func contactPairs(l *Loop) int {
	fm, ok := l.s.(*femModel)
	if !ok {
		return -1
	}
	m := fm.sim.Mesh
	return contact.IntersectingPairs(m.Pos, m.Tris)
}

// TestReplayCurtainMonkey replays the journal of a viewer monkey run
// (TestGUIMonkey, curtain-adaptive, seed 39, 300 s of play at e085bee)
// that ended with 219 intersecting cloth triangle pairs, from its last
// reset on (testdata/…-last-reset.journal.gz; the whole run is in
// …-full.journal.gz): 57 pins set and dragged into the gather; at
// t = 9.39 s the gather's pins carried a face between one of them and a
// held hand pin through the free cloth that the collision failsafe held
// still. The replay must keep the cloth free of crossings (every face
// counted, as --state's tangled) and stepping. Since the failsafe holds
// every pin (cloth's errBlocked) it does; the replay then differs from
// the run it repeats from the first such step on. About a minute on 2
// cores.
func TestReplayCurtainMonkey(t *testing.T) {
	if testing.Short() {
		t.Skip("long physics run (about a minute); it runs without -short")
	}
	z, err := openJournal("testdata/monkey-curtain-adaptive-39-last-reset.journal.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	worst, at := 0, 0.0
	rep, err := ReplayJournal(z, assets.Scenes, func(l *Loop) error {
		if l.err != "" {
			return fmt.Errorf("the replay stopped at t = %.3f s: %s", l.s.Time(), l.err)
		}
		if l.s.Steps()%10 == 0 {
			if n := contactPairs(l); n > worst {
				worst, at = n, l.s.Time()
			}
		}
		return nil
	})
	if rep.Warning != "" {
		t.Log(rep.Warning)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replayed %d steps and %d commands; the run ends at t = %.2f s with %d triangles", rep.Steps, rep.Commands, rep.Loop.s.Time(), snapshotOf(rep.Loop).NumTris())
	if worst > 0 {
		t.Errorf("up to %d intersecting cloth triangle pairs (at t = %.3f s of its epoch)", worst, at)
	}
}

// openJournal opens a journal file, through gzip if its name ends in .gz.
func openJournal(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return f, err
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

// TestJournalReplaysInterrupts: with interruptAfter at 0, parameter edits
// and pauses sent while drape-box steps give up the steps they arrive
// in (Loop.poll); the run goes on, and its journal, which notes the poll
// each step was given up at, replays it to the bit. It fails if an
// interrupted step changed the state (the replay's step, given up at the
// same poll, would then differ only if the residue differed), if the
// journal missed an interrupt, or if none happened.
func TestJournalReplaysInterrupts(t *testing.T) {
	defer func(d time.Duration) { interruptAfter = d }(interruptAfter)
	interruptAfter = 0
	var jr bytes.Buffer
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: "drape-box", Journal: &jr})
	if err != nil {
		t.Fatal(err)
	}
	stop := runLoop(t, l)
	s := waitFor(t, l, "some steps", func(s *Snapshot) bool { return s.Stats.Steps >= 10 })
	p, steps := s.Blocks.Params, s.Stats.Steps
	for i := range 200 {
		p.DampMass = 0.1 + 0.001*float64(i%7)
		l.Send(setCmd(BlockParams, Blocks{Params: p}))
		if i%50 == 49 {
			l.Send(Command{Kind: CmdSetPaused, Paused: true})
			l.Send(Command{Kind: CmdSetPaused, Paused: false})
		}
		time.Sleep(time.Duration(200+i%5*300) * time.Microsecond)
	}
	waitFor(t, l, "steps after the edits", func(x *Snapshot) bool { return x.Stats.Steps >= steps+100 })
	stop()
	if l.interrupted == 0 {
		t.Fatal("no step was interrupted")
	}
	rep, err := ReplayJournal(strings.NewReader(jr.String()), assets.Scenes, nil)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	t.Logf("%d steps interrupted of %d; replayed %d steps, %d interrupted, %d commands", l.interrupted, l.calls, rep.Steps, rep.Interrupted, rep.Commands)
	if rep.Interrupted != l.interrupted {
		t.Errorf("replay gave up %d steps, the run %d", rep.Interrupted, l.interrupted)
	}
	sameRun(t, l, rep.Loop)
}
