package meshio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"drape/sim/geom"
)

// ReadOBJ reads a Wavefront OBJ mesh. name is used in error messages, which
// all have the form "name:LINE: message".
//
// Supported statements: v (x y z, an optional w is ignored), vt (u v),
// f with corners i, i/t, i/t/n or i//n (1-based, negative indices count back
// from the latest vertex), # comments. vn, o, g, s, usemtl, mtllib and any
// other statement are ignored. Polygons with more than three corners are
// fan-triangulated (c0, ck, ck+1). Vertices that no face uses are dropped.
//
// Material coordinates (Mesh.Rest) come from:
//
//   - vt, when every face corner has one. vt in OBJ files is usually in
//     [0,1], so the layout is scaled uniformly by s = √(A_3D/A_vt), the
//     ratio of the total world area to the total texture area: the fabric
//     keeps its metric on average while the vt axes define the weft (u,
//     material X) and the warp (v, material Y). Files written by WriteOBJ
//     carry a tag comment and their vt are taken as metres, unscaled.
//     Seams are not split: a position used with two different vt values is
//     an error ("vertex N has more than one texture coordinate (seam);
//     split the mesh").
//   - otherwise a planar parameterisation: positions are projected onto the
//     best-fit plane through their centroid, spanned by the two largest
//     principal directions of the positions (PCA). This is exact for flat
//     sheets and shortens lengths on curved ones; a face whose projected
//     area is below 1 % of its world area, or that is oriented against
//     the others (a fold), is an error ("not flat enough for a planar
//     parameterisation; add vt coordinates").
//
// Either way, faces must be consistently oriented: if every face is
// clockwise in material space, material X is mirrored (X → max X − X);
// a mix of orientations is an error naming the first face of the minority.
// Mesh errors from NewMesh (*FaceError, *VertexError) are reported at the
// line of the offending f or v statement. ReadOBJ never panics on bad input.
func ReadOBJ(r io.Reader, name string) (*geom.Mesh, error) { return readOBJ(r, name, false) }

// ReadOBJMaterial reads an OBJ mesh as ReadOBJ does, but takes its vt as
// material coordinates of a drape cloth in metres, as they are, whether
// or not the file carries WriteOBJ's tag: neither scaled nor mirrored. It
// reads a mesh whose vertices name points of a cloth's material plane,
// such as the fixed mesh of a point cache taken from a drape OBJ and
// edited elsewhere (6-digit vt and all). Every face corner needs a vt
// ("needs a vt at every face corner"), and every face must be
// counter-clockwise in vt, as drape's faces are ("is clockwise in texture
// space").
func ReadOBJMaterial(r io.Reader, name string) (*geom.Mesh, error) { return readOBJ(r, name, true) }

// readOBJ is ReadOBJ, or ReadOBJMaterial when material is set.
func readOBJ(r io.Reader, name string, material bool) (*geom.Mesh, error) {
	o, err := parseOBJ(r, name, objSyntax{texture: true})
	if err != nil {
		return nil, err
	}
	tris, used := compactOBJ(o.tris, len(o.pos))
	vt, err := o.vertexTex(tris, len(used))
	if err != nil {
		return nil, err
	}
	for f, t := range tris {
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return nil, o.errorf(o.triLn[f], "face repeats a vertex")
		}
	}
	pos := make([]geom.Vec3, len(used))
	for i, v := range used {
		pos[i] = o.pos[v]
	}
	rest, err := o.rest(pos, vt, tris, material)
	if err != nil {
		return nil, o.lineError(err, used)
	}
	m, err := geom.NewMesh(pos, rest, tris)
	if err != nil {
		return nil, o.lineError(err, used)
	}
	return m, nil
}

// vertexTex returns the vt index of each of the nv vertices that tris
// (o.tris compacted) number, or nil when a face corner has no vt. A
// vertex used with two different texture coordinates is an error: a seam,
// which a cloth mesh cannot have.
func (o *objFile) vertexTex(tris [][3]int32, nv int) ([]int, error) {
	for _, t := range o.tris {
		if t[0].vt < 0 || t[1].vt < 0 || t[2].vt < 0 {
			return nil, nil
		}
	}
	vt := make([]int, nv)
	for i := range vt {
		vt[i] = -1
	}
	for f, t := range o.tris {
		for k, c := range t {
			switch s, old := tris[f][k], vt[tris[f][k]]; {
			case old < 0:
				vt[s] = c.vt
			case old != c.vt && o.tex[old] != o.tex[c.vt]:
				return nil, o.errorf(o.triLn[f], "vertex %d has more than one texture coordinate (seam); split the mesh", c.v+1)
			}
		}
	}
	return vt, nil
}

// rest returns the material coordinates of pos: the texture coordinates
// vt (nil: none) as they are when material is set, else scaled to the
// world area unless the file is WriteOBJ's, else the best-fit plane's
// (see ReadOBJ and ReadOBJMaterial).
func (o *objFile) rest(pos []geom.Vec3, vt []int, tris [][3]int32, material bool) ([]geom.Vec2, error) {
	switch {
	case material && vt == nil:
		return nil, o.errorf(0, "needs a vt at every face corner: they are the material coordinates")
	case material:
		rest := make([]geom.Vec2, len(pos))
		for i, t := range vt {
			rest[i] = o.tex[t]
		}
		return rest, orientRest(rest, tris, "texture space", false)
	case vt != nil:
		return textureRest(pos, vt, o.tex, tris, !o.tagged)
	}
	return planarRest(pos, tris)
}

// lineError places an error about the mesh made of o's used vertices (v
// indices used[i]) and triangles at its line: a *geom.FaceError at the f
// statement, a *geom.VertexError at the v statement, anything else on the
// whole file. An *OBJError is returned as it is.
func (o *objFile) lineError(err error, used []int) error {
	var (
		oe *OBJError
		fe *geom.FaceError
		ve *geom.VertexError
	)
	switch {
	case errors.As(err, &oe):
		return err
	case errors.As(err, &fe):
		return o.errorf(o.triLn[fe.Face], "face %s", fe.Msg)
	case errors.As(err, &ve):
		return o.errorf(o.posLn[used[ve.Vertex]], "vertex %s", ve.Msg)
	}
	return o.errorf(0, "%v", err)
}

// orientRest checks that all faces have the same orientation in rest,
// mirroring X when all are clockwise and mirror is set. It returns a
// *FaceError for a degenerate face, one against the majority orientation,
// or, without mirror, the first clockwise face.
func orientRest(rest []geom.Vec2, tris [][3]int32, what string, mirror bool) error {
	var ccw, cw []int
	for f, t := range tris {
		a, b, c := rest[t[0]], rest[t[1]], rest[t[2]]
		ar := geom.RestArea(a, b, c)
		scale := math.Max(b.Sub(a).Norm2(), c.Sub(a).Norm2())
		switch {
		case ar > 1e-12*scale:
			ccw = append(ccw, f)
		case ar < -1e-12*scale:
			cw = append(cw, f)
		default:
			return &geom.FaceError{f, fmt.Sprintf("has zero area in %s (degenerate)", what)}
		}
	}
	if len(cw) > 0 && len(ccw) > 0 {
		minority := cw
		if len(ccw) < len(cw) {
			minority = ccw
		}
		return &geom.FaceError{minority[0], fmt.Sprintf("is oriented against %d other faces in %s (the layout folds over)", max(len(cw), len(ccw)), what)}
	}
	if len(cw) > 0 && !mirror {
		return &geom.FaceError{cw[0], fmt.Sprintf("is clockwise in %s (material coordinates are counter-clockwise)", what)}
	}
	if len(cw) > 0 {
		hi := math.Inf(-1)
		for _, r := range rest {
			hi = math.Max(hi, r.X)
		}
		for i := range rest {
			rest[i].X = hi - rest[i].X
		}
	}
	return nil
}

// textureRest returns material coordinates from the vt of each vertex,
// oriented counter-clockwise and, if scale is set, scaled to the world area.
func textureRest(pos []geom.Vec3, vt []int, tex []geom.Vec2, tris [][3]int32, scale bool) ([]geom.Vec2, error) {
	rest := make([]geom.Vec2, len(pos))
	for i, t := range vt {
		rest[i] = tex[t]
	}
	if err := orientRest(rest, tris, "texture space", true); err != nil {
		return nil, err
	}
	if !scale {
		return rest, nil
	}
	var a3, a2 float64
	for _, t := range tris {
		a3 += geom.TriangleArea(pos[t[0]], pos[t[1]], pos[t[2]])
		a2 += geom.RestArea(rest[t[0]], rest[t[1]], rest[t[2]])
	}
	s := math.Sqrt(a3 / a2)
	if !(s > 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("cannot scale texture coordinates: world area %g m², texture area %g", a3, a2)
	}
	for i := range rest {
		rest[i] = rest[i].Scale(s)
	}
	return rest, nil
}

// planarRest returns material coordinates by projecting the positions onto
// their best-fit plane (see ReadOBJ).
func planarRest(pos []geom.Vec3, tris [][3]int32) ([]geom.Vec2, error) {
	var c geom.Vec3
	for _, p := range pos {
		c = c.Add(p)
	}
	c = c.Scale(1 / float64(len(pos)))
	var cov [3][3]float64
	for _, p := range pos {
		d := p.Sub(c)
		v := [3]float64{d.X, d.Y, d.Z}
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				cov[i][j] += v[i] * v[j]
			}
		}
	}
	vals, vecs := geom.SymEigen3(cov)
	// Order the eigenvalues descending.
	idx := [3]int{0, 1, 2}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if vals[idx[j]] > vals[idx[i]] {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
	}
	e1, e2 := vecs[idx[0]].Unit(), vecs[idx[1]].Unit()
	rest := make([]geom.Vec2, len(pos))
	for i, p := range pos {
		d := p.Sub(c)
		rest[i] = geom.Vec2{d.Dot(e1), d.Dot(e2)}
	}
	const notFlat = "; the mesh is not flat enough for a planar parameterisation; add vt coordinates"
	for f, t := range tris {
		a3 := geom.TriangleArea(pos[t[0]], pos[t[1]], pos[t[2]])
		a2 := math.Abs(geom.RestArea(rest[t[0]], rest[t[1]], rest[t[2]]))
		if !(a2 >= 0.01*a3) {
			return nil, &geom.FaceError{f, "is nearly edge-on to the best-fit plane" + notFlat}
		}
	}
	if err := orientRest(rest, tris, "the best-fit plane", true); err != nil {
		var fe *geom.FaceError
		if errors.As(err, &fe) {
			return nil, &geom.FaceError{fe.Face, fe.Msg + notFlat}
		}
		return nil, err
	}
	return rest, nil
}

// LoadOBJ reads the OBJ file at path with ReadOBJ.
func LoadOBJ(path string) (*geom.Mesh, error) { return loadOBJ(path, false) }

// LoadOBJMaterial reads the OBJ file at path with ReadOBJMaterial.
func LoadOBJMaterial(path string) (*geom.Mesh, error) { return loadOBJ(path, true) }

func loadOBJ(path string, material bool) (*geom.Mesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("loading mesh: %w", err)
	}
	defer f.Close()
	return readOBJ(f, path, material)
}

// WriteOBJ writes the live vertices and faces of m as a Wavefront OBJ file
// with compact 1-based indices: v lines hold world positions, vt lines the
// material coordinates in metres (tagged so that ReadOBJ reads them back
// unscaled), and f lines "i/i i/i i/i". Numbers use the shortest
// representation that reads back to the same float64, so the round trip
// is exact.
func WriteOBJ(w io.Writer, m *geom.Mesh) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# drape cloth mesh: %d vertices, %d faces\n%s\n", m.NumVerts(), m.NumTris(), objMaterialTag)
	idx := make([]int32, len(m.Pos))
	n := int32(0)
	num := func(b []byte, f float64) []byte { return strconv.AppendFloat(append(b, ' '), f, 'g', -1, 64) }
	var buf []byte
	for i, p := range m.Pos {
		if !m.VertAlive[i] {
			continue
		}
		n++
		idx[i] = n
		buf = append(buf[:0], 'v')
		buf = num(num(num(buf, p.X), p.Y), p.Z)
		bw.Write(append(buf, '\n'))
	}
	for i, r := range m.Rest {
		if !m.VertAlive[i] {
			continue
		}
		buf = append(buf[:0], "vt"...)
		buf = num(num(buf, r.X), r.Y)
		bw.Write(append(buf, '\n'))
	}
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		a, b, c := idx[t[0]], idx[t[1]], idx[t[2]]
		fmt.Fprintf(bw, "f %d/%d %d/%d %d/%d\n", a, a, b, b, c, c)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing OBJ: %w", err)
	}
	return nil
}
