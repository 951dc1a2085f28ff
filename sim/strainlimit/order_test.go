package strainlimit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"drape/sim/geom"
)

// stripInput is Tsiknis's fig. 1.1 on triangles: a 1 m × 5 cm strip of
// 20 × 1 quads, both ends pinned, the right end pulled 8 cm along the strip
// in one step (feasible: 8 % < 10 %), so that the last elements are
// stretched far beyond the limit and the rest not at all.
func stripInput(t testing.TB) (*Input, float64) {
	m, err := geom.RegularGrid(1, 0.05, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := len(m.Pos)
	in := &Input{X0: append([]geom.Vec3(nil), m.Pos...), V: make([]geom.Vec3, n), InvMass: make([]float64, n), Rest: m.Rest, Tris: m.Tris}
	dt := 0.01
	for i, r := range m.Rest {
		in.InvMass[i] = 100
		switch {
		case r.X < 1e-9:
			in.InvMass[i] = 0
		case r.X > 1-1e-9:
			in.InvMass[i] = 0
			in.V[i] = geom.Vec3{X: 0.08 / dt}
		}
	}
	return in, dt
}

// columnStretch returns the stretch of each of the strip's 20 columns
// along the strip at x (mean of its bottom and top edges).
func columnStretch(x []geom.Vec3) []float64 {
	s := make([]float64, 20)
	for i := range s {
		s[i] = 0.5 * (x[i+1].Sub(x[i]).Norm() + x[21+i+1].Sub(x[21+i]).Norm()) / 0.05
	}
	return s
}

// provot is the classic sequential strain limiter (Provot 1995), written
// for this test: sweep the faces in the given order, and shorten every
// edge longer than (1+ε)·rest to that length, moving its free endpoints by
// their inverse masses; sweeps times.
func provot(in *Input, dt float64, order []int, sweeps int) []geom.Vec3 {
	x := endPositions(in, dt)
	for s := 0; s < sweeps; s++ {
		for _, f := range order {
			t := in.Tris[f]
			for k := 0; k < 3; k++ {
				a, b := t[k], t[(k+1)%3]
				wa, wb := in.InvMass[a], in.InvMass[b]
				if wa+wb == 0 {
					continue
				}
				lmax := 1.1 * math.Sqrt(in.Rest[b].Sub(in.Rest[a]).Norm2())
				d := x[b].Sub(x[a])
				l := d.Norm()
				if l <= lmax {
					continue
				}
				corr := d.Scale((l - lmax) / (l * (wa + wb)))
				x[a] = x[a].Add(corr.Scale(wa))
				x[b] = x[b].Sub(corr.Scale(wb))
			}
		}
	}
	return x
}

// TestChainOrder is the fig. 1.1 test: the sequential limiter
// gives different stretch distributions for forward and backward face
// orders (measured, 3 sweeps: forward leaves columns 1–16 at 1.000 and
// 17–19 at 1.36–1.59; backward spreads 1.04–1.52 over the last 7), while
// Apply gives the same result bit for bit for any order, within the
// limit, every column stretched 1.8–9.1 % (Tsiknis fig. 1.1 c).
func TestChainOrder(t *testing.T) {
	in, dt := stripInput(t)
	fwd := make([]int, len(in.Tris))
	for i := range fwd {
		fwd[i] = i
	}
	bwd := slices.Clone(fwd)
	slices.Reverse(bwd)
	sf, sb := columnStretch(provot(in, dt, fwd, 3)), columnStretch(provot(in, dt, bwd, 3))
	var dProvot float64
	for i := range sf {
		dProvot = math.Max(dProvot, math.Abs(sf[i]-sb[i]))
	}
	t.Logf("Provot forward:  %.3f", sf)
	t.Logf("Provot backward: %.3f", sb)

	var ref []float64
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 4; trial++ {
		c := clone(in)
		switch trial {
		case 1:
			slices.Reverse(c.Tris)
		case 2, 3:
			rng.Shuffle(len(c.Tris), func(i, j int) { c.Tris[i], c.Tris[j] = c.Tris[j], c.Tris[i] })
		}
		p := onParams()
		p.Passes = 200
		st, err := NewLimiter().Apply(c, dt, p)
		if err != nil {
			t.Fatal(err)
		}
		s := columnStretch(endPositions(c, dt))
		if trial == 0 {
			ref = s
			t.Logf("unbiased:        %.3f (strain %.2f → %.4f, %d passes)", s, st.MaxStrainBefore, st.MaxStrainAfter, st.Passes)
			if st.MaxRatioAfter > 1+p.Tolerance {
				t.Errorf("ratio after %g", st.MaxRatioAfter)
			}
			// Every column takes a share of the 8 %: measured
			// 1.018–1.091, where the sequential limiter leaves
			// most columns at 1.000 and others at 1.5.
			if lo, hi := slices.Min(s), slices.Max(s); lo < 1.01 || hi > 1.1*(1+p.Tolerance) {
				t.Errorf("column stretches %.4f–%.4f, want all in [1.01, 1.1022]", lo, hi)
			}
			continue
		}
		if !slices.Equal(s, ref) {
			t.Errorf("order %d: stretches %v, want %v", trial, s, ref)
		}
	}
	if dProvot < 0.01 {
		t.Errorf("sequential limiter: forward and backward differ by only %g; the test shows no order dependence", dProvot)
	}
}
