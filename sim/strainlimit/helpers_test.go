package strainlimit

import (
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/geom"
)

// sheet returns an input on a w × h m sheet (regular grid when irregular
// is false, else a Delaunay sheet of about 2·nx·ny faces) with lumped
// masses of 0.1 kg/m², x^n the flat rest shape jittered out of plane and
// V that moves the vertices to x^n·stretch + noise in one step Δt.
func sheet(t testing.TB, nx, ny int, irregular bool, stretch geom.Vec3, noise, dt float64, seed uint64) *Input {
	t.Helper()
	var m *geom.Mesh
	var err error
	if irregular {
		m, err = geom.IrregularGrid(1, 0.8, 2*nx*ny, int64(seed))
	} else {
		m, err = geom.RegularGrid(1, 0.8, nx, ny)
	}
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	n := len(m.Pos)
	in := &Input{X0: make([]geom.Vec3, n), V: make([]geom.Vec3, n), InvMass: make([]float64, n), Rest: append([]geom.Vec2(nil), m.Rest...), Tris: append([][3]int32(nil), m.Tris...)}
	mass := make([]float64, n)
	for _, tr := range m.Tris {
		a := geom.RestArea(m.Rest[tr[0]], m.Rest[tr[1]], m.Rest[tr[2]])
		for k := 0; k < 3; k++ {
			mass[tr[k]] += 0.1 * a / 3
		}
	}
	for i := range in.X0 {
		in.InvMass[i] = 1 / mass[i]
		p := m.Pos[i]
		p.Z = 0.003 * (rng.Float64() - 0.5)
		in.X0[i] = p
		tgt := geom.Vec3{X: p.X * stretch.X, Y: p.Y * stretch.Y, Z: p.Z * stretch.Z}
		tgt = tgt.Add(geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Scale(noise))
		in.V[i] = tgt.Sub(p).Scale(1 / dt)
	}
	return in
}

func clone(in *Input) *Input {
	return &Input{
		X0: append([]geom.Vec3(nil), in.X0...), V: append([]geom.Vec3(nil), in.V...),
		InvMass: append([]float64(nil), in.InvMass...), Rest: append([]geom.Vec2(nil), in.Rest...),
		Tris: append([][3]int32(nil), in.Tris...),
	}
}

// endPositions returns x^n + Δt·V.
func endPositions(in *Input, dt float64) []geom.Vec3 {
	x := make([]geom.Vec3, len(in.X0))
	for i := range x {
		x[i] = in.X0[i].Add(in.V[i].Scale(dt))
	}
	return x
}

func maxOf(s []float64) float64 {
	m := math.Inf(-1)
	for _, v := range s {
		m = math.Max(m, v)
	}
	return m
}

// momenta returns Σ m·V and Σ m·x^n × V over the unpinned vertices.
func momenta(in *Input) (p, l geom.Vec3) {
	for i, w := range in.InvMass {
		if w == 0 {
			continue
		}
		mv := in.V[i].Scale(1 / w)
		p = p.Add(mv)
		l = l.Add(in.X0[i].Cross(mv))
	}
	return p, l
}

// pinTopMoving pins the top row where V takes it.
func pinTopMoving(in *Input) {
	for i, r := range in.Rest {
		if r.Y > 0.8-1e-9 {
			in.InvMass[i] = 0
		}
	}
}

// pinTop pins the vertices with rest Y at the top edge (y = 0.8).
func pinTop(in *Input) int {
	n := 0
	for i, r := range in.Rest {
		if r.Y > 0.8-1e-9 {
			in.InvMass[i] = 0
			in.V[i] = geom.Vec3{}
			n++
		}
	}
	return n
}

// onParams returns DefaultParams with the limiter on.
func onParams() Params {
	p := DefaultParams()
	p.Enabled = true
	return p
}
