package obstacle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

// Default sizes of the scenes of issue 12: the §7 sphere, a box to drape
// over, a capsule, a round table top and a pole.
var defaultShapes = []Spec{
	{Name: "sphere", Kind: "sphere", Radius: 0.5},
	{Name: "box", Kind: "box", Size: [3]float64{0.6, 0.4, 0.8}},
	{Name: "capsule", Kind: "capsule", Radius: 0.1, Height: 0.6},
	{Name: "ball-capsule", Kind: "capsule", Radius: 0.2},
	{Name: "table", Kind: "cylinder", Radius: 0.5, Height: 0.05},
	{Name: "pole", Kind: "cylinder", Radius: 0.03, Height: 1.5},
}

func mustBuild(t testing.TB, s Spec) *Obstacle {
	t.Helper()
	o, err := s.Build("")
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// volumeArea returns the signed volume Σ a·(b×c)/6 and the area of a
// closed triangle mesh.
func volumeArea(pos []geom.Vec3, tris [][3]int32) (vol, area float64) {
	for _, t := range tris {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		vol += a.Dot(b.Cross(c)) / 6
		area += geom.TriangleArea(a, b, c)
	}
	return vol, area
}

func exactVolumeArea(s Spec) (vol, area float64) {
	r, h := s.Radius, s.Height
	switch s.Kind {
	case "sphere":
		return 4 * math.Pi * r * r * r / 3, 4 * math.Pi * r * r
	case "box":
		a, b, c := s.Size[0], s.Size[1], s.Size[2]
		return a * b * c, 2 * (a*b + b*c + c*a)
	case "capsule":
		return math.Pi*r*r*h + 4*math.Pi*r*r*r/3, 2*math.Pi*r*h + 4*math.Pi*r*r
	case "cylinder":
		return math.Pi * r * r * h, 2*math.Pi*r*h + 2*math.Pi*r*r
	}
	panic(s.Kind)
}

// checkClosedOutward fails t unless tris over pos is a closed,
// consistently oriented 2-manifold of genus 0 (V − E + F = 2) with
// positive volume (outward faces).
func checkClosedOutward(t *testing.T, pos []geom.Vec3, tris [][3]int32) {
	t.Helper()
	m, err := geom.NewSurfaceMesh(pos, tris)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckTopology(); err != nil {
		t.Fatal(err)
	}
	if b := m.BoundaryEdges(); b != 0 {
		t.Fatalf("boundary edges: got=%d, want=0", b)
	}
	if chi := len(pos) - 3*len(tris)/2 + len(tris); chi != 2 {
		t.Errorf("Euler characteristic: got=%d, want=2", chi)
	}
	if vol, _ := volumeArea(pos, tris); !(vol > 0) {
		t.Errorf("signed volume %v: faces point inwards", vol)
	}
}

// TestTessellationClosedOutward checks that every primitive's surface is a
// closed, consistently oriented 2-manifold of genus 0 (V − E + F = 2) with
// positive volume (outward faces), vertex normals that agree with the
// faces, and a chord error within ChordTolerance: points sampled on every
// triangle are inside the analytic surface by at most ChordTolerance.
func TestTessellationClosedOutward(t *testing.T) {
	for _, s := range defaultShapes {
		t.Run(s.Name, func(t *testing.T) {
			o := mustBuild(t, s)
			pos, tris := o.LocalVertices(), o.Tris()
			checkClosedOutward(t, pos, tris)
			nrm := o.Normals(0, nil)
			worst := 0.0
			for _, tr := range tris {
				a, b, c := pos[tr[0]], pos[tr[1]], pos[tr[2]]
				fn := b.Sub(a).Cross(c.Sub(a)).Unit()
				for _, v := range tr {
					if nrm[v].Dot(fn) <= 0 {
						t.Fatalf("vertex normal %v against face normal %v", nrm[v], fn)
					}
				}
				for i := 0; i <= 4; i++ {
					for j := 0; i+j <= 4; j++ {
						u, v := float64(i)/4, float64(j)/4
						p := a.Add(b.Sub(a).Scale(u)).Add(c.Sub(a).Scale(v))
						d, _ := o.localDistance(p)
						if d > 1e-12 {
							t.Fatalf("tessellation point %v outside the surface by %v", p, d)
						}
						worst = math.Max(worst, -d)
					}
				}
			}
			if worst > ChordTolerance {
				t.Errorf("chord error: got=%.3g m, want ≤ %g (%d triangles)", worst, ChordTolerance, len(tris))
			}
			for i, p := range pos {
				if d, n := o.localDistance(p); math.Abs(d) > 1e-12 || n.Dot(nrm[i]) < 0.5 {
					t.Fatalf("vertex %d at %v: distance %v, normal %v vs drawing normal %v", i, p, d, n, nrm[i])
				}
			}
			t.Logf("%d vertices, %d triangles, chord error %.3g mm", len(pos), len(tris), 1e3*worst)
		})
	}
}

// TestTessellationConverges checks that the tessellated volume and area
// converge to the analytic ones as the chord tolerance shrinks: the
// relative error is below 3·tol/r and falls by at least 2.5× per 4×
// smaller tolerance (second order in the segment angle; the segment count
// is rounded up to a multiple of 4). Tolerances are relative to the radius
// so that the 16-segment minimum does not hide the rule.
func TestTessellationConverges(t *testing.T) {
	for _, s := range defaultShapes {
		if s.Kind == "box" {
			continue // exact at any tolerance
		}
		t.Run(s.Name, func(t *testing.T) {
			o := mustBuild(t, s)
			V, A := exactVolumeArea(s)
			prevV, prevA := math.Inf(1), math.Inf(1)
			for _, rel := range []float64{2e-2, 5e-3, 1.25e-3} {
				tol := rel * s.Radius
				o.tessellate(tol)
				vol, area := volumeArea(o.local, o.tris)
				ev, ea := math.Abs(vol-V)/V, math.Abs(area-A)/A
				t.Logf("tol %g: %d triangles, volume error %.3g, area error %.3g", tol, len(o.tris), ev, ea)
				if ev > 3*tol/s.Radius || ea > 3*tol/s.Radius {
					t.Errorf("tol %g: relative errors %.3g, %.3g above 3·tol/r = %.3g", tol, ev, ea, 3*tol/s.Radius)
				}
				if ev > prevV/2.5 || ea > prevA/2.5 {
					t.Errorf("tol %g: errors %.3g, %.3g did not fall 2.5× from %.3g, %.3g", tol, ev, ea, prevV, prevA)
				}
				prevV, prevA = ev, ea
			}
		})
	}
}

// TestSignedDistanceAnalytic checks distances at hand-computed points of
// each primitive (placed and rotated, so the pose is part of the test).
func TestSignedDistanceAnalytic(t *testing.T) {
	yz := &[3]float64{1, 0, 0}
	cases := []struct {
		spec  Spec
		p     geom.Vec3
		d     float64
		n     geom.Vec3
		label string
	}{
		{Spec{Kind: "plane", Position: [3]float64{0, -1, 0}}, geom.Vec3{X: 5, Y: 2, Z: 3}, 3, geom.Vec3{Y: 1}, "above ground"},
		{Spec{Kind: "plane", Position: [3]float64{0, -1, 0}}, geom.Vec3{Y: -1.5}, -0.5, geom.Vec3{Y: 1}, "below ground"},
		{Spec{Kind: "plane", Axis: yz, Angle: 90}, geom.Vec3{Z: 2}, 2, geom.Vec3{Z: 1}, "plane turned to +Z"},
		{Spec{Kind: "sphere", Radius: 0.5, Position: [3]float64{1, 0, 0}}, geom.Vec3{X: 1, Y: 2}, 1.5, geom.Vec3{Y: 1}, "sphere outside"},
		{Spec{Kind: "sphere", Radius: 0.5, Position: [3]float64{1, 0, 0}}, geom.Vec3{X: 0.8}, -0.3, geom.Vec3{X: -1}, "sphere inside"},
		{Spec{Kind: "box", Size: [3]float64{2, 4, 6}}, geom.Vec3{X: 2, Y: 3, Z: 3}, math.Sqrt(2), geom.Vec3{X: 1, Y: 1}.Unit(), "box edge region"},
		{Spec{Kind: "box", Size: [3]float64{2, 4, 6}}, geom.Vec3{X: 4, Y: 6, Z: 7}, math.Sqrt(9 + 16 + 16), geom.Vec3{X: 3, Y: 4, Z: 4}.Unit(), "box corner region"},
		{Spec{Kind: "box", Size: [3]float64{2, 4, 6}}, geom.Vec3{X: 0.5, Y: 1.9, Z: 0}, -0.1, geom.Vec3{Y: 1}, "box inside near +Y"},
		{Spec{Kind: "box", Size: [3]float64{2, 4, 6}, Axis: yz, Angle: 90}, geom.Vec3{Y: 3.5}, 0.5, geom.Vec3{Y: 1}, "box turned: local Z along world Y"},
		{Spec{Kind: "capsule", Radius: 0.1, Height: 1}, geom.Vec3{X: 0.3, Y: 0.2}, 0.2, geom.Vec3{X: 1}, "capsule side"},
		{Spec{Kind: "capsule", Radius: 0.1, Height: 1}, geom.Vec3{Y: 0.8}, 0.2, geom.Vec3{Y: 1}, "capsule tip"},
		{Spec{Kind: "capsule", Radius: 0.1, Height: 1}, geom.Vec3{Z: -0.05, Y: -0.3}, -0.05, geom.Vec3{Z: -1}, "capsule inside"},
		{Spec{Kind: "cylinder", Radius: 0.5, Height: 0.2}, geom.Vec3{X: 0.3, Y: 0.4}, 0.3, geom.Vec3{Y: 1}, "cylinder above cap"},
		{Spec{Kind: "cylinder", Radius: 0.5, Height: 0.2}, geom.Vec3{Z: 0.8, Y: 0.05}, 0.3, geom.Vec3{Z: 1}, "cylinder beside"},
		{Spec{Kind: "cylinder", Radius: 0.5, Height: 0.2}, geom.Vec3{X: 0.8, Y: -0.5}, 0.5, geom.Vec3{X: 0.6, Y: -0.8}, "cylinder rim region"},
		{Spec{Kind: "cylinder", Radius: 0.5, Height: 0.2}, geom.Vec3{X: 0.1, Y: 0.05}, -0.05, geom.Vec3{Y: 1}, "cylinder inside near cap"},
		{Spec{Kind: "cylinder", Radius: 0.5, Height: 2, Axis: yz, Angle: -90}, geom.Vec3{Y: 0.7, Z: 0.2}, 0.2, geom.Vec3{Y: 1}, "cylinder lying along Z"},
	}
	for _, c := range cases {
		o := mustBuild(t, c.spec)
		d, n := o.SignedDistance(c.p, 0)
		if math.Abs(d-c.d) > 1e-12 || !near(n, c.n, 1e-12) {
			t.Errorf("%s: SignedDistance(%v): got=(%v, %v), want=(%v, %v)", c.label, c.p, d, n, c.d, c.n)
		}
	}
}

// TestSignedDistanceGradient checks, for random points around every
// primitive in a random pose, that n is the finite-difference gradient of
// d, that p − d·n lies on the surface (distance 0 there) and that |d| is
// at most the distance to any tessellation vertex plus the chord error
// (no closer surface point is missed).
func TestSignedDistanceGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	shapes := append([]Spec{{Name: "plane", Kind: "plane"}}, defaultShapes...)
	for _, s := range shapes {
		s.Position = [3]float64{0.3, -0.2, 0.1}
		s.Axis = &[3]float64{1, 2, -0.5}
		s.Angle = 37
		o := mustBuild(t, s)
		verts := o.Vertices(0, nil)
		checked := 0
		for i := 0; i < 400; i++ {
			p := randVec(r).Add(vec3(s.Position))
			d, n := o.SignedDistance(p, 0)
			if math.Abs(n.Norm()-1) > 1e-12 {
				t.Fatalf("%s: |n| = %v", s.Name, n.Norm())
			}
			if dq, _ := o.SignedDistance(p.Sub(n.Scale(d)), 0); math.Abs(dq) > 1e-12 {
				t.Fatalf("%s: p − d·n is %v off the surface (p %v, d %v)", s.Name, dq, p, d)
			}
			for _, v := range verts {
				if math.Abs(d) > p.Sub(v).Norm()+ChordTolerance {
					t.Fatalf("%s: |d| = %v at %v but a surface vertex is %v away", s.Name, d, p, p.Sub(v).Norm())
				}
			}
			const h = 1e-6
			g := geom.Vec3{}
			var dd [3]float64
			ok := true
			for a, e := range []geom.Vec3{{X: h}, {Y: h}, {Z: h}} {
				dp, np := o.SignedDistance(p.Add(e), 0)
				dm, nm := o.SignedDistance(p.Sub(e), 0)
				ok = ok && np.Dot(n) > 0.999 && nm.Dot(n) > 0.999 // same smooth region
				dd[a] = (dp - dm) / (2 * h)
			}
			if !ok {
				continue // near a medial surface: d is not differentiable there
			}
			checked++
			g = geom.Vec3{X: dd[0], Y: dd[1], Z: dd[2]}
			if !near(g, n, 1e-6) {
				t.Fatalf("%s at %v: finite-difference gradient %v, n %v", s.Name, p, g, n)
			}
		}
		if checked < 300 {
			t.Errorf("%s: only %d of 400 points checked", s.Name, checked)
		}
	}
}

func ExampleSpec_Build() {
	o, err := Spec{Kind: "sphere", Radius: 0.5, Position: [3]float64{0, 1, 0}}.Build("")
	if err != nil {
		panic(err)
	}
	d, n := o.SignedDistance(geom.Vec3{Y: 2}, 0)
	fmt.Printf("%s: d = %.2f m, n = %v, μ = %.1f\n", o.Name(), d, n, o.Friction)
	// Output: sphere: d = 0.50 m, n = {0 1 0}, μ = 0.3
}

// TestCore checks that the core of the round shapes, in a random pose,
// gives their signed distance: |p − closest point of the segment| − radius
// equals SignedDistance at random points, and that the other kinds have
// none.
func TestCore(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	for _, s := range defaultShapes {
		s.Position = [3]float64{0.3, -0.2, 0.1}
		s.Axis = &[3]float64{0.3, 0.8, -0.5}
		s.Angle = 37
		o := mustBuild(t, s)
		a, b, rad, ok := o.Core(o.Pose(0))
		if round := s.Kind == "sphere" || s.Kind == "capsule"; ok != round {
			t.Fatalf("%s: Core ok=%v", s.Name, ok)
		}
		if !ok {
			continue
		}
		for i := 0; i < 200; i++ {
			p := geom.Vec3{X: r.NormFloat64(), Y: r.NormFloat64(), Z: r.NormFloat64()}.Scale(0.5)
			ab := b.Sub(a)
			u := 0.0
			if l2 := ab.Dot(ab); l2 > 0 {
				u = math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/l2))
			}
			got := p.Sub(a.Add(ab.Scale(u))).Norm() - rad
			want, _ := o.SignedDistance(p, 0)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("%s: at %v the core gives %v, SignedDistance %v", s.Name, p, got, want)
			}
		}
	}
}
