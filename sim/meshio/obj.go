package meshio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"drape/sim/geom"
)

// OBJError is an error at one line of a Wavefront OBJ file. Line is 0 when
// the problem concerns the whole file (it is empty, or has no faces).
type OBJError struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *OBJError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *OBJError) Unwrap() error { return e.Err }

// objMaterialTag is the comment WriteOBJ puts in the header. When ReadOBJ
// sees it, it takes the vt coordinates as material coordinates in metres,
// as written, instead of rescaling them (see ReadOBJ).
const objMaterialTag = "# drape: vt are material coordinates in m"

// maxOBJVerts caps the vertex and texture-coordinate count a file may
// declare, so that a hostile file cannot exhaust memory.
const maxOBJVerts = 3 * geom.MaxTriangles

// objCorner is one face corner: a position index and a texture index (−1
// when absent), both 0-based.
type objCorner struct{ v, vt int }

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
	var (
		pos    []geom.Vec3
		posLn  []int // line of each v
		tex    []geom.Vec2
		tris   [][3]objCorner
		triLn  []int // line of the f statement of each triangle
		tagged bool
		lineNo int
	)
	fail := func(line int, format string, args ...any) error {
		return &OBJError{name, line, fmt.Errorf(format, args...)}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if strings.TrimSpace(line) == objMaterialTag {
			tagged = true
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "v":
			if len(fields) < 4 {
				return nil, fail(lineNo, "v needs 3 coordinates, got %d", len(fields)-1)
			}
			var p [3]float64
			for k := range p {
				f, err := parseFinite(fields[1+k])
				if err != nil {
					return nil, fail(lineNo, "v: %v", err)
				}
				p[k] = f
			}
			if len(pos) >= maxOBJVerts {
				return nil, fail(lineNo, "more than %d vertices", maxOBJVerts)
			}
			pos = append(pos, geom.Vec3{p[0], p[1], p[2]})
			posLn = append(posLn, lineNo)
		case "vt":
			if len(fields) < 3 {
				return nil, fail(lineNo, "vt needs u and v, got %d values", len(fields)-1)
			}
			var p [2]float64
			for k := range p {
				f, err := parseFinite(fields[1+k])
				if err != nil {
					return nil, fail(lineNo, "vt: %v", err)
				}
				p[k] = f
			}
			if len(tex) >= maxOBJVerts {
				return nil, fail(lineNo, "more than %d texture coordinates", maxOBJVerts)
			}
			tex = append(tex, geom.Vec2{p[0], p[1]})
		case "f":
			if len(fields) < 4 {
				return nil, fail(lineNo, "face needs at least 3 vertices, got %d", len(fields)-1)
			}
			corners := make([]objCorner, len(fields)-1)
			for k, fld := range fields[1:] {
				c, err := parseCorner(fld, len(pos), len(tex))
				if err != nil {
					return nil, fail(lineNo, "face vertex %d %q: %v", k+1, fld, err)
				}
				corners[k] = c
			}
			if len(tris)+len(corners)-2 > geom.MaxTriangles {
				return nil, fail(lineNo, "more than %d triangles", geom.MaxTriangles)
			}
			for k := 1; k+1 < len(corners); k++ {
				tris = append(tris, [3]objCorner{corners[0], corners[k], corners[k+1]})
				triLn = append(triLn, lineNo)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fail(lineNo+1, "reading: %v", err)
	}
	if lineNo == 0 {
		return nil, fail(0, "file is empty")
	}
	if len(tris) == 0 {
		return nil, fail(0, "no faces (f statements)")
	}

	// Compact the used vertices, in order of first use by a face.
	slot := make([]int32, len(pos))
	for i := range slot {
		slot[i] = -1
	}
	var (
		mpos  []geom.Vec3
		mline []int // v line of each compact vertex
		mtex  []int // vt index of each compact vertex, −1 if none yet
	)
	allTex := true
	ct := make([][3]int32, len(tris))
	for f, t := range tris {
		for k, c := range t {
			s := slot[c.v]
			if s < 0 {
				s = int32(len(mpos))
				slot[c.v] = s
				mpos = append(mpos, pos[c.v])
				mline = append(mline, posLn[c.v])
				mtex = append(mtex, -1)
			}
			ct[f][k] = s
			if c.vt < 0 {
				allTex = false
			}
		}
	}
	for f, t := range tris {
		if !allTex {
			break
		}
		for k, c := range t {
			switch s, old := ct[f][k], mtex[ct[f][k]]; {
			case old < 0:
				mtex[s] = c.vt
			case old != c.vt && tex[old] != tex[c.vt]:
				return nil, fail(triLn[f], "vertex %d has more than one texture coordinate (seam); split the mesh", c.v+1)
			}
		}
	}
	for f, t := range ct {
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return nil, fail(triLn[f], "face repeats a vertex")
		}
	}
	var (
		rest []geom.Vec2
		err  error
	)
	switch {
	case material && !allTex:
		return nil, fail(0, "needs a vt at every face corner: they are the material coordinates")
	case material:
		rest = make([]geom.Vec2, len(mpos))
		for i, t := range mtex {
			rest[i] = tex[t]
		}
		err = orientRest(rest, ct, "texture space", false)
	case allTex:
		rest, err = textureRest(mpos, mtex, tex, ct, !tagged)
	default:
		rest, err = planarRest(mpos, ct)
	}
	if err != nil {
		var fe *geom.FaceError
		if errors.As(err, &fe) {
			return nil, fail(triLn[fe.Face], "face %s", fe.Msg)
		}
		return nil, fail(0, "%v", err)
	}
	m, err := geom.NewMesh(mpos, rest, ct)
	if err != nil {
		var fe *geom.FaceError
		var ve *geom.VertexError
		switch {
		case errors.As(err, &fe):
			return nil, fail(triLn[fe.Face], "face %s", fe.Msg)
		case errors.As(err, &ve):
			return nil, fail(mline[ve.Vertex], "vertex %s", ve.Msg)
		}
		return nil, fail(0, "%v", err)
	}
	return m, nil
}

// parseFinite parses a finite float64.
func parseFinite(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("malformed number %q", s)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("number %q is not finite", s)
	}
	return f, nil
}

// parseCorner parses a face corner i, i/t, i/t/n or i//n against nv
// positions and nt texture coordinates read so far.
func parseCorner(s string, nv, nt int) (objCorner, error) {
	parts := strings.Split(s, "/")
	if len(parts) > 3 {
		return objCorner{}, fmt.Errorf("too many '/'")
	}
	v, err := objIndex(parts[0], nv, "vertex")
	if err != nil {
		return objCorner{}, err
	}
	c := objCorner{v: v, vt: -1}
	if len(parts) >= 2 && parts[1] != "" {
		if c.vt, err = objIndex(parts[1], nt, "texture coordinate"); err != nil {
			return objCorner{}, err
		}
	}
	return c, nil
}

// objIndex converts a 1-based or negative (relative) OBJ index to 0-based.
func objIndex(s string, n int, what string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("missing %s index", what)
	}
	i, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("malformed %s index %q", what, s)
	}
	switch {
	case i > 0 && i <= n:
		return i - 1, nil
	case i < 0 && -i <= n:
		return n + i, nil
	case i == 0:
		return 0, fmt.Errorf("%s index 0 is invalid (OBJ indices start at 1)", what)
	}
	return 0, fmt.Errorf("%s index %d out of range (%d defined so far)", what, i, n)
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
	vals, vecs := symEigen3(cov)
	// Order the eigenvalues descending.
	idx := [3]int{0, 1, 2}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if vals[idx[j]] > vals[idx[i]] {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
	}
	col := func(k int) geom.Vec3 { return geom.Vec3{vecs[0][k], vecs[1][k], vecs[2][k]} }
	e1, e2 := col(idx[0]).Unit(), col(idx[1]).Unit()
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

// symEigen3 returns the eigenvalues and eigenvectors (as columns of V) of
// a symmetric 3×3 matrix by cyclic Jacobi rotations; it converges in a
// handful of sweeps and leaves the input's NaNs as NaNs.
func symEigen3(a [3][3]float64) (vals [3]float64, v [3][3]float64) {
	v = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for sweep := 0; sweep < 50; sweep++ {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		diag := a[0][0]*a[0][0] + a[1][1]*a[1][1] + a[2][2]*a[2][2]
		if !(off > 1e-30*diag) {
			break
		}
		for p := 0; p < 2; p++ {
			for q := p + 1; q < 3; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				cs := 1 / math.Sqrt(t*t+1)
				sn := t * cs
				for k := 0; k < 3; k++ { // A ← A·J
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = cs*akp-sn*akq, sn*akp+cs*akq
				}
				for k := 0; k < 3; k++ { // A ← Jᵀ·A
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = cs*apk-sn*aqk, sn*apk+cs*aqk
				}
				for k := 0; k < 3; k++ { // V ← V·J
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = cs*vkp-sn*vkq, sn*vkp+cs*vkq
				}
			}
		}
	}
	return [3]float64{a[0][0], a[1][1], a[2][2]}, v
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
