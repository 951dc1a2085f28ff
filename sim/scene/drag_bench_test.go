package scene

import (
	"testing"

	"drape/sim/geom"
)

// BenchmarkBunnyDrag measures a step of bunny with the cloth draped over
// it (600 steps, 3 s, in), the bunny still and dragged sideways at the
// hand's speed: a dragged mesh obstacle costs the collision phase its
// sweeps and the hand its leash (cloth.Sim.carriedStretch, pushedIn),
// which ask for the mesh's signed distance at every cloth vertex near it
// (obstacle.meshSDF's hierarchy). Run with -benchtime 20x: every run
// drapes the cloth anew.
func BenchmarkBunnyDrag(b *testing.B) {
	for _, c := range []struct {
		name string
		drag bool
	}{{"still", false}, {"dragged", true}} {
		b.Run(c.name, func(b *testing.B) {
			s := buildScene(b, sceneAssets, "bunny")
			for range 600 {
				if _, err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
			if c.drag {
				if err := s.DragObstacle(0, s.Obstacles()[0].Offset().Add(geom.Vec3{X: 2})); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				if _, err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
