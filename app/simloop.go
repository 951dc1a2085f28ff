package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
)

// CmdKind says what a Command does.
type CmdKind int

// The commands the viewer sends to the simulation goroutine. They are
// applied between steps, in the order sent.
const (
	CmdSetBlocks    CmdKind = iota // set the parameter blocks Blocks holds (Model.SetBlocks: validated; an error keeps every block in force and is published in Snapshot.EditErr)
	CmdPin                         // pin Vertex at Target
	CmdUnpin                       // release the pin of Vertex
	CmdMovePin                     // move the pin of Vertex to Target (a scripted pin becomes fixed)
	CmdDrag                        // pull free Vertex towards Target with a stiff spring (cloth.Sim.Drag)
	CmdRelease                     // end CmdDrag
	CmdSetPaused                   // pause (Paused true) or resume stepping
	CmdStep                        // take exactly one step, also when paused
	CmdReset                       // rebuild the current scene, keeping the parameters in force
	CmdLoadScene                   // load and build Scene (a built-in name or a file); on error keep the running one
	CmdSetSpeed                    // set the real-time factor target to Speed (0: as fast as possible)
	CmdSaveScene                   // write the running scene, as now set, to the file Scene with camera Camera (Loop.SavedScene); the outcome is an Event
	CmdMoveObstacle                // move obstacle Obstacle's user offset towards Target (see Loop.moveObstacles); a failure is an Event
	CmdUndo                        // undo the person's last change (history.go); the outcome is an Event
	CmdRedo                        // redo the change undone last (history.go); the outcome is an Event
)

// Command is one request from the viewer to the simulation. Only the
// fields its Kind names are read.
type Command struct {
	Kind     CmdKind
	Vertex   int32     // sim vertex slot
	Target   geom.Vec3 // m
	Blocks   Blocks    // CmdSetBlocks: the blocks to set, whole values
	Paused   bool
	Scene    string
	Speed    float64       // real-time factor
	Camera   *scene.Camera // CmdSaveScene: the viewer's camera; nil saves none
	Obstacle int           // CmdMoveObstacle: index in the scene's obstacles

	ClothColor *[3]float64 // CmdSaveScene: the fabric look's colour (Material panel); nil keeps the scene's
	Material   *string     // CmdSaveScene: the fabric preset picked in the Material panel ("" for none); nil keeps the scene's

	// Gesture names the person's gesture the command belongs to (a
	// slider held, a mouse drag): the edits of one gesture are one step
	// of the undo history (history.go). 0: a step of its own.
	Gesture uint64

	// At > 0 holds the command back until the simulated time reaches
	// At, s (within half a step): side by side sends a locked pair's
	// edits to both runs for the same time (sidebyside.go). 0 applies it
	// at once. Epoch is the simulation (Snapshot.Epoch) whose time At
	// is; a loop rebuilt since (Reset, a scene loaded) applies the
	// command at once, and so does a paused one (see dueCommands). 0:
	// the simulation running.
	At    float64
	Epoch uint64

	// Only, with CmdUndo or CmdRedo, undoes or redoes the step of
	// gesture Gesture only: a loop whose next step is another does
	// nothing. Side by side sends it when the two runs' histories differ
	// (sideBySide.history).
	Only bool

	// Mirror, with CmdSetBlocks, records the edit as a step even when it
	// changes nothing: side by side's other run takes its own
	// adaptivity settings again when the Adaptivity panel edits one run,
	// so that both histories hold the person's step.
	Mirror bool
}

// Event is a message from the simulation goroutine to the viewer: the
// outcome of a command the user should see.
type Event struct {
	Err  error  // non-nil when a command failed (the simulation kept running)
	Info string // otherwise a short notice, e.g. "loaded scene curtain"
}

// LoopOptions configures NewLoop.
type LoopOptions struct {
	Scenes fs.FS   // where built-in scene names resolve (assets.Scenes)
	Scene  string  // scene name or file
	Speed  float64 // real-time factor target; 0 means as fast as possible
	Paused bool    // start paused
	// PauseAt > 0 pauses the simulation once, after the first step that
	// reaches this simulated time, s: a pose to look at or screenshot that
	// does not depend on how fast the machine runs.
	PauseAt float64
	// Now is the clock used for pacing and rates; nil means time.Now.
	// Tests inject a synthetic timeline.
	Now func() time.Time
	// Prepare, if not nil, turns every scene the loop loads (Scene, then
	// each CmdLoadScene) into the one it builds, or refuses it with an
	// error that keeps the running scene: side by side makes its two
	// runs of one scene with it (sidebyside.go).
	Prepare func(*scene.Scene) (*scene.Scene, error)
	// Gate, if not nil, may hold paced steps back and hears of every
	// publish: side by side's lock (sidebyside.go).
	Gate StepGate
	// Journal, if not nil, gets the loop's journal (journal.go): the
	// commands it applies and when, for ReplayJournal.
	Journal io.Writer
}

// StepGate couples a Loop to another: side by side's lock keeps the run
// ahead in simulated time waiting for the other (sidebyside.go). Its
// methods are called on the Loop's Run goroutine.
type StepGate interface {
	// Hold reports whether l, at simulated time t, must wait before its
	// next paced step; the gate wakes l (Loop.Wake) when that may have
	// changed. Steps asked for (CmdStep) are never held.
	Hold(l *Loop, t float64) bool
	// Published hands the gate l's snapshot just published; s may be
	// read until l's next publish.
	Published(l *Loop, s *Snapshot)
}

// Loop runs a simulation in its own goroutine (Run), applying Commands
// between steps and publishing a Snapshot after every step and after every
// batch of commands. It never waits for the viewer: Send appends to a
// mutex-protected queue, and snapshots go through a SnapshotBuffer.
type Loop struct {
	buf *SnapshotBuffer

	mu     sync.Mutex
	queue  []Command
	events []Event
	wake   chan struct{} // capacity 1: "the queue is not empty"
	// stepping is the wall clock (UnixNano) at which the step in
	// progress started, 0 between steps: Busy, for --state.
	stepping atomic.Int64
	// waiting is set by Send when it queues a command that interrupts
	// a long step (CmdKind.interrupts), and cleared when the queue is
	// taken (applyQueued).
	waiting atomic.Bool

	// Owned by the Run goroutine (and by NewLoop before Run starts).
	scenes fs.FS
	scene  *scene.Scene
	s      Model
	paused bool
	err    string // why stepping stopped
	epoch  uint64
	seq    uint64
	stale  bool // the last snapshot reused the curvature before it (publish)
	now    func() time.Time
	pace   pacer
	rate   rateMeter
	last   StepInfo
	// editErr is why the last CmdSetBlocks was rejected ("" after a
	// successful one or a rebuild); editSeq counts those commands
	// handled, so the panels know when their edit has been answered.
	// This is the only way a rejected edit reaches the viewer.
	editErr string
	editSeq uint64

	// pinEdits are the pins the user set, moved or removed since the
	// last rebuild, by material coordinates (scene.PinEdit), at most one
	// per vertex, in the order of their last change: what SavedScene
	// appends to the scene's own pins.
	pinEdits []scene.PinSpec

	// pauseAt is LoopOptions.PauseAt until it has paused the simulation
	// (then 0, so that resuming runs on).
	pauseAt float64

	// retried counts the steps since the last rebuild that needed the
	// substep failsafe (Stats.Retried).
	retried int
	// retriedAtCap counts those of them whose solve stopped at the PCG
	// cap (cloth.ErrUnconverged; Stats.RetriedAtCap).
	retriedAtCap int
	// stepSum, stepN: the wall time and count of the steps since the
	// last rebuild (Stats.StepMean).
	stepSum time.Duration
	stepN   int

	// prepare, gate: LoopOptions.Prepare and Gate; later holds the
	// commands whose time (Command.At) has not come, in the order sent;
	// source is what the running scene was loaded from (Snapshot.Source).
	prepare func(*scene.Scene) (*scene.Scene, error)
	gate    StepGate
	later   []Command
	source  string

	// hist is the undo history of the person's changes, and obsGoals
	// the offsets asked for each obstacle since the last rebuild
	// (history.go).
	hist     history
	obsGoals []geom.Vec3

	// dragging: a CmdDrag gesture is in progress (until CmdRelease),
	// begun on the simulation of epoch dragEpoch.
	dragging  bool
	dragEpoch uint64

	// calls counts the steps taken (attempted: a failed one counts)
	// since NewLoop, across rebuilds; journal is LoopOptions.Journal's.
	calls   int
	journal *journal

	// polls counts the model's polls of pollFn (l.poll, bound once)
	// in the step in progress; replayPoll > 0, during ReplayJournal,
	// interrupts the step at that poll instead of by the clock;
	// interrupted counts the steps given up for a command since NewLoop.
	pollFn      func() bool
	polls       int
	replayPoll  int
	interrupted int
}

// interruptAfter is how long a step runs before a command waiting for it
// (CmdKind.interrupts) makes the model give it up (Model.SetInterrupt):
// the command is then applied and the step taken again. Below it a
// command waits for the step, as always: no built-in scene's step comes
// near it on 2 cores at its defaults (the slowest, the full-resolution
// references, take 37–48 ms a step on average, about 75 ms on a loaded
// machine; docs/performance.md), so scripted runs
// and ordinary play never lose a step's work. Above it are the steps a
// person's sliders can make (a mesh refined to the triangle cap, 1–36 s a
// step in the monkey's curtain-adaptive seed 110; a held tangle, 4–6 s),
// during which Reset, a pause or the slider that made it slow must not
// wait for the step. A var so that a test can set it to 0.
var interruptAfter = 200 * time.Millisecond

// interrupts reports whether a command of kind k, queued while a step
// runs longer than interruptAfter, makes the model give the step up: the
// person's discrete requests (edits, pause, reset, a scene, undo, save,
// a pin set or removed). Not the moves of a drag (CmdMovePin, CmdDrag,
// CmdMoveObstacle, CmdRelease), which come every frame while the mouse
// moves: they would give up every long step and the cloth would never
// move while dragged; nor CmdStep and CmdSetSpeed, which ask for steps.
func (k CmdKind) interrupts() bool {
	switch k {
	case CmdSetBlocks, CmdPin, CmdUnpin, CmdSetPaused, CmdReset, CmdLoadScene, CmdSaveScene, CmdUndo, CmdRedo:
		return true
	}
	return false
}

// poll is the model's interrupt function (Model.SetInterrupt), called on
// the Run goroutine during a step: true when a command that interrupts
// is waiting and the step has run interruptAfter, or in a replay at the
// journalled poll.
func (l *Loop) poll() bool {
	l.polls++
	if l.replayPoll > 0 {
		return l.polls == l.replayPoll
	}
	return l.waiting.Load() && l.Busy() >= interruptAfter
}

// NewLoop loads and builds the scene and publishes its first snapshot. It
// returns the loading error (with the scene name) if that fails.
func NewLoop(o LoopOptions) (*Loop, error) {
	l := &Loop{
		buf:    NewSnapshotBuffer(),
		wake:   make(chan struct{}, 1),
		scenes: o.Scenes,
		paused: o.Paused,
		now:    o.Now,

		pauseAt: o.PauseAt,
		prepare: o.Prepare,
		gate:    o.Gate,
	}
	if l.now == nil {
		l.now = time.Now
	}
	l.pollFn = l.poll
	l.pace.speed = o.Speed
	if o.Journal != nil {
		l.journal = &journal{w: o.Journal}
		l.journal.write(journalHead{Scene: o.Scene, Paused: o.Paused, PauseAt: o.PauseAt, GOMAXPROCS: runtime.GOMAXPROCS(0)})
	}
	if err := l.load(o.Scene); err != nil {
		return nil, err
	}
	l.publish(false)
	return l, nil
}

// Snapshots returns the buffer the loop publishes into.
func (l *Loop) Snapshots() *SnapshotBuffer { return l.buf }

// Send queues c for the simulation goroutine. It never blocks. Successive
// CmdMovePin or CmdDrag commands for the same vertex, and CmdMoveObstacle
// commands for the same obstacle, are coalesced, so a fast mouse cannot
// flood a slow simulation: only the newest target is applied.
func (l *Loop) Send(c Command) {
	l.mu.Lock()
	if n := len(l.queue); n > 0 && (c.Kind == CmdMovePin || c.Kind == CmdDrag || c.Kind == CmdMoveObstacle) &&
		l.queue[n-1].Kind == c.Kind && l.queue[n-1].Vertex == c.Vertex && l.queue[n-1].Obstacle == c.Obstacle {
		l.queue[n-1] = c
	} else {
		l.queue = append(l.queue, c)
	}
	if c.Kind.interrupts() {
		l.waiting.Store(true)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Busy returns how long the step in progress has been running, or 0
// between steps (the loop waiting for its schedule or a command). Safe
// from any goroutine.
func (l *Loop) Busy() time.Duration {
	if t := l.stepping.Load(); t != 0 {
		return time.Duration(l.now().UnixNano() - t)
	}
	return 0
}

// Events returns and clears the events since the last call.
func (l *Loop) Events() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := l.events
	l.events = nil
	return ev
}

func (l *Loop) emit(e Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// Run steps the simulation until ctx is cancelled, then returns. Call it
// in its own goroutine, once.
func (l *Loop) Run(ctx context.Context) {
	var cmds []Command
	for {
		if ctx.Err() != nil {
			l.journal.write(journalLine{Steps: l.calls}) // as far as the run went
			return
		}
		var stepNow, dirty bool
		cmds, stepNow, dirty = l.applyQueued(cmds)
		if stepNow {
			l.step()
			continue
		}
		if !l.paused && l.gate != nil && l.gate.Hold(l, l.s.Time()) {
			if dirty {
				l.publish(false)
			}
			l.sleep(ctx, time.Hour) // the gate wakes the loop
			continue
		}
		if !l.paused {
			wait := l.pace.wait(l.now(), l.s.Time(), l.s.Dt())
			if wait <= 0 {
				l.step()
				continue
			}
			if dirty {
				l.publish(false)
			}
			l.sleep(ctx, wait)
			continue
		}
		if dirty {
			l.publish(false)
		}
		l.sleep(ctx, time.Hour)
	}
}

// sleep waits for d, a command or cancellation, whichever comes first,
// after publishing in full a snapshot published with reused curvature
// (publish).
func (l *Loop) sleep(ctx context.Context, d time.Duration) {
	if l.stale {
		l.publish(false)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-l.wake:
	case <-t.C:
	}
}

// Wake makes the Run goroutine look at its queue and its gate again (a
// StepGate calls it when the other run has moved). Safe from any
// goroutine; it never blocks.
func (l *Loop) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// applyQueued takes the commands queued (into buf, whose slice it
// returns for reuse), applies those that are due (dueCommands) and
// reports whether one asked for a step now and whether any was applied.
func (l *Loop) applyQueued(buf []Command) (cmds []Command, stepNow, dirty bool) {
	l.mu.Lock()
	cmds, l.queue = l.queue, buf[:0]
	l.waiting.Store(false)
	l.mu.Unlock()
	if len(l.later) > 0 || slices.ContainsFunc(cmds, func(c Command) bool { return c.At > 0 }) {
		cmds = l.dueCommands(cmds)
	}
	for _, c := range cmds {
		step := l.apply(c)
		stepNow = stepNow || step
		dirty = true
	}
	return cmds, stepNow, dirty
}

// dueCommands returns the commands to apply now, in the order sent: the
// held ones (Command.At) whose time has come, then those of cmds that
// are due; the others are held in l.later. Once one is held, every later
// one with a time waits behind it, so that edits keep their order;
// commands without one (step, reset, a load) pass.
//
// A time is only kept while it can come: a reset or a load first
// releases the edits held (they were made before it, for the simulation
// it ends: a parameter so set stays, as when unlocked), and the edits
// after it, timed by the simulation it ends (Command.Epoch, or in the
// same batch), apply at once to the new one, as does every edit a paused
// loop takes (both runs of a locked pair pause at the same time: it
// will not move on to the time).
func (l *Loop) dueCommands(cmds []Command) []Command {
	all := append(append([]Command(nil), l.later...), cmds...)
	l.later = l.later[:0]
	out := cmds[:0]
	t, half := l.s.Time(), l.s.Dt()/2
	paused, rebuilt := l.paused, false
	for _, c := range all {
		switch {
		case c.Kind == CmdReset || c.Kind == CmdLoadScene:
			out = append(append(out, l.later...), c)
			l.later = l.later[:0]
			rebuilt = true
		case c.At > 0 && (len(l.later) > 0 || !paused && !rebuilt && (c.Epoch == 0 || c.Epoch == l.epoch) && t < c.At-half):
			l.later = append(l.later, c)
		default:
			out = append(out, c)
			if c.Kind == CmdSetPaused {
				paused = c.Paused || l.err != ""
			}
		}
	}
	return out
}

// apply executes one command and reports whether it asks for a single
// step now.
func (l *Loop) apply(c Command) (step bool) {
	l.journal.command(l.calls, c)
	fail := func(err error) { l.emit(Event{Err: err}) }
	switch c.Kind {
	case CmdSetBlocks:
		// The model validates first and keeps the blocks in force on
		// error; the answer goes to the panels through the snapshot
		// (EditSeq, EditErr), the one channel for edits.
		l.editSeq++
		l.editErr = ""
		if err := l.setBlocks(c.Blocks, c.Gesture, c.Mirror); err != nil {
			l.editErr = err.Error()
			return false
		}
		l.pace.reset()
	case CmdPin, CmdMovePin:
		before := l.pinNow(c.Vertex)
		if c.Kind == CmdMovePin && !before.on {
			// A pin drag whose vertex has no pin: a remesh took the
			// vertex and moved its pin to a neighbour (cloth's
			// updatePins), or the pin was removed. The moves the viewer
			// queued before it saw that are dropped (it then goes on with
			// the moved pin, Interaction.Update): pinning the vertex again would
			// put a second pin where the slot was reused, or fail with
			// "vertex N does not exist", as a dragged vertex did in the
			// viewer monkey (cloth.Sim.Drag).
			return false
		}
		if err := l.s.Pin(c.Vertex, c.Target); err != nil {
			fail(fmt.Errorf("pinning: %w", err))
		} else {
			l.recordPin(c.Vertex, c.Target, false)
			l.pinChanged(c.Vertex, before, c.Gesture)
		}
	case CmdUnpin:
		before := l.pinNow(c.Vertex)
		l.recordPin(c.Vertex, geom.Vec3{}, true)
		l.s.Unpin(c.Vertex)
		l.pinChanged(c.Vertex, before, c.Gesture)
	case CmdDrag:
		if !l.dragging {
			l.dragging, l.dragEpoch = true, l.epoch
		}
		if l.dragEpoch != l.epoch {
			// The drag began on the simulation that a reset or a scene
			// load replaced: its vertex names a slot of that one. Its
			// moves are dropped until it ends, as a pin drag's are
			// (CmdMovePin). Applied, they pulled whatever vertex had
			// the slot now, or failed with "dragging: vertex 608 does
			// not exist" in the panel where the rebuilt mesh was
			// coarser (the viewer monkey, sphere-adaptive seed 45, R
			// pressed half way through a cloth drag).
			return false
		}
		if err := l.s.Drag(c.Vertex, c.Target); err != nil {
			fail(fmt.Errorf("dragging: %w", err))
			l.s.Release()
		}
	case CmdRelease:
		l.s.Release()
		l.dragging = false
	case CmdSetPaused:
		if !c.Paused && l.err != "" {
			return false // an unstable state stays paused until Reset
		}
		l.paused = c.Paused
		l.pace.reset()
	case CmdStep:
		return l.err == ""
	case CmdReset:
		if err := l.rebuild(l.scene, true); err != nil {
			fail(err)
		}
	case CmdLoadScene:
		before := l.sceneNow()
		if err := l.load(c.Scene); err != nil {
			fail(err)
		} else {
			l.sceneLoaded(before, c.Gesture)
			l.emit(Event{Info: "loaded scene " + l.scene.Name})
		}
	case CmdSetSpeed:
		if c.Speed >= 0 && !math.IsInf(c.Speed, 0) {
			l.pace.speed = c.Speed
			l.pace.reset()
		}
	case CmdSaveScene:
		sc := l.SavedScene(c.Camera)
		if c.ClothColor != nil {
			sc.ClothColor = c.ClothColor
		}
		if c.Material != nil {
			sc.Material = *c.Material
		}
		if err := sc.WriteFile(c.Scene); err != nil {
			fail(err)
		} else {
			l.emit(Event{Info: "saved scene to " + c.Scene})
		}
	case CmdMoveObstacle:
		before := l.obstacleGoal(c.Obstacle)
		if l.dragObstacle(c.Obstacle, c.Target) {
			l.obstacleMoved(c.Obstacle, before, c.Target, c.Gesture)
		}
	case CmdUndo:
		l.undo(c.Only, c.Gesture)
	case CmdRedo:
		l.redo(c.Only, c.Gesture)
	}
	return false
}

// dragObstacle asks for obstacle i at user offset target. Paused, the
// obstacle goes there at once, or as far as the cloth lets it
// (Model.MoveObstacle), and the rest of the way once the simulation
// runs; running, the model takes it there at cloth.HandSpeed at most
// (Model.DragObstacle). It reports whether the model took the target; a
// failure is an Event.
func (l *Loop) dragObstacle(i int, target geom.Vec3) bool {
	if l.paused {
		if err := l.s.MoveObstacle(i, target); err != nil {
			l.emit(Event{Err: err})
			return false
		}
	}
	if err := l.s.DragObstacle(i, target); err != nil {
		l.emit(Event{Err: err})
		return false
	}
	return true
}

// recordPin notes a pin edit on vertex v for SavedScene, replacing an
// earlier edit of the same vertex.
func (l *Loop) recordPin(v int32, target geom.Vec3, remove bool) {
	e, ok := l.s.PinEdit(v, target, remove)
	if !ok {
		return
	}
	l.pinEdits = slices.DeleteFunc(l.pinEdits, func(p scene.PinSpec) bool { return *p.At == *e.At })
	l.pinEdits = append(l.pinEdits, e)
}

// SavedScene returns the running scene as now set, for saving: the
// scene's mesh, placement and pins, then the user's pin edits (by
// material coordinates), the parameters and adaptivity settings in force
// and camera cam. It may only be called on the Run goroutine or before
// Run starts.
func (l *Loop) SavedScene(cam *scene.Camera) *scene.Scene {
	sc := l.scene.Clone()
	l.s.Blocks().writeScene(sc)
	l.s.SaveObstacles(sc)
	sc.Pins = append(sc.Pins, l.pinEdits...)
	sc.Camera = cam
	return sc
}

// load loads and builds a scene, replacing the running one only on
// success.
func (l *Loop) load(name string) error {
	sc, err := scene.LoadScene(l.scenes, name)
	if err != nil {
		return err
	}
	if l.prepare != nil {
		if sc, err = l.prepare(sc); err != nil {
			return err
		}
	}
	if err := l.rebuild(sc, false); err != nil {
		return err
	}
	l.source = name
	return nil
}

// rebuild builds sc and makes it the running simulation. With keepParams
// the parameter blocks in force are applied to the new simulation (Reset
// keeps the user's edits); otherwise the scene's own are used. Pin edits
// are not kept: the scene's pins come back.
func (l *Loop) rebuild(sc *scene.Scene, keepParams bool) error {
	m, err := buildModel(sc)
	if err != nil {
		return err
	}
	m.SetInterrupt(l.pollFn)
	if keepParams {
		if err := m.SetBlocks(l.s.Blocks()); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
	}
	l.scene, l.s = sc, m
	l.pinEdits = nil
	// Edits still held (l.later) were timed by the old simulation
	// (Command.Epoch): dueCommands now lets them through.
	// history.go: the old simulation's pin and obstacle changes leave the history.
	l.rebuilt()
	l.err = ""
	l.editErr = ""
	l.last = StepInfo{}
	l.retried, l.retriedAtCap = 0, 0
	l.stepSum, l.stepN = 0, 0
	l.epoch++
	l.pace.reset()
	l.rate = rateMeter{}
	return nil
}

// step advances the simulation once and publishes. A failed step (the
// state is unchanged, see cloth.Sim.Step) or a non-finite state pauses the
// loop and publishes the reason; only Reset or a scene change clear it.
// A step given up for a command (cloth.ErrInterrupted, see poll) leaves
// the state as it was and publishes nothing: Run applies the command and
// steps again. It is journalled with the poll it stopped at, so that a
// replay stops it there too.
func (l *Loop) step() {
	l.polls = 0
	l.stepping.Store(l.now().UnixNano())
	st, err := l.s.Step()
	l.stepping.Store(0)
	interrupted := errors.Is(err, cloth.ErrInterrupted)
	if interrupted {
		l.journal.write(journalLine{Steps: l.calls, Interrupt: l.polls})
	}
	if l.calls++; l.calls%journalMark == 0 {
		l.journal.write(journalLine{Steps: l.calls})
	}
	if interrupted {
		l.interrupted++
		return
	}
	if err == nil && !l.s.Finite() {
		err = fmt.Errorf("state is not finite after step %d: %w", l.s.Steps(), cloth.ErrUnstable)
	}
	if err != nil {
		l.paused = true
		l.err = err.Error()
		if errors.Is(err, cloth.ErrUnstable) {
			l.err = "Stopped: " + err.Error() + ". Lower Δt or raise damping, then Reset."
		}
		l.publish(false)
		return
	}
	l.last = st
	l.stepSum += st.Total()
	l.stepN++
	if st.Substeps > 0 {
		l.retried++
		if errors.Is(st.Retry, cloth.ErrUnconverged) {
			l.retriedAtCap++
		}
	}
	if l.pauseAt > 0 && l.s.Time() >= l.pauseAt-l.s.Dt()/2 {
		l.paused, l.pauseAt = true, 0
	}
	l.rate.add(l.now(), l.s.Time())
	l.publish(!l.buf.Taken())
}

// publish fills the writable snapshot from the simulation and publishes
// it.
//
// reuse lets the model keep the display curvature of its last surface
// (Model.Surface) when the viewer has not taken the last snapshot, so
// that a simulation stepping faster than the viewer draws spends the
// curvature's time only on the snapshots that are drawn; the colours then
// lag the shape by at most the one frame the viewer was drawing. A
// snapshot so published is made again in full before the loop sleeps
// (refresh), so that a paused or held simulation shows its own colours.
func (l *Loop) publish(reuse bool) {
	t0 := time.Now()
	dst := l.buf.Writable()
	l.seq++
	l.stale = reuse
	l.fill(dst, reuse)
	dst.Stats.Snapshot = time.Since(t0)
	l.buf.Publish()
	if l.gate != nil {
		l.gate.Published(l, dst)
	}
}

// fill writes the simulation's state into dst, reusing its slices: the
// model's surface (Model.Surface), parameter blocks and statistics.
func (l *Loop) fill(dst *Snapshot, reuse bool) {
	s := l.s
	dst.Springs = SpringsInfo{} // set by the springs model's Surface
	surf := s.Surface(dst, reuse)
	dst.Seq, dst.Epoch, dst.Scene, dst.Camera, dst.ClothColor = l.seq, l.epoch, l.scene.Name, l.scene.Camera, l.scene.ClothColor
	dst.Material, dst.Source = l.scene.Material, l.source
	dst.Blocks = s.Blocks()
	dst.EditErr, dst.EditSeq = l.editErr, l.editSeq
	dst.History = l.hist.info()
	sps, rtf := l.rate.rates()
	dst.Stats = Stats{
		Time: s.Time(), Steps: s.Steps(), Dt: s.Dt(),
		Vertices: len(dst.Slot), Triangles: len(dst.Tris) / 3,
		StepInfo:    l.last,
		LastAdapt:   s.LastAdapt(),
		StepsPerSec: sps, RealTimeFactor: rtf, SpeedTarget: l.pace.speed,
		KineticEnergy: s.KineticEnergy(),
		CurvAbsP98:    surf.CurvAbsP98,
		Tangled:       surf.Tangled,
		Retried:       l.retried,
		RetriedAtCap:  l.retriedAtCap,
		StepMean:      l.stepSum / time.Duration(max(l.stepN, 1)),
		Paused:        l.paused, Finite: s.Finite(), Err: l.err,
	}
}

// weighted is a value and its weight, for weightedPercentile.
type weighted struct{ v, w float32 }

// weightedPercentile returns the smallest value of x at which the values
// up to it carry at least the fraction q (0 ≤ q ≤ 1) of the total weight,
// reordering x; 0 for an empty slice. The automatic colour range
// weights each vertex's |H| by its mass (its share of the cloth's area):
// an adaptive mesh puts most vertices where the curvature is high, and a
// percentile over vertices would then describe the folds, not the cloth.
// NaNs order first (cmp.Compare) and so only matter when they carry most
// of the weight.
//
// It selects rather than sorts (quickselect with three-way partitions,
// expected linear time): the displayed curvature (geom.DisplayCurvature)
// has a distinct value per vertex, and sorting them all took 2.8 ms of
// the snapshot's time on the 11 000-vertex curtain (2 cores), where the
// raw curvature's few hundred repeated values had taken 0.3 ms.
func weightedPercentile(x []weighted, q float64) float32 {
	if len(x) == 0 {
		return 0
	}
	var total float64
	for _, e := range x {
		total += float64(e.w)
	}
	target := q * total
	for len(x) > 1 {
		p := medianOf3(x[0].v, x[len(x)/2].v, x[len(x)-1].v)
		// Three-way partition: x[:lt] < p, x[lt:gt] == p, x[gt:] > p.
		lt, i, gt := 0, 0, len(x)
		for i < gt {
			switch c := cmp.Compare(x[i].v, p); {
			case c < 0:
				x[lt], x[i] = x[i], x[lt]
				lt++
				i++
			case c > 0:
				gt--
				x[i], x[gt] = x[gt], x[i]
			default:
				i++
			}
		}
		var wl, we float64
		for _, e := range x[:lt] {
			wl += float64(e.w)
		}
		for _, e := range x[lt:gt] {
			we += float64(e.w)
		}
		switch {
		case target <= wl && lt > 0:
			x = x[:lt]
		case target <= wl+we || gt == len(x):
			return p
		default:
			target -= wl + we
			x = x[gt:]
		}
	}
	return x[0].v
}

// medianOf3 returns the median of a, b and c in cmp.Compare's order.
func medianOf3(a, b, c float32) float32 {
	if cmp.Compare(a, b) > 0 {
		a, b = b, a
	}
	if cmp.Compare(b, c) > 0 {
		b = c
	}
	if cmp.Compare(a, b) > 0 {
		return a
	}
	return b
}

// maxCatchUpSteps caps how far the paced simulation may lag behind its
// schedule: beyond that many steps the schedule is moved to now, so a
// slow step becomes slow motion instead of a burst of catch-up steps
// (Ebitengine internal/clock does the same with maxCatchUpTicks).
const maxCatchUpSteps = 3

// pacer schedules steps at a real-time factor: simulated time should
// advance by speed seconds per wall-clock second from an anchor
// (wall0, sim0) set on the first call after a reset.
type pacer struct {
	speed      float64 // real-time factor target; ≤ 0 means no pacing
	anchored   bool
	wall0      time.Time
	sim0       float64 // s
	lastBehind bool
}

// reset drops the schedule; the next wait starts a new one. Call it on
// pause, resume, speed or Δt changes and scene rebuilds.
func (p *pacer) reset() { p.anchored = false }

// wait returns how long to wait at wall time now before the step that
// takes the simulation from time t to t+dt is due; 0 or less means step
// now. A step is due once the schedule has reached its start time t, so
// the simulation runs at most one step ahead of the target. When the simulation is more than maxCatchUpSteps behind the
// schedule (it is slower than the target), the schedule is re-anchored at
// now so lost time is dropped, not caught up.
func (p *pacer) wait(now time.Time, t, dt float64) time.Duration {
	if p.speed <= 0 {
		return 0
	}
	if !p.anchored {
		p.anchored, p.wall0, p.sim0 = true, now, t
		return 0
	}
	allowed := p.sim0 + p.speed*now.Sub(p.wall0).Seconds() // simulated time the schedule allows at now
	if allowed-t > maxCatchUpSteps*dt {
		p.wall0, p.sim0 = now, t
		return 0
	}
	ahead := t - allowed
	if ahead <= 0 {
		return 0
	}
	return time.Duration(ahead / p.speed * float64(time.Second))
}

// rateMeter measures steps per second and the real-time factor over
// windows of about one second of wall time.
type rateMeter struct {
	started  bool
	wall0    time.Time
	sim0     float64
	n        int
	sps, rtf float64
}

// add records a step that ended at wall time now with simulated time t.
func (r *rateMeter) add(now time.Time, t float64) {
	if !r.started {
		r.started, r.wall0, r.sim0, r.n = true, now, t, 0
		return
	}
	r.n++
	if el := now.Sub(r.wall0).Seconds(); el >= 1 {
		r.sps, r.rtf = float64(r.n)/el, (t-r.sim0)/el
		r.wall0, r.sim0, r.n = now, t, 0
	} else if r.sps == 0 && el > 0.25 {
		// A first estimate before the first full window.
		r.sps, r.rtf = float64(r.n)/el, (t-r.sim0)/el
	}
}

// rates returns the last measured steps per second and real-time factor.
func (r *rateMeter) rates() (stepsPerSec, realTimeFactor float64) { return r.sps, r.rtf }
