package fabric

import (
	"bytes"
	"image/png"
	"math"
	"testing"

	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestElasticaOverhang checks the exact heavy elastica against the
// standard: at 41.5° the overhang is twice the bending length to 0.1 %,
// and in the small-deflection limit the tip angle is the linear beam's,
// tan θ ≈ λ³/8.
func TestElasticaOverhang(t *testing.T) {
	if got := ElasticaOverhang(PeirceAngle); math.Abs(got-2) > 0.002 {
		t.Errorf("ElasticaOverhang(41.5°) = %.5f, want 2 ± 0.002", got)
	}
	if got, want := math.Tan(elasticaTip(0.5)), 0.5*0.5*0.5/8; math.Abs(got/want-1) > 0.01 {
		t.Errorf("tan θ(λ=0.5) = %.5g, want the linear beam's λ³/8 = %.5g", got, want)
	}
}

// TestWangBendScale wraps an equilateral lattice onto cylinders in three
// orientations and sums the hinge energy of Wang et al. (k_e = 1): per
// area it must be ½·B·κ² with B = WangBendScale·k_e, up to the deficit
// of the disc's boundary edges (2.6 % at 60 rings).
func TestWangBendScale(t *testing.T) {
	const h, rad, n = 0.005, 0.2, 60
	for _, phi := range []float64{0, 0.4, math.Pi / 6} {
		idx := map[[2]int]int32{}
		var pos []geom.Vec3
		var rest []geom.Vec2
		for j := -n; j <= n; j++ {
			for i := -n; i <= n; i++ {
				x, y := (float64(i)+0.5*float64(j))*h, float64(j)*h*math.Sqrt(3)/2
				x, y = x*math.Cos(phi)-y*math.Sin(phi), x*math.Sin(phi)+y*math.Cos(phi)
				idx[[2]int{i, j}] = int32(len(pos))
				rest = append(rest, geom.Vec2{X: x, Y: y})
				pos = append(pos, geom.Vec3{X: rad * math.Sin(x/rad), Y: y, Z: rad * (1 - math.Cos(x/rad))})
			}
		}
		var tris [][3]int32
		for j := -n; j < n; j++ {
			for i := -n; i < n; i++ {
				a, b, c, d := idx[[2]int{i, j}], idx[[2]int{i + 1, j}], idx[[2]int{i, j + 1}], idx[[2]int{i + 1, j + 1}]
				tris = append(tris, [3]int32{a, b, c}, [3]int32{b, d, c})
			}
		}
		m, err := geom.NewMesh(pos, rest, tris)
		if err != nil {
			t.Fatal(err)
		}
		r := 0.6 * n * h // count the edges inside this material disc
		var e float64
		for _, ed := range m.InteriorEdges() {
			st := ed.Stencil()
			if rest[st[0]].Norm2() > r*r || rest[st[1]].Norm2() > r*r {
				continue
			}
			x0, x1, x2, x3 := pos[st[0]], pos[st[1]], pos[st[2]], pos[st[3]]
			n0 := x1.Sub(x0).Cross(x2.Sub(x0))
			n1 := x3.Sub(x0).Cross(x1.Sub(x0))
			a := 0.5 * (n0.Norm() + n1.Norm())
			theta := math.Acos(math.Min(1, n0.Dot(n1)/(n0.Norm()*n1.Norm())))
			l := x1.Sub(x0).Norm()
			e += l * l / (2 * a) * theta * theta / 4
		}
		b := e / (0.5 * math.Pi * r * r / (rad * rad))
		if b < 0.96*WangBendScale || b > WangBendScale {
			t.Errorf("orientation %.2f: B/k_e = %.4f, want %g less the boundary deficit (> 0.96×)", phi, b, WangBendScale)
		}
	}
}

// TestDirectionalModulus checks E_θ against closed forms: E at every
// angle for an isotropic sheet (E_s = E/(2(1+ν))), E_x and E_y along the
// axes, and 1/E_45 = ¼(1/E_x + 1/E_y + 1/E_s − 2ν_xy/E_x) at 45°.
func TestDirectionalModulus(t *testing.T) {
	iso := cloth.DefaultParams()
	iso.YoungX, iso.YoungY, iso.PoissXY, iso.PoissYX = 1000, 1000, 0.3, 0.3
	iso.Shear = 1000 / (2 * 1.3)
	orth := cloth.DefaultParams()
	orth.YoungX, orth.YoungY, orth.Shear, orth.PoissXY = 400, 2000, 50, 0.05
	orth.PoissYX = orth.PoissXY * orth.YoungY / orth.YoungX
	for _, c := range []struct {
		p     cloth.Params
		theta float64
		want  float64
	}{
		{iso, 0, 1000}, {iso, 0.3, 1000}, {iso, math.Pi / 4, 1000},
		{orth, 0, 400}, {orth, math.Pi / 2, 2000},
		{orth, math.Pi / 4, 4 / (1.0/400 + 1.0/2000 + 1.0/50 - 2*0.05/400)},
	} {
		if got := DirectionalModulus(c.p, c.theta); math.Abs(got/c.want-1) > 1e-9 {
			t.Errorf("DirectionalModulus(θ=%.2f) = %.6g, want %.6g", c.theta, got, c.want)
		}
	}
}

// TestAnnulusAndShadow checks the Cusick mesh and the shadow measure: the
// annulus has the right area and a valid mesh, and the flat specimen's
// shadow is the whole specimen (DC = 1), the pixels' error within 0.5 %.
func TestAnnulusAndShadow(t *testing.T) {
	m, err := annulus(DiscRadius-2*cusickH, SpecimenRadius, cusickH)
	if err != nil {
		t.Fatal(err)
	}
	total, _ := m.RestAreas()
	r0 := DiscRadius - 2*cusickH
	if want := math.Pi * (SpecimenRadius*SpecimenRadius - r0*r0); math.Abs(total/want-1) > 0.01 {
		t.Errorf("annulus area %.5f m², want %.5f within the polygon's 1 %%", total, want)
	}
	img := rasterTop(m, 0.0005, SpecimenRadius)
	want := math.Pi * SpecimenRadius * SpecimenRadius
	if got := img.area(); math.Abs(got/want-1) > 0.005 {
		t.Errorf("flat shadow %.5f m², want %.5f", got, want)
	}
	if n := countNodes(img); n != 0 {
		t.Errorf("flat specimen: %d nodes, want 0", n)
	}
}

// TestCountNodes draws star-shaped shadows with k lobes and counts them.
func TestCountNodes(t *testing.T) {
	for _, k := range []int{4, 7, 12} {
		m, _ := annulus(DiscRadius-2*cusickH, SpecimenRadius, cusickH)
		for i, r := range m.Rest {
			d := math.Hypot(r.X, r.Y)
			if d <= DiscRadius {
				continue
			}
			phi := math.Atan2(r.Y, r.X)
			s := 0.75 + 0.15*math.Cos(float64(k)*phi) // shrink the rim into k lobes
			f := DiscRadius + (d-DiscRadius)*s
			m.Pos[i] = geom.Vec3{X: f * r.X / d, Z: -f * r.Y / d}
		}
		if got := countNodes(rasterTop(m, 0.0005, SpecimenRadius)); got != k {
			t.Errorf("%d lobes: countNodes = %d", k, got)
		}
	}
}

// TestTensile runs the strip tensile test in warp, weft and bias: the
// small-strain slope must be the preset's modulus in that direction
// within 2 % (the target), for every preset (three in -short, one under
// the race detector).
func TestTensile(t *testing.T) {
	names := []string{"denim", "jersey", "sweater"}
	if simtest.Race {
		names = names[:1]
	} else if !testing.Short() {
		lib, _ := Builtin()
		names = lib.Names()
	}
	for _, name := range names {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		params, _ := p.Values()
		for _, d := range []Direction{Warp, Weft, Bias} {
			r, err := Tensile(params, d)
			if err != nil {
				t.Fatalf("%s %v: %v", name, d, err)
			}
			if e := r.Slope/r.Expected - 1; math.Abs(e) > 0.02 {
				t.Errorf("%s %v: slope %.4g N/m, want %.4g within 2 %% (off %+.2f %%)", name, d, r.Slope, r.Expected, 100*e)
			}
		}
	}
}

// TestCantilever runs Peirce's cantilever in warp and weft: the bending
// length must be the one k_b implies within 10 % (the target) on the
// coarse and adaptive meshes (and the fine one without -short; only the
// adaptive one under the race detector), and the
// coarse mesh must err on the soft side, as the Bergou bending on a
// strip with free edges does (docs/fabrics.md).
func TestCantilever(t *testing.T) {
	p, err := Lookup("denim")
	if err != nil {
		t.Fatal(err)
	}
	params, _ := p.Values()
	kinds := []MeshKind{Coarse, Adaptive}
	if simtest.Race {
		kinds = kinds[1:]
	} else if !testing.Short() {
		kinds = Meshes
	}
	for _, k := range kinds {
		for _, d := range []Direction{Warp, Weft} {
			r, err := Cantilever(params, d, k)
			if err != nil {
				t.Fatalf("%v %v: %v", k, d, err)
			}
			e := r.C/r.CExpected - 1
			if math.Abs(e) > 0.10 || (k == Coarse && e > 0) {
				t.Errorf("%v %v: c = %.4f m, want %.4f within 10 %% (off %+.2f %%)", k, d, r.C, r.CExpected, 100*e)
			}
			if math.Abs(r.TipAngle-PeirceAngle) > 1e-3 {
				t.Errorf("%v %v: the search stopped at %.3f°, want 41.5°", k, d, r.TipAngle*180/math.Pi)
			}
		}
	}
}

// TestCusick drapes one preset (two without -short) and checks what the
// test must give whatever the fabric: a settled drape, a coefficient in
// (0, 1) and a fold count a drapemeter sees (3–20); and that the picture
// encodes.
func TestCusick(t *testing.T) {
	simtest.SkipUnderRace(t)
	names := []string{"denim"}
	if !testing.Short() {
		names = append(names, "jersey")
	}
	for _, name := range names {
		p, _ := Lookup(name)
		params, _ := p.Values()
		r, err := Cusick(params)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Settled || !(r.DC > 0 && r.DC < 1) || r.Nodes < 3 || r.Nodes > 20 {
			t.Errorf("%s: settled %v, DC %.3f, %d nodes; want settled, DC in (0, 1), 3–20 nodes", name, r.Settled, r.DC, r.Nodes)
		}
		var b bytes.Buffer
		if err := DrapePicture(&b, r.Mesh, 100); err != nil {
			t.Fatal(err)
		}
		if img, err := png.Decode(&b); err != nil || img.Bounds().Dx() != 200 {
			t.Errorf("%s: picture: %v", name, err)
		}
	}
}
