package exact

import (
	"math"
	"slices"

	"drape/sim/geom"
)

// box is an axis-aligned bounding box.
type box struct{ lo, hi geom.Vec3 }

func triBox(pos []geom.Vec3, t [3]int32) box {
	a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
	return box{
		geom.Vec3{X: min(a.X, b.X, c.X), Y: min(a.Y, b.Y, c.Y), Z: min(a.Z, b.Z, c.Z)},
		geom.Vec3{X: max(a.X, b.X, c.X), Y: max(a.Y, b.Y, c.Y), Z: max(a.Z, b.Z, c.Z)},
	}
}

func (b box) overlaps(c box) bool {
	return b.lo.X <= c.hi.X && c.lo.X <= b.hi.X && b.lo.Y <= c.hi.Y && c.lo.Y <= b.hi.Y && b.lo.Z <= c.hi.Z && c.lo.Z <= b.hi.Z
}

func (b box) finite() bool { return b.lo.IsFinite() && b.hi.IsFinite() }

// grid is the broad phase: a uniform grid of cubic cells over the boxes'
// common bounding box, stored as a list of (cell, item) entries sorted by
// cell, so that the items of one cell are a contiguous run. Each item is
// listed in every cell its box overlaps. A pair of overlapping boxes is
// reported only from the cell that holds the minimum corner of the two
// boxes' intersection, so each pair once, without a set.
type grid struct {
	lo      geom.Vec3
	cell    float64
	entries []entry
}

type entry struct {
	cell uint64
	item int32
}

// maxCellsPerAxis bounds the grid so a cell index fits in 21 bits.
const maxCellsPerAxis = 1 << 20

// newGrid builds the grid over the finite boxes of the items use accepts;
// the cell side is the mean of the boxes' largest sides (at least 1e-9 of
// the extent, and doubled until an axis has fewer than 2²⁰ cells), so an
// item usually spans one to eight cells.
func newGrid(boxes []box, use func(i int) bool) *grid {
	g := &grid{}
	lo := geom.Vec3{X: math.Inf(1), Y: math.Inf(1), Z: math.Inf(1)}
	hi := lo.Scale(-1)
	var side float64
	n := 0
	for i, b := range boxes {
		if !use(i) || !b.finite() {
			continue
		}
		lo = geom.Vec3{X: min(lo.X, b.lo.X), Y: min(lo.Y, b.lo.Y), Z: min(lo.Z, b.lo.Z)}
		hi = geom.Vec3{X: max(hi.X, b.hi.X), Y: max(hi.Y, b.hi.Y), Z: max(hi.Z, b.hi.Z)}
		side += max(b.hi.X-b.lo.X, b.hi.Y-b.lo.Y, b.hi.Z-b.lo.Z)
		n++
	}
	if n == 0 {
		return g
	}
	ext := max(hi.X-lo.X, hi.Y-lo.Y, hi.Z-lo.Z)
	g.lo = lo
	g.cell = max(side/float64(n), ext*1e-9, 1e-300)
	for ext/g.cell >= maxCellsPerAxis-1 {
		g.cell *= 2
	}
	total := 0
	for i, b := range boxes {
		if use(i) && b.finite() {
			a, c := g.key(b.lo), g.key(b.hi)
			total += int((c[0] - a[0] + 1) * (c[1] - a[1] + 1) * (c[2] - a[2] + 1))
		}
	}
	g.entries = make([]entry, 0, total)
	for i, b := range boxes {
		if !use(i) || !b.finite() {
			continue
		}
		a, c := g.key(b.lo), g.key(b.hi)
		// A box spanning a huge number of cells (one long sliver in a
		// grid of tiny ones) is listed all the same: correctness first.
		for z := a[2]; z <= c[2]; z++ {
			for y := a[1]; y <= c[1]; y++ {
				for x := a[0]; x <= c[0]; x++ {
					g.entries = append(g.entries, entry{pack(x, y, z), int32(i)})
				}
			}
		}
	}
	slices.SortFunc(g.entries, func(p, q entry) int {
		if p.cell != q.cell {
			if p.cell < q.cell {
				return -1
			}
			return 1
		}
		return int(p.item) - int(q.item)
	})
	return g
}

func pack(x, y, z uint64) uint64 { return x<<42 | y<<21 | z }

func (g *grid) key(p geom.Vec3) [3]uint64 {
	f := func(v, lo float64) uint64 {
		k := math.Floor((v - lo) / g.cell)
		return uint64(min(max(k, 0), maxCellsPerAxis))
	}
	return [3]uint64{f(p.X, g.lo.X), f(p.Y, g.lo.Y), f(p.Z, g.lo.Z)}
}

// pairs calls fn(i, j) once for every two gridded items whose boxes
// overlap, with i < j.
func (g *grid) pairs(boxes []box, fn func(i, j int32)) {
	for s := 0; s < len(g.entries); {
		e := s
		for e < len(g.entries) && g.entries[e].cell == g.entries[s].cell {
			e++
		}
		run := g.entries[s:e]
		for x := 0; x < len(run); x++ {
			for y := x + 1; y < len(run); y++ {
				i, j := run[x].item, run[y].item
				bi, bj := boxes[i], boxes[j]
				if !bi.overlaps(bj) {
					continue
				}
				corner := geom.Vec3{X: max(bi.lo.X, bj.lo.X), Y: max(bi.lo.Y, bj.lo.Y), Z: max(bi.lo.Z, bj.lo.Z)}
				k := g.key(corner)
				if pack(k[0], k[1], k[2]) != run[x].cell {
					continue
				}
				fn(i, j)
			}
		}
		s = e
	}
}

func shareVertex(a, b [3]int32) bool {
	for _, u := range a {
		for _, v := range b {
			if u == v {
				return true
			}
		}
	}
	return false
}

func corners(pos []geom.Vec3, t [3]int32) [3]geom.Vec3 {
	return [3]geom.Vec3{pos[t[0]], pos[t[1]], pos[t[2]]}
}

func sortPairs(p [][2]int32) [][2]int32 {
	slices.SortFunc(p, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		return int(a[1]) - int(b[1])
	})
	return p
}

// SelfIntersections returns the pairs (f, g), f < g, of live faces of a
// mesh (tris: 3 vertex indices per face into pos; a face with t[0] < 0 is
// dead and skipped) that share no vertex and intersect (TrianglesIntersect),
// sorted. Faces that share a vertex always touch there and are not
// reported, even if they also cross elsewhere (a fold through a vertex's
// own fan is left to other tests). A face with a non-finite coordinate is
// reported paired with itself, (f, f).
func SelfIntersections(pos []geom.Vec3, tris [][3]int32) [][2]int32 {
	boxes := make([]box, len(tris))
	var out [][2]int32
	live := func(i int) bool { return tris[i][0] >= 0 }
	for i, t := range tris {
		if !live(i) {
			continue
		}
		boxes[i] = triBox(pos, t)
		if !boxes[i].finite() {
			out = append(out, [2]int32{int32(i), int32(i)})
		}
	}
	g := newGrid(boxes, live)
	g.pairs(boxes, func(i, j int32) {
		if shareVertex(tris[i], tris[j]) {
			return
		}
		if TrianglesIntersect(corners(pos, tris[i]), corners(pos, tris[j])) {
			out = append(out, [2]int32{min(i, j), max(i, j)})
		}
	})
	return sortPairs(out)
}

// MeshIntersections returns the pairs (f, g) of a live face f of mesh A
// and a live face g of mesh B that intersect (TrianglesIntersect), sorted;
// for cloth (A) against an obstacle (B). Faces with t[0] < 0 are dead.
// A face of A with a non-finite coordinate is reported as (f, −1).
func MeshIntersections(posA []geom.Vec3, trisA [][3]int32, posB []geom.Vec3, trisB [][3]int32) [][2]int32 {
	na := len(trisA)
	boxes := make([]box, na+len(trisB))
	var out [][2]int32
	live := func(i int) bool {
		if i < na {
			return trisA[i][0] >= 0
		}
		return trisB[i-na][0] >= 0
	}
	for i := range boxes {
		if !live(i) {
			continue
		}
		if i < na {
			boxes[i] = triBox(posA, trisA[i])
			if !boxes[i].finite() {
				out = append(out, [2]int32{int32(i), -1})
			}
		} else {
			boxes[i] = triBox(posB, trisB[i-na])
		}
	}
	g := newGrid(boxes, live)
	g.pairs(boxes, func(i, j int32) {
		if (i < int32(na)) == (j < int32(na)) {
			return
		}
		if i > j {
			i, j = j, i
		}
		j -= int32(na)
		if TrianglesIntersect(corners(posA, trisA[i]), corners(posB, trisB[j])) {
			out = append(out, [2]int32{i, j})
		}
	})
	return sortPairs(out)
}
