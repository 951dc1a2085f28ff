package scene

import (
	"testing"

	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/internal/simtest"
)

// TestLoosestSolveStaysCalm: the PCG tolerance slider's loosest value
// keeps a dragged bunny scene as calm as the default does. The monkey's
// seed 943 on bunny set the slider (then reaching 0.1) to 0.08 with
// strain limiting at 4 % warp and the bunny dragged, and the cloth blew
// up at 379 m/s 1.1 s later. Here, from the scene's start with the same
// strain limit, the bunny dragged at the hand's speed for 2 s: the
// fastest vertex reached 6.1 m/s at tolerance 1e-3, 6.9 at 1e-2 (the
// slider's end now), 10.3 at 3e-2 and 38 at 8e-2 in 80 steps. The bound,
// three times the hand's speed, fails at 3e-2.
func TestLoosestSolveStaysCalm(t *testing.T) {
	simtest.SkipUnderRace(t)
	s := buildScene(t, sceneAssets, "bunny")
	sp := s.StrainParams()
	sp.MaxWarp = 0.04172
	if err := s.SetStrainParams(sp); err != nil {
		t.Fatal(err)
	}
	if err := s.DragObstacle(0, s.Obstacles()[0].Offset().Add(geom.Vec3{X: 0.6, Y: 0.29, Z: -0.75})); err != nil {
		t.Fatal(err)
	}
	p := s.Params()
	p.Tolerance = cloth.ParamTable.Field("tolerance").SliderMax
	if err := s.SetParams(p); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range 400 {
		if _, err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		for v, u := range s.Mesh.Vel {
			if s.Mesh.VertAlive[v] {
				worst = max(worst, u.Norm())
			}
		}
	}
	if bound := 3 * cloth.HandSpeed; worst > bound {
		t.Errorf("at tolerance %g the fastest vertex reached %.1f m/s, want at most %.1f", p.Tolerance, worst, bound)
	}
	t.Logf("tolerance %g: fastest vertex %.2f m/s, %d steps retried", p.Tolerance, worst, s.Retried())
}
