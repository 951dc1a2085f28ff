package fabric

import (
	"fmt"
	"math"

	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/geom"
)

// Direction is a specimen's cut: its long axis along the warp (material
// Y), the weft (material X), or the bias (45° between them).
type Direction int

const (
	Warp Direction = iota
	Weft
	Bias
)

func (d Direction) String() string {
	switch d {
	case Warp:
		return "warp"
	case Weft:
		return "weft"
	case Bias:
		return "bias"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// strip returns a flat horizontal strip, length along world −Z from
// z = −start (material long coordinate s ∈ [−start, length−start]) and
// width along world X centred on x = 0, at height 0: the specimen of the
// cantilever and tensile tests. Its material axes are cut along d: for
// Warp the long axis is material Y, for Weft material X, for Bias the
// material frame is turned 45° (X and Y both at 45° to the long axis).
// nl and nw are the quad counts along and across; the grid's diagonals
// alternate as geom.RegularGrid's do.
func strip(d Direction, length, width, start float64, nl, nw int) (*geom.Mesh, error) {
	g, err := geom.RegularGrid(width, length, nw, nl) // rest: X across, Y along
	if err != nil {
		return nil, err
	}
	pos := make([]geom.Vec3, len(g.Rest))
	rest := make([]geom.Vec2, len(g.Rest))
	c, s := math.Cos(math.Pi/4), math.Sin(math.Pi/4)
	for i, r := range g.Rest {
		a, l := r.X-width/2, r.Y-start // across, along
		pos[i] = geom.Vec3{X: a, Y: 0, Z: -l}
		switch d {
		case Warp:
			rest[i] = geom.Vec2{X: a, Y: l}
		case Weft: // long axis material X; keep the rest counter-clockwise
			rest[i] = geom.Vec2{X: l, Y: -a}
		case Bias:
			rest[i] = geom.Vec2{X: c*a + s*l, Y: -s*a + c*l}
		}
	}
	return geom.NewMesh(pos, rest, g.Tris)
}

// along returns the specimen's long coordinate of world point p (strip's
// −Z axis).
func along(p geom.Vec3) float64 { return -p.Z }

// newSim returns a simulation of specimen m in material p as a lab tests
// it: still air (no wind, no air drag), nothing to touch (collisions off)
// and no strain limiting (cloth.New's default), with the pins pin picks
// (pin(i) for vertex slot i) held where they start.
func newSim(m *geom.Mesh, p cloth.Params, pin func(i int) bool) (*cloth.Sim, error) {
	p.Wind, p.AirDrag = geom.Vec3{}, 0
	s, err := cloth.New(m, p)
	if err != nil {
		return nil, err
	}
	cp := contact.DefaultParams()
	cp.Enabled = false
	if err := s.SetContactParams(cp); err != nil {
		return nil, err
	}
	for i := range m.Pos {
		if pin(i) {
			if err := s.Pin(int32(i), m.Pos[i]); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}
