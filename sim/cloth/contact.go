package cloth

import (
	"errors"
	"fmt"
	"math"

	"drape/sim/buf"
	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/obstacle"
)

// contactState couples the collision pipeline (package contact) and the
// obstacles (package obstacle) to the step: Bender & Deul §3 steps 4–6
// and §6, with Baraff & Witkin's one-direction filter for resting contact.
type contactState struct {
	p         contact.Params
	obstacles []*obstacle.Obstacle
	solver    *contact.Solver
	bodies    []contact.Body
	inside    []*bodyInside // per obstacle: what its Body.Inside answers (nil for a plane or a round body)
	moved     []bool        // per obstacle: it moved during the previous step (its grid is stale)
	pushing   []bool        // per obstacle: it moved in the last step or moves in the next (no resting contacts on it)
	near      []bool        // per face slot: in contact at the last Resolve (adaptivity holds them)
	tangled   []bool        // per vertex slot: scratch of holdTangles
	cloth     contact.Cloth // the cloth handed to the solver in this step (beginCollisions)
	jumpNear  []int32       // closesOnCloth's scratch: vertex slots near the obstacle
	jumpD     []float64     // and their distances, m
	resolved  bool          // a Resolve ran since the last adaptation: near is valid

	// Resting contacts (Baraff & Witkin 1998 §5.3): vertices held along a
	// body's normal during the next solve. body[v] is the body index of
	// constrained vertex slot v; release[v] marks a vertex whose
	// constraint force pulled towards the body in the last solve.
	body       []int32
	release    []bool
	released   []int32     // the slots release marks, cleared when the step commits
	nextNormal []geom.Vec3 // proposed constraints of the step in progress
	nextVertex []int32
	nextBody   []int32
	impulseSum float64 // Σ normal constraint impulses of the last step, N·s (rest contact force × Δt)

	// The pairs within h of the last Resolve, the next solve's repulsion
	// springs (repulsion.go), and per vertex slot the springs' force (in
	// the row convention: minus the force) and diagonal Jacobian block.
	pairs     []contact.NearPair
	pairsStep int // the (sub)step whose collision phase found pairs (commits after it)
	springF   []geom.Vec3
	springK   []geom.Mat3
	springOn  []bool
	newVert   []bool        // keepPairsAcross's scratch, per vertex slot
	failsafes int           // steps whose collisions the failsafe resolved (Failsafes)
	un        untangleState // recovery from self-intersections (untangle.go)

	// Obstacles dragged by hand (DragObstacle, hand.go): the offset each
	// is being dragged to, whether it is, and the offsets before the step
	// in progress.
	goal         []geom.Vec3
	goalOn       []bool
	offsetBefore []geom.Vec3
	holdHands    bool        // the step in progress keeps the pins, the drag anchor and the dragged obstacles still (errBlocked)
	carry        []float64   // per obstacle: carriedStretch when it last moved by hand, −1 when not dragged
	gapVerts     []geom.Vec3 // obstacleGap's scratch: the dragged obstacle's vertices
	gapOther     []geom.Vec3 // and another's

	// insideDue's state: the last collision phase found cloth inside or
	// across a mesh body, and Failsafes and Sim.retried when it last looked.
	insideFound              bool
	insideFails, insideRetry int
}

// ContactParams returns the collision settings in force.
func (s *Sim) ContactParams() contact.Params { return s.ct.p }

// SetContactParams validates p and applies it from the next step on.
func (s *Sim) SetContactParams(p contact.Params) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("invalid contact parameters: %w", err)
	}
	was := s.ct.p.Enabled
	s.ct.p = p
	if !p.Enabled {
		s.ct.resolved = false
		s.unconstrain()
	} else if !was {
		s.pinsOutside()
	}
	return nil
}

// pinsOutside sends every pin without a Path whose goal is inside an
// obstacle out to where Pin would have let a hand take it (outside, the
// contact thickness from the surface), at HandSpeed like any pin moved
// by hand; on the way out apart does not hold it back. Collisions call
// it when they come back on and when obstacles are set: a pin set on
// cloth that lay inside an obstacle while collisions were off holds that
// cloth in, against the contact response, and the pin wins. The
// monkey's seed 600 on ground pinned four vertices of the sheet that had
// fallen 0.3–0.6 m through the ground with collisions off; back on, 952
// vertices stayed under the ground for the 5.6 s until the next reset
// (TestMonkeyPinsOutOfTheGround). A scripted pin (Path) is the scene's
// and is left where its path puts it; a pin resting on a surface, within
// the thickness but not inside, is left where it is.
func (s *Sim) pinsOutside() {
	for k := range s.pins {
		p := &s.pins[k]
		if p.Path != nil {
			continue
		}
		if s.insideObstacle(p.Goal) {
			p.Goal, p.Hand = s.outside(p.Goal), true
		}
	}
}

// SetObstacles replaces the obstacles the cloth collides with. The Sim
// keeps the pointers: the caller may move an obstacle with SetOffset
// between steps (the viewer's drag), which the next step sees as motion.
func (s *Sim) SetObstacles(obs []*obstacle.Obstacle) {
	s.ct.obstacles = append(s.ct.obstacles[:0], obs...)
	s.ct.pairs = s.ct.pairs[:0] // offsets measured from the old bodies
	s.ct.bodies = make([]contact.Body, len(obs))
	s.ct.inside = make([]*bodyInside, len(obs))
	s.ct.insideFound = true // the cloth may be inside the new ones: look (insideDue)
	s.ct.moved = make([]bool, len(obs))
	s.ct.pushing = make([]bool, len(obs))
	for k := range s.ct.moved {
		s.ct.moved[k] = true // build every grid on the first step
	}
	s.ct.goal, s.ct.goalOn = nil, nil
	s.ct.solver = nil
	s.ct.resolved = false
	s.unconstrain()
	s.pinsOutside()
}

// Obstacles returns the obstacles (shared; see SetObstacles).
func (s *Sim) Obstacles() []*obstacle.Obstacle { return s.ct.obstacles }

// LastContacts returns the vertex–body contacts of the last step (valid
// until the next step).
func (s *Sim) LastContacts() []contact.Contact {
	if s.ct.solver == nil {
		return nil
	}
	return s.ct.solver.Contacts()
}

// Failsafes returns how many steps since the obstacles were set ended in
// the collision failsafe: impact zones that did not converge, after which
// the free vertices were held still for the step (see endCollisions).
func (s *Sim) Failsafes() int { return s.ct.failsafes }

// RestingImpulse returns the sum of the normal impulses the resting-contact
// constraints exerted during the last step, N·s: divided by Δt, the force
// the obstacles carry (the cloth's weight when it lies at rest).
func (s *Sim) RestingImpulse() float64 { return s.ct.impulseSum }

// collides reports whether the collision phase has anything to do.
func (s *Sim) collides() bool {
	c := &s.ct
	return c.p.Enabled && (len(c.obstacles) > 0 || c.p.SelfCollision)
}

// contactForces runs after the solve (phase 2), for the vertices held by
// resting-contact constraints: the constraint's normal impulse
// λ = n·(A·Δv − b)_i (Baraff & Witkin 1998 §5.3: the residual the filter
// removed) is the body's push. A negative λ pulls the cloth onto the
// body: the constraint is released for the next step. A positive λ is
// the normal impulse of Coulomb friction, |Δv_t| ≤ μ·λ/m, applied to the
// tangential velocity relative to the body (static bodies only carry
// constraints), because the constrained vertex no longer approaches the
// body and the collision phase would see no normal impulse to base
// friction on.
func (s *Sim) contactForces() {
	c := &s.ct
	c.impulseSum = 0
	if len(s.constrained) == 0 {
		return
	}
	c.release = buf.Keep(c.release, len(s.Mesh.Pos))
	sys := s.sys
	coupled := sys.coupling.active()
	if coupled { // the repulsion springs' part of A·Δv off the mesh's pattern
		sys.coupling.sigmas(s.rowDv, nil)
	}
	for _, v := range s.constrained {
		i := sys.row[v]
		if i < 0 {
			continue
		}
		n := s.normal[v]
		av := sys.mulRow(int(i), s.rowDv)
		if coupled && sys.coupling.hasRow(int(i)) {
			av = av.Add(sys.coupling.row(int(i), s.rowDv[i]))
		}
		lambda := n.Dot(av.Sub(s.rhs[i]))
		if lambda < 0 {
			c.release[v] = true
			c.released = append(c.released, v)
			continue
		}
		c.impulseSum += lambda
		if s.invMass[v] == 0 {
			continue // pinned since it was constrained: the pin decides
		}
		// The constraint also stops the outward speed the last collision
		// phase gave the vertex (a repulsion towards the thickness h),
		// whose friction that phase already applied: only the rest of λ
		// presses the cloth onto the body. (Without this, friction on an
		// incline came out 20–70 % too strong; TestFrictionIncline.)
		press := lambda - math.Max(0, n.Dot(s.Mesh.Vel[v]))/s.invMass[v]
		if press <= 0 {
			continue
		}
		b := c.body[v]
		if b < 0 || int(b) >= len(c.obstacles) {
			continue
		}
		mu := c.obstacles[b].Friction
		vh := s.vHalf[v]
		vt := vh.Sub(n.Scale(n.Dot(vh)))
		speed := vt.Norm()
		if speed == 0 {
			continue
		}
		dvMax := mu * press * s.invMass[v]
		if dvMax >= speed {
			s.vHalf[v] = vh.Sub(vt)
		} else {
			s.vHalf[v] = vh.Sub(vt.Scale(dvMax / speed))
		}
	}
}

// beginCollisions starts phase 4's collision handling on v^{n+½}
// (Bender & Deul §6): the resting contacts' friction (contactForces),
// untangling, the obstacles' surfaces at t^n and t1 and the cloth for
// contact.Solver.Begin. Step then runs the solver's stages itself
// (proximity, strain limiting, continuous) and endCollisions. Without
// collisions (collides) the solver is begun switched off, so that its
// stages do nothing.
func (s *Sim) beginCollisions(t1 float64) error {
	c := &s.ct
	m := s.Mesh
	if c.solver == nil {
		c.solver = contact.NewSolver()
		c.solver.SetStop(s.solver.stop) // SetInterrupt's
	}
	if !s.collides() {
		off := c.p
		off.Enabled = false
		return c.solver.Begin(nil, nil, s.params.Dt, off) // every stage does nothing
	}
	s.contactForces()
	s.untangleVelocity() // self-intersections the collisions let through (untangle.go)
	t0 := s.Time
	look := s.insideDue()
	for k, o := range c.obstacles {
		b := &c.bodies[k]
		b.Friction = o.Friction
		b.Inside = nil
		if o.Kind == obstacle.Plane {
			b.Point, b.Normal = o.Plane(t1)
			b.Tris, b.From, b.To, b.Radius = nil, b.From[:0], b.To[:0], 0
			continue
		}
		moving := o.Moving(t0, t1)
		if a0, b0, r, ok := o.Core(o.SettledPose(t0)); ok {
			// A sphere or a capsule: handled from its core (contact's
			// round bodies), exactly and without its tessellation.
			a1, b1, _, _ := o.Core(o.Pose(t1))
			b.Tris, b.From, b.To = nil, b.From[:0], b.To[:0]
			b.Radius, b.Core, b.CoreTo = r, [2]geom.Vec3{a0, b0}, [2]geom.Vec3{a1, b1}
			b.Static = !moving && !c.moved[k]
			continue
		}
		b.Tris = o.Tris()
		if moving || c.moved[k] || len(b.From) == 0 {
			b.From = o.VerticesAt(o.SettledPose(t0), b.From)
			b.To = o.Vertices(t1, b.To)
		}
		b.Static = !moving && !c.moved[k]
		if c.inside[k] == nil {
			c.inside[k] = &bodyInside{o: o}
			c.inside[k].fn = c.inside[k].at // bound once: a method value allocates
		}
		if look {
			in := c.inside[k]
			in.p0, in.p1, in.dt = o.SettledPose(t0), o.Pose(t1), t1-t0
			b.Inside = in.fn
		}
	}
	s.ct.cloth = contact.Cloth{X: m.Pos, V: s.vHalf, InvMass: s.invMass, Tris: m.Tris, Tangled: s.tangledFaces(), Contour: s.tangledContours()}
	return c.solver.Begin(&s.ct.cloth, c.bodies, s.params.Dt, c.p)
}

// endCollisions ends phase 4's collision handling (contact.Solver.End),
// err being the error of its stages or of the strain limiting between
// them: the failsafe when the impact zones did not converge, and the
// resting-contact constraints proposed for the next step (applied by
// commit). On error vHalf is as it was. Without collisions it returns err.
func (s *Sim) endCollisions(t1 float64, err error) (contact.Stats, error) {
	if !s.collides() {
		return contact.Stats{}, err
	}
	c := &s.ct
	m := s.Mesh
	st, err := c.solver.End(err)
	if errors.Is(err, contact.ErrStopped) || errors.Is(err, ErrInterrupted) {
		return st, ErrInterrupted // SetInterrupt: vHalf is as it was, the step is given up
	}
	if errors.Is(err, contact.ErrUnresolved) {
		// Failsafe (after Bridson et al. 2002 §6.3's last resort, and
		// Harmon et al. 2008's "stop everything"): the impact zones did
		// not converge within their cap, so the free vertices are held
		// still for this step. x^n is collision-free, so x^{n+1} = x^n
		// is too, unless a pin or an obstacle moves into the cloth in
		// this very step: the pins, a dragged obstacle and the drag
		// anchor are held for it (advanceOnce takes the step again,
		// errBlocked); a scripted obstacle is not. It costs one step of
		// motion (its kinetic energy) instead of stopping the
		// simulation: measured once in 2293 steps of the gathered
		// curtain with moduli ×10.
		for i := range s.vHalf {
			if s.invMass[i] > 0 {
				s.vHalf[i] = geom.Vec3{}
			}
		}
		c.failsafes++
		c.nextVertex, c.nextNormal, c.nextBody = c.nextVertex[:0], c.nextNormal[:0], c.nextBody[:0]
		return st, nil
	}
	if errors.Is(err, ErrUnstable) {
		return st, err // the strain limiter's, run between the stages
	}
	if err != nil {
		return st, fmt.Errorf("step %d at t=%.3f s: collisions: %v: %w", s.Steps+1, t1, err, ErrUnstable)
	}
	c.resolved = true
	c.pairs = append(c.pairs[:0], c.solver.Near()...)
	c.pairsStep = s.commits + 1
	c.insideFound = st.Deep > 0 || st.Across > 0

	// Resting contacts for the next solve: vertex–body contacts with a
	// static body that pushed (or that were held already), unless the
	// last solve's constraint force pulled.
	c.nextVertex, c.nextNormal, c.nextBody = c.nextVertex[:0], c.nextNormal[:0], c.nextBody[:0]
	c.body = buf.Keep(c.body, len(m.Pos))
	c.release = buf.Keep(c.release, len(m.Pos))
	for k, o := range c.obstacles {
		dragged := k < len(c.goalOn) && c.goalOn[k] && o.Offset() != c.goal[k]
		c.pushing[k] = o.Moving(t1, t1+s.params.Dt) || c.moved[k] || dragged
	}
	for _, ct := range c.solver.Contacts() {
		v := ct.Vertex
		if s.fixed[v] || c.release[v] || ct.Body < 0 || ct.Body >= len(c.obstacles) {
			continue
		}
		if c.pushing[ct.Body] {
			continue // a moving body pushes through the collision phase only
		}
		held := s.normal[v] != (geom.Vec3{})
		if ct.Impulse > 0 || held {
			c.nextVertex = append(c.nextVertex, v)
			c.nextNormal = append(c.nextNormal, ct.Normal)
			c.nextBody = append(c.nextBody, int32(ct.Body))
		}
	}
	return st, nil
}

// commitContacts makes the proposed constraints those of the next step,
// and lets the obstacles settle at their new poses (end of phase 5).
func (s *Sim) commitContacts(t0, t1 float64) {
	c := &s.ct
	for k, o := range c.obstacles {
		c.moved[k] = o.Moving(t0, t1)
		o.Settle()
	}
	if !s.collides() {
		return
	}
	// Every release mark goes, also of slots an adaptation freed since.
	for _, v := range c.released {
		c.release[v] = false
	}
	c.released = c.released[:0]
	s.unconstrain()
	for k, v := range c.nextVertex {
		s.constrain(v, c.nextNormal[k], 0)
		c.body[v] = c.nextBody[k]
	}
}

// pushOut moves the vertices that adaptation created out of the
// obstacles, to half the contact thickness from the surface, and removes
// their velocity into it: a vertex inserted at a face's centroid lies on
// the chord, which for a face wrapped over a curved obstacle is inside it
// (by L²/8R, 0.4 mm for 4 cm faces on a 0.5 m sphere). Bender & Deul §7
// leave this open; issue: "a vertex inserted by refinement starts outside
// every obstacle".
func (s *Sim) pushOut(newVerts []int32) {
	c := &s.ct
	if !s.collides() || len(c.obstacles) == 0 {
		return
	}
	m := s.Mesh
	h := c.p.Thickness / 2
	for _, v := range newVerts {
		for _, o := range c.obstacles {
			d, n := o.SignedDistance(m.Pos[v], s.Time)
			if d >= h {
				continue
			}
			m.Pos[v] = m.Pos[v].Add(n.Scale(h - d))
			if vn := n.Dot(m.Vel[v]); vn < 0 && !o.Moving(s.Time, s.Time+s.params.Dt) {
				m.Vel[v] = m.Vel[v].Sub(n.Scale(vn))
			}
		}
	}
}

// holdContacts tells the adapter which faces are in contact, so that it
// neither flips nor coarsens them (Bender & Deul §7, discussion).
func (s *Sim) holdContacts() {
	c := &s.ct
	if !s.collides() || !c.resolved || c.solver == nil {
		s.ad.a.Hold(nil)
		return
	}
	c.near = c.solver.NearFaces(c.near)
	s.ad.a.Hold(c.near)
}

// holdTangles adds to the hold, for the next try of an adaptation that
// was undone (Sim.Adapt), every face round the vertex slots vs that the
// mesh had before it (the mesh is that one again): Adapt leaves them, and
// holdRings more rings, alone. Slots the undone adaptation made are
// skipped.
func (s *Sim) holdTangles(vs []int32) {
	c := &s.ct
	m := s.Mesh
	c.near = buf.Keep(c.near, len(m.Tris))
	if !c.resolved || c.solver == nil {
		clear(c.near) // holdContacts held nothing
	}
	// Mark the slots, then one pass over the faces (not one per slot).
	c.tangled = buf.Keep(c.tangled, len(m.VertAlive))
	clear(c.tangled)
	for _, v := range vs {
		if v >= 0 && int(v) < len(m.VertAlive) && m.VertAlive[v] {
			c.tangled[v] = true
		}
	}
	for f, t := range m.Tris {
		if t[0] >= 0 && (c.tangled[t[0]] || c.tangled[t[1]] || c.tangled[t[2]]) {
			c.near[f] = true
		}
	}
	s.ad.a.Hold(c.near)
}

// takeBackEscape removes from the committed velocities what the
// collision phase added to move vertices out of a body faster than
// contact.PushSpeed (contact.Solver.Escape): the part of each velocity
// along that escape, up to its length, so that the cloth has moved out
// by it in this step and leaves the body no faster than PushSpeed.
func (s *Sim) takeBackEscape() {
	if s.ct.solver == nil {
		return
	}
	esc := s.ct.solver.Escape()
	m := s.Mesh
	for i, e := range esc {
		n2 := e.Dot(e)
		if n2 == 0 || i >= len(m.Vel) || !m.VertAlive[i] {
			continue
		}
		if along := m.Vel[i].Dot(e) / n2; along > 0 {
			m.Vel[i] = m.Vel[i].Sub(e.Scale(min(along, 1)))
		}
	}
}

// bodyInside answers contact.Body.Inside for a mesh obstacle over the
// step from t^n to t^{n+1}: its signed distance at t^n (obstacle's
// analytic surface, or a mesh's own triangles), the outward normal, and
// the velocity over the step of the closest point of its surface as the
// body carries it from pose p0 to p1.
type bodyInside struct {
	o      *obstacle.Obstacle
	p0, p1 obstacle.Pose
	dt     float64
	fn     func(geom.Vec3) (float64, geom.Vec3, geom.Vec3)
}

// at is contact.Body.Inside.
func (b *bodyInside) at(p geom.Vec3) (float64, geom.Vec3, geom.Vec3) {
	d, n := b.o.SignedDistanceAt(b.p0, p)
	q := p.Sub(n.Scale(d))
	var v geom.Vec3
	if b.p0 != b.p1 && b.dt > 0 {
		v = b.p1.Apply(b.p0.ApplyInverse(q)).Sub(q).Scale(1 / b.dt)
	}
	return d, n, v
}

// insideDue reports whether this step's collision phase looks for cloth
// inside or across the mesh obstacles (contact.Body.Inside;
// contact/deep.go): in the first step, after SetObstacles, in the first
// step with collisions after one without (collisions were off, or the
// last attempt failed), after a step the collision failsafe resolved or
// the substep failsafe took again, and while the last phase found some.
// Otherwise the collision phase's CCD keeps the cloth out, and the look
// is not worth its cost: asked in every step, bunny's 10,000-triangle
// mesh answered for the cloth draped over it at 12.2 → 22.2 ms a step
// (GOMAXPROCS=1, 3 s). While some cloth stays inside (held there by a
// pin's neighbours, say), every step pays that price.
func (s *Sim) insideDue() bool {
	c := &s.ct
	due := c.pairsStep != s.commits || s.commits == 0 || c.failsafes != c.insideFails || s.retried != c.insideRetry || c.insideFound
	c.insideFails, c.insideRetry = c.failsafes, s.retried
	return due
}
