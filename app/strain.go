package app

import (
	"drape/render"
	"drape/sim/geom"
	"drape/sim/strainlimit"
)

// strainColors computes the colour scalar of the "largest principal
// strain" colour mode (issue 14): per face the largest principal strain
// of the deformation from material to world (strainlimit.PrincipalStrains,
// Tsiknis ch. 2), per vertex the largest over its faces, so that a face
// over the limit shows at its corners. It works on the snapshot (positions
// and material coordinates), on the render goroutine, only while the mode
// is on.
type strainColors struct {
	pos    []geom.Vec3
	rest   []geom.Vec2
	tris   [][3]int32
	face   []float64
	scalar []float32
}

// mesh returns s as a render mesh whose scalar is the per-vertex largest
// principal strain; a surface without material coordinates gets 0.
func (sc *strainColors) mesh(s *Surface) render.Mesh {
	m := s.mesh()
	nv := s.NumVerts()
	sc.scalar = append(sc.scalar[:0], make([]float32, nv)...)
	m.Scalar = sc.scalar
	if len(s.Rest) != 2*nv {
		return m
	}
	sc.pos, sc.rest, sc.tris = sc.pos[:0], sc.rest[:0], sc.tris[:0]
	for i := 0; i < nv; i++ {
		sc.pos = append(sc.pos, geom.Vec3{X: float64(s.Pos[3*i]), Y: float64(s.Pos[3*i+1]), Z: float64(s.Pos[3*i+2])})
		sc.rest = append(sc.rest, geom.Vec2{X: float64(s.Rest[2*i]), Y: float64(s.Rest[2*i+1])})
	}
	for k := 0; k+2 < len(s.Tris); k += 3 {
		sc.tris = append(sc.tris, [3]int32{int32(s.Tris[k]), int32(s.Tris[k+1]), int32(s.Tris[k+2])})
	}
	sc.face = strainlimit.PrincipalStrains(sc.pos, sc.rest, sc.tris, sc.face)
	for f, t := range sc.tris {
		e := float32(sc.face[f])
		for _, v := range t {
			sc.scalar[v] = max(sc.scalar[v], e)
		}
	}
	return m
}

// strainRange is the colour range of the strain mode: 0 to twice the
// larger strain limit in force, so that the limit sits mid-range (10 %
// when limiting is off or the model has none).
func strainRange(p strainlimit.Params) float32 {
	lim := max(p.MaxWeft, p.MaxWarp)
	if !p.Enabled || !(lim > 0) {
		lim = 0.1
	}
	return float32(2 * lim)
}
