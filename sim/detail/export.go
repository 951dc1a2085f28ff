package detail

import (
	"fmt"
	"io"

	"drape/sim/geom"
	"drape/sim/meshio"
)

// WriteSurface writes s as "ply" (meshio.WritePLY: positions, normals,
// raw and display mean curvature, grey) or "obj" (meshio.WriteOBJ). rest,
// when not nil, gives the material coordinates of s's points
// (Detailer.Rest) and goes to the OBJ's vt lines; nil writes zeros. It is
// for `drape run --format ply` with the detail flag. A surface that is not
// a consistently oriented manifold, or an unknown format, returns an error.
func WriteSurface(w io.Writer, s *Surface, rest []geom.Vec2, format string) error {
	if s == nil || len(s.Tris) == 0 {
		return fmt.Errorf("detail: writing an empty surface")
	}
	var m *geom.Mesh
	var err error
	if rest != nil {
		if len(rest) != len(s.Pos) {
			return fmt.Errorf("detail: %d rest coordinates for %d points", len(rest), len(s.Pos))
		}
		m, err = geom.NewMesh(s.Pos, rest, s.Tris)
	} else {
		m, err = geom.NewSurfaceMesh(s.Pos, s.Tris)
	}
	if err != nil {
		return fmt.Errorf("detail: writing surface: %w", err)
	}
	switch format {
	case "ply":
		return meshio.WritePLY(w, m, nil, nil, nil)
	case "obj":
		return meshio.WriteOBJ(w, m)
	}
	return fmt.Errorf("detail: unknown surface format %q (want ply or obj)", format)
}

// Rest returns the material coordinates of the fine points of the last
// Update, m (valid until the next Update).
func (d *Detailer) Rest() []geom.Vec2 { return d.t.fRest }
