package fabric

import (
	"math"

	"drape/sim/cloth"
	"drape/sim/geom"
)

// Cusick drape test geometry (BS 5058; ISO 9073-9 with the 30 cm
// specimen): a circular specimen 30 cm across clamped between two discs
// 18 cm across.
const (
	SpecimenRadius = 0.15 // m
	DiscRadius     = 0.09 // m
)

// annulus returns the ring of material between radii r0 and r1, meshed in
// concentric rings of spacing about h (radial rows of roughly equilateral
// triangles, with ring k holding round(2π·r_k/h) vertices), lying flat at
// height 0: world (x, 0, −y) for material (x, y), the scene loader's
// "horizontal" orientation. Ring j's start is turned by a golden-angle
// step, so that no radial line of vertices runs through the mesh and
// favours a fold. The outer ring is exactly at r1 and ring m at
// r0 + m·(r1−r0)/rings.
func annulus(r0, r1, h float64) (*geom.Mesh, error) {
	rings := max(1, int(math.Round((r1-r0)/h)))
	var pos []geom.Vec3
	var rest []geom.Vec2
	start := make([]int, rings+2)
	count := make([]int, rings+1)
	golden := math.Pi * (3 - math.Sqrt(5))
	for k := 0; k <= rings; k++ {
		r := r0 + (r1-r0)*float64(k)/float64(rings)
		n := max(6, int(math.Round(2*math.Pi*r/h)))
		start[k], count[k] = len(pos), n
		for i := 0; i < n; i++ {
			a := 2*math.Pi*float64(i)/float64(n) + golden*float64(k)
			x, y := r*math.Cos(a), r*math.Sin(a)
			rest = append(rest, geom.Vec2{X: x, Y: y})
			pos = append(pos, geom.Vec3{X: x, Y: 0, Z: -y})
		}
	}
	angle := func(k, i int) float64 {
		a := 2*math.Pi*float64(i)/float64(count[k]) + golden*float64(k)
		return math.Mod(a, 2*math.Pi)
	}
	var tris [][3]int32
	for k := 0; k < rings; k++ {
		// Walk both rings by angle, from their vertices nearest angle 0,
		// always advancing the one whose next vertex comes first.
		n0, n1 := count[k], count[k+1]
		first := func(kk, n int) int {
			best, bd := 0, math.Inf(1)
			for i := 0; i < n; i++ {
				if d := angle(kk, i); d < bd {
					best, bd = i, d
				}
			}
			return best
		}
		i0, i1 := first(k, n0), first(k+1, n1)
		unwrap := func(kk, i, base int, n int) float64 {
			// angle of the j-th vertex after base, unwrapped
			a := angle(kk, (base+i)%n)
			b := angle(kk, base)
			if a < b-1e-12 {
				a += 2 * math.Pi
			}
			if i == n {
				a = b + 2*math.Pi
			}
			return a
		}
		a, b := 0, 0
		for a < n0 || b < n1 {
			va, vb := start[k]+(i0+a)%n0, start[k+1]+(i1+b)%n1
			var t [3]int32
			if b >= n1 || (a < n0 && unwrap(k, a+1, i0, n0) < unwrap(k+1, b+1, i1, n1)) {
				t = [3]int32{int32(va), int32(start[k] + (i0+a+1)%n0), int32(vb)}
				a++
			} else {
				t = [3]int32{int32(va), int32(start[k+1] + (i1+b+1)%n1), int32(vb)}
				b++
			}
			// counter-clockwise in material space
			if geom.RestArea(rest[t[0]], rest[t[1]], rest[t[2]]) < 0 {
				t[1], t[2] = t[2], t[1]
			}
			tris = append(tris, t)
		}
	}
	return geom.NewMesh(pos, rest, tris)
}

// CusickResult is one Cusick drape test.
type CusickResult struct {
	DC        float64 // drape coefficient (A_shadow − A_disc)/(A_specimen − A_disc)
	Nodes     int     // folds: maxima of the shadow's radius around the disc
	Shadow    float64 // projected area A_shadow, m²
	Triangles int
	Steps     int
	Settled   bool       // the kinetic energy fell below the settling threshold
	Mesh      *geom.Mesh // the draped specimen (Run keeps it with Options.Pictures only)
}

// cusickH is the mesh spacing of the Cusick test, m.
const cusickH = 0.0075

// Cusick runs the Cusick drape test on material p: the specimen is
// clamped flat over the support disc (every vertex within DiscRadius is
// pinned, as the two discs hold it) and the rest hangs under gravity
// until it is still (every vertex slower than 1 mm/s; at most 6 s). The
// mesh is an annulus of spacing cusickH = 7.5 mm. Collisions are off:
// the specimen hangs free of the stand, and contact between folds is not
// handled (a limp fabric whose folds touch would drape a little wider).
// Δt = 10 ms with mass damping α_M = 4/s settles the
// drape in 1–3 simulated seconds and changes nothing at rest.
func Cusick(p cloth.Params) (CusickResult, error) {
	var r CusickResult
	h := cusickH
	m, err := annulus(DiscRadius-2*h, SpecimenRadius, h)
	if err != nil {
		return r, err
	}
	p.Dt = 0.01
	p.DampMass = 4
	p.DampStiff = 0
	p.Tolerance = 1e-3
	s, err := newSim(m, p, func(i int) bool { return math.Hypot(m.Rest[i].X, m.Rest[i].Y) <= DiscRadius+1e-9 })
	if err != nil {
		return r, err
	}
	// A small push downwards, growing towards the rim, starts the fall;
	// the folds then come from buckling, seeded by the mesh's own
	// irregularity (the rings' golden-angle offsets favour no direction).
	for i, q := range m.Rest {
		if d := math.Hypot(q.X, q.Y); d > DiscRadius {
			if err := s.SetVelocity(int32(i), geom.Vec3{Y: -0.01 * (d - DiscRadius) / (SpecimenRadius - DiscRadius)}); err != nil {
				return r, err
			}
		}
	}
	for r.Steps = 0; r.Steps < 600; r.Steps++ {
		if _, err := s.Step(); err != nil {
			return r, err
		}
		if r.Steps > 100 && s.MaxSpeed() < 1e-3 {
			r.Settled = true
			break
		}
	}
	r.Mesh, r.Triangles = s.Mesh, s.Mesh.NumTris()
	img := rasterTop(s.Mesh, 0.0005, SpecimenRadius)
	r.Shadow = img.area()
	ad, as := math.Pi*DiscRadius*DiscRadius, math.Pi*SpecimenRadius*SpecimenRadius
	r.DC = (r.Shadow - ad) / (as - ad)
	r.Nodes = countNodes(img)
	return r, nil
}

// area returns the lit area, m².
func (img *topRaster) area() float64 {
	n := 0
	for _, b := range img.on {
		if b {
			n++
		}
	}
	return float64(n) * img.px * img.px
}

// topRaster is a boolean image of the projected mesh on the XZ plane,
// centred on the origin: pixel (i, j) covers x ∈ [x0+i·px, x0+(i+1)·px],
// z likewise.
type topRaster struct {
	n  int
	px float64
	x0 float64
	on []bool // n×n, row-major in j
}

// rasterTop rasterises the mesh's projection onto y = 0 over the square
// of half-size half, filling the inner hole of radius DiscRadius too.
func rasterTop(m *geom.Mesh, px, half float64) *topRaster {
	n := int(math.Ceil(2 * half / px))
	img := &topRaster{n: n, px: px, x0: -float64(n) * px / 2, on: make([]bool, n*n)}
	center := func(i int) float64 { return img.x0 + (float64(i)+0.5)*px }
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			if math.Hypot(center(i), center(j)) <= DiscRadius {
				img.on[j*n+i] = true
			}
		}
	}
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		a, b, c := m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]]
		x := [3]float64{a.X, b.X, c.X}
		z := [3]float64{a.Z, b.Z, c.Z}
		d := (x[1]-x[0])*(z[2]-z[0]) - (x[2]-x[0])*(z[1]-z[0])
		if d == 0 {
			continue
		}
		lo := func(v [3]float64) int { return max(0, int(math.Floor((min(v[0], v[1], v[2])-img.x0)/px))) }
		hi := func(v [3]float64) int { return min(n-1, int(math.Floor((max(v[0], v[1], v[2])-img.x0)/px))) }
		for j := lo(z); j <= hi(z); j++ {
			pz := center(j)
			for i := lo(x); i <= hi(x); i++ {
				px := center(i)
				w1 := ((x[1]-px)*(z[2]-pz) - (x[2]-px)*(z[1]-pz)) / d
				w2 := ((x[2]-px)*(z[0]-pz) - (x[0]-px)*(z[2]-pz)) / d
				w3 := 1 - w1 - w2
				if w1 >= 0 && w2 >= 0 && w3 >= 0 {
					img.on[j*n+i] = true
				}
			}
		}
	}
	return img
}

// countNodes returns the number of folds: the maxima of the shadow's
// outline radius ρ(φ) (the largest radius of a lit pixel of img in each
// of 720 sectors, smoothed over ±2.5°) that stand at least 3 mm above the
// minima either side.
func countNodes(img *topRaster) int {
	const bins = 720
	rad := make([]float64, bins)
	for j := 0; j < img.n; j++ {
		for i := 0; i < img.n; i++ {
			if !img.on[j*img.n+i] {
				continue
			}
			x, z := img.x0+(float64(i)+0.5)*img.px, img.x0+(float64(j)+0.5)*img.px
			k := int(math.Floor((math.Atan2(z, x) + math.Pi) / (2 * math.Pi) * bins))
			k = min(max(k, 0), bins-1)
			rad[k] = math.Max(rad[k], math.Hypot(x, z))
		}
	}
	sm := make([]float64, bins)
	for k := range sm {
		var s float64
		for d := -5; d <= 5; d++ {
			s += rad[(k+d+bins)%bins]
		}
		sm[k] = s / 11
	}
	const prominence = 0.003
	// Walk once around from the global minimum, counting each peak that
	// rises prominence above the valley before it and falls prominence
	// below it after.
	k0 := 0
	for k := range sm {
		if sm[k] < sm[k0] {
			k0 = k
		}
	}
	nodes := 0
	valley, peak, rising := sm[k0], sm[k0], true
	for i := 1; i <= bins; i++ {
		v := sm[(k0+i)%bins]
		if rising {
			if v > peak {
				peak = v
			} else if peak-v >= prominence && peak-valley >= prominence {
				nodes++
				rising, valley = false, v
			}
		} else {
			if v < valley {
				valley = v
			} else if v-valley >= prominence {
				rising, peak = true, v
			}
		}
	}
	return nodes
}
