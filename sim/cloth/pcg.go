package cloth

import (
	"math"

	"drape/sim/geom"
	"drape/sim/parallel"
)

// pcg holds the work vectors of the modified preconditioned conjugate
// gradient method, reused from step to step.
type pcg struct {
	r, c, q []geom.Vec3
	s       []vec3f32   // preconditioned residual P⁻¹r, rounded to float32
	as      []vec3f32   // A·s, float32
	pinv    []geom.Mat3 // block-Jacobi preconditioner: inverse diagonal blocks
	dot     parallel.Partials
	bad     [parallel.Chunks]bool // a chunk of rows failed checkPattern
	run     pcgRun                // the solve in progress (begin)
	// stop, if not nil, is polled before every iteration; when it
	// returns true the solve gives up there and sets stopped (Sim.SetInterrupt).
	stop    func() bool
	stopped bool
}

// Row filters of the modified PCG (Baraff & Witkin 1998 §5.3): each row
// of the system has a filter S_i that projects out the directions in
// which its Δv is prescribed.
const (
	rowFree   uint8 = iota // S = I
	rowNormal              // S = I − n·nᵀ: the velocity along n is prescribed (contact), the tangential ones are free
	rowFixed               // S = 0: all three prescribed (pinned vertex, or a dead slot)
)

// filter returns S·v for the row filter of kind k and normal n.
func filter(k uint8, n, v geom.Vec3) geom.Vec3 {
	switch k {
	case rowNormal:
		return v.Sub(n.Scale(n.Dot(v)))
	case rowFixed:
		return geom.Vec3{}
	}
	return v
}

// vec3f32 is a Vec3 rounded to float32 and padded to 16 bytes, so that a
// gathered vector is a single 16-byte load.
type vec3f32 [4]float32

// precondition sets s = P⁻¹·r rounded to float32, for the block pinv of
// P⁻¹, and returns rᵀs. s[3] stays zero. (Element by element: a
// whole-array store followed by loads of its elements would stall store
// forwarding.)
func precondition(s *vec3f32, pinv *geom.Mat3, r geom.Vec3) float64 {
	x := float32(pinv[0]*r.X + pinv[1]*r.Y + pinv[2]*r.Z)
	y := float32(pinv[3]*r.X + pinv[4]*r.Y + pinv[5]*r.Z)
	z := float32(pinv[6]*r.X + pinv[7]*r.Y + pinv[8]*r.Z)
	s[0], s[1], s[2] = x, y, z
	return r.X*float64(x) + r.Y*float64(y) + r.Z*float64(z)
}

func (p *pcg) resize(n int) {
	if cap(p.r) < n {
		p.r, p.c, p.q = make([]geom.Vec3, n), make([]geom.Vec3, n), make([]geom.Vec3, n)
		p.s, p.as = make([]vec3f32, n), make([]vec3f32, n)
		p.pinv = make([]geom.Mat3, n)
	}
	p.r, p.c, p.q, p.s, p.as, p.pinv = p.r[:n], p.c[:n], p.q[:n], p.s[:n], p.as[:n], p.pinv[:n]
}

// solve solves A·dv = b by the modified preconditioned conjugate gradient
// method of Baraff & Witkin 1998 (§5.3) with a block-Jacobi preconditioner.
// Row i's filter kind[i] (rowFree, rowNormal with unit normal nrm[i], or
// rowFixed) prescribes part of dv[i]: the component (I − S_i)·z[i], with
// S_i = I, I − n·nᵀ or 0. Every residual and search direction is filtered
// by S, so the prescribed components stay exactly as set and the free ones
// solve the filtered system. On entry dv holds the starting guess (the
// previous step's solution is a good one); on return it holds the
// solution. The iteration stops when rᵀP⁻¹r < tol²·δ₀ with
// δ₀ = (Sb)ᵀP⁻¹(Sb) (Baraff & Witkin's rule), or after maxIter
// iterations, with one change when repulsion springs are in the system
// (repulsion.go): the rows the springs act on and the other rows are two
// parts, each summed over its own rows, and each must reach tol² times its
// own part of δ₀ (a part whose δ₀ is 0 is held to the whole δ₀). It
// returns the iterations taken and the larger part's √(rᵀP⁻¹r/δ₀), the
// relative preconditioned residual (0 when the filtered right-hand side
// is zero, NaN when the system itself is not finite); a solve that p.stop
// gave up returns where it stopped, with p.stopped set. Without springs
// there is one part, and the rule and every iterate are Baraff & Witkin's.
//
// Why the parts. A spring's force k·(h − g) is large against a vertex's
// weight, so a few springs make nearly all of δ₀ (89–96 % on the
// gathering curtain; a test, TestPCGPartsToOwnTolerance, 99.99 %): the
// whole-δ₀ rule then stopped as soon as the springs' rows had converged
// and left the rest of the cloth up to √(δ₀/δ₀_rest) times less accurate
// than tol (the test: 0.071 instead of 0.001), so the accuracy of every
// vertex depended on contact anywhere in the cloth. Measured costs are in
// docs/notes/contact.md ("PCG's stopping rule with repulsion springs").
//
// The products A·s inside the loop read the float32 copy of the blocks
// (val32 and oppVal32, which Sim.assemble writes along with val and
// oppVal) and s rounded to float32, and sum each row in float32
// (blockRows32), while the other vectors and all sums stay float64.
// Rounding A and s to 7 digits perturbs the solution by far less than
// the default tolerance (1e-3); the residual is computed against the
// float64 A at the start. Free rows, nearly all of them, take the
// unfiltered path; only rowNormal rows pay for the projection.
func (p *pcg) solve(a *blockSystem, b, dv, z []geom.Vec3, kind []uint8, nrm []geom.Vec3, tol float64, maxIter int) (int, float64) {
	n := a.n
	p.resize(n)
	p.stopped = false
	u := p.begin(a, b, dv, z, kind, nrm)
	parallel.ForChunks(n, u.fnSetup)
	for _, bad := range p.bad {
		if bad {
			panic("sim: block system pattern is inconsistent")
		}
	}
	delta0M, delta0S := p.dot.Sum(), p.dot.SumAt(1)
	delta0 := delta0M + delta0S
	if math.IsNaN(delta0) || math.IsInf(delta0, 0) {
		return 0, math.NaN() // the caller reports the step as unstable
	}
	if !(delta0 > 0) {
		// Nothing to solve for the free vertices, or a NaN that the caller
		// detects from the state.
		parallel.ForChunks(n, u.fnPrescribed)
		return 0, 0
	}
	a.mulVec(p.q, dv)
	parallel.ForChunks(n, u.fnResidual)
	deltaM, deltaS := p.dot.Sum(), p.dot.SumAt(1)
	deltaNew := deltaM + deltaS
	// Each part to its own tolerance (see the doc comment); a part with
	// nothing on its right-hand side is held to the whole's.
	refM, refS := delta0M, delta0S
	if !(refM > 0) {
		refM = delta0
	}
	if !(refS > 0) {
		refS = delta0
	}
	tolM, tolS := tol*tol*refM, tol*tol*refS
	it := 0
	for ; it < maxIter && !(deltaM <= tolM && deltaS <= tolS); it++ { // a NaN δ iterates on, and cq stops it
		if p.stop != nil && p.stop() {
			p.stopped = true
			break
		}
		parallel.ForChunks(n, u.fnDirection)
		cq := p.dot.Sum()
		if !(cq > 0) {
			break // A is not positive definite on c (or NaN): stop, caller checks the state
		}
		u.alpha = deltaNew / cq
		parallel.ForChunks(n, u.fnUpdate)
		deltaOld := deltaNew
		deltaM, deltaS = p.dot.Sum(), p.dot.SumAt(1)
		deltaNew = deltaM + deltaS
		u.beta = deltaNew / deltaOld
	}
	return it, math.Sqrt(math.Max(math.Max(deltaM/refM, deltaS/refS), 0))
}

// pcgRun is one solve's inputs and step sizes, which its passes (setup,
// prescribed, residual, direction, update) read. The passes are bound
// once (begin), so that the iterations allocate nothing.
type pcgRun struct {
	p             *pcg
	a             *blockSystem
	b, dv, z, nrm []geom.Vec3
	kind          []uint8
	coupled       bool    // the repulsion springs' coupling is on (repulsion.go)
	springs       bool    // a repulsion spring acts: the stopping rule's two parts
	alpha, beta   float64 // the iteration's step and direction update
	fnSetup       func(k, lo, hi int)
	fnPrescribed  func(k, lo, hi int)
	fnResidual    func(k, lo, hi int)
	fnDirection   func(k, lo, hi int)
	fnUpdate      func(k, lo, hi int)
}

// begin sets up p.run for a solve of A·dv = b (see solve) and returns it.
func (p *pcg) begin(a *blockSystem, b, dv, z []geom.Vec3, kind []uint8, nrm []geom.Vec3) *pcgRun {
	u := &p.run
	if u.fnSetup == nil {
		u.p = p
		u.fnSetup, u.fnPrescribed, u.fnResidual = u.setup, u.prescribed, u.residual
		u.fnDirection, u.fnUpdate = u.direction, u.update
	}
	u.a, u.b, u.dv, u.z, u.kind, u.nrm = a, b, dv, z, kind, nrm
	u.coupled, u.springs = a.coupling.active(), a.coupling.acting()
	u.alpha, u.beta = 0, 0
	return u
}

// setup is solve's first pass over rows [lo, hi): the pattern check, the
// prescribed part of dv, the preconditioner's blocks and the two parts
// of δ₀ = bᵀP⁻¹b (masses and springs, p.dot[k]).
func (u *pcgRun) setup(k, lo, hi int) {
	p, a, kind, nrm, dv, z, b, pinv := u.p, u.a, u.kind, u.nrm, u.dv, u.z, u.b, u.p.pinv
	p.bad[k] = !a.checkPattern(lo, hi)
	var d0, d0s float64
	for i := lo; i < hi; i++ {
		switch kind[i] {
		case rowFixed:
			dv[i] = z[i]
			pinv[i] = geom.Mat3{}
			continue
		case rowNormal:
			n := nrm[i]
			dv[i] = filter(rowNormal, n, dv[i]).Add(n.Scale(n.Dot(z[i])))
		}
		pinv[i] = inverse3(&a.val[a.diag[i]])
		bi := filter(kind[i], nrm[i], b[i])
		if x := bi.Dot(pinv[i].MulVec(bi)); u.springs && a.coupling.spring(i) {
			d0s += x
		} else {
			d0 += x
		}
	}
	p.dot[k][0], p.dot[k][1] = d0, d0s
}

// prescribed keeps only the prescribed part of dv on rows [lo, hi):
// the solve's answer when there is nothing to solve for.
func (u *pcgRun) prescribed(_, lo, hi int) {
	kind, nrm, dv := u.kind, u.nrm, u.dv
	for i := lo; i < hi; i++ {
		if kind[i] != rowFixed {
			dv[i] = dv[i].Sub(filter(kind[i], nrm[i], dv[i])) // keep the prescribed part
		}
	}
}

// residual starts the iteration on rows [lo, hi), with q = A·dv: the
// filtered residual r = S·(b − A·dv), s = P⁻¹r, c = q = 0, and the two
// parts of δ = rᵀs (p.dot[k]).
func (u *pcgRun) residual(k, lo, hi int) {
	p, a, kind, nrm, b := u.p, u.a, u.kind, u.nrm, u.b
	r, c, q, s, pinv := p.r, p.c, p.q, p.s, p.pinv
	coupled, springs := u.coupled, u.springs
	var d, ds float64
	for i := lo; i < hi; i++ {
		k := kind[i]
		if k == rowFixed {
			r[i], s[i], c[i], q[i] = geom.Vec3{}, vec3f32{}, geom.Vec3{}, geom.Vec3{}
			if coupled && a.coupling.hasRow(i) {
				a.coupling.setParts(i, geom.Vec3{}) // s_i stays 0: its parts hold for the whole solve
			}
			continue
		}
		ri := filter(k, nrm[i], b[i].Sub(q[i])) // q = A·dv here
		r[i] = ri
		c[i], q[i] = geom.Vec3{}, geom.Vec3{}
		x := precondition(&s[i], &pinv[i], ri)
		if springs && a.coupling.spring(i) {
			ds = addRow(ds, x, k == rowNormal, &s[i], nrm[i], ri)
		} else {
			d = addRow(d, x, k == rowNormal, &s[i], nrm[i], ri)
		}
		if coupled && a.coupling.hasRow(i) {
			a.coupling.setParts(i, geom.Vec3{X: float64(s[i][0]), Y: float64(s[i][1]), Z: float64(s[i][2])})
		}
	}
	p.dot[k][0], p.dot[k][1] = d, ds
}

// direction is the iteration's first pass over rows [lo, hi). The
// textbook iteration updates the direction c = s + β·c and then
// multiplies q = A·c, three passes over the vectors. Since
// A·c_new = A·s + β·A·c_old, the product is taken of s instead and
// q = A·s + β·q, c = s + β·c are formed row by row in the same pass:
// two passes per iteration (direction, update), same iterates up to
// round-off. It leaves cᵀq in p.dot[k].
func (u *pcgRun) direction(k, lo, hi int) {
	p, a, nrm, beta, coupled := u.p, u.a, u.nrm, u.beta, u.coupled
	a.blockRows32(p.s, p.as, lo, hi)
	// Rows lo..hi-1 resliced to one length, so the loop runs free of
	// bounds checks.
	fx, as, q, c, s := u.kind[lo:hi], p.as[lo:hi], p.q[lo:hi], p.c[lo:hi], p.s[lo:hi]
	as, q, c, s = as[:len(fx)], q[:len(fx)], c[:len(fx)], s[:len(fx)]
	var d float64
	for i := range fx {
		if fx[i] == rowFixed {
			continue // c, q, s stay zero: the filter S_i = 0
		}
		ai, qi, ci, si := &as[i], &q[i], &c[i], &s[i]
		if coupled && a.coupling.hasRow(lo+i) { // the repulsion springs' coupling (repulsion.go)
			e := a.coupling.rowFromParts(lo+i, geom.Vec3{X: float64(si[0]), Y: float64(si[1]), Z: float64(si[2])})
			ai[0] += float32(e.X)
			ai[1] += float32(e.Y)
			ai[2] += float32(e.Z)
		}
		if fx[i] == rowNormal { // q = S·(A·s) + β·q
			n := nrm[lo+i]
			f := filter(rowNormal, n, geom.Vec3{float64(ai[0]), float64(ai[1]), float64(ai[2])})
			ai[0], ai[1], ai[2] = float32(f.X), float32(f.Y), float32(f.Z)
		}
		qn := geom.Vec3{float64(ai[0]) + beta*qi.X, float64(ai[1]) + beta*qi.Y, float64(ai[2]) + beta*qi.Z}
		cn := geom.Vec3{float64(si[0]) + beta*ci.X, float64(si[1]) + beta*ci.Y, float64(si[2]) + beta*ci.Z}
		*qi, *ci = qn, cn
		d += cn.Dot(qn)
	}
	p.dot[k][0] = d
}

// update is the iteration's second pass over rows [lo, hi): dv += α·c,
// r −= α·q, s = P⁻¹r, and the two parts of the new δ = rᵀs (p.dot[k]).
func (u *pcgRun) update(k, lo, hi int) {
	p, a, nrm, alpha, coupled, springs := u.p, u.a, u.nrm, u.alpha, u.coupled, u.springs
	fx, dv, r, c, q, s, pinv := u.kind[lo:hi], u.dv[lo:hi], p.r[lo:hi], p.c[lo:hi], p.q[lo:hi], p.s[lo:hi], p.pinv[lo:hi]
	dv, r, c, q, s, pinv = dv[:len(fx)], r[:len(fx)], c[:len(fx)], q[:len(fx)], s[:len(fx)], pinv[:len(fx)]
	var d, ds float64
	for i := range fx {
		if fx[i] == rowFixed {
			continue
		}
		dv[i] = dv[i].Add(c[i].Scale(alpha))
		ri := r[i].Sub(q[i].Scale(alpha))
		r[i] = ri
		m, si := &pinv[i], &s[i]
		sx := float32(m[0]*ri.X + m[1]*ri.Y + m[2]*ri.Z)
		sy := float32(m[3]*ri.X + m[4]*ri.Y + m[5]*ri.Z)
		sz := float32(m[6]*ri.X + m[7]*ri.Y + m[8]*ri.Z)
		si[0], si[1], si[2] = sx, sy, sz
		x := ri.X*float64(sx) + ri.Y*float64(sy) + ri.Z*float64(sz)
		if springs && a.coupling.spring(lo+i) {
			ds = addRow(ds, x, fx[i] == rowNormal, si, nrm[lo+i], ri)
		} else {
			d = addRow(d, x, fx[i] == rowNormal, si, nrm[lo+i], ri)
		}
		if coupled && a.coupling.hasRow(lo+i) {
			a.coupling.setParts(lo+i, geom.Vec3{X: float64(si[0]), Y: float64(si[1]), Z: float64(si[2])})
		}
	}
	p.dot[k][0], p.dot[k][1] = d, ds
}

// addRow adds row i's term x = r_iᵀs_i to the running sum d of one part
// and, for a row with a normal filter, filters s_i and corrects the sum
// (filterS). Each part sums this way, so without repulsion springs the
// one sum is what it was before the parts, bit for bit.
func addRow(d, x float64, normal bool, s *vec3f32, n, r geom.Vec3) float64 {
	d += x
	if normal {
		d = filterS(s, n, r, d)
	}
	return d
}

// filterS replaces s by S·s for the filter I − n·nᵀ, where d already holds
// rᵀs for the unfiltered s, and returns rᵀ(S·s). Since r is filtered
// (n·r = 0), rᵀ(S·s) = rᵀs − (n·s)(n·r) = rᵀs up to the rounding of s to
// float32; it is recomputed from the stored s all the same.
func filterS(s *vec3f32, n, r geom.Vec3, d float64) float64 {
	old := geom.Vec3{float64(s[0]), float64(s[1]), float64(s[2])}
	d -= r.Dot(old)
	f := filter(rowNormal, n, old)
	s[0], s[1], s[2] = float32(f.X), float32(f.Y), float32(f.Z)
	return d + r.X*float64(s[0]) + r.Y*float64(s[1]) + r.Z*float64(s[2])
}

// inverse3 returns m⁻¹ by the adjugate, or the zero matrix when m is
// singular (which leaves that vertex unpreconditioned rather than poisoning
// the solve with Inf).
func inverse3(m *geom.Mat3) geom.Mat3 {
	c00 := m[4]*m[8] - m[5]*m[7]
	c01 := m[5]*m[6] - m[3]*m[8]
	c02 := m[3]*m[7] - m[4]*m[6]
	det := m[0]*c00 + m[1]*c01 + m[2]*c02
	if det == 0 || math.IsNaN(det) {
		return geom.Mat3{}
	}
	id := 1 / det
	return geom.Mat3{
		c00 * id, (m[2]*m[7] - m[1]*m[8]) * id, (m[1]*m[5] - m[2]*m[4]) * id,
		c01 * id, (m[0]*m[8] - m[2]*m[6]) * id, (m[2]*m[3] - m[0]*m[5]) * id,
		c02 * id, (m[1]*m[6] - m[0]*m[7]) * id, (m[0]*m[4] - m[1]*m[3]) * id,
	}
}
