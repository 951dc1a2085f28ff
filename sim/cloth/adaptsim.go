package cloth

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
	"time"

	"drape/sim/adapt"
	"drape/sim/buf"
	"drape/sim/contact"
	"drape/sim/fem"
	"drape/sim/geom"
	"drape/sim/obstacle"
	"drape/sim/parallel"
	"drape/sim/param"
)

// MaxAdaptTriangles is the largest triangle budget AdaptParams accepts:
// at roughly 1 kB of simulation state per triangle, 2·10⁶ triangles are
// about 2 GB.
const MaxAdaptTriangles = geom.MaxTriangles

// AdaptParams are the settings of adaptive refinement and coarsening
// (Bender & Deul §5, §7). The viewer edits a copy and hands the whole value
// to Sim.SetAdaptParams, which applies it from the next adaptation on.
// The zero value is not valid; start from DefaultAdaptParams.
type AdaptParams struct {
	Enabled     bool    // adapt the mesh every Interval steps; false keeps the current mesh as it is
	Base        float64 // l_base, refinement limit on |H| for base faces, 1/m, > 0
	Max         float64 // l_gmax, refinement limit at generation GMax, 1/m, ≥ Base
	CoarsenFrac float64 // c, coarsen when |H| < c·l_g; dimensionless, in (0, 1)
	GMax        int     // g_max, deepest generation, in [0, MaxGeneration]; lowering it coarsens deeper faces
	Interval    int     // adapt after every Interval-th step, in [1, 1000]; the paper uses 5
	MaxTris     int     // hard cap on the live triangle count, in [1, MaxAdaptTriangles]

	// FineStart starts from the finest mesh and coarsens (Mujahid et al.
	// §4.3, "adaptive coarsening") instead of starting from the base mesh
	// and refining: scene.Build refines the base mesh uniformly to GMax
	// (RefineUniform, so GMax must be even) when the scene is loaded.
	// It is read only there; changing it on a running Sim does nothing
	// until the scene is built again. A start mode "coarse"|"fine" would
	// be an enum, which the param table (Float, Int, Bool, Vec) has not,
	// hence a Bool: false is the coarse start.
	FineStart bool
	// FineHold is the simulated time, s, ≥ 0, before the first adaptation
	// of a fine start: none happens while Sim.Time < FineHold. Without it
	// the criterion coarsens the whole flat sheet at the first adaptation,
	// before the cloth has moved, and the fine start is a coarse start
	// that paid for a fine first step. Mujahid et al. coarsen inside a
	// quasi-static minimisation as the shape settles; a dynamic simulation
	// has no such "settled" signal, so the hold stands in for it. Ignored
	// without FineStart. See fineHoldDefault for the measurement behind
	// the default.
	FineHold float64
}

// fineHoldDefault is FineHold's default, s. Measured on drape-box (5 s,
// g_max = 4, "drape compare --hold H"; errors against the uniform fine
// run, shape relative to the cloth diagonal; docs/accuracy.md, "Fine
// start and its hold"):
//
//	hold    vertices mean (min)   shape error RMS   ms/step mean (fine 71–79)
//	0 s      274 (227)            0.0233            9.1
//	0.2 s   1285 (1237)           0.0118           57.1
//	0.5 s   1379 (1292)           0.0096           51.8
//	1 s     1453 (1317)           0.0069           65.8
//
// (coarse start: 265 vertices, 0.0214; base mesh alone: 227, 0.0227).
// Without a hold the first adaptation coarsens the flat sheet to the base
// mesh and the run is a coarse start with the coarse start's error. With
// any hold that lasts until the cloth lies on the box (it falls the 8 cm
// onto it in 0.13 s), it keeps about 1300 vertices for good: the fine
// mesh resolves the wrinkles whose curvature then keeps it fine, which a
// coarse mesh never sees and so never refines for. Longer holds buy
// little more accuracy for more vertices; 0.2 s is the shortest tested
// hold past the first contact.
const fineHoldDefault = 0.2

// DefaultAdaptParams returns the settings tuned for the curtain of
// Bender & Deul §7 (assets/scenes/curtain-adaptive.json), the defaults of
// AdaptTable: g_max = 6, adaptation every 5th step as in the paper,
// l_base = 3/m, l_gmax = 30/m, c = 0.5, at most 200 000 triangles. On the
// curtain these average about 5400 triangles over the 20 s (the paper:
// 5158); l_base = 4/m, l_gmax = 40/m gave 4200 and 2/m, 20/m gave 7700.
func DefaultAdaptParams() AdaptParams {
	var p AdaptParams
	AdaptTable.SetDefaults(&p)
	return p
}

// gMaxSlider is the top of the g_max slider; scene files and a value
// typed in (Ctrl+click) reach adapt.MaxGeneration.
//
// Why not the whole range. Twelve generations are six √3 splits: faces
// 27 times smaller in edge than their base face (729 times in area), and
// the built-in scenes' base faces are 6.6–12.7 generations above the
// collision thickness h (3 mm; curtain-adaptive's 9.8 cm faces the
// farthest), below which no split goes while collisions are on
// (smallestFace). Beyond that a higher g_max gives no finer faces where
// collisions are on, but it lowers every generation's refinement limit
// (eq. 12 spreads l_base … l_gmax over g_max generations), so that the
// refinement spreads over the whole sheet: the monkey's slider at g_max
// 29 took drape-box, a 500-face scene, to 153 000 faces and 1.1 s a step
// (seed 202), and most of its 60 s runs that crawled had a slider move
// of g_max or the limits behind them (docs/robustness.md).
const gMaxSlider = 12

// AdaptTable is the schema of AdaptParams (see ParamTable): keys, units,
// defaults and ranges of the adaptivity settings (Bender & Deul §5).
var AdaptTable = param.Table[AdaptParams]{
	{Key: "enabled", Label: "adaptive √3 remeshing", Doc: "adapt the mesh every interval steps; false keeps the current mesh", Group: "Adaptivity",
		Default: 1, Bool: func(p *AdaptParams) *bool { return &p.Enabled }},
	{Key: "l_base", Unit: "1/m", Doc: "refinement limit on the mean curvature |H| for base faces (§5, eq. 12)", Group: "Adaptivity",
		Default: 3, Min: 1e-12, Max: 1e6, SliderMin: 0.1, SliderMax: 100, Log: true, Format: "%.2f",
		Float: func(p *AdaptParams) *float64 { return &p.Base }},
	{Key: "l_gmax", Label: "l_gmax, ≥ l_base", Unit: "1/m", Doc: "refinement limit at generation g_max; at least l_base", Group: "Adaptivity",
		Default: 30, Min: 1e-12, Max: 1e6, SliderMin: 0.1, SliderMax: 1000, Log: true, Format: "%.1f",
		Float: func(p *AdaptParams) *float64 { return &p.Max }},
	{Key: "coarsen", Label: "c coarsen fraction", Doc: "coarsen where |H| < c·l_g", Group: "Adaptivity",
		Default: 0.5, Min: 0.001, Max: 0.999, SliderMin: 0.01, SliderMax: 0.99, Format: "%.2f",
		Float: func(p *AdaptParams) *float64 { return &p.CoarsenFrac }},
	{Key: "g_max", Label: "g_max generation", Doc: "deepest refinement generation; lowering it coarsens deeper faces. While collisions are on, no split makes faces smaller than the contact thickness h, whatever g_max allows", Group: "Adaptivity",
		Default: 6, Min: 0, Max: adapt.MaxGeneration, SliderMin: 0, SliderMax: gMaxSlider, Format: "%d",
		Int: func(p *AdaptParams) *int { return &p.GMax }},
	{Key: "interval", Unit: "steps", Doc: "adapt after every interval-th step (the paper: 5)", Group: "Adaptivity",
		Default: 5, Min: 1, Max: 1000, SliderMin: 1, SliderMax: 1000, Log: true, Format: "%d",
		Int: func(p *AdaptParams) *int { return &p.Interval }},
	{Key: "max_triangles", Label: "triangle cap", Doc: "hard cap on the live triangle count", Group: "Adaptivity",
		Default: 200_000, Min: 1, Max: MaxAdaptTriangles, SliderMin: 100, SliderMax: MaxAdaptTriangles, Log: true, Format: "%d",
		Int: func(p *AdaptParams) *int { return &p.MaxTris }},
	{Key: "fine_start", Label: "start fine and coarsen", Doc: "start at the base mesh uniformly refined to g_max (even) and coarsen (Mujahid et al. §4.3) instead of starting at the base mesh; read when the scene is loaded", Group: "Adaptivity",
		Default: 0, Bool: func(p *AdaptParams) *bool { return &p.FineStart }},
	{Key: "fine_hold", Unit: "s", Doc: "with fine_start: no adaptation before this simulated time, so the flat sheet is not coarsened before it moves", Group: "Adaptivity",
		Default: fineHoldDefault, Min: 0, Max: 1e6, SliderMin: 0, SliderMax: 5, Format: "%.2f",
		Float: func(p *AdaptParams) *float64 { return &p.FineHold }},
}

// Validate returns an error naming the first field out of the range
// AdaptTable gives it (a *param.RangeError), or l_gmax below l_base.
func (p AdaptParams) Validate() error {
	if err := AdaptTable.Validate(&p); err != nil {
		return err
	}
	return p.limits().Validate()
}

// MarshalJSON writes p as a JSON object with AdaptTable's keys.
func (p AdaptParams) MarshalJSON() ([]byte, error) { return AdaptTable.Encode(&p) }

// UnmarshalJSON overrides the fields of p whose keys the object holds
// (AdaptTable); unknown keys are a *param.UnknownKeyError. It does not
// validate.
func (p *AdaptParams) UnmarshalJSON(data []byte) error { return AdaptTable.Decode(data, p) }

// limits returns the Adapter's criterion parameters. The Adapter stops
// refining once NumTris()+2 would pass its cap, but one refinement may
// cascade; the cap handed to it leaves room for the largest cascade seen
// (cascadeReserve) so that MaxTris holds as a hard cap.
func (p AdaptParams) limits() adapt.Limits {
	return adapt.Limits{Base: p.Base, Max: p.Max, CoarsenFrac: p.CoarsenFrac, GMax: p.GMax, MaxTris: p.MaxTris}
}

// smallestFace: while collisions are on, no adaptation splits a face
// whose children would be smaller than the collision thickness h
// (adapt.Limits.MinSize; the size is the altitude of an equilateral face
// of their area, adapt.Size), whatever g_max allows.
//
// Why. In a flat sheet every vertex lies at least the smallest altitude
// of its one-ring faces from every face it does not touch, and the
// proximity stage (Bridson et al. 2002 §7.1) tests exactly those
// non-adjacent primitives: once the altitudes fall below h, it finds the
// flat sheet within h of itself wherever it is that fine, and repels it
// from itself (an argument, not a measurement). Faces that small are
// also far below anything the contact model resolves (it keeps layers h
// apart). g_max alone does not bound the size: a scene file or a typed
// value reaches adapt.MaxGeneration (31), 15.5 √3 steps, edges about
// 5000 times shorter than the base mesh's (the slider reached it too,
// before gMaxSlider), and the sliders of the viewer (and the monkey's)
// can refine a scene until the triangle cap stops it
// (docs/robustness.md, the monkey's hanging seed 8). ARCSim bounds its
// sizing field the same way, by a smallest edge length ℓ_min (Narain,
// Samii & O'Brien 2012). The built-in adaptive scenes never reach the
// bound: their finest faces at g_max are 4–8 times h in size (1.3–2.3 cm;
// h = 3 mm), and their golden runs are unchanged.
//
// Only while collisions are on, because the reason is the proximity
// stage's: the fabric lab's cantilever (sim/fabric, collisions off)
// refines its 25 mm strip to faces of 0.5 mm, and bounded by the default
// h of 3 mm its bending length came out 11 % short, past the lab's 10 %
// target. Faces refined below the bound while collisions were off are
// coarsened back once they come back on (adapt.Limits.MinSize: those
// smaller than h/2); before, they stayed, and the proximity stage met a
// sheet finer than it can tell from itself (the monkey's hanging seed
// 101: 18 752 faces and 157 879 crossing pairs after collisions came
// back).

// cascadeReserve returns the number of triangles kept free below the cap
// for the cascade of one refinement at generations up to gmax: a cascade
// refines at most one face per generation below the target on each of
// its three sides, each adding at most 2 faces (split or trisection).
func cascadeReserve(gmax int) int { return 2 * 3 * (gmax + 1) * (gmax + 1) }

// AdaptStats describes the last adaptation.
type AdaptStats struct {
	Refined, Coarsened int           // successful Refine and Coarsen calls
	HeldRemoved        int           // faces in contact that a cascade removed anyway (adapt.Adapter.HeldRemoved; 0 by design)
	Undone             int           // adaptations undone so far because they made faces that cross the cloth (see Sim.Adapt), over the Sim's life
	Duration           time.Duration // wall time: curvature, topology, updates and system rebuild
}

// adaptState is the Sim's adaptive part.
type adaptState struct {
	p     AdaptParams
	a     *adapt.Adapter // nil until adaptivity is first used
	curv  []float64
	ws    geom.CurvatureWorkspace
	since int // steps since the last adaptation
	last  AdaptStats

	// The mesh and the vertex areas before the adaptation, for
	// conserveMomentum and updatePins, and for Adapt to undo an
	// adaptation that made crossing faces.
	old     geom.Mesh
	oldArea []float64

	tangle  contact.TangleCheck
	tangleV []int32     // vertex slots of the crossing faces
	bodyPos []geom.Vec3 // scratch: a mesh obstacle's vertices (adaptCrossed)
	undone  int

	vertFace []int32  // scratch: a live face of each touched vertex
	uf       []int32  // union-find over old (slot) and new (n+slot) vertex nodes
	acc      []momAcc // per union-find root
	nodes    []int32  // nodes in use
	pinDrop  []bool   // scratch: slot loses its pin
	derived  []bool   // per vertex slot: its pin was made by derivePins

	rows      []rowData    // cached rows of the block system, per vertex slot
	rowsOK    bool         // rows match the mesh
	spare     *blockSystem // the system before the last repack: the next one packs into it
	dirty     []bool       // per vertex slot: its row was recomputed
	dirtyList []int32
}

type momAcc struct {
	pOld, pNew geom.Vec3
	mFree      float64
}

// SetAdaptParams replaces the adaptive settings from the next step on, or
// returns an error and keeps the old ones. Turning adaptivity off keeps
// the current mesh (it does not coarsen back): the simulation goes on at
// the resolution it has, which avoids a visible jump; lower GMax to
// coarsen deeper faces at the next adaptations instead.
func (s *Sim) SetAdaptParams(p AdaptParams) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("adaptivity: %w", err)
	}
	if err := s.ensureAdapter(); err != nil {
		return err
	}
	s.ad.p = p
	return nil
}

// AdaptParams returns the adaptive settings in force (Enabled false and
// zero limits if SetAdaptParams was never called).
func (s *Sim) AdaptParams() AdaptParams { return s.ad.p }

// LastAdapt returns the statistics of the most recent adaptation.
func (s *Sim) LastAdapt() AdaptStats { return s.ad.last }

func (s *Sim) ensureAdapter() error {
	if s.ad.a != nil {
		return nil
	}
	a, err := adapt.NewAdapter(s.Mesh, adapt.MaxGeneration)
	if err != nil {
		return err
	}
	s.ad.a = a
	return nil
}

// adaptAfterStep runs the adaptation when it is due (Bender & Deul §3
// step 7) and returns its wall time.
func (s *Sim) adaptAfterStep() time.Duration {
	ad := &s.ad
	if !ad.p.Enabled || ad.a == nil {
		return 0
	}
	if ad.p.FineStart && s.Time < ad.p.FineHold {
		return 0 // the hold of a fine start: see AdaptParams.FineHold
	}
	ad.since++
	if ad.since < ad.p.Interval {
		return 0
	}
	ad.since = 0
	// SetAdaptParams validated ad.p and made the Adapter, so Adapt cannot
	// fail here.
	st, _ := s.Adapt()
	return st.Duration
}

// Adapt adapts the mesh once now, whatever the interval, with the current
// AdaptParams (even when Enabled is false), and returns what it did. It
// returns an error, and changes nothing, when SetAdaptParams was never
// called or the settings in force do not validate. The faces in contact
// are held (holdContacts); with self-collision on, an adaptation whose new
// faces cross the cloth is undone and tried again with the faces round
// the crossings held as well, up to tangleTries times, after which the
// mesh stays as it was for this adaptation. A cloth that is already
// tangled thus does not adapt where its new faces would touch a tangle.
func (s *Sim) Adapt() (AdaptStats, error) {
	ad := &s.ad
	if ad.a == nil {
		return AdaptStats{}, fmt.Errorf("adaptivity: no settings: call SetAdaptParams first")
	}
	if err := ad.p.Validate(); err != nil {
		return AdaptStats{}, fmt.Errorf("adaptivity: %w", err)
	}
	t0 := time.Now()
	m := s.Mesh
	ad.curv = buf.Keep(ad.curv, len(m.Pos))
	ad.ws.MeanCurvature(m, ad.curv)
	s.snapshotForAdapt()
	lim := ad.p.limits()
	lim.MaxTris = max(1, lim.MaxTris-cascadeReserve(lim.GMax))
	if s.collides() {
		lim.MinSize = s.ct.p.Thickness // see smallestFace
	}
	s.holdContacts()
	guard := s.collides() && (s.ct.p.SelfCollision || len(s.ct.obstacles) > 0)
	var r, c int
	for try := 0; ; try++ {
		ad.a.ResetChanges()
		r, c = ad.a.Adapt(ad.curv, lim)
		if !guard || r+c == 0 || !s.adaptCrossed() {
			break
		}
		// The adaptation cut through the cloth or a body: undo it, and
		// try again with the faces round the crossing held (see
		// tangleTries).
		ad.old.CopyTo(m)
		ad.a.ResetChanges()
		ad.undone++
		if try+1 == tangleTries {
			r, c = 0, 0
			break
		}
		s.holdTangles(ad.tangleV)
	}
	ch := ad.a.Changes()
	s.applyChanges(ch)
	s.pushOut(ch.NewVerts)
	s.ct.resolved = false
	if r+c > 0 {
		s.keepPairsAcross(ch.NewVerts)
	}
	ad.last = AdaptStats{Refined: r, Coarsened: c, HeldRemoved: ad.a.HeldRemoved(), Undone: ad.undone, Duration: time.Since(t0)}
	return ad.last, nil
}

// adaptCrossed reports whether a face the adaptation made crosses the
// cloth (with self-collision on) or a mesh obstacle, and lists the vertex
// slots of the crossing cloth faces in ad.tangleV. Half-spaces and round
// bodies are not checked: a face crosses a half-space only through a
// corner below it, which pushOut lifts when it is new and the collision
// pipeline keeps out otherwise, and a round body is handled from its
// analytic surface, which a flip over it cuts by the sagitta l²/8R of an
// edge of length l (0.2 mm for a 3 cm edge on the sphere scene's 0.5 m
// ball, below the thickness the cloth keeps from it).
func (s *Sim) adaptCrossed() bool {
	ad := &s.ad
	m := s.Mesh
	faces := ad.a.Changes().Faces
	ad.tangleV = ad.tangleV[:0]
	if s.ct.p.SelfCollision {
		for _, pr := range ad.tangle.Find(m.Pos, m.Tris, faces, 16) {
			ad.tangleV = append(ad.tangleV, m.Tris[pr[0]][:]...)
			ad.tangleV = append(ad.tangleV, m.Tris[pr[1]][:]...)
		}
	}
	for _, o := range s.ct.obstacles {
		if len(ad.tangleV) > 0 {
			break
		}
		if _, _, _, round := o.Core(o.Pose(s.Time)); round || o.Kind == obstacle.Plane {
			continue
		}
		ad.bodyPos = o.Vertices(s.Time, ad.bodyPos)
		for _, pr := range ad.tangle.FindBody(m.Pos, m.Tris, faces, ad.bodyPos, o.Tris(), 16) {
			ad.tangleV = append(ad.tangleV, m.Tris[pr[0]][:]...)
		}
	}
	return len(ad.tangleV) > 0
}

// tangleTries is how many times Adapt tries an adaptation whose new faces
// cross the cloth, each time holding the faces round the crossings of the
// last try, before it gives the adaptation up for this step.
//
// Why. The hold of the faces in contact (holdContacts) reaches the faces
// within h of another part of the cloth and holdRings rings round them.
// A √3 flip or join across a sharp fold moves the surface by up to the
// fold's height, and where the fold is tighter than its faces are wide,
// the new edge cuts through the fold's other side, which shares a vertex
// with the old faces and so was never a contact pair: on sphere-adaptive
// at t = 0.95 s (2026-11-26) a refinement's face crossed a base face
// next to it (TestContactScenesIntersectionFree). Checking the result
// (Bender & Deul §7 hold the faces in contact; issue 13 allows checking
// and undoing instead) catches every such crossing that an edge of one
// face makes through the other.
const tangleTries = 3

// RefineUniform applies g/2 uniform √3 steps (Kobbelt 2000) to the whole
// mesh: step k brings every face to generation 2k, interior faces by the
// 1-to-3 split and flip, boundary faces alternately by the split with
// promotion and by the trisection of the boundary edge (Bender & Deul
// fig. 3; see adapt.go). Each step triples the face count exactly, so
// g = 6 multiplies it by 27 (820 → 22140 for the curtain): the
// full-resolution mesh that adaptive refinement to g_max = g approximates.
// Pins are extended to new boundary vertices as in adaptation. It returns
// an error for an odd or out-of-range g.
func (s *Sim) RefineUniform(g int) error {
	if err := adapt.CheckUniform(g, adapt.MaxGeneration); err != nil {
		return err
	}
	if err := s.ensureAdapter(); err != nil {
		return err
	}
	a := s.ad.a
	s.snapshotForAdapt()
	a.ResetChanges()
	if err := a.RefineUniform(g); err != nil {
		return err // not reached: the adapter refines to MaxGeneration, and g was checked above
	}
	s.applyChanges(a.Changes())
	return nil
}

// snapshotForAdapt records the mesh and the vertex areas before a
// topology change, for conserveMomentum, updatePins and Adapt's undo.
// O(vertices + faces) copies.
func (s *Sim) snapshotForAdapt() {
	ad := &s.ad
	m := s.Mesh
	m.CopyTo(&ad.old)
	ad.oldArea = append(ad.oldArea[:0], s.area[:len(m.Pos)]...)
}

// applyChanges brings every per-slot structure up to date with the change
// record ch of the Adapter.
func (s *Sim) applyChanges(ch adapt.Changes) {
	m := s.Mesh
	s.sizeSlots(true)
	ad := &s.ad

	// Elements of new faces (parallel over the changed faces).
	faces := ch.Faces
	parallel.ForChunks(len(faces), func(_, lo, hi int) {
		for _, f := range faces[lo:hi] {
			t := m.Tris[f]
			s.elems[f] = fem.NewElemRest(m.Rest[t[0]], m.Rest[t[1]], m.Rest[t[2]])
			s.frames[f] = [2]geom.Vec3{{X: 1}, {Y: 1}}
			s.frame(int(f), m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]])
		}
	})
	for _, f := range ch.RemovedFaces {
		s.elems[f] = fem.ElemRest{}
	}

	// Lumped areas of touched vertices: A_p = ⅓·Σ A_i over the fan.
	ad.vertFace = buf.Keep(ad.vertFace, len(m.Pos))
	for _, f := range faces {
		for _, v := range m.Tris[f] {
			ad.vertFace[v] = f
		}
	}
	for _, v := range ch.RemovedVerts {
		s.area[v] = 0
		s.dv[v], s.dvOld[v], s.z[v] = geom.Vec3{}, geom.Vec3{}, geom.Vec3{}
	}
	verts := ch.Verts
	parallel.ForChunks(len(verts), func(_, lo, hi int) {
		for _, v := range verts[lo:hi] {
			var a float64
			it := geom.NewFan(m, v, ad.vertFace[v])
			for f, _, ok := it.Next(); ok; f, _, ok = it.Next() {
				a += s.elems[f].Area
			}
			s.area[v] = a / 3
		}
	})

	if len(ch.Faces)+len(ch.RemovedFaces) == 0 {
		return // nothing changed: masses, pins and the system stay valid
	}
	s.unconstrain() // contact constraints name slots that may be gone; the next contact pass sets them again
	s.updatePins(ch)
	s.conserveMomentum(ch)
	s.warmStart(ch)

	s.updateSystem(ch)
}

// updateSystem recomputes the rows of the block system whose faces or
// bending stencils changed and repacks it (bsr_incr.go). A row changes
// when its vertex is on a new face (its fan changed) or on a face next to
// one (an edge of its stencil has a new face on the other side); removed
// vertices get no row. s.edges is not kept: only newBlockSystem
// reads it.
func (s *Sim) updateSystem(ch adapt.Changes) {
	m := s.Mesh
	ad := &s.ad
	nv := len(m.Pos)
	s.edges = nil
	if !ad.rowsOK {
		ad.rows = buf.Keep(ad.rows, nv)
		ad.vertFace = buf.Keep(ad.vertFace, len(m.Pos))
		for i := range ad.vertFace {
			ad.vertFace[i] = -1
		}
		for f, t := range m.Tris {
			if m.FaceAlive(f) {
				for _, v := range t {
					ad.vertFace[v] = int32(f)
				}
			}
		}
		parallel.ForChunks(nv, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				ad.rows[i].compute(m, int32(i), ad.vertFace[i])
			}
		})
		ad.rowsOK = true
		s.repack(nil)
		return
	}
	ad.rows = buf.Keep(ad.rows, nv)
	ad.dirty = buf.Keep(ad.dirty, nv)
	ad.dirtyList = ad.dirtyList[:0]
	mark := func(v, f int32) {
		ad.vertFace[v] = f
		if !ad.dirty[v] {
			ad.dirty[v] = true
			ad.dirtyList = append(ad.dirtyList, v)
		}
	}
	for _, f := range ch.Faces {
		for _, v := range m.Tris[f] {
			mark(v, f)
		}
		for _, g := range m.Adj[f] {
			if g >= 0 {
				for _, v := range m.Tris[g] {
					mark(v, g)
				}
			}
		}
	}
	for _, v := range ch.RemovedVerts {
		mark(v, -1)
	}
	list := ad.dirtyList
	parallel.ForChunks(len(list), func(_, lo, hi int) {
		for _, v := range list[lo:hi] {
			ad.rows[v].compute(m, v, ad.vertFace[v])
		}
	})
	s.repack(s.sys)
	for _, v := range list {
		ad.dirty[v] = false
	}
}

// repack packs the system into the spare one, from the rows and from src
// (nil: from the rows alone), and swaps the two.
func (s *Sim) repack(src *blockSystem) {
	ad := &s.ad
	if ad.spare == nil {
		ad.spare = &blockSystem{}
	}
	ad.dirty = buf.Keep(ad.dirty, len(s.Mesh.Pos))
	packRows(ad.spare, src, ad.rows, ad.dirty, s.Mesh)
	s.sys, ad.spare = ad.spare, s.sys
}

// updatePins keeps pins and the drag valid across a topology change.
//
// A pin that derivePins made (on a vertex that boundary trisection put
// between two pinned vertices) goes away with its vertex: the trisection
// was undone and the edge's end vertices still carry their pins. Any other
// pin (a scene pin on a base vertex never moves; a pin the user put on a
// vertex that refinement created) whose vertex is coarsened away moves to
// the nearest surviving vertex of the changed region that has no pin, held
// where that vertex is now (for a scripted pin: the same path, anchored so
// that the target is the vertex's position), so the cloth does not drop
// and nothing jumps; it is dropped only if the region has no free vertex.
// A drag follows its vertex the same way, so dragging keeps working while
// the mesh changes under the cursor. Finally fixed is updated for the
// touched slots.
func (s *Sim) updatePins(ch adapt.Changes) {
	m := s.Mesh
	ad := &s.ad
	ad.pinDrop = buf.Keep(ad.pinDrop, len(m.Pos))
	ad.derived = buf.Keep(ad.derived, len(m.Pos))
	for _, v := range ch.RemovedVerts {
		ad.pinDrop[v] = true
	}
	for _, v := range ch.NewVerts {
		ad.pinDrop[v] = true
	}
	var moved []Pin
	w := 0
	for _, p := range s.pins {
		if !ad.pinDrop[p.Vertex] {
			s.pins[w] = p
			w++
		} else if !ad.derived[p.Vertex] {
			moved = append(moved, p)
		}
	}
	s.pins = s.pins[:w]
	for _, v := range ch.RemovedVerts {
		s.fixed[v] = true
		ad.derived[v] = false
	}
	for _, v := range ch.NewVerts {
		ad.derived[v] = false
	}
	s.derivePins(ch)
	for _, p := range moved {
		u := s.nearestFree(ad.old.Pos[p.Vertex], slices.Values(ch.Verts))
		if u < 0 {
			continue
		}
		q := Pin{Vertex: u, Target: m.Pos[u], Anchor: m.Pos[u], Path: p.Path, Goal: p.Goal}
		if p.Path != nil {
			q.Anchor = m.Pos[u].Sub(p.Path.At(s.Time))
		}
		s.setPin(q)
	}
	if s.drag.on && ad.pinDrop[s.drag.v] {
		if u := s.nearestFree(ad.old.Pos[s.drag.v], slices.Values(ch.Verts)); u >= 0 {
			s.drag.v = u
		} else {
			s.drag.on, s.drag.lost = false, true
		}
	}
	for _, v := range ch.RemovedVerts {
		ad.pinDrop[v] = false
	}
	for _, v := range ch.NewVerts {
		ad.pinDrop[v] = false
	}
	for _, v := range ch.Verts {
		s.fixed[v] = s.pinIndex(v) >= 0
	}
}

// nearestFree returns the live, unpinned vertex of among nearest to x,
// or −1 if there is none.
func (s *Sim) nearestFree(x geom.Vec3, among iter.Seq[int32]) int32 {
	best, bd := int32(-1), math.Inf(1)
	for v := range among {
		if !s.Mesh.VertAlive[v] {
			continue
		}
		if d := s.Mesh.Pos[v].Sub(x).Norm(); d < bd && s.pinIndex(v) < 0 {
			best, bd = v, d
		}
	}
	return best
}

// slots yields every vertex slot of the mesh, live or not.
func (s *Sim) slots(yield func(int32) bool) {
	for v := range s.Mesh.Pos {
		if !yield(int32(v)) {
			return
		}
	}
}

// pinIndex returns the index of v's pin in s.pins, or −1.
func (s *Sim) pinIndex(v int32) int {
	k := sort.Search(len(s.pins), func(k int) bool { return s.pins[k].Vertex >= v })
	if k < len(s.pins) && s.pins[k].Vertex == v {
		return k
	}
	return -1
}

// derivePins pins each new boundary vertex v whose boundary edge, before
// this adaptation's trisections, ran between two pinned vertices a and b:
// walking along the boundary from v in both directions over new vertices
// finds a and b, and v, which lies on the straight material segment a–b at
// parameter u = |r_v − r_a|/|r_b − r_a|, gets the anchor (1−u)·A_a + u·A_b
// and the path (1−u)·P_a + u·P_b (on the union of their key times). As
// positions and velocities of new vertices are interpolated the same way,
// the pin target equals the vertex's position: nothing jumps. A boundary
// vertex next to an unpinned vertex stays free.
func (s *Sim) derivePins(ch adapt.Changes) {
	m := s.Mesh
	ad := &s.ad
	if len(s.pins) == 0 {
		return
	}
	for _, v := range ch.NewVerts {
		nb := s.boundaryNeighbours(v)
		if nb[0] < 0 {
			continue // interior vertex
		}
		var ends [2]int32
		for d := 0; d < 2; d++ {
			prev, cur := v, nb[d]
			for steps := 0; cur >= 0 && ad.a.IsNew(cur) && steps < 1<<20; steps++ {
				n2 := s.boundaryNeighbours(cur)
				next := n2[0]
				if next == prev {
					next = n2[1]
				}
				prev, cur = cur, next
			}
			ends[d] = cur
		}
		if ends[0] < 0 || ends[1] < 0 {
			continue
		}
		ka, kb := s.pinIndex(ends[0]), s.pinIndex(ends[1])
		if ka < 0 || kb < 0 {
			continue
		}
		pa, pb := s.pins[ka], s.pins[kb]
		ra, rb := m.Rest[ends[0]], m.Rest[ends[1]]
		d := rb.Sub(ra)
		u := math.Sqrt(m.Rest[v].Sub(ra).Norm2() / d.Norm2())
		var p Pin
		if pa.Path != nil && pb.Path != nil {
			p = Pin{Vertex: v, Anchor: pa.Anchor.Scale(1 - u).Add(pb.Anchor.Scale(u)), Path: lerpPath(pa.Path, pb.Path, u)}
			p.Target = p.Anchor.Add(p.Path.At(s.Time))
			p.Goal = p.Target
		} else {
			// An end without a path (fixed, or held or moved by a
			// person): the new pin stays where it is inserted, on the
			// line between the ends' targets, and yields to moving pins
			// like its end (apart). Interpolating the paths instead
			// (nil as zero) gave it half the scripted end's motion
			// while the held end stayed, and from the anchors, which a
			// pin moved by hand has left, it jumped: on the gathered
			// curtain with a top pin held in the gather's way, such a
			// pin passed its neighbours and the cloth blew up at
			// 4810 m/s (TestPinsKeepApart).
			p = Pin{Vertex: v, Target: pa.Target.Scale(1 - u).Add(pb.Target.Scale(u)), Hand: pa.Hand || pb.Hand}
			p.Anchor, p.Goal = p.Target, p.Target
		}
		m.Pos[v] = p.Target
		s.setPin(p)
		ad.derived[v] = true
	}
}

// boundaryNeighbours returns the two vertices next to v along the mesh
// boundary (the far ends of the fan's two boundary edges), or {−1, −1} for
// an interior vertex.
func (s *Sim) boundaryNeighbours(v int32) [2]int32 {
	m := s.Mesh
	out := [2]int32{-1, -1}
	f0 := s.ad.vertFace[v]
	if f0 < 0 || !m.FaceAlive(int(f0)) {
		return out
	}
	it := geom.NewFan(m, v, f0)
	for f, c, ok := it.Next(); ok; f, c, ok = it.Next() {
		t := m.Tris[f]
		if m.Adj[f][c] < 0 { // edge leaving v
			out[0] = t[(c+1)%3]
		}
		if m.Adj[f][(c+2)%3] < 0 { // edge entering v
			out[1] = t[(c+2)%3]
		}
	}
	if out[0] < 0 || out[1] < 0 {
		return [2]int32{-1, -1}
	}
	// Keep vertFace valid for the walk: the boundary neighbours are
	// vertices of faces of v's fan.
	it = geom.NewFan(m, v, f0)
	for f, c, ok := it.Next(); ok; f, c, ok = it.Next() {
		t := m.Tris[f]
		s.ad.vertFace[t[(c+1)%3]] = f
		s.ad.vertFace[t[(c+2)%3]] = f
	}
	return out
}

// lerpPath returns the path (1−u)·a + u·b on the union of their key
// times; nil when both are nil (fixed pins). A nil path counts as zero.
func lerpPath(a, b *Path, u float64) *Path {
	if a == nil && b == nil {
		return nil
	}
	if a == b {
		return a // shared path: the interpolation is the path itself
	}
	var times []float64
	for _, p := range []*Path{a, b} {
		if p != nil {
			times = append(times, p.Times...)
		}
	}
	sort.Float64s(times)
	times = compactFloat(times)
	out := &Path{Times: times, Offsets: make([]geom.Vec3, len(times))}
	for k, t := range times {
		var o geom.Vec3
		if a != nil {
			o = o.Add(a.At(t).Scale(1 - u))
		}
		if b != nil {
			o = o.Add(b.At(t).Scale(u))
		}
		out.Offsets[k] = o
	}
	return out
}

func compactFloat(x []float64) []float64 {
	out := x[:0]
	for i, v := range x {
		if i == 0 || v != x[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// conserveMomentum restores linear momentum exactly after a topology
// change. A split with interpolated velocity conserves Σ m·v by itself
// (the centre gets A/3 of the parent's area at the mean velocity, each
// corner gives up A/9), but flips move mass between vertices of different
// velocities and a join removes a vertex with its momentum. So the touched
// vertices are grouped into change regions (connected through the faces
// that were removed and those that were created; a vertex slot that was
// freed and reused counts as two different vertices), and in each region
// the free (unpinned) vertices get the same velocity correction
//
//	Δv = (Σ_old m·v − Σ_new m·v) / Σ_new,free m,
//
// which gives the removed vertex's momentum to its neighbours and makes
// Σ m·v over the region, hence over the mesh, equal to its value before
// (to round-off). A region whose vertices are all pinned is left alone.
func (s *Sim) conserveMomentum(ch adapt.Changes) {
	m := s.Mesh
	ad := &s.ad
	n := int32(len(m.Pos))
	ad.uf = buf.Keep(ad.uf, int(2*n))
	ad.acc = buf.Keep(ad.acc, int(2*n))
	ad.nodes = ad.nodes[:0]
	oldN := int32(len(ad.old.VertAlive))
	wasAlive := func(v int32) bool { return v < oldN && ad.old.VertAlive[v] }
	isNew := ad.a.IsNew
	add := func(x int32) {
		ad.uf[x] = x
		ad.acc[x] = momAcc{}
		ad.nodes = append(ad.nodes, x)
	}
	for _, v := range ch.Verts {
		if wasAlive(v) {
			add(v)
		}
		add(n + v)
	}
	for _, v := range ch.RemovedVerts {
		if wasAlive(v) {
			add(v)
		}
	}
	find := func(x int32) int32 {
		for ad.uf[x] != x {
			ad.uf[x] = ad.uf[ad.uf[x]]
			x = ad.uf[x]
		}
		return x
	}
	union := func(a, b int32) {
		if ra, rb := find(a), find(b); ra != rb {
			ad.uf[ra] = rb
		}
	}
	for _, v := range ch.Verts {
		if wasAlive(v) && !isNew(v) {
			union(v, n+v) // the same vertex before and after
		}
	}
	oldFace := func(f int32) {
		if int(f) < len(ad.old.Tris) {
			if t := ad.old.Tris[f]; t[0] >= 0 {
				union(t[0], t[1])
				union(t[1], t[2])
			}
		}
	}
	for _, f := range ch.Faces {
		oldFace(f)
		t := m.Tris[f]
		union(n+t[0], n+t[1])
		union(n+t[1], n+t[2])
	}
	for _, f := range ch.RemovedFaces {
		oldFace(f)
	}
	for _, x := range ad.nodes {
		r := &ad.acc[find(x)]
		if x < n {
			r.pOld = r.pOld.Add(ad.old.Vel[x].Scale(ad.oldArea[x]))
			continue
		}
		v := x - n
		r.pNew = r.pNew.Add(m.Vel[v].Scale(s.area[v]))
		if !s.fixed[v] {
			r.mFree += s.area[v]
		}
	}
	for _, v := range ch.Verts {
		if s.fixed[v] {
			continue
		}
		r := &ad.acc[find(n+v)]
		if r.mFree > 0 {
			m.Vel[v] = m.Vel[v].Add(r.pOld.Sub(r.pNew).Scale(1 / r.mFree))
		}
	}
}

// warmStart gives new vertices a PCG starting guess: the mean of the
// previous solution Δv over their neighbours that existed before (for
// both Δv and the Δv₋₁ of the extrapolated warm start).
func (s *Sim) warmStart(ch adapt.Changes) {
	m := s.Mesh
	ad := &s.ad
	for _, v := range ch.NewVerts {
		var sum geom.Vec3
		cnt := 0
		it := geom.NewFan(m, v, ad.vertFace[v])
		for f, c, ok := it.Next(); ok; f, c, ok = it.Next() {
			j := m.Tris[f][(c+1)%3]
			if !ad.a.IsNew(j) {
				sum = sum.Add(s.dv[j])
				cnt++
			}
		}
		s.z[v] = geom.Vec3{}
		s.dv[v] = geom.Vec3{}
		if cnt > 0 {
			s.dv[v] = sum.Scale(1 / float64(cnt))
		}
		s.dvOld[v] = s.dv[v] // the extrapolated warm start then starts from dv

	}
}
