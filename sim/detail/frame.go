package detail

import "drape/sim/geom"

// FrameOf fills dst (allocating when nil) with the live vertices and faces
// of m, compacted in slot order: vertex slot i becomes index k when it is
// the k-th live slot. Level and Obstacles are left as they were. dst's
// slices are reused.
// The result is valid until m changes; it copies positions, so the caller
// may let the simulation run on while the Frame is detailed.
func FrameOf(m *geom.Mesh, dst *Frame) *Frame {
	if dst == nil {
		dst = &Frame{}
	}
	dst.Pos, dst.Rest, dst.Tris = dst.Pos[:0], dst.Rest[:0], dst.Tris[:0]
	idx := make([]int32, len(m.Pos))
	for i := range m.Pos {
		idx[i] = -1
		if m.VertAlive[i] {
			idx[i] = int32(len(dst.Pos))
			dst.Pos = append(dst.Pos, m.Pos[i])
			dst.Rest = append(dst.Rest, m.Rest[i])
		}
	}
	for f, t := range m.Tris {
		if m.FaceAlive(f) {
			dst.Tris = append(dst.Tris, [3]int32{idx[t[0]], idx[t[1]], idx[t[2]]})
		}
	}
	return dst
}
