package app

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
)

// Undo and redo of what a person changes in the viewer (issue 44): the
// parameter blocks (material, solver, adaptivity, contact, strain
// limits, the spring cloth's), pins added, removed or moved, obstacles
// moved and scenes loaded. The simulation itself is not rewound: what is
// undone is the person's change, applied to the simulation as it is now.
//
// The history lives on the Loop's goroutine, where the commands are
// applied: there the value before a change is known exactly (the block in
// force, a pin's goal, an obstacle's asked-for offset, the scene as
// edited), and an edit the simulation rejects never becomes a step. Each
// step (an entry) holds the changes of one gesture with their values
// before and after. The viewer stamps its commands with a gesture id
// (Command.Gesture): the edits made while one control is held (a slider
// dragged, a value typed after Ctrl + click) and the moves of one mouse
// drag share it, and the Loop merges them into one entry, keeping the
// first before and the last after; an entry that ends where it began is
// dropped. A new entry clears the redo stack.
//
// A rebuild (Reset, a scene load, undoing or redoing a load) starts a new
// simulation whose pins and obstacles come from the scene: the pin and
// obstacle changes of the old one leave both stacks then (Reset already
// put them back), while parameter edits and loads stay, so Ctrl+Z after a
// Reset undoes the last setting edited. Undoing a load rebuilds the
// previous scene as it was edited when the load came (Loop.SavedScene:
// its parameters, pin edits and obstacle offsets), from its start.
// Reset itself is not a step: it edits no setting. Save scene writes the
// values in force and leaves the history as it is.
//
// Side by side, each run keeps its own history. An entry keeps its
// gesture as its id, by which the pair undoes the person's last step in
// the runs that have it (Command.Only, sideBySide.nextStep), and the
// other run's copy of an Adaptivity edit is a step that changes nothing
// (Command.Mirror), so that both histories hold it.

// historyCap is the most steps the history keeps; older ones are
// forgotten.
const historyCap = 100

// changeKind says what a change changed.
type changeKind int

const (
	changeBlocks   changeKind = iota // parameter blocks set (the blocks of a CmdSetBlocks, whole values)
	changePin                        // a vertex pinned, unpinned or its pin moved
	changeObstacle                   // an obstacle's user offset asked for
	changeScene                      // a scene loaded
)

// pinState is whether a vertex is pinned, where, and the pin edit Save
// scene keeps for it.
type pinState struct {
	on       bool
	target   geom.Vec3 // m: the goal of a pin without a path, the path's target now of one with
	scripted bool
	// anchor and path are a scripted pin's (pathPinner), which undo
	// puts back; path is nil for a fixed pin or a model without paths.
	anchor geom.Vec3
	path   *cloth.Path
	edit   *scene.PinSpec // Loop.pinEdits' entry for the vertex; nil for none
}

// sceneState is a scene to build and what it was loaded from
// (Loop.source).
type sceneState struct {
	sc     *scene.Scene
	source string
}

// change is one value the person changed, with the value before and
// after.
type change struct {
	kind  changeKind
	name  string      // changeObstacle: the obstacle's name
	index int32       // changePin: the vertex; changeObstacle: the obstacle's index in the scene
	at    *[2]float64 // changePin: the vertex's material coordinates, nil where the model has none
	// mirror marks side by side's copy of an edit of the other run
	// (Command.Mirror): a step even when it changes nothing.
	mirror bool

	before, after changeValue
}

// changeValue is a value a change sets: the field its kind names.
type changeValue struct {
	blocks Blocks     // changeBlocks: the blocks set (the same ones before and after)
	pin    pinState   // changePin
	offset geom.Vec3  // changeObstacle: the user offset, m
	scene  sceneState // changeScene
}

// same reports whether c and d change the same thing (a later change of
// a gesture replaces the after of an earlier one; merge).
func (c *change) same(d *change) bool {
	return c.kind == d.kind && c.kind != changeScene && c.name == d.name && c.index == d.index
}

// merge takes in d, a later change of the same thing in the same gesture:
// the after becomes d's. Block changes may set different blocks: each
// block keeps its first before and takes its last after.
func (c *change) merge(d *change) {
	c.mirror = c.mirror || d.mirror
	if c.kind == changeBlocks {
		c.before.blocks = d.before.blocks.With(c.before.blocks)
		c.after.blocks = c.after.blocks.With(d.after.blocks)
		return
	}
	c.after = d.after
}

// noop reports whether c changes nothing.
func (c *change) noop() bool {
	return c.kind != changeScene && !c.mirror && reflect.DeepEqual(c.before, c.after)
}

// label names c for the Undo and Redo buttons' tooltips.
func (c *change) label() string {
	switch c.kind {
	case changeBlocks:
		return "set " + strings.Join(changedFields(c.before.blocks, c.after.blocks), ", ")
	case changePin:
		switch {
		case !c.before.pin.on:
			return fmt.Sprintf("pin vertex %d", c.index)
		case !c.after.pin.on:
			return fmt.Sprintf("unpin vertex %d", c.index)
		}
		return fmt.Sprintf("move the pin of vertex %d", c.index)
	case changeObstacle:
		return "move " + c.name
	case changeScene:
		if s := c.after.scene; s.sc != nil {
			return "load scene " + s.sc.Name
		}
	}
	return "change"
}

// entry is one step of the history: the changes of one gesture, in the
// order made.
type entry struct {
	gesture uint64 // Command.Gesture of its commands; 0 once undone, so that nothing merges into it again
	id      uint64 // Command.Gesture of its commands, kept: side by side names the step to undo by it (Command.Only)
	changes []change
	label   string
}

// describe returns the entry's label: its changes' labels, the fields of
// the blocks set (a fabric preset sets two blocks) as one list.
func (e *entry) describe() string {
	var fields, others []string
	for i := range e.changes {
		c := &e.changes[i]
		if c.kind == changeBlocks {
			fields = append(fields, changedFields(c.before.blocks, c.after.blocks)...)
		} else {
			others = append(others, c.label())
		}
	}
	if len(fields) > 0 {
		others = append(others, "set "+listFields(fields))
	}
	return strings.Join(others, "; ")
}

// listFields shortens a long list of field names: the first two and how
// many more.
func listFields(f []string) string {
	if len(f) > 3 {
		return fmt.Sprintf("%s, %s and %d more", f[0], f[1], len(f)-2)
	}
	return strings.Join(f, ", ")
}

// history is the undo and redo stacks. It is owned by the Loop's
// goroutine.
type history struct {
	undo, redo []entry
}

// HistoryInfo is what the viewer shows of the history: how many steps can
// be undone and redone, and what the next undo and redo change back.
type HistoryInfo struct {
	Undo      int    `json:"undo"`       // steps that can be undone
	Redo      int    `json:"redo"`       // steps that can be redone
	UndoLabel string `json:"undo_label"` // the step Undo undoes, "" when none
	RedoLabel string `json:"redo_label"` // the step Redo redoes, "" when none

	// undoStep and redoStep are the ids (entry.id) of those steps, for
	// side by side (sideBySide.nextStep).
	undoStep, redoStep uint64
}

// info returns the history's HistoryInfo.
func (h *history) info() HistoryInfo {
	i := HistoryInfo{Undo: len(h.undo), Redo: len(h.redo)}
	if n := len(h.undo); n > 0 {
		i.UndoLabel, i.undoStep = h.undo[n-1].label, h.undo[n-1].id
	}
	if n := len(h.redo); n > 0 {
		i.RedoLabel, i.redoStep = h.redo[n-1].label, h.redo[n-1].id
	}
	return i
}

// record adds change c of gesture g: into the last entry when it has the
// same gesture (g ≠ 0), replacing the after of the same thing's change
// there or adding c, and dropping the entry when it then changes
// nothing; otherwise as a new entry (none when c changes nothing), which
// clears the redo stack. A scene load is always an entry of its own.
func (h *history) record(g uint64, c change) {
	if n := len(h.undo); g != 0 && n > 0 && h.undo[n-1].gesture == g && c.kind != changeScene && h.undo[n-1].changes[0].kind != changeScene {
		e := &h.undo[n-1]
		if i := slices.IndexFunc(e.changes, func(d change) bool { return d.same(&c) }); i >= 0 {
			e.changes[i].merge(&c)
		} else {
			e.changes = append(e.changes, c)
		}
		if !slices.ContainsFunc(e.changes, func(c change) bool { return !c.noop() }) {
			h.undo = h.undo[:n-1]
			return
		}
		e.label = e.describe()
		return
	}
	if c.noop() {
		return
	}
	e := entry{gesture: g, id: g, changes: []change{c}}
	e.label = e.describe()
	h.undo = append(h.undo, e)
	h.redo = nil
	if n := len(h.undo); n > historyCap {
		h.undo = slices.Delete(h.undo, 0, n-historyCap)
	}
}

// moveLast moves the last entry of from to the end of to and returns it;
// false when from is empty.
func moveLast(from, to *[]entry) (entry, bool) {
	n := len(*from)
	if n == 0 {
		return entry{}, false
	}
	e := (*from)[n-1]
	e.gesture = 0
	*from = (*from)[:n-1]
	*to = append(*to, e)
	return e, true
}

// dropSimulation removes the pin and obstacle changes from both stacks,
// and the entries left empty: a rebuilt simulation has the scene's pins
// and obstacles.
func (h *history) dropSimulation() {
	for _, s := range []*[]entry{&h.undo, &h.redo} {
		kept := (*s)[:0]
		for _, e := range *s {
			var cs []change
			for _, c := range e.changes {
				if c.kind == changeBlocks || c.kind == changeScene {
					cs = append(cs, c)
				}
			}
			if len(cs) == 0 {
				continue
			}
			if len(cs) < len(e.changes) {
				e.changes = cs
				e.label = e.describe()
			}
			kept = append(kept, e)
		}
		clear((*s)[len(kept):])
		*s = kept
	}
}

// gestures hands out gesture ids (Command.Gesture), 1, 2, …: the viewer
// takes one per mouse press and one per control the person holds.
type gestures struct{ last uint64 }

func (g *gestures) next() uint64 {
	g.last++
	return g.last
}

// gestureSink stamps the commands of one mouse gesture with its id on
// their way to sink.
type gestureSink struct {
	sink commandSink
	id   uint64
}

func (s gestureSink) Send(c Command) {
	c.Gesture = s.id
	s.sink.Send(c)
}

// The Loop's side: recording the changes it applies (simloop.go's apply
// calls these) and applying undo and redo.

// setBlocks sets the blocks b holds (Model.SetBlocks) and records the
// change of those blocks under gesture g.
func (l *Loop) setBlocks(b Blocks, g uint64, mirror bool) error {
	before := l.s.Blocks().Only(b.Held)
	if b.Has(BlockAdapt) && !before.Has(BlockAdapt) {
		// A scene without adaptivity: it holds no adaptivity settings,
		// and no SetBlocks takes that back. Undo switches adaptivity off
		// with the settings the panel shows (shownAdapt), which adapt
		// the same: not at all.
		before.take(BlockAdapt, &Blocks{Adapt: shownAdapt(cloth.AdaptParams{})})
	}
	if err := l.s.SetBlocks(b); err != nil {
		return err
	}
	after := l.s.Blocks().Only(b.Held)
	l.hist.record(g, change{kind: changeBlocks, mirror: mirror, before: changeValue{blocks: before}, after: changeValue{blocks: after}})
	return nil
}

// materialPoint returns the material coordinates of vertex v, which name
// it across remeshing (scene.PinEdit); nil where the model has none or v
// is not a vertex.
func (l *Loop) materialPoint(v int32) *[2]float64 {
	if e, ok := l.s.PinEdit(v, geom.Vec3{}, true); ok {
		return e.At
	}
	return nil
}

// pinNow returns vertex v's pin state now.
func (l *Loop) pinNow(v int32) pinState {
	var p pinState
	for _, q := range l.s.Pins() {
		if q.Vertex == v {
			p = pinState{on: true, target: q.Target, scripted: q.Scripted}
			if pp, ok := l.s.(pathPinner); ok && q.Scripted {
				p.anchor, p.path = pp.PinPath(v)
			}
			break
		}
	}
	if at := l.materialPoint(v); at != nil {
		if i := slices.IndexFunc(l.pinEdits, func(e scene.PinSpec) bool { return *e.At == *at }); i >= 0 {
			e := l.pinEdits[i]
			p.edit = &e
		}
	}
	return p
}

// pinChanged records the change of vertex v's pin from before to now
// under gesture g.
func (l *Loop) pinChanged(v int32, before pinState, g uint64) {
	l.hist.record(g, change{kind: changePin, index: v, at: l.materialPoint(v), before: changeValue{pin: before}, after: changeValue{pin: l.pinNow(v)}})
}

// obstacleGoal returns the user offset last asked for obstacle i since
// the rebuild (zero: where the scene put it).
func (l *Loop) obstacleGoal(i int) geom.Vec3 {
	if i >= 0 && i < len(l.obsGoals) {
		return l.obsGoals[i]
	}
	return geom.Vec3{}
}

// setObstacleGoal notes offset as the one asked for obstacle i.
func (l *Loop) setObstacleGoal(i int, offset geom.Vec3) {
	for len(l.obsGoals) <= i {
		l.obsGoals = append(l.obsGoals, geom.Vec3{})
	}
	l.obsGoals[i] = offset
}

// obstacleMoved records obstacle i moved from offset before to the
// offset just asked for under gesture g.
func (l *Loop) obstacleMoved(i int, before, after geom.Vec3, g uint64) {
	l.setObstacleGoal(i, after)
	name := fmt.Sprintf("obstacle %d", i+1)
	if i < len(l.scene.Obstacles) {
		if o := l.scene.Obstacles[i]; o.Name != "" {
			name = o.Name
		} else if o.Kind != "" {
			name = "the " + o.Kind
		}
	}
	l.hist.record(g, change{kind: changeObstacle, name: name, index: int32(i), before: changeValue{offset: before}, after: changeValue{offset: after}})
}

// sceneNow returns the running scene as edited (Loop.SavedScene, with
// the scene's own camera) and its source: what undoing a load builds
// again.
func (l *Loop) sceneNow() sceneState {
	return sceneState{l.SavedScene(l.scene.Camera), l.source}
}

// sceneLoaded records the load of the running scene, which replaced
// before (sceneNow before the load) under gesture g.
func (l *Loop) sceneLoaded(before sceneState, g uint64) {
	l.hist.record(g, change{kind: changeScene, before: changeValue{scene: before}, after: changeValue{scene: sceneState{l.scene.Clone(), l.source}}})
}

// rebuilt drops the old simulation's pin and obstacle changes from the
// history (see dropSimulation); rebuild calls it.
func (l *Loop) rebuilt() {
	l.hist.dropSimulation()
	l.obsGoals = l.obsGoals[:0]
}

// undo undoes the last step, its changes in reverse order, and says so
// (an Event). With only, it undoes nothing unless the last step is the
// one of gesture id (Command.Only).
func (l *Loop) undo(only bool, id uint64) {
	if n := len(l.hist.undo); only && (n == 0 || l.hist.undo[n-1].id != id) {
		return
	}
	e, ok := moveLast(&l.hist.undo, &l.hist.redo)
	if !ok {
		l.emit(Event{Info: "nothing to undo"})
		return
	}
	var errs []error
	for i := len(e.changes) - 1; i >= 0; i-- {
		c := &e.changes[i]
		errs = append(errs, l.applyChange(c, c.before))
	}
	l.announce("undid", e.label, errs)
}

// redo redoes the step undone last, its changes in order; with only, as
// undo.
func (l *Loop) redo(only bool, id uint64) {
	if n := len(l.hist.redo); only && (n == 0 || l.hist.redo[n-1].id != id) {
		return
	}
	e, ok := moveLast(&l.hist.redo, &l.hist.undo)
	if !ok {
		l.emit(Event{Info: "nothing to redo"})
		return
	}
	var errs []error
	for i := range e.changes {
		c := &e.changes[i]
		errs = append(errs, l.applyChange(c, c.after))
	}
	l.announce("redid", e.label, errs)
}

// announce reports an undo or redo: what it did, or why it did not all.
func (l *Loop) announce(verb, label string, errs []error) {
	if err := errors.Join(errs...); err != nil {
		l.emit(Event{Err: fmt.Errorf("%s %s only in part: %w", verb, label, err)})
		return
	}
	l.emit(Event{Info: verb + " " + label})
}

// vertexPositioner is a model whose pins move as hands (the FEM cloth):
// a pin put back on a vertex that has moved away is first set where the
// vertex is and then moved, at cloth.HandSpeed, instead of jumping there
// in one step and tearing the cloth.
type vertexPositioner interface {
	VertexPos(v int32) (geom.Vec3, bool)
}

// applyChange sets what c changed to v (c's before or after).
func (l *Loop) applyChange(c *change, v changeValue) error {
	switch c.kind {
	case changeBlocks:
		if err := l.s.SetBlocks(v.blocks); err != nil {
			return err
		}
		l.editErr = ""
		l.pace.reset()
	case changePin:
		p := v.pin
		if c.at != nil {
			if at := l.materialPoint(c.index); at == nil || *at != *c.at {
				return fmt.Errorf("vertex %d is gone", c.index)
			}
		}
		pp, paths := l.s.(pathPinner)
		switch {
		case !p.on:
			l.s.Unpin(c.index)
		case p.path != nil && paths:
			// Back on its path, from where the vertex is.
			if err := pp.RepinPath(c.index, p.anchor, p.path); err != nil {
				return err
			}
		default:
			if vp, ok := l.s.(vertexPositioner); ok && !l.pinNow(c.index).on {
				if x, ok := vp.VertexPos(c.index); ok {
					if err := l.s.Pin(c.index, x); err != nil {
						return err
					}
				}
			}
			if err := l.s.Pin(c.index, p.target); err != nil {
				return err
			}
		}
		if c.at != nil {
			l.pinEdits = slices.DeleteFunc(l.pinEdits, func(e scene.PinSpec) bool { return *e.At == *c.at })
			if p.edit != nil {
				l.pinEdits = append(l.pinEdits, *p.edit)
			}
		}
	case changeObstacle:
		off := v.offset
		if !l.dragObstacle(int(c.index), off) {
			return fmt.Errorf("%s did not move", c.name)
		}
		l.setObstacleGoal(int(c.index), off)
	case changeScene:
		s := v.scene
		if err := l.rebuild(s.sc.Clone(), false); err != nil {
			return err
		}
		l.source = s.source
	}
	return nil
}

// edits reports whether a changes a parameter block or loads a scene:
// what the undo history records.
func (a *uiAction) edits() bool {
	return a.blocks.Held != 0 || a.scene != ""
}

// editGesture returns the gesture id of a's edits: the held control's,
// or a new one when none is held yet (uiState.releaseGesture); 0 when a
// edits nothing.
func (v *viewer) editGesture(a uiAction) uint64 {
	if !a.edits() {
		return 0
	}
	if v.ui.gesture == 0 {
		v.ui.gesture = v.gest.next()
	}
	return v.ui.gesture
}
