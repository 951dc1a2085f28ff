package scene

import (
	"math"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"drape/sim/geom"
	"drape/sim/strainlimit"
)

// TestStrainFigures measures what strain limiting buys on the curtain
// (docs/performance.md, "Strain limiting"): the largest principal strain over the run
// and the cost per step, with the limiter off, on (10 %), and off with
// moduli ten times stiffer (the look by stiffness alone). It is a
// measurement, not a check: run it with
//
//	DRAPE_FIGURES=12 go test ./sim/scene -run TestStrainFigures -v
//
// (the value is the simulated seconds; set DRAPE_FIGURES_SCENE for
// another scene than curtain-adaptive, DRAPE_FIGURES_NOCONTACT=1 to
// turn collisions off).
func TestStrainFigures(t *testing.T) {
	secs, err := strconv.ParseFloat(os.Getenv("DRAPE_FIGURES"), 64)
	if err != nil || secs <= 0 {
		t.Skip("a measurement; set DRAPE_FIGURES=seconds to run it")
	}
	name := os.Getenv("DRAPE_FIGURES_SCENE")
	if name == "" {
		name = "curtain-adaptive"
	}
	for _, c := range []struct {
		label string
		on    bool
		stiff float64
	}{{"off", false, 1}, {"on (10 %)", true, 1}, {"off, moduli ×10", false, 10}, {"off, moduli ×100", false, 100}} {
		sc, err := LoadScene(sceneAssets, name)
		if err != nil {
			t.Fatal(err)
		}
		sc.Strain.Enabled = c.on
		if os.Getenv("DRAPE_FIGURES_NOCONTACT") != "" {
			sc.Contact.Enabled = false
		}
		sc.Params.YoungX *= c.stiff
		sc.Params.YoungY *= c.stiff
		sc.Params.Shear *= c.stiff
		sim, err := sc.Build()
		if err != nil {
			t.Fatal(err)
		}
		steps := int(math.Round(secs / sc.Params.Dt))
		// worst: the largest strain after steps that did not remesh;
		// remeshed: after steps that did (new faces start from the
		// positions the old mesh left; the next step's limiter acts on
		// them). bulk: the strain that all but 0.1 % of the cloth's rest
		// area stays below, largest over the steps, because the largest
		// strain sits on a few sliver faces (a 2 mm high triangle at the
		// free side edge reads 40 % when its height changes by 0.8 mm).
		var worst, remeshed, bulk, sumIt float64
		var total, limit time.Duration
		var strains []float64
		var byStrain []faceStrain
		for i := 0; i < steps; i++ {
			st, err := sim.Step()
			if err != nil {
				t.Fatalf("%s: step %d: %v", c.label, i, err)
			}
			total += st.Total()
			limit += st.Limit
			sumIt += float64(st.Iterations)
			strains = strainlimit.PrincipalStrains(sim.Mesh.Pos, sim.Mesh.Rest, sim.Mesh.Tris, strains)
			w := &worst
			if st.Adapt > 0 {
				w = &remeshed
			}
			byStrain = byStrain[:0]
			area := 0.0
			for f, e := range strains {
				if sim.Mesh.FaceAlive(f) {
					*w = math.Max(*w, e)
					a := restArea(sim.Mesh.Rest, sim.Mesh.Tris[f])
					byStrain = append(byStrain, faceStrain{e, a})
					area += a
				}
			}
			if st.Adapt == 0 {
				bulk = math.Max(bulk, areaQuantile(byStrain, 0.999*area))
			}
		}
		ms := float64(total.Microseconds()) / 1000 / float64(steps)
		t.Logf("%s, %s, %g s: largest principal strain %.1f %% (%.1f %% after steps that remeshed; 99.9 %% of the area below %.1f %%), %.2f ms/step, PCG %.1f iterations/step, strain limiting %.1f %% of the step",
			name, c.label, secs, 100*worst, 100*remeshed, 100*bulk, ms, sumIt/float64(steps), 100*float64(limit)/float64(total))
	}
}

type faceStrain struct{ strain, area float64 }

// areaQuantile returns the strain below which faces of total rest area
// at least below lie (fs is reordered).
func areaQuantile(fs []faceStrain, below float64) float64 {
	sort.Slice(fs, func(i, j int) bool { return fs[i].strain < fs[j].strain })
	sum := 0.0
	for _, f := range fs {
		sum += f.area
		if sum >= below {
			return f.strain
		}
	}
	return fs[len(fs)-1].strain
}

// restArea is a face's area in material coordinates, m².
func restArea(rest []geom.Vec2, t [3]int32) float64 {
	return 0.5 * math.Abs(rest[t[1]].Sub(rest[t[0]]).Cross(rest[t[2]].Sub(rest[t[0]])))
}
