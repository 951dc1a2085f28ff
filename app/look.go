package app

import (
	"fmt"
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"drape/render"
)

// Look is how drape record draws the cloth (--look); the viewer's colour
// menu offers the same three among its entries.
type Look int

const (
	// LookCurvature colours the cloth by mean curvature on the cool-warm
	// map: the viewer's default, and drape record's.
	LookCurvature Look = iota
	// LookStrain colours it by the largest principal strain (strain.go).
	LookStrain
	// LookFabric draws it as fabric, for videos: the scene's cloth_color
	// (or defaultFabricColor) with soft two-sided light, a lighter floor
	// without the grid, and a contact shadow on the floor and the
	// obstacles (render.ContactShadow).
	LookFabric
)

// lookNames are the --look values, indexed by Look.
var lookNames = [...]string{"curvature", "strain", "fabric"}

// String returns the --look name of l.
func (l Look) String() string {
	if l < 0 || int(l) >= len(lookNames) {
		return fmt.Sprintf("Look(%d)", int(l))
	}
	return lookNames[l]
}

// ParseLook returns the Look named s, or an error listing the names.
func ParseLook(s string) (Look, error) {
	for i, n := range lookNames {
		if s == n {
			return Look(i), nil
		}
	}
	return 0, fmt.Errorf("unknown look %q: want %s", s, strings.Join(lookNames[:], ", "))
}

// defaultFabricColor is the fabric look's cloth colour for a scene
// without cloth_color, RGB as displayed: a brick red, away in hue from
// every obstacle colour (view.go) and from the floor.
var defaultFabricColor = mgl32.Vec3{0.66, 0.20, 0.15}

// fabricPlaneColor is a plane's colour in the fabric look: a mid grey,
// light enough that the contact shadow on it reads (planeColor, nearly
// black, leaves a shadow nothing to darken).
var fabricPlaneColor = mgl32.Vec3{0.34, 0.34, 0.35}

// The fabric look's background gradient, top and bottom: a studio
// backdrop that meets the floor (fabricPlaneColor, lit) at the horizon
// with no dark band.
var (
	fabricBackgroundTop    = mgl32.Vec3{0.20, 0.21, 0.24}
	fabricBackgroundBottom = mgl32.Vec3{0.36, 0.36, 0.37}
)

// Contact shadow of the fabric look (render.ContactShadow), m: sized for
// the built-in scenes' cloths of 0.6 to 2.5 m.
const (
	shadowMapSize  = 256
	shadowRadius   = 0.1
	shadowFalloff  = 0.2
	shadowStrength = 0.7
)

// newContactShadow returns the fabric look's contact shadow.
func newContactShadow() (*render.ContactShadow, error) {
	s, err := render.NewContactShadow(shadowMapSize)
	if err != nil {
		return nil, err
	}
	s.Radius, s.Falloff, s.Strength = shadowRadius, shadowFalloff, shadowStrength
	return s, nil
}

// sceneClothColor returns the fabric colour of snap's scene: its
// cloth_color, or defaultFabricColor.
func sceneClothColor(snap *Snapshot) mgl32.Vec3 {
	if c := snap.ClothColor; c != nil {
		return mgl32.Vec3{float32(c[0]), float32(c[1]), float32(c[2])}
	}
	return defaultFabricColor
}

// setFabric switches d, drawn with camera cam, to the fabric look with
// cloth colour c (its back a little darker) and contact shadow s (nil for
// none). The key light comes from higher up and further to the side than
// the curvature look's (baseDrawOptions): with one flat colour, light
// across the folds is all that shows them.
func setFabric(d *render.DrawOptions, cam *render.Camera, c mgl32.Vec3, s *render.ContactShadow) {
	d.Fabric, d.ColorMap = true, render.ColorMapNone
	d.FrontColor, d.BackColor = c, c.Mul(0.85)
	d.Shadow = s
	eye := cam.Eye().Sub(cam.Target).Normalize()
	right := eye.Cross(mgl32.Vec3{0, 1, 0}).Normalize()
	d.LightDir = eye.Add(mgl32.Vec3{0, fabricLightUp, 0}).Add(right.Mul(fabricLightSide))
}

// The fabric look's key light: up and sideways, in units of the direction
// to the camera.
var fabricLightUp, fabricLightSide float32 = 1.2, 1.0
