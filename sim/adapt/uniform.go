package adapt

import "fmt"

// UniformGeneration reports whether g is a generation that uniform
// refinement brings a whole mesh to: g ≥ 0 and even. One uniform √3 step
// is two generations (Kobbelt 2000): the 1-to-3 split makes faces of the
// odd generation g+1, and only the flip of their outer edges (on the
// boundary, promotion, then the trisection one step later) finishes them
// as faces of g+2; a mesh whose faces all have one odd generation does
// not exist. So g_max must be even wherever the full-resolution mesh of
// an adaptive scene is built: RefineUniform here and in cloth.Sim, a
// scene's fine_start, drape bench and drape compare. This is the one
// place the rule is written.
func UniformGeneration(g int) bool { return g >= 0 && g%2 == 0 }

// CheckUniform returns an error unless uniform refinement can bring a
// mesh to generation g with generations up to gmax: UniformGeneration(g)
// and g ≤ gmax.
func CheckUniform(g, gmax int) error {
	if !UniformGeneration(g) || g > gmax {
		return fmt.Errorf("uniform refinement: generation must be even and in [0, %d], got %d", gmax&^1, g)
	}
	return nil
}

// RefineUniform refines the whole mesh to generation g by g/2 uniform √3
// steps (Kobbelt 2000): step k brings every live face to generation 2k,
// interior faces by the 1-to-3 split and flip, boundary faces alternately
// by the split with promotion and by the trisection of the boundary edge
// (Bender & Deul fig. 3). Each step triples the face count, so g = 6
// multiplies it by 27: the full-resolution mesh that adaptive refinement to
// g_max = g approximates, vertex for vertex (the same Rest, computed by the
// same operations). A face whose refinement would make a rest angle below
// MinAngle stays as it is, and the mesh is then not uniform there: the
// curtain's 820-face base mesh (19.5° at worst) refined to g = 8 has
// 66 400 faces instead of 66 420 (0.97° at worst without the bound); to
// g = 6, the built-in scenes' deepest, every base mesh refines fully
// (8° and more). The changes go to the change record as any Refine's.
// It returns an error, changing nothing, for an odd g or one above GMax.
func (a *Adapter) RefineUniform(g int) error {
	if err := CheckUniform(g, a.gmax); err != nil {
		return err
	}
	m := a.m
	for k := 1; k <= g/2; k++ {
		for {
			did := false
			for f := range m.Tris {
				if m.FaceAlive(f) && Generation(m.Gen[f]) < 2*k && a.Refine(int32(f)) {
					did = true
				}
			}
			if !did {
				break
			}
		}
	}
	return nil
}
