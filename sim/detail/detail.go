package detail

import (
	"errors"
	"fmt"
	"math"
	"time"

	"drape/sim/buf"
	"drape/sim/geom"
)

// MaxLevel is the deepest Loop subdivision Params.Level may ask for.
const MaxLevel = 3

// Frame is one coarse cloth mesh to detail: the simulation's live vertices
// and faces, compacted (vertex i at Pos[i], material coordinates Rest[i];
// Tris: 3 indices into Pos per face, counter-clockwise in Rest). Level, when
// in [1, MaxLevel], overrides Params.Level for this frame; 0 keeps it.
// Obstacles are the bodies the detailed surface stays out of (see
// Obstacle); nil for none.
type Frame struct {
	Pos       []geom.Vec3
	Rest      []geom.Vec2
	Tris      [][3]int32
	Level     int
	Obstacles []Obstacle
}

// Obstacle is a body the detailed surface must not enter (Tsiknis ch. 3:
// the displacements of a step are tested at the full step and scaled back
// to where the surface is intersection-free). SignedDistance returns the
// signed distance from a world point to its surface, m, negative inside;
// it must be safe for concurrent use. Lo and Hi bound the body (±Inf for
// an unbounded one); only displaced fine points inside that box are
// tested.
type Obstacle struct {
	Lo, Hi         geom.Vec3
	SignedDistance func(p geom.Vec3) float64
}

// Surface is the detailed fine mesh: Pos[i] = x_i + d_i·n̂_i, Normal the
// area-weighted unit normal of the displaced surface at i, Tris 3 indices
// into Pos per face, in the orientation of the coarse faces. Update reuses
// its slices' storage.
type Surface struct {
	Pos, Normal []geom.Vec3
	Tris        [][3]int32
}

// EnergyKind selects the membrane term of the detail energy.
type EnergyKind int

const (
	// EdgeEnergy is Tsiknis eq. 3.1: the fine polyline along each coarse
	// edge keeps the coarse edge's rest length.
	EdgeEnergy EnergyKind = iota
	// FaceEnergy measures every fine edge against the metric of the coarse
	// face it lies in (|F·t̂| along its material direction t̂), so the whole
	// face drives the folds rather than its three edges (Tsiknis ch. 4's
	// metric-tensor suggestion).
	FaceEnergy
)

func (k EnergyKind) String() string {
	switch k {
	case EdgeEnergy:
		return "edge"
	case FaceEnergy:
		return "face"
	}
	return fmt.Sprintf("EnergyKind(%d)", int(k))
}

// Params are the settings of the detailer. All are dimensionless, so the
// result does not depend on the size of the cloth; the energy's scale
// (κ_bend = 1 J) cancels out of the minimiser.
type Params struct {
	Level  int        // Loop subdivision levels, 1 … MaxLevel
	Energy EnergyKind // membrane term: EdgeEnergy (eq. 3.1) or FaceEnergy

	// Stretch is κ_elastic relative to bending: the membrane weight is
	// Stretch·κ_bend·k²·ℓ̄ with k = 2π/λ and ℓ̄ the mean coarse rest edge
	// length. Larger: folds keep the material length more closely (taller
	// folds). > 0.
	Stretch float64
	// Wavelength is the fold wavelength λ in fine rest edge lengths: the
	// wavelength of the seed pattern φ, which decides the folds' spacing
	// (TestWrinkleWavelength), and of the elastic foundation
	// ½K·Σ w_i·a_i·d_i², K = κ_bend·k⁴, that holds the fine surface near
	// the Loop surface (a plate on a foundation wrinkles at
	// λ = 2π(B/K)^¼). At 4 the folds are sampled by 4 points and look
	// jagged; 6 is the default. ≥ 2 (Nyquist).
	Wavelength float64
	// Floor is c₀ in the point weight w_i = c_i + c₀ of the bending and
	// foundation terms (c_i the coarse compression at i, eq. 3.2's
	// max{−ε, 0}): without it a point outside compressed faces has no
	// stiffness at all. ≥ 0.
	Floor float64
	// Slack is the compression the cloth absorbs without folding, c_min:
	// every compression and every membrane target ratio ρ = L/ℓ counts
	// only beyond it (c ↦ max{c − c_min, 0}, ρ ↦ ρ·(1 − c_min)),
	// so the few-per-mille compressions that a hanging FEM cloth shows
	// almost everywhere give no ripples, and a fold still starts at zero
	// amplitude (continuously) once c passes c_min. [0, 0.5).
	Slack float64
	// Seed is the size of the imperfection that makes the locus of minima
	// continuous, in fine edge lengths: the linear term −Σ g_i·d_i with
	// g_i = Seed·h̄·K·c_i·a_i·φ_i (see doc.go). 0 gives the unperturbed
	// energy, whose Gauss–Newton iteration cannot leave d = 0 on a flat
	// sheet. ≥ 0.
	Seed float64

	MaxIter   int     // Gauss–Newton iterations per Update, ≥ 1
	MaxCG     int     // conjugate-gradient iterations per linear solve, ≥ 1
	Tolerance float64 // stop when the Gauss–Newton decrement ½·gᵀH⁻¹g falls below Tolerance × the energy scale; (0, 1)
	CGTol     float64 // relative residual at which a CG solve stops; (0, 1)
	WarmStart bool    // start from the previous frame's d (false: from 0 every frame)
	// TimeLimit bounds an Update's wall time for an interactive caller:
	// no Gauss–Newton iteration after the first starts if the last one's
	// duration would carry it past TimeLimit from the Update's start. The
	// warm start carries what is left over to the next frame, as it does
	// for the iteration budget. 0: no limit (the result then depends on
	// the input only, not on the machine's speed). ≥ 0.
	TimeLimit time.Duration
}

// DefaultParams returns the settings for the viewer: level 1, the face
// energy (on the gathered curtain it shows the coarse edges far less than
// the thesis's edge energy, see doc.go), and a budget of 4 Gauss–Newton
// iterations of at most 12 CG iterations per frame: the warm start carries
// the rest of the convergence over the following frames. Raise MaxIter and
// MaxCG for single converged frames (exports).
//
// The budget was 4 × 25. Measured from the same warm start against a tight
// solve of the same frame (CGTol 10⁻⁶, Tolerance 10⁻⁹, up to 200 × 400
// iterations), on 15 frames of the gathering adaptive curtain at 30 fps
// (level 1, 9,000–10,000 triangles) and 19 of the 2,000-triangle curtain
// (level 2), the 99th percentile of the distance |x − x_tight| over the
// fine points is, as the median over the frames, 0.061 h̄ against 0.055 h̄
// with 25 (h̄ the mean fine edge, 15 and 18 mm: about 1 mm, under half a
// pixel of a 2.5 m curtain drawn 1,000 pixels wide) and 0.050 h̄ against
// 0.050 h̄, for 48 instead of 63–74 CG iterations per frame. With 10 the
// level-1 figure grew to 0.087 h̄, with 3 × 15 to 0.090 h̄. The largest
// distances, 0.5–1.5 h̄ with either budget, are a few points of folds
// still moving towards the tight solution. A stop once a step moves no
// point visibly (by more than 0.05 h̄) saved a CG solve per frame only on
// a cloth at rest, and broke buckling from d = 0, whose first, seed-driven
// step is always small (Example and TestLocalBuckle failed): the budget
// and Tolerance stay the only stopping rules.
func DefaultParams() Params {
	return Params{
		Level:      1,
		Energy:     FaceEnergy,
		Stretch:    50,
		Wavelength: 6,
		Floor:      0.02,
		Slack:      0.01,
		Seed:       0.02,
		MaxIter:    4,
		MaxCG:      12,
		Tolerance:  1e-4,
		CGTol:      1e-2,
		WarmStart:  true,
	}
}

// ViewerTimeLimit is the TimeLimit the viewer's detail worker gives an
// Update: a frame at 30 fps (33 ms) less the output's millisecond and a
// margin for an iteration that runs longer than the last one.
//
// Measured at level 1 on the gathered adaptive curtain (10,000
// triangles) as the worker gets it beside the running simulation
// (BenchmarkWhileSimulating, live, 2 cores, 2026-11-26): the median Update
// took 21.9–26.2 ms over 22 runs, against 25.0–34.4 ms without the limit
// (8 runs taking turns with them); the 90th percentile 26–43 ms (at most
// 30 ms in 15 runs) against 35–54 ms. The limit stopped 40–100 % of the
// Updates after 1–3 of the 4 iterations; those that rebuilt the fine
// topology (13–20 %) stopped after the first and make the 90th
// percentile, the rebuild with the active set alone taking 17–30 ms
// there. What it costs the surface (BenchmarkTimeLimitAccuracy):
// replaying the same Updates to convergence, the 99th percentile over the
// fine points of |d − d_converged| was, as the median over the Updates,
// 0.20–0.28 h̄ with the limit against 0.25 h̄ with the full iteration
// budget (4 runs; h̄ = 14 mm, the mean fine edge): within the spread
// between runs, the budget's own distance being mostly folds that settle
// over a few frames. Limits of 20, 28 and 30 ms measured the same in
// accuracy (0.23–0.26 h̄; two runs each of a scratch copy of that
// benchmark).
const ViewerTimeLimit = 25 * time.Millisecond

// Validate reports the first setting out of range.
func (p Params) Validate() error {
	switch {
	case p.Level < 1 || p.Level > MaxLevel:
		return fmt.Errorf("detail: Level %d outside [1, %d]", p.Level, MaxLevel)
	case p.Energy != EdgeEnergy && p.Energy != FaceEnergy:
		return fmt.Errorf("detail: unknown Energy %v", p.Energy)
	case !(p.Stretch > 0) || math.IsInf(p.Stretch, 0):
		return fmt.Errorf("detail: Stretch %g must be positive and finite", p.Stretch)
	case !(p.Wavelength >= 2) || math.IsInf(p.Wavelength, 0):
		return fmt.Errorf("detail: Wavelength %g must be at least 2 fine edges", p.Wavelength)
	case !(p.Floor >= 0) || math.IsInf(p.Floor, 0):
		return fmt.Errorf("detail: Floor %g must be non-negative and finite", p.Floor)
	case !(p.Seed >= 0) || math.IsInf(p.Seed, 0):
		return fmt.Errorf("detail: Seed %g must be non-negative and finite", p.Seed)
	case !(p.Slack >= 0 && p.Slack < 0.5):
		return fmt.Errorf("detail: Slack %g outside [0, 0.5)", p.Slack)
	case p.MaxIter < 1:
		return fmt.Errorf("detail: MaxIter %d must be at least 1", p.MaxIter)
	case p.MaxCG < 1:
		return fmt.Errorf("detail: MaxCG %d must be at least 1", p.MaxCG)
	case !(p.Tolerance > 0 && p.Tolerance < 1):
		return fmt.Errorf("detail: Tolerance %g outside (0, 1)", p.Tolerance)
	case !(p.CGTol > 0 && p.CGTol < 1):
		return fmt.Errorf("detail: CGTol %g outside (0, 1)", p.CGTol)
	case p.TimeLimit < 0:
		return fmt.Errorf("detail: TimeLimit %v must not be negative", p.TimeLimit)
	}
	return nil
}

// Stats describes one Update.
type Stats struct {
	Level        int
	Coarse       int     // coarse faces
	FinePoints   int     // fine vertices
	FineTris     int     // fine faces
	Rebuilt      bool    // the fine topology was rebuilt (coarse faces changed)
	Carried      int     // fine points whose d was carried over from the previous frame
	Iterations   int     // Gauss–Newton iterations taken
	TimedOut     bool    // Params.TimeLimit stopped the Gauss–Newton iteration
	CGIterations int     // conjugate-gradient iterations, all solves together
	Backtracks   int     // step halvings in the line searches
	Energy0      float64 // energy at the start d, J
	Energy       float64 // energy at the result, J
	MaxD         float64 // max |d_i|, m
	Compressed   int     // coarse faces with compression c > 0
	Active       int     // fine points the solve could move (folds and 3 rings around)
	Cleared      int     // fine points whose displacement an obstacle scaled back
	Time         time.Duration
}

// Detailer turns coarse cloth frames into detailed surfaces (Tsiknis ch. 3).
// It keeps the fine topology and the displacements between calls, for the
// warm start. It is not safe for concurrent use; run one per goroutine.
type Detailer struct {
	p     Params
	t     topo
	spare topo // the previous topology's storage, reused by the next rebuild
	have  bool // t and d belong to the previous frame

	// per frame
	x, n   []geom.Vec3 // fine Loop positions and normals
	tmp    []geom.Vec3
	comp   []float64      // coarse compression c_f = max{1 − σ_min(F), 0}
	fcol   [][2]geom.Vec3 // coarse deformation gradient F (columns)
	c, w   []float64      // fine point compression c_i and weight c_i + c₀
	g      []float64      // seed force g_i
	rowT   []float64      // membrane target lengths T_r, m (rows in memRows)
	rowW   []float64      // membrane weights κ_e/L_r, J/m² (rows in memRows)
	rowR   []float64      // residual T_r − S_r(d) (0 when inactive)
	rowL   []float64      // EdgeEnergy: chord ℓ_c of each coarse edge, m
	kf     float64        // foundation stiffness K, J/m⁴
	scaleE float64        // energy scale for the stopping test, J
	d      []float64      // d_i of every fine point, m (kept for the warm start)

	// warm start across topology changes
	oldKeys map[[2]uint64]float64

	trace     func(e float64) // tests: called with E after every accepted step
	allActive bool            // tests: solve on every point

	sys system // the active set's linear algebra (solve.go)
}

// NewDetailer returns a detailer with parameters p. Invalid parameters are
// reported by every Update (see Params.Validate).
func NewDetailer(p Params) *Detailer {
	return &Detailer{p: p}
}

// SetParams replaces the parameters; a change of Level or Energy rebuilds
// the fine mesh on the next Update (d is carried over by material
// position where points coincide).
func (d *Detailer) SetParams(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	d.p = p
	return nil
}

// Params returns the parameters in force.
func (d *Detailer) Params() Params { return d.p }

// Reset forgets the previous frame: the next Update starts from d = 0.
func (d *Detailer) Reset() {
	d.have = false
	clear(d.d)
}

// D returns the displacement d_i of every fine point of the last Update, m
// (valid until the next Update).
func (d *Detailer) D() []float64 { return d.d[:d.t.nf] }

// Mapping returns, for every fine point of the last Update, the coarse face
// it lies in and its barycentric coordinates there (the point of the
// coarse parameter domain that Loop subdivision maps to it). Valid until the
// next Update.
func (d *Detailer) Mapping() (face []int32, bary [][3]float64) {
	d.t.mapping()
	return d.t.mFace, d.t.mBary
}

func checkFrame(f *Frame) error {
	if f == nil {
		return errors.New("detail: nil frame")
	}
	if len(f.Rest) != len(f.Pos) {
		return fmt.Errorf("detail: %d rest coordinates for %d positions", len(f.Rest), len(f.Pos))
	}
	for k, o := range f.Obstacles {
		if o.SignedDistance == nil {
			return fmt.Errorf("detail: obstacle %d has no signed distance", k)
		}
		if !(o.Lo.X <= o.Hi.X && o.Lo.Y <= o.Hi.Y && o.Lo.Z <= o.Hi.Z) {
			return fmt.Errorf("detail: obstacle %d has empty or undefined bounds", k)
		}
	}
	if len(f.Tris) == 0 {
		return errors.New("detail: frame has no faces")
	}
	for i, p := range f.Pos {
		if !p.IsFinite() || math.IsNaN(f.Rest[i].X+f.Rest[i].Y) || math.IsInf(f.Rest[i].X+f.Rest[i].Y, 0) {
			return fmt.Errorf("detail: vertex %d is not finite", i)
		}
	}
	if err := checkFaces(len(f.Pos), f.Tris); err != nil {
		return err
	}
	for i, t := range f.Tris {
		if !(geom.RestArea(f.Rest[t[0]], f.Rest[t[1]], f.Rest[t[2]]) > 0) {
			return fmt.Errorf("detail: face %d has no positive rest area", i)
		}
	}
	return nil
}

// Update subdivides f, displaces the fine points along their normals to a
// minimum of the detail energy (Tsiknis eq. 3.1–3.2 with the changes in
// doc.go) by Gauss–Newton, and writes the detailed surface to dst. It
// starts from the previous frame's d (Params.WarmStart). Bad input returns
// an error and leaves the detailer's state as it was.
func (d *Detailer) Update(f *Frame, dst *Surface) (Stats, error) {
	start := time.Now()
	var st Stats
	if err := d.p.Validate(); err != nil {
		return st, err
	}
	if err := checkFrame(f); err != nil {
		return st, err
	}
	level := d.p.Level
	if f.Level != 0 {
		if f.Level < 1 || f.Level > MaxLevel {
			return st, fmt.Errorf("detail: frame Level %d outside [1, %d]", f.Level, MaxLevel)
		}
		level = f.Level
	}
	if !d.have || !d.t.sameInput(f, level, d.p.Energy) {
		// Keys of the old fine points, for the warm start.
		if d.have && d.p.WarmStart {
			if d.oldKeys == nil {
				d.oldKeys = make(map[[2]uint64]float64, d.t.nf)
			}
			clear(d.oldKeys)
			for i, r := range d.t.fRest {
				if d.d[i] != 0 {
					d.oldKeys[restKey(r)] = d.d[i]
				}
			}
		}
		// Build into the spare topology (reusing its storage), so that an
		// error leaves the current one in place.
		if err := buildTopo(&d.spare, f, level, d.p.Energy, d.p.Wavelength); err != nil {
			return st, err
		}
		hadOld := d.have && d.p.WarmStart
		d.t, d.spare = d.spare, d.t
		d.resize()
		clear(d.d)
		if hadOld {
			for i, r := range d.t.fRest {
				if v, ok := d.oldKeys[restKey(r)]; ok {
					d.d[i] = v
					st.Carried++
				}
			}
		}
		st.Rebuilt = true
	} else if d.p.WarmStart {
		st.Carried = d.t.nf
	} else {
		clear(d.d)
	}
	d.have = true
	t := &d.t
	st.Level, st.Coarse, st.FinePoints, st.FineTris = level, len(f.Tris), t.nf, len(t.fine)

	d.prepare(f)
	for _, c := range d.comp {
		if c > 0 {
			st.Compressed++
		}
	}
	d.solve(&st, start)
	st.Cleared = d.clear(f.Obstacles)

	// Output.
	nf := t.nf
	dst.Pos = buf.Grow(dst.Pos, nf)
	dst.Normal = buf.Grow(dst.Normal, nf)
	for i := 0; i < nf; i++ {
		dst.Pos[i] = d.x[i].Add(d.n[i].Scale(d.d[i]))
		st.MaxD = math.Max(st.MaxD, math.Abs(d.d[i]))
	}
	areaNormals(dst.Pos, t.fine, dst.Normal)
	dst.Tris = append(dst.Tris[:0], t.fine...)
	st.Time = time.Since(start)
	return st, nil
}

func (d *Detailer) resize() {
	t := &d.t
	nf, nr := t.nf, len(t.rowPtr)-1
	d.x = buf.Grow(d.x, nf)
	d.n = buf.Grow(d.n, nf)
	d.c = buf.Grow(d.c, nf)
	d.w = buf.Grow(d.w, nf)
	d.g = buf.Grow(d.g, nf)
	d.d = buf.Grow(d.d, nf)
	d.rowT = buf.Grow(d.rowT, nr)
	d.rowW = buf.Grow(d.rowW, nr)
	d.rowR = buf.Grow(d.rowR, nr)
	d.comp = buf.Grow(d.comp, len(t.tris))
	d.fcol = buf.Grow(d.fcol, len(t.tris))
}

// prepare computes the fine Loop surface, its normals, the coarse
// compressions, the point weights and the seed; the membrane targets
// follow once the active set is known (membraneTargets).
func (d *Detailer) prepare(f *Frame) {
	t := &d.t
	p := d.p
	// Loop positions, level by level.
	src := f.Pos
	for l := range t.levels {
		L := &t.levels[l]
		var dst []geom.Vec3
		if (len(t.levels)-1-l)%2 == 0 {
			dst = d.x
		} else {
			d.tmp = buf.Grow(d.tmp, t.nf)
			dst = d.tmp
		}
		dst = dst[:L.op.rows()]
		L.op.apply3(dst, src)
		src = dst
	}
	areaNormals(d.x, t.fine, d.n)

	// Coarse deformation gradient F = D_s·D_m⁻¹ and compression
	// c = max{1 − σ_min − c_min, 0}, σ_min² the smaller eigenvalue of FᵀF
	// (eq. 3.2's max{−ε_c, 0} with ε_c = σ_min − 1, the strain along the
	// most compressed direction).
	for fi, tr := range t.tris {
		r0, r1, r2 := t.rest[tr[0]], t.rest[tr[1]], t.rest[tr[2]]
		x0, x1, x2 := f.Pos[tr[0]], f.Pos[tr[1]], f.Pos[tr[2]]
		a, b := r1.Sub(r0), r2.Sub(r0)
		det := a.X*b.Y - a.Y*b.X
		e1, e2 := x1.Sub(x0), x2.Sub(x0)
		// D_m⁻¹ = [b.Y −b.X; −a.Y a.X]/det
		fx := e1.Scale(b.Y / det).Add(e2.Scale(-a.Y / det))
		fy := e1.Scale(-b.X / det).Add(e2.Scale(a.X / det))
		d.fcol[fi] = [2]geom.Vec3{fx, fy}
		c11, c22, c12 := fx.Dot(fx), fy.Dot(fy), fx.Dot(fy)
		tr2 := (c11 + c22) / 2
		disc := math.Sqrt(math.Max((c11-c22)*(c11-c22)/4+c12*c12, 0))
		smin := math.Sqrt(math.Max(tr2-disc, 0))
		// Below 10⁻⁹ it is round-off of σ_min for an unstrained face,
		// which must give d = 0 exactly.
		if c := 1 - smin - p.Slack; c > 1e-9 {
			d.comp[fi] = c
		} else {
			d.comp[fi] = 0
		}
	}
	// Point compression: mean over the fine faces at the point, so a point
	// on a coarse edge or vertex averages its coarse faces (Tsiknis §3).
	clear(d.c)
	for c, tr := range t.fine {
		v := d.comp[t.faceOf[c]]
		d.c[tr[0]] += v
		d.c[tr[1]] += v
		d.c[tr[2]] += v
	}
	k := 2 * math.Pi / (p.Wavelength * t.hMean)
	d.kf = k * k * k * k // κ_bend = 1
	amp := p.Seed * t.hMean * d.kf
	for i := range d.c {
		d.c[i] /= t.ntri[i]
		d.w[i] = d.c[i] + p.Floor
		d.g[i] = 0
		if d.c[i] > 0 {
			d.g[i] = amp * d.c[i] * t.area[i] * t.seedPhi(i)
		}
	}

	// Chord lengths ℓ_c of the coarse edges, for the edge energy's targets
	// (membraneTargets).
	if p.Energy == EdgeEnergy {
		nr := len(t.rowPtr) - 1
		d.rowL = buf.Grow(d.rowL, nr)
		for r := range d.rowL {
			d.rowL[r] = f.Pos[t.rowA[r]].Sub(f.Pos[t.rowB[r]]).Norm()
		}
	}
}
