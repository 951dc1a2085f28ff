package adapt

import (
	"strings"
	"testing"

	"drape/sim/geom"
)

// TestRefineUniform: each uniform √3 step triples the faces (820 → 2460 →
// 7380 → 22140 for the curtain's base mesh), brings every face to its
// generation, keeps the topology valid and the material area; odd or
// out-of-range generations are refused.
func TestRefineUniform(t *testing.T) {
	for _, c := range []struct {
		g, gmax, faces int
		err            string
	}{
		{0, 6, 820, ""},
		{2, 6, 2460, ""},
		{4, 6, 7380, ""},
		{6, 6, 22140, ""},
		{3, 6, 0, "must be even and in [0, 6], got 3"},
		{8, 6, 0, "got 8"},
		{-2, 6, 0, "got -2"},
	} {
		m, err := geom.StaggeredGrid(2.46, 1.8, 20, 20)
		if err != nil {
			t.Fatal(err)
		}
		area, _ := m.RestAreas()
		a, err := NewAdapter(m, c.gmax)
		if err != nil {
			t.Fatal(err)
		}
		err = a.RefineUniform(c.g)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || m.NumTris() != 820 {
				t.Errorf("g=%d: got err=%v and %d faces, want %q and the mesh unchanged", c.g, err, m.NumTris(), c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("g=%d: %v", c.g, err)
		}
		if got := m.NumTris(); got != c.faces {
			t.Errorf("g=%d: faces got=%d, want=%d", c.g, got, c.faces)
		}
		for f := range m.Tris {
			if m.FaceAlive(f) && Generation(m.Gen[f]) != c.g {
				t.Fatalf("g=%d: face %d has generation %d", c.g, f, Generation(m.Gen[f]))
			}
		}
		if err := m.CheckTopology(); err != nil {
			t.Errorf("g=%d: %v", c.g, err)
		}
		if got, _ := m.RestAreas(); got < area*(1-1e-12) || got > area*(1+1e-12) {
			t.Errorf("g=%d: material area got=%v, want=%v", c.g, got, area)
		}
	}
}

// TestUniformGeneration: uniform refinement reaches the even generations
// only, and CheckUniform names the largest even one within gmax.
func TestUniformGeneration(t *testing.T) {
	for g, want := range map[int]bool{-2: false, -1: false, 0: true, 1: false, 2: true, 5: false, 30: true} {
		if got := UniformGeneration(g); got != want {
			t.Errorf("UniformGeneration(%d) got=%v, want=%v", g, got, want)
		}
	}
	if err := CheckUniform(6, 7); err != nil {
		t.Errorf("CheckUniform(6, 7): %v", err)
	}
	if err := CheckUniform(8, 7); err == nil || !strings.Contains(err.Error(), "in [0, 6], got 8") {
		t.Errorf("CheckUniform(8, 7) got=%v, want the range [0, 6]", err)
	}
}
