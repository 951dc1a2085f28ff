package meshio

import (
	"bufio"
	"fmt"
	"io"
	"math"
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

// objFile is the statements of an OBJ file that the readers use, as
// parseOBJ reads them, before any mesh is made of them.
type objFile struct {
	name   string
	pos    []geom.Vec3    // v, in file order
	posLn  []int          // line of each v
	tex    []geom.Vec2    // vt, in file order (only when texture is read)
	tris   [][3]objCorner // the faces, fan-triangulated: (c0, ck, ck+1)
	triLn  []int          // line of the f statement of each triangle
	tagged bool           // the file carries objMaterialTag
}

// objSyntax says what parseOBJ reads beyond positions and faces.
type objSyntax struct {
	// texture: read vt statements and the texture index of each corner
	// (i/t, i/t/n), checked against the vt read so far. Without it vt
	// statements are skipped and a corner is read up to its first '/'.
	texture bool
	// maxBytes, when not 0, caps the file's length in bytes.
	maxBytes int64
}

// parseOBJ reads the statements of the Wavefront OBJ file r that drape
// uses, with the syntax ReadOBJ documents (vt only when syn.texture is
// set); polygons are fan-triangulated (c0, ck, ck+1). Errors are
// *OBJError at the offending line; a file with no line or no face is an
// error. It never panics on bad input.
func parseOBJ(r io.Reader, name string, syn objSyntax) (*objFile, error) {
	o := &objFile{name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line, read := 0, int64(0)
	for sc.Scan() {
		line++
		text := sc.Text()
		if read += int64(len(text)) + 1; syn.maxBytes > 0 && read > syn.maxBytes {
			return nil, o.errorf(line, "file larger than %g MiB", float64(syn.maxBytes)/(1<<20))
		}
		if err := o.statement(text, line, syn.texture); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, o.errorf(line+1, "reading: %v", err)
	}
	if line == 0 {
		return nil, o.errorf(0, "file is empty")
	}
	if len(o.tris) == 0 {
		return nil, o.errorf(0, "no faces (f statements)")
	}
	return o, nil
}

// errorf returns an *OBJError at line of o's file.
func (o *objFile) errorf(line int, format string, args ...any) error {
	return &OBJError{o.name, line, fmt.Errorf(format, args...)}
}

// statement reads one line of the file.
func (o *objFile) statement(text string, line int, texture bool) error {
	if strings.TrimSpace(text) == objMaterialTag {
		o.tagged = true
	}
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return nil
	}
	switch fields[0] {
	case "v":
		p, err := o.point(fields[1:], line, len(o.pos), objV)
		if err != nil {
			return err
		}
		o.pos = append(o.pos, geom.Vec3{p[0], p[1], p[2]})
		o.posLn = append(o.posLn, line)
	case "vt":
		if !texture {
			break
		}
		p, err := o.point(fields[1:], line, len(o.tex), objVT)
		if err != nil {
			return err
		}
		o.tex = append(o.tex, geom.Vec2{p[0], p[1]})
	case "f":
		return o.face(fields[1:], line, texture)
	}
	return nil
}

// objPoint is a statement that declares a point, v or vt: the numbers it
// needs and what its errors say.
type objPoint struct {
	n                int    // numbers read; more are ignored
	need, bad, count string // error texts
}

var (
	objV  = objPoint{3, "v needs 3 coordinates", "bad coordinate", "vertices"}
	objVT = objPoint{2, "vt needs u and v", "bad texture coordinate", "texture coordinates"}
)

// point reads the arguments of a statement of kind k, after have of its
// kind, as k.n finite numbers.
func (o *objFile) point(args []string, line, have int, k objPoint) ([3]float64, error) {
	var p [3]float64
	if len(args) < k.n {
		return p, o.errorf(line, "%s, got %d", k.need, len(args))
	}
	for i := range k.n {
		f, err := parseFinite(args[i])
		if err != nil {
			return p, o.errorf(line, "%s: %v", k.bad, err)
		}
		p[i] = f
	}
	if have >= maxOBJVerts {
		return p, o.errorf(line, "more than %d %s", maxOBJVerts, k.count)
	}
	return p, nil
}

// face reads the arguments of an f statement and fan-triangulates it.
func (o *objFile) face(args []string, line int, texture bool) error {
	if len(args) < 3 {
		return o.errorf(line, "f needs at least 3 corners, got %d", len(args))
	}
	corners := make([]objCorner, len(args))
	for k, arg := range args {
		c, err := parseCorner(arg, len(o.pos), len(o.tex), texture)
		if err != nil {
			return o.errorf(line, "%v", err)
		}
		corners[k] = c
	}
	if len(o.tris)+len(corners)-2 > geom.MaxTriangles {
		return o.errorf(line, "more than %d triangles", geom.MaxTriangles)
	}
	for k := 1; k+1 < len(corners); k++ {
		o.tris = append(o.tris, [3]objCorner{corners[0], corners[k], corners[k+1]})
		o.triLn = append(o.triLn, line)
	}
	return nil
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
// positions and nt texture coordinates read so far; without texture it
// reads i and ignores the rest from the first '/'.
func parseCorner(s string, nv, nt int, texture bool) (objCorner, error) {
	if !texture {
		if i := strings.IndexByte(s, '/'); i >= 0 {
			s = s[:i]
		}
	}
	parts := strings.Split(s, "/")
	if len(parts) > 3 {
		return objCorner{}, fmt.Errorf("too many '/' in corner %q", s)
	}
	if parts[0] == "" {
		return objCorner{}, fmt.Errorf("missing vertex index in corner %q", s)
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

// compactOBJ numbers the vertices that tris use densely, in order of first
// use, and returns tris over those numbers and, for each, its index in
// the file's v list.
func compactOBJ(tris [][3]objCorner, nv int) (ct [][3]int32, used []int) {
	slot := make([]int32, nv)
	for i := range slot {
		slot[i] = -1
	}
	ct = make([][3]int32, len(tris))
	for f, t := range tris {
		for k, c := range t {
			if slot[c.v] < 0 {
				slot[c.v] = int32(len(used))
				used = append(used, c.v)
			}
			ct[f][k] = slot[c.v]
		}
	}
	return ct, used
}

// OBJSoup is the triangles of an OBJ file as they are, without the
// structure a cloth needs: neither manifold nor consistently oriented.
type OBJSoup struct {
	Pos  []geom.Vec3 // the vertices faces use, in order of first use, m
	Line []int       // Line[i]: the line of Pos[i]'s v statement
	Tris [][3]int32  // 3 indices per face into Pos, corners in file order
}

// ReadOBJSoup reads the v and f statements of a Wavefront OBJ file as a
// triangle soup, for an obstacle such as the bunny: a closed surface,
// which ReadOBJ refuses because it builds cloth (a consistently oriented
// manifold with material coordinates). The syntax is ReadOBJ's, with
// texture coordinates skipped: vt statements are not read, and a corner
// is read up to its first '/'. Polygons are fan-triangulated (c0, ck,
// ck+1); a triangle that uses a vertex twice has no area and is dropped,
// as are vertices no face uses. maxBytes, when not 0, caps the file's
// length. Errors are *OBJError, "name:LINE: message".
func ReadOBJSoup(r io.Reader, name string, maxBytes int64) (*OBJSoup, error) {
	o, err := parseOBJ(r, name, objSyntax{maxBytes: maxBytes})
	if err != nil {
		return nil, err
	}
	tris := o.tris[:0]
	for _, t := range o.tris {
		if t[0].v != t[1].v && t[1].v != t[2].v && t[2].v != t[0].v {
			tris = append(tris, t)
		}
	}
	if len(tris) == 0 {
		return nil, o.errorf(0, "no faces with three distinct vertices")
	}
	ct, used := compactOBJ(tris, len(o.pos))
	s := &OBJSoup{Pos: make([]geom.Vec3, len(used)), Line: make([]int, len(used)), Tris: ct}
	for i, v := range used {
		s.Pos[i], s.Line[i] = o.pos[v], o.posLn[v]
	}
	return s, nil
}
