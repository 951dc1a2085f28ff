package cloth

import (
	"cmp"
	"slices"

	"drape/sim/buf"
	"drape/sim/contact"
)

// This file chooses, per contour, which pairs of its band pass through
// each other (contact.Cloth.Tangled): the full band (every pair of its
// tangled faces, contact.Band) or only the pairs with a crossing face
// (its ring faces contact.Rim, keeping their collisions with each
// other).
//
// Neither rule serves every tangle. The full band is what the tangled
// start of scene/testdata/tangled.json needs: a sheet passing through
// another along a whole line has to move its band through, and with the
// crossing-only rule it stalled at 71 pairs 1 s in. In a pile that fell
// through itself (drop-pile with self-collision off, then on), the full
// band lets the layers resting on each other there sink through, and the
// tangle grows; the crossing-only rule keeps them apart.
//
// Decision: every contour starts with the full band and switches to the
// crossing-only rule, for good, once its crossing pairs grow past
// untangleGrowth times the fewest it has had (and by untangleGrowthMin
// pairs): a tangle that grows under the band is one whose layers are
// sinking through each other. Measured on drop-pile, self-collision off
// for T s then on, pairs 1 s later (full band everywhere → this rule):
// T = 0.70 s 44 → 12, 0.72 s 442 → 91, 0.75 s 1648 → 503, 0.85 s 2072
// → 678; the tangled start (its contour never grows) and the poke of
// two-sheets are as before. Tried and not kept (docs/notes/contact.md):
// starting with the crossing-only rule and switching to the band when a
// contour stops shrinking, either way (it untangled the tangled start
// at 0.96–1 s, or not at all).
//
// A contour is followed from one check to the next by its faces: it
// takes the record of the last check's contour with which it shares the
// most face slots (contours merge and split as the cloth moves; a merged
// one takes the record of its largest part, and a split one's parts take
// the same record). A contour that shares no face with the last check's
// starts afresh. Face slots that an adaptation gave to other faces only
// mislead the choice of rule, never the collisions themselves.

// untangleGrowth and untangleGrowthMin are the growth of a contour's
// crossing pairs over the fewest it has had, as a factor and in pairs,
// past which it switches to the crossing-only rule (see above). Measured
// (pairs 1 s later at T = 0.72, 0.75, 0.85 s): 1.5 and 10 gave 91, 503,
// 678; 1.25 and 5: 179, 924, 678; 1.1 and 2 stalled the tangled start
// (28 pairs at 1 s); 2 and 10: 151, 669, 1433.
const (
	untangleGrowth    = 1.5
	untangleGrowthMin = 10
)

// contourRecord is what untangle remembers of one contour from one check
// to the next.
type contourRecord struct {
	cross  bool // the crossing-only rule (its Band faces are contact.Rim)
	fewest int  // the fewest crossing pairs it has had
}

// contourRules gives each contour of the last Find (un.contour) its rule
// and record, and writes contact.Rim over the Band faces of those with
// the crossing-only rule in un.faces (see the file comment).
func (un *untangleState) contourRules() {
	cur := un.contour
	nc := int32(0)
	for _, c := range cur {
		nc = max(nc, c+1)
	}
	// Crossing pairs per contour.
	un.count = buf.Grow(un.count, int(nc))
	clear(un.count)
	for _, p := range un.u.Pairs() {
		un.count[cur[p[0]]]++
	}
	// The last check's contour that shares the most faces with each:
	// (new, old) per face, sorted, the longest run per new contour.
	un.votes = un.votes[:0]
	for f, c := range cur {
		if c >= 0 && f < len(un.prev) && un.prev[f] >= 0 {
			un.votes = append(un.votes, [2]int32{c, un.prev[f]})
		}
	}
	slices.SortFunc(un.votes, func(a, b [2]int32) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	un.pred = buf.Grow(un.pred, int(nc))
	un.share = buf.Grow(un.share, int(nc))
	for c := range un.pred {
		un.pred[c], un.share[c] = -1, 0
	}
	for i := 0; i < len(un.votes); {
		j := i
		for j < len(un.votes) && un.votes[j] == un.votes[i] {
			j++
		}
		if c := un.votes[i][0]; int32(j-i) > un.share[c] {
			un.share[c], un.pred[c] = int32(j-i), un.votes[i][1]
		}
		i = j
	}
	un.spare = buf.Grow(un.spare, int(nc))
	for c := range un.spare {
		n := un.count[c]
		r := contourRecord{fewest: n}
		if p := un.pred[c]; p >= 0 && int(p) < len(un.record) {
			r = un.record[p]
			if !r.cross && float64(n) > untangleGrowth*float64(r.fewest) && n > r.fewest+untangleGrowthMin {
				r.cross = true
			}
			r.fewest = min(r.fewest, n)
		}
		un.spare[c] = r
	}
	un.record, un.spare = un.spare, un.record
	un.prev = append(un.prev[:0], cur...)
	for f, c := range cur {
		if c >= 0 && un.faces[f] == contact.Band && un.record[c].cross {
			un.faces[f] = contact.Rim
		}
	}
}
