package meshio

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"drape/sim/geom"
)

// bentSheet returns an nx×ny grid bent into a cylinder of radius r, so
// the mean curvature of interior vertices is about 1/(2r).
func bentSheet(t testing.TB, nx, ny int, r float64) *geom.Mesh {
	t.Helper()
	var pos []geom.Vec3
	var rest []geom.Vec2
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			u, v := float64(i)/float64(nx), float64(j)/float64(ny)
			a := u / r
			pos = append(pos, geom.Vec3{r * math.Sin(a), v, r * (1 - math.Cos(a))})
			rest = append(rest, geom.Vec2{u, v})
		}
	}
	var tris [][3]int32
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			a := int32(j*(nx+1) + i)
			b, c, d := a+1, a+int32(nx+1), a+int32(nx+2)
			tris = append(tris, [3]int32{a, b, d}, [3]int32{a, d, c})
		}
	}
	m, err := geom.NewMesh(pos, rest, tris)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPLYRoundTrip writes the same mesh as PLY and OBJ, reads the OBJ
// back with ReadOBJ and the PLY with ReadPLY, and checks that positions
// (to float32) and connectivity agree, that curvature is the mesh's raw
// H, curvature_display its display H, and the colours color(H_display).
func TestPLYRoundTrip(t *testing.T) {
	m := bentSheet(t, 8, 6, 0.5)
	var ply, obj bytes.Buffer
	red := func(h float64) [3]uint8 { return [3]uint8{uint8(min(255, 100*math.Abs(h))), 0, 7} }
	if err := WritePLY(&ply, m, nil, nil, red); err != nil {
		t.Fatal(err)
	}
	if err := WriteOBJ(&obj, m); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPLY(&ply, "round-trip.ply")
	if err != nil {
		t.Fatal(err)
	}
	o, err := ReadOBJ(&obj, "round-trip.obj")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Pos) != o.NumVerts() || len(p.Tris) != o.NumTris() {
		t.Fatalf("sizes: got PLY %d verts %d faces, OBJ %d, %d", len(p.Pos), len(p.Tris), o.NumVerts(), o.NumTris())
	}
	// ReadOBJ (through NewMesh) may renumber vertices and faces, so match
	// vertices by position and faces as sets of rotated index triples.
	f32 := func(v geom.Vec3) geom.Vec3 {
		return geom.Vec3{float64(float32(v.X)), float64(float32(v.Y)), float64(float32(v.Z))}
	}
	plyOf := map[geom.Vec3]int32{}
	for i, q := range p.Pos {
		plyOf[q] = int32(i)
	}
	objToPLY := make([]int32, len(o.Pos))
	for i, w := range o.Pos {
		k, ok := plyOf[f32(w)]
		if !ok {
			t.Fatalf("OBJ vertex %d at %v: no PLY vertex at that position", i, w)
		}
		objToPLY[i] = k
	}
	canon := func(t [3]int32) [3]int32 { // rotate the smallest index first, keeping orientation
		for t[0] > t[1] || t[0] > t[2] {
			t = [3]int32{t[1], t[2], t[0]}
		}
		return t
	}
	faces := map[[3]int32]bool{}
	for _, tri := range p.Tris {
		faces[canon(tri)] = true
	}
	for f, tri := range o.Tris {
		if !o.FaceAlive(f) {
			continue
		}
		c := canon([3]int32{objToPLY[tri[0]], objToPLY[tri[1]], objToPLY[tri[2]]})
		if !faces[c] {
			t.Errorf("OBJ face %d %v: got no PLY face %v", f, tri, c)
		}
	}
	h := make([]float64, len(m.Pos))
	geom.MeanCurvature(m, h)
	hd := make([]float64, len(m.Pos))
	geom.DisplayCurvature(m, h, 0, hd)
	curv, disp := p.Props["curvature"], p.Props["curvature_display"]
	if len(curv) != len(p.Pos) || len(disp) != len(p.Pos) {
		t.Fatalf("curvature properties: got %d and %d values, want %d", len(curv), len(disp), len(p.Pos))
	}
	for i := range p.Pos {
		if got, want := curv[i], float64(float32(h[i])); got != want {
			t.Errorf("curvature %d: got=%v, want=%v", i, got, want)
		}
		if got, want := disp[i], float64(float32(hd[i])); got != want {
			t.Errorf("curvature_display %d: got=%v, want=%v", i, got, want)
		}
		rgb := [3]uint8{uint8(p.Props["red"][i]), uint8(p.Props["green"][i]), uint8(p.Props["blue"][i])}
		if want := red(hd[i]); rgb != want {
			t.Errorf("colour %d: got=%v, want=%v (of H_display)", i, rgb, want)
		}
	}
	// An interior vertex of the cylinder: |H| ≈ 1/(2r) = 1, raw and displayed.
	for _, c := range []struct {
		name string
		v    []float64
	}{{"curvature", curv}, {"curvature_display", disp}} {
		if got := math.Abs(c.v[3*9+4]); math.Abs(got-1) > 0.1 {
			t.Errorf("interior |%s|: got=%v, want≈1", c.name, got)
		}
	}
}

// TestWritePLYGivenFields checks that WritePLY writes the curvature fields
// it is given rather than its own.
func TestWritePLYGivenFields(t *testing.T) {
	m := bentSheet(t, 4, 3, 0.5)
	h, hd := make([]float64, len(m.Pos)), make([]float64, len(m.Pos))
	for i := range h {
		h[i], hd[i] = float64(i), -float64(i)/4
	}
	var buf bytes.Buffer
	if err := WritePLY(&buf, m, h, hd, func(x float64) [3]uint8 { return [3]uint8{uint8(-4 * x), 0, 0} }); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPLY(&buf, "given.ply")
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Pos { // bentSheet has no dead slots: dense index = slot
		if got, want := [3]float64{p.Props["curvature"][i], p.Props["curvature_display"][i], p.Props["red"][i]}, [3]float64{h[i], hd[i], float64(i)}; got != want {
			t.Errorf("vertex %d: curvature, curvature_display, red got=%v, want=%v", i, got, want)
		}
	}
}

// plyHeader is a header of the older layout, without curvature_display,
// for three vertices and one face.
const plyHeader = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n" +
	"property uchar red\nproperty uchar green\nproperty uchar blue\nproperty float curvature\n" +
	"element face 1\nproperty list uchar int vertex_indices\nend_header\n"

func TestReadPLY(t *testing.T) {
	const verts = "0 0 0 1 2 3 0.5\n1 0 0 4 5 6 0.25\n0 1 0 7 8 9 0\n"
	p, err := ReadPLY(strings.NewReader(plyHeader+verts+"3 0 1 2\n"), "old.ply")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Pos) != 3 || p.Pos[1] != (geom.Vec3{1, 0, 0}) || p.Tris[0] != [3]int32{0, 1, 2} ||
		p.Props["green"][2] != 8 || p.Props["curvature"][0] != 0.5 || p.Props["curvature_display"] != nil {
		t.Errorf("old layout: got %+v", p)
	}
	for _, c := range []struct {
		name, text, want string
	}{
		{"empty", "", "line 0: not a PLY file"},
		{"binary", "ply\nformat binary_little_endian 1.0\n", "line 2: format"},
		{"no end", "ply\nformat ascii 1.0\nelement vertex 0\n", "no end_header"},
		{"no format", "ply\nelement vertex 0\nelement face 0\nend_header\n", "without a format line"},
		{"twice", "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float x\n", "line 5: vertex property \"x\" twice"},
		{"no xyz", "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n", "lack x, y or z"},
		{"faces first", "ply\nformat ascii 1.0\nelement face 0\n", "line 3: element \"face\""},
		{"short vertex", plyHeader + "0 0 0 1 2 3\n", "line 14: vertex 0: 6 values, want 7"},
		{"bad number", plyHeader + "0 0 zero 1 2 3 0\n", "line 14: vertex 0"},
		{"missing vertex", plyHeader + "0 0 0 1 2 3 0\n", "vertex 1 of 3 missing"},
		{"quad", plyHeader + verts + "4 0 1 2 0\n", "line 17: face 0: \"4 0 1 2 0\" is not a triangle"},
		{"index", plyHeader + verts + "3 0 1 3\n", "vertex index \"3\" out of range [0,3)"},
		{"missing face", plyHeader + verts, "face 0 of 1 missing"},
	} {
		_, err := ReadPLY(strings.NewReader(c.text), "bad.ply")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error got=%v, want one containing %q", c.name, err, c.want)
		}
	}
}

// FuzzReadPLY feeds ReadPLY arbitrary text: it must not panic, and a mesh
// it accepts has one value of each property per vertex and face indices
// in range.
func FuzzReadPLY(f *testing.F) {
	f.Add(plyHeader + "0 0 0 1 2 3 0.5\n1 0 0 4 5 6 0.25\n0 1 0 7 8 9 0\n3 0 1 2\n")
	var buf bytes.Buffer
	if err := WritePLY(&buf, bentSheet(f, 2, 2, 0.5), nil, nil, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ReadPLY(strings.NewReader(text), "fuzz.ply")
		if err != nil {
			return
		}
		for name, v := range p.Props {
			if len(v) != len(p.Pos) {
				t.Fatalf("property %s: got %d values, want %d", name, len(v), len(p.Pos))
			}
		}
		for i, tri := range p.Tris {
			for _, v := range tri {
				if v < 0 || int(v) >= len(p.Pos) {
					t.Fatalf("face %d: index %d out of range [0,%d)", i, v, len(p.Pos))
				}
			}
		}
	})
}
