package contact

import (
	"fmt"
	"math"
	"slices"
	"time"

	"drape/sim/buf"
	"drape/sim/geom"
	"drape/sim/parallel"
)

// This file holds the package's API: what a call takes (Cloth, Body) and
// reports (Stats, Contacts, Near, NearFaces), the Solver with its stages
// (Begin, Proximity, Mark and Changed, Continuous, End; Resolve runs them
// all) and the loop of CCD and impact-zone passes, the checks of the
// input, and the mesh bodies' preparation for a call (ownership, normals,
// grids, velocities).

// Cloth is the cloth at the start of the step, per vertex slot (dead slots:
// InvMass 0 and not referenced by live faces).
type Cloth struct {
	X       []geom.Vec3 // x^n, m
	V       []geom.Vec3 // v^{n+½} on input; the collision-free velocity on output (x^{n+1} = x^n + Δt·V), m/s
	InvMass []float64   // 1/m per slot, 1/kg; 0 = kinematic (pinned: it moves with its V and nothing pushes it)
	Tris    [][3]int32  // face slots; t[0] < 0 marks a free slot (geom.Mesh convention)
	// Tangled, per face slot, may be nil: Crossing, Band, Rim or 0
	// (Untangler.Faces; Rim set by the caller). The cloth–cloth pairs of
	// two flagged faces (of one contour, when Contour is set) other than
	// two Rim faces are not tested, so that the surfaces can pass back
	// through each other where they cross (untangle.go).
	Tangled []uint8
	// Contour, per face slot, may be nil: the contour of a tangled face
	// (Untangler.Contour). When it is set, two tangled faces pass
	// through each other only when their contours are the same.
	Contour []int32
}

// Body is an obstacle over the step, moving rigidly (or not at all) from
// From to To: a triangle mesh (Tris), a round body (Radius > 0) or a
// half-space (neither).
type Body struct {
	Tris     [][3]int32  // outward CCW; nil for a half-space or a round body
	From, To []geom.Vec3 // vertex positions at t^n and t^{n+1}, m
	Static   bool        // From == To and unchanged since the previous call with this body index: its hash grid is reused
	Friction float64     // Coulomb μ between this body and the cloth
	// Half-space (ground) when Tris is nil and Radius 0: points with
	// (p − Point)·Normal < 0 are inside. Normal need not be unit. A
	// half-space does not move.
	Point, Normal geom.Vec3
	// Round body (a sphere or a capsule) when Radius > 0 and Tris is nil:
	// the points within Radius of the segment Core (both ends equal for a
	// sphere) at t^n, of CoreTo at t^{n+1}, the ends moving linearly. It is
	// handled analytically (round.go), which for a tessellated sphere or
	// capsule whose vertices lie on its surface also keeps the cloth off
	// the mesh: the solid contains the mesh.
	Radius       float64
	Core, CoreTo [2]geom.Vec3
	// Inside, for a mesh body, returns the signed distance d from point p
	// to the solid at t^n (negative inside), the unit outward normal n at
	// the closest point of its surface, and that point's velocity over the
	// step; the proximity stage asks it about the cloth in the body's
	// box, to push out the vertices inside and the faces across the body
	// (deep.go). nil: cloth more than h inside the body is not seen.
	Inside func(p geom.Vec3) (d float64, n, v geom.Vec3)
}

// round reports whether b is a round body.
func (b *Body) round() bool { return b.Tris == nil && b.Radius > 0 }

// Stats reports what the last Resolve (or Begin … End) did.
type Stats struct {
	Proximity     int           // cloth–body proximity pairs (vertex–face both ways, edge–edge, vertex–plane)
	SelfProximity int           // cloth–cloth proximity pairs
	CCDHits       int           // collisions found by all CCD passes, zone passes included
	Iterations    int           // CCD passes run (impulse passes + zone passes)
	ZonePasses    int           // impact-zone passes run
	Zones         int           // impact zones at the end
	ZoneVertices  int           // cloth vertices in them
	Contacts      int           // vertex–body contacts recorded (Contacts)
	Deep          int           // cloth vertices inside a mesh body (deep.go)
	Across        int           // cloth faces across a mesh body with no vertex inside it (deep.go)
	Time          time.Duration // the stages, Begin to End (not the caller's work between them)
	ProximityTime time.Duration // of which topology, grids and the proximity stage
	CCDTime       time.Duration // the CCD passes with impulses
	ZoneTime      time.Duration // the zone passes
}

// Contact is a vertex–body contact of the last Resolve, for Baraff–Witkin
// resting-contact constraints in the next implicit solve: the cloth vertex
// slot, the body index, the unit normal pointing out of the body, and the
// normal impulse the body gave the vertex, N·s (≥ 0; 0 when the vertex was
// within the thickness but already separating).
type Contact struct {
	Vertex  int32
	Body    int
	Normal  geom.Vec3
	Impulse float64
}

// Pair kinds. In a pair, ids[k] names four points (cloth vertex slots, or
// body vertex indices where bit k of bodyPts is set) and w[k] their signed
// weights: the relative velocity of the contact is Σ w[k]·v[k] and an
// impulse j along n changes v[k] by w[k]·j·n/m[k] (Bridson et al. §7.1,
// with masses); Σ w = 0, so it conserves linear momentum.
const (
	pairVF    uint8 = iota // ids[0] vertex, ids[1:4] face; n from face to vertex
	pairEE                 // ids[0:2] edge A, ids[2:4] edge B; n from A to B
	pairPoint              // ids[0] cloth vertex against an analytic body (half-space, round body); n out of the body
	pairFace               // ids[0:3] cloth face at barycentric weights w[0:3] against a round body; n out of the body
)

type pair struct {
	kind    uint8
	bodyPts uint8 // bit k: ids[k] is a vertex of body `body`
	body    int32 // −1 for cloth–cloth
	ids     [4]int32
	w       [4]float64
	n       geom.Vec3
	bv      geom.Vec3 // pairPoint, pairFace: the body's velocity at the contact; the relative velocity is Σ w_k·v_k − bv
	d       float64   // proximity: distance along n (negative when inside a body face); CCD: 0
	t       float64   // CCD: time of impact in [0, 1]
}

// bodyState is what the solver keeps per body index between calls.
type bodyState struct {
	tris   [][3]int32 // a copy of the Tris the ownership and grid were built for
	nverts int
	built  bool
	owner  []uint8 // per face: bit k owns vertex k, bit 3+k owns edge k
	g      grid
	vel    []geom.Vec3 // (To − From)/Δt, zero when static
	moving bool
	fitted bool         // field below is valid for this call
	field  [4]geom.Vec3 // affine velocity fit v(x) = field[0]·x.X + field[1]·x.Y + field[2]·x.Z + field[3]
	normal []geom.Vec3  // outward unit face normals at t^n
	// per vertex: the box From ∪ To (narrowBody's culls)
	vlo, vhi []geom.Vec3
	lo, hi   geom.Vec3 // the body's box over the step (From ∪ To)
	meanEdge float64   // m
	cell     float64   // the cell side its grid was built with, m
	// A round body's distance to each cloth face at x^n, from the call's
	// proximity pass (faceD0Call: the call that set it), for its CCD
	// passes, which start from the same positions (detectRoundFaceChunk).
	faceD0     []float64
	faceD0Call []int64
}

// Solver runs the collision pipeline and keeps its work arrays, the static
// bodies' grids and the results of the last call (Contacts, NearFaces) from
// one Resolve to the next. A Solver is not safe for concurrent use.
type Solver struct {
	valid  Params // the last parameters that validated
	bodies []bodyState

	// cloth topology, rebuilt when the faces change (the mesh adapts)
	topoTris [][3]int32 // the faces it was built for
	topoNV   int
	vfStart  []int32 // faces of vertex i: vfList[vfStart[i]:vfStart[i+1]]
	vfList   []int32
	owner    []uint8
	adj      [][3]int32 // per face: the face across edge k, −1 none, −2 non-manifold (faceAdjacency)
	self     grid       // the cloth's face boxes (lo, hi), read by every stage
	cellLen  float64    // mean cloth edge length at the last build
	// the cloth–cloth culling: patches, clusters, certificates, stars and
	// motion bounds (cull.go)
	cull culler
	// testNoBounds, set by tests only, turns off the shortcuts that must
	// not change any result (the culler's star and motion bounds, a round
	// body's distances kept for the CCD passes), so that a test can
	// compare.
	testNoBounds bool

	// touchedVertices: per vertex slot, a face around it changed since
	// the last build; topoAll: find every face's adjacency and ownership
	// again.
	vtouch  []bool
	topoAll bool
	// fsame: per face slot, its vertices are those of the last build
	// (touchedVertices; all false at the first build), so the culler may
	// keep the clusters of those faces
	fsame []bool

	// the self-collision query over the patches (candidates.go)
	pq        patchQuery
	patchCell float64 // cell side of the patch grid this call
	pnear     []bool  // per patch: near the current body (patchNearChunk)
	calls     int64   // Resolve calls so far (certifyChunk: certified at x^n in this call)

	// call state read by the parallel passes
	c       *Cloth
	bs      []Body
	dt      float64
	p       Params
	delta   float64
	mode    int // modeProximity or modeCCD
	curBody int
	chunk   [parallel.Chunks][]pair
	// dirty[i]: vertex i's velocity changed in the previous pass (read by
	// detect when useDirty); dirtyNext collects the current pass's changes.
	dirty, dirtyNext []bool
	fdirty           []bool // per face: a vertex is dirty
	// per vertex, set by detect: the swept box, and narrowSelf's point box
	swLo, swHi, plo, phi []geom.Vec3
	useDirty             bool
	// detect's box passes, bound once, and their pads
	vertexBoxFn, faceBoxFn func(k, lo, hi int)
	boxPad, boxExt         geom.Vec3
	// triangle pairs and cloth boxes of the proximity query, reused by the
	// CCD passes (outgrown, extendCand)
	cand           [parallel.Chunks][]cand
	candGroups     [parallel.Chunks][]candGroup // the runs of cand the self-collision query found per patch pair
	candLo, candHi []geom.Vec3
	collect        bool
	// fout: per face, its box outgrew its candidate box in this pass
	// (outgrown), whose previous value is oldLo, oldHi
	fout         []bool
	oldLo, oldHi []geom.Vec3
	detectC      func(k, lo, hi int)
	near         []NearPair // the proximity pairs Near returns
	detectB      func(k, lo, hi int)
	detectP      func(k, lo, hi int)
	detectRV     func(k, lo, hi int)
	detectRF     func(k, lo, hi int)
	detectD      func(k, lo, hi int)
	detectA      func(k, lo, hi int)
	// the queries' passes, bound once (a method value allocates)
	adjacencyFn                func(k, lo, hi int)
	patchPairsFn, patchTestFn  func(k, lo, hi int)
	extendSelfFn, extendBodyFn func(k, lo, hi int)
	patchNearFn                func(k, lo, hi int)

	v0       []geom.Vec3 // input velocities, to restore on failure
	vmid     []geom.Vec3 // the velocities at Mark
	on       bool        // Begin succeeded with collisions enabled: the stages run
	ccdDone  bool        // Continuous has run in this step
	contacts []Contact
	nearV    []bool // vertices within h of something, last call
	// escape: per vertex, the part of this step's velocity that moves it
	// out of a body faster than PushSpeed (escapeBody); escaped: some is
	// not zero
	escape  []geom.Vec3
	escaped bool
	// deepIn: per cloth vertex, 1 + the mesh body that the last
	// proximity stage found it inside, or a face of it across (deep.go),
	// 0 for none; deep: some is not 0
	deepIn []int32
	deep   bool
	hits   [parallel.Chunks][]insideHit // detectDeepChunk's, per piece
	hitAll []insideHit                  // insidePairs' scratch: the hits of all pieces
	across [parallel.Chunks][]acrossHit // detectAcrossChunk's, per piece
	hitOf  []int32                      // insidePairs' scratch, per cloth vertex
	piece  []int32                      // insidePairs' scratch
	zones  zoneState
	stats  Stats
	// stop, if not nil, is polled before every CCD and zone pass
	// (SetStop).
	stop func() bool
}

const (
	modeProximity = iota
	modeCCD
)

// NewSolver returns a solver with no bodies cached.
func NewSolver() *Solver {
	s := &Solver{}
	s.detectB = s.detectBodyChunk // bound once: a method value allocates
	s.detectP = s.detectPlaneChunk
	s.detectRV = s.detectRoundVertexChunk
	s.detectRF = s.detectRoundFaceChunk
	s.detectD = s.detectDeepChunk
	s.detectA = s.detectAcrossChunk
	s.detectC = s.detectCandChunk
	s.cull.init(s)
	s.adjacencyFn = s.adjacencyChunk
	s.vertexBoxFn = s.vertexBoxChunk
	s.faceBoxFn = s.faceBoxChunk
	s.patchPairsFn = s.patchPairsChunk
	s.patchTestFn = s.patchTestChunk
	s.extendSelfFn = s.extendSelfChunk
	s.extendBodyFn = s.extendBodyChunk
	s.patchNearFn = s.patchNearChunk
	return s
}

// SetStop sets f, which Continuous polls before each of its CCD and
// impact-zone passes: when f returns true it stops there with
// ErrStopped. A caller that must stay responsive (the viewer, whose
// commands wait for the step in progress) uses it to give up a step
// that runs long, taking it again later. nil never stops.
func (s *Solver) SetStop(f func() bool) { s.stop = f }

// Contacts returns the vertex–body contacts of the last Resolve (proximity
// pairs of a cloth vertex with a body face or a half-space), one per pair,
// valid until the next Resolve.
func (s *Solver) Contacts() []Contact { return s.contacts }

// NearPair is a pair within the thickness h at x^n of the last Resolve,
// cloth–cloth or cloth–static body: its cloth vertex slots Ids (−1 where
// the pair's point is the body's) with signed weights W; the separation
// along N at cloth positions x is Offset + Σ W[k]·N·x[Ids[k]].
type NearPair struct {
	Ids    [4]int32
	W      [4]float64
	N      geom.Vec3
	Offset float64
}

// Near returns the cloth–cloth and cloth–static-body pairs of the last
// Resolve's proximity stage.
func (s *Solver) Near() []NearPair { return s.near }

// keepNear adds proximity pair pr to the list Near returns.
func (s *Solver) keepNear(pr *pair) {
	np := NearPair{N: pr.n, Offset: pr.d, Ids: [4]int32{-1, -1, -1, -1}}
	for k := 0; k < npoints(pr); k++ {
		if pr.bodyPts&(1<<k) != 0 {
			continue
		}
		np.Ids[k], np.W[k] = pr.ids[k], pr.w[k]
		np.Offset -= pr.w[k] * pr.n.Dot(s.c.X[pr.ids[k]])
	}
	s.near = append(s.near, np)
}

// NearFaces returns dst (grown to the number of face slots of the last
// Resolve) with true for every face slot that has a vertex within the
// thickness of a body or, with self-collision on, of non-adjacent cloth at
// x^n, or that took part in a CCD collision or an impact zone: adaptivity
// must not flip or coarsen them (Bender & Deul §7, discussion). It marks
// every face around such a vertex, a superset of the faces within h.
func (s *Solver) NearFaces(dst []bool) []bool {
	if s.c == nil {
		return dst[:0]
	}
	nf := len(s.owner)
	dst = buf.Grow(dst, nf)
	clear(dst)
	for v, near := range s.nearV {
		if !near || v+1 >= len(s.vfStart) {
			continue
		}
		for _, f := range s.vfList[s.vfStart[v]:s.vfStart[v+1]] {
			dst[f] = true
		}
	}
	return dst
}

// Resolve makes the velocities c.V collision-free over the step of length
// dt, Bender & Deul §3 steps 4–5 and §6 after Bridson, Fedkiw & Anderson
// 2002: (1) proximity at x^n within the thickness h, resolved by inelastic
// and repulsion impulses with Coulomb friction (§7.1–7.2); (2) up to
// p.CCDIterations passes of continuous collision detection on the linear
// trajectories x^n → x^n + dt·V with impulses and friction (§6.4); (3)
// impact zones (Provot 1997 §4; Tsiknis 2006 ch. 2 with EnrichedZones) for
// what is left, repeated until a CCD pass finds nothing. The caller then
// sets x^{n+1} = x^n + dt·V.
//
// It returns an error, with c.V restored to its input, for non-finite or
// mismatched input and (wrapping ErrUnresolved) when collisions remain after
// p.ZoneIterations zone passes. With p.Enabled false it does nothing.
//
// Resolve is Begin, Proximity, Continuous and End; a caller that
// post-processes the velocities between the stages (cloth.Sim's strain
// limiting) calls them itself.
func (s *Solver) Resolve(c *Cloth, bodies []Body, dt float64, p Params) (Stats, error) {
	err := s.Begin(c, bodies, dt, p)
	if err == nil {
		s.Proximity()
		err = s.Continuous()
	}
	return s.End(err)
}

// Begin starts the collision phase of one step: it checks the input
// (an error leaves the solver idle and c.V as it was), keeps c.V to
// restore on failure, and builds the cloth's topology and the bodies'
// data. The stages follow in order: Proximity once, then Continuous,
// which the caller may repeat after changing c.V itself between Mark and
// Changed, and End. With p.Enabled false every stage does nothing.
func (s *Solver) Begin(c *Cloth, bodies []Body, dt float64, p Params) error {
	start := time.Now()
	s.calls++
	s.stats = Stats{}
	s.contacts = s.contacts[:0]
	s.near = s.near[:0]
	s.zones.active = false
	s.c, s.on, s.ccdDone = nil, false, false
	s.escaped, s.deep = false, false
	if !p.Enabled {
		return nil
	}
	if p != s.valid { // validating through the table allocates; once per setting
		if err := p.Validate(); err != nil {
			return err
		}
		s.valid = p
	}
	if p.ZoneIterations == 0 {
		p.ZoneIterations = 100
	}
	if err := checkInput(c, bodies, dt); err != nil {
		return err
	}
	s.c, s.bs, s.dt, s.p, s.on = c, bodies, dt, p, true
	s.cull.setMode(p.Cull, p.Cull && !s.testNoBounds)
	s.delta = 1e-3 * p.Thickness
	s.v0 = buf.Grow(s.v0, len(c.V))
	copy(s.v0, c.V)
	s.nearV = buf.Grow(s.nearV, len(c.X))
	clear(s.nearV)
	s.dirty = buf.Grow(s.dirty, len(c.X))
	s.dirtyNext = buf.Grow(s.dirtyNext, len(c.X))
	clear(s.dirtyNext)
	s.useDirty = false
	s.candLo = s.candLo[:0]

	s.clothTopology()
	s.prepareBodies()
	s.stats.ProximityTime = time.Since(start)
	return nil
}

// Proximity is stage (1): the pairs within the thickness h at x^n,
// resolved by repulsion impulses on c.V, the contacts (Contacts) and the
// near pairs (Near) of the step.
func (s *Solver) Proximity() {
	if !s.on {
		return
	}
	start := time.Now()
	s.mode = modeProximity
	s.detect()
	for k := range s.chunk {
		for i := range s.chunk[k] {
			pr := &s.chunk[k][i]
			s.markNear(pr)
			if pr.body < 0 || s.bs[pr.body].Static {
				s.keepNear(pr)
			}
			if pr.body < 0 {
				s.stats.SelfProximity++
			} else {
				s.stats.Proximity++
			}
			j := s.repulse(pr)
			// A vertex deeper than h in a mesh body (deep.go) is no resting
			// contact: held along the normal in the next solve, it stays in.
			deep := pr.body >= 0 && pr.kind == pairPoint && pr.d < -s.p.Thickness && s.isDeep(pr.ids[0], int(pr.body))
			if pr.body >= 0 && pr.bodyPts&1 == 0 && (pr.kind == pairVF || pr.kind == pairPoint) && !deep {
				s.contacts = append(s.contacts, Contact{Vertex: pr.ids[0], Body: int(pr.body), Normal: pr.n, Impulse: j})
			}
		}
	}
	s.stats.Contacts = len(s.contacts)
	s.stats.ProximityTime += time.Since(start)
}

// Mark keeps the velocities c.V as they are now, for Changed: call it
// before changing them between the stages.
func (s *Solver) Mark() {
	if !s.on {
		return
	}
	s.vmid = buf.Grow(s.vmid, len(s.c.V))
	copy(s.vmid, s.c.V)
}

// Changed marks every vertex whose velocity differs from its value at
// Mark as changed, so that the next Continuous tests its pairs again, and
// reports whether any did.
func (s *Solver) Changed() bool {
	if !s.on {
		return false
	}
	changed := false
	for i, v := range s.c.V {
		if v != s.vmid[i] {
			s.dirtyNext[i], changed = true, true
		}
	}
	return changed
}

// Continuous is stages (2) and (3) on the current velocities c.V: CCD
// passes with impulses, then impact zones for what is left. The first
// call of a step tests every candidate pair, a later one only the pairs
// with a vertex that changed (Changed) or that its predecessor moved. It
// returns ErrUnresolved (wrapped) when collisions remain after the zone
// passes, and ErrStopped when SetStop's function asked it to stop.
func (s *Solver) Continuous() error {
	if !s.on {
		return nil
	}
	start := time.Now()
	err := s.collisions(!s.ccdDone)
	s.ccdDone = true
	s.stats.Time += time.Since(start)
	return err
}

// Stats returns what the stages of this step have done so far.
func (s *Solver) Stats() Stats { return s.stats }

// End finishes the step's collision phase. With err (from a stage, or
// the caller's own between the stages) or with a velocity that is not
// finite it restores c.V to its value at Begin and returns the error.
// Stats.Time is the time spent in the stages, not in the caller's work
// between them.
func (s *Solver) End(err error) (Stats, error) {
	s.stats.Time += s.stats.ProximityTime
	if !s.on {
		return s.stats, err
	}
	c := s.c
	if err != nil {
		copy(c.V, s.v0)
		return s.stats, err
	}
	for i := range c.V {
		if !c.V[i].IsFinite() {
			copy(c.V, s.v0)
			return s.stats, fmt.Errorf("contact: velocity of vertex %d not finite after the collision response", i)
		}
	}
	return s.stats, nil
}

// collisions runs the continuous stage of Resolve, (2) CCD passes with
// impulses and (3) impact zones for what is left, on the current
// velocities; first: the first time in the call (its first pass tests
// every candidate pair), else only the pairs with a vertex marked changed
// (dirtyNext). It returns ErrUnresolved (wrapped) when collisions remain
// after the zone passes.
func (s *Solver) collisions(first bool) error {
	c, p := s.c, s.p
	t1 := time.Now()
	s.mode = modeCCD
	s.zones.active = false
	clean := false
	for it := 0; it < p.CCDIterations; it++ {
		if s.stop != nil && s.stop() {
			return ErrStopped
		}
		s.useDirty = !first || it > 0
		n := s.detect()
		s.stats.Iterations++
		s.stats.CCDHits += n
		if n == 0 {
			clean = true
			break
		}
		for k := range s.chunk {
			for i := range s.chunk[k] {
				s.markNear(&s.chunk[k][i])
				s.collide(&s.chunk[k][i])
			}
		}
	}
	t2 := time.Now()
	s.stats.CCDTime += t2.Sub(t1)
	if !clean {
		s.zones.reset(len(c.X))
		for it := 0; ; it++ {
			if s.stop != nil && s.stop() {
				return ErrStopped
			}
			s.useDirty = true
			n := s.detect()
			s.stats.Iterations++
			s.stats.CCDHits += n
			if n == 0 {
				break
			}
			if it == p.ZoneIterations {
				return fmt.Errorf("%w: %d collisions left after %d zone passes", ErrUnresolved, n, it)
			}
			s.stats.ZonePasses++
			s.zones.grew = false
			for k := range s.chunk {
				for i := range s.chunk[k] {
					s.markNear(&s.chunk[k][i])
					s.zones.add(s, &s.chunk[k][i])
				}
			}
			if !s.zones.grew && it > 0 {
				// The collisions left are within zones already
				// projected, which projecting again leaves as they
				// are (pins that move apart inside one zone, the
				// case that needs this): every further pass would
				// find them again, so the cap is reached now rather
				// than after ZoneIterations passes of the same work
				// (6.7 s of a stalled viewer on the gathered curtain
				// with a pin held in the gather's way).
				return fmt.Errorf("%w: %d collisions left in zones that no longer grow, after %d zone passes", ErrUnresolved, n, it)
			}
			s.zones.project(s)
		}
		z, zv := s.zones.count()
		s.stats.Zones += z
		s.stats.ZoneVertices += zv
	}
	s.stats.ZoneTime += time.Since(t2)
	return nil
}

// checkInput returns an error for mismatched lengths, out-of-range indices,
// non-finite values or a non-positive step.
func checkInput(c *Cloth, bodies []Body, dt float64) error {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("contact: time step %g s: must be positive and finite", dt)
	}
	n := len(c.X)
	if len(c.V) != n || len(c.InvMass) != n {
		return fmt.Errorf("contact: cloth has %d positions, %d velocities and %d inverse masses", n, len(c.V), len(c.InvMass))
	}
	for i := 0; i < n; i++ {
		if !c.X[i].IsFinite() || !c.V[i].IsFinite() {
			return fmt.Errorf("contact: cloth vertex %d: position or velocity not finite", i)
		}
		if !(c.InvMass[i] >= 0) || math.IsInf(c.InvMass[i], 0) {
			return fmt.Errorf("contact: cloth vertex %d: inverse mass %g", i, c.InvMass[i])
		}
	}
	for f, t := range c.Tris {
		if t[0] < 0 {
			continue
		}
		for _, v := range t {
			if v < 0 || int(v) >= n {
				return fmt.Errorf("contact: cloth face %d: vertex %d out of range", f, v)
			}
		}
	}
	for b := range bodies {
		bd := &bodies[b]
		if !(bd.Radius >= 0) || math.IsInf(bd.Radius, 0) {
			return fmt.Errorf("contact: body %d: radius %g", b, bd.Radius)
		}
		if bd.round() {
			for _, p := range [4]geom.Vec3{bd.Core[0], bd.Core[1], bd.CoreTo[0], bd.CoreTo[1]} {
				if !p.IsFinite() {
					return fmt.Errorf("contact: body %d: core not finite", b)
				}
			}
		} else if bd.Tris == nil {
			if !bd.Point.IsFinite() || !bd.Normal.IsFinite() || bd.Normal.Norm() == 0 {
				return fmt.Errorf("contact: body %d: half-space point or normal not finite or zero", b)
			}
		} else {
			if len(bd.From) != len(bd.To) {
				return fmt.Errorf("contact: body %d: %d positions at t^n, %d at t^{n+1}", b, len(bd.From), len(bd.To))
			}
			for i := range bd.From {
				if !bd.From[i].IsFinite() || !bd.To[i].IsFinite() {
					return fmt.Errorf("contact: body %d: vertex %d not finite", b, i)
				}
			}
			for f, t := range bd.Tris {
				for _, v := range t {
					if v < 0 || int(v) >= len(bd.From) {
						return fmt.Errorf("contact: body %d face %d: vertex %d out of range", b, f, v)
					}
				}
			}
		}
		if !(bd.Friction >= 0) || math.IsInf(bd.Friction, 0) {
			return fmt.Errorf("contact: body %d: friction %g", b, bd.Friction)
		}
	}
	return nil
}

// prepareBodies caches each mesh body's ownership and normals, builds its
// grid (once for a static body, every call for a moving one; cells over the
// swept boxes From ∪ To, side the body's mean edge length) and its vertex
// velocities.
func (s *Solver) prepareBodies() {
	for len(s.bodies) < len(s.bs) {
		s.bodies = append(s.bodies, bodyState{})
	}
	for b := range s.bs {
		bd, st := &s.bs[b], &s.bodies[b]
		st.fitted = false
		if bd.round() {
			s.prepareRound(b)
			continue
		}
		if bd.Tris == nil {
			st.built, st.moving = false, false
			st.tris = st.tris[:0]
			continue
		}
		// Compared by content against the solver's own copy, so a caller
		// that builds a new Tris slice every step (or edits one in place)
		// neither rebuilds the ownership (which allocates) needlessly nor
		// keeps a stale one.
		same := st.built && slices.Equal(st.tris, bd.Tris) && st.nverts == len(bd.From)
		if !same {
			st.owner = meshOwners(bd.Tris, len(bd.From), st.owner)
			st.tris = append(st.tris[:0], bd.Tris...)
			st.nverts = len(bd.From)
		}
		st.moving = !bd.Static
		st.vel = buf.Grow(st.vel, len(bd.From))
		if st.moving {
			inv := 1 / s.dt
			for i := range bd.From {
				st.vel[i] = bd.To[i].Sub(bd.From[i]).Scale(inv)
			}
		} else if !same {
			clear(st.vel)
		}
		if same && !st.moving {
			// A static body's grid is kept, unless the cloth's edges have
			// changed so much (adaptivity) that its cell side should.
			if c := st.cellFor(s.cellLen); c < st.cell*2/3 || c > st.cell*3/2 {
				st.cell = c
				st.g.build(c)
			}
			continue
		}
		st.vlo, st.vhi = buf.Grow(st.vlo, len(bd.From)), buf.Grow(st.vhi, len(bd.From))
		for i, x := range bd.From {
			st.vlo[i], st.vhi[i] = vmin(x, bd.To[i]), vmax(x, bd.To[i])
		}
		nf := len(bd.Tris)
		st.g.lo = buf.Grow(st.g.lo, nf)
		st.g.hi = buf.Grow(st.g.hi, nf)
		st.normal = buf.Grow(st.normal, nf)
		sum := 0.0
		for f, t := range bd.Tris {
			lo, hi := bd.From[t[0]], bd.From[t[0]]
			for _, v := range t {
				lo, hi = vmin(lo, vmin(bd.From[v], bd.To[v])), vmax(hi, vmax(bd.From[v], bd.To[v]))
			}
			st.g.lo[f], st.g.hi[f] = lo, hi
			a, bb, cc := bd.From[t[0]], bd.From[t[1]], bd.From[t[2]]
			st.normal[f] = bb.Sub(a).Cross(cc.Sub(a)).Unit()
			sum += bb.Sub(a).Norm() + cc.Sub(bb).Norm() + a.Sub(cc).Norm()
		}
		st.meanEdge = 0.01
		if nf > 0 && sum > 0 {
			st.meanEdge = sum / float64(3*nf)
		}
		st.lo, st.hi = geom.Vec3{X: 1}, geom.Vec3{}
		if nf > 0 {
			st.lo, st.hi = st.g.lo[0], st.g.hi[0]
			for f := 1; f < nf; f++ {
				st.lo, st.hi = vmin(st.lo, st.g.lo[f]), vmax(st.hi, st.g.hi[f])
			}
		}
		st.cell = st.cellFor(s.cellLen)
		st.g.build(st.cell)
		st.built = true
	}
}

// cellFor returns the cell side of the body's grid against a cloth of mean
// edge length clothEdge: the larger of the two mean edges (Bender & Deul §6
// give each object its own cell, its mean edge; a cloth triangle queried
// in a grid of much smaller cells visits many cells and meets each body
// triangle in several of them: the 3528-triangle sheet of the bunny scene,
// 3.8 cm edges, over the 10000-face bunny, 2 cm). The finer object's
// triangles are so queried in cells of the coarser one's size.
func (st *bodyState) cellFor(clothEdge float64) float64 {
	return max(st.meanEdge, clothEdge)
}

// meshOwners returns per face the ownership bits of a body mesh (lowest face
// owns each vertex and edge). It allocates (a map of edges), once per body.
func meshOwners(tris [][3]int32, nv int, dst []uint8) []uint8 {
	dst = buf.Grow(dst, len(tris))
	vOwned := make([]bool, nv)
	edges := make(map[[2]int32]bool, 3*len(tris)/2)
	for f, t := range tris {
		var o uint8
		for k := 0; k < 3; k++ {
			if !vOwned[t[k]] {
				vOwned[t[k]] = true
				o |= 1 << k
			}
			a, b := t[k], t[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			if !edges[[2]int32{a, b}] {
				edges[[2]int32{a, b}] = true
				o |= 1 << (3 + k)
			}
		}
		dst[f] = o
	}
	return dst
}

// vmin and vmax are the componentwise minimum and maximum (the builtins
// min and max: math.Min's NaN and signed-zero handling is not needed here,
// the input being checked finite, and costs a call per component).
func vmin(a, b geom.Vec3) geom.Vec3 {
	return geom.Vec3{X: min(a.X, b.X), Y: min(a.Y, b.Y), Z: min(a.Z, b.Z)}
}

func vmax(a, b geom.Vec3) geom.Vec3 {
	return geom.Vec3{X: max(a.X, b.X), Y: max(a.Y, b.Y), Z: max(a.Z, b.Z)}
}

// markNear flags the pair's cloth vertices for NearFaces and as dirty for
// the next CCD pass: a collision whose response changed nothing (already
// separating, or between kinematic vertices) must be tested again.
func (s *Solver) markNear(pr *pair) {
	for k := 0; k < npoints(pr); k++ {
		if pr.bodyPts&(1<<k) == 0 {
			s.nearV[pr.ids[k]] = true
			s.dirtyNext[pr.ids[k]] = true
		}
	}
}
