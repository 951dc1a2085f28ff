package cloth

import (
	"math"
	"math/rand/v2"
	"testing"

	"drape/sim/internal/simtest"
)

// fillRandom32 sets the float32 values of a to random numbers and returns
// a random vector with zero padding, as the PCG keeps it.
func fillRandom32(a *blockSystem, rng *rand.Rand) []vec3f32 {
	for k := range a.val32 {
		for r := range a.val32[k] {
			a.val32[k][r] = float32(rng.NormFloat64())
		}
	}
	for k := range a.oppVal32 {
		a.oppVal32[k] = float32(rng.NormFloat64())
	}
	s := make([]vec3f32, a.n)
	for i := range s {
		s[i] = vec3f32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
	}
	return s
}

// checkBlockRows32 compares blockRows32 (assembly on amd64) with
// blockRows32Go and with the float64 product over rows [lo, hi): each
// component must agree to float32 round-off of the sum of the absolute
// terms.
func checkBlockRows32(t *testing.T, a *blockSystem, s []vec3f32, lo, hi int) {
	t.Helper()
	if !a.checkPattern(0, a.n) {
		t.Fatal("checkPattern rejects a valid pattern")
	}
	got := make([]vec3f32, a.n)
	want := make([]vec3f32, a.n)
	for i := range got {
		got[i] = vec3f32{42, 42, 42, 42} // rows outside [lo, hi) must stay
	}
	a.blockRows32(s, got, lo, hi)
	blockRows32Go(a.rowPtr, a.col, a.val32, a.oppPtr, a.oppCol, a.oppVal32, s, want, lo, hi)
	for i := 0; i < a.n; i++ {
		if i < lo || i >= hi {
			if got[i] != (vec3f32{42, 42, 42, 42}) {
				t.Fatalf("row %d outside [%d, %d) was written: %v", i, lo, hi, got[i])
			}
			continue
		}
		var exact, mag [3]float64
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			bl, v := &a.val32[k], &s[a.col[k]]
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					x := float64(bl[3*r+c]) * float64(v[c])
					exact[r] += x
					mag[r] += math.Abs(x)
				}
			}
		}
		for k := a.oppPtr[i]; k < a.oppPtr[i+1]; k++ {
			w, v := float64(a.oppVal32[k]), &s[a.oppCol[k]]
			for r := 0; r < 3; r++ {
				exact[r] += w * float64(v[r])
				mag[r] += math.Abs(w * float64(v[r]))
			}
		}
		if got[i][3] != 0 {
			t.Fatalf("row %d: padding %v, want 0", i, got[i][3])
		}
		for r := 0; r < 3; r++ {
			tol := 1e-6 * (mag[r] + 1e-30)
			if d := math.Abs(float64(got[i][r]) - exact[r]); !(d <= tol) {
				t.Fatalf("row %d component %d: blockRows32 %v, exact %v (tolerance %g)", i, r, got[i][r], exact[r], tol)
			}
			if d := math.Abs(float64(want[i][r]) - exact[r]); !(d <= tol) {
				t.Fatalf("row %d component %d: blockRows32Go %v, exact %v (tolerance %g)", i, r, want[i][r], exact[r], tol)
			}
		}
	}
}

// TestBlockRows32 checks the PCG product kernel against the portable one
// on a regular sheet, on an adapted mesh with free vertex slots (rows with
// only a diagonal block) and on sub-ranges of rows.
func TestBlockRows32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := simtest.Grid(t, 1, 1, 9, 7, 0.2, 3)
	a := newBlockSystem(m, m.InteriorEdges())
	s := fillRandom32(a, rng)
	checkBlockRows32(t, a, s, 0, a.n)
	checkBlockRows32(t, a, s, 3, 17)
	checkBlockRows32(t, a, s, 5, 5)

	sim := adaptiveSheet(t, 5, 5, 6)
	free := 0
	for k := 0; k < 100 && free == 0; k++ {
		randomAdapt(sim, rng)
		for _, alive := range sim.Mesh.VertAlive {
			if !alive {
				free++
			}
		}
	}
	if free == 0 {
		t.Fatal("the adapted mesh has no free vertex slots to test")
	}
	a = sim.sys
	s = fillRandom32(a, rng)
	checkBlockRows32(t, a, s, 0, a.n)
	checkBlockRows32(t, a, s, a.n/3, a.n/2)
}

// TestCheckPattern checks that the pattern check rejects columns outside
// the system, which the assembly kernel would read out of bounds.
func TestCheckPattern(t *testing.T) {
	m := simtest.Grid(t, 1, 1, 4, 4, 0, 1)
	a := newBlockSystem(m, m.InteriorEdges())
	if !a.checkPattern(0, a.n) {
		t.Fatal("valid pattern rejected")
	}
	a.col[len(a.col)-1] = int32(a.n)
	if a.checkPattern(0, a.n) {
		t.Error("block column n accepted")
	}
	a.col[len(a.col)-1] = int32(a.n - 1)
	a.oppCol[0] = -1
	if a.checkPattern(0, a.n) {
		t.Error("negative opposite-vertex column accepted")
	}
	a.oppCol[0] = 0
	a.rowPtr[a.n] = int32(len(a.col) + 1)
	if a.checkPattern(a.n-1, a.n) {
		t.Error("row pointer past the blocks accepted")
	}
}
