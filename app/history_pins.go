package app

import (
	"fmt"

	"drape/sim/cloth"
	"drape/sim/geom"
)

// Undo of a scripted pin (history.go): a pin that followed a path (the
// curtain's gathered top row, fold's lifted edge) comes back following
// it, not fixed where it was.

// pathPinner is a model whose pins may follow a scripted path (the FEM
// cloth, cloth.Pin.Path): undo puts such a pin back on its path.
type pathPinner interface {
	// PinPath returns the anchor and path of vertex v's scripted pin,
	// whose target is anchor + path.At(t); a nil path for none.
	PinPath(v int32) (anchor geom.Vec3, path *cloth.Path)
	// RepinPath pins v to anchor + path.At(t) again (see glidePath).
	RepinPath(v int32, anchor geom.Vec3, path *cloth.Path) error
}

func (f *femModel) PinPath(v int32) (geom.Vec3, *cloth.Path) {
	for _, p := range f.sim.Pins() {
		if p.Vertex == v {
			return p.Anchor, p.Path
		}
	}
	return geom.Vec3{}, nil
}

func (f *femModel) RepinPath(v int32, anchor geom.Vec3, path *cloth.Path) error {
	x, ok := f.VertexPos(v)
	if !ok {
		return fmt.Errorf("vertex %d does not exist", v)
	}
	return f.sim.PinPath(v, glidePath(x, anchor, path, f.sim.Time, f.sim.Params().Dt))
}

// glidePath returns the path, relative to x (cloth.Sim.PinPath anchors a
// path at the vertex, here at x), of a pin that goes from x at time t
// back onto the target anchor + path.At(s) at cloth.HandSpeed (as a pin
// put back by undo does, rather than jumping and tearing the cloth) and
// from then on follows it: the keys (t, 0) and (t + T, anchor +
// path.At(t+T) − x), then path's keys after t + T shifted by anchor − x.
// Path is piecewise linear, so between t + T and its next key the glide
// path is path itself. The glide time T is the distance to cover over
// HandSpeed, taken where the target will be (three fixed-point rounds);
// 0 within what a hand moves in one step of dt, and then the path is
// path shifted.
func glidePath(x, anchor geom.Vec3, path *cloth.Path, t, dt float64) *cloth.Path {
	on := func(s float64) geom.Vec3 { return anchor.Add(path.At(s)) }
	var glide float64
	if on(t).Sub(x).Norm() > cloth.HandSpeed*dt {
		for range 3 {
			glide = max(glide, on(t+glide).Sub(x).Norm()/cloth.HandSpeed)
		}
	}
	g := &cloth.Path{}
	key := func(s float64, p geom.Vec3) {
		g.Times = append(g.Times, s)
		g.Offsets = append(g.Offsets, p.Sub(x))
	}
	if glide > 0 {
		key(t, x)
		key(t+glide, on(t+glide))
	}
	for i, s := range path.Times {
		if glide == 0 || s > t+glide {
			key(s, anchor.Add(path.Offsets[i]))
		}
	}
	if len(g.Times) == 0 { // an empty path: the anchor
		key(t, anchor)
	}
	return g
}
