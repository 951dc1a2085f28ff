package contact

import (
	"math"
	"slices"

	"drape/sim/buf"
	"drape/sim/geom"
)

// This file holds the impact zones (Provot 1997 §4; Bridson et al. 2002
// §6.3): the vertices of the collisions a CCD pass still finds after the
// impulse passes are merged into zones, and each zone's velocities are
// projected onto a rigid motion (or rigid plus three shear modes, Tsiknis
// 2006 ch. 2), a body's motion when the zone touches one, or the pins'.

// zoneState holds the impact zones of one Resolve (Provot 1997 §4; Bridson
// et al. §6.3): a union–find over cloth vertex slots (parent −1: in no
// zone), the body that holds each zone (held[root], −1: none) and the list
// of vertices in zones. Zones only grow and merge within a call.
type zoneState struct {
	active  bool
	parent  []int32
	held    []int32
	pinned  []bool // per root: the zone has a kinematic vertex
	members []int32
	grew    bool // add entered a vertex, merged two zones or gave a zone a body since grew was last cleared
}

func (z *zoneState) reset(nv int) {
	z.active = true
	z.parent = buf.Grow(z.parent, nv)
	z.held = buf.Grow(z.held, nv)
	z.pinned = buf.Grow(z.pinned, nv)
	for i := range z.parent {
		z.parent[i] = -1
	}
	z.members = z.members[:0]
}

// find returns the root of i's zone, halving the path as it goes.
func (z *zoneState) find(i int32) int32 {
	for z.parent[i] != i {
		z.parent[i] = z.parent[z.parent[i]]
		i = z.parent[i]
	}
	return i
}

// root returns the root of i's zone without changing the forest, for the
// parallel detection passes (find writes). project compresses every path,
// so during detection a member's parent is its root.
func (z *zoneState) root(i int32) int32 {
	for z.parent[i] != i {
		i = z.parent[i]
	}
	return i
}

func (z *zoneState) enter(i int32, kinematic bool) int32 {
	if z.parent[i] < 0 {
		z.parent[i] = i
		z.held[i] = -1
		z.pinned[i] = kinematic
		z.members = append(z.members, i)
		z.grew = true
	}
	return z.find(i)
}

// add merges the zones of the pair's cloth vertices and, for a cloth–body
// collision, marks the zone as held by that body (the first body that
// touches a zone holds it).
func (z *zoneState) add(s *Solver, pr *pair) {
	root := int32(-1)
	for k := 0; k < npoints(pr); k++ {
		if pr.bodyPts&(1<<k) != 0 {
			continue
		}
		r := z.enter(pr.ids[k], s.c.InvMass[pr.ids[k]] == 0)
		if root < 0 {
			root = r
			continue
		}
		if r != root {
			z.grew = true
			z.parent[r] = root
			if z.held[root] < 0 {
				z.held[root] = z.held[r]
			}
			z.pinned[root] = z.pinned[root] || z.pinned[r]
		}
	}
	if root >= 0 && pr.body >= 0 && z.held[root] < 0 {
		z.held[root] = pr.body
		z.grew = true
	}
}

// count returns the number of zones and of vertices in them.
func (z *zoneState) count() (zones, verts int) {
	for _, i := range z.members {
		if z.find(i) == i {
			zones++
		}
	}
	return zones, len(z.members)
}

// project replaces the velocities of every zone's vertices by their
// projection (projectZone), zone by zone.
func (z *zoneState) project(s *Solver) {
	// Full path compression first (find only halves paths), so that
	// parent[i] is i's root for every member and can be the sort key.
	for _, i := range z.members {
		r := z.find(i)
		for j := i; z.parent[j] != r; {
			j, z.parent[j] = z.parent[j], r
		}
	}
	slices.SortFunc(z.members, func(a, b int32) int {
		ra, rb := z.parent[a], z.parent[b]
		if ra != rb {
			return int(ra - rb)
		}
		return int(a - b)
	})
	for lo := 0; lo < len(z.members); {
		r := z.parent[z.members[lo]]
		hi := lo + 1
		for hi < len(z.members) && z.parent[z.members[hi]] == r {
			hi++
		}
		s.projectZone(z.members[lo:hi], z.held[r])
		lo = hi
	}
}

// projectZone sets the velocities of one impact zone's vertices:
//
//   - held by a body (a zone that touches a body and cannot be resolved by
//     impulses is held by it, Provot's "rigid with the obstacle"): every
//     free vertex takes the body's velocity field at its position (zero for a
//     static body or a half-space; the least-squares affine fit of the body's
//     vertex velocities for a moving one, exact for the linear interpolation
//     of a rigid motion), so the zone and the body move by one affine map;
//   - with pinned (kinematic) members: the pins keep their velocities and the
//     free vertices take a rigid motion that agrees with them: about the pin
//     for one pin (the angular momentum about the pin is kept), the
//     least-squares rigid fit to the pins' velocities for several;
//   - otherwise free: the mass-weighted least-squares projection
//     min Σ m_i |u_i − v_i|² onto rigid motion u = v_c + ω×r (RigidZones;
//     ω = I⁻¹L with I the inertia tensor about the centre of mass) or onto
//     rigid motion plus the three shear modes (EnrichedZones, Tsiknis 2006
//     end of ch. 2). The projection space contains the translations and
//     rotations and the residual is mass-orthogonal to it, so the zone's
//     linear and angular momentum are conserved exactly.
//
// Enriched zones, derivation: in the principal frame e_a of the zone's
// second moment C = Σ m r rᵀ = Σ c_a e_a e_aᵀ, the linear modes
// u = E_ab r = e_a r_b have the diagonal Gram matrix
// ⟨E_ab, E_cd⟩ = δ_ac δ_bd c_b, so the projection onto the six off-diagonal
// modes (three rotations and three symmetric shears; no scaling, which can
// reflect the zone) is u = v_c + A r with A_ab = Σ m v_a r_b / c_b for
// a ≠ b and A_aa = 0: the velocity gradient has no stretch along the
// principal axes. Modes with c_b ≤ 1e-12·tr C (a zone flat to round-off) are
// left out, which keeps the conservation (such modes do not move the zone).
// Unlike a rigid motion, an affine one can flatten the zone over the step;
// the zone stays intersection-free when det(I + τΔt·A) > 0 on τ ∈ [0, 1],
// and the projection is blended towards the rigid one,
// A ← (1−s)·W + s·A with s = 1, ½, ¼, … (a blend of two momentum-conserving
// projections conserves momentum), until det ≥ ½ throughout; s = 0 is the
// rigid motion, whose determinant is 1 + τ²Δt²|ω|² ≥ 1.
func (s *Solver) projectZone(m []int32, held int32) {
	c := s.c
	if held >= 0 {
		f := s.bodyField(int(held))
		for _, i := range m {
			if c.InvMass[i] > 0 {
				x := c.X[i]
				c.V[i] = f[0].Scale(x.X).Add(f[1].Scale(x.Y)).Add(f[2].Scale(x.Z)).Add(f[3])
				s.dirtyNext[i] = true
			}
		}
		return
	}
	npin := 0
	var pinX, pinV geom.Vec3
	for _, i := range m {
		if c.InvMass[i] == 0 {
			npin++
			pinX, pinV = pinX.Add(c.X[i]), pinV.Add(c.V[i])
		}
	}
	if npin > 0 {
		pinX, pinV = pinX.Scale(1/float64(npin)), pinV.Scale(1/float64(npin))
		var in [3][3]float64
		var l geom.Vec3
		for _, i := range m {
			im := c.InvMass[i]
			wt := 1.0 // several pins: unit weights over the pins
			switch {
			case npin == 1 && im > 0:
				wt = 1 / im // one pin: the free vertices' inertia about it
			case npin == 1 || im > 0:
				continue
			}
			r := c.X[i].Sub(pinX)
			addInertia(&in, r, wt)
			l = l.Add(r.Cross(c.V[i].Sub(pinV)).Scale(wt))
		}
		w := pinvSolve(in, l)
		for _, i := range m {
			if c.InvMass[i] > 0 {
				c.V[i] = pinV.Add(w.Cross(c.X[i].Sub(pinX)))
				s.dirtyNext[i] = true
			}
		}
		return
	}
	// Free zone.
	var mass float64
	var xc, vc geom.Vec3
	for _, i := range m {
		mi := 1 / c.InvMass[i]
		mass += mi
		xc, vc = xc.Add(c.X[i].Scale(mi)), vc.Add(c.V[i].Scale(mi))
	}
	xc, vc = xc.Scale(1/mass), vc.Scale(1/mass)
	var cm [3][3]float64
	var l geom.Vec3
	for _, i := range m {
		mi := 1 / c.InvMass[i]
		r := c.X[i].Sub(xc)
		rv := [3]float64{r.X, r.Y, r.Z}
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				cm[a][b] += mi * rv[a] * rv[b]
			}
		}
		l = l.Add(r.Cross(c.V[i].Sub(vc)).Scale(mi))
	}
	cv, e := geom.SymEigen3(cm)
	tr := cv[0] + cv[1] + cv[2]
	// Rigid: ω'_a = L'_a/(tr C − c_a) in the principal frame.
	var om [3]float64
	for a := 0; a < 3; a++ {
		ia := tr - cv[a]
		if ia > 1e-12*tr {
			om[a] = dot3(e[a], l) / ia
		}
	}
	// Gradient in the principal frame: W r = ω' × r.
	wg := [3][3]float64{{0, -om[2], om[1]}, {om[2], 0, -om[0]}, {-om[1], om[0], 0}}
	grad := wg
	if s.p.Zones == EnrichedZones && tr > 0 {
		var p [3][3]float64
		for _, i := range m {
			mi := 1 / c.InvMass[i]
			r := c.X[i].Sub(xc)
			v := c.V[i].Sub(vc)
			for a := 0; a < 3; a++ {
				va := dot3(e[a], v)
				for b := 0; b < 3; b++ {
					if a != b {
						p[a][b] += mi * va * dot3(e[b], r)
					}
				}
			}
		}
		var ag [3][3]float64
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				if a != b && cv[b] > 1e-12*tr {
					ag[a][b] = p[a][b] / cv[b]
				}
			}
		}
		for sb := 1.0; sb > 1e-3; sb *= 0.5 {
			var bl [3][3]float64
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					bl[a][b] = (1-sb)*wg[a][b] + sb*ag[a][b]
				}
			}
			if minDet(bl, s.dt) >= 0.5 {
				grad = bl
				break
			}
		}
	}
	for _, i := range m {
		if c.InvMass[i] == 0 {
			continue
		}
		r := c.X[i].Sub(xc)
		rp := [3]float64{dot3(e[0], r), dot3(e[1], r), dot3(e[2], r)}
		u := vc
		for a := 0; a < 3; a++ {
			ua := grad[a][0]*rp[0] + grad[a][1]*rp[1] + grad[a][2]*rp[2]
			u = u.Add(e[a].Scale(ua))
		}
		c.V[i] = u
		s.dirtyNext[i] = true
	}
}

// minDet returns the least value of det(I + τ·dt·A) over τ ∈ [0, 1] for a
// zero-diagonal A: 1 + τ²·m₂ + τ³·det with m₂ the sum of the principal 2×2
// minors, whose least value lies at an end or a critical point.
func minDet(a [3][3]float64, dt float64) float64 {
	var b [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			b[i][j] = dt * a[i][j]
		}
	}
	m2 := -(b[0][1]*b[1][0] + b[0][2]*b[2][0] + b[1][2]*b[2][1])
	det := b[0][0]*(b[1][1]*b[2][2]-b[1][2]*b[2][1]) - b[0][1]*(b[1][0]*b[2][2]-b[1][2]*b[2][0]) + b[0][2]*(b[1][0]*b[2][1]-b[1][1]*b[2][0])
	cu := cubic{1, b[0][0] + b[1][1] + b[2][2], m2, det}
	var ts [8]float64
	n := candidateTimes(cu, &ts)
	least := math.Inf(1)
	for i := 0; i < n; i++ {
		least = math.Min(least, cu.at(ts[i]))
	}
	return least
}

// bodyField returns body b's velocity field v(x) = f0·x + f1·y + f2·z + f3:
// zero for a half-space or a static body; for a moving one the
// least-squares affine fit to its vertex velocities (4×4 normal equations,
// regularised by 1e-12 of their trace for a flat body), computed once per
// call.
func (s *Solver) bodyField(b int) [4]geom.Vec3 {
	st := &s.bodies[b]
	if !st.moving || st.fitted {
		if !st.moving {
			return [4]geom.Vec3{}
		}
		return st.field
	}
	bd := &s.bs[b]
	var g [4][4]float64
	var rhs [4]geom.Vec3
	pts := bd.From
	if bd.round() {
		pts = bd.Core[:] // st.vel holds the core ends' velocities
	}
	for i, x := range pts {
		q := [4]float64{x.X, x.Y, x.Z, 1}
		for a := 0; a < 4; a++ {
			for c := 0; c < 4; c++ {
				g[a][c] += q[a] * q[c]
			}
			rhs[a] = rhs[a].Add(st.vel[i].Scale(q[a]))
		}
	}
	tr := g[0][0] + g[1][1] + g[2][2] + g[3][3]
	for a := 0; a < 4; a++ {
		g[a][a] += 1e-12 * tr
	}
	// Gaussian elimination with partial pivoting, three right-hand sides.
	for col := 0; col < 4; col++ {
		piv := col
		for r := col + 1; r < 4; r++ {
			if math.Abs(g[r][col]) > math.Abs(g[piv][col]) {
				piv = r
			}
		}
		g[col], g[piv] = g[piv], g[col]
		rhs[col], rhs[piv] = rhs[piv], rhs[col]
		if g[col][col] == 0 {
			continue
		}
		for r := col + 1; r < 4; r++ {
			f := g[r][col] / g[col][col]
			for c := col; c < 4; c++ {
				g[r][c] -= f * g[col][c]
			}
			rhs[r] = rhs[r].Sub(rhs[col].Scale(f))
		}
	}
	var out [4]geom.Vec3
	for r := 3; r >= 0; r-- {
		acc := rhs[r]
		for c := r + 1; c < 4; c++ {
			acc = acc.Sub(out[c].Scale(g[r][c]))
		}
		if g[r][r] != 0 {
			out[r] = acc.Scale(1 / g[r][r])
		}
	}
	st.field, st.fitted = out, true
	return out
}

// addInertia adds w·(|r|²·I − r rᵀ) to in.
func addInertia(in *[3][3]float64, r geom.Vec3, w float64) {
	rv := [3]float64{r.X, r.Y, r.Z}
	r2 := r.Dot(r)
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			v := -rv[a] * rv[b]
			if a == b {
				v += r2
			}
			in[a][b] += w * v
		}
	}
}

// pinvSolve returns the least-norm solution of in·ω = l for a symmetric
// positive semi-definite in (eigenvalues below 1e-12 of the largest count as
// zero: a zone on a line cannot spin about it).
func pinvSolve(in [3][3]float64, l geom.Vec3) geom.Vec3 {
	ev, e := geom.SymEigen3(in)
	big := math.Max(ev[0], math.Max(ev[1], ev[2]))
	var w geom.Vec3
	for a := 0; a < 3; a++ {
		if ev[a] > 1e-12*big && ev[a] > 0 {
			w = w.Add(e[a].Scale(dot3(e[a], l) / ev[a]))
		}
	}
	return w
}

func dot3(a, b geom.Vec3) float64 { return a.Dot(b) }
