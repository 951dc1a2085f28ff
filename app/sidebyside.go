package app

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"drape/app/headless"
	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
)

// Side by side (issue 44): two runs of one scene, each on a Loop of its
// own, drawn next to each other with one camera. The left run is by
// default the scene at full resolution (its base mesh refined uniformly
// to g_max, adaptivity off: drape bench's reference, headless.FullResolution),
// the right one the adaptive run; pairKind lists the other pairs. Neither
// run waits for the other, so the faster one runs ahead in simulated
// time; locked (lockGate), the one ahead waits, edits reach both for the
// same step (Command.At), and the distance between the two surfaces is
// measured whenever both stand at the same time (distanceWorker, the
// bench's accuracy measure: headless.SurfaceDistance). Every command the
// viewer sends goes to both runs (pairSink), a vertex translated to the
// other mesh by its material coordinates; the adaptivity settings, which
// define the comparison, go to the run the Adaptivity panel edits.
//
// Scenes without an "adapt" section have nothing to compare: side by side
// refuses them with a message (pairScenes) rather than making up a pair,
// and so does a springs scene (drape bench compares its variants).
//
// The single run (the viewer's own Loop) is paused while side by side is
// on and resumes as it was when it goes off; panel edits (parameters,
// contact, strain limits, speed) reach it too, and a scene loaded side by
// side is loaded into it.

// pairKind is which two runs of a scene side by side shows.
type pairKind int

const (
	pairFullAdaptive pairKind = iota // left: full resolution (uniform to g_max, adaptivity off); right: adaptive
	pairTwoGMax                      // left: adaptive to g_max − 1; right: adaptive to g_max
	pairTwoCriteria                  // left: adaptive with l_base and l_gmax doubled; right: the scene's criterion
	pairKinds
)

// pairNames label the pairs in the Scene panel and --state; pairFlags
// name them on the command line (--pair).
var (
	pairNames = [pairKinds]string{
		"full resolution | adaptive",
		"g_max − 1 | g_max",
		"criterion ×2 | criterion",
	}
	pairFlags = [pairKinds]string{"full", "gmax", "criteria"}
)

// PairFlags returns the names --pair takes.
func PairFlags() []string { return pairFlags[:] }

// parsePair returns the pair --pair names; "" is the default pair.
func parsePair(name string) (pairKind, error) {
	if name == "" {
		return pairFullAdaptive, nil
	}
	for k, n := range pairFlags {
		if n == name {
			return pairKind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown pair %q (want one of %v)", name, pairFlags)
}

// Sides of a pair: the index of each run.
const (
	sideLeft  = 0
	sideRight = 1
)

// errNoPair is why a scene cannot be shown side by side.
func errNoPair(sc *scene.Scene) error {
	if sc.IsSprings() {
		return fmt.Errorf("side by side: scene %s runs the mass-spring cloth; side by side compares the FEM cloth's adaptivity (drape bench compares a springs scene's variants)", sc.Name)
	}
	return fmt.Errorf("side by side: scene %s does not adapt (no \"adapt\" section), so it has nothing to compare; load curtain-adaptive, sphere-adaptive, drape-box or a scene with an \"adapt\" section", sc.Name)
}

// pairScenes returns the two runs of sc for pair k, left then right, and a
// note for the panel ("" for none; pairNote says the same of the runs in
// force). base, if not nil, replaces the scene's
// adaptivity settings (the ones in force when side by side was turned
// on). The right run adapts with those settings (switched on if the
// scene had them off); the left one is
//
//   - pairFullAdaptive: the full-resolution run (headless.FullResolution)
//     at g_max, or at g_max − 1 when g_max is odd (√3 refinement is
//     uniform only at even generations; the note says so);
//   - pairTwoGMax: adaptive to g_max − 1 (g_max 0 has nothing coarser);
//   - pairTwoCriteria: adaptive with l_base and l_gmax doubled, so it
//     refines only where the cloth is twice as curved.
func pairScenes(sc *scene.Scene, k pairKind, base *cloth.AdaptParams) (runs [2]*scene.Scene, note string, err error) {
	if sc.IsSprings() || sc.Adapt == nil && base == nil {
		return runs, "", errNoPair(sc)
	}
	a := sc.Adapt
	if base != nil {
		a = base
	}
	r := sc.Clone()
	ra := *a
	ra.Enabled, ra.FineStart = true, false
	r.Adapt = &ra
	l := r.Clone()
	switch k {
	case pairFullAdaptive:
		if l, err = headless.FullResolution(r, a.GMax&^1); err != nil {
			return runs, "", err
		}
		note = pairNote(k, *l.Adapt, ra)
	case pairTwoGMax:
		if a.GMax == 0 {
			return runs, "", fmt.Errorf("side by side: scene %s refines to g_max 0: there is no coarser g_max to compare", sc.Name)
		}
		l.Adapt.GMax--
	case pairTwoCriteria:
		l.Adapt.Base, l.Adapt.Max = 2*a.Base, 2*a.Max
		if err := l.Adapt.Validate(); err != nil {
			return runs, "", fmt.Errorf("side by side: scene %s: the doubled criterion: %w", sc.Name, err)
		}
	default:
		return runs, "", fmt.Errorf("side by side: unknown pair %d", k)
	}
	return [2]*scene.Scene{l, r}, note, nil
}

// runLabel names a run by its adaptivity settings in force: "full
// resolution" for a uniform fine start without adaptivity, else the
// settings that matter for kind k.
func runLabel(a cloth.AdaptParams, k pairKind) string {
	switch {
	case !a.Enabled && a.FineStart:
		return fmt.Sprintf("full resolution (uniform, generation %d)", a.GMax)
	case !a.Enabled:
		return "not adapting"
	case k == pairTwoCriteria:
		return fmt.Sprintf("adaptive, l_base %.3g, l_gmax %.3g /m", a.Base, a.Max)
	}
	return fmt.Sprintf("adaptive to g_max %d", a.GMax)
}

// lockGate couples the two Loops of a pair (LoopOptions.Gate). It keeps
// each run's simulated time as last published; locked, a run more than
// half a step ahead of the other waits (Hold) until the other publishes,
// which wakes it. It also keeps each run's surface as last published, and
// whenever both stand at the same time it hands them to the distance
// worker.
type lockGate struct {
	locked atomic.Bool
	loops  [2]*Loop // set before either runs

	mu    sync.Mutex
	t     [2]float64 // simulated time of each run's last publish, s
	dt    [2]float64
	epoch [2]uint64
	steps [2]int
	surf  [2]surfaceCopy // each run's surface at t
	diag  float64        // the cloth's rest diagonal, m (from the left run's first snapshot of an epoch)
	asked [2]int         // steps of the last pair of surfaces handed to dist
	dist  *distanceWorker
}

// surfaceCopy is a run's surface at one time, copied off its snapshot.
type surfaceCopy struct {
	t    float64
	pos  []float32 // dense vertex i at pos[3*i : 3*i+3]
	tris []uint32  // face f at tris[3*f : 3*f+3]
}

func (g *lockGate) side(l *Loop) int {
	if l == g.loops[sideRight] {
		return sideRight
	}
	return sideLeft
}

// Hold keeps a locked run at time t waiting while it is more than half a
// step ahead of the other run.
func (g *lockGate) Hold(l *Loop, t float64) bool {
	if !g.locked.Load() {
		return false
	}
	i := g.side(l)
	g.mu.Lock()
	defer g.mu.Unlock()
	return t > g.t[1-i]+g.dt[i]/2
}

// Published records run l's new time and surface, hands both surfaces to
// the distance worker when the two runs stand at the same time, and wakes
// the other run, which may be waiting for this one.
func (g *lockGate) Published(l *Loop, s *Snapshot) {
	i := g.side(l)
	g.mu.Lock()
	g.t[i], g.dt[i], g.steps[i] = s.Stats.Time, s.Stats.Dt, s.Stats.Steps
	if s.Epoch != g.epoch[i] {
		g.epoch[i] = s.Epoch
		if i == sideLeft {
			g.diag = restDiagonal(s.Rest)
		}
	}
	c := &g.surf[i]
	c.t = s.Stats.Time
	c.pos = append(c.pos[:0], s.Pos...)
	c.tris = append(c.tris[:0], s.Tris...)
	if g.dist != nil && math.Abs(g.t[0]-g.t[1]) < g.dt[i]/2 && g.steps != g.asked {
		g.asked = g.steps
		g.dist.request(&g.surf[0], &g.surf[1], g.diag)
	}
	g.mu.Unlock()
	if o := g.loops[1-i]; o != nil {
		o.Wake()
	}
}

// setLocked locks or unlocks the pair and wakes both runs.
func (g *lockGate) setLocked(on bool) {
	g.locked.Store(on)
	for _, l := range g.loops {
		if l != nil {
			l.Wake()
		}
	}
}

// times returns both runs' simulated times as last published and the
// left run's time step, s.
func (g *lockGate) times() (t [2]float64, dt float64) {
	t, dt, _ = g.timeline()
	return t, dt
}

// timeline returns times' values and the epoch (Snapshot.Epoch) of each
// run's time: both runs rebuild alike (Reset, a scene loaded), so their
// epochs differ while one has rebuilt and the other not yet.
func (g *lockGate) timeline() (t [2]float64, dt float64, epoch [2]uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.t, g.dt[sideLeft], g.epoch
}

// restDiagonal returns the diagonal of the bounds of the material
// coordinates rest (2 per vertex), m; 0 for none.
func restDiagonal(rest []float32) float64 {
	if len(rest) < 2 {
		return 0
	}
	lo := [2]float32{rest[0], rest[1]}
	hi := lo
	for i := 0; i+1 < len(rest); i += 2 {
		for a := range 2 {
			lo[a], hi[a] = min(lo[a], rest[i+a]), max(hi[a], rest[i+a])
		}
	}
	return math.Hypot(float64(hi[0]-lo[0]), float64(hi[1]-lo[1]))
}

// pairDistance is the distance between the two runs' surfaces at one
// simulated time: the bench's accuracy measure (headless.SurfaceDistance),
// over the vertices of the finer run (the full-resolution one, in the
// default pair) to the other run's surface, relative to the cloth's rest
// diagonal.
type pairDistance struct {
	Time      float64       // s; both runs stood there
	RMS, Max  float64       // ÷ the cloth diagonal
	Reference int           // the run whose vertices were measured (sideLeft or sideRight)
	Took      time.Duration // wall time of the measurement
	Err       error
}

// distanceWorker measures pairDistance on a goroutine of its own: the
// runs' goroutines hand it the two surfaces (latest only; a request
// waiting is replaced), and the viewer reads the newest result. A
// measurement costs about as much as a step of the full-resolution run
// (11 000 distances to the surface: 0.3–0.8 s on the 2-core test
// machine), and the two runs already share the cores, so the worker
// rests distanceRest times as long as its last measurement took before
// it takes the next request: the distance follows the runs every few
// seconds, for a fifth of a core at most.
type distanceWorker struct {
	mu      sync.Mutex
	wake    chan struct{}
	pending [2]surfaceCopy
	diag    float64
	has     bool
	done    pairDistance
	ok      bool // done holds a result
	stop    chan struct{}
	wg      sync.WaitGroup
}

func newDistanceWorker() *distanceWorker {
	w := &distanceWorker{wake: make(chan struct{}, 1), stop: make(chan struct{})}
	w.wg.Add(1)
	go w.run()
	return w
}

// request copies the surfaces a and b (at the same time) for the next
// measurement.
func (w *distanceWorker) request(a, b *surfaceCopy, diag float64) {
	w.mu.Lock()
	for i, s := range []*surfaceCopy{a, b} {
		p := &w.pending[i]
		p.t, p.pos, p.tris = s.t, append(p.pos[:0], s.pos...), append(p.tris[:0], s.tris...)
	}
	w.diag, w.has = diag, true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// result returns the newest measurement; ok is false before the first.
func (w *distanceWorker) result() (d pairDistance, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done, w.ok
}

// close stops the goroutine and waits for it.
func (w *distanceWorker) close() {
	close(w.stop)
	w.wg.Wait()
}

// distanceRest is how many times as long as its last measurement the
// distance worker waits before the next one.
const distanceRest = 4

func (w *distanceWorker) run() {
	defer w.wg.Done()
	var work [2]surfaceCopy
	var rest time.Duration
	for {
		select {
		case <-w.stop:
			return
		case <-time.After(rest):
		}
		select {
		case <-w.stop:
			return
		case <-w.wake:
		}
		w.mu.Lock()
		if !w.has {
			w.mu.Unlock()
			continue
		}
		work, w.pending = w.pending, work // swap: pending's slices are reused next time
		diag := w.diag
		w.has = false
		w.mu.Unlock()
		d := measureDistance(&work[0], &work[1], diag)
		rest = distanceRest * d.Took
		w.mu.Lock()
		w.done, w.ok = d, true
		w.mu.Unlock()
	}
}

// measureDistance returns the distance between the surfaces a and b
// (pairDistance): from the vertices of the one with more vertices to the
// other's surface.
func measureDistance(a, b *surfaceCopy, diag float64) pairDistance {
	t0 := time.Now()
	d := pairDistance{Time: a.t, Reference: sideLeft}
	ref, other := a, b
	if len(b.pos) > len(a.pos) {
		ref, other, d.Reference = b, a, sideRight
	}
	mesh, err := geom.NewSurfaceMesh(vecs(other.pos), faces(other.tris))
	if err != nil {
		d.Err = fmt.Errorf("surface distance: %w", err)
		return d
	}
	var dist headless.SurfaceDistance
	dist.Add(geom.NewSurfaceGrid(mesh), vecs(ref.pos))
	d.RMS, d.Max = dist.Relative(diag)
	d.Took = time.Since(t0)
	return d
}

// vecs returns the points of pos (3 per point) as vectors.
func vecs(pos []float32) []geom.Vec3 {
	out := make([]geom.Vec3, len(pos)/3)
	for i := range out {
		out[i] = geom.Vec3{X: float64(pos[3*i]), Y: float64(pos[3*i+1]), Z: float64(pos[3*i+2])}
	}
	return out
}

// faces returns the triangles of tris (3 indices per face).
func faces(tris []uint32) [][3]int32 {
	out := make([][3]int32, len(tris)/3)
	for f := range out {
		out[f] = [3]int32{int32(tris[3*f]), int32(tris[3*f+1]), int32(tris[3*f+2])}
	}
	return out
}

// sameVertex returns the vertex of snapshot to (its model vertex id)
// nearest in material coordinates to vertex v of snapshot from: the same
// point of the cloth on the other run's mesh. A pin or a scene's pinned
// corner lies on both meshes, so it maps to itself; a vertex that only the
// finer mesh has maps to the nearest one the other has. ok is false when
// v is not a live vertex of from, or either has no material coordinates.
func sameVertex(from, to *Snapshot, v int32) (int32, bool) {
	if v < 0 || int(v) >= len(from.DenseOf) || from.DenseOf[v] < 0 {
		return -1, false
	}
	d := int(from.DenseOf[v])
	if 2*d+1 >= len(from.Rest) || len(to.Rest) != 2*to.NumVerts() {
		return -1, false
	}
	x, y := from.Rest[2*d], from.Rest[2*d+1]
	best, bestD := -1, float32(math.Inf(1))
	for i := 0; i < to.NumVerts(); i++ {
		if to.Slot[i] < 0 {
			continue
		}
		dx, dy := to.Rest[2*i]-x, to.Rest[2*i+1]-y
		if e := dx*dx + dy*dy; e < bestD {
			best, bestD = i, e
		}
	}
	if best < 0 {
		return -1, false
	}
	return to.Slot[best], true
}

// hasVertex reports whether a command of kind k names a vertex.
func hasVertex(k CmdKind) bool {
	switch k {
	case CmdPin, CmdUnpin, CmdMovePin, CmdDrag:
		return true
	}
	return false
}

// timed reports whether c is a command that a locked pair applies at the
// same simulated time in both runs (Command.At): the edits, undo and
// redo (which keep their order behind the edits held), and pausing (both
// runs pause at the same time, not a step apart); the others (resuming,
// step, reset, loading, speed, saving) act at once.
func timed(c Command) bool {
	switch c.Kind {
	case CmdPin, CmdUnpin, CmdMovePin, CmdDrag, CmdRelease, CmdMoveObstacle, CmdSetBlocks, CmdUndo, CmdRedo:
		return true
	case CmdSetPaused:
		return c.Paused
	}
	return false
}

// primaryEdit returns the command the single run, paused while side by
// side is on, takes for c, and false for none: the panel edits that are
// not the comparison's (the adaptivity settings are), so that they stay
// when side by side goes off.
func primaryEdit(c Command) (Command, bool) {
	switch c.Kind {
	case CmdSetBlocks:
		c.Blocks = c.Blocks.Without(BlockAdapt)
		return c, c.Blocks.Held != 0
	case CmdSetSpeed:
		return c, true
	}
	return c, false
}

// sideBySide is the viewer's pair of runs. It belongs to the render
// loop's thread, except what its Loops and lockGate hand between
// goroutines.
type sideBySide struct {
	kind  pairKind
	loops [2]*Loop
	snaps [2]*Snapshot // acquired this frame
	gate  *lockGate
	dist  *distanceWorker

	cancel context.CancelFunc
	wg     *sync.WaitGroup // the runs' goroutines, waited for at exit (stopped pairs included)

	edit int // the run the Adaptivity panel edits

	// adaptSent is the adaptivity settings last sent to each run, in
	// its epoch adaptEpoch (see send).
	adaptSent  [2]*cloth.AdaptParams
	adaptEpoch [2]uint64

	hist [2]plotHistory // the strip's series
	said [2]string      // each run's last event, to say what both say once (named)

	epoch     uint64      // the right run's epoch the camera was last fitted for
	single    commandSink // the single run (paused), which takes the panels' edits too (primaryEdit)
	dragSide  int         // the run a mouse drag started on
	hoverSide int         // the run under the cursor
	source    string      // the scene the pair was started from
}

// stepMs returns the wall time of the step behind st, ms.
func stepMs(st *Stats) float64 { return millis(st.Total()) }

// pairStart is what startPair hands back: the pair, or why it could not
// be made.
type pairStart struct {
	p   *sideBySide
	err error
}

// pairOptions say what pair newPair makes.
type pairOptions struct {
	src  string   // the scene: a built-in name or a file
	kind pairKind // which two runs of it
	// base, if not nil, are the adaptivity settings to compare instead
	// of the scene's (pairScenes).
	base *cloth.AdaptParams
	// blocks are the parameter blocks in force (the single run's), which
	// both runs take before they start, but for the adaptivity settings,
	// which base and the pair decide.
	blocks  Blocks
	paused  bool    // start paused
	speed   float64 // real-time factor target; 0: as fast as possible
	locked  bool    // lock the runs to the same simulated time
	pauseAt float64 // > 0: pause both once they reach this simulated time, s (LoopOptions.PauseAt)
	// stepped starts no goroutines and measures no distance on the
	// side: the caller steps both runs and measures (drape record).
	stepped bool
}

// startPair builds the pair o on a goroutine and returns a channel that
// delivers it, running, or the error. The runs' goroutines are counted in
// wg (nil with o.stepped).
func startPair(o pairOptions, wg *sync.WaitGroup) <-chan pairStart {
	out := make(chan pairStart, 1)
	go func() {
		p, err := newPair(o, wg)
		out <- pairStart{p, err}
	}()
	return out
}

// newPair builds and starts the pair o (startPair).
func newPair(o pairOptions, wg *sync.WaitGroup) (*sideBySide, error) {
	k, base := o.kind, o.base
	p := &sideBySide{kind: k, gate: &lockGate{}, dist: newDistanceWorker(), source: o.src, edit: sideRight, wg: wg}
	if !o.stepped {
		p.gate.dist = p.dist
	}
	p.gate.locked.Store(o.locked)
	for i := range 2 {
		first := true
		prepare := func(sc *scene.Scene) (*scene.Scene, error) {
			b := base
			if !first {
				b = nil // a scene loaded later compares its own settings
			}
			first = false
			runs, _, err := pairScenes(sc, k, b)
			return runs[i], err
		}
		l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: o.src, Speed: o.speed, Paused: o.paused, PauseAt: o.pauseAt, Prepare: prepare, Gate: p.gate})
		if err != nil {
			p.dist.close()
			return nil, err
		}
		p.loops[i] = l
	}
	p.gate.loops = p.loops
	// Each NewLoop published its first snapshot before the gate knew
	// which run it was (both counted as the left one): record each run's
	// start.
	p.gate.mu.Lock()
	for i, l := range p.loops {
		p.gate.t[i], p.gate.dt[i], p.gate.epoch[i] = l.s.Time(), l.s.Dt(), l.epoch
	}
	p.gate.mu.Unlock()
	if b := o.blocks.Without(BlockAdapt); b.Held != 0 {
		for _, l := range p.loops {
			l.Send(Command{Kind: CmdSetBlocks, Blocks: b})
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	if o.stepped {
		return p, nil
	}
	for _, l := range p.loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run(ctx)
		}()
	}
	return p, nil
}

// close stops both runs (without waiting for the step in progress: the
// WaitGroup does at exit) and the distance worker.
func (p *sideBySide) close() {
	p.cancel()
	p.dist.close()
}

// acquire takes both runs' newest snapshots, samples the strip's series
// and the mean step times, and returns the events of both runs, named by
// their side.
func (p *sideBySide) acquire() []Event {
	var evs []Event
	for i, l := range p.loops {
		s := l.Snapshots().Acquire()
		p.snaps[i] = s
		if s.Seq > 0 {
			p.hist[i].observe(s)
		}
		for _, e := range l.Events() {
			if e = p.named(i, e); e != (Event{}) {
				evs = append(evs, e)
			}
		}
	}
	return evs
}

// named returns run i's event e as the viewer shows it: what both runs
// say alike (a scene loaded, or refused by both) once, as it is; the rest
// named by its run. It returns the zero Event for one said already.
func (p *sideBySide) named(i int, e Event) Event {
	msg := e.Info
	if e.Err != nil {
		msg = e.Err.Error()
	}
	if msg == p.said[1-i] {
		p.said[1-i] = "" // said once: the other run's, a moment ago
		return Event{}
	}
	p.said[i] = msg
	switch {
	case strings.HasPrefix(msg, "loaded scene ") || strings.HasPrefix(msg, "side by side:"):
	case e.Err != nil:
		e.Err = fmt.Errorf("%s run: %w", sideName(i), e.Err)
	default:
		e.Info = sideName(i) + " run: " + e.Info
	}
	return e
}

// sideName is "left" or "right".
func sideName(i int) string {
	if i == sideLeft {
		return "left"
	}
	return "right"
}

// sink returns the command sink for input made on run from (sideLeft or
// sideRight; −1 for the panels).
func (p *sideBySide) sink(from int) commandSink { return pairSink{p, from} }

// pairSink sends commands to both runs of a pair (sideBySide.send).
type pairSink struct {
	p    *sideBySide
	from int
}

func (s pairSink) Send(c Command) { s.p.send(s.from, c) }

// send sends c, made on run from (−1: the panels), to both runs: as it is
// to from and with its vertex translated (sameVertex) to the other; a
// vertex the other run has no counterpart of is sent to from only. The
// adaptivity settings go to the run edited (p.edit); the other gets its
// own settings again, so that both answer the same number of edits
// (Snapshot.EditSeq, which the panels count), as a step of its history
// that changes nothing (Command.Mirror), so that the two undo
// histories stay in step; undo and redo go to the runs that have the
// person's next step (nextStep). Saving writes the right run. The
// panels' edits that are not the comparison's reach the single run too
// (primaryEdit). Locked and running, an edit (and a pause, undo, redo:
// timed) is held for the step after the one the run ahead is taking
// (Command.At), which both reach: that is where both apply it; while one
// run has rebuilt (Reset, a load) and the other not yet, it goes at
// once.
func (p *sideBySide) send(from int, c Command) {
	cs := [2]*Command{{}, {}}
	*cs[0], *cs[1] = c, c
	if hasVertex(c.Kind) && from >= 0 {
		o := 1 - from
		v, ok := sameVertex(p.snaps[from], p.snaps[o], c.Vertex)
		if ok {
			cs[o].Vertex = v
		} else {
			cs[o] = nil
		}
	}
	switch {
	case c.Kind == CmdSetBlocks && c.Blocks.Has(BlockAdapt):
		o := 1 - p.edit
		a := p.adaptOf(o)
		cs[o].Blocks.Adapt, cs[o].Mirror = a, true
		e := c.Blocks.Adapt
		p.adaptSent[p.edit], p.adaptEpoch[p.edit] = &e, p.snaps[p.edit].Epoch
		p.adaptSent[o], p.adaptEpoch[o] = &a, p.snaps[o].Epoch
	case c.Kind == CmdSaveScene:
		cs[sideLeft] = nil
	case c.Kind == CmdUndo || c.Kind == CmdRedo:
		if id, in, ok := p.nextStep(c.Kind == CmdRedo); ok && in != [2]bool{true, true} {
			for i := range cs {
				if in[i] {
					cs[i].Only, cs[i].Gesture = true, id
				} else {
					cs[i] = nil
				}
			}
		}
	}
	if p.gate.locked.Load() && timed(c) && !p.snaps[sideRight].Stats.Paused {
		// Both runs on one timeline (the same epoch): the time both will
		// reach. One rebuilt and the other not yet: at once, on the
		// rebuilt simulations (dueCommands).
		if t, dt, ep := p.gate.timeline(); ep[0] == ep[1] {
			at := max(t[0], t[1]) + dt
			for i, cc := range cs {
				if cc != nil {
					cc.At, cc.Epoch = at, ep[i]
				}
			}
		}
	}
	for i, cc := range cs {
		if cc != nil {
			p.loops[i].Send(*cc)
		}
	}
	if sc, ok := primaryEdit(c); from < 0 && p.single != nil && ok {
		p.single.Send(sc)
	}
}

// nextStep returns the step the person's next undo (or, with redo, redo)
// changes back, by its id (entry.id: the viewer's gesture ids grow), and
// which runs have it, from this frame's snapshots: each run keeps its own
// history, and an edit that went to one run only (a pin on a vertex the
// other mesh has no counterpart of, or one the other run refused) is a
// step of that run alone. The person's last step is the newest one either
// run has (the larger id), the step to redo the one undone last (the
// smaller). ok is false when neither run has one. The two histories
// agree at the top (in both) in the common case; send then sends plain
// undos, which also undo an edit the snapshots do not show yet.
func (p *sideBySide) nextStep(redo bool) (id uint64, in [2]bool, ok bool) {
	for i, s := range p.snaps {
		h := &s.History
		n, sid := h.Undo, h.undoStep
		if redo {
			n, sid = h.Redo, h.redoStep
		}
		if n == 0 {
			continue
		}
		newer := sid > id // undo: the newest step; redo: the one undone last
		if redo {
			newer = sid < id
		}
		if !ok || newer {
			id, in = sid, [2]bool{}
		}
		if sid == id {
			in[i] = true
		}
		ok = true
	}
	return id, in, ok
}

// history returns what Undo and Redo change back in the pair (nextStep),
// for the buttons and --state: the number of steps of the run with more,
// and the label of the step (the right run's, unless only the left has
// it or the right's is a mirror without one).
func (p *sideBySide) history() HistoryInfo {
	l, r := &p.snaps[sideLeft].History, &p.snaps[sideRight].History
	h := HistoryInfo{Undo: max(l.Undo, r.Undo), Redo: max(l.Redo, r.Redo)}
	label := func(redo bool) (string, uint64) {
		id, in, ok := p.nextStep(redo)
		if !ok {
			return "", 0
		}
		ll, rl := l.UndoLabel, r.UndoLabel
		if redo {
			ll, rl = l.RedoLabel, r.RedoLabel
		}
		if in[sideRight] && rl != "" || !in[sideLeft] {
			return rl, id
		}
		return ll, id
	}
	h.UndoLabel, h.undoStep = label(false)
	h.RedoLabel, h.redoStep = label(true)
	return h
}

// adaptOf returns the adaptivity settings of run i as last sent in its
// current epoch, else as its snapshot shows them in force.
func (p *sideBySide) adaptOf(i int) cloth.AdaptParams {
	if a := p.adaptSent[i]; a != nil && p.adaptEpoch[i] == p.snaps[i].Epoch {
		return *a
	}
	return p.snaps[i].Blocks.Adapt
}

// pairNote returns what the panel says of the pair's settings in force:
// the full-resolution run's generation when g_max is odd.
func pairNote(k pairKind, l, r cloth.AdaptParams) string {
	if k == pairFullAdaptive && !l.Enabled && l.FineStart && r.Enabled && l.GMax != r.GMax {
		return fmt.Sprintf("uniform refinement needs an even generation: full resolution at %d, adaptive to %d", l.GMax, r.GMax)
	}
	return ""
}

// ahead returns how far the right run is ahead of the left in simulated
// time, s (negative: behind), from this frame's snapshots.
func (p *sideBySide) ahead() float64 {
	return p.snaps[sideRight].Stats.Time - p.snaps[sideLeft].Stats.Time
}

// locked reports whether the runs are locked to the same simulated time.
func (p *sideBySide) locked() bool { return p.gate.locked.Load() }

// setLocked locks or unlocks the runs.
func (p *sideBySide) setLocked(on bool) { p.gate.setLocked(on) }

// plotHistory is a run's ms/step and triangle count over the whole run
// since its scene was (re)loaded, for the Stats panel's plots and side
// by side's strip, as Bender & Deul's fig. 6 plots the triangle count:
// when it is full, every other sample is dropped (the first is kept, so
// the spacing stays even) and from then on only every other new step is
// taken.
type plotHistory struct {
	time, tris, ms []float32 // simulated time (s), triangles (plotCount), ms/step of each sample
	every, skip    int       // sample every every-th new step; new steps since the last sample
	epoch          uint64
	lastSteps      int
}

// observe takes in snapshot s: a new epoch starts the history again, and
// a new step is sampled.
func (h *plotHistory) observe(s *Snapshot) {
	if s.Epoch != h.epoch || h.every == 0 {
		h.epoch = s.Epoch
		h.time, h.tris, h.ms = h.time[:0], h.tris[:0], h.ms[:0]
		h.every, h.skip, h.lastSteps = 1, 0, -1
	}
	if s.Stats.Steps == h.lastSteps || s.Stats.Steps == 0 {
		return
	}
	h.lastSteps = s.Stats.Steps
	if h.skip++; h.skip < h.every {
		return
	}
	h.skip = 0
	if len(h.time) == histLen {
		for i := 0; i < histLen/2; i++ {
			h.time[i], h.tris[i], h.ms[i] = h.time[2*i], h.tris[2*i], h.ms[2*i]
		}
		h.time, h.tris, h.ms = h.time[:histLen/2], h.tris[:histLen/2], h.ms[:histLen/2]
		h.every *= 2
	}
	h.time = append(h.time, float32(s.Stats.Time))
	h.tris = append(h.tris, float32(plotCount(s)))
	h.ms = append(h.ms, float32(stepMs(&s.Stats)))
}
