package contact

import "drape/sim/buf"

// This file numbers the contours of Untangler.Find: which tangled faces
// belong to one intersection curve.
//
// A contour is a connected set of intersecting pairs: consecutive
// segments of an intersection curve share a face (the curve leaves a
// face of one surface through an edge into the next face while it stays
// in the same face of the other), so the pairs that share a face are
// joined (union–find). The Band faces take the contour of a crossing face
// they ring. The collision phase lets two tangled faces pass through
// each other only when they belong to the same contour
// (Cloth.Contour): the band of one contour resting on the band of
// another, as layers of a pile do, keeps its repulsion, where before
// every two tangled faces lost it and a pile's layers sank through each
// other wherever two bands met (docs/robustness.md).

// contours numbers the contours (union–find over the pairs, joined
// where they share a face) and labels their crossing faces and the Band
// faces round them in u.contour (see the file comment).
func (u *Untangler) contours(tris [][3]int32) {
	nf := len(tris)
	n := len(u.pairs)
	u.up = buf.Grow(u.up, n)
	for i := range u.up {
		u.up[i] = int32(i)
	}
	u.comp = buf.Grow(u.comp, nf)
	for f := range u.comp {
		u.comp[f] = -1
	}
	for i, p := range u.pairs {
		for _, f := range p {
			if j := u.comp[f]; j < 0 {
				u.comp[f] = int32(i)
			} else {
				joinSets(u.up, int32(i), j)
			}
		}
	}
	// Number the contours 0, 1, … in the order of their first pair (a
	// set's root is its lowest pair): every pair points at its root, and
	// a root then holds −1 − its number.
	for i := range u.up {
		u.up[i] = setRoot(u.up, int32(i))
	}
	nc := int32(0)
	for i, r := range u.up {
		if r == int32(i) {
			u.up[i] = -1 - nc
			nc++
		}
	}
	for i, p := range u.pairs {
		r := u.up[i]
		if r >= 0 {
			r = u.up[r]
		}
		c := -1 - r
		u.contour[p[0]], u.contour[p[1]] = c, c
	}
	// The Band faces get the contour of a crossing face they ring: by
	// vertex labels grown ring by ring as in flag.
	u.vlabel = buf.Grow(u.vlabel, len(u.verts))
	for v := range u.vlabel {
		u.vlabel[v] = -1
	}
	for f, c := range u.contour {
		if c >= 0 {
			for _, v := range tris[f] {
				u.vlabel[v] = c
			}
		}
	}
	for r := 0; r < u.Rings; r++ {
		for f, t := range tris {
			if t[0] < 0 || u.contour[f] >= 0 || u.faces[f]&Band == 0 {
				continue
			}
			for _, v := range t {
				if c := u.vlabel[v]; c >= 0 {
					u.contour[f] = c
					break
				}
			}
		}
		for f, t := range tris {
			if c := u.contour[f]; c >= 0 {
				for _, v := range t {
					if u.vlabel[v] < 0 {
						u.vlabel[v] = c
					}
				}
			}
		}
	}
}
