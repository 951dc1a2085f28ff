package springs

import (
	"errors"
	"fmt"
	"math"

	"drape/sim/geom"
)

// Particle types of Olson & Rudnick §3.1. A slot of the dense grid that
// holds no particle ("None" in the paper) has no ID; an ID whose particle
// coarsening removed has type None until a new particle reuses it.
const (
	Active       uint8 = iota // simulated
	Fixed                     // pinned: exerts and receives spring forces but does not move by them
	Interpolated              // follows the midpoint of its two parents; massless
	None                      // a free ID: no slot, no mass, no springs
)

// Spring kinds (§3.2, Provot 2001).
const (
	structural uint8 = iota // ±1 along an axis, at the particle's spacing
	shear                   // ±1 along both axes
	bend                    // ±2 along an axis
)

// ErrUnstable is wrapped by the error Step returns when the explicit
// integration blows up (a NaN, an Inf or a particle faster than speedLimit).
var ErrUnstable = errors.New("spring cloth became unstable")

// speedLimit is the speed, m/s, above which a step counts as a blow-up (the
// FEM cloth uses the same figure).
const speedLimit = 200

// Variant selects how a scene subdivides (the three columns of Olson &
// Rudnick's fig. 6).
type Variant uint8

const (
	NoSubdivision      Variant = iota // the base grid only
	UniformSubdivision                // every particle subdivided to Params.MaxLayer at New
	DynamicSubdivision                // subdivided by the criteria of §4.2–4.3 while running
)

// ObstacleKind is the shape of an Obstacle.
type ObstacleKind uint8

const (
	Table ObstacleKind = iota + 1 // axis-aligned box: Center, half extents Size
	Pole                          // vertical cylinder (along Y): axis through Center, radius Size.X, top at Center.Y, infinitely deep
)

// Obstacle is a static solid the particles are projected out of after
// every update (see project): a stand-in until the contact package
// handles the spring cloth.
type Obstacle struct {
	Kind   ObstacleKind
	Center geom.Vec3 // m
	Size   geom.Vec3 // m: half extents (Table) or radius in X (Pole)
}

// Spec describes a cloth: a regular grid of NX×NY base particles spanning
// the parallelogram Origin + s·U + t·V (s, t ∈ [0, 1]), the fixed base
// particles, the subdivision variant and obstacles.
type Spec struct {
	Name      string
	NX, NY    int         // base particles along U and V, each ≥ 2
	Origin    geom.Vec3   // position of base particle (0, 0), m
	U, V      geom.Vec3   // edges of the sheet: particle (NX−1, 0) is at Origin+U, m
	Fixed     [][2]int    // base-grid (i, j) of the fixed particles
	Targets   []geom.Vec3 // where each fixed particle is held (and starts), m; its rest position stays on the grid; nil: at its original position
	Variant   Variant
	Obstacles []Obstacle
}

// Cloth is the mass-spring cloth with dynamic subdivision.
//
// Particles are stored as structures of arrays indexed by a particle ID that
// never changes while the particle lives; coarsening frees IDs (type None)
// and the next new particles reuse them, last freed first. The base
// particles, which coarsening never removes, keep the IDs 0…NX·NY−1. The
// dense grid maps each slot
// (i, j), 0 ≤ i < W, to an ID or −1. The dense grid represents depth m: a
// base particle (bi, bj) sits at slot (bi·2^m, bj·2^m), and a particle of
// layer l has its neighbours 2^(m−l) slots away (§3.2). The step never
// walks the dense grid; it walks the per-layer particle and spring lists,
// so its cost grows with the number of particles and springs only.
type Cloth struct {
	spec Spec
	p    Params

	// per particle, by ID
	pos, vel, rest []geom.Vec3 // m, m/s, m (rest: the original, material position)
	mass           []float64   // kg; 0 for interpolated particles
	typ            []uint8
	layer          []uint8
	sched          []uint8    // integration layer: 2^sched substeps per step (see rebuild)
	viewL          []uint8    // layer of the particle's springs: its layer, or finer where the finer grid surrounds it (viewLayers)
	gi, gj         []int32    // slot in the dense grid
	par            [][2]int32 // parents of an interpolated particle, else {-1,-1}
	target         []geom.Vec3
	split          []int64 // step at which the particle was last subdivided (+1)
	quiet          []int32 // checks in a row in which its criteria stayed below CoarsenFraction·θ (see coarsen)
	free           []int32 // IDs of type None, reused last first

	m    int // depth the dense grid represents
	w, h int // dense grid size
	slot []int32

	hx, hy float64 // base spacing along U and V (rest), m

	// lists rebuilt after a subdivision
	act    [][]int32 // active particles by schedule
	interp []int32   // interpolated particles by layer, then ID (parents before children)
	spr    []springSet
	views  []view // scratch of rebuild
	deep   int    // deepest layer of an active particle or a spring schedule

	drag struct {
		on     bool
		id     int32
		target geom.Vec3
	}

	t     float64
	steps int

	ord    stepOrder // the step's copy of the particles (rebuild)
	stable float64   // cached StableStep, 0 when stale
}

// springSet holds the springs scheduled at one layer as structures of arrays.
type springSet struct {
	a, b []int32
	rest []float64 // m
	k    []float64 // N/m
	kind []uint8
}

func (s *springSet) add(a, b int32, rest, k float64, kind uint8) {
	s.a, s.b = append(s.a, a), append(s.b, b)
	s.rest, s.k, s.kind = append(s.rest, rest), append(s.k, k), append(s.kind, kind)
}

func (s *springSet) reset() {
	s.a, s.b, s.rest, s.k, s.kind = s.a[:0], s.b[:0], s.rest[:0], s.k[:0], s.kind[:0]
}

// view is one spring as eachSpring reports it: its ends, the layer and the
// kind of the view that owns it.
type view struct {
	a, b    int32
	l, kind uint8
}

// New builds a cloth from spec with parameters p. Base particles get the
// lumped masses ρ·hx·hy (halved on an edge, quartered at a corner). The
// uniform variant subdivides every particle to p.MaxLayer here.
func New(spec Spec, p Params) (*Cloth, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if spec.NX < 2 || spec.NY < 2 || spec.NX > 4096 || spec.NY > 4096 || spec.NX*spec.NY > 1<<20 {
		return nil, fmt.Errorf("springs: scene %q: grid %d×%d: need 2…4096 particles a side and at most 2^20 in all", spec.Name, spec.NX, spec.NY)
	}
	if !spec.Origin.IsFinite() || !spec.U.IsFinite() || !spec.V.IsFinite() {
		return nil, fmt.Errorf("springs: scene %q: origin or edges not finite", spec.Name)
	}
	c := &Cloth{spec: spec, p: p}
	c.hx = spec.U.Norm() / float64(spec.NX-1)
	c.hy = spec.V.Norm() / float64(spec.NY-1)
	if !(c.hx > 0) || !(c.hy > 0) || spec.U.Cross(spec.V).Norm() < 1e-9*c.hx*c.hy {
		return nil, fmt.Errorf("springs: scene %q: edges U and V must be non-zero and not parallel", spec.Name)
	}
	c.w, c.h = spec.NX, spec.NY
	c.slot = make([]int32, c.w*c.h)
	for j := 0; j < spec.NY; j++ {
		for i := 0; i < spec.NX; i++ {
			x := spec.Origin.Add(spec.U.Scale(float64(i) / float64(spec.NX-1))).Add(spec.V.Scale(float64(j) / float64(spec.NY-1)))
			mass := p.Density * c.hx * c.hy * edgeFactor(i, spec.NX) * edgeFactor(j, spec.NY)
			c.slot[j*c.w+i] = c.newParticle(Active, 0, int32(i), int32(j), x, geom.Vec3{}, x, mass, [2]int32{-1, -1})
		}
	}
	for _, f := range spec.Fixed {
		if f[0] < 0 || f[0] >= spec.NX || f[1] < 0 || f[1] >= spec.NY {
			return nil, fmt.Errorf("springs: scene %q: fixed particle (%d, %d) outside the %d×%d grid", spec.Name, f[0], f[1], spec.NX, spec.NY)
		}
		id := c.slot[f[1]*c.w+f[0]]
		c.typ[id] = Fixed
		c.target[id] = c.pos[id]
	}
	if spec.Targets != nil {
		if len(spec.Targets) != len(spec.Fixed) {
			return nil, fmt.Errorf("springs: scene %q: %d targets for %d fixed particles", spec.Name, len(spec.Targets), len(spec.Fixed))
		}
		for k, f := range spec.Fixed {
			if !spec.Targets[k].IsFinite() {
				return nil, fmt.Errorf("springs: scene %q: target %d not finite", spec.Name, k)
			}
			// start there: a jump at the first step would shock the
			// neighbours (and the uniform variant interpolates from here)
			id := c.slot[f[1]*c.w+f[0]]
			c.target[id], c.pos[id] = spec.Targets[k], spec.Targets[k]
		}
	}
	for _, o := range spec.Obstacles {
		if o.Kind != Table && o.Kind != Pole || !o.Center.IsFinite() || !o.Size.IsFinite() || o.Size.X <= 0 {
			return nil, fmt.Errorf("springs: scene %q: bad obstacle %+v", spec.Name, o)
		}
	}
	if spec.Variant == UniformSubdivision {
		c.SubdivideUniform(p.MaxLayer)
	}
	c.rebuild()
	return c, nil
}

func edgeFactor(i, n int) float64 {
	if i == 0 || i == n-1 {
		return 0.5
	}
	return 1
}

// newParticle returns the ID of a new particle at slot (i, j) (which the
// caller fills), the last freed ID if there is one.
func (c *Cloth) newParticle(t, l uint8, i, j int32, x, v, r geom.Vec3, mass float64, par [2]int32) int32 {
	var id int32
	if n := len(c.free); n > 0 {
		id, c.free = c.free[n-1], c.free[:n-1]
	} else {
		id = int32(len(c.pos))
		c.resize(len(c.pos) + 1)
	}
	c.pos[id], c.vel[id], c.rest[id] = x, v, r
	c.mass[id], c.typ[id], c.layer[id] = mass, t, l
	c.gi[id], c.gj[id], c.par[id] = i, j, par
	c.target[id] = x
	c.split[id], c.quiet[id] = 0, 0
	return id
}

// resize grows (with zero values) or truncates every per-particle array
// to n IDs.
func (c *Cloth) resize(n int) {
	c.pos, c.vel, c.rest = fit(c.pos, n), fit(c.vel, n), fit(c.rest, n)
	c.mass, c.typ, c.layer = fit(c.mass, n), fit(c.typ, n), fit(c.layer, n)
	c.gi, c.gj, c.par = fit(c.gi, n), fit(c.gj, n), fit(c.par, n)
	c.target = fit(c.target, n)
	c.split, c.quiet = fit(c.split, n), fit(c.quiet, n)
}

func fit[T any](s []T, n int) []T {
	if n <= len(s) {
		return s[:n]
	}
	return append(s, make([]T, n-len(s))...)
}

// massive reports whether particle id carries mass (active or fixed).
func (c *Cloth) massive(id int32) bool { return c.typ[id] == Active || c.typ[id] == Fixed }

// at returns the ID at slot (i, j), or −1 when the slot is empty or outside.
func (c *Cloth) at(i, j int32) int32 {
	if i < 0 || j < 0 || int(i) >= c.w || int(j) >= c.h {
		return -1
	}
	return c.slot[int(j)*c.w+int(i)]
}

// slotOf returns the index of particle id's slot in the dense grid.
func (c *Cloth) slotOf(id int32) int { return int(c.gj[id])*c.w + int(c.gi[id]) }

// spacing returns 2^(m−l), the slot distance of a layer-l particle's
// neighbours (§3.2).
func (c *Cloth) spacing(l uint8) int32 { return int32(1) << (c.m - int(l)) }

// Time returns the simulated time, s.
func (c *Cloth) Time() float64 { return c.t }

// Steps returns the number of animation steps taken.
func (c *Cloth) Steps() int { return c.steps }

// Params returns the parameters in force.
func (c *Cloth) Params() Params { return c.p }

// Spec returns the specification the cloth was built from.
func (c *Cloth) Spec() Spec { return c.spec }

// SetParams replaces the parameters; the spring constants are re-derived
// at once. A MaxLayer below the current depth stops further subdivision
// and leaves existing layers alone.
func (c *Cloth) SetParams(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	c.p = p
	c.rebuild()
	return nil
}

// Counts holds the number of particles of each type and the deepest layer.
type Counts struct {
	Active, Fixed, Interpolated int
	Springs                     int
	Depth                       int // deepest layer of any particle
}

// Counts returns the particle and spring counts.
func (c *Cloth) Counts() Counts {
	var n Counts
	for id, t := range c.typ {
		switch t {
		case Active:
			n.Active++
		case Fixed:
			n.Fixed++
		case Interpolated:
			n.Interpolated++
		default:
			continue
		}
		n.Depth = max(n.Depth, int(c.layer[id]))
	}
	for _, s := range c.spr {
		n.Springs += len(s.a)
	}
	return n
}

// Work is what one animation step costs at the current subdivision, in
// counts that do not depend on the machine.
type Work struct {
	ParticleSubsteps int // Σ 2^s over the active particles (each advances 2^s times, s its schedule)
	SpringSubsteps   int // Σ 2^s over the springs (each is evaluated 2^s times, s its schedule)
}

// Work returns the substeps of the particles and springs in one Step (see
// rebuild for the schedules).
func (c *Cloth) Work() Work {
	var w Work
	for l, ids := range c.act {
		w.ParticleSubsteps += len(ids) << l
	}
	for l := range c.spr {
		w.SpringSubsteps += len(c.spr[l].a) << l
	}
	return w
}

// Pos returns the position of particle id, m.
func (c *Cloth) Pos(id int) geom.Vec3 { return c.pos[id] }

// NumParticles returns the number of particle IDs (active, fixed,
// interpolated and free ones of type None).
func (c *Cloth) NumParticles() int { return len(c.pos) }

// Type returns the type of particle id (Active, Fixed, Interpolated or None).
func (c *Cloth) Type(id int) uint8 { return c.typ[id] }

// Layer returns the subdivision layer of particle id.
func (c *Cloth) Layer(id int) int { return int(c.layer[id]) }

// Mass returns the total mass, kg, and the centre of mass, m.
func (c *Cloth) Mass() (float64, geom.Vec3) {
	var m float64
	var x geom.Vec3
	for id, mi := range c.mass {
		m += mi
		x = x.Add(c.pos[id].Scale(mi))
	}
	return m, x.Scale(1 / m)
}

// Momentum returns the total linear momentum Σ m·v, kg·m/s.
func (c *Cloth) Momentum() geom.Vec3 {
	var q geom.Vec3
	for id, mi := range c.mass {
		q = q.Add(c.vel[id].Scale(mi))
	}
	return q
}

func (c *Cloth) checkID(id int) error {
	if id < 0 || id >= len(c.pos) {
		return fmt.Errorf("springs: particle %d does not exist (%d particles)", id, len(c.pos))
	}
	return nil
}

// Pin fixes particle id at target (m); a pinned particle jumps to its target
// at the start of the next step. Interpolated particles cannot be pinned.
func (c *Cloth) Pin(id int, target geom.Vec3) error {
	if err := c.checkID(id); err != nil {
		return err
	}
	if !target.IsFinite() {
		return fmt.Errorf("springs: pin target %v is not finite", target)
	}
	if !c.massive(int32(id)) {
		return fmt.Errorf("springs: particle %d is interpolated or removed and cannot be pinned", id)
	}
	if c.typ[id] != Fixed {
		c.typ[id] = Fixed
		c.vel[id] = geom.Vec3{}
		c.rebuild()
	}
	c.target[id] = target
	return nil
}

// Unpin frees particle id if it is fixed; anything else is a no-op.
func (c *Cloth) Unpin(id int) {
	if id < 0 || id >= len(c.pos) || c.typ[id] != Fixed {
		return
	}
	c.typ[id] = Active
	c.rebuild()
}

// Pinned reports whether particle id is fixed, and its target.
func (c *Cloth) Pinned(id int) (geom.Vec3, bool) {
	if id < 0 || id >= len(c.pos) || c.typ[id] != Fixed {
		return geom.Vec3{}, false
	}
	return c.target[id], true
}

// Drag pulls active particle id toward target (m) with a spring of
// stiffness Params.DragStiffness until Release. Dragging a fixed particle
// moves its pin instead.
func (c *Cloth) Drag(id int, target geom.Vec3) error {
	if err := c.checkID(id); err != nil {
		return err
	}
	if !target.IsFinite() {
		return fmt.Errorf("springs: drag target %v is not finite", target)
	}
	switch c.typ[id] {
	case Fixed:
		c.target[id] = target
		return nil
	case Interpolated, None:
		return fmt.Errorf("springs: particle %d is interpolated or removed and cannot be dragged", id)
	}
	c.drag.on, c.drag.id, c.drag.target = true, int32(id), target
	return nil
}

// Release ends a Drag.
func (c *Cloth) Release() { c.drag.on = false }

// StableStep returns the largest animation step Δt for which explicit
// integration is estimated to stay stable: min over particles of
// 2^s·√(2·m_i/Σ_j k_ij), s its schedule (Gershgorin's bound ω² ≤ 2·Σk/m on the particle's row,
// and Δ_l·ω < 2 for symplectic Euler), s. +Inf with no springs.
func (c *Cloth) StableStep() float64 {
	if c.stable > 0 {
		return c.stable
	}
	ksum := make([]float64, len(c.pos))
	for _, s := range c.spr {
		for n := range s.a {
			for _, e := range [2]int32{s.a[n], s.b[n]} {
				c.visitMass(e, 1, func(id int32, w float64) { ksum[id] += w * s.k[n] })
			}
		}
	}
	best := math.Inf(1)
	for l, ids := range c.act {
		for _, id := range ids {
			if ksum[id] > 0 {
				best = min(best, math.Exp2(float64(l))*math.Sqrt(2*c.mass[id]/ksum[id]))
			}
		}
	}
	c.stable = best
	return best
}

// visitMass calls f for each mass particle that particle id's position
// depends on, with its weight (an interpolated particle splits weight w
// half and half between its parents, recursively).
func (c *Cloth) visitMass(id int32, w float64, f func(id int32, w float64)) {
	if c.typ[id] != Interpolated {
		f(id, w)
		return
	}
	c.visitMass(c.par[id][0], w/2, f)
	c.visitMass(c.par[id][1], w/2, f)
}
