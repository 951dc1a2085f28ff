package fem

import (
	"math"

	"drape/sim/geom"
)

// ElemRest is what a triangle keeps from its rest (material) shape for the
// corotational linear FEM of Bender & Deul §4.2 and appendix A.
type ElemRest struct {
	dN   [3]geom.Vec2 // shape-function derivatives (∂N_i/∂x, ∂N_i/∂y), appendix A, 1/m
	Area float64      // A_e, rest area, m²
	sInv [4]float64   // S⁻¹ row-major, S = [m_b−m_a, m_c−m_a] (material edge vectors as columns)
	dm   [2]geom.Vec2 // m_b−m_a, m_c−m_a, m
}

// NewElemRest returns the rest data of the material triangle (a, b, c),
// counter-clockwise. The derivatives are those of appendix A:
//
//	∂N/∂m = 1/(2A_e) · [y_b−y_c, x_c−x_b; y_c−y_a, x_a−x_c; y_a−y_b, x_b−x_a]
//
// A zero-area triangle gives infinite derivatives; NewMesh rejects those.
func NewElemRest(a, b, c geom.Vec2) ElemRest {
	area := geom.RestArea(a, b, c)
	inv2A := 1 / (2 * area)
	e1, e2 := b.Sub(a), c.Sub(a)
	det := e1.Cross(e2) // = 2A
	return ElemRest{
		dN: [3]geom.Vec2{
			{(b.Y - c.Y) * inv2A, (c.X - b.X) * inv2A},
			{(c.Y - a.Y) * inv2A, (a.X - c.X) * inv2A},
			{(a.Y - b.Y) * inv2A, (b.X - a.X) * inv2A},
		},
		Area: area,
		sInv: [4]float64{e2.Y / det, -e2.X / det, -e1.Y / det, e1.X / det},
		dm:   [2]geom.Vec2{e1, e2},
	}
}

// upper lists the local vertex pairs (i ≤ j) of the six distinct 3×3
// blocks of a symmetric 9×9 element matrix, in storage order.
var upper = [6][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}}

// UpperIndex[i][j] is the storage slot of block (i, j) or (j, i).
var UpperIndex = [3][3]int{{0, 1, 2}, {1, 3, 4}, {2, 4, 5}}

// CorotatedFrame returns the world vectors g1, g2 = Pᵀ·R·e1, Pᵀ·R·e2: the
// material weft and warp axes carried into the deformed triangle's plane by
// its rotation (Bender & Deul §4.2). P projects onto the plane of the
// deformed triangle (x_a, x_b, x_c) with p_x along x_b−x_a and
// p_y = n̂×p_x, and R is the rotation of the 2D polar decomposition of
// F = T·S⁻¹. The paper prints p_y = p_x×n, a left-handed frame that
// mirrors counter-clockwise elements; n̂×p_x keeps them counter-clockwise,
// so F has a positive determinant for every non-degenerate triangle.
//
// For a 2×2 matrix the polar rotation is R = [c, −s; s, c] with
// (c, s) ∝ (F₀₀+F₁₁, F₁₀−F₀₁) (Shoemake & Duff 1992). ok is false when
// the deformed triangle is degenerate (collinear corners); the caller then
// keeps the previous frame.
func CorotatedFrame(er *ElemRest, xa, xb, xc geom.Vec3) (g1, g2 geom.Vec3, ok bool) {
	e1, e2 := xb.Sub(xa), xc.Sub(xa)
	n := e1.Cross(e2)
	nn := n.Norm()
	l1 := e1.Norm()
	if !(nn > 1e-14*l1*l1) {
		return geom.Vec3{}, geom.Vec3{}, false
	}
	px := e1.Scale(1 / l1)
	py := n.Scale(1 / nn).Cross(px)
	// T = [x̄_b−x̄_a, x̄_c−x̄_a] in the (p_x, p_y) frame; x̄_b−x̄_a = (l1, 0).
	t00, t01 := l1, px.Dot(e2)
	t11 := py.Dot(e2)
	si := &er.sInv
	f00 := t00*si[0] + t01*si[2]
	f01 := t00*si[1] + t01*si[3]
	f10 := t11 * si[2]
	f11 := t11 * si[3]
	c, s := f00+f11, f10-f01
	h := math.Hypot(c, s)
	if h == 0 {
		return geom.Vec3{}, geom.Vec3{}, false
	}
	c, s = c/h, s/h
	g1 = px.Scale(c).Add(py.Scale(s))
	g2 = py.Scale(c).Sub(px.Scale(s))
	return g1, g2, true
}

// ElementForces returns the three internal nodal forces K_e^R·y + f_0,e
// = G·K_e·(Gᵀ·y − x̄_0) of one element for the stacked positions y
// (Bender & Deul §4.2, with G = Pᵀ·R the corotated frame), computed as
// A_e·B_iᵀ·C·ε with the linear strain ε = Σ_j B_j·u_j of the unrotated
// displacements u_j = Gᵀ(y_j−y_a) − (m_j−m_a). Translation drops out
// because Σ_i B_i = 0. These are the forces the cloth exerts on the outside;
// the elastic force on the vertices is their negative.
func ElementForces(er *ElemRest, c *geom.Mat3, g1, g2 geom.Vec3, ya, yb, yc geom.Vec3) (f [3]geom.Vec3) {
	ex, ey, gxy := ElementStrain(er, g1, g2, ya, yb, yc)
	dN := &er.dN
	sx := (c[0]*ex + c[1]*ey) * er.Area
	sy := (c[3]*ex + c[4]*ey) * er.Area
	sxy := c[8] * gxy * er.Area
	for i := 0; i < 3; i++ {
		// φ_i = A·B_iᵀσ = A·(dx σx + dy τ, dy σy + dx τ)
		phx := dN[i].X*sx + dN[i].Y*sxy
		phy := dN[i].Y*sy + dN[i].X*sxy
		f[i] = g1.Scale(phx).Add(g2.Scale(phy))
	}
	return f
}

// ElementStrain returns the linear strain (ε_x, ε_y, γ_xy) = Σ_j B_j·u_j of
// the element at positions (xa, xb, xc) in its corotated frame (g1, g2),
// with u_j = Gᵀ(x_j−x_a) − (m_j−m_a) (Bender & Deul §4.2).
func ElementStrain(er *ElemRest, g1, g2 geom.Vec3, xa, xb, xc geom.Vec3) (ex, ey, gxy float64) {
	d1, d2 := xb.Sub(xa), xc.Sub(xa)
	u1 := geom.Vec2{g1.Dot(d1) - er.dm[0].X, g2.Dot(d1) - er.dm[0].Y}
	u2 := geom.Vec2{g1.Dot(d2) - er.dm[1].X, g2.Dot(d2) - er.dm[1].Y}
	dN := &er.dN
	ex = dN[1].X*u1.X + dN[2].X*u2.X
	ey = dN[1].Y*u1.Y + dN[2].Y*u2.Y
	gxy = dN[1].Y*u1.X + dN[1].X*u1.Y + dN[2].Y*u2.X + dN[2].X*u2.Y
	return ex, ey, gxy
}

// ElementStress returns the membrane stress (σ_x, σ_y, τ_xy) = C·ε of the
// element at positions (xa, xb, xc) in its corotated frame (g1, g2), N/m.
func ElementStress(er *ElemRest, c *geom.Mat3, g1, g2 geom.Vec3, xa, xb, xc geom.Vec3) (sx, sy, txy float64) {
	ex, ey, gxy := ElementStrain(er, g1, g2, xa, xb, xc)
	return c[0]*ex + c[1]*ey, c[3]*ex + c[4]*ey, c[8] * gxy
}

// tensionPart returns the positive semidefinite part of the symmetric 2×2
// stress [sx, t; t, sy]: compression is dropped.
func tensionPart(sx, sy, t float64) (px, py, pt float64) {
	m, d := 0.5*(sx+sy), math.Hypot(0.5*(sx-sy), t)
	l1, l2 := m+d, m-d // eigenvalues, l1 ≥ l2
	switch {
	case l2 >= 0:
		return sx, sy, t
	case l1 <= 0:
		return 0, 0, 0
	}
	// S⁺ = l1·e1·e1ᵀ with e1 the eigenvector of l1.
	var ex, ey float64
	if d == 0 {
		ex, ey = 1, 0
	} else {
		// (S − l2·I) has columns parallel to e1.
		ex, ey = sx-l2, t
		if math.Abs(ex)+math.Abs(ey) < math.Abs(t)+math.Abs(sy-l2) {
			ex, ey = t, sy-l2
		}
		n := math.Hypot(ex, ey)
		ex, ey = ex/n, ey/n
	}
	return l1 * ex * ex, l1 * ey * ey, l1 * ex * ey
}

// ElementStiffness writes scale·(K_e^R + K_σ) into the six upper 3×3 blocks of
// out, where K_e^R = R_P,e·K_e·R_P,eᵀ and the 2×2 block (i, j) of
// K_e = A_e·B_eᵀ·C·B_e is
//
//	A·[dx_i C00 dx_j + dy_i C22 dy_j,  dx_i C01 dy_j + dy_i C22 dx_j;
//	   dy_i C10 dx_j + dx_i C22 dy_j,  dy_i C11 dy_j + dx_i C22 dx_j]
//
// carried to world space as Σ_kl K_ij[k][l]·g_k·g_lᵀ (Bender & Deul §4.2, eq. 2).
//
// K_σ = A·(∇N_iᵀ·S⁺·∇N_j)·n̂n̂ᵀ is the out-of-plane part of the
// initial-stress (geometric) stiffness of a membrane, for the tensile part
// S⁺ of the stress (sx, sy, txy), N/m. K^R projects onto the element plane,
// so it has no stiffness at all against motion along the normal n̂, where
// a taut membrane's true stiffness is its tension over length: next to a
// pin that holds the cloth's weight that mode is then integrated
// explicitly and, at large Δt, rings with period two. Adding K_σ changes
// only the Jacobian, not the forces or the equilibria; keeping only the
// tensile part keeps the matrix positive definite for conjugate gradients.
// The in-plane part is left out on purpose: K^R already over-stiffens
// in-plane rotation (as shear), and adding stress stiffness there too
// made the orthotropic curtain gain energy in TestEnergyNeverGrows.
//
// kg holds the scalars A·∇N_iᵀ·S⁺·∇N_j of GeometricStiffness.
func ElementStiffness(er *ElemRest, c *geom.Mat3, g1, g2 geom.Vec3, kg *[6]float64, scale float64, out *[6]geom.Mat3) {
	a := er.Area * scale
	dN := &er.dN
	n := g1.Cross(g2)
	for u, p := range upper {
		i, j := p[0], p[1]
		xi, yi, xj, yj := dN[i].X, dN[i].Y, dN[j].X, dN[j].Y
		kgs := kg[u] * scale
		k00 := a * (xi*c[0]*xj + yi*c[8]*yj)
		k01 := a * (xi*c[1]*yj + yi*c[8]*xj)
		k10 := a * (yi*c[3]*xj + xi*c[8]*yj)
		k11 := a * (yi*c[4]*yj + xi*c[8]*xj)
		// W = k00 g1g1ᵀ + k01 g1g2ᵀ + k10 g2g1ᵀ + k11 g2g2ᵀ
		// Row r: g1[r]·(k00 g1 + k01 g2) + g2[r]·(k10 g1 + k11 g2).
		ra := g1.Scale(k00).Add(g2.Scale(k01))
		rb := g1.Scale(k10).Add(g2.Scale(k11))
		w := &out[u]
		w0, w1, w2 := g1.X*ra.X+g2.X*rb.X, g1.X*ra.Y+g2.X*rb.Y, g1.X*ra.Z+g2.X*rb.Z
		w3, w4, w5 := g1.Y*ra.X+g2.Y*rb.X, g1.Y*ra.Y+g2.Y*rb.Y, g1.Y*ra.Z+g2.Y*rb.Z
		w6, w7, w8 := g1.Z*ra.X+g2.Z*rb.X, g1.Z*ra.Y+g2.Z*rb.Y, g1.Z*ra.Z+g2.Z*rb.Z
		if kgs != 0 {
			// kg·n̂n̂ᵀ, row r: (kgs·n̂_r)·n̂ᵀ
			kx, ky, kz := kgs*n.X, kgs*n.Y, kgs*n.Z
			w0 += kx * n.X
			w1 += kx * n.Y
			w2 += kx * n.Z
			w3 += ky * n.X
			w4 += ky * n.Y
			w5 += ky * n.Z
			w6 += kz * n.X
			w7 += kz * n.Y
			w8 += kz * n.Z
		}
		w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8] = w0, w1, w2, w3, w4, w5, w6, w7, w8
	}
}

// GeometricStiffness returns, in upper-block order, the scalars
// A·∇N_iᵀ·S⁺·∇N_j of the out-of-plane stress stiffness K_σ (see
// ElementStiffness) for the stress (sx, sy, txy), N/m.
func GeometricStiffness(er *ElemRest, sx, sy, txy float64) (kg [6]float64) {
	sx, sy, txy = tensionPart(sx, sy, txy)
	if sx == 0 && sy == 0 {
		return kg
	}
	dN := &er.dN
	for u, p := range upper {
		xi, yi, xj, yj := dN[p[0]].X, dN[p[0]].Y, dN[p[1]].X, dN[p[1]].Y
		kg[u] = er.Area * (xi*(sx*xj+txy*yj) + yi*(txy*xj+sy*yj))
	}
	return kg
}
