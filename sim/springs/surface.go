package springs

import "drape/sim/geom"

// Surface is a triangle mesh over the cloth for drawing and picking.
// The slices are reused by the next call of Cloth.Surface with the same
// value.
type Surface struct {
	Pos   []geom.Vec3 // vertex positions, m
	ID    []int32     // particle ID of each vertex; −1 for a cell-centre vertex
	Layer []uint8     // subdivision layer of each vertex's particle (of the cell for a centre vertex)
	Tris  [][3]int32  // 3 indices into Pos per triangle, counter-clockwise seen from U×V

	vert []int32 // vertex of each particle ID, −1 for a free ID
}

// Surface fills dst with triangles over the cloth (Olson & Rudnick §3.3,
// without the extraneous quads of their fig. 3). The grid decomposes into
// the cells of a quadtree: a base cell of size 2^m slots is split into four
// when the particle at its centre exists (a centre slot is only ever filled
// by subdivision, which also fills the cell's edge midpoints). A leaf cell
// with no particle on its edges gives two triangles; one with particles on
// its edges (T-junctions next to finer cells) gets a vertex at the mean of
// its corners, ID −1, and a fan over its boundary, so the surface has no
// cracks. Every active, fixed and interpolated particle is a vertex, in
// ID order (free IDs have none).
func (c *Cloth) Surface(dst *Surface) {
	dst.Pos, dst.ID, dst.Layer, dst.Tris = dst.Pos[:0], dst.ID[:0], dst.Layer[:0], dst.Tris[:0]
	c.interpolate()
	dst.vert = fit(dst.vert[:0], len(c.pos))
	for id := range c.pos {
		dst.vert[id] = -1
		if c.typ[id] == None {
			continue
		}
		dst.vert[id] = int32(len(dst.Pos))
		dst.Pos = append(dst.Pos, c.pos[id])
		dst.ID = append(dst.ID, int32(id))
		dst.Layer = append(dst.Layer, c.layer[id])
	}
	S := int32(1) << c.m
	var ring []int32
	var cell func(i, j, s int32, l uint8)
	cell = func(i, j, s int32, l uint8) {
		if s >= 2 {
			if ctr := c.at(i+s/2, j+s/2); ctr >= 0 {
				h := s / 2
				cell(i, j, h, l+1)
				cell(i+h, j, h, l+1)
				cell(i, j+h, h, l+1)
				cell(i+h, j+h, h, l+1)
				return
			}
		}
		// boundary, counter-clockwise in (i, j)
		ring = ring[:0]
		walk := func(i0, j0, di, dj int32) {
			for k := int32(0); k < s; k++ {
				if q := c.at(i0+k*di, j0+k*dj); q >= 0 {
					ring = append(ring, dst.vert[q])
				}
			}
		}
		walk(i, j, 1, 0)
		walk(i+s, j, 0, 1)
		walk(i+s, j+s, -1, 0)
		walk(i, j+s, 0, -1)
		if len(ring) == 4 {
			dst.Tris = append(dst.Tris, [3]int32{ring[0], ring[1], ring[2]}, [3]int32{ring[0], ring[2], ring[3]})
			return
		}
		a, b, cc, d := c.at(i, j), c.at(i+s, j), c.at(i+s, j+s), c.at(i, j+s) // particle IDs
		ctr := c.pos[a].Add(c.pos[b]).Add(c.pos[cc]).Add(c.pos[d]).Scale(0.25)
		v := int32(len(dst.Pos))
		dst.Pos = append(dst.Pos, ctr)
		dst.ID = append(dst.ID, -1)
		dst.Layer = append(dst.Layer, l)
		for k := range ring {
			dst.Tris = append(dst.Tris, [3]int32{v, ring[k], ring[(k+1)%len(ring)]})
		}
	}
	for bj := 0; bj < c.spec.NY-1; bj++ {
		for bi := 0; bi < c.spec.NX-1; bi++ {
			cell(int32(bi)*S, int32(bj)*S, S, 0)
		}
	}
}
