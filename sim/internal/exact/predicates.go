package exact

import (
	"math"
	"math/big"
	"sync/atomic"

	"drape/sim/geom"
)

// eps is the unit round-off 2⁻⁵³.
const eps = 1.0 / (1 << 53)

// Error-bound factors of the floating-point filters: Shewchuk's
// ccwerrboundA = (3 + 16ε)ε and o3derrboundA = (7 + 56ε)ε ("Adaptive
// precision floating-point arithmetic and fast robust geometric
// predicates", 1997, §4.3), doubled for margin. When |det| exceeds the bound
// times the permanent, the float sign is the exact sign. tiny guards
// against underflow, where relative bounds no longer hold.
const (
	bound2 = 8 * eps
	bound3 = 16 * eps
	tiny   = 1e-250
)

// exactCalls counts the determinants the filter could not decide (for the
// tests and benchmarks).
var exactCalls atomic.Int64

// Orient2D returns the sign (−1, 0, +1) of the determinant
// |b−a, c−a| = (b.x−a.x)(c.y−a.y) − (b.y−a.y)(c.x−a.x): positive when a, b,
// c turn counter-clockwise, 0 when collinear. Exact for finite inputs.
func Orient2D(ax, ay, bx, by, cx, cy float64) int {
	l := (bx - ax) * (cy - ay)
	r := (by - ay) * (cx - ax)
	det := l - r
	perm := math.Abs(l) + math.Abs(r)
	if perm > tiny && !math.IsInf(perm, 0) && math.Abs(det) > bound2*perm {
		return sgn(det)
	}
	// Second stage: if no operation rounded, the float value is exact.
	var x exactFloat
	l = x.mul(x.sub(bx, ax), x.sub(cy, ay))
	r = x.mul(x.sub(by, ay), x.sub(cx, ax))
	if x.ok() {
		return cmp(l, r)
	}
	return exact2(ax, ay, bx, by, cx, cy)
}

// Orient3D returns the sign (−1, 0, +1) of det[a−d; b−d; c−d]: positive
// when d lies below the plane through a, b, c (a, b, c counter-clockwise
// seen from above), 0 when the four points are coplanar. Exact for finite
// inputs.
func Orient3D(a, b, c, d geom.Vec3) int {
	adx, ady, adz := a.X-d.X, a.Y-d.Y, a.Z-d.Z
	bdx, bdy, bdz := b.X-d.X, b.Y-d.Y, b.Z-d.Z
	cdx, cdy, cdz := c.X-d.X, c.Y-d.Y, c.Z-d.Z
	bc, cb := bdy*cdz, bdz*cdy
	ca, ac := cdy*adz, cdz*ady
	ab, ba := ady*bdz, adz*bdy
	det := adx*(bc-cb) + bdx*(ca-ac) + cdx*(ab-ba)
	perm := (math.Abs(bc)+math.Abs(cb))*math.Abs(adx) +
		(math.Abs(ca)+math.Abs(ac))*math.Abs(bdx) +
		(math.Abs(ab)+math.Abs(ba))*math.Abs(cdx)
	if perm > tiny && !math.IsInf(perm, 0) && math.Abs(det) > bound3*perm {
		return sgn(det)
	}
	// Second stage: if no operation rounded, the float value is exact.
	var x exactFloat
	adx, ady, adz = x.sub(a.X, d.X), x.sub(a.Y, d.Y), x.sub(a.Z, d.Z)
	bdx, bdy, bdz = x.sub(b.X, d.X), x.sub(b.Y, d.Y), x.sub(b.Z, d.Z)
	cdx, cdy, cdz = x.sub(c.X, d.X), x.sub(c.Y, d.Y), x.sub(c.Z, d.Z)
	t1 := x.mul(adx, x.sub(x.mul(bdy, cdz), x.mul(bdz, cdy)))
	t2 := x.mul(bdx, x.sub(x.mul(cdy, adz), x.mul(cdz, ady)))
	t3 := x.mul(cdx, x.sub(x.mul(ady, bdz), x.mul(adz, bdy)))
	if s := x.add(t1, t2); x.ok() {
		return cmp(s, -t3)
	}
	return exact3(a, b, c, d)
}

// exactFloat evaluates float64 operations and remembers whether any of
// them rounded (or overflowed): a difference or sum is exact when its
// round-off term from Knuth's TwoSum is zero, a product when
// fma(a, b, −a·b) is zero. When none rounded, the result is the exact
// value of the expression, and its sign (or a comparison) is exact.
type exactFloat struct{ inexact bool }

func (x *exactFloat) ok() bool { return !x.inexact }

func (x *exactFloat) add(a, b float64) float64 {
	s := a + b
	bv := s - a
	av := s - bv
	if (a-av)+(b-bv) != 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		x.inexact = true
	}
	return s
}

func (x *exactFloat) sub(a, b float64) float64 { return x.add(a, -b) }

func (x *exactFloat) mul(a, b float64) float64 {
	p := a * b
	// The fma residual of a product in the subnormal range may itself
	// underflow to zero, so such products count as inexact.
	if math.FMA(a, b, -p) != 0 || math.IsInf(p, 0) || math.IsNaN(p) || a != 0 && b != 0 && math.Abs(p) < 0x1p-1022 {
		x.inexact = true
	}
	return p
}

// cmp returns the sign of a − b for exact a and b.
func cmp(a, b float64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

func sgn(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// floatPrec is the big.Float precision of the second stage: enough for
// the exact products of differences of coordinates within a factor 2^60
// of each other; when any operation rounds (big.Float reports it), the
// big.Rat stage decides.
const floatPrec = 512

// bf is a big.Float calculator that remembers whether any result was
// rounded.
type bf struct{ exact bool }

func (c *bf) num(x float64) *big.Float { return new(big.Float).SetPrec(floatPrec).SetFloat64(x) }

func (c *bf) sub(x, y *big.Float) *big.Float {
	z := new(big.Float).SetPrec(floatPrec).Sub(x, y)
	c.exact = c.exact && z.Acc() == big.Exact
	return z
}

func (c *bf) add(x, y *big.Float) *big.Float {
	z := new(big.Float).SetPrec(floatPrec).Add(x, y)
	c.exact = c.exact && z.Acc() == big.Exact
	return z
}

func (c *bf) mul(x, y *big.Float) *big.Float {
	z := new(big.Float).SetPrec(floatPrec).Mul(x, y)
	c.exact = c.exact && z.Acc() == big.Exact
	return z
}

func exact2(ax, ay, bx, by, cx, cy float64) int {
	exactCalls.Add(1)
	if s, ok := float2(ax, ay, bx, by, cx, cy); ok {
		return s
	}
	return rat2(ax, ay, bx, by, cx, cy)
}

func float2(ax, ay, bx, by, cx, cy float64) (int, bool) {
	c := bf{exact: true}
	l := c.mul(c.sub(c.num(bx), c.num(ax)), c.sub(c.num(cy), c.num(ay)))
	r := c.mul(c.sub(c.num(by), c.num(ay)), c.sub(c.num(cx), c.num(ax)))
	det := c.sub(l, r)
	return det.Sign(), c.exact
}

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func rsub(x, y *big.Rat) *big.Rat { return new(big.Rat).Sub(x, y) }
func rmul(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }
func radd(x, y *big.Rat) *big.Rat { return new(big.Rat).Add(x, y) }

func rat2(ax, ay, bx, by, cx, cy float64) int {
	l := rmul(rsub(rat(bx), rat(ax)), rsub(rat(cy), rat(ay)))
	r := rmul(rsub(rat(by), rat(ay)), rsub(rat(cx), rat(ax)))
	return rsub(l, r).Sign()
}

func exact3(a, b, c, d geom.Vec3) int {
	exactCalls.Add(1)
	if s, ok := float3(a, b, c, d); ok {
		return s
	}
	return rat3(a, b, c, d)
}

func float3(a, b, c, d geom.Vec3) (int, bool) {
	k := bf{exact: true}
	adx, ady, adz := k.sub(k.num(a.X), k.num(d.X)), k.sub(k.num(a.Y), k.num(d.Y)), k.sub(k.num(a.Z), k.num(d.Z))
	bdx, bdy, bdz := k.sub(k.num(b.X), k.num(d.X)), k.sub(k.num(b.Y), k.num(d.Y)), k.sub(k.num(b.Z), k.num(d.Z))
	cdx, cdy, cdz := k.sub(k.num(c.X), k.num(d.X)), k.sub(k.num(c.Y), k.num(d.Y)), k.sub(k.num(c.Z), k.num(d.Z))
	t1 := k.mul(adx, k.sub(k.mul(bdy, cdz), k.mul(bdz, cdy)))
	t2 := k.mul(bdx, k.sub(k.mul(cdy, adz), k.mul(cdz, ady)))
	t3 := k.mul(cdx, k.sub(k.mul(ady, bdz), k.mul(adz, bdy)))
	det := k.add(k.add(t1, t2), t3)
	return det.Sign(), k.exact
}

func rat3(a, b, c, d geom.Vec3) int {
	adx, ady, adz := rsub(rat(a.X), rat(d.X)), rsub(rat(a.Y), rat(d.Y)), rsub(rat(a.Z), rat(d.Z))
	bdx, bdy, bdz := rsub(rat(b.X), rat(d.X)), rsub(rat(b.Y), rat(d.Y)), rsub(rat(b.Z), rat(d.Z))
	cdx, cdy, cdz := rsub(rat(c.X), rat(d.X)), rsub(rat(c.Y), rat(d.Y)), rsub(rat(c.Z), rat(d.Z))
	t1 := rmul(adx, rsub(rmul(bdy, cdz), rmul(bdz, cdy)))
	t2 := rmul(bdx, rsub(rmul(cdy, adz), rmul(cdz, ady)))
	t3 := rmul(cdx, rsub(rmul(ady, bdz), rmul(adz, bdy)))
	return radd(radd(t1, t2), t3).Sign()
}

// dotSign returns the exact sign of (p − q)·n.
func dotSign(p, q, n geom.Vec3) int {
	d := p.Sub(q)
	s := d.X*n.X + d.Y*n.Y + d.Z*n.Z
	perm := math.Abs(d.X*n.X) + math.Abs(d.Y*n.Y) + math.Abs(d.Z*n.Z)
	if perm > tiny && !math.IsInf(perm, 0) && math.Abs(s) > bound3*perm {
		return sgn(s)
	}
	exactCalls.Add(1)
	t := new(big.Rat)
	for _, c := range [3][3]float64{{p.X, q.X, n.X}, {p.Y, q.Y, n.Y}, {p.Z, q.Z, n.Z}} {
		t = radd(t, rmul(rsub(rat(c[0]), rat(c[1])), rat(c[2])))
	}
	return t.Sign()
}
