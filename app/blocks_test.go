package app

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"drape/assets"
	"drape/render"
	"drape/sim/cloth"
	"drape/sim/scene"
)

// setCmd returns the command that sets block k to its value in b.
func setCmd(k Block, b Blocks) Command {
	b.Held = blockSet(k)
	return Command{Kind: CmdSetBlocks, Blocks: b}
}

// published publishes l's state (the loop is not running) and returns
// the snapshot.
func published(l *Loop) *Snapshot {
	l.publish(false)
	return l.Snapshots().Acquire()
}

// reloaded writes l's running scene to a file as Save scene does and
// loads it back.
func reloaded(t *testing.T, l *Loop) *scene.Scene {
	t.Helper()
	file := filepath.Join(t.TempDir(), "saved.json")
	if err := l.SavedScene(nil).WriteFile(file); err != nil {
		t.Fatal(err)
	}
	sc, err := scene.LoadScene(assets.Scenes, file)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestBlockKeys: the blocks' keys are the scene files' keys, read off
// Blocks' JSON names, and a BlockSet writes and reads them.
func TestBlockKeys(t *testing.T) {
	want := [numBlocks]string{"params", "adapt", "contact", "strain", "springs"}
	if blockKeys != want {
		t.Errorf("keys: got=%v, want=%v", blockKeys, want)
	}
	for _, tc := range []struct {
		s    BlockSet
		json string
	}{
		{0, `[]`},
		{blockSet(BlockSprings), `["springs"]`},
		{femBlocks, `["params","adapt","contact","strain"]`},
		{allBlocks, `["params","adapt","contact","strain","springs"]`},
	} {
		data, err := json.Marshal(tc.s)
		if err != nil || string(data) != tc.json {
			t.Errorf("%b: got=%s (%v), want=%s", tc.s, data, err, tc.json)
		}
		var back BlockSet
		if err := json.Unmarshal(data, &back); err != nil || back != tc.s {
			t.Errorf("%s read back: got=%b (%v), want=%b", data, back, err, tc.s)
		}
	}
	var s BlockSet
	if err := json.Unmarshal([]byte(`["params","wind"]`), &s); err == nil {
		t.Errorf("an unknown key read as %b, want an error", s)
	}
}

// TestBlocksOnlyWith: Only keeps the blocks asked for that the value
// holds, zeroing the rest, Without all but one; With puts another
// value's blocks in.
func TestBlocksOnlyWith(t *testing.T) {
	p := cloth.DefaultParams()
	a := cloth.DefaultAdaptParams()
	b := Blocks{Params: p, Adapt: a, Held: blockSet(BlockParams, BlockAdapt)}
	if got, want := b.Only(blockSet(BlockParams, BlockStrain)), (Blocks{Params: p, Held: blockSet(BlockParams)}); got != want {
		t.Errorf("Only: got=%+v, want=%+v", got, want)
	}
	if got, want := b.Without(BlockAdapt), (Blocks{Params: p, Held: blockSet(BlockParams)}); got != want {
		t.Errorf("Without: got=%+v, want=%+v", got, want)
	}
	q := p
	q.Density = 0.5
	c := Blocks{Params: q, Held: blockSet(BlockParams)}
	if got, want := b.With(c), (Blocks{Params: q, Adapt: a, Held: b.Held}); got != want {
		t.Errorf("With: got=%+v, want=%+v", got, want)
	}
	if got := c.With(b.Only(blockSet(BlockAdapt))); got.Params != q || got.Adapt != a || got.Held != b.Held {
		t.Errorf("With a block c lacks: got=%+v", got)
	}
}

// TestBlocksRoundTrip edits every block (and two at once, as a fabric
// preset does) as the panels do, with one CmdSetBlocks, and follows the
// edit through the Loop: the snapshot publishes the blocks, --state's
// JSON reports and reads them back, a saved scene rebuilds with them,
// and undo and redo, one step with the field's label, put back the
// blocks before and after.
func TestBlocksRoundTrip(t *testing.T) {
	cam := render.NewCamera(800, 600)
	for _, tc := range []struct {
		scene string
		set   BlockSet
		edit  func(b *Blocks)
		label string
	}{
		{"hanging", blockSet(BlockParams), func(b *Blocks) { b.Params.Density = 0.2 }, "set ρ density"},
		{"hanging", blockSet(BlockAdapt), func(b *Blocks) { b.Adapt = cloth.DefaultAdaptParams(); b.Adapt.GMax = 4 }, "set adaptive √3 remeshing, g_max generation"},
		{"hanging", blockSet(BlockContact), func(b *Blocks) { b.Contact.Friction = 0.35 }, "set μ cloth–cloth"},
		{"hanging", blockSet(BlockStrain), func(b *Blocks) { b.Strain.Enabled, b.Strain.MaxWarp = true, 0.07 }, "set strain limiting, ε warp"},
		{"hanging", blockSet(BlockParams, BlockStrain), func(b *Blocks) { b.Params.YoungX, b.Strain.MaxWeft = 2500, 0.05 }, "set E_x weft, ε weft"},
		{"springs-small", blockSet(BlockSprings), func(b *Blocks) { b.Springs.Damping = 2 }, "set c damping"},
	} {
		t.Run(tc.scene+" "+tc.label, func(t *testing.T) {
			l := newTestLoop(t, tc.scene, true)
			before := published(l).Blocks
			if before != l.s.Blocks() {
				t.Fatalf("first snapshot: got=%+v, want the model's %+v", before, l.s.Blocks())
			}
			want := before
			tc.edit(&want)
			want.Held |= tc.set
			if want == before {
				t.Fatal("the edit changes nothing")
			}

			l.apply(Command{Kind: CmdSetBlocks, Blocks: want.Only(tc.set), Gesture: 1})
			s := published(l)
			if s.EditErr != "" || s.EditSeq != 1 || s.Blocks != want {
				t.Fatalf("after the edit: EditErr %q, EditSeq %d, blocks\n got=%+v\nwant=%+v", s.EditErr, s.EditSeq, s.Blocks, want)
			}
			if h := s.History; h.Undo != 1 || h.UndoLabel != tc.label {
				t.Errorf("history: got=%+v, want one step %q", h, tc.label)
			}

			// --state: every block under its key, those held under "blocks".
			data, err := json.Marshal(stateOf(s, &cam, 0, 0, -1, nil, 0, nil))
			if err != nil {
				t.Fatal(err)
			}
			var back State
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if back.Blocks != want {
				t.Errorf("--state read back:\n got=%+v\nwant=%+v", back.Blocks, want)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			for k := range numBlocks {
				if _, ok := raw[k.Key()]; !ok {
					t.Errorf("--state has no %q", k.Key())
				}
			}

			// Save scene: the file rebuilds with the blocks in force.
			m, err := buildModel(reloaded(t, l))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Blocks(); got != want {
				t.Errorf("saved scene rebuilt:\n got=%+v\nwant=%+v", got, want)
			}

			// Undo and redo. A scene without adaptivity settings gets
			// back the ones the panel shows, off.
			undone := before
			if tc.set.Has(BlockAdapt) && !before.Has(BlockAdapt) {
				undone = before.With(Blocks{Adapt: shownAdapt(cloth.AdaptParams{}), Held: blockSet(BlockAdapt)})
			}
			l.apply(Command{Kind: CmdUndo})
			s = published(l)
			if s.Blocks != undone || s.History.Undo != 0 || s.History.RedoLabel != tc.label {
				t.Errorf("undo: history %+v, blocks\n got=%+v\nwant=%+v", s.History, s.Blocks, undone)
			}
			l.apply(Command{Kind: CmdRedo})
			s = published(l)
			if s.Blocks != want || s.History.Undo != 1 || s.History.Redo != 0 {
				t.Errorf("redo: history %+v, blocks\n got=%+v\nwant=%+v", s.History, s.Blocks, want)
			}
			if ev := l.Events(); len(ev) != 2 || ev[0].Info != "undid "+tc.label || ev[1].Info != "redid "+tc.label {
				t.Errorf("events: got=%v", ev)
			}
		})
	}
}

// TestSetBlocksWhole: an edit of two blocks that the model rejects in
// the second leaves the first as it was, and a block the model lacks is
// rejected by name; neither is a step of the history.
func TestSetBlocksWhole(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	before := l.s.Blocks()
	b := before
	b.Params.Density = 0.3
	b.Strain.MaxWeft = -1 // rejected
	l.apply(Command{Kind: CmdSetBlocks, Blocks: b.Only(blockSet(BlockParams, BlockStrain))})
	s := published(l)
	if s.Blocks != before || s.EditErr == "" || s.History.Undo != 0 {
		t.Errorf("a rejected strain limit: EditErr %q, history %+v, blocks\n got=%+v\nwant=%+v", s.EditErr, s.History, s.Blocks, before)
	}
	l.apply(Command{Kind: CmdSetBlocks, Blocks: Blocks{Held: blockSet(BlockSprings)}})
	if s = published(l); s.Blocks != before || s.EditErr != `springs settings rejected: the FEM cloth has no parameter block "springs"` {
		t.Errorf("a block the FEM cloth lacks: EditErr %q", s.EditErr)
	}
}
