package app

import (
	"errors"
	"fmt"
	"math"
	"time"

	"drape/sim/buf"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
	"drape/sim/springs"
)

// springsModel adapts the mass-spring cloth with dynamic subdivision
// (springs.Cloth, Olson & Rudnick) to Model. Its one block is springs
// (springsBlocks). Model vertex ids are particle IDs; the cell-centre
// vertices that Surface adds at T-junctions have no particle and map to
// Slot −1, so a pick that lands on one selects nothing.
type springsModel struct {
	c *springs.Cloth

	surf springs.Surface
	nrm  []geom.Vec3
	pbuf []springs.Pin
	pins []ModelPin
}

func newSpringsModel(c *springs.Cloth) *springsModel { return &springsModel{c: c} }

// SpringsInfo is what the viewer shows of the mass-spring cloth; the zero
// value (On false) for any other model.
type SpringsInfo struct {
	On         bool
	Counts     springs.Counts // particles by type, springs and the deepest layer
	StableStep float64        // largest stable Δt estimated by springs.Cloth.StableStep, s
	Variant    springs.Variant
}

// Particles returns the number of simulated particles (active and fixed).
func (s SpringsInfo) Particles() int { return s.Counts.Active + s.Counts.Fixed }

// Step advances the cloth one animation step. A blow-up
// (springs.ErrUnstable; the cloth restores the state before the step) is
// reported wrapping cloth.ErrUnstable too, so that the Loop stops and the
// viewer shows its banner as for the FEM cloth; springs' message gives
// the largest stable step it estimates and the Δt in force.
func (m *springsModel) Step() (StepInfo, error) {
	t0 := time.Now()
	err := m.c.Step()
	var st StepInfo
	st.Other = time.Since(t0)
	if errors.Is(err, springs.ErrUnstable) {
		return st, fmt.Errorf("%w: %w", cloth.ErrUnstable, err) // err names the stable step estimate
	}
	return st, err
}

func (m *springsModel) Time() float64               { return m.c.Time() }
func (m *springsModel) Steps() int                  { return m.c.Steps() }
func (m *springsModel) Dt() float64                 { return m.c.Dt() }
func (m *springsModel) Finite() bool                { return m.c.Finite() }
func (m *springsModel) KineticEnergy() float64      { return m.c.KineticEnergy() }
func (m *springsModel) LastAdapt() cloth.AdaptStats { return cloth.AdaptStats{} }

// SetInterrupt does nothing: an explicit step of the spring cloth is one
// pass over its springs, never long enough to give up.
func (m *springsModel) SetInterrupt(func() bool) {}

// springsBlocks are the blocks the mass-spring cloth has.
var springsBlocks = blockSet(BlockSprings)

func (m *springsModel) Blocks() Blocks { return Blocks{Springs: m.c.Params(), Held: springsBlocks} }

func (m *springsModel) SetBlocks(b Blocks) error {
	return applyBlocks("the mass-spring cloth", springsBlocks, m.Blocks(), b, func(_ Block, b *Blocks) error { return m.c.SetParams(b.Springs) })
}

// SaveObstacles writes nothing: the spring cloth has no obstacles.
func (m *springsModel) SaveObstacles(*scene.Scene) {}

func (m *springsModel) Pins() []ModelPin {
	m.pbuf = m.c.Pins(m.pbuf[:0])
	m.pins = m.pins[:0]
	for _, p := range m.pbuf {
		m.pins = append(m.pins, ModelPin{Vertex: p.ID, Target: p.Target})
	}
	return m.pins
}

func (m *springsModel) Pin(v int32, target geom.Vec3) error  { return m.c.Pin(int(v), target) }
func (m *springsModel) Unpin(v int32)                        { m.c.Unpin(int(v)) }
func (m *springsModel) Drag(v int32, target geom.Vec3) error { return m.c.Drag(int(v), target) }
func (m *springsModel) Release()                             { m.c.Release() }

// MoveObstacle reports that the spring cloth has no obstacles to move
// (its table and pole are part of the built-in scene, not obstacles).
func (m *springsModel) MoveObstacle(i int, offset geom.Vec3) error {
	return fmt.Errorf("the mass-spring cloth has no movable obstacles")
}

// DragObstacle fails as MoveObstacle does.
func (m *springsModel) DragObstacle(i int, goal geom.Vec3) error { return m.MoveObstacle(i, goal) }

// PinEdit returns false: a springs scene takes its fixed particles from
// its built-in cloth (scene.Scene.Validate rejects "pins" there), so pins
// set in the viewer are not saved with the scene.
func (m *springsModel) PinEdit(int32, geom.Vec3, bool) (scene.PinSpec, bool) {
	return scene.PinSpec{}, false
}

// Surface writes the cloth's crack-free triangulation (springs.Cloth.Surface,
// Olson & Rudnick §3.3) into dst with area-weighted vertex normals, and
// the deepest subdivision layer of each triangle's vertices as its
// FaceGen, so that the wireframe coloured by generation shows the layers.
// Mean curvature is not computed (Curv is 0): the grid has no geom.Mesh.
func (m *springsModel) Surface(dst *Snapshot, _ bool) SurfaceInfo {
	c := m.c
	c.Surface(&m.surf)
	s := &m.surf
	nv := len(s.Pos)
	m.nrm = buf.Grow(m.nrm, nv)
	clear(m.nrm)
	for _, t := range s.Tris {
		a, b, d := s.Pos[t[0]], s.Pos[t[1]], s.Pos[t[2]]
		n := b.Sub(a).Cross(d.Sub(a)) // twice the area along the normal
		for _, k := range t {
			m.nrm[k] = m.nrm[k].Add(n)
		}
	}

	dst.Pos, dst.Normal, dst.Curv = dst.Pos[:0], dst.Normal[:0], dst.Curv[:0]
	dst.Detail.clear()
	dst.Slot = dst.Slot[:0]
	dst.DenseOf = buf.Grow(dst.DenseOf, c.NumParticles())
	for i := range dst.DenseOf {
		dst.DenseOf[i] = -1
	}
	lo := [3]float32{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	hi := [3]float32{float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))}
	for i, p := range s.Pos {
		id := s.ID[i]
		if id >= 0 {
			dst.DenseOf[id] = int32(i)
		}
		dst.Slot = append(dst.Slot, id)
		pf := [3]float32{float32(p.X), float32(p.Y), float32(p.Z)}
		dst.Pos = append(dst.Pos, pf[0], pf[1], pf[2])
		n := m.nrm[i]
		if l := n.Norm(); l > 0 {
			n = n.Scale(1 / l)
		}
		dst.Normal = append(dst.Normal, float32(n.X), float32(n.Y), float32(n.Z))
		dst.Curv = append(dst.Curv, 0)
		for k := range 3 {
			lo[k] = min(lo[k], pf[k])
			hi[k] = max(hi[k], pf[k])
		}
	}
	dst.Lo, dst.Hi = lo, hi
	dst.Tris, dst.FaceGen = dst.Tris[:0], dst.FaceGen[:0]
	for _, t := range s.Tris {
		dst.Tris = append(dst.Tris, uint32(t[0]), uint32(t[1]), uint32(t[2]))
		dst.FaceGen = append(dst.FaceGen, max(s.Layer[t[0]], s.Layer[t[1]], s.Layer[t[2]]))
	}
	dst.Pins = dst.Pins[:0]
	for _, p := range m.Pins() {
		v := c.Pos(int(p.Vertex))
		dst.Pins = append(dst.Pins, PinInfo{
			Slot:   p.Vertex,
			Dense:  dst.DenseOf[p.Vertex],
			Pos:    [3]float32{float32(v.X), float32(v.Y), float32(v.Z)},
			Target: [3]float32{float32(p.Target.X), float32(p.Target.Y), float32(p.Target.Z)},
		})
	}
	dst.Springs = SpringsInfo{On: true, Counts: c.Counts(), StableStep: c.StableStep(), Variant: c.Spec().Variant}
	return SurfaceInfo{Tangled: -1}
}
