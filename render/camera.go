package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Camera is an orbit camera around Target with +Y up. It is plain data and
// pure Go (no GL calls), so the viewer's picking and the tests use the same
// matrices the renderer draws with.
//
// The eye sits at Target + Distance·(cos(Pitch)·sin(Yaw), sin(Pitch),
// cos(Pitch)·cos(Yaw)). Pixel coordinates are window coordinates as GLFW
// reports the cursor: origin at the top-left corner, x right, y down, in the
// same units as Width and Height (screen coordinates, not framebuffer
// pixels on HiDPI displays).
type Camera struct {
	Target   mgl32.Vec3 // point orbited around and looked at, world units
	Yaw      float32    // rotation about +Y, radians; 0 looks along −Z
	Pitch    float32    // elevation above the XZ plane, radians, within ±MaxPitch
	Distance float32    // eye to Target, world units, > 0
	FovY     float32    // vertical field of view, radians, in (0, π)
	Width    float32    // viewport width in window pixels, > 0
	Height   float32    // viewport height in window pixels, > 0
}

// MaxPitch is the largest |Pitch| the camera allows: just short of the
// poles, where the view direction would be parallel to +Y and the view
// matrix undefined.
const MaxPitch = math.Pi/2 - 0.01

// minDistance keeps Zoom from collapsing the eye onto the target.
const minDistance = 1e-4

// NewCamera returns a camera looking at the origin from 3 units away, a
// little from above and to the side, with a 45° vertical field of view and
// a viewport of width×height window pixels.
func NewCamera(width, height float32) Camera {
	return Camera{
		Yaw:      0.6,
		Pitch:    0.35,
		Distance: 3,
		FovY:     mgl32.DegToRad(45),
		Width:    width,
		Height:   height,
	}
}

// Aspect returns Width/Height, or 1 for an empty viewport (a minimised
// window).
func (c *Camera) Aspect() float32 {
	if c.Width <= 0 || c.Height <= 0 {
		return 1
	}
	return c.Width / c.Height
}

// Eye returns the camera position in world space.
func (c *Camera) Eye() mgl32.Vec3 {
	return c.Target.Add(c.offsetDir().Mul(c.Distance))
}

// offsetDir returns the unit vector from Target to the eye.
func (c *Camera) offsetDir() mgl32.Vec3 {
	sy, cy := sincos(c.Yaw)
	sp, cp := sincos(c.Pitch)
	return mgl32.Vec3{cp * sy, sp, cp * cy}
}

// basis returns the camera's unit forward (eye to target), right and up
// vectors in world space.
func (c *Camera) basis() (forward, right, up mgl32.Vec3) {
	forward = c.offsetDir().Mul(-1)
	right = forward.Cross(mgl32.Vec3{0, 1, 0}).Normalize()
	up = right.Cross(forward)
	return forward, right, up
}

// clipPlanes returns the near and far plane distances. They scale with
// Distance (near = Distance/100, far = Distance·100) so zooming never
// clips the orbited object and depth precision stays constant.
func (c *Camera) clipPlanes() (near, far float32) {
	return c.Distance / 100, c.Distance * 100
}

// View returns the world-to-eye matrix.
func (c *Camera) View() mgl32.Mat4 {
	return mgl32.LookAtV(c.Eye(), c.Target, mgl32.Vec3{0, 1, 0})
}

// Projection returns the perspective eye-to-clip matrix.
func (c *Camera) Projection() mgl32.Mat4 {
	near, far := c.clipPlanes()
	return mgl32.Perspective(c.FovY, c.Aspect(), near, far)
}

// ViewProjection returns Projection·View, the world-to-clip matrix.
func (c *Camera) ViewProjection() mgl32.Mat4 {
	return c.Projection().Mul4(c.View())
}

// Orbit turns the camera about Target by dYaw and dPitch radians, keeping
// Distance. Pitch is clamped to ±MaxPitch.
func (c *Camera) Orbit(dYaw, dPitch float32) {
	c.Yaw = float32(math.Remainder(float64(c.Yaw+dYaw), 2*math.Pi))
	c.Pitch = mgl32.Clamp(c.Pitch+dPitch, -MaxPitch, MaxPitch)
}

// Pan moves Target (and with it the eye) by dx, dy window pixels in the
// view plane, so that a point at Target's depth follows the cursor: one
// pixel is 2·Distance·tan(FovY/2)/Height world units.
func (c *Camera) Pan(dx, dy float32) {
	if c.Height <= 0 {
		return
	}
	_, right, up := c.basis()
	perPixel := 2 * c.Distance * float32(math.Tan(float64(c.FovY)/2)) / c.Height
	c.Target = c.Target.Sub(right.Mul(dx * perPixel)).Add(up.Mul(dy * perPixel))
}

// Zoom multiplies Distance by factor (< 1 moves closer). Non-positive or
// NaN factors are ignored; Distance never drops below 1e-4.
func (c *Camera) Zoom(factor float32) {
	if !(factor > 0) {
		return
	}
	c.Distance = max(c.Distance*factor, minDistance)
}

// Fit points the camera at the centre of the axis-aligned box [lo, hi] and
// sets Distance so the box's bounding sphere, of radius r = |hi−lo|/2, fits
// in the narrower field of view f: Distance = r/sin(f/2), times a 5%
// margin. Yaw and Pitch are kept. An empty or degenerate box (a point)
// gets radius 0.5 so the camera still has a usable distance.
func (c *Camera) Fit(lo, hi mgl32.Vec3) {
	c.Target = lo.Add(hi).Mul(0.5)
	r := hi.Sub(lo).Len() / 2
	if !(r > 1e-6) {
		r = 0.5
	}
	fovY := float64(c.FovY)
	fovX := 2 * math.Atan(math.Tan(fovY/2)*float64(c.Aspect()))
	f := math.Min(fovX, fovY)
	c.Distance = 1.05 * r / float32(math.Sin(f/2))
}

// FitBox frames the axis-aligned box [lo, hi]: it sets Distance to the
// smallest for which all eight corners project into the central fraction
// fill ∈ (0, 1] of the viewport, horizontally and vertically, and moves
// Target (from the box's centre, within the view plane) so that the
// projected box is centred. That is much tighter than Fit's bounding
// sphere for a flat or long box, and it stays tight up close, where
// perspective makes the box's near corners project far from its centre.
//
// For a corner at offset (x, y, z) from Target in the camera's right, up
// and forward basis, the depth from the eye is D + z and the corner
// projects to x/((D+z)·tan(fx/2)) in normalised device coordinates, so
//
//	D ≥ |x|/(fill·tan(fx/2)) − z  and  D ≥ |y|/(fill·tan(fy/2)) − z,
//
// and D is the largest of these bounds over the corners (and keeps every
// corner beyond the near plane, D/100). Moving Target by (cx, cy)·D·tan
// within the view plane, where (cx, cy) is the centre of the corners'
// projected bounds, leaves every z as it was and centres them; four
// rounds of the two leave the projected box within a fraction of a
// percent of centred. Yaw and Pitch are kept. A degenerate box (a point)
// is grown to a 1-unit cube around it; a fill outside (0, 1] means 1.
func (c *Camera) FitBox(lo, hi mgl32.Vec3, fill float32) {
	if !(fill > 0 && fill <= 1) {
		fill = 1
	}
	c.Target = lo.Add(hi).Mul(0.5)
	if !(hi.Sub(lo).Len() > 1e-6) {
		lo, hi = c.Target.Sub(mgl32.Vec3{0.5, 0.5, 0.5}), c.Target.Add(mgl32.Vec3{0.5, 0.5, 0.5})
	}
	forward, right, up := c.basis()
	tanY := float32(math.Tan(float64(c.FovY) / 2))
	tanX := tanY * c.Aspect()
	corners := BoxCorners(lo, hi)
	for round := 0; ; round++ {
		var d float32
		for _, p := range corners {
			o := p.Sub(c.Target)
			x, y, z := o.Dot(right), o.Dot(up), o.Dot(forward)
			d = max(d, abs32(x)/(fill*tanX)-z, abs32(y)/(fill*tanY)-z, -z/0.99)
		}
		c.Distance = max(d, minDistance)
		if round == 4 {
			return
		}
		inf := float32(math.Inf(1))
		x0, x1, y0, y1 := inf, -inf, inf, -inf
		for _, p := range corners {
			o := p.Sub(c.Target)
			depth := c.Distance + o.Dot(forward)
			x, y := o.Dot(right)/(depth*tanX), o.Dot(up)/(depth*tanY)
			x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
		}
		cx, cy := (x0+x1)/2, (y0+y1)/2
		c.Target = c.Target.Add(right.Mul(cx * tanX * c.Distance)).Add(up.Mul(cy * tanY * c.Distance))
	}
}

// BoxCorners returns the eight corners of the axis-aligned box [lo, hi]:
// corner k takes hi's coordinate on axis a where bit a of k is set, lo's
// elsewhere.
func BoxCorners(lo, hi mgl32.Vec3) [8]mgl32.Vec3 {
	var c [8]mgl32.Vec3
	for k := range c {
		for a := range 3 {
			c[k][a] = lo[a]
			if k>>a&1 == 1 {
				c[k][a] = hi[a]
			}
		}
	}
	return c
}

// abs32 is math.Abs for float32.
func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }

// Ray returns the world-space ray through window pixel (px, py): origin is
// the eye and dir is a unit vector. Every point origin + t·dir with t > 0
// projects back to (px, py) under Project.
func (c *Camera) Ray(px, py float32) (origin, dir mgl32.Vec3) {
	forward, right, up := c.basis()
	w, h := c.Width, c.Height
	if w <= 0 || h <= 0 {
		return c.Eye(), forward
	}
	// Normalised device coordinates of the pixel; y flips because window
	// rows grow downwards.
	nx := 2*px/w - 1
	ny := 1 - 2*py/h
	t := float32(math.Tan(float64(c.FovY) / 2))
	dir = forward.Add(right.Mul(nx * t * c.Aspect())).Add(up.Mul(ny * t)).Normalize()
	return c.Eye(), dir
}

// Project returns the window pixel (px, py) at which world point p is
// drawn, the inverse of Ray. ok is false when p is behind the eye (or on
// its plane), where the pixel is meaningless.
func (c *Camera) Project(p mgl32.Vec3) (px, py float32, ok bool) {
	clip := c.ViewProjection().Mul4x1(p.Vec4(1))
	if clip.W() <= 1e-12 {
		return 0, 0, false
	}
	nx, ny := clip.X()/clip.W(), clip.Y()/clip.W()
	return (nx + 1) / 2 * c.Width, (1 - ny) / 2 * c.Height, true
}

// sincos is math.Sincos for float32.
func sincos(a float32) (s, c float32) {
	s64, c64 := math.Sincos(float64(a))
	return float32(s64), float32(c64)
}
