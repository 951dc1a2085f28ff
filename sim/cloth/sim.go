package cloth

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"drape/sim/buf"
	"drape/sim/contact"
	"drape/sim/fem"
	"drape/sim/geom"
	"drape/sim/parallel"
	"drape/sim/strainlimit"
)

// ErrUnstable is wrapped by the error Step returns when a step would produce
// NaN/Inf or a blow-up; the state is left as it was before that step.
var ErrUnstable = errors.New("simulation became unstable")

// speedLimit is the vertex speed, m/s, above which a step counts as a
// blow-up. Cloth dragged by hand moves at a few m/s.
const speedLimit = 200

// Path is a piecewise-linear offset over time: At interpolates Offsets
// between Times (s, ascending), holding the first offset before Times[0] and
// the last after the final key.
type Path struct {
	Times   []float64   // s, ascending
	Offsets []geom.Vec3 // m, one per time
}

// At returns the offset at time t (s); the zero vector for an empty path.
func (p *Path) At(t float64) geom.Vec3 {
	n := len(p.Times)
	switch {
	case n == 0:
		return geom.Vec3{}
	case t <= p.Times[0]:
		return p.Offsets[0]
	case t >= p.Times[n-1]:
		return p.Offsets[n-1]
	}
	k := sort.SearchFloat64s(p.Times, t) // Times[k-1] < t <= Times[k]
	t0, t1 := p.Times[k-1], p.Times[k]
	w := (t - t0) / (t1 - t0)
	return p.Offsets[k-1].Scale(1 - w).Add(p.Offsets[k].Scale(w))
}

// Pin holds a vertex on a target that may move over time: the vertex's
// velocity change is prescribed so that it lands exactly on the target at
// the end of each step (Baraff & Witkin 1998 §5.3 constraint filtering).
type Pin struct {
	Vertex int32
	Target geom.Vec3 // current target, m
	Anchor geom.Vec3 // for scripted pins, the target at offset zero, m
	Path   *Path     // scripted motion: Target = Anchor + Path.At(t); nil for fixed or dragged pins
	// Goal is where a pin without a Path was asked to be (Pin): each step
	// moves Target towards it by at most HandSpeed·Δt.
	Goal geom.Vec3
	// Hand marks a pin moved by hand (Pin on a pinned vertex). While it
	// is farther from another pin than the cloth between them may
	// stretch (HandStretch, or the strain limit when on: one switched on
	// or tightened after the drag), its target moves back towards them
	// at HandSpeed, short of Goal (prescribe).
	Hand bool
	// behind marks a scripted pin that a collision failsafe step held
	// (errBlocked) behind its path: it catches up at HandSpeed.
	behind bool
}

// StepStats describes one step.
type StepStats struct {
	Iterations int               // PCG iterations
	Residual   float64           // relative preconditioned residual reached (with repulsion springs, the larger of the two parts', see pcg.solve)
	Assemble   time.Duration     // element matrices, forces and the global system
	Solve      time.Duration     // PCG
	Other      time.Duration     // pins, integration, checks
	Limit      time.Duration     // strain limiting (phase 4; with it off, the SafetyStrain check)
	Collide    time.Duration     // collision handling (phase 4; zero without obstacles and self-collision)
	Adapt      time.Duration     // mesh adaptation (zero without adaptivity)
	Contact    contact.Stats     // what the collision phase did
	Springs    int               // repulsion springs in this step's solve (repulsion.go)
	Strain     strainlimit.Stats // what strain limiting did
	Substeps   int               // substeps the failsafe took for this step (0: none; see Step)
	// Held counts the (sub)steps whose first attempt a blocked hand or
	// pin gave up, taken again with the hands held (errBlocked). The
	// given-up attempt's times and iterations are in the sums above.
	Held int
	// Retry is the error of the step's first attempt when the failsafe
	// halved it (nil when it did not).
	Retry error
}

// Total returns the wall time of the step.
func (s StepStats) Total() time.Duration {
	return s.Assemble + s.Solve + s.Other + s.Limit + s.Collide + s.Adapt
}

// Sim is a cloth simulation: Bender & Deul's corotational orthotropic FEM
// with isometric bending, advanced by linearly implicit Euler (§3–§4). The
// caller owns the loop and calls Step. Sim is not safe for concurrent use.
type Sim struct {
	Mesh  *geom.Mesh
	Time  float64 // simulated time, s
	Steps int     // steps taken

	params Params
	elems  []fem.ElemRest // per face slot
	frames [][2]geom.Vec3 // last good corotated frame (g1, g2) per face slot
	edges  []geom.Edge    // interior edges: bending stencils
	sys    *blockSystem   // A = (1+Δt·α_M)·M + (Δt²+Δt·α_K)·K
	solver pcg
	area   []float64 // A_p = ⅓·Σ adjacent rest face areas, per vertex slot, m² (§4.1)
	fixed  []bool    // pinned or free slot: Δv prescribed
	// normal[v], when not zero, is the unit normal along which vertex
	// slot v's velocity at the end of the next step is prescribed, to
	// normalSpeed[v] m/s (a resting contact: Baraff & Witkin 1998 §5.3's
	// one-constraint filter); pins and dead slots (fixed) take
	// precedence. constrained lists those slots.
	normal      []geom.Vec3
	normalSpeed []float64
	constrained []int32
	pins        []Pin // sorted by vertex
	// pinNext holds the pins' targets at the end of the step in
	// progress, in pins order; they replace Target when the step commits.
	pinNext []geom.Vec3
	// leash's scratch: per vertex slot, 1 + the index of the pin moved by
	// hand on it (0: none; all 0 between calls; pinEdges borrows it for
	// every pin), and the constraints.
	leashPin   []int32
	leashBalls []leashBall
	carried    []bool    // apart's scratch: per pin, carried along by another in this step
	leaving    []bool    // apart's scratch: per pin, inside an obstacle on its way out (pinsOutside)
	pinEdge    []float64 // apart's scratch: per pin, its vertex's longest rest edge (pinEdges)
	// carriedStretch's scratch: per vertex slot, within carryReach of the obstacle
	nearObstacle []bool
	drag         struct {
		on       bool
		v        int32
		asked    int32     // the vertex the caller named when the drag began; v follows it across remeshes
		lost     bool      // a remesh took v and left no free vertex near it: the drag ended, and calls naming asked do nothing until Release
		target   geom.Vec3 // where the person asked for it (Drag), m
		at, next geom.Vec3 // the spring's anchor, and its place at the end of the step in progress (moveHands)
	}

	elemK []geom.Mat3 // 6 upper blocks per face of (Δt²+Δt·α_K)·K_e^R
	elemF []geom.Vec3 // 3 per face: K_e^R·y + f_0,e and air drag, N
	rhs   []geom.Vec3 // per row of sys
	dv    []geom.Vec3
	dvOld []geom.Vec3 // Δv of the previous step, for the extrapolated warm start
	vHalf []geom.Vec3 // v^{n+½} of the step in progress, per vertex slot (Step, phase 3)
	z     []geom.Vec3
	dots  parallel.Partials

	// Δv, z and the row filters gathered per row of sys for the solve.
	rowDv, rowZ []geom.Vec3
	rowKind     []uint8     // rowFree, rowNormal or rowFixed
	rowN        []geom.Vec3 // with rowNormal: the unit normal of the prescribed direction

	// commits counts the (sub)steps committed, failsafe substeps
	// included: what the repulsion springs check their pairs' age by.
	commits      int
	retried      int  // steps that needed the failsafe's substeps (Retried)
	retriedAtCap int  // of those, the ones whose solve stopped at the cap (RetriedAtCap)
	strictSolve  bool // a solve that stops at the cap unconverged fails the step (pcgSlack): false at the failsafe's last depth
	// interrupt is SetInterrupt's function; committed says that a
	// (sub)step of the Step in progress has committed, after which it
	// is no longer polled.
	interrupt func() bool
	committed bool

	ad adaptState   // adaptive refinement and coarsening (adaptsim.go)
	ct contactState // obstacles, collisions and resting contact (contact.go)
	sl strainState  // strain limiting (strain.go)
	// invMass is 1/m per vertex slot for the post-processes of phase 4,
	// 0 for pinned and free slots (fillInvMass).
	invMass []float64
}

// New returns a simulation of mesh m with parameters p, at rest with no
// pins. The simulation takes ownership of m.
func New(m *geom.Mesh, p Params) (*Sim, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("invalid parameters: %w", err)
	}
	s := &Sim{Mesh: m, params: p}
	s.rebuild()
	return s, nil
}

// rebuild recomputes every topology-dependent structure from the mesh.
func (s *Sim) rebuild() {
	m := s.Mesh
	s.sizeSlots(false)
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		s.elems[f] = fem.NewElemRest(m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
		s.frames[f] = [2]geom.Vec3{{X: 1}, {Y: 1}}
	}
	s.edges = m.InteriorEdges()
	s.sys = newBlockSystem(m, s.edges)
	s.updateAreas()
	s.updateFixed()
}

// sizeSlots sizes every per-face and per-vertex array of s to the mesh's
// slot counts. With keep, entries already there stay and new ones are zero
// (after an adaptation); otherwise every entry is cleared (a rebuild). This
// is the one list of per-slot arrays: a new one belongs here.
func (s *Sim) sizeSlots(keep bool) {
	nf, nv := len(s.Mesh.Tris), len(s.Mesh.Pos)
	s.elems = sized(s.elems, nf, keep)
	s.frames = sized(s.frames, nf, keep)
	s.elemK = sized(s.elemK, 6*nf, keep)
	s.elemF = sized(s.elemF, 3*nf, keep)
	s.rhs = sized(s.rhs, nv, keep)
	s.dv = sized(s.dv, nv, keep)
	s.dvOld = sized(s.dvOld, nv, keep)
	s.vHalf = sized(s.vHalf, nv, keep)
	s.z = sized(s.z, nv, keep)
	s.fixed = sized(s.fixed, nv, keep)
	s.normal = sized(s.normal, nv, keep)
	s.normalSpeed = sized(s.normalSpeed, nv, keep)
	s.area = sized(s.area, nv, keep)
}

// sized returns x with length n: buf.Keep with keep, buf.Zeroed without.
func sized[T any](x []T, n int, keep bool) []T {
	if keep {
		return buf.Keep(x, n)
	}
	return buf.Zeroed(x, n)
}

// updateAreas recomputes the lumped vertex areas A_p = ⅓·Σ A_i over the
// adjacent faces (Bender & Deul §4.1, fig. 1). Masses are m_p = ρ·A_p, so a
// density change needs no update. This is the one place vertex masses come
// from.
func (s *Sim) updateAreas() {
	clear(s.area)
	for f, t := range s.Mesh.Tris {
		if !s.Mesh.FaceAlive(f) {
			continue
		}
		a := s.elems[f].Area / 3
		s.area[t[0]] += a
		s.area[t[1]] += a
		s.area[t[2]] += a
	}
}

func (s *Sim) updateFixed() {
	for i := range s.fixed {
		s.fixed[i] = !s.Mesh.VertAlive[i]
	}
	for _, p := range s.pins {
		s.fixed[p.Vertex] = true
	}
}

// Params returns the parameters in force.
func (s *Sim) Params() Params { return s.params }

// SetParams replaces the parameters from the next step on, or returns an
// error and keeps the old ones.
func (s *Sim) SetParams(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	s.params = p
	return nil
}

// Mass returns the lumped mass of vertex slot i, kg.
func (s *Sim) Mass(i int) float64 { return s.params.Density * s.area[i] }

// TotalMass returns Σ m_p, kg.
func (s *Sim) TotalMass() float64 {
	var a float64
	for _, x := range s.area {
		a += x
	}
	return s.params.Density * a
}

// KineticEnergy returns ½·Σ m_p·|v_p|², J.
func (s *Sim) KineticEnergy() float64 {
	var e float64
	for i, v := range s.Mesh.Vel {
		e += s.area[i] * v.Dot(v)
	}
	return 0.5 * s.params.Density * e
}

// MaxSpeed returns the largest vertex speed, m/s.
func (s *Sim) MaxSpeed() float64 {
	var m float64
	for _, v := range s.Mesh.Vel {
		m = math.Max(m, v.Dot(v))
	}
	return math.Sqrt(m)
}

// Finite reports whether every live position and velocity is finite.
func (s *Sim) Finite() bool {
	m := s.Mesh
	for i := range m.Pos {
		if m.VertAlive[i] && !(m.Pos[i].IsFinite() && m.Vel[i].IsFinite()) {
			return false
		}
	}
	return true
}

func (s *Sim) checkVertex(v int32) error {
	if v < 0 || int(v) >= len(s.Mesh.Pos) || !s.Mesh.VertAlive[v] {
		return fmt.Errorf("vertex %d does not exist", v)
	}
	return nil
}

// Pin holds vertex v on target (m) until Unpin. A new pin within
// HandSpeed·Δt of v puts v on target at the end of the next step; a pin
// that v already has (a scripted one becomes fixed), a new one farther
// from v, and a new one on a target inside an obstacle while collisions
// are on (cloth left inside while they were off: the monkey's ground
// seed 800; see pinsOutside) is moved by hand: its target travels
// towards the new one at HandSpeed at most, stops short of stretching the
// cloth to another pin by more than HandStretch (reachable) and stays the
// contact thickness outside the obstacles (outside). It returns an error
// for a missing vertex or a non-finite target.
//
// A new pin far from its vertex was put there in one step: the viewer
// monkey on tablecloth (seed 39) reset the scene in the middle of a pin
// drag, the drag went on on the new cloth, which had no pin there, and
// its first step blew up at 16 km/s.
func (s *Sim) Pin(v int32, target geom.Vec3) error {
	if err := s.checkVertex(v); err != nil {
		return err
	}
	if !target.IsFinite() {
		return fmt.Errorf("pin target %v is not finite", target)
	}
	if k := s.pinIndex(v); k >= 0 {
		p := &s.pins[k]
		p.Path, p.Anchor = nil, p.Target
		p.Goal, p.Hand = s.outside(s.reachable(v, &p.Target, target)), true
		return nil
	}
	p := Pin{Vertex: v, Target: target, Anchor: target, Goal: target}
	if at := s.Mesh.Pos[v]; at.Sub(target).Norm() > HandSpeed*s.params.Dt || s.insideObstacle(target) {
		p.Target, p.Anchor, p.Hand = at, at, true
		p.Goal = s.outside(s.reachable(v, &at, target))
	}
	s.setPin(p)
	return nil
}

// PinPath pins vertex v to a scripted target Pos[v] + path.At(t), with Pos[v]
// taken now.
func (s *Sim) PinPath(v int32, path *Path) error {
	if err := s.checkVertex(v); err != nil {
		return err
	}
	if len(path.Times) != len(path.Offsets) {
		return fmt.Errorf("path has %d times but %d offsets", len(path.Times), len(path.Offsets))
	}
	for i, t := range path.Times {
		if math.IsNaN(t) || math.IsInf(t, 0) || !path.Offsets[i].IsFinite() || (i > 0 && !(t > path.Times[i-1])) {
			return fmt.Errorf("path key %d: times must be finite and increasing and offsets finite", i)
		}
	}
	a := s.Mesh.Pos[v]
	tgt := a.Add(path.At(s.Time))
	s.setPin(Pin{Vertex: v, Target: tgt, Anchor: a, Path: path, Goal: tgt})
	return nil
}

func (s *Sim) setPin(p Pin) {
	k := sort.Search(len(s.pins), func(k int) bool { return s.pins[k].Vertex >= p.Vertex })
	if k < len(s.pins) && s.pins[k].Vertex == p.Vertex {
		s.pins[k] = p
	} else {
		s.pins = append(s.pins, Pin{})
		copy(s.pins[k+1:], s.pins[k:])
		s.pins[k] = p
	}
	s.fixed[p.Vertex] = true
}

// Unpin releases vertex v; it does nothing if v is not pinned.
func (s *Sim) Unpin(v int32) {
	k := sort.Search(len(s.pins), func(k int) bool { return s.pins[k].Vertex >= v })
	if k < len(s.pins) && s.pins[k].Vertex == v {
		s.pins = append(s.pins[:k], s.pins[k+1:]...)
		s.fixed[v] = !s.Mesh.VertAlive[v]
	}
}

// Pins returns a copy of the pins, sorted by vertex.
func (s *Sim) Pins() []Pin { return append([]Pin(nil), s.pins...) }

// Drag pulls free vertex v toward target (m) with a stiff spring of
// stiffness Params.DragStiffness, integrated implicitly with the cloth,
// until Release. The spring's anchor starts at the vertex and travels
// towards target at HandSpeed at most. Dragging a pinned vertex should
// move its pin instead (Pin). While a drag is on, a call naming the vertex
// it began on moves it, also after a remesh took that vertex and the drag
// went on with the nearest one (updatePins): a caller names the vertex it
// grabbed for the whole gesture, as the viewer does (app.Interaction.Update).
// Before, that call failed: the drags the viewer had queued before its
// next snapshot showed the vertex gone reached the simulation as errors,
// and the viewer showed "dragging: vertex N does not exist" (the viewer
// monkey, sphere-adaptive seed 42). A drag may also begin on a slot that a
// remesh emptied since the caller looked: it takes the free vertex
// nearest to the target. Only a slot that never existed, or a dead one
// with no free vertex left, is an error.
func (s *Sim) Drag(v int32, target geom.Vec3) error {
	asked := v
	if s.drag.lost && v == s.drag.asked {
		// The remesh that took the vertex left none free to go on with
		// (updatePins): the gesture has nothing to pull until it ends.
		// Failing here would log an error at every move of the mouse.
		return nil
	}
	if s.drag.on && v == s.drag.asked {
		v = s.drag.v // the drag in progress, on the vertex it moved to if a remesh took its own
	} else if err := s.checkVertex(v); err != nil {
		// A drag that begins on a slot a remesh emptied since the caller
		// looked (the viewer picks from a snapshot a step or more old)
		// takes the free vertex nearest to the target, which the first
		// call sets where the caller saw the vertex, as a drag in
		// progress does when a remesh takes its vertex (updatePins).
		// Failing left "dragging: vertex 3430 does not exist" in the
		// viewer's panel and nothing in the person's hand (the viewer
		// monkey, curtain-adaptive seed 52).
		if v < 0 || int(v) >= len(s.Mesh.Pos) {
			return err
		}
		if v = s.nearestFree(target, s.slots); v < 0 {
			return err
		}
	}
	if !target.IsFinite() {
		return fmt.Errorf("drag target %v is not finite", target)
	}
	if !s.drag.on || s.drag.v != v {
		s.drag.at = s.Mesh.Pos[v]
	}
	s.drag.on, s.drag.v, s.drag.asked, s.drag.target = true, v, asked, s.reachable(v, &s.drag.at, target)
	s.drag.lost = false
	return nil
}

// Release ends a Drag.
func (s *Sim) Release() { s.drag.on, s.drag.lost = false, false }

// Step advances the simulation by one time step Δt, in the order of
// Bender & Deul §3, each phase a plain call:
//
//  1. external forces and pins: the pins' targets at t^{n+1} (scripted
//     paths, or pins moved by hand towards their goals at HandSpeed), the
//     dragged obstacles' offsets and the drag spring's anchor, and the
//     velocity changes that land pinned vertices on their targets; with
//     self-collision on, the corrections that untangle crossings
//     (untangle.go);
//
//  2. the implicit solve (§4.2): assemble
//
//     (M + Δt·D + Δt²·K)·Δv = −Δt·(K·x + f₀ − f_ext + Δt·K·v + D·v),  D = α_M·M + α_K·K,
//
//     and solve it by modified PCG with pinned vertices, resting
//     contacts' normal speeds and untangling's corrections prescribed; with
//     collisions on, the last collision phase's pairs within h add their
//     repulsion springs to K and the forces (repulsion.go);
//
//  3. the average velocity v^{n+½} = (x^{n+1} − x^n)/Δt. Linearly implicit
//     Euler sets x^{n+1} = x^n + Δt·v^{n+1}, so v^{n+½} = v^n + Δv; x^n
//     stays in Mesh.Pos until phase 5;
//
//  4. the post-processes on v^{n+½}, in this order on one path (a stage
//     that is off does nothing): the collisions' proximity impulses
//     (§6), strain limiting (strain.go), the collisions' continuous stage
//     and impact zones, and after CCD hits strain limiting and the
//     continuous stage again (strainRounds). Each may change v^{n+½} or
//     fail;
//
//  5. the final state: a blow-up check (non-finite or faster than
//     speedLimit), then x^{n+1} = x^n + Δt·v^{n+½}, v^{n+1} = v^{n+½} and
//     the pins' new targets;
//
//  6. adaptation (§5, step 7), every AdaptParams.Interval steps.
//
// A step that fails in phases 2–5 with ErrUnstable is taken again as two
// half steps, each of which may be halved again, down to Δt/2^FailsafeDepth
// (the failsafe; StepStats.Substeps counts the substeps it took); a solve
// that stops at the iteration cap far from converged counts as such a
// failure down to Δt/2^pcgHalvings (pcgSlack). A step
// that fails even so leaves the simulation at its last good state and
// returns the error, which wraps ErrUnstable for a blow-up: when its first
// attempt at every depth failed, that is exactly the state before the call
// (positions, velocities, pins, obstacle offsets, time and step count);
// otherwise it is the state after the substeps that succeeded, with Time
// between t^n and t^{n+1} and Steps unchanged.
func (s *Sim) Step() (StepStats, error) {
	dt := s.params.Dt
	s.committed = false
	st, err := s.advance(dt, FailsafeDepth)
	s.params.Dt = dt
	if err != nil {
		return st, err
	}
	if st.Substeps > 0 {
		s.retried++
		if errors.Is(st.Retry, ErrUnconverged) {
			s.retriedAtCap++
		}
	}
	s.Steps++
	st.Adapt = s.adaptAfterStep()
	return st, nil
}

// ErrInterrupted is returned by Step when the function set by
// SetInterrupt asked it to give up. It is not a failure: the state is
// as before the call, and the step may be taken again.
var ErrInterrupted = errors.New("step interrupted")

// SetInterrupt sets f, which Step polls while it runs: before every PCG
// iteration, after the solve and after the proximity stage, and before
// every CCD and impact-zone pass of the collision phase
// (contact.Solver.SetStop). When f returns true the step gives up there
// and returns ErrInterrupted, with the state as a failed step leaves it:
// exactly as before the call, since f is polled only until the first
// (sub)step commits (a failsafe substep that committed is kept, and the
// step then runs to its end, adaptation included, which is never
// interrupted). The viewer uses it so that a command never waits for a
// step that runs for seconds (a mesh the sliders refined to 200 000
// faces, a pile held in contact; app.Loop). f is called on Step's
// goroutine, a deterministic number of times for a given state, which
// lets a replay interrupt at the same poll. nil (the default) never
// interrupts.
func (s *Sim) SetInterrupt(f func() bool) {
	s.interrupt = f
	s.solver.stop = nil
	if f != nil {
		s.solver.stop = s.interrupted
	}
	if s.ct.solver != nil {
		s.ct.solver.SetStop(s.solver.stop)
	}
}

// interrupted polls the interrupt function until a (sub)step of the
// Step in progress commits (SetInterrupt).
func (s *Sim) interrupted() bool {
	return s.interrupt != nil && !s.committed && s.interrupt()
}

// FailsafeDepth is how often the failsafe halves a step that blew up:
// down to Δt/16, at most 31 attempts (1 + 2 + 4 + 8 + 16) for a step that
// fails at every depth. Time-step subdivision on failure is the usual
// last line of cloth solvers (Bridson, Fedkiw & Anderson 2002 §6.3 redo a
// step whose impact zones fail with a smaller one; Houdini's Vellum and
// Blender's cloth raise their substeps); a fixed depth bounds its cost.
// A blow-up that four halvings do not cure is not a step that is too
// long: a pin jumped far in one step or an absurd parameter, for which
// the caller keeps the last good state and reports it.
const FailsafeDepth = 4

// pcgSlack: a solve that stops at Params.MaxIter with its residual above
// pcgSlack times Params.Tolerance (and times defaultTolerance) fails the
// step for the failsafe, which halves it, except at the last depth, whose
// solve is taken as it is (a cap set low on purpose then costs accuracy,
// not the step). An
// unconverged Δv is not the implicit step's: on ground-angled with the
// cap moved to 15 by the monkey (seed 7, t = 2.85 s) the step went on with
// residuals 20–1000 times the tolerance, and the collision phase had to
// stop the resulting motion, 5 000–17 000 CCD hits and one impact zone of
// up to 935 vertices a step, 2.4–3.8 s per step. Halving Δt brings the
// system nearer the mass matrix, which the block-Jacobi preconditioner
// inverts exactly, so that the cap suffices again. Every scripted scene
// converges well below the default cap (1000; at most 188 iterations, on
// tablecloth), so none is affected.
const pcgSlack = 10

// defaultTolerance is the floor of pcgSlack's bound: with the tolerance
// set tighter than the default, a solve stopped at the cap fails the step
// only above pcgSlack times the default. A solve asked for 1.7e-5 that
// reached 1e-4 at its cap is a good step, and halving it only triples
// the iterations of a step already at the cap: on ground with the
// tolerance slider at 1.7e-5 (monkey seed 1), 89 of 12 000 steps were
// halved for that.
var defaultTolerance = DefaultParams().Tolerance

// ErrUnconverged is the failure of a solve that stopped at the cap
// (pcgSlack), as StepStats.Retry gives it: an ErrUnstable for the
// failsafe, counted apart from the blow-ups (RetriedAtCap) because it is
// the price of a slider's choice (a cap set low, or a system made
// ill-conditioned: a density of 7 g/m² stopped ground's solves at the
// default cap of 1000 with residuals of 0.02), not of a step that went
// wrong.
var ErrUnconverged error = unconvergedError{}

type unconvergedError struct{}

// Error says what happened rather than ErrUnstable's text: the monkey's
// traces of a cap a slider lowered read "simulation became unstable" on
// every halved step.
func (unconvergedError) Error() string {
	return "the solve did not converge within its iteration cap"
}
func (unconvergedError) Unwrap() error { return ErrUnstable }

// pcgHalvings is how often the failsafe halves a step for an unconverged
// solve alone (pcgSlack).
const pcgHalvings = 2

// Retried returns how many steps since New needed the failsafe's
// substeps (see Step).
func (s *Sim) Retried() int { return s.retried }

// RetriedAtCap returns how many of the Retried steps were halved because
// their first solve stopped at the iteration cap far from converged
// (pcgSlack): a cap set below what the parameters need.
func (s *Sim) RetriedAtCap() int { return s.retriedAtCap }

// advance takes one step of length dt (phases 1–5), and on an ErrUnstable
// failure, while depth > 0, two of dt/2. It leaves s.params.Dt set to
// the last (sub)step's length; Step restores it.
func (s *Sim) advance(dt float64, depth int) (StepStats, error) {
	s.params.Dt = dt
	s.strictSolve = depth > FailsafeDepth-pcgHalvings
	st, err := s.advanceOnce()
	if errors.Is(err, errBlocked) {
		blocked := st
		s.ct.holdHands = true
		st, err = s.advanceOnce()
		s.ct.holdHands = false
		st.addWork(blocked)
		st.Held++
	}
	if err == nil || depth == 0 || !errors.Is(err, ErrUnstable) {
		return st, err
	}
	st.Retry = err
	for half := 0; half < 2; half++ {
		sh, err := s.advance(dt/2, depth-1)
		st.add(sh)
		st.Substeps++
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

// add adds the times, iterations and counts of b to a: the stats of a
// step that took substeps.
func (a *StepStats) add(b StepStats) {
	a.addWork(b)
	a.Residual = max(a.Residual, b.Residual)
	a.Contact = b.Contact
	a.Springs = max(a.Springs, b.Springs)
	a.Strain = b.Strain
	a.Substeps += b.Substeps
	a.Held += b.Held
	if a.Retry == nil {
		a.Retry = b.Retry
	}
}

// addWork adds the times and iterations of b to a: the work of an
// attempt that a's step includes.
func (a *StepStats) addWork(b StepStats) {
	a.Iterations += b.Iterations
	a.Assemble += b.Assemble
	a.Solve += b.Solve
	a.Other += b.Other
	a.Limit += b.Limit
	a.Collide += b.Collide
	a.Adapt += b.Adapt
}

// advanceOnce takes phases 1–5 of one step of length s.params.Dt; on
// failure the state is as before.
func (s *Sim) advanceOnce() (StepStats, error) {
	var st StepStats
	t0 := time.Now()
	tn, t1 := s.Time, s.Time+s.params.Dt
	s.moveHands(s.params.Dt)
	s.prescribe(t1)
	tu := time.Now()
	s.untangle() // its corrections are prescribed in the solve (untangle.go)
	t1w := time.Now()
	untangling := t1w.Sub(tu) // counted with the collision phase, where it ran before
	p := &s.params
	s.assembleStep()
	t2w := time.Now()
	st.Assemble = t2w.Sub(t1w)
	st.Springs = s.sys.coupling.springs
	st.Iterations, st.Residual = s.solve()
	st.Solve = time.Since(t2w)
	if s.solver.stopped || s.interrupted() {
		s.restoreHands()
		return st, ErrInterrupted
	}
	s.averageVelocity()
	err := s.checkVelocity(t1, st.Residual)
	if err == nil && s.strictSolve && st.Residual > pcgSlack*max(p.Tolerance, defaultTolerance) {
		clear(s.dv)
		clear(s.dvOld)
		err = fmt.Errorf("step %d at t=%.3f s: PCG stopped at %d iterations with residual %.2g (tolerance %.2g): %w", s.Steps+1, t1, st.Iterations, st.Residual, p.Tolerance, ErrUnconverged)
	}
	if err == nil {
		s.fillInvMass() // for strain limiting, which always runs (SafetyStrain), and collisions
	}
	// Phase 4: the post-processes of v^{n+½}, on one path with or
	// without collisions (a stage that is off does nothing): the
	// collisions' proximity impulses at x^n, strain limiting, the
	// continuous collisions and impact zones, and strain limiting and the
	// continuous stage again after CCD responses (strainRounds).
	if err == nil {
		tc := time.Now()
		err = s.beginCollisions(t1)
		sv := s.ct.solver
		if err == nil {
			sv.Proximity()
			if s.interrupted() {
				err = ErrInterrupted
			}
		}
		if err == nil {
			_, err = s.strainPass(t1, &st, true)
		}
		if err == nil {
			s.beforeCCD()
			err = sv.Continuous()
		}
		// The rounds after CCD responses, for the safety limit too
		// (SafetyStrain): CCD's responses can stretch a face that the
		// first pass left within it. Taken only in a step where the first
		// pass acted, TestLateDragsInGather's seed 3 blew up at
		// t = 10.04 s (625 m/s).
		for round := 0; err == nil && round < strainRounds && sv.Stats().CCDHits > 0; round++ {
			var changed bool
			if changed, err = s.strainPass(t1, &st, false); err != nil || !changed {
				break
			}
			err = sv.Continuous()
		}
		fails := s.ct.failsafes
		st.Contact, err = s.endCollisions(t1, err)
		if err == nil && s.ct.failsafes > fails && !s.ct.holdHands && s.pinsMoving() {
			s.ct.failsafes = fails
			err = errBlocked
		}
		if s.collides() {
			if err == nil {
				err = s.checkVelocity(t1, 0)
			}
			if err == nil && s.handMoved() && s.pushedIn(tn, t1) {
				err = errBlocked
			}
			st.Collide = time.Since(tc) - st.Limit + untangling
		}
	}
	if err == nil {
		s.commit(t1)
		s.commitContacts(tn, t1)
	} else {
		s.restoreHands()
	}
	st.Other = time.Since(t0) - st.Assemble - st.Solve - st.Limit - st.Collide
	return st, err
}

// prescribe computes the pins' targets at time t1 into pinNext and the
// velocity changes z that the solve prescribes (Baraff & Witkin 1998
// §5.3): z = (target − x)/Δt − v lands a pinned vertex exactly on its
// target, and z = n·(u − n·v) gives a normally constrained vertex the
// normal speed u.
func (s *Sim) prescribe(t1 float64) {
	m := s.Mesh
	dt := s.params.Dt
	for _, v := range s.constrained {
		n := s.normal[v]
		s.z[v] = n.Scale(s.normalSpeed[v] - n.Dot(m.Vel[v]))
	}
	s.pinNext = s.pinNext[:0]
	for _, pn := range s.pins {
		goal := pn.Goal
		if pn.Hand && pn.Path == nil {
			goal = s.reachable(pn.Vertex, nil, goal)
		}
		tgt := toward(pn.Target, goal, HandSpeed*dt)
		if pn.Path != nil {
			tgt = pn.Anchor.Add(pn.Path.At(t1))
			if pn.behind {
				tgt = toward(pn.Target, tgt, HandSpeed*dt)
			}
		}
		if s.ct.holdHands {
			tgt = pn.Target // the step is taken again with the pins held (errBlocked)
		}
		s.pinNext = append(s.pinNext, tgt)
	}
	s.leash(s.pinNext)
	s.apart(s.pinNext)
	for k, pn := range s.pins {
		v := pn.Vertex
		s.z[v] = s.pinNext[k].Sub(m.Pos[v]).Scale(1 / dt).Sub(m.Vel[v])
	}
}

// solve solves the assembled system for Δv by modified PCG and returns
// the iterations and the relative residual reached. Warm start: Δv changes
// smoothly from step to step, so the linear extrapolation 2·Δv₋₁ − Δv₋₂
// starts PCG closer than Δv₋₁ alone (measured on the curtain: 127 instead
// of 150 iterations per step).
func (s *Sim) solve() (int, float64) {
	p := &s.params
	s.gatherRows(true)
	it, res := s.solver.solve(s.sys, s.rhs, s.rowDv, s.rowZ, s.rowKind, s.rowN, p.Tolerance, p.MaxIter)
	s.scatterRows()
	return it, res
}

// averageVelocity sets vHalf = v + Δv for every live vertex slot: the
// average velocity v^{n+½} over the step (see Step, phase 3).
func (s *Sim) averageVelocity() {
	m := s.Mesh
	parallel.ForChunks(len(m.Pos), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			if m.VertAlive[i] {
				s.vHalf[i] = m.Vel[i].Add(s.dv[i])
			}
		}
	})
}

// checkVelocity returns an error wrapping ErrUnstable when v^{n+½} is
// non-finite or faster than speedLimit anywhere, or the solve's residual
// is NaN; it then clears the warm start, which a poisoned Δv would break
// on the next attempt. The state is not touched.
func (s *Sim) checkVelocity(t1, residual float64) error {
	m := s.Mesh
	parallel.ForChunks(len(m.Pos), func(k, lo, hi int) {
		var worst float64
		for i := lo; i < hi; i++ {
			if !m.VertAlive[i] {
				continue
			}
			sp := s.vHalf[i].Dot(s.vHalf[i])
			if math.IsNaN(sp) {
				sp = math.Inf(1)
			}
			worst = math.Max(worst, sp)
		}
		s.dots[k][0] = worst
	})
	var worst float64
	for k := range s.dots {
		worst = math.Max(worst, s.dots[k][0])
	}
	if math.IsNaN(residual) {
		worst = math.Inf(1)
	}
	if worst <= speedLimit*speedLimit {
		return nil
	}
	clear(s.dv)
	clear(s.dvOld)
	return fmt.Errorf("step %d at t=%.3f s: vertex speed %.3g m/s exceeds %d m/s: %w", s.Steps+1, t1, math.Sqrt(worst), speedLimit, ErrUnstable)
}

// commit makes v^{n+½} the state: x ← x + Δt·v^{n+½}, v ← v^{n+½}, pinned
// vertices exactly on their new targets (free of round-off), time t1.
func (s *Sim) commit(t1 float64) {
	m := s.Mesh
	dt := s.params.Dt
	s.sl.ramp = max(0, s.sl.ramp-strainRamp*dt)
	parallel.ForChunks(len(m.Pos), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			if !m.VertAlive[i] {
				continue
			}
			m.Vel[i] = s.vHalf[i]
			m.Pos[i] = m.Pos[i].Add(m.Vel[i].Scale(dt))
		}
	})
	s.takeBackEscape()
	s.takeBackUntangle()
	for k := range s.pins {
		p := &s.pins[k]
		p.Target = s.pinNext[k]
		if p.Path == nil {
			p.Anchor = p.Target
		} else {
			p.behind = p.Target != p.Anchor.Add(p.Path.At(t1))
		}
		m.Pos[p.Vertex] = p.Target
	}
	s.commitHands()
	s.Time = t1
	s.commits++
	s.committed = true
}

// constrain prescribes vertex slot v's velocity along the unit normal n at
// the end of the next steps to speed u, m/s, until unconstrain (a resting
// contact; the tangential directions stay free).
func (s *Sim) constrain(v int32, n geom.Vec3, u float64) {
	if s.normal[v] == (geom.Vec3{}) {
		s.constrained = append(s.constrained, v)
	}
	s.normal[v], s.normalSpeed[v] = n, u
}

// unconstrain removes every normal constraint.
func (s *Sim) unconstrain() {
	for _, v := range s.constrained {
		s.normal[v], s.normalSpeed[v] = geom.Vec3{}, 0
	}
	s.constrained = s.constrained[:0]
}

// frame returns the corotated frame of face f at positions xa, xb, xc
// (fem.CorotatedFrame) and records it as the face's last good frame; for a
// degenerate deformed triangle (collinear corners) it returns the last
// good frame instead, the material axes for a face that never had one.
func (s *Sim) frame(f int, xa, xb, xc geom.Vec3) (g1, g2 geom.Vec3) {
	if g1, g2, ok := fem.CorotatedFrame(&s.elems[f], xa, xb, xc); ok {
		s.frames[f] = [2]geom.Vec3{g1, g2}
	}
	return s.frames[f][0], s.frames[f][1]
}

// gatherRows copies Δv (extrapolated to 2·Δv − Δv₋₁ when extrapolate, which
// then becomes Δv₋₁), z and the row filters (fixed, normal) from vertex slots into the rows of the
// system, the order the solve works in (the live vertices, numberRows).
func (s *Sim) gatherRows(extrapolate bool) {
	sys := s.sys
	s.rowDv, s.rowZ = buf.Keep(s.rowDv, sys.n), buf.Keep(s.rowZ, sys.n)
	s.rowKind, s.rowN = buf.Keep(s.rowKind, sys.n), buf.Keep(s.rowN, sys.n)
	parallel.ForChunks(sys.n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			v := sys.slot[i]
			d := s.dv[v]
			if extrapolate {
				d, s.dvOld[v] = d.Scale(2).Sub(s.dvOld[v]), d
			}
			s.rowDv[i], s.rowZ[i] = d, s.z[v]
			switch n := s.normal[v]; {
			case s.fixed[v]:
				s.rowKind[i] = rowFixed
			case n != geom.Vec3{}:
				s.rowKind[i], s.rowN[i] = rowNormal, n
			case s.ct.un.had && s.ct.un.corr[v] != geom.Vec3{}:
				// An untangling correction (untangle.go): its velocity
				// change along its direction, from a velocity that no
				// longer moves against it (untangleStop).
				c := s.ct.un.corr[v]
				n := c.Scale(1 / c.Norm())
				s.rowKind[i], s.rowN[i], s.rowZ[i] = rowNormal, n, c.Add(n.Scale(untangleStop(n, s.Mesh.Vel[v])))
				s.ct.un.inSolve[v] = true
			default:
				s.rowKind[i] = rowFree
			}
		}
	})
}

// scatterRows copies the solve's Δv from the system's rows to the vertex
// slots.
func (s *Sim) scatterRows() {
	sys := s.sys
	parallel.ForChunks(sys.n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			s.dv[sys.slot[i]] = s.rowDv[i]
		}
	})
}

// assembleStep assembles Bender & Deul's system for a step of
// params.Dt (phase 2; see assemble).
func (s *Sim) assembleStep() {
	p := &s.params
	s.assemble(p.Dt*p.Dt+p.Dt*p.DampStiff, 1+p.Dt*p.DampMass, p.Dt+p.DampStiff, true)
}

// assemble fills the system: each face's corotated stiffness scaled by
// kScale and its nodal forces at y = x + vScale·v (when withRHS), then row by
// row the blocks kScale·(K_elastic + k_b·Q) + mScale·M and the right-hand
// side −Δt·(K·y + f₀ − f_ext + α_M·M·v). With kScale = Δt²+Δt·α_K,
// mScale = 1+Δt·α_M and vScale = Δt+α_K this is Bender & Deul's system.
// With kScale = 1 and mScale = 0 the matrix is the stiffness K itself.
func (s *Sim) assemble(kScale, mScale, vScale float64, withRHS bool) {
	s.assembleElements(kScale, vScale, withRHS)
	s.assembleRows(kScale, mScale, vScale, withRHS)
}

// assembleElements is assemble's first pass, over the faces: each
// element's stiffness blocks (elemK), scaled by kScale, and with withRHS
// its forces at y = x + vScale·v (elemF), with the stress stiffness's
// velocity term and the face's air drag.
func (s *Sim) assembleElements(kScale, vScale float64, withRHS bool) {
	p := &s.params
	m := s.Mesh
	c := p.ElasticityTensor()
	airDrag := p.AirDrag > 0
	parallel.ForChunks(len(m.Tris), func(_, lo, hi int) {
		for f := lo; f < hi; f++ {
			t := m.Tris[f]
			if !m.FaceAlive(f) {
				continue
			}
			er := &s.elems[f]
			xa, xb, xc := m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]]
			g1, g2 := s.frame(f, xa, xb, xc)
			sx, sy, txy := fem.ElementStress(er, &c, g1, g2, xa, xb, xc)
			kg := fem.GeometricStiffness(er, sx, sy, txy)
			fem.ElementStiffness(er, &c, g1, g2, &kg, kScale, (*[6]geom.Mat3)(s.elemK[6*f:6*f+6]))
			if !withRHS {
				continue
			}
			va, vb, vc := m.Vel[t[0]], m.Vel[t[1]], m.Vel[t[2]]
			fe := fem.ElementForces(er, &c, g1, g2, xa.Add(va.Scale(vScale)), xb.Add(vb.Scale(vScale)), xc.Add(vc.Scale(vScale)))
			// The velocity term (Δt+α_K)·K·v must use the same K as the
			// matrix, K_σ included: without it the system would carry an
			// anti-damping force +Δt·K_σ·v that pumps energy in.
			if kg != [6]float64{} {
				n := g1.Cross(g2)
				nv := [3]float64{n.Dot(va) * vScale, n.Dot(vb) * vScale, n.Dot(vc) * vScale}
				for i := 0; i < 3; i++ {
					var d float64
					for j := 0; j < 3; j++ {
						d += kg[fem.UpperIndex[i][j]] * nv[j]
					}
					fe[i] = fe[i].Add(n.Scale(d))
				}
			}
			if airDrag {
				// Normal air drag on the face, −c_d·A·((v̄−w)·n̂)·n̂, an
				// external force shared equally by the corners.
				n := xb.Sub(xa).Cross(xc.Sub(xa)) // 2A·n̂
				if nn := n.Norm(); nn > 0 {
					rel := va.Add(vb).Add(vc).Scale(1.0 / 3).Sub(p.Wind)
					fd := n.Scale(-p.AirDrag * rel.Dot(n) / (2 * nn))
					for i := range fe {
						fe[i] = fe[i].Sub(fd.Scale(1.0 / 3))
					}
				}
			}
			copy(s.elemF[3*f:3*f+3], fe[:])
		}
	})
}

// assembleRows is assemble's second pass, over the rows of the block
// system: each block summed from its elements' contributions plus the
// bending Laplacian, the diagonal's mass, drag spring and repulsion
// springs, the float32 copy the PCG products read, and with withRHS the
// right-hand side.
func (s *Sim) assembleRows(kScale, mScale, vScale float64, withRHS bool) {
	p := &s.params
	m := s.Mesh
	sys := s.sys
	kb := p.Bending
	dt := p.Dt
	springs := withRHS && s.repulsionSprings(kScale, vScale)
	ct := &s.ct
	parallel.ForChunks(sys.n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			v := sys.slot[i]
			yi := m.Pos[v].Add(m.Vel[v].Scale(vScale))
			var fb geom.Vec3 // k_b·(Q·y)_i, using Σ_j Q_ij = 0
			for k := sys.rowPtr[i]; k < sys.rowPtr[i+1]; k++ {
				// The block's entries are kept in locals, which stay in
				// registers (an array indexed in a loop lives in memory).
				var b0, b1, b2, b3, b4, b5, b6, b7, b8 float64
				for _, ct := range sys.contrib[sys.contribPtr[k]:sys.contribPtr[k+1]] {
					e := &s.elemK[ct>>1]
					if ct&1 == 0 {
						b0 += e[0]
						b1 += e[1]
						b2 += e[2]
						b3 += e[3]
						b4 += e[4]
						b5 += e[5]
						b6 += e[6]
						b7 += e[7]
						b8 += e[8]
					} else {
						b0 += e[0]
						b1 += e[3]
						b2 += e[6]
						b3 += e[1]
						b4 += e[4]
						b5 += e[7]
						b6 += e[2]
						b7 += e[5]
						b8 += e[8]
					}
				}
				if q := kb * sys.qsum[k]; q != 0 {
					d := kScale * q
					b0 += d
					b4 += d
					b8 += d
					if withRHS {
						j := sys.slot[sys.col[k]]
						yj := m.Pos[j].Add(m.Vel[j].Scale(vScale))
						fb = fb.Add(yj.Sub(yi).Scale(q))
					}
				}
				b := &sys.val[k]
				b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8] = b0, b1, b2, b3, b4, b5, b6, b7, b8
			}
			for k := sys.oppPtr[i]; k < sys.oppPtr[i+1]; k++ {
				q := kb * sys.oppQ[k]
				sys.oppVal[k] = kScale * q
				if withRHS {
					j := sys.slot[sys.oppCol[k]]
					yj := m.Pos[j].Add(m.Vel[j].Scale(vScale))
					fb = fb.Add(yj.Sub(yi).Scale(q))
				}
			}
			mi := p.Density * s.area[v]
			dg := &sys.val[sys.diag[i]]
			d := mScale * mi
			dragged := s.drag.on && s.drag.v == v
			if dragged {
				d += kScale * p.DragStiffness
			}
			dg[0] += d
			dg[4] += d
			dg[8] += d
			if springs && ct.springOn[v] { // the repulsion springs' diagonal (repulsion.go)
				for q, kq := range ct.springK[v] {
					dg[q] += kScale * kq
				}
			}
			// The float32 copy the PCG products read, made while the
			// row is in cache (see pcg.solve).
			for k := sys.rowPtr[i]; k < sys.rowPtr[i+1]; k++ {
				b, w := &sys.val[k], &sys.val32[k]
				w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8] = float32(b[0]), float32(b[1]), float32(b[2]),
					float32(b[3]), float32(b[4]), float32(b[5]), float32(b[6]), float32(b[7]), float32(b[8])
			}
			for k := sys.oppPtr[i]; k < sys.oppPtr[i+1]; k++ {
				sys.oppVal32[k] = float32(sys.oppVal[k])
			}
			if !withRHS {
				continue
			}
			fi := fb
			for _, cn := range sys.corners[sys.cornerPtr[i]:sys.cornerPtr[i+1]] {
				fi = fi.Add(s.elemF[cn])
			}
			if dragged {
				fi = fi.Add(yi.Sub(s.drag.next).Scale(p.DragStiffness))
			}
			if springs && ct.springOn[v] {
				fi = fi.Add(ct.springF[v])
			}
			fi = fi.Sub(p.Gravity.Scale(mi)).Add(m.Vel[v].Scale(p.DampMass * mi))
			s.rhs[i] = fi.Scale(-dt)
		}
	})
}

// InternalForces writes into out (one per vertex slot) the elastic and
// bending forces the cloth exerts on its vertices at the current positions,
// −(K^R·x + f₀ + k_b·Q·x), N. Free slots get zero.
func (s *Sim) InternalForces(out []geom.Vec3) {
	m := s.Mesh
	c := s.params.ElasticityTensor()
	clear(out)
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		er := &s.elems[f]
		g1, g2 := s.frame(f, m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]])
		fe := fem.ElementForces(er, &c, g1, g2, m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]])
		for i := range fe {
			out[t[i]] = out[t[i]].Sub(fe[i])
		}
	}
	kb := s.params.Bending
	sys := s.sys
	for i, v := range sys.slot {
		for k := sys.rowPtr[i]; k < sys.rowPtr[i+1]; k++ {
			j := sys.slot[sys.col[k]]
			out[v] = out[v].Sub(m.Pos[j].Sub(m.Pos[v]).Scale(kb * sys.qsum[k]))
		}
		for k := sys.oppPtr[i]; k < sys.oppPtr[i+1]; k++ {
			j := sys.slot[sys.oppCol[k]]
			out[v] = out[v].Sub(m.Pos[j].Sub(m.Pos[v]).Scale(kb * sys.oppQ[k]))
		}
	}
}

// PinReactions returns, for each pin in Pins order, the force the pin
// applies to the cloth so that its vertex is in equilibrium under the
// internal forces and gravity: −(f_int + m·g), N. For a settled sheet their
// sum balances the total weight.
func (s *Sim) PinReactions() []geom.Vec3 {
	f := make([]geom.Vec3, len(s.Mesh.Pos))
	s.InternalForces(f)
	out := make([]geom.Vec3, len(s.pins))
	for k, pn := range s.pins {
		i := pn.Vertex
		out[k] = f[i].Add(s.params.Gravity.Scale(s.Mass(int(i)))).Scale(-1)
	}
	return out
}

// Energy returns the total mechanical energy, J: kinetic ½Σm|v|², gravity
// −Σm·g·x, corotated membrane ½Σ_e A_e·εᵀCε and isometric bending ½k_b·xᵀQx.
// Without damping, implicit Euler must never increase it.
func (s *Sim) Energy() float64 {
	m := s.Mesh
	p := &s.params
	e := s.KineticEnergy() + fem.BendingEnergy(m, p.Bending)
	for i := range m.Pos {
		if m.VertAlive[i] {
			e -= s.Mass(i) * p.Gravity.Dot(m.Pos[i])
		}
	}
	c := p.ElasticityTensor()
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		er := &s.elems[f]
		g1, g2 := s.frame(f, m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]])
		sx, sy, txy := fem.ElementStress(er, &c, g1, g2, m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]])
		ex, ey, gxy := fem.ElementStrain(er, g1, g2, m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]])
		e += 0.5 * er.Area * (ex*sx + ey*sy + gxy*txy) // ½·A·εᵀCε
	}
	return e
}
