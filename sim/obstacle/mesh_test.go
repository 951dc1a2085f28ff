package obstacle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"drape/sim/geom"
)

// sharedMeshes is the project's directory of reference meshes.
const sharedMeshes = "../../../shared/testdata/meshes"

func bunny(t testing.TB) *Obstacle {
	t.Helper()
	if _, err := os.Stat(filepath.Join(sharedMeshes, "bunny_10k.obj")); err != nil {
		t.Skipf("reference meshes not available: %v", err)
	}
	return mustBuild(t, Spec{Name: "bunny", Kind: "mesh", File: filepath.Join(sharedMeshes, "bunny_10k.obj")})
}

// rayParityInside is the test's own inside test: the parity of the number
// of triangles a ray from p crosses (Möller–Trumbore), taken as the
// majority over three unrelated directions so that a ray grazing an edge
// cannot decide alone.
func rayParityInside(p geom.Vec3, pos []geom.Vec3, tris [][3]int32) bool {
	dirs := []geom.Vec3{{X: 0.5377, Y: 0.8315, Z: 0.1397}, {X: -0.3211, Y: 0.1178, Z: 0.9397}, {X: 0.7071, Y: -0.6018, Z: -0.3714}}
	votes := 0
	for _, d := range dirs {
		n := 0
		for _, t := range tris {
			a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
			e1, e2 := b.Sub(a), c.Sub(a)
			h := d.Cross(e2)
			det := e1.Dot(h)
			if det == 0 {
				continue
			}
			s := p.Sub(a)
			u := s.Dot(h) / det
			q := s.Cross(e1)
			v := d.Dot(q) / det
			if u < 0 || v < 0 || u+v > 1 {
				continue
			}
			if e2.Dot(q)/det > 0 {
				n++
			}
		}
		votes += n % 2
	}
	return votes >= 2
}

func bruteDistance(p geom.Vec3, pos []geom.Vec3, tris [][3]int32) float64 {
	best := math.Inf(1)
	for _, t := range tris {
		best = math.Min(best, geom.PointTriangleDistance(p, pos[t[0]], pos[t[1]], pos[t[2]]))
	}
	return best
}

// TestMeshSignedDistanceBunny samples points in and around the bunny and
// checks SignedDistance against a brute-force distance over all triangles
// (so the grid search misses nothing) and its sign against the ray-parity
// test (points within 1e-4 of the surface are left out of the sign check).
func TestMeshSignedDistanceBunny(t *testing.T) {
	o := bunny(t)
	pos, tris := o.LocalVertices(), o.Tris()
	m, err := geom.NewSurfaceMesh(pos, tris)
	if err != nil {
		t.Fatalf("bunny is not a closed oriented manifold: %v", err)
	}
	if m.BoundaryEdges() != 0 {
		t.Fatalf("bunny has %d boundary edges", m.BoundaryEdges())
	}
	if vol, _ := volumeArea(pos, tris); !(vol > 0) {
		t.Fatalf("bunny volume %v: faces point inwards", vol)
	}
	lo, hi := o.Bounds(0)
	ext := hi.Sub(lo)
	r := rand.New(rand.NewPCG(7, 8))
	n := 600
	if testing.Short() {
		n = 150
	}
	inside := 0
	for i := 0; i < n; i++ {
		// Mostly inside the (enlarged) bounding box, some far away.
		s := 1.0
		if i%10 == 0 {
			s = 6
		}
		p := lo.Add(hi).Scale(0.5).Add(geom.Vec3{X: ext.X * s * (r.Float64() - 0.5), Y: ext.Y * s * (r.Float64() - 0.5), Z: ext.Z * s * (r.Float64() - 0.5)})
		d, nrm := o.SignedDistance(p, 0)
		want := bruteDistance(p, pos, tris)
		if math.Abs(math.Abs(d)-want) > 1e-12 {
			t.Fatalf("|d| at %v: got=%v, want=%v (brute force)", p, math.Abs(d), want)
		}
		if math.Abs(nrm.Norm()-1) > 1e-12 {
			t.Fatalf("|n| = %v", nrm.Norm())
		}
		if want < 1e-4 {
			continue
		}
		in := rayParityInside(p, pos, tris)
		if in != (d < 0) {
			t.Fatalf("point %v: d = %v but ray parity says inside=%v", p, d, in)
		}
		if in {
			inside++
		}
	}
	if inside < n/10 {
		t.Errorf("only %d of %d points inside: the test samples badly", inside, n)
	}
	t.Logf("%d of %d points inside", inside, n)
}

// TestMeshSignedDistanceNearSurface checks the sign just off the bunny's
// surface, where the closest feature is often an edge or a vertex (the
// pseudo-normal cases): points x ± ε·n̂ around face centroids, edge
// midpoints and vertices, with n̂ the face normal or the vertex normal,
// compared with ray parity (at a folded vertex x − ε·n̂ can be outside).
func TestMeshSignedDistanceNearSurface(t *testing.T) {
	o := bunny(t)
	pos, tris := o.LocalVertices(), o.Tris()
	nrm := o.Normals(0, nil)
	const eps = 1e-5
	bad := 0
	every := 47
	if testing.Short() {
		every = 211
	}
	for f, tr := range tris {
		if f%every != 0 {
			continue
		}
		a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
		fn := b.Sub(a).Cross(c.Sub(a)).Unit()
		for _, q := range []struct {
			x geom.Vec3
			n geom.Vec3
		}{{a.Add(b).Add(c).Scale(1.0 / 3), fn}, {a.Add(b).Scale(0.5), fn}, {a, nrm[tr[0]]}} {
			for _, p := range []geom.Vec3{q.x.Add(q.n.Scale(eps)), q.x.Sub(q.n.Scale(eps))} {
				d, _ := o.SignedDistance(p, 0)
				if in := rayParityInside(p, pos, tris); in != (d < 0) {
					bad++
					if bad < 5 {
						t.Errorf("face %d, point %v: d = %v, ray parity inside=%v", f, p, d, in)
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d wrong signs", bad)
	}
}

// TestMeshMatchesSphere writes the sphere's tessellation as an OBJ file,
// reads it back as a Mesh obstacle (scaled, placed and rotated) and
// compares its signed distance with the analytic sphere: they differ by at
// most the chord error, and both signs agree away from the surface.
func TestMeshMatchesSphere(t *testing.T) {
	ball := mustBuild(t, Spec{Kind: "sphere", Radius: 0.25})
	var sb strings.Builder
	for _, p := range ball.LocalVertices() {
		fmt.Fprintf(&sb, "v %.17g %.17g %.17g\n", p.X*2, p.Y*2, p.Z*2)
	}
	for _, tr := range ball.Tris() {
		fmt.Fprintf(&sb, "f %d/1/1 %d//2 %d\n", tr[0]+1, tr[1]+1, tr[2]-int32(len(ball.LocalVertices())))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ball.obj"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	half := 0.5
	pose := [3]float64{1, 2, 3}
	mesh, err := Spec{Kind: "mesh", File: "ball.obj", Scale: &half, Position: pose, Axis: &[3]float64{1, 1, 0}, Angle: 30}.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	sphere := mustBuild(t, Spec{Kind: "sphere", Radius: 0.25, Position: pose})
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 500; i++ {
		p := randVec(r).Scale(0.6).Add(vec3(pose))
		dm, nm := mesh.SignedDistance(p, 0)
		ds, ns := sphere.SignedDistance(p, 0)
		if math.Abs(dm-ds) > ChordTolerance {
			t.Fatalf("at %v: mesh d %v, sphere d %v", p, dm, ds)
		}
		if math.Abs(ds) > 0.01 && nm.Dot(ns) < 0.99 {
			t.Fatalf("at %v: mesh n %v, sphere n %v", p, nm, ns)
		}
	}
}

func TestOBJErrors(t *testing.T) {
	cases := []struct {
		obj   string
		scale float64
		want  string
	}{
		{"", 1, "x.obj: file is empty"},
		{"v 0 0 0\nv 1 0 0\nf 1 2\n", 1, "x.obj:3: f needs at least 3 corners"},
		{"v 0 0\n", 1, "x.obj:1: v needs 3 coordinates"},
		{"v 0 0 nan\n", 1, "x.obj:1: bad coordinate"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 1, "x.obj:4: vertex index 4 out of range"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", 1, `x.obj:4: malformed vertex index "x"`},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", 1, "vertex index 0 is invalid"},
		{"v 0 0 0\nv 1 0 0\nf 1 2 2\n", 1, "no faces"},
		{"v 0 0 0\nv 6e5 0 0\nv 0 1 0\nf 1 2 3\n", 2, "x.obj:2: bad coordinate"},
	}
	for _, c := range cases {
		_, _, err := readOBJ(strings.NewReader(c.obj), "x.obj", c.scale)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got=%v, want an error containing %q", c.obj, err, c.want)
		}
	}
	pos, tris, err := readOBJ(strings.NewReader("v 9 9 9\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf -4 -3 -2 -1\n"), "q.obj", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(pos) != 4 || len(tris) != 2 || pos[1] != (geom.Vec3{X: 2}) || tris[1] != [3]int32{0, 2, 3} {
		t.Errorf("quad: got pos=%v tris=%v", pos, tris)
	}
}

// BenchmarkSignedDistance measures one query against the bunny (grid
// search) and the analytic sphere, at points within 5 cm of the surface.
func BenchmarkSignedDistance(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, o := range []*Obstacle{bunny(b), mustBuild(b, Spec{Kind: "sphere", Radius: 0.5})} {
		verts, nrm := o.Vertices(0, nil), o.Normals(0, nil)
		pts := make([]geom.Vec3, 1024)
		for i := range pts {
			k := r.IntN(len(verts))
			pts[i] = verts[k].Add(nrm[k].Scale(0.1 * (r.Float64() - 0.5)))
		}
		b.Run(fmt.Sprintf("%s/tris=%d", o.Name(), len(o.Tris())), func(b *testing.B) {
			b.ReportAllocs()
			var sink float64
			for i := 0; i < b.N; i++ {
				d, _ := o.SignedDistance(pts[i%len(pts)], 0)
				sink += d
			}
			_ = sink
		})
	}
}

// TestMeshSignedDistanceSharp checks the sign near the sharp edges and
// vertices of a needle-like tetrahedron (dihedral angles down to about
// 11°), where the closest point is often on an edge or a vertex and the
// normal of one adjacent face would give the wrong sign: that is what the
// edge and vertex pseudo-normals are for. Inside is decided analytically
// (on the inner side of all four face planes).
func TestMeshSignedDistanceSharp(t *testing.T) {
	pts := []geom.Vec3{{X: 0, Y: 0, Z: 0}, {X: 1, Y: 0, Z: 0}, {X: 0.5, Y: 0.1, Z: 0}, {X: 0.5, Y: 0.03, Z: 0.1}}
	tris := [][3]int32{{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}}
	var sb strings.Builder
	for _, p := range pts {
		fmt.Fprintf(&sb, "v %v %v %v\n", p.X, p.Y, p.Z)
	}
	for _, tr := range tris {
		fmt.Fprintf(&sb, "f %d %d %d\n", tr[0]+1, tr[1]+1, tr[2]+1)
	}
	fsys := fstest.MapFS{"needle.obj": {Data: []byte(sb.String())}}
	o, err := Spec{Kind: "mesh", File: "needle.obj"}.BuildFS(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	pos := o.LocalVertices()
	if vol, _ := volumeArea(pos, o.Tris()); !(vol > 0) {
		t.Fatalf("needle volume %v", vol)
	}
	r := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for i := 0; i < 20000; i++ {
		// Near a random vertex or edge point.
		a, b := pos[r.IntN(4)], pos[r.IntN(4)]
		c := a.Add(b.Sub(a).Scale(r.Float64()))
		p := c.Add(randVec(r).Scale(0.02))
		inside := true
		for _, tr := range o.Tris() {
			x, y, z := pos[tr[0]], pos[tr[1]], pos[tr[2]]
			if y.Sub(x).Cross(z.Sub(x)).Dot(p.Sub(x)) >= 0 {
				inside = false
			}
		}
		d, _ := o.SignedDistance(p, 0)
		if math.Abs(math.Abs(d)-bruteDistance(p, pos, o.Tris())) > 1e-15 {
			t.Fatalf("|d| at %v: got=%v, want=%v", p, math.Abs(d), bruteDistance(p, pos, o.Tris()))
		}
		if math.Abs(d) < 1e-9 {
			continue
		}
		checked++
		if inside != (d < 0) {
			t.Fatalf("point %v: d = %v, inside=%v", p, d, inside)
		}
	}
	t.Logf("%d points checked", checked)
}
