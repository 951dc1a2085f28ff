package cloth

import (
	"errors"
	"fmt"
	"math"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/obstacle"
)

// HandSpeed caps how fast the targets a person moves travel, m per
// simulated second: a pin moved by hand (Pin on a pinned vertex), the
// anchor of the vertex-drag spring (Drag) and a dragged obstacle
// (DragObstacle). Each step moves them towards where they were asked to be
// by at most HandSpeed·Δt, so they follow the mouse in slow motion when
// the simulation runs slower than real time.
//
// The viewer coalesces mouse moves between steps, and on a slow scene a
// flick across the window (1280 px in 0.1 s, about 25 m/s at the cloth's
// depth) arrives as a jump of tens of centimetres in one 5 ms step. A
// pinned vertex that jumps 0.3 m in a step moves at 60 m/s and yanks its
// free neighbours past the 200 m/s blow-up limit; a drag spring's anchor
// that jumps does the same to the dragged vertex; an obstacle that jumps
// sweeps through the cloth faster than the collision response can push
// it (issue 39: pin drags alone blew up the hanging sheet and the sphere
// scene within two seconds of random play). At 3 m/s a dragged sphere
// pushes a hanging sheet like a brisk hand (at 5 m/s, the tunnelling
// test's speed, testdata/sphere-push.json's sheet was flung half a metre
// past the ball). It is the one cap for all three.
const HandSpeed = 3.0

// HandStretch is how far a person may stretch the cloth between two pins,
// or between a pin and a dragged vertex, when strain limiting is off: a
// pin moved by hand (or the drag spring's anchor) stops where its
// distance to another pin's target would exceed (1 + HandStretch) times
// their vertices' distance in the material plane (with strain limiting
// on, the larger of its two limits replaces HandStretch). The material
// distance is a lower bound of the rest geodesic between them, so the
// cap never allows more than this strain along the straight line.
//
// Without it the monkey (sim/monkey, seed 2 on hanging) dragged one
// corner of the hanging sheet 2 m from the other pinned corner; unpinning
// it released the sheet stretched to three times its length, whose corner
// snapped back at 1160 m/s, past any blow-up limit. The snap-back speed of
// a released strain ε is about ε·√(E/ρ) (100 m/s per unit strain for the
// default cloth), so 30 % keeps even the stiffest slider settings'
// releases within a few substeps of the failsafe.
const HandStretch = 0.3

// reachable returns goal moved, if need be, to where a pin or drag
// anchor on vertex v may go: within handReach(Rest[v] − Rest[q]) of every
// other pin q's target (alternating projections onto those balls, a few
// rounds), or, with at not nil, no farther than *at is from a pin it is
// already beyond.
func (s *Sim) reachable(v int32, at *geom.Vec3, goal geom.Vec3) geom.Vec3 {
	m := s.Mesh
	for range 4 {
		moved := false
		for _, q := range s.pins {
			if q.Vertex == v {
				continue
			}
			r := s.handReach(m.Rest[v].Sub(m.Rest[q.Vertex]))
			if at != nil {
				r = max(r, at.Sub(q.Target).Norm())
			}
			d := goal.Sub(q.Target)
			if n := d.Norm(); n > r {
				goal = q.Target.Add(d.Scale(r / n))
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	return goal
}

// handReach is how far apart a person may pull two points of the cloth
// whose rest positions differ by d: (1 + HandStretch)·|d|, or with strain
// limiting on |D·d| with D = diag(1 + f·ε_weft, 1 + f·ε_warp), the
// limiter's own stretch limit along d (strainlimit's orthotropic limits)
// with a share f = HandLimitShare of its strain. The share leaves room
// for the cloth between them to sag: two pins exactly at the limit hold
// the edge between them straight at the limit, which gravity then
// stretches past it, and the limiter uses all its passes in every step
// without getting there (a 1 m sheet held at 10 %: 50 passes a step,
// ending at 11.8 %; at 80 % of the limit it converges).
func (s *Sim) handReach(d geom.Vec2) float64 {
	if p := &s.sl.p; p.Enabled {
		return math.Hypot((1+HandLimitShare*p.MaxWeft)*d.X, (1+HandLimitShare*p.MaxWarp)*d.Y)
	}
	return (1 + HandStretch) * math.Sqrt(d.Norm2())
}

// HandLimitShare is the share of the strain limit that handReach allows
// a person's pull (see there).
const HandLimitShare = 0.8

// leash moves the step's targets of the pins moved by hand (tgt[k] for
// pin k, set by prescribe) back, where need be, so that no edge from a
// moved pin to a free neighbour ends longer than handReach allows for
// it, measured to the neighbour where the step starts; an edge already longer than that may keep its length but not
// grow. The pin then waits for the cloth round it to follow, as a hand
// feels a cloth that is caught.
//
// reachable keeps pins apart by no more than the cloth allows, but a
// pin can also outrun the cloth next to it when that cloth is held:
// caught on an obstacle's edge, squeezed in contact, pressed by friction.
// The monkey's seed 2 on drape-box dragged a pin at 0.5 m/s while its
// neighbours stayed caught on the box: its edges stretched to 5 and then
// 7 times their rest length in 0.1 s, and when strain limiting was
// switched on the limiter's pull on that knot blew the cloth up
// (489 m/s) 23 steps later. A pin moved at most HandSpeed·Δt per step
// only waits here when the cloth does not follow; in a free drag its
// neighbours move with it (TestPinLeash).
func (s *Sim) leash(tgt []geom.Vec3) {
	m := s.Mesh
	s.leashPin = buf.Keep(s.leashPin, len(m.Pos))
	moving := false
	for k, pn := range s.pins {
		if pn.Path == nil && tgt[k] != pn.Target {
			s.leashPin[pn.Vertex] = int32(k) + 1
			moving = true
		}
	}
	if !moving {
		return
	}
	s.leashBalls = s.leashBalls[:0]
	for _, t := range m.Tris {
		if t[0] < 0 {
			continue
		}
		for i, v := range t {
			k := s.leashPin[v] - 1
			if k < 0 {
				continue
			}
			for _, u := range [2]int32{t[(i+1)%3], t[(i+2)%3]} {
				if s.fixed[u] {
					continue
				}
				r := s.handReach(m.Rest[v].Sub(m.Rest[u]))
				r = max(r, s.pins[k].Target.Sub(m.Pos[u]).Norm())
				s.leashBalls = append(s.leashBalls, leashBall{int(k), m.Pos[u], r})
			}
		}
	}
	for range 4 {
		moved := false
		for _, b := range s.leashBalls {
			d := tgt[b.pin].Sub(b.c)
			if n := d.Norm(); n > b.r {
				tgt[b.pin] = b.c.Add(d.Scale(b.r / n))
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	for _, pn := range s.pins {
		s.leashPin[pn.Vertex] = 0
	}
}

// PinGap is how close two pins may come, as a share of their vertices'
// distance in the material plane (capped at pinGapEdges edges): a pin
// that is not scripted (fixed by the scene, pinned or moved by a person)
// stops, or is carried along, where a moving pin would come nearer than
// that (apart).
//
// The gathered curtain's top pins, dragged sideways by hand, were run
// into by the scripted gather, whose pins passed through the held ones:
// the edges between two pinned vertices crossed each other, which no
// collision response can resolve (both ends have infinite mass). The
// contact phase then used all its passes, steps took 10–18 s and the
// next blew up at 883 m/s (the viewer monkey on curtain-adaptive, 3380
// m/s; TestPinsKeepApart). Decision, measured on TestPinsKeepApart's
// drags: at 0.2 the strip of cloth between a held pin and the gather's
// pins, squeezed to a fifth, blew up (seed 4, 2580 m/s); at 0.5 sixteen
// seeds pass. Scripted pins are not held back by it (the gather itself
// brings its pins to 25 % of their rest distance): apart moves only
// pins without a path.
const PinGap = 0.5

// apart moves the step's targets tgt of the pins without a Path (fixed,
// pinned or moved by a person) so that none comes nearer to another pin's
// target than PinGap times their rest distance, unless it comes no nearer
// than it already is. Where a pin would: if the other pin moves in this
// step, it carries this one along by its own displacement, as the rings
// gathered on a curtain rod push a ring held by hand; if the other pin
// stands, this one stops for the step, as a hand feels another pin in the
// way. Carrying rather than pushing out along the line between the two
// keeps a train of carried pins on the line it was on: pushed out of
// each other's balls, the held pins of TestPinsKeepApart's seed 12 were
// squeezed down off the rod into the cloth below, which blew up. Carried
// pins carry others in later rounds (a train of them; at most
// apartRounds). Scripted pins follow their paths; the scene is trusted
// to keep them apart. A pin inside an obstacle is on its way out
// (pinsOutside) and is not held back: the monkey's seed 600 on
// drop-pile had two pins set 9 cm under the ground, each nearer another
// pin than the gap allows on its way out, and 45 vertices round them
// stayed under the ground for good.
func (s *Sim) apart(tgt []geom.Vec3) {
	s.carried = buf.Zeroed(s.carried, len(s.pins))
	s.leaving = buf.Keep(s.leaving, len(s.pins))
	held := false // a pin that apart may hold back or carry
	for k, pk := range s.pins {
		s.leaving[k] = pk.Path == nil && s.insideObstacle(pk.Target)
		held = held || pk.Path == nil && !s.leaving[k]
	}
	if !held {
		return // every pin is scripted or on its way out
	}
	s.pinEdges()
	for range apartRounds {
		moved := false
		for k, pk := range s.pins {
			if pk.Path != nil || s.leaving[k] {
				continue // scripted, or on its way out of an obstacle (pinsOutside)
			}
			// The nearest pin that this one's target comes too near
			// decides: in a gathered row every pin is nearer than the
			// gap, so each must keep its distance, and a far one closing
			// in slowly must not undo the carry of the neighbour about to
			// run through (the viewer monkey's curtain failure at 391
			// m/s; TestPinsKeepApart's late drags).
			near, nearest := -1, math.Inf(1)
			for q, pq := range s.pins {
				if q == k {
					continue
				}
				now := pk.Target.Sub(pq.Target).Norm()
				r := min(s.pinGap(k, q), now)
				if tgt[k].Sub(tgt[q]).Norm() >= r || now >= nearest {
					continue
				}
				if step := tgt[q].Sub(pq.Target); step == (geom.Vec3{}) && s.carried[k] && pq.Path == nil {
					continue // q is carried in its turn
				}
				near, nearest = q, now
			}
			if near < 0 {
				continue
			}
			if step := tgt[near].Sub(s.pins[near].Target); step != (geom.Vec3{}) {
				tgt[k] = pk.Target.Add(step)
				s.carried[k] = true
			} else {
				tgt[k] = pk.Target
			}
			moved = true
		}
		if !moved {
			break
		}
	}
}

// pinGapEdges caps the distance that apart keeps between two pins: the
// gap is PinGap times their distance in the material plane, but at most
// PinGap times pinGapEdges times the longer of the two pins' longest rest
// edges (pinEdges). Two pins within two edges of each other in the
// material keep the proportional gap, as the gathered rod's rings do; two
// farther apart keep about an edge's length between them.
//
// Without the cap, pins far apart in the material kept half that
// distance in space, so on a hanging curtain a pin held 1 m below the rod
// (2 m of cloth from the rod's end) was "too near" the rod's end pin, and
// when the scripted gather opened again the end pin carried it, and every
// pin near that one, along the rod's direction by its own displacement,
// step after step: the monkey's seed 942 on curtain-adaptive took three
// pins held by hand 1.5 m past the rod's end, stretched the faces between
// them and the rod 12–15 times and blew up at 209 m/s
// (TestFarPinsNotCarried). The cloth between two distant pins folds to
// let them meet, as a person folds a cloth to bring two corners together.
const pinGapEdges = 2

// pinGap returns the distance apart keeps between pins k and q.
func (s *Sim) pinGap(k, q int) float64 {
	m := s.Mesh
	d := math.Sqrt(m.Rest[s.pins[k].Vertex].Sub(m.Rest[s.pins[q].Vertex]).Norm2())
	return PinGap * min(d, pinGapEdges*max(s.pinEdge[k], s.pinEdge[q]))
}

// PinGaps returns, for the mesh and pins as they are now, the distance
// that apart keeps between the pins on vertices a and b (0 when either is
// not pinned).
func (s *Sim) PinGaps() func(a, b int32) float64 {
	s.pinEdges()
	return func(a, b int32) float64 {
		k, q := s.pinIndex(a), s.pinIndex(b)
		if k < 0 || q < 0 {
			return 0
		}
		return s.pinGap(k, q)
	}
}

// pinEdges fills pinEdge with each pin's longest incident rest edge.
func (s *Sim) pinEdges() {
	m := s.Mesh
	s.pinEdge = buf.Zeroed(s.pinEdge, len(s.pins))
	s.leashPin = buf.Keep(s.leashPin, len(m.Pos))
	for k, pn := range s.pins {
		s.leashPin[pn.Vertex] = int32(k) + 1
	}
	for _, t := range m.Tris {
		if t[0] < 0 {
			continue
		}
		for i, v := range t {
			if k := s.leashPin[v] - 1; k >= 0 {
				for _, u := range [2]int32{t[(i+1)%3], t[(i+2)%3]} {
					s.pinEdge[k] = max(s.pinEdge[k], math.Sqrt(m.Rest[v].Sub(m.Rest[u]).Norm2()))
				}
			}
		}
	}
	for _, pn := range s.pins {
		s.leashPin[pn.Vertex] = 0
	}
}

// apartRounds bounds apart's rounds: one round carries a pin one link
// further along a train of carried pins.
const apartRounds = 64

// leashBall is one of leash's constraints: pin index pin's target within
// r of c.
type leashBall struct {
	pin int
	c   geom.Vec3
	r   float64
}

// outside returns goal moved out of every obstacle it is inside or within
// the contact thickness h of, to h from its surface along the surface's
// normal (a few rounds, for corners between obstacles): where a pin moved
// by hand may go. A pinned vertex inside an obstacle fights the contact
// response of its free neighbours, which the obstacle pushes out while
// the pin holds them in: the monkey's seed 1 on ground-angled dragged a
// lone pin into the ground and the cloth round it blew up at 397 m/s.
// With collisions off, goal is returned as it is.
func (s *Sim) outside(goal geom.Vec3) geom.Vec3 {
	c := &s.ct
	if !c.p.Enabled {
		return goal
	}
	h := c.p.Thickness
	for range 4 {
		moved := false
		for _, o := range c.obstacles {
			if d, n := o.SignedDistance(goal, s.Time); d < h {
				goal = goal.Add(n.Scale(h - d))
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	return goal
}

// insideObstacle reports whether p is inside an obstacle while
// collisions are on.
func (s *Sim) insideObstacle(p geom.Vec3) bool {
	if !s.ct.p.Enabled {
		return false
	}
	for _, o := range s.ct.obstacles {
		if d, _ := o.SignedDistance(p, s.Time); d < 0 {
			return true
		}
	}
	return false
}

// toward returns the point on the way from at to goal that is at most
// maxStep from at: goal itself when it is that close.
func toward(at, goal geom.Vec3, maxStep float64) geom.Vec3 {
	d := goal.Sub(at)
	n := d.Norm()
	if n <= maxStep || n == 0 {
		return goal
	}
	return at.Add(d.Scale(maxStep / n))
}

// DragObstacle asks for obstacle i (its index in Obstacles) at the user
// offset goal: from the next step on, each step moves its offset towards
// goal by at most HandSpeed·Δt, and the collision pipeline sees that as
// the obstacle's motion over the step, so it pushes the cloth. An index
// out of range or a goal that is not finite or beyond
// obstacle.MaxCoordinate is an error, and nothing changes. SetOffset on
// the obstacle moves it at once instead (the next step sees the whole
// move); it ends the drag's pull only if the goal is reached.
func (s *Sim) DragObstacle(i int, goal geom.Vec3) error {
	c := &s.ct
	if i < 0 || i >= len(c.obstacles) {
		return fmt.Errorf("moving obstacle %d: the scene has %d obstacles", i, len(c.obstacles))
	}
	for _, x := range [3]float64{goal.X, goal.Y, goal.Z} {
		if math.IsNaN(x) || math.Abs(x) > obstacle.MaxCoordinate {
			return fmt.Errorf("moving obstacle %s: offset %v is not finite or beyond ±%g m", c.obstacles[i].Name(), goal, float64(obstacle.MaxCoordinate))
		}
	}
	c.goal = buf.Keep(c.goal, len(c.obstacles))
	c.goalOn = buf.Keep(c.goalOn, len(c.obstacles))
	c.goal[i], c.goalOn[i] = goal, true
	return nil
}

// JumpObstacle moves obstacle i (its index in Obstacles) at once towards
// the user offset goal, as a drag while the simulation is paused does,
// and returns the offset it reached: along the straight way there, in
// moves of at most h/2 (h the contact thickness; at most jumpMoves moves,
// so longer ones beyond jumpMoves·h/2), it
// stops before the first move that would bring a free cloth vertex that
// is outside the obstacle within h/2 of its surface, or the obstacle
// closer to another than ObstacleClearance (moveObstacle), as a hand
// stops at the cloth it meets. The obstacle's pull towards a goal of
// DragObstacle ends. Errors as DragObstacle, and nothing changes.
//
// Without it the viewer set the offset itself, and a table top dragged
// 22 cm up through the cloth lying on it while paused (TestGUIMonkey on
// tablecloth, seed 39) left every step after it sweeping the cloth: 0.4–4
// s a step on 2 cores instead of 25 ms, and the viewer stopped answering
// for minutes (TestJumpObstacleStopsAtCloth). With collisions off it
// jumps to goal.
func (s *Sim) JumpObstacle(i int, goal geom.Vec3) (geom.Vec3, error) {
	if err := s.DragObstacle(i, goal); err != nil {
		return geom.Vec3{}, err
	}
	c := &s.ct
	c.goalOn[i] = false
	o := c.obstacles[i]
	if !c.p.Enabled {
		s.moveObstacle(i, goal)
		return o.Offset(), nil
	}
	h := c.p.Thickness
	from := o.Offset()
	dist := goal.Sub(from).Norm()
	n := min(jumpMoves, max(1, int(math.Ceil(dist/(0.5*h)))))
	for k := 1; k <= n; k++ {
		at := o.Offset()
		next := from.Add(goal.Sub(from).Scale(float64(k) / float64(n)))
		s.moveObstacle(i, next)
		if o.Offset() != next || s.closesOnCloth(o, at, 0.5*h) {
			o.SetOffset(at) // held by another obstacle, or at the cloth
			break
		}
	}
	return o.Offset(), nil
}

// jumpMoves caps JumpObstacle's moves: 6 m at the default h = 3 mm (each
// move checks the live vertices against the obstacle's box).
const jumpMoves = 4000

// closesOnCloth reports whether obstacle o, moved from the offset prev to
// its current one, has come closer to a free cloth vertex that is now
// outside it and within d of its surface (cloth resting on it does not
// keep it from moving away; a vertex already inside, which the collisions
// and untangling push out, does not stop it).
func (s *Sim) closesOnCloth(o *obstacle.Obstacle, prev geom.Vec3, d float64) bool {
	m := s.Mesh
	lo, hi := o.Bounds(s.Time)
	pad := geom.Vec3{X: d, Y: d, Z: d}
	lo, hi = lo.Sub(pad), hi.Add(pad)
	c := &s.ct
	c.jumpNear, c.jumpD = c.jumpNear[:0], c.jumpD[:0]
	for v, x := range m.Pos {
		if !m.VertAlive[v] || s.fixed[v] || x.X < lo.X || x.Y < lo.Y || x.Z < lo.Z || x.X > hi.X || x.Y > hi.Y || x.Z > hi.Z {
			continue
		}
		if sd, _ := o.SignedDistance(x, s.Time); sd >= 0 && sd < d {
			c.jumpNear, c.jumpD = append(c.jumpNear, int32(v)), append(c.jumpD, sd)
		}
	}
	if len(c.jumpNear) == 0 {
		return false
	}
	now := o.Offset()
	o.SetOffset(prev)
	defer o.SetOffset(now)
	for k, v := range c.jumpNear {
		if sd, _ := o.SignedDistance(m.Pos[v], s.Time); c.jumpD[k] < sd {
			return true
		}
	}
	return false
}

// ObstacleGoal returns the offset obstacle i is being dragged to and true,
// or false when it is not being dragged (or has arrived).
func (s *Sim) ObstacleGoal(i int) (geom.Vec3, bool) {
	c := &s.ct
	if i < 0 || i >= len(c.goalOn) || !c.goalOn[i] {
		return geom.Vec3{}, false
	}
	return c.goal[i], true
}

// errBlocked is advanceOnce's answer when an obstacle dragged by hand
// pushed a free cloth vertex into an obstacle in the step: the cloth had
// nowhere to go (squeezed against the ground or another obstacle, or
// held by pins). The step is then taken again with the dragged obstacles
// (and the pins and the drag anchor, holdHands) held where they were
// (advance), so the drag stops there, visibly, as a hand does against a
// wall. Without it the monkey's seed 1 on
// sphere-adaptive dragged the sphere down onto the cloth lying on the
// ground, and 17 vertices ended 5 cm inside the sphere, tangling the
// cloth (issue 39).
//
// It is also the answer when the collision failsafe held the free
// vertices still (endCollisions) in a step in which a pin moved: one
// moved by hand, the drag spring's anchor or a dragged obstacle, and
// also a scripted pin. The failsafe's x^{n+1} = x^n is collision-free
// only if nothing else moves, and a pin that went on moving crossed the
// cloth held still in front of it:
//
//   - the sim-level pin monkey (two hand pins moving at once on the
//     hanging sheet, seed 7) left 6 crossing pairs at its first failsafe,
//     1 for good (the viewer monkey's hanging run in CI ended with 60,
//     likely so: that run could not be repeated);
//   - the viewer monkey's curtain-adaptive run (seed 39, journal in
//     app/testdata) set 57 pins; at t = 9.39 s the gather's pins carried
//     a face between one of them and a held hand pin through the free
//     cloth the failsafe held: 2 crossing pairs, 219 when the run ended.
//     Halving the step instead (Bridson et al. 2002 §6.3) did not help:
//     the zones failed down to Δt/16 and the same face crossed at 9.6 s.
//
// Taken again with every pin held, the step's collisions converge or the
// failsafe keeps everything but a scripted obstacle still; the hand
// waits for the step, as at a wall, and a scripted pin so held catches up
// with its path at HandSpeed (Pin.behind), the script waiting for the
// cloth as a hand would (monkey.TestHandPinsThroughFailsafe,
// app.TestReplayCurtainMonkey).
var errBlocked = errors.New("a hand or a pin was blocked: the step is taken again with them held")

// pinsMoving reports whether a pin goes somewhere in the step being taken
// (pinNext), the drag spring's anchor moves, or moveHands moved an
// obstacle.
func (s *Sim) pinsMoving() bool {
	for k, p := range s.pins {
		if k < len(s.pinNext) && s.pinNext[k] != p.Target {
			return true
		}
	}
	return s.drag.on && s.drag.next != s.drag.at || s.handMoved()
}

// blockDepth is how deep a free vertex may end inside an obstacle, by its
// analytic signed distance, before a hand drag counts as blocked: the
// tessellated collision surfaces lie up to obstacle.ChordTolerance inside
// the analytic ones, and cloth rests on them.
const blockDepth = 2 * obstacle.ChordTolerance

// handMoved reports whether moveHands moved an obstacle in this step.
func (s *Sim) handMoved() bool {
	c := &s.ct
	for k, o := range c.obstacles {
		if k < len(c.offsetBefore) && o.Offset() != c.offsetBefore[k] {
			return true
		}
	}
	return false
}

// pushedIn reports whether a free vertex ends the step (x + Δt·v^{n+½}
// at t1) deeper than blockDepth inside an obstacle and deeper than it
// started (x at t0, the obstacles at their settled poses): cloth that a
// dragged obstacle pushed in.
func (s *Sim) pushedIn(t0, t1 float64) bool {
	m := s.Mesh
	dt := s.params.Dt
	for _, o := range s.ct.obstacles {
		lo, hi := o.Bounds(t1)
		pad := geom.Vec3{X: blockDepth, Y: blockDepth, Z: blockDepth}
		lo, hi = lo.Sub(pad), hi.Add(pad)
		before := o.SettledPose(t0)
		for v := range m.Pos {
			if !m.VertAlive[v] || s.fixed[v] {
				continue
			}
			x := m.Pos[v].Add(s.vHalf[v].Scale(dt))
			if x.X < lo.X || x.Y < lo.Y || x.Z < lo.Z || x.X > hi.X || x.Y > hi.Y || x.Z > hi.Z {
				continue
			}
			d1, _ := o.SignedDistance(x, t1)
			if d1 >= -blockDepth {
				continue
			}
			if d0, _ := o.SignedDistanceAt(before, m.Pos[v]); d1 < d0-blockDepth/2 {
				return true
			}
		}
	}
	return false
}

// moveHands moves the dragged obstacles' offsets for the step of length
// dt about to be taken, keeping the offsets before it in offsetBefore for
// restoreHands, and computes the drag spring's anchor for the step
// (drag.next). Pins moved by hand are stepped in prescribe.
func (s *Sim) moveHands(dt float64) {
	c := &s.ct
	c.offsetBefore = c.offsetBefore[:0]
	for _, o := range c.obstacles {
		c.offsetBefore = append(c.offsetBefore, o.Offset())
	}
	c.carry = buf.Keep(c.carry, len(c.obstacles))
	for k, o := range c.obstacles {
		if k >= len(c.goalOn) || !c.goalOn[k] || o.Offset() == c.goal[k] {
			c.carry[k] = -1
			continue
		}
		if c.holdHands {
			continue
		}
		// The obstacle's leash: it waits while the cloth it carries
		// is stretched past what a hand may (handReach) and more than
		// when it last moved.
		w := s.carriedStretch(o)
		if w > 1 && c.carry[k] >= 0 && w > c.carry[k] {
			continue
		}
		c.carry[k] = w
		s.moveObstacle(k, toward(o.Offset(), c.goal[k], HandSpeed*dt))
	}
	if s.drag.on {
		s.drag.next = toward(s.drag.at, s.drag.target, HandSpeed*dt)
		if c.holdHands {
			s.drag.next = s.drag.at
		}
	}
}

// carriedStretch returns the largest ratio, over the cloth's edges with
// an end within carryReach of obstacle o's surface (the cloth it carries
// or pushes), of the edge's length to what a hand may stretch it to
// (handReach; 1 at the limit, 0 when no edge is near). moveHands holds a
// dragged obstacle for the step while that ratio is above 1 and growing.
//
// Without that leash, the monkey's seed 12 on drape-box dragged the box
// up and away from the cloth's pinned corner at 3 m/s: friction (μ = 0.4)
// held the cloth on the box, the edges from the box to the pin stretched
// to 9.8 times their rest length in 0.35 s, and the cloth, snapping off
// the box's edge again and again, blew up at 425 m/s (without friction
// it slid off at 6 m/s). Pins have their own leash (leash); an obstacle
// pushing the cloth into another or the ground stops at
// ObstacleClearance. Held only while the stretch grows, a drag that
// relieves it goes on, and one that keeps it level creeps.
func (s *Sim) carriedStretch(o *obstacle.Obstacle) float64 {
	m := s.Mesh
	s.nearObstacle = buf.Grow(s.nearObstacle, len(m.Pos))
	lo, hi := o.Bounds(s.Time)
	r := geom.Vec3{X: carryReach, Y: carryReach, Z: carryReach}
	lo, hi = lo.Sub(r), hi.Add(r)
	for v, p := range m.Pos {
		s.nearObstacle[v] = false
		// The box test first: a mesh obstacle's distance query costs
		// far more, and most of the cloth is nowhere near it.
		if m.VertAlive[v] && p.X >= lo.X && p.Y >= lo.Y && p.Z >= lo.Z && p.X <= hi.X && p.Y <= hi.Y && p.Z <= hi.Z {
			d, _ := o.SignedDistance(p, s.Time)
			s.nearObstacle[v] = d < carryReach
		}
	}
	worst := 0.0
	for _, t := range m.Tris {
		if t[0] < 0 {
			continue
		}
		for i, a := range t {
			b := t[(i+1)%3]
			if !s.nearObstacle[a] && !s.nearObstacle[b] {
				continue
			}
			if r := s.handReach(m.Rest[a].Sub(m.Rest[b])); r > 0 {
				worst = max(worst, m.Pos[a].Sub(m.Pos[b]).Norm()/r)
			}
		}
	}
	return worst
}

// carryReach is how near an obstacle's surface a cloth vertex counts as
// carried by it for carriedStretch, m: a few contact thicknesses.
const carryReach = 0.01

// ObstacleClearance is how close a dragged obstacle may come to another
// obstacle (the ground included), m, or 6h when the contact thickness h
// is larger: room for a few layers of cloth between them. Cloth squeezed
// into a narrower gap between two rigid bodies cannot get out of the
// way, and the collision response then fails layer by layer (the
// monkey's seed 1 on sphere-adaptive: the sphere dragged onto the cloth
// on the ground left hundreds of intersecting cloth pairs). A drag that
// would come closer stops short, as a hand does against a table.
const ObstacleClearance = 0.02

// moveObstacle moves obstacle k's offset to off, or as far along the
// way there as keeps it ObstacleClearance from every other obstacle
// (halving the move up to 5 times; not at all when even that is too
// close). A move that opens the gap is always allowed, so an obstacle
// that starts too close can be dragged away.
func (s *Sim) moveObstacle(k int, off geom.Vec3) {
	c := &s.ct
	o := c.obstacles[k]
	clear := max(ObstacleClearance, 6*c.p.Thickness)
	from := o.Offset()
	gap0 := s.obstacleGap(k)
	for range 6 {
		o.SetOffset(off)
		if g := s.obstacleGap(k); g >= clear || g >= gap0 {
			return
		}
		off = from.Add(off.Sub(from).Scale(0.5))
	}
	o.SetOffset(from)
}

// obstacleGap returns about the smallest distance between obstacle k and
// any other at their current offsets (at the time the step starts): the
// least signed distance of either one's surface vertices from the other,
// +Inf without others.
func (s *Sim) obstacleGap(k int) float64 {
	c := &s.ct
	a := c.obstacles[k]
	t := s.Time
	gap := math.Inf(1)
	c.gapVerts = a.Vertices(t, c.gapVerts)
	for j, b := range c.obstacles {
		if j == k {
			continue
		}
		if a.Kind != obstacle.Plane {
			for _, p := range c.gapVerts {
				d, _ := b.SignedDistance(p, t)
				gap = min(gap, d)
			}
		}
		if b.Kind != obstacle.Plane {
			c.gapOther = b.Vertices(t, c.gapOther)
			for _, p := range c.gapOther {
				d, _ := a.SignedDistance(p, t)
				gap = min(gap, d)
			}
		}
	}
	return gap
}

// restoreHands undoes moveHands after a failed step.
func (s *Sim) restoreHands() {
	c := &s.ct
	for k, o := range c.obstacles {
		if k < len(c.offsetBefore) {
			o.SetOffset(c.offsetBefore[k])
		}
	}
}

// commitHands makes the step's hand targets the current ones: the drag
// anchor, and the drags of obstacles that reached their goal end.
func (s *Sim) commitHands() {
	c := &s.ct
	for k, o := range c.obstacles {
		if k < len(c.goalOn) && c.goalOn[k] && o.Offset() == c.goal[k] {
			c.goalOn[k] = false
		}
	}
	if s.drag.on {
		s.drag.at = s.drag.next
	}
}
