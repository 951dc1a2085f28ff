package scene

import (
	"os"
	"testing"

	"drape/sim/strainlimit"
)

func TestDbgStrain(t *testing.T) {
	sc, _ := LoadScene(sceneAssets, "curtain-adaptive")
	if os.Getenv("DBG_H") != "" {
		sc.Contact.Thickness = 0.001
	}
	sim, _ := sc.Build()
	var strains []float64
	for i := 0; i < 1800; i++ {
		if _, err := sim.Step(); err != nil {
			t.Fatal(err)
		}
		if i%100 != 99 {
			continue
		}
		m := sim.Mesh
		strains = strainlimit.PrincipalStrains(m.Pos, m.Rest, m.Tris, strains)
		wf, w := -1, 0.0
		n := 0
		for f, e := range strains {
			if m.FaceAlive(f) {
				if e > w {
					w, wf = e, f
				}
				if e > 0.2 {
					n++
				}
			}
		}
		tr := m.Tris[wf]
		pinned := map[int32]bool{}
		for _, p := range sim.Pins() {
			pinned[p.Vertex] = true
		}
		a := m.Rest[tr[1]].Sub(m.Rest[tr[0]])
		b := m.Rest[tr[2]].Sub(m.Rest[tr[0]])
		t.Logf("t=%.2f: max strain %.3f at face %d (gen %d) rest area %.3g, pinned %v %v %v, faces over 20%%: %d; rest %v %v %v",
			sim.Time, w, wf, m.Gen[wf]&31, 0.5*(a.X*b.Y-a.Y*b.X), pinned[tr[0]], pinned[tr[1]], pinned[tr[2]], n, m.Rest[tr[0]], m.Rest[tr[1]], m.Rest[tr[2]])
	}
}
