package cloth

import (
	"fmt"

	"drape/sim/strainlimit"
)

// strainState couples unbiased strain limiting (Tsiknis 2006 ch. 2,
// package strainlimit) to the step: the first post-process of phase 4,
// before collisions, so that the final state is still collision-free.
type strainState struct {
	p   strainlimit.Params
	lim *strainlimit.Limiter
	in  strainlimit.Input
}

// StrainParams returns the strain-limiting settings in force.
func (s *Sim) StrainParams() strainlimit.Params { return s.sl.p }

// SetStrainParams validates p and applies it from the next step on.
func (s *Sim) SetStrainParams(p strainlimit.Params) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("invalid strain limit: %w", err)
	}
	s.sl.p = p
	return nil
}

// limitStrain limits the strain of x^{n+1} = x^n + Δt·v^{n+½} by changing
// v^{n+½} (Tsiknis §2.1–2.3). Pinned vertices are held (inverse mass 0);
// the vertex dragged with the mouse stays free, so the mouse spring
// stretches instead of the cloth. On error vHalf is as it was.
func (s *Sim) limitStrain(t1 float64) (strainlimit.Stats, error) {
	if s.sl.lim == nil {
		s.sl.lim = strainlimit.NewLimiter()
	}
	m := s.Mesh
	in := &s.sl.in
	in.X0, in.V, in.InvMass, in.Rest, in.Tris = m.Pos, s.vHalf, s.invMass, m.Rest, m.Tris
	st, err := s.sl.lim.Apply(in, s.params.Dt, s.sl.p)
	if err != nil {
		return st, fmt.Errorf("step %d at t=%.3f s: strain limiting: %v: %w", s.Steps+1, t1, err, ErrUnstable)
	}
	return st, nil
}

// fillInvMass sets invMass to 1/(ρ·A_p) for free live vertex slots and 0
// for pinned and free slots: the masses the post-processes of phase 4
// weigh their impulses with (Bender & Deul §4.1 lumped masses).
func (s *Sim) fillInvMass() {
	m := s.Mesh
	s.invMass = growTo(s.invMass, len(m.Pos))
	for i := range m.Pos {
		if !m.VertAlive[i] || s.fixed[i] || s.area[i] <= 0 {
			s.invMass[i] = 0
		} else {
			s.invMass[i] = 1 / (s.params.Density * s.area[i])
		}
	}
}
