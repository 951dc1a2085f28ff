package app

import (
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
// appended to dst[:0]; the slices are snap's.
func obstacleSolids(dst []render.Solid, snap *Snapshot) []render.Solid {
	dst = dst[:0]
	for i := range snap.Obstacles {
		o := &snap.Obstacles[i]
		dst = append(dst, render.Solid{Pos: o.Pos, Normal: o.Normal, Tris: o.Tris, Color: obstacleColor[o.Kind]})
	}
	return dst
}

// obstacleDrawer uploads a snapshot's obstacles to a SolidRenderer when
// their geometry changed (Snapshot.ObstacleGen) and draws them.
type obstacleDrawer struct {
	r      *render.SolidRenderer
	gen    uint64
	solids []render.Solid
}

// draw draws snap's obstacles with the draw settings d, uploading them
// first when they changed; an upload error is returned once and the
// previous obstacles are drawn.
func (o *obstacleDrawer) draw(snap *Snapshot, d render.DrawOptions) error {
	var err error
	if snap.ObstacleGen != o.gen {
		o.gen = snap.ObstacleGen
		o.solids = obstacleSolids(o.solids, snap)
		err = o.r.Upload(o.solids)
	}
	if len(snap.Obstacles) > 0 {
		o.r.Draw(d)
	}
	return err
}

// drawBackground clears to the background gradient.
func drawBackground(c *render.ClothRenderer) { c.DrawBackground(backgroundTop, backgroundBottom) }

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

// fitView frames the bounds [lo, hi] with cam. Panels of width left and
// right cover the sides of the window, so the fit uses the width between
// them and then shifts the target to the middle of that free area (when it
// is at least 30% of the window). With initial it starts from the
// three-quarter view, and a sheet that starts nearly flat and horizontal is
// framed together with the space it will hang into below its highest edge,
// so that the fall stays in view. Empty bounds (lo > hi) leave cam as it
// is.
func fitView(cam *render.Camera, lo, hi mgl32.Vec3, initial bool, left, right float32) {
	if lo[0] > hi[0] {
		return
	}
	if initial {
		cam.Yaw, cam.Pitch = 0.55, 0.32
		ext := max(hi[0]-lo[0], hi[2]-lo[2])
		if hi[1]-lo[1] < 0.1*ext {
			lo[1] = min(lo[1], hi[1]-ext)
		}
	}
	full := cam.Width
	free := full - left - right
	fits := free > 0.3*full
	if fits {
		cam.Width = free
	}
	cam.Fit(lo, hi)
	cam.Width = full
	if shift := left - right; shift != 0 && fits {
		cam.Pan(shift/2, 0)
	}
}

// startView sets cam for a newly loaded scene: the scene file's camera
// when it has one, otherwise the initial fit of its cloth (fitView).
func startView(cam *render.Camera, snap *Snapshot, left, right float32) {
	if snap.Camera != nil {
		setCamera(cam, snap.Camera)
		return
	}
	if snap.NumVerts() > 0 {
		fitView(cam, mgl32.Vec3(snap.Lo), mgl32.Vec3(snap.Hi), true, left, right)
	}
}

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
