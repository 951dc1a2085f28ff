package meshio

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"drape/sim/geom"
)

// WritePLY writes the live vertices and faces of m as an ASCII PLY file
// (Turk 1994; the dialect Blender and ParaView import) with, per vertex,
// the world position x y z (m), the unit normal nx ny nz (VertexNormals),
// the colour red green blue (uchar, color(H_display)), the mean curvature
// "float curvature" H (1/m, geom.MeanCurvature, what the simulation's
// refinement uses) and "float curvature_display" H_display (1/m,
// geom.DisplayCurvature: H smoothed over the default σ, what the viewer
// draws and the colours show), and per face "list uchar int
// vertex_indices" (0-based, the same compact order as WriteOBJ: live
// vertex slots in increasing order).
//
// h and hd are H and H_display per vertex slot (length ≥ len(m.Pos)) when
// the caller has them, or nil to compute them here. color maps H_display
// to a colour; nil writes mid grey. Floats use the shortest
// representation of their float32 value, so reading them back as float32
// is exact.
func WritePLY(w io.Writer, m *geom.Mesh, h, hd []float64, color func(hd float64) [3]uint8) error {
	if h == nil {
		h = make([]float64, len(m.Pos))
		geom.MeanCurvature(m, h)
	}
	if hd == nil {
		hd = make([]float64, len(m.Pos))
		geom.DisplayCurvature(m, h, 0, hd)
	}
	if len(h) < len(m.Pos) || len(hd) < len(m.Pos) {
		panic("meshio: WritePLY: curvature slices shorter than m.Pos")
	}
	nrm := make([]geom.Vec3, len(m.Pos))
	geom.VertexNormals(m, nrm)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "ply\nformat ascii 1.0\ncomment drape cloth mesh\n"+
		"element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"+
		"property float nx\nproperty float ny\nproperty float nz\n"+
		"property uchar red\nproperty uchar green\nproperty uchar blue\n"+
		"property float curvature\nproperty float curvature_display\n"+
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
			c = color(hd[i])
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
		buf = num(append(buf, ' '), h[i])
		buf = num(append(buf, ' '), hd[i])
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

// PLY is a triangle mesh read by ReadPLY.
type PLY struct {
	Pos  []geom.Vec3 // vertex i at Pos[i], m (float properties read as float32 values, so WritePLY's round-trip exactly)
	Tris [][3]int32  // 3 indices into Pos per face
	// Props holds every vertex property other than x, y, z by its name
	// in the header ("nx", "red", "curvature", "curvature_display", …),
	// one value per vertex.
	Props map[string][]float64
}

// ReadPLY reads an ASCII PLY file of the kind WritePLY writes: one
// "vertex" element of scalar properties that include x, y and z, in any
// order, followed by one "face" element whose only property is a list of
// vertex indices, every face a triangle. Files written by earlier versions
// of drape (without curvature_display) read as well. Other formats
// (binary), other elements, non-triangular faces, out-of-range indices and
// malformed numbers return an error that names the line. name labels the
// errors.
func ReadPLY(r io.Reader, name string) (*PLY, error) {
	sc := bufio.NewScanner(r)
	line := 0
	fail := func(format string, a ...any) error {
		return fmt.Errorf("reading %s: line %d: %s", name, line, fmt.Sprintf(format, a...))
	}
	next := func() ([]string, bool) {
		for sc.Scan() {
			line++
			if f := strings.Fields(sc.Text()); len(f) > 0 {
				return f, true
			}
		}
		return nil, false
	}
	if f, ok := next(); !ok || len(f) != 1 || f[0] != "ply" {
		return nil, fail("not a PLY file (no \"ply\" first line)")
	}
	var props []string
	var bits []int // ParseFloat's bitSize of each property: 64 for double, else 32
	nv, nf := -1, -1
	element, format := "", false
	for {
		f, ok := next()
		if !ok {
			if err := sc.Err(); err != nil {
				return nil, fmt.Errorf("reading %s: %w", name, err)
			}
			return nil, fail("no end_header")
		}
		switch {
		case f[0] == "end_header":
		case f[0] == "comment" || f[0] == "obj_info":
			continue
		case f[0] == "format":
			if len(f) != 3 || f[1] != "ascii" {
				return nil, fail("format %q: only ascii is read", strings.Join(f[1:], " "))
			}
			format = true
			continue
		case f[0] == "element" && len(f) == 3:
			n, err := strconv.Atoi(f[2])
			if err != nil || n < 0 {
				return nil, fail("element count %q", f[2])
			}
			switch {
			case f[1] == "vertex" && nv < 0 && nf < 0:
				nv = n
			case f[1] == "face" && nv >= 0 && nf < 0:
				nf = n
			default:
				return nil, fail("element %q: want one vertex element, then one face element", f[1])
			}
			element = f[1]
			continue
		case f[0] == "property" && element == "vertex" && len(f) == 3:
			if slices.Contains(props, f[2]) {
				return nil, fail("vertex property %q twice", f[2])
			}
			props = append(props, f[2])
			bits = append(bits, 32)
			if f[1] == "double" || f[1] == "float64" {
				bits[len(bits)-1] = 64
			}
			continue
		case f[0] == "property" && element == "face" && len(f) == 5 && f[1] == "list":
			continue
		default:
			return nil, fail("unexpected header line %q", strings.Join(f, " "))
		}
		break
	}
	if !format || nv < 0 || nf < 0 {
		return nil, fail("header without a format line or without vertex and face elements")
	}
	col := map[string]int{}
	for i, p := range props {
		col[p] = i
	}
	ix, okx := col["x"]
	iy, oky := col["y"]
	iz, okz := col["z"]
	if !okx || !oky || !okz {
		return nil, fail("vertex properties %v lack x, y or z", props)
	}
	p := &PLY{Props: map[string][]float64{}}
	vals := make([]float64, len(props))
	for i := 0; i < nv; i++ {
		f, ok := next()
		if !ok {
			return nil, fail("vertex %d of %d missing", i, nv)
		}
		if len(f) != len(props) {
			return nil, fail("vertex %d: %d values, want %d", i, len(f), len(props))
		}
		for k, s := range f {
			x, err := strconv.ParseFloat(s, bits[k])
			if err != nil {
				return nil, fail("vertex %d: %v", i, err)
			}
			vals[k] = x
		}
		p.Pos = append(p.Pos, geom.Vec3{vals[ix], vals[iy], vals[iz]})
		for k, name := range props {
			if k != ix && k != iy && k != iz {
				p.Props[name] = append(p.Props[name], vals[k])
			}
		}
	}
	for i := 0; i < nf; i++ {
		f, ok := next()
		if !ok {
			return nil, fail("face %d of %d missing", i, nf)
		}
		if len(f) != 4 || f[0] != "3" {
			return nil, fail("face %d: %q is not a triangle", i, strings.Join(f, " "))
		}
		var t [3]int32
		for k := range 3 {
			v, err := strconv.ParseInt(f[k+1], 10, 32)
			if err != nil || v < 0 || int(v) >= nv {
				return nil, fail("face %d: vertex index %q out of range [0,%d)", i, f[k+1], nv)
			}
			t[k] = int32(v)
		}
		p.Tris = append(p.Tris, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return p, nil
}
