package obstacle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"

	"drape/sim/geom"
)

// Limits on the values a Spec accepts. Lengths outside [MinLength,
// MaxLength] are almost certainly typing mistakes (a radius in mm instead of
// m), and they keep the tessellation and the signed-distance arithmetic well
// scaled.
const (
	MinLength       = 1e-4 // m
	MaxLength       = 1e3  // m
	MaxCoordinate   = 1e6  // m, any position or offset component
	MaxFriction     = 10   // Coulomb μ
	DefaultFriction = 0.3
	MaxMotionKeys   = 10000
)

// Spec is the JSON form of one obstacle: an element of a scene file's
// "obstacles" list. Lengths are in m, angles in degrees, times in s. Keys a
// kind does not use are ignored. Example:
//
//	{"name": "ball", "kind": "sphere", "position": [0, 0.5, 0], "radius": 0.25,
//	 "friction": 0.5,
//	 "motion": [{"t": 0, "offset": [0, 0, 0]}, {"t": 2, "offset": [0, 0, 1]}]}
//
// Local shapes, before the orientation and position are applied: the plane
// is y = 0 with its outward normal +Y (the half-space y < 0 is solid); the
// sphere, box, capsule and cylinder are centred on the origin; the capsule
// and cylinder run along local Y; a mesh keeps its file's coordinates
// (times scale), so its origin is the file's origin.
type Spec struct {
	// Name labels the obstacle in errors and in the viewer's Scene panel.
	// Optional; the kind is used when it is empty.
	Name string `json:"name"`
	// Kind is one of "plane" (an infinite half-space, the ground),
	// "sphere", "box" (oriented), "capsule", "cylinder" (capped: a table
	// top, a pole) or "mesh" (a triangle mesh read from an OBJ file).
	Kind string `json:"kind"`
	// Position is the world position of the local origin, m (the centre
	// of the primitives, a point on the plane). Default [0, 0, 0].
	Position [3]float64 `json:"position"`
	// Axis is the axis of the orientation rotation; it need not be unit
	// length but must not be zero. Default [0, 1, 0].
	Axis *[3]float64 `json:"axis"`
	// Angle is the orientation: a right-handed rotation about Axis,
	// degrees. Default 0. With the default axis, a plane tilted by θ about
	// X is {"axis": [1,0,0], "angle": θ}.
	Angle float64 `json:"angle"`
	// Radius is the radius of a sphere, capsule or cylinder, m, in
	// [MinLength, MaxLength].
	Radius float64 `json:"radius"`
	// Size is a box's full edge lengths along its local X, Y and Z, m,
	// each in [MinLength, MaxLength].
	Size [3]float64 `json:"size"`
	// Height is a cylinder's full height along local Y (caps at ±height/2)
	// or a capsule's distance between the centres of its two hemispheres
	// (the capsule's total length is height + 2·radius), m. Cylinder: in
	// [MinLength, MaxLength]; capsule: 0 (a sphere) or in that range.
	Height float64 `json:"height"`
	// File is the mesh's Wavefront OBJ file, relative to the scene file's
	// directory (or absolute). Only v and f statements are read; the mesh
	// may be closed (inside is negative signed distance) or open (the side
	// its counter-clockwise faces face is outside).
	File string `json:"file"`
	// Scale multiplies the mesh file's coordinates (e.g. 0.01 for a file
	// in cm). Default 1; must be positive.
	Scale *float64 `json:"scale"`
	// Friction is the Coulomb friction coefficient μ between the cloth and
	// this obstacle, in [0, MaxFriction]. Default DefaultFriction (0.3).
	Friction *float64 `json:"friction"`
	// Motion is an optional scripted motion: keys sorted by strictly
	// increasing time. The pose at time t interpolates the two keys around
	// t (offset linearly, rotation by slerp along the shorter arc), is the
	// first key's before the first time and is held at the last key's after
	// the last time. The motion's rotation turns the obstacle about its
	// Position, after the orientation; its offset is added to Position.
	Motion []MotionKey `json:"motion"`
}

// MotionKey is one key of an obstacle's scripted motion.
type MotionKey struct {
	// T is the key's time, s.
	T float64 `json:"t"`
	// Offset is the translation added to the obstacle's Position at time
	// T, m. Default [0, 0, 0].
	Offset [3]float64 `json:"offset"`
	// Axis is the axis of the key's rotation (not zero). Default [0, 1, 0].
	Axis *[3]float64 `json:"axis"`
	// Angle is the key's rotation about Axis, degrees, applied after the
	// obstacle's orientation. Default 0. Interpolation takes the shorter
	// arc, so keys must be less than 180° apart for a full turn.
	Angle float64 `json:"angle"`
}

// Kind is the closed set of obstacle shapes.
type Kind uint8

// The obstacle kinds; their JSON names are the lower-case words.
const (
	Plane Kind = iota
	Sphere
	Box
	Capsule
	Cylinder
	Mesh
)

var kindNames = [...]string{"plane", "sphere", "box", "capsule", "cylinder", "mesh"}

// String returns the kind's JSON name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind returns the kind with the given JSON name.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown kind %q (want plane, sphere, box, capsule, cylinder or mesh)", s)
}

func (s *Spec) label() string {
	if s.Name != "" {
		return fmt.Sprintf("obstacle %q", s.Name)
	}
	if s.Kind != "" {
		return fmt.Sprintf("obstacle (%s)", s.Kind)
	}
	return "obstacle"
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func checkLength(field string, x float64) error {
	if !finite(x) {
		return fmt.Errorf("%s must be finite, got %v", field, x)
	}
	if x <= 0 {
		return fmt.Errorf("%s must be positive, got %v m", field, x)
	}
	if x < MinLength || x > MaxLength {
		return fmt.Errorf("%s must be in [%g, %g] m, got %v", field, MinLength, MaxLength, x)
	}
	return nil
}

func checkPoint(field string, a [3]float64) error {
	for _, x := range a {
		if !finite(x) {
			return fmt.Errorf("%s must be finite, got %v", field, a)
		}
		if math.Abs(x) > MaxCoordinate {
			return fmt.Errorf("%s must be within ±%g m, got %v", field, MaxCoordinate, a)
		}
	}
	return nil
}

func checkRotation(prefix string, axis *[3]float64, angle float64) error {
	if axis != nil {
		a := vec3(*axis)
		if !a.IsFinite() {
			return fmt.Errorf("%saxis must be finite, got %v", prefix, *axis)
		}
		// Normalise by the largest component first so that tiny but
		// valid axes are not rejected and huge ones do not overflow.
		m := math.Max(math.Abs(a.X), math.Max(math.Abs(a.Y), math.Abs(a.Z)))
		if m == 0 {
			return fmt.Errorf("%saxis must not be zero", prefix)
		}
	}
	if !finite(angle) {
		return fmt.Errorf("%sangle must be finite, got %v", prefix, angle)
	}
	if math.Abs(angle) > 1e6 {
		return fmt.Errorf("%sangle must be within ±1e6 degrees, got %v", prefix, angle)
	}
	return nil
}

// Validate returns an error naming the obstacle and the first bad key:
// an unknown kind, a non-finite or out-of-range number, a missing size,
// a zero axis, a friction outside [0, 10], a mesh without a file, or
// motion keys whose times are not strictly increasing.
func (s Spec) Validate() error {
	if err := s.validate(); err != nil {
		return fmt.Errorf("%s: %w", s.label(), err)
	}
	return nil
}

func (s *Spec) validate() error {
	kind, err := ParseKind(s.Kind)
	if err != nil {
		return fmt.Errorf("kind: %w", err)
	}
	if err := checkPoint("position", s.Position); err != nil {
		return err
	}
	if err := checkRotation("", s.Axis, s.Angle); err != nil {
		return err
	}
	switch kind {
	case Sphere:
		if err := checkLength("radius", s.Radius); err != nil {
			return err
		}
	case Box:
		for i, x := range s.Size {
			if err := checkLength(fmt.Sprintf("size[%d]", i), x); err != nil {
				return err
			}
		}
	case Capsule:
		if err := checkLength("radius", s.Radius); err != nil {
			return err
		}
		if s.Height != 0 {
			if err := checkLength("height", s.Height); err != nil {
				return err
			}
		}
	case Cylinder:
		if err := checkLength("radius", s.Radius); err != nil {
			return err
		}
		if err := checkLength("height", s.Height); err != nil {
			return err
		}
	case Mesh:
		if s.File == "" {
			return errors.New("file: a mesh obstacle needs an OBJ file")
		}
		if s.Scale != nil {
			if x := *s.Scale; !finite(x) || x <= 0 || x > 1e6 {
				return fmt.Errorf("scale must be positive and at most 1e6, got %v", x)
			}
		}
	}
	if s.Friction != nil {
		if mu := *s.Friction; !(mu >= 0 && mu <= MaxFriction) {
			return fmt.Errorf("friction must be in [0, %g], got %v", float64(MaxFriction), mu)
		}
	}
	if len(s.Motion) > MaxMotionKeys {
		return fmt.Errorf("motion: at most %d keys, got %d", MaxMotionKeys, len(s.Motion))
	}
	for k, key := range s.Motion {
		if !finite(key.T) {
			return fmt.Errorf("motion[%d].t must be finite, got %v", k, key.T)
		}
		if k > 0 && !(key.T > s.Motion[k-1].T) {
			return fmt.Errorf("motion[%d].t: times must be strictly increasing, got %v after %v", k, key.T, s.Motion[k-1].T)
		}
		if err := checkPoint(fmt.Sprintf("motion[%d].offset", k), key.Offset); err != nil {
			return err
		}
		if err := checkRotation(fmt.Sprintf("motion[%d].", k), key.Axis, key.Angle); err != nil {
			return err
		}
	}
	return nil
}

func vec3(a [3]float64) geom.Vec3 { return geom.Vec3{X: a[0], Y: a[1], Z: a[2]} }

func rotation(axis *[3]float64, deg float64) Quat {
	a := geom.Vec3{Y: 1}
	if axis != nil {
		a = vec3(*axis)
		m := math.Max(math.Abs(a.X), math.Max(math.Abs(a.Y), math.Abs(a.Z)))
		a = a.Scale(1 / m)
	}
	return AxisAngle(a, deg*math.Pi/180)
}

// Build validates the spec and returns the obstacle. dir is the directory a
// relative File resolves against (the scene file's directory; "" for the
// working directory).
func (s Spec) Build(dir string) (*Obstacle, error) {
	return s.build(func() (io.ReadCloser, string, error) {
		file := s.File
		if !filepath.IsAbs(file) && dir != "" {
			file = filepath.Join(dir, file)
		}
		f, err := os.Open(file)
		return f, file, err
	})
}

// BuildFS is Build with File resolved against dir inside fsys (for scenes
// embedded in the binary).
func (s Spec) BuildFS(fsys fs.FS, dir string) (*Obstacle, error) {
	return s.build(func() (io.ReadCloser, string, error) {
		file := path.Join(dir, s.File)
		f, err := fsys.Open(file)
		return f, file, err
	})
}

func (s *Spec) build(open func() (io.ReadCloser, string, error)) (*Obstacle, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	kind, _ := ParseKind(s.Kind)
	o := &Obstacle{
		name:     s.Name,
		Kind:     kind,
		Friction: DefaultFriction,
		base:     Pose{Rot: rotation(s.Axis, s.Angle), Trans: vec3(s.Position)},
		radius:   s.Radius,
		height:   s.Height,
		half:     vec3(s.Size).Scale(0.5),
	}
	if o.name == "" {
		o.name = s.Kind
	}
	if s.Friction != nil {
		o.Friction = *s.Friction
	}
	for _, k := range s.Motion {
		o.keys = append(o.keys, key{t: k.T, off: vec3(k.Offset), rot: rotation(k.Axis, k.Angle)})
	}
	if kind == Mesh {
		f, name, err := open()
		if err != nil {
			return nil, fmt.Errorf("%s: file: %w", s.label(), err)
		}
		defer f.Close()
		scale := 1.0
		if s.Scale != nil {
			scale = *s.Scale
		}
		pos, tris, err := readOBJ(io.LimitReader(f, maxOBJBytes+1), name, scale)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.label(), err)
		}
		o.local, o.tris = pos, tris
		o.localNormals = meshNormals(pos, tris)
		o.sdf = newMeshSDF(pos, tris)
	} else {
		o.tessellate(ChordTolerance)
	}
	o.computeLocalBounds()
	return o, nil
}
