package obstacle

import (
	"fmt"
	"io"
	"math"

	"drape/sim/geom"
	"drape/sim/meshio"
)

// maxOBJBytes bounds the size of an obstacle's OBJ file.
const maxOBJBytes = 256 << 20

// readOBJ reads an obstacle's OBJ file as a triangle soup
// (meshio.ReadOBJSoup: fan-triangulated polygons, faces that use a vertex
// twice and vertices no face uses dropped), coordinates multiplied by
// scale; a scaled coordinate beyond ±MaxCoordinate is an error at its v
// statement. It does not use meshio.ReadOBJ because that reader builds
// cloth: it requires a consistently oriented manifold with a planar
// parameterisation, which a closed obstacle such as the bunny has not.
// Errors have the form "name:LINE: message".
func readOBJ(r io.Reader, name string, scale float64) ([]geom.Vec3, [][3]int32, error) {
	s, err := meshio.ReadOBJSoup(r, name, maxOBJBytes)
	if err != nil {
		return nil, nil, err
	}
	for i, p := range s.Pos {
		p = p.Scale(scale)
		if math.Abs(p.X) > MaxCoordinate || math.Abs(p.Y) > MaxCoordinate || math.Abs(p.Z) > MaxCoordinate {
			return nil, nil, &meshio.OBJError{File: name, Line: s.Line[i],
				Err: fmt.Errorf("bad coordinate: %v scaled by %g is beyond ±%g m", s.Pos[i], scale, float64(MaxCoordinate))}
		}
		s.Pos[i] = p
	}
	return s.Pos, s.Tris, nil
}
