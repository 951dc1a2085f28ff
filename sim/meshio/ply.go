package meshio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"drape/sim/geom"
)

// WritePLY writes the live vertices and faces of m as an ASCII PLY file
// (Turk 1994; the dialect Blender and ParaView import) with, per vertex,
// the world position x y z (m), the unit normal nx ny nz (VertexNormals),
// the colour red green blue (uchar, color(H)) and the mean curvature
// "float curvature" H (1/m, MeanCurvature), and per face "list uchar int
// vertex_indices" (0-based, the same compact order as WriteOBJ: live
// vertex slots in increasing order). color maps H to a colour; nil writes
// mid grey. Floats use the shortest representation of their float32
// value, so reading them back as float32 is exact.
func WritePLY(w io.Writer, m *geom.Mesh, color func(h float64) [3]uint8) error {
	curv := make([]float64, len(m.Pos))
	nrm := make([]geom.Vec3, len(m.Pos))
	geom.MeanCurvature(m, curv)
	geom.VertexNormals(m, nrm)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "ply\nformat ascii 1.0\ncomment drape cloth mesh\n"+
		"element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"+
		"property float nx\nproperty float ny\nproperty float nz\n"+
		"property uchar red\nproperty uchar green\nproperty uchar blue\n"+
		"property float curvature\n"+
		"element face %d\nproperty list uchar int vertex_indices\nend_header\n", m.NumVerts(), m.NumTris())
	idx := make([]int32, len(m.Pos))
	n := int32(0)
	num := func(b []byte, f float64) []byte { return strconv.AppendFloat(b, float64(float32(f)), 'g', -1, 32) }
	var buf []byte
	for i, p := range m.Pos {
		if !m.VertAlive[i] {
			continue
		}
		idx[i] = n
		n++
		c := [3]uint8{153, 153, 153}
		if color != nil {
			c = color(curv[i])
		}
		nv := nrm[i]
		buf = buf[:0]
		for k, f := range [6]float64{p.X, p.Y, p.Z, nv.X, nv.Y, nv.Z} {
			if k > 0 {
				buf = append(buf, ' ')
			}
			buf = num(buf, f)
		}
		for _, u := range c {
			buf = strconv.AppendUint(append(buf, ' '), uint64(u), 10)
		}
		buf = num(append(buf, ' '), curv[i])
		bw.Write(append(buf, '\n'))
	}
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		fmt.Fprintf(bw, "3 %d %d %d\n", idx[t[0]], idx[t[1]], idx[t[2]])
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing PLY: %w", err)
	}
	return nil
}
