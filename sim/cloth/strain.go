package cloth

import (
	"fmt"
	"time"

	"drape/sim/strainlimit"
)

// strainState couples unbiased strain limiting (Tsiknis 2006 ch. 2,
// package strainlimit) to the step: a post-process of phase 4 before the
// collisions' continuous stage, so that the final state is still
// collision-free. Without collisions it runs on its own; with them it
// runs inside the collision phase, after the proximity impulses and
// before CCD (contact.Solver.ResolveWith). Decision, measured on the
// gathering adaptive curtain (strain limit 10 %): run before the whole
// collision phase, the limiter left every face within 10.2 %, and the
// proximity impulses then stretched the smallest faces (generation 6,
// 6 mm edges, whose vertices weigh a fraction of their coarse neighbours'
// and so take nearly the whole relative velocity of a contact) to
// 25–61 %, with a handful of cloth–cloth pairs and no CCD hit. After CCD
// responses it runs again, with the continuous stage after it, up to two
// more times (after such steps on the gathering curtain: at most one face
// over 15 % instead of 31, the largest 10.9–29.2 % instead of 186 %;
// TestStrainLimitWithCollisions).
type strainState struct {
	p       strainlimit.Params
	lim     *strainlimit.Limiter
	in      strainlimit.Input
	t1      float64           // the step's end, for limitBetween
	st      strainlimit.Stats // limitBetween's stats
	took    time.Duration     // limitBetween's time
	between func() error      // s.limitBetween, bound once (a method value allocates)
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

// limitBetween is limitStrain as the collision phase's between step
// (strainState), called once after the proximity impulses and again after
// CCD responses (contact.betweenRounds): it keeps the first call's stats,
// with the last call's MaxStrainAfter, and the time of all, for Step.
func (s *Sim) limitBetween() error {
	t := time.Now()
	st, err := s.limitStrain(s.sl.t1)
	if s.sl.took == 0 {
		s.sl.st = st
	}
	s.sl.st.MaxStrainAfter = st.MaxStrainAfter
	s.sl.took += time.Since(t)
	return err
}
