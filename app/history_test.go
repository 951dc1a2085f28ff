package app

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/strainlimit"
)

// TestHistoryRecord drives the history's stacks with block changes of
// plain numbers: merging by gesture, dropping a gesture that ends where it
// began, clearing the redo stack on a new step, loads that never merge,
// the cap, and what a rebuild drops.
func TestHistoryRecord(t *testing.T) {
	blk := func(k Block, a, b float64) change {
		return change{kind: changeBlocks, before: changeValue{blocks: valued(k, a)}, after: changeValue{blocks: valued(k, b)}}
	}
	pin := func(v int32, a, b bool) change {
		return change{kind: changePin, index: v, before: changeValue{pin: pinState{on: a}}, after: changeValue{pin: pinState{on: b}}}
	}
	load := func() change { return change{kind: changeScene} }
	type op struct {
		do string // "rec", "undo", "redo", "drop"
		g  uint64
		c  change
	}
	for _, tc := range []struct {
		name       string
		ops        []op
		undo, redo []string // the entries left, oldest first, as key:before→after of their changes
	}{
		{"one gesture is one step", []op{
			{"rec", 1, blk(BlockParams, 0, 1)}, {"rec", 1, blk(BlockParams, 1, 2)}, {"rec", 1, blk(BlockParams, 2, 3)},
		}, []string{"params:0→3"}, nil},
		{"gestures apart are steps apart", []op{
			{"rec", 1, blk(BlockParams, 0, 1)}, {"rec", 2, blk(BlockParams, 1, 2)},
		}, []string{"params:0→1", "params:1→2"}, nil},
		{"gesture 0 never merges", []op{
			{"rec", 0, blk(BlockParams, 0, 1)}, {"rec", 0, blk(BlockParams, 1, 2)},
		}, []string{"params:0→1", "params:1→2"}, nil},
		{"one gesture, two blocks", []op{
			{"rec", 4, blk(BlockParams, 0, 1)}, {"rec", 4, blk(BlockStrain, 5, 6)}, {"rec", 4, blk(BlockParams, 1, 2)},
		}, []string{"params:0→2 strain:5→6"}, nil},
		{"a gesture back where it began is no step", []op{
			{"rec", 1, blk(BlockParams, 0, 1)}, {"rec", 2, blk(BlockParams, 1, 2)}, {"rec", 2, blk(BlockParams, 2, 1)},
		}, []string{"params:0→1"}, nil},
		{"a change of nothing is no step", []op{
			{"rec", 1, blk(BlockParams, 3, 3)},
		}, nil, nil},
		{"undo and redo move steps", []op{
			{"rec", 1, blk(BlockParams, 0, 1)}, {"rec", 2, blk(BlockAdapt, 0, 1)}, {"undo", 0, change{}},
		}, []string{"params:0→1"}, []string{"adapt:0→1"}},
		{"redo puts back", []op{
			{"rec", 1, blk(BlockParams, 0, 1)}, {"undo", 0, change{}}, {"redo", 0, change{}},
		}, []string{"params:0→1"}, nil},
		{"a new step clears redo", []op{
			{"rec", 1, blk(BlockParams, 0, 1)}, {"undo", 0, change{}}, {"rec", 2, blk(BlockParams, 0, 5)},
		}, []string{"params:0→5"}, nil},
		{"nothing merges into a redone step", []op{
			{"rec", 1, blk(BlockParams, 0, 1)}, {"undo", 0, change{}}, {"redo", 0, change{}}, {"rec", 1, blk(BlockParams, 1, 2)},
		}, []string{"params:0→1", "params:1→2"}, nil},
		{"undo of nothing", []op{{"undo", 0, change{}}, {"redo", 0, change{}}}, nil, nil},
		{"loads never merge", []op{
			{"rec", 1, load()}, {"rec", 1, load()}, {"rec", 1, blk(BlockParams, 0, 1)},
		}, []string{"scene", "scene", "params:0→1"}, nil},
		{"a rebuild drops pins, keeps settings and loads", []op{
			{"rec", 1, blk(BlockParams, 0, 1)}, {"rec", 2, pin(7, false, true)}, {"rec", 3, load()},
			{"rec", 4, pin(8, true, false)}, {"rec", 5, pin(9, false, true)}, {"undo", 0, change{}}, {"drop", 0, change{}},
		}, []string{"params:0→1", "scene"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h history
			for _, o := range tc.ops {
				switch o.do {
				case "rec":
					h.record(o.g, o.c)
				case "undo":
					moveLast(&h.undo, &h.redo)
				case "redo":
					moveLast(&h.redo, &h.undo)
				case "drop":
					h.dropSimulation()
				}
			}
			if got := entryStrings(h.undo); !reflect.DeepEqual(got, tc.undo) {
				t.Errorf("undo stack: got=%v, want=%v", got, tc.undo)
			}
			if got := entryStrings(h.redo); !reflect.DeepEqual(got, tc.redo) {
				t.Errorf("redo stack: got=%v, want=%v", got, tc.redo)
			}
			if i := h.info(); i.Undo != len(tc.undo) || i.Redo != len(tc.redo) || (i.Undo > 0) != (i.UndoLabel != "") {
				t.Errorf("info: got=%+v, want %d and %d steps with labels", i, len(tc.undo), len(tc.redo))
			}
		})
	}
}

// entryStrings describes the entries' changes for TestHistoryRecord.
func entryStrings(es []entry) []string {
	var out []string
	for _, e := range es {
		var parts []string
		for _, c := range e.changes {
			switch c.kind {
			case changeScene:
				parts = append(parts, "scene")
			case changePin:
				parts = append(parts, "pin")
			default:
				for k := range numBlocks {
					if c.after.blocks.Has(k) {
						parts = append(parts, fmt.Sprintf("%s:%v→%v", k.Key(), valueOf(c.before.blocks, k), valueOf(c.after.blocks, k)))
					}
				}
			}
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// valued returns blocks holding block k with one field set to x, for
// the history's tests of plain numbers (valueOf reads it back).
func valued(k Block, x float64) Blocks {
	var b Blocks
	switch k {
	case BlockParams:
		b.Params.Density = x
	case BlockAdapt:
		b.Adapt.Base = x
	case BlockStrain:
		b.Strain.MaxWeft = x
	}
	b.Held = blockSet(k)
	return b
}

// valueOf returns the field of block k that valued sets.
func valueOf(b Blocks, k Block) float64 {
	switch k {
	case BlockParams:
		return b.Params.Density
	case BlockAdapt:
		return b.Adapt.Base
	case BlockStrain:
		return b.Strain.MaxWeft
	}
	return math.NaN()
}

// TestHistoryCap: the history keeps the newest historyCap steps.
func TestHistoryCap(t *testing.T) {
	var h history
	for i := 0; i < historyCap+10; i++ {
		h.record(uint64(i+1), change{kind: changeBlocks, before: changeValue{blocks: valued(BlockParams, float64(i))}, after: changeValue{blocks: valued(BlockParams, float64(i+1))}})
	}
	first, last := h.undo[0].changes[0].before.blocks.Params.Density, h.undo[len(h.undo)-1].changes[0].after.blocks.Params.Density
	if len(h.undo) != historyCap || first != 10 || last != historyCap+10 {
		t.Errorf("got %d steps from %v to %v, want %d, the newest", len(h.undo), first, last, historyCap)
	}
}

// TestHistoryLabel: the buttons' tooltips name the fields edited.
func TestHistoryLabel(t *testing.T) {
	p := cloth.DefaultParams()
	q := p
	q.Density = 0.3
	r := q
	r.Bending, r.YoungX, r.Dt = 1e-4, 2000, 0.01
	sp := strainlimit.DefaultParams()
	sq := sp
	sq.MaxWarp = 0.05
	ps, pss := blockSet(BlockParams), blockSet(BlockParams, BlockStrain)
	blocks := func(a, b Blocks) change {
		return change{kind: changeBlocks, before: changeValue{blocks: a}, after: changeValue{blocks: b}}
	}
	pins := func(a, b pinState) change {
		return change{kind: changePin, index: 4, before: changeValue{pin: a}, after: changeValue{pin: b}}
	}
	for _, tc := range []struct {
		c    change
		want string
	}{
		{blocks(Blocks{Params: p, Held: ps}, Blocks{Params: q, Held: ps}), "set ρ density"},
		{blocks(Blocks{Params: p, Held: ps}, Blocks{Params: r, Held: ps}), "set E_x weft, ρ density and 2 more"},
		{blocks(Blocks{Params: p, Strain: sp, Held: pss}, Blocks{Params: q, Strain: sq, Held: pss}), "set ρ density, ε warp"},
		{blocks(Blocks{Params: p, Held: ps}, Blocks{Params: p, Held: ps}), "set settings"},
		{pins(pinState{}, pinState{on: true}), "pin vertex 4"},
		{pins(pinState{on: true}, pinState{}), "unpin vertex 4"},
		{pins(pinState{on: true}, pinState{on: true, target: geom.Vec3{X: 1}}), "move the pin of vertex 4"},
		{change{kind: changeObstacle, name: "ball", before: changeValue{offset: geom.Vec3{}}, after: changeValue{offset: geom.Vec3{X: 1}}}, "move ball"},
	} {
		e := entry{changes: []change{tc.c}}
		if got := e.describe(); got != tc.want {
			t.Errorf("label: got=%q, want=%q", got, tc.want)
		}
	}
}

// applyAll applies cs on the Loop's goroutine's behalf (the loop is not
// running) and returns the events they sent.
func applyAll(l *Loop, cs ...Command) []Event {
	for _, c := range cs {
		l.apply(c)
	}
	return l.Events()
}

// pinOf returns the model's pin of vertex v.
func pinOf(l *Loop, v int32) (ModelPin, bool) {
	for _, p := range l.s.Pins() {
		if p.Vertex == v {
			return p, true
		}
	}
	return ModelPin{}, false
}

// TestMovePinWithoutPin: a pin drag's move of a vertex that has no pin
// (a remesh moved the pin away, or it was removed) is dropped: no pin
// appears on the vertex, no error is reported, and the history is
// unchanged. Before, it pinned the vertex: a second pin where a remesh
// had reused the slot.
func TestMovePinWithoutPin(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	v := int32(100)
	if _, ok := pinOf(l, v); ok {
		t.Fatalf("vertex %d is pinned at the start", v)
	}
	x, _ := l.s.(vertexPositioner).VertexPos(v)
	n := len(l.s.Pins())
	before := l.hist.info()
	events := applyAll(l, Command{Kind: CmdMovePin, Vertex: v, Target: x.Add(geom.Vec3{Y: 0.1}), Gesture: 1})
	if _, ok := pinOf(l, v); ok || len(l.s.Pins()) != n {
		t.Errorf("a move of vertex %d, which has no pin, pinned it (%d pins, want %d)", v, len(l.s.Pins()), n)
	}
	for _, e := range events {
		if e.Err != nil {
			t.Errorf("error event %v", e.Err)
		}
	}
	if after := l.hist.info(); after != before {
		t.Errorf("history %+v after the move, want %+v", after, before)
	}
	applyAll(l, Command{Kind: CmdPin, Vertex: v, Target: x, Gesture: 2})
	if _, ok := pinOf(l, v); !ok {
		t.Errorf("CmdPin of vertex %d did not pin it", v)
	}
}

// TestHistoryLoop drives the Loop's history with the commands the viewer
// sends, on a paused hanging sheet: a slider's gesture, pins removed,
// added and moved, a reset and a scene load, each undone and redone to the
// exact values (and saved scene) before and after.
func TestHistoryLoop(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	params := func() cloth.Params { return l.s.Blocks().Params }
	p0 := params()
	saved0 := l.SavedScene(nil)

	// A slider dragged: three edits of one gesture, one step.
	var ps []Command
	for _, d := range []float64{0.2, 0.3, 0.45} {
		p := p0
		p.Density = d
		ps = append(ps, Command{Kind: CmdSetBlocks, Blocks: Blocks{Params: p, Held: blockSet(BlockParams)}, Gesture: 1})
	}
	applyAll(l, ps...)
	if i := l.hist.info(); i.Undo != 1 || i.UndoLabel != "set ρ density" {
		t.Fatalf("after a slider's gesture: history %+v, want one step setting the density", i)
	}
	// A rejected edit is no step.
	bad := params()
	bad.PoissXY = 1.5
	applyAll(l, Command{Kind: CmdSetBlocks, Blocks: Blocks{Params: bad, Held: blockSet(BlockParams)}, Gesture: 2})
	if l.hist.info().Undo != 1 {
		t.Errorf("a rejected edit became a step: %+v", l.hist.info())
	}
	ev := applyAll(l, Command{Kind: CmdUndo})
	if got := params(); got != p0 {
		t.Errorf("undo: density got=%v, want=%v", got.Density, p0.Density)
	}
	if len(ev) != 1 || ev[0].Info != "undid set ρ density" {
		t.Errorf("undo events: got=%v, want one saying what it undid", ev)
	}
	applyAll(l, Command{Kind: CmdRedo})
	if got := params().Density; got != 0.45 {
		t.Errorf("redo: density got=%v, want=0.45", got)
	}

	// Pins: unpin a corner, pin a free vertex, drag a pin; undo all three
	// in turn and redo them.
	pins := l.s.Pins()
	corner, other := pins[0], pins[1]
	savedPinned := l.SavedScene(nil)
	applyAll(l, Command{Kind: CmdUnpin, Vertex: corner.Vertex, Gesture: 3})
	x, _ := l.s.(vertexPositioner).VertexPos(100)
	applyAll(l, Command{Kind: CmdPin, Vertex: 100, Target: x, Gesture: 4})
	goal := other.Target
	for k := 1; k <= 5; k++ {
		goal = goal.Add(geom.Vec3{X: 0.02, Y: -0.01})
		applyAll(l, Command{Kind: CmdMovePin, Vertex: other.Vertex, Target: goal, Gesture: 5})
	}
	moved, _ := pinOf(l, other.Vertex)
	savedEdited := l.SavedScene(nil)
	if i := l.hist.info(); i.Undo != 4 || i.UndoLabel != fmt.Sprintf("move the pin of vertex %d", other.Vertex) {
		t.Fatalf("after the pin edits: history %+v, want 4 steps, the last moving vertex %d's pin", i, other.Vertex)
	}
	applyAll(l, Command{Kind: CmdUndo})
	if p, _ := pinOf(l, other.Vertex); p.Target != other.Target {
		t.Errorf("undo of the pin's drag: target got=%v, want=%v", p.Target, other.Target)
	}
	applyAll(l, Command{Kind: CmdUndo})
	if _, ok := pinOf(l, 100); ok {
		t.Errorf("undo of pinning vertex 100: still pinned")
	}
	applyAll(l, Command{Kind: CmdUndo})
	if p, ok := pinOf(l, corner.Vertex); !ok || p.Target != corner.Target {
		t.Errorf("undo of the unpin: got %+v (pinned %v), want the pin at %v", p, ok, corner.Target)
	}
	if got := l.SavedScene(nil); !reflect.DeepEqual(got, savedPinned) {
		t.Errorf("saved scene after undoing the pin edits:\n got=%+v\nwant=%+v", got.Pins, savedPinned.Pins)
	}
	applyAll(l, Command{Kind: CmdRedo}, Command{Kind: CmdRedo}, Command{Kind: CmdRedo})
	if p, _ := pinOf(l, other.Vertex); p.Target != moved.Target {
		t.Errorf("redo of the pin's drag: target got=%v, want=%v", p.Target, moved.Target)
	}
	if p, ok := pinOf(l, 100); !ok || p.Target != x {
		t.Errorf("redo of pinning vertex 100: got %+v (pinned %v), want at %v", p, ok, x)
	}
	if _, ok := pinOf(l, corner.Vertex); ok {
		t.Errorf("redo of the unpin: still pinned")
	}
	if got := l.SavedScene(nil); !reflect.DeepEqual(got, savedEdited) {
		t.Errorf("saved scene after redoing the pin edits:\n got=%+v\nwant=%+v", got.Pins, savedEdited.Pins)
	}

	// Reset: the pin steps leave, the density's stays and undoes.
	applyAll(l, Command{Kind: CmdReset})
	if i := l.hist.info(); i.Undo != 1 || i.Redo != 0 {
		t.Errorf("after reset: history %+v, want only the density's step", i)
	}
	applyAll(l, Command{Kind: CmdUndo})
	if got := params(); got != p0 {
		t.Errorf("undo after reset: density got=%v, want=%v", got.Density, p0.Density)
	}
	applyAll(l, Command{Kind: CmdRedo})

	// A load: undo brings back hanging as edited (its density and the
	// pin vertex 100 had before the reset is gone with the reset).
	applyAll(l, Command{Kind: CmdUnpin, Vertex: corner.Vertex, Gesture: 6})
	before := l.SavedScene(l.scene.Camera)
	applyAll(l, Command{Kind: CmdLoadScene, Scene: "ground", Gesture: 7})
	if l.scene.Name != "ground" || l.hist.info().UndoLabel != "load scene ground" {
		t.Fatalf("load: scene %q, history %+v", l.scene.Name, l.hist.info())
	}
	ground := params()
	applyAll(l, Command{Kind: CmdUndo})
	if l.scene.Name != "hanging" || l.source != "hanging" || params().Density != 0.45 || len(l.s.Pins()) != 1 {
		t.Errorf("undo of the load: scene %q from %q, density %v, pins %d, want hanging as edited: 0.45 and one pin",
			l.scene.Name, l.source, params().Density, len(l.s.Pins()))
	}
	if got := l.SavedScene(l.scene.Camera); !reflect.DeepEqual(got, before) {
		t.Errorf("undo of the load: the scene differs from hanging as edited:\n got=%+v\nwant=%+v", got, before)
	}
	if i := l.hist.info(); i.Undo != 1 || i.Redo != 1 {
		t.Errorf("after undoing the load: history %+v, want the density's step and the load to redo", i)
	}
	applyAll(l, Command{Kind: CmdRedo})
	if l.scene.Name != "ground" || l.source != "ground" || params() != ground {
		t.Errorf("redo of the load: scene %q from %q, want ground with its own parameters", l.scene.Name, l.source)
	}
	applyAll(l, Command{Kind: CmdUndo}, Command{Kind: CmdUndo})
	if got := l.SavedScene(nil); got.Params != saved0.Params {
		t.Errorf("all undone: params %+v, want %+v", got.Params, saved0.Params)
	}
}

// TestHistoryObstacle: a drag of the ball (one gesture of several moves)
// is one step, undone to the offset it had and redone to the last one
// asked for.
func TestHistoryObstacle(t *testing.T) {
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: filepath.Join("testdata", "sphere-push.json"), Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	offset := func() geom.Vec3 { return l.s.(*femModel).sim.Obstacles()[0].Offset() }
	var goal geom.Vec3
	for k := 1; k <= 4; k++ {
		goal = geom.Vec3{Z: 0.05 * float64(k)}
		applyAll(l, Command{Kind: CmdMoveObstacle, Obstacle: 0, Target: goal, Gesture: 9})
	}
	if i := l.hist.info(); i.Undo != 1 || i.UndoLabel != "move ball" || offset() != goal {
		t.Fatalf("after the drag: history %+v, offset %v, want one step moving the ball to %v", i, offset(), goal)
	}
	applyAll(l, Command{Kind: CmdUndo})
	if got := offset(); got != (geom.Vec3{}) {
		t.Errorf("undo: offset got=%v, want 0", got)
	}
	applyAll(l, Command{Kind: CmdRedo})
	if got := offset(); got != goal {
		t.Errorf("redo: offset got=%v, want=%v", got, goal)
	}
	// Undone, then dragged anew: the new step starts where the undo put
	// the ball.
	applyAll(l, Command{Kind: CmdUndo}, Command{Kind: CmdMoveObstacle, Obstacle: 0, Target: geom.Vec3{X: 0.1}, Gesture: 11}, Command{Kind: CmdUndo})
	if got := offset(); got != (geom.Vec3{}) {
		t.Errorf("undo of a drag after an undo: offset got=%v, want 0", got)
	}
	applyAll(l, Command{Kind: CmdRedo})
	// A move of an obstacle the scene does not have fails: no step.
	applyAll(l, Command{Kind: CmdMoveObstacle, Obstacle: 5, Target: goal, Gesture: 10})
	if i := l.hist.info(); i.Undo != 1 {
		t.Errorf("a failed move became a step: %+v", i)
	}
}

// TestHistoryScriptedPin: on fold, whose top row follows a path, a
// scripted pin removed, or dragged (which makes it fixed), and the step
// undone follows its path again: after gliding back from where its
// vertex went, its target is the path's, and the saved scene is the
// scene's; redone, it is removed or fixed again.
func TestHistoryScriptedPin(t *testing.T) {
	l := newTestLoop(t, "fold", true)
	sim := l.s.(*femModel).sim
	saved0 := l.SavedScene(nil)
	var orig cloth.Pin
	for _, p := range sim.Pins() {
		if p.Path != nil {
			orig = p
			break
		}
	}
	if orig.Path == nil {
		t.Fatal("fold has no scripted pin")
	}
	v := orig.Vertex
	steps := func(n int) {
		for range n {
			l.step()
		}
	}
	onPath := func(what string) {
		t.Helper()
		p, ok := pinOf(l, v)
		if !ok || !p.Scripted {
			t.Fatalf("%s: vertex %d pinned %v, scripted %v; want on its path", what, v, ok, p.Scripted)
		}
		steps(60) // the glide back: at 3 m/s, well under 0.3 s
		p, _ = pinOf(l, v)
		if want := orig.Anchor.Add(orig.Path.At(sim.Time)); p.Target.Sub(want).Norm() > 1e-9 {
			t.Errorf("%s: at t = %.3f s the pin's target is %v, want its path's %v", what, sim.Time, p.Target, want)
		}
		if got := l.SavedScene(nil); !reflect.DeepEqual(got.Pins, saved0.Pins) {
			t.Errorf("%s: saved pins got=%+v, want=%+v", what, got.Pins, saved0.Pins)
		}
	}
	steps(20)
	applyAll(l, Command{Kind: CmdUnpin, Vertex: v, Gesture: 1})
	steps(40) // the vertex falls away from its path
	applyAll(l, Command{Kind: CmdUndo})
	onPath("undo of the unpin")
	applyAll(l, Command{Kind: CmdRedo})
	if _, ok := pinOf(l, v); ok {
		t.Errorf("redo of the unpin: vertex %d still pinned", v)
	}
	applyAll(l, Command{Kind: CmdUndo})
	onPath("undo of the unpin, again")

	x, _ := l.s.(vertexPositioner).VertexPos(v)
	applyAll(l, Command{Kind: CmdMovePin, Vertex: v, Target: x.Add(geom.Vec3{Y: 0.05}), Gesture: 2},
		Command{Kind: CmdMovePin, Vertex: v, Target: x.Add(geom.Vec3{Y: 0.1}), Gesture: 2})
	steps(40)
	applyAll(l, Command{Kind: CmdUndo})
	onPath("undo of the pin's drag")
	applyAll(l, Command{Kind: CmdRedo})
	if p, ok := pinOf(l, v); !ok || p.Scripted {
		t.Errorf("redo of the pin's drag: got %+v (pinned %v), want a fixed pin", p, ok)
	}
}
