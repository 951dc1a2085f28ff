package scene

import (
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"drape/sim/strainlimit"
)

// TestStrainFigures measures what strain limiting buys on the curtain
// (README, "Strain limiting"): the largest principal strain over the run
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
		var worst, sumIt float64
		var total, limit time.Duration
		var strains []float64
		for i := 0; i < steps; i++ {
			st, err := sim.Step()
			if err != nil {
				t.Fatalf("%s: step %d: %v", c.label, i, err)
			}
			total += st.Total()
			limit += st.Limit
			sumIt += float64(st.Iterations)
			if i%10 == 9 {
				strains = strainlimit.PrincipalStrains(sim.Mesh.Pos, sim.Mesh.Rest, sim.Mesh.Tris, strains)
				for f, e := range strains {
					if sim.Mesh.FaceAlive(f) {
						worst = math.Max(worst, e)
					}
				}
			}
		}
		ms := float64(total.Microseconds()) / 1000 / float64(steps)
		t.Logf("%s, %s, %g s: largest principal strain %.1f %%, %.2f ms/step, PCG %.1f iterations/step, strain limiting %.1f %% of the step",
			name, c.label, secs, 100*worst, ms, sumIt/float64(steps), 100*float64(limit)/float64(total))
	}
}
