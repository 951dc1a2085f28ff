package app

import (
	"math"
	"slices"
	"time"

	"drape/sim/adapt"
	"drape/sim/buf"
	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/scene"
)

// femModel adapts the FEM cloth (cloth.Sim, Bender & Deul 2012) to Model.
// Its blocks are params, adapt (held once set), contact and strain
// (femBlocks).
type femModel struct {
	sim *cloth.Sim

	ws    geom.CurvatureWorkspace
	disp  geom.DisplayWorkspace
	curv  []float64  // raw mean curvature per slot
	dcurv []float64  // display mean curvature per slot
	dTris [][3]int32 // the faces dcurv was computed on (Surface's reuse)
	p98   float32    // the CurvAbsP98 of dcurv
	nrm   []geom.Vec3
	absH  []weighted
	pins  []ModelPin
	obs   obstacleCache

	tangled     int       // last count of intersecting triangle pairs
	tangledNext time.Time // when the next count is due (tangledWait)
}

// tangledEvery is how often (wall time) Surface recounts the intersecting
// triangle pairs: the count allocates and costs about as much as a
// collision pass, too much for every snapshot.
const tangledEvery = time.Second

// tangledSpacing: after a count that took c, the next waits at least
// tangledSpacing·c, so that the count takes at most 1/tangledSpacing of
// the simulation goroutine's time. Measured: 0.32 s a count on the
// curtain refined to 195 128 faces (which sliders can ask for), a third
// of every second then, and the 0.3–0.4 s that a command given up a
// step for still waited there (docs/robustness.md); then counted every
// 6.4 s. The built-in scenes' counts take a few ms and stay at
// tangledEvery.
const tangledSpacing = 20

// tangledWait returns how long after a count that took cost the next
// one is due.
func tangledWait(cost time.Duration) time.Duration {
	return max(tangledEvery, tangledSpacing*cost)
}

func newFEMModel(s *cloth.Sim) *femModel { return &femModel{sim: s} }

func (f *femModel) Step() (StepInfo, error) {
	st, err := f.sim.Step()
	return StepInfo{st}, err
}

func (f *femModel) Time() float64               { return f.sim.Time }
func (f *femModel) Steps() int                  { return f.sim.Steps }
func (f *femModel) Dt() float64                 { return f.sim.Params().Dt }
func (f *femModel) Finite() bool                { return f.sim.Finite() }
func (f *femModel) KineticEnergy() float64      { return f.sim.KineticEnergy() }
func (f *femModel) LastAdapt() cloth.AdaptStats { return f.sim.LastAdapt() }
func (f *femModel) SetInterrupt(fn func() bool) { f.sim.SetInterrupt(fn) }

// femBlocks are the blocks the FEM cloth has.
var femBlocks = blockSet(BlockParams, BlockAdapt, BlockContact, BlockStrain)

func (f *femModel) Blocks() Blocks {
	s := f.sim
	b := Blocks{Params: s.Params(), Contact: s.ContactParams(), Strain: s.StrainParams(), Held: femBlocks &^ blockSet(BlockAdapt)}
	if ap := s.AdaptParams(); ap.Validate() == nil { // set (the zero value, never set, does not validate)
		b.Adapt, b.Held = ap, femBlocks
	}
	return b
}

func (f *femModel) SetBlocks(b Blocks) error {
	s := f.sim
	return applyBlocks("the FEM cloth", femBlocks, f.Blocks(), b, func(k Block, b *Blocks) error {
		switch k {
		case BlockParams:
			return s.SetParams(b.Params)
		case BlockAdapt:
			return s.SetAdaptParams(b.Adapt)
		case BlockContact:
			return s.SetContactParams(b.Contact)
		case BlockStrain:
			return s.SetStrainParams(b.Strain)
		}
		return nil
	})
}

func (f *femModel) SaveObstacles(sc *scene.Scene) {
	// The obstacles are built from sc.Obstacles in order (scene.Build), so
	// index i is spec i; a saved scene puts each where it was dragged.
	for i, o := range f.sim.Obstacles() {
		if i >= len(sc.Obstacles) {
			break
		}
		off := o.Offset()
		p := &sc.Obstacles[i].Position
		p[0], p[1], p[2] = p[0]+off.X, p[1]+off.Y, p[2]+off.Z
	}
}

func (f *femModel) MoveObstacle(i int, offset geom.Vec3) error {
	_, err := f.sim.JumpObstacle(i, offset)
	return err
}

func (f *femModel) DragObstacle(i int, goal geom.Vec3) error { return f.sim.DragObstacle(i, goal) }

func (f *femModel) Pins() []ModelPin {
	f.pins = f.pins[:0]
	for _, p := range f.sim.Pins() {
		f.pins = append(f.pins, ModelPin{Vertex: p.Vertex, Target: pinShown(p), Scripted: p.Path != nil})
	}
	return f.pins
}

// VertexPos returns the position of vertex v, m; false when v is not a
// live vertex (history.go's vertexPositioner).
func (f *femModel) VertexPos(v int32) (geom.Vec3, bool) {
	m := f.sim.Mesh
	if v < 0 || int(v) >= len(m.Pos) || !m.VertAlive[v] {
		return geom.Vec3{}, false
	}
	return m.Pos[v], true
}

func (f *femModel) Pin(v int32, target geom.Vec3) error  { return f.sim.Pin(v, target) }
func (f *femModel) Unpin(v int32)                        { f.sim.Unpin(v) }
func (f *femModel) Drag(v int32, target geom.Vec3) error { return f.sim.Drag(v, target) }
func (f *femModel) Release()                             { f.sim.Release() }

func (f *femModel) PinEdit(v int32, target geom.Vec3, remove bool) (scene.PinSpec, bool) {
	m := f.sim.Mesh
	if v < 0 || int(v) >= len(m.Pos) || !m.VertAlive[v] {
		return scene.PinSpec{}, false
	}
	return scene.PinEdit(m, v, target, remove), true
}

// Surface compacts the simulation mesh into dst: dead slots skipped, live
// vertices numbered densely in slot order, with the display mean curvature
// (geom.DisplayCurvature: Meyer et al. 2003's H averaged over σ =
// geom.DisplaySpread·√A of the cloth) and area-weighted normals. It runs
// on the simulation goroutine after every step. Of the curtain's, DisplayCurvature takes about what
// MeanCurvature does; the colour range's weightedPercentile
// selects rather than sorts, since the smoothed field has as many distinct
// values as vertices (sorting them took 2.8 ms; the raw H of the flat
// starting curtain had 248). The FEM cloth draws the surface it
// simulates: Detail stays empty.
//
// With reuse, and the mesh's faces what they were at the last call that
// computed the curvature, that curvature (and its percentile) is drawn
// again (Loop.publish). BenchmarkSnapshot, 2 cores, 2026-11-29: hanging
// (1 800 triangles, a step of about 1.5–7 ms) 0.40 ms, 0.10 ms with
// reuse; curtain (22 140 triangles) 3.45 ms, 1.06 ms with reuse.
func (f *femModel) Surface(dst *Snapshot, reuse bool) SurfaceInfo {
	s := f.sim
	m := s.Mesh
	nslots := len(m.Pos)
	f.nrm = buf.Grow(f.nrm, nslots)
	fresh := !reuse || len(f.dcurv) != nslots || !slices.Equal(f.dTris, m.Tris)
	if fresh {
		f.curv = buf.Grow(f.curv, nslots)
		f.dcurv = buf.Grow(f.dcurv, nslots)
		f.ws.MeanCurvature(m, f.curv)
		f.disp.DisplayCurvature(m, f.curv, 0, f.dcurv)
		f.dTris = append(f.dTris[:0], m.Tris...)
	}
	f.ws.VertexNormals(m, f.nrm)

	dst.Pos, dst.Normal, dst.Curv, dst.Rest = dst.Pos[:0], dst.Normal[:0], dst.Curv[:0], dst.Rest[:0]
	dst.Detail.clear()
	dst.Slot = dst.Slot[:0]
	dst.DenseOf = buf.Grow(dst.DenseOf, nslots)
	f.absH = f.absH[:0]
	lo := [3]float32{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	hi := [3]float32{float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))}
	for i := 0; i < nslots; i++ {
		if !m.VertAlive[i] {
			dst.DenseOf[i] = -1
			continue
		}
		dst.DenseOf[i] = int32(len(dst.Slot))
		dst.Slot = append(dst.Slot, int32(i))
		p, n := m.Pos[i], f.nrm[i]
		pf := [3]float32{float32(p.X), float32(p.Y), float32(p.Z)}
		dst.Pos = append(dst.Pos, pf[0], pf[1], pf[2])
		dst.Normal = append(dst.Normal, float32(n.X), float32(n.Y), float32(n.Z))
		dst.Rest = append(dst.Rest, float32(m.Rest[i].X), float32(m.Rest[i].Y))
		h := float32(f.dcurv[i])
		dst.Curv = append(dst.Curv, h)
		if fresh {
			f.absH = append(f.absH, weighted{float32(math.Abs(float64(h))), float32(s.Mass(i))})
		}
		for k := range 3 {
			lo[k] = min(lo[k], pf[k])
			hi[k] = max(hi[k], pf[k])
		}
	}
	dst.Lo, dst.Hi = lo, hi
	dst.Tris, dst.FaceGen = dst.Tris[:0], dst.FaceGen[:0]
	for fi, t := range m.Tris {
		if !m.FaceAlive(fi) {
			continue
		}
		dst.Tris = append(dst.Tris, uint32(dst.DenseOf[t[0]]), uint32(dst.DenseOf[t[1]]), uint32(dst.DenseOf[t[2]]))
		dst.FaceGen = append(dst.FaceGen, uint8(min(adapt.Generation(m.Gen[fi]), 255)))
	}
	f.obs.fill(dst, s.Obstacles(), s.Time)
	dst.Pins = dst.Pins[:0]
	for _, p := range f.Pins() {
		v := m.Pos[p.Vertex]
		dst.Pins = append(dst.Pins, PinInfo{
			Slot:     p.Vertex,
			Dense:    dst.DenseOf[p.Vertex],
			Pos:      [3]float32{float32(v.X), float32(v.Y), float32(v.Z)},
			Target:   [3]float32{float32(p.Target.X), float32(p.Target.Y), float32(p.Target.Z)},
			Scripted: p.Scripted,
		})
	}
	if now := time.Now(); !now.Before(f.tangledNext) {
		f.tangled = contact.IntersectingPairs(m.Pos, m.Tris)
		f.tangledNext = now.Add(tangledWait(time.Since(now)))
	}
	if fresh {
		f.p98 = weightedPercentile(f.absH, 0.98)
	}
	return SurfaceInfo{CurvAbsP98: f.p98, Tangled: f.tangled}
}

// pinShown is where the viewer draws pin p: where the person put it (its
// goal) for a pin without a path, which its vertex follows at
// cloth.HandSpeed.
func pinShown(p cloth.Pin) geom.Vec3 {
	if p.Path == nil {
		return p.Goal
	}
	return p.Target
}
