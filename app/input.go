package app

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"drape/render"
	"drape/sim/geom"
	"drape/sim/obstacle"
)

// Input codes as GLFW defines them (render.Handlers passes GLFW's ints);
// repeated here so this file stays pure Go and testable without a window.
const (
	mouseLeft   = 0
	mouseRight  = 1
	mouseMiddle = 2

	modShift   = 0x1
	modControl = 0x2
	modAlt     = 0x4

	keySpace  = 32
	keyEscape = 256
	keyF      = 70 // GLFW letter keys are their upper-case ASCII codes
	keyG      = 71
	keyH      = 72
	keyO      = 79
	keyD      = 68
	keyP      = 80
	keyR      = 82
	keyS      = 83
	keyW      = 87
	keyC      = 67
	keyY      = 89
	keyZ      = 90
)

// Camera controls.
const (
	orbitPerPixel = 0.006 // rad of yaw or pitch per window pixel of drag
	zoomPerNotch  = 0.88  // distance factor per wheel notch towards the scene
	pinPickRadius = 12    // window pixels within which a pin marker is grabbed
)

// commandSink receives the commands interaction produces (Loop does).
type commandSink interface {
	Send(Command)
}

// dragMode is what the mouse is doing.
type dragMode int

const (
	modeIdle     dragMode = iota
	modeOrbit             // left drag on empty space
	modePan               // right or middle drag
	modeVertex            // left drag on a vertex: moving a pin target, or pulling a free vertex
	modeObstacle          // Shift + left drag on an obstacle: moving it
)

// Interaction is the camera, picking and dragging state machine. It is pure
// Go: it reads the camera and the latest snapshot and sends Commands, so
// tests drive it with synthetic events.
//
// Mouse: left drag on empty space orbits; right or middle drag pans; the
// wheel zooms. Left drag on a pinned vertex moves its pin target in the
// plane through the target facing the camera; left drag on a free vertex
// pulls it there with a stiff spring until release. Ctrl+left click
// toggles a vertex's pin. Shift+left drag on an obstacle (not a ground
// plane, which has nowhere to go) moves it in the plane through the
// grabbed point facing the camera, like a pin target; the simulation
// moves it there over the next steps and it pushes the cloth.
type Interaction struct {
	mode   dragMode
	lastX  float64 // cursor at the previous event, window pixels
	lastY  float64
	button int // button that started the current drag

	Hover int32 // sim vertex slot under the cursor, −1 for none

	// Drag of a vertex (modeVertex).
	Dragged   int32      // sim vertex slot, −1 when not dragging a vertex
	dragPin   bool       // dragging a pin target rather than a free vertex
	dragEpoch uint64     // snapshot epoch the drag started in
	pinSlots  []int32    // pin drag: the pinned slots of the last snapshot seen, sorted
	pinAt     [3]float32 // pin drag: the dragged pin's position in the last snapshot seen
	planeP    mgl32.Vec3 // a point on the drag plane, world m
	planeN    mgl32.Vec3 // drag plane normal: the camera's viewing direction
	offset    mgl32.Vec3 // target − cursor point on the plane at the press, so the target never jumps

	// Drag of an obstacle (modeObstacle); the plane and epoch are shared
	// with the vertex drag.
	Obstacle      int        // index of the obstacle being dragged, −1 when none
	HideObstacles bool       // the obstacles are not drawn (O), so they cannot be grabbed
	obsStart      mgl32.Vec3 // its user offset at the press, m
	obsHit        mgl32.Vec3 // the grabbed point on its surface, world m
}

// NewInteraction returns an idle interaction.
func NewInteraction() *Interaction { return &Interaction{Hover: -1, Dragged: -1, Obstacle: -1} }

// Busy reports whether a mouse drag is in progress.
func (in *Interaction) Busy() bool { return in.mode != modeIdle }

// MouseButton handles a press or release at the current cursor position.
// overUI tells that ImGui wants the mouse (a press on a panel), in which
// case presses are ignored; releases are always handled so no drag sticks.
func (in *Interaction) MouseButton(button int, down bool, mods int, overUI bool, cam *render.Camera, snap *Snapshot, sink commandSink) {
	if !down {
		if in.mode == modeVertex && button == in.button {
			if !in.dragPin {
				sink.Send(Command{Kind: CmdRelease})
			}
			in.Dragged = -1
		}
		if in.mode == modeObstacle && button == in.button {
			in.Obstacle = -1
		}
		if button == in.button {
			in.mode = modeIdle
		}
		return
	}
	if overUI || in.mode != modeIdle {
		return
	}
	in.button = button
	switch button {
	case mouseRight, mouseMiddle:
		in.mode = modePan
	case mouseLeft:
		if mods&modShift != 0 {
			in.startObstacleDrag(cam, snap)
			return
		}
		slot, pinned := in.pick(cam, snap, in.lastX, in.lastY)
		switch {
		case slot < 0:
			in.mode = modeOrbit
		case mods&modControl != 0:
			in.togglePin(snap, slot, pinned, sink)
		default:
			in.startDrag(cam, snap, slot, pinned, sink)
		}
	}
}

// togglePin unpins a pinned vertex or pins a free one where it is.
func (in *Interaction) togglePin(snap *Snapshot, slot int32, pinned bool, sink commandSink) {
	if pinned {
		sink.Send(Command{Kind: CmdUnpin, Vertex: slot})
		return
	}
	p := snap.Vertex(int(snap.DenseOf[slot]))
	sink.Send(Command{Kind: CmdPin, Vertex: slot, Target: toVec3(p)})
}

// startDrag grabs vertex slot: the drag plane passes through its pin
// target (pinned) or position (free) and faces the camera.
func (in *Interaction) startDrag(cam *render.Camera, snap *Snapshot, slot int32, pinned bool, sink commandSink) {
	anchor := mgl32.Vec3(snap.Vertex(int(snap.DenseOf[slot])))
	if pinned {
		if pi := findPin(snap, slot); pi >= 0 {
			anchor = snap.Pins[pi].Target
		}
	}
	origin, dir := cam.Ray(float32(in.lastX), float32(in.lastY))
	fwd := cam.Target.Sub(cam.Eye()).Normalize()
	hit, ok := rayPlane(origin, dir, anchor, fwd)
	if !ok {
		in.mode = modeOrbit
		return
	}
	in.mode, in.Dragged, in.dragPin, in.dragEpoch = modeVertex, slot, pinned, snap.Epoch
	in.planeP, in.planeN, in.offset = anchor, fwd, anchor.Sub(hit)
	in.notePins(snap)
	if !pinned {
		sink.Send(Command{Kind: CmdDrag, Vertex: slot, Target: toVec3(anchor)})
	}
}

// startObstacleDrag grabs the obstacle under the cursor (orbiting when
// there is none): the drag plane passes through the grabbed point and
// faces the camera.
func (in *Interaction) startObstacleDrag(cam *render.Camera, snap *Snapshot) {
	origin, dir := cam.Ray(float32(in.lastX), float32(in.lastY))
	i, hit, ok := PickObstacle(snap, origin, dir)
	if !ok || in.HideObstacles {
		in.mode = modeOrbit
		return
	}
	in.mode, in.Obstacle, in.dragEpoch = modeObstacle, i, snap.Epoch
	in.planeP, in.planeN = hit, cam.Target.Sub(cam.Eye()).Normalize()
	in.obsStart, in.obsHit = snap.Obstacles[i].Offset, hit
}

// CursorPos handles a cursor move to (x, y) window pixels: it orbits,
// pans, moves the dragged target, or updates Hover.
func (in *Interaction) CursorPos(x, y float64, overUI bool, cam *render.Camera, snap *Snapshot, sink commandSink) {
	dx, dy := float32(x-in.lastX), float32(y-in.lastY)
	in.lastX, in.lastY = x, y
	switch in.mode {
	case modeOrbit:
		cam.Orbit(-dx*orbitPerPixel, dy*orbitPerPixel)
	case modePan:
		cam.Pan(dx, dy)
	case modeVertex:
		origin, dir := cam.Ray(float32(x), float32(y))
		hit, ok := rayPlane(origin, dir, in.planeP, in.planeN)
		if !ok {
			return
		}
		target := hit.Add(in.offset)
		kind := CmdDrag
		if in.dragPin {
			kind = CmdMovePin
		}
		sink.Send(Command{Kind: kind, Vertex: in.Dragged, Target: toVec3(target)})
	case modeObstacle:
		origin, dir := cam.Ray(float32(x), float32(y))
		hit, ok := rayPlane(origin, dir, in.planeP, in.planeN)
		if !ok {
			return
		}
		off := in.obsStart.Add(hit.Sub(in.obsHit))
		sink.Send(Command{Kind: CmdMoveObstacle, Obstacle: in.Obstacle, Target: toVec3(off)})
	default:
		in.Hover = -1
		if !overUI {
			in.Hover, _ = in.pick(cam, snap, x, y)
		}
	}
}

// Scroll zooms by dy wheel notches (positive: closer).
func (in *Interaction) Scroll(dy float64, overUI bool, cam *render.Camera) {
	if overUI {
		return
	}
	cam.Zoom(float32(math.Pow(zoomPerNotch, dy)))
}

// Update reconciles the interaction with a new snapshot: a drag ends
// gracefully when the scene was reset, and Hover is cleared if its vertex
// died. A remesh that takes the dragged vertex does not end its drag:
// the simulation goes on with the nearest vertex (cloth.Sim's updatePins)
// and so does the viewer. A free vertex's drag keeps naming the vertex it
// began on, which cloth.Sim.Drag follows; a pin drag moves on to the pin
// the remesh moved (followPin). Before, both drags ended at such a
// remesh, and the cloth dropped from the person's hand mid-gesture.
func (in *Interaction) Update(snap *Snapshot, sink commandSink) {
	alive := func(slot int32) bool {
		return slot >= 0 && int(slot) < len(snap.DenseOf) && snap.DenseOf[slot] >= 0
	}
	if in.mode == modeVertex && in.dragPin && snap.Epoch == in.dragEpoch {
		in.followPin(snap)
	}
	if in.mode == modeVertex && (snap.Epoch != in.dragEpoch || in.dragPin && in.Dragged < 0) {
		if !in.dragPin {
			sink.Send(Command{Kind: CmdRelease})
		}
		in.mode, in.Dragged = modeIdle, -1
	}
	if in.mode == modeObstacle && (snap.Epoch != in.dragEpoch || in.Obstacle >= len(snap.Obstacles)) {
		in.mode, in.Obstacle = modeIdle, -1
	}
	if in.Hover >= 0 && !alive(in.Hover) {
		in.Hover = -1
	}
}

// pick returns the sim vertex slot under window pixel (x, y) and whether
// it is pinned: first a pin marker within pinPickRadius pixels (markers sit
// on the boundary, where a ray easily misses the surface), then the vertex
// nearest to the first surface hit. It returns −1 when nothing is hit.
func (in *Interaction) pick(cam *render.Camera, snap *Snapshot, x, y float64) (slot int32, pinned bool) {
	best := float32(pinPickRadius * pinPickRadius)
	slot = -1
	for _, p := range snap.Pins {
		px, py, ok := cam.Project(p.Pos)
		if !ok {
			continue
		}
		ddx, ddy := px-float32(x), py-float32(y)
		if d := ddx*ddx + ddy*ddy; d <= best {
			best, slot = d, p.Slot
		}
	}
	if slot >= 0 {
		return slot, true
	}
	origin, dir := cam.Ray(float32(x), float32(y))
	dense, _, ok := PickVertex(snap, origin, dir)
	if !ok {
		return -1, false
	}
	slot = snap.Slot[dense]
	return slot, findPin(snap, slot) >= 0
}

// followPin keeps a pin drag on its pin across a remesh: when the dragged
// slot has no pin in snap, the drag goes on with the pin nearest to where
// the dragged one was among those on slots that had none in the last
// snapshot (a remesh moves a pin whose vertex it takes to a new vertex,
// and the simulation drops the moves queued for the old one, loop's
// CmdMovePin). Dragged becomes −1 when there is no such pin (an undo took
// the pin). It then notes snap's pins for the next call.
func (in *Interaction) followPin(snap *Snapshot) {
	if findPin(snap, in.Dragged) < 0 {
		best, next := float32(math.Inf(1)), int32(-1)
		for _, p := range snap.Pins {
			if _, had := slices.BinarySearch(in.pinSlots, p.Slot); had {
				continue
			}
			if d := mgl32.Vec3(p.Pos).Sub(in.pinAt).Len(); d < best {
				best, next = d, p.Slot
			}
		}
		in.Dragged = next
	}
	in.notePins(snap)
}

// notePins keeps the pinned slots of snap, and where the dragged pin is,
// for followPin.
func (in *Interaction) notePins(snap *Snapshot) {
	in.pinSlots = in.pinSlots[:0]
	for _, p := range snap.Pins {
		in.pinSlots = append(in.pinSlots, p.Slot)
	}
	slices.Sort(in.pinSlots)
	if i := findPin(snap, in.Dragged); i >= 0 {
		in.pinAt = snap.Pins[i].Pos
	}
}

// findPin returns the index in snap.Pins of the pin of slot, or −1.
func findPin(snap *Snapshot, slot int32) int {
	for i, p := range snap.Pins {
		if p.Slot == slot {
			return i
		}
	}
	return -1
}

// PickVertex intersects the ray origin + t·dir (t > 0) with every
// triangle of snap (Möller & Trumbore 1997) and returns the dense index of
// the vertex of the nearest hit triangle closest to the hit point, and the
// hit point. ok is false when the ray misses the mesh. Degenerate
// (zero-area) triangles are never hit.
func PickVertex(snap *Snapshot, origin, dir mgl32.Vec3) (dense int, hit mgl32.Vec3, ok bool) {
	bestT := float32(math.Inf(1))
	bestF := -1
	for f := 0; f < snap.NumTris(); f++ {
		t := snap.Tris[3*f : 3*f+3]
		a := mgl32.Vec3(snap.Vertex(int(t[0])))
		b := mgl32.Vec3(snap.Vertex(int(t[1])))
		c := mgl32.Vec3(snap.Vertex(int(t[2])))
		if d, hitOK := rayTriangle(origin, dir, a, b, c); hitOK && d < bestT {
			bestT, bestF = d, f
		}
	}
	if bestF < 0 {
		return -1, mgl32.Vec3{}, false
	}
	hit = origin.Add(dir.Mul(bestT))
	bestD := float32(math.Inf(1))
	for _, v := range snap.Tris[3*bestF : 3*bestF+3] {
		if d := mgl32.Vec3(snap.Vertex(int(v))).Sub(hit).Len(); d < bestD {
			bestD, dense = d, int(v)
		}
	}
	return dense, hit, true
}

// PickObstacle intersects the ray origin + t·dir (t > 0) with the
// triangles of snap's obstacles, planes excepted, and returns the index of
// the obstacle hit first and the hit point; ok is false when the ray
// misses them all.
func PickObstacle(snap *Snapshot, origin, dir mgl32.Vec3) (i int, hit mgl32.Vec3, ok bool) {
	bestT := float32(math.Inf(1))
	i = -1
	for k := range snap.Obstacles {
		o := &snap.Obstacles[k]
		if o.Kind == obstacle.Plane {
			continue
		}
		v := func(j uint32) mgl32.Vec3 { return mgl32.Vec3(o.Pos[3*j : 3*j+3]) }
		for f := 0; f+2 < len(o.Tris); f += 3 {
			if d, hitOK := rayTriangle(origin, dir, v(o.Tris[f]), v(o.Tris[f+1]), v(o.Tris[f+2])); hitOK && d < bestT {
				bestT, i = d, k
			}
		}
	}
	if i < 0 {
		return -1, mgl32.Vec3{}, false
	}
	return i, origin.Add(dir.Mul(bestT)), true
}

// rayTriangle returns the ray parameter t > 0 at which origin + t·dir
// crosses triangle (a, b, c), by Möller–Trumbore: solve
// origin + t·dir = a + u·(b−a) + v·(c−a) with Cramer's rule and accept
// u, v ≥ 0, u+v ≤ 1. Both sides count (cloth is two-sided). A ray parallel
// to the triangle's plane, or a degenerate triangle, never hits.
func rayTriangle(origin, dir, a, b, c mgl32.Vec3) (float32, bool) {
	const eps = 1e-12
	e1, e2 := b.Sub(a), c.Sub(a)
	p := dir.Cross(e2)
	det := e1.Dot(p)
	if det > -eps && det < eps {
		return 0, false
	}
	inv := 1 / det
	s := origin.Sub(a)
	u := s.Dot(p) * inv
	if u < 0 || u > 1 {
		return 0, false
	}
	q := s.Cross(e1)
	v := dir.Dot(q) * inv
	if v < 0 || u+v > 1 {
		return 0, false
	}
	t := e2.Dot(q) * inv
	return t, t > 0
}

// rayPlane returns where the ray origin + t·dir (t > 0) meets the plane
// through p with normal n; ok is false when the ray is parallel to the
// plane or points away from it.
func rayPlane(origin, dir, p, n mgl32.Vec3) (mgl32.Vec3, bool) {
	den := dir.Dot(n)
	if math.Abs(float64(den)) < 1e-6 {
		return mgl32.Vec3{}, false
	}
	t := p.Sub(origin).Dot(n) / den
	if !(t > 0) {
		return mgl32.Vec3{}, false
	}
	return origin.Add(dir.Mul(t)), true
}

func toVec3(p [3]float32) geom.Vec3 {
	return geom.Vec3{X: float64(p[0]), Y: float64(p[1]), Z: float64(p[2])}
}
