package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"drape/sim/adapt"
	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/meshio"
	"drape/sim/obstacle"
	"drape/sim/param"
	"drape/sim/springs"
	"drape/sim/strainlimit"
)

// Scene is a simulation set-up: a mesh, where it hangs, which vertices are
// pinned and how they move, the material and integrator parameters, and
// how long to run. Scenes are data: ParseScene documents the JSON schema,
// Encode writes it back. Parameter blocks (Params, Adapt) are values whose
// param.Table gives their keys; the package doc says how to add one.
type Scene struct {
	Name        string
	Description string
	Duration    float64 // simulated time to run, s
	Mesh        MeshSpec
	Placement   Placement
	Pins        []PinSpec
	Params      cloth.Params       // DefaultParams overridden field by field by the file
	Adapt       *cloth.AdaptParams // adaptive refinement; nil when the file has no "adapt" object
	Obstacles   []obstacle.Spec    // what the cloth collides with (package obstacle documents each key)
	Contact     contact.Params     // collision handling; contact.DefaultParams overridden field by field
	Strain      strainlimit.Params // strain limiting; strainlimit.DefaultParams (off) overridden field by field
	Camera      *Camera            // the viewer's camera; nil: fit the view to the cloth
	ClothColor  *[3]float64        // the cloth's colour in the fabric look, RGB in [0, 1] as displayed; nil: the viewer's default
	Material    string             // fabric preset (package fabric) applied under Params and Strain; "" for none

	// Model is the cloth model: "fem" (the default, also when empty) or
	// "springs" (the mass-spring cloth of package springs, Olson &
	// Rudnick), which takes its cloth from SpringsScene and its
	// parameters from Springs instead of Mesh, Placement, Pins and Params.
	Model        string
	SpringsScene string         // springs: a built-in springs.Scene name, e.g. "tablecloth-dynamic" (springs.SceneNames)
	Springs      springs.Params // springs: springs.DefaultParams overridden field by field by the "springs" block

	source string // file name for messages
	objFS  fs.FS  // where a relative mesh.file resolves; nil: the OS filesystem
	objDir string // directory of the scene file within objFS or the OS
}

// MeshSpec says which mesh a scene uses (JSON object "mesh").
type MeshSpec struct {
	Kind      string  `json:"kind"`                // "grid" (RegularGrid), "staggered" (StaggeredGrid), "irregular" (IrregularGrid) or "obj" (ReadOBJ)
	Width     float64 `json:"width,omitempty"`     // grid, staggered, irregular: material size along X (weft), m
	Height    float64 `json:"height,omitempty"`    // grid, staggered, irregular: material size along Y (warp), m
	NX        int     `json:"nx,omitempty"`        // grid: quads along X; staggered: cells along X
	NY        int     `json:"ny,omitempty"`        // grid: quads along Y; staggered: rows of cells
	Triangles int     `json:"triangles,omitempty"` // irregular: approximate triangle count
	Seed      int64   `json:"seed,omitempty"`      // irregular: jitter seed
	File      string  `json:"file,omitempty"`      // obj: path, relative to the scene file
}

// Placement puts a generated mesh into the world (JSON object "placement").
type Placement struct {
	Origin      [3]float64 `json:"origin"`                // world position of material (0, 0), m
	Orientation string     `json:"orientation,omitempty"` // "vertical" (default) or "horizontal"
	Ripple      float64    `json:"ripple,omitempty"`      // out-of-plane perturbation amplitude, m; 0 for none
	Wavelength  float64    `json:"wavelength,omitempty"`  // ripple wavelength along material X, m; 0 means 0.1 m
	Tilt        float64    `json:"tilt,omitempty"`        // rotation about the world X axis through origin after orientation, degrees, in [−180, 180]
}

// PinSpec pins a set of vertices, optionally along a scripted path
// (JSON array "pins").
type PinSpec struct {
	Select   string      `json:"select"`             // a selector, see ParseScene
	Vertices []int32     `json:"vertices,omitempty"` // select "vertices": vertex slots
	At       *[2]float64 `json:"at,omitempty"`       // select "material": material coordinates (x, y), m; picks the nearest live vertex
	Target   *[3]float64 `json:"target,omitempty"`   // select "material": pin at this world position, m, instead of the initial one
	Remove   bool        `json:"remove,omitempty"`   // unpin the selected vertices instead of pinning them
	Path     []PathKey   `json:"path,omitempty"`     // optional: keyframed offset shared by all selected vertices
	Gather   *Gather     `json:"gather,omitempty"`   // optional: curtain-style gathering along material X
}

// Camera is the viewer's orbit camera (JSON object "camera"; see
// render.Camera): the eye sits at Target + Distance·(cos(pitch)·sin(yaw),
// sin(pitch), cos(pitch)·cos(yaw)), with +Y up.
type Camera struct {
	Target   [3]float64 `json:"target"`   // point looked at, m
	Yaw      float64    `json:"yaw"`      // rotation about +Y, degrees; 0 looks along −Z
	Pitch    float64    `json:"pitch"`    // elevation, degrees, in (−90, 90)
	Distance float64    `json:"distance"` // eye to target, m, > 0
	FovY     float64    `json:"fov_y"`    // vertical field of view, degrees, in (0, 180)
}

// validateColor checks a cloth_color: three finite components in [0, 1].
func validateColor(c *[3]float64) error {
	for _, v := range c {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("cloth_color must be three numbers in [0, 1] (RGB as displayed), got %v", *c)
		}
	}
	return nil
}

func (c *Camera) validate() error {
	for _, v := range []float64{c.Target[0], c.Target[1], c.Target[2], c.Yaw, c.Pitch, c.Distance, c.FovY} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("camera: values must be finite")
		}
	}
	switch {
	case !(c.Pitch > -90 && c.Pitch < 90):
		return fmt.Errorf("camera.pitch must be in (-90, 90) degrees, got %v", c.Pitch)
	case !(c.Distance > 0):
		return fmt.Errorf("camera.distance must be positive, got %v m", c.Distance)
	case !(c.FovY > 0 && c.FovY < 180):
		return fmt.Errorf("camera.fov_y must be in (0, 180) degrees, got %v", c.FovY)
	}
	return nil
}

// PathKey is one keyframe of a pin path.
type PathKey struct {
	T      float64    `json:"t"`      // time, s
	Offset [3]float64 `json:"offset"` // displacement from the pinned vertex's initial position, m
}

// Gather moves each selected vertex along world X so that the selection,
// which spans material X in [x0, x1], ends up spanning Fraction of that
// width, with material X = To kept fixed: x ↦ To + Fraction·(x − To). The
// motion eases in and out (smoothstep) from Start to End, and back to the
// original positions from End to Back (Back = 0: stays gathered).
type Gather struct {
	Start    float64 `json:"start"`    // s
	End      float64 `json:"end"`      // s
	Back     float64 `json:"back"`     // s; 0 to stay gathered
	To       float64 `json:"to"`       // material X that stays fixed, m
	Fraction float64 `json:"fraction"` // gathered width / original width, (0, 1]
}

type sceneJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Duration    float64         `json:"duration"`
	Mesh        MeshSpec        `json:"mesh"`
	Placement   Placement       `json:"placement"`
	Pins        []PinSpec       `json:"pins"`
	Camera      *Camera         `json:"camera"`
	ClothColor  []float64       `json:"cloth_color"` // decoded as a slice, so that a short array is an error
	Material    string          `json:"material"`
	Params      json.RawMessage `json:"params"`
	Adapt       json.RawMessage `json:"adapt"`
	Obstacles   []obstacle.Spec `json:"obstacles"`
	Contact     json.RawMessage `json:"contact"`
	Strain      json.RawMessage `json:"strain"`

	Model        string          `json:"model"`
	SpringsScene string          `json:"springs_scene"`
	Springs      json.RawMessage `json:"springs"`
}

func vec3(a [3]float64) geom.Vec3 { return geom.Vec3{a[0], a[1], a[2]} }

// maxSceneBytes caps the size of a scene file.
const maxSceneBytes = 4 << 20

// ParseScene decodes and validates a scene. source names the input in
// error messages ("source: line L, column C: …" for JSON errors).
// Unknown keys are errors. The schema (all lengths in m, times in s):
//
//	{
//	  "name": "curtain", "description": "free text",
//	  "duration": 20,                  // simulated time, s, > 0
//	  "mesh": {
//	    "kind": "grid",                // "grid" | "staggered" | "irregular" | "obj"
//	    "width": 2.46, "height": 1.8,  // grid, staggered, irregular: size in material space, m
//	    "nx": 123, "ny": 90,           // grid: quads along X and Y (2·nx·ny triangles);
//	                                   //   staggered: cells and rows (ny·(2·nx+1) triangles)
//	    "triangles": 2000, "seed": 1,  // irregular: about this many triangles; jitter seed
//	    "file": "cloth.obj"            // obj: relative to the scene file (see ReadOBJ)
//	  },
//	  "placement": {                   // grid and irregular meshes only, except origin
//	    "origin": [x, y, z],           // world position of material (0,0), m
//	    "orientation": "vertical",     // "vertical": material (x,y) → world (x, y, 0), hanging
//	                                   //   in the xy-plane with y up; "horizontal": → (x, 0, −y),
//	                                   //   lying in the xz-plane, normal +y; default vertical
//	    "ripple": 0.002,               // adds ripple·sin(2π·x/wavelength) along the normal, m
//	    "wavelength": 0.1,             // m, default 0.1
//	    "tilt": 30                     // rotation about world X through origin, degrees
//	  },
//	  "pins": [ {                      // later entries override earlier ones for a vertex
//	    "select": "top-row",           // top-row | bottom-row | left-column | right-column |
//	                                   // top-left | top-right | bottom-left | bottom-right |
//	                                   // top-corners | bottom-corners | corners | vertices | material
//	                                   // (rows, columns and corners of the material bounding box)
//	    "vertices": [0, 30],           // with "select": "vertices": vertex slots
//	    "at": [0.5, 1],                // with "select": "material": the vertex nearest to these
//	                                   //   material coordinates, m
//	    "target": [0.5, 1.2, 0],       // material pins only: pin there instead of where it starts, m
//	    "remove": true,                // optional: unpin the selected vertices instead
//	    "path": [ {"t": 0, "offset": [0,0,0]}, {"t": 2, "offset": [0,0.1,0]} ],
//	                                   // optional: piecewise-linear offset from the initial position
//	    "gather": {"start": 5, "end": 11, "back": 17, "to": 0, "fraction": 0.25}
//	                                   // optional, instead of path: see Gather
//	  } ],
//	  "params": {                      // each key overrides DefaultParams; see Params
//	    "E_x": 1000, "E_y": 1000, "E_s": 1000,   // N/m
//	    "nu_xy": 0.33, "nu_yx": 0.33,            // dimensionless
//	    "density": 0.1,                          // kg/m²
//	    "bending": 2e-5,                         // N·m
//	    "damp_mass": 0.05, "damp_stiff": 0.002,  // 1/s, s
//	    "dt": 0.005, "tolerance": 1e-3, "max_iter": 1000, // s, -, iterations
//	    "gravity": [0, -9.81, 0], "wind": [0, 0, 0],      // m/s², m/s
//	    "air_drag": 0                            // N·s/m³
//	  },
//	  "adapt": {                       // optional: adaptive √3 refinement (AdaptParams); each
//	                                   // key overrides DefaultAdaptParams
//	    "enabled": true,
//	    "l_base": 4, "l_gmax": 40,     // refinement limits on |H| at g = 0 and g = g_max, 1/m
//	    "coarsen": 0.5,                // c in (0, 1): coarsen below c·l_g
//	    "g_max": 6, "interval": 5,     // deepest generation; adapt every interval steps
//	    "max_triangles": 200000,       // hard cap on the triangle count
//	    "fine_start": false,           // true: start at the base mesh refined to g_max (even) and coarsen
//	    "fine_hold": 0.2               // s: with fine_start, no adaptation before this time
//	  },
//	  "camera": {                      // optional: the viewer's camera (see Camera)
//	    "target": [0, 1, 0], "distance": 3, "yaw": 34, "pitch": 20, "fov_y": 45
//	  },
//	  "cloth_color": [0.7, 0.2, 0.15], // optional: the cloth's colour in the viewer's and drape
//	                                   //   record's fabric look, RGB in [0, 1] as displayed
//	  "material": "denim",             // optional: a fabric preset (assets/materials, see
//	                                   //   applyMaterial); "params" and "strain" keys override it
//	  "model": "fem"                   // "fem" (default) | "springs", see below
//	}
//
// A scene with "model": "springs" runs the mass-spring cloth of package
// springs (Olson & Rudnick) instead. Its cloth is one of the package's
// built-in scenes, named by "springs_scene" (springs.SceneNames: "sheet",
// "tablecloth", "pole" or "small", plain for no subdivision or with the
// suffix "-uniform" or "-dynamic"), and its parameters are a "springs"
// block decoded through springs.ParamTable over springs.DefaultParams:
//
//	{ "name": "springs-sheet", "duration": 5, "model": "springs",
//	  "springs_scene": "sheet-dynamic",
//	  "springs": { "k_structural": 50, "dt": 0.0005, "max_layer": 2 } }
//
// Decision: the built-in cloths carry what the FEM keys cannot say (the
// table and pole obstacles of the spring cloth, the small cloth's pin
// targets), so a springs scene names one instead of mapping mesh,
// placement and pins onto a grid; those keys, "adapt" and "obstacles" are
// errors in a springs scene, and "springs" and "springs_scene" are errors
// in a FEM scene. The "params", "contact" and "strain" blocks are read but
// unused by the springs model.
//
// The "params" and "adapt" blocks are decoded through cloth.ParamTable and
// cloth.AdaptTable (package param), which hold every key's unit, default
// and range; the tables of docs/scenes.md are generated from them.
//
// Pins without path or gather are fixed at their initial positions.
func ParseScene(data []byte, source string) (*Scene, error) {
	if len(data) > maxSceneBytes {
		return nil, fmt.Errorf("%s: scene file is larger than %d bytes", source, maxSceneBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var j sceneJSON
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%s: %s", source, jsonErrorText(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := lineCol(data, int(dec.InputOffset()))
		return nil, fmt.Errorf("%s: line %d, column %d: unexpected data after the scene object", source, line, col)
	}
	s := &Scene{
		Name: j.Name, Description: j.Description, Duration: j.Duration,
		Mesh: j.Mesh, Placement: j.Placement, Pins: j.Pins, Camera: j.Camera,
		Obstacles: j.Obstacles,
		Params:    cloth.DefaultParams(), Contact: contact.DefaultParams(), Strain: strainlimit.DefaultParams(),
		Model: j.Model, SpringsScene: j.SpringsScene, Springs: springs.DefaultParams(),
		source: source,
	}
	if j.ClothColor != nil {
		if len(j.ClothColor) != 3 {
			line, col := lineCol(data, keyOffset(data, `"cloth_color"`))
			return nil, fmt.Errorf("%s: line %d, column %d: cloth_color must be three numbers (RGB), got %d", source, line, col, len(j.ClothColor))
		}
		s.ClothColor = (*[3]float64)(j.ClothColor)
	}
	if j.Springs != nil && (j.Model == "" || j.Model == ModelFEM) {
		line, col := lineCol(data, keyOffset(data, `"springs"`))
		return nil, fmt.Errorf("%s: line %d, column %d: the \"springs\" block applies to \"model\": \"springs\" only", source, line, col)
	}
	if err := decodeBlock(data, "springs", j.Springs, springs.ParamTable, &s.Springs); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(path.Base(filepath.ToSlash(source)), ".json")
	}
	if err := s.applyMaterial(data, j.Material); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := decodeBlock(data, "params", j.Params, cloth.ParamTable, &s.Params); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if j.Adapt != nil {
		p := cloth.DefaultAdaptParams()
		if err := decodeBlock(data, "adapt", j.Adapt, cloth.AdaptTable, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		s.Adapt = &p
	}
	if err := decodeBlock(data, "contact", j.Contact, contact.Table, &s.Contact); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := decodeBlock(data, "strain", j.Strain, strainlimit.Table, &s.Strain); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return s, nil
}

// jsonErrorText turns a decoding error into "line L, column C: message".
func jsonErrorText(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := -1
	msg := err.Error()
	switch {
	case errors.As(err, &se):
		off = int(se.Offset) - 1 // Offset counts the offending byte
	case errors.As(err, &te):
		off = int(te.Offset)
		if te.Field != "" {
			msg = fmt.Sprintf("%s: cannot use %s as %s", te.Field, te.Value, te.Type)
		}
	case errors.Is(err, io.EOF):
		return "empty scene file"
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = len(data)
	default:
		if i := strings.Index(msg, "unknown field \""); i >= 0 {
			key := msg[i+len("unknown field "):]
			if k := strings.IndexByte(key[1:], '"'); k >= 0 {
				key = key[:k+2]
			}
			off = keyOffset(data, key)
			msg = "unknown key " + key
		}
	}
	msg = strings.TrimPrefix(msg, "json: ")
	if off < 0 {
		return msg
	}
	line, col := lineCol(data, off)
	return fmt.Sprintf("line %d, column %d: %s", line, col, msg)
}

// keyOffset returns the offset of the first occurrence of the quoted key
// followed by a colon, or −1.
func keyOffset(data []byte, quoted string) int {
	for from := 0; ; {
		i := bytes.Index(data[from:], []byte(quoted))
		if i < 0 {
			return -1
		}
		i += from
		rest := bytes.TrimLeft(data[i+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return i
		}
		from = i + 1
	}
}

// decodeBlock decodes the parameter block raw (the value of the scene's
// key, nil when absent) over dst through its table. An unknown key is
// reported with its line and column in data and the valid keys.
func decodeBlock[T any](data []byte, key string, raw json.RawMessage, t param.Table[T], dst *T) error {
	if raw == nil {
		return nil
	}
	err := t.Decode(raw, dst)
	if err == nil {
		return nil
	}
	var uk *param.UnknownKeyError
	if errors.As(err, &uk) {
		if at := bytes.Index(data, raw); at >= 0 {
			if off := keyOffset(raw, strconv.Quote(uk.Key)); off >= 0 {
				line, col := lineCol(data, at+off)
				return fmt.Errorf("line %d, column %d: %s: %w", line, col, key, err)
			}
		}
	}
	return fmt.Errorf("%s: %w", key, err)
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// pinSelectors lists the selectors a pin entry may use.
var pinSelectors = []string{"top-row", "bottom-row", "left-column", "right-column",
	"top-left", "top-right", "bottom-left", "bottom-right",
	"top-corners", "bottom-corners", "corners", "vertices", "material"}

// Validate returns an error naming the first out-of-range key: a
// non-positive or non-finite duration or size, nx or ny below 1, more than
// MaxTriangles triangles, an unknown mesh kind, orientation or selector, a
// path whose times are not strictly ascending, a gather with
// start ≥ end, back ≤ end, or a fraction outside (0, 1], and parameters
// that Params.Validate rejects. Selections that pick nothing are found
// by Build, which needs the mesh.
func (s *Scene) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if !(s.Duration > 0) || !finite(s.Duration) {
		return fmt.Errorf("duration must be positive and finite, got %v s", s.Duration)
	}
	switch s.Model {
	case "", ModelFEM:
		if s.SpringsScene != "" {
			return fmt.Errorf("springs_scene applies to \"model\": \"springs\" only")
		}
	case ModelSprings:
		return s.validateSprings()
	default:
		return fmt.Errorf("model must be %q or %q, got %q", ModelFEM, ModelSprings, s.Model)
	}
	m := s.Mesh
	switch m.Kind {
	case "grid", "staggered", "irregular":
		if !(m.Width > 0) || !finite(m.Width) {
			return fmt.Errorf("mesh.width must be positive and finite, got %v m", m.Width)
		}
		if !(m.Height > 0) || !finite(m.Height) {
			return fmt.Errorf("mesh.height must be positive and finite, got %v m", m.Height)
		}
		if m.Kind == "grid" || m.Kind == "staggered" {
			if m.NX < 1 || m.NY < 1 {
				return fmt.Errorf("mesh.nx and mesh.ny must be at least 1, got %d and %d", m.NX, m.NY)
			}
			if m.NX > geom.MaxTriangles/3/m.NY {
				return fmt.Errorf("mesh.nx × mesh.ny = %d × %d give more than %d triangles", m.NX, m.NY, geom.MaxTriangles)
			}
		} else if m.Triangles < 2 || m.Triangles > geom.MaxTriangles {
			return fmt.Errorf("mesh.triangles must be in [2, %d], got %d", geom.MaxTriangles, m.Triangles)
		}
	case "obj":
		if m.File == "" {
			return fmt.Errorf("mesh.file is required for mesh.kind \"obj\"")
		}
		if s.Placement.Orientation != "" || s.Placement.Ripple != 0 || s.Placement.Tilt != 0 {
			return fmt.Errorf("placement.orientation, placement.ripple and placement.tilt apply to generated meshes only, not to mesh.kind \"obj\"")
		}
	default:
		return fmt.Errorf("mesh.kind must be \"grid\", \"staggered\", \"irregular\" or \"obj\", got %q", m.Kind)
	}
	p := s.Placement
	for _, o := range p.Origin {
		if !finite(o) {
			return fmt.Errorf("placement.origin must be finite, got %v", p.Origin)
		}
	}
	if o := p.Orientation; o != "" && o != "vertical" && o != "horizontal" {
		return fmt.Errorf("placement.orientation must be \"vertical\" or \"horizontal\", got %q", o)
	}
	if !(p.Ripple >= 0) || !finite(p.Ripple) {
		return fmt.Errorf("placement.ripple must be non-negative and finite, got %v m", p.Ripple)
	}
	if !(p.Tilt >= -180 && p.Tilt <= 180) {
		return fmt.Errorf("placement.tilt must be in [-180, 180] degrees, got %v", p.Tilt)
	}
	if !(p.Wavelength >= 0) || !finite(p.Wavelength) {
		return fmt.Errorf("placement.wavelength must be non-negative and finite, got %v m", p.Wavelength)
	}
	for i, pin := range s.Pins {
		if err := pin.validate(); err != nil {
			return fmt.Errorf("pins[%d].%w", i, err)
		}
	}
	if err := s.Params.Validate(); err != nil {
		return fmt.Errorf("params: %w", err)
	}
	if s.Adapt != nil {
		if err := s.Adapt.Validate(); err != nil {
			return fmt.Errorf("adapt: %w", err)
		}
		if s.Adapt.FineStart && !adapt.UniformGeneration(s.Adapt.GMax) {
			return fmt.Errorf("adapt: fine_start refines the base mesh uniformly to g_max, which must be even, got g_max = %d", s.Adapt.GMax)
		}
	}
	for i, o := range s.Obstacles {
		if err := o.Validate(); err != nil {
			return fmt.Errorf("obstacles[%d]: %w", i, err)
		}
	}
	if err := s.Contact.Validate(); err != nil {
		return fmt.Errorf("contact: %w", err)
	}
	if err := s.Strain.Validate(); err != nil {
		return fmt.Errorf("strain: %w", err)
	}
	if s.Camera != nil {
		if err := s.Camera.validate(); err != nil {
			return err
		}
	}
	if s.ClothColor != nil {
		if err := validateColor(s.ClothColor); err != nil {
			return err
		}
	}
	return nil
}

// The cloth models a scene's "model" key names.
const (
	ModelFEM     = "fem"     // Bender & Deul's FEM cloth, package cloth (the default)
	ModelSprings = "springs" // Olson & Rudnick's mass-spring cloth, package springs
)

// IsSprings reports whether the scene runs the mass-spring cloth.
func (s *Scene) IsSprings() bool { return s.Model == ModelSprings }

// Dt returns the time step of the scene's model, s.
func (s *Scene) Dt() float64 {
	if s.IsSprings() {
		return s.Springs.Dt
	}
	return s.Params.Dt
}

// validateSprings checks a "model": "springs" scene: a known springs_scene,
// valid springs parameters, and none of the FEM keys that would be
// silently ignored (mesh, placement, pins, adapt, obstacles).
func (s *Scene) validateSprings() error {
	if s.SpringsScene == "" {
		return fmt.Errorf("springs_scene is required for \"model\": \"springs\" (one of %s)", strings.Join(springs.SceneNames(), ", "))
	}
	if _, err := springs.Scene(s.SpringsScene); err != nil {
		return fmt.Errorf("springs_scene: %w", err)
	}
	switch {
	case s.Mesh != (MeshSpec{}):
		return fmt.Errorf("mesh: a springs scene takes its grid from springs_scene, not from mesh")
	case s.Placement != (Placement{}):
		return fmt.Errorf("placement: a springs scene takes its placement from springs_scene")
	case len(s.Pins) > 0:
		return fmt.Errorf("pins: a springs scene takes its fixed particles from springs_scene (the viewer pins and drags particles)")
	case s.Adapt != nil:
		return fmt.Errorf("adapt: a springs scene subdivides by its springs_scene variant and the \"springs\" block, not by adapt")
	case len(s.Obstacles) > 0:
		return fmt.Errorf("obstacles: a springs scene takes its obstacles from springs_scene")
	}
	if err := s.Springs.Validate(); err != nil {
		return fmt.Errorf("springs: %w", err)
	}
	if s.Camera != nil {
		if err := s.Camera.validate(); err != nil {
			return err
		}
	}
	if s.ClothColor != nil {
		if err := validateColor(s.ClothColor); err != nil {
			return err
		}
	}
	return nil
}

// BuildSprings returns the mass-spring cloth of a "model": "springs" scene:
// springs.Scene(SpringsScene) with the Springs parameters.
func (s *Scene) BuildSprings() (*springs.Cloth, error) {
	if !s.IsSprings() {
		return nil, fmt.Errorf("scene %s runs the FEM cloth, not the springs model", s.Name)
	}
	spec, err := springs.Scene(s.SpringsScene)
	if err != nil {
		return nil, fmt.Errorf("scene %s: %w", s.Name, err)
	}
	c, err := springs.New(spec, s.Springs)
	if err != nil {
		return nil, fmt.Errorf("scene %s: %w", s.Name, err)
	}
	return c, nil
}

func (p *PinSpec) validate() error {
	known := false
	for _, s := range pinSelectors {
		known = known || s == p.Select
	}
	if !known {
		return fmt.Errorf("select: unknown selector %q (want one of %s)", p.Select, strings.Join(pinSelectors, ", "))
	}
	if (p.Select == "vertices") != (len(p.Vertices) > 0) {
		return fmt.Errorf("vertices: a non-empty list goes with \"select\": \"vertices\" and only with it")
	}
	if (p.Select == "material") != (p.At != nil) {
		return fmt.Errorf("at: material coordinates go with \"select\": \"material\" and only with it")
	}
	if p.At != nil && !vec3([3]float64{p.At[0], p.At[1], 0}).IsFinite() {
		return fmt.Errorf("at: must be finite, got %v", *p.At)
	}
	if p.Target != nil && (p.Select != "material" || p.Remove || p.Path != nil || p.Gather != nil) {
		return fmt.Errorf("target: goes with \"select\": \"material\" only, without remove, path or gather")
	}
	if p.Target != nil && !vec3(*p.Target).IsFinite() {
		return fmt.Errorf("target: must be finite, got %v", *p.Target)
	}
	if p.Remove && (p.Path != nil || p.Gather != nil) {
		return fmt.Errorf("remove: a removal has no path or gather")
	}
	if p.Path != nil && p.Gather != nil {
		return fmt.Errorf("path: give either path or gather, not both")
	}
	if p.Path != nil && len(p.Path) == 0 {
		return fmt.Errorf("path: needs at least one key")
	}
	for k, key := range p.Path {
		if math.IsNaN(key.T) || math.IsInf(key.T, 0) || !vec3(key.Offset).IsFinite() {
			return fmt.Errorf("path[%d]: t and offset must be finite", k)
		}
		if k > 0 && !(key.T > p.Path[k-1].T) {
			return fmt.Errorf("path[%d].t: times must be strictly ascending, got %v after %v", k, key.T, p.Path[k-1].T)
		}
	}
	if g := p.Gather; g != nil {
		for _, v := range []float64{g.Start, g.End, g.Back, g.To, g.Fraction} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("gather: values must be finite")
			}
		}
		if !(g.Start >= 0 && g.End > g.Start) {
			return fmt.Errorf("gather: need 0 ≤ start < end, got start=%v end=%v", g.Start, g.End)
		}
		if g.Back != 0 && !(g.Back > g.End) {
			return fmt.Errorf("gather.back must be 0 (stay gathered) or after end=%v, got %v", g.End, g.Back)
		}
		if !(g.Fraction > 0 && g.Fraction <= 1) {
			return fmt.Errorf("gather.fraction must be in (0, 1], got %v", g.Fraction)
		}
	}
	return nil
}

// LoadScene reads a scene. When nameOrPath ends in ".json" or names an
// existing file, it is read from the OS filesystem; otherwise it is looked
// up as scenes/<name>.json in fsys (typically assets.Scenes), and an
// unknown name is an error listing the available ones. A relative mesh.file
// resolves against the scene file's directory in the same filesystem.
func LoadScene(fsys fs.FS, nameOrPath string) (*Scene, error) {
	if st, err := os.Stat(nameOrPath); strings.HasSuffix(nameOrPath, ".json") || (err == nil && st.Mode().IsRegular()) {
		data, err := readLimited(os.Open(nameOrPath))
		if err != nil {
			return nil, fmt.Errorf("loading scene: %w", err)
		}
		s, err := ParseScene(data, nameOrPath)
		if err != nil {
			return nil, fmt.Errorf("loading scene %w", err)
		}
		s.objDir = filepath.Dir(nameOrPath)
		return s, nil
	}
	names := SceneNames(fsys)
	known := false
	for _, n := range names {
		known = known || n == nameOrPath
	}
	if !known {
		return nil, fmt.Errorf("unknown scene %q: not a file, and not one of the built-in scenes (%s)", nameOrPath, strings.Join(names, ", "))
	}
	file := "scenes/" + nameOrPath + ".json"
	data, err := readLimited(fsys.Open(file))
	if err != nil {
		return nil, fmt.Errorf("loading scene %s: %w", nameOrPath, err)
	}
	s, err := ParseScene(data, nameOrPath+".json")
	if err != nil {
		return nil, fmt.Errorf("loading scene %w", err)
	}
	s.objFS, s.objDir = fsys, "scenes"
	return s, nil
}

// readLimited reads at most maxSceneBytes+1 bytes from an opened file.
func readLimited(f io.ReadCloser, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSceneBytes+1))
}

// SceneNames returns the names of the scenes in fsys (scenes/*.json
// without the extension), sorted; nil when fsys is nil.
func SceneNames(fsys fs.FS) []string {
	if fsys == nil {
		return nil
	}
	files, _ := fs.Glob(fsys, "scenes/*.json")
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(path.Base(f), ".json"))
	}
	sort.Strings(names)
	return names
}

// BuildMesh returns the scene's mesh placed in the world: a generated
// rectangle mapped by Placement (world = origin + orientation(material)
// + ripple·sin(2π·x/wavelength)·normal), or an OBJ mesh moved by origin.
func (s *Scene) BuildMesh() (*geom.Mesh, error) {
	var (
		m   *geom.Mesh
		err error
	)
	switch s.Mesh.Kind {
	case "grid":
		m, err = geom.RegularGrid(s.Mesh.Width, s.Mesh.Height, s.Mesh.NX, s.Mesh.NY)
	case "staggered":
		m, err = geom.StaggeredGrid(s.Mesh.Width, s.Mesh.Height, s.Mesh.NX, s.Mesh.NY)
	case "irregular":
		m, err = geom.IrregularGrid(s.Mesh.Width, s.Mesh.Height, s.Mesh.Triangles, s.Mesh.Seed)
	case "obj":
		if m, err = s.loadOBJ(); err != nil {
			return nil, fmt.Errorf("scene %s: mesh.file: %w", s.Name, err)
		}
	default:
		err = fmt.Errorf("mesh.kind %q is unknown", s.Mesh.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("scene %s: mesh: %w", s.Name, err)
	}
	origin := vec3(s.Placement.Origin)
	if s.Mesh.Kind == "obj" {
		for i := range m.Pos {
			m.Pos[i] = m.Pos[i].Add(origin)
		}
		return m, nil
	}
	lambda := s.Placement.Wavelength
	if lambda == 0 {
		lambda = 0.1
	}
	sin, cos := math.Sincos(s.Placement.Tilt * math.Pi / 180)
	for i, r := range m.Rest {
		w := s.Placement.Ripple * math.Sin(2*math.Pi*r.X/lambda)
		p := geom.Vec3{r.X, r.Y, w} // vertical
		if s.Placement.Orientation == "horizontal" {
			p = geom.Vec3{r.X, w, -r.Y}
		}
		p.Y, p.Z = cos*p.Y-sin*p.Z, sin*p.Y+cos*p.Z
		m.Pos[i] = origin.Add(p)
	}
	return m, nil
}

func (s *Scene) loadOBJ() (*geom.Mesh, error) {
	if s.objFS == nil {
		file := s.Mesh.File
		if !filepath.IsAbs(file) && s.objDir != "" {
			file = filepath.Join(s.objDir, file)
		}
		return meshio.LoadOBJ(file)
	}
	file := path.Join(s.objDir, s.Mesh.File)
	f, err := s.objFS.Open(file)
	if err != nil {
		return nil, fmt.Errorf("loading mesh: %w", err)
	}
	defer f.Close()
	return meshio.ReadOBJ(f, file)
}

// Build returns a simulation of the scene: BuildMesh, New with the
// scene's Params, then the pins in order (fixed pins at the vertices'
// initial positions, scripted ones with PinPath), then the adaptive
// settings, if the scene has them, then obstacles, contact and strain
// limiting; last, with adapt.fine_start, the mesh refined uniformly to
// adapt.g_max (Sim.RefineUniform; an error for an odd g_max).
func (s *Scene) Build() (*cloth.Sim, error) {
	if s.IsSprings() {
		return nil, fmt.Errorf("scene %s runs the springs model: build it with BuildSprings", s.Name)
	}
	m, err := s.BuildMesh()
	if err != nil {
		return nil, err
	}
	sim, err := cloth.New(m, s.Params)
	if err != nil {
		return nil, fmt.Errorf("scene %s: %w", s.Name, err)
	}
	for i, pin := range s.Pins {
		vs, err := pin.selectVertices(m)
		if err != nil {
			return nil, fmt.Errorf("scene %s: pins[%d]: %w", s.Name, i, err)
		}
		if pin.Remove {
			for _, v := range vs {
				sim.Unpin(v)
			}
			continue
		}
		paths := pin.paths(m, vs)
		for k, v := range vs {
			if pin.Target != nil {
				err = sim.Pin(v, vec3(*pin.Target))
			} else if paths == nil {
				err = sim.Pin(v, m.Pos[v])
			} else {
				err = sim.PinPath(v, paths[k])
			}
			if err != nil {
				return nil, fmt.Errorf("scene %s: pins[%d]: vertex %d: %w", s.Name, i, v, err)
			}
		}
	}
	if s.Adapt != nil {
		if err := sim.SetAdaptParams(*s.Adapt); err != nil {
			return nil, fmt.Errorf("scene %s: adapt: %w", s.Name, err)
		}
	}
	obs, err := s.BuildObstacles()
	if err != nil {
		return nil, err
	}
	sim.SetObstacles(obs)
	if err := sim.SetContactParams(s.Contact); err != nil {
		return nil, fmt.Errorf("scene %s: %w", s.Name, err)
	}
	if err := sim.SetStrainParams(s.Strain); err != nil {
		return nil, fmt.Errorf("scene %s: %w", s.Name, err)
	}
	if s.Adapt != nil && s.Adapt.FineStart {
		// Adaptive coarsening (Mujahid et al. §4.3) starts at the finest
		// mesh: the base mesh refined uniformly to g_max, as "drape
		// bench" builds its full-resolution run.
		if err := sim.RefineUniform(s.Adapt.GMax); err != nil {
			return nil, fmt.Errorf("scene %s: adapt.fine_start: %w", s.Name, err)
		}
	}
	return sim, nil
}

// BuildObstacles returns the scene's obstacles, with mesh files resolved
// relative to the scene file (or inside the program for built-in scenes).
func (s *Scene) BuildObstacles() ([]*obstacle.Obstacle, error) {
	obs := make([]*obstacle.Obstacle, len(s.Obstacles))
	for i, spec := range s.Obstacles {
		var err error
		if s.objFS != nil {
			obs[i], err = spec.BuildFS(s.objFS, s.objDir)
		} else {
			obs[i], err = spec.Build(s.objDir)
		}
		if err != nil {
			return nil, fmt.Errorf("scene %s: obstacles[%d]: %w", s.Name, i, err)
		}
	}
	return obs, nil
}

// selectVertices returns the live vertex slots a pin entry selects, in
// increasing order, or an error if it selects none.
func (p *PinSpec) selectVertices(m *geom.Mesh) ([]int32, error) {
	var vs []int32
	if p.Select == "vertices" {
		for _, v := range p.Vertices {
			if v < 0 || int(v) >= len(m.Pos) || !m.VertAlive[v] {
				return nil, fmt.Errorf("vertices: %d is not a vertex (the mesh has %d)", v, m.NumVerts())
			}
			vs = append(vs, v)
		}
		return vs, nil
	}
	if p.Select == "material" {
		if v := NearestVertex(m, geom.Vec2{X: p.At[0], Y: p.At[1]}); v >= 0 {
			return []int32{v}, nil
		}
		return nil, fmt.Errorf("select \"material\": the mesh has no vertex")
	}
	lo, hi := geom.Vec2{math.Inf(1), math.Inf(1)}, geom.Vec2{math.Inf(-1), math.Inf(-1)}
	for i, r := range m.Rest {
		if m.VertAlive[i] {
			lo = geom.Vec2{math.Min(lo.X, r.X), math.Min(lo.Y, r.Y)}
			hi = geom.Vec2{math.Max(hi.X, r.X), math.Max(hi.Y, r.Y)}
		}
	}
	tol := 1e-9 * math.Max(hi.X-lo.X, hi.Y-lo.Y)
	line := func(coord func(geom.Vec2) float64, at float64) {
		for i, r := range m.Rest {
			if m.VertAlive[i] && math.Abs(coord(r)-at) <= tol {
				vs = append(vs, int32(i))
			}
		}
	}
	nearest := func(c geom.Vec2) {
		best, bd := int32(-1), math.Inf(1)
		for i, r := range m.Rest {
			if d := r.Sub(c).Norm2(); m.VertAlive[i] && d < bd {
				best, bd = int32(i), d
			}
		}
		if best >= 0 && (len(vs) == 0 || vs[len(vs)-1] != best) {
			vs = append(vs, best)
		}
	}
	x := func(r geom.Vec2) float64 { return r.X }
	y := func(r geom.Vec2) float64 { return r.Y }
	tl, tr, bl, br := geom.Vec2{lo.X, hi.Y}, hi, lo, geom.Vec2{hi.X, lo.Y}
	switch p.Select {
	case "top-row":
		line(y, hi.Y)
	case "bottom-row":
		line(y, lo.Y)
	case "left-column":
		line(x, lo.X)
	case "right-column":
		line(x, hi.X)
	case "top-left":
		nearest(tl)
	case "top-right":
		nearest(tr)
	case "bottom-left":
		nearest(bl)
	case "bottom-right":
		nearest(br)
	case "top-corners":
		nearest(tl)
		nearest(tr)
	case "bottom-corners":
		nearest(bl)
		nearest(br)
	case "corners":
		nearest(bl)
		nearest(br)
		nearest(tl)
		nearest(tr)
	default:
		return nil, fmt.Errorf("select: unknown selector %q", p.Select)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	vs = compactInt32(vs)
	if len(vs) == 0 {
		return nil, fmt.Errorf("select %q picks no vertex", p.Select)
	}
	return vs, nil
}

func compactInt32(vs []int32) []int32 {
	out := vs[:0]
	for i, v := range vs {
		if i == 0 || v != vs[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// NearestVertex returns the live vertex slot whose material coordinates
// are nearest to at (the lowest slot among equally near ones), or −1 for a
// mesh without vertices. A "material" pin uses it, so a pin saved from an
// adapted mesh finds its vertex again in the base mesh when that vertex
// existed there, and the nearest base vertex otherwise.
func NearestVertex(m *geom.Mesh, at geom.Vec2) int32 {
	best, bd := int32(-1), math.Inf(1)
	for i, r := range m.Rest {
		if d := r.Sub(at).Norm2(); m.VertAlive[i] && d < bd {
			best, bd = int32(i), d
		}
	}
	return best
}

// gatherKeys is the number of keyframes per gather transition; the
// piecewise-linear Path then follows smoothstep 3u²−2u³ closely.
const gatherKeys = 16

// paths returns one Path per selected vertex, or nil for fixed pins.
// Explicit paths are shared by all vertices; gather paths differ per
// vertex, by the offset ((To + Fraction·(x − To)) − x, 0, 0) at full gather,
// x the vertex's material X (material X is world X in both orientations).
func (p *PinSpec) paths(m *geom.Mesh, vs []int32) []*cloth.Path {
	switch {
	case p.Path != nil:
		path := &cloth.Path{}
		for _, k := range p.Path {
			path.Times = append(path.Times, k.T)
			path.Offsets = append(path.Offsets, vec3(k.Offset))
		}
		out := make([]*cloth.Path, len(vs))
		for i := range out {
			out[i] = path
		}
		return out
	case p.Gather != nil:
		g := p.Gather
		// Shared times and smoothstep weights.
		var times, weights []float64
		add := func(t, w float64) { times = append(times, t); weights = append(weights, w) }
		add(0, 0)
		ramp := func(t0, t1 float64, up bool) {
			for k := 1; k <= gatherKeys; k++ {
				u := float64(k) / gatherKeys
				w := u * u * (3 - 2*u)
				if !up {
					w = 1 - w
				}
				add(t0+(t1-t0)*u, w)
			}
		}
		if g.Start > 0 {
			add(g.Start, 0)
		}
		ramp(g.Start, g.End, true)
		if g.Back != 0 {
			ramp(g.End, g.Back, false)
		}
		out := make([]*cloth.Path, len(vs))
		for i, v := range vs {
			x := m.Rest[v].X
			full := geom.Vec3{(g.To + g.Fraction*(x-g.To)) - x, 0, 0}
			path := &cloth.Path{Times: times, Offsets: make([]geom.Vec3, len(times))}
			for k, w := range weights {
				path.Offsets[k] = full.Scale(w)
			}
			out[i] = path
		}
		return out
	}
	return nil
}
