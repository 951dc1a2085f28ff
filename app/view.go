package app

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"drape/render"
	"drape/sim/obstacle"
	"drape/sim/scene"
)

// This file holds what the viewer (viewer.go) and drape record
// (record_headless.go) draw alike: the background, the base draw
// settings, and how the camera starts (the scene's camera, or a fit).

// Background gradient, top and bottom, linear RGB.
var (
	backgroundTop    = mgl32.Vec3{0.16, 0.17, 0.20}
	backgroundBottom = mgl32.Vec3{0.05, 0.05, 0.06}
)

// Obstacle colours, linear RGB: muted, and away from the cloth's
// cool-warm and viridis maps. A plane is a little darker than the
// background behind it, so that it reads as a floor and the grid on it
// stays visible.
var (
	planeColor    = mgl32.Vec3{0.075, 0.08, 0.09}
	sphereColor   = mgl32.Vec3{0.40, 0.46, 0.55} // grey-blue
	woodColor     = mgl32.Vec3{0.50, 0.36, 0.24} // boxes and cylinders: a table
	capsuleColor  = mgl32.Vec3{0.44, 0.50, 0.42} // sage: a pole
	meshColor     = mgl32.Vec3{0.62, 0.58, 0.52} // clay: the bunny
	obstacleColor = map[obstacle.Kind]mgl32.Vec3{
		obstacle.Plane: planeColor, obstacle.Sphere: sphereColor, obstacle.Box: woodColor,
		obstacle.Cylinder: woodColor, obstacle.Capsule: capsuleColor, obstacle.Mesh: meshColor,
	}
)

// obstacleSolids returns snap's obstacles for render.SolidRenderer,
// appended to dst[:0]; the slices are snap's. In the fabric look a plane
// takes fabricPlaneColor. A plane is one-sided: from below the ground
// (an orbit can go there, and a fit keeps the direction) the floor is not
// drawn, and the cloth above it stays in view; drawn, it hid everything
// but the pins' markers (the viewer monkey's seed 52).
func obstacleSolids(dst []render.Solid, snap *Snapshot, fabric bool) []render.Solid {
	dst = dst[:0]
	for i := range snap.Obstacles {
		o := &snap.Obstacles[i]
		c := obstacleColor[o.Kind]
		if fabric && o.Kind == obstacle.Plane {
			c = fabricPlaneColor
		}
		dst = append(dst, render.Solid{Pos: o.Pos, Normal: o.Normal, Tris: o.Tris, Color: c, OneSided: o.Kind == obstacle.Plane})
	}
	return dst
}

// obstacleDrawer uploads a snapshot's obstacles to a SolidRenderer when
// their geometry (Snapshot.ObstacleGen) or the look changed, and draws
// them.
type obstacleDrawer struct {
	r      *render.SolidRenderer
	gen    uint64
	fabric bool // the uploaded colours are the fabric look's
	solids []render.Solid
}

// draw draws snap's obstacles with the draw settings d, uploading them
// first when they changed; an upload error is returned once and the
// previous obstacles are drawn.
func (o *obstacleDrawer) draw(snap *Snapshot, d render.DrawOptions) error {
	var err error
	if snap.ObstacleGen != o.gen || d.Fabric != o.fabric {
		o.gen, o.fabric = snap.ObstacleGen, d.Fabric
		o.solids = obstacleSolids(o.solids, snap, d.Fabric)
		err = o.r.Upload(o.solids)
	}
	if len(snap.Obstacles) > 0 {
		o.r.Draw(d)
	}
	return err
}

// drawBackground clears to the background gradient, the fabric look's
// with fabric.
func drawBackground(c *render.ClothRenderer, fabric bool) {
	if fabric {
		c.DrawBackground(fabricBackgroundTop, fabricBackgroundBottom)
		return
	}
	c.DrawBackground(backgroundTop, backgroundBottom)
}

// baseDrawOptions returns the draw settings shared by the viewer and the
// recorder for camera cam: the default look (cool-warm curvature,
// wireframe by generation when on, ground grid of 0.1 m cells over ±3 m,
// pins) and a key light from above and a little to the left of the
// camera, following it: the shading is two-sided (normals flip towards
// the viewer), so whichever side of the cloth the camera sees is lit, and
// a cloth swinging away from a fixed light never turns into a dark
// silhouette. Callers set the colour range, toggles and pin markers.
func baseDrawOptions(cam *render.Camera) render.DrawOptions {
	d := render.DefaultDrawOptions()
	d.View, d.Projection = cam.View(), cam.Projection()
	eye := cam.Eye().Sub(cam.Target).Normalize()
	right := eye.Cross(mgl32.Vec3{0, 1, 0}).Normalize()
	d.LightDir = eye.Add(mgl32.Vec3{0, 0.9, 0}).Add(right.Mul(0.35))
	d.ColorMap = render.ColorMapCoolWarm
	d.WireframeByGen = true
	d.Grid, d.ShowPins = true, true
	d.GridY = 0
	d.GridSpacing, d.GridExtent = 0.1, 3
	return d
}

// fitFill is the central fraction of the view, in each direction, that a
// fit fills with the framed box (render.Camera.FitBox): a 5% margin on
// every side.
const fitFill = 0.9

// frameBounds returns the box a fit frames for snap: the cloth's bounds,
// grown to hold what the cloth touches or will fall onto. That is every
// obstacle but a plane whose horizontal extent overlaps the cloth's,
// clipped to the cloth's box grown by a quarter of the cloth's size
// sideways and a quarter of its horizontal size downwards: the top of a
// table or the back of a bunny under a cloth count, a large mesh floor,
// the table's leg or the far end of a long pole do not (down to the
// floor, they left a flat cloth a strip in a 16:9 frame). Planes never
// count: they are drawn as a 12 m square (planeSquare), and framing that
// is what made the cloth small.
//
// With fallSpace the box also holds the space the cloth will move into,
// for a view that will not follow it: a free cloth falls to the highest
// horizontal plane below it, and a pinned sheet that starts nearly flat
// (thinner than a tenth of its size) and horizontal hangs down by its
// size from its highest edge, not below that plane. Empty bounds
// (lo > hi) are returned as they are.
func frameBounds(snap *Snapshot, fallSpace bool) (lo, hi mgl32.Vec3) {
	lo, hi = mgl32.Vec3(snap.Lo), mgl32.Vec3(snap.Hi)
	if lo[0] > hi[0] {
		return lo, hi
	}
	ext := max(hi[0]-lo[0], hi[2]-lo[2])
	grow := 0.25 * max(ext, hi[1]-lo[1])
	clothLo, clothHi := lo, hi
	floor := float32(math.Inf(-1)) // highest horizontal plane below the cloth
	for i := range snap.Obstacles {
		o := &snap.Obstacles[i]
		olo, ohi := pointBounds(o.Pos)
		if olo[0] > ohi[0] {
			continue
		}
		if o.Kind == obstacle.Plane {
			if ohi[1]-olo[1] < 1e-3 && ohi[1] <= clothLo[1] {
				floor = max(floor, ohi[1])
			}
			continue
		}
		if olo[0] > clothHi[0] || ohi[0] < clothLo[0] || olo[2] > clothHi[2] || ohi[2] < clothLo[2] {
			continue
		}
		for _, a := range []int{0, 2} {
			olo[a], ohi[a] = max(olo[a], clothLo[a]-grow), min(ohi[a], clothHi[a]+grow)
		}
		olo[1] = max(olo[1], clothLo[1]-0.25*ext)
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], olo[a]), max(hi[a], max(olo[a], ohi[a]))
		}
	}
	if !fallSpace {
		return lo, hi
	}
	switch {
	case len(snap.Pins) == 0 && !math.IsInf(float64(floor), -1):
		lo[1] = min(lo[1], floor)
	case len(snap.Pins) > 0 && clothHi[1]-clothLo[1] < 0.1*ext:
		lo[1] = min(lo[1], max(clothHi[1]-ext, floor))
	}
	return lo, hi
}

// pointBounds returns the bounds of the points in pos (x, y, z each);
// lo > hi when there are none.
func pointBounds(pos []float32) (lo, hi mgl32.Vec3) {
	inf := float32(math.Inf(1))
	lo, hi = mgl32.Vec3{inf, inf, inf}, mgl32.Vec3{-inf, -inf, -inf}
	for i := 0; i+2 < len(pos); i += 3 {
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], pos[i+a]), max(hi[a], pos[i+a])
		}
	}
	return lo, hi
}

// fitView frames the bounds [lo, hi] with cam (render.Camera.FitBox with
// fitFill). Panels of width left and right cover the sides of the window,
// so the fit uses the width between them and then shifts the target to
// the middle of that free area (when it is at least 30% of the window).
// With initial it starts from the three-quarter view. Empty bounds
// (lo > hi) leave cam as it is.
func fitView(cam *render.Camera, lo, hi mgl32.Vec3, initial bool, left, right float32) {
	if lo[0] > hi[0] {
		return
	}
	if initial {
		cam.Yaw, cam.Pitch = 0.55, 0.45
	}
	full := cam.Width
	free := full - left - right
	fits := free > 0.3*full
	if fits {
		cam.Width = free
	}
	cam.FitBox(lo, hi, fitFill)
	cam.Width = full
	if shift := left - right; shift != 0 && fits {
		cam.Pan(shift/2, 0)
	}
}

// startView sets cam for a newly loaded scene: the scene file's camera
// when it has one, otherwise the three-quarter view fitted to the cloth
// and what it will touch (frameBounds, fitView). A view that will follow
// the cloth (drape record's, cameraFollow) frames where the cloth is; the
// viewer's, which stays where it is put, also frames the space the cloth
// will fall or hang into.
func startView(cam *render.Camera, snap *Snapshot, left, right float32, follows bool) {
	if snap.Camera != nil {
		setCamera(cam, snap.Camera)
		return
	}
	lo, hi := frameBounds(snap, !follows)
	fitView(cam, lo, hi, true, left, right)
}

// cameraFollow keeps the cloth in drape record's view: while the
// corners of the framed box (frameBounds without fall space) project
// inside the central followInside of the frame the camera stands still, as
// a video's camera should; once one leaves it, the camera's target and
// distance glide towards the fit of the box (FitBox with fitFill, never
// closer than the camera is: it zooms out and pans, never in) until they
// reach it within 1% of the distance, and stand still again.
//
// The glide is a critically damped spring with time constant followTau,
// ẍ = ω²·(goal − x) − 2ω·ẋ with ω = 2/followTau, advanced each frame by
// its closed-form solution for a still goal, with e^(−ω·dt) replaced by
// a rational approximation (T. Lowe, "Critically Damped Ease-In/Ease-Out
// Smoothing", Game Programming Gems 4): the camera starts and stops
// without a jolt, and from rest it never overshoots a still goal.
type cameraFollow struct {
	moving bool
	vel    mgl32.Vec3 // target velocity, m/s
	dvel   float32    // distance velocity, m/s
}

const (
	followInside = 0.95 // NDC fraction a corner may reach before the camera moves
	followTau    = 0.3  // s of video time
)

// update moves cam for the box [lo, hi], dt seconds of video time after
// the previous frame. Empty bounds or dt ≤ 0 leave cam as it is.
func (f *cameraFollow) update(cam *render.Camera, lo, hi mgl32.Vec3, dt float64) {
	if lo[0] > hi[0] || !(dt > 0) {
		return
	}
	if !f.moving && boxInView(cam, lo, hi, followInside) {
		return
	}
	goal := *cam
	goal.FitBox(lo, hi, fitFill)
	goal.Distance = max(goal.Distance, cam.Distance)
	omega := 2 / followTau
	x := omega * dt
	e := float32(1 / (1 + x + 0.48*x*x + 0.235*x*x*x))
	h, w := float32(dt), float32(omega)
	change := cam.Target.Sub(goal.Target)
	temp := f.vel.Add(change.Mul(w)).Mul(h)
	f.vel = f.vel.Sub(temp.Mul(w)).Mul(e)
	cam.Target = goal.Target.Add(change.Add(temp).Mul(e))
	dchange := cam.Distance - goal.Distance
	dtemp := (f.dvel + w*dchange) * h
	f.dvel = (f.dvel - w*dtemp) * e
	cam.Distance = goal.Distance + (dchange+dtemp)*e
	tol := 0.01 * cam.Distance
	f.moving = cam.Target.Sub(goal.Target).Len() > tol || absf32(cam.Distance-goal.Distance) > tol ||
		f.vel.Len()*followTau > tol || absf32(f.dvel)*followTau > tol
	if !f.moving {
		f.vel, f.dvel = mgl32.Vec3{}, 0
	}
}

// boxInView reports whether every corner of [lo, hi] lies in front of
// cam and projects within the central fraction inside of its view.
func boxInView(cam *render.Camera, lo, hi mgl32.Vec3, inside float32) bool {
	for _, p := range render.BoxCorners(lo, hi) {
		px, py, ok := cam.Project(p)
		if !ok || absf32(2*px/cam.Width-1) > inside || absf32(2*py/cam.Height-1) > inside {
			return false
		}
	}
	return true
}

// absf32 is math.Abs for float32.
func absf32(v float32) float32 { return float32(math.Abs(float64(v))) }

// setCamera points cam as the scene camera sc says (angles in degrees);
// the viewport size stays.
func setCamera(cam *render.Camera, sc *scene.Camera) {
	cam.Target = mgl32.Vec3{float32(sc.Target[0]), float32(sc.Target[1]), float32(sc.Target[2])}
	cam.Yaw = mgl32.DegToRad(float32(sc.Yaw))
	cam.Pitch = max(-render.MaxPitch, min(render.MaxPitch, mgl32.DegToRad(float32(sc.Pitch))))
	cam.Distance = float32(sc.Distance)
	cam.FovY = mgl32.DegToRad(float32(sc.FovY))
}

// sceneCamera returns cam as a scene camera (angles in degrees), for a
// saved scene.
func sceneCamera(cam *render.Camera) *scene.Camera {
	return &scene.Camera{
		Target:   [3]float64{float64(cam.Target[0]), float64(cam.Target[1]), float64(cam.Target[2])},
		Yaw:      float64(mgl32.RadToDeg(cam.Yaw)),
		Pitch:    float64(mgl32.RadToDeg(cam.Pitch)),
		Distance: float64(cam.Distance),
		FovY:     float64(mgl32.RadToDeg(cam.FovY)),
	}
}
