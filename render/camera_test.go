package render

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func testCamera() Camera {
	c := NewCamera(1280, 800)
	c.Target = mgl32.Vec3{0.2, 0.5, -0.3}
	c.Distance = 2.5
	return c
}

func TestCameraRayProjectRoundTrip(t *testing.T) {
	c := testCamera()
	for _, tc := range []struct {
		px, py, depth float32
	}{
		{640, 400, 1},
		{0, 0, 2.5},
		{1280, 800, 0.3},
		{17.5, 790.25, 10},
		{1000, 123, 100},
	} {
		o, d := c.Ray(tc.px, tc.py)
		if got := d.Len(); math.Abs(float64(got-1)) > 1e-5 {
			t.Errorf("Ray(%v,%v) |dir|: got=%v, want=1", tc.px, tc.py, got)
		}
		px, py, ok := c.Project(o.Add(d.Mul(tc.depth)))
		if !ok || math.Abs(float64(px-tc.px)) > 1e-2 || math.Abs(float64(py-tc.py)) > 1e-2 {
			t.Errorf("Project(Ray(%v,%v) at t=%v): got=(%v,%v,%v), want=(%v,%v,true)",
				tc.px, tc.py, tc.depth, px, py, ok, tc.px, tc.py)
		}
	}
}

func TestCameraProjectRayRoundTrip(t *testing.T) {
	c := testCamera()
	for _, p := range []mgl32.Vec3{{0, 0, 0}, {0.5, 1, -0.5}, {-0.4, 0.2, 0.1}} {
		px, py, ok := c.Project(p)
		if !ok {
			t.Fatalf("Project(%v): behind the eye", p)
		}
		o, d := c.Ray(px, py)
		// Distance from p to the ray.
		v := p.Sub(o)
		if dist := v.Sub(d.Mul(v.Dot(d))).Len(); dist > 1e-4 {
			t.Errorf("distance of %v from Ray(Project): got=%v, want<1e-4", p, dist)
		}
	}
	// The eye's own position and points behind it are not projectable.
	behind := c.Eye().Add(c.Eye().Sub(c.Target))
	if _, _, ok := c.Project(behind); ok {
		t.Errorf("Project(behind eye): got ok=true, want false")
	}
}

func TestCameraTargetAtCentre(t *testing.T) {
	c := testCamera()
	px, py, ok := c.Project(c.Target)
	if !ok || math.Abs(float64(px-640)) > 1e-3 || math.Abs(float64(py-400)) > 1e-3 {
		t.Errorf("Project(Target): got=(%v,%v,%v), want=(640,400,true)", px, py, ok)
	}
}

func TestCameraOrbitKeepsDistance(t *testing.T) {
	c := testCamera()
	for _, tc := range []struct{ dYaw, dPitch float32 }{
		{0.1, 0}, {0, 0.2}, {-3, 1}, {10, -10}, {0, 5},
	} {
		c.Orbit(tc.dYaw, tc.dPitch)
		if got := c.Eye().Sub(c.Target).Len(); math.Abs(float64(got-2.5)) > 1e-5 {
			t.Errorf("after Orbit(%v,%v) |eye-target|: got=%v, want=2.5", tc.dYaw, tc.dPitch, got)
		}
		if c.Pitch > MaxPitch || c.Pitch < -MaxPitch {
			t.Errorf("after Orbit(%v,%v) Pitch: got=%v, want within ±%v", tc.dYaw, tc.dPitch, c.Pitch, MaxPitch)
		}
	}
}

func TestCameraPanFollowsCursor(t *testing.T) {
	c := testCamera()
	p := c.Target
	x0, y0, _ := c.Project(p)
	c.Pan(30, -20)
	x1, y1, _ := c.Project(p)
	// Moving the camera by (30,-20) pixels moves a point at Target depth
	// by the same amount on screen.
	if math.Abs(float64(x1-x0-30)) > 1e-2 || math.Abs(float64(y1-y0+20)) > 1e-2 {
		t.Errorf("Pan(30,-20) moved target on screen by (%v,%v), want (30,-20)", x1-x0, y1-y0)
	}
}

func TestCameraFitContainsBox(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w, h   float32
		lo, hi mgl32.Vec3
		yaw    float32
		pitch  float32
	}{
		{"unit cube", 1280, 800, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 1, 1}, 0.6, 0.35},
		{"flat sheet portrait", 400, 900, mgl32.Vec3{-1, 0, -1}, mgl32.Vec3{1, 0.01, 1}, 0, 1.2},
		{"tall curtain", 1600, 500, mgl32.Vec3{-0.5, 0, 0}, mgl32.Vec3{0.5, 3, 0.02}, 2, -0.4},
		{"point", 800, 600, mgl32.Vec3{1, 2, 3}, mgl32.Vec3{1, 2, 3}, 1, 0.1},
	} {
		c := NewCamera(tc.w, tc.h)
		c.Yaw, c.Pitch = tc.yaw, tc.pitch
		c.Fit(tc.lo, tc.hi)
		for _, corner := range BoxCorners(tc.lo, tc.hi) {
			px, py, ok := c.Project(corner)
			if !ok || px < 0 || px > tc.w || py < 0 || py > tc.h {
				t.Errorf("%s: corner %v projects to (%v,%v,%v), want inside %vx%v",
					tc.name, corner, px, py, ok, tc.w, tc.h)
			}
			// The corner must also lie between the clip planes.
			near, far := c.clipPlanes()
			if d := corner.Sub(c.Eye()).Len(); d < near || d > far {
				t.Errorf("%s: corner %v at distance %v, want within [%v,%v]", tc.name, corner, d, near, far)
			}
		}
	}
}

// TestCameraFitBoxTight checks FitBox's bound: every corner of the box
// projects within the central fraction fill of the viewport, and one
// corner lies on that edge (the distance is the smallest that fits).
func TestCameraFitBoxTight(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w, h   float32
		lo, hi mgl32.Vec3
		yaw    float32
		pitch  float32
		fill   float32
	}{
		{"unit cube", 1280, 800, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 1, 1}, 0.6, 0.35, 0.9},
		{"flat sheet portrait", 400, 900, mgl32.Vec3{-1, 0, -1}, mgl32.Vec3{1, 0.01, 1}, 0, 1.2, 0.8},
		{"tall curtain", 1600, 500, mgl32.Vec3{-0.5, 0, 0}, mgl32.Vec3{0.5, 3, 0.02}, 2, -0.4, 1},
		{"tablecloth 16:9", 1280, 720, mgl32.Vec3{-0.8, 0, -0.8}, mgl32.Vec3{0.8, 0.85, 0.8}, 0.55, 0.32, 0.9},
		{"point", 800, 600, mgl32.Vec3{1, 2, 3}, mgl32.Vec3{1, 2, 3}, 1, 0.1, 0.9},
	} {
		c := NewCamera(tc.w, tc.h)
		c.Yaw, c.Pitch = tc.yaw, tc.pitch
		c.FitBox(tc.lo, tc.hi, tc.fill)
		if tc.lo == tc.hi {
			tc.lo, tc.hi = tc.lo.Sub(mgl32.Vec3{0.5, 0.5, 0.5}), tc.hi.Add(mgl32.Vec3{0.5, 0.5, 0.5})
		}
		var edge float32 // largest |NDC| coordinate over the corners
		for _, corner := range BoxCorners(tc.lo, tc.hi) {
			px, py, ok := c.Project(corner)
			nx, ny := abs32(2*px/tc.w-1), abs32(2*py/tc.h-1)
			if !ok || nx > tc.fill+1e-4 || ny > tc.fill+1e-4 {
				t.Errorf("%s: corner %v projects to NDC (%v,%v) ok=%v, want within ±%v", tc.name, corner, nx, ny, ok, tc.fill)
			}
			edge = max(edge, nx, ny)
		}
		if edge < tc.fill-1e-3 {
			t.Errorf("%s: largest corner NDC got=%v, want=%v (the tightest fit)", tc.name, edge, tc.fill)
		}
	}
}

func TestCameraZoom(t *testing.T) {
	for _, tc := range []struct {
		factor, want float32
	}{
		{0.5, 1.25}, {2, 5}, {0, 2.5}, {-1, 2.5}, {float32(math.NaN()), 2.5}, {1e-9, minDistance},
	} {
		c := testCamera()
		c.Zoom(tc.factor)
		if c.Distance != tc.want {
			t.Errorf("Zoom(%v): got=%v, want=%v", tc.factor, c.Distance, tc.want)
		}
	}
}
