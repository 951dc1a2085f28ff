package app

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/param"
	"drape/sim/scene"
	"drape/sim/springs"
	"drape/sim/strainlimit"
)

// Blocks are a cloth model's parameter blocks, each the value type that
// its param.Table describes, under the key of scene files as its JSON
// name: the one place where a block's key is written (Block.Key reads
// it). Held says which blocks the value holds; the fields of the others
// are zero, so that two values are equal (==) when they hold the same
// blocks with the same values.
//
// The one value travels whole: a model reports its blocks in force
// (Model.Blocks) and takes new ones (Model.SetBlocks); the Loop publishes
// them (Snapshot.Blocks) and --state reports them (State); a panel edit
// sends the blocks it changed in one command (CmdSetBlocks); the undo
// history keeps the blocks an edit changed, before and after (history.go);
// side by side hands them to both runs (sidebyside.go); Save scene writes
// them (writeScene). The FEM cloth holds params, adapt (once set: a scene
// without an "adapt" section has none), contact and strain; the
// mass-spring cloth holds springs.
//
// A new block (after steps 1 and 2 of sim/scene's doc.go) is a field here
// with its scene key as JSON name and a Block constant in the same place,
// its case in take, writeScene and changedFields, its case in the
// applyBlocks call of the model that has it (and in that model's set of
// blocks), and a panel that edits uiState.edit and calls uiState.send.
type Blocks struct {
	Params  cloth.Params       `json:"params"`  // the FEM cloth's material, solver and Δt
	Adapt   cloth.AdaptParams  `json:"adapt"`   // adaptive refinement (Bender & Deul §5)
	Contact contact.Params     `json:"contact"` // collision handling
	Strain  strainlimit.Params `json:"strain"`  // strain limiting (Tsiknis ch. 2)
	Springs springs.Params     `json:"springs"` // the mass-spring cloth (Olson & Rudnick)

	// Held is the set of blocks the value holds; in JSON, their keys.
	Held BlockSet `json:"blocks"`
}

// Block names one parameter block: the index of its field in Blocks.
type Block uint8

// The blocks, in the order of Blocks' fields.
const (
	BlockParams Block = iota
	BlockAdapt
	BlockContact
	BlockStrain
	BlockSprings
	numBlocks
)

// blockKeys are the blocks' scene keys, read off Blocks' JSON names.
var blockKeys = func() (keys [numBlocks]string) {
	t := reflect.TypeFor[Blocks]()
	for k := range keys {
		keys[k], _, _ = strings.Cut(t.Field(k).Tag.Get("json"), ",")
	}
	return keys
}()

// Key returns the block's key in scene files, e.g. "params".
func (k Block) Key() string { return blockKeys[k] }

// BlockSet is a set of blocks: bit k for Block k.
type BlockSet uint8

// blockSet returns the set of the blocks ks.
func blockSet(ks ...Block) BlockSet {
	var s BlockSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// allBlocks is the set of every block.
const allBlocks BlockSet = 1<<numBlocks - 1

// Has reports whether k is in s.
func (s BlockSet) Has(k Block) bool { return s&(1<<k) != 0 }

// first returns the first block of s in Block order; numBlocks for the
// empty set.
func (s BlockSet) first() Block {
	for k := range numBlocks {
		if s.Has(k) {
			return k
		}
	}
	return numBlocks
}

// MarshalJSON writes s as the list of its blocks' keys.
func (s BlockSet) MarshalJSON() ([]byte, error) {
	keys := []string{}
	for k := range numBlocks {
		if s.Has(k) {
			keys = append(keys, k.Key())
		}
	}
	return json.Marshal(keys)
}

// UnmarshalJSON reads a list of block keys; an unknown key is an error.
func (s *BlockSet) UnmarshalJSON(data []byte) error {
	var keys []string
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	*s = 0
	for _, key := range keys {
		k := Block(0)
		for k < numBlocks && k.Key() != key {
			k++
		}
		if k == numBlocks {
			return fmt.Errorf("unknown parameter block %q (want one of %v)", key, blockKeys)
		}
		*s |= blockSet(k)
	}
	return nil
}

// Has reports whether b holds block k.
func (b Blocks) Has(k Block) bool { return b.Held.Has(k) }

// take copies block k from src into b and marks it held.
func (b *Blocks) take(k Block, src *Blocks) {
	switch k {
	case BlockParams:
		b.Params = src.Params
	case BlockAdapt:
		b.Adapt = src.Adapt
	case BlockContact:
		b.Contact = src.Contact
	case BlockStrain:
		b.Strain = src.Strain
	case BlockSprings:
		b.Springs = src.Springs
	}
	b.Held |= blockSet(k)
}

// Only returns the blocks of b that are in s.
func (b Blocks) Only(s BlockSet) Blocks {
	var o Blocks
	for k := range numBlocks {
		if s.Has(k) && b.Has(k) {
			o.take(k, &b)
		}
	}
	return o
}

// Without returns the blocks of b but k.
func (b Blocks) Without(k Block) Blocks { return b.Only(allBlocks &^ blockSet(k)) }

// With returns b with the blocks c holds put in (c's values where both
// hold a block).
func (b Blocks) With(c Blocks) Blocks {
	for k := range numBlocks {
		if c.Has(k) {
			b.take(k, &c)
		}
	}
	return b
}

// writeScene writes the blocks b holds into sc, for a saved scene; the
// adaptivity settings are none (nil) when b holds none.
func (b Blocks) writeScene(sc *scene.Scene) {
	if b.Has(BlockParams) {
		sc.Params = b.Params
	}
	sc.Adapt = nil
	if b.Has(BlockAdapt) {
		a := b.Adapt
		sc.Adapt = &a
	}
	if b.Has(BlockContact) {
		sc.Contact = b.Contact
	}
	if b.Has(BlockStrain) {
		sc.Strain = b.Strain
	}
	if b.Has(BlockSprings) {
		sc.Springs = b.Springs
	}
}

// changedFields returns the labels of the fields in which the blocks of a
// and b differ (param.Table's Label, or Key), for the undo history's
// tooltips; a block that one of them does not hold counts as its zero
// value. "settings" when none differs.
func changedFields(a, b Blocks) []string {
	var out []string
	for k := range numBlocks {
		if !a.Has(k) && !b.Has(k) {
			continue
		}
		switch k {
		case BlockParams:
			out = tableFields(out, cloth.ParamTable, &a.Params, &b.Params)
		case BlockAdapt:
			out = tableFields(out, cloth.AdaptTable, &a.Adapt, &b.Adapt)
		case BlockContact:
			out = tableFields(out, contact.Table, &a.Contact, &b.Contact)
		case BlockStrain:
			out = tableFields(out, strainlimit.Table, &a.Strain, &b.Strain)
		case BlockSprings:
			out = tableFields(out, springs.ParamTable, &a.Springs, &b.Springs)
		}
	}
	if len(out) == 0 {
		out = append(out, "settings")
	}
	return out
}

// tableFields appends to out the labels of the fields of t in which a and
// b differ.
func tableFields[T any](out []string, t param.Table[T], a, b *T) []string {
	for i := range t {
		f := &t[i]
		var differ bool
		if f.Vec != nil {
			differ = *f.Vec(a) != *f.Vec(b)
		} else {
			differ = f.Value(a) != f.Value(b)
		}
		if differ {
			n := f.Label
			if n == "" {
				n = f.Key
			}
			out = append(out, n)
		}
	}
	return out
}

// applyBlocks is Model.SetBlocks for a model (named model, for messages)
// whose blocks are has, with cur in force and set applying block k of b:
// it applies the blocks of b that differ from cur, in Block order, and
// when one is rejected puts back the ones it applied (cur's values, which
// were in force and so pass; only adaptivity settings never set stay
// set), so that an edit of two blocks (a fabric preset sets params and
// strain) is applied whole or not at all. The error names the block.
func applyBlocks(model string, has BlockSet, cur, b Blocks, set func(k Block, b *Blocks) error) error {
	if extra := b.Held &^ has; extra != 0 {
		k := extra.first()
		return fmt.Errorf("%s settings rejected: %s has no parameter block %q", k.Key(), model, k.Key())
	}
	var done []Block
	for k := range numBlocks {
		if !b.Has(k) || b.Only(blockSet(k)) == cur.Only(blockSet(k)) {
			continue
		}
		if err := set(k, &b); err != nil {
			for _, d := range done {
				_ = set(d, &cur) // cur's values were in force
			}
			return fmt.Errorf("%s settings rejected: %w", k.Key(), err)
		}
		done = append(done, k)
	}
	return nil
}
