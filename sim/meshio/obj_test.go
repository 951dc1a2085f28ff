package meshio

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"drape/sim/geom"
)

func TestReadOBJ(t *testing.T) {
	for _, c := range []struct {
		name, src    string
		verts, faces int
		restArea     float64 // m²
	}{
		{"triangle", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 3, 1, 0.5},
		{"quad fan", "v 0 0 0\nv 2 0 0\nv 2 3 0\nv 0 3 0\nf 1 2 3 4\n", 4, 2, 6},
		{"pentagon fan", "v 0 0 0\nv 2 0 0\nv 3 1 0\nv 1 2 0\nv -1 1 0\nf 1 2 3 4 5\n", 5, 3, 5},
		{"negative indices", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n", 3, 1, 0.5},
		{"i//n", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\n", 3, 1, 0.5},
		{"i/t/n scaled", "v 0 0 0\nv 4 0 0\nv 0 4 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1\n", 3, 1, 8},
		{"i/t relative", "v 0 0 0\nv 4 0 0\nv 0 4 0\nvt 0 0\nvt 1 0\nvt 0 1\nf -3/-3 -2/-2 -1/-1\n", 3, 1, 8},
		{"clockwise vt mirrored", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 0 1\nvt 1 0\nf 1/1 2/2 3/3\n", 3, 1, 0.5},
		{"clockwise plane mirrored", "v 0 0 0\nv 0 1 0\nv 1 0 0\nf 1 2 3\n", 3, 1, 0.5},
		{"comments and junk statements", "# hi\nmtllib x.mtl\no a\ng b\ns 1\nusemtl m\nv 0 0 0 # c\nv 1 0 0\nv 0 1 0\nf 1 2 3 # end\n", 3, 1, 0.5},
		{"unused vertex dropped", "v 0 0 0\nv 9 9 9\nv 1 0 0\nv 0 1 0\nf 1 3 4\n", 3, 1, 0.5},
		{"tilted plane", "v 0 0 0\nv 1 1 0\nv 0 0 1\nv 1 1 1\nf 1 2 4 3\n", 4, 2, math.Sqrt2},
		{"shared vt by value", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nvt 1 0\nf 1/1 2/2 4/4\nf 1/1 4/4 3/3\nf 2/5 4/4 1/1\n", 0, 0, 0},
	} {
		m, err := ReadOBJ(strings.NewReader(c.src), c.name+".obj")
		if c.name == "shared vt by value" {
			// Three faces on one edge: a non-manifold mesh, but the
			// repeated vt value must not be reported as a seam.
			if err == nil || strings.Contains(err.Error(), "seam") {
				t.Errorf("%s: got err=%v, want a non-seam error", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := m.NumVerts(); got != c.verts {
			t.Errorf("%s: vertices got=%v, want=%v", c.name, got, c.verts)
		}
		if got := m.NumTris(); got != c.faces {
			t.Errorf("%s: faces got=%v, want=%v", c.name, got, c.faces)
		}
		total, least := m.RestAreas()
		if math.Abs(total-c.restArea) > 1e-12*c.restArea {
			t.Errorf("%s: material area got=%v, want=%v", c.name, total, c.restArea)
		}
		if !(least > 0) {
			t.Errorf("%s: smallest signed material area got=%v, want > 0", c.name, least)
		}
	}
}

func TestReadOBJErrors(t *testing.T) {
	const tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
	for _, c := range []struct {
		name, src string
		line      int    // want in the message as "name:LINE:", 0 for none
		want      string // substring of the message
	}{
		{"empty", "", 0, "empty"},
		{"no faces", tri, 0, "no faces"},
		{"malformed number", "v 0 0 0\nv 1 x 0\n", 2, "malformed number"},
		{"NaN coordinate", "v 0 0 NaN\n", 1, "not finite"},
		{"Inf coordinate", "v 0 0 1e999\n", 1, "malformed number"},
		{"too few coordinates", "v 0 0\n", 1, "3 coordinates"},
		{"vt too short", "vt 0\n", 1, "u and v"},
		{"missing index", tri + "f 1 / 3\n", 4, "missing vertex index"},
		{"malformed index", tri + "f 1 2 three\n", 4, "malformed vertex index"},
		{"zero index", tri + "f 0 1 2\n", 4, "index 0"},
		{"out of range", tri + "f 1 2 4\n", 4, "out of range"},
		{"negative out of range", tri + "f 1 2 -4\n", 4, "out of range"},
		{"vt out of range", tri + "vt 0 0\nf 1/1 2/2 3/1\n", 5, "texture coordinate index 2 out of range"},
		{"too many slashes", tri + "f 1/1/1/1 2 3\n", 4, "too many"},
		{"too few vertices", tri + "f 1 2\n", 4, "at least 3"},
		{"repeated vertex", tri + "\n\nf 1 2 2\n", 6, "repeats a vertex"},
		{"degenerate", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", 4, "degenerate"},
		{"degenerate vt", tri + "vt 0 0\nvt 1 0\nvt 2 0\nf 1/1 2/2 3/3\n", 7, "zero area in texture space"},
		{"folded vt", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 2 0 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nvt 0 0.5\nf 1/1 2/2 3/3\nf 2/2 4/4 3/3\nf 2/2 5/5 4/4\n", 13, "folds over"},
		{"fold in plane", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0.2 0.2 0.001\nf 1 2 3\nf 2 4 3\nf 2 5 4\n", 8, "not flat enough"},
		{"non-manifold edge", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0.5 0.5 1\nf 1 2 3\nf 2 4 3\nf 1 2 5\n", 8, "edge"},
		{"seam", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nvt 2 0\nf 1/1 2/2 3/3\nf 2/5 4/4 3/3\n", 11, "vertex 2 has more than one texture coordinate (seam)"},
		{"binary junk", "\x00\x01\x02 v v v\nf f f f\n", 2, "malformed vertex index"},
	} {
		m, err := ReadOBJ(strings.NewReader(c.src), "t.obj")
		if err == nil || m != nil {
			t.Errorf("%s: got err=%v, want an error", c.name, err)
			continue
		}
		var oe *OBJError
		if !errors.As(err, &oe) {
			t.Errorf("%s: got %T (%v), want *OBJError", c.name, err, err)
			continue
		}
		if oe.Line != c.line {
			t.Errorf("%s: line got=%v, want=%v (%v)", c.name, oe.Line, c.line, err)
		}
		prefix := "t.obj:"
		if c.line > 0 {
			prefix = "t.obj:" + strconv.Itoa(c.line) + ":"
		}
		if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, c.want) {
			t.Errorf("%s: message got=%q, want prefix %q and %q", c.name, msg, prefix, c.want)
		}
	}
}

func TestOBJFixtures(t *testing.T) {
	for _, c := range []struct {
		file  string
		faces int    // when loading succeeds
		err   string // when it must fail: "file:line: …" substring
	}{
		{"quad_vt.obj", 2, ""},
		{"seam.obj", 0, "seam.obj:12: vertex 2 has more than one texture coordinate (seam); split the mesh"},
		{"nonmanifold.obj", 0, "nonmanifold.obj:9: "},
		{"missing.obj", 0, "no such file"},
	} {
		m, err := LoadOBJ(filepath.Join("testdata", c.file))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got err=%v, want %q", c.file, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if got := m.NumTris(); got != c.faces {
			t.Errorf("%s: faces got=%v, want=%v", c.file, got, c.faces)
		}
		// quad_vt.obj: 2 m × 1 m, vt scaled to the world area and
		// keeping the u:v aspect of the layout (a unit square) → √2 × √2.
		lo, hi := objRestBounds(m)
		if got, want := hi.Sub(lo), (geom.Vec2{math.Sqrt2, math.Sqrt2}); math.Abs(got.X-want.X) > 1e-12 || math.Abs(got.Y-want.Y) > 1e-12 {
			t.Errorf("%s: material extent got=%v, want=%v", c.file, got, want)
		}
	}
}

func objRestBounds(m *geom.Mesh) (lo, hi geom.Vec2) {
	lo, hi = geom.Vec2{math.Inf(1), math.Inf(1)}, geom.Vec2{math.Inf(-1), math.Inf(-1)}
	for i, r := range m.Rest {
		if m.VertAlive[i] {
			lo = geom.Vec2{math.Min(lo.X, r.X), math.Min(lo.Y, r.Y)}
			hi = geom.Vec2{math.Max(hi.X, r.X), math.Max(hi.Y, r.Y)}
		}
	}
	return lo, hi
}

// sharedMeshes is the project's directory of reference meshes.
const sharedMeshes = "../../../shared/testdata/meshes"

func TestOBJSharedMeshes(t *testing.T) {
	if _, err := os.Stat(sharedMeshes); err != nil {
		t.Skipf("reference meshes not available: %v", err)
	}
	plane, err := LoadOBJ(filepath.Join(sharedMeshes, "plane_50x50.obj"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [2]int{plane.NumVerts(), plane.NumTris()}, [2]int{2601, 5000}; got != want {
		t.Errorf("plane_50x50: verts, faces got=%v, want=%v", got, want)
	}
	if got, _ := plane.RestAreas(); math.Abs(got-1) > 1e-9 {
		t.Errorf("plane_50x50: material area got=%v, want=1", got)
	}

	// sphere.obj has vt with seams (439 vt for 382 positions).
	_, err = LoadOBJ(filepath.Join(sharedMeshes, "sphere.obj"))
	if err == nil || !strings.Contains(err.Error(), "seam") {
		t.Errorf("sphere.obj: got err=%v, want a seam error", err)
	}
	// Without vt the sphere must fail the planar parameterisation.
	data, err := os.ReadFile(filepath.Join(sharedMeshes, "sphere.obj"))
	if err != nil {
		t.Fatal(err)
	}
	var noVT []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "vt ") {
			continue
		}
		if strings.HasPrefix(l, "f ") {
			fs := strings.Fields(l)
			for k := 1; k < len(fs); k++ {
				fs[k] = strings.SplitN(fs[k], "/", 2)[0]
			}
			l = strings.Join(fs, " ")
		}
		noVT = append(noVT, l)
	}
	_, err = ReadOBJ(strings.NewReader(strings.Join(noVT, "\n")), "sphere-novt.obj")
	if err == nil || !strings.Contains(err.Error(), "not flat enough for a planar parameterisation") || !strings.HasPrefix(err.Error(), "sphere-novt.obj:") {
		t.Errorf("sphere without vt: got err=%v, want the planar-parameterisation error", err)
	}
}

func TestOBJRoundTrip(t *testing.T) {
	m, err := geom.IrregularGrid(1.3, 0.7, 200, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Pos { // a non-flat, stretched world shape with awkward numbers
		r := m.Rest[i]
		m.Pos[i] = geom.Vec3{1.1 * r.X, math.Sin(3 * r.X), r.Y/3 + 1e-7*math.Pi}
	}
	var buf bytes.Buffer
	if err := WriteOBJ(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadOBJ(&buf, "roundtrip.obj")
	if err != nil {
		t.Fatal(err)
	}
	if got.NumVerts() != m.NumVerts() || got.NumTris() != m.NumTris() {
		t.Fatalf("counts got=%d/%d, want=%d/%d", got.NumVerts(), got.NumTris(), m.NumVerts(), m.NumTris())
	}
	// ReadOBJ numbers vertices by first use; map them back through the faces.
	for f := range m.Tris {
		for k := 0; k < 3; k++ {
			a, b := m.Tris[f][k], got.Tris[f][k]
			if m.Pos[a] != got.Pos[b] || m.Rest[a] != got.Rest[b] {
				t.Fatalf("face %d corner %d: got pos=%v rest=%v, want pos=%v rest=%v", f, k, got.Pos[b], got.Rest[b], m.Pos[a], m.Rest[a])
			}
		}
	}
}

func TestWriteOBJSkipsFreeSlots(t *testing.T) {
	m, err := geom.RegularGrid(2, 1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Quad 1 is (1,2,4) and (2,5,4) after the checkerboard: drop the face
	// (2,5,4) and vertex 5, leaving a valid 3-face mesh.
	for f, tr := range m.Tris {
		if tr == [3]int32{2, 5, 4} {
			m.RemoveFace(int32(f))
		}
	}
	m.RemoveVertex(5)
	var buf bytes.Buffer
	if err := WriteOBJ(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadOBJ(&buf, "compact.obj")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if got.NumVerts() != 5 || got.NumTris() != 3 {
		t.Errorf("counts got=%d/%d, want=5/3", got.NumVerts(), got.NumTris())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteOBJError(t *testing.T) {
	m, _ := geom.RegularGrid(1, 1, 40, 40)
	if err := WriteOBJ(failWriter{}, m); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("got err=%v, want the writer's error", err)
	}
}

// TestReadOBJSoup: the soup reader takes a closed, cloth-unfit surface,
// skips texture coordinates whatever they hold, drops faces that repeat a
// vertex and the vertices no face uses, numbers vertices in order of
// first use with the line of each, and reports errors at their line.
func TestReadOBJSoup(t *testing.T) {
	// A tetrahedron (closed: no cloth) with an unused vertex, a bad vt, a
	// vt index out of range, a degenerate face and a quad.
	src := "v 9 9 9\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt x\n" +
		"f 2/7 4 3\nf 2 3 5\nf -4 -2 -2\nf 3 4 5 5\nf 2 5 4\n"
	s, err := ReadOBJSoup(strings.NewReader(src), "tet.obj", 0)
	if err != nil {
		t.Fatal(err)
	}
	wantTris := [][3]int32{{0, 1, 2}, {0, 2, 3}, {2, 1, 3}, {0, 3, 1}}
	wantLine := []int{2, 4, 3, 5}
	if fmt.Sprint(s.Tris) != fmt.Sprint(wantTris) || fmt.Sprint(s.Line) != fmt.Sprint(wantLine) || s.Pos[3] != (geom.Vec3{Z: 1}) {
		t.Errorf("got pos=%v line=%v tris=%v, want line=%v tris=%v", s.Pos, s.Line, s.Tris, wantLine, wantTris)
	}
	// What only the soup reader reports; the syntax errors are ReadOBJ's
	// (TestReadOBJErrors).
	_, err = ReadOBJSoup(strings.NewReader("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 1 2\n"), "soup.obj", 0)
	if err == nil || err.Error() != "soup.obj: no faces with three distinct vertices" {
		t.Errorf("degenerate faces only: got=%v", err)
	}
	_, err = ReadOBJSoup(strings.NewReader(src), "big.obj", 32)
	var oe *OBJError
	if !errors.As(err, &oe) || oe.Line != 5 || !strings.Contains(err.Error(), "file larger than") {
		t.Errorf("over maxBytes: got=%v, want a size error at line 5", err)
	}
}

func FuzzReadOBJ(f *testing.F) {
	f.Add("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
	f.Add("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 2/2 3/3 4/4\n")
	f.Add("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3//1 -2//1 -1//1\n")
	f.Add("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 1\nf 1 2 3\nf 2 4 3\n")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ReadOBJ(strings.NewReader(src), "fuzz.obj")
		if err != nil {
			if m != nil {
				t.Fatalf("mesh and error both returned")
			}
			if !strings.HasPrefix(err.Error(), "fuzz.obj:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if m.NumTris() == 0 || m.NumVerts() < 3 {
			t.Fatalf("empty mesh: %d faces, %d vertices", m.NumTris(), m.NumVerts())
		}
		for f, tr := range m.Tris {
			a := geom.RestArea(m.Rest[tr[0]], m.Rest[tr[1]], m.Rest[tr[2]])
			if !(a > 0) {
				t.Fatalf("face %d has material area %v", f, a)
			}
			for k := 0; k < 3; k++ {
				if g := m.Adj[f][k]; g >= 0 {
					back := false
					for j := 0; j < 3; j++ {
						back = back || m.Adj[g][j] == int32(f)
					}
					if !back {
						t.Fatalf("adjacency not symmetric at face %d edge %d", f, k)
					}
				}
			}
		}
		for i, p := range m.Pos {
			if !p.IsFinite() || math.IsNaN(m.Rest[i].X+m.Rest[i].Y) || math.IsInf(m.Rest[i].X+m.Rest[i].Y, 0) {
				t.Fatalf("vertex %d not finite", i)
			}
		}
	})
}

// FuzzReadOBJSoup: the soup reader never panics, names the file in its
// errors, and returns faces of three distinct vertices that all exist and
// are all used.
func FuzzReadOBJSoup(f *testing.F) {
	f.Add("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
	f.Add("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt q\nf 1/9 2 3 4\nf -1 -2 -2\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ReadOBJSoup(strings.NewReader(src), "fuzz.obj", 1<<16)
		if err != nil {
			if s != nil || !strings.HasPrefix(err.Error(), "fuzz.obj:") {
				t.Fatalf("got soup %v and error %q", s, err)
			}
			return
		}
		used := make([]bool, len(s.Pos))
		for _, tr := range s.Tris {
			for k, v := range tr {
				if v < 0 || int(v) >= len(s.Pos) || v == tr[(k+1)%3] {
					t.Fatalf("bad face %v over %d vertices", tr, len(s.Pos))
				}
				used[v] = true
			}
		}
		for i, u := range used {
			if !u || !s.Pos[i].IsFinite() || s.Line[i] < 1 {
				t.Fatalf("vertex %d: used %v, at %v, line %d", i, u, s.Pos[i], s.Line[i])
			}
		}
	})
}

func ExampleReadOBJ() {
	src := `# a 2 m × 1 m quad with texture coordinates in [0,1]
v 0 0 0
v 2 0 0
v 2 1 0
v 0 1 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
f 1/1 2/2 3/3 4/4
`
	m, err := ReadOBJ(strings.NewReader(src), "quad.obj")
	if err != nil {
		fmt.Println(err)
		return
	}
	// vt are scaled uniformly so that the material area equals the world area.
	fmt.Printf("%d faces, material corner %.4f\n", m.NumTris(), m.Rest[2])
	_, err = ReadOBJ(strings.NewReader("v 0 0 0\nv 1 0 0\nf 1 2 3\n"), "bad.obj")
	fmt.Println(err)
	// Output:
	// 2 faces, material corner {1.4142 1.4142}
	// bad.obj:3: vertex index 3 out of range (2 defined so far)
}
