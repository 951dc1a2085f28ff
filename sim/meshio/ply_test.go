package meshio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"drape/sim/geom"
)

// plyMesh is what readPLY returns: positions, curvature, colours and
// faces of an ASCII PLY file written by WritePLY.
type plyMesh struct {
	pos  []geom.Vec3 // as float32 values
	curv []float64
	rgb  [][3]uint8
	tris [][3]int32
}

// readPLY reads the ASCII PLY dialect WritePLY writes. It checks the
// header names the properties in WritePLY's order.
func readPLY(r io.Reader) (*plyMesh, error) {
	sc := bufio.NewScanner(r)
	var nv, nf int
	var props []string
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "end_header":
			goto body
		case f[0] == "element" && len(f) == 3 && f[1] == "vertex":
			nv, _ = strconv.Atoi(f[2])
		case f[0] == "element" && len(f) == 3 && f[1] == "face":
			nf, _ = strconv.Atoi(f[2])
		case f[0] == "property":
			props = append(props, f[len(f)-1])
		}
	}
	return nil, fmt.Errorf("no end_header")
body:
	want := "x y z nx ny nz red green blue curvature vertex_indices"
	if got := strings.Join(props, " "); got != want {
		return nil, fmt.Errorf("properties got=%q, want=%q", got, want)
	}
	m := &plyMesh{}
	for i := 0; i < nv; i++ {
		if !sc.Scan() {
			return nil, fmt.Errorf("vertex %d: missing", i)
		}
		f := strings.Fields(sc.Text())
		if len(f) != 10 {
			return nil, fmt.Errorf("vertex %d: %d fields, want 10", i, len(f))
		}
		var v [10]float64
		for k := range f {
			x, err := strconv.ParseFloat(f[k], 32)
			if err != nil {
				return nil, fmt.Errorf("vertex %d: %w", i, err)
			}
			v[k] = x
		}
		m.pos = append(m.pos, geom.Vec3{v[0], v[1], v[2]})
		m.rgb = append(m.rgb, [3]uint8{uint8(v[6]), uint8(v[7]), uint8(v[8])})
		m.curv = append(m.curv, v[9])
	}
	for i := 0; i < nf; i++ {
		if !sc.Scan() {
			return nil, fmt.Errorf("face %d: missing", i)
		}
		var n int
		var t [3]int32
		if _, err := fmt.Sscan(sc.Text(), &n, &t[0], &t[1], &t[2]); err != nil || n != 3 {
			return nil, fmt.Errorf("face %d: %q", i, sc.Text())
		}
		m.tris = append(m.tris, t)
	}
	return m, sc.Err()
}

// bentSheet returns an nx×ny grid bent into a cylinder of radius r, so
// the mean curvature of interior vertices is about 1/(2r).
func bentSheet(t *testing.T, nx, ny int, r float64) *geom.Mesh {
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
// back with ReadOBJ and the PLY with readPLY, and checks that positions
// (to float32) and connectivity agree and the curvature is the mesh's.
func TestPLYRoundTrip(t *testing.T) {
	m := bentSheet(t, 8, 6, 0.5)
	var ply, obj bytes.Buffer
	red := func(h float64) [3]uint8 { return [3]uint8{uint8(min(255, 100*math.Abs(h))), 0, 7} }
	if err := WritePLY(&ply, m, red); err != nil {
		t.Fatal(err)
	}
	if err := WriteOBJ(&obj, m); err != nil {
		t.Fatal(err)
	}
	p, err := readPLY(&ply)
	if err != nil {
		t.Fatal(err)
	}
	o, err := ReadOBJ(&obj, "round-trip.obj")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.pos) != o.NumVerts() || len(p.tris) != o.NumTris() {
		t.Fatalf("sizes: got PLY %d verts %d faces, OBJ %d, %d", len(p.pos), len(p.tris), o.NumVerts(), o.NumTris())
	}
	// ReadOBJ (through NewMesh) may renumber vertices and faces, so match
	// vertices by position and faces as sets of rotated index triples.
	f32 := func(v geom.Vec3) geom.Vec3 {
		return geom.Vec3{float64(float32(v.X)), float64(float32(v.Y)), float64(float32(v.Z))}
	}
	plyOf := map[geom.Vec3]int32{}
	for i, q := range p.pos {
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
	for _, tri := range p.tris {
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
	for i := range p.curv {
		if got, want := p.curv[i], float64(float32(h[i])); got != want {
			t.Errorf("curvature %d: got=%v, want=%v", i, got, want)
		}
		if got, want := p.rgb[i], red(h[i]); got != want {
			t.Errorf("colour %d: got=%v, want=%v", i, got, want)
		}
	}
	// An interior vertex of the cylinder: |H| ≈ 1/(2r) = 1.
	if c := math.Abs(p.curv[3*9+4]); math.Abs(c-1) > 0.1 {
		t.Errorf("interior |H|: got=%v, want≈1", c)
	}
}
