package detail

import (
	"errors"
	"fmt"
	"math"
	"time"

	"drape/sim/geom"
)

// MaxLevel is the deepest Loop subdivision Params.Level may ask for.
const MaxLevel = 3

// Frame is one coarse cloth mesh to detail: the simulation's live vertices
// and faces, compacted (vertex i at Pos[i], material coordinates Rest[i];
// Tris: 3 indices into Pos per face, counter-clockwise in Rest). Level, when
// in [1, MaxLevel], overrides Params.Level for this frame; 0 keeps it.
type Frame struct {
	Pos   []geom.Vec3
	Rest  []geom.Vec2
	Tris  [][3]int32
	Level int
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
}

// DefaultParams returns the settings for the viewer: level 1, the face
// energy (on the gathered curtain it shows the coarse edges far less than
// the thesis's edge energy: edge-artifact ratio 1.15 against 2.05, see
// doc.go), and a budget of 4 Gauss–Newton iterations of at most 25 CG
// iterations per frame: the warm start carries the rest of the convergence
// over the following frames (with it the curtain's length deficit is
// 0.0047 against 0.0043 converged). Raise MaxIter and MaxCG for single
// converged frames (exports).
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
		MaxCG:      25,
		Tolerance:  1e-4,
		CGTol:      1e-2,
		WarmStart:  true,
	}
}

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
	CGIterations int     // conjugate-gradient iterations, all solves together
	Backtracks   int     // step halvings in the line searches
	Energy0      float64 // energy at the start d, J
	Energy       float64 // energy at the result, J
	MaxD         float64 // max |d_i|, m
	Compressed   int     // coarse faces with compression c > 0
	Active       int     // fine points the solve could move (folds and 3 rings around)
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
	x, n      []geom.Vec3 // fine Loop positions and normals
	tmp       []geom.Vec3
	comp      []float64      // coarse compression c_f = max{1 − σ_min(F), 0}
	fcol      [][2]geom.Vec3 // coarse deformation gradient F (columns)
	c, w      []float64      // fine point compression c_i and weight c_i + c₀
	g         []float64      // seed force g_i
	rowT      []float64      // membrane target lengths T_r, m
	rowW      []float64      // membrane weights κ_e/L_r, J/m²
	rowR      []float64      // residual T_r − S_r(d) (0 when inactive)
	jac       []float64      // ∂S_r/∂d_j, aligned with t.rowIdx
	kf        float64        // foundation stiffness K, J/m⁴
	scaleE    float64        // energy scale for the stopping test, J
	d, dTry   []float64
	grad, stp []float64
	cgR, cgZ  []float64
	cgP, cgAp []float64
	diag      []float64
	lap       []float64 // Lap_i d scratch

	// warm start across topology changes
	oldKeys map[[2]uint64]float64

	trace     func(e float64) // tests: called with E after every accepted step
	allActive bool            // tests: solve on every point

	// active set of the current frame (activeSet)
	mark    []uint8
	act     []int32
	lapRows []int32
	memRows []int32
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
	return d.t.mFace, d.t.mBary
}

func checkFrame(f *Frame) error {
	if f == nil {
		return errors.New("detail: nil frame")
	}
	if len(f.Rest) != len(f.Pos) {
		return fmt.Errorf("detail: %d rest coordinates for %d positions", len(f.Rest), len(f.Pos))
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
	d.solve(&st)

	// Output.
	nf := t.nf
	dst.Pos = grow(dst.Pos, nf)
	dst.Normal = grow(dst.Normal, nf)
	for i := 0; i < nf; i++ {
		dst.Pos[i] = d.x[i].Add(d.n[i].Scale(d.d[i]))
		st.MaxD = math.Max(st.MaxD, math.Abs(d.d[i]))
	}
	areaNormals(dst.Pos, t.fine, dst.Normal)
	dst.Tris = append(dst.Tris[:0], t.fine...)
	st.Time = time.Since(start)
	return st, nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (d *Detailer) resize() {
	t := &d.t
	nf, nr := t.nf, len(t.rowPtr)-1
	d.x = grow(d.x, nf)
	d.n = grow(d.n, nf)
	d.c = grow(d.c, nf)
	d.w = grow(d.w, nf)
	d.g = grow(d.g, nf)
	d.d = grow(d.d, nf)
	d.dTry = grow(d.dTry, nf)
	d.grad = grow(d.grad, nf)
	d.stp = grow(d.stp, nf)
	d.cgR = grow(d.cgR, nf)
	d.cgZ = grow(d.cgZ, nf)
	d.cgP = grow(d.cgP, nf)
	d.cgAp = grow(d.cgAp, nf)
	d.diag = grow(d.diag, nf)
	d.lap = grow(d.lap, nf)
	d.rowT = grow(d.rowT, nr)
	d.rowW = grow(d.rowW, nr)
	d.rowR = grow(d.rowR, nr)
	d.jac = grow(d.jac, len(t.rowIdx))
	d.comp = grow(d.comp, len(t.tris))
	d.fcol = grow(d.fcol, len(t.tris))
}

// prepare computes the fine Loop surface, its normals, the coarse
// compressions, the point weights, the membrane targets and the seed.
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
			d.tmp = grow(d.tmp, t.nf)
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
		d.g[i] = amp * d.c[i] * t.area[i] * t.phi[i]
	}

	// Membrane targets and weights.
	ke := p.Stretch * k * k * t.cMean
	nr := len(t.rowPtr) - 1
	d.scaleE = 0
	for r := 0; r < nr; r++ {
		idx := t.rowIdx[t.rowPtr[r]:t.rowPtr[r+1]]
		s0 := 0.0
		for j := 1; j < len(idx); j++ {
			s0 += d.x[idx[j]].Sub(d.x[idx[j-1]]).Norm()
		}
		var target float64
		switch p.Energy {
		case EdgeEnergy:
			// T_c = L_c·S⁰_c/ℓ_c: the undisplaced Loop polyline S⁰ is
			// not the chord ℓ_c (Loop smooths even a sheet at rest), so
			// eq. 3.1's L_c is scaled by the same factor; at rest
			// (ℓ_c = L_c) the target is S⁰ and d = 0 is a minimum.
			lc := f.Pos[t.rowA[r]].Sub(f.Pos[t.rowB[r]]).Norm()
			if lc > 0 {
				target = s0 * t.rowRest[r] / lc * (1 - p.Slack)
			} else {
				target = s0
			}
			d.rowW[r] = ke / t.rowRest[r]
		case FaceEnergy:
			// T_e = S⁰_e/λ_e with λ_e = |F·t̂_e| the stretch of the
			// coarse face(s) along the fine edge's material direction.
			lam, nfc := 0.0, 0
			for _, fc := range t.rowFace[r] {
				if fc >= 0 {
					fc2 := d.fcol[fc]
					dir := t.rowDir[r]
					lam += fc2[0].Scale(dir.X).Add(fc2[1].Scale(dir.Y)).Norm()
					nfc++
				}
			}
			lam /= float64(nfc)
			target = s0 * (1 - p.Slack) / math.Max(lam, 0.05)
			// Per fine edge ½(κ/ℓ)δ²: scaled by 2^−L so the total matches
			// the edge energy's per coarse edge.
			d.rowW[r] = ke / t.rowRest[r] / float64(int(1)<<t.level)
		}
		// Shorten by a relative 10⁻⁹ so that round-off in T for an
		// unstrained edge (ℓ_c ≠ L_c in the last bit) does not drive d.
		target *= 1 - 1e-9
		d.rowT[r] = target
		if df := target - s0; df > 0 {
			d.scaleE += 0.5 * d.rowW[r] * df * df
		}
	}
}

// activeSet marks the fine points the solve may move: those with
// compression (c_i > 0) or a displacement |d_i| > activeSmall·h̄, and
// activeRings rings of neighbours around them; all other points get d = 0
// (a step of at most 1 % of a fine edge, where a fold's tail has decayed). It lists the
// active points, the bending rows and the membrane rows that touch them,
// so that every product and energy below runs over the folds only.
// Outside the set, d = 0, c = 0 and the membrane rows are inactive
// (a row with T_r > S⁰_r lies in a compressed face), so the energy left
// out there is exactly 0. The set grows with the fold from frame to frame,
// as a displaced point is active in the next frame.
func (d *Detailer) activeSet() {
	t := &d.t
	n := t.nf
	d.mark = grow(d.mark, n)
	clear(d.mark)
	small := activeSmall * t.hMean
	for i := 0; i < n; i++ {
		if d.c[i] > 0 || math.Abs(d.d[i]) > small || d.allActive {
			d.mark[i] = 1
		}
	}
	for ring := 1; ring <= activeRings; ring++ {
		for i := 0; i < n; i++ {
			if d.mark[i] != uint8(ring) {
				continue
			}
			for k := t.lapPtr[i]; k < t.lapPtr[i+1]; k++ {
				if j := t.lapIdx[k]; d.mark[j] == 0 {
					d.mark[j] = uint8(ring + 1)
				}
			}
		}
	}
	d.act = d.act[:0]
	for i := 0; i < n; i++ {
		if d.mark[i] != 0 {
			d.act = append(d.act, int32(i))
		} else {
			d.d[i] = 0
		}
	}
	d.lapRows = d.lapRows[:0]
	for i := 0; i < n; i++ {
		touch := d.mark[i] != 0
		for k := t.lapPtr[i]; k < t.lapPtr[i+1] && !touch; k++ {
			touch = d.mark[t.lapIdx[k]] != 0
		}
		if touch && t.lapPtr[i+1] > t.lapPtr[i] {
			d.lapRows = append(d.lapRows, int32(i))
		}
	}
	d.memRows = d.memRows[:0]
	nr := len(t.rowPtr) - 1
	for r := 0; r < nr; r++ {
		for k := t.rowPtr[r]; k < t.rowPtr[r+1]; k++ {
			if d.mark[t.rowIdx[k]] != 0 {
				d.memRows = append(d.memRows, int32(r))
				break
			}
		}
	}
	clear(d.rowR)
	clear(d.dTry[:n])
	clear(d.stp[:n])
}

// activeRings is how many rings of neighbours around the driven points
// the solve may move (the bending stencil couples a point to its 1-ring,
// the bending energy to its 2-ring).
const activeRings = 3

// activeSmall is the displacement, in mean fine edge lengths, below which
// an uncompressed point does not hold the active set open. Without it the
// tails of the folds (d ≠ 0 but tiny) spread the set by three rings every
// frame, and on the curtain it covered the whole cloth within 10 frames.
const activeSmall = 0.01

// energy returns E(dv) and, when jac is set, fills rowR and jac, over the
// active set (see activeSet):
//
//	E = ½ Σ_r w_r·max{T_r − S_r(d), 0}²         membrane (eq. 3.1)
//	  + ½ Σ_i w_i·a_i·(Lap_i d)²                bending (eq. 3.2)
//	  + ½ K Σ_i w_i·a_i·d_i²                     foundation
//	  − Σ_i g_i·d_i                              seed
func (d *Detailer) energy(dv []float64, jac bool) float64 {
	t := &d.t
	e := 0.0
	for _, r := range d.memRows {
		lo, hi := t.rowPtr[r], t.rowPtr[r+1]
		idx := t.rowIdx[lo:hi]
		s := 0.0
		var uPrev geom.Vec3
		pPrev := d.x[idx[0]].Add(d.n[idx[0]].Scale(dv[idx[0]]))
		for j := 1; j < len(idx); j++ {
			q := d.x[idx[j]].Add(d.n[idx[j]].Scale(dv[idx[j]]))
			seg := q.Sub(pPrev)
			l := seg.Norm()
			s += l
			if jac {
				var u geom.Vec3
				if l > 0 {
					u = seg.Scale(1 / l)
				}
				// ∂S/∂d_{j−1} gets −u·n_{j−1} from this segment.
				d.jac[int(lo)+j-1] = d.n[idx[j-1]].Dot(uPrev.Sub(u))
				uPrev = u
			}
			pPrev = q
		}
		if jac {
			d.jac[hi-1] = d.n[idx[len(idx)-1]].Dot(uPrev)
		}
		res := d.rowT[r] - s
		if res < 0 {
			res = 0
		}
		if jac {
			d.rowR[r] = res
		}
		e += 0.5 * d.rowW[r] * res * res
	}
	for _, i := range d.lapRows {
		lp := 0.0
		for k := t.lapPtr[i]; k < t.lapPtr[i+1]; k++ {
			lp += t.lapW[k] * dv[t.lapIdx[k]]
		}
		e += 0.5 * d.w[i] * t.area[i] * lp * lp
	}
	for _, i := range d.act {
		wa := d.w[i] * t.area[i]
		e += 0.5*d.kf*wa*dv[i]*dv[i] - d.g[i]*dv[i]
	}
	return e
}

// gradient writes ∇E at the active points, at the point energy(·, true)
// was last called with.
func (d *Detailer) gradient(dv, out []float64) {
	t := &d.t
	for _, i := range d.act {
		out[i] = d.kf*d.w[i]*t.area[i]*dv[i] - d.g[i]
	}
	d.bendApply(dv, out)
	for _, r := range d.memRows {
		res := d.rowR[r]
		if res == 0 {
			continue
		}
		s := -d.rowW[r] * res
		for k := t.rowPtr[r]; k < t.rowPtr[r+1]; k++ {
			out[t.rowIdx[k]] += s * d.jac[k]
		}
	}
}

// bendApply adds Lᵀ·diag(w·a)·L·v to out (entries outside the active set
// receive garbage and are never read).
func (d *Detailer) bendApply(v, out []float64) {
	t := &d.t
	for _, i := range d.lapRows {
		lp := 0.0
		for k := t.lapPtr[i]; k < t.lapPtr[i+1]; k++ {
			lp += t.lapW[k] * v[t.lapIdx[k]]
		}
		lp *= d.w[i] * t.area[i]
		for k := t.lapPtr[i]; k < t.lapPtr[i+1]; k++ {
			out[t.lapIdx[k]] += t.lapW[k] * lp
		}
	}
}

// gnApply writes H·v at the active points, with the Gauss–Newton matrix
// H = Σ_r w_r·J_rᵀJ_r (active rows) + Lᵀ·diag(w·a)·L + K·diag(w·a),
// positive definite when c₀ > 0. v must be 0 outside the active set.
func (d *Detailer) gnApply(v, out []float64) {
	t := &d.t
	for _, i := range d.act {
		out[i] = d.kf * d.w[i] * t.area[i] * v[i]
	}
	d.bendApply(v, out)
	for _, r := range d.memRows {
		if d.rowR[r] == 0 {
			continue
		}
		lo, hi := t.rowPtr[r], t.rowPtr[r+1]
		s := 0.0
		for k := lo; k < hi; k++ {
			s += d.jac[k] * v[t.rowIdx[k]]
		}
		s *= d.rowW[r]
		for k := lo; k < hi; k++ {
			out[t.rowIdx[k]] += s * d.jac[k]
		}
	}
}

func (d *Detailer) gnDiag() {
	t := &d.t
	for _, i := range d.act {
		d.diag[i] = d.kf * d.w[i] * t.area[i]
	}
	for _, i := range d.lapRows {
		wa := d.w[i] * t.area[i]
		for k := t.lapPtr[i]; k < t.lapPtr[i+1]; k++ {
			d.diag[t.lapIdx[k]] += wa * t.lapW[k] * t.lapW[k]
		}
	}
	for _, r := range d.memRows {
		if d.rowR[r] == 0 {
			continue
		}
		for k := t.rowPtr[r]; k < t.rowPtr[r+1]; k++ {
			d.diag[t.rowIdx[k]] += d.rowW[r] * d.jac[k] * d.jac[k]
		}
	}
	for _, i := range d.act {
		if !(d.diag[i] > 0) {
			d.diag[i] = 1
		}
	}
}

// cg solves H·x = b on the active set by Jacobi-preconditioned conjugate
// gradients from x = 0, at most maxIt iterations, until |r| ≤ tol·|b|. It
// returns the iterations taken. x is 0 outside the active set.
func (d *Detailer) cg(b, x []float64, maxIt int, tol float64) int {
	n := d.t.nf
	r, z, p, ap := d.cgR[:n], d.cgZ[:n], d.cgP[:n], d.cgAp[:n]
	clear(x[:n])
	clear(p)
	bn := 0.0
	for _, i := range d.act {
		r[i] = b[i]
		bn += b[i] * b[i]
	}
	if bn == 0 {
		return 0
	}
	rz := 0.0
	for _, i := range d.act {
		z[i] = r[i] / d.diag[i]
		p[i] = z[i]
		rz += r[i] * z[i]
	}
	it := 0
	for it < maxIt {
		it++
		d.gnApply(p, ap)
		pap := 0.0
		for _, i := range d.act {
			pap += p[i] * ap[i]
		}
		if !(pap > 0) {
			break
		}
		a := rz / pap
		rr := 0.0
		for _, i := range d.act {
			x[i] += a * p[i]
			r[i] -= a * ap[i]
			rr += r[i] * r[i]
		}
		if rr <= tol*tol*bn {
			break
		}
		rz2 := 0.0
		for _, i := range d.act {
			z[i] = r[i] / d.diag[i]
			rz2 += r[i] * z[i]
		}
		beta := rz2 / rz
		rz = rz2
		for _, i := range d.act {
			p[i] = z[i] + beta*p[i]
		}
	}
	return it
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// solve runs Gauss–Newton from d.d (Tsiknis §3) on the active set:
// linearise the membrane residuals, solve H·δ = −∇E by CG, and backtrack
// along δ (halving, up to 20 times) until the Armijo condition
// E(d + αδ) ≤ E(d) + 10⁻⁴·α·∇Eᵀδ holds; from the second iteration on, stop
// when the decrement −½∇Eᵀδ is below Tolerance × the energy scale (the
// membrane energy of d = 0 plus the current bending and foundation
// energy), or when no step lowers E.
func (d *Detailer) solve(st *Stats) {
	p := d.p
	d.activeSet()
	st.Active = len(d.act)
	e := d.energy(d.d, true)
	st.Energy0 = e
	for it := 0; it < p.MaxIter && len(d.act) > 0; it++ {
		d.gradient(d.d, d.grad)
		d.gnDiag()
		for _, i := range d.act {
			d.grad[i] = -d.grad[i]
		}
		st.CGIterations += d.cg(d.grad, d.stp, p.MaxCG, p.CGTol)
		slope := 0.0 // ∇Eᵀδ
		for _, i := range d.act {
			slope -= d.grad[i] * d.stp[i]
		}
		if !(slope < 0) {
			break
		}
		scale := d.scaleE + math.Abs(e-d.membraneOnly())
		// The first step is always taken: at d = 0 on a flat sheet the
		// membrane Jacobian vanishes and only the seed drives the step,
		// so the decrement says nothing about how far the minimum is.
		if it > 0 && -0.5*slope <= p.Tolerance*scale {
			break
		}
		st.Iterations++
		alpha := 1.0
		accepted := false
		for k := 0; k < 20; k++ {
			for _, i := range d.act {
				d.dTry[i] = d.d[i] + alpha*d.stp[i]
			}
			et := d.energy(d.dTry, false)
			if et <= e+1e-4*alpha*slope {
				// Swap buffers; both are 0 outside the active set.
				d.d, d.dTry = d.dTry, d.d
				e = d.energy(d.d, true)
				accepted = true
				if d.trace != nil {
					d.trace(e)
				}
				break
			}
			alpha /= 2
			st.Backtracks++
		}
		if !accepted {
			break
		}
	}
	st.Energy = e
}

// membraneOnly returns the membrane part of E at the last energy(·, true).
func (d *Detailer) membraneOnly() float64 {
	s := 0.0
	for _, r := range d.memRows {
		res := d.rowR[r]
		s += 0.5 * d.rowW[r] * res * res
	}
	return s
}
