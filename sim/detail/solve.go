package detail

import (
	"math"
	"time"

	"drape/sim/buf"
	"drape/sim/geom"
)

// system is the minimisation problem of one frame restricted to its active
// set, in local numbering: local point k < na is the active fine point
// act[k] (increasing), and points na … nl−1 are halo points, the inactive
// endpoints of membrane rows, whose d stays 0. Every product, energy and
// CG vector runs over these compact arrays, so the solve touches the
// folds only and its working set stays in cache. With every point active
// (the tests' activateAll) the local numbering is the global one.
type system struct {
	mark   []uint8 // per fine point: 0 inactive, ring+1 when active
	act    []int32 // global index of local point k < na
	loc    []int32 // local index of each fine point, −1 when not in the system
	na, nl int     // active points; active + halo points

	xs, ns []geom.Vec3 // positions x_i and normals n̂_i of the local points
	ps     []geom.Vec3 // displaced positions x_i + d_i·n̂_i (energy's scratch)
	fw     []float64   // foundation weight K·w_i·a_i of active point k
	gs     []float64   // seed force g_i of active point k

	// Bending rows (every fine point with a Laplacian stencil that touches
	// an active point), scaled by √(w_i·a_i) so that the row's energy is
	// ½(Lap'_i d)²: the centre's weight bC and local index bCen (−1 when
	// the centre is inactive), and one weight bN for all its active
	// neighbours bCol[bPtr[q]:bPtr[q+1]] (d = 0 at the others). Storing
	// two weights per row instead of one per entry made the bending
	// product 1.5× faster (0.19 → 0.125 ms on the 10,000-triangle curtain,
	// 60,000 stencil entries: the rows now fit in the L2 cache).
	lapRows    []int32 // global row i
	bCen       []int32
	bC, bN     []float64
	bPtr, bCol []int32
	diagB      []float64 // diagonal of K·diag(w·a) + Lᵀdiag(w·a)L at active point k

	// Membrane rows that touch an active point: global row r and its points
	// in local numbering (CSR, aligned with the topology's rowIdx).
	memRows    []int32
	mPtr, mCol []int32
	jac        []float64 // ∂S_r/∂d at mCol, at the last energy(·, true)
	tight      []int32   // positions in memRows with T_r > S_r at the last energy(·, true)

	// Vectors over the local points.
	d, dTry, grad, stp  []float64
	cgR, cgZ, cgP, cgAp []float64
	invDiag             []float64
}

// activeSet marks the fine points the solve may move: those with
// compression (c_i > 0) or a displacement |d_i| > activeSmall·h̄, and
// activeRings rings of neighbours around them; all other points get d = 0
// (a step of at most 1 % of a fine edge, where a fold's tail has decayed).
// It then builds the local system: the active points, the bending rows
// and the membrane rows that touch them (with their targets), so that
// every product and energy below runs over the folds only. Outside the
// set, d = 0, c = 0 and the membrane rows are inactive (a row with
// T_r > S⁰_r lies in a compressed face), so the energy left out there is
// exactly 0. The set grows with the fold from frame to frame, as a
// displaced point is active in the next frame.
func (d *Detailer) activeSet() {
	t := &d.t
	s := &d.sys
	n := t.nf
	s.mark = buf.Grow(s.mark, n)
	clear(s.mark)
	small := activeSmall * t.hMean
	for i := 0; i < n; i++ {
		if d.c[i] > 0 || math.Abs(d.d[i]) > small || d.allActive {
			s.mark[i] = 1
		}
	}
	for ring := 1; ring <= activeRings; ring++ {
		for i := 0; i < n; i++ {
			if s.mark[i] != uint8(ring) {
				continue
			}
			for k := t.lapPtr[i]; k < t.lapPtr[i+1]; k++ {
				if j := t.lapIdx[k]; s.mark[j] == 0 {
					s.mark[j] = uint8(ring + 1)
				}
			}
		}
	}
	s.loc = buf.Grow(s.loc, n)
	s.act = s.act[:0]
	for i := 0; i < n; i++ {
		s.loc[i] = -1
		if s.mark[i] != 0 {
			s.loc[i] = int32(len(s.act))
			s.act = append(s.act, int32(i))
		} else {
			d.d[i] = 0
		}
	}
	s.na = len(s.act)

	// Bending rows over the active columns; the diagonal of the quadratic
	// part of H.
	s.diagB = buf.Grow(s.diagB, s.na)
	s.fw = buf.Grow(s.fw, s.na)
	s.gs = buf.Grow(s.gs, s.na)
	for k, i := range s.act {
		s.fw[k] = d.kf * d.w[i] * t.area[i]
		s.gs[k] = d.g[i]
		s.diagB[k] = s.fw[k]
	}
	s.lapRows, s.bCen, s.bC, s.bN = s.lapRows[:0], s.bCen[:0], s.bC[:0], s.bN[:0]
	s.bPtr = append(s.bPtr[:0], 0)
	s.bCol = s.bCol[:0]
	for i := 0; i < n; i++ {
		start := len(s.bCol)
		for k := t.lapPtr[i]; k < t.lapPtr[i+1]; k++ {
			if j := s.loc[t.lapIdx[k]]; j >= 0 {
				s.bCol = append(s.bCol, j)
			}
		}
		cen := s.loc[i]
		if t.lapC[i] == 0 || (cen < 0 && len(s.bCol) == start) {
			s.bCol = s.bCol[:start]
			continue
		}
		sw := math.Sqrt(d.w[i] * t.area[i])
		cw, nw := t.lapC[i]*sw, t.lapN[i]*sw
		if cen >= 0 {
			s.diagB[cen] += cw * cw
		}
		for _, j := range s.bCol[start:] {
			s.diagB[j] += nw * nw
		}
		s.lapRows = append(s.lapRows, int32(i))
		s.bCen = append(s.bCen, cen)
		s.bC = append(s.bC, cw)
		s.bN = append(s.bN, nw)
		s.bPtr = append(s.bPtr, int32(len(s.bCol)))
	}

	// Membrane rows; their inactive points join the system as halo points.
	s.memRows = s.memRows[:0]
	s.mPtr = append(s.mPtr[:0], 0)
	s.mCol = s.mCol[:0]
	nl := int32(s.na)
	nr := len(t.rowPtr) - 1
	for r := 0; r < nr; r++ {
		lo, hi := t.rowPtr[r], t.rowPtr[r+1]
		touch := false
		for k := lo; k < hi && !touch; k++ {
			touch = s.mark[t.rowIdx[k]] != 0
		}
		if !touch {
			continue
		}
		for k := lo; k < hi; k++ {
			i := t.rowIdx[k]
			if s.loc[i] < 0 {
				s.loc[i] = nl
				s.act = append(s.act, i) // halo: act[na:] lists them
				nl++
			}
			s.mCol = append(s.mCol, s.loc[i])
		}
		s.memRows = append(s.memRows, int32(r))
		s.mPtr = append(s.mPtr, int32(len(s.mCol)))
	}
	s.nl = int(nl)
	s.jac = buf.Grow(s.jac, len(s.mCol))
	s.xs = buf.Grow(s.xs, s.nl)
	s.ns = buf.Grow(s.ns, s.nl)
	for k, i := range s.act {
		s.xs[k], s.ns[k] = d.x[i], d.n[i]
	}
	s.act = s.act[:s.na]
	for _, v := range []*[]float64{&s.d, &s.dTry, &s.grad, &s.stp, &s.cgR, &s.cgZ, &s.cgP, &s.cgAp, &s.invDiag} {
		*v = buf.Grow(*v, s.nl)
		clear(*v)
	}
	clear(d.rowR)
	d.membraneTargets()
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

// membraneTargets sets the target T_r and weight w_r of the membrane rows
// in the system, and the energy scale of the stopping test (their
// membrane energy at d = 0).
func (d *Detailer) membraneTargets() {
	t := &d.t
	p := d.p
	k := 2 * math.Pi / (p.Wavelength * t.hMean)
	ke := p.Stretch * k * k * t.cMean
	d.scaleE = 0
	for _, r := range d.sys.memRows {
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
			if lc := d.rowL[r]; lc > 0 {
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

// energy returns E(dv), dv over the local points (0 at halo points), and,
// when jac is set, fills rowR, the Jacobian and the list of tight rows:
//
//	E = ½ Σ_r w_r·max{T_r − S_r(d), 0}²         membrane (eq. 3.1)
//	  + ½ Σ_i w_i·a_i·(Lap_i d)²                bending (eq. 3.2)
//	  + ½ K Σ_i w_i·a_i·d_i²                     foundation
//	  − Σ_i g_i·d_i                              seed
func (d *Detailer) energy(dv []float64, jac bool) float64 {
	s := &d.sys
	e := 0.0
	if jac {
		s.tight = s.tight[:0]
	}
	// Displaced positions x_i + d_i·n̂_i, once per point (a point is in
	// about six rows of the face energy).
	s.ps = buf.Grow(s.ps, s.nl)
	for k := range s.ps {
		s.ps[k] = s.xs[k].Add(s.ns[k].Scale(dv[k]))
	}
	for q, r := range s.memRows {
		lo, hi := s.mPtr[q], s.mPtr[q+1]
		idx := s.mCol[lo:hi]
		var sum float64
		if len(idx) == 2 { // FaceEnergy: one fine edge
			a, b := idx[0], idx[1]
			seg := s.ps[b].Sub(s.ps[a])
			if tr := d.rowT[r]; seg.Dot(seg) >= tr*tr {
				if jac {
					d.rowR[r] = 0
				}
				// Slack (T_r ≤ S_r): no square root, no Jacobian. 24,000
				// of the 26,700 rows on the 10,000-triangle curtain; an
				// energy evaluation took 0.45 instead of 0.8 ms.
				continue
			}
			sum = seg.Norm()
			if jac {
				var u geom.Vec3
				if sum > 0 {
					u = seg.Scale(1 / sum)
				}
				s.jac[lo] = -s.ns[a].Dot(u)
				s.jac[lo+1] = s.ns[b].Dot(u)
			}
		} else {
			var uPrev geom.Vec3
			for j := 1; j < len(idx); j++ {
				seg := s.ps[idx[j]].Sub(s.ps[idx[j-1]])
				l := seg.Norm()
				sum += l
				if jac {
					var u geom.Vec3
					if l > 0 {
						u = seg.Scale(1 / l)
					}
					// ∂S/∂d_{j−1} gets −u·n_{j−1} from this segment.
					s.jac[int(lo)+j-1] = s.ns[idx[j-1]].Dot(uPrev.Sub(u))
					uPrev = u
				}
			}
			if jac {
				s.jac[hi-1] = s.ns[idx[len(idx)-1]].Dot(uPrev)
			}
		}
		res := d.rowT[r] - sum
		if res < 0 {
			res = 0
		}
		if jac {
			d.rowR[r] = res
			if res > 0 {
				s.tight = append(s.tight, int32(q))
			}
		}
		e += 0.5 * d.rowW[r] * res * res
	}
	for q := range s.bCen {
		lp := s.lapRow(q, s.bCol[s.bPtr[q]:s.bPtr[q+1]], dv)
		e += 0.5 * lp * lp
	}
	for k, fw := range s.fw {
		e += 0.5*fw*dv[k]*dv[k] - s.gs[k]*dv[k]
	}
	return e
}

// gradient writes ∇E at the active points, at the point energy(·, true)
// was last called with (halo entries receive garbage and are never read).
func (d *Detailer) gradient(dv, out []float64) {
	s := &d.sys
	for k, fw := range s.fw {
		out[k] = fw*dv[k] - s.gs[k]
	}
	d.bendApply(dv, out)
	for _, q := range s.tight {
		r := s.memRows[q]
		w := -d.rowW[r] * d.rowR[r]
		for k := s.mPtr[q]; k < s.mPtr[q+1]; k++ {
			out[s.mCol[k]] += w * s.jac[k]
		}
	}
}

// lapRow returns row q of the scaled Laplacian applied to v,
// √(w_i·a_i)·Lap_i v; col is the row's active neighbours.
func (s *system) lapRow(q int, col []int32, v []float64) float64 {
	sum := 0.0
	for _, j := range col {
		sum += v[j]
	}
	lp := s.bN[q] * sum
	if c := s.bCen[q]; c >= 0 {
		lp += s.bC[q] * v[c]
	}
	return lp
}

// bendApply adds Lᵀ·diag(w·a)·L·v to out at the active points.
func (d *Detailer) bendApply(v, out []float64) {
	s := &d.sys
	bCol, bPtr, bC, bN := s.bCol, s.bPtr, s.bC, s.bN // hoisted: out's stores would reload them
	for q, c := range s.bCen {
		col := bCol[bPtr[q]:bPtr[q+1]]
		sum := 0.0
		for _, j := range col {
			sum += v[j]
		}
		lp := bN[q] * sum
		if c >= 0 {
			lp += bC[q] * v[c]
			out[c] += bC[q] * lp
		}
		u := bN[q] * lp
		for _, j := range col {
			out[j] += u
		}
	}
}

// gnApply writes H·v at the active points, with the Gauss–Newton matrix
// H = Σ_r w_r·J_rᵀJ_r (rows with T_r > S_r) + Lᵀ·diag(w·a)·L + K·diag(w·a),
// positive definite when c₀ > 0. v must be 0 at the halo points.
func (d *Detailer) gnApply(v, out []float64) {
	s := &d.sys
	for k, fw := range s.fw {
		out[k] = fw * v[k]
	}
	d.bendApply(v, out)
	for _, q := range s.tight {
		r := s.memRows[q]
		if d.rowR[r] == 0 {
			continue
		}
		lo, hi := s.mPtr[q], s.mPtr[q+1]
		sum := 0.0
		for k := lo; k < hi; k++ {
			sum += s.jac[k] * v[s.mCol[k]]
		}
		sum *= d.rowW[r]
		for k := lo; k < hi; k++ {
			out[s.mCol[k]] += sum * s.jac[k]
		}
	}
}

// gnDiag sets invDiag to the inverse of H's diagonal (1 where it is not
// positive), the Jacobi preconditioner.
func (d *Detailer) gnDiag() {
	s := &d.sys
	diag := s.invDiag[:s.nl]
	copy(diag, s.diagB)
	for _, q := range s.tight {
		r := s.memRows[q]
		for k := s.mPtr[q]; k < s.mPtr[q+1]; k++ {
			diag[s.mCol[k]] += d.rowW[r] * s.jac[k] * s.jac[k]
		}
	}
	for k := range diag[:s.na] {
		if diag[k] > 0 {
			diag[k] = 1 / diag[k]
		} else {
			diag[k] = 1
		}
	}
}

// cg solves H·x = b on the active points by Jacobi-preconditioned
// conjugate gradients from x = 0, at most maxIt iterations, until
// |r| ≤ tol·|b|. It returns the iterations taken. x is 0 at the halo.
func (d *Detailer) cg(b, x []float64, maxIt int, tol float64) int {
	s := &d.sys
	na := s.na
	r, p, ap, inv := s.cgR[:na], s.cgP[:s.nl], s.cgAp[:s.nl], s.invDiag[:na]
	x, b = x[:s.nl], b[:na]
	clear(x)
	clear(p)
	bn := 0.0
	for k, v := range b {
		r[k] = v
		bn += v * v
	}
	if bn == 0 {
		return 0
	}
	rz := 0.0
	for k, v := range r {
		z := v * inv[k]
		p[k] = z
		rz += v * z
	}
	it := 0
	for it < maxIt {
		it++
		d.gnApply(p, ap)
		pap := 0.0
		for k, v := range p[:na] {
			pap += v * ap[k]
		}
		if !(pap > 0) {
			break
		}
		a := rz / pap
		rr, rz2 := 0.0, 0.0
		for k := range r {
			x[k] += a * p[k]
			rk := r[k] - a*ap[k]
			r[k] = rk
			rr += rk * rk
			rz2 += rk * rk * inv[k]
		}
		if rr <= tol*tol*bn {
			break
		}
		beta := rz2 / rz
		rz = rz2
		for k, v := range r {
			p[k] = v*inv[k] + beta*p[k]
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
// energy), or when no step lowers E; and, with Params.TimeLimit, before an
// iteration that the last one's duration says would end past the limit
// from start.
func (d *Detailer) solve(st *Stats, start time.Time) {
	p := d.p
	d.activeSet()
	s := &d.sys
	st.Active = s.na
	for k, i := range s.act {
		s.d[k] = d.d[i]
	}
	e := d.energy(s.d, true)
	st.Energy0 = e
	var last time.Duration // the last iteration's wall time
	for it := 0; it < p.MaxIter && s.na > 0; it++ {
		t0 := time.Now()
		if it > 0 && p.TimeLimit > 0 && t0.Sub(start)+last > p.TimeLimit {
			st.TimedOut = true
			break
		}
		d.gradient(s.d, s.grad)
		d.gnDiag()
		g := s.grad[:s.na]
		for k := range g {
			g[k] = -g[k]
		}
		st.CGIterations += d.cg(s.grad, s.stp, p.MaxCG, p.CGTol)
		slope := -dot(g, s.stp[:s.na]) // ∇Eᵀδ
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
			for j := range g {
				s.dTry[j] = s.d[j] + alpha*s.stp[j]
			}
			et := d.energy(s.dTry, true)
			if et <= e+1e-4*alpha*slope {
				// Swap buffers; both are 0 at the halo. energy filled
				// rowR, the Jacobian and the tight rows at dTry.
				s.d, s.dTry = s.dTry, s.d
				e = et
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
		last = time.Since(t0)
	}
	for k, i := range s.act {
		d.d[i] = s.d[k]
	}
	st.Energy = e
}

// membraneOnly returns the membrane part of E at the last energy(·, true).
func (d *Detailer) membraneOnly() float64 {
	s := 0.0
	for _, q := range d.sys.tight {
		r := d.sys.memRows[q]
		res := d.rowR[r]
		s += 0.5 * d.rowW[r] * res * res
	}
	return s
}
