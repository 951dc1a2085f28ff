package cloth

import (
	"fmt"
	"math/rand/v2"

	"drape/sim/geom"
)

// MaxPerturb is the largest standard deviation Perturb takes, m: a
// six-sigma nudge (6 µm) stays below the smallest contact thickness h a
// scene may set (10 µm), so the nudged cloth keeps the gaps that
// collision handling left between its layers and the obstacles.
const MaxPerturb = 1e-6

// Perturb nudges every live vertex by a normal deviate of standard
// deviation sigma (m) along each axis, drawn in slot order from a PCG
// stream seeded by seed: the same seed gives the same nudge to the same
// mesh, another seed another. Self-colliding, folding cloth is chaotic,
// so a nudge far below anything the cloth resolves samples how far a
// run's figures move with its start (drape bench --perturb).
// Velocities, pins and their targets stay as they are: a pinned vertex is
// nudged too and lands back on its target at the end of the next step.
// It returns an error, changing nothing, unless 0 ≤ sigma ≤ MaxPerturb.
func (s *Sim) Perturb(seed int64, sigma float64) error {
	if !(sigma >= 0 && sigma <= MaxPerturb) {
		return fmt.Errorf("perturbation: standard deviation must be in [0, %g] m, got %v", float64(MaxPerturb), sigma)
	}
	m := s.Mesh
	rng := rand.New(rand.NewPCG(uint64(seed), 0x64726170))
	for i := range m.Pos {
		if m.VertAlive[i] {
			m.Pos[i] = m.Pos[i].Add(geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Scale(sigma))
		}
	}
	return nil
}

// SetVelocity sets the velocity of vertex v to vel, m/s, for the next
// step to start from: an initial push (the Cusick test's fall). A pinned
// vertex's velocity is prescribed by its pin in every step, so the value
// given to one lasts until then. It returns an error, changing nothing,
// for a missing vertex or a non-finite velocity.
func (s *Sim) SetVelocity(v int32, vel geom.Vec3) error {
	if err := s.checkVertex(v); err != nil {
		return err
	}
	if !vel.IsFinite() {
		return fmt.Errorf("velocity %v of vertex %d is not finite", vel, v)
	}
	s.Mesh.Vel[v] = vel
	return nil
}
