package app

import (
	"math"
	"testing"

	"drape/sim/strainlimit"
)

// TestStrainColors: the strain colour mode's scalar is the largest
// principal strain of the faces around each vertex: 0 for a sheet at rest
// and 0.1 everywhere for the same sheet stretched 10 % along material X;
// the colour menu cycles through its four entries.
func TestStrainColors(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	snap := l.Snapshots().Acquire()
	var sc strainColors
	m := sc.mesh(&snap.Surface)
	for i, e := range m.Scalar {
		if math.Abs(float64(e)) > 1e-3 {
			t.Fatalf("vertex %d: strain %g at rest", i, e)
		}
	}
	s := snap.Surface
	s.Pos = append([]float32(nil), s.Pos...)
	for i := 0; i < s.NumVerts(); i++ {
		s.Pos[3*i] = 1.1 * s.Rest[2*i] // x = 1.1·X: 10 % along the weft
		s.Pos[3*i+1] = 1.5
		s.Pos[3*i+2] = -s.Rest[2*i+1]
	}
	m = sc.mesh(&s)
	for i, e := range m.Scalar {
		if math.Abs(float64(e)-0.1) > 1e-4 {
			t.Fatalf("vertex %d: strain %g, want 0.1", i, e)
		}
	}
	if r := strainRange(strainlimit.Params{Enabled: true, MaxWeft: 0.05, MaxWarp: 0.08}); r != 0.16 {
		t.Errorf("strain range %g, want 0.16 (twice the larger limit)", r)
	}
	var tg toggles
	for want := 1; want <= 4; want++ {
		tg.setColorMode(tg.colorMode() + 1)
		if got := tg.colorMode(); got != want%colorModes {
			t.Fatalf("colour mode %d after %d presses, want %d", got, want, want%colorModes)
		}
	}
}

// TestLoopSetStrain: the strain block goes through CmdSetBlocks, applies
// from the next step, and a bad limit is rejected with the settings in
// force kept.
func TestLoopSetStrain(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	p := strainlimit.DefaultParams()
	p.Enabled, p.MaxWeft = true, 0.05
	l.apply(setCmd(BlockStrain, Blocks{Strain: p}))
	l.step()
	snap := l.Snapshots().Acquire()
	if snap.EditErr != "" || !snap.Blocks.Strain.Enabled || snap.Blocks.Strain.MaxWeft != 0.05 {
		t.Fatalf("after the edit: %q, strain %+v", snap.EditErr, snap.Blocks.Strain)
	}
	bad := p
	bad.MaxWeft = -1
	l.apply(setCmd(BlockStrain, Blocks{Strain: bad}))
	l.step()
	snap = l.Snapshots().Acquire()
	if snap.EditErr == "" || snap.Blocks.Strain.MaxWeft != 0.05 {
		t.Fatalf("a negative limit: error %q, strain %+v (want rejected, 0.05 kept)", snap.EditErr, snap.Blocks.Strain)
	}
}

// TestTangledCount: a cloth that starts with its sheets passing through
// each other is reported in the snapshot (Stats.Tangled), and an
// untangled one as 0.
func TestTangledCount(t *testing.T) {
	for _, c := range []struct {
		scene string
		want  bool
	}{{"../sim/scene/testdata/tangled.json", true}, {"hanging", false}} {
		l := newTestLoop(t, c.scene, true)
		l.step()
		snap := l.Snapshots().Acquire()
		if got := snap.Stats.Tangled > 0; got != c.want {
			t.Errorf("%s: %d intersecting pairs reported", c.scene, snap.Stats.Tangled)
		}
	}
}
