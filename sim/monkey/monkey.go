// Package monkey plays with a cloth scene the way a person does in the
// viewer, at random but reproducibly from a seed, and checks after every
// few steps that nothing went wrong: it drags pins, pulls free vertices
// and throws them, drags obstacles (also "while paused": a jump), pins
// and unpins vertices, moves every slider of the viewer's panels to a
// random value of its range and back, toggles adaptivity, collisions,
// self-collision and strain limiting, resets and switches scenes.
//
// What it checks is independent of the collision code: the exact
// intersection oracle of sim/internal/exact (cloth triangle pairs that
// share no vertex and intersect, cloth vertices inside an obstacle's
// collision mesh or below a plane), and the signed distance of the
// obstacle's own shape for the depth of a vertex inside it. A step that
// fails (cloth.Sim.Step's error, after its substep failsafe) or panics is
// a failure, and so is an intersection that lasts longer than Grace: the
// cloth is given that long to untangle after whatever made the tangle.
// Faces with a pinned vertex are left out of both checks: a person may
// hold a pin inside an obstacle or through the sheet, and the pin wins.
//
// This is the driver of issue 39's `drape monkey`; the viewer's own
// monkey test drives the real window with the same kinds of input.
package monkey

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/internal/exact"
	"drape/sim/obstacle"
	"drape/sim/param"
	"drape/sim/scene"
	"drape/sim/strainlimit"
)

// Config is one monkey run.
type Config struct {
	Scenes  fs.FS   // where built-in scene names resolve (assets.Scenes)
	Scene   string  // the scene to start with: a built-in name or a file
	Seed    uint64  // the run is a function of the seed (and the machine's float rounding)
	Seconds float64 // simulated seconds to run
	// CheckEvery is the number of steps between two oracle checks; 0
	// means 10. A check also runs at the end of every gesture.
	CheckEvery int
	// Grace is how long an intersection may last before it counts, s
	// of simulated time; 0 means 1 s (issue 39's untangling time).
	Grace float64
	// Switch lists the scenes a scene switch may load; empty: none.
	Switch []string
	// Trace, when set, gets one line per action.
	Trace io.Writer
	// Wall, when positive, is the run's budget of wall time: a run that
	// spends it before its Seconds stops there, and that is a failure
	// (a scene play made crawl), reported with how far it got.
	Wall time.Duration
}

// Result is what a run found.
type Result struct {
	Seed    uint64
	Scene   string // the scene the run started with
	Steps   int    // steps taken (across resets and switches)
	Time    float64
	Actions int
	Retried int // steps that needed the substep failsafe
	// RetriedAtCap counts the Retried steps halved because their solve
	// stopped at the PCG cap far from converged: a cap a slider set too
	// low, or a system a slider made ill-conditioned
	// (cloth.Sim.RetriedAtCap).
	RetriedAtCap int
	Blowups      int // steps that failed even so (the run resets and goes on)
	Panics       int
	Rejected     int // parameter values the simulation refused (not failures)
	MaxPairs     int // most intersecting cloth triangle pairs at a check
	MaxInside    int // most cloth vertices inside obstacles at a check
	// MaxDepth is the deepest a free cloth vertex was inside an obstacle
	// at a check, m (by the obstacle's own signed distance).
	MaxDepth float64
	// Lasting counts the checks at which an intersection had lasted
	// longer than Grace.
	Lasting int
	MaxTris int
	// SlowestStep is the longest a step took, wall time: what a person
	// would see as a stall.
	SlowestStep time.Duration
	Failures    []Failure // at most maxFailures, the first ones
}

// Failure is one thing that went wrong, with what reproduces it.
type Failure struct {
	Step  int     // the run's step count when it was seen
	Time  float64 // the simulation's time then, s
	Scene string
	What  string
}

func (f Failure) String() string {
	return fmt.Sprintf("step %d (t=%.3f s, %s): %s", f.Step, f.Time, f.Scene, f.What)
}

const maxFailures = 20

// OK reports whether the run found no failure.
func (r *Result) OK() bool {
	return len(r.Failures) == 0 && r.Blowups == 0 && r.Panics == 0 && r.Lasting == 0
}

func (r *Result) String() string {
	s := fmt.Sprintf("%s seed %d: %d steps, %.2f s, %d actions, %d retried (%d at the PCG cap), %d blow-ups, %d panics, pairs max %d, inside max %d (deepest %.1f mm), lasting %d, triangles max %d, slowest step %v",
		r.Scene, r.Seed, r.Steps, r.Time, r.Actions, r.Retried, r.RetriedAtCap, r.Blowups, r.Panics, r.MaxPairs, r.MaxInside, 1000*r.MaxDepth, r.Lasting, r.MaxTris, r.SlowestStep.Round(time.Millisecond))
	if len(r.Failures) > 0 {
		s += "; first failure: " + r.Failures[0].String()
	}
	return s
}

// The gesture kinds, and how often each is drawn (weights).
const (
	gPinDrag = iota
	gVertexDrag
	gObstacleDrag
	gObstacleJump
	gPinToggle
	gParam
	gReset
	gSwitch
	gIdle
	nGestures
)

var gestureNames = [nGestures]string{"pin drag", "vertex drag", "obstacle drag", "obstacle jump (paused)", "pin toggle", "slider", "reset", "scene switch", "idle"}

var gestureWeights = [nGestures]float64{25, 25, 20, 4, 6, 15, 3, 2, 10}

// The range of a hand's speed, m per simulated second. A flick across a
// 1280-pixel window in 0.1 s moves the cursor about 20 m/s at the
// cloth's depth (the default cameras show 1.5–2.5 m across the window);
// a scene that runs at a third of real time turns that into 60 m/s of
// simulated time. Speeds are drawn log-uniformly between these.
const (
	minHandSpeed = 0.2
	maxHandSpeed = 60
	maxReach     = 2.5 // m: how far from its start a drag may go (the window's edge)
)

// run is the state of one monkey run.
type run struct {
	cfg Config
	rng *rand.Rand
	res *Result

	sc             *scene.Scene
	sim            *cloth.Sim
	steps          int
	retried, atCap int // Retried and RetriedAtCap of the simulations that resets and switches replaced

	// the gesture in progress
	kind       int
	until      float64 // simulated time it ends
	t0         float64
	v          int32
	obs        int
	from, velo geom.Vec3
	// slider excursions to undo: the value in force before, and when
	reverts []revert
	// since when the cloth has been tangled or inside an obstacle; −1 if
	// it is not
	tangledSince, insideSince float64
}

type revert struct {
	at   float64
	what string // the control, for the trace
	set  func(*cloth.Sim) error
}

// Run plays one monkey run and returns what it found. An error means the
// run could not start (an unknown scene); everything that goes wrong
// after that is in the Result.
func Run(cfg Config) (*Result, error) {
	if cfg.CheckEvery <= 0 {
		cfg.CheckEvery = 10
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 1
	}
	r := &run{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x6d6f6e6b6579)), res: &Result{Seed: cfg.Seed, Scene: cfg.Scene}}
	if err := r.load(cfg.Scene); err != nil {
		return nil, err
	}
	r.tangledSince, r.insideSince = -1, -1
	elapsed := 0.0
	start := time.Now()
	for elapsed < cfg.Seconds {
		if cfg.Wall > 0 && time.Since(start) > cfg.Wall {
			r.fail(fmt.Sprintf("wall budget of %v spent at %.2f s of %g s simulated (%d triangles, slowest step %v)",
				cfg.Wall, elapsed, cfg.Seconds, r.sim.Mesh.NumTris(), r.res.SlowestStep.Round(time.Millisecond)))
			break
		}
		t := r.sim.Time
		if !r.act() {
			continue
		}
		ok := r.step()
		elapsed += r.sim.Time - t
		if !ok {
			elapsed += r.sim.Params().Dt // a failed step still spends its share
		}
		if len(r.res.Failures) >= maxFailures {
			break
		}
	}
	r.check()
	r.res.Steps, r.res.Time = r.steps, elapsed
	r.res.Retried, r.res.RetriedAtCap = r.retried+r.sim.Retried(), r.atCap+r.sim.RetriedAtCap()
	return r.res, nil
}

// load builds scene name with its own parameters.
func (r *run) load(name string) error {
	sc, err := scene.LoadScene(r.cfg.Scenes, name)
	if err != nil {
		return err
	}
	if sc.IsSprings() {
		return fmt.Errorf("scene %s runs the mass-spring cloth, which the monkey does not drive", sc.Name)
	}
	s, err := sc.Build()
	if err != nil {
		return err
	}
	if r.sim != nil {
		r.retired(r.sim)
	}
	r.sc, r.sim = sc, s
	r.kind, r.until, r.reverts = gIdle, s.Time, nil
	return nil
}

// reset rebuilds the running scene keeping the parameter blocks in force,
// as the viewer's Reset does.
func (r *run) reset() {
	old := r.sim
	s, err := r.sc.Build()
	if err != nil {
		r.fail("reset: " + err.Error())
		return
	}
	for _, set := range []error{
		s.SetParams(old.Params()),
		s.SetContactParams(old.ContactParams()),
		s.SetStrainParams(old.StrainParams()),
	} {
		if set != nil {
			r.fail("reset: " + set.Error())
		}
	}
	if ap := old.AdaptParams(); ap.Validate() == nil {
		if err := s.SetAdaptParams(ap); err != nil {
			r.fail("reset: " + err.Error())
		}
	}
	r.retired(old)
	r.sim = s
	r.kind, r.until = gIdle, s.Time
	r.tangledSince, r.insideSince = -1, -1
}

// retired adds the retries of s, which a reset or switch replaces.
func (r *run) retired(s *cloth.Sim) {
	r.retried += s.Retried()
	r.atCap += s.RetriedAtCap()
}

func (r *run) fail(what string) {
	if len(r.res.Failures) < maxFailures {
		r.res.Failures = append(r.res.Failures, Failure{Step: r.steps, Time: r.sim.Time, Scene: r.sc.Name, What: what})
	}
}

func (r *run) trace(format string, a ...any) {
	if r.cfg.Trace != nil {
		fmt.Fprintf(r.cfg.Trace, "step %d t=%.3f %s: %s\n", r.steps, r.sim.Time, r.sc.Name, fmt.Sprintf(format, a...))
	}
}

// act applies the gesture in progress for the next step, or ends it and
// starts the next one. It reports whether a step should follow (false
// after a reset or a scene switch, which start again).
func (r *run) act() bool {
	s := r.sim
	t := s.Time
	for _, rv := range r.reverts {
		if rv.at <= t {
			r.trace("revert %s", rv.what)
			if err := rv.set(s); err != nil {
				r.res.Rejected++
			}
		}
	}
	r.reverts = slices.DeleteFunc(r.reverts, func(rv revert) bool { return rv.at <= t })
	if t < r.until {
		r.drive(t + s.Params().Dt)
		return true
	}
	r.end()
	r.res.Actions++
	return r.start()
}

// drive moves the gesture's target to where it is at time t.
func (r *run) drive(t float64) {
	s := r.sim
	at := r.from.Add(r.velo.Scale(t - r.t0))
	if d := at.Sub(r.from); d.Norm() > maxReach {
		at = r.from.Add(d.Scale(maxReach / d.Norm()))
	}
	var err error
	switch r.kind {
	case gPinDrag:
		err = s.Pin(r.v, at)
	case gVertexDrag:
		err = s.Drag(r.v, at)
	case gObstacleDrag:
		err = s.DragObstacle(r.obs, at)
	}
	if err != nil {
		// The vertex went away (adaptation moved a pin, or took the
		// dragged vertex with none near to go on with; a drag that went
		// on with another vertex takes the old name, cloth.Sim.Drag):
		// the gesture ends, as a person's would lose its grip.
		r.until = s.Time
	}
}

// end finishes the gesture in progress: a vertex drag lets go (a throw,
// when the hand still moves).
func (r *run) end() {
	if r.kind == gVertexDrag {
		r.sim.Release()
	}
	if r.kind != gIdle {
		r.check()
	}
	r.kind = gIdle
}

// start draws the next gesture and applies its first part; false when it
// rebuilt the simulation.
func (r *run) start() bool {
	s := r.sim
	w := gestureWeights
	obs := r.movableObstacles()
	if len(obs) == 0 {
		w[gObstacleDrag], w[gObstacleJump] = 0, 0
	}
	if len(r.cfg.Switch) == 0 {
		w[gSwitch] = 0
	}
	r.kind = pick(r.rng, w[:])
	r.t0 = s.Time
	r.until = s.Time + 0.05 + 0.7*r.rng.Float64()
	speed := minHandSpeed * math.Pow(maxHandSpeed/minHandSpeed, r.rng.Float64())
	r.velo = randomDir(r.rng).Scale(speed)
	switch r.kind {
	case gPinDrag:
		pins := s.Pins()
		if len(pins) == 0 {
			r.kind = gIdle
			break
		}
		p := pins[r.rng.IntN(len(pins))]
		r.v, r.from = p.Vertex, p.Target
		r.trace("%s: vertex %d at %.1f m/s", gestureNames[r.kind], r.v, speed)
	case gVertexDrag:
		v, ok := r.freeVertex()
		if !ok {
			r.kind = gIdle
			break
		}
		r.v, r.from = v, s.Mesh.Pos[v]
		r.trace("%s: vertex %d at %.1f m/s", gestureNames[r.kind], r.v, speed)
	case gObstacleDrag:
		r.obs = obs[r.rng.IntN(len(obs))]
		r.from = s.Obstacles()[r.obs].Offset()
		r.trace("%s: obstacle %d at %.1f m/s towards %.2f", gestureNames[r.kind], r.obs, speed, r.velo.Scale(1/speed))
	case gObstacleJump:
		i := obs[r.rng.IntN(len(obs))]
		o := s.Obstacles()[i]
		off := o.Offset().Add(randomDir(r.rng).Scale(0.5 * r.rng.Float64()))
		if _, err := s.JumpObstacle(i, off); err != nil {
			r.fail("obstacle jump: " + err.Error())
		}
		if err := s.DragObstacle(i, off); err != nil {
			r.fail("obstacle jump: " + err.Error())
		}
		r.until = s.Time
		r.trace("%s: obstacle %d to %v", gestureNames[r.kind], i, off)
	case gPinToggle:
		r.until = s.Time
		v, ok := r.freeVertex()
		if pins := s.Pins(); len(pins) > 0 && (r.rng.IntN(2) == 0 || !ok) {
			p := pins[r.rng.IntN(len(pins))]
			s.Unpin(p.Vertex)
			r.trace("unpin vertex %d", p.Vertex)
		} else if ok {
			if err := s.Pin(v, s.Mesh.Pos[v]); err != nil {
				r.fail("pin: " + err.Error())
			}
			r.trace("pin vertex %d", v)
		}
	case gParam:
		r.until = s.Time
		r.slider()
	case gReset:
		r.trace("reset")
		r.reset()
		return false
	case gSwitch:
		name := r.cfg.Switch[r.rng.IntN(len(r.cfg.Switch))]
		r.trace("switch to %s", name)
		if err := r.load(name); err != nil {
			r.fail("switch: " + err.Error())
		}
		r.tangledSince, r.insideSince = -1, -1
		return false
	case gIdle:
		r.until = s.Time + 0.5*r.rng.Float64()
	}
	if r.kind == gPinDrag || r.kind == gVertexDrag || r.kind == gObstacleDrag {
		r.drive(s.Time + s.Params().Dt)
	}
	return true
}

// movableObstacles lists the obstacles a person can drag (not planes).
func (r *run) movableObstacles() []int {
	var out []int
	for i, o := range r.sim.Obstacles() {
		if o.Kind != obstacle.Plane {
			out = append(out, i)
		}
	}
	return out
}

// freeVertex returns a random live vertex that is not pinned.
func (r *run) freeVertex() (int32, bool) {
	m := r.sim.Mesh
	pinned := map[int32]bool{}
	for _, p := range r.sim.Pins() {
		pinned[p.Vertex] = true
	}
	for range 100 {
		v := int32(r.rng.IntN(len(m.Pos)))
		if m.VertAlive[v] && !pinned[v] {
			return v, true
		}
	}
	return 0, false
}

// slider moves one of the viewer's controls (a field of a parameter table
// with a sidebar group) to a random value of its slider's range, or
// toggles it, and with probability ⅔ schedules the old value back after
// 0.3–4 s, as a person trying a value would.
func (r *run) slider() {
	s := r.sim
	back := r.rng.Float64() < 2.0/3
	later := s.Time + 0.3 + 3.7*r.rng.Float64()
	switch r.rng.IntN(4) {
	case 0:
		slide(r, "params", cloth.ParamTable, s.Params(), (*cloth.Sim).Params, (*cloth.Sim).SetParams, back, later)
	case 1:
		p := s.AdaptParams()
		if p.Validate() != nil { // a scene without adaptivity: the panel's switch is off
			p = cloth.DefaultAdaptParams()
			p.Enabled = false
		}
		slide(r, "adapt", cloth.AdaptTable, p, (*cloth.Sim).AdaptParams, (*cloth.Sim).SetAdaptParams, back, later)
	case 2:
		slide(r, "contact", contact.Table, s.ContactParams(), (*cloth.Sim).ContactParams, (*cloth.Sim).SetContactParams, back, later)
	case 3:
		slide(r, "strain", strainlimit.Table, s.StrainParams(), (*cloth.Sim).StrainParams, (*cloth.Sim).SetStrainParams, back, later)
	}
}

// slide moves one control of parameter block v (table t, read by get and
// applied by set) and, with back, schedules that control's old value back
// at time later. Only that control: a person who tries a friction and
// puts it back does not also undo the collisions switch flipped since.
// Restoring the whole block as it was, as the monkey did before, switched
// collisions back on behind the back of a later slider (ground seed 1:
// the friction's revert re-enabled collisions over a sheet 5.4 m under
// the ground, the run before contact.PushSpeed).
func slide[T any](r *run, block string, t param.Table[T], v T, get func(*cloth.Sim) T, set func(*cloth.Sim, T) error, back bool, later float64) {
	old := v
	key, val := randomize(r.rng, t, &v)
	r.trace("slider %s.%s = %s", block, key, val)
	r.setOr(set(r.sim, v), back, later, block+"."+key, func(s *cloth.Sim) error {
		cur := get(s)
		copyField(t, key, &cur, &old)
		return set(s, cur)
	})
}

// copyField copies the field of table t with key from src to dst.
func copyField[T any](t param.Table[T], key string, dst, src *T) {
	switch f := t.Field(key); {
	case f == nil:
	case f.Bool != nil:
		*f.Bool(dst) = *f.Bool(src)
	case f.Int != nil:
		*f.Int(dst) = *f.Int(src)
	case f.Float != nil:
		*f.Float(dst) = *f.Float(src)
	case f.Vec != nil:
		*f.Vec(dst) = *f.Vec(src)
	}
}

func (r *run) setOr(err error, back bool, at float64, what string, undo func(*cloth.Sim) error) {
	if err != nil {
		r.res.Rejected++
		r.trace("rejected: %v", err)
		return
	}
	if back {
		r.reverts = append(r.reverts, revert{at: at, what: what, set: undo})
	}
}

// randomize sets one field of v that has a viewer control (a Group) to a
// random value of its slider's range (log-uniform for a logarithmic
// slider), or flips it for a switch, and returns its key and new value.
func randomize[T any](rng *rand.Rand, t param.Table[T], v *T) (key, value string) {
	var fields []*param.Field[T]
	for i := range t {
		if t[i].Group != "" {
			fields = append(fields, &t[i])
		}
	}
	f := fields[rng.IntN(len(fields))]
	u := rng.Float64()
	x := f.SliderMin + u*(f.SliderMax-f.SliderMin)
	if f.Log && f.SliderMin > 0 {
		x = f.SliderMin * math.Pow(f.SliderMax/f.SliderMin, u)
	}
	switch {
	case f.Bool != nil:
		*f.Bool(v) = !*f.Bool(v)
		value = fmt.Sprint(*f.Bool(v))
	case f.Int != nil:
		*f.Int(v) = int(math.Round(x))
		value = fmt.Sprint(*f.Int(v))
	case f.Float != nil:
		*f.Float(v) = x
		value = fmt.Sprintf("%.4g", x)
	}
	return f.Key, value
}

// step takes one step, recovering a panic, and checks every CheckEvery
// steps. It reports whether the step succeeded.
func (r *run) step() (ok bool) {
	s := r.sim
	defer func() {
		if p := recover(); p != nil {
			r.res.Panics++
			r.fail(fmt.Sprintf("panic: %v", p))
			r.reset()
			ok = false
		}
	}()
	w0 := time.Now()
	st, err := s.Step()
	r.steps++
	if w := time.Since(w0); w > r.res.SlowestStep {
		r.res.SlowestStep = w
		if w > time.Second {
			r.trace("slow step: %v (%d triangles, %d PCG iterations, %d substeps, %d held, strain passes %d, contact %+v)", w, s.Mesh.NumTris(), st.Iterations, st.Substeps, st.Held, st.Strain.Passes, st.Contact)
		}
	}
	if err != nil {
		if errors.Is(err, cloth.ErrUnstable) {
			r.res.Blowups++
		}
		r.fail(err.Error())
		r.trace("step failed: %v; reset", err)
		r.reset()
		return false
	}
	if st.Retry != nil {
		r.trace("retried (%d substeps): %v", st.Substeps, st.Retry)
	}
	r.res.MaxTris = max(r.res.MaxTris, s.Mesh.NumTris())
	if r.steps%r.cfg.CheckEvery == 0 {
		r.check()
	}
	return true
}

// check runs the oracle on the current state.
func (r *run) check() {
	s := r.sim
	m := s.Mesh
	pinned := make([]bool, len(m.Pos))
	for _, p := range s.Pins() {
		pinned[p.Vertex] = true
	}
	tris := make([][3]int32, 0, len(m.Tris))
	for f, t := range m.Tris {
		if m.FaceAlive(f) && !pinned[t[0]] && !pinned[t[1]] && !pinned[t[2]] {
			tris = append(tris, t)
		}
	}
	cp := s.ContactParams()
	var surfs []exact.Surface
	var planes []exact.Plane
	var all []*obstacle.Obstacle
	var round []bool // per obstacle of all: a sphere or a capsule, handled from its core
	if cp.Enabled {
		all = s.Obstacles()
		for _, o := range all {
			_, _, _, ok := o.Core(o.Pose(s.Time))
			round = append(round, ok)
			switch {
			case ok: // checked below, from its core
			case o.Kind == obstacle.Plane:
				p, n := o.Plane(s.Time)
				planes = append(planes, exact.Plane{Point: p, Normal: n})
			default:
				surfs = append(surfs, exact.Surface{Pos: o.Vertices(s.Time, nil), Tris: o.Tris()})
			}
		}
	}
	self := cp.Enabled && cp.SelfCollision
	rep := exact.NewChecker(surfs, planes).Check(m.Pos, tris, self)
	if rep.NonFinite > 0 {
		r.fail("non-finite state: " + rep.First)
	}
	r.res.MaxPairs = max(r.res.MaxPairs, rep.SelfPairs)
	inside := rep.Inside + rep.ObstaclePairs
	first := rep.First
	// The depth, by every obstacle's own signed distance. Spheres and
	// capsules: the collision code handles them exactly, from their cores,
	// and cloth resting on them lies between the analytic surface and its
	// tessellation; a vertex counts as inside when it is deeper than the
	// tessellation's tolerance (the oracle counts the others).
	for v, p := range m.Pos {
		if !m.VertAlive[v] || pinned[v] {
			continue
		}
		for k, o := range all {
			d, _ := o.SignedDistance(p, s.Time)
			r.res.MaxDepth = max(r.res.MaxDepth, -d)
			if round[k] && d < -obstacle.ChordTolerance {
				inside++
				if first == "" {
					first = fmt.Sprintf("vertex %d %.1f mm inside %s", v, -1000*d, o.Name())
				}
			}
		}
	}
	r.res.MaxInside = max(r.res.MaxInside, inside)
	r.lasting(&r.tangledSince, rep.SelfPairs, "intersecting cloth triangle pairs")
	r.lasting(&r.insideSince, inside, insideWhat+" ("+first+")")
}

// insideWhat names the failure of cloth inside an obstacle or across its
// surface in a Failure's What.
const insideWhat = "cloth vertices inside or faces crossing an obstacle"

// lasting notes when a problem started and fails once it has lasted
// longer than Grace.
func (r *run) lasting(since *float64, n int, what string) {
	t := r.sim.Time
	switch {
	case n == 0:
		*since = -1
	case *since < 0:
		*since = t
		r.trace("%d %s", n, what)
	case t-*since > r.cfg.Grace:
		r.res.Lasting++
		r.fail(fmt.Sprintf("%d %s for %.2f s", n, what, t-*since))
		*since = t // report again after another grace period
	default:
		r.trace("%d %s (for %.2f s)", n, what, t-*since)
	}
}

// pick returns an index drawn with the given weights.
func pick(rng *rand.Rand, w []float64) int {
	var sum float64
	for _, x := range w {
		sum += x
	}
	u := rng.Float64() * sum
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// randomDir returns a uniformly random unit vector.
func randomDir(rng *rand.Rand) geom.Vec3 {
	for {
		d := geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}
		if n := d.Norm(); n > 1e-9 {
			return d.Scale(1 / n)
		}
	}
}

// FEMScenes returns the built-in scenes of fsys that run the FEM cloth:
// the ones the monkey drives.
func FEMScenes(fsys fs.FS) []string {
	var out []string
	for _, n := range scene.SceneNames(fsys) {
		if sc, err := scene.LoadScene(fsys, n); err == nil && !sc.IsSprings() {
			out = append(out, n)
		}
	}
	return out
}
