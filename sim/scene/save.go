package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/obstacle"
	"drape/sim/springs"
)

// sceneOut is the JSON form Encode writes: sceneJSON with the parameter
// blocks as values, which encode through their tables (cloth.ParamTable,
// cloth.AdaptTable), and empty optional objects left out.
type sceneOut struct {
	Name         string             `json:"name"`
	Description  string             `json:"description,omitempty"`
	Duration     float64            `json:"duration"`
	Model        string             `json:"model,omitempty"`
	SpringsScene string             `json:"springs_scene,omitempty"`
	Mesh         *MeshSpec          `json:"mesh,omitempty"`
	Placement    *Placement         `json:"placement,omitempty"`
	Pins         []PinSpec          `json:"pins,omitempty"`
	Camera       *Camera            `json:"camera,omitempty"`
	ClothColor   *[3]float64        `json:"cloth_color,omitempty"`
	Material     string             `json:"material,omitempty"`
	Params       json.RawMessage    `json:"params,omitempty"`
	Adapt        *cloth.AdaptParams `json:"adapt,omitempty"`
	Obstacles    []obstacle.Spec    `json:"obstacles,omitempty"`
	Contact      *contact.Params    `json:"contact,omitempty"`
	Strain       json.RawMessage    `json:"strain,omitempty"`
	Springs      *springs.Params    `json:"springs,omitempty"`
}

// Encode returns the scene as indented JSON that ParseScene reads back to
// an equal Scene: every parameter and adaptivity setting is written (not
// only those that differ from the defaults), floats in the shortest form
// that reads back to the same bits, so a saved scene reproduces a run bit
// for bit. A scene with a Material writes its name and leaves out the
// preset's keys that still hold the preset's values (materialBlocks), so
// it keeps the preset and the overrides apart. It validates the scene
// first.
func (s *Scene) Encode() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("scene %s: %w", s.Name, err)
	}
	out := sceneOut{
		Name: s.Name, Description: s.Description, Duration: s.Duration,
		Pins: s.Pins, Camera: s.Camera, ClothColor: s.ClothColor, Adapt: s.Adapt, Obstacles: s.Obstacles,
	}
	if s.IsSprings() {
		// A springs scene writes only its own keys (validateSprings rejects
		// the FEM ones).
		sp := s.Springs
		out.Model, out.SpringsScene, out.Springs = s.Model, s.SpringsScene, &sp
	} else {
		mesh, ct := s.Mesh, s.Contact
		out.Model, out.Mesh, out.Contact = s.Model, &mesh, &ct
		var err error
		if out.Params, out.Strain, err = s.materialBlocks(); err != nil {
			return nil, fmt.Errorf("scene %s: %w", s.Name, err)
		}
		out.Material = s.Material
	}
	if s.Placement != (Placement{}) {
		pl := s.Placement
		out.Placement = &pl
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("scene %s: %w", s.Name, err)
	}
	return b.Bytes(), nil
}

// WriteFile saves the scene to path (Encode), through a temporary file in
// the same directory and a rename, so that a failed write leaves an
// existing file as it was. A relative OBJ mesh.file of a scene read from
// the OS filesystem is rewritten relative to the new file's directory; a
// scene whose OBJ mesh is embedded in the program cannot be saved.
func (s *Scene) WriteFile(path string) error {
	c := s.Clone()
	if s.Mesh.Kind == "obj" {
		file, err := s.relocate(s.Mesh.File, path)
		if err != nil {
			return err
		}
		c.Mesh.File = file
	}
	for i, o := range c.Obstacles {
		if o.File != "" {
			file, err := s.relocate(o.File, path)
			if err != nil {
				return err
			}
			c.Obstacles[i].File = file
		}
	}
	data, err := c.Encode()
	if err != nil {
		return fmt.Errorf("saving %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".scene-*.json")
	if err != nil {
		return fmt.Errorf("saving scene to %s: %w", path, err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving scene to %s: %w", path, err)
	}
	return nil
}

// relocate returns file (a mesh file named by the scene, relative to its
// directory or absolute) relative to the directory of path, where the
// scene is being saved.
func (s *Scene) relocate(file, path string) (string, error) {
	if s.objFS != nil {
		return "", fmt.Errorf("saving scene %s: its mesh %s is built into the program, not a file", s.Name, file)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(s.objDir, file)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", fmt.Errorf("saving scene %s: %w", s.Name, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return "", fmt.Errorf("saving scene %s: %w", s.Name, err)
	}
	if rel, err := filepath.Rel(dir, abs); err == nil {
		abs = rel
	}
	return abs, nil
}

// PinEdit returns the pin entry that repeats, on a rebuilt scene, a pin the
// user set on vertex v of mesh m at target (remove false) or removed
// (remove true). The vertex is named by its material coordinates
// (select "material"), which survive adaptation, unlike slot numbers.
func PinEdit(m *geom.Mesh, v int32, target geom.Vec3, remove bool) PinSpec {
	r := m.Rest[v]
	p := PinSpec{Select: "material", At: &[2]float64{r.X, r.Y}, Remove: remove}
	if !remove {
		p.Target = &[3]float64{target.X, target.Y, target.Z}
	}
	return p
}

// Clone returns a copy of s that shares no slices with it, for a caller
// that edits the copy (the viewer's Save).
func (s *Scene) Clone() *Scene {
	c := *s
	c.Pins = append([]PinSpec(nil), s.Pins...)
	c.Obstacles = append([]obstacle.Spec(nil), s.Obstacles...)
	if s.Adapt != nil {
		a := *s.Adapt
		c.Adapt = &a
	}
	if s.Camera != nil {
		cam := *s.Camera
		c.Camera = &cam
	}
	if s.ClothColor != nil {
		col := *s.ClothColor
		c.ClothColor = &col
	}
	return &c
}
