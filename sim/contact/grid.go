package contact

import (
	"iter"
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
)

// This file holds the spatial hash that every object's triangles are
// found in (grid: built by counting sort, queried in parallel), and grow,
// the package's helper that sizes a work slice, reusing its array.

// grid is one object's spatial hash (Teschner et al. 2003 §3; Bender &
// Deul §6): a uniform grid of cubic cells of side 1/inv, compressed into a
// table of 2^k buckets by the hash of Teschner et al. (the cell coordinates
// times three large primes, xor-ed). Every triangle is listed in the bucket
// of each cell its box (lo, hi) overlaps. The table is a prefix-sum array
// (start) over one items array, built by counting sort in two passes, so a
// rebuild allocates nothing once the arrays have grown, and queries only
// read it, so they run in parallel.
type grid struct {
	inv   float64 // 1/cell side, 1/m
	mask  uint32  // buckets − 1
	start []int32 // bucket b's triangles are items[start[b]:start[b+1]]
	items []int32
	lo    []geom.Vec3 // triangle i's box; lo[i].X > hi[i].X: not in the grid
	hi    []geom.Vec3
	c0    [][3]int32 // the cell of lo[i], set by build
}

// maxCellsPerAxis caps the cells a box spans along one axis; a longer box
// (a triangle swept far in one step, or cells far too small for it) is
// listed in a coarser set of cells by growing the cell side for the whole
// grid (build returns the side it used).
const maxCellsPerAxis = 64

func cellHash(ix, iy, iz int32) uint32 {
	return uint32(ix)*73856093 ^ uint32(iy)*19349663 ^ uint32(iz)*83492791
}

// cellOf returns the cell coordinates of p.
func (g *grid) cellOf(p geom.Vec3) (int32, int32, int32) {
	return int32(math.Floor(p.X * g.inv)), int32(math.Floor(p.Y * g.inv)), int32(math.Floor(p.Z * g.inv))
}

// build lists every triangle with a box (lo[i].X ≤ hi[i].X) in the cells
// its box overlaps, with cells of side cell (grown when a box would span
// more than maxCellsPerAxis cells).
func (g *grid) build(cell float64) {
	n := len(g.lo)
	maxExt := 0.0
	for i := 0; i < n; i++ {
		if g.lo[i].X > g.hi[i].X {
			continue
		}
		d := g.hi[i].Sub(g.lo[i])
		maxExt = math.Max(maxExt, math.Max(d.X, math.Max(d.Y, d.Z)))
	}
	if maxExt > cell*(maxCellsPerAxis-1) {
		cell = maxExt / (maxCellsPerAxis - 1)
	}
	g.inv = 1 / cell
	g.c0 = buf.Grow(g.c0, n)
	// Count the entries to size the table: about two buckets per entry.
	total := 0
	for i := 0; i < n; i++ {
		if g.lo[i].X > g.hi[i].X {
			continue
		}
		x0, y0, z0 := g.cellOf(g.lo[i])
		x1, y1, z1 := g.cellOf(g.hi[i])
		g.c0[i] = [3]int32{x0, y0, z0}
		total += int(x1-x0+1) * int(y1-y0+1) * int(z1-z0+1)
	}
	nb := 1
	for nb < 2*total {
		nb <<= 1
	}
	g.mask = uint32(nb - 1)
	g.start = buf.Grow(g.start, nb+1)
	clear(g.start)
	g.items = buf.Grow(g.items, total)
	for i := 0; i < n; i++ {
		if g.lo[i].X > g.hi[i].X {
			continue
		}
		x0, y0, z0 := g.cellOf(g.lo[i])
		x1, y1, z1 := g.cellOf(g.hi[i])
		for ix := x0; ix <= x1; ix++ {
			for iy := y0; iy <= y1; iy++ {
				for iz := z0; iz <= z1; iz++ {
					g.start[(cellHash(ix, iy, iz)&g.mask)+1]++
				}
			}
		}
	}
	for b := 1; b <= nb; b++ {
		g.start[b] += g.start[b-1]
	}
	// Fill, using start[b] as the cursor of bucket b, then shift back.
	for i := 0; i < n; i++ {
		if g.lo[i].X > g.hi[i].X {
			continue
		}
		x0, y0, z0 := g.cellOf(g.lo[i])
		x1, y1, z1 := g.cellOf(g.hi[i])
		for ix := x0; ix <= x1; ix++ {
			for iy := y0; iy <= y1; iy++ {
				for iz := z0; iz <= z1; iz++ {
					b := cellHash(ix, iy, iz) & g.mask
					g.items[g.start[b]] = int32(i)
					g.start[b]++
				}
			}
		}
	}
	for b := nb; b > 0; b-- {
		g.start[b] = g.start[b-1]
	}
	g.start[0] = 0
}

// bucket returns the triangles listed in the bucket of cell (ix, iy, iz),
// which holds those whose box overlaps the cell and, through hash
// collisions, others: the caller checks the boxes. Two cells of one
// triangle can hash to the same bucket; build writes each triangle's
// entries together, so such repeats are adjacent and the caller skips an
// entry equal to the one before it.
func (g *grid) bucket(ix, iy, iz int32) []int32 {
	b := cellHash(ix, iy, iz) & g.mask
	return g.items[g.start[b]:g.start[b+1]]
}

// pairCell reports whether the pair of boxes (alo, ahi) and triangle t's box
// overlap and cell (ix, iy, iz) is the one that holds the lower corner of
// their intersection: visiting a pair only there reports it once however
// many cells the two boxes share (and never through a hash collision, since
// that corner lies in both boxes). a0 is the cell of alo; floor being
// monotone, the corner's cell is the componentwise maximum of a0 and t's
// own lower cell, so no floor is taken per candidate.
func (g *grid) pairCell(alo, ahi geom.Vec3, a0 [3]int32, t int32, ix, iy, iz int32) bool {
	blo, bhi := g.lo[t], g.hi[t]
	if alo.X > bhi.X || alo.Y > bhi.Y || alo.Z > bhi.Z || blo.X > ahi.X || blo.Y > ahi.Y || blo.Z > ahi.Z {
		return false
	}
	b0 := &g.c0[t]
	return max(a0[0], b0[0]) == ix && max(a0[1], b0[1]) == iy && max(a0[2], b0[2]) == iz
}

// overlapping yields each triangle whose box overlaps the box (lo, hi)
// once: in the cell that holds the lower corner of the two boxes'
// intersection (pairCell), skipping a bucket's repeated entries. A box
// that spans more cells than the grid has triangles is compared with
// every triangle's box instead (scan): the cells cost more than that.
// Found by the viewer monkey (tablecloth, seed 39, two hand pins on the
// cloth, the table's leg dragged): within a step's CCD passes the
// impulses sent vertices at up to 33 km/s for a pass, and the faces'
// boxes, up to 160 m long, queried cells of 5–9 cm, 10⁷–10⁹ of them each;
// the step did not end in 80 s. With scan it took 0.16 s, and the
// collision failsafe (hands held) ended it normally.
func (g *grid) overlapping(lo, hi geom.Vec3) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		if g.spansMore(lo, hi) {
			g.scan(lo, hi, yield)
			return
		}
		x0, y0, z0 := g.cellOf(lo)
		x1, y1, z1 := g.cellOf(hi)
		for ix := x0; ix <= x1; ix++ {
			for iy := y0; iy <= y1; iy++ {
				for iz := z0; iz <= z1; iz++ {
					prev := int32(-1)
					for _, t := range g.bucket(ix, iy, iz) {
						if t == prev {
							continue
						}
						prev = t
						if g.pairCell(lo, hi, [3]int32{x0, y0, z0}, t, ix, iy, iz) && !yield(t) {
							return
						}
					}
				}
			}
		}
	}
}

// spansMore reports whether the box (lo, hi) spans more cells than the
// grid has triangles (or a coordinate that is not finite): computed in
// floating point, since the cell coordinates of a box metres wide in
// millimetre cells need not fit cellOf's int32.
func (g *grid) spansMore(lo, hi geom.Vec3) bool {
	cells := 1.0
	for _, d := range [3]float64{hi.X - lo.X, hi.Y - lo.Y, hi.Z - lo.Z} {
		cells *= math.Max(d, 0)*g.inv + 2
	}
	return !(cells <= float64(len(g.lo)))
}

// scan yields each triangle whose box overlaps the box (lo, hi), in
// index order, by comparing the boxes one by one, until yield returns
// false.
func (g *grid) scan(lo, hi geom.Vec3, yield func(int32) bool) {
	for t := range g.lo {
		blo, bhi := g.lo[t], g.hi[t]
		if blo.X > bhi.X || lo.X > bhi.X || lo.Y > bhi.Y || lo.Z > bhi.Z || blo.X > hi.X || blo.Y > hi.Y || blo.Z > hi.Z {
			continue
		}
		if !yield(int32(t)) {
			return
		}
	}
}

// selfCellFactor scales the cloth's mean edge length to the cell side of
// its own grid. Cells of one mean edge (Teschner et al.'s choice) made
// every query of a 20000-triangle sheet visit 2.70 million bucket entries
// for 176736 overlapping box pairs; 1.5 edges visit 2.04 million (0.75:
// 2.84, 2: 2.43, 3: 2.76 million), since the boxes carry the thickness pad
// and the sweep on top of the edge.
const selfCellFactor = 1.5
